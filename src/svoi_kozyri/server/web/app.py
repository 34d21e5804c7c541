"""The FastAPI application: HTTP API, WebSocket endpoint, cards and static front end.

``create_app(database_url)`` builds an app around one :class:`~.hub.Hub`; the
``svoi-kozyri serve`` command runs it with uvicorn.  See ``docs/protocol.md``.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import AsyncIterator, Sequence
from importlib import resources
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles

from ..edge.guard import (
    BodyLimitMiddleware,
    Limits,
    SecurityHeadersMiddleware,
    TrustedProxyMiddleware,
    install_log_redaction,
    parse_proxies,
)
from ..features import analysis_api, deals, learn, session_end
from ..platform import prefs
from ..platform.accounts import AccountSettings
from ..platform.install import install_players
from ..runtime import drain, gcpolicy, loopwatch
from ..storage.store import Store
from ..table.scheduler import IDLE_PAUSE_S, UNATTENDED_DELAY_S
from .errors import install_errors
from .hub import Hub
from .observability import install_observability
from .routes_site import site_router
from .routes_tables import tables_router

STATIC_DIR = Path(str(resources.files("svoi_kozyri") / "web" / "static"))


def body_limits() -> dict[str, int]:
    """Request body limits other than :data:`~.guard.MAX_BODY_BYTES`
    (docs/protocol.md lists them): the analysis of a record takes
    :data:`~.analysis_api.MAX_RECORD_CHARS` characters, each at most 4 bytes of
    UTF-8, plus the rest of the request; the account's preferences far less."""
    return {
        "/api/analysis/record": 4 * analysis_api.MAX_RECORD_CHARS + 4096,
        "/api/account/prefs": prefs.MAX_BODY_BYTES,
    }


ENV_PREFIX = "SVOI_KOZYRI_SERVE_"
"""Environment variables ``app_from_env`` reads (``serve --workers N`` passes the
settings to uvicorn's worker processes this way)."""


def app_from_env() -> FastAPI:
    """The app of one worker process of ``serve --workers N`` (uvicorn factory).

    The worker ends with its supervisor, even one killed with SIGKILL."""
    from ..table.bot_runner import die_with_parent

    env = os.environ
    die_with_parent(int(env.get(ENV_PREFIX + "SUPERVISOR") or os.getppid()))
    if env.get(ENV_PREFIX + "LOG_FORMAT") == "json":  # uvicorn set up the handlers
        logging.captureWarnings(True)
    return create_app(
        env[ENV_PREFIX + "DATABASE"],
        limits=Limits.off() if env.get(ENV_PREFIX + "NO_RATE_LIMITS") == "1" else None,
        idle_pause_s=float(env.get(ENV_PREFIX + "IDLE_PAUSE", IDLE_PAUSE_S)),
        unattended_delay_s=float(env.get(ENV_PREFIX + "UNATTENDED_DELAY", UNATTENDED_DELAY_S)),
        migrate=False,
        engines=json.loads(env.get(ENV_PREFIX + "ENGINES", "{}")),
        trusted_proxies=json.loads(env.get(ENV_PREFIX + "TRUSTED_PROXIES", "[]")),
        public_origins=json.loads(env.get(ENV_PREFIX + "PUBLIC_ORIGINS", "[]")),
        tournaments=json.loads(env.get(ENV_PREFIX + "TOURNAMENTS", "[]")),
        metrics_token=env.get(ENV_PREFIX + "METRICS_TOKEN") or None,
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
    tournaments: Sequence[str] = (),
    metrics_token: str | None = None,
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
    ``routers``: more routes, after the built-in ones (the site's in
    :mod:`.routes_site`, the tables' in :mod:`.routes_tables`, the features'); a
    route reaches the hub as ``request.app.state.hub``.
    ``trusted_proxies``: addresses or networks of the reverse proxies whose
    ``X-Forwarded-For`` / ``X-Forwarded-Proto`` are believed (none by default).
    ``public_origins``: the origins (``https://host``) the pages are served at,
    named in the policy's ``connect-src`` (by default ``'self'`` only).
    ``tournaments``: built-in scheduled tournaments (``arena:hourly:4p``, see
    :func:`~..platform.tournaments.parse_schedule`).
    ``metrics_token``: the bearer token ``GET /metrics`` asks for (none by default:
    see docs/observability.md on keeping it private).
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
        await observability.start()
        collector = gcpolicy.from_env()  # the collector's long pauses, see gcpolicy.py
        if collector is not None:
            collector.start()
        undrain = drain.on_terminate(hub.drain)  # SIGTERM: tables handed over first
        try:
            yield
        finally:
            undrain()
            await observability.stop()
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
    players = install_players(app, hub, store, accounts, tournaments)
    hub.seat_gate = app.state.moderation.gate  # a banned account's seat does not act
    app.add_middleware(BodyLimitMiddleware, limits=body_limits())
    app.add_middleware(SecurityHeadersMiddleware, origins=list(public_origins))
    # outermost: every other part sees the client's address as configured
    app.add_middleware(TrustedProxyMiddleware, proxies=parse_proxies(trusted_proxies))

    install_errors(app)
    observability = install_observability(app, hub, metrics_token, players)  # outermost middleware
    app.include_router(site_router(hub))
    app.include_router(tables_router(hub, players))
    for router in (learn.router, analysis_api.router, deals.router, session_end.router):
        app.include_router(router)
    for router in routers:
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
