"""Kernels: the rules of one hand in a row of the batch layout (numba), a port of
the hand logic of :mod:`svoi_kozyri.core.game`.

Why a port: numba cannot call the engine (a mypyc-compiled class), and a batch of
hands stepped in one compiled loop is what makes the simulator fast.  Every change
of the rules lands in the engine and here; ``tests/test_solver_differential.py`` and
the environments' tests step both on the same positions.

Every function takes the row ``b`` and the batch's arrays (layout in
:mod:`.layout`); the inlined ones are the named parts of a step, free to call.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from ..core import NUM_CARDS, PICKUP
from ._jit import I64s, Ints, kernel, popcount, prefetch, unmanaged
from ._reptable import TAG, home, table_add, table_reset
from .layout import (
    C_DEALER,
    C_DISCARD,
    C_HANDS,
    C_KNOWN,
    C_LOSER,
    C_PHASE,
    C_PICKED,
    C_PLEN,
    C_REASON,
    C_SERIAL,
    C_TLOG,
    C_TO_ACT,
    C_TOFF,
    C_TURNS,
    C_ZOB,
    F_CAP,
    F_DISCARD,
    F_DRAW,
    F_FACE,
    F_FREEDEF,
    F_MOST,
    F_N,
    F_REP,
    PH_FREE,
    PH_LEAD,
    PH_OVER,
    PH_RESPOND,
    R_ACTION_CAP,
    R_LAST_CARD,
    R_OUT,
    R_REPETITION,
)

_KIND_LEAD: Final = 0
_KIND_DEFENCE: Final = 1
_PREFETCH_AHEAD: Final = 16
"""How many hands ahead the repetition pass prefetches its table slots."""

_ZR = np.random.default_rng(0x5EEDC0DE)


def _zkeys(*shape: int) -> I64s:
    keys = _ZR.integers(1, 2**64 - 1, size=shape, dtype=np.uint64, endpoint=True)
    return keys.view(np.int64)  # the same 64 bits; S holds int64


# the position keys (Zobrist): a card in a seat's hand, at a pile depth, discarded;
# and the seat to act and phase
_ZH: Final = _zkeys(4, NUM_CARDS)
_ZP: Final = _zkeys(NUM_CARDS, NUM_CARDS)
_ZD: Final = _zkeys(NUM_CARDS)
_ZT: Final = _zkeys(16)


@kernel(inline=True)
def bit(c: int) -> np.int64:
    """The bitmask of card ``c``."""
    return np.int64(1) << np.int64(c)


@kernel(inline=True)
def legal_bits(b: int, S: I64s, P: Ints, beat: I64s) -> int:
    """The legal actions of hand ``b``'s seat to act, as a mask of the 41 actions."""
    ph = S[b, C_PHASE]
    p = S[b, C_TO_ACT]
    if ph == PH_RESPOND:
        return int((beat[p, P[b, S[b, C_PLEN] - 1]] & S[b, C_HANDS + p]) | (1 << PICKUP))
    if ph == PH_OVER:
        return 0
    return int(S[b, C_HANDS + p])


@kernel()
def deal(
    b: int,
    dealer: int,
    order: Ints,
    S: I64s,
    P: Ints,
    D: Ints,
    flags: I64s,
    suit_owner: I64s,
    pool: I64s,
    M: I64s,
) -> None:
    """Deal the shuffled cards ``order`` into hand ``b``, from ``dealer``'s left,
    the sixes handed to their suits' owners; the first position counted."""
    n = flags[F_N]
    for s in range(4):
        S[b, C_HANDS + s] = 0
        S[b, C_PICKED + s] = 0
        S[b, C_KNOWN + s] = 0
    k = order.shape[0]
    for i in range(k):
        c = order[i]
        S[b, C_HANDS + (dealer + 1 + i) % n] |= bit(c)
        D[b, i] = c
    for i in range(k, NUM_CARDS):
        D[b, i] = -1
    for s in range(4):
        o = suit_owner[s]
        if o < 0:
            continue
        six = np.int64(1) << (s * 10 + 1)
        for seat in range(n):
            if seat != o and S[b, C_HANDS + seat] & six:
                S[b, C_HANDS + seat] &= ~six
                S[b, C_HANDS + o] |= six
        S[b, C_KNOWN + o] |= six
    z = np.int64(0)
    for seat in range(n):
        h = S[b, C_HANDS + seat]
        for c in range(NUM_CARDS):
            if h >> c & 1:
                z ^= _ZH[seat, c]
    S[b, C_ZOB] = z
    S[b, C_PLEN] = 0
    S[b, C_DISCARD] = 0
    first = (dealer + 1) % n
    S[b, C_TO_ACT] = first
    S[b, C_PHASE] = PH_FREE
    S[b, C_TURNS] = 0
    S[b, C_LOSER] = -1
    S[b, C_REASON] = 0
    S[b, C_DEALER] = dealer
    S[b, C_SERIAL] += 1
    if flags[F_REP]:
        table_reset(b, S, pool, M)
        table_add(b, S, pool, M, z ^ _ZT[first * 4 + PH_FREE])


@kernel()
def load(
    b: int,
    hands_in: I64s,
    known_in: I64s,
    pile_in: I64s,
    n_pile: int,
    disc: int,
    seat: int,
    ph: int,
    nturns: int,
    S: I64s,
    P: Ints,
    D: Ints,
    flags: I64s,
    pool: I64s,
    M: I64s,
) -> None:
    """Put a position (an engine state's fields) into hand ``b``, its repetition
    count started afresh there."""
    z = np.int64(0)
    for seat_i in range(4):
        S[b, C_HANDS + seat_i] = hands_in[seat_i]
        S[b, C_KNOWN + seat_i] = known_in[seat_i]
        S[b, C_PICKED + seat_i] = 0
        for c in range(NUM_CARDS):
            if hands_in[seat_i] >> c & 1:
                z ^= _ZH[seat_i, c]
    for i in range(NUM_CARDS):
        P[b, i] = pile_in[i]
        D[b, i] = -1
    for i in range(n_pile):
        z ^= _ZP[i, pile_in[i]]
    for c in range(NUM_CARDS):
        if disc >> c & 1:
            z ^= _ZD[c]
    S[b, C_ZOB] = z
    S[b, C_PLEN] = n_pile
    S[b, C_DISCARD] = disc
    S[b, C_TO_ACT] = seat
    S[b, C_PHASE] = ph
    S[b, C_TURNS] = nturns
    S[b, C_LOSER] = -1
    S[b, C_REASON] = 0
    S[b, C_DEALER] = -1
    S[b, C_SERIAL] += 1
    if flags[F_REP]:
        table_reset(b, S, pool, M)
        if ph != PH_LEAD:
            table_add(b, S, pool, M, z ^ _ZT[seat * 4 + ph])


@kernel(inline=True)
def _finish(b: int, S: I64s, who: int, why: int) -> None:
    S[b, C_REASON] = why
    S[b, C_LOSER] = who
    S[b, C_PHASE] = PH_OVER
    S[b, C_TO_ACT] = -1


@kernel(inline=True)
def _check_cap(b: int, S: I64s, flags: I64s) -> None:
    cap = flags[F_CAP]
    if cap and S[b, C_TURNS] >= cap:
        if flags[F_MOST]:
            most = -1
            who = -1
            for i in range(flags[F_N]):
                c = popcount(S[b, C_HANDS + i])
                if c > most:
                    most = c
                    who = i
                elif c == most:
                    who = -1
            _finish(b, S, who, R_ACTION_CAP)
        else:
            _finish(b, S, -1, R_ACTION_CAP)


@kernel(inline=True)
def _end_turn(b: int, S: I64s, flags: I64s, M: I64s, Q: I64s) -> None:
    """A turn ended in hand ``b``.  Without the repetition guard the action cap is
    checked now; with it, the position's key is queued and :func:`resolve` counts
    it (and then checks the cap) after the whole batch has moved, so the hash-table
    lookups of all hands run in one pass whose cache misses overlap."""
    S[b, C_TURNS] += 1
    if flags[F_REP]:
        j = M[1]
        Q[0, j] = b
        Q[1, j] = S[b, C_ZOB] ^ _ZT[S[b, C_TO_ACT] * 4 + S[b, C_PHASE]]
        M[1] = j + 1
        return
    _check_cap(b, S, flags)


@kernel()
def resolve(S: I64s, flags: I64s, pool: I64s, M: I64s, Q: I64s) -> None:
    """Count the queued positions (one per hand whose turn ended in this batch step),
    ending hands that reached the repetition limit, then check the action cap of
    the others; the table slots of the hands ahead are prefetched, so the cache
    misses of many hands overlap instead of queueing."""
    S, flags, pool, M, Q = (
        unmanaged(S),
        unmanaged(flags),
        unmanaged(pool),
        unmanaged(M),
        unmanaged(Q),
    )
    k = M[1]
    if k == 0:
        return
    M[1] = 0
    limit = flags[F_REP]
    for j in range(min(k, _PREFETCH_AHEAD)):
        b = Q[0, j]
        prefetch(pool, S[b, C_TOFF] + home(Q[1, j] & TAG, S[b, C_TLOG]))
    for j in range(k):
        ahead = j + _PREFETCH_AHEAD
        if ahead < k:
            b = Q[0, ahead]
            prefetch(pool, S[b, C_TOFF] + home(Q[1, ahead] & TAG, S[b, C_TLOG]))
        b = Q[0, j]
        if table_add(b, S, pool, M, Q[1, j]) >= limit:
            _finish(b, S, -1, R_REPETITION)
        else:
            _check_cap(b, S, flags)


@kernel(inline=True)
def _went_out(
    b: int,
    p: int,
    kind: int,
    S: I64s,
    P: Ints,
    flags: I64s,
    beat: I64s,
    nxt: I64s,
    pool: I64s,
    M: I64s,
    Q: I64s,
) -> None:
    n = flags[F_N]
    rem = 0
    last = -1
    for i in range(n):
        if S[b, C_HANDS + i]:
            rem += 1
            last = i
    if rem <= 1:
        S[b, C_TURNS] += 1
        if rem == 0:
            _finish(b, S, -1, R_LAST_CARD)
            return
        hl = S[b, C_HANDS + last]
        top = P[b, S[b, C_PLEN] - 1]
        draw = flags[F_DRAW]
        single = (hl & (hl - 1)) == 0
        if draw != 0 and single and (draw == 2 or kind == _KIND_LEAD) and beat[last, top] & hl:
            _finish(b, S, -1, R_LAST_CARD)
        else:
            _finish(b, S, last, R_OUT)
        return
    # Going out is irreversible (the hand stays empty), so no earlier position can
    # occur again: the hand's repetition counts start afresh.
    if flags[F_REP]:
        table_reset(b, S, pool, M)
    q = nxt[p]
    while not S[b, C_HANDS + q]:
        q = nxt[q]
    S[b, C_TO_ACT] = q
    if kind == _KIND_DEFENCE:
        n_pile = S[b, C_PLEN]
        if flags[F_DISCARD]:
            d = S[b, C_DISCARD]
            z = S[b, C_ZOB]
            for i in range(n_pile):
                c = P[b, i]
                d |= bit(c)
                z ^= _ZP[i, c] ^ _ZD[c]
            S[b, C_DISCARD] = d
            S[b, C_ZOB] = z
            S[b, C_PLEN] = 0
            n_pile = 0
        S[b, C_PHASE] = PH_FREE if flags[F_FREEDEF] or n_pile == 0 else PH_RESPOND
    else:
        S[b, C_PHASE] = PH_RESPOND
    _end_turn(b, S, flags, M, Q)


@kernel(inline=True)
def _pickup(
    b: int, p: int, S: I64s, P: Ints, flags: I64s, req: I64s, nxt: I64s, M: I64s, Q: I64s
) -> None:
    n_pile = S[b, C_PLEN]
    k = req[p, P[b, n_pile - 1]]
    if k > n_pile:
        k = n_pile
    taken = np.int64(0)
    z = S[b, C_ZOB]
    for i in range(n_pile - 1, n_pile - 1 - k, -1):
        c = P[b, i]
        taken |= bit(c)
        z ^= _ZP[i, c] ^ _ZH[p, c]
    S[b, C_ZOB] = z
    left = n_pile - k
    S[b, C_PLEN] = left
    S[b, C_HANDS + p] |= taken
    S[b, C_PICKED + p] |= taken
    q = nxt[p]
    while not S[b, C_HANDS + q]:
        q = nxt[q]
    S[b, C_TO_ACT] = q
    S[b, C_PHASE] = PH_RESPOND if left and flags[F_FACE] else PH_FREE
    _end_turn(b, S, flags, M, Q)


@kernel(inline=True)
def apply(
    b: int,
    a: int,
    S: I64s,
    P: Ints,
    flags: I64s,
    beat: I64s,
    req: I64s,
    nxt: I64s,
    pool: I64s,
    M: I64s,
    Q: I64s,
) -> None:
    """Apply the legal action ``a`` to hand ``b`` (the position's count is queued
    for :func:`resolve`)."""
    ph = S[b, C_PHASE]
    p = S[b, C_TO_ACT]
    if ph == PH_RESPOND and a == PICKUP:
        _pickup(b, p, S, P, flags, req, nxt, M, Q)
        return
    h = S[b, C_HANDS + p] ^ bit(a)
    S[b, C_HANDS + p] = h
    n_pile = S[b, C_PLEN]
    S[b, C_ZOB] ^= _ZH[p, a] ^ _ZP[n_pile, a]
    P[b, n_pile] = a
    S[b, C_PLEN] = n_pile + 1
    if ph == PH_RESPOND:
        if h:
            S[b, C_PHASE] = PH_LEAD
        else:
            _went_out(b, p, _KIND_DEFENCE, S, P, flags, beat, nxt, pool, M, Q)
        return
    if h:
        q = nxt[p]
        while not S[b, C_HANDS + q]:
            q = nxt[q]
        S[b, C_TO_ACT] = q
        S[b, C_PHASE] = PH_RESPOND
        _end_turn(b, S, flags, M, Q)
    else:
        _went_out(b, p, _KIND_LEAD, S, P, flags, beat, nxt, pool, M, Q)
