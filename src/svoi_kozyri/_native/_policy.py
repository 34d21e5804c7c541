"""Kernels: the uniformly random policy over a hand's legal actions (numba).

Why compiled apart from the rules: the simulator's fastest loop draws every live
hand's action and applies it in one pass (:func:`~._batch.step_random`), and the
draw is the same for the batch API's ``random_actions``.
"""

from __future__ import annotations

from ._jit import kernel, lowest_bit, popcount


@kernel(inline=True)
def select_bit(m: int, k: int) -> int:
    """Index of the k-th (0-based) set bit of m (-1 if there is none)."""
    for _ in range(k):
        m &= m - 1
    if m == 0:
        return -1
    return lowest_bit(m)


@kernel(inline=True)
def uniform_action(legal: int, u: float) -> int:
    """The legal action of the mask ``legal`` (non-zero) that the uniform draw
    ``u`` in [0, 1) picks."""
    return select_bit(legal, int(u * popcount(legal)))
