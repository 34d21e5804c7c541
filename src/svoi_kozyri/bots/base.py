"""The agent interface shared by every bot, and the registry of bots by name.

An agent receives only its player's :class:`~svoi_kozyri.core.Observation`
(never the full state) and returns a turn-level :class:`~svoi_kozyri.core.Move`.
Agents are seeded, so games between them are reproducible.
"""

from __future__ import annotations

import importlib
import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

from ..core import Move, Observation, State, observe


class Agent(ABC):
    """A player.  Subclasses implement :meth:`choose`; ``name`` is the registry name."""

    name: ClassVar[str] = "agent"

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


# name -> "module:Class" (relative to this package); factories take (seed, **options).
REGISTRY: dict[str, str] = {
    "random": "base:RandomAgent",
    "greedy": "basic:GreedyAgent",
    "heuristic": "heuristic:HeuristicAgent",
    "pimc": "search.pimc:PIMCAgent",
    "ismcts": "search.ismcts:ISMCTSAgent",
    "easy": "levels:easy",
    "medium": "levels:medium",
    "hard": "levels:hard",
    "expert": "levels:expert",
}


def available_agents() -> list[str]:
    """Names accepted by :func:`make_agent` whose implementation is installed."""
    out = []
    for name in REGISTRY:
        try:
            _resolve(name)
        except (ImportError, AttributeError):
            continue
        out.append(name)
    return out


def _resolve(name: str) -> Any:
    target = REGISTRY[name]
    mod_name, attr = target.split(":")
    module = importlib.import_module(f"{__package__}.{mod_name}")
    return getattr(module, attr)


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build an agent from ``name`` or ``name:key=value,key=value``
    (e.g. ``ismcts:iterations=2000``), or ``engine:COMMAND`` for an external engine.
    Unknown names and bad options raise ``ValueError`` with a message naming them."""
    name, _, opts = spec.strip().partition(":")
    name = name.lower()
    if name == "engine":  # an external engine: engine:COMMAND (bots/external.py)
        from .external import make_external

        return make_external(spec.strip(), seed)
    if name not in REGISTRY:
        raise ValueError(f"unknown bot {name!r} (choose from {', '.join(REGISTRY)})")
    kwargs: dict[str, Any] = {}
    for part in filter(None, opts.split(",")):
        key, eq, val = part.partition("=")
        if not eq:
            raise ValueError(f"bad bot option {part!r} in {spec!r}: expected key=value")
        kwargs[key.strip()] = _convert(val.strip())
    try:
        factory = _resolve(name)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"bot {name!r} is not available: {e}") from None
    try:
        agent = factory(seed=seed, **kwargs)
    except TypeError as e:  # an option the bot's constructor does not take
        raise ValueError(f"bad options in bot spec {spec!r}: {e}") from None
    if not isinstance(agent, Agent):
        raise TypeError(f"{spec!r} did not build an Agent")
    return agent


def _convert(val: str) -> Any:
    for conv in (int, float):
        try:
            return conv(val)
        except ValueError:
            pass
    if val.lower() in ("true", "false"):
        return val.lower() == "true"
    return val


def play_out(state: State, agents: Sequence[Agent], max_moves: int | None = None) -> State:
    """Play ``state`` to the end (or ``max_moves`` turns), each seat's agent seeing
    only its own observation.  Mutates and returns ``state``."""
    played = 0
    while not state.is_over and (max_moves is None or played < max_moves):
        seat = state.to_act_seat
        move = agents[seat].choose(observe(state, seat))
        state.push(move, seat)
        played += 1
    return state
