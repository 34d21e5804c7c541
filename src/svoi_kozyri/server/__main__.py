"""``python -m svoi_kozyri.server``: run the server with test and benchmark knobs.

Same as ``svoi-kozyri serve`` plus ``--seed`` (reproducible table ids and deals),
``--no-rate-limits``, ``--idle-pause``, ``--unattended-delay`` and ``--migrate``,
used by the tests and ``bench/server_load.py`` to start a real server process.
"""

from __future__ import annotations

import argparse
import logging

from .table.scheduler import IDLE_PAUSE_S, UNATTENDED_DELAY_S
from .web.run import run_server


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments and run uvicorn until interrupted."""
    p = argparse.ArgumentParser(prog="python -m svoi_kozyri.server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--database", required=True, help="SQLAlchemy URL")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--log-level", default="warning")
    p.add_argument("--no-rate-limits", action="store_true", help="switch the per-client limits off")
    p.add_argument("--idle-pause", type=float, default=IDLE_PAUSE_S, help="seconds")
    p.add_argument(
        "--unattended-delay",
        type=float,
        default=UNATTENDED_DELAY_S,
        help="least seconds between automatic actions while no human is connected",
    )
    p.add_argument("--migrate", action="store_true", help="migrate the database first")
    p.add_argument("--workers", type=int, default=1, help="processes (PostgreSQL)")
    p.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        help="a reverse proxy (address or CIDR) whose X-Forwarded-For is believed (repeatable)",
    )
    p.add_argument(
        "--public-origin",
        action="append",
        default=[],
        help="an origin the pages are served at, e.g. https://cards.example.org (repeatable)",
    )
    p.add_argument(
        "--tournament",
        action="append",
        default=[],
        help="a built-in scheduled tournament, e.g. arena:hourly:4p (repeatable)",
    )
    p.add_argument("--log-format", choices=["text", "json"], default="text")
    p.add_argument("--metrics-token", default=None, help="bearer token GET /metrics asks for")
    args = p.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper())
    run_server(
        args.database,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level=args.log_level,
        seed=args.seed,
        rate_limits=not args.no_rate_limits,
        idle_pause_s=args.idle_pause,
        unattended_delay_s=args.unattended_delay,
        migrate=True if args.migrate else None,
        ws_ping_interval=None,
        trusted_proxies=args.trusted_proxy,
        public_origins=args.public_origin,
        tournaments=args.tournament,
        log_format=args.log_format,
        metrics_token=args.metrics_token,
    )


if __name__ == "__main__":
    main()
