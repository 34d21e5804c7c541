"""``svoi-kozyri calibrate-bots``: rate the web server's bot accounts from an arena
round robin, so that a newcomer sees how strong each level plays before anybody
has played it (docs/web.md, accounts and ratings).  ``svoi-kozyri account role``:
make an account an admin or a moderator (docs/web.md, moderation)."""

from __future__ import annotations

from typing import Annotated

import typer


def calibrate_bots(
    database: Annotated[
        str | None,
        typer.Option(help="the server's SQLAlchemy URL (default: the SQLite file `serve` uses)"),
    ] = None,
    bots: Annotated[
        str, typer.Option(help="bots to rate, comma-separated")
    ] = "random,greedy,heuristic,easy,medium",
    players: Annotated[str, typer.Option(help="player counts, comma-separated")] = "2,3,4",
    hands: Annotated[int, typer.Option(min=1, help="hands per round-robin table")] = 200,
    seed: Annotated[int, typer.Option(help="seed of the arena deals")] = 0,
    workers: Annotated[
        int | None, typer.Option(min=1, help="arena processes (default: every core)")
    ] = None,
    force: Annotated[
        bool, typer.Option(help="also overwrite bots that already have rated web games")
    ] = False,
) -> None:
    """Rate the bots' accounts of a web server database from an arena round robin."""
    from ..server.platform.calibrate import CalibrationError, calibrate
    from .serve_cmds import check_database_url, default_database_url, probe_database

    url = check_database_url(database) if database is not None else default_database_url()
    probe_database(url)
    try:
        for line in calibrate(
            url,
            [b.strip() for b in bots.split(",") if b.strip()],
            players,
            hands,
            seed=seed,
            workers=workers,
            force=force,
        ):
            typer.echo(line)
    except CalibrationError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None


def account_role(
    name: Annotated[str, typer.Argument(help="the account's user name")],
    role: Annotated[str, typer.Argument(help="admin, moderator or none")],
    database: Annotated[
        str | None,
        typer.Option(help="the server's SQLAlchemy URL (default: the SQLite file `serve` uses)"),
    ] = None,
) -> None:
    """Give an account a role on the web server (written to the audit log)."""
    from ..server.platform.moderation import ModerationError, set_role_by_name
    from ..server.storage.store import Store
    from .serve_cmds import check_database_url, default_database_url, probe_database

    if role not in ("admin", "moderator", "none"):
        typer.echo("error: the role is admin, moderator or none", err=True)
        raise typer.Exit(2)
    url = check_database_url(database) if database is not None else default_database_url()
    probe_database(url)
    store = Store(url)
    try:
        username = set_role_by_name(
            store.engine,
            name,
            None if role == "none" else role,  # type: ignore[arg-type]
        )
    except ModerationError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    finally:
        store.close()
    typer.echo(f"{username}: {role}")


def register(app: typer.Typer) -> None:
    """Add ``calibrate-bots`` and ``account role`` to ``app``."""
    app.command("calibrate-bots")(calibrate_bots)
    account = typer.Typer(help="Web server accounts.", no_args_is_help=True)
    account.command("role")(account_role)
    app.add_typer(account, name="account")
