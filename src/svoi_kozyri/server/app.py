"""The FastAPI application: HTTP API, WebSocket endpoint, cards and static front end.

``create_app(database_url)`` builds an app around one :class:`~.hub.Hub`; the
``svoi-kozyri serve`` command runs it with uvicorn.  See ``docs/protocol.md``.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Header, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from fastapi.staticfiles import StaticFiles

from ..core import CardError, parse_card
from . import analysis_api, deals, gcpolicy, learn, loopwatch, session_end
from .accounts import AccountSettings
from .auth import LINK_TTL_S
from .cards_svg import back_svg, card_svg
from .db import Store
from .guard import (
    BodyLimitMiddleware,
    Limits,
    RateLimited,
    SecurityHeadersMiddleware,
    TrustedProxyMiddleware,
    client_key,
    install_log_redaction,
    parse_proxies,
)
from .hub import LOBBY_MAX, LOBBY_PAGE, Hub
from .pages import page_shell
from .players import install_players
from .replay import iter_replay
from .scheduler import IDLE_PAUSE_S, UNATTENDED_DELAY_S
from .schemas import CreateTableRequest, JoinRequest, LobbyEntry, SeatGrant
from .table import TableError
from .views import table_view

STATIC_DIR = Path(str(resources.files("svoi_kozyri") / "web" / "static"))

_STATUS = {
    "no_table": 404,
    "seat_taken": 409,
    "table_full": 409,
    "bad_token": 403,
    "no_record": 409,
    "bad_link": 403,
    "rate_limited": 429,
}


def _plain(text: str) -> str:
    """``text`` with anything that cannot be encoded (lone surrogates) replaced."""
    return text.encode("utf-8", "replace").decode("utf-8")


def body_limits() -> dict[str, int]:
    """Request body limits of the endpoints that take more than
    :data:`~.guard.MAX_BODY_BYTES` (docs/protocol.md lists them): the analysis
    of a record takes :data:`~.analysis_api.MAX_RECORD_CHARS` characters, each
    at most 4 bytes of UTF-8, plus the rest of the request."""
    return {"/api/analysis/record": 4 * analysis_api.MAX_RECORD_CHARS + 4096}


ROUTERS: list[APIRouter] = []
"""Routers every app includes: a server module adds its ``APIRouter`` here (at
import, before ``create_app``) or the caller passes ``routers=``."""

ENV_PREFIX = "SVOI_KOZYRI_SERVE_"
"""Environment variables ``app_from_env`` reads (``serve --workers N`` passes the
settings to uvicorn's worker processes this way)."""


def app_from_env() -> FastAPI:
    """The app of one worker process of ``serve --workers N`` (uvicorn factory).

    The worker ends with its supervisor, even one killed with SIGKILL."""
    from .bot_runner import die_with_parent

    env = os.environ
    die_with_parent(int(env.get(ENV_PREFIX + "SUPERVISOR") or os.getppid()))
    return create_app(
        env[ENV_PREFIX + "DATABASE"],
        limits=Limits.off() if env.get(ENV_PREFIX + "NO_RATE_LIMITS") == "1" else None,
        idle_pause_s=float(env.get(ENV_PREFIX + "IDLE_PAUSE", IDLE_PAUSE_S)),
        unattended_delay_s=float(env.get(ENV_PREFIX + "UNATTENDED_DELAY", UNATTENDED_DELAY_S)),
        migrate=False,
        engines=json.loads(env.get(ENV_PREFIX + "ENGINES", "{}")),
        trusted_proxies=json.loads(env.get(ENV_PREFIX + "TRUSTED_PROXIES", "[]")),
        public_origins=json.loads(env.get(ENV_PREFIX + "PUBLIC_ORIGINS", "[]")),
    )


def create_app(
    database_url: str,
    *,
    seed: int | None = None,
    limits: Limits | None = None,
    idle_pause_s: float = IDLE_PAUSE_S,
    accounts: AccountSettings | None = None,
    migrate: bool | None = None,
    routers: Sequence[APIRouter] = (),
    engines: dict[str, str] | None = None,
    trusted_proxies: Sequence[str] = (),
    public_origins: Sequence[str] = (),
    unattended_delay_s: float = UNATTENDED_DELAY_S,
) -> FastAPI:
    """The web app storing its tables at ``database_url`` (any SQLAlchemy URL).

    ``seed`` makes table ids, seeds and deals reproducible (tests); seat tokens
    always come from :mod:`secrets`.  ``limits`` sets the per-client rate limits
    (:meth:`Limits.off` for the load benchmark); ``idle_pause_s`` how long a
    table plays on after its last human player left, ``unattended_delay_s`` the
    least time between its automatic actions meanwhile (a human's pace).  ``migrate``: see
    :class:`~.db.Store` (by default SQLite is migrated, other databases must be).
    ``accounts`` tunes password hashing and log-in limits
    (:class:`~.accounts.AccountSettings`).
    ``engines`` maps bot names to the command lines of external engines the
    operator allows (clients see only the names).
    ``routers``: more routes (other server modules), after the built-in ones and
    :data:`ROUTERS`; a route reaches the hub as ``request.app.state.hub``.
    ``trusted_proxies``: addresses or networks of the reverse proxies whose
    ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed (none by default).
    ``public_origins``: the origins (``https://host``) the pages are served at,
    named in the policy's ``connect-src`` (by default ``'self'`` only).
    """
    store = Store(database_url, migrate=migrate)
    hub = Hub(
        store,
        seed=seed,
        limits=limits,
        idle_pause_s=idle_pause_s,
        engines=engines,
        unattended_delay_s=unattended_delay_s,
    )
    install_log_redaction()

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        watch_s = loopwatch.threshold_from_env()
        watch = loopwatch.LoopWatch(watch_s) if watch_s is not None else None
        if watch is not None:  # a diagnostic: what blocks the loop (off by default)
            watch.start()
        await hub.start()
        await players.start()
        collector = gcpolicy.from_env()  # the collector's long pauses, see gcpolicy.py
        if collector is not None:
            collector.start()
        try:
            yield
        finally:
            if collector is not None:
                await collector.stop()
            await players.stop()
            await hub.stop()
            store.close()
            if watch is not None:
                await watch.stop()

    # no interactive docs: Swagger UI needs a CDN and inline code, which the page
    # policy forbids; the OpenAPI description itself is served
    app = FastAPI(
        title="Svoi Kozyri",
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
    )
    app.state.hub = hub
    players = install_players(app, hub, store, accounts)
    app.add_middleware(BodyLimitMiddleware, limits=body_limits())
    app.add_middleware(SecurityHeadersMiddleware, origins=list(public_origins))
    # outermost: every other part sees the client's address as configured
    app.add_middleware(TrustedProxyMiddleware, proxies=parse_proxies(trusted_proxies))

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        # the errors without the input (it may be megabytes, NaN or a lone
        # surrogate, none of which belongs in the answer)
        errors = [
            {
                "loc": [str(x) for x in e.get("loc", ())][:8],
                "msg": _plain(str(e.get("msg", "")))[:200],
                "type": _plain(str(e.get("type", "")))[:40],
            }
            for e in list(exc.errors())[:10]
        ]
        return JSONResponse({"code": "invalid", "detail": errors}, status_code=422)

    @app.exception_handler(TableError)
    async def _table_error(_request: Request, exc: TableError) -> JSONResponse:
        status = _STATUS.get(exc.code, 400)
        headers = None
        if status == 429:  # every 429 says when to come back
            wait = exc.retry_after_header if isinstance(exc, RateLimited) else "1"
            headers = {"Retry-After": wait}
        return JSONResponse(
            {"code": exc.code, "message": str(exc)}, status_code=status, headers=headers
        )

    @app.get("/", include_in_schema=False)
    async def index() -> HTMLResponse:
        return page_shell("app")

    @app.get("/rules", include_in_schema=False)
    async def rules_page(
        accept_language: Annotated[str | None, Header()] = None,
    ) -> RedirectResponse:
        """The rules page in the browser's language (``/rules/<lang>``, server/learn.py)."""
        return RedirectResponse(f"/rules/{learn.rules_language(accept_language)}", 307)

    @app.get("/healthz")
    async def healthz(events: bool = False) -> dict[str, Any]:
        """Liveness, and this process's tables and actions; ``?events=true`` adds
        the events stored by every process (the load benchmark's count)."""
        extra = {"events": store.total_events()} if events else {}
        return {
            **extra,
            "ok": True,
            "tables": len(hub.tables),
            "actions": hub.actions,
            "pid": os.getpid(),
        }

    @app.get("/cards/{name}.svg", include_in_schema=False)
    async def card_image(name: str, letters: str = "en") -> Response:
        if name == "back":
            body = back_svg()
        else:
            try:
                body = card_svg(parse_card(name), letters)
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

    @app.get("/api/rules-options")
    async def rules_options() -> dict[str, Any]:
        """The rules options a table may set (SPEC C9): type, allowed values, defaults."""
        from ..core.rules import option_specs

        return {"options": option_specs()}

    @app.get("/api/tables")
    async def lobby(
        limit: Annotated[int, Query(ge=1, le=LOBBY_MAX)] = LOBBY_PAGE,
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    ) -> list[LobbyEntry]:
        """A page of the open and running tables that are listed, newest first."""
        return hub.lobby(limit, offset)

    @app.post("/api/tables")
    async def create(req: CreateTableRequest, request: Request) -> SeatGrant:
        """Create a table; the creator gets the first human seat and its token."""
        user, req.name = players.seat_name(request, req.name, req.config.rated)
        grant = hub.create_table(req, str(request.base_url), client_key(request.scope))
        players.table_created(grant, req.config, user)
        return grant

    @app.post("/api/tables/{table_id}/join")
    async def join(table_id: str, req: JoinRequest, request: Request) -> SeatGrant:
        """Take a free human seat at a table."""
        user, req.name = players.seat_name(request, req.name, players.is_rated(table_id), table_id)
        grant = hub.join(table_id, req, str(request.base_url), client_key(request.scope))
        players.seat_taken(grant, user)
        return grant

    @app.middleware("http")
    async def _no_token_in_urls(request: Request, call_next: Any) -> Response:
        # a seat token never travels in a URL (it would land in logs and history)
        if "token" in request.query_params:
            return JSONResponse(
                {
                    "code": "token_in_url",
                    "message": "send the seat token in the X-Seat-Token header "
                    "(downloads: POST /api/tables/{id}/record-link)",
                },
                status_code=400,
            )
        response: Response = await call_next(request)
        return response

    def _live_and_seat(
        table_id: str, token: str | None, request: Request | None = None
    ) -> tuple[Any, int | None]:
        live = hub.get(table_id)
        if live is None:
            raise TableError("no_table", f"no table {table_id!r}")
        seat = hub.seat_of_token(live, token)
        if token and seat is None:
            raise TableError("bad_token", "this token holds no seat at this table")
        if seat is None and request is not None:  # a logged-in player's own seat
            seat = players.seat_of_request(request, table_id)
        return live, seat

    @app.get("/api/tables/{table_id}")
    async def table(
        table_id: str,
        request: Request,
        x_seat_token: Annotated[str | None, Header(max_length=100)] = None,
    ) -> Response:
        """The table as the token's seat (or a spectator, without a token) sees it."""
        live, seat = _live_and_seat(table_id, x_seat_token, request)
        await live.settled()  # committed before shown
        return Response(hub.view_for(live, seat), media_type="application/json")

    @app.get("/api/tables/{table_id}/replay")
    async def replay(
        table_id: str,
        request: Request,
        x_seat_token: Annotated[str | None, Header(max_length=100)] = None,
    ) -> Response:
        """Every step of the game as the viewer saw it (their knowledge only)."""
        live, seat = _live_and_seat(table_id, x_seat_token, request)
        await live.settled()
        n = live.game.n
        steps = [
            table_view(copy, seat, [False] * n, [False] * n).model_dump(mode="json")
            for _ev, copy in iter_replay(live.game)
        ]
        return Response(json.dumps({"steps": steps}), media_type="application/json")

    @app.post("/api/tables/{table_id}/record-link")
    async def record_link(
        table_id: str,
        request: Request,
        x_seat_token: Annotated[str | None, Header(max_length=100)] = None,
    ) -> dict[str, Any]:
        """A short-lived signed link to download the record as the token's seat
        (a download cannot send a header, and a token must never be in a URL)."""
        _live, seat = _live_and_seat(table_id, x_seat_token, request)
        link = hub.signer.sign("record", table_id, seat)
        return {"url": f"/api/tables/{table_id}/record?link={link}", "expires_s": LINK_TTL_S}

    @app.get("/api/tables/{table_id}/record")
    async def record(
        table_id: str,
        request: Request,
        link: Annotated[str | None, Query(max_length=80)] = None,
        x_seat_token: Annotated[str | None, Header(max_length=100)] = None,
    ) -> Response:
        """The game in the project's record format, keeping only the viewer's knowledge:
        the header's seat, the signed link's seat, or a spectator's."""
        from .records_export import export_records

        live, seat = _live_and_seat(table_id, x_seat_token, request)
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

    @app.websocket("/ws/{table_id}")
    async def ws(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        await hub.serve_socket(websocket, table_id, client_key(websocket.scope))

    for router in (*ROUTERS, *routers):
        app.include_router(router)
    app.include_router(learn.router)
    app.include_router(analysis_api.router)
    app.include_router(deals.router)
    app.include_router(session_end.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
