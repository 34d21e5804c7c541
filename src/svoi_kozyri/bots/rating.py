"""How good a move is, and how sure we are: the one rating type and its wording.

Why one type and one formatting function: the terminal hint, the web hint and
``svoi-kozyri analyse`` used to word their numbers independently, and an
estimate from heuristic rollouts was printed as a bare "100 %" for a position
the solver had not proven (stronger play contradicted it).  A :class:`Rating`
says what it is: **proven** (win, draw or loss, from the exact solver), or
**estimated**, with the number of samples behind it, a 95 % interval and the
search that produced it; :func:`format_rating` is the only place that turns one
into words, and it never prints an unproven rating as a certainty.

Scores are the chance of not being the durak (in the Besicovitch game: of
winning), a draw counting one half: 1, ½ and 0 for a proven win, draw and loss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

_VALUE_NAMES = {1: "win", 0: "draw", -1: "loss"}

#: z for a two-sided 95 % interval.
_Z95 = 1.959963984540054


@dataclass(frozen=True)
class Rating:
    """A move's (or position's) rating for the player making it.

    ``proven`` ratings have ``value`` -1/0/+1 and ``score`` (value + 1) / 2.
    Estimates carry ``samples`` (playouts or search iterations behind the mean),
    ``low``/``high`` (a 95 % interval for the score) and ``source`` (the search
    that produced them).  ``bound_lo``/``bound_hi`` are proven bounds on the
    value that the solver found even when it could not settle it (e.g. "at
    least a draw"); the estimate always lies inside them."""

    proven: bool
    score: float
    samples: int = 0
    low: float = 0.0
    high: float = 1.0
    source: str = "solver"
    bound_lo: int = -1
    bound_hi: int = 1

    @staticmethod
    def exact(value: int) -> Rating:
        """A proven value: 1 win, 0 draw, -1 loss."""
        if value not in (-1, 0, 1):
            raise ValueError(f"a proven value is -1, 0 or 1, not {value!r}")
        s = (value + 1) / 2
        return Rating(True, s, 0, s, s, "solver", value, value)

    @staticmethod
    def estimate(
        mean: float, samples: int, source: str, bound_lo: int = -1, bound_hi: int = 1
    ) -> Rating:
        """An estimate from ``samples`` outcomes scored 0, ½ or 1 with this ``mean``;
        the interval is Wilson's score interval (valid near 0 and 1, where the
        normal one collapses), clipped to the proven bounds."""
        if bound_lo == bound_hi:
            return Rating.exact(bound_lo)
        lo_s, hi_s = (bound_lo + 1) / 2, (bound_hi + 1) / 2
        if samples <= 0 or math.isnan(mean):
            return Rating(False, (lo_s + hi_s) / 2, 0, lo_s, hi_s, source, bound_lo, bound_hi)
        p = min(1.0, max(0.0, mean))
        z2 = _Z95 * _Z95
        denom = 1 + z2 / samples
        centre = (p + z2 / (2 * samples)) / denom
        half = _Z95 * math.sqrt(p * (1 - p) / samples + z2 / (4 * samples * samples)) / denom
        low = min(hi_s, max(lo_s, centre - half))
        high = max(lo_s, min(hi_s, centre + half))
        score = min(hi_s, max(lo_s, p))
        return Rating(False, score, samples, low, high, source, bound_lo, bound_hi)

    @property
    def value(self) -> int | None:
        """The proven value, or ``None`` for an estimate."""
        return self.bound_lo if self.proven else None


def _pct(x: float) -> str:
    """A percentage for an *estimate*: never a bare 0 % or 100 %."""
    v = round(100 * x)
    if v >= 100:
        return ">99 %"
    if v <= 0:
        return "<1 %"
    return f"{v} %"


def format_rating(r: Rating) -> str:
    """The one wording of a rating, e.g. ``proven win``, ``estimated 62 % (95 %
    interval 55-69 %, 400 samples, pimc+solver)`` or, with partial proof,
    ``at least a draw (proven); estimated 80 % (...)``.

    An estimate never reads as a certainty: its point value is shown as
    ``>99 %`` / ``<1 %`` at the extremes, always with its interval and sample
    count."""
    if r.proven:
        return f"proven {_VALUE_NAMES[r.bound_lo]}"
    parts = []
    if r.bound_lo > -1 and r.bound_hi < 1:  # pragma: no cover - lo == hi is proven
        parts.append(f"proven {_VALUE_NAMES[r.bound_lo]}")
    elif r.bound_lo > -1:
        parts.append(f"at least a {_VALUE_NAMES[r.bound_lo]} (proven)")
    elif r.bound_hi < 1:
        parts.append(f"at best a {_VALUE_NAMES[r.bound_hi]} (proven)")
    if r.samples > 0:
        lo = max(0, min(100, math.floor(100 * r.low)))
        hi = max(0, min(100, math.ceil(100 * r.high)))
        parts.append(
            f"estimated {_pct(r.score)} (95 % interval {lo}-{hi} %, "
            f"{r.samples} samples, {r.source})"
        )
    elif not parts:
        parts.append("unrated (no time to search)")
    return "; ".join(parts)
