"""The port between the tables of this process and the other processes.

A table's truth is its event log.  With one process nobody else writes to it;
with several (``serve --workers N`` on PostgreSQL) every process holds the live
tables in memory and learns of the others' commits, seats, presence and chat
through the database.  The hub, the scheduler and the master do not know which:
they are given a :class:`TablePeer` at construction and call it at the few
points where other processes matter (may this process fire the table's
automatic actions, is the table up to date, what to announce).

:class:`LocalPeer` is the one-process peer: every call is a no-op that says
"yes, up to date, nothing to announce".  The PostgreSQL peer lives in
:mod:`svoi_kozyri.server.cluster` above this package, and reaches back into the
process only through the :class:`TableHost` port it is handed at
:meth:`TablePeer.bind` (the hub implements it), never through the hub's
insides.  This is boardgame.io's split of ``Master`` from its transport and
pub/sub: the game loop is written once, the sharing is plugged in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, Protocol

from ..storage.store import StoredTable
from .live import LiveTable

__all__ = ["LocalPeer", "TableHost", "TablePeer"]


class TableHost(Protocol):
    """What a peer may do to this process's tables (implemented by the hub)."""

    @property
    def tables(self) -> dict[str, LiveTable]:
        """The live tables of this process, by id."""
        ...

    def adopt(self, stored: StoredTable) -> LiveTable | None:
        """Keep a table another process created in memory (None if finished)."""
        ...

    def schedule(self, live: LiveTable) -> None:
        """Arm the table's next automatic action (if this process may fire it)."""
        ...

    def deadline(self, live: LiveTable) -> float | None:
        """When the table's next automatic action is due, if it has one."""
        ...

    def changed(self, live: LiveTable) -> None:
        """The table changed: send every viewer here its view and reschedule."""
        ...

    def reload(self, live: LiveTable) -> None:
        """Rebuild the table from the database (its truth) after a failure."""
        ...

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run a background task that is cancelled when the process stops."""
        ...

    def deliver_chat(self, live: LiveTable, message: dict[str, Any]) -> None:
        """A chat message another process stored: pass it to the viewers here."""
        ...

    def bans_changed(self) -> None:
        """Another process banned an account or lifted a ban: forget what this
        process remembers of the bans in force (the hub's seat gate)."""
        ...


class TablePeer(Protocol):
    """This process's part in sharing the tables with the other processes."""

    @property
    def shared(self) -> bool:
        """Whether other processes write to the same tables (seats may be taken
        elsewhere between a read and a write)."""
        ...

    def bind(self, host: TableHost) -> None:
        """The tables this peer shares (the hub binds itself when it is built)."""
        ...

    async def start(self) -> None:
        """Start listening to the other processes, before the tables are loaded."""
        ...

    async def stop(self) -> None:
        """Stop listening and give up what this process held."""
        ...

    async def drain(self) -> None:
        """The process is stopping: fire no more automatic actions here and hand
        the tables to the other processes now (server/runtime/drain.py)."""
        ...

    def note_event(self, table_id: str, version: int) -> str:
        """The notification stored with a committed event ("" when nobody listens)."""
        ...

    def note_chat(self, table_id: str, message: dict[str, Any]) -> str:
        """The notification stored with a chat message ("" when nobody listens)."""
        ...

    def note_bans(self) -> str:
        """The notification stored with a ban or its lifting ("" when nobody listens)."""
        ...

    def announce_new(self, table_id: str) -> None:
        """A table was created here."""
        ...

    def announce_seats(self, table_id: str) -> None:
        """A seat of a table was taken here."""
        ...

    def attach(self, live: LiveTable) -> None:
        """A table was loaded here: learn who is connected to it elsewhere."""
        ...

    def presence(self, live: LiveTable) -> None:
        """Who is connected to the table here changed: tell the others."""
        ...

    def may_act(self, live: LiveTable) -> bool:
        """Whether this process fires the table's automatic actions now."""
        ...

    def refresh(self, live: LiveTable) -> bool:
        """Bring a stale table up to date before its next action is computed; False
        while that is under way (the table is scheduled again when it is done)."""
        ...

    def catch_up(self, live: LiveTable) -> asyncio.Future[None]:
        """Apply what other processes committed to the table (awaitable)."""
        ...

    def catch_up_now(self, live: LiveTable) -> None:
        """:meth:`catch_up`, blocking (HTTP reads that must see the newest state)."""
        ...


class LocalPeer:
    """The peer of a process that shares its tables with nobody (SQLite, or one
    PostgreSQL process in tests): always up to date, nothing to announce."""

    shared = False

    def bind(self, host: TableHost) -> None:
        """Nothing is shared: the host is not needed."""

    async def start(self) -> None:
        """Nothing to listen to."""

    async def stop(self) -> None:
        """Nothing was held."""

    async def drain(self) -> None:
        """Nobody to hand the tables to: the hub stops their timers itself."""

    def note_event(self, table_id: str, version: int) -> str:
        """No notification: nobody listens."""
        return ""

    def note_chat(self, table_id: str, message: dict[str, Any]) -> str:
        """No notification: nobody listens."""
        return ""

    def note_bans(self) -> str:
        """No notification: nobody listens."""
        return ""

    def announce_new(self, table_id: str) -> None:
        """Nobody to tell."""

    def announce_seats(self, table_id: str) -> None:
        """Nobody to tell."""

    def attach(self, live: LiveTable) -> None:
        """Nobody is connected elsewhere."""

    def presence(self, live: LiveTable) -> None:
        """Nobody to tell."""

    def may_act(self, live: LiveTable) -> bool:
        """This process is the only one: it fires every action."""
        return True

    def refresh(self, live: LiveTable) -> bool:
        """Always up to date."""
        return True

    def catch_up(self, live: LiveTable) -> asyncio.Future[None]:
        """Already up to date: a finished future."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        done.set_result(None)
        return done

    def catch_up_now(self, live: LiveTable) -> None:
        """Already up to date."""
