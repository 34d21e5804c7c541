"""``svoi-kozyri calibrate-bots``: rate the web server's bot accounts from an arena
round robin, so that a newcomer sees how strong each level plays before anybody
has played it (docs/web.md, accounts and ratings)."""

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


def register(app: typer.Typer) -> None:
    """Add ``calibrate-bots`` to ``app``."""
    app.command("calibrate-bots")(calibrate_bots)
