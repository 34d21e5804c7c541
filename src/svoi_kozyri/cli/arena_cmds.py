"""The ``arena`` command: many hands between bots, with statistics, files and charts."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..core import Rules, RulesError, SvoiKozyriError
from ..core.rules import parse_option_value
from .extras import install_hint

if TYPE_CHECKING:
    from rich.console import Console


class BadInput(SvoiKozyriError, ValueError):
    """Command-line options that do not fit together; the message says which."""


#: ``--backend`` and ``--address``, shared by the commands that can run on Ray.
BackendOption = Annotated[
    str,
    typer.Option(help="local (worker processes) or ray (Ray tasks; same results for a seed)"),
]
AddressOption = Annotated[
    str | None,
    typer.Option(
        help="with --backend ray: an existing cluster (auto, HOST:6379, ray://HOST:10001); "
        "default: start a local Ray with --workers CPUs"
    ),
]


@contextmanager
def hand_progress(err: Console, total: int, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A transient progress bar of ``total`` hands on ``err`` (none with
    ``--quiet``), yielding the function that advances it by k hands: the arena and
    selfplay commands show the same bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        disable=quiet,
        transient=True,
    ) as bar:
        task = bar.add_task("hands", total=total)

        def advance(k: int) -> None:
            bar.advance(task, k)

        yield advance


def register(app: typer.Typer) -> None:
    """Add the ``arena`` command to ``app``."""
    app.command("arena")(arena)


def build_rules(
    players: int,
    pickup_rule: str | None,
    besicovitch: bool,
    draw_rule: str | None,
    rule: list[str] | None,
) -> Rules:
    """Rules from the command-line options (``--rule key=value`` may repeat)."""
    opts: dict[str, Any] = {"num_players": players}
    if besicovitch:
        opts["variant"] = "besicovitch"
    if pickup_rule is not None:
        opts["pickup_rule"] = pickup_rule
    if draw_rule is not None:
        opts["draw_rule"] = draw_rule
    for item in rule or []:
        key, eq, val = item.partition("=")
        if not eq or not key.strip():
            raise RulesError(f"bad --rule {item!r}: expected key=value, e.g. pickup_rule=fixed")
        opts[key.strip()] = parse_option_value(key.strip(), val)
    return Rules.from_dict(opts)


def arena(
    seats: Annotated[
        str | None,
        typer.Option(
            help="comma list of bot specs, one per seat, e.g. heuristic,random,random,random "
            "(options stay with their bot: ismcts:iterations=200,c=1.4,random)"
        ),
    ] = None,
    hands: Annotated[
        int,
        typer.Option(
            min=1,
            help="hands to play (rounded up to whole deals; each deal is played once per "
            "seat rotation); per table with --round-robin",
        ),
    ] = 400,
    players: Annotated[
        int | None,
        typer.Option(min=2, max=4, help="number of players (default: the number of --seats)"),
    ] = None,
    seed: Annotated[int, typer.Option(help="seed of the deals and the bots")] = 0,
    workers: Annotated[
        int | None, typer.Option(min=1, help="worker processes (default: all CPU cores)")
    ] = None,
    pickup_rule: Annotated[
        str | None, typer.Option(help="graded, fixed or whole_pile (SPEC C9)")
    ] = None,
    besicovitch: Annotated[
        bool, typer.Option("--besicovitch", help="the open two-player Besicovitch game (C3)")
    ] = False,
    draw_rule: Annotated[
        str | None, typer.Option(help="lead_only, any_last_card or none (SPEC C9)")
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option(help="any SPEC C9 option as key=value (repeatable)"),
    ] = None,
    round_robin: Annotated[
        str | None,
        typer.Option(
            "--round-robin",
            help="comma list of bots: play every table of them and rate them with OpenSkill",
        ),
    ] = None,
    json_path: Annotated[Path | None, typer.Option("--json", help="write figures as JSON")] = None,
    csv_path: Annotated[Path | None, typer.Option("--csv", help="write figures as CSV")] = None,
    plot: Annotated[Path | None, typer.Option(help="directory for PNG charts")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
    backend: BackendOption = "local",
    address: AddressOption = None,
) -> None:
    """Play many hands between bots (paired deals, seat rotation, all CPU cores) and report
    each bot's durak rate with a 95 % interval, first-out rate, draws, hand length and
    adjudicated hands."""
    from rich.console import Console

    from ..arena import run_arena, run_round_robin
    from ..arena.tournament import ArenaError, round_robin_lineups, total_hands
    from ..bots.catalogue import split_specs, validate_spec

    console = Console()
    if not console.is_terminal:
        console = Console(width=140)  # files and pipes: do not squeeze the table
    err = Console(stderr=True)
    if (seats is None) == (round_robin is None):
        raise BadInput("give either --seats or --round-robin")
    # Everything that can be wrong is checked before the first hand is dealt.
    bot_list = split_specs(seats if seats is not None else round_robin or "")
    for spec in dict.fromkeys(bot_list):
        validate_spec(spec)
    n = players or (len(bot_list) if seats is not None else 4)
    if besicovitch and players is None:
        n = 2
    rules = build_rules(n, pickup_rule, besicovitch, draw_rule, rule)
    if seats is not None and len(bot_list) != rules.num_players:
        raise BadInput(
            f"--seats lists {len(bot_list)} bots for {rules.num_players} players: "
            "list exactly one bot per seat"
        )
    if round_robin is not None and len(set(bot_list)) < 2:
        raise BadInput("--round-robin needs at least two different bots")
    _check_outputs(json_path, csv_path, plot, round_robin is not None)
    from ..arena.backends import make_backend

    make_backend(backend, workers=workers, address=address)  # BackendError before any hand
    tables = 1 if seats is not None else len(round_robin_lineups(bot_list, n))
    total = total_hands(rules, tables, hands)
    try:
        with hand_progress(err, total, quiet) as advance:
            if seats is not None:
                report = run_arena(
                    bot_list,
                    hands,
                    rules=rules,
                    seed=seed,
                    workers=workers,
                    progress=advance,
                    backend=backend,
                    address=address,
                )
            else:
                report = run_round_robin(
                    bot_list,
                    hands,
                    rules=rules,
                    seed=seed,
                    workers=workers,
                    progress=advance,
                    backend=backend,
                    address=address,
                )
    except ArenaError as e:
        err.print(f"[red]a bot failed:[/] {e}")
        raise typer.Exit(1) from None

    _print_report(console, report)
    _write_outputs(console, report, json_path, csv_path, plot)


def _check_outputs(
    json_path: Path | None, csv_path: Path | None, plot: Path | None, round_robin: bool
) -> None:
    """Refuse, before the first hand, output paths that cannot be written and the
    options whose extra is not installed (``--round-robin``: openskill; ``--plot``:
    matplotlib).

    Why apart: a long arena run must not fail at its end, when it writes."""
    from .paths import check_distinct, check_output_dir, check_output_file

    if json_path is not None:
        check_output_file(json_path, "--json")
    if csv_path is not None:
        check_output_file(csv_path, "--csv")
    check_distinct({"--json": json_path, "--csv": csv_path})
    if round_robin:
        try:
            import openskill  # noqa: F401
        except ImportError:
            raise BadInput(
                f"--round-robin needs the [bots] extra: {install_hint('bots')}"
            ) from None
    if plot is not None:
        check_output_dir(plot, "--plot")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise BadInput(f"--plot needs the [plots] extra: {install_hint('plots')}") from None


def _write_outputs(
    console: Any, report: Any, json_path: Path | None, csv_path: Path | None, plot: Path | None
) -> None:
    """Write the figures asked for: ``--json``, ``--csv`` and the ``--plot`` charts.

    Why apart: the files written after the report, each named on the console."""
    if json_path is not None:
        json_path.write_text(json.dumps(report.to_dict(), indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {json_path}")
    if csv_path is not None:
        with csv_path.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=list(report.CSV_FIELDS))
            writer.writeheader()
            writer.writerows(report.csv_rows())
        console.print(f"wrote {csv_path}")
    if plot is not None:
        from ..arena.plots import write_plots

        for path in write_plots(report, plot):
            console.print(f"wrote {path}")


def _print_report(console: Any, report: Any) -> None:
    from rich.table import Table

    s = report.summary()
    rr = report.round_robin
    table = Table(
        title=f"{s['hands']} hands ({s['deals']} deals x {report.rules.num_players} rotations"
        + (f" x {len(report.lineups)} tables" if rr else "")
        + f"), seed {report.seed}"
    )
    for col in ("bot", "hands", "durak", "95% CI", "1st out", "draws", "len", "adj"):
        table.add_column(col, justify="left" if col == "bot" else "right", no_wrap=True)
    if rr:
        for col in ("mu", "sigma", "ordinal"):
            table.add_column(col, justify="right")
    for name, st in report.bots.items():
        lo, hi = st.durak_ci95
        row = [
            name,
            str(st.hands),
            f"{st.durak_rate:.3f}",
            f"{lo:.3f}-{hi:.3f}",
            f"{st.first_out_rate:.3f}",
            str(st.draws),
            f"{st.mean_turns:.1f}",
            str(st.adjudicated),
        ]
        if rr:
            row += [f"{st.mu:.2f}", f"{st.sigma:.2f}", f"{st.ordinal:.2f}"]
        table.add_row(*row)
    console.print(table)
    console.print(
        f"draws {s['draws']}, adjudicated by the guards {s['adjudicated']}"
        f"{' ' + str(s['adjudicated_reasons']) if s['adjudicated'] else ''}, "
        f"hand length mean {s['mean_hand_length']:.1f} "
        f"median {s['median_hand_length']:.0f} max {s['max_hand_length']}, "
        f"{s['elapsed_s']:.1f} s ({s['hands_per_s']:.0f} hands/s, {report.workers} workers)"
    )
    for name, st in report.bots.items():
        if st.replaced:
            console.print(
                f"  {name}: {st.replaced} engine move(s) were illegal, late or lost to a "
                "crash and were replaced by the default action (docs/engine-protocol.md)"
            )
    for h in s["adjudicated_hands"][:10]:
        console.print(
            f"  adjudicated: deal {h['deal']} rotation {h['rotation']}: {h['reason']} after "
            f"{h['turns']} turns, still playing {', '.join(h['still_playing'])}"
        )
