"""Perft: count the sequences of turn-level moves from a position.

As in chess engines, perft is the strongest cheap check of move generation:
the counts of ``../shared/scenarios/perft.json`` come from an independent
implementation.  Depth 1 counts moves without applying them (bulk counting).
"""

from __future__ import annotations

from .game import OVER, State


def perft(state: State, depth: int) -> int:
    """Number of turn-level move sequences of length ``depth`` from ``state``.

    A finished hand has no moves, so it contributes 0 at any depth >= 1.
    """
    if depth < 0:
        raise ValueError("perft depth must be >= 0")
    if depth == 0:
        return 1
    if state.phase == OVER:
        return 0
    if depth == 1:
        return state.count_legal_moves()
    total = 0
    for move in state.legal_moves():
        child = state.copy()
        child.push_unchecked(move)
        total += perft(child, depth - 1)
    return total


def perft_divide(state: State, depth: int) -> dict[str, int]:
    """Perft per first move (``{"lead 8H": n, ...}``), for debugging generators."""
    out: dict[str, int] = {}
    for move in state.legal_moves():
        child = state.copy()
        child.push_unchecked(move)
        out[str(move)] = perft(child, depth - 1) if depth >= 1 else 1
    return out
