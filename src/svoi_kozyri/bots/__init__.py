"""Bots: every agent sees only its own player's observation."""

from .base import REGISTRY, Agent, RandomAgent, available_agents, make_agent, play_out

__all__ = ["REGISTRY", "Agent", "RandomAgent", "available_agents", "make_agent", "play_out"]
