"""The port the features and the platform use to reach the tables.

The hub (:mod:`svoi_kozyri.server.web.hub`) owns the live tables and sits at the
top of the server, above the packages that need a table: the analysis, deals,
rematches, chat, the players' endpoints and the live lobby.  They are handed the
hub typed as :class:`TableService`, the few things they may ask of it, so no
module below ``web`` imports the hub and none holds it as ``Any``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..storage.store import Store
from ..wire.schemas import CreateTableRequest, JoinRequest, SeatGrant, TableConfig
from .live import LiveTable
from .master import TableMaster
from .peer import TablePeer

__all__ = ["Holder", "TableService", "TokenLimiter"]


class TokenLimiter(Protocol):
    """Rate limits by purpose and client (``edge.guard.SharedLimiter``)."""

    def check(self, purpose: str, client: str) -> None:
        """Take a token of ``purpose`` for ``client``, or raise ``RateLimited``."""
        ...


@dataclass(frozen=True)
class Holder:
    """A player seated at a new table by the server, not by a join request.

    Pairing, challenges and tournaments seat people who are not on the table's
    page when it is made.  Each already holds a secret (the seek's, the
    challenge's, the tournament entry's token, given to their browser once); the
    seat takes that secret's hash, so no seat token is made, stored in clear or
    sent, and the browser that holds the secret opens the table with it."""

    name: str
    token_hash: str
    user_id: int | None = None
    """The account that sits there (linked to the seat), None for a guest."""


class TableService(Protocol):
    """The tables of this process as the features see them."""

    @property
    def store(self) -> Store:
        """The database every table is stored in."""
        ...

    @property
    def peer(self) -> TablePeer:
        """Sharing the tables with other processes (or nobody)."""
        ...

    @property
    def master(self) -> TableMaster:
        """Commits events and announces views."""
        ...

    @property
    def tables(self) -> dict[str, LiveTable]:
        """The live tables of this process, by id."""
        ...

    @property
    def bots(self) -> list[str]:
        """Bots that can take a seat, strongest first."""
        ...

    @property
    def default_bot(self) -> str:
        """The bot used when a seat names none."""
        ...

    def get(self, table_id: str, *, fresh: bool = True) -> LiveTable | None:
        """A live table (a finished one loaded from the store), or None."""
        ...

    def seat_of_token(self, live: LiveTable, token: str | None) -> int | None:
        """The seat a token holds at this table, or None."""
        ...

    def create_table(
        self,
        req: CreateTableRequest,
        base_url: str,
        client: str = "",
        *,
        seat: int | None = None,
        purpose: str = "create",
    ) -> SeatGrant:
        """Create a table; the creator takes a human seat."""
        ...

    def join(self, table_id: str, req: JoinRequest, base_url: str, client: str = "") -> SeatGrant:
        """Take a free human seat of a table."""
        ...

    def create_seated(self, config: TableConfig, holders: Sequence[Holder]) -> str:
        """Create a table whose human seats (in order) go to ``holders``; its id.
        No rate limit is spent: the caller limits what led to it (a seek, a
        challenge, a tournament round)."""
        ...

    def deliver_chat(self, live: LiveTable, message: dict[str, Any]) -> None:
        """Pass a chat message (or a moderator's removal of one) to this
        process's players at the table."""
        ...

    @property
    def limiter(self) -> TokenLimiter:
        """Rate limits shared by every process (per purpose and client)."""
        ...
