"""Notation commands: ``position`` (read and explain a position) and ``records``
(check a record file, or write it for one viewer)."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Annotated

import typer

from ..core import PHASE_NAMES, SvoiKozyriError, format_cards, parse_seat, seat_name


def register(app: typer.Typer) -> None:
    """Add the notation commands to ``app``."""
    app.command("position")(position_cmd)
    app.command("records")(records_cmd)


def position_cmd(
    position: Annotated[str, typer.Argument(help="position in the project's notation")],
) -> None:
    """Check a position and show it: the normalised notation, hands, pile and legal moves."""
    from ..core import LEAD
    from ..notation.position import format_position, format_rules, parse_position

    try:
        state = parse_position(position)
    except SvoiKozyriError as e:
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2) from None
    typer.echo(format_position(state))
    owners = state.game.owners_str()
    for seat in range(state.n):
        name = seat_name(seat)
        typer.echo(f"{name} owns {owners[name] or '-'}: {format_cards(state.hands[seat]) or '-'}")
    typer.echo(f"pile (bottom to top): {format_cards(state.pile_cards()) or '-'}")
    if state.discard:
        typer.echo(f"discard: {format_cards(state.discard)}")
    typer.echo(f"rules: {format_rules(state.rules)}")
    if state.is_over:
        typer.echo(f"over: {state.outcome}")
        return
    typer.echo(f"{seat_name(state.to_act)} to act ({PHASE_NAMES[state.phase]})")
    if state.phase == LEAD:
        moves = [f"lead {format_cards([a])}" for a in state.legal_actions()]
    else:
        moves = [str(m) for m in state.legal_moves()]
    typer.echo(f"{len(moves)} legal: {', '.join(moves)}")


def records_cmd(
    path: Annotated[str, typer.Argument(help="a file of game records")],
    viewer: Annotated[
        str | None,
        typer.Option(help="write the records for this seat (A-D) or 'spectator' instead"),
    ] = None,
) -> None:
    """Check every record of a file by replaying it, or write it for one viewer."""
    from ..records import SPECTATOR, format_result_token, write_record
    from ..tui.replay import load_records

    if not Path(path).exists():  # a missing file is a usage error (exit 2), like replay's
        raise FileNotFoundError(errno.ENOENT, "no such file", str(path))
    try:
        recs = load_records(path)
    except SvoiKozyriError as e:  # a file that is not a good record file: exit 1
        typer.echo(f"error: {e}", err=True)
        raise typer.Exit(1) from None
    if viewer is not None:
        try:
            who = SPECTATOR if viewer.lower() == "spectator" else parse_seat(viewer)
            texts = [write_record(rec, viewer=who) for rec in recs]
        except SvoiKozyriError as e:
            typer.echo(f"error: {e}", err=True)
            raise typer.Exit(2) from None
        typer.echo("\n".join(texts), nl=False)
        return
    for i, rec in enumerate(recs, 1):
        label = rec.tags.get("Hand", str(i))
        start = "deal" if rec.deck is not None else "position"
        typer.echo(
            f"record {i} (hand {label}): {rec.game.n} players, {start}, "
            f"{len(rec.moves)} turns, {format_result_token(rec.result)}"
        )
    typer.echo(f"{len(recs)} record(s) OK")
