"""A table loaded in memory: its game, its sockets and its clocks."""

from __future__ import annotations

import asyncio
import time
import weakref
from dataclasses import dataclass, field

from ..wire.transport import Conn
from .game import TableGame


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
    remote: dict[str, frozenset[int]] = field(default_factory=dict)
    """Human seats with a socket open at other server processes (by process)."""
    remote_spectators: dict[str, int] = field(default_factory=dict)
    """Spectators watching the table at other server processes (by process)."""
    lease_until: float = 0.0
    """Until when (monotonic) this process holds the table's lease, when several
    processes share the tables."""
    retry: asyncio.TimerHandle | None = None
    lease_other_until: float = 0.0
    """Until when (monotonic) another process is known to hold the lease."""
    lease_holder: str | None = None
    """The process that held the lease when this one last asked for it."""
    stale: bool = False
    """Other processes committed events this process has not applied yet (it
    catches up when the table is next used here)."""
    want_version: int = 0
    """The newest version other processes are known to have committed (from their
    notifications or the safety net): a catch-up reads until it is there."""
    catching: asyncio.Task[None] | None = None
    """The catch-up read under way (at most one per table)."""
    pending: int = 0
    """Events applied in memory whose commit is still under way: nothing about the
    table is announced until it is back to 0 (committed before announced)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while one event of the table is being stored, so a table's events
    reach the database one after the other, in order."""
    chat_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    """Held while a chat message is passed to this process's players, so the
    messages of a table arrive in the order they were sent (features/chat.py)."""
    delivered: weakref.WeakKeyDictionary[Conn, int] = field(
        default_factory=weakref.WeakKeyDictionary
    )
    """The version of the last state sent to each connection: an error may name
    only what that state shows (issue 20, item 2)."""
    hints: dict[int, tuple[int, asyncio.Task[str]]] = field(default_factory=dict)
    """Per seat, the hint of one version (the message, computed once): asking
    again for the same position costs nothing (issue 20, item 4's class: a hint
    is 0.3 s of a thread holding the interpreter lock)."""

    @classmethod
    def fresh(cls, game: TableGame) -> LiveTable:
        """A table just created or loaded: nobody connected yet."""
        now = time.monotonic()
        return cls(game, absent_since=[now] * game.n, turn_since=now)

    async def settled(self) -> None:
        """Wait until every event applied in memory is committed (or undone by a
        reload), so what is read next is what the database holds.  Returns at
        once, without yielding, when nothing is pending: a caller that checks a
        move right after it checks it against the committed state."""
        for _ in range(1000):  # bounded: appends are short
            if not self.pending:
                return
            async with self.lock:
                pass
            await asyncio.sleep(0)  # let the last commit finish its bookkeeping

    def connected(self, seat: int) -> bool:
        """Whether the seat's player has at least one open socket (at any process)."""
        return any(c.seat == seat for c in self.conns) or any(
            seat in seats for seats in self.remote.values()
        )

    def local_human_seats(self) -> frozenset[int]:
        """Human seats with a socket open at this process."""
        seats = self.game.seats
        return frozenset(
            c.seat for c in self.conns if c.seat is not None and seats[c.seat].kind == "human"
        )

    def spectators(self) -> int:
        """Spectators watching the table, at this process and at the others."""
        here = sum(1 for c in self.conns if c.seat is None)
        return here + sum(self.remote_spectators.values())

    def humans_connected(self) -> bool:
        """Whether any human seat has a socket open (at any process)."""
        return bool(self.local_human_seats()) or any(self.remote.values())
