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


def probe_database(url: str) -> None:
    """Connect once to a database *server* (not a SQLite file, which ``serve`` may
    create) so that an unreachable one is one error line before anything starts."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    if make_url(url).get_backend_name() == "sqlite":
        return
    engine = create_engine(url, connect_args={"connect_timeout": 10})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except SQLAlchemyError as e:
        reason = " ".join(str(getattr(e, "orig", None) or e).split())
        raise DatabaseURLError(
            f"--database {_shown(url)}: cannot open the database: {reason}"
        ) from None
    finally:
        engine.dispose()


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
    engine: Annotated[
        list[str] | None,
        typer.Option(
            help="offer an external engine as a bot: NAME=COMMAND (repeatable); players "
            "choose it by NAME, see docs/engine-protocol.md"
        ),
    ] = None,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            help="a reverse proxy (address or CIDR network, repeatable) whose "
            "X-Forwarded-For names the client; none by default (the header is ignored)"
        ),
    ] = None,
    public_origin: Annotated[
        list[str] | None,
        typer.Option(
            help="an origin the pages are served at, e.g. https://cards.example.org "
            "(repeatable; the page policy's connect-src, 'self' by default)"
        ),
    ] = None,
    tournament: Annotated[
        list[str] | None,
        typer.Option(
            help="a built-in scheduled tournament KIND:EVERY:Np[:LENGTH], e.g. "
            "arena:hourly:4p or swiss:daily:2p:5r (repeatable; docs/web.md, Tournaments)"
        ),
    ] = None,
    log_format: Annotated[
        str, typer.Option(help="log lines: text, or json (one object a line)")
    ] = "text",
    metrics_token: Annotated[
        str | None,
        typer.Option(
            envvar="SVOI_KOZYRI_METRICS_TOKEN",
            show_envvar=True,
            help="GET /metrics asks for 'Authorization: Bearer TOKEN' (by default it is "
            "open: bind or proxy it privately, docs/observability.md)",
        ),
    ] = None,
) -> None:
    """Serve the web game: lobby, tables with bots and friends, spectators, replays."""
    from sqlalchemy.exc import SQLAlchemyError

    from ..server.storage.migrate import UnmigratedDatabaseError
    from ..server.web.run import WorkersNeedPostgresError, run_server

    if log_level.lower() not in LOG_LEVELS:
        raise ServeOptionError(f"--log-level must be one of {', '.join(LOG_LEVELS)}")
    from ..server.runtime.logs import LOG_FORMATS

    if log_format not in LOG_FORMATS:
        raise ServeOptionError(f"--log-format must be one of {', '.join(LOG_FORMATS)}")
    check_listen(host, port)
    try:
        engines = parse_engines(engine or [])
    except ValueError as e:
        raise ServeOptionError(str(e)) from None
    from ..server.edge.guard import check_origin, parse_proxies

    try:
        parse_proxies(trusted_proxy or [])
        for origin in public_origin or []:
            check_origin(origin)
        from ..server.platform.tournaments import parse_schedule

        for spec in tournament or []:
            parse_schedule(spec)
    except ValueError as e:
        raise ServeOptionError(str(e)) from None
    url = check_database_url(database) if database is not None else default_database_url()
    probe_database(url)
    typer.echo(f"svoi-kozyri web: http://{host}:{port}/  (database {_shown(url)})")
    try:
        run_server(
            url,
            host=host,
            port=port,
            workers=workers,
            log_level=log_level.lower(),
            engines=engines,
            trusted_proxies=trusted_proxy or [],
            public_origins=public_origin or [],
            tournaments=tournament or [],
            log_format=log_format,
            metrics_token=metrics_token or None,
        )
    except (UnmigratedDatabaseError, WorkersNeedPostgresError) as e:
        typer.echo(f"svoi-kozyri serve: {e}", err=True)
        raise typer.Exit(1) from None
    except SQLAlchemyError as e:  # e.g. a PostgreSQL server that cannot be reached
        reason = " ".join(str(getattr(e, "orig", None) or e).split())
        shown = _shown(url)
        raise DatabaseURLError(f"--database {shown}: cannot open the database: {reason}") from None


def migrate(
    database: Annotated[
        str | None,
        typer.Option(help="SQLAlchemy URL (default: the SQLite file `serve` uses)"),
    ] = None,
) -> None:
    """Bring the web game's database to the newest schema (Alembic migrations)."""
    from sqlalchemy import create_engine
    from sqlalchemy.exc import SQLAlchemyError

    from ..server.storage.migrate import upgrade

    url = check_database_url(database) if database is not None else default_database_url()
    try:
        engine = create_engine(url)
        try:
            before, after = upgrade(engine)
        finally:
            engine.dispose()
    except (SQLAlchemyError, ImportError, ValueError) as e:
        reason = " ".join(str(getattr(e, "orig", None) or e).split())
        raise DatabaseURLError(
            f"--database {_shown(url)}: cannot open the database: {reason}"
        ) from None
    was = "an empty database" if before is None else f"revision {before}"
    typer.echo(f"{_shown(url)}: {was} -> revision {after}")


def _shown(url: str) -> str:
    """The URL without its password."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(unreadable URL)"


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
    """Add ``serve`` and ``migrate`` to ``app``."""
    app.command("serve")(serve)
    app.command("migrate")(migrate)
