"""Difficulty levels: one documented bot and budget per level.

Why fixed presets: the terminal game, the web game and the arena must all mean
the same thing by "hard", and a level must not silently change strength with
the machine's speed more than necessary.

=========  ==========================================================  ===========
level      bot                                                         time/move
=========  ==========================================================  ===========
easy       greedy: beat with the cheapest card, lead the cheapest        < 1 ms
medium     heuristic: card counting and rules of thumb (bots/heuristic)  < 1 ms
hard       PIMC, 150 heuristic rollouts over sampled deals, truncated    ~5-30 ms
           after 20 turns; exact solver (30 ms) in open positions
expert     SO-ISMCTS, 900 ms per move, heuristic rollouts truncated      <= ~1 s
           after 20 turns and scored by the fitted evaluation, exact
           solver in open positions and for small rollout endgames;
           perfect play where the solver proves the position in its
           share of the move's time (:class:`ExpertAgent`)
=========  ==========================================================  ===========

Options given to a level (``expert:ms=500``) override its preset budget.
"""

from __future__ import annotations

import time
from typing import Any

from ..core import Move, Observation
from .base import Agent
from .basic import GreedyAgent
from .heuristic import HeuristicAgent
from .search.common import check_observation
from .search.ismcts import ISMCTSAgent
from .search.pimc import PIMCAgent
from .search.solver import expected_reward, open_state

LEVELS: dict[str, str] = {
    "easy": "greedy",
    "medium": "heuristic",
    "hard": "pimc:iterations=150,rollout_turns=20,solver_ms=30",
    "expert": "ismcts:ms=900,rollout_turns=20",
}


#: The share of the expert's move time the exact solver gets first in an open
#: position; what it leaves goes to the search when it proves nothing.
PERFECT_SHARE = 0.6

#: Open positions with more cards than this in hand skip that first solve: the
#: solver proved none of them within a second (from 20 cards in hand on, in
#: positions of real play: ``bench/perfect2p.py``, docs/bots.md "Perfect play in
#: the two-player game"), so the search keeps its whole time there.
PERFECT_MAX_CARDS = 18

#: The solver's share when the expert is budgeted by iterations, not time (ms).
PERFECT_ITERATIONS_MS = 500.0


class ExpertAgent(Agent):
    """SO-ISMCTS that plays perfectly where it can prove it.

    Why: in the two-player game every card is in one of the two hands, so each
    player knows the other's hand (:attr:`~svoi_kozyri.core.Observation.complete`)
    and the hand is a game of perfect information the exact solver settles from
    about 20 cards in hand.  A bot that searched by sampling there would be
    beaten by the proof it could have had.  So in an open position (two hands
    with cards, every card's place known) the solver gets :data:`PERFECT_SHARE`
    of the move's time first; when it proves the value, the move is the solver's
    (a shortest win, a move that keeps a draw, or the longest resistance in a
    lost position).  Otherwise :attr:`search` (the ISMCTS bot, a compiled class
    that cannot be subclassed here) runs with the time that is left, its own
    short solver look reusing the solver's tables."""

    name = "ismcts"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        super().__init__(seed)
        self.search = ISMCTSAgent(seed=seed, **options)
        self.proven_moves = 0  # moves played from a proof (for tests and benches)

    def reseed(self, seed: int | None) -> None:
        """Reset the random streams of this agent and of its search."""
        super().reseed(seed)
        self.search.reseed(seed)

    def choose(self, obs: Observation) -> Move:
        """The solver's move when it proves the position in its share, else the
        search's most visited move (see the class)."""
        check_observation(obs)
        search = self.search
        full = open_state(obs)
        cards = sum(obs.hand_sizes)
        if full is None or len(obs.legal_moves()) == 1 or cards > PERFECT_MAX_CARDS:
            return self._searched(obs)
        t0 = time.perf_counter()
        share = PERFECT_ITERATIONS_MS if search.ms is None else search.ms * PERFECT_SHARE
        res = search.solver.solve(full, share / 1000.0)
        if res.proven and res.move is not None:
            self.last_value = expected_reward(res)
            self.proven_moves += 1
            return res.move
        saved = (search.ms, search.solver_ms)
        if search.ms is not None:
            spent = (time.perf_counter() - t0) * 1000.0
            search.ms = max(search.ms * (1.0 - PERFECT_SHARE), search.ms - spent)
        search.solver_ms = 1.0  # the tables hold what the solver just found
        try:
            return self._searched(obs)
        finally:
            search.ms, search.solver_ms = saved

    def _searched(self, obs: Observation) -> Move:
        move = self.search.choose(obs)
        self.last_value = self.search.last_value
        return move

    def label(self) -> str:
        """The search's name with its budget, e.g. ``ismcts(ms=900)``."""
        return self.search.label()


def easy(seed: int | None = None, **options: Any) -> Agent:
    """The easy level: the greedy bot."""
    return GreedyAgent(seed=seed, **options)


def medium(seed: int | None = None, **options: Any) -> Agent:
    """The medium level: the heuristic bot."""
    return HeuristicAgent(seed=seed, **options)


def hard(seed: int | None = None, **options: Any) -> Agent:
    """The hard level: PIMC with 150 rollouts per move, truncated after 20 turns, and
    30 ms of exact solving in open positions (each overridable by its option)."""
    if "ms" not in options:
        options.setdefault("iterations", 150)
    options.setdefault("rollout_turns", 20)
    options.setdefault("solver_ms", 30)
    return PIMCAgent(seed=seed, **options)


def expert(seed: int | None = None, **options: Any) -> ExpertAgent:
    """The expert level: ISMCTS with 900 ms per move and rollouts truncated after 20
    turns (override with ms=/iterations=/rollout_turns=), playing the solver's
    move wherever the solver proves the position (:class:`ExpertAgent`)."""
    if "iterations" not in options:
        options.setdefault("ms", 900)
    options.setdefault("rollout_turns", 20)
    return ExpertAgent(seed=seed, **options)
