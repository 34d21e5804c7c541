"""Perfect-information Monte Carlo (PIMC): the determinized baseline.

Why: PIMC is the classic simple answer to hidden cards (as in early bridge and
skat programs): sample deals consistent with the observation, try every legal
move in each sampled deal with a rollout, and play the move with the best mean
reward.  It suffers from strategy fusion (it assumes it will know the cards
later), which is exactly what ISMCTS avoids, so it is the yardstick ISMCTS must
beat.  Open positions go to the exact solver, as in ISMCTS.
"""

from __future__ import annotations

import random
from typing import Any

from ...core import Move, Observation, determinize
from ..base import Agent
from .common import (
    Budget,
    Policy,
    check_observation,
    float_option,
    int_option,
    policy,
    rollout,
    str_option,
)
from .solver import Solver, expected_reward, open_state


def pimc_values(
    obs: Observation,
    budget: Budget,
    rng: random.Random,
    pol: Policy,
    solver: Solver | None = None,
    endgame_cards: int = 0,
    rollout_turns: int = 0,
) -> list[tuple[Move, float, int]]:
    """Mean rollout reward of every legal move over sampled deals: one deal per
    round, every move played out once in it (common random deals reduce noise).
    Returns ``(move, mean reward, rollouts)``; one iteration is one rollout."""
    check_observation(obs)
    moves = obs.legal_moves()
    seat = obs.seat
    assert seat is not None
    totals = [0.0] * len(moves)
    counts = [0] * len(moves)
    i = 0
    while not budget.done(i):
        world = determinize(obs, rng)
        for k, m in enumerate(moves):
            s = world.copy()
            s.push_unchecked(m)
            r = rollout(s, rng, pol, solver, endgame_cards, rollout_turns)
            totals[k] += r[seat]
            counts[k] += 1
            i += 1
            if budget.iterations is not None and i >= budget.iterations:
                break
    return [
        (m, totals[k] / counts[k] if counts[k] else float("nan"), counts[k])
        for k, m in enumerate(moves)
    ]


class PIMCAgent(Agent):
    """Determinized Monte Carlo bot.  Options: ``iterations=N`` (rollouts) or
    ``ms=M`` (default 400 rollouts), ``rollout`` (``heuristic``/``greedy``),
    ``endgame_cards`` (solve rollouts exactly below this many cards),
    ``rollout_turns`` (stop rollouts after this many turns and score the leaf with
    the fitted evaluation; 0: play them to the end), ``solver_ms`` (time for the
    exact solver in open positions; default 100 ms, or half of ``ms``)."""

    name = "pimc"

    def __init__(
        self,
        seed: int | None = None,
        iterations: object = None,
        ms: object = None,
        rollout: object = "heuristic",
        endgame_cards: object = None,
        rollout_turns: object = None,
        solver_ms: object = None,
        **unknown: Any,
    ) -> None:
        if unknown:
            raise ValueError(
                f"unknown pimc option(s) {', '.join(unknown)}; choose from iterations, ms, "
                "rollout, endgame_cards, rollout_turns, solver_ms"
            )
        super().__init__(seed)
        # (options are ``object`` and default to None: see ``int_option``)
        self.ms = float_option("ms", ms)
        self.iterations = (
            None
            if iterations is None and self.ms is not None
            else int_option("iterations", iterations, 400, 1)
        )
        self.rollout = policy(str_option("rollout", rollout))
        self.endgame_cards = int_option("endgame_cards", endgame_cards, 0, 0)
        self.rollout_turns = int_option("rollout_turns", rollout_turns, 0, 0)
        self.solver_ms = float_option("solver_ms", solver_ms)
        self.solver = Solver(max_table=200_000)

    def choose(self, obs: Observation) -> Move:
        """Play the move with the best mean rollout reward (it becomes
        :attr:`last_value`; in an open position the solver's value does)."""
        check_observation(obs)
        self.last_value = None
        moves = obs.legal_moves()
        if len(moves) == 1:
            return moves[0]
        full = open_state(obs)
        if full is not None:
            if self.solver_ms is not None:
                limit = self.solver_ms / 1000.0
            else:
                limit = 0.1 if self.ms is None else self.ms / 2000.0
            res = self.solver.solve(full, limit)
            if res.move is not None and (res.proven or res.lo >= 0):
                self.last_value = expected_reward(res)
                return res.move
        vals = pimc_values(
            obs,
            Budget(self.iterations, self.ms),
            self.rng,
            self.rollout,
            self.solver,
            self.endgame_cards,
            self.rollout_turns,
        )
        best = max(vals, key=lambda t: (t[1] if t[2] else -1.0, t[2]))
        self.last_value = best[1] if best[2] else None
        return best[0]

    def label(self) -> str:
        """Name with the budget."""
        b = f"ms={self.ms:g}" if self.ms is not None else f"iterations={self.iterations}"
        return f"pimc({b})"
