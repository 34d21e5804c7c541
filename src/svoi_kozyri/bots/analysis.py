"""Hints and game analysis for one player's view.

Why: a player learning the game wants to know, for the position in front of
him, how good each legal move is, and after a hand, where it went wrong.  Both
must use only what that player could see (an :class:`Observation`), never the
other hands; a hint that peeked would be cheating.

* In an open position (only two players hold cards, the viewer one of them, and
  the observation is :attr:`~svoi_kozyri.core.Observation.complete`: every card
  the viewer cannot see is in the other hand; the two-player game from the
  first card) every move gets its **proven** value from the exact solver: win,
  draw or loss, shown as 1, ½ and 0 on the same scale as the estimates.  The
  solver gets :data:`OPEN_SOLVER_SHARE` of the budget there, since sampling has
  nothing to sample.  A move the solver cannot settle keeps the bounds it did
  prove ("at least a draw") and gets an estimate inside them, from rollouts of
  the one deal the viewer knows (:data:`KNOWN_DEAL_SOURCE`).
* Otherwise every legal move is rated by sampling deals consistent with the
  observation and playing each move out in each sampled deal (PIMC with common
  deals, so moves are compared on the same deals): the heuristic bot plays, and
  every rollout that reaches an open endgame of at most ``ENDGAME_CARDS`` cards
  is scored by the exact solver instead of being played out.  The rating is the
  estimated chance of **not being the durak** (a draw counts ½), with its sample
  count and 95 % interval (:class:`~.rating.Rating`); it is never shown as a
  certainty (:func:`~.rating.format_rating`).
* A record is analysed turn by turn for one seat: a turn is flagged when the
  move played is rated clearly below the best move (by ``threshold``, or any
  proven drop).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Any

from ..core import Move, Observation, State, determinize, observe, seat_name
from .rating import Rating, format_rating
from .search.common import Budget, check_observation, policy, rollout
from .search.pimc import pimc_values
from .search.solver import Solver, open_state

#: Rollouts reaching an open endgame of at most this many cards (hands and pile)
#: are scored by the exact solver (which settles them in milliseconds).
ENDGAME_CARDS = 8

#: What produced an estimate, as :func:`format_rating` names it.
ESTIMATE_SOURCE = f"pimc, heuristic rollouts, solved endgames <= {ENDGAME_CARDS} cards"

#: ... when the observation is complete: nothing is sampled, every rollout plays
#: the one deal the viewer knows.
KNOWN_DEAL_SOURCE = (
    f"heuristic rollouts of the known deal, solved endgames <= {ENDGAME_CARDS} cards"
)

#: The solver's share of the budget in an open position: the proofs are what the
#: rating is for there (rollouts of one known deal only estimate what it settles).
OPEN_SOLVER_SHARE = 0.75


def estimate_source(obs: Observation) -> str:
    """What an estimate for ``obs`` comes from: sampled deals, or the known one."""
    return KNOWN_DEAL_SOURCE if obs.complete else ESTIMATE_SOURCE


@dataclass(frozen=True)
class MoveRating:
    """One legal move's rating.  ``score`` is the chance of not being the durak
    (estimated) or 1 / ½ / 0 for a proven win / draw / loss; ``samples`` is the
    number of rollouts behind an estimate (0 for a proven value)."""

    move: Move
    score: float
    proven: bool
    samples: int
    rating: Rating | None = None

    def as_rating(self) -> Rating:
        """The full rating (built from the plain fields when none was attached)."""
        if self.rating is not None:
            return self.rating
        if self.proven:
            return Rating.exact(round(self.score * 2) - 1)
        return Rating.estimate(self.score, self.samples, "estimate")

    def describe(self) -> str:
        """Human wording by :func:`~.rating.format_rating`, e.g. ``beat KH: proven
        win`` or ``pickup: estimated 40 % (95 % interval 31-50 %, 100 samples, ...)``."""
        return f"{self.move}: {format_rating(self.as_rating())}"


def _rated(move: Move, r: Rating) -> MoveRating:
    return MoveRating(move, r.score, r.proven, r.samples, r)


def analyse_position(
    obs: Observation,
    budget_ms: float | None = 1000.0,
    iterations: int | None = None,
    seed: int | None = 0,
    rollout: str = "heuristic",
    solver: Solver | None = None,
) -> list[MoveRating]:
    """Rate every legal move of the viewer (whose turn it must be), best first.

    ``budget_ms`` bounds the time (``iterations`` the number of rollouts instead).
    Open positions are solved exactly; when the solver cannot prove a move in its
    time share, that move falls back to an estimate."""
    check_observation(obs)
    solver = solver or Solver()
    rng = random.Random(seed)
    full = open_state(obs)
    bounds: dict[Move, tuple[int, int]] = {}
    if full is not None:
        limit = None if budget_ms is None else budget_ms * OPEN_SOLVER_SHARE / 1000.0
        for m, res in solver.move_bounds(full, limit):
            bounds[m] = (res.lo, res.hi)
        if all(lo == hi for lo, hi in bounds.values()):
            out = [_rated(m, Rating.exact(lo)) for m, (lo, _hi) in bounds.items()]
            return sorted(out, key=lambda r: -r.score)
    budget = Budget(iterations, None if iterations is not None else budget_ms)
    if budget.iterations is None and budget.ms is None:
        budget = Budget(iterations=200 * len(obs.legal_moves()))
    vals = pimc_values(obs, budget, rng, policy(rollout), solver, ENDGAME_CARDS)
    out = []
    for m, v, n in vals:
        lo, hi = bounds.get(m, (-1, 1))
        if n or lo == hi:
            out.append(_rated(m, Rating.estimate(v, n, estimate_source(obs), lo, hi)))
    return sorted(out, key=lambda r: -r.score)


def rate_move(
    obs: Observation,
    move: Move,
    budget_ms: float = 300.0,
    seed: int | None = 0,
    solver: Solver | None = None,
) -> Rating:
    """Rate one legal ``move`` of the viewer (the hint's move) within ``budget_ms``.

    In an open position the exact solver settles the position after the move (or
    proves bounds) with :data:`OPEN_SOLVER_SHARE` of the budget; otherwise, or if
    it is not settled, the move is played out over sampled deals (the known deal
    when the observation is complete) as in :func:`analyse_position` (heuristic
    rollouts, solved endgames), so the rating carries its sample count and
    interval."""
    check_observation(obs)
    if move not in obs.legal_moves():
        raise ValueError(f"{move} is not a legal move here")
    t0 = time.perf_counter()
    solver = solver or Solver()
    rng = random.Random(seed)
    seat = obs.seat
    assert seat is not None
    lo, hi = -1, 1
    full = open_state(obs)
    if full is not None:
        child = full.copy()
        child.push_unchecked(move)
        if child.is_over:
            r = child.outcome
            assert r is not None
            return Rating.exact(0 if r.loser is None else (-1 if r.loser == seat else 1))
        res = solver.solve(child, budget_ms * OPEN_SOLVER_SHARE / 1000.0)
        lo, hi = (res.lo, res.hi) if child.to_act == seat else (-res.hi, -res.lo)
        if lo == hi:
            return Rating.exact(lo)
    deadline = t0 + budget_ms / 1000.0
    pol = policy("heuristic")
    total = 0.0
    n = 0
    while n < 10_000 and (n < 8 or time.perf_counter() < deadline):
        s = determinize(obs, rng)
        s.push_unchecked(move)
        total += rollout(s, rng, pol, solver, ENDGAME_CARDS)[seat]
        n += 1
    return Rating.estimate(total / n, n, estimate_source(obs), lo, hi)


@dataclass(frozen=True)
class TurnReview:
    """A turn where the move played was rated clearly below the best move."""

    index: int
    seat: int
    played: MoveRating
    best: MoveRating

    @property
    def loss(self) -> float:
        """How much the chance of not being the durak dropped (0..1)."""
        return self.best.score - self.played.score

    def describe(self) -> str:
        """One line for a report."""
        return (
            f"turn {self.index + 1} ({seat_name(self.seat)}): played {self.played.describe()}; "
            f"better {self.best.describe()}"
        )


MIN_SAMPLES = 30
"""An estimate counts as evidence of a worsening only with at least this many
rollouts behind it (issue 21, item 9: turns with 4 to 7 samples were flagged)."""


def clearly_worse(
    best: MoveRating, played: MoveRating, threshold: float, min_samples: int = MIN_SAMPLES
) -> bool:
    """Did the move played make the result worse?  Proven values: any drop.
    Estimates: only with at least ``min_samples`` rollouts behind each estimated
    side, a drop of at least ``threshold``, and more than two standard errors of
    the difference, so that sampling noise with a small budget is not reported
    as a mistake (the terminal's ``analyse`` and the web analysis share this)."""
    drop = best.score - played.score
    if best.proven and played.proven:
        return drop > 1e-9
    if any(not r.proven and r.samples < min_samples for r in (best, played)):
        return False
    if drop < threshold:
        return False
    var = 0.0
    for r in (best, played):
        if not r.proven and r.samples:
            var += max(r.score * (1 - r.score), 0.05) / r.samples
    return drop > 2 * math.sqrt(var)


def _steps(record: Any, start: State) -> list[tuple[int, Move, State]]:
    """``(seat, move, state after)`` for every turn of ``record`` from ``start``."""
    out = []
    state = start.copy()
    for who, move in record.moves:
        state.push(move, who)
        out.append((who, move, state.copy()))
    return out


def analyse_record(
    record: object,
    seat: int,
    budget_ms: float | None = 1000.0,
    iterations: int | None = None,
    threshold: float = 0.1,
    seed: int | None = 0,
    start: State | None = None,
) -> list[TurnReview]:
    """The turns of ``seat`` in a finished (replayable) record where the move played
    was rated at least ``threshold`` below the best move (any drop of a proven
    value counts).  Each turn is rated from that seat's observation at the time,
    never from the full deal.

    ``start`` replaces the record's start: a record written for one viewer hides the
    deal, and a stand-in start that agrees with everything that viewer knew (see
    :func:`svoi_kozyri.tui.replay.viewer_start`) gives that viewer's observations
    exactly, so such a record can be analysed for the viewer's own seat."""
    from ..records import GameRecord

    if not isinstance(record, GameRecord):
        raise TypeError("analyse_record needs a records.GameRecord")
    if not 0 <= seat < record.game.n:
        raise ValueError(f"seat {seat} does not exist with {record.game.n} players")
    before = record.start_state() if start is None else start.copy()
    solver = Solver()
    out: list[TurnReview] = []
    steps = record.states() if start is None else iter(_steps(record, before))
    for i, (who, move, after) in enumerate(steps):
        if who == seat and before.phase != 3 and len(before.legal_moves()) > 1:
            obs = observe(before, seat)
            ratings = analyse_position(
                obs, budget_ms, iterations, None if seed is None else seed + i, solver=solver
            )
            if ratings:
                best = ratings[0]
                played = next((r for r in ratings if r.move == move), None)
                if played is not None and clearly_worse(best, played, threshold):
                    out.append(TurnReview(i, seat, played, best))
        before = after
    return out
