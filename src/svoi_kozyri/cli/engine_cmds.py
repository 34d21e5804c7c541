"""Engine commands: ``scenarios``, ``perft`` and ``demo``."""

from __future__ import annotations

import random
from typing import Annotated

import typer

from ..core import Game, Rules, SvoiKozyriError, format_cards, seat_name
from ..core.perft import perft, perft_divide


def register(app: typer.Typer) -> None:
    """Add the engine commands to ``app``."""
    app.command("scenarios")(scenarios)
    # "-1" must reach the depth check, not be taken for an unknown option.
    app.command("perft", context_settings={"ignore_unknown_options": True})(perft_cmd)
    app.command("demo")(demo)


def scenarios(
    paths: Annotated[list[str], typer.Argument(help="scenario files or directories")],
) -> None:
    """Run rules scenario files (svoi-kozyri-scenarios/1): PASS/FAIL per scenario."""
    from ..scenarios import ScenarioFormatError, expand_paths, load_file, run_paths

    files = expand_paths(paths)
    if not files:  # only folders, none with a scenario file: nothing would run
        where = ", ".join(map(str, paths))
        raise ScenarioFormatError(f"{where}: no scenario files (*.json) in the folder")
    if len(paths) == 1 and len(files) == 1:  # one file that cannot be read: one error line
        try:
            load_file(files[0])
        except ScenarioFormatError as e:
            raise ScenarioFormatError(f"{files[0]}: {e}") from None
    passed = failed = 0
    for outcome in run_paths(paths):
        typer.echo(outcome.line())
        if outcome.ok:
            passed += 1
        else:
            failed += 1
    typer.echo(f"{passed} passed, {failed} failed")
    raise typer.Exit(1 if failed or not passed else 0)


#: Deepest perft the command runs.  Counts grow exponentially with the depth, so
#: deeper runs could not finish anyway; the bound also keeps the recursion shallow.
MAX_PERFT_DEPTH = 100


class PerftDepthError(SvoiKozyriError, ValueError):
    """A perft depth below 0 or above :data:`MAX_PERFT_DEPTH`."""


def perft_cmd(
    position: Annotated[str, typer.Argument(help="position in the project's notation (FEN-like)")],
    depth: Annotated[
        int, typer.Argument(help=f"number of turn-level moves (0 to {MAX_PERFT_DEPTH})")
    ],
    divide: Annotated[bool, typer.Option(help="print the count below each first move")] = False,
) -> None:
    """Count the sequences of DEPTH turn-level moves from POSITION."""
    from ..notation.position import parse_position

    if depth < 0:
        raise PerftDepthError(f"depth must be >= 0, not {depth}")
    if depth > MAX_PERFT_DEPTH:
        raise PerftDepthError(f"depth must be at most {MAX_PERFT_DEPTH}, not {depth}")
    state = parse_position(position)
    if divide:
        for move, count in perft_divide(state, depth).items():
            typer.echo(f"{move}: {count}")
    typer.echo(perft(state, depth))


def demo(
    players: Annotated[int, typer.Option(min=2, max=4, help="number of players")] = 4,
    seed: Annotated[int | None, typer.Option(help="seed of the deal and of the bots")] = None,
) -> None:
    """Play and print one full hand between random bots."""
    rng = random.Random(seed)
    game = Game(Rules(num_players=players))
    state = game.new_hand(dealer=rng.randrange(players), seed=rng)
    for i, h in enumerate(state.hands):
        typer.echo(f"{seat_name(i)} owns {game.owners_str()[seat_name(i)]}: {format_cards(h)}")
    while not state.is_over:
        seat = state.to_act
        move = rng.choice(state.legal_moves())
        state.push(move)
        typer.echo(f"{seat_name(seat)}: {move}")
    typer.echo(f"result: {state.outcome}")
