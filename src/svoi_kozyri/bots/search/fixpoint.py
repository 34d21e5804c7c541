"""The least fixpoint of the reachable graph for the exact solver: "can this seat
force a win?" decided exactly over every position reachable from the root
(Liu and Smolka's local fixpoint), in Python or by the compiled kernel
(:mod:`svoi_kozyri._native.fixpoint`).

Why a module of its own: one of the solver's four algorithms (see
:mod:`.proof`), with its own working state (the node arrays of one computation,
the compiled kernel's graph).  Its answers go into the depth-first search's
tables (the solver's ``tables[0]``/``tables[1]``).  Compiled (mypyc): its node
loop is hot.
"""

from __future__ import annotations

import gc
from typing import Any

from ...core import LEAD, PICKUP, RESPOND, Move
from .proof import BIG as _BIG
from .proof import NO_PROOF, Algorithm, Proof, Root, SearchContext, SolverTimeout, move_of
from .rules2p import pile_codes, pos_key

#: The fixpoint computation gives up beyond this many positions (about 1 KB each).
MAX_GRAPH = 1_500_000

#: The compiled fixpoint (:mod:`svoi_kozyri._native.fixpoint`, about 130 bytes a position: 4 GB at
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
            from ..._native import fixpoint as module
        except ImportError:  # pragma: no cover - numba is a dependency
            _fixgraph_module = False
        else:
            _fixgraph_module = module
    return _fixgraph_module or None


class Fixpoint(Algorithm):
    """The least fixpoint of the reachable graph, one boolean question at a time.

    ``rank`` and ``steps`` describe the last computation's root: the rank of its
    win (a bound on the steps of the proven strategy) and the proving or
    refuting turn's steps, when the computation recorded them."""

    def __init__(self, ctx: SearchContext, compiled: bool = True) -> None:
        super().__init__(ctx)
        self.compiled = compiled
        self.rank = 0
        self.steps: tuple[int, ...] = ()
        self.beat: list[list[int]] = ctx.rules.beat
        self._att = 0
        # the state of one fixpoint computation (see decide)
        self._fx_table: dict[int, list[int]] = {}
        self._fx_other: dict[int, list[int]] = {}
        self._fx_idx: dict[int, int] = {}
        self._fx_val: list[int] = []
        self._fx_rank: list[int] = []
        self._fx_best: list[int] = []
        self._fx_or: list[bool] = []
        self._fx_state: list[Root] = []
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

    def bind(self) -> None:
        """:meth:`Algorithm.bind`, and the beat table of the seat pair."""
        super().bind()
        self.beat = self.ctx.rules.beat

    def release(self) -> None:
        """Free the compiled fixpoint's arrays: kept only within one solve call."""
        self._graph = None

    def prove(self, root: Root, moves: list[Move], me: int, att: int, max_depth: int) -> Proof:
        """The question "can ``att`` force a win?" from the root (``me`` to act),
        decided over the reachable graph, as a proof: a win (with its move, for
        me) whose rank the action cap allows, a refutation (with the refuting
        move, for the opponent's question), or nothing (the graph was too large,
        or the win too long for the cap)."""
        f = self.decide(root, att)
        if f == 1:
            if self.rank > max_depth:
                return NO_PROOF
            if att != me:
                return Proof(win_opp=True)
            m = self.root_move(root, moves, att)
            return Proof(win_me=True, move=m) if m is not None else NO_PROOF
        if f == 0:
            if att == me:
                return Proof(win_me=False)
            return Proof(win_opp=False, safe=self.root_move(root, moves, att))
        return NO_PROOF

    def decide(self, root: Root, att: int) -> int:
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
        self, root: Root, att: int
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
        self.bind()
        if self.compiled and not self._danger:
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
        self.rank = rank[r] if won else 0
        # the root's proving or refuting turn, while the nodes are still here
        self.steps = ()
        a = best[r]
        if a >= 0:
            s = state[r]
            c = rules.child(s[0], s[1], s[2], s[3], s[4], s[5], a)
            if c[6] != -2 or c[5] != LEAD:
                self.steps = (a,)
            else:
                y = idx.get(pos_key(c[0], c[1], c[2], c[4], c[5]), -1)
                if y >= 0 and best[y] >= 0 and (val[y] == 1) == won:
                    self.steps = (a, best[y])
        self._fix_store(not won)
        self._fix_clear()
        return 1 if won else 0

    def _fixpoint_compiled(self, module: Any, root: Root, att: int) -> int:
        """:meth:`_fixpoint_run` by the compiled kernel (:mod:`svoi_kozyri._native.fixpoint`, the
        same computation on flat arrays), in slices between which the clock is
        read.  What it proves goes into the table for the root and every position
        one turn from it (what :meth:`root_move` and the next call read), not for
        the millions of positions met: the tables would cost a kilobyte each."""
        self._att = att
        h0, h1, pile, plen, p, phase = root
        ctx = self.ctx
        rules = ctx.rules
        graph = self._graph
        if graph is not None and self._graph_of == (ctx.ident, ctx.max_graph):
            graph.reset(att)
        else:
            self._graph = None  # (the old arrays go before the new ones are made)
            graph = module.FixGraph(
                rules.beat,
                rules.req,
                att,
                rules.draw_mode,
                rules.taker_leads,
                rules.face_new_top,
                limit=ctx.max_graph,
            )
            self._graph = graph
            self._graph_of = (ctx.ident, ctx.max_graph)
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
            if graph.size > ctx.max_graph:
                return -1
        won = r == module.WON
        v, rank, best = graph.root_value()
        self.rank = rank if won else 0
        self.steps = graph.root_steps()
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
        self, s: Root, key: int
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

    def root_move(self, root: Root, moves: list[Move], att: int) -> Move | None:
        """After a fixpoint answer at the root: the turn-level move that proves it
        (the attacker to act) or refutes it (the defender to act).  The steps the
        computation itself recorded, else a move whose result the table settles the
        right way (for a win, the one of least rank)."""
        if self.steps:
            m = move_of(moves, self.steps)
            if m is not None:
                return m
        h0, h1, pile, plen, p, phase = root
        tables = self.ctx.tables
        rules = self.ctx.rules
        table = tables[att]
        won = p == att
        found: Move | None = None
        least = _BIG
        for m in moves:
            st = m.steps()
            c = rules.child(h0, h1, pile, plen, p, phase, st[0])
            if c[6] == -2 and len(st) == 2:
                c = rules.child(c[0], c[1], c[2], c[3], c[4], c[5], st[1])
            if c[6] != -2:  # the mover goes out: a win or a draw for the mover
                if not won:
                    return m
                if c[6] == 1:
                    return m
                continue
            key = pos_key(c[0], c[1], c[2], c[4], c[5])
            if not won:
                o = tables[1 - att].get(key)
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
