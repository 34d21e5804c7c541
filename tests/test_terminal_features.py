"""The bot catalogue, the terminal game's features (takeback, play from a position,
resume, the ``position`` command, replay jumps, open positions) and regressions of
the defects of issue 9 in the terminal commands."""

from __future__ import annotations

import io
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from svoi_kozyri.bots import catalogue
from svoi_kozyri.bots.base import Agent, RandomAgent
from svoi_kozyri.bots.catalogue import (
    BotKind,
    BotSpecError,
    make_agent,
    split_specs,
    validate_spec,
)
from svoi_kozyri.cli.main import app
from svoi_kozyri.core import (
    CardError,
    Game,
    Observation,
    Rules,
    State,
    SvoiKozyriError,
    observe,
    parse_card,
)
from svoi_kozyri.notation.position import parse_position
from svoi_kozyri.records import GameRecord, read_records, write_records
from svoi_kozyri.tui.inputs import InputError, parse_input
from svoi_kozyri.tui.play import TableSetup, TerminalGame, make_seats
from svoi_kozyri.tui.prompter import StreamPrompter
from svoi_kozyri.tui.render import (
    SeatInfo,
    make_console,
    open_opponent,
    render_beats,
    render_board,
    to_text,
)

POS = "C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0"


def e1_step4() -> State:
    """SPEC E1 before step 4: D faces 9D on the pile 8H 6D QS 6H 9D."""
    state = parse_position(POS)
    for move in ("lead 8H", "beat 6D lead QS", "beat 6H lead 9D"):
        state.push_text(move)
    return state


def run_game(setup: TableSetup, lines: str) -> str:
    out = io.StringIO()
    console = make_console(file=out, width=80, color=False)
    prompter = StreamPrompter(io.StringIO(lines), out)
    game = TerminalGame(setup, console, prompter, sleep=lambda s: None)
    assert game.run() == 0
    return out.getvalue()


# --------------------------------------------------------------------------- the catalogue


class EchoAgent(RandomAgent):
    """A throw-away free-argument kind: remembers its argument."""

    name = "echo"

    def __init__(self, argument: str, seed: int | None = None) -> None:
        super().__init__(seed)
        self.argument = argument


@pytest.fixture
def echo_kind() -> Iterator[None]:
    catalogue.register(BotKind("echo", EchoAgent, "test kind", free_argument=True))
    yield
    catalogue.unregister("echo")


def test_levels_are_in_strength_order_and_menus_strongest_first() -> None:
    assert catalogue.levels() == ["easy", "medium", "hard", "expert"]
    order = catalogue.strength_order()
    assert order[:4] == ["expert", "hard", "medium", "easy"]
    assert order[4:] == ["heuristic", "greedy", "random"]
    assert "pimc" not in order and "ismcts" not in order  # need options: not in menus
    assert catalogue.strongest_bot() == "expert"
    assert catalogue.default_bot() == "medium"
    assert catalogue.cheap_bots() == {"random", "greedy", "heuristic", "easy", "medium"}
    assert catalogue.is_cheap("medium:per_card=3") and not catalogue.is_cheap("hard")
    assert [name for name, _ in catalogue.describe()] == order


def test_registering_a_level_is_one_entry() -> None:
    catalogue.register(BotKind("master", "levels:expert", "master: test", strength=5))
    try:
        assert catalogue.levels()[-1] == "master"
        assert catalogue.strongest_bot() == "master"
        assert "master" in catalogue.available_agents()
        assert split_specs("master,random") == ["master", "random"]
        assert make_agent("master:iterations=5", seed=1).choose is not None
    finally:
        catalogue.unregister("master")
    assert catalogue.strongest_bot() == "expert"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("heuristic, random", ["heuristic", "random"]),
        ("ismcts:iterations=200,c=1.4,random", ["ismcts:iterations=200,c=1.4", "random"]),
        ("expert:ms=50,rollout_turns=5", ["expert:ms=50,rollout_turns=5"]),
        ("Hard,medium", ["Hard", "medium"]),
    ],
)
def test_split_specs_keeps_options_with_their_bot(text: str, expected: list[str]) -> None:
    assert split_specs(text) == expected


def test_split_specs_keeps_commas_inside_a_free_argument(echo_kind: None) -> None:
    assert split_specs("echo:./bot --x a,b,medium") == ["echo:./bot --x a,b", "medium"]
    assert split_specs("echo:CMD a,b") == ["echo:CMD a,b"]
    assert split_specs("random,echo:run x=1,y,human", extra_names=["human"]) == [
        "random",
        "echo:run x=1,y",
        "human",
    ]


def test_a_free_argument_kind_gets_its_text(echo_kind: None) -> None:
    agent = make_agent("echo:./bot --depth 3,fast", seed=1)
    assert isinstance(agent, EchoAgent) and agent.argument == "./bot --depth 3,fast"
    with pytest.raises(BotSpecError, match="needs an argument"):
        validate_spec("echo")
    assert validate_spec(" echo:x ") == "echo:x"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("nosuch", "unknown bot 'nosuch'"),
        ("", "empty bot name"),
        ("random:x", "expected key=value"),
        ("heuristic:per_card=abc", "per_card"),
        ("expert:nonsense=1", "nonsense"),
        ("ismcts:ms=-1", "ms"),
    ],
)
def test_validate_spec_names_what_is_wrong(spec: str, words: str) -> None:
    with pytest.raises(BotSpecError, match=re.escape(words)) as info:
        validate_spec(spec)
    assert isinstance(info.value, SvoiKozyriError) and isinstance(info.value, ValueError)


def test_split_specs_refuses_empty_parts() -> None:
    with pytest.raises(BotSpecError, match="empty bot name"):
        split_specs("greedy,,random")


def test_make_agent_builds_every_listed_bot() -> None:
    for name in catalogue.strength_order():
        if name in ("expert", "hard"):
            agent: Agent = make_agent(f"{name}:iterations=5", seed=0)
        else:
            agent = make_agent(name, seed=0)
        assert isinstance(agent, Agent)


# --------------------------------------------------------------------------- defects


def test_hint_bot_is_checked_before_play() -> None:
    setup = TableSetup(Rules(), make_seats(["human", "random", "random", "random"]))
    setup.hint_bot = "heuristic:per_card=abc"
    with pytest.raises(BotSpecError, match="per_card"):
        TerminalGame(setup, make_console(file=io.StringIO()), StreamPrompter(io.StringIO()))


def test_play_hint_bot_error_comes_before_any_output() -> None:
    result = CliRunner().invoke(app, ["play", "--hint-bot", "nosuch", "--delay", "0"], input="")
    assert result.exit_code == 2
    assert result.output.startswith("error: unknown bot 'nosuch'")
    assert "Hand 1" not in result.output


def test_a_menu_number_means_only_the_menu_just_shown() -> None:
    setup = TableSetup(
        Rules(), make_seats(["human", "random", "random", "random"]), seed=4, delay=0
    )
    text = run_game(setup, "moves\npile\n1\nquit\n")
    assert "a number picks from the menu just shown" in text


def test_strict_lead_when_you_must_beat_gets_the_engine_message() -> None:
    obs = observe(e1_step4(), 3)
    with pytest.raises(InputError, match="you must beat 9D"):
        parse_input(obs, "lead js")
    with pytest.raises(InputError, match="you must lead another card"):
        parse_input(obs, "beat 7s")


def test_last_card_beat_says_you_go_out_on_a_defence() -> None:
    state = parse_position("C/D/H/S KS8H9C6C/QD/6H9DJC/7S6SAH8D TC B respond - - 0")
    text = to_text(render_beats(observe(state, 1)))
    assert "last card" in text and "go out on a defence" in text
    assert "then lead one card" not in text


class QuitAfterAHand(StreamPrompter):
    """Scripted moves; ``q`` at the prompt between hands."""

    def ask(self, message: str, words: object = ()) -> str:
        if "next hand" in message:
            self.outfile.write(message + "q\n")
            return "q"
        return super().ask(message)


def test_quit_between_hands_shows_the_standings() -> None:
    rules = Rules(num_players=2, loss_limit=3)
    setup = TableSetup(rules, make_seats(["human", "random"]), seed=1, delay=0)
    cards = [f"{r}{s}" for s in "SHDC" for r in "6789TJQKA"]
    out = io.StringIO()
    prompter = QuitAfterAHand(io.StringIO(("p\n" + "\n".join(cards) + "\n") * 300), out)
    game = TerminalGame(setup, make_console(file=out, width=80, color=False), prompter)
    assert game.run() == 0
    text = out.getvalue()
    tail = text[text.rindex("Game stopped.") :]
    assert "Score after 1 hand" in tail


def test_hot_seat_shows_the_dealer_line_to_every_person_after_clearing() -> None:
    rules = Rules(num_players=2, loss_limit=1)
    setup = TableSetup(rules, make_seats(["human", "human"]), seed=2, delay=0)
    text = run_game(setup, "\n" + "p\n" * 3 + "quit\n")
    confirm = text.index("your turn. Press Enter")
    assert "Dealer:" in text[confirm:]  # repeated after the screen was cleared


def test_besicovitch_header_says_there_is_no_draw_rule() -> None:
    rules = Rules(num_players=2, variant="besicovitch", loss_limit=1)
    setup = TableSetup(rules, make_seats(["random", "random"]), seed=1, delay=0)
    text = run_game(setup, "")
    header = text.split("=== Hand 1")[0]
    assert "no draw rule" in header and "draw rule lead_only" not in header


def test_parse_card_without_a_suit_says_the_suit_is_missing() -> None:
    with pytest.raises(CardError, match="has no suit"):
        parse_card("10")
    with pytest.raises(CardError, match="has no suit"):
        parse_card("q")


def test_records_on_an_empty_file_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("", encoding="utf-8")
    result = CliRunner().invoke(app, ["records", str(empty)])
    assert result.exit_code == 1
    assert result.output == f"error: {empty}: no game records in the file\n"


def test_scenarios_on_an_empty_folder_says_so(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["scenarios", str(tmp_path)])
    assert result.exit_code == 2
    assert "no scenario files" in result.output


def _finished_record(seed: int, n: int = 2) -> GameRecord:
    """A short finished hand: greedy players (random ones can play for a thousand turns)."""
    rng = random.Random(seed)
    state = Game(Rules(num_players=n)).new_hand(0, rng)
    greedy = make_agent("greedy", seed=seed)
    while not state.is_over:
        state.push(greedy.choose(observe(state, state.to_act)))
    assert state.turns < 200
    return GameRecord.from_state(state)


def test_analyse_a_one_viewer_record_for_that_seat(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    write_records(path, [_finished_record(3, n=3)], viewer=0)
    result = CliRunner().invoke(app, ["analyse", str(path), "--budget-ms", "2", "--seat", "A"])
    assert result.exit_code == 0, result.output
    assert "seat A:" in result.output and "seat B" not in result.output
    # without --seat it analyses the viewer's seat only
    result = CliRunner().invoke(app, ["analyse", str(path), "--budget-ms", "2"])
    assert result.exit_code == 0 and "seat B" not in result.output


def test_arena_creates_no_folder_for_a_bad_path(tmp_path: Path) -> None:
    target = tmp_path / "no" / "x.json"
    result = CliRunner().invoke(
        app, ["arena", "--seats", "random,random", "--hands", "2", "--json", str(target)]
    )
    assert result.exit_code == 2 and not (tmp_path / "no").exists()
    assert "hands" not in result.output  # no report: nothing was played


def test_arena_writes_a_new_plot_folder_inside_an_existing_one(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "arena",
            "--seats",
            "random,random",
            "--hands",
            "2",
            "--workers",
            "1",
            "-q",
            "--json",
            str(tmp_path / "r.json"),
            "--plot",
            str(tmp_path / "charts"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "r.json").is_file() and (tmp_path / "charts" / "durak_rate.png").is_file()


# --------------------------------------------------------------------------- features


def _setup(**kw: object) -> TableSetup:
    setup = TableSetup(
        Rules(),
        make_seats(["human", "greedy", "greedy", "greedy"]),
        seed=1,
        delay=0,
        **kw,  # type: ignore[arg-type]
    )
    return setup


def test_takeback_restores_the_position_before_your_move() -> None:
    start = parse_position(POS)
    setup = _setup(takeback=True, start=start, one_hand=True)
    text = run_game(setup, "undo\n8h\nundo\nposition\nquit\n")
    assert "nothing to take back" in text
    assert "Took back 4 move(s): lead 8H;" in text
    # after the takeback the person is at turn 1 again, with the start hand
    after = text[text.index("Took back") :]
    assert "Hand 1, turn 1: A You" in after
    assert "Position: C/D/H/S KS8H9C6C/?3/?3/?4 - A free - - 0" in after


def test_takeback_is_off_without_the_flag_and_in_hot_seat() -> None:
    text = run_game(_setup(start=parse_position(POS), one_hand=True), "8h\nundo\nquit\n")
    assert "takeback is off" in text and "Took back" not in text
    setup = TableSetup(
        Rules(),
        make_seats(["human", "human", "greedy", "greedy"]),
        delay=0,
        takeback=True,
        start=parse_position(POS),
        one_hand=True,
    )
    text = run_game(setup, "\n8h\n\nundo\nquit\n")
    assert "takeback is off in hot seat" in text


def test_play_from_a_position_plays_that_one_hand() -> None:
    result = CliRunner().invoke(
        app,
        ["play", "--position", POS, "--bot", "greedy", "--humans", "0", "--delay", "0"],
        input="",
    )
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "one hand from the given position" in flat
    assert "Hand over." in flat and "Session over" not in flat


def test_position_command_shows_only_what_the_player_knows() -> None:
    setup = _setup(start=parse_position(POS), one_hand=True)
    text = run_game(setup, "position\nquit\n")
    line = next(x for x in text.splitlines() if "Position:" in x)
    assert line.split("Position: ")[1] == "C/D/H/S KS8H9C6C/?3/?3/?4 - A free - - 0"


def test_quit_mid_hand_saves_it_unfinished_and_resume_goes_on(tmp_path: Path) -> None:
    save = tmp_path / "game.txt"
    setup = TableSetup(
        Rules(num_players=3, loss_limit=1),
        make_seats(["human", "greedy", "greedy"]),
        seed=5,
        delay=0,
        save=save,
        tags={"Seats": "human,greedy,greedy"},
    )
    run_game(setup, "moves\n1\nquit\n")
    recs = read_records(save)
    assert len(recs) == 1 and recs[0].result is None
    played = len(recs[0].moves)
    assert played >= 1 and "\n*\n" in save.read_text(encoding="utf-8")
    # resume through the command: it goes on from the saved turn and saves there
    lines = ("p\n" + "\n".join(f"{r}{s}" for s in "SHDC" for r in "6789TJQKA") + "\n") * 60
    result = CliRunner().invoke(app, ["play", "--resume", str(save), "--delay", "0"], input=lines)
    assert result.exit_code == 0, result.output
    assert f"Resuming hand 1 at turn {played + 1}." in result.output
    recs = read_records(save)
    assert recs[0].result is not None and len(recs[0].moves) > played


def test_replay_turn_and_jumps(tmp_path: Path) -> None:
    path = tmp_path / "g.txt"
    write_records(path, [_finished_record(4)])
    result = CliRunner().invoke(app, ["replay", str(path), "--turn", "3", "--all"])
    assert result.exit_code == 0, result.output
    assert re.search(r"Hand 1/1, turn 3/\d+:", result.output)
    assert "turn 2/" not in result.output and "turn 4/" not in result.output
    result = CliRunner().invoke(app, ["replay", str(path)], input="5\ne\ns\nq\n")
    heads = re.findall(r"Hand 1/1, turn (\d+)/(\d+)", result.output)
    last = heads[0][1]
    assert [t for t, _ in heads] == ["0", "5", last, "0"]


def _open_states() -> Iterator[tuple[State, int]]:
    rng = random.Random(7)
    for _ in range(40):
        state = Game(Rules(num_players=3)).new_hand(rng.randrange(3), rng)
        while not state.is_over:
            holders = [i for i, h in enumerate(state.hands) if h]
            if len(holders) == 2:
                yield state, state.to_act
                break
            state.push(rng.choice(state.legal_moves()))


def test_open_positions_show_the_opponents_hand() -> None:
    found = 0
    for state, seat in _open_states():
        obs: Observation = observe(state, seat)
        opened = open_opponent(obs)
        assert opened is not None
        opp, hand = opened
        assert hand == state.hands[opp]
        seats = [SeatInfo(f"p{i}", "random") for i in range(3)]
        text = to_text(render_board(obs, seats))
        assert "Open position: only you and" in text
        assert f"{'ABC'[opp]}'s hand (" in text
        found += 1
    assert found >= 5


def test_no_open_position_while_three_hold_cards() -> None:
    state = Game(Rules(num_players=3)).new_hand(0, 1)
    assert open_opponent(observe(state, 0)) is None
    text = to_text(render_board(observe(state, 0), [SeatInfo(f"p{i}") for i in range(3)]))
    assert "Open position" not in text
