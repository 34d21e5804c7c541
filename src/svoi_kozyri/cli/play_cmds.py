"""Terminal game commands: ``play`` (a session at one screen) and ``replay`` (a record).

With no arguments ``svoi-kozyri play`` seats you at A against three bots of the
strongest installed level, default rules, five losses make the durak.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..core import Rules, RulesError
from ..core.rules import parse_option_value

_PICKUP_RULES = ("graded", "fixed", "whole_pile")
_DRAW_RULES = ("lead_only", "any_last_card", "none")


def register(app: typer.Typer) -> None:
    """Add ``play`` and ``replay`` to ``app``."""
    app.command("play")(play)
    app.command("replay")(replay)


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(2)


def split_seats(text: str) -> list[str]:
    """``human,ismcts:iterations=200,rollouts=3,random`` -> one entry per seat: a
    comma part with ``=`` but no ``:`` continues the previous bot's options."""
    out: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "=" in part and ":" not in part and out:
            out[-1] += "," + part
        else:
            out.append(part)
    return out


def build_rules(
    *,
    players: int | None,
    pickup_rule: str | None,
    fixed_pickup_count: int | None,
    besicovitch: bool,
    blind_trumps: bool,
    reassign_each_hand: bool,
    draw_rule: str | None,
    trumps_2p: int | None,
    table_pile: bool,
    losses: int | None,
    points: int | None,
    extra: list[str],
) -> Rules:
    """The SPEC C9 rules from the command-line options (validated by ``Rules``)."""
    opts: dict[str, Any] = {}
    if players is not None:
        opts["num_players"] = players
    if besicovitch:
        opts["variant"] = "besicovitch"
    if pickup_rule is not None:
        if pickup_rule not in _PICKUP_RULES:
            raise RulesError(f"--pickup-rule must be one of {', '.join(_PICKUP_RULES)}")
        opts["pickup_rule"] = pickup_rule
    if fixed_pickup_count is not None:
        opts.setdefault("pickup_rule", "fixed")
        opts["fixed_pickup_count"] = fixed_pickup_count
    if blind_trumps:
        opts["suit_assignment"] = "blind"
    if reassign_each_hand:
        opts["suit_assignment"] = "blind"
        opts["reassign_each_hand"] = True
    if draw_rule is not None:
        if draw_rule not in _DRAW_RULES:
            raise RulesError(f"--draw-rule must be one of {', '.join(_DRAW_RULES)}")
        opts["draw_rule"] = draw_rule
    if trumps_2p is not None:
        opts["trumps_per_player_2p"] = trumps_2p
    if table_pile:
        opts["pile_visibility"] = "table"
    if losses is not None and points is not None:
        raise RulesError("choose either --losses or --points, not both")
    if losses is not None:
        opts["session_mode"] = "losses"
        opts["loss_limit"] = losses
    if points is not None:
        opts["session_mode"] = "points"
        opts["points_target"] = points
    for item in extra:
        key, eq, val = item.partition("=")
        if not eq or not key.strip():
            raise RulesError(f"--rule expects NAME=VALUE, not {item!r}")
        opts[key.strip()] = parse_option_value(key.strip(), val)
    return Rules.from_dict(opts)


def play(
    players: Annotated[
        int | None, typer.Option(min=2, max=4, help="number of players (default 4)")
    ] = None,
    seats: Annotated[
        str | None,
        typer.Option(
            help="who sits where, comma separated: 'human' or a bot spec, "
            "e.g. human,heuristic,human,random"
        ),
    ] = None,
    humans: Annotated[
        int | None, typer.Option(min=0, max=4, help="the first N seats are people (default 1)")
    ] = None,
    bot: Annotated[
        str | None, typer.Option(help="bot for the other seats (default: strongest installed)")
    ] = None,
    names: Annotated[str | None, typer.Option(help="display names, comma separated")] = None,
    pickup_rule: Annotated[
        str | None, typer.Option(help="graded (default), fixed or whole_pile")
    ] = None,
    fixed_pickup: Annotated[
        int | None, typer.Option(min=1, help="cards a refusal takes with --pickup-rule fixed")
    ] = None,
    besicovitch: Annotated[
        bool, typer.Option("--besicovitch", help="Besicovitch's open two-player game")
    ] = False,
    blind_trumps: Annotated[
        bool, typer.Option("--blind-trumps", help="assign the trump suits at random")
    ] = False,
    reassign: Annotated[
        bool, typer.Option("--reassign-each-hand", help="blind trumps drawn again every hand")
    ] = False,
    draw_rule: Annotated[
        str | None, typer.Option(help="lead_only (default), any_last_card or none")
    ] = None,
    trumps_2p: Annotated[
        int | None, typer.Option(min=1, max=2, help="trump suits each with 2 players")
    ] = None,
    table_pile: Annotated[
        bool, typer.Option("--table-pile", help="show only the top of the pile (A15.5)")
    ] = False,
    losses: Annotated[
        int | None, typer.Option(min=1, help="session ends at N losses (default 5)")
    ] = None,
    points: Annotated[
        int | None, typer.Option(min=1, help="points session: first out scores; to 5 or 10")
    ] = None,
    rule: Annotated[
        list[str] | None, typer.Option(help="any SPEC C9 option as NAME=VALUE (repeatable)")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="seed of the deals and the bots")] = None,
    save: Annotated[
        Path | None, typer.Option(help="write the game record to FILE after every hand")
    ] = None,
    delay: Annotated[float, typer.Option(min=0, help="seconds to pause after a bot move")] = 0.3,
    hint_bot: Annotated[
        str | None, typer.Option(help="bot giving hints (default: strongest installed)")
    ] = None,
    unicode: Annotated[bool, typer.Option("--unicode", help="show suits as ♠♥♦♣")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="no colours (or set NO_COLOR)")] = (
        False
    ),
) -> None:
    """Play Svoi Kozyri at the terminal against bots or friends (hot seat)."""
    from ..bots import REGISTRY
    from ..tui.play import TableSetup, TerminalGame, make_seats, strongest_bot
    from ..tui.prompter import default_prompter
    from ..tui.render import make_console

    seat_kinds: list[str] | None = None
    if seats is not None:
        seat_kinds = [
            "human" if s.lower() in ("human", "h", "me", "you") else s for s in split_seats(seats)
        ]
        if humans is not None:
            raise _fail("give either --seats or --humans, not both")
        if players is not None and players != len(seat_kinds):
            raise _fail(f"--players {players} but --seats lists {len(seat_kinds)} seats")
        if not 2 <= len(seat_kinds) <= 4:
            raise _fail(f"--seats must list 2 to 4 seats, not {len(seat_kinds)}")
        players = len(seat_kinds)
    try:
        rules = build_rules(
            players=players,
            pickup_rule=pickup_rule,
            fixed_pickup_count=fixed_pickup,
            besicovitch=besicovitch,
            blind_trumps=blind_trumps,
            reassign_each_hand=reassign,
            draw_rule=draw_rule,
            trumps_2p=trumps_2p,
            table_pile=table_pile,
            losses=losses,
            points=points,
            extra=rule or [],
        )
    except RulesError as e:
        raise _fail(str(e)) from None
    n = rules.num_players
    if seat_kinds is None:
        k = 1 if humans is None else humans
        if k > n:
            raise _fail(f"--humans {k} but only {n} players")
        bot_spec = bot or strongest_bot()
        seat_kinds = ["human"] * k + [bot_spec] * (n - k)
    for kind in seat_kinds:
        name = kind.partition(":")[0].lower()
        if kind != "human" and name not in REGISTRY and name != "engine":
            raise _fail(
                f"unknown bot {name!r} (choose from human, {', '.join(REGISTRY)}, engine:CMD)"
            )
    if save is not None and (save.is_dir() or not save.parent.is_dir()):
        raise _fail(f"--save {save}: not a file in an existing folder")
    name_list = [s.strip() for s in names.split(",")] if names else []
    if len(name_list) > n:
        raise _fail(f"--names lists {len(name_list)} names for {n} players")
    setup = TableSetup(
        rules=rules,
        seats=make_seats(seat_kinds, name_list),
        seed=seed,
        delay=delay,
        unicode=unicode,
        save=save,
        hint_bot=hint_bot,
    )
    console = make_console(color=False if no_color else None)
    try:
        game = TerminalGame(setup, console, default_prompter())
    except ValueError as e:
        raise _fail(str(e)) from None
    raise typer.Exit(game.run())


def replay(
    file: Annotated[Path, typer.Argument(help="game record file written by play --save")],
    all_: Annotated[
        bool, typer.Option("--all", help="print every turn at once instead of stepping")
    ] = False,
    hand: Annotated[
        int | None, typer.Option(min=1, help="only this hand of the file (1 = first)")
    ] = None,
    unicode: Annotated[bool, typer.Option("--unicode", help="show suits as ♠♥♦♣")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="no colours (or set NO_COLOR)")] = (
        False
    ),
) -> None:
    """Step through a game record: Enter or n next, p previous, q quit."""
    from ..tui.prompter import default_prompter
    from ..tui.render import make_console
    from ..tui.replay import Replayer, ReplayError, load_records

    try:
        records = load_records(file)
    except ReplayError as e:
        raise _fail(str(e)) from None
    if hand is not None:
        if hand > len(records):
            raise _fail(f"{file} holds {len(records)} hand(s), not {hand}")
        records = [records[hand - 1]]
    console = make_console(color=False if no_color else None)
    viewer = Replayer(records, console, unicode=unicode)
    raise typer.Exit(viewer.print_all() if all_ else viewer.step(default_prompter()))
