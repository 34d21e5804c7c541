"""``svoi-kozyri serve``: run the web game (FastAPI + uvicorn)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..core import SvoiKozyriError


def default_database_url() -> str:
    """A SQLite file in the user's data directory (created if missing)."""
    from platformdirs import user_data_dir

    path = Path(user_data_dir("svoi-kozyri", appauthor=False)) / "web.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


class ServeOptionError(SvoiKozyriError, ValueError):
    """A ``serve`` option that cannot work (address, log level)."""


class DatabaseURLError(ServeOptionError):
    """A ``--database`` URL that cannot work: unparsable, unknown database, missing folder."""


def check_database_url(url: str) -> str:
    """Refuse a database URL that cannot work before the server starts (a bad one
    used to end in an SQLAlchemy traceback): it must parse, name an installed
    database driver, and a SQLite file's folder must exist.  Nothing is created."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise DatabaseURLError(
            f"--database {url!r} is not a database URL (e.g. sqlite:///games.db)"
        ) from None
    try:
        parsed.get_dialect().import_dbapi()
    except NoSuchModuleError:
        raise DatabaseURLError(
            f"--database {url!r}: unknown database {parsed.drivername!r} "
            "(use sqlite:///FILE or postgresql+psycopg://...)"
        ) from None
    except ImportError as e:
        raise DatabaseURLError(f"--database {url!r}: driver not installed ({e.name})") from None
    if parsed.get_backend_name() == "sqlite":
        db = parsed.database
        if db and db != ":memory:" and not db.startswith("file:"):
            folder = Path(db).expanduser().absolute().parent
            if not folder.is_dir():
                raise DatabaseURLError(f"--database {url!r}: the folder {folder} does not exist")
            if Path(db).is_dir():
                raise DatabaseURLError(f"--database {url!r}: {db} is a folder, not a file")
    return url


LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")


def check_listen(host: str, port: int) -> None:
    """Refuse an address the server could not listen on (a host that does not
    resolve, a port in use) before anything starts, with one clear line."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise ServeOptionError(f"--host {host!r}: unknown host") from None
    family, kind, proto, _name, addr = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(addr)
        except OSError as e:
            raise ServeOptionError(
                f"cannot listen on {host}:{port}: {(e.strerror or str(e)).lower()}"
            ) from None


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
    from sqlalchemy.exc import SQLAlchemyError

    from ..server.app import create_app

    if log_level.lower() not in LOG_LEVELS:
        raise ServeOptionError(f"--log-level must be one of {', '.join(LOG_LEVELS)}")
    check_listen(host, port)
    try:
        engines = parse_engines(engine or [])
    except ValueError as e:
        raise ServeOptionError(str(e)) from None
    url = check_database_url(database) if database is not None else default_database_url()
    try:
        web_app = create_app(url, engines=engines)
    except SQLAlchemyError as e:  # e.g. a PostgreSQL server that cannot be reached
        reason = " ".join(str(getattr(e, "orig", None) or e).split())
        raise DatabaseURLError(f"--database {url!r}: cannot open the database: {reason}") from None
    typer.echo(f"svoi-kozyri web: http://{host}:{port}/  (database {url})")
    uvicorn.run(
        web_app,
        host=host,
        port=port,
        log_level=log_level.lower(),
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

    from ..bots.catalogue import KINDS

    out: dict[str, str] = {}
    for item in items:
        name, eq, command = item.partition("=")
        name = name.strip()
        if not eq or not command.strip():
            raise ValueError(f"--engine {item!r}: expected NAME=COMMAND")
        if not re.fullmatch(r"[a-z][a-z0-9_-]{0,31}", name):
            raise ValueError(f"--engine {item!r}: NAME must be a lower-case word")
        if name in KINDS or name in out:
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
