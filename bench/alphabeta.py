"""The previous exact solver: one three-valued alpha-beta search.

Why it is kept: :mod:`svoi_kozyri.bots.search.solver` now answers each question
with two boolean searches (:class:`~svoi_kozyri.bots.search.solver.Solver`); this
one, iterative deepening alpha-beta over the values -1/0/+1 with two horizon
games, is the baseline the benchmark (``bench/search.py --part solver
--baseline``) compares against, and an independent search the tests check the
solver against (``tests/test_solver.py``).  It lives with the benchmarks, not in
the package: no player uses it, so it is not shipped (nor compiled: it runs as
plain Python over the package's compiled two-player rules step,
:mod:`svoi_kozyri.bots.search.rules2p`, which it shares with the solver).

Repetition: a position that repeats on the search path scores as a draw; a
value that used a repetition above the node is path-dependent and is not
stored in the transposition table (see :mod:`.solver` for the argument why the
first repetition may be scored as a draw).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from svoi_kozyri.bots.search.rules2p import GOES_ON, TwoPlayerRules, encode, pos_key
from svoi_kozyri.bots.search.solver import SolveResult, SolverTimeout, is_open, terminal_value
from svoi_kozyri.core import LEAD, OVER, Move, State

_INF = 1 << 30


class AlphaBetaSolver:
    """Alpha-beta solver of open positions of one :class:`~svoi_kozyri.core.Game`.

    The transposition table persists between calls on positions of the same two
    seats, so solving successive positions of one hand reuses earlier work.
    """

    def __init__(self, max_table: int = 2_000_000) -> None:
        self.max_table = max_table
        #: the clock budgets are measured on (``time.process_time`` for CPU seconds)
        self.clock: Callable[[], float] = time.perf_counter
        self.table: dict[int, list[int]] = {}
        self.nodes = 0
        self._key_game: object = None
        # per (game, pair of seats): seats, their rules, transposition table
        self._contexts: dict[
            object, tuple[tuple[int, ...], TwoPlayerRules, dict[int, list[int]]]
        ] = {}
        self.seats: tuple[int, ...] = ()
        self.rules = TwoPlayerRules([], [], 0, False, True)
        self._deadline = float("inf")
        self._path: dict[int, int] = {}

    # -- set-up ----------------------------------------------------------------

    def _prepare(self, state: State) -> None:
        g = state.game
        seats = tuple(i for i, h in enumerate(state.hands) if h)
        if len(seats) == 1:  # pragma: no cover - a single player cannot be to act
            raise ValueError("position has only one player holding cards")
        ident = (g, seats)
        if ident == self._key_game:
            return
        self._key_game = ident
        ctx = self._contexts.get(ident)
        if ctx is None:
            if len(self._contexts) >= 16:
                self._contexts.clear()
            ctx = self._contexts[ident] = (seats, TwoPlayerRules.for_seats(g, seats), {})
        self.seats, self.rules, self.table = ctx

    def _root(self, state: State) -> tuple[int, int, int, int, int, int]:
        if not is_open(state):
            raise ValueError(
                "the solver needs an open position: at most two players holding cards, "
                "at a turn boundary"
            )
        self._prepare(state)
        return encode(state, self.seats)

    # -- the search ------------------------------------------------------------

    def _search(  # noqa: C901 - the frozen benchmark baseline: kept as measured
        self,
        h0: int,
        h1: int,
        pile: int,
        plen: int,
        p: int,
        phase: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
        hm: int,
    ) -> tuple[int, int, bool]:
        """Negamax value for the mover ``p``, the lowest path index of a repetition
        it used, and whether it touched the horizon (scored ``hm`` for the mover)."""
        self.nodes += 1
        if self.nodes & 1023 == 0 and self.clock() > self._deadline:
            raise SolverTimeout
        key = pos_key(h0, h1, pile, p, phase)
        boundary = phase != LEAD
        path = self._path
        if boundary and key in path:
            return 0, path[key], False
        entry = self.table.get(key)
        tt_move = -1
        if entry is not None:
            lo, hi, tt_move, dwin = entry
            if dwin > depth:
                # a decisive bound proven only at a greater depth counts as "at least
                # / at most a draw" here, so a win found at depth d is a win within d
                if lo == 1:
                    lo = 0
                if hi == -1:
                    hi = 0
            if lo == hi or lo >= beta:
                return lo, _INF, False
            if hi <= alpha:
                return hi, _INF, False
        if depth <= 0:
            return hm, _INF, True
        if boundary:
            path[key] = ply
        best = -2
        best_a = -1
        cyc = _INF
        hz = False
        a0 = alpha
        try:
            rules = self.rules
            for a in rules.order(h0, h1, pile, p, phase, tt_move):
                c0, c1, cp, cl, q, cph, out = rules.child(h0, h1, pile, plen, p, phase, a)
                if out != GOES_ON:
                    v = out
                elif q == p:
                    v, cy, hzc = self._search(
                        c0, c1, cp, cl, q, cph, depth - 1, alpha, beta, ply + 1, hm
                    )
                    if cy < cyc:
                        cyc = cy
                    hz = hz or hzc
                else:
                    v, cy, hzc = self._search(
                        c0, c1, cp, cl, q, cph, depth - 1, -beta, -alpha, ply + 1, -hm
                    )
                    v = -v
                    if cy < cyc:
                        cyc = cy
                    hz = hz or hzc
                if v > best:
                    best = v
                    best_a = a
                    if v > alpha:
                        alpha = v
                        if alpha >= beta:
                            break
        finally:
            if boundary:
                del path[key]
        if cyc >= ply:
            cyc = _INF
            if entry is None:
                if len(self.table) >= self.max_table:
                    self.table.clear()
                entry = [-1, 1, best_a, _INF]
                self.table[key] = entry
            else:
                entry[2] = best_a
            lo0, hi0 = entry[0], entry[1]
            if not hz:
                if best <= a0:
                    entry[1] = min(hi0, best)
                elif best >= beta:
                    entry[0] = max(lo0, best)
                else:
                    entry[0] = max(lo0, best)
                    entry[1] = min(hi0, best)
            elif hm < 0:
                if best > a0:
                    entry[0] = max(lo0, best)
            elif best < beta:
                entry[1] = min(hi0, best)
            # Decisive only if *this* search proved it: a win or loss that leaned on
            # the horizon's favourable score, combined with an older proof's bound,
            # would record a proof depth that is too short (and could make the
            # solver's "shortest win" walk in a circle).
            decisive = (best == 1 and (not hz or hm < 0)) or (best == -1 and (not hz or hm > 0))
            if decisive and depth < entry[3]:
                entry[3] = depth  # forced within ``depth`` plies: keep the shortest proof
        return best, cyc, hz

    # -- public API ------------------------------------------------------------

    def bounds(self, state: State) -> tuple[int, int]:
        """Proven bounds stored for ``state`` (``(-1, 1)`` if nothing is known)."""
        h0, h1, pile, _plen, p, phase = self._root(state)
        key = pos_key(h0, h1, pile, p, phase)
        e = self.table.get(key)
        return (e[0], e[1]) if e else (-1, 1)

    def _move_values(
        self, state: State, depth: int, hm: int, moves: list[Move] | None = None
    ) -> tuple[int, Move | None, bool]:
        """One root iteration over turn-level moves: the best value, a move achieving
        it, and whether any line reached the horizon."""
        h0, h1, pile, plen, p, phase = self._root(state)
        all_moves = moves if moves is not None else state.legal_moves()
        best = -2
        best_m: Move | None = None
        hz_any = False
        alpha, beta = -1, 1
        root_key = pos_key(h0, h1, pile, p, phase)
        self._path = {root_key: 0}
        for m in self._order_moves(state, all_moves):
            v, hz = self._eval_move(h0, h1, pile, plen, p, phase, m, depth, alpha, beta, hm)
            hz_any = hz_any or hz
            if v > best:
                best, best_m = v, m
                if v > alpha:
                    alpha = v
                if alpha >= beta:
                    break
        return best, best_m, hz_any

    def _order_moves(self, state: State, moves: list[Move]) -> list[Move]:
        h0, h1, pile, _plen, p, phase = self._root(state)
        key = pos_key(h0, h1, pile, p, phase)
        e = self.table.get(key)
        first = e[2] if e else -1
        order = self.rules.order(h0, h1, pile, p, phase, first)
        rank = {a: i for i, a in enumerate(order)}
        return sorted(moves, key=lambda m: rank.get(m.steps()[0], 99))

    def _eval_move(
        self,
        h0: int,
        h1: int,
        pile: int,
        plen: int,
        p: int,
        phase: int,
        m: Move,
        depth: int,
        alpha: int,
        beta: int,
        hm: int,
    ) -> tuple[int, bool]:
        steps = m.steps()
        c = self.rules.child(h0, h1, pile, plen, p, phase, steps[0])
        if c[6] != GOES_ON:
            return c[6], False
        if len(steps) == 2:
            c = self.rules.child(c[0], c[1], c[2], c[3], c[4], c[5], steps[1])
            if c[6] != GOES_ON:
                return c[6], False
        if c[4] == p:  # the taker leads after a pickup: still the mover's turn
            v, _cy, hz = self._search(
                c[0], c[1], c[2], c[3], c[4], c[5], depth - 1, alpha, beta, 1, hm
            )
            return v, hz
        v, _cy, hz = self._search(
            c[0], c[1], c[2], c[3], c[4], c[5], depth - 1, -beta, -alpha, 1, -hm
        )
        return -v, hz

    def solve(
        self,
        state: State,
        time_limit: float | None = 1.0,
        max_depth: int = 10_000,
        step: int = 6,
    ) -> SolveResult:
        """Solve ``state`` (open, turn boundary) within ``time_limit`` seconds
        (``None``: no limit).  Returns proven bounds and a move achieving the lower one."""
        t0 = self.clock()
        self._deadline = float("inf") if time_limit is None else t0 + time_limit
        nodes0 = self.nodes
        self._root(state)
        moves = state.legal_moves()
        lo, hi = -1, 1
        best_move: Move | None = moves[0]
        depth = 0
        try:
            while depth < max_depth:
                depth = min(depth + step, max_depth)
                v_lo, m_lo, hz_lo = self._move_values(state, depth, -1, moves)
                if v_lo >= lo and m_lo is not None:
                    lo, best_move = v_lo, m_lo
                if lo == 1:
                    hi = 1
                    # shortest proof: a win within the least depth, so that playing
                    # the solver's moves always makes progress and never cycles
                    for d in range(max(1, depth - step + 1), depth):
                        v, m, _ = self._move_values(state, d, -1, moves)
                        if v == 1 and m is not None:
                            best_move = m
                            break
                    break
                if not hz_lo:
                    hi = lo
                    break
                v_hi, m_hi, hz_hi = self._move_values(state, depth, 1, moves)
                hi = min(hi, v_hi)
                if not hz_hi:
                    lo = hi
                    best_move = m_hi
                if lo >= hi:
                    break
                if lo == -1 and m_hi is not None:
                    best_move = m_hi  # nothing proven: play for the best hope
        except SolverTimeout:
            pass
        finally:
            self._path = {}
        self._deadline = float("inf")
        self._store_root(state, lo, hi)
        return SolveResult(
            lo=lo,
            hi=hi,
            move=best_move,
            nodes=self.nodes - nodes0,
            seconds=self.clock() - t0,
            depth=depth,
        )

    def _store_root(self, state: State, lo: int, hi: int) -> None:
        h0, h1, pile, _plen, p, phase = self._root(state)
        key = pos_key(h0, h1, pile, p, phase)
        e = self.table.get(key)
        if e is None:
            self.table[key] = [lo, hi, -1, _INF]
        else:
            e[0] = max(e[0], lo)
            e[1] = min(e[1], hi)

    def value(self, state: State, time_limit: float | None = None) -> int | None:
        """The exact value for the player to act, or ``None`` if not proven in time."""
        if state.phase == OVER:
            raise ValueError("the hand is over")
        return self.solve(state, time_limit).value

    def move_values(
        self, state: State, time_limit: float | None = 1.0
    ) -> list[tuple[Move, int | None]]:
        """Every legal turn-level move with its proven value for the mover
        (``None`` when not proven within the time budget, shared by all moves)."""
        t0 = self.clock()
        out: list[tuple[Move, int | None]] = []
        moves = state.legal_moves()
        for i, m in enumerate(moves):
            left = None
            if time_limit is not None:
                left = max(0.0, (time_limit - (self.clock() - t0)) / (len(moves) - i))
            child = state.copy()
            child.push_unchecked(m)
            if child.is_over:
                out.append((m, terminal_value(child, state.to_act)))
                continue
            r = self.solve(child, left)
            v = r.value
            if child.to_act != state.to_act and v is not None:
                v = -v
            out.append((m, v))
        return out

    def principal_line(self, state: State, time_limit: float | None = 1.0) -> SolveResult:
        """Solve ``state`` and follow the best moves to the end of the hand (or a
        repetition), so the result's ``pv`` shows how the value is reached."""
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
                left = max(0.05, time_limit - (self.clock() - t0))
            move = self.solve(s, left).move
        res.pv = pv
        res.seconds = self.clock() - t0
        return res
