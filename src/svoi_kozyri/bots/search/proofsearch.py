"""The depth-first win search of the exact solver: "can this seat force a win
within ``depth`` steps?", with its transposition tables and its treatment of
repetitions (the graph-history interaction: see :mod:`.solver`'s module text).

Why a module of its own: one of the solver's four algorithms (see
:mod:`.proof`), with its own working state (the search path, the path-dependent
refutations, the repetition span of the last answer).  Compiled (mypyc): its
node function is the solver's innermost loop.
"""

from __future__ import annotations

from ...core import LEAD, Move
from .proof import BIG as _BIG
from .proof import NO_PROOF, PathSearch, Proof, Root, SearchContext, SolverTimeout
from .rules2p import pos_key


class WinSearch(PathSearch):
    """Iterative-deepening depth-first search of one boolean question at a time,
    over the step-level actions of the two-player rules."""

    def __init__(self, ctx: SearchContext) -> None:
        super().__init__(ctx)
        # _tmp here: key -> (depth, lowest, highest repetition index, generation of
        # the highest one's path entry)
        self._rhz = False

    def prove(self, root: Root, moves: list[Move], me: int, att: int, depth: int) -> Proof:
        """The question "can ``att`` force a win within ``depth`` steps?" from the
        root (``me`` to act) as a proof: a win, a refutation that never touched the
        horizon (so holds at every depth), or only what the horizon left (the
        depth refuted for me, the move that held out for the opponent)."""
        r, m, hz = self.root_win(root, moves, att, depth)
        if att == me:
            if r:
                return Proof(win_me=True, move=m, deepened=True)
            return Proof(win_me=False) if not hz else Proof(failed=depth)
        if r:
            return Proof(win_opp=True)
        if not hz:
            return Proof(win_opp=False, safe=m)
        return Proof(hope=m) if m is not None else NO_PROOF

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

    def _eval_move(self, root: Root, m: Move, depth: int) -> tuple[bool, bool]:
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

    def root_win(
        self,
        root: Root,
        moves: list[Move],
        att: int,
        depth: int,
    ) -> tuple[bool, Move | None, bool]:
        """One root search: can ``att`` force a win within ``depth`` steps?  Returns
        the answer, the move that proves it (attacker to act) or refutes it (the
        defender to act), and whether a ``False`` touched the horizon."""
        self.bind()
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
        for m in self.order_moves(root, moves, e[2] if e is not None else -1):
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

    def order_moves(self, root: Root, moves: list[Move], first: int) -> list[Move]:
        h0, h1, pile, _plen, p, phase = root
        order = self.ctx.rules.order(h0, h1, pile, p, phase, first)
        rank = {a: i for i, a in enumerate(order)}
        return sorted(moves, key=lambda m: rank.get(m.steps()[0], 99))
