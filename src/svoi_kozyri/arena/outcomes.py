"""One hand played in the arena, shared by the tournament runner and the ratings.

A module of its own so that ``tournament`` (which plays) and ``ratings`` (which
rates what was played) both import it and not each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core import Termination


@dataclass(frozen=True)
class HandOutcome:
    """One hand played in the arena.

    ``bots`` gives the bot spec sitting in each seat; ``loser`` (``None``: draw) and
    ``outs`` (seats in the order they went out) are seat indices; ``turns`` counts
    turn-level actions; ``reason`` is the engine's result reason (``out``,
    ``last_card``, ``repetition``, ``action_cap``).
    """

    lineup: int
    deal: int
    rotation: int
    dealer: int
    bots: tuple[str, ...]
    loser: int | None
    outs: tuple[int, ...]
    turns: int
    reason: str

    @property
    def adjudicated(self) -> bool:
        """True when a termination guard of SPEC D (not the play) ended the hand."""
        return Termination(self.reason).adjudicated

    @property
    def first_out(self) -> int | None:
        """Seat of the first player out, if anyone went out."""
        return self.outs[0] if self.outs else None
