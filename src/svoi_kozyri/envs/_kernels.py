# mypy: ignore-errors
"""The numba kernels of :mod:`svoi_kozyri.envs.vector` (a port of the hand logic of
:mod:`svoi_kozyri.core.game`, one row of a batch at a time).

mypy does not check this module: numba infers its types.

Layout (why): the state of all B hands is one int64 array ``S`` of shape (B, 32),
one row of four cache lines per hand (the columns are the ``_C_*`` constants),
plus the piles ``P`` (B, 40) int8.  The functions take those few arrays as plain
arguments, never tuples of arrays: taking an array out of a tuple inside a loop
costs numba a reference-count call each time, which used to be most of a step.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from .._jit import lowest_bit as _lowest_bit
from .._jit import popcount as _popcount
from .._jit import prefetch as _prefetch
from .._jit import unmanaged as _unmanaged
from ..core import FREE, LEAD, NUM_ACTIONS, NUM_CARDS, OVER, PICKUP, RESPOND, Termination

# The phases, the action numbers and the termination codes are the engine's own:
# imported, never re-declared (numba reads a module's int globals as compile-time
# constants).  The phases under the names the kernels and ``vector`` use:
_FREE: Final = FREE
_RESPOND: Final = RESPOND
_LEAD: Final = LEAD
_OVER: Final = OVER
#: reason codes of :attr:`VectorGame.reason` (0 while a hand goes on): the
#: engine's terminations, numbered from 1
REASONS: Final = ("", *(t.value for t in Termination))
_OUT: Final = REASONS.index(Termination.OUT)
_LAST_CARD: Final = REASONS.index(Termination.LAST_CARD)
_REPETITION: Final = REASONS.index(Termination.REPETITION)
_ACTION_CAP: Final = REASONS.index(Termination.ACTION_CAP)
_KIND_LEAD: Final = 0
_KIND_DEFENCE: Final = 1

# flag vector indices
_F_N, _F_REP, _F_CAP, _F_FACE, _F_FREEDEF, _F_DISCARD, _F_DRAW, _F_MOST = range(8)
#: how many hands ahead the repetition pass prefetches its table slots
_PREFETCH_AHEAD: Final = 16

# columns of S
_C_HANDS: Final = 0  # 4 seats: cards held (bitmasks as in the engine)
_C_PICKED: Final = 4  # 4 seats: cards picked up and not played since
_C_KNOWN: Final = 8  # 4 seats: sixes handed to their owner at the deal
_C_PLEN: Final = 12
_C_DISCARD: Final = 13
_C_TO_ACT: Final = 14
_C_PHASE: Final = 15
_C_TURNS: Final = 16
_C_ZOB: Final = 17
_C_LOSER: Final = 18
_C_REASON: Final = 19
_C_DEALER: Final = 20
_C_SERIAL: Final = 21  # hands dealt into this row
_C_TOFF: Final = 22  # repetition table: offset in the pool
_C_TLOG: Final = 23  # log2 of its slots
_C_TCNT: Final = 24  # entries held
S_WIDTH: Final = 32

_ZR = np.random.default_rng(0x5EEDC0DE)


def _zkeys(*shape: int) -> npt.NDArray[np.int64]:
    keys = _ZR.integers(1, 2**64 - 1, size=shape, dtype=np.uint64, endpoint=True)
    return keys.view(np.int64)  # the same 64 bits; S holds int64


_ZH: Final = _zkeys(4, NUM_CARDS)
_ZP: Final = _zkeys(NUM_CARDS, NUM_CARDS)
_ZD: Final = _zkeys(NUM_CARDS)
_ZT: Final = _zkeys(16)
_SALT: Final = np.uint64(0x9E3779B97F4A7C15)


def _view_codegen(ndim):
    def codegen(context, builder, signature, args):
        src_ty = signature.args[0]
        ary = context.make_array(src_ty)(context, builder, args[0])
        out = context.make_array(signature.return_type)(context, builder)
        intp = types.intp
        dims = [
            context.cast(builder, v, t, intp)
            for v, t in zip(args[2:], signature.args[2:], strict=True)
        ]
        size = context.get_abi_sizeof(context.get_data_type(src_ty.dtype))
        itemsize = context.get_constant(intp, size)
        strides = [itemsize] if ndim == 1 else [builder.mul(dims[1], itemsize), itemsize]
        context.populate_array(
            out,
            data=builder.gep(ary.data, [context.cast(builder, args[1], signature.args[1], intp)]),
            shape=cgutils.pack_array(builder, dims),
            strides=cgutils.pack_array(builder, strides),
            itemsize=itemsize,
            meminfo=None,
        )
        return out._getvalue()

    return codegen


@intrinsic
def _span(typingctx, arr, off, length):
    """``arr[off : off + length]`` of a C-contiguous 1-d array as a view without an
    owner (like :func:`_unmanaged`), made in a few instructions: numba's slicing and
    ``reshape`` cost some 25 ns a view, which the one-hand kernels, making a dozen
    views of one array per call, would pay on every step.  No bounds are checked."""
    return types.Array(arr.dtype, 1, "C")(arr, off, length), _view_codegen(1)


@intrinsic
def _block(typingctx, arr, off, rows, cols):
    """``arr[off : off + rows * cols].reshape(rows, cols)`` of a C-contiguous 1-d
    array as a view without an owner (see :func:`_span`)."""
    return types.Array(arr.dtype, 2, "C")(arr, off, rows, cols), _view_codegen(2)


@njit(cache=True, inline="always")
def _bit(c):
    return np.int64(1) << np.int64(c)


# --------------------------------------------------------------- repetition tables
# Every hand has its own open-addressing table: a slab of 2**S[b, _C_TLOG] int64
# words at pool[S[b, _C_TOFF]:], holding S[b, _C_TCNT] entries (at most 3/4 full).
# An entry is the position key's upper 48 bits | its count (16 bits); 0 is an
# empty slot.  Slabs are carved from the front of the pool (M[0] words in use; the
# pool past them is zero) and a freed slab goes on the free list of its size
# (M[2 + log], linked through the slab's first word).  A kernel first checks that
# the pool can serve the worst case of its batch step (:func:`_pool_missing`); if
# not, it changes nothing and returns _NEED_POOL, and Python grows the pool and
# calls again.  Q (2, B) queues the (row, key) positions of one batch step, M[1]
# long.

_MIN_LOG: Final = 6
_TAG: Final = -65536  # ~0xFFFF as int64: the key bits an entry keeps
#: kernel return value: the pool must grow first (nothing was changed)
_NEED_POOL: Final = -2
M_SIZE: Final = 2 + 64


@njit(cache=True, inline="always")
def _home(tag, log):
    """Home slot of an entry in a table of 2**log slots (the tag's top bits mixed)."""
    return np.int64((np.uint64(tag) * _SALT) >> np.uint64(64 - log))


@njit(cache=True, inline="always")
def _slab_alloc(pool, M, log):
    size = np.int64(1) << log
    off = M[2 + log]
    if off >= 0:
        M[2 + log] = pool[off]
        for i in range(off, off + size):
            pool[i] = 0
    else:
        off = M[0]
        M[0] = off + size
    return off


@njit(cache=True, inline="always")
def _table_reset(b, S, pool, M):
    """Hand ``b`` starts afresh (dealt again, loaded, or a player went out, after
    which no earlier position can recur): an empty table of the smallest size."""
    off = S[b, _C_TOFF]
    if off >= 0 and S[b, _C_TLOG] == _MIN_LOG:
        if S[b, _C_TCNT]:
            for i in range(off, off + (1 << _MIN_LOG)):
                pool[i] = 0
    else:
        if off >= 0:
            log = S[b, _C_TLOG]
            pool[off] = M[2 + log]
            M[2 + log] = off
        S[b, _C_TOFF] = _slab_alloc(pool, M, _MIN_LOG)
        S[b, _C_TLOG] = _MIN_LOG
    S[b, _C_TCNT] = 0


@njit(cache=True)
def _table_grow(b, S, pool, M):
    """Move hand ``b``'s entries into a table twice as large."""
    S, pool, M = _unmanaged(S), _unmanaged(pool), _unmanaged(M)
    old = S[b, _C_TOFF]
    log = S[b, _C_TLOG]
    nlog = log + 1
    new = _slab_alloc(pool, M, nlog)
    mask = (np.int64(1) << nlog) - 1
    for j in range(old, old + (np.int64(1) << log)):
        e = pool[j]
        if e != 0:
            i = _home(e & _TAG, nlog)
            while pool[new + i] != 0:
                i = (i + 1) & mask
            pool[new + i] = e
    pool[old] = M[2 + log]
    M[2 + log] = old
    S[b, _C_TOFF] = new
    S[b, _C_TLOG] = nlog


@njit(cache=True, inline="always")
def _table_add(b, S, pool, M, key):
    """Count one more occurrence of ``key`` in hand ``b``; the new count."""
    tag = key & _TAG
    log = S[b, _C_TLOG]
    off = S[b, _C_TOFF]
    mask = (np.int64(1) << log) - 1
    i = _home(tag, log)
    while True:
        e = pool[off + i]
        if e == 0:
            break
        if (e & _TAG) == tag:
            c = (e & 0xFFFF) + 1
            if c <= 0xFFFF:
                pool[off + i] = tag | c
            return c
        i = (i + 1) & mask
    n = S[b, _C_TCNT] + 1
    if 4 * n > 3 * (mask + 1):
        _table_grow(b, S, pool, M)
        log = S[b, _C_TLOG]
        off = S[b, _C_TOFF]
        mask = (np.int64(1) << log) - 1
        i = _home(tag, log)
        while pool[off + i] != 0:
            i = (i + 1) & mask
    pool[off + i] = tag | 1
    S[b, _C_TCNT] = n
    return 1


@njit(cache=True)
def _pool_missing(S, pool, M, new_rows):
    """Pool words missing for the worst case of one batch step (every live hand
    growing its table, or going out and taking a fresh one) plus ``new_rows``
    fresh tables; 0 or less when the pool suffices."""
    need = np.int64(new_rows) << _MIN_LOG
    for b in range(S.shape[0]):
        if S[b, _C_PHASE] != _OVER:
            need += np.int64(1) << _MIN_LOG
            if 4 * (S[b, _C_TCNT] + 1) > 3 * (np.int64(1) << S[b, _C_TLOG]):
                need += np.int64(2) << S[b, _C_TLOG]
    return M[0] + need - pool.shape[0]


# --------------------------------------------------------------- the hand logic


@njit(cache=True, inline="always")
def _legal_bits(b, S, P, beat):
    ph = S[b, _C_PHASE]
    p = S[b, _C_TO_ACT]
    if ph == _RESPOND:
        return (beat[p, P[b, S[b, _C_PLEN] - 1]] & S[b, _C_HANDS + p]) | (1 << PICKUP)
    if ph == _OVER:
        return 0
    return S[b, _C_HANDS + p]


@njit(cache=True)
def _deal(b, dealer, order, S, P, D, flags, suit_owner, pool, M):
    n = flags[_F_N]
    for s in range(4):
        S[b, _C_HANDS + s] = 0
        S[b, _C_PICKED + s] = 0
        S[b, _C_KNOWN + s] = 0
    k = order.shape[0]
    for i in range(k):
        c = order[i]
        S[b, _C_HANDS + (dealer + 1 + i) % n] |= _bit(c)
        D[b, i] = c
    for i in range(k, NUM_CARDS):
        D[b, i] = -1
    for s in range(4):
        o = suit_owner[s]
        if o < 0:
            continue
        bit = np.int64(1) << (s * 10 + 1)
        for seat in range(n):
            if seat != o and S[b, _C_HANDS + seat] & bit:
                S[b, _C_HANDS + seat] &= ~bit
                S[b, _C_HANDS + o] |= bit
        S[b, _C_KNOWN + o] |= bit
    z = np.int64(0)
    for seat in range(n):
        h = S[b, _C_HANDS + seat]
        for c in range(NUM_CARDS):
            if h >> c & 1:
                z ^= _ZH[seat, c]
    S[b, _C_ZOB] = z
    S[b, _C_PLEN] = 0
    S[b, _C_DISCARD] = 0
    first = (dealer + 1) % n
    S[b, _C_TO_ACT] = first
    S[b, _C_PHASE] = _FREE
    S[b, _C_TURNS] = 0
    S[b, _C_LOSER] = -1
    S[b, _C_REASON] = 0
    S[b, _C_DEALER] = dealer
    S[b, _C_SERIAL] += 1
    if flags[_F_REP]:
        _table_reset(b, S, pool, M)
        _table_add(b, S, pool, M, z ^ _ZT[first * 4 + _FREE])


@njit(cache=True)
def _load(b, hands_in, known_in, pile_in, n_pile, disc, seat, ph, nturns, S, P, D, flags, pool, M):
    z = np.int64(0)
    for seat_i in range(4):
        S[b, _C_HANDS + seat_i] = hands_in[seat_i]
        S[b, _C_KNOWN + seat_i] = known_in[seat_i]
        S[b, _C_PICKED + seat_i] = 0
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
    S[b, _C_ZOB] = z
    S[b, _C_PLEN] = n_pile
    S[b, _C_DISCARD] = disc
    S[b, _C_TO_ACT] = seat
    S[b, _C_PHASE] = ph
    S[b, _C_TURNS] = nturns
    S[b, _C_LOSER] = -1
    S[b, _C_REASON] = 0
    S[b, _C_DEALER] = -1
    S[b, _C_SERIAL] += 1
    if flags[_F_REP]:
        _table_reset(b, S, pool, M)
        if ph != _LEAD:
            _table_add(b, S, pool, M, z ^ _ZT[seat * 4 + ph])


@njit(cache=True)
def _deal_many(rows, dealers_in, orders, S, P, D, flags, suit_owner, pool, M):
    rows, dealers_in, orders, S, P, D, flags, suit_owner, pool, M = (
        _unmanaged(rows),
        _unmanaged(dealers_in),
        _unmanaged(orders),
        _unmanaged(S),
        _unmanaged(P),
        _unmanaged(D),
        _unmanaged(flags),
        _unmanaged(suit_owner),
        _unmanaged(pool),
        _unmanaged(M),
    )
    if flags[_F_REP] and _pool_missing(S[:0], pool, M, rows.shape[0]) > 0:
        return _NEED_POOL
    for j in range(rows.shape[0]):
        _deal(rows[j], dealers_in[j], orders[j], S, P, D, flags, suit_owner, pool, M)
    return 0


@njit(cache=True, inline="always")
def _finish(b, S, who, why):
    S[b, _C_REASON] = why
    S[b, _C_LOSER] = who
    S[b, _C_PHASE] = _OVER
    S[b, _C_TO_ACT] = -1


@njit(cache=True, inline="always")
def _check_cap(b, S, flags):
    cap = flags[_F_CAP]
    if cap and S[b, _C_TURNS] >= cap:
        if flags[_F_MOST]:
            most = -1
            who = -1
            for i in range(flags[_F_N]):
                c = _popcount(S[b, _C_HANDS + i])
                if c > most:
                    most = c
                    who = i
                elif c == most:
                    who = -1
            _finish(b, S, who, _ACTION_CAP)
        else:
            _finish(b, S, -1, _ACTION_CAP)


@njit(cache=True, inline="always")
def _end_turn(b, S, flags, M, Q):
    """A turn ended in hand ``b``.  Without the repetition guard the action cap is
    checked now; with it, the position's key is queued and :func:`_resolve` counts
    it (and then checks the cap) after the whole batch has moved, so the hash-table
    lookups of all hands run in one pass whose cache misses overlap."""
    S[b, _C_TURNS] += 1
    if flags[_F_REP]:
        j = M[1]
        Q[0, j] = b
        Q[1, j] = S[b, _C_ZOB] ^ _ZT[S[b, _C_TO_ACT] * 4 + S[b, _C_PHASE]]
        M[1] = j + 1
        return
    _check_cap(b, S, flags)


@njit(cache=True)
def _resolve(S, flags, pool, M, Q):
    """Count the queued positions (one per hand whose turn ended in this batch step),
    ending hands that reached the repetition limit, then check the action cap of
    the others; the table slots of the hands ahead are prefetched, so the cache
    misses of many hands overlap instead of queueing."""
    S, flags, pool, M, Q = (
        _unmanaged(S),
        _unmanaged(flags),
        _unmanaged(pool),
        _unmanaged(M),
        _unmanaged(Q),
    )
    k = M[1]
    if k == 0:
        return
    M[1] = 0
    limit = flags[_F_REP]
    for j in range(min(k, _PREFETCH_AHEAD)):
        b = Q[0, j]
        _prefetch(pool, S[b, _C_TOFF] + _home(Q[1, j] & _TAG, S[b, _C_TLOG]))
    for j in range(k):
        ahead = j + _PREFETCH_AHEAD
        if ahead < k:
            b = Q[0, ahead]
            _prefetch(pool, S[b, _C_TOFF] + _home(Q[1, ahead] & _TAG, S[b, _C_TLOG]))
        b = Q[0, j]
        if _table_add(b, S, pool, M, Q[1, j]) >= limit:
            _finish(b, S, -1, _REPETITION)
        else:
            _check_cap(b, S, flags)


@njit(cache=True, inline="always")
def _went_out(b, p, kind, S, P, flags, beat, nxt, pool, M, Q):
    n = flags[_F_N]
    rem = 0
    last = -1
    for i in range(n):
        if S[b, _C_HANDS + i]:
            rem += 1
            last = i
    if rem <= 1:
        S[b, _C_TURNS] += 1
        if rem == 0:
            _finish(b, S, -1, _LAST_CARD)
            return
        hl = S[b, _C_HANDS + last]
        top = P[b, S[b, _C_PLEN] - 1]
        draw = flags[_F_DRAW]
        single = (hl & (hl - 1)) == 0
        if draw != 0 and single and (draw == 2 or kind == _KIND_LEAD) and beat[last, top] & hl:
            _finish(b, S, -1, _LAST_CARD)
        else:
            _finish(b, S, last, _OUT)
        return
    # Going out is irreversible (the hand stays empty), so no earlier position can
    # occur again: the hand's repetition counts start afresh.
    if flags[_F_REP]:
        _table_reset(b, S, pool, M)
    q = nxt[p]
    while not S[b, _C_HANDS + q]:
        q = nxt[q]
    S[b, _C_TO_ACT] = q
    if kind == _KIND_DEFENCE:
        n_pile = S[b, _C_PLEN]
        if flags[_F_DISCARD]:
            d = S[b, _C_DISCARD]
            z = S[b, _C_ZOB]
            for i in range(n_pile):
                c = P[b, i]
                d |= _bit(c)
                z ^= _ZP[i, c] ^ _ZD[c]
            S[b, _C_DISCARD] = d
            S[b, _C_ZOB] = z
            S[b, _C_PLEN] = 0
            n_pile = 0
        S[b, _C_PHASE] = _FREE if flags[_F_FREEDEF] or n_pile == 0 else _RESPOND
    else:
        S[b, _C_PHASE] = _RESPOND
    _end_turn(b, S, flags, M, Q)


@njit(cache=True, inline="always")
def _pickup(b, p, S, P, flags, req, nxt, M, Q):
    n_pile = S[b, _C_PLEN]
    k = req[p, P[b, n_pile - 1]]
    if k > n_pile:
        k = n_pile
    taken = np.int64(0)
    z = S[b, _C_ZOB]
    for i in range(n_pile - 1, n_pile - 1 - k, -1):
        c = P[b, i]
        taken |= _bit(c)
        z ^= _ZP[i, c] ^ _ZH[p, c]
    S[b, _C_ZOB] = z
    left = n_pile - k
    S[b, _C_PLEN] = left
    S[b, _C_HANDS + p] |= taken
    S[b, _C_PICKED + p] |= taken
    q = nxt[p]
    while not S[b, _C_HANDS + q]:
        q = nxt[q]
    S[b, _C_TO_ACT] = q
    S[b, _C_PHASE] = _RESPOND if left and flags[_F_FACE] else _FREE
    _end_turn(b, S, flags, M, Q)


@njit(cache=True, inline="always")
def _apply(b, a, S, P, flags, beat, req, nxt, pool, M, Q):
    ph = S[b, _C_PHASE]
    p = S[b, _C_TO_ACT]
    if ph == _RESPOND and a == PICKUP:
        _pickup(b, p, S, P, flags, req, nxt, M, Q)
        return
    h = S[b, _C_HANDS + p] ^ _bit(a)
    S[b, _C_HANDS + p] = h
    n_pile = S[b, _C_PLEN]
    S[b, _C_ZOB] ^= _ZH[p, a] ^ _ZP[n_pile, a]
    P[b, n_pile] = a
    S[b, _C_PLEN] = n_pile + 1
    if ph == _RESPOND:
        if h:
            S[b, _C_PHASE] = _LEAD
        else:
            _went_out(b, p, _KIND_DEFENCE, S, P, flags, beat, nxt, pool, M, Q)
        return
    if h:
        q = nxt[p]
        while not S[b, _C_HANDS + q]:
            q = nxt[q]
        S[b, _C_TO_ACT] = q
        S[b, _C_PHASE] = _RESPOND
        _end_turn(b, S, flags, M, Q)
    else:
        _went_out(b, p, _KIND_LEAD, S, P, flags, beat, nxt, pool, M, Q)


@njit(cache=True)
def _step_all(actions, S, P, flags, beat, req, nxt, pool, M, Q):
    """Check every live hand's action, then apply them all; -1, the first bad row,
    or _NEED_POOL (nothing done)."""
    actions, S, P, flags, beat, req, nxt, pool, M, Q = (
        _unmanaged(actions),
        _unmanaged(S),
        _unmanaged(P),
        _unmanaged(flags),
        _unmanaged(beat),
        _unmanaged(req),
        _unmanaged(nxt),
        _unmanaged(pool),
        _unmanaged(M),
        _unmanaged(Q),
    )
    B = S.shape[0]
    if flags[_F_REP] and _pool_missing(S, pool, M, 0) > 0:
        return _NEED_POOL
    for b in range(B):
        if S[b, _C_PHASE] == _OVER:
            continue
        a = actions[b]
        if a < 0 or a > PICKUP:
            return b
        if not (_legal_bits(b, S, P, beat) >> a) & 1:
            return b
    for b in range(B):
        if S[b, _C_PHASE] != _OVER:
            _apply(b, actions[b], S, P, flags, beat, req, nxt, pool, M, Q)
    _resolve(S, flags, pool, M, Q)
    return -1


@njit(cache=True, inline="always")
def _select_bit(m, k):
    """Index of the k-th (0-based) set bit of m (-1 if there is none)."""
    for _ in range(k):
        m &= m - 1
    if m == 0:
        return -1
    return _lowest_bit(m)


@njit(cache=True)
def _random_actions(u, out, S, P, beat):
    u, out, S, P, beat = (
        _unmanaged(u),
        _unmanaged(out),
        _unmanaged(S),
        _unmanaged(P),
        _unmanaged(beat),
    )
    for b in range(S.shape[0]):
        m = _legal_bits(b, S, P, beat)
        if m == 0:
            out[b] = -1
        else:
            out[b] = _select_bit(m, int(u[b] * _popcount(m)))


@njit(cache=True)
def _step_random(u, actions, S, P, flags, beat, req, nxt, pool, M, Q):
    """Pick a uniformly random legal action per live hand (from ``u``) and apply it;
    the number of live hands, or _NEED_POOL (nothing done)."""
    u, actions, S, P, flags, beat, req, nxt, pool, M, Q = (
        _unmanaged(u),
        _unmanaged(actions),
        _unmanaged(S),
        _unmanaged(P),
        _unmanaged(flags),
        _unmanaged(beat),
        _unmanaged(req),
        _unmanaged(nxt),
        _unmanaged(pool),
        _unmanaged(M),
        _unmanaged(Q),
    )
    if flags[_F_REP] and _pool_missing(S, pool, M, 0) > 0:
        return _NEED_POOL
    live = 0
    for b in range(S.shape[0]):
        if S[b, _C_PHASE] == _OVER:
            actions[b] = -1
            continue
        m = _legal_bits(b, S, P, beat)
        a = _select_bit(m, int(u[b] * _popcount(m)))
        actions[b] = a
        _apply(b, a, S, P, flags, beat, req, nxt, pool, M, Q)
        live += 1
    _resolve(S, flags, pool, M, Q)
    return live


@njit(cache=True)
def _legal_masks(out, S, P, beat):
    out, S, P, beat = _unmanaged(out), _unmanaged(S), _unmanaged(P), _unmanaged(beat)
    for b in range(S.shape[0]):
        m = _legal_bits(b, S, P, beat)
        for i in range(NUM_ACTIONS):
            out[b, i] = (m >> i) & 1


@njit(cache=True, inline="always")
def _observe_row(row, seat, b, S, P, flags, req, rel_of_abs, const, rel_seat, deck, masks):
    """Write ``seat``'s tensor of hand ``b`` into ``row`` (every entry); ``masks`` is
    a scratch array of 14 int64."""
    n = flags[_F_N]
    cap = flags[_F_CAP]
    base = 14 * NUM_CARDS
    own = S[b, _C_HANDS + seat]
    disc = S[b, _C_DISCARD]
    masks[:] = 0
    masks[0] = own
    placed = own | disc
    for i in range(n):
        if i != seat:
            kn = (S[b, _C_KNOWN + i] | S[b, _C_PICKED + i]) & S[b, _C_HANDS + i]
            masks[rel_seat[seat, i]] = kn
            placed |= kn
    np_ = S[b, _C_PLEN]
    pm = np.int64(0)
    for j in range(np_):
        pm |= _bit(P[b, j])
    masks[4] = pm
    for k in range(min(5, np_)):
        masks[5 + k] = _bit(P[b, np_ - 1 - k])
    masks[10] = disc
    masks[11] = deck & ~(placed | pm)
    masks[12] = ((np.int64(1) << NUM_CARDS) - 1) & ~deck
    take = 0
    ph = S[b, _C_PHASE]
    to_act = S[b, _C_TO_ACT]
    if ph == _RESPOND and np_:
        take = min(req[to_act, P[b, np_ - 1]], np_)
        tm = np.int64(0)
        for j in range(np_ - take, np_):
            tm |= _bit(P[b, j])
        masks[13] = tm
    # the card planes: zeros, then a one per card held in each plane's mask (about
    # 80 of the 560 entries, so this beats computing every entry)
    for i in range(14 * NUM_CARDS):
        row[i] = 0.0
    rel = rel_of_abs[seat]
    for p in range(14):
        m = masks[p]
        o = p * NUM_CARDS
        while m:
            row[o + rel[_lowest_bit(m)]] = 1.0
            m &= m - 1
    cst = const[seat]
    for j in range(cst.shape[0]):
        row[base + j] = cst[j]
    for i in range(n):
        r = rel_seat[seat, i]
        c = _popcount(S[b, _C_HANDS + i])
        row[base + r] = c / NUM_CARDS
        row[base + 8 + r] = 1.0 if c else 0.0
    if ph != _OVER:
        row[base + 12 + rel_seat[seat, to_act]] = 1.0
    row[base + 16 + ph] = 1.0
    row[base + 56] = np_ / NUM_CARDS
    row[base + 57] = take / NUM_CARDS
    row[base + 58] = S[b, _C_TURNS] / cap if cap else 0.0


@njit(cache=True)
def _observations(out, seats, S, P, flags, req, rel_of_abs, const, rel_seat, deck):
    out, seats, S, P, flags, req, rel_of_abs, const, rel_seat = (
        _unmanaged(out),
        _unmanaged(seats),
        _unmanaged(S),
        _unmanaged(P),
        _unmanaged(flags),
        _unmanaged(req),
        _unmanaged(rel_of_abs),
        _unmanaged(const),
        _unmanaged(rel_seat),
    )
    masks = np.zeros(14, dtype=np.int64)
    for b in range(S.shape[0]):
        _observe_row(
            out[b], seats[b], b, S, P, flags, req, rel_of_abs, const, rel_seat, deck, masks
        )


# --------------------------------------------------------------- one hand, one array
# The AEC environment's fast path (``envs._fasthand``): one hand whose every table
# and field lives in one int64 array ``W``, its repetition pool in the same array
# after ``W_SIZE`` (so it grows by making the array longer), so that a step or an
# observation is one compiled call with one to three array arguments (numba's call
# costs some 35 ns per array argument, which a step of a dozen separate arrays
# would spend several times over).  The views below are the
# batch kernels' arrays for a batch of one, so the hand logic is the same code.

W_S: Final = 0  # the hand's row of S (S_WIDTH)
W_P: Final = W_S + S_WIDTH  # its pile, bottom first (NUM_CARDS, as int64)
W_FLAGS: Final = W_P + NUM_CARDS  # the flag vector (8)
W_BEAT: Final = W_FLAGS + 8  # beat[seat, top] (4 x NUM_CARDS)
W_REQ: Final = W_BEAT + 4 * NUM_CARDS  # req[seat, top] (4 x NUM_CARDS)
W_NXT: Final = W_REQ + 4 * NUM_CARDS  # next seat (4)
W_M: Final = W_NXT + 4  # pool bookkeeping (M_SIZE)
W_Q: Final = W_M + M_SIZE  # the position queue of one step (2)
W_RELABS: Final = W_Q + 2  # rel_of_abs[seat, card] (4 x NUM_CARDS)
W_REL: Final = W_RELABS + 4 * NUM_CARDS  # rel_seat[seat, i] (4 x 4)
W_DECK: Final = W_REL + 16  # the game's cards (1)
W_CONST: Final = W_DECK + 1  # the tensor's constant scalars per seat (4 x W_NCONST, 0/1)
W_NCONST: Final = 74
W_MASKS: Final = W_CONST + 4 * W_NCONST  # scratch of the encoder (14)
W_D: Final = W_MASKS + 14  # scratch deck row for the loader (NUM_CARDS)
W_SIZE: Final = W_D + NUM_CARDS
#: :func:`aec_step` results besides a packed next turn
AEC_ILLEGAL: Final = -1
AEC_OVER: Final = -3
#: a packed next turn: the legal bits, then the seat to act from this bit on
AEC_SEAT_SHIFT: Final = NUM_ACTIONS


@njit(cache=True, inline="always")
def _w_views(W):
    n = W[W_FLAGS + _F_N]
    return (
        _block(W, W_S, 1, S_WIDTH),
        _block(W, W_P, 1, NUM_CARDS),
        _span(W, W_FLAGS, 8),
        _block(W, W_BEAT, n, NUM_CARDS),
        _block(W, W_REQ, n, NUM_CARDS),
        _span(W, W_NXT, n),
        _span(W, W_M, M_SIZE),
        _block(W, W_Q, 2, 1),
    )


@njit(cache=True)
def aec_load(W, hands_in, known_in, pile_in, n_pile, disc, seat, ph, nturns):
    """Put a position (an engine state's fields) into the hand; _NEED_POOL (nothing
    done) if the pool must grow first, else 0."""
    W = _unmanaged(W)
    pool = _span(W, W_SIZE, W.shape[0] - W_SIZE)
    S, P, flags, _beat, _req, _nxt, M, _Q = _w_views(W)
    if flags[_F_REP] and _pool_missing(S[:0], pool, M, 1) > 0:
        return _NEED_POOL
    D = _block(W, W_D, 1, NUM_CARDS)
    _load(0, hands_in, known_in, pile_in, n_pile, disc, seat, ph, nturns, S, P, D, flags, pool, M)
    return 0


@njit(cache=True)
def aec_step(W, a):
    """Apply step action ``a``: AEC_ILLEGAL or _NEED_POOL (nothing changed),
    AEC_OVER (the hand ended), or the next turn packed as its legal bits | the seat
    to act << AEC_SEAT_SHIFT."""
    W = _unmanaged(W)
    pool = _span(W, W_SIZE, W.shape[0] - W_SIZE)
    S, P, flags, beat, req, nxt, M, Q = _w_views(W)
    if S[0, _C_PHASE] == _OVER or a < 0 or a > PICKUP:
        return AEC_ILLEGAL
    if not (_legal_bits(0, S, P, beat) >> a) & 1:
        return AEC_ILLEGAL
    if flags[_F_REP] and _pool_missing(S, pool, M, 0) > 0:
        return _NEED_POOL
    _apply(0, a, S, P, flags, beat, req, nxt, pool, M, Q)
    _resolve(S, flags, pool, M, Q)
    if S[0, _C_PHASE] == _OVER:
        return AEC_OVER
    return _legal_bits(0, S, P, beat) | (S[0, _C_TO_ACT] << AEC_SEAT_SHIFT)


@njit(cache=True, inline="always")
def _w_observe(W, out, mask_out, seat):
    S, P, flags, beat, req, _nxt, _M, _Q = _w_views(W)
    n = flags[_F_N]
    rel_of_abs = _block(W, W_RELABS, n, NUM_CARDS)
    rel_seat = _block(W, W_REL, 4, 4)
    const = _block(W, W_CONST, n, W_NCONST)
    masks = _span(W, W_MASKS, 14)
    _observe_row(out, seat, 0, S, P, flags, req, rel_of_abs, const, rel_seat, W[W_DECK], masks)
    legal = _legal_bits(0, S, P, beat) if S[0, _C_TO_ACT] == seat else 0
    for i in range(NUM_ACTIONS):
        mask_out[i] = (legal >> i) & 1


@njit(cache=True)
def aec_observe(W, out, mask_out, seat):
    """Write ``seat``'s tensor into ``out`` and its action mask (zeros unless
    ``seat`` is to act) into ``mask_out``, every entry of both."""
    _w_observe(_unmanaged(W), _unmanaged(out), _unmanaged(mask_out), seat)


@njit(cache=True)
def aec_step_observe(W, a, out, mask_out):
    """:func:`aec_step`, then, if the hand goes on, the observation of the seat to
    act next written as :func:`aec_observe` does (one call for a loop that observes
    every step)."""
    r = aec_step(W, a)
    if r >= 0:
        _w_observe(_unmanaged(W), _unmanaged(out), _unmanaged(mask_out), r >> AEC_SEAT_SHIFT)
    return r
