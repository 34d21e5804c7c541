"""A table loaded in memory: its game, its sockets and its clocks."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from .table import TableGame
from .transport import Conn


@dataclass(eq=False)
class LiveTable:
    """A table in memory with its connections and its one pending timer.

    ``human_seen`` is the monotonic time a human player last had a socket open
    at this table (``None``: not since the table was created or loaded).  It
    decides whether the table plays by itself (see :mod:`.scheduler`).
    """

    game: TableGame
    conns: set[Conn] = field(default_factory=set)
    absent_since: list[float] = field(default_factory=list)
    turn_since: float = 0.0
    handle: asyncio.TimerHandle | None = None
    human_seen: float | None = None

    @classmethod
    def fresh(cls, game: TableGame) -> LiveTable:
        """A table just created or loaded: nobody connected yet."""
        now = time.monotonic()
        return cls(game, absent_since=[now] * game.n, turn_since=now)

    def connected(self, seat: int) -> bool:
        """Whether the seat's player has at least one open socket."""
        return any(c.seat == seat for c in self.conns)

    def humans_connected(self) -> bool:
        """Whether any human seat has a socket open."""
        return any(
            c.seat is not None and self.game.seats[c.seat].kind == "human" for c in self.conns
        )
