"""Run the server with uvicorn: one process, or ``workers`` processes sharing the tables.

With ``workers > 1`` uvicorn's supervisor starts that many processes on one
listening socket (and restarts one that dies); each builds its app with
:func:`~.app.app_from_env` from environment variables, and they share the tables
through PostgreSQL (:mod:`.cluster`).  SQLite serves one process only.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

import uvicorn
from sqlalchemy.engine import make_url
from uvicorn.config import LOG_LEVELS

from ..edge.guard import Limits, check_origin, install_log_redaction, parse_proxies
from ..platform.tournaments import parse_schedule
from ..runtime import drain, logs, metrics
from ..storage.store import Store
from ..table.scheduler import IDLE_PAUSE_S, UNATTENDED_DELAY_S
from .app import ENV_PREFIX, create_app

WS_MAX_SIZE = 64 * 1024
"""Largest WebSocket frame uvicorn accepts (messages themselves are limited to 2 KB)."""
WORKER_READY_S = 30
"""How long a new worker may take to start (imports, the database, loading the
tables) before the supervisor gives up on it; a rolling restart (SIGHUP) waits
for each new worker this long.  uvicorn's default, 5 s, aborted rolling
restarts on a busy machine (bench/hosts.py, 8 tables on 2 cores)."""


class WorkersNeedPostgresError(ValueError):
    """``--workers`` above 1 with a database that cannot be shared."""


def run_server(
    database_url: str,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    log_level: str = "info",
    seed: int | None = None,
    rate_limits: bool = True,
    idle_pause_s: float = IDLE_PAUSE_S,
    unattended_delay_s: float = UNATTENDED_DELAY_S,
    migrate: bool | None = None,
    ws_ping_interval: float | None = 20.0,
    engines: dict[str, str] | None = None,
    trusted_proxies: Sequence[str] = (),
    public_origins: Sequence[str] = (),
    tournaments: Sequence[str] = (),
    log_format: str = "text",
    metrics_token: str | None = None,
) -> None:
    """Serve until interrupted (raises the database's errors before serving).

    ``trusted_proxies``: the reverse proxies (addresses or CIDR networks) whose
    ``X-Forwarded-For`` names the client (:class:`~.guard.TrustedProxyMiddleware`;
    uvicorn's own proxy headers, which trust 127.0.0.1, are off).
    ``public_origins``: the origins the pages are served at (the page policy's
    ``connect-src``).  ``tournaments``: built-in scheduled tournaments
    (``arena:hourly:4p``).  All are checked here, before anything starts.
    ``log_format``: ``text`` (uvicorn's lines) or ``json`` (one object a line,
    :mod:`..runtime.logs`).  ``metrics_token``: the bearer token ``/metrics``
    asks for (docs/observability.md)."""
    if log_format not in logs.LOG_FORMATS:
        raise ValueError(f"log format {log_format!r}: choose from {', '.join(logs.LOG_FORMATS)}")
    log_options: dict[str, Any] = {}
    if log_format == "json":
        logs.use_json(LOG_LEVELS[log_level])
        log_options["log_config"] = logs.log_config(LOG_LEVELS[log_level])
    install_log_redaction()
    for spec in tournaments:
        parse_schedule(spec)  # ValueError names what is wrong
    parse_proxies(trusted_proxies)
    origins = [check_origin(o) for o in public_origins]
    if workers <= 1:
        app = create_app(
            database_url,
            seed=seed,
            limits=None if rate_limits else Limits.off(),
            idle_pause_s=idle_pause_s,
            unattended_delay_s=unattended_delay_s,
            migrate=migrate,
            engines=engines,
            trusted_proxies=trusted_proxies,
            public_origins=origins,
            tournaments=tournaments,
            metrics_token=metrics_token,
        )
        uvicorn.run(
            app,
            **log_options,
            proxy_headers=False,
            host=host,
            port=port,
            log_level=log_level,
            ws_max_size=WS_MAX_SIZE,
            ws_per_message_deflate=False,  # compression cost more CPU than anything else
            ws_ping_interval=ws_ping_interval,
            ws_ping_timeout=ws_ping_interval,
            timeout_graceful_shutdown=drain.DRAIN_S,
        )
        return
    if make_url(database_url).get_backend_name() != "postgresql":
        raise WorkersNeedPostgresError(
            "several worker processes share the tables through PostgreSQL; "
            "SQLite serves one process (use --workers 1)"
        )
    Store(database_url, migrate=migrate).close()  # migrate or refuse once, here
    os.environ[ENV_PREFIX + "DATABASE"] = database_url
    os.environ[ENV_PREFIX + "ENGINES"] = json.dumps(engines or {})
    os.environ[ENV_PREFIX + "NO_RATE_LIMITS"] = "0" if rate_limits else "1"
    os.environ[ENV_PREFIX + "IDLE_PAUSE"] = str(idle_pause_s)
    os.environ[ENV_PREFIX + "UNATTENDED_DELAY"] = str(unattended_delay_s)
    os.environ[ENV_PREFIX + "TRUSTED_PROXIES"] = json.dumps(list(trusted_proxies))
    os.environ[ENV_PREFIX + "PUBLIC_ORIGINS"] = json.dumps(origins)
    os.environ[ENV_PREFIX + "TOURNAMENTS"] = json.dumps(list(tournaments))
    # the supervisor's pid: a worker still starting when the supervisor dies
    # would otherwise take its new parent (init) for the supervisor and live on
    os.environ[ENV_PREFIX + "SUPERVISOR"] = str(os.getpid())
    os.environ[ENV_PREFIX + "METRICS_TOKEN"] = metrics_token or ""
    os.environ[ENV_PREFIX + "LOG_FORMAT"] = log_format
    # every worker keeps its metrics in files here; a scrape merges them all
    with metrics.multiproc_dir():
        uvicorn.run(
            "svoi_kozyri.server.web.app:app_from_env",
            factory=True,
            proxy_headers=False,
            workers=workers,
            timeout_worker_healthcheck=WORKER_READY_S,
            host=host,
            port=port,
            log_level=log_level,
            ws_max_size=WS_MAX_SIZE,
            ws_per_message_deflate=False,
            ws_ping_interval=ws_ping_interval,
            ws_ping_timeout=ws_ping_interval,
            timeout_graceful_shutdown=drain.DRAIN_S,
            **log_options,
        )
