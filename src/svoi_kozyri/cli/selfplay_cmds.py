"""The ``selfplay`` command: hands between bots written as Parquet training data."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..core import RulesError
from .arena_cmds import AddressOption, BackendOption


def register(app: typer.Typer) -> None:
    """Add the ``selfplay`` command to ``app``."""
    app.command("selfplay")(selfplay)


def selfplay(
    bots: Annotated[
        str,
        typer.Option(
            help="comma list of bot specs, one per seat (repeated to fill the seats), "
            "e.g. heuristic,greedy or ismcts:iterations=200,c=1.4,medium"
        ),
    ],
    out: Annotated[Path, typer.Option(help="output directory (Parquet files, meta.json)")],
    hands: Annotated[int, typer.Option(min=1, help="hands to play")] = 100,
    players: Annotated[int, typer.Option(min=2, max=4, help="number of players")] = 4,
    seed: Annotated[int, typer.Option(help="seed of the deals and the bots")] = 0,
    workers: Annotated[
        int | None, typer.Option(min=1, help="worker processes (default: all CPU cores)")
    ] = None,
    chunk_size: Annotated[int, typer.Option(min=1, help="hands per file pair")] = 50,
    rotate: Annotated[
        bool, typer.Option(help="rotate the bots over the seats from hand to hand")
    ] = True,
    observations: Annotated[
        bool, typer.Option(help="store the observation tensors (else zeros)")
    ] = True,
    rule: Annotated[
        list[str] | None,
        typer.Option(help="any SPEC C9 option as key=value (repeatable)"),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
    backend: BackendOption = "local",
    address: AddressOption = None,
) -> None:
    """Play HANDS hands between BOTS on all cores (or a Ray cluster) and write one
    Parquet row per decision and one per hand into OUT (see docs/envs.md);
    deterministic for a seed, whatever the backend."""
    from rich.console import Console

    from ..arena import split_bot_list
    from .arena_cmds import build_rules, hand_progress

    err = Console(stderr=True)
    try:
        from ..envs.selfplay import SelfPlayConfig, run_selfplay
    except ImportError as e:  # the optional extra is missing
        err.print(f"[red]error:[/] selfplay needs the [envs] extra ({e.name} is missing)")
        raise typer.Exit(2) from None
    if out.exists() and not out.is_dir():
        typer.echo(f"error: --out {out}: not a directory (an existing file)", err=True)
        raise typer.Exit(2)
    if not out.exists() and not out.absolute().parent.is_dir():
        typer.echo(
            f"error: --out {out}: the folder {out.absolute().parent} does not exist", err=True
        )
        raise typer.Exit(2)
    try:
        rules = build_rules(players, None, False, None, rule)
        config = SelfPlayConfig(
            bots=tuple(split_bot_list(bots)),
            rules=rules.to_dict(only_changed=True),
            hands=hands,
            seed=seed,
            chunk_size=chunk_size,
            rotate=rotate,
            observations=observations,
        )
        with hand_progress(err, hands, quiet) as advance:
            path = run_selfplay(
                config,
                out,
                workers,
                progress=advance,
                backend=backend,
                address=address,
            )
    except (ValueError, RulesError) as e:
        # one unwrapped line, like every command's errors (cli/main.py)
        typer.echo(f"error: {' '.join(str(e).split())}", err=True)
        raise typer.Exit(2) from None
    typer.echo(f"wrote {hands} hands in {config.num_chunks} chunk(s) to {path}")
