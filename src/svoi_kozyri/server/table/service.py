"""The port the features and the platform use to reach the tables.

The hub (:mod:`svoi_kozyri.server.web.hub`) owns the live tables and sits at the
top of the server, above the packages that need a table: the analysis, deals,
rematches, chat, the players' endpoints and the live lobby.  They are handed the
hub typed as :class:`TableService`, the few things they may ask of it, so no
module below ``web`` imports the hub and none holds it as ``Any``.
"""

from __future__ import annotations

from typing import Protocol

from ..storage.store import Store
from ..wire.schemas import CreateTableRequest, JoinRequest, SeatGrant
from .live import LiveTable
from .master import TableMaster
from .peer import TablePeer

__all__ = ["TableService"]


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
