# mypy: ignore-errors
"""The solver's least fixpoint of the reachable graph, compiled (numba).

Why: :meth:`Solver._fixpoint_run` decides "can this player force a win?" over
every position reachable from the root: a 16-card question meets about a million
positions, a 20-card one ten to twenty million.  In Python (even compiled by mypyc)
each position costs about a kilobyte of lists and tuples and each edge about 2 µs;
here a position is a row of a few flat arrays (about 130 bytes) and an edge a few
hash probes, so the same computation runs about ten times faster (3 to 12 million
edges a second) in a tenth of the memory.

The algorithm is exactly :meth:`Solver._fixpoint_run`'s (Liu and Smolka's local
least fixpoint: attacker nodes wait on all their children, defender nodes on one
child at a time, the pickup first), on the same two-player rules step
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
(:func:`~svoi_kozyri._jit.prefetch`), so those cache misses overlap.  (Edges
that remember their child measured slower: the memory they take costs more than the
probes they save.)  Every array is made and grown by
:class:`FixGraph` in Python (large ones in 2 MB pages); a kernel call stops
(changing nothing) when an array might not hold the next step, and after a slice
of work, so that the caller can grow the arrays and check its clock between calls.  The
kernels release the GIL (they touch only their own arrays), so a web server's other
threads go on while a bot proves a position.
"""

from __future__ import annotations

import mmap
from typing import Final

import numpy as np
from numba import njit

from ..._jit import lowest_bit as _low
from ..._jit import popcount as _popcount
from ..._jit import prefetch, unmanaged
from ...core import FREE as _FREE
from ...core import LEAD as _LEAD
from ...core import OVER as _OVER
from ...core import PICKUP as _PICKUP
from ...core import RESPOND as _RESPOND
from ...core.cards import NUM_RANKS

#: kernel results
WON: Final = 1
REFUTED: Final = 0
SLICE: Final = 2
GROW: Final = 3

# the counters (C[...])
_NODES: Final = 0
_EDGES: Final = 1
_DEPS: Final = 2
_SP: Final = 3
_PILES: Final = 4
_POPS: Final = 5
_WAKE: Final = 6  # a node whose waiting edges are not all woken yet, plus one (0: none)
#: room every array must have left for one more step of the loop
_ROOM: Final = 96

_MIX: Final = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def _hash(k1, k2):
    z = np.uint64(k1) ^ (np.uint64(k2) * _MIX)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _bare_nodes(N):
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


@njit(cache=True, inline="always")
def _bare_piles(G):
    QPAR, QCARD, QLEN, QHT, C = G
    return unmanaged(QPAR), unmanaged(QCARD), unmanaged(QLEN), unmanaged(QHT), unmanaged(C)


@njit(cache=True, inline="always")
def _bare_edges(E):
    EA, DE, DN, ST = E
    return unmanaged(EA), unmanaged(DE), unmanaged(DN), unmanaged(ST)


# ------------------------------------------------------------------ piles


@njit(cache=True, inline="always")
def _pile_slot(QPAR, QCARD, QHT, pid, code):
    """The slot of pile ``pid`` with card code ``code`` (card + 1) on top in the pile
    table: the one holding it, or the empty one where it would go."""
    mask = QHT.shape[0] - 1
    h = np.int64(_hash(pid, code) & np.uint64(mask))
    while True:
        e = QHT[h]
        if e == 0 or (QPAR[e - 1] == pid and QCARD[e - 1] == code):
            return h
        h = (h + 1) & mask


@njit(cache=True, inline="always")
def _pile_push(QPAR, QCARD, QLEN, QHT, C, pid, code):
    """The trie node of pile ``pid`` with card code ``code`` on top (made if new)."""
    h = _pile_slot(QPAR, QCARD, QHT, pid, code)
    if QHT[h]:
        return QHT[h] - 1
    n = C[_PILES]
    C[_PILES] = n + 1
    QPAR[n] = pid
    QCARD[n] = code
    QLEN[n] = QLEN[pid] + 1
    QHT[h] = n + 1
    return n


# ------------------------------------------------------------------ positions


@njit(cache=True, inline="always")
def _key(h0, p, ph):
    """The position's first key word (the second is its pile's trie node)."""
    return h0 | (np.int64(p) << 40) | (np.int64(ph) << 41)


@njit(cache=True, inline="always")
def _slot(NHT, k, pid):
    """The first slot to probe for key word ``k`` (plus one) and pile ``pid``."""
    return np.int64(_hash(k, pid) & np.uint64((NHT.shape[0] >> 1) - 1))


@njit(cache=True, inline="always")
def _find(NHT, h0, pid, p, ph):
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
                return w & 0xFFFFFFFF
        h = (h + 1) & mask


@njit(cache=True, inline="always")
def _insert(H0, PID, PP, PH, NHT, n):
    k = _key(H0[n], PP[n], PH[n]) + 1
    pid = np.int64(PID[n])
    mask = (NHT.shape[0] >> 1) - 1
    h = _slot(NHT, k, pid)
    while NHT[2 * h] != 0:
        h = (h + 1) & mask
    NHT[2 * h] = k
    NHT[2 * h + 1] = (pid << 32) | n


@njit(cache=True, nogil=True)
def rehash_nodes(H0, PID, PP, PH, NHT, count):
    """Fill the (empty, larger) table ``NHT`` with nodes ``0..count-1``."""
    for n in range(count):
        _insert(H0, PID, PP, PH, NHT, n)


@njit(cache=True, nogil=True)
def rehash_piles(QPAR, QCARD, QHT, count):
    """Fill the (empty, larger) pile table ``QHT`` with trie nodes ``1..count-1``."""
    mask = QHT.shape[0] - 1
    for n in range(1, count):
        h = np.int64(_hash(QPAR[n], QCARD[n]) & np.uint64(mask))
        while QHT[h] != 0:
            h = (h + 1) & mask
        QHT[h] = n + 1


# ------------------------------------------------------------------ the rules


@njit(cache=True, inline="always")
def _out_value(R, BEAT, hl, top_code, last, kind_lead):
    """Value for the player who just went out (the other one, ``last``, holds ``hl``)."""
    dm = R[1]
    if dm and hl & (hl - 1) == 0 and (dm == 2 or kind_lead) and BEAT[last, top_code] & hl:
        return 0
    return 1


@njit(cache=True, inline="always")
def _child(G, R, BEAT, REQ, h0, h1, pid, p, ph, a):
    """:meth:`.rules2p.TwoPlayerRules.child` on trie piles: (h0, h1, pile, player,
    phase, out)."""
    QPAR, QCARD, QLEN, QHT, C = G
    if a == _PICKUP:
        k = REQ[p, QCARD[pid]]
        if k > QLEN[pid]:
            k = QLEN[pid]
        taken = np.int64(0)
        for _ in range(k):
            taken |= np.int64(1) << (QCARD[pid] - 1)
            pid = QPAR[pid]
        if p == 0:
            h0 |= taken
        else:
            h1 |= taken
        q = p if R[2] else 1 - p
        nph = _RESPOND if QLEN[pid] > 0 and R[3] else _FREE
        return h0, h1, pid, q, nph, -2
    bit = np.int64(1) << a
    if p == 0:
        h0 ^= bit
        hp = h0
        hl = h1
    else:
        h1 ^= bit
        hp = h1
        hl = h0
    pid = _pile_push(QPAR, QCARD, QLEN, QHT, C, pid, a + 1)
    if ph == _RESPOND:
        if hp:
            return h0, h1, pid, p, _LEAD, -2
        return h0, h1, pid, p, _OVER, _out_value(R, BEAT, hl, a + 1, 1 - p, False)
    if hp:
        return h0, h1, pid, 1 - p, _RESPOND, -2
    return h0, h1, pid, p, _OVER, _out_value(R, BEAT, hl, a + 1, 1 - p, True)


@njit(cache=True, inline="always")
def _order(BEAT, QCARD, h0, h1, pid, p, ph, out, keys):
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


@njit(cache=True, inline="always")
def _defender_ends(BEAT, QCARD, hp, pid, p, ph):
    """The defender (``p``, holding ``hp``) can play its last card now, which ends
    the hand with no win for the attacker: the node is settled at once."""
    return hp & (hp - 1) == 0 and (ph != _RESPOND or BEAT[p, QCARD[pid]] & hp)


@njit(cache=True, inline="always")
def _new_node(N, G, R, BEAT, REQ, E, h0, h1, pid, p, ph, scratch, keys, kid):
    """:meth:`Solver._fix_node` without tables: make, settle or expand a node."""
    H0, H1, PID, PP, PH, OR, VAL, RANK, BEST, WATCH, MAXR, CS, CN, DH, NHT = N
    EA, _DE, _DN, ST = E
    C = G[4]
    i = C[_NODES]
    C[_NODES] = i + 1
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
    CS[i] = C[_EDGES]
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
            return i
        e0 = C[_EDGES]
        n = _order(BEAT, QCARD, h0, h1, pid, p, ph, scratch, keys)
        first = 0
        if ph == _RESPOND:  # the pickup (last in the usual order) first
            EA[e0] = _PICKUP
            first = 1
        for j in range(n - first):
            EA[e0 + first + j] = scratch[j]
        C[_EDGES] = e0 + n
        CN[i] = n
        VAL[i] = 0
        BEST[i] = EA[e0]
        sp = C[_SP]
        ST[sp] = np.int64(i) << 8
        C[_SP] = sp + 1
        return i
    n = _order(BEAT, QCARD, h0, h1, pid, p, ph, scratch, keys)
    v = 0
    b = -1
    rk = 0
    e0 = C[_EDGES]
    cnt = 0
    # every child first, its table slot asked for at once: the probes' cache misses
    # then overlap instead of coming one after another
    for t in range(n):
        c0, _c1, cp, q, cph, out = _child(G, R, BEAT, REQ, h0, h1, pid, p, ph, scratch[t])
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
        C[_EDGES] = e0 + cnt
        CN[i] = cnt
        sp = C[_SP]
        for j in range(cnt - 1, -1, -1):
            ST[sp] = np.int64(i) << 8 | j
            sp += 1
        C[_SP] = sp
    return i


@njit(cache=True, nogil=True)
def start(N, G, R, BEAT, REQ, E, h0, h1, pile_codes, p, ph, scratch, keys, kid):
    """Make the root (pile ``pile_codes``, bottom first); returns its node."""
    N, G, E = _bare_nodes(N), _bare_piles(G), _bare_edges(E)
    R, BEAT, REQ = unmanaged(R), unmanaged(BEAT), unmanaged(REQ)
    scratch, keys, kid = unmanaged(scratch), unmanaged(keys), unmanaged(kid)
    pid = 0
    for code in pile_codes:
        pid = _pile_push(G[0], G[1], G[2], G[3], G[4], pid, code)
    return _new_node(N, G, R, BEAT, REQ, E, h0, h1, pid, p, ph, scratch, keys, kid)


@njit(cache=True, inline="always")
def _wait(C, DE, DN, DH, y, ed):
    """Edge ``ed`` waits on node ``y`` (put on the front of ``y``'s list)."""
    d = C[_DEPS]
    C[_DEPS] = d + 1
    DE[d] = ed
    DN[d] = DH[y]
    DH[y] = d


@njit(cache=True, inline="always")
def _wake(DH, DE, DN, ST, C, x):
    """Put the edges waiting on the (now won) node ``x`` back on the stack; False
    when the stack is full first (the rest stay waiting, ``C[_WAKE]`` says whose,
    and the next call wakes them before anything else)."""
    d = DH[x]
    sp = C[_SP]
    cap = ST.shape[0]
    while d >= 0:
        if sp >= cap:
            C[_SP] = sp
            DH[x] = d
            C[_WAKE] = x + 1
            return False
        ST[sp] = DE[d]
        sp += 1
        d = DN[d]
    C[_SP] = sp
    DH[x] = -1
    C[_WAKE] = 0
    return True


@njit(cache=True, nogil=True)
def run(  # noqa: C901 - numba kernel: one compiled loop is the speed
    N, G, R, BEAT, REQ, E, root, budget, caps, scratch, keys, kid
):
    """The fixpoint loop of :meth:`Solver._fixpoint_run` for at most ``budget``
    edges: WON, REFUTED (no work left), SLICE (budget used) or GROW (an array
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
    if C[_WAKE] and not _wake(DH, DE, DN, ST, C, C[_WAKE] - 1):
        return GROW
    while C[_SP] > 0 and VAL[root] != 1:
        if done >= budget:
            return SLICE
        nn = C[_NODES]
        if (
            nn + _ROOM > caps[0]
            or 8 * (nn + _ROOM) > 3 * caps[1]
            or C[_EDGES] + 2 * _ROOM > caps[2]
            or C[_DEPS] + _ROOM > caps[3]
            or C[_SP] + 2 * _ROOM > caps[4]
            or C[_PILES] + _ROOM > caps[5]
            or 2 * (C[_PILES] + _ROOM) > caps[6]
        ):
            return GROW
        done += 1
        C[_POPS] += 1
        sp = C[_SP] - 1
        C[_SP] = sp
        ed = ST[sp]
        x = ed >> 8
        j = ed & 255
        if VAL[x] != 0:
            continue
        xor = OR[x]
        if not xor and j != WATCH[x]:
            continue
        a = EA[CS[x] + j]
        c0, c1, cp, q, cph, _out = _child(G, R, BEAT, REQ, H0[x], H1[x], PID[x], PP[x], PH[x], a)
        y = _find(NHT, c0, cp, q, cph)
        if y < 0 and xor and cph == _RESPOND:
            # The defender facing a card: while its pickup is not proven lost the
            # attacker's edge waits on the pickup's result itself, and the
            # defender's node is made only once that is lost (most of them never
            # are: this keeps three nodes in four out of the graph).
            hq = c0 if q == 0 else c1
            if not _defender_ends(BEAT, QCARD, hq, cp, q, cph):
                d0, d1, dp, dq, dph, _dout = _child(G, R, BEAT, REQ, c0, c1, cp, q, cph, _PICKUP)
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
                c0, c1, cp, q, cph, _out = _child(
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
                sp = C[_SP]
                ST[sp] = np.int64(x) << 8 | w
                C[_SP] = sp + 1
                continue
            VAL[x] = 1
            RANK[x] = m + 1
            BEST[x] = EA[CS[x]]
        if not _wake(DH, DE, DN, ST, C, x):
            return GROW
    return WON if VAL[root] == 1 else REFUTED


@njit(cache=True, nogil=True)
def probe(N, G, R, BEAT, REQ, h0, h1, pile_codes, p, ph):
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


@njit(cache=True, nogil=True)
def root_steps(N, G, R, BEAT, REQ, root):
    """The root's proving or refuting turn as (first step, second step or -1),
    as :meth:`Solver._fixpoint_run` reads it (-1, -1: none)."""
    H0, H1, PID, PP, PH, _OR, VAL, _RANK, BEST, _WATCH, _MAXR, _CS, _CN, _DH, NHT = N
    a = BEST[root]
    if a < 0:
        return -1, -1
    won = VAL[root] == 1
    c0, _c1, cp, q, cph, out = _child(
        G, R, BEAT, REQ, H0[root], H1[root], PID[root], PP[root], PH[root], a
    )
    if out != -2 or cph != _LEAD:
        return a, -1
    y = _find(NHT, c0, cp, q, cph)
    if y >= 0 and BEST[y] >= 0 and (VAL[y] == 1) == won:
        return a, BEST[y]
    return -1, -1


#: how much larger a full array is made
_GROWTH: Final = 4


_HUGE = 1 << 21
#: an array growing past this many entries is given its whole reserve
_RESERVE_FROM: Final = 1 << 18


def _zeros(n, dtype):
    """``np.zeros(n, dtype)``, in memory of its own backed by 2 MB pages when large.

    Why: the hash tables and node arrays are read at random, and with 4 KB pages
    nearly every probe of a large table also misses the TLB.  ``np.zeros`` asks
    for huge pages too, but a large block may come from the heap instead (glibc
    raises its threshold for mapping blocks of their own after one is freed)."""
    size = n * np.dtype(dtype).itemsize
    if size < _HUGE or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.zeros(n, dtype)
    buf = mmap.mmap(-1, size + _HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    start = -_address(buf) % _HUGE
    buf.madvise(mmap.MADV_HUGEPAGE, start, size - size % _HUGE or size)
    return np.frombuffer(buf, dtype=dtype, count=n, offset=start)


def _address(buf):
    """The address of a writable buffer's first byte."""
    return np.frombuffer(buf, dtype=np.uint8, count=1).__array_interface__["data"][0]


def _larger(a, reserve=0):
    """A copy of ``a`` :data:`_GROWTH` times as long (zeros after), or at once
    ``reserve`` long once that is large: an array filled from the front takes memory
    only as it is written (see :func:`_zeros`), so reserving the room of the largest
    graph spares the copies of growing it further."""
    size = _GROWTH * a.shape[0]
    if size >= _RESERVE_FROM and reserve > size:
        size = reserve
    b = _zeros(size, a.dtype)
    b[: a.shape[0]] = a
    return b


class FixGraph:
    """The arrays of one fixpoint computation, grown on demand (by
    :data:`_GROWTH`, then to their reserve).  A position costs about 60 bytes of
    node arrays, 8 to 32 of hash table, and its edges and waiting edges about 15
    bytes each (some 130 bytes a position in all on 16- and 20-card positions); the
    caller bounds the positions (:attr:`size`) between calls of :meth:`step`."""

    def __init__(
        self,
        beat,
        req,
        att: int,
        draw_mode: int,
        taker_leads: bool,
        face_new_top: bool,
        capacity: int = 1 << 12,
        limit: int = 0,
    ):
        """``capacity``: the positions the arrays are first made for; ``limit``: the
        most the caller will let it meet (0: no reserve), room for which a large
        graph's arrays reserve when they first grow large (:func:`_larger`)."""
        self.BEAT = np.asarray(beat, dtype=np.int64)
        self.REQ = np.asarray(req, dtype=np.int64)
        self.R = np.array([att, draw_mode, int(taker_leads), int(face_new_top)], dtype=np.int64)
        self.scratch = np.zeros(64, dtype=np.int64)
        self.keys = np.zeros(64, dtype=np.int64)
        self.kid = np.zeros((64, 5), dtype=np.int64)  # a new node's children
        n = capacity + 2 * _ROOM
        m = limit + 2 * _ROOM if limit else 0
        #: the reserve of the node, edge, dependency and pile arrays (see _grow)
        self.reserve = (m, 6 * m, 3 * m, m)
        e, q = 6 * n, 1 << 12
        self.nodes = [
            np.zeros(n, np.int64),  # H0
            np.zeros(n, np.int64),  # H1
            np.zeros(n, np.int32),  # PID
            np.zeros(n, np.int8),  # PP
            np.zeros(n, np.int8),  # PH
            np.zeros(n, np.bool_),  # OR
            np.zeros(n, np.int8),  # VAL
            np.zeros(n, np.int32),  # RANK
            np.zeros(n, np.int8),  # BEST
            np.zeros(n, np.int16),  # WATCH
            np.zeros(n, np.int32),  # MAXR
            np.zeros(n, np.int64),  # CS
            np.zeros(n, np.int16),  # CN
            np.zeros(n, np.int32),  # DH
            np.zeros(1 << 14, np.int64),  # NHT (pairs of words)
        ]
        self.edges = [
            np.zeros(e, np.int8),  # EA: the step of each edge
            np.zeros(3 * n, np.int64),  # DE
            np.zeros(3 * n, np.int32),  # DN
            np.zeros(1 << 14, np.int64),  # ST
        ]
        self.piles = [
            np.zeros(q, np.int32),  # QPAR
            np.zeros(q, np.int8),  # QCARD
            np.zeros(q, np.int16),  # QLEN
            np.zeros(4 * q, np.int32),  # QHT
            np.zeros(8, np.int64),  # counters
        ]
        self.piles[4][_PILES] = 1  # trie node 0: the empty pile
        self.root = -1

    @property
    def counters(self):
        return self.piles[4]

    def _caps(self):
        N, E, G = self.nodes, self.edges, self.piles
        return np.array(
            [
                N[0].shape[0],
                N[14].shape[0],
                E[0].shape[0],
                E[1].shape[0],
                E[3].shape[0],
                G[0].shape[0],
                G[3].shape[0],
            ],
            dtype=np.int64,
        )

    def _grow(self) -> None:
        """Make every array that might not hold the next step larger (by
        :data:`_GROWTH`: fewer copies and rehashes than doubling, which cost a third
        of a 16-card question's time)."""
        C = self.counters
        N, E, G = self.nodes, self.edges, self.piles
        nn = int(C[_NODES]) + _ROOM
        if nn > N[0].shape[0]:
            for i in range(14):
                N[i] = _larger(N[i], self.reserve[0])
        if 8 * nn > 3 * N[14].shape[0]:  # (at most 3/4 full: one slot is two words)
            N[14] = _zeros(_GROWTH * N[14].shape[0], np.int64)
            rehash_nodes(N[0], N[2], N[3], N[4], N[14], int(C[_NODES]))
        for i, used, room in ((0, _EDGES, 2 * _ROOM), (1, _DEPS, _ROOM), (3, _SP, 2 * _ROOM)):
            if int(C[used]) + room > E[i].shape[0]:
                if i == 3:
                    E[3] = _larger(E[3])
                else:
                    E[i] = _larger(E[i], self.reserve[1 + i])
                if i == 1:
                    E[2] = _larger(E[2], self.reserve[2])
        if int(C[_SP]) >= E[3].shape[0] - 1:  # the wake-up of a long dependency list
            E[3] = _larger(E[3])
        nq = int(C[_PILES]) + _ROOM
        if nq > G[0].shape[0]:
            for i in range(3):
                G[i] = _larger(G[i], self.reserve[3])
        if 2 * nq > G[3].shape[0]:
            G[3] = _zeros(_GROWTH * G[3].shape[0], np.int32)
            rehash_piles(G[0], G[1], G[3], int(C[_PILES]))

    def reset(self, att: int) -> None:
        """Empty the graph for a new question of the same rules (for ``att``),
        keeping the arrays: memory already written once is not asked of the
        system again (on a 20-card question, zeroing fresh pages for the kernel
        cost a fifth of the time)."""
        C = self.counters
        self.nodes[14].fill(0)
        self.piles[3].fill(0)
        C[:] = 0
        C[_PILES] = 1
        self.R[0] = att
        self.root = -1

    def _graph(self):
        """The arguments every kernel takes first: nodes, piles and the rules."""
        return tuple(self.nodes), tuple(self.piles), self.R, self.BEAT, self.REQ

    def start(self, h0: int, h1: int, pile_codes, p: int, phase: int) -> None:
        """Make the root node."""
        codes = np.asarray(pile_codes, dtype=np.int64)
        edges = tuple(self.edges)
        self.root = int(
            start(*self._graph(), edges, h0, h1, codes, p, phase, self.scratch, self.keys, self.kid)
        )

    def step(self, budget: int) -> int:
        """Run up to ``budget`` edges: WON, REFUTED or SLICE (growing as needed)."""
        while True:
            edges, caps = tuple(self.edges), self._caps()
            r = run(
                *self._graph(), edges, self.root, budget, caps, self.scratch, self.keys, self.kid
            )
            if r != GROW:
                return int(r)
            self._grow()

    @property
    def size(self) -> int:
        """Positions met so far."""
        return int(self.counters[_NODES])

    @property
    def pops(self) -> int:
        """Edges processed so far."""
        return int(self.counters[_POPS])

    def probe(self, h0: int, h1: int, pile_codes, p: int, phase: int) -> tuple[int, int, int]:
        """(value, rank, best step) of a position met, or (-1, 0, -1)."""
        codes = np.asarray(pile_codes, dtype=np.int64)
        v, r, b = probe(*self._graph(), h0, h1, codes, p, phase)
        return int(v), int(r), int(b)

    def root_value(self) -> tuple[int, int, int]:
        """(value, rank, best step) of the root."""
        N = self.nodes
        x = self.root
        return int(N[6][x]), int(N[7][x]), int(N[8][x])

    def root_steps(self) -> tuple[int, ...]:
        """The root's proving or refuting turn (empty: none read)."""
        a, b = root_steps(*self._graph(), self.root)
        if a < 0:
            return ()
        return (int(a),) if b < 0 else (int(a), int(b))
