"""Small statistics helpers for arena reports."""

from __future__ import annotations

import math


def wilson_interval(
    successes: int, trials: int, z: float = 1.959963984540054
) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95 % by default).

    Preferred over the normal approximation because durak rates near 0 or 1 (a
    strong bot against weak ones) would otherwise give intervals outside [0, 1].
    ``(0.0, 1.0)`` when there are no trials.
    """
    if trials <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in 0..{trials}, not {successes}")
    p = successes / trials
    z2 = z * z
    denom = 1.0 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denom
    half = z * math.sqrt(p * (1.0 - p) / trials + z2 / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))
