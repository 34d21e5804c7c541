"""What an operator watches: ``GET /metrics`` (Prometheus), ``GET /readyz``
(readiness) and the request context of the structured logs (docs/observability.md).

* :class:`RequestContextMiddleware` gives every HTTP request and WebSocket an id
  (the client's ``X-Request-ID`` when it is a plain short word, else a new one,
  sent back in the response's header), notes the table its path names, for the
  JSON log lines written meanwhile (:mod:`..runtime.logs`), and counts the
  responses by status.
* ``/metrics`` renders :mod:`..runtime.metrics`; with ``serve --metrics-token`` it
  asks for ``Authorization: Bearer <token>``.  It says nothing secret either way
  (counts and times, labels from fixed sets), but an operator keeps it off the
  public side: see the docs for the proxy rule.
* ``/readyz`` answers 200 only when the database answers, is at the newest
  schema revision and this process's background loops run; else 503 with the
  reasons.  ``/healthz`` stays the liveness probe (is the process serving at all).
"""

from __future__ import annotations

import asyncio
import hmac
import re
import secrets
from functools import cache
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import Engine, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import QueuePool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..cluster import Cluster
from ..platform.players import Players
from ..runtime import metrics
from ..runtime.logs import REQUEST_ID, TABLE_ID
from ..storage import migrate
from ..wire.errors import ApiError
from .hub import Hub

__all__ = ["Observability", "RequestContextMiddleware", "install_observability"]

DB_CHECK_S = 3.0
"""Longest wait for the database in a readiness check (an unreachable server may
not refuse, only stay silent); a slower answer is a 503."""

_REQUEST_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A request id from the client (or a proxy) kept as it is; anything else is
replaced, so a log line never carries more than a short plain word from outside."""
_TABLE_PATH = re.compile(r"/(?:api/tables|ws)/([a-z0-9]{1,32})(?:/|$)")
"""Paths about one table: its id is the log lines' ``table_id``."""


class RequestContextMiddleware:
    """Sets the request id and table id of the structured logs for each HTTP
    request and WebSocket (pure ASGI: a socket's context lasts as long as it is
    open, and nothing is buffered), and counts HTTP responses by status."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request with its ids set (the ids end with it)."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = _header(scope, b"x-request-id")
        request_id = given if given and _REQUEST_ID.fullmatch(given) else secrets.token_hex(8)
        m = _TABLE_PATH.match(scope.get("path", ""))
        rid = REQUEST_ID.set(request_id)
        tid = TABLE_ID.set(m.group(1) if m else None)
        status = 500  # unless the app answers
        header = (b"x-request-id", request_id.encode())

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id if scope["type"] == "http" else send)
        finally:
            if scope["type"] == "http":
                metrics.count_response(status)
            TABLE_ID.reset(tid)
            REQUEST_ID.reset(rid)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            text: str = value.decode("latin-1")
            return text
    return None


@cache
def _head_revision() -> str:
    """The newest schema revision (read from the packaged scripts once)."""
    return migrate.head_revision()


_REVISION = text("SELECT version_num FROM alembic_version")
"""The schema revision, read directly: Alembic's own reader logs two lines at
each call, which a probe every few seconds would fill the logs with."""


def _kind(e: SQLAlchemyError) -> str:
    """The error's type (the driver's, when there is one)."""
    return type(getattr(e, "orig", None) or e).__name__


def database_problem(engine: Engine) -> str | None:
    """Why the database is not ready (unreachable, or not at the newest schema
    revision), or None.  Blocking: run it in a thread.  The reason names the
    error's type only: a driver's message may carry a host or user name."""
    try:
        conn = engine.connect()
    except SQLAlchemyError as e:
        return f"database unreachable ({_kind(e)})"
    with conn:
        try:
            revision = conn.execute(_REVISION).scalar()
        except SQLAlchemyError as e:
            return f"database schema revision unreadable ({_kind(e)})"
    head = _head_revision()
    if revision != head:
        return f"database at schema revision {revision}, this program needs {head}"
    return None


class Observability:
    """The process's metrics sampler and readiness check, started and stopped with
    the app (``create_app``'s lifespan)."""

    def __init__(
        self, hub: Hub, metrics_token: str | None = None, players: Players | None = None
    ) -> None:
        self.hub = hub
        self.players = players
        self.metrics_token = metrics_token or None
        self.sampler = metrics.LoopSampler(self.refresh)
        self._db_check: asyncio.Future[str | None] | None = None
        """The readiness check of the database under way: concurrent probes share
        it, so a silent database never piles up threads."""

    async def start(self) -> None:
        """Start sampling the loop and the gauges."""
        self.sampler.start()

    async def stop(self) -> None:
        """Stop sampling; with several workers, drop this worker's gauges."""
        await self.sampler.stop()
        metrics.forget_process()

    def refresh(self) -> None:
        """Set the gauges that are sums over this process's tables and pool (once a
        second, from the sampler: at 1,000 tables a few tens of microseconds)."""
        tables = self.hub.tables
        metrics.LIVE_TABLES.set(len(tables))
        metrics.SOCKETS.set(sum(len(live.conns) for live in tables.values()))
        pool = self.hub.store.engine.pool
        if isinstance(pool, QueuePool):
            metrics.DB_POOL_IN_USE.set(pool.checkedout())

    async def problems(self) -> list[str]:
        """Why this process is not ready to serve (empty when it is)."""
        found: list[str] = []
        if self._db_check is None or self._db_check.done():
            engine = self.hub.store.engine
            self._db_check = asyncio.ensure_future(asyncio.to_thread(database_problem, engine))
        try:
            db = await asyncio.wait_for(asyncio.shield(self._db_check), DB_CHECK_S)
        except TimeoutError:
            db = f"database did not answer within {DB_CHECK_S:g} s"
        except Exception as e:  # a probe answers, whatever failed (the driver, a thread)
            db = f"database check failed ({type(e).__name__})"
        if db is not None:
            found.append(db)
        peer = self.hub.peer
        if isinstance(peer, Cluster) and not peer.running():
            found.append("cluster loops (notifications, leases) not running")
        if not self.sampler.running:
            found.append("metrics sampler not running")
        if self.players is not None:
            found += [f"{name} loop not running" for name in self.players.stopped_services()]
        return found

    def check_token(self, request: Request) -> None:
        """Refuse a scrape without the bearer token, when one is set."""
        if self.metrics_token is None:
            return
        given = request.headers.get("authorization", "")
        scheme, _, token = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            token.strip().encode(), self.metrics_token.encode()
        ):
            raise ApiError("metrics_token", "send Authorization: Bearer <metrics token>", 401)


def observability_router(obs: Observability) -> APIRouter:
    """``/metrics`` and ``/readyz``."""
    r = APIRouter()

    @r.get("/metrics", include_in_schema=False)
    async def prometheus(request: Request) -> Response:
        """The metrics in Prometheus's text format (every worker's)."""
        obs.check_token(request)
        body = await asyncio.to_thread(metrics.exposition)  # files with several workers
        return Response(body, media_type=metrics.CONTENT_TYPE)

    @r.get("/readyz")
    async def readyz() -> JSONResponse:
        """Readiness: 200 when this process can serve, else 503 with the reasons."""
        problems = await obs.problems()
        body: dict[str, Any] = {"ready": not problems}
        if problems:
            body["problems"] = problems
        return JSONResponse(body, status_code=503 if problems else 200)

    return r


def install_observability(
    app: FastAPI, hub: Hub, metrics_token: str | None, players: Players | None = None
) -> Observability:
    """Add the request context middleware (outermost, so every log line of a
    request carries its id) and the two routes; the caller starts and stops the
    returned :class:`Observability` with the app.  ``players``: its background
    services (pairing, challenges, tournaments) count for readiness."""
    obs = Observability(hub, metrics_token, players)
    app.add_middleware(RequestContextMiddleware)
    app.include_router(observability_router(obs))
    return obs
