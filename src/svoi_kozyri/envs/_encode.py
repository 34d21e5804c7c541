# mypy: ignore-errors
"""A compiled (numba) encoder of one observation tensor and action mask.

Why: :func:`~svoi_kozyri.envs.encoding.encode_state` built the 634 floats with a
dozen numpy calls (about 19 µs, ten engine steps); an environment that observes
every step spent nearly all its time there.  This kernel writes the tensor and the
mask into preallocated arrays in one call, from a handful of ints that the caller
reads off the state.  It takes the observer's view tables of
:class:`~svoi_kozyri.envs.encoding.SeatView` and produces exactly the layout of
``docs/envs.md`` (``tests/test_envs_encoding.py`` checks it against the numpy
encoder of :func:`~svoi_kozyri.envs.encoding.encode_observation`).

mypy does not check this module: numba infers its types.
"""

from __future__ import annotations

from numba import njit

from ..core import NUM_ACTIONS, NUM_CARDS

_BASE = 14 * NUM_CARDS


@njit(cache=True)
def encode_one(out, mask_out, tab, ints):  # pragma: no cover - numba
    """Fill ``out`` (float32[634], holding the observer's template: zeros and the
    constant scalars) and ``mask_out`` (int8[41], when not empty).

    ``tab`` (int64[44]): the observer's absolute card at each relative index, then
    the relative seat of each absolute seat; ``ints`` (26 ints): n, seat, hands[4],
    known[4] (cards the observer knows in each other hand), 0 (unused), the 5 top
    cards (-1 padded), discard, cards in play, take mask, pile length, take count,
    seat to act, phase index, turns, cap, legal-action bitmask.  Few arguments on
    purpose: each array argument costs the call a few hundred nanoseconds."""
    perm = tab[:NUM_CARDS]
    rel = tab[NUM_CARDS:]
    n = ints[0]
    seat = ints[1]
    own = ints[2 + seat]
    disc = ints[16]
    in_play = ints[17]
    pm = in_play & ~(ints[2] | ints[3] | ints[4] | ints[5] | disc)
    placed = own | disc
    for p in range(14):
        m = 0
        if p == 0:
            m = own
        elif p == 4:
            m = pm
        elif p < 10 and p > 4:
            t = ints[11 + p - 5]
            m = (1 << t) if t >= 0 else 0
        elif p == 10:
            m = disc
        elif p == 13:
            m = ints[18]
        else:
            continue
        o = p * NUM_CARDS
        for i in range(NUM_CARDS):
            out[o + i] = (m >> perm[i]) & 1
    for r in (1, 2, 3):
        o = r * NUM_CARDS
        for i in range(NUM_CARDS):
            out[o + i] = 0.0
    for i in range(n):
        if i != seat:
            kn = ints[6 + i]
            placed |= kn
            o = rel[i] * NUM_CARDS
            for j in range(NUM_CARDS):
                out[o + j] = (kn >> perm[j]) & 1
    unseen = in_play & ~(placed | pm)
    absent = ((1 << NUM_CARDS) - 1) & ~in_play
    for i in range(NUM_CARDS):
        out[11 * NUM_CARDS + i] = (unseen >> perm[i]) & 1
        out[12 * NUM_CARDS + i] = (absent >> perm[i]) & 1
    for i in range(n):
        r = rel[i]
        h = ints[2 + i]
        c = 0
        while h:
            h &= h - 1
            c += 1
        out[_BASE + r] = c / NUM_CARDS
        out[_BASE + 8 + r] = 1.0 if c else 0.0
    to_act = ints[21]
    ph = ints[22]
    if ph != 3:
        out[_BASE + 12 + rel[to_act]] = 1.0
    out[_BASE + 16 + ph] = 1.0
    out[_BASE + 56] = ints[19] / NUM_CARDS
    out[_BASE + 57] = ints[20] / NUM_CARDS
    cap = ints[24]
    out[_BASE + 58] = ints[23] / cap if cap else 0.0
    if mask_out.shape[0]:
        legal = ints[25]
        for a in range(NUM_ACTIONS):
            mask_out[a] = (legal >> a) & 1
