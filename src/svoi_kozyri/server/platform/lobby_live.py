"""The lobby that shows the place is alive: who is online, open seats, tables in
play with their spectators, filters and paging.

``GET /api/lobby`` answers :class:`LobbyPage`.  Everything in it is public: the
names at the seats (and which are accounts or bots), counts of connected
players and spectators, the rules options; never a token, a hand or a table
that is not listed.  "Online" is the accounts seen in the last two minutes (any
request with their session, the lobby's own polling included) together with
every account connected to a table (at any server process), plus the guests
connected to tables and the spectators watching, at every server process (the
other processes' spectators come from ``sk_presence``, see :mod:`.cluster`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field

from ...core import seat_name
from ..table.live import LiveTable
from .players import Players

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


def _summary(rules: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {k: rules.get(k) for k in RULE_FILTERS}
    out["length"] = (
        rules.get("loss_limit")
        if rules.get("session_mode") == "losses"
        else rules.get("points_target")
    )
    return out


_Row = tuple[LiveTable, str, int, list[int]]
"""A listed table: its live table, status, free seats and human seats connected."""


def _listed_rows(lives: Iterable[LiveTable]) -> list[_Row]:
    """The listed tables that are not finished, with their plain fields."""
    rows: list[_Row] = []
    for live in list(lives):
        g = live.game
        if not g.config.listed:
            continue
        st = g.status
        if st == "finished":
            continue
        here: list[int] = []
        if live.conns or live.remote:
            here = [i for i, s in enumerate(g.seats) if s.kind == "human" and live.connected(i)]
        rows.append((live, st, sum(not s.taken for s in g.seats), here))
    return rows


@dataclass(frozen=True)
class _Filter:
    """The lobby's filters (None or "any": not filtered)."""

    num_players: int | None
    rated: bool | None
    status: str
    rules: dict[str, str]
    rated_ids: set[str]

    def keeps(self, row: _Row) -> bool:
        """Whether a listed table passes every filter."""
        live, _st, free, _here = row
        g = live.game
        if self.num_players is not None and g.n != self.num_players:
            return False
        if self.rated is not None and (g.table_id in self.rated_ids) != self.rated:
            return False
        if (self.status == "open" and free == 0) or (self.status == "playing" and free > 0):
            return False
        rd = g.rules_dict
        return all(str(rd.get(k)) == v for k, v in self.rules.items())


def _blocked_names(players: Players, viewer: int | None) -> set[str]:
    """The names of the accounts in a block with ``viewer``, either way."""
    if viewer is None:
        return set()
    users = (players.accounts.user_by_id(uid) for uid in players.blocks.related(viewer))
    return {u.username for u in users if u is not None}


def blocked_tables(
    players: Players, viewer: int | None, table_ids: list[str], names: set[str] | None = None
) -> set[str]:
    """Those of ``table_ids`` where an account in a block with ``viewer`` sits
    (either way): no list shows them to ``viewer`` (issue 22).  ``names``: those
    accounts' names, when the caller has them already."""
    hidden = _blocked_names(players, viewer) if names is None else names
    if not hidden:
        return set()
    seated = players.accounts.seats_for_tables(sorted(table_ids))
    return {tid for (tid, _seat), name in seated.items() if name in hidden}


def lobby_page(
    players: Players,
    *,
    num_players: int | None = None,
    rated: bool | None = None,
    status: str = "any",
    rules: dict[str, str] | None = None,
    offset: int = 0,
    limit: int = 20,
    viewer: int | None = None,
) -> LobbyPage:
    """The lobby as :class:`LobbyPage` (``players`` is the app's :class:`~.players.Players`).

    Filtering, sorting and counting use the tables' plain fields; the models are
    built for the one page that is sent (a lobby of 1,000 tables stays cheap).
    ``viewer``: the account asking; the tables where an account in a block with it
    sits, and those accounts among the online, are left out (a blocked player
    learns nothing of the blocker's tables, issue 22).
    """
    hub = players.hub
    rows = _listed_rows(hub.tables.values())
    hidden = _blocked_names(players, viewer)
    away = blocked_tables(players, viewer, [r[0].game.table_id for r in rows], hidden)
    if away:
        rows = [r for r in rows if r[0].game.table_id not in away]
    rated_ids: set[str] = players.ratings.rated_tables([r[0].game.table_id for r in rows])
    wanted = _Filter(num_players, rated, status, rules or {}, rated_ids)

    matching = [r for r in rows if wanted.keeps(r)]
    # open seats first (somebody is waiting for a player), then the newest
    matching.sort(key=lambda r: (r[2] == 0, -r[0].game.created, r[0].game.table_id))
    page = matching[offset : offset + limit]
    for live, *_rest in page:  # tables idle here catch up on what other processes did
        if live.stale:
            hub.peer.refresh(live)
    # accounts: for the tables shown, and wherever a human player is connected
    lookup = {r[0].game.table_id for r in page} | {r[0].game.table_id for r in rows if r[3]}
    owners: dict[tuple[str, int], str] = players.accounts.seats_for_tables(sorted(lookup))
    online = set(players.accounts.online())
    guests = spectators = 0
    for live, _st, _free, here in rows:
        spectators += live.spectators()
        for i in here:
            account = owners.get((live.game.table_id, i))
            if account is not None:
                online.add(account)
            else:
                guests += 1
    tables = []
    for live, st, free, here in page:
        g = live.game
        tables.append(
            LobbyTable(
                table_id=g.table_id,
                title=g.config.title or f"table {g.table_id}",
                status=st,
                players=g.n,
                free_seats=free,
                rated=g.table_id in rated_ids,
                spectators=live.spectators(),
                hand=g.hand_number,
                rules=_summary(g.rules_dict),
                seats=[
                    LobbySeat(
                        seat=i,
                        letter=seat_name(i),
                        label=g.seat_label(i),
                        account=owners.get((g.table_id, i)) if s.kind == "human" else None,
                        bot=s.bot if s.kind == "bot" else None,
                        taken=s.taken,
                        connected=s.kind == "bot" or i in here,
                    )
                    for i, s in enumerate(g.seats)
                ],
                created=g.created,
            )
        )
    online -= hidden
    return LobbyPage(
        total=len(matching),
        offset=offset,
        limit=limit,
        tables=tables,
        online=OnlineView(
            accounts=sorted(online, key=str.casefold),
            guests=guests,
            spectators=spectators,
            tables=len(rows),
        ),
    )


def lobby_router(players: Players) -> APIRouter:
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
        user = players.user_of(request)  # marks the account as seen
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
            viewer=user.id if user is not None else None,
        )

    return r
