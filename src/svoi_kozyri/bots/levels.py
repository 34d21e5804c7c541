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
           solver in open positions and for small rollout endgames
=========  ==========================================================  ===========

Options given to a level (``expert:ms=500``) override its preset budget.
"""

from __future__ import annotations

from typing import Any

from .base import Agent
from .basic import GreedyAgent
from .heuristic import HeuristicAgent
from .search.ismcts import ISMCTSAgent
from .search.pimc import PIMCAgent

LEVELS: dict[str, str] = {
    "easy": "greedy",
    "medium": "heuristic",
    "hard": "pimc:iterations=150,rollout_turns=20,solver_ms=30",
    "expert": "ismcts:ms=900,rollout_turns=20",
}


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


def expert(seed: int | None = None, **options: Any) -> Agent:
    """The expert level: ISMCTS with 900 ms per move and rollouts truncated after 20
    turns (override with ms=/iterations=/rollout_turns=)."""
    if "iterations" not in options:
        options.setdefault("ms", 900)
    options.setdefault("rollout_turns", 20)
    return ISMCTSAgent(seed=seed, **options)
