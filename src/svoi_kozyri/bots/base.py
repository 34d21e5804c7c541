"""The agent interface shared by every bot, and the registry of bots by name.

An agent receives only its player's :class:`~svoi_kozyri.core.Observation`
(never the full state) and returns a turn-level :class:`~svoi_kozyri.core.Move`.
Agents are seeded, so games between them are reproducible.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import ClassVar

from ..core import Move, Observation, State, observe


class Agent(ABC):
    """A player.  Subclasses implement :meth:`choose`; ``name`` is the registry name."""

    name: ClassVar[str] = "agent"
    #: The bot's own estimate of its expected reward (1 not the durak, 0 the
    #: durak, ½ a draw) for the move its last :meth:`choose` returned, or ``None``
    #: for a bot that has none.  Search bots set it (their root value or the exact
    #: solver's in open positions); self-play data stores it as ``value``.
    last_value: float | None = None

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def reseed(self, seed: int | None) -> None:
        """Reset the agent's random stream (for paired, reproducible games)."""
        self.rng = random.Random(seed)

    @abstractmethod
    def choose(self, obs: Observation) -> Move:
        """The move to play; ``obs.my_turn`` is true and ``obs.legal_moves()`` non-empty."""

    def label(self) -> str:
        """Display name, e.g. for tables and reports."""
        return self.name


class RandomAgent(Agent):
    """Uniformly random legal turn-level moves."""

    name = "random"

    def choose(self, obs: Observation) -> Move:
        """A uniformly random legal move."""
        return self.rng.choice(obs.legal_moves())


def play_out(state: State, agents: Sequence[Agent], max_moves: int | None = None) -> State:
    """Play ``state`` to the end (or ``max_moves`` turns), each seat's agent seeing
    only its own observation.  Mutates and returns ``state``."""
    played = 0
    while not state.is_over and (max_moves is None or played < max_moves):
        seat = state.to_act
        move = agents[seat].choose(observe(state, seat))
        state.push(move, seat)
        played += 1
    return state
