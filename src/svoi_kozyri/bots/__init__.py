"""Bots: every agent sees only its own player's observation.

The catalogue (:mod:`svoi_kozyri.bots.catalogue`) names every bot kind and level.
"""

from .base import Agent, RandomAgent, play_out
from .catalogue import (
    KINDS,
    BotKind,
    BotSpecError,
    available_agents,
    make_agent,
    split_specs,
    validate_spec,
)

__all__ = [
    "KINDS",
    "Agent",
    "BotKind",
    "BotSpecError",
    "RandomAgent",
    "available_agents",
    "make_agent",
    "play_out",
    "split_specs",
    "validate_spec",
]
