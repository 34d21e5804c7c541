"""The FastAPI application: HTTP API, WebSocket endpoint, cards and static front end.

``create_app(database_url)`` builds an app around one :class:`~.hub.Hub`; the
``svoi-kozyri serve`` command runs it with uvicorn.  See ``docs/protocol.md``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Header, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles

from ..core import CardError, parse_card
from .cards_svg import back_svg, card_svg
from .db import Store
from .hub import Hub
from .schemas import CreateTableRequest, JoinRequest, LobbyEntry, SeatGrant
from .table import TableError, TableGame
from .views import table_view

STATIC_DIR = Path(str(resources.files("svoi_kozyri") / "web" / "static"))

_STATUS = {
    "no_table": 404,
    "seat_taken": 409,
    "table_full": 409,
    "bad_token": 403,
    "no_record": 409,
}


def create_app(
    database_url: str, *, seed: int | None = None, engines: dict[str, str] | None = None
) -> FastAPI:
    """The web app storing its tables at ``database_url`` (any SQLAlchemy URL).

    ``seed`` makes table ids, seeds and deals reproducible (tests); seat tokens
    always come from :mod:`secrets`.  ``engines`` maps bot names to the command
    lines of external engines the operator allows (clients see only the names).
    """
    store = Store(database_url)
    hub = Hub(store, seed=seed, engines=engines)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await hub.start()
        try:
            yield
        finally:
            await hub.stop()
            store.close()

    app = FastAPI(title="Svoi Kozyri", lifespan=lifespan, docs_url="/api/docs")
    app.state.hub = hub

    @app.exception_handler(TableError)
    async def _table_error(_request: Request, exc: TableError) -> JSONResponse:
        return JSONResponse(
            {"code": exc.code, "message": str(exc)}, status_code=_STATUS.get(exc.code, 400)
        )

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html")

    @app.get("/rules", include_in_schema=False)
    async def rules_page() -> FileResponse:
        return FileResponse(STATIC_DIR / "rules.html")

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        return {"ok": True, "tables": len(hub.tables), "actions": hub.actions}

    @app.get("/cards/{name}.svg", include_in_schema=False)
    async def card_image(name: str) -> Response:
        if name == "back":
            body = back_svg()
        else:
            try:
                body = card_svg(parse_card(name))
            except CardError as e:
                return JSONResponse({"code": "bad_card", "message": str(e)}, status_code=404)
        return Response(
            body,
            media_type="image/svg+xml",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        """Bots that can take a seat (strongest first) and the default one."""
        return {"bots": hub.bots, "default": hub.default_bot}

    @app.get("/api/tables")
    async def lobby() -> list[LobbyEntry]:
        """Open and running tables that are listed."""
        return hub.lobby()

    @app.post("/api/tables")
    async def create(req: CreateTableRequest, request: Request) -> SeatGrant:
        """Create a table; the creator gets the first human seat and its token."""
        return hub.create_table(req, str(request.base_url))

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, req: JoinRequest, request: Request) -> SeatGrant:
        """Take a free human seat at a table."""
        return hub.join(table_id, req, str(request.base_url))

    def _live_and_seat(table_id: str, token: str | None) -> tuple[Any, int | None]:
        live = hub.get(table_id)
        if live is None:
            raise TableError("no_table", f"no table {table_id!r}")
        seat = hub.seat_of_token(live, token)
        if token and seat is None:
            raise TableError("bad_token", "this token holds no seat at this table")
        return live, seat

    @app.get("/api/tables/{table_id}")
    async def table(
        table_id: str, x_seat_token: Annotated[str | None, Header()] = None
    ) -> Response:
        """The table as the token's seat (or a spectator, without a token) sees it."""
        live, seat = _live_and_seat(table_id, x_seat_token)
        return Response(hub.view_for(live, seat), media_type="application/json")

    @app.get("/api/tables/{table_id}/replay")
    async def replay(
        table_id: str,
        token: str | None = None,
        x_seat_token: Annotated[str | None, Header()] = None,
    ) -> Response:
        """Every step of the game as the viewer saw it (their knowledge only)."""
        live, seat = _live_and_seat(table_id, x_seat_token or token)
        game: TableGame = live.game
        copy = TableGame(game.table_id, game.config, game.seed, game.seats, game.created)
        n = game.n
        steps = []
        for ev in game.events:
            copy.apply(ev)
            view = table_view(copy, seat, [False] * n, [False] * n)
            steps.append(view.model_dump(mode="json"))
        return Response(json.dumps({"steps": steps}), media_type="application/json")

    @app.get("/api/tables/{table_id}/record")
    async def record(
        table_id: str,
        token: str | None = None,
        x_seat_token: Annotated[str | None, Header()] = None,
    ) -> Response:
        """The game in the project's record format, keeping only the viewer's knowledge."""
        from .records_export import export_records

        live, seat = _live_and_seat(table_id, x_seat_token or token)
        text = export_records(live.game, seat)
        return PlainTextResponse(
            text,
            headers={"Content-Disposition": f'attachment; filename="svoi-kozyri-{table_id}.txt"'},
        )

    @app.websocket("/ws/{table_id}")
    async def ws(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        await hub.serve_socket(websocket, table_id)

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
