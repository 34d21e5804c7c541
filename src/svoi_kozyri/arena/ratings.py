"""OpenSkill ratings of bots from arena hands.

Each hand is one match of ``n`` single-player teams, ranked by the game's goal of
not being the durak: every player who did not lose shares rank 1 and the loser
has rank 2; a draw ranks everyone equal.  (First-out order is ignored: in the
default loss-count scoring, SPEC A13, only the loser matters.)  Matches are rated
in a fixed order (deal, table, rotation), so ratings are reproducible.

A bot may fill several seats of a table (e.g. three ``random`` bots); OpenSkill
rates the copies as separate players of the match, and the bot's rating takes the
sum of its copies' changes (of ``mu``, and of ``sigma**2``), as if each copy's
result had been applied in turn; this keeps the updates of a match zero-sum in
``mu`` so that ratings do not drift.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from openskill.models import PlackettLuce

from .outcomes import HandOutcome


def rate_outcomes(
    names: Sequence[str], outcomes: Sequence[HandOutcome]
) -> dict[str, tuple[float, float, float]]:
    """``{bot: (mu, sigma, ordinal)}`` after rating every hand in order."""
    model = PlackettLuce()
    ratings = {nm: model.rating(name=nm) for nm in names}
    for o in outcomes:
        if o.loser is None:
            continue  # a draw carries no ranking information under loss scoring
        teams = [[model.rating(mu=ratings[b].mu, sigma=ratings[b].sigma)] for b in o.bots]
        ranks = [2.0 if seat == o.loser else 1.0 for seat in range(len(o.bots))]
        new = model.rate(teams, ranks=ranks)
        acc: dict[str, list[tuple[float, float]]] = {}
        for b, team in zip(o.bots, new, strict=True):
            acc.setdefault(b, []).append((team[0].mu, team[0].sigma))
        for b, vals in acc.items():
            r = ratings[b]
            mu, var = r.mu, r.sigma * r.sigma
            r.mu = mu + sum(v[0] - mu for v in vals)
            r.sigma = math.sqrt(max(1e-6, var + sum(v[1] * v[1] - var for v in vals)))
    return {nm: (r.mu, r.sigma, r.ordinal()) for nm, r in ratings.items()}
