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
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            max=64,
            help="server processes sharing the tables (needs PostgreSQL when above 1)",
        ),
    ] = 1,
) -> None:
    """Serve the web game: lobby, tables with bots and friends, spectators, replays."""
    from ..server.migrate import UnmigratedDatabaseError
    from ..server.run import WorkersNeedPostgresError, run_server

    url = database or default_database_url()
    typer.echo(f"svoi-kozyri web: http://{host}:{port}/  (database {_shown(url)})")
    try:
        run_server(url, host=host, port=port, workers=workers, log_level=log_level)
    except (UnmigratedDatabaseError, WorkersNeedPostgresError) as e:
        typer.echo(f"svoi-kozyri serve: {e}", err=True)
        raise typer.Exit(1) from None


def migrate(
    database: Annotated[
        str | None,
        typer.Option(help="SQLAlchemy URL (default: the SQLite file `serve` uses)"),
    ] = None,
) -> None:
    """Bring the web game's database to the newest schema (Alembic migrations)."""
    from sqlalchemy import create_engine
    from sqlalchemy.exc import SQLAlchemyError

    from ..server.migrate import upgrade

    url = database or default_database_url()
    try:
        engine = create_engine(url)
        try:
            before, after = upgrade(engine)
        finally:
            engine.dispose()
    except (SQLAlchemyError, ImportError, ValueError) as e:
        typer.echo(f"svoi-kozyri migrate: {type(e).__name__}: {e}".splitlines()[0], err=True)
        raise typer.Exit(1) from None
    was = "an empty database" if before is None else f"revision {before}"
    typer.echo(f"{_shown(url)}: {was} -> revision {after}")


def _shown(url: str) -> str:
    """The URL without its password."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(unreadable URL)"


def register(app: typer.Typer) -> None:
    """Add ``serve`` and ``migrate`` to ``app``."""
    app.command("serve")(serve)
    app.command("migrate")(migrate)
