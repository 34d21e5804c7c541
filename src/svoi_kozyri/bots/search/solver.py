"""Exact solver for open positions (at most two players still hold cards).

Why this exists: once only two players hold cards there is no stock and no
discard to hide anything (SPEC A7), so each of them knows the other's hand and
the rest of the hand is a two-player game of perfect information.  The
two-player game with two suits each and the Besicovitch game are open from the
first card.  Such positions can be solved exactly instead of sampled.

Values are from the point of view of the player to act: ``+1`` the opponent
becomes the durak (in the Besicovitch game: I go out first), ``0`` a draw (the
last-card draw of SPEC A12, or a repetition), ``-1`` I am the durak.

Technique:

* **two boolean questions instead of one three-valued search**: "can the player
  to act force a win?" and "can the opponent force a win?"; the player avoids
  losing exactly when the second answer is no.  A drawn ending and a
  repetition count as *failure for the side trying to win* (success for the
  defender), so a draw is proven by two refutations, each of which may stop at
  the first defence found, instead of a search that must separate draw from
  win and loss at every node;
* each question by iterative deepening depth-first search over the step-level
  actions (a two-card turn is two plies of the same player: far better
  pruning than the up to ~300 turn-level moves), on the two-player rules step
  over two bitmask hands and the pile code (:mod:`.rules2p`, shared with the
  endgame tables and checked against the engine in the tests).  "Win within
  ``d`` steps" is exact and monotone in ``d``; a refutation that never touched
  the horizon holds at every depth.  After a win is found the least ``d`` is
  found by bisection, so the move returned belongs to a shortest win: playing
  the solver's moves always makes progress and converts the win;
* what the first ``quick_depth`` steps of deepening leave open is decided by a
  **local least fixpoint of the reachable graph** (:meth:`.fixpoint.Fixpoint.decide`,
  after Liu and Smolka): one node per position whatever the path to it, so no
  graph-history interaction and nothing searched twice; the positions left
  unproven when the work runs out are a closed set the defender keeps the play
  in, a refutation valid in any context.  Its wins carry a rank that falls
  along the stored steps, so they are converted like the shortest wins.  It
  runs compiled (:mod:`svoi_kozyri._native.fixpoint`, numba: flat arrays, about ten times the
  speed in a tenth of the memory) except where the hand's history matters;
* **move ordering**: the table's step, going out, leads the opponent cannot
  beat, cheap beats, pickup last (the fixpoint's defender: pickup first); the
  table of the other question cuts too (if the opponent can force a win, the
  player to act cannot);
* with a time budget the best proven bounds so far and a move achieving the
  lower one (a shortest win, a move that keeps "no loss" proven, or the move
  that held out longest against the opponent's win).

**Repetitions and the graph-history interaction** (SPEC D; Kishimoto and
Müller 2004).  A position that repeats on the current search path is a failure
for the attacker.  That is exact: a player who can force a win has a
memoryless winning strategy along which the distance to the win strictly
falls, so it never revisits a position; scoring the first repetition as a
failure therefore gives the same answers as the real threefold rule (and as
"endless play is a draw").  But a refutation that used a repetition of a
position *above* the current node is only true in that path context; storing
it in the transposition table as a plain fact is the classic GHI bug.  So
wins never depend on the path (a repetition never helps the attacker) and are
always stored; a refutation carries the lowest and highest path index of the
repetitions it relied on.  When none lies above the node it is
path-independent and goes into the transposition table; otherwise it goes into
a second, path-dependent table together with the search-path generation of the
highest such ancestor, and is reused only while that ancestor (and therefore
the whole path prefix holding every repetition it relied on) is still on the
current path.  More failures above can only make a refutation truer, so reuse
in a longer path is sound.  (This is Kishimoto and Müller's idea of keeping
path-dependent results apart from the table, in its simplest exact form.)

**The engine's real guards.**  Positions of the current hand that have
already occurred ``repetition_limit - 1`` times (the threefold rule counts from
the start of the hand) would end the hand as a draw if entered again: the
search treats them as draws (with tables of its own, as values then depend on
the hand's history).  Wins are searched only within the action cap's
remaining turns.  So a proven win is always converted under the engine's own
rules; a test plays proven wins out.

**Layout.**  :class:`Solver` is a facade over four algorithms sharing one
:class:`~.proof.SearchContext`: :class:`TableProbe` (the endgame tables),
:class:`~.proofsearch.WinSearch` (the depth-first search above),
:class:`~.fixpoint.Fixpoint` and :class:`~.dfpn.Dfpn`.  Each answers one
question at a time with a frozen :class:`~.proof.Proof`, and :meth:`Solver.solve`
folds them in the order it runs them (:func:`~.proof.fold` says why that is sound).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ...core import (
    FREE,
    LEAD,
    OVER,
    RESPOND,
    HandOverError,
    Move,
    Observation,
    PositionError,
    State,
)
from .dfpn import Dfpn
from .endgame import EndgameTables
from .fixpoint import MAX_FAST_GRAPH, Fixpoint
from .proof import BIG as _BIG
from .proof import NO_PROOF, Proof, Root, SearchContext, SolverTimeout, fold
from .proofsearch import WinSearch
from .rules2p import TwoPlayerRules, encode, pos_key

__all__ = [
    "QUICK_DEPTH",
    "SolveResult",
    "Solver",
    "SolverTimeout",
    "exhaustive_value",
    "expected_reward",
    "is_open",
    "open_state",
    "terminal_value",
    "value_text",
]

#: The depth-first phase of :meth:`Solver.solve` searches up to this many steps
#: (wins within it are found with their shortest distance) before the fixpoint of
#: the reachable graph settles what is left.
QUICK_DEPTH = 6


def is_open(state: State) -> bool:
    """True when the hand is in progress at a turn boundary and at most two players
    hold cards (so every card's location is known to both of them)."""
    if state.phase not in (FREE, RESPOND):
        return False
    return sum(1 for h in state.hands if h) <= 2


def open_state(obs: Observation) -> State | None:
    """The full state behind ``obs`` when the position is open for its viewer:
    the viewer holds cards, exactly one other player does, and that player's hand
    is therefore everything not in the viewer's hand, the pile or the discard.
    Returns ``None`` otherwise (a hidden-information position)."""
    if obs.seat is None or obs.phase not in (FREE, RESPOND):
        return None
    active = [i for i, k in enumerate(obs.hand_sizes) if k]
    if len(active) != 2 or obs.seat not in active:
        return None
    other = active[0] if active[1] == obs.seat else active[1]
    hands = list(obs.hands)
    hands[other] = obs.hands[other] | obs.known[other] | obs.unseen()
    if hands[other].bit_count() != obs.hand_sizes[other]:
        return None
    return obs.to_state(hands)


@dataclass
class SolveResult:
    """What the solver found for one position.

    ``lo``/``hi`` are proven bounds on the value for the player to act;
    ``value`` is set when they meet.  ``move`` achieves at least ``lo``.
    """

    lo: int
    hi: int
    move: Move | None
    nodes: int
    seconds: float
    depth: int
    pv: list[Move] = field(default_factory=list)

    @property
    def proven(self) -> bool:
        """True when the exact value is known."""
        return self.lo == self.hi

    @property
    def value(self) -> int | None:
        """The exact value, or ``None`` if the budget ran out first."""
        return self.lo if self.lo == self.hi else None


def expected_reward(res: SolveResult) -> float:
    """A solver result as the bots' reward scale for the player to act (1 win,
    ½ draw, 0 loss); unproven, the middle of the proven bounds."""
    return ((res.lo + res.hi) / 2.0 + 1.0) / 2.0


def value_text(v: int | None, lo: int = -1, hi: int = 1) -> str:
    """Human wording of a value for the player to act."""
    if v is None:
        names = {-1: "loss", 0: "draw", 1: "win"}
        return f"unproven (between {names[lo]} and {names[hi]})"
    return {1: "win", 0: "draw", -1: "loss"}[v]


class _Pair:
    """The rules and the four transposition tables of one game and pair of seats
    (see :class:`~.proof.SearchContext` for what the tables hold): they persist
    between the solver's calls on positions of those seats."""

    def __init__(self, seats: tuple[int, ...], rules: TwoPlayerRules) -> None:
        self.seats = seats
        self.rules = rules
        self.tables: list[dict[int, list[int]]] = [{}, {}, {}, {}]


class TableProbe:
    """The exact endgame tables as one of the solver's algorithms: a position they
    hold is answered at once."""

    def __init__(self, tables: EndgameTables | None) -> None:
        self.tables = tables

    def prove(self, state: State, danger: bool) -> Proof:
        """The tables' exact value of ``state`` as a proof (both questions settled,
        with the tables' move), or :data:`~.proof.NO_PROOF`.

        History-free table values are exact only when no position of this hand is
        one occurrence short of the threefold rule (``danger``), and
        ``probe_move`` refuses a win or loss longer than the steps the action cap
        leaves."""
        if self.tables is None or danger:
            return NO_PROOF
        cap = state.game.rules.max_actions_per_hand
        hit = self.tables.probe_move(state, cap - state.turns - 1 if cap else None)
        if hit is None:
            return NO_PROOF
        tv, tm, _optimal = hit
        if tv == 1:
            return Proof(win_me=True, win_opp=False, move=tm)
        if tv == 0:
            return Proof(win_me=False, win_opp=False, safe=tm)
        return Proof(win_me=False, win_opp=True, hope=tm)


#: an algorithm's answer to one question: ``prove(root, moves, me, att, arg)``
#: (``arg``: the depth, the df-pn slice's nodes or the action cap's steps)
_Prover = Callable[[Root, list[Move], int, int, int], Proof]


class _Ledger:
    """The fold of the proofs one :meth:`Solver.solve` call has so far.

    Why an object: the clock may stop any algorithm (``SolverTimeout``); every
    question answered before that still counts, so each proof is folded in as
    soon as it is returned, and the fold survives the exception."""

    def __init__(self, proof: Proof) -> None:
        self.proof = proof

    def ask(self, prove: _Prover, root: Root, moves: list[Move], me: int, arg: int) -> bool:
        """Ask one algorithm's ``prove`` each question the fold leaves open (mine
        first: a win of mine settles everything) and fold the answers in; True
        when the value is decided."""
        for att in (me, 1 - me):
            p = self.proof
            if (p.win_me if att == me else p.win_opp) is None:
                self.proof = fold(p, prove(root, moves, me, att, arg))
                if self.proof.decided:
                    return True
        return False


class Solver:
    """Exact solver of open positions of one :class:`~svoi_kozyri.core.Game`.

    Every question "what is this position worth?" is answered by two boolean
    searches: *can the player to act force a win?* and *can the opponent force a
    win?* (the player avoids losing exactly when the answer is no).  A repetition
    and a drawn ending count as failure for the side trying to win, so a draw is
    proven by two refutations instead of a full three-valued search.

    A facade over four algorithms that share one :class:`~.proof.SearchContext`:
    the endgame-table probe (:class:`TableProbe`), the depth-first win search
    (:class:`~.proofsearch.WinSearch`), the fixpoint of the reachable graph
    (:class:`~.fixpoint.Fixpoint`) and df-pn (:class:`~.dfpn.Dfpn`).  Each returns
    a :class:`~.proof.Proof`; :meth:`solve` folds them (:func:`~.proof.fold`).

    The transposition tables persist between calls on positions of the same two
    seats, so solving successive positions of one hand reuses earlier work.
    """

    def __init__(
        self,
        max_table: int = 2_000_000,
        tables: EndgameTables | None = None,
        quick_depth: int = QUICK_DEPTH,
        max_graph: int | None = None,
        compiled_fixpoint: bool = True,
    ) -> None:
        """``max_table`` bounds each transposition table, ``max_graph`` the positions
        of one compiled fixpoint computation (default: 16 times ``max_table``, at
        most :data:`~.fixpoint.MAX_FAST_GRAPH`); ``compiled_fixpoint=False`` keeps
        the fixpoint in Python (the reference the tests compare the compiled one
        with)."""
        self.max_table = max_table
        self.max_graph = min(MAX_FAST_GRAPH, 16 * max_table) if max_graph is None else max_graph
        self.compiled_fixpoint = compiled_fixpoint
        #: the depth-first search runs to this many steps before the fixpoint
        self.quick_depth = quick_depth
        #: the clock budgets are measured on (``time.process_time`` for CPU seconds)
        self.clock: Callable[[], float] = time.perf_counter
        self._pairs: dict[object, _Pair] = {}
        #: what the algorithms share (rules, tables, repetition guard, deadline)
        self.context = ctx = SearchContext(max_table, self.max_graph)
        ctx.clock = self.clock
        self._shared_tables: list[dict[int, list[int]]] = ctx.tables
        self.probe = TableProbe(tables)
        self.search = WinSearch(ctx)
        self.fixpoint = Fixpoint(ctx, compiled_fixpoint)
        self.dfpn = Dfpn(ctx)

    def __reduce__(self) -> tuple[Callable[..., Solver], tuple[object, ...]]:
        """A solver pickles as its settings (bots holding one are sent to worker
        processes and pickled by the environments): the copy starts with empty
        transposition tables, which are a cache of exact facts, so its values are
        the same.  Why explicit: the algorithms' shared context is built from
        these settings, and the compiled classes cannot be rebuilt from their
        attributes without them."""
        return (
            _solver,
            (
                self.max_table,
                self.tables,
                self.quick_depth,
                self.max_graph,
                self.compiled_fixpoint,
                self.clock,
            ),
        )

    @property
    def nodes(self) -> int:
        """Positions searched by all the algorithms so far (each counts its own:
        the count is taken once per node in their hot loops)."""
        return self.search.nodes + self.fixpoint.nodes + self.dfpn.nodes

    @property
    def tables(self) -> EndgameTables | None:
        """The exact endgame tables consulted for small positions (see
        :mod:`.endgame`), held by the table probe."""
        return self.probe.tables

    @tables.setter
    def tables(self, tables: EndgameTables | None) -> None:
        self.probe.tables = tables

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats holding cards in the last position solved."""
        return self.context.seats

    @property
    def rules2p(self) -> TwoPlayerRules:
        """The two-player rules between :attr:`seats` (see :mod:`.rules2p`)."""
        return self.context.rules

    # -- set-up ----------------------------------------------------------------

    def _prepare(self, state: State) -> None:
        g = state.game
        ctx = self.context
        seats = tuple(i for i, h in enumerate(state.hands) if h)
        if len(seats) == 1:  # pragma: no cover - a single player cannot be to act
            raise ValueError("position has only one player holding cards")
        ident = (g, seats)
        if ident != ctx.ident:
            pair = self._pairs.get(ident)
            if pair is None:
                if len(self._pairs) >= 16:
                    self._pairs.clear()
                pair = self._pairs[ident] = _Pair(seats, TwoPlayerRules.for_seats(g, seats))
            ctx.ident, ctx.seats, ctx.rules = ident, pair.seats, pair.rules
            self._shared_tables = pair.tables
        danger = ctx.danger = self._repeated(state)
        # A position that would end the hand by the threefold rule makes values
        # depend on this hand's history: such a search gets tables of its own.
        ctx.tables = [{}, {}, {}, {}] if danger else self._shared_tables
        # the settings are public attributes: what they are now holds for this call
        ctx.clock = self.clock
        ctx.max_table, ctx.max_graph = self.max_table, self.max_graph
        self.fixpoint.compiled = self.compiled_fixpoint

    def _repeated(self, state: State) -> set[int]:
        """Keys of the positions of this hand that would end it as a draw by
        repetition if they occurred once more (SPEC D6.1, counted from the start
        of the hand).  Usually empty; the history is replayed only when some
        position has already occurred ``repetition_limit - 1`` times."""
        limit = state.game.rules.repetition_limit
        if not limit or not state.turns:
            return set()
        counts: dict[int, int] = dict(state._hist)
        node = state._hist_parent
        while node is not None:
            for k, v in node[0].items():
                counts[k] = counts.get(k, 0) + v
            node = node[1]
        if not counts or max(counts.values()) < limit - 1:
            return set()
        seen: dict[int, int] = {}
        s = state.start_state()
        for _seat, move, _taken in state.history():
            s.push_unchecked(move)
            if s.is_over or s.phase == LEAD:
                break
            if tuple(i for i, h in enumerate(s.hands) if h) != self.seats:
                continue
            h0, h1, pile, _plen, p, phase = encode(s, self.seats)
            k = pos_key(h0, h1, pile, p, phase)
            seen[k] = seen.get(k, 0) + 1
        return {k for k, c in seen.items() if c >= limit - 1}

    def _root(self, state: State) -> Root:
        if not is_open(state):
            raise PositionError(
                "the solver needs an open position: at most two players holding cards, "
                "at a turn boundary"
            )
        self._prepare(state)
        return encode(state, self.seats)

    # -- public API ------------------------------------------------------------

    def bounds(self, state: State) -> tuple[int, int]:
        """Proven bounds stored for ``state`` (``(-1, 1)`` if nothing is known)."""
        h0, h1, pile, _plen, p, phase = self._root(state)
        key = pos_key(h0, h1, pile, p, phase)
        t = self.context.tables
        me, opp = t[p].get(key), t[1 - p].get(key)
        pme, popp = t[2 + p].get(key), t[3 - p].get(key)
        if (me is not None and me[0] < _BIG) or (pme is not None and pme[0] == 0):
            return (1, 1)
        if (opp is not None and opp[0] < _BIG) or (popp is not None and popp[0] == 0):
            return (-1, -1)
        no_opp = (opp is not None and opp[1] == _BIG) or (popp is not None and popp[1] == 0)
        no_me = (me is not None and me[1] == _BIG) or (pme is not None and pme[1] == 0)
        return (0 if no_opp else -1, 0 if no_me else 1)

    def solve(
        self,
        state: State,
        time_limit: float | None = 1.0,
        max_depth: int = 10_000,
        step: int = 6,
    ) -> SolveResult:
        """Solve ``state`` (open, turn boundary) within ``time_limit`` seconds
        (``None``: no limit).  Returns proven bounds and a move achieving the lower
        one: with a proven win, a move of a shortest win when the depth-first
        search found it, else a move of the fixpoint's strategy to a position of
        smaller rank (either way playing the solver's moves always makes progress
        and never repeats a position).

        The algorithms run in this order, each asked only the questions the proofs
        before it left open: the endgame tables; iterative deepening depth-first
        search to ``quick_depth`` steps (cheap for short wins, finds the
        shortest); then the fixpoint of the reachable graph for each open
        question; only if that is no use (a win longer than the action cap
        allows) the deepening goes on, with a df-pn slice of as many nodes for
        each open question after every deepening.  A win found by deepening is
        then shortened by bisection over the depth."""
        t0 = self.clock()
        ctx = self.context
        nodes0 = self.nodes
        root = self._root(state)
        ctx.deadline = float("inf") if time_limit is None else t0 + time_limit
        moves = state.legal_moves()
        cap = state.game.rules.max_actions_per_hand
        if cap:
            # a win within d steps ends within d turns: keep it inside the action cap
            max_depth = max(1, min(max_depth, cap - state.turns - 1))
        me = root[4]
        ledger = _Ledger(self.probe.prove(state, bool(ctx.danger)))
        depth = 0
        fixed = ledger.proof.decided
        try:
            while depth < max_depth and not ledger.proof.decided:
                if not fixed and depth >= self.quick_depth and max_depth >= 10_000:
                    fixed = True
                    if ledger.ask(self.fixpoint.prove, root, moves, me, max_depth):
                        break
                depth = min(max(depth + step, depth * 3 // 2), max_depth)
                n0 = self.nodes
                if ledger.ask(self.search.prove, root, moves, me, depth):
                    break
                if not fixed or max_depth < 10_000:
                    continue
                if ledger.ask(self.dfpn.prove, root, moves, me, max(20_000, self.nodes - n0)):
                    break
            if ledger.proof.win_me and ledger.proof.deepened:
                self._shortest_win(root, moves, me, depth, ledger)
        except SolverTimeout:
            pass
        finally:
            self.search.release()
            self.dfpn.release()
            self.fixpoint.release()
        ctx.deadline = float("inf")
        lo, hi = ledger.proof.bounds()
        move = ledger.proof.choice()
        if move is None:
            move = self.search.order_moves(root, moves, -1)[0]
        return SolveResult(
            lo=lo,
            hi=hi,
            move=move,
            nodes=self.nodes - nodes0,
            seconds=self.clock() - t0,
            depth=depth,
        )

    def _shortest_win(
        self, root: Root, moves: list[Move], me: int, depth: int, ledger: _Ledger
    ) -> None:
        """The move of a shortest win: the least depth with a win, by bisection
        between the deepest refuted only by the horizon and ``depth`` (a win);
        each win found is folded in (a later winning move replaces the earlier)."""
        lo_d, hi_d = ledger.proof.failed, depth
        while hi_d - lo_d > 1:
            mid = (lo_d + hi_d) // 2
            p = self.search.prove(root, moves, me, me, mid)
            ledger.proof = fold(ledger.proof, p)
            if p.win_me:
                hi_d = mid
            else:
                lo_d = mid

    def value(self, state: State, time_limit: float | None = None) -> int | None:
        """The exact value for the player to act, or ``None`` if not proven in time."""
        if state.phase == OVER:
            raise HandOverError("the hand is over")
        return self.solve(state, time_limit).value

    def move_values(
        self, state: State, time_limit: float | None = 1.0
    ) -> list[tuple[Move, int | None]]:
        """Every legal turn-level move with its proven value for the mover
        (``None`` when not proven within its share of the time budget)."""
        return [(m, r.value) for m, r in self.move_bounds(state, time_limit)]

    def move_bounds(
        self, state: State, time_limit: float | None = 1.0
    ) -> list[tuple[Move, SolveResult]]:
        """Every legal turn-level move with the solver's result for the position
        after it, turned to the mover's point of view (``lo``/``hi`` are proven
        bounds on the move's value for the mover)."""
        t0 = self.clock()
        out: list[tuple[Move, SolveResult]] = []
        moves = state.legal_moves()
        me = state.to_act
        for i, m in enumerate(moves):
            left = None
            if time_limit is not None:
                left = max(0.0, (time_limit - (self.clock() - t0)) / (len(moves) - i))
            child = state.copy()
            child.push_unchecked(m)
            if child.is_over:
                v = terminal_value(child, me)
                out.append((m, SolveResult(v, v, None, 0, 0.0, 0)))
                continue
            r = self.solve(child, left)
            if child.to_act != me:
                r = SolveResult(-r.hi, -r.lo, r.move, r.nodes, r.seconds, r.depth)
            out.append((m, r))
        return out

    def principal_line(self, state: State, time_limit: float | None = 1.0) -> SolveResult:
        """Solve ``state`` and follow the best moves to the end of the hand (or a
        repetition, or as far as ``time_limit`` reaches: each position of the line
        is proven again), so the result's ``pv`` shows how the value is reached."""
        t0 = self.clock()
        res = self.solve(state, time_limit)
        pv: list[Move] = []
        if not res.proven:  # without a proof a "line" would only be a guess
            res.pv = [res.move] if res.move is not None else []
            return res
        s = state.copy()
        seen = set()
        move = res.move
        while move is not None and not s.is_over and len(pv) < 200:
            key = (tuple(s.hands), tuple(s.pile_cards()), s.to_act, s.phase)
            if key in seen:
                break
            seen.add(key)
            pv.append(move)
            s.push_unchecked(move)
            if s.is_over or not is_open(s):
                break
            left = None
            if time_limit is not None:
                # the line is shown as far as the budget reaches: a position off
                # the tables is solved again (a large draw takes seconds)
                left = time_limit - (self.clock() - t0)
                if left <= 0:
                    break
            nxt = self.solve(s, left)
            if not nxt.proven:
                break
            move = nxt.move
        res.pv = pv
        res.seconds = self.clock() - t0
        return res


def terminal_value(state: State, seat: int) -> int:
    """The value of a finished hand for ``seat``: 1 won, 0 drawn, -1 the durak."""
    r = state.outcome
    assert r is not None
    if r.loser is None:
        return 0
    return -1 if r.loser == seat else 1


def exhaustive_value(state: State, max_positions: int = 200_000) -> int:
    """Plain exhaustive reference: enumerate every position reachable from ``state``
    with the engine's own moves, then solve the whole graph backwards (retrograde
    analysis: a position is won if some move reaches a lost position for the
    opponent, lost if every move reaches a won one; what is never decided is a
    draw, by a last-card draw or by endless play).  No pruning, no heuristics and
    no repetition bookkeeping, so it checks both the search and the solver's
    treatment of repetitions.  Slow; meant for small positions in tests."""
    if not is_open(state):
        raise ValueError("the reference needs an open position")
    edges = _reference_graph(state, max_positions)
    value = _reference_values(edges)
    return value.get(_reference_key(state), 0)


_RefKey = tuple[object, ...]
#: a position's moves in the reference graph: (child key or None, same mover?,
#: terminal value for the mover)
_RefEdges = dict[_RefKey, list[tuple[_RefKey | None, bool, int]]]


def _reference_key(s: State) -> _RefKey:
    """A position of :func:`exhaustive_value`'s graph: hands, pile, mover, phase."""
    return (tuple(s.hands), tuple(s.pile_cards()), s.to_act, s.phase)


def _reference_graph(state: State, max_positions: int) -> _RefEdges:
    """Every position reachable from ``state`` with its moves (see
    :func:`exhaustive_value`; at most ``max_positions``).

    Why apart: the reference is two phases, enumeration then the backward
    solution, each read on its own; it serves tests only, so the split costs nothing."""
    key = _reference_key
    edges: _RefEdges = {}
    g = state.game
    todo = [g.position(state.hands, state.pile_cards(), state.to_act, state.phase, state.outs)]
    edges[key(state)] = []
    while todo:
        s = todo.pop()
        out = edges[key(s)]
        me = s.to_act
        for m in s.legal_moves():
            c = s.copy()
            c.push_unchecked(m)
            if c.is_over:
                out.append((None, True, terminal_value(c, me)))
                continue
            k = key(c)
            out.append((k, c.to_act == me, 0))
            if k not in edges:
                if len(edges) >= max_positions:
                    raise ValueError("position too large for the exhaustive reference")
                edges[k] = []
                # a fresh start (no repetition history), so the engine's own
                # threefold rule never ends a line of the enumeration
                todo.append(g.position(c.hands, c.pile_cards(), c.to_act, c.phase, c.outs))
    return edges


def _reference_values(edges: _RefEdges) -> dict[_RefKey, int]:
    """The decided values of the reference graph, solved backwards to a fixpoint:
    won if some move reaches a loss for the opponent, lost if every move reaches a
    win; a position left out is a draw."""
    value: dict[_RefKey, int] = {}
    changed = True
    while changed:
        changed = False
        for k, out in edges.items():
            if k in value:
                continue
            all_lost = True
            won = False
            for ck, same, tv in out:
                if ck is None:
                    v: int | None = tv
                else:
                    cv = value.get(ck)
                    v = None if cv is None else (cv if same else -cv)
                if v == 1:
                    won = True
                    break
                if v != -1:
                    all_lost = False
            if won:
                value[k] = 1
                changed = True
            elif all_lost:
                value[k] = -1
                changed = True
    return value


def _solver(
    max_table: int,
    tables: EndgameTables | None,
    quick_depth: int,
    max_graph: int,
    compiled_fixpoint: bool,
    clock: Callable[[], float],
) -> Solver:
    """A solver with these settings (what :meth:`Solver.__reduce__` pickles)."""
    solver = Solver(max_table, tables, quick_depth, max_graph, compiled_fixpoint)
    solver.clock = clock
    return solver
