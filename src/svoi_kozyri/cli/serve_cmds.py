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
) -> None:
    """Serve the web game: lobby, tables with bots and friends, spectators, replays."""
    import uvicorn

    from ..server.app import create_app

    url = database or default_database_url()
    typer.echo(f"svoi-kozyri web: http://{host}:{port}/  (database {url})")
    uvicorn.run(
        create_app(url),
        host=host,
        port=port,
        log_level=log_level,
        ws_max_size=64 * 1024,
        ws_per_message_deflate=False,
        ws_ping_interval=20,
        ws_ping_timeout=20,
    )


def register(app: typer.Typer) -> None:
    """Add ``serve`` to ``app``."""
    app.command("serve")(serve)
