"""Kernel: one seat's observation tensor of a hand in the batch layout (numba).

Why here and not in :mod:`.encoder`: this writer reads a row of the simulator's
state (the batch layout of :mod:`.layout`), where the encoder reads an engine
state's fields; both produce exactly the layout of ``docs/envs.md``, which the
environments' tests check against the numpy encoder of
:func:`~svoi_kozyri.envs.encoding.encode_observation`.
"""

from __future__ import annotations

import numpy as np

from ..core import NUM_CARDS
from ._jit import F32s, I64s, Ints, Reals, kernel, lowest_bit, popcount
from .layout import (
    C_DISCARD,
    C_HANDS,
    C_KNOWN,
    C_PHASE,
    C_PICKED,
    C_PLEN,
    C_TO_ACT,
    C_TURNS,
    F_CAP,
    F_N,
    PH_OVER,
    PH_RESPOND,
)


@kernel(inline=True)
def _bit(c: int) -> np.int64:
    return np.int64(1) << np.int64(c)


@kernel(inline=True)
def observe_row(
    row: F32s,
    seat: int,
    b: int,
    S: I64s,
    P: Ints,
    flags: I64s,
    req: I64s,
    rel_of_abs: I64s,
    const: Reals,
    rel_seat: I64s,
    deck: int,
    masks: I64s,
) -> None:
    """Write ``seat``'s tensor of hand ``b`` into ``row`` (every entry); ``masks`` is
    a scratch array of 14 int64."""
    n = flags[F_N]
    cap = flags[F_CAP]
    base = 14 * NUM_CARDS
    own = S[b, C_HANDS + seat]
    disc = S[b, C_DISCARD]
    masks[:] = 0
    masks[0] = own
    placed = own | disc
    for i in range(n):
        if i != seat:
            kn = (S[b, C_KNOWN + i] | S[b, C_PICKED + i]) & S[b, C_HANDS + i]
            masks[rel_seat[seat, i]] = kn
            placed |= kn
    np_ = S[b, C_PLEN]
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
    ph = S[b, C_PHASE]
    to_act = S[b, C_TO_ACT]
    if ph == PH_RESPOND and np_:
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
            row[o + rel[lowest_bit(m)]] = 1.0
            m &= m - 1
    cst = const[seat]
    for j in range(cst.shape[0]):
        row[base + j] = cst[j]
    for i in range(n):
        r = rel_seat[seat, i]
        c = popcount(S[b, C_HANDS + i])
        row[base + r] = c / NUM_CARDS
        row[base + 8 + r] = 1.0 if c else 0.0
    if ph != PH_OVER:
        row[base + 12 + rel_seat[seat, to_act]] = 1.0
    row[base + 16 + ph] = 1.0
    row[base + 56] = np_ / NUM_CARDS
    row[base + 57] = take / NUM_CARDS
    row[base + 58] = S[b, C_TURNS] / cap if cap else 0.0
