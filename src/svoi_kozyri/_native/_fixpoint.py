"""Kernels: the solver's least fixpoint of the reachable graph, compiled (numba);
:class:`.fixpoint.FixGraph` is their typed facade.

Why: ``Fixpoint._fixpoint_run`` (bots/search/fixpoint.py) decides "can this player force
a win?" over every position reachable from the root: a 16-card question meets about a
million positions, a 20-card one ten to twenty million.  In Python (even compiled by mypyc)
each position costs about a kilobyte of lists and tuples and each edge about 2 µs;
here a position is a row of a few flat arrays (about 130 bytes) and an edge a few
hash probes, so the same computation runs about ten times faster (3 to 12 million
edges a second) in a tenth of the memory.

The algorithm is exactly that of ``Fixpoint._fixpoint_run`` (bots/search/fixpoint.py;
Liu and Smolka's local least fixpoint: attacker nodes wait on all their children,
defender nodes on one child at a time, the pickup first), on the same two-player rules step
(:meth:`.rules2p.TwoPlayerRules.child`, ported here to the trie piles below: numba
cannot call the mypyc-compiled original; ``tests/test_solver_differential.py``
steps both on the same positions), with three differences that change no answer: the tables
of earlier questions are not consulted (they only prune), a defender's beats are
ordered when the node is made rather than when its pickup is lost, and the nodes
waiting on a node are woken in the reverse order.  Positions whose history matters
(one occurrence short of the threefold rule) stay with the Python computation.

Layout.  A pile is a node of a trie (parent pile, top card), so a position is
four fixed-width fields (both hands, the pile's trie node, the player to act and
the phase) and a child's pile is one trie step away: a lead pushes one card, a
pickup walks up ``k`` parents.  Positions are found through an open-addressing hash
table whose slots hold the key itself (one cache line a probe; filled to at most three
quarters, which saved a growth and its rehash on the largest graphs); a new attacker
node computes all its children first and asks for their slots at once
(:data:`._jit.prefetch`), so those cache misses overlap.  (Edges
that remember their child measured slower: the memory they take costs more than the
probes they save.)  Every array is made and grown by
:class:`~.fixpoint.FixGraph` in Python (large ones in 2 MB pages); a kernel call stops
(changing nothing) when an array might not hold the next step, and after a slice
of work, so that the caller can grow the arrays and check its clock between calls.  The
kernels release the GIL (they touch only their own arrays), so a web server's other
threads go on while a bot proves a position.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from ..core import FREE as _FREE
from ..core import LEAD as _LEAD
from ..core import OVER as _OVER
from ..core import PICKUP as _PICKUP
from ..core import RESPOND as _RESPOND
from ..core.cards import NUM_RANKS
from ._jit import I64s, kernel, prefetch, unmanaged
from ._jit import lowest_bit as _low
from ._jit import popcount as _popcount

Arr = npt.NDArray[Any]
"""One of the graph's arrays (each of the integer type its values need)."""
Nodes = tuple[Arr, ...]
"""The 15 node arrays: H0, H1, PID, PP, PH, OR, VAL, RANK, BEST, WATCH, MAXR, CS,
CN, DH and the node table NHT (:class:`~.fixpoint.FixGraph` makes them)."""
Piles = tuple[Arr, ...]
"""The pile trie: QPAR, QCARD, QLEN, the pile table QHT and the counters C."""
Edges = tuple[Arr, ...]
"""The edges: EA (their steps), DE and DN (the waiting lists), the stack ST."""
Child = tuple[int, int, int, int, int, int]
"""A successor position: both hands, the pile's trie node, the player to act, the
phase, and the value of an end (-2: the hand goes on)."""

#: kernel results
WON: Final = 1
REFUTED: Final = 0
SLICE: Final = 2
GROW: Final = 3

# the counters: indices of C (the last of the pile arrays)
C_NODES: Final = 0
C_EDGES: Final = 1
C_DEPS: Final = 2
C_SP: Final = 3
C_PILES: Final = 4
C_POPS: Final = 5
C_WAKE: Final = 6  # a node whose waiting edges are not all woken yet, plus one (0: none)
#: room every array must have left for one more step of the loop
ROOM: Final = 96

_MIX: Final = np.uint64(0x9E3779B97F4A7C15)


@kernel(inline=True)
def _hash(k1: int, k2: int) -> np.uint64:
    z = np.uint64(k1) ^ (np.uint64(k2) * _MIX)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel(inline=True)
def _bare_nodes(N: Nodes) -> Nodes:
    """The node arrays without their owners (see :func:`unmanaged`)."""
    H0, H1, PID, PP, PH, OR, VAL, RANK, BEST, WATCH, MAXR, CS, CN, DH, NHT = N
    return (
        unmanaged(H0),
        unmanaged(H1),
        unmanaged(PID),
        unmanaged(PP),
        unmanaged(PH),
        unmanaged(OR),
        unmanaged(VAL),
        unmanaged(RANK),
        unmanaged(BEST),
        unmanaged(WATCH),
        unmanaged(MAXR),
        unmanaged(CS),
        unmanaged(CN),
        unmanaged(DH),
        unmanaged(NHT),
    )


@kernel(inline=True)
def _bare_piles(G: Piles) -> Piles:
    QPAR, QCARD, QLEN, QHT, C = G
    return unmanaged(QPAR), unmanaged(QCARD), unmanaged(QLEN), unmanaged(QHT), unmanaged(C)


@kernel(inline=True)
def _bare_edges(E: Edges) -> Edges:
    EA, DE, DN, ST = E
    return unmanaged(EA), unmanaged(DE), unmanaged(DN), unmanaged(ST)


# ------------------------------------------------------------------ piles


@kernel(inline=True)
def _pile_slot(QPAR: Arr, QCARD: Arr, QHT: Arr, pid: int, code: int) -> int:
    """The slot of pile ``pid`` with card code ``code`` (card + 1) on top in the pile
    table: the one holding it, or the empty one where it would go."""
    mask = QHT.shape[0] - 1
    h = np.int64(_hash(pid, code) & np.uint64(mask))
    while True:
        e = QHT[h]
        if e == 0 or (QPAR[e - 1] == pid and QCARD[e - 1] == code):
            return int(h)
        h = (h + 1) & mask


@kernel(inline=True)
def pile_push(QPAR: Arr, QCARD: Arr, QLEN: Arr, QHT: Arr, C: I64s, pid: int, code: int) -> int:
    """The trie node of pile ``pid`` with card code ``code`` on top (made if new)."""
    h = _pile_slot(QPAR, QCARD, QHT, pid, code)
    if QHT[h]:
        return int(QHT[h] - 1)
    n = C[C_PILES]
    C[C_PILES] = n + 1
    QPAR[n] = pid
    QCARD[n] = code
    QLEN[n] = QLEN[pid] + 1
    QHT[h] = n + 1
    return int(n)


# ------------------------------------------------------------------ positions


@kernel(inline=True)
def _key(h0: int, p: int, ph: int) -> int:
    """The position's first key word (the second is its pile's trie node)."""
    return int(h0 | (np.int64(p) << 40) | (np.int64(ph) << 41))


@kernel(inline=True)
def _slot(NHT: I64s, k: int, pid: int) -> int:
    """The first slot to probe for key word ``k`` (plus one) and pile ``pid``."""
    return int(np.int64(_hash(k, pid) & np.uint64((NHT.shape[0] >> 1) - 1)))


@kernel(inline=True)
def _find(NHT: I64s, h0: int, pid: int, p: int, ph: int) -> int:
    """The node of a position, or -1.  A slot of ``NHT`` is two words, the first
    key word plus one (0: empty) and pile << 32 | node, so a probe reads one
    cache line and no node."""
    k = _key(h0, p, ph) + 1
    mask = (NHT.shape[0] >> 1) - 1
    h = _slot(NHT, k, pid)
    while True:
        e = NHT[2 * h]
        if e == 0:
            return -1
        if e == k:
            w = NHT[2 * h + 1]
            if w >> 32 == pid:
                return int(w & 0xFFFFFFFF)
        h = (h + 1) & mask


@kernel(inline=True)
def _insert(H0: Arr, PID: Arr, PP: Arr, PH: Arr, NHT: I64s, n: int) -> None:
    k = _key(H0[n], PP[n], PH[n]) + 1
    pid = np.int64(PID[n])
    mask = (NHT.shape[0] >> 1) - 1
    h = _slot(NHT, k, int(pid))
    while NHT[2 * h] != 0:
        h = (h + 1) & mask
    NHT[2 * h] = k
    NHT[2 * h + 1] = (pid << 32) | n


@kernel(nogil=True)
def rehash_nodes(H0: Arr, PID: Arr, PP: Arr, PH: Arr, NHT: I64s, count: int) -> None:
    """Fill the (empty, larger) table ``NHT`` with nodes ``0..count-1``."""
    for n in range(count):
        _insert(H0, PID, PP, PH, NHT, n)


@kernel(nogil=True)
def rehash_piles(QPAR: Arr, QCARD: Arr, QHT: Arr, count: int) -> None:
    """Fill the (empty, larger) pile table ``QHT`` with trie nodes ``1..count-1``."""
    mask = QHT.shape[0] - 1
    for n in range(1, count):
        h = np.int64(_hash(QPAR[n], QCARD[n]) & np.uint64(mask))
        while QHT[h] != 0:
            h = (h + 1) & mask
        QHT[h] = n + 1


# ------------------------------------------------------------------ the rules


@kernel(inline=True)
def _out_value(R: I64s, BEAT: I64s, hl: int, top_code: int, last: int, kind_lead: bool) -> int:
    """Value for the player who just went out (the other one, ``last``, holds ``hl``)."""
    dm = R[1]
    if dm and hl & (hl - 1) == 0 and (dm == 2 or kind_lead) and BEAT[last, top_code] & hl:
        return 0
    return 1


@kernel(inline=True)
def child(
    G: Piles, R: I64s, BEAT: I64s, REQ: I64s, h0: int, h1: int, pid: int, p: int, ph: int, a: int
) -> Child:
    """:meth:`.rules2p.TwoPlayerRules.child` on trie piles: (h0, h1, pile, player,
    phase, out)."""
    QPAR, QCARD, QLEN, QHT, C = G
    if a == _PICKUP:
        k = REQ[p, QCARD[pid]]
        if k > QLEN[pid]:
            k = QLEN[pid]
        taken = 0
        for _ in range(k):
            taken |= 1 << (QCARD[pid] - 1)
            pid = QPAR[pid]
        if p == 0:
            h0 |= taken
        else:
            h1 |= taken
        q = p if R[2] else 1 - p
        nph = _RESPOND if QLEN[pid] > 0 and R[3] else _FREE
        return h0, h1, pid, q, nph, -2
    bit = 1 << a
    if p == 0:
        h0 ^= bit
        hp = h0
        hl = h1
    else:
        h1 ^= bit
        hp = h1
        hl = h0
    pid = pile_push(QPAR, QCARD, QLEN, QHT, C, pid, a + 1)
    if ph == _RESPOND:
        if hp:
            return h0, h1, pid, p, _LEAD, -2
        return h0, h1, pid, p, _OVER, _out_value(R, BEAT, hl, a + 1, 1 - p, False)
    if hp:
        return h0, h1, pid, 1 - p, _RESPOND, -2
    return h0, h1, pid, p, _OVER, _out_value(R, BEAT, hl, a + 1, 1 - p, True)


@kernel(inline=True)
def order(
    BEAT: I64s, QCARD: Arr, h0: int, h1: int, pid: int, p: int, ph: int, out: I64s, keys: I64s
) -> int:
    """:meth:`.rules2p.TwoPlayerRules.order` (no table step) into ``out``; returns
    the count."""
    hp = h0 if p == 0 else h1
    hq = h1 if p == 0 else h0
    n = 0
    if ph == _RESPOND:
        bm = BEAT[p, QCARD[pid]] & hp
        only = hp & (hp - 1) == 0
        while bm:
            c = _low(bm)
            bm &= bm - 1
            s = -100 if only else c % NUM_RANKS
            keys[n] = (s + 200) * 64 + c
            n += 1
    else:
        m = hp
        q = 1 - p
        while m:
            c = _low(m)
            m &= m - 1
            keys[n] = (_popcount(BEAT[q, c + 1] & hq) * 16 + c % NUM_RANKS + 200) * 64 + c
            n += 1
    # insertion sort of at most 40 keys
    for i in range(1, n):
        v = keys[i]
        j = i - 1
        while j >= 0 and keys[j] > v:
            keys[j + 1] = keys[j]
            j -= 1
        keys[j + 1] = v
    for i in range(n):
        out[i] = keys[i] & 63
    if ph == _RESPOND:
        out[n] = _PICKUP
        n += 1
    return n


# ------------------------------------------------------------------ the fixpoint


@kernel(inline=True)
def _defender_ends(BEAT: I64s, QCARD: Arr, hp: int, pid: int, p: int, ph: int) -> bool:
    """The defender (``p``, holding ``hp``) can play its last card now, which ends
    the hand with no win for the attacker: the node is settled at once."""
    return hp & (hp - 1) == 0 and (ph != _RESPOND or BEAT[p, QCARD[pid]] & hp)


@kernel(inline=True)
def _new_node(
    N: Nodes,
    G: Piles,
    R: I64s,
    BEAT: I64s,
    REQ: I64s,
    E: Edges,
    h0: int,
    h1: int,
    pid: int,
    p: int,
    ph: int,
    scratch: I64s,
    keys: I64s,
    kid: I64s,
) -> int:
    """``Fixpoint._fix_node`` without tables: make, settle or expand a node."""
    H0, H1, PID, PP, PH, OR, VAL, RANK, BEST, WATCH, MAXR, CS, CN, DH, NHT = N
    EA, _DE, _DN, ST = E
    C = G[4]
    i = C[C_NODES]
    C[C_NODES] = i + 1
    H0[i] = h0
    H1[i] = h1
    PID[i] = pid
    PP[i] = p
    PH[i] = ph
    _insert(H0, PID, PP, PH, NHT, i)
    WATCH[i] = 0
    MAXR[i] = 0
    DH[i] = -1
    RANK[i] = 0
    CS[i] = C[C_EDGES]
    CN[i] = 0
    att = R[0]
    is_or = p == att
    OR[i] = is_or
    QCARD = G[1]
    if not is_or:
        hp = h0 if p == 0 else h1
        if _defender_ends(BEAT, QCARD, hp, pid, p, ph):
            VAL[i] = 2
            BEST[i] = _low(hp)
            return int(i)
        e0 = C[C_EDGES]
        n = order(BEAT, QCARD, h0, h1, pid, p, ph, scratch, keys)
        first = 0
        if ph == _RESPOND:  # the pickup (last in the usual order) first
            EA[e0] = _PICKUP
            first = 1
        for j in range(n - first):
            EA[e0 + first + j] = scratch[j]
        C[C_EDGES] = e0 + n
        CN[i] = n
        VAL[i] = 0
        BEST[i] = EA[e0]
        sp = C[C_SP]
        ST[sp] = np.int64(i) << 8
        C[C_SP] = sp + 1
        return int(i)
    n = order(BEAT, QCARD, h0, h1, pid, p, ph, scratch, keys)
    v = 0
    b = -1
    rk = 0
    e0 = C[C_EDGES]
    cnt = 0
    # every child first, its table slot asked for at once: the probes' cache misses
    # then overlap instead of coming one after another
    for t in range(n):
        c0, _c1, cp, q, cph, out = child(G, R, BEAT, REQ, h0, h1, pid, p, ph, scratch[t])
        kid[t, 0] = c0
        kid[t, 1] = cp
        kid[t, 2] = q
        kid[t, 3] = cph
        kid[t, 4] = out
        if out == -2:
            prefetch(NHT, 2 * _slot(NHT, _key(c0, q, cph) + 1, cp))
    for t in range(n):
        a = scratch[t]
        out = kid[t, 4]
        if out != -2:
            if out == 1:
                v = 1
                b = a
                rk = 1
                break
            continue
        j = _find(NHT, kid[t, 0], kid[t, 1], kid[t, 2], kid[t, 3])
        if j >= 0 and VAL[j] == 1:
            v = 1
            b = a
            rk = RANK[j] + 1
            break
        EA[e0 + cnt] = a
        cnt += 1
    if v == 0 and cnt == 0:
        v = 2  # the attacker has only ends that are no win
    VAL[i] = v
    RANK[i] = rk
    BEST[i] = b
    if v == 0:
        C[C_EDGES] = e0 + cnt
        CN[i] = cnt
        sp = C[C_SP]
        for j in range(cnt - 1, -1, -1):
            ST[sp] = np.int64(i) << 8 | j
            sp += 1
        C[C_SP] = sp
    return int(i)


@kernel(nogil=True)
def start(
    N: Nodes,
    G: Piles,
    R: I64s,
    BEAT: I64s,
    REQ: I64s,
    E: Edges,
    h0: int,
    h1: int,
    pile_codes: I64s,
    p: int,
    ph: int,
    scratch: I64s,
    keys: I64s,
    kid: I64s,
) -> int:
    """Make the root (pile ``pile_codes``, bottom first); returns its node."""
    N, G, E = _bare_nodes(N), _bare_piles(G), _bare_edges(E)
    R, BEAT, REQ = unmanaged(R), unmanaged(BEAT), unmanaged(REQ)
    scratch, keys, kid = unmanaged(scratch), unmanaged(keys), unmanaged(kid)
    pid = 0
    for code in pile_codes:
        pid = pile_push(G[0], G[1], G[2], G[3], G[4], pid, code)
    return _new_node(N, G, R, BEAT, REQ, E, h0, h1, pid, p, ph, scratch, keys, kid)


@kernel(inline=True)
def _wait(C: I64s, DE: Arr, DN: Arr, DH: Arr, y: int, ed: int) -> None:
    """Edge ``ed`` waits on node ``y`` (put on the front of ``y``'s list)."""
    d = C[C_DEPS]
    C[C_DEPS] = d + 1
    DE[d] = ed
    DN[d] = DH[y]
    DH[y] = d


@kernel(inline=True)
def _wake(DH: Arr, DE: Arr, DN: Arr, ST: I64s, C: I64s, x: int) -> bool:
    """Put the edges waiting on the (now won) node ``x`` back on the stack; False
    when the stack is full first (the rest stay waiting, ``C[C_WAKE]`` says whose,
    and the next call wakes them before anything else)."""
    d = DH[x]
    sp = C[C_SP]
    cap = ST.shape[0]
    while d >= 0:
        if sp >= cap:
            C[C_SP] = sp
            DH[x] = d
            C[C_WAKE] = x + 1
            return False
        ST[sp] = DE[d]
        sp += 1
        d = DN[d]
    C[C_SP] = sp
    DH[x] = -1
    C[C_WAKE] = 0
    return True


@kernel(nogil=True)
def run(  # noqa: C901 - numba kernel: one compiled loop is the speed
    N: Nodes,
    G: Piles,
    R: I64s,
    BEAT: I64s,
    REQ: I64s,
    E: Edges,
    root: int,
    budget: int,
    caps: I64s,
    scratch: I64s,
    keys: I64s,
    kid: I64s,
) -> int:
    """The fixpoint loop of ``Fixpoint._fixpoint_run`` (bots/search/fixpoint.py) for at
    most ``budget`` edges: WON, REFUTED (no work left), SLICE (budget used) or GROW (an array
    could overflow in the next step: ``caps`` are the capacities of nodes, node
    table, edges, deps, stack, piles, pile table; nothing was changed)."""
    N, G, E = _bare_nodes(N), _bare_piles(G), _bare_edges(E)
    R, BEAT, REQ = unmanaged(R), unmanaged(BEAT), unmanaged(REQ)
    scratch, keys, caps = unmanaged(scratch), unmanaged(keys), unmanaged(caps)
    kid = unmanaged(kid)
    H0, H1, PID, PP, PH, OR, VAL, RANK, BEST, WATCH, MAXR, CS, CN, DH, NHT = N
    EA, DE, DN, ST = E
    QCARD = G[1]
    C = G[4]
    done = 0
    if C[C_WAKE] and not _wake(DH, DE, DN, ST, C, C[C_WAKE] - 1):
        return GROW
    while C[C_SP] > 0 and VAL[root] != 1:
        if done >= budget:
            return SLICE
        nn = C[C_NODES]
        if (
            nn + ROOM > caps[0]
            or 8 * (nn + ROOM) > 3 * caps[1]
            or C[C_EDGES] + 2 * ROOM > caps[2]
            or C[C_DEPS] + ROOM > caps[3]
            or C[C_SP] + 2 * ROOM > caps[4]
            or C[C_PILES] + ROOM > caps[5]
            or 2 * (C[C_PILES] + ROOM) > caps[6]
        ):
            return GROW
        done += 1
        C[C_POPS] += 1
        sp = C[C_SP] - 1
        C[C_SP] = sp
        ed = ST[sp]
        x = ed >> 8
        j = ed & 255
        if VAL[x] != 0:
            continue
        xor = OR[x]
        if not xor and j != WATCH[x]:
            continue
        a = EA[CS[x] + j]
        c0, c1, cp, q, cph, _out = child(G, R, BEAT, REQ, H0[x], H1[x], PID[x], PP[x], PH[x], a)
        y = _find(NHT, c0, cp, q, cph)
        if y < 0 and xor and cph == _RESPOND:
            # The defender facing a card: while its pickup is not proven lost the
            # attacker's edge waits on the pickup's result itself, and the
            # defender's node is made only once that is lost (most of them never
            # are: this keeps three nodes in four out of the graph).
            hq = c0 if q == 0 else c1
            if not _defender_ends(BEAT, QCARD, hq, cp, q, cph):
                d0, d1, dp, dq, dph, _dout = child(G, R, BEAT, REQ, c0, c1, cp, q, cph, _PICKUP)
                z = _find(NHT, d0, dp, dq, dph)
                if z < 0:
                    z = _new_node(N, G, R, BEAT, REQ, E, d0, d1, dp, dq, dph, scratch, keys, kid)
                if VAL[z] != 1:
                    _wait(C, DE, DN, DH, z, ed)
                    continue
        if y < 0:
            y = _new_node(N, G, R, BEAT, REQ, E, c0, c1, cp, q, cph, scratch, keys, kid)
        if VAL[y] != 1:
            _wait(C, DE, DN, DH, y, ed)
            continue
        # child y is proven won
        if xor:
            VAL[x] = 1
            RANK[x] = RANK[y] + 1
            BEST[x] = a
        else:
            m = MAXR[x]
            if RANK[y] > m:
                m = RANK[y]
            n = CN[x]
            w = j + 1
            while w < n:  # skip defences already proven lost
                c0, c1, cp, q, cph, _out = child(
                    G, R, BEAT, REQ, H0[x], H1[x], PID[x], PP[x], PH[x], EA[CS[x] + w]
                )
                z = _find(NHT, c0, cp, q, cph)
                if z < 0 or VAL[z] != 1:
                    break
                if RANK[z] > m:
                    m = RANK[z]
                w += 1
            MAXR[x] = m
            WATCH[x] = w
            if w < n:
                BEST[x] = EA[CS[x] + w]
                sp = C[C_SP]
                ST[sp] = np.int64(x) << 8 | w
                C[C_SP] = sp + 1
                continue
            VAL[x] = 1
            RANK[x] = m + 1
            BEST[x] = EA[CS[x]]
        if not _wake(DH, DE, DN, ST, C, x):
            return GROW
    return WON if VAL[root] == 1 else REFUTED


@kernel(nogil=True)
def probe(
    N: Nodes,
    G: Piles,
    R: I64s,
    BEAT: I64s,
    REQ: I64s,
    h0: int,
    h1: int,
    pile_codes: I64s,
    p: int,
    ph: int,
) -> tuple[int, int, int]:
    """(value, rank, best step) of a position met, or (-1, 0, -1): value 1 proven
    won, 2 settled no win, 0 not proven (after REFUTED: refuted)."""
    VAL, RANK, BEST, NHT = N[6], N[7], N[8], N[14]
    QPAR, QCARD, QHT = G[0], G[1], G[3]
    # walk the trie without adding to it
    pid = 0
    for code in pile_codes:
        e = QHT[_pile_slot(QPAR, QCARD, QHT, pid, code)]
        if e == 0:
            return -1, 0, -1
        pid = e - 1
    x = _find(NHT, h0, pid, p, ph)
    if x < 0:
        return -1, 0, -1
    return VAL[x], RANK[x], BEST[x]


@kernel(nogil=True)
def root_steps(N: Nodes, G: Piles, R: I64s, BEAT: I64s, REQ: I64s, root: int) -> tuple[int, int]:
    """The root's proving or refuting turn as (first step, second step or -1),
    as ``Fixpoint._fixpoint_run`` (bots/search/fixpoint.py) reads it (-1, -1: none)."""
    H0, H1, PID, PP, PH, _OR, VAL, _RANK, BEST, _WATCH, _MAXR, _CS, _CN, _DH, NHT = N
    a = BEST[root]
    if a < 0:
        return -1, -1
    won = VAL[root] == 1
    c0, _c1, cp, q, cph, out = child(
        G, R, BEAT, REQ, H0[root], H1[root], PID[root], PP[root], PH[root], a
    )
    if out != -2 or cph != _LEAD:
        return a, -1
    y = _find(NHT, c0, cp, q, cph)
    if y >= 0 and BEST[y] >= 0 and (VAL[y] == 1) == won:
        return a, BEST[y]
    return -1, -1
