"""Hints and game analysis for one player's view.

Why: a player learning the game wants to know, for the position in front of
him, how good each legal move is, and after a hand, where it went wrong.  Both
must use only what that player could see (an :class:`Observation`), never the
other hands; a hint that peeked would be cheating.

* In an open position (only two players hold cards, the viewer one of them)
  every move gets its **proven** value from the exact solver: win, draw or loss,
  shown as 1, ½ and 0 on the same scale as the estimates.
* Otherwise every legal move is rated by sampling deals consistent with the
  observation and playing each move out with the heuristic bot in each sampled
  deal (PIMC with common deals, so moves are compared on the same deals).  The
  rating is the estimated chance of **not being the durak** (a draw counts ½).
* A record is analysed turn by turn for one seat: a turn is flagged when the
  move played is rated clearly below the best move (by ``threshold``, or any
  proven drop).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from ..core import Move, Observation, State, observe, seat_name
from .search.common import Budget, check_observation, policy
from .search.pimc import pimc_values
from .search.solver import Solver, open_state, value_text


@dataclass(frozen=True)
class MoveRating:
    """One legal move's rating.  ``score`` is the chance of not being the durak
    (estimated) or 1 / ½ / 0 for a proven win / draw / loss; ``samples`` is the
    number of rollouts behind an estimate (0 for a proven value)."""

    move: Move
    score: float
    proven: bool
    samples: int

    def describe(self) -> str:
        """Human wording, e.g. ``beat 6D lead QS: 72% (120 samples)``."""
        if self.proven:
            return f"{self.move}: {value_text(round(self.score * 2) - 1)} (proven)"
        return f"{self.move}: {self.score:.0%} ({self.samples} samples)"


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
    out: list[MoveRating] = []
    if full is not None:
        limit = None if budget_ms is None else budget_ms / 2000.0
        proven = solver.move_values(full, limit)
        if all(v is not None for _, v in proven):
            out = [MoveRating(m, (v + 1) / 2, True, 0) for m, v in proven if v is not None]
            return sorted(out, key=lambda r: -r.score)
    budget = Budget(iterations, None if iterations is not None else budget_ms)
    if budget.iterations is None and budget.ms is None:
        budget = Budget(iterations=200 * len(obs.legal_moves()))
    vals = pimc_values(obs, budget, rng, policy(rollout), solver, 6)
    out = [MoveRating(m, v, False, n) for m, v, n in vals if n]
    return sorted(out, key=lambda r: -r.score)


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


def _clearly_worse(best: MoveRating, played: MoveRating, threshold: float) -> bool:
    """Proven values: any drop.  Estimates: a drop of at least ``threshold`` that is
    also more than two standard errors of the difference, so that sampling noise
    with a small budget is not reported as a mistake."""
    drop = best.score - played.score
    if best.proven and played.proven:
        return drop > 0
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
                if played is not None and _clearly_worse(best, played, threshold):
                    out.append(TurnReview(i, seat, played, best))
        before = after
    return out
