"""Terminal game commands: ``play`` (a session at one screen) and ``replay`` (a record).

With no arguments ``svoi-kozyri play`` seats you at A against three bots of the
strongest installed level, default rules, five losses make the durak.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..core import Rules, RulesError, SvoiKozyriError
from ..core.rules import parse_option_value

if TYPE_CHECKING:
    from ..core import State
    from ..records import GameRecord

_PICKUP_RULES = ("graded", "fixed", "whole_pile")
_DRAW_RULES = ("lead_only", "any_last_card", "none")


def register(app: typer.Typer) -> None:
    """Add ``play`` and ``replay`` to ``app``."""
    app.command("play")(play)
    app.command("replay")(replay)


class PlayOptionError(SvoiKozyriError, ValueError):
    """``play``/``replay`` options that do not fit together; the message says which."""


def _fail(message: str) -> PlayOptionError:
    return PlayOptionError(message)


def split_seats(text: str) -> list[str]:
    """``human,ismcts:iterations=200,rollouts=3,random`` -> one entry per seat
    (the catalogue's spec splitter, with ``human`` and its short forms as seats)."""
    from ..bots.catalogue import HUMAN_NAMES, split_specs

    return split_specs(text, extra_names=HUMAN_NAMES)


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
    opts.update(build_session_options(losses, points))
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
    takeback: Annotated[
        bool,
        typer.Option("--takeback", help="allow 'undo' of your last move (against bots only)"),
    ] = False,
    position: Annotated[
        str | None,
        typer.Option(help="play one hand from this position (the position notation)"),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option(help="go on with a game saved by --save (its unfinished hand first)"),
    ] = None,
) -> None:
    """Play Svoi Kozyri at the terminal against bots or friends (hot seat)."""
    from ..bots.catalogue import strongest_bot
    from ..tui.play import TableSetup, TerminalGame, make_seats
    from ..tui.prompter import default_prompter
    from ..tui.render import make_console

    if position is not None and resume is not None:
        raise _fail("give either --position or --resume, not both")
    rule_options = any(
        v not in (None, False, [])
        for v in (
            pickup_rule,
            fixed_pickup,
            besicovitch,
            blind_trumps,
            reassign,
            draw_rule,
            trumps_2p,
            table_pile,
            rule,
        )
    )
    start: State | None = None
    previous: list[GameRecord] = []
    saved_seats: list[str] | None = None
    if position is not None or resume is not None:
        if rule_options:
            what = "--position" if position is not None else "--resume"
            raise _fail(f"{what} brings its own rules: drop the rules options")
        previous, start, saved_seats = _saved_game(position, resume)
        if resume is not None and save is None:
            save = resume
        players = _saved_players(start, previous, players)
    seat_kinds: list[str] | None = None
    if seats is not None or (saved_seats is not None and humans is None and bot is None):
        seat_kinds = _listed_seats(seats, saved_seats, humans, players)
        players = len(seat_kinds)
    if start is not None or previous:
        rules = (start if start is not None else previous[-1].replay()).rules
        if losses is not None or points is not None:
            rules = Rules.from_dict(
                {
                    **rules.to_dict(),
                    **build_session_options(losses, points),
                }
            )
    else:
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
    n = rules.num_players
    if seat_kinds is None:
        k = 1 if humans is None else humans
        if k > n:
            raise _fail(f"--humans {k} but only {n} players")
        bot_spec = bot or strongest_bot()
        seat_kinds = ["human"] * k + [bot_spec] * (n - k)
    elif bot is not None:
        raise _fail("--bot fills the seats that are not people: give it without --seats")
    _validate_bots(seat_kinds, hint_bot)
    if save is not None:
        from .paths import check_output_file

        check_output_file(save, "--save")
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
        tags={"Seats": ",".join(seat_kinds)},
        takeback=takeback,
        start=start,
        one_hand=position is not None,
        previous=previous,
    )
    console = make_console(color=False if no_color else None)
    game = TerminalGame(setup, console, default_prompter())
    raise typer.Exit(game.run())


def _saved_game(
    position: str | None, resume: Path | None
) -> tuple[list[GameRecord], State | None, list[str] | None]:
    """The game ``--position`` or ``--resume`` brings: the finished hands, the
    state to play from (``None``: every hand is finished) and the saved seats.

    Why apart: both options bring their own rules and seats, read here."""
    if position is not None:
        return [], _start_position(position), None
    assert resume is not None
    return _resumed(resume)


def _saved_players(start: State | None, previous: list[GameRecord], players: int | None) -> int:
    """The player count of a saved game; ``--players`` may only repeat it."""
    game_rules = (start if start is not None else previous[-1].replay()).rules
    if players is not None and players != game_rules.num_players:
        raise _fail(f"--players {players}, but the game has {game_rules.num_players}")
    return game_rules.num_players


def _listed_seats(
    seats: str | None, saved_seats: list[str] | None, humans: int | None, players: int | None
) -> list[str]:
    """Who sits where, from ``--seats`` or the saved game: ``human`` or a bot spec
    per seat, 2 to 4 of them, agreeing with ``--players``.

    Why apart: the seats' checks, before the rules are built for their count."""
    from ..bots.catalogue import HUMAN_NAMES

    raw = split_seats(seats) if seats is not None else list(saved_seats or [])
    seat_kinds = ["human" if s.lower() in HUMAN_NAMES else s for s in raw]
    if humans is not None:
        raise _fail("give either --seats or --humans, not both")
    if players is not None and players != len(seat_kinds):
        raise _fail(f"--players {players} but --seats lists {len(seat_kinds)} seats")
    if not 2 <= len(seat_kinds) <= 4:
        raise _fail(f"--seats must list 2 to 4 seats, not {len(seat_kinds)}")
    return seat_kinds


def _validate_bots(seat_kinds: list[str], hint_bot: str | None) -> None:
    """Check every bot spec (the seats' and ``--hint-bot``) now, so a bad one fails
    before the first card is dealt."""
    from ..bots.catalogue import validate_spec

    for kind in dict.fromkeys(seat_kinds):
        if kind != "human":
            validate_spec(kind)
    if hint_bot is not None:
        validate_spec(hint_bot)


def build_session_options(losses: int | None, points: int | None) -> dict[str, Any]:
    """The session options of ``--losses`` / ``--points``."""
    if losses is not None and points is not None:
        raise RulesError("choose either --losses or --points, not both")
    if losses is not None:
        return {"session_mode": "losses", "loss_limit": losses}
    if points is not None:
        return {"session_mode": "points", "points_target": points}
    return {}


def _start_position(text: str) -> State:
    """The state of ``--position``; it must still be in play."""
    from ..notation.position import parse_position

    state = parse_position(text)
    if state.is_over:
        raise _fail(f"--position: the hand is already over ({state.outcome})")
    return state


def _resumed(path: Path) -> tuple[list[GameRecord], State | None, list[str] | None]:
    """The finished hands of a saved game, the state of its unfinished last hand
    (``None`` when every hand is finished) and the seats it was played with."""
    from ..tui.replay import load_records

    recs = load_records(path)
    for i, rec in enumerate(recs, 1):
        if rec.viewer is not None:
            raise _fail(f"{path}: hand {i} was written for one viewer; it cannot be resumed")
    if any(rec.result is None for rec in recs[:-1]):
        raise _fail(f"{path}: only the last hand of a file may be unfinished (result *)")
    finished = recs if recs[-1].result is not None else recs[:-1]
    start = None
    if recs[-1].result is None:
        start = recs[-1].replay()
        if start.is_over:
            raise _fail(f"{path}: the last hand is marked * but is over ({start.outcome})")
    tag = recs[-1].tags.get("Seats")
    seats = split_seats(tag) if tag else None
    return finished, start, seats


def replay(
    file: Annotated[Path, typer.Argument(help="game record file written by play --save")],
    all_: Annotated[
        bool, typer.Option("--all", help="print every turn at once instead of stepping")
    ] = False,
    hand: Annotated[
        int | None, typer.Option(min=1, help="only this hand of the file (1 = first)")
    ] = None,
    turn: Annotated[
        int | None,
        typer.Option(min=0, help="start at this turn (0 = the deal; with --all: show only it)"),
    ] = None,
    unicode: Annotated[bool, typer.Option("--unicode", help="show suits as ♠♥♦♣")] = False,
    no_color: Annotated[bool, typer.Option("--no-color", help="no colours (or set NO_COLOR)")] = (
        False
    ),
) -> None:
    """Step through a game record: Enter or n next, p previous, a number jumps to
    that turn, e to the end, q quit."""
    from ..tui.prompter import default_prompter
    from ..tui.render import make_console
    from ..tui.replay import Replayer, load_records

    records = load_records(file)
    if hand is not None:
        if hand > len(records):
            raise _fail(f"{file} holds {len(records)} hand(s), not {hand}")
        records = [records[hand - 1]]
    console = make_console(color=False if no_color else None)
    viewer = Replayer(records, console, unicode=unicode)
    first = viewer.find(turn) if turn is not None else 0
    if all_:
        raise typer.Exit(viewer.print_all(first, only=turn is not None))
    raise typer.Exit(viewer.step(default_prompter(), first))
