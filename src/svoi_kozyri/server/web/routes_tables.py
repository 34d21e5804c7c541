"""The tables' routes: the lobby, creating and joining, a table's view, its
replay and record, and its WebSocket."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, WebSocket
from fastapi.responses import PlainTextResponse, Response

from ..edge.guard import client_key
from ..features.records_export import export_records
from ..platform.lobby_live import blocked_tables
from ..platform.players import Players
from ..table.game import TableError
from ..table.live import LiveTable
from ..table.replay import iter_replay
from ..table.views import table_view
from ..wire.auth import LINK_TTL_S
from ..wire.schemas import CreateTableRequest, JoinRequest, LobbyEntry, SeatGrant
from .hub import LOBBY_MAX, LOBBY_PAGE, Hub

__all__ = ["tables_router"]

SeatToken = Annotated[str | None, Header(max_length=100)]
"""The ``X-Seat-Token`` header (a token never travels in a URL)."""


def tables_router(hub: Hub, players: Players) -> APIRouter:
    """The routes of the tables of ``hub``; seats are tied to accounts by ``players``."""
    r = APIRouter()

    def live_and_seat(
        table_id: str, token: str | None, request: Request | None = None
    ) -> tuple[LiveTable, int | None]:
        live = hub.get(table_id)
        if live is None:
            raise TableError("no_table", f"no table {table_id!r}")
        seat = hub.seat_of_token(live, token)
        if token and seat is None:
            raise TableError("bad_token", "this token holds no seat at this table")
        if seat is None and request is not None:  # a logged-in player's own seat
            seat = players.seat_of_request(request, table_id)
        return live, seat

    @r.get("/api/tables")
    async def lobby(
        request: Request,
        limit: Annotated[int, Query(ge=1, le=LOBBY_MAX)] = LOBBY_PAGE,
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    ) -> list[LobbyEntry]:
        """A page of the open and running tables that are listed, newest first;
        a logged-in player's list leaves out the tables where an account in a
        block with them sits, as the live lobby does."""
        user = players.user_of(request)
        hidden = blocked_tables(players, user.id, hub.listed()) if user is not None else set()
        return hub.lobby(limit, offset, hidden)

    @r.post("/api/tables")
    async def create(req: CreateTableRequest, request: Request) -> SeatGrant:
        """Create a table; the creator gets the first human seat and its token."""
        user, req.name = players.seat_name(request, req.name, req.config.rated)
        grant = hub.create_table(req, str(request.base_url), client_key(request.scope))
        players.table_created(grant, req.config, user)
        return grant

    @r.post("/api/tables/{table_id}/join")
    async def join(table_id: str, req: JoinRequest, request: Request) -> SeatGrant:
        """Take a free human seat at a table."""
        user, req.name = players.seat_name(request, req.name, players.is_rated(table_id), table_id)
        grant = hub.join(table_id, req, str(request.base_url), client_key(request.scope))
        players.seat_taken(grant, user)
        return grant

    @r.get("/api/tables/{table_id}")
    async def table(table_id: str, request: Request, x_seat_token: SeatToken = None) -> Response:
        """The table as the token's seat (or a spectator, without a token) sees it."""
        live, seat = live_and_seat(table_id, x_seat_token, request)
        await live.settled()  # committed before shown
        return Response(hub.view_for(live, seat), media_type="application/json")

    @r.get("/api/tables/{table_id}/replay")
    async def replay(table_id: str, request: Request, x_seat_token: SeatToken = None) -> Response:
        """Every step of the game as the viewer saw it (their knowledge only)."""
        live, seat = live_and_seat(table_id, x_seat_token, request)
        await live.settled()
        n = live.game.n
        steps = [
            table_view(copy, seat, [False] * n, [False] * n).model_dump(mode="json")
            for _ev, copy in iter_replay(live.game)
        ]
        return Response(json.dumps({"steps": steps}), media_type="application/json")

    @r.post("/api/tables/{table_id}/record-link")
    async def record_link(
        table_id: str, request: Request, x_seat_token: SeatToken = None
    ) -> dict[str, Any]:
        """A short-lived signed link to download the record as the token's seat
        (a download cannot send a header, and a token must never be in a URL)."""
        _live, seat = live_and_seat(table_id, x_seat_token, request)
        link = hub.signer.sign("record", table_id, seat)
        return {"url": f"/api/tables/{table_id}/record?link={link}", "expires_s": LINK_TTL_S}

    @r.get("/api/tables/{table_id}/record")
    async def record(
        table_id: str,
        request: Request,
        link: Annotated[str | None, Query(max_length=80)] = None,
        x_seat_token: SeatToken = None,
    ) -> Response:
        """The game in the project's record format, keeping only the viewer's knowledge:
        the header's seat, the signed link's seat, or a spectator's."""
        live, seat = live_and_seat(table_id, x_seat_token, request)
        if link is not None:
            linked = hub.signer.check("record", table_id, link)
            if linked is False:
                raise TableError("bad_link", "this download link is not valid (any more)")
            seat = linked if isinstance(linked, int) else None
        await live.settled()
        text = export_records(live.game, seat)
        return PlainTextResponse(
            text,
            headers={"Content-Disposition": f'attachment; filename="svoi-kozyri-{table_id}.txt"'},
        )

    @r.websocket("/ws/{table_id}")
    async def ws(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        await hub.serve_socket(websocket, table_id, client_key(websocket.scope))

    return r
