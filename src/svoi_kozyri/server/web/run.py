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

import uvicorn
from sqlalchemy.engine import make_url

from ..edge.guard import Limits, check_origin, install_log_redaction, parse_proxies
from ..storage.store import Store
from ..table.scheduler import IDLE_PAUSE_S, UNATTENDED_DELAY_S
from .app import ENV_PREFIX, create_app

WS_MAX_SIZE = 64 * 1024
"""Largest WebSocket frame uvicorn accepts (messages themselves are limited to 2 KB)."""


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
) -> None:
    """Serve until interrupted (raises the database's errors before serving).

    ``trusted_proxies``: the reverse proxies (addresses or CIDR networks) whose
    ``X-Forwarded-For`` names the client (:class:`~.guard.TrustedProxyMiddleware`;
    uvicorn's own proxy headers, which trust 127.0.0.1, are off).
    ``public_origins``: the origins the pages are served at (the page policy's
    ``connect-src``).  Both are checked here, before anything starts."""
    install_log_redaction()
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
        )
        uvicorn.run(
            app,
            proxy_headers=False,
            host=host,
            port=port,
            log_level=log_level,
            ws_max_size=WS_MAX_SIZE,
            ws_per_message_deflate=False,  # compression cost more CPU than anything else
            ws_ping_interval=ws_ping_interval,
            ws_ping_timeout=ws_ping_interval,
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
    # the supervisor's pid: a worker still starting when the supervisor dies
    # would otherwise take its new parent (init) for the supervisor and live on
    os.environ[ENV_PREFIX + "SUPERVISOR"] = str(os.getpid())
    uvicorn.run(
        "svoi_kozyri.server.web.app:app_from_env",
        factory=True,
        proxy_headers=False,
        workers=workers,
        host=host,
        port=port,
        log_level=log_level,
        ws_max_size=WS_MAX_SIZE,
        ws_per_message_deflate=False,
        ws_ping_interval=ws_ping_interval,
        ws_ping_timeout=ws_ping_interval,
    )
