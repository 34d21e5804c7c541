"""Kernels: one hand whose every table and field lives in one int64 array ``W``
(numba), the AEC environment's fast path; layout ``W_*`` in :mod:`.layout`.

Each kernel views the spans of ``W`` as the batch kernels' arrays for a batch of
one (:func:`_w_views`, views without an owner made in a few instructions), so the
hand logic and the encoder are the batch's own code.  :class:`.onehand.FastHand` is
their facade.
"""

from __future__ import annotations

from ..core import NUM_ACTIONS, NUM_CARDS, PICKUP
from ._hand import apply, legal_bits, load, resolve
from ._jit import F32s, I8s, I64s, block, kernel, span, unmanaged
from ._observe import observe_row
from ._reptable import pool_missing
from .layout import (
    AEC_ILLEGAL,
    AEC_OVER,
    AEC_SEAT_SHIFT,
    C_PHASE,
    C_TO_ACT,
    F_N,
    F_REP,
    F_SIZE,
    M_SIZE,
    NEED_POOL,
    OBS_NCONST,
    PH_OVER,
    S_WIDTH,
    W_BEAT,
    W_CONST,
    W_D,
    W_DECK,
    W_FLAGS,
    W_M,
    W_MASKS,
    W_NXT,
    W_P,
    W_Q,
    W_REL,
    W_RELABS,
    W_REQ,
    W_S,
    W_SIZE,
)

_Views = tuple[I64s, I64s, I64s, I64s, I64s, I64s, I64s, I64s]


@kernel(inline=True)
def _w_views(W: I64s) -> _Views:
    """S, P, flags, beat, req, nxt, M and Q of the hand in ``W``."""
    n = W[W_FLAGS + F_N]
    return (
        block(W, W_S, 1, S_WIDTH),
        block(W, W_P, 1, NUM_CARDS),
        span(W, W_FLAGS, F_SIZE),
        block(W, W_BEAT, n, NUM_CARDS),
        block(W, W_REQ, n, NUM_CARDS),
        span(W, W_NXT, n),
        span(W, W_M, M_SIZE),
        block(W, W_Q, 2, 1),
    )


@kernel()
def aec_load(
    W: I64s,
    hands_in: I64s,
    known_in: I64s,
    pile_in: I64s,
    n_pile: int,
    disc: int,
    seat: int,
    ph: int,
    nturns: int,
) -> int:
    """Put a position (an engine state's fields) into the hand; NEED_POOL (nothing
    done) if the pool must grow first, else 0."""
    W = unmanaged(W)
    pool = span(W, W_SIZE, W.shape[0] - W_SIZE)
    S, P, flags, _beat, _req, _nxt, M, _Q = _w_views(W)
    if flags[F_REP] and pool_missing(S[:0], pool, M, 1) > 0:
        return NEED_POOL
    D = block(W, W_D, 1, NUM_CARDS)
    load(0, hands_in, known_in, pile_in, n_pile, disc, seat, ph, nturns, S, P, D, flags, pool, M)
    return 0


@kernel()
def aec_step(W: I64s, a: int) -> int:
    """Apply step action ``a``: AEC_ILLEGAL or NEED_POOL (nothing changed),
    AEC_OVER (the hand ended), or the next turn packed as its legal bits | the seat
    to act << AEC_SEAT_SHIFT."""
    W = unmanaged(W)
    pool = span(W, W_SIZE, W.shape[0] - W_SIZE)
    S, P, flags, beat, req, nxt, M, Q = _w_views(W)
    if S[0, C_PHASE] == PH_OVER or a < 0 or a > PICKUP:
        return AEC_ILLEGAL
    if not (legal_bits(0, S, P, beat) >> a) & 1:
        return AEC_ILLEGAL
    if flags[F_REP] and pool_missing(S, pool, M, 0) > 0:
        return NEED_POOL
    apply(0, a, S, P, flags, beat, req, nxt, pool, M, Q)
    resolve(S, flags, pool, M, Q)
    if S[0, C_PHASE] == PH_OVER:
        return AEC_OVER
    return int(legal_bits(0, S, P, beat) | (S[0, C_TO_ACT] << AEC_SEAT_SHIFT))


@kernel(inline=True)
def _w_observe(W: I64s, out: F32s, mask_out: I8s, seat: int) -> None:
    S, P, flags, beat, req, _nxt, _M, _Q = _w_views(W)
    n = flags[F_N]
    rel_of_abs = block(W, W_RELABS, n, NUM_CARDS)
    rel_seat = block(W, W_REL, 4, 4)
    const = block(W, W_CONST, n, OBS_NCONST)
    masks = span(W, W_MASKS, 14)
    observe_row(out, seat, 0, S, P, flags, req, rel_of_abs, const, rel_seat, W[W_DECK], masks)
    legal = legal_bits(0, S, P, beat) if S[0, C_TO_ACT] == seat else 0
    for i in range(NUM_ACTIONS):
        mask_out[i] = (legal >> i) & 1


@kernel()
def aec_observe(W: I64s, out: F32s, mask_out: I8s, seat: int) -> None:
    """Write ``seat``'s tensor into ``out`` and its action mask (zeros unless
    ``seat`` is to act) into ``mask_out``, every entry of both."""
    _w_observe(unmanaged(W), unmanaged(out), unmanaged(mask_out), seat)


@kernel()
def aec_step_observe(W: I64s, a: int, out: F32s, mask_out: I8s) -> int:
    """:func:`aec_step`, then, if the hand goes on, the observation of the seat to
    act next written as :func:`aec_observe` does (one call for a loop that observes
    every step)."""
    r = aec_step(W, a)
    if r >= 0:
        _w_observe(unmanaged(W), unmanaged(out), unmanaged(mask_out), r >> AEC_SEAT_SHIFT)
    return r
