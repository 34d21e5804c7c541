"""``svoi-kozyri serve``: run the web game (FastAPI + uvicorn)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def default_database_url() -> str:
    """A SQLite file in the user's data directory (created if missing)."""
    from platformdirs import user_data_dir

    path = Path(user_data_dir("svoi-kozyri", appauthor=False)) / "web.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def serve(
    host: Annotated[str, typer.Option(help="interface to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port")] = 8000,
    database: Annotated[
        str | None,
        typer.Option(
            help="SQLAlchemy URL: sqlite:///path.db or postgresql+psycopg://user:pw@host/db "
            "(default: a SQLite file in the user's data directory)"
        ),
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level")] = "info",
    engine: Annotated[
        list[str] | None,
        typer.Option(
            help="offer an external engine as a bot: NAME=COMMAND (repeatable); players "
            "choose it by NAME, see docs/engine-protocol.md"
        ),
    ] = None,
) -> None:
    """Serve the web game: lobby, tables with bots and friends, spectators, replays."""
    import uvicorn

    from ..server.app import create_app

    try:
        engines = parse_engines(engine or [])
    except ValueError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    url = database or default_database_url()
    typer.echo(f"svoi-kozyri web: http://{host}:{port}/  (database {url})")
    uvicorn.run(
        create_app(url, engines=engines),
        host=host,
        port=port,
        log_level=log_level,
        ws_max_size=64 * 1024,
        ws_per_message_deflate=False,
        ws_ping_interval=20,
        ws_ping_timeout=20,
    )


def parse_engines(items: list[str]) -> dict[str, str]:
    """``NAME=COMMAND`` items as a mapping; a NAME is a new lower-case bot name and
    COMMAND must exist (ValueError with one clear message otherwise)."""
    import re
    import shlex
    import shutil

    from ..bots.base import REGISTRY

    out: dict[str, str] = {}
    for item in items:
        name, eq, command = item.partition("=")
        name = name.strip()
        if not eq or not command.strip():
            raise ValueError(f"--engine {item!r}: expected NAME=COMMAND")
        if not re.fullmatch(r"[a-z][a-z0-9_-]{0,31}", name):
            raise ValueError(f"--engine {item!r}: NAME must be a lower-case word")
        if name in REGISTRY or name == "engine" or name in out:
            raise ValueError(f"--engine {item!r}: the bot name {name!r} is already taken")
        try:
            args = shlex.split(command)
        except ValueError as e:
            raise ValueError(f"--engine {item!r}: {e}") from None
        if not args or shutil.which(args[0]) is None:
            raise ValueError(f"--engine {item!r}: command not found")
        out[name] = command.strip()
    return out


def register(app: typer.Typer) -> None:
    """Add ``serve`` to ``app``."""
    app.command("serve")(serve)
