"""Engine-protocol commands: ``engine BOT`` (serve a bot over stdin/stdout) and
``engine-test CMD`` (conformance check of any engine)."""

from __future__ import annotations

import math
import sys
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    """Add the engine-protocol commands to ``app``."""
    app.command("engine")(engine)
    app.command("engine-test")(engine_test)


def engine(
    bot: Annotated[str, typer.Argument(help="bot spec, e.g. medium or ismcts:iterations=200")],
) -> None:
    """Serve BOT over the engine protocol on stdin/stdout (docs/engine-protocol.md)."""
    from ..engine_server import serve

    try:
        serve(bot, sys.stdin, sys.stdout)
    except ValueError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None


def engine_test(
    command: Annotated[str, typer.Argument(help="the engine's command line, quoted")],
    positions: Annotated[int, typer.Option(min=1, help="positions in the legal-move check")] = 40,
    timeout: Annotated[float, typer.Option(help="seconds an engine may take per answer")] = 5.0,
) -> None:
    """Check that COMMAND speaks the engine protocol: handshake, isready, legal
    moves on a fixed set of positions, stop latency, determinism under a node limit."""
    import shutil

    from ..protocol.client import _command
    from ..protocol.conformance import run_conformance

    try:
        args = _command(command)
    except ValueError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    if shutil.which(args[0]) is None:
        typer.echo(f"error: engine command not found: {args[0]!r} (in {command!r})", err=True)
        raise typer.Exit(2)
    if not math.isfinite(timeout) or timeout <= 0:
        typer.echo(
            f"error: --timeout must be a positive number of seconds, not {timeout}", err=True
        )
        raise typer.Exit(2)
    report = run_conformance(command, positions=positions, timeout=timeout, echo=typer.echo)
    typer.echo(report.summary())
    raise typer.Exit(0 if report.ok else 1)
