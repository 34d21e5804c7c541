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
  **local least fixpoint of the reachable graph** (:meth:`Solver._fixpoint`,
  after Liu and Smolka): one node per position whatever the path to it, so no
  graph-history interaction and nothing searched twice; the positions left
  unproven when the work runs out are a closed set the defender keeps the play
  in, a refutation valid in any context.  Its wins carry a rank that falls
  along the stored steps, so they are converted like the shortest wins.  It
  runs compiled (:mod:`._fixgraph`, numba: flat arrays, about ten times the
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
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...core import (
    FREE,
    LEAD,
    OVER,
    PICKUP,
    RESPOND,
    HandOverError,
    Move,
    Observation,
    PositionError,
    State,
)
from .endgame import EndgameTables
from .rules2p import TwoPlayerRules, encode, pile_codes, pos_key

_BIG = 1 << 30

#: The depth-first phase of :meth:`Solver.solve` searches up to this many steps
#: (wins within it are found with their shortest distance) before the fixpoint of
#: the reachable graph settles what is left.
QUICK_DEPTH = 6

#: The fixpoint computation gives up beyond this many positions (about 1 KB each).
MAX_GRAPH = 1_500_000

#: The compiled fixpoint (:mod:`._fixgraph`, about 130 bytes a position: 4 GB at
#: most) gives up beyond this many positions, or 16 times the solver's
#: ``max_table`` if fewer.  (Random 20-card questions meet 12 to 17 million.)
MAX_FAST_GRAPH = 32_000_000

#: Edges of the compiled fixpoint between two looks at the clock: the first slice
#: (a few milliseconds, so that small budgets are kept), doubling up to the last.
_FAST_SLICE = 20_000
_FAST_SLICE_MAX = 320_000

_fixgraph_module: Any = None


def _fixgraph() -> Any:
    """The compiled fixpoint's module, or ``None`` where numba is missing (imported
    on first use: numba's import takes a while, and most solver calls never need
    the fixpoint)."""
    global _fixgraph_module
    if _fixgraph_module is None:
        try:
            from . import _fixgraph as module
        except ImportError:  # pragma: no cover - numba is a dependency
            _fixgraph_module = False
        else:
            _fixgraph_module = module
    return _fixgraph_module or None


class SolverTimeout(Exception):
    """Raised inside the search when the time budget is spent."""


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


class _Context:
    """The rules and the two transposition tables of one game and pair of seats.

    ``tables[a]`` holds what is known about "can the player in seat ``seats[a]``
    force a win?": per position ``[win_depth, nowin_depth, step]``, a win within
    ``win_depth`` steps (``_BIG``: none known), no win within ``nowin_depth``
    steps (``_BIG``: none at all; ``-1``: nothing known) and the step that proved
    or refuted it.  Only path-independent facts go there (see the module text)."""

    def __init__(self, seats: tuple[int, ...], rules: TwoPlayerRules) -> None:
        self.seats = seats
        self.rules = rules
        self.tables: list[dict[int, list[int]]] = [{}, {}, {}, {}]


def _move_of(moves: list[Move], steps: tuple[int, ...]) -> Move | None:
    for m in moves:
        if m.steps() == steps:
            return m
    return None


class _Answers:
    """What one :meth:`Solver.solve` call has proven so far: can the player to act
    (``win_me``) and the opponent (``win_opp``) force a win (``None``: not known
    yet), the move found for each outcome (``move`` a win, ``safe`` a move that
    keeps "no loss" proven, ``hope`` the one that held out longest), whether the
    win came from the fixpoint or df-pn (no shortest-win bisection then), and the
    deepest depth at which the win was refuted only by the horizon.

    Why a class: :meth:`Solver.solve`'s algorithms (the fixpoint, the depth-first
    deepening, the df-pn slices) each settle some of these, and a timeout may stop
    any of them: what they set before it still counts."""

    def __init__(self) -> None:
        self.win_me: bool | None = None
        self.win_opp: bool | None = None
        self.move: Move | None = None
        self.safe: Move | None = None
        self.hope: Move | None = None
        self.by_dfpn = False
        self.failed = 0  # the attacker (me) has no win within this many steps


class _SliceOver(Exception):
    """Raised inside df-pn when a search slice has used its nodes."""


class Solver:
    """Exact solver of open positions of one :class:`~svoi_kozyri.core.Game`.

    Every question "what is this position worth?" is answered by two boolean
    searches: *can the player to act force a win?* and *can the opponent force a
    win?* (the player avoids losing exactly when the answer is no).  A repetition
    and a drawn ending count as failure for the side trying to win, so a draw is
    proven by two refutations instead of a full three-valued search.

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
        most :data:`MAX_FAST_GRAPH`); ``compiled_fixpoint=False`` keeps the fixpoint
        in Python (the reference the tests compare the compiled one with)."""
        self.max_table = max_table
        self.max_graph = min(MAX_FAST_GRAPH, 16 * max_table) if max_graph is None else max_graph
        self.compiled_fixpoint = compiled_fixpoint
        #: the depth-first search runs to this many steps before the fixpoint
        self.quick_depth = quick_depth
        #: exact endgame tables consulted for small positions (see :mod:`.endgame`)
        self.tables = tables
        #: the clock budgets are measured on (``time.process_time`` for CPU seconds)
        self.clock: Callable[[], float] = time.perf_counter
        self.nodes = 0
        self._contexts: dict[object, _Context] = {}
        self._ident: object = None
        self.seats: tuple[int, ...] = ()
        #: the two-player rules between ``seats`` (see :mod:`.rules2p`)
        self.rules2p = TwoPlayerRules([], [], 0, False, True)
        self.beat: list[list[int]] = []
        self.req: list[list[int]] = []
        self._tables: list[dict[int, list[int]]] = [{}, {}, {}, {}]
        self._serial = 0
        self._stop = 0
        self._slice_end = 0
        self._shared_tables: list[dict[int, list[int]]] = self._tables
        self.draw_mode = 0
        self.taker_leads = False
        self.face_new_top = True
        self._deadline = float("inf")
        self._path: dict[int, int] = {}
        self._gens: list[int] = [0] * 64
        self._gen = 0
        # path-dependent refutations: key -> (lowest, highest repetition index,
        # generation of the highest one's path entry, refuting step) for df-pn;
        # (depth, lowest, highest, generation) for the depth-first search
        self._tmp: dict[int, tuple[int, int, int, int]] = {}
        self._table: dict[int, list[int]] = {}
        self._other: dict[int, list[int]] = {}
        self._att = 0
        self._danger: set[int] = set()
        self._rmin = _BIG
        self._rmax = -1
        self._rhz = False
        self._fix_rank = 0
        self._fix_steps: tuple[int, ...] = ()
        # the state of one fixpoint computation (see _fixpoint)
        self._fx_table: dict[int, list[int]] = {}
        self._fx_other: dict[int, list[int]] = {}
        self._fx_idx: dict[int, int] = {}
        self._fx_val: list[int] = []
        self._fx_rank: list[int] = []
        self._fx_best: list[int] = []
        self._fx_or: list[bool] = []
        self._fx_state: list[tuple[int, int, int, int, int, int]] = []
        self._fx_key: list[int] = []
        self._fx_kkey: list[list[int]] = []
        self._fx_kact: list[list[int]] = []
        self._fx_watch: list[int] = []
        self._fx_maxr: list[int] = []
        self._fx_more: list[bool] = []
        self._fx_deps: list[list[int]] = []
        self._fx_stack: list[int] = []
        # the compiled fixpoint's arrays, reused by the questions of one solve call
        self._graph: Any = None
        self._graph_of: object = None

    # -- set-up ----------------------------------------------------------------

    def _prepare(self, state: State) -> None:
        g = state.game
        seats = tuple(i for i, h in enumerate(state.hands) if h)
        if len(seats) == 1:  # pragma: no cover - a single player cannot be to act
            raise ValueError("position has only one player holding cards")
        ident = (g, seats)
        if ident != self._ident:
            self._ident = ident
            ctx = self._contexts.get(ident)
            if ctx is None:
                if len(self._contexts) >= 16:
                    self._contexts.clear()
                ctx = self._contexts[ident] = _Context(seats, TwoPlayerRules.for_seats(g, seats))
            rules = self.rules2p = ctx.rules
            self.seats, self.beat, self.req = ctx.seats, rules.beat, rules.req
            self._shared_tables = ctx.tables
            self.draw_mode = rules.draw_mode
            self.taker_leads = rules.taker_leads
            self.face_new_top = rules.face_new_top
        self._danger = self._repeated(state)
        # A position that would end the hand by the threefold rule makes values
        # depend on this hand's history: such a search gets tables of its own.
        self._tables = [{}, {}, {}, {}] if self._danger else self._shared_tables

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

    def _root(self, state: State) -> tuple[int, int, int, int, int, int]:
        if not is_open(state):
            raise PositionError(
                "the solver needs an open position: at most two players holding cards, "
                "at a turn boundary"
            )
        self._prepare(state)
        return encode(state, self.seats)

    # -- the boolean search -------------------------------------------------------

    def _win(  # noqa: C901 - hot compiled search node: its inlined branches are the speed
        self, h0: int, h1: int, pile: int, plen: int, p: int, phase: int, depth: int, ply: int
    ) -> bool:
        """Can the attacker (``self._att``) force a win within ``depth`` steps?

        A ``False`` answer leaves in ``_rmin``/``_rmax`` the lowest and highest
        path index of the repetitions above this node that it relied on (``_BIG``
        / ``-1`` when none: the answer holds in any context) and in ``_rhz``
        whether it touched the depth horizon (then it only says "not within
        ``depth``")."""
        self.nodes += 1
        if self.nodes & 255 == 0 and self.clock() > self._deadline:
            raise SolverTimeout
        key = (((pile << 40 | h0) << 40 | h1) << 2 | p) << 2 | phase
        boundary = phase != LEAD
        path = self._path
        if boundary:
            anc = path.get(key, -1)
            if anc >= 0:  # a repetition: failure for the attacker
                self._rmin = anc
                self._rmax = anc
                self._rhz = False
                return False
            if self._danger and key in self._danger:  # the threefold rule would end it
                self._rmin = _BIG
                self._rmax = -1
                self._rhz = False
                return False
        table = self._table
        e = table.get(key)
        ttm = -1
        if e is not None:
            if depth >= e[0]:
                return True
            if depth <= e[1]:
                self._rmin = _BIG
                self._rmax = -1
                self._rhz = e[1] < _BIG
                return False
            ttm = e[2]
        o = self._other.get(key)
        if o is not None and o[0] < _BIG:  # the other side can force a win from here
            self._rmin = _BIG
            self._rmax = -1
            self._rhz = False
            return False
        t = self._tmp.get(key)
        if t is not None and depth <= t[0]:
            tmx = t[2]
            if tmx < ply and self._gens[tmx] == t[3]:
                # a path-dependent refutation whose repetitions are all still on the path
                self._rmin = t[1]
                self._rmax = tmx
                self._rhz = t[0] < _BIG
                return False
        if depth <= 0:
            self._rmin = _BIG
            self._rmax = -1
            self._rhz = True
            return False
        rules = self.rules2p
        gens = self._gens
        if ply >= len(gens):
            gens.extend([0] * len(gens))
        gen = self._gen = self._gen + 1
        gens[ply] = gen
        if boundary:
            path[key] = ply
        is_or = p == self._att
        mn = _BIG
        mx = -1
        hz = False
        result = not is_or
        best = -1
        acts = rules.order(h0, h1, pile, p, phase, ttm)
        if not is_or and len(acts) > 1:
            # The defender tries a move that closes a repetition first: it refutes
            # at once, without touching the horizon (a position the threefold rule
            # would end beats any, as its refutation holds in every context; else
            # the most recent ancestor, so the refutation frees the path soonest).
            close = -1
            far = -1
            danger = self._danger
            for a in acts:
                c0, c1, cp, cl, q, cph, out = rules.child(h0, h1, pile, plen, p, phase, a)
                if out != -2 or cph == LEAD:
                    continue
                ck = (((cp << 40 | c0) << 40 | c1) << 2 | q) << 2 | cph
                if danger and ck in danger:
                    close = a
                    break
                anc = path.get(ck, -1)
                if anc > far:
                    far = anc
                    close = a
            if close >= 0 and acts[0] != close:
                acts.remove(close)
                acts.insert(0, close)
        try:
            for a in acts:
                c0, c1, cp, cl, q, cph, out = rules.child(h0, h1, pile, plen, p, phase, a)
                if out != -2:
                    r = is_or and out == 1
                    cmn = _BIG
                    cmx = -1
                    chz = False
                else:
                    r = self._win(c0, c1, cp, cl, q, cph, depth - 1, ply + 1)
                    cmn = self._rmin
                    cmx = self._rmax
                    chz = self._rhz
                if is_or:
                    if r:
                        result = True
                        best = a
                        break
                    if cmn < mn:
                        mn = cmn
                    if cmx > mx:
                        mx = cmx
                    if chz:
                        hz = True
                elif not r:
                    # a defender's refutation: one that holds at every depth ends
                    # the node; one that only holds within the horizon is kept
                    # while the others are tried for a better one
                    if best < 0 or not chz:
                        result = False
                        best = a
                        mn = cmn
                        mx = cmx
                        hz = chz
                    if not chz:
                        break
        finally:
            if boundary:
                del path[key]
        if result:
            if e is None:
                if len(table) >= self.max_table:
                    table.clear()
                table[key] = [depth, -1, best]
            elif depth < e[0]:
                e[0] = depth
                e[2] = best
            return True
        if mn >= ply:  # every repetition it used lies at or below this node
            mn = _BIG
            mx = -1
        elif mx >= ply:
            mx = ply - 1
        self._rmin = mn
        self._rmax = mx
        self._rhz = hz
        d = depth if hz else _BIG
        if mn == _BIG:
            if e is None:
                if len(table) >= self.max_table:
                    table.clear()
                table[key] = [_BIG, d, best]
            elif d > e[1]:
                e[1] = d
                if e[0] == _BIG:
                    e[2] = best
        else:
            tmp = self._tmp
            if len(tmp) >= self.max_table:
                tmp.clear()
            tmp[key] = (d, mn, mx, gens[mx])
        return False

    def _eval_move(
        self, root: tuple[int, int, int, int, int, int], m: Move, depth: int
    ) -> tuple[bool, bool]:
        """Does turn-level move ``m`` from the root keep the attacker's win within
        ``depth`` steps?  Also whether a ``False`` touched the horizon."""
        h0, h1, pile, plen, p, phase = root
        steps = m.steps()
        c = self.rules2p.child(h0, h1, pile, plen, p, phase, steps[0])
        if c[6] == -2 and len(steps) == 2:
            c = self.rules2p.child(c[0], c[1], c[2], c[3], c[4], c[5], steps[1])
        if c[6] != -2:
            return p == self._att and c[6] == 1, False
        r = self._win(c[0], c[1], c[2], c[3], c[4], c[5], depth - len(steps), 1)
        return r, (not r) and self._rhz

    def _root_win(
        self,
        root: tuple[int, int, int, int, int, int],
        moves: list[Move],
        att: int,
        depth: int,
    ) -> tuple[bool, Move | None, bool]:
        """One root search: can ``att`` force a win within ``depth`` steps?  Returns
        the answer, the move that proves it (attacker to act) or refutes it (the
        defender to act), and whether a ``False`` touched the horizon."""
        h0, h1, pile, _plen, p, phase = root
        self._att = att
        self._table = table = self._tables[att]
        self._other = self._tables[1 - att]
        self._tmp = {}
        key = pos_key(h0, h1, pile, p, phase)
        self._path = {key: 0}
        self._gen += 1
        self._gens[0] = self._gen
        e = table.get(key)
        is_or = p == att
        hz_any = False
        result = not is_or
        found: Move | None = None
        for m in self._order_moves(root, moves, e[2] if e is not None else -1):
            r, hz = self._eval_move(root, m, depth)
            if is_or:
                if r:
                    result, found = True, m
                    break
                hz_any = hz_any or hz
            elif not r and (found is None or not hz):
                result, found, hz_any = False, m, hz
                if not hz:
                    break
        self._path = {}
        step = found.steps()[0] if found is not None else -1
        if result:
            if e is None:
                table[key] = [depth, -1, step]
            elif depth < e[0]:
                e[0], e[2] = depth, step
        else:
            d = depth if hz_any else _BIG
            if e is None:
                table[key] = [_BIG, d, step]
            elif d > e[1]:
                e[1] = d
        return result, found, hz_any

    def _order_moves(
        self, root: tuple[int, int, int, int, int, int], moves: list[Move], first: int
    ) -> list[Move]:
        h0, h1, pile, _plen, p, phase = root
        order = self.rules2p.order(h0, h1, pile, p, phase, first)
        rank = {a: i for i, a in enumerate(order)}
        return sorted(moves, key=lambda m: rank.get(m.steps()[0], 99))

    # -- proof-number search ------------------------------------------------------

    def _lookup(self, key: int, boundary: bool, ply: int) -> tuple[int, int]:
        """Proof and disproof numbers of a (non-terminal) node at path index
        ``ply`` as its parent sees them now; a refutation that depends on the path
        leaves its repetition span in ``_rmin``/``_rmax`` (else ``_BIG``/``-1``)."""
        self._rmin = _BIG
        self._rmax = -1
        if boundary:
            anc = self._path.get(key, -1)
            if anc >= 0:
                self._rmin = anc
                self._rmax = anc
                return _BIG, 0
            if self._danger and key in self._danger:
                return _BIG, 0
        e = self._table.get(key)
        if e is not None and (e[0] == 0 or e[1] == 0):
            return e[0], e[1]
        o = self._other.get(key)
        if o is not None and o[0] == 0:
            return _BIG, 0
        t = self._tmp.get(key)
        if t is not None:
            tmx = t[1]
            if tmx < ply and self._gens[tmx] == t[2]:
                self._rmin = t[0]
                self._rmax = tmx
                return _BIG, 0
        if e is not None:
            return e[0], e[1]
        return 1, 1

    def _mid(  # noqa: C901 - hot compiled search node: its inlined branches are the speed
        self,
        h0: int,
        h1: int,
        pile: int,
        plen: int,
        p: int,
        phase: int,
        thpn: int,
        thdn: int,
        ply: int,
    ) -> None:
        """Nagai's df-pn: expand this node until its proof number reaches ``thpn``
        or its disproof number ``thdn``; the result is left in the tables."""
        self.nodes += 1
        if self.nodes >= self._stop:
            if self.clock() > self._deadline:
                raise SolverTimeout
            if self.nodes >= self._slice_end:
                raise _SliceOver
            self._stop = min(self._slice_end, self.nodes + 256)
        key = (((pile << 40 | h0) << 40 | h1) << 2 | p) << 2 | phase
        boundary = phase != LEAD
        table = self._table
        att = self._att
        is_or = p == att
        # the children: keys and, for a hand that ends, its fixed numbers
        ch: list[tuple[int, int, int, int, int, int]] = []
        ckeys: list[int] = []
        cterm: list[int] = []  # 0 not terminal, 1 a win for the attacker, 2 not
        rules = self.rules2p
        acts = rules.order(h0, h1, pile, p, phase, -1)
        e = table.get(key)
        if e is not None and e[2] >= 0 and e[2] in acts and acts[0] != e[2]:
            acts.remove(e[2])
            acts.insert(0, e[2])
        for a in acts:
            c0, c1, cp, cl, q, cph, out = rules.child(h0, h1, pile, plen, p, phase, a)
            ch.append((c0, c1, cp, cl, q, cph))
            if out != -2:
                ckeys.append(0)
                cterm.append(1 if is_or and out == 1 else 2)
            else:
                ckeys.append((((cp << 40 | c0) << 40 | c1) << 2 | q) << 2 | cph)
                cterm.append(0)
        n = len(acts)
        gens = self._gens
        if ply + 1 >= len(gens):
            gens.extend([0] * len(gens))
        gen = self._gen = self._gen + 1
        gens[ply] = gen
        path = self._path
        if boundary:
            path[key] = ply
        pn = 1
        dn = 1
        best = -1
        mn = _BIG
        mx = -1
        try:
            while True:
                # recompute this node's numbers from its children
                sum_n = 0
                best_n = _BIG + 1
                second = _BIG + 1
                best_i = -1
                mn = _BIG
                mx = -1
                for i in range(n):
                    term = cterm[i]
                    if term == 1:
                        cpn, cdn = 0, _BIG
                        rmn, rmx = _BIG, -1
                    elif term == 2:
                        cpn, cdn = _BIG, 0
                        rmn, rmx = _BIG, -1
                    else:
                        cph = ch[i][5]
                        cpn, cdn = self._lookup(ckeys[i], cph != LEAD, ply + 1)
                        rmn, rmx = self._rmin, self._rmax
                    if is_or:
                        sel, other = cpn, cdn
                    else:
                        sel, other = cdn, cpn
                    sum_n += other
                    if sel == 0 and not is_or:
                        # a refutation at a defender's node: prefer one that holds
                        # in any context (no repetition span)
                        if best_n > 0 or (mn < _BIG and rmn == _BIG):
                            best_n, best_i = 0, i
                            mn, mx = rmn, rmx
                        continue
                    if sel == _BIG and is_or:
                        if rmn < mn:
                            mn = rmn
                        if rmx > mx:
                            mx = rmx
                    if sel < best_n:
                        second = best_n
                        best_n = sel
                        best_i = i
                    elif sel < second:
                        second = sel
                if sum_n >= _BIG:  # only a proof or refutation is infinite
                    sum_n = _BIG - 1
                if is_or:
                    pn, dn = best_n, sum_n
                else:
                    pn, dn = sum_n, best_n
                if pn > _BIG:
                    pn = _BIG
                if dn > _BIG:
                    dn = _BIG
                best = acts[best_i] if best_i >= 0 else -1
                if pn >= thpn or dn >= thdn or pn == 0 or dn == 0:
                    break
                c = ch[best_i]
                cpn, cdn = self._lookup(ckeys[best_i], c[5] != LEAD, ply + 1)
                if is_or:
                    tp = min(thpn, second + 1)
                    td = thdn - dn + cdn
                else:
                    tp = thpn - pn + cpn
                    td = min(thdn, second + 1)
                if tp > _BIG:
                    tp = _BIG
                if td > _BIG:
                    td = _BIG
                self._mid(c[0], c[1], c[2], c[3], c[4], c[5], tp, td, ply + 1)
        finally:
            if boundary:
                del path[key]
        if pn == 0:
            self._serial += 1
            if e is None:
                if len(table) >= self.max_table:
                    table.clear()
                table[key] = [0, _BIG, best, self._serial]
            else:
                e[0], e[1], e[2], e[3] = 0, _BIG, best, self._serial
            return
        if dn == 0:
            if mn >= ply:  # every repetition it used lies at or below this node
                mn = _BIG
                mx = -1
            elif mx >= ply:
                mx = ply - 1
            if mn == _BIG:
                if e is None:
                    if len(table) >= self.max_table:
                        table.clear()
                    table[key] = [_BIG, 0, best, 0]
                else:
                    e[0], e[1], e[2] = _BIG, 0, best
            else:
                tmp = self._tmp
                if len(tmp) >= self.max_table:
                    tmp.clear()
                tmp[key] = (mn, mx, gens[mx], best)
                # outside this path context the node is only "likely refuted"
                pn, dn = 1 << 12, 1
        if e is None:
            if len(table) >= self.max_table:
                table.clear()
            table[key] = [pn, dn, best, 0]
        else:
            e[0], e[1], e[2] = pn, dn, best

    def _dfpn_root(self, root: tuple[int, int, int, int, int, int], att: int, nodes: int) -> int:
        """Run df-pn for "can ``att`` force a win?" from the root for about ``nodes``
        nodes; returns 1 proven, 0 refuted, -1 open (the tables keep the progress)."""
        h0, h1, pile, plen, p, phase = root
        self._att = att
        self._table = self._tables[2 + att]
        self._other = self._tables[3 - att]
        self._tmp = {}
        self._path = {}
        self._slice_end = self.nodes + nodes
        self._stop = self.nodes
        key = pos_key(h0, h1, pile, p, phase)
        try:
            self._mid(h0, h1, pile, plen, p, phase, _BIG, _BIG, 0)
        except _SliceOver:
            pass
        finally:
            self._path = {}
        e = self._table.get(key)
        if e is None:
            return -1
        if e[0] == 0:
            return 1
        if e[1] == 0:
            return 0
        return -1

    def _dfpn_move(
        self, root: tuple[int, int, int, int, int, int], moves: list[Move], att: int
    ) -> Move | None:
        """After a df-pn answer at the root: the turn-level move that proves it (the
        attacker to act) or refutes it (the defender to act), read from the
        tables while the root's path context is still current."""
        h0, h1, pile, plen, p, phase = root
        table = self._tables[2 + att]
        e = table.get(pos_key(h0, h1, pile, p, phase))
        if e is None or e[2] < 0:
            return None
        a = e[2]
        c = self.rules2p.child(h0, h1, pile, plen, p, phase, a)
        if c[5] != LEAD or c[6] != -2:
            return _move_of(moves, (a,))
        k = pos_key(c[0], c[1], c[2], c[4], c[5])
        ce = table.get(k)
        b = ce[2] if ce is not None and (ce[0] == 0 or ce[1] == 0) else -1
        if b < 0:
            t = self._tmp.get(k)
            b = t[3] if t is not None else -1
        if b < 0:
            return None
        return _move_of(moves, (a, b))

    # -- the least fixpoint of the reachable graph ---------------------------------

    def _fixpoint(self, root: tuple[int, int, int, int, int, int], att: int) -> int:
        """:meth:`_fixpoint_run` with the cyclic garbage collector paused: the
        computation allocates millions of small lists and tuples but no reference
        cycles, so the collector would only rescan them (that halved the speed on
        16-card positions)."""
        collect = gc.isenabled()
        gc.disable()
        try:
            return self._fixpoint_run(root, att)
        finally:
            if collect:
                gc.enable()

    def _fixpoint_run(  # noqa: C901 - the compiled fixpoint loop, inlined for speed
        self, root: tuple[int, int, int, int, int, int], att: int
    ) -> int:
        """Decide "can ``att`` force a win?" exactly over the reachable graph, by a
        local least-fixpoint computation (Liu and Smolka 1998) instead of a search
        of paths: returns 1 (a win; the table then holds a strategy whose step
        counts strictly fall), 0 (no win at all) or -1 (the graph met outgrew
        ``min(max_table, MAX_GRAPH)`` nodes).  Raises ``SolverTimeout``.

        Every position met gets one node, whatever the path to it, so nothing is
        searched twice and there is no graph-history interaction at all: a node is
        *true* once it is proven won (attacker: one true child; defender: every
        child true), everything else is "not proven yet".  The attacker's nodes
        wait on all their children, the defender's nodes on one child at a time
        (a defence is given up only when it is proven lost, then the next is
        tried; a pickup first, which keeps the defender's closed sets about five
        times smaller than the usual order).  When no work is left the nodes
        still not true form a closed set the defender can keep the play in for
        ever (or leave only to an end that is no win for the attacker): a
        refutation of the whole set at once, which holds in every path context.
        A repetition is therefore free for the defender: a defence that moves to
        a node already met waits on it and costs nothing more.

        ``rank`` bounds the steps of the proven strategy (attacker: one more than
        the child that proved it; defender: one more than the largest of its
        children), so the step stored for each true node leads to a node of
        smaller rank: following the stored steps never repeats a position, and
        the table's "a win within ``rank`` steps" stays true."""
        if self.compiled_fixpoint and not self._danger:
            module = _fixgraph()
            if module is not None:
                return self._fixpoint_compiled(module, root, att)
        self._att = att
        self._fx_table = self._tables[att]
        self._fx_other = self._tables[1 - att]
        self._fix_clear()
        idx = self._fx_idx
        val = self._fx_val
        rank = self._fx_rank
        best = self._fx_best
        isor = self._fx_or
        state = self._fx_state
        kkey = self._fx_kkey
        kact = self._fx_kact
        watch = self._fx_watch
        maxr = self._fx_maxr
        more = self._fx_more
        deps = self._fx_deps
        stack = self._fx_stack
        rules = self.rules2p
        h0, h1, pile, _plen, p, phase = root
        r = self._fix_node(root, pos_key(h0, h1, pile, p, phase))
        limit = min(self.max_table, MAX_GRAPH)
        try:
            while stack and val[r] != 1:
                self.nodes += 1
                if self.nodes & 255 == 0:
                    if self.clock() > self._deadline:
                        raise SolverTimeout
                    if len(val) > limit:  # too large to hold: keep what is proven
                        self._fix_store(False)
                        self._fix_clear()
                        return -1
                ed = stack.pop()
                x = ed >> 8
                j = ed & 255
                if val[x] != 0:
                    continue
                xor = isor[x]
                if not xor and j != watch[x]:
                    continue
                s = state[x]
                lazy = not xor and not kkey[x]
                if lazy:
                    c = rules.child(s[0], s[1], s[2], s[3], s[4], s[5], kact[x][j])
                    k = (((c[2] << 40 | c[0]) << 40 | c[1]) << 2 | c[4]) << 2 | c[5]
                else:
                    k = kkey[x][j]
                y = idx.get(k, -1)
                if y < 0:
                    if not lazy:
                        c = rules.child(s[0], s[1], s[2], s[3], s[4], s[5], kact[x][j])
                    y = self._fix_node((c[0], c[1], c[2], c[3], c[4], c[5]), k)
                if val[y] != 1:
                    deps[y].append(ed)
                    continue
                # child y is proven won
                if xor:
                    val[x] = 1
                    rank[x] = rank[y] + 1
                    best[x] = kact[x][j]
                else:
                    m = maxr[x]
                    if rank[y] > m:
                        m = rank[y]
                    ks = kkey[x]
                    ka = kact[x]
                    if more[x]:  # the pickup is lost: now the beats
                        more[x] = False
                        ka.extend(rules.order(s[0], s[1], s[2], s[4], s[5], -1)[:-1])
                    n = len(ka)
                    w = j + 1
                    while w < n:  # skip defences already proven lost
                        if ks:
                            k = ks[w]
                        else:
                            c = rules.child(s[0], s[1], s[2], s[3], s[4], s[5], ka[w])
                            k = (((c[2] << 40 | c[0]) << 40 | c[1]) << 2 | c[4]) << 2 | c[5]
                        z = idx.get(k, -1)
                        if z < 0 or val[z] != 1:
                            break
                        if rank[z] > m:
                            m = rank[z]
                        w += 1
                    maxr[x] = m
                    watch[x] = w
                    if w < n:
                        best[x] = kact[x][w]
                        stack.append(x << 8 | w)
                        continue
                    val[x] = 1
                    rank[x] = m + 1
                    best[x] = kact[x][0]
                for d in deps[x]:
                    stack.append(d)
                deps[x] = []
        except SolverTimeout:
            self._fix_store(False)
            self._fix_clear()
            raise
        won = val[r] == 1
        self._fix_rank = rank[r] if won else 0
        # the root's proving or refuting turn, while the nodes are still here
        self._fix_steps = ()
        a = best[r]
        if a >= 0:
            s = state[r]
            c = rules.child(s[0], s[1], s[2], s[3], s[4], s[5], a)
            if c[6] != -2 or c[5] != LEAD:
                self._fix_steps = (a,)
            else:
                y = idx.get(pos_key(c[0], c[1], c[2], c[4], c[5]), -1)
                if y >= 0 and best[y] >= 0 and (val[y] == 1) == won:
                    self._fix_steps = (a, best[y])
        self._fix_store(not won)
        self._fix_clear()
        return 1 if won else 0

    def _fixpoint_compiled(
        self, module: Any, root: tuple[int, int, int, int, int, int], att: int
    ) -> int:
        """:meth:`_fixpoint_run` by the compiled kernel (:mod:`._fixgraph`, the
        same computation on flat arrays), in slices between which the clock is
        read.  What it proves goes into the table for the root and every position
        one turn from it (what :meth:`_fix_move` and the next call read), not for
        the millions of positions met: the tables would cost a kilobyte each."""
        self._att = att
        h0, h1, pile, plen, p, phase = root
        graph = self._graph
        if graph is not None and self._graph_of == (self._ident, self.max_graph):
            graph.reset(att)
        else:
            self._graph = None  # (the old arrays go before the new ones are made)
            graph = module.FixGraph(
                self.beat,
                self.req,
                att,
                self.draw_mode,
                self.taker_leads,
                self.face_new_top,
                limit=self.max_graph,
            )
            self._graph = graph
            self._graph_of = (self._ident, self.max_graph)
        graph.start(h0, h1, pile_codes(pile, plen), p, phase)
        done = 0
        work = _FAST_SLICE
        while True:
            r = graph.step(work)
            work = min(2 * work, _FAST_SLICE_MAX)
            pops = graph.pops
            self.nodes += pops - done
            done = pops
            if r != module.SLICE:
                break
            if self.clock() > self._deadline:
                raise SolverTimeout
            if graph.size > self.max_graph:
                return -1
        won = r == module.WON
        v, rank, best = graph.root_value()
        self._fix_rank = rank if won else 0
        self._fix_steps = graph.root_steps()
        table = self._tables[att]
        self._table_put(table, pos_key(h0, h1, pile, p, phase), v, rank, best, not won)
        seen = {pos_key(h0, h1, pile, p, phase)}
        for a in self.rules2p.order(h0, h1, pile, p, phase, -1):
            c = self.rules2p.child(h0, h1, pile, plen, p, phase, a)
            if c[6] != -2:
                continue
            later = [c]
            if c[5] == LEAD:
                for b in self.rules2p.order(c[0], c[1], c[2], c[4], c[5], -1):
                    d = self.rules2p.child(c[0], c[1], c[2], c[3], c[4], c[5], b)
                    if d[6] == -2:
                        later.append(d)
            for d in later:
                key = pos_key(d[0], d[1], d[2], d[4], d[5])
                if key in seen:
                    continue
                seen.add(key)
                v, rank, best = graph.probe(d[0], d[1], pile_codes(d[2], d[3]), d[4], d[5])
                if v >= 0:
                    self._table_put(table, key, v, rank, best, not won)
        return 1 if won else 0

    def _table_put(
        self, table: dict[int, list[int]], key: int, v: int, rank: int, best: int, closed: bool
    ) -> None:
        """Store a fixpoint node's answer: ``v`` 1 won within ``rank`` steps, 2 no
        win, 0 not proven (``closed``: the computation ran out of work, so refuted
        at every depth); room permitting."""
        if v == 0 and not closed:
            return
        e = table.get(key)
        if v == 1:
            if e is None:
                if len(table) < self.max_table:
                    table[key] = [rank, -1, best]
            elif rank < e[0]:
                e[0] = rank
                e[2] = best
        elif e is None:
            if len(table) < self.max_table:
                table[key] = [_BIG, _BIG, best]
        elif e[1] < _BIG:
            e[1] = _BIG
            if e[0] == _BIG:
                e[2] = best

    def _fix_node(  # noqa: C901 - hot: once per fixpoint node, inlined for speed
        self, s: tuple[int, int, int, int, int, int], key: int
    ) -> int:
        """A new node of the fixpoint computation for position ``s``: settled from
        the tables, at once from its ends, or expanded (its first edges pushed);
        returns its index."""
        h0, h1, pile, plen, p, phase = s
        val = self._fx_val
        i = len(val)
        self._fx_idx[key] = i
        self._fx_key.append(key)
        self._fx_deps.append([])
        self._fx_state.append(s)
        self._fx_watch.append(0)
        self._fx_maxr.append(0)
        self._fx_more.append(False)
        is_or = p == self._att
        self._fx_or.append(is_or)
        e = self._fx_table.get(key)
        o = self._fx_other.get(key)
        if e is not None and e[0] < _BIG:
            val.append(1)
            self._fx_rank.append(e[0])
            self._fx_best.append(e[2])
            self._fx_kkey.append([])
            self._fx_kact.append([])
            return i
        if (e is not None and e[1] == _BIG) or (o is not None and o[0] < _BIG):
            val.append(2)
            self._fx_rank.append(0)
            if e is not None and e[1] == _BIG:
                self._fx_best.append(e[2])
            else:
                self._fx_best.append(-1 if is_or or o is None else o[2])
            self._fx_kkey.append([])
            self._fx_kact.append([])
            return i
        danger = self._danger
        if not is_or and not danger:
            # The defender's children are made only when watched (the keys of
            # the others are never needed); it ends the hand only with its last
            # card, and then the node is refuted at once.
            hp = h0 if p == 0 else h1
            if hp & (hp - 1) == 0 and (phase != RESPOND or self.beat[p][pile & 63] & hp):
                val.append(2)
                self._fx_rank.append(0)
                self._fx_best.append(hp.bit_length() - 1)
                self._fx_kkey.append([])
                self._fx_kact.append([])
                return i
            if phase == RESPOND:
                # the pickup first; the beats are ordered only once it is lost
                acts = [PICKUP]
                self._fx_more[i] = True
            else:
                acts = self.rules2p.order(h0, h1, pile, p, phase, -1)
            val.append(0)
            self._fx_rank.append(0)
            self._fx_best.append(acts[0])
            self._fx_kkey.append([])
            self._fx_kact.append(acts)
            self._fx_stack.append(i << 8)
            return i
        rules = self.rules2p
        acts = rules.order(h0, h1, pile, p, phase, e[2] if e is not None else -1)
        if not is_or and acts[-1] == PICKUP:
            acts.insert(0, acts.pop())
        ck: list[int] = []
        ca: list[int] = []
        v = 0
        b = -1
        rk = 0
        idx = self._fx_idx
        table = self._fx_table
        for a in acts:
            c0, c1, cp, _cl, q, cph, out = rules.child(h0, h1, pile, plen, p, phase, a)
            if out != -2:
                if is_or:
                    if out == 1:
                        v = 1
                        b = a
                        rk = 1
                        break
                    continue
                v = 2  # the defender ends the hand: no win for the attacker
                b = a
                break
            k = (((cp << 40 | c0) << 40 | c1) << 2 | q) << 2 | cph
            if danger and cph != LEAD and k in danger:  # the threefold rule ends it
                if is_or:
                    continue
                v = 2
                b = a
                break
            if is_or:
                # a child already proven won proves this node at once (else the
                # children before it would be explored first)
                j = idx.get(k, -1)
                if j >= 0:
                    if val[j] == 1:
                        v = 1
                        b = a
                        rk = self._fx_rank[j] + 1
                        break
                else:
                    te = table.get(k)
                    if te is not None and te[0] < _BIG:
                        v = 1
                        b = a
                        rk = te[0] + 1
                        break
            ck.append(k)
            ca.append(a)
        if v == 0 and not ck:
            v = 2  # the attacker has only ends that are no win
        if v == 0 and not is_or:
            b = ca[0]
        val.append(v)
        self._fx_rank.append(rk)
        self._fx_best.append(b)
        self._fx_kkey.append(ck)
        self._fx_kact.append(ca)
        if v == 0:
            stack = self._fx_stack
            if is_or:
                for j in range(len(ck) - 1, -1, -1):
                    stack.append(i << 8 | j)
            else:
                stack.append(i << 8)
        return i

    def _fix_store(self, closed: bool) -> None:
        """Write what a fixpoint computation proved into the table: the won nodes
        with their rank and step, and (``closed``: the computation ran out of work)
        every other node as refuted at every depth."""
        table = self._fx_table
        keys = self._fx_key
        val = self._fx_val
        rank = self._fx_rank
        best = self._fx_best
        put = self._table_put
        for i in range(len(keys)):
            v = val[i]
            if v != 0 or closed:
                put(table, keys[i], v, rank[i], best[i], closed)

    def _fix_clear(self) -> None:
        """Empty the state of the fixpoint computation (a fresh one, or free its memory)."""
        self._fx_idx = {}
        self._fx_val = []
        self._fx_rank = []
        self._fx_best = []
        self._fx_or = []
        self._fx_state = []
        self._fx_key = []
        self._fx_kkey = []
        self._fx_kact = []
        self._fx_watch = []
        self._fx_maxr = []
        self._fx_more = []
        self._fx_deps = []
        self._fx_stack = []

    def _fix_move(
        self, root: tuple[int, int, int, int, int, int], moves: list[Move], att: int
    ) -> Move | None:
        """After a fixpoint answer at the root: the turn-level move that proves it
        (the attacker to act) or refutes it (the defender to act).  The steps the
        computation itself recorded, else a move whose result the table settles the
        right way (for a win, the one of least rank)."""
        if self._fix_steps:
            m = _move_of(moves, self._fix_steps)
            if m is not None:
                return m
        h0, h1, pile, plen, p, phase = root
        table = self._tables[att]
        won = p == att
        found: Move | None = None
        least = _BIG
        for m in moves:
            st = m.steps()
            c = self.rules2p.child(h0, h1, pile, plen, p, phase, st[0])
            if c[6] == -2 and len(st) == 2:
                c = self.rules2p.child(c[0], c[1], c[2], c[3], c[4], c[5], st[1])
            if c[6] != -2:  # the mover goes out: a win or a draw for the mover
                if not won:
                    return m
                if c[6] == 1:
                    return m
                continue
            key = pos_key(c[0], c[1], c[2], c[4], c[5])
            if not won:
                o = self._tables[1 - att].get(key)
                if o is not None and o[0] < _BIG:  # the defender wins from there
                    return m
            e = table.get(key)
            if e is None:
                continue
            if won and e[0] < least:
                least, found = e[0], m
            elif not won and e[0] == _BIG and e[1] == _BIG:
                return m
        return found

    # -- public API ------------------------------------------------------------

    def bounds(self, state: State) -> tuple[int, int]:
        """Proven bounds stored for ``state`` (``(-1, 1)`` if nothing is known)."""
        h0, h1, pile, _plen, p, phase = self._root(state)
        key = pos_key(h0, h1, pile, p, phase)
        t = self._tables
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
        and never repeats a position)."""
        t0 = self.clock()
        self._deadline = float("inf") if time_limit is None else t0 + time_limit
        nodes0 = self.nodes
        root = self._root(state)
        moves = state.legal_moves()
        cap = state.game.rules.max_actions_per_hand
        if cap:
            # a win within d steps ends within d turns: keep it inside the action cap
            max_depth = max(1, min(max_depth, cap - state.turns - 1))
        if self.tables is not None and not self._danger:
            # History-free table values are exact here: no position of this hand is
            # one occurrence short of the threefold rule, and probe_move refuses a
            # win or loss longer than the steps the action cap leaves.
            hit = self.tables.probe_move(state, cap - state.turns - 1 if cap else None)
            if hit is not None:
                tv, tm, _optimal = hit
                return SolveResult(tv, tv, tm, 0, self.clock() - t0, 0)
        me = root[4]
        ans = _Answers()
        depth = 0
        # Iterative deepening depth-first search to ``quick_depth`` steps (cheap for
        # short wins, finds the shortest), then the fixpoint of the reachable graph
        # for each open question; only if that is no use (a win longer than the
        # action cap allows) the deepening goes on, with a df-pn slice of as many
        # nodes for each open question after every deepening.
        fixed = False
        try:
            while depth < max_depth:
                if not fixed and depth >= self.quick_depth and max_depth >= 10_000:
                    # the exact fixpoint of the reachable graph settles both questions
                    fixed = True
                    if self._fixpoint_phase(root, moves, me, max_depth, ans):
                        break
                depth = min(max(depth + step, depth * 3 // 2), max_depth)
                n0 = self.nodes
                if self._deepening_phase(root, moves, me, depth, ans):
                    break
                if not fixed or max_depth < 10_000:
                    continue
                if self._dfpn_phase(root, moves, me, max(20_000, self.nodes - n0), ans):
                    break
            if ans.win_me and not ans.by_dfpn:
                self._shortest_win(root, moves, me, depth, ans)
        except SolverTimeout:
            pass
        finally:
            self._path = {}
            self._tmp = {}
            self._graph = None  # the compiled fixpoint's arrays: kept only within a call
        self._deadline = float("inf")
        win_me, win_opp = ans.win_me, ans.win_opp
        lo = 1 if win_me else (0 if win_opp is False else -1)
        hi = -1 if win_opp else (0 if win_me is False else 1)
        move = ans.move
        if lo < 1:
            move = ans.safe if lo == 0 else ans.hope
        if move is None:
            move = self._order_moves(root, moves, -1)[0]
        return SolveResult(
            lo=lo,
            hi=hi,
            move=move,
            nodes=self.nodes - nodes0,
            seconds=self.clock() - t0,
            depth=depth,
        )

    def _fixpoint_phase(
        self,
        root: tuple[int, int, int, int, int, int],
        moves: list[Move],
        me: int,
        max_depth: int,
        ans: _Answers,
    ) -> bool:
        """Settle each open question of ``ans`` by the fixpoint of the reachable
        graph (run once, after the quick deepening); True when :meth:`solve` may
        stop (a win found, or both wins refuted).

        Why apart: one of :meth:`solve`'s three algorithms, each a method."""
        opp = 1 - me
        if ans.win_me is None:
            f = self._fixpoint(root, me)
            if f == 1:
                m = self._fix_move(root, moves, me)
                if m is not None and self._fix_rank <= max_depth:
                    ans.win_me, ans.move, ans.by_dfpn = True, m, True
                    return True
            elif f == 0:
                ans.win_me = False
        if ans.win_opp is None:
            f = self._fixpoint(root, opp)
            if f == 1:
                if self._fix_rank <= max_depth:
                    ans.win_opp = True
                    return True
            elif f == 0:
                m = self._fix_move(root, moves, opp)
                ans.win_opp = False
                if m is not None:
                    ans.safe = m
        return ans.win_me is False and ans.win_opp is False

    def _deepening_phase(
        self,
        root: tuple[int, int, int, int, int, int],
        moves: list[Move],
        me: int,
        depth: int,
        ans: _Answers,
    ) -> bool:
        """One step of the iterative deepening: each open question of ``ans``
        searched depth-first to ``depth`` steps; True when :meth:`solve` may stop.

        Why apart: see :meth:`_fixpoint_phase`."""
        opp = 1 - me
        if ans.win_me is None:
            r, m, hz = self._root_win(root, moves, me, depth)
            if r:
                ans.win_me, ans.move = True, m
                return True
            if not hz:
                ans.win_me = False
            else:
                ans.failed = depth
        if ans.win_opp is None:
            r, m, hz = self._root_win(root, moves, opp, depth)
            if r:
                ans.win_opp = True
                return True
            if not hz:
                ans.win_opp, ans.safe = False, m
            else:
                ans.hope = m
        return ans.win_me is False and ans.win_opp is False

    def _dfpn_phase(
        self,
        root: tuple[int, int, int, int, int, int],
        moves: list[Move],
        me: int,
        nodes: int,
        ans: _Answers,
    ) -> bool:
        """A df-pn slice of ``nodes`` nodes for each open question of ``ans`` (after
        each deepening, once the fixpoint was no use); True when :meth:`solve` may
        stop.

        Why apart: see :meth:`_fixpoint_phase`."""
        opp = 1 - me
        if ans.win_me is None:
            r3 = self._dfpn_root(root, me, nodes)
            if r3 == 1:
                m = self._dfpn_move(root, moves, me)
                if m is not None:
                    ans.win_me, ans.move, ans.by_dfpn = True, m, True
                    return True
            elif r3 == 0:
                ans.win_me = False
        if ans.win_opp is None:
            r3 = self._dfpn_root(root, opp, nodes)
            if r3 == 1:
                ans.win_opp = True
                return True
            if r3 == 0:
                m = self._dfpn_move(root, moves, opp)
                if m is not None:
                    ans.win_opp, ans.safe = False, m
        return ans.win_me is False and ans.win_opp is False

    def _shortest_win(
        self,
        root: tuple[int, int, int, int, int, int],
        moves: list[Move],
        me: int,
        depth: int,
        ans: _Answers,
    ) -> None:
        """The move of a shortest win: the least depth with a win, by bisection
        between the deepest refuted only by the horizon and ``depth`` (a win)."""
        lo_d, hi_d = ans.failed, depth
        while hi_d - lo_d > 1:
            mid = (lo_d + hi_d) // 2
            r, m, _hz = self._root_win(root, moves, me, mid)
            if r:
                hi_d, ans.move = mid, m
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
        me = state.to_act_seat
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
            if child.to_act_seat != me:
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
            key = (tuple(s.hands), tuple(s.pile_cards()), s.to_act_seat, s.phase)
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
    r = state.result
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
    return (tuple(s.hands), tuple(s.pile_cards()), s.to_act_seat, s.phase)


def _reference_graph(state: State, max_positions: int) -> _RefEdges:
    """Every position reachable from ``state`` with its moves (see
    :func:`exhaustive_value`; at most ``max_positions``).

    Why apart: the reference is two phases, enumeration then the backward
    solution, each read on its own; it serves tests only, so the split costs nothing."""
    key = _reference_key
    edges: _RefEdges = {}
    g = state.game
    todo = [g.position(state.hands, state.pile_cards(), state.to_act_seat, state.phase, state.outs)]
    edges[key(state)] = []
    while todo:
        s = todo.pop()
        out = edges[key(s)]
        me = s.to_act_seat
        for m in s.legal_moves():
            c = s.copy()
            c.push_unchecked(m)
            if c.is_over:
                out.append((None, True, terminal_value(c, me)))
                continue
            k = key(c)
            out.append((k, c.to_act_seat == me, 0))
            if k not in edges:
                if len(edges) >= max_positions:
                    raise ValueError("position too large for the exhaustive reference")
                edges[k] = []
                # a fresh start (no repetition history), so the engine's own
                # threefold rule never ends a line of the enumeration
                todo.append(g.position(c.hands, c.pile_cards(), c.to_act_seat, c.phase, c.outs))
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
