"""``python -m svoi_kozyri.server``: run the server with test and benchmark knobs.

Same as ``svoi-kozyri serve`` plus ``--seed`` (reproducible table ids and deals),
``--no-rate-limits``, ``--idle-pause`` and ``--migrate``, used by the tests and
``bench/server_load.py`` to start a real server process.
"""

from __future__ import annotations

import argparse
import logging

import uvicorn

from .app import create_app
from .guard import Limits
from .scheduler import IDLE_PAUSE_S


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
    p.add_argument("--migrate", action="store_true", help="migrate the database first")
    args = p.parse_args(argv)
    logging.basicConfig(level=args.log_level.upper())
    limits = Limits.off() if args.no_rate_limits else None
    uvicorn.run(
        create_app(
            args.database,
            seed=args.seed,
            limits=limits,
            idle_pause_s=args.idle_pause,
            migrate=True if args.migrate else None,
        ),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws_max_size=64 * 1024,
        ws_per_message_deflate=False,
        ws_ping_interval=None,
    )


if __name__ == "__main__":
    main()
