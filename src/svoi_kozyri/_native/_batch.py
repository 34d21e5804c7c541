"""Kernels: the simulator's batch steps (numba), one compiled pass over every row.

Each kernel takes the batch's arrays (layout in :mod:`.layout`), makes them
unmanaged (see :data:`._jit.unmanaged`) and runs the per-row logic of
:mod:`._hand`, :mod:`._policy` and :mod:`._observe`.  Those with the repetition
guard on first check that the pool holds their worst case and otherwise return
:data:`~.layout.NEED_POOL`, having changed nothing.  :mod:`.batch` is their typed
facade.
"""

from __future__ import annotations

import numpy as np

from ..core import NUM_ACTIONS, PICKUP
from ._hand import apply, deal, legal_bits, resolve
from ._jit import F32s, F64s, I8s, I64s, Ints, Reals, kernel, unmanaged
from ._observe import observe_row
from ._policy import uniform_action
from ._reptable import pool_missing
from .layout import C_PHASE, F_REP, NEED_POOL, PH_OVER


@kernel()
def deal_many(
    rows: I64s,
    dealers_in: I64s,
    orders: Ints,
    S: I64s,
    P: Ints,
    D: Ints,
    flags: I64s,
    suit_owner: I64s,
    pool: I64s,
    M: I64s,
) -> int:
    """Deal ``orders[j]`` into row ``rows[j]`` from dealer ``dealers_in[j]``; 0, or
    NEED_POOL (nothing done)."""
    rows, dealers_in, orders, S, P, D, flags, suit_owner, pool, M = (
        unmanaged(rows),
        unmanaged(dealers_in),
        unmanaged(orders),
        unmanaged(S),
        unmanaged(P),
        unmanaged(D),
        unmanaged(flags),
        unmanaged(suit_owner),
        unmanaged(pool),
        unmanaged(M),
    )
    if flags[F_REP] and pool_missing(S[:0], pool, M, rows.shape[0]) > 0:
        return NEED_POOL
    for j in range(rows.shape[0]):
        deal(rows[j], dealers_in[j], orders[j], S, P, D, flags, suit_owner, pool, M)
    return 0


@kernel()
def step_all(
    actions: I64s,
    S: I64s,
    P: Ints,
    flags: I64s,
    beat: I64s,
    req: I64s,
    nxt: I64s,
    pool: I64s,
    M: I64s,
    Q: I64s,
) -> int:
    """Check every live hand's action, then apply them all; -1, the first bad row,
    or NEED_POOL (nothing done)."""
    actions, S, P, flags, beat, req, nxt, pool, M, Q = (
        unmanaged(actions),
        unmanaged(S),
        unmanaged(P),
        unmanaged(flags),
        unmanaged(beat),
        unmanaged(req),
        unmanaged(nxt),
        unmanaged(pool),
        unmanaged(M),
        unmanaged(Q),
    )
    B = S.shape[0]
    if flags[F_REP] and pool_missing(S, pool, M, 0) > 0:
        return NEED_POOL
    for b in range(B):
        if S[b, C_PHASE] == PH_OVER:
            continue
        a = actions[b]
        if a < 0 or a > PICKUP:
            return b
        if not (legal_bits(b, S, P, beat) >> a) & 1:
            return b
    for b in range(B):
        if S[b, C_PHASE] != PH_OVER:
            apply(b, actions[b], S, P, flags, beat, req, nxt, pool, M, Q)
    resolve(S, flags, pool, M, Q)
    return -1


@kernel()
def random_actions(u: F64s, out: I64s, S: I64s, P: Ints, beat: I64s) -> None:
    """A uniformly random legal action per hand (drawn by ``u``) into ``out`` (-1
    for a hand that is over)."""
    u, out, S, P, beat = (
        unmanaged(u),
        unmanaged(out),
        unmanaged(S),
        unmanaged(P),
        unmanaged(beat),
    )
    for b in range(S.shape[0]):
        m = legal_bits(b, S, P, beat)
        out[b] = -1 if m == 0 else uniform_action(m, u[b])


@kernel()
def step_random(
    u: F64s,
    actions: I64s,
    S: I64s,
    P: Ints,
    flags: I64s,
    beat: I64s,
    req: I64s,
    nxt: I64s,
    pool: I64s,
    M: I64s,
    Q: I64s,
) -> int:
    """Pick a uniformly random legal action per live hand (from ``u``) and apply it;
    the number of live hands, or NEED_POOL (nothing done)."""
    u, actions, S, P, flags, beat, req, nxt, pool, M, Q = (
        unmanaged(u),
        unmanaged(actions),
        unmanaged(S),
        unmanaged(P),
        unmanaged(flags),
        unmanaged(beat),
        unmanaged(req),
        unmanaged(nxt),
        unmanaged(pool),
        unmanaged(M),
        unmanaged(Q),
    )
    if flags[F_REP] and pool_missing(S, pool, M, 0) > 0:
        return NEED_POOL
    live = 0
    for b in range(S.shape[0]):
        if S[b, C_PHASE] == PH_OVER:
            actions[b] = -1
            continue
        a = uniform_action(legal_bits(b, S, P, beat), u[b])
        actions[b] = a
        apply(b, a, S, P, flags, beat, req, nxt, pool, M, Q)
        live += 1
    resolve(S, flags, pool, M, Q)
    return live


@kernel()
def legal_masks(out: I8s, S: I64s, P: Ints, beat: I64s) -> None:
    """Every hand's legal actions as a row of 41 zeros and ones."""
    out, S, P, beat = unmanaged(out), unmanaged(S), unmanaged(P), unmanaged(beat)
    for b in range(S.shape[0]):
        m = legal_bits(b, S, P, beat)
        for i in range(NUM_ACTIONS):
            out[b, i] = (m >> i) & 1


@kernel()
def observations(
    out: F32s,
    seats: I64s,
    S: I64s,
    P: Ints,
    flags: I64s,
    req: I64s,
    rel_of_abs: I64s,
    const: Reals,
    rel_seat: I64s,
    deck: int,
) -> None:
    """Row ``b`` of ``out``: the tensor of hand ``b`` seen by ``seats[b]``."""
    out, seats, S, P, flags, req, rel_of_abs, const, rel_seat = (
        unmanaged(out),
        unmanaged(seats),
        unmanaged(S),
        unmanaged(P),
        unmanaged(flags),
        unmanaged(req),
        unmanaged(rel_of_abs),
        unmanaged(const),
        unmanaged(rel_seat),
    )
    masks = np.zeros(14, dtype=np.int64)
    for b in range(S.shape[0]):
        observe_row(out[b], seats[b], b, S, P, flags, req, rel_of_abs, const, rel_seat, deck, masks)
