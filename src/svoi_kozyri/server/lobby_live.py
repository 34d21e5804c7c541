"""The lobby that shows the place is alive: who is online, open seats, tables in
play with their spectators, filters and paging.

``GET /api/lobby`` answers :class:`LobbyPage`.  Everything in it is public: the
names at the seats (and which are accounts or bots), counts of connected
players and spectators, the rules options; never a token, a hand or a table
that is not listed.  "Online" is the accounts seen in the last two minutes (any
request with their session, the lobby's own polling included) together with
every account connected to a table (at any server process), plus the guests
connected to tables and the spectators watching at this process.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from ..core import seat_name

RULE_FILTERS = ("variant", "pickup_rule", "suit_assignment", "draw_rule", "session_mode")
"""Rules options the lobby can filter on (their values are the engine's names)."""

MAX_PAGE = 50


class LobbySeat(BaseModel):
    """A seat as the lobby shows it."""

    seat: int
    letter: str
    label: str = Field(description="the seat's display name ('open seat B' when free)")
    account: str | None = Field(description="the account holding the seat, if any")
    bot: str | None
    taken: bool
    connected: bool


class LobbyTable(BaseModel):
    """One table of the live lobby."""

    table_id: str
    title: str
    status: str
    players: int
    free_seats: int
    rated: bool
    spectators: int
    hand: int = Field(description="number of the hand being played (0 before the first deal)")
    rules: dict[str, Any] = Field(description="the options the lobby filters on, and the length")
    seats: list[LobbySeat]
    created: float


class OnlineView(BaseModel):
    """Who is around."""

    accounts: list[str]
    guests: int = Field(description="connected guest players (no account) at tables")
    spectators: int
    tables: int = Field(description="tables waiting or in play")


class LobbyPage(BaseModel):
    """``GET /api/lobby``: one page of matching tables and who is online."""

    total: int
    offset: int
    limit: int
    tables: list[LobbyTable]
    online: OnlineView


def lobby_page(
    players: Any,
    *,
    num_players: int | None = None,
    rated: bool | None = None,
    status: str = "any",
    rules: dict[str, str] | None = None,
    offset: int = 0,
    limit: int = 20,
) -> LobbyPage:
    """The lobby as :class:`LobbyPage` (``players`` is the app's :class:`~.players.Players`)."""
    hub = players.hub
    lives = [
        live
        for live in list(hub.tables.values())
        if live.game.status != "finished" and live.game.config.listed
    ]
    ids = [live.game.table_id for live in lives]
    owners: dict[tuple[str, int], str] = players.accounts.seats_for_tables(ids)
    rated_ids: set[str] = players.ratings.rated_tables(ids)
    online = set(players.accounts.online())
    guests = spectators = 0
    entries: list[LobbyTable] = []
    for live in lives:
        g = live.game
        conns = list(live.conns)
        spect = sum(1 for c in conns if c.seat is None)
        spectators += spect
        seats = []
        for i, s in enumerate(g.seats):
            connected = bool(live.connected(i))  # at any server process
            account = owners.get((g.table_id, i))
            if connected and s.kind == "human":
                if account is not None:
                    online.add(account)
                else:
                    guests += 1
            seats.append(
                LobbySeat(
                    seat=i,
                    letter=seat_name(i),
                    label=g.seat_label(i),
                    account=account if s.kind == "human" else None,
                    bot=s.bot if s.kind == "bot" else None,
                    taken=s.taken,
                    connected=connected or s.kind == "bot",
                )
            )
        rd = g.rules_dict
        summary: dict[str, Any] = {k: rd.get(k) for k in RULE_FILTERS}
        summary["length"] = (
            rd.get("loss_limit") if rd.get("session_mode") == "losses" else rd.get("points_target")
        )
        entries.append(
            LobbyTable(
                table_id=g.table_id,
                title=g.config.title or f"table {g.table_id}",
                status=g.status,
                players=g.n,
                free_seats=sum(not s.taken for s in g.seats),
                rated=g.table_id in rated_ids,
                spectators=spect,
                hand=g.hand_number,
                rules=summary,
                seats=seats,
                created=g.created,
            )
        )

    def keep(e: LobbyTable) -> bool:
        if num_players is not None and e.players != num_players:
            return False
        if rated is not None and e.rated != rated:
            return False
        if status == "open" and e.free_seats == 0:
            return False
        if status == "playing" and e.free_seats > 0:
            return False
        return all(str(e.rules.get(k)) == v for k, v in (rules or {}).items())

    matching = [e for e in entries if keep(e)]
    # open seats first (somebody is waiting for a player), then the newest
    matching.sort(key=lambda e: (e.free_seats == 0, -e.created, e.table_id))
    page = matching[offset : offset + limit]
    return LobbyPage(
        total=len(matching),
        offset=offset,
        limit=limit,
        tables=page,
        online=OnlineView(
            accounts=sorted(online, key=str.casefold),
            guests=guests,
            spectators=spectators,
            tables=len(entries),
        ),
    )


def lobby_router(players: Any) -> APIRouter:
    """``GET /api/lobby`` with filters and paging."""
    r = APIRouter(tags=["lobby"])

    @r.get("/api/lobby")
    async def lobby(
        request: Request,
        players_: Annotated[int | None, Query(alias="players", ge=2, le=4)] = None,
        rated: bool | None = None,
        status: Literal["any", "open", "playing"] = "any",
        variant: Annotated[str | None, Query(max_length=20)] = None,
        pickup_rule: Annotated[str | None, Query(max_length=20)] = None,
        suit_assignment: Annotated[str | None, Query(max_length=20)] = None,
        draw_rule: Annotated[str | None, Query(max_length=20)] = None,
        session_mode: Annotated[str | None, Query(max_length=20)] = None,
        offset: Annotated[int, Query(ge=0, le=100_000)] = 0,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 20,
    ) -> LobbyPage:
        """Listed tables (open seats first, then newest), filtered and paged, and who is
        online.  Polling it with a session keeps the account "online"."""
        players.user_of(request)  # marks the account as seen
        given = {
            "variant": variant,
            "pickup_rule": pickup_rule,
            "suit_assignment": suit_assignment,
            "draw_rule": draw_rule,
            "session_mode": session_mode,
        }
        return lobby_page(
            players,
            num_players=players_,
            rated=rated,
            status=status,
            rules={k: v for k, v in given.items() if v is not None},
            offset=offset,
            limit=limit,
        )

    return r
