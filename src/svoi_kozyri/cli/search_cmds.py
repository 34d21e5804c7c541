"""Search commands: ``solve`` (exact value of an open position) and ``analyse``
(where a player's result got worse in a recorded hand)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated

import typer

from ..core import SvoiKozyriError, parse_seat, seat_name

if TYPE_CHECKING:
    from ..bots.search.endgame import EndgameTables
    from ..core import Game, State


def register(app: typer.Typer) -> None:
    """Add the search commands to ``app``."""
    app.command("solve")(solve)
    app.command("analyse")(analyse)
    tables = typer.Typer(
        help="Exact endgame tables of small two-player positions (built by retrograde "
        "analysis, cached in the user's cache directory).",
        no_args_is_help=True,
    )
    tables.command("build")(tables_build)
    tables.command("path")(tables_path)
    app.add_typer(tables, name="tables")


def _fail(msg: str) -> typer.Exit:
    typer.echo(f"error: {msg}", err=True)
    return typer.Exit(2)


def solve(
    position: Annotated[str, typer.Argument(help="open position in the position notation")],
    time: Annotated[float, typer.Option("--time", min=0.01, help="time budget in seconds")] = 10.0,
    moves: Annotated[bool, typer.Option(help="also print the value of every legal move")] = False,
) -> None:
    """Solve an open position (at most two players hold cards): print the value for the
    player to act (win, draw or loss; the best proven bounds if time runs out) and the
    principal line."""
    from ..bots.search.solver import Solver, is_open, value_text
    from ..notation.position import parse_position

    try:
        state = parse_position(position)
    except SvoiKozyriError as e:
        raise _fail(str(e)) from None
    if state.is_over:
        raise _fail(f"the hand is already over: {state.outcome}")
    if not is_open(state):
        raise _fail(
            "not an open position: the solver needs at most two players holding cards "
            "(and a turn boundary, not mid-turn)"
        )
    if not math.isfinite(time) or time > 86_400:
        raise _fail(f"--time must be a number of seconds up to 86400, not {time}")
    solver = Solver(tables=_small_tables(state))
    res = solver.principal_line(state, time)
    who = seat_name(state.to_act)
    typer.echo(f"value for {who}: {value_text(res.value, res.lo, res.hi)}")
    if res.move is not None:
        typer.echo(f"best move: {res.move}")
    typer.echo(f"line: {' ; '.join(str(m) for m in res.pv) or '-'}")
    typer.echo(f"nodes {res.nodes}, depth {res.depth}, {res.seconds:.2f} s")
    if moves:
        for m, r in solver.move_bounds(state, time):
            typer.echo(f"  {m}: {value_text(r.value, r.lo, r.hi)}")


def analyse(
    record: Annotated[str, typer.Argument(help="record file (the project's record format)")],
    seat: Annotated[
        str | None, typer.Option(help="seat to analyse (A-D); default: every seat")
    ] = None,
    budget_ms: Annotated[
        float, typer.Option("--budget-ms", min=1.0, help="thinking time per turn (ms)")
    ] = 1000.0,
    index: Annotated[int, typer.Option(help="which record of the file (1 = first)", min=1)] = 1,
    threshold: Annotated[
        float, typer.Option(help="flag a move this much below the best (0..1)", min=0.0)
    ] = 0.1,
    seed: Annotated[int, typer.Option(help="seed of the sampling")] = 0,
) -> None:
    """Point out the turns of a recorded hand where a player's chance of not being the
    durak dropped (the move played was rated clearly below the best move)."""
    from ..bots.analysis import analyse_record
    from ..records import SPECTATOR
    from ..tui.replay import load_records, viewer_start

    try:
        recs = load_records(record)
    except SvoiKozyriError as e:
        raise _fail(str(e)) from None
    if index > len(recs):
        raise _fail(f"{record} holds {len(recs)} record(s), not {index}")
    rec = recs[index - 1]
    try:
        seats = [parse_seat(seat, rec.game.n)] if seat else list(range(rec.game.n))
    except SvoiKozyriError as e:
        raise _fail(str(e)) from None
    start = None
    if rec.viewer is not None:
        # A record written for one player hides the deal: only that player's own
        # turns can be rated, from a start that agrees with what they knew.
        if rec.viewer == SPECTATOR:
            raise _fail(f"{record}: written for a spectator, it holds no player's hand")
        if seat is not None and seats != [rec.viewer]:
            raise _fail(
                f"{record}: written for seat {seat_name(rec.viewer)}; it can be analysed "
                f"only for that seat (--seat {seat_name(rec.viewer)})"
            )
        seats = [rec.viewer]
        try:
            start = viewer_start(rec)
        except SvoiKozyriError as e:
            raise _fail(f"{record}: {e}") from None
    total = 0
    for s in seats:
        try:
            reviews = analyse_record(rec, s, budget_ms, threshold=threshold, seed=seed, start=start)
        except SvoiKozyriError as e:
            raise _fail(f"{record}: {e}") from None
        total += len(reviews)
        typer.echo(f"seat {seat_name(s)}: {len(reviews)} turn(s) where the result got worse")
        for r in reviews:
            typer.echo(f"  {r.describe()}")
    typer.echo(f"{total} flagged turn(s)")


def _small_tables(state: State) -> EndgameTables | None:
    """The cached endgame tables for a position small enough for them (built on
    first use; they take well under a second at the default size), else ``None``."""
    from ..bots.search.endgame import DEFAULT_CARDS, EndgameTables

    size = sum(h.bit_count() for h in state.hands) + len(state.pile_cards())
    if size > DEFAULT_CARDS:
        return None
    try:
        return EndgameTables.cached(state.game, DEFAULT_CARDS)
    except OSError:  # an unwritable cache: solve without tables
        return None


def _table_rules(besicovitch: bool, rule: list[str] | None) -> Game:
    from ..core import Game
    from .arena_cmds import build_rules

    try:
        return Game(build_rules(2, None, besicovitch, None, rule))
    except SvoiKozyriError as e:
        raise _fail(str(e)) from None


def tables_build(
    cards: Annotated[
        int, typer.Option("--cards", min=2, max=10, help="most cards in play (hands and pile)")
    ] = 5,
    besicovitch: Annotated[bool, typer.Option(help="the Besicovitch game")] = False,
    rule: Annotated[
        list[str] | None,
        typer.Option("--rule", help="rules option key=value (repeatable), e.g. draw_rule=none"),
    ] = None,
) -> None:
    """Build the endgame tables of one rules option set (every open two-player position
    of up to --cards cards) and cache them; print where and how big."""
    import time

    from ..bots.search.endgame import EndgameTables, TablesUnavailable, table_path

    game = _table_rules(besicovitch, rule)
    t0 = time.process_time()
    try:
        t = EndgameTables.build(game, cards)
    except TablesUnavailable as e:
        raise _fail(str(e)) from None
    path = table_path(game, cards)
    try:
        t.save(path)
    except OSError as e:
        raise _fail(f"{path}: {e.strerror or e}") from None
    secs = time.process_time() - t0
    typer.echo(f"{len(t.entries)} positions, longest forced result {t.max_distance} steps")
    typer.echo(f"built in {secs:.1f} CPU s: {path}")


def tables_path(
    cards: Annotated[int, typer.Option("--cards", min=2, max=10, help="most cards in play")] = 5,
    besicovitch: Annotated[bool, typer.Option(help="the Besicovitch game")] = False,
    rule: Annotated[
        list[str] | None, typer.Option("--rule", help="rules option key=value (repeatable)")
    ] = None,
) -> None:
    """Print the cache file of one rules option set's tables (and whether it exists)."""
    from ..bots.search.endgame import supported, table_path

    game = _table_rules(besicovitch, rule)
    why = supported(game)
    if why is not None:
        raise _fail(why)
    path = table_path(game, cards)
    typer.echo(f"{path} ({'built' if path.exists() else 'not built'})")
