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
from numba import njit

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

_ZR = np.random.default_rng(0x5EEDC0DE)


def _zkeys(*shape: int) -> npt.NDArray[np.uint64]:
    return _ZR.integers(1, 2**64 - 1, size=shape, dtype=np.uint64, endpoint=True)


_ZH: Final = _zkeys(4, NUM_CARDS)
_ZP: Final = _zkeys(NUM_CARDS, NUM_CARDS)
_ZD: Final = _zkeys(NUM_CARDS)
_ZT: Final = _zkeys(16)
_SALT: Final = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def _popcount(x: int) -> int:
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


@njit(cache=True, inline="always")
def _bit(c):
    return np.int64(1) << np.int64(c)


# --------------------------------------------------------------- repetition table
# ht: (keys uint64[S], tags int64[S] (-1 never used; else b << 32 | epoch), counts
# int32[S]); meta int64[4]: used slots, live entries, log2 size, unused.


@njit(cache=True, inline="always")
def _ht_add(ht, meta, epochs, b, key):
    """Count one more occurrence of ``key`` in hand ``b``; the new count.

    ``ht`` is (S, 2) int64: the key, and ``(b + 1) << 40 | epoch << 16 | count``
    (0: never used); an entry whose epoch is not its hand's current one is dead
    (the hand was dealt again) and its slot is reused."""
    mask = ht.shape[0] - 1
    ep = epochs[b] & 0xFFFFFF
    tag = ((b + 1) << 40) | (ep << 16)
    k = np.int64(key)
    i = np.int64((key ^ (np.uint64(b + 1) * _SALT)) & np.uint64(mask))
    free = -1
    while True:
        w = ht[i, 1]
        if w == 0:
            break
        if (w & ~0xFFFF) == tag:
            if ht[i, 0] == k:
                c = (w & 0xFFFF) + 1
                if c <= 0xFFFF:
                    ht[i, 1] = tag | c
                return c
        elif free < 0 and ((w >> 16) & 0xFFFFFF) != (epochs[(w >> 40) - 1] & 0xFFFFFF):
            free = i  # a dead entry of a hand dealt again: reusable
        i = (i + 1) & mask
    if free < 0:
        free = i
        meta[0] += 1
    ht[free, 0] = k
    ht[free, 1] = tag | 1
    return 1


@njit(cache=True, inline="always")
def _ht_is_live(w, epochs):
    return w != 0 and ((w >> 16) & 0xFFFFFF) == (epochs[(w >> 40) - 1] & 0xFFFFFF)


@njit(cache=True)
def _ht_live(ht, epochs):
    """Number of live entries (of hands' current epochs)."""
    live = 0
    for j in range(ht.shape[0]):
        if _ht_is_live(ht[j, 1], epochs):
            live += 1
    return live


@njit(cache=True)
def _ht_rebuild(ht, epochs, new):
    """Copy the live entries of ``ht`` into the empty table ``new``; their number."""
    mask = new.shape[0] - 1
    live = 0
    for j in range(ht.shape[0]):
        w = ht[j, 1]
        if not _ht_is_live(w, epochs):
            continue
        b = (w >> 40) - 1
        k = ht[j, 0]
        i = np.int64((np.uint64(k) ^ (np.uint64(b + 1) * _SALT)) & np.uint64(mask))
        while new[i, 1] != 0:
            i = (i + 1) & mask
        new[i, 0] = k
        new[i, 1] = w
        live += 1
    return live


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
    ht, meta = hashing
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
    # a new epoch: the hand's old repetition counts become dead entries
    epochs[b] = (epochs[b] + 1) & 0x7FFFFFFF
    if flags[_F_REP]:
        _ht_add(ht, meta, epochs, b, z ^ _ZT[to_act[b] * 4 + _FREE])


@njit(cache=True)
def _load(b, hands_in, known_in, pile_in, n_pile, disc, seat, ph, nturns, st, flags, hashing):
    hands, pile, plen, discard, to_act, phase, turns, zob, loser, reason = st[:10]
    picked, known0, decks, dealers, epochs = st[10:15]
    ht, meta = hashing
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
    epochs[b] = (epochs[b] + 1) & 0x7FFFFFFF
    if flags[_F_REP] and ph != _LEAD:
        _ht_add(ht, meta, epochs, b, z ^ _ZT[seat * 4 + ph])


@njit(cache=True)
def _deal_many(rows, dealers_in, orders, st, flags, suit_owner, hashing):
    for j in range(rows.shape[0]):
        _deal(rows[j], dealers_in[j], orders[j], st, flags, suit_owner, hashing)


@njit(cache=True, inline="always")
def _finish(b, st, who, why):
    st[9][b] = why
    st[8][b] = who
    st[5][b] = _OVER
    st[4][b] = -1


@njit(cache=True, inline="always")
def _end_turn(b, st, flags, hashing):
    hands, to_act, phase, turns, zob = st[0], st[4], st[5], st[6], st[7]
    epochs = st[14]
    turns[b] += 1
    limit = flags[_F_REP]
    if limit:
        ht, meta = hashing
        key = zob[b] ^ _ZT[to_act[b] * 4 + phase[b]]
        cnt = _ht_add(ht, meta, epochs, b, key)
        if cnt >= limit:
            _finish(b, st, -1, _REPETITION)
            return
    cap = flags[_F_CAP]
    if cap and turns[b] >= cap:
        if flags[_F_MOST]:
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
    # occur again: a new epoch retires the hand's repetition counts.
    epochs = st[14]
    epochs[b] = (epochs[b] + 1) & 0x7FFFFFFF
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
    return -1


_DEBRUIJN = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN[((((1 << _i) * 0x022FDD63CC95386D) & 0xFFFFFFFFFFFFFFFF) >> 58) & 63] = _i


@njit(cache=True, inline="always")
def _select_bit(m, k):
    """Index of the k-th (0-based) set bit of m (-1 if there is none)."""
    for _ in range(k):
        m &= m - 1
    if m == 0:
        return -1
    low = m & -m
    return _DEBRUIJN[((low * 0x022FDD63CC95386D) >> 58) & 63]


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
