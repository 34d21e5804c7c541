# mypy: ignore-errors
"""The numba kernels of :mod:`svoi_kozyri.envs.vector` (a port of the hand logic of
:mod:`svoi_kozyri.core.game`, one row of a batch at a time).

mypy does not check this module: numba infers its types, and the functions take
plain arrays and tuples of arrays (the state layout is in ``vector.VectorGame``).
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ..core import NUM_ACTIONS, NUM_CARDS, PICKUP

# phases, as in core.game
_FREE: Final = 0
_RESPOND: Final = 1
_LEAD: Final = 2
_OVER: Final = 3
#: reason codes of :attr:`VectorGame.reason` (0 while a hand goes on)
REASONS: Final = ("", "out", "last_card", "repetition", "action_cap")
_OUT: Final = 1
_LAST_CARD: Final = 2
_REPETITION: Final = 3
_ACTION_CAP: Final = 4
_KIND_LEAD: Final = 0
_KIND_DEFENCE: Final = 1

# flag vector indices
_F_N, _F_REP, _F_CAP, _F_FACE, _F_FREEDEF, _F_DISCARD, _F_DRAW, _F_MOST = range(8)
#: how many hands ahead the repetition pass prefetches its table slots
_PREFETCH_AHEAD: Final = 12

_ZR = np.random.default_rng(0x5EEDC0DE)


def _zkeys(*shape: int) -> npt.NDArray[np.uint64]:
    return _ZR.integers(1, 2**64 - 1, size=shape, dtype=np.uint64, endpoint=True)


_ZH: Final = _zkeys(4, NUM_CARDS)
_ZP: Final = _zkeys(NUM_CARDS, NUM_CARDS)
_ZD: Final = _zkeys(NUM_CARDS)
_ZT: Final = _zkeys(16)
_SALT: Final = np.uint64(0x9E3779B97F4A7C15)


@intrinsic
def _popcount(typingctx, x):
    """The number of set bits of an int64 (LLVM ``ctpop``: one ``popcnt``)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _lowest_bit(typingctx, x):
    """Index of the lowest set bit of a non-zero int64 (LLVM ``cttz``: one ``tzcnt``)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def _prefetch(typingctx, arr, idx):
    """Hint the CPU to fetch element ``idx`` of the C-contiguous ``arr`` (flat index)
    into the cache: the repetition pass asks for the table slots of hands ahead of
    the one it is probing, so their cache misses overlap instead of queueing."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        ptr = builder.bitcast(builder.gep(ary.data, [args[1]]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fn = builder.module.declare_intrinsic(
            "llvm.prefetch", fnty=ir.FunctionType(ir.VoidType(), [ptr.type, i32, i32, i32])
        )
        builder.call(fn, [ptr, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, inline="always")
def _bit(c):
    return np.int64(1) << np.int64(c)


# --------------------------------------------------------------- repetition tables
# hashing = (pool, pmeta, toff, tlog, tcnt, fhead, qrows, qkeys):
# every hand has its own open-addressing table, a slab of 2**tlog[b] int64 words at
# pool[toff[b]:] holding tcnt[b] entries (at most half full).  An entry is the
# position key's upper 48 bits | its count (16 bits); 0 is an empty slot.  Slabs
# are carved from the front of the pool (pmeta[0] words in use; the pool past them
# is zero) and a freed slab goes on the free list of its size (fhead[log], linked
# through the slab's first word).  A kernel first checks that the pool can serve
# the worst case of its batch step (:func:`_pool_missing`); if not, it changes
# nothing and returns _NEED_POOL, and Python grows the pool and calls again.
# qrows/qkeys (pmeta[1] long) queue the positions of one batch step.

_MIN_LOG: Final = 6
_TAG: Final = -65536  # ~0xFFFF as int64: the key bits an entry keeps
#: kernel return value: the pool must grow first (nothing was changed)
_NEED_POOL: Final = -2


@njit(cache=True, inline="always")
def _home(tag, log):
    """Home slot of an entry in a table of 2**log slots (the tag's top bits mixed)."""
    return np.int64((np.uint64(tag) * _SALT) >> np.uint64(64 - log))


@njit(cache=True, inline="always")
def _slab_alloc(hashing, log):
    pool, pmeta, fhead = hashing[0], hashing[1], hashing[5]
    size = np.int64(1) << log
    off = fhead[log]
    if off >= 0:
        fhead[log] = pool[off]
        for i in range(off, off + size):
            pool[i] = 0
    else:
        off = pmeta[0]
        pmeta[0] = off + size
    return off


@njit(cache=True, inline="always")
def _slab_free(hashing, off, log):
    pool, fhead = hashing[0], hashing[5]
    pool[off] = fhead[log]
    fhead[log] = off


@njit(cache=True, inline="always")
def _table_reset(hashing, b):
    """Hand ``b`` starts afresh (dealt again, loaded, or a player went out, after
    which no earlier position can recur): an empty table of the smallest size."""
    pool, toff, tlog, tcnt = hashing[0], hashing[2], hashing[3], hashing[4]
    off = toff[b]
    if off >= 0 and tlog[b] == _MIN_LOG:
        if tcnt[b]:
            for i in range(off, off + (1 << _MIN_LOG)):
                pool[i] = 0
    else:
        if off >= 0:
            _slab_free(hashing, off, tlog[b])
        toff[b] = _slab_alloc(hashing, _MIN_LOG)
        tlog[b] = _MIN_LOG
    tcnt[b] = 0


@njit(cache=True)
def _table_grow(hashing, b):
    """Move hand ``b``'s entries into a table twice as large."""
    pool, toff, tlog = hashing[0], hashing[2], hashing[3]
    old = toff[b]
    log = tlog[b]
    nlog = log + 1
    new = _slab_alloc(hashing, nlog)
    mask = (np.int64(1) << nlog) - 1
    for j in range(old, old + (np.int64(1) << log)):
        e = pool[j]
        if e != 0:
            i = _home(e & _TAG, nlog)
            while pool[new + i] != 0:
                i = (i + 1) & mask
            pool[new + i] = e
    _slab_free(hashing, old, log)
    toff[b] = new
    tlog[b] = nlog


@njit(cache=True, inline="always")
def _table_add(hashing, b, key):
    """Count one more occurrence of ``key`` in hand ``b``; the new count."""
    pool, toff, tlog, tcnt = hashing[0], hashing[2], hashing[3], hashing[4]
    tag = np.int64(key) & _TAG
    log = tlog[b]
    off = toff[b]
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
    n = tcnt[b] + 1
    if 2 * n > mask + 1:
        _table_grow(hashing, b)
        log = tlog[b]
        off = toff[b]
        mask = (np.int64(1) << log) - 1
        i = _home(tag, log)
        while pool[off + i] != 0:
            i = (i + 1) & mask
    pool[off + i] = tag | 1
    tcnt[b] = n
    return 1


@njit(cache=True)
def _pool_missing(hashing, phase, new_rows):
    """Pool words missing for the worst case of one batch step (every live hand
    growing its table, or going out and taking a fresh one) plus ``new_rows``
    fresh tables; 0 or less when the pool suffices."""
    pool, pmeta, tlog, tcnt = hashing[0], hashing[1], hashing[3], hashing[4]
    need = np.int64(new_rows) << _MIN_LOG
    for b in range(phase.shape[0]):
        if phase[b] != _OVER:
            need += np.int64(1) << _MIN_LOG
            if 2 * (tcnt[b] + 1) > (np.int64(1) << tlog[b]):
                need += np.int64(2) << tlog[b]
    return pmeta[0] + need - pool.shape[0]


@njit(cache=True)
def _table_sizes(hashing):
    """(entries held, pool words in use) of all hands' tables."""
    return hashing[4].sum(), hashing[1][0]


# --------------------------------------------------------------- the hand logic


@njit(cache=True, inline="always")
def _legal_bits(b, hands, pile, plen, to_act, phase, beat):
    ph = phase[b]
    p = to_act[b]
    if ph == _RESPOND:
        return (beat[p, pile[b, plen[b] - 1]] & hands[b, p]) | (1 << PICKUP)
    if ph == _OVER:
        return 0
    return hands[b, p]


@njit(cache=True)
def _deal(b, dealer, order, st, flags, suit_owner, hashing):
    hands, _pile, plen, discard, to_act, phase, turns, zob, loser, reason = st[:10]
    picked, known0, decks, dealers, epochs = st[10:15]
    n = flags[_F_N]
    for s in range(4):
        hands[b, s] = 0
        picked[b, s] = 0
        known0[b, s] = 0
    k = order.shape[0]
    for i in range(k):
        c = order[i]
        hands[b, (dealer + 1 + i) % n] |= _bit(c)
        decks[b, i] = c
    for i in range(k, NUM_CARDS):
        decks[b, i] = -1
    for s in range(4):
        o = suit_owner[s]
        if o < 0:
            continue
        bit = 1 << (s * 10 + 1)
        for seat in range(n):
            if seat != o and hands[b, seat] & bit:
                hands[b, seat] &= ~bit
                hands[b, o] |= bit
        known0[b, o] |= bit
    z = np.uint64(0)
    for seat in range(n):
        h = hands[b, seat]
        for c in range(NUM_CARDS):
            if h >> c & 1:
                z ^= _ZH[seat, c]
    zob[b] = z
    plen[b] = 0
    discard[b] = 0
    to_act[b] = (dealer + 1) % n
    phase[b] = _FREE
    turns[b] = 0
    loser[b] = -1
    reason[b] = 0
    dealers[b] = dealer
    epochs[b] += 1
    if flags[_F_REP]:
        _table_reset(hashing, b)
        _table_add(hashing, b, z ^ _ZT[to_act[b] * 4 + _FREE])


@njit(cache=True)
def _load(b, hands_in, known_in, pile_in, n_pile, disc, seat, ph, nturns, st, flags, hashing):
    hands, pile, plen, discard, to_act, phase, turns, zob, loser, reason = st[:10]
    picked, known0, decks, dealers, epochs = st[10:15]
    z = np.uint64(0)
    for seat_i in range(4):
        hands[b, seat_i] = hands_in[seat_i]
        known0[b, seat_i] = known_in[seat_i]
        picked[b, seat_i] = 0
        for c in range(NUM_CARDS):
            if hands_in[seat_i] >> c & 1:
                z ^= _ZH[seat_i, c]
    for i in range(NUM_CARDS):
        pile[b, i] = pile_in[i]
        decks[b, i] = -1
    for i in range(n_pile):
        z ^= _ZP[i, pile_in[i]]
    for c in range(NUM_CARDS):
        if disc >> c & 1:
            z ^= _ZD[c]
    zob[b] = z
    plen[b] = n_pile
    discard[b] = disc
    to_act[b] = seat
    phase[b] = ph
    turns[b] = nturns
    loser[b] = -1
    reason[b] = 0
    dealers[b] = -1
    epochs[b] += 1
    if flags[_F_REP]:
        _table_reset(hashing, b)
        if ph != _LEAD:
            _table_add(hashing, b, z ^ _ZT[seat * 4 + ph])


@njit(cache=True)
def _deal_many(rows, dealers_in, orders, st, flags, suit_owner, hashing):
    if flags[_F_REP] and _pool_missing(hashing, st[5][:0], rows.shape[0]) > 0:
        return _NEED_POOL
    for j in range(rows.shape[0]):
        _deal(rows[j], dealers_in[j], orders[j], st, flags, suit_owner, hashing)
    return 0


@njit(cache=True, inline="always")
def _finish(b, st, who, why):
    st[9][b] = why
    st[8][b] = who
    st[5][b] = _OVER
    st[4][b] = -1


@njit(cache=True, inline="always")
def _check_cap(b, st, flags):
    turns = st[6]
    cap = flags[_F_CAP]
    if cap and turns[b] >= cap:
        if flags[_F_MOST]:
            hands = st[0]
            most = -1
            who = -1
            for i in range(flags[_F_N]):
                c = _popcount(hands[b, i])
                if c > most:
                    most = c
                    who = i
                elif c == most:
                    who = -1
            _finish(b, st, who, _ACTION_CAP)
        else:
            _finish(b, st, -1, _ACTION_CAP)


@njit(cache=True, inline="always")
def _end_turn(b, st, flags, hashing):
    """A turn ended in hand ``b``.  Without the repetition guard the action cap is
    checked now; with it, the position's key is queued and :func:`_resolve` counts
    it (and then checks the cap) after the whole batch has moved, so the hash-table
    lookups of all hands run in one pass whose cache misses overlap."""
    to_act, phase, turns, zob = st[4], st[5], st[6], st[7]
    turns[b] += 1
    if flags[_F_REP]:
        meta, rows, keys = hashing[1], hashing[6], hashing[7]
        j = meta[1]
        rows[j] = b
        keys[j] = zob[b] ^ _ZT[to_act[b] * 4 + phase[b]]
        meta[1] = j + 1
        return
    _check_cap(b, st, flags)


@njit(cache=True)
def _resolve(st, flags, hashing):
    """Count the queued positions (one per hand whose turn ended in this batch step),
    ending hands that reached the repetition limit, then check the action cap of
    the others; the table slots of the hands ahead are prefetched, so the cache
    misses of many hands overlap instead of queueing."""
    pool, meta, toff, tlog = hashing[0], hashing[1], hashing[2], hashing[3]
    rows, keys = hashing[6], hashing[7]
    k = meta[1]
    if k == 0:
        return
    meta[1] = 0
    for j in range(min(k, _PREFETCH_AHEAD)):
        b = rows[j]
        _prefetch(pool, toff[b] + _home(np.int64(keys[j]) & _TAG, tlog[b]))
    for j in range(k):
        ahead = j + _PREFETCH_AHEAD
        if ahead < k:
            b = rows[ahead]
            _prefetch(pool, toff[b] + _home(np.int64(keys[ahead]) & _TAG, tlog[b]))
        keys[j] = _table_add(hashing, rows[j], keys[j])
    limit = np.uint64(flags[_F_REP])
    for j in range(k):
        b = rows[j]
        if keys[j] >= limit:
            _finish(b, st, -1, _REPETITION)
        else:
            _check_cap(b, st, flags)


@njit(cache=True, inline="always")
def _went_out(b, p, kind, st, flags, beat, nxt, hashing):
    hands, pile, plen, discard, to_act, phase, turns, zob = st[:8]
    n = flags[_F_N]
    rem = 0
    last = -1
    for i in range(n):
        if hands[b, i]:
            rem += 1
            last = i
    if rem <= 1:
        turns[b] += 1
        if rem == 0:
            _finish(b, st, -1, _LAST_CARD)
            return
        hl = hands[b, last]
        top = pile[b, plen[b] - 1]
        draw = flags[_F_DRAW]
        single = (hl & (hl - 1)) == 0
        if draw != 0 and single and (draw == 2 or kind == _KIND_LEAD) and beat[last, top] & hl:
            _finish(b, st, -1, _LAST_CARD)
        else:
            _finish(b, st, last, _OUT)
        return
    # Going out is irreversible (the hand stays empty), so no earlier position can
    # occur again: the hand's repetition counts start afresh.
    if flags[_F_REP]:
        _table_reset(hashing, b)
    q = nxt[p]
    while not hands[b, q]:
        q = nxt[q]
    to_act[b] = q
    if kind == _KIND_DEFENCE:
        if flags[_F_DISCARD]:
            d = discard[b]
            z = zob[b]
            for i in range(plen[b]):
                c = pile[b, i]
                d |= _bit(c)
                z ^= _ZP[i, c] ^ _ZD[c]
            discard[b] = d
            zob[b] = z
            plen[b] = 0
        phase[b] = _FREE if flags[_F_FREEDEF] or plen[b] == 0 else _RESPOND
    else:
        phase[b] = _RESPOND
    _end_turn(b, st, flags, hashing)


@njit(cache=True, inline="always")
def _pickup(b, p, st, flags, req, nxt, hashing):
    hands, pile, plen, _discard, to_act, phase, _turns, zob = st[:8]
    picked = st[10]
    n_pile = plen[b]
    k = req[p, pile[b, n_pile - 1]]
    if k > n_pile:
        k = n_pile
    taken = 0
    z = zob[b]
    for i in range(n_pile - 1, n_pile - 1 - k, -1):
        c = pile[b, i]
        taken |= _bit(c)
        z ^= _ZP[i, c] ^ _ZH[p, c]
    zob[b] = z
    plen[b] = n_pile - k
    hands[b, p] |= taken
    picked[b, p] |= taken
    q = nxt[p]
    while not hands[b, q]:
        q = nxt[q]
    to_act[b] = q
    phase[b] = _RESPOND if plen[b] and flags[_F_FACE] else _FREE
    _end_turn(b, st, flags, hashing)


@njit(cache=True, inline="always")
def _apply(b, a, st, flags, beat, req, nxt, hashing):
    hands, pile, plen, _discard, to_act, phase, _turns, zob = st[:8]
    ph = phase[b]
    p = to_act[b]
    h = hands[b, p]
    if ph == _RESPOND and a == PICKUP:
        _pickup(b, p, st, flags, req, nxt, hashing)
        return
    h ^= _bit(a)
    hands[b, p] = h
    n_pile = plen[b]
    zob[b] ^= _ZH[p, a] ^ _ZP[n_pile, a]
    pile[b, n_pile] = a
    plen[b] = n_pile + 1
    if ph == _RESPOND:
        if h:
            phase[b] = _LEAD
        else:
            _went_out(b, p, _KIND_DEFENCE, st, flags, beat, nxt, hashing)
        return
    if h:
        q = nxt[p]
        while not hands[b, q]:
            q = nxt[q]
        to_act[b] = q
        phase[b] = _RESPOND
        _end_turn(b, st, flags, hashing)
    else:
        _went_out(b, p, _KIND_LEAD, st, flags, beat, nxt, hashing)


@njit(cache=True)
def _step_all(actions, st, flags, beat, req, nxt, hashing):
    """Check every live hand's action, then apply them all; -1, or the first bad row."""
    hands, pile, plen, _discard, to_act, phase = st[:6]
    B = hands.shape[0]
    if flags[_F_REP] and _pool_missing(hashing, phase, 0) > 0:
        return _NEED_POOL
    for b in range(B):
        if phase[b] == _OVER:
            continue
        a = actions[b]
        if a < 0 or a > PICKUP:
            return b
        if not (_legal_bits(b, hands, pile, plen, to_act, phase, beat) >> a) & 1:
            return b
    for b in range(B):
        if phase[b] != _OVER:
            _apply(b, actions[b], st, flags, beat, req, nxt, hashing)
    _resolve(st, flags, hashing)
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
def _random_actions(u, out, st, beat):
    hands, pile, plen, _discard, to_act, phase = st[:6]
    for b in range(hands.shape[0]):
        m = _legal_bits(b, hands, pile, plen, to_act, phase, beat)
        if m == 0:
            out[b] = -1
        else:
            out[b] = _select_bit(m, int(u[b] * _popcount(m)))


@njit(cache=True)
def _step_random(u, actions, st, flags, beat, req, nxt, hashing):
    """Pick a uniformly random legal action per live hand (from ``u``) and apply it."""
    hands, pile, plen, _discard, to_act, phase = st[:6]
    if flags[_F_REP] and _pool_missing(hashing, phase, 0) > 0:
        return _NEED_POOL
    live = 0
    for b in range(hands.shape[0]):
        if phase[b] == _OVER:
            actions[b] = -1
            continue
        m = _legal_bits(b, hands, pile, plen, to_act, phase, beat)
        a = _select_bit(m, int(u[b] * _popcount(m)))
        actions[b] = a
        _apply(b, a, st, flags, beat, req, nxt, hashing)
        live += 1
    _resolve(st, flags, hashing)
    return live


@njit(cache=True)
def _legal_masks(out, st, beat):
    hands, pile, plen, _discard, to_act, phase = st[:6]
    for b in range(hands.shape[0]):
        m = _legal_bits(b, hands, pile, plen, to_act, phase, beat)
        for i in range(NUM_ACTIONS):
            out[b, i] = (m >> i) & 1


@njit(cache=True)
def _observations(out, seats, st, flags, req, abs_of_rel, const, rel_seat, deck):
    hands, pile, plen, discard, to_act, phase, turns = st[:7]
    picked, known0 = st[10], st[11]
    n = flags[_F_N]
    cap = flags[_F_CAP]
    masks = np.zeros(14, dtype=np.int64)
    base = 14 * NUM_CARDS
    for b in range(hands.shape[0]):
        seat = seats[b]
        own = hands[b, seat]
        masks[:] = 0
        masks[0] = own
        placed = own | discard[b]
        for i in range(n):
            if i != seat:
                kn = (known0[b, i] | picked[b, i]) & hands[b, i]
                masks[rel_seat[seat, i]] = kn
                placed |= kn
        np_ = plen[b]
        pm = 0
        for j in range(np_):
            pm |= _bit(pile[b, j])
        masks[4] = pm
        for k in range(min(5, np_)):
            masks[5 + k] = _bit(pile[b, np_ - 1 - k])
        masks[10] = discard[b]
        masks[11] = deck & ~(placed | pm)
        masks[12] = ((1 << NUM_CARDS) - 1) & ~deck
        take = 0
        ph = phase[b]
        if ph == _RESPOND and np_:
            take = min(req[to_act[b], pile[b, np_ - 1]], np_)
            tm = 0
            for j in range(np_ - take, np_):
                tm |= _bit(pile[b, j])
            masks[13] = tm
        row = out[b]
        perm = abs_of_rel[seat]
        for p in range(14):
            m = masks[p]
            o = p * NUM_CARDS
            for i in range(NUM_CARDS):
                row[o + i] = (m >> perm[i]) & 1
        cst = const[seat]
        for j in range(cst.shape[0]):
            row[base + j] = cst[j]
        for i in range(n):
            r = rel_seat[seat, i]
            c = _popcount(hands[b, i])
            row[base + r] = c / NUM_CARDS
            row[base + 8 + r] = 1.0 if c else 0.0
        if ph != _OVER:
            row[base + 12 + rel_seat[seat, to_act[b]]] = 1.0
        row[base + 16 + ph] = 1.0
        row[base + 56] = np_ / NUM_CARDS
        row[base + 57] = take / NUM_CARDS
        row[base + 58] = turns[b] / cap if cap else 0.0
