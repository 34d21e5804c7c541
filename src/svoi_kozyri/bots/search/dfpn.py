"""Proof-number search (Nagai's df-pn) for the exact solver: "can this seat force
a win?" without a depth bound, in slices of a given number of nodes.

Why a module of its own: one of the solver's four algorithms (see
:mod:`.proof`), run only when the fixpoint of the reachable graph is no use (a
win longer than the action cap allows), with its own tables (the solver's
``tables[2]``/``tables[3]``) and working state.  Compiled (mypyc): its node
function is a hot loop.
"""

from __future__ import annotations

from ...core import LEAD, Move
from .proof import BIG as _BIG
from .proof import NO_PROOF, PathSearch, Proof, Root, SearchContext, SolverTimeout, move_of
from .rules2p import pos_key


class _SliceOver(Exception):
    """Raised inside df-pn when a search slice has used its nodes."""


class Dfpn(PathSearch):
    """Depth-first proof-number search of one boolean question at a time."""

    def __init__(self, ctx: SearchContext) -> None:
        super().__init__(ctx)
        # _tmp here: key -> (lowest, highest repetition index, generation of the
        # highest one's path entry, refuting step)
        self._serial = 0
        self._stop = 0
        self._slice_end = 0

    def prove(self, root: Root, moves: list[Move], me: int, att: int, nodes: int) -> Proof:
        """A slice of about ``nodes`` nodes on "can ``att`` force a win?" from the
        root (``me`` to act) as a proof: a win (with its move, for me), a
        refutation (with the refuting move, for the opponent's question) or
        nothing yet (the tables keep the progress for the next slice)."""
        r3 = self.decide(root, att, nodes)
        if r3 == 1:
            if att != me:
                return Proof(win_opp=True)
            m = self.root_move(root, moves, att)
            return Proof(win_me=True, move=m) if m is not None else NO_PROOF
        if r3 == 0:
            if att == me:
                return Proof(win_me=False)
            m = self.root_move(root, moves, att)
            return Proof(win_opp=False, safe=m) if m is not None else NO_PROOF
        return NO_PROOF

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

    def decide(self, root: Root, att: int, nodes: int) -> int:
        """Run df-pn for "can ``att`` force a win?" from the root for about ``nodes``
        nodes; returns 1 proven, 0 refuted, -1 open (the tables keep the progress)."""
        self.bind()
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

    def root_move(self, root: Root, moves: list[Move], att: int) -> Move | None:
        """After a df-pn answer at the root: the turn-level move that proves it (the
        attacker to act) or refutes it (the defender to act), read from the
        tables while the root's path context is still current."""
        h0, h1, pile, plen, p, phase = root
        table = self.ctx.tables[2 + att]
        e = table.get(pos_key(h0, h1, pile, p, phase))
        if e is None or e[2] < 0:
            return None
        a = e[2]
        c = self.ctx.rules.child(h0, h1, pile, plen, p, phase, a)
        if c[5] != LEAD or c[6] != -2:
            return move_of(moves, (a,))
        k = pos_key(c[0], c[1], c[2], c[4], c[5])
        ce = table.get(k)
        b = ce[2] if ce is not None and (ce[0] == 0 or ce[1] == 0) else -1
        if b < 0:
            t = self._tmp.get(k)
            b = t[3] if t is not None else -1
        if b < 0:
            return None
        return move_of(moves, (a, b))
