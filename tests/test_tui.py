"""Unit tests of the terminal game: rendering (80 columns, no escapes without colour,
no hidden cards), forgiving input, completion, the session loop and the CLI options."""

from __future__ import annotations

import dataclasses
import io
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from typer.testing import CliRunner

from svoi_kozyri.cli.main import app
from svoi_kozyri.cli.play_cmds import build_rules, split_seats
from svoi_kozyri.core import (
    NUM_CARDS,
    PICKUP_MOVE,
    Game,
    Move,
    Observation,
    Rules,
    State,
    format_card,
    iter_cards,
    observe,
    parse_cards,
    seat_name,
)
from svoi_kozyri.notation import position_from_text
from svoi_kozyri.records import GameRecord, read_records, write_records
from svoi_kozyri.tui.inputs import (
    Command,
    InputError,
    MoveCompleter,
    completion_words,
    parse_input,
    short_notation,
)
from svoi_kozyri.tui.play import TableSetup, TerminalGame, make_seats, strongest_bot
from svoi_kozyri.tui.prompter import StreamPrompter
from svoi_kozyri.tui.render import (
    SeatInfo,
    make_console,
    open_opponent,
    render_board,
    render_hand,
    render_log,
    render_pile,
    render_players,
    render_refusal,
    to_text,
)
from svoi_kozyri.tui.replay import Replayer, ReplayError, load_records

ANSI = re.compile(r"\x1b\[")
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])(10|[5-9JQKA])([SHDC♠♥♦♣])(?![A-Za-z0-9])")
PT_OWNERS = {"A": "C", "B": "D", "C": "H", "D": "S"}


def seats_for(n: int) -> list[SeatInfo]:
    return [SeatInfo("You")] + [SeatInfo("bot", "random") for _ in range(n - 1)]


def e1_step4() -> State:
    """SPEC E1 before step 4: D faces 9D on the pile 8H 6D QS 6H 9D."""
    game = Game(Rules(), PT_OWNERS)
    state = position_from_text(
        game, {"A": "KS 8H 9C 6C", "B": "QS 10H 6D", "C": "6H 9D JC", "D": "7S 6S AH 8D"}, "", "A"
    )
    for move in ("lead 8H", "beat 6D lead QS", "beat 6H lead 9D"):
        state.push_text(move)
    return state


def random_states(rules: Rules, seed: int, every: int = 6, hands: int = 3) -> Iterator[State]:
    """States along seeded random hands (at most 120 turns each), for property checks."""
    rng = random.Random(seed)
    game = Game(rules)
    for _ in range(hands):
        state = game.new_hand(rng.randrange(rules.num_players), rng)
        k = 0
        while not state.is_over and k < 120:
            if k % every == 0:
                yield state.copy()
            state.push(rng.choice(state.legal_moves()))
            k += 1
        yield state.copy()


def board_text(obs: Observation, n: int, unicode: bool = False) -> str:
    parts = [
        render_board(obs, seats_for(n), unicode=unicode, header="Hand 1"),
        render_log(obs, seats_for(n), unicode, last=None),
        render_pile(obs, unicode, full=True),
    ]
    return "".join(to_text(p) for p in parts)


def cards_in(text: str) -> set[int]:
    out = set()
    for m in CARD_TOKEN.finditer(text):
        suit = "SHDC"["SHDC♠♥♦♣".index(m.group(2)) % 4]
        out.add(parse_cards(m.group(1) + suit))
    return {c.bit_length() - 1 for c in out}


# --------------------------------------------------------------------------- rendering


RULE_SETS = [
    Rules(),
    Rules(num_players=3),
    Rules(num_players=2),
    Rules(num_players=4, pickup_rule="fixed", pile_visibility="table"),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.num_players}p-{r.pickup_rule}")
@pytest.mark.parametrize("unicode", [False, True])
def test_board_never_shows_hidden_cards_of_other_seats(rules: Rules, unicode: bool) -> None:
    checked = 0
    opened_seen: set[int] = set()
    for state in random_states(rules, seed=11):
        for seat in range(rules.num_players):
            obs = observe(state, seat)
            shown = cards_in(board_text(obs, rules.num_players, unicode))
            opened = open_opponent(obs)
            for other in range(rules.num_players):
                if other == seat:
                    continue
                if opened is not None and opened[0] == other:
                    # only two hold cards: the other hand is public, and must be right
                    assert opened[1] == state.hands[other]
                    opened_seen.add(rules.num_players)
                    continue
                hidden = state.hands[other] & ~state.known_cards(other)
                leaked = [format_card(c) for c in iter_cards(hidden) if c in shown]
                assert not leaked, f"seat {seat} sees {other}'s hidden {leaked}"
                checked += 1
    if rules.num_players == 2 and rules.pile_visibility != "table":
        assert opened_seen  # two hands: the other hand is always public
    else:
        assert checked > 100


def test_own_hand_is_shown_completely() -> None:
    state = e1_step4()
    obs = observe(state, 3)
    text = to_text(render_hand(obs))
    assert cards_in(text) == set(iter_cards(state.hands[3]))


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: f"{r.num_players}p-{r.pickup_rule}")
def test_board_fits_80_columns_and_has_no_escapes_without_colour(rules: Rules) -> None:
    for state in random_states(rules, seed=5, every=11):
        obs = observe(state, 0)
        text = board_text(obs, rules.num_players, unicode=True)
        assert not ANSI.search(text)
        for line in text.splitlines():
            assert len(line) <= 80, line
        # the layout itself fits: rendered on a wide console, the table rows and hand
        # lines stay within 80 columns (only long card lists such as the pile wrap)
        long_names = [SeatInfo("X" * 40, "heuristic")] * rules.num_players
        wide = to_text(render_players(obs, long_names), width=200)
        wide += to_text(render_hand(obs), width=200)
        for line in wide.splitlines():
            assert len(line) <= 80, line


def test_colour_output_does_have_escapes() -> None:
    """The no-escape check above can fail: with colour on, styles are emitted."""
    obs = observe(e1_step4(), 3)
    assert ANSI.search(to_text(render_board(obs, seats_for(4)), color=True))


def test_no_color_environment_turns_every_escape_off(monkeypatch: pytest.MonkeyPatch) -> None:
    obs = observe(e1_step4(), 3)
    monkeypatch.setenv("NO_COLOR", "1")
    buf = io.StringIO()
    console = make_console(file=buf, width=80)
    console._force_terminal = True  # as on a real terminal
    console.print(render_board(obs, seats_for(4)))
    assert "Your hand" in buf.getvalue()
    assert not ANSI.search(buf.getvalue())
    monkeypatch.delenv("NO_COLOR")
    buf2 = io.StringIO()
    console2 = make_console(file=buf2, width=80)
    console2._force_terminal = True
    console2._color_system = console2._detect_color_system()
    console2.print(render_board(obs, seats_for(4)))
    assert ANSI.search(buf2.getvalue())


def test_beatable_cards_are_bracketed() -> None:
    obs = observe(e1_step4(), 3)  # D: 7S 6S AH 8D facing 9D; D owns spades
    text = to_text(render_board(obs, seats_for(4)))
    assert re.findall(r"\[(\w+)\]", text) == ["7S", "6S"]
    assert "S yours" in text
    assert "Beat 9D with [ ]: 7S 6S" in text


def test_refusal_cost_names_the_cards_and_the_new_top() -> None:
    obs = observe(e1_step4(), 3)
    assert to_text(render_refusal(obs)).strip() == ("Refusing picks up 3: 9D 6H QS; new top 6D")


def test_top_card_and_ownership_are_relative_to_the_viewer() -> None:
    state = e1_step4()
    d_view = to_text(render_pile(observe(state, 3)))
    assert "top 9D (B's trump, plain for you)" in d_view
    b_view = to_text(render_pile(observe(state, 1)))
    assert "top 9D (your trump)" in b_view


def test_table_visibility_shows_only_the_pickup_window() -> None:
    game = Game(Rules(pile_visibility="table"), PT_OWNERS)
    state = position_from_text(
        game, {"A": "KS 8H 9C 6C", "B": "QS 10H 6D", "C": "6H 9D JC", "D": "7S 6S AH 8D"}, "", "A"
    )
    for move in ("lead 8H", "beat 6D lead QS", "beat 6H lead 9D"):
        state.push_text(move)
    full = to_text(render_pile(observe(state, 3), full=True))
    assert "bottom..top: ... 6D QS 6H 9D" in full
    assert "8H" not in full
    assert "(1 older card face down)" in full
    spectator = dataclasses.replace(observe(state, 3), seat=None)
    assert "bottom..top: 8H 6D QS 6H 9D" in to_text(render_pile(spectator, full=True))


def test_log_shows_pickups_with_their_cards_and_outs() -> None:
    state = e1_step4()
    state.push_text("pickup")
    text = to_text(render_log(observe(state, 0), seats_for(4), last=None))
    assert "D bot: pickup 3: QS 6H 9D" in text
    assert "C bot: beat 6H lead 9D" in text
    game = Game(Rules(), PT_OWNERS)
    st = position_from_text(
        game, {"A": "9C", "B": "7D 8D", "C": "6H 9D", "D": "7S"}, "8H", "A", "respond"
    )
    st.push_text("beat 9C")
    text = to_text(render_log(observe(st, 1), seats_for(4)))
    assert "A You: beat 9C  (out on a defence)" in text


# --------------------------------------------------------------------------- input


def test_forgiving_input_gives_legal_moves() -> None:
    obs = observe(e1_step4(), 3)
    assert parse_input(obs, "6s ah") == Move.parse("beat 6S lead AH")
    assert parse_input(obs, "  beat 7S lead 8D ") == Move.parse("beat 7S lead 8D")
    assert parse_input(obs, "7♠ 8♦") == Move.parse("beat 7S lead 8D")
    for text in ("p", "P", "take", "pickup"):
        assert parse_input(obs, text) is PICKUP_MOVE
    assert parse_input(obs, "?") == Command("help")
    assert parse_input(obs, "History") == Command("log")
    menu = obs.legal_moves()
    assert parse_input(obs, "2", menu) == menu[1]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "type a move"),
        ("hello", "'hello' is not a card or command"),
        ("8d", "name two cards"),
        ("8d 7s", "8D does not beat 9D for you"),
        ("ks 7s", "KS is not in your hand"),
        ("6s 6s", "different cards"),
        ("6s 7s 8d", "type one card"),
        ("3", "menu just shown"),
    ],
)
def test_wrong_input_gets_a_specific_message(text: str, message: str) -> None:
    state = e1_step4()
    before = repr(state)
    with pytest.raises(InputError, match=message):
        parse_input(observe(state, 3), text)
    assert repr(state) == before


def test_menu_number_out_of_range() -> None:
    obs = observe(e1_step4(), 3)
    with pytest.raises(InputError, match="from 1 to 7"):
        parse_input(obs, "99", obs.legal_moves())


def test_free_lead_refuses_pickup_and_accepts_one_card() -> None:
    game = Game(Rules(), PT_OWNERS)
    state = position_from_text(
        game, {"A": "KS 8H 9C 6C", "B": "QS 10H 6D", "C": "6H 9D JC", "D": "7S 6S AH 8D"}, "", "A"
    )
    obs = observe(state, 0)
    assert parse_input(obs, "8h") == Move.parse("lead 8H")
    with pytest.raises(InputError, match="nothing to pick up"):
        parse_input(obs, "p")
    with pytest.raises(InputError, match="not your turn"):
        parse_input(observe(state, 1), "qs")


def test_completion_offers_legal_moves_by_prefix() -> None:
    obs = observe(e1_step4(), 3)
    words = completion_words(obs)
    shorts = {short_notation(m) for m in obs.legal_moves()}
    assert shorts <= {w for w, _ in words}
    completer = MoveCompleter(words)
    got = [c.text for c in completer.get_completions(Document("6s"), CompleteEvent())]
    assert got == ["6S 7S", "6S AH", "6S 8D"]
    got = [c.text for c in completer.get_completions(Document("beat 7"), CompleteEvent())]
    assert got == ["beat 7S lead 6S", "beat 7S lead AH", "beat 7S lead 8D"]
    assert "pile" in [c.text for c in completer.get_completions(Document("pi"), CompleteEvent())]


# --------------------------------------------------------------------------- the loop


def scripted_lines(repeats: int = 3000) -> io.StringIO:
    """Answers for a person who picks up when they can and otherwise leads the first
    card of the deck order they hold: 'p' then every card, over and over (after a
    look at the known cards)."""
    cards = [format_card(c) for c in range(NUM_CARDS)]
    return io.StringIO("known\n" + ("p\n" + "\n".join(cards) + "\n") * repeats)


def run_game(setup: TableSetup, infile: io.StringIO) -> str:
    out = io.StringIO()
    console = make_console(file=out, width=80, color=False)
    game = TerminalGame(setup, console, StreamPrompter(infile, out), sleep=lambda s: None)
    assert game.run() == 0
    return out.getvalue()


def test_session_against_bots_runs_to_the_overall_durak() -> None:
    rules = Rules(loss_limit=2)
    setup = TableSetup(rules, make_seats(["human", "random", "random", "random"]), seed=7)
    text = run_game(setup, scripted_lines())
    assert "=== Hand 1 ===" in text
    assert "Session over. Overall durak:" in text
    assert "Durak (loser):" in text
    assert "A You: pickup" in text
    assert "Cards known to be in other hands:" in text  # from the 'known' command
    assert "! " in text  # the scripted wrong inputs were answered with messages
    assert not ANSI.search(text)


def test_session_is_reproducible_from_the_seed() -> None:
    rules = Rules(num_players=3, loss_limit=1)
    kinds = ["human", "random", "random"]
    a = run_game(TableSetup(rules, make_seats(kinds), seed=3), scripted_lines())
    b = run_game(TableSetup(rules, make_seats(kinds), seed=3), scripted_lines())
    assert a == b


def test_points_session_names_the_winner() -> None:
    rules = Rules(num_players=2, session_mode="points", points_target=2)
    setup = TableSetup(rules, make_seats(["random", "random"]), seed=1)
    text = run_game(setup, io.StringIO(""))
    assert "first to 2 points" in text
    assert re.search(r"Winner: [AB] random", text)


def test_hot_seat_asks_for_confirmation_and_shows_only_the_owners_hand() -> None:
    rules = Rules(num_players=3, loss_limit=1)
    setup = TableSetup(rules, make_seats(["human", "human", "random"]), seed=2)
    text = run_game(setup, scripted_lines())
    confirms = re.findall(r"(\w) Player \1: your turn\. Press Enter", text)
    assert {"A", "B"} <= set(confirms)
    # every board is preceded by its owner's confirmation
    for m in re.finditer(r"Hand \d+, turn \d+: (\w) Player", text):
        before = text[: m.start()]
        last_confirm = before.rfind("your turn. Press Enter")
        assert last_confirm >= 0
        assert before[last_confirm - 12 : last_confirm].strip().startswith(m.group(1))


def test_quit_stops_cleanly() -> None:
    setup = TableSetup(Rules(), make_seats(["human", "random", "random", "random"]), seed=4)
    text = run_game(setup, io.StringIO("board\nlog\npile\nmoves\nquit\n"))
    assert text.rstrip().endswith("Game stopped.")
    assert "1. " in text  # the menu


def test_hint_uses_a_bot_on_the_observation() -> None:
    setup = TableSetup(Rules(), make_seats(["human", "random", "random", "random"]), seed=4)
    game = TerminalGame(setup, make_console(file=io.StringIO()), StreamPrompter(io.StringIO()))
    obs = observe(e1_step4(), 3)
    hint = game.hint(obs)
    assert f"Hint ({strongest_bot()}):" in hint
    move_text = hint.split("= ")[1]
    assert Move.parse(move_text) in obs.legal_moves()


# --------------------------------------------------------------------------- the CLI


def test_split_seats_keeps_bot_options_together() -> None:
    assert split_seats("human, ismcts:iterations=20,rollouts=2 ,random") == [
        "human",
        "ismcts:iterations=20,rollouts=2",
        "random",
    ]


def test_build_rules_maps_the_options() -> None:
    r = build_rules(
        players=3,
        pickup_rule=None,
        fixed_pickup_count=4,
        besicovitch=False,
        blind_trumps=True,
        reassign_each_hand=False,
        draw_rule="none",
        trumps_2p=None,
        table_pile=False,
        losses=None,
        points=10,
        extra=["equal_rank_beats=also"],
    )
    assert (r.num_players, r.pickup_rule, r.fixed_pickup_count) == (3, "fixed", 4)
    assert (r.suit_assignment, r.draw_rule, r.session_mode, r.points_target) == (
        "blind",
        "none",
        "points",
        10,
    )
    assert r.equal_rank_beats == "also"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--losses", "2", "--points", "5"], "either --losses or --points"),
        (["--seats", "human,wizard"], "unknown bot 'wizard'"),
        (["--players", "3", "--seats", "human,random"], "--players 3 but --seats lists 2"),
        (["--pickup-rule", "all"], "--pickup-rule must be one of"),
        (["--rule", "colour=red"], "unknown rules option"),
        (["--besicovitch", "--players", "4"], "two-player game"),
        (["--humans", "3", "--players", "2"], "--humans 3 but only 2 players"),
        (["--save", "/nonexistent-dir/x.txt"], "the folder /nonexistent-dir does not exist"),
    ],
)
def test_cli_rejects_bad_options_clearly(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["play", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_cli_plays_a_bot_session_through_a_pipe() -> None:
    result = CliRunner().invoke(
        app,
        [
            *("play", "--humans", "0", "--bot", "random", "--seed", "9", "--losses", "1"),
            *("--delay", "0", "--players", "3", "--blind-trumps"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Session over." in result.output
    assert "trumps blind" in result.output


# --------------------------------------------------------------------------- replay


def recorded_session(tmp_path: Path, viewer: int | None = None) -> tuple[Path, list[GameRecord]]:
    """A seeded bot session saved with --save, optionally rewritten for one viewer."""
    path = tmp_path / "game.txt"
    rules = Rules(loss_limit=1)
    setup = TableSetup(rules, make_seats(["random"] * 4), seed=12, save=path)
    run_game(setup, io.StringIO(""))
    recs = read_records(path)
    if viewer is not None:
        path = tmp_path / f"viewer{viewer}.txt"
        write_records(path, recs, viewer=viewer)
    return path, recs


def test_saved_record_replays_to_the_played_result(tmp_path: Path) -> None:
    path, recs = recorded_session(tmp_path)
    assert recs and all(r.result is not None for r in recs)
    assert recs[-1].result is not None and recs[-1].result.loser is not None
    out = io.StringIO()
    viewer = Replayer(load_records(path), make_console(file=out, width=80, color=False))
    assert viewer.print_all() == 0
    text = out.getvalue()
    assert f"End of record: {len(recs)} hand(s)." in text
    for rec in recs:
        for seat, move in rec.moves[:20]:
            assert f"{seat_name(seat)} random: {move}" in text
    assert "Face-up hands" in text
    assert all(len(line) <= 80 for line in text.splitlines())


def test_viewer_record_replay_shows_only_what_the_viewer_knew(tmp_path: Path) -> None:
    full_path, _ = recorded_session(tmp_path)
    path, _ = recorded_session(tmp_path, viewer=1)
    viewer_recs = load_records(path)
    replayer = Replayer(viewer_recs, make_console(file=io.StringIO(), width=80, color=False))
    full = Replayer(load_records(full_path), make_console(file=io.StringIO()))
    assert len(replayer.frames) == len(full.frames)
    for frame, truth in zip(replayer.frames, full.frames, strict=True):
        seen, real = observe(frame.state, 1), observe(truth.state, 1)
        # what the viewer knows of the others (their own row never shows "holds")
        others = [seen.known[i] for i in (0, 2, 3)], [real.known[i] for i in (0, 2, 3)]
        assert others[0] == others[1]
        assert (seen.hand, seen.hand_sizes, seen.pile, seen.outs) == (
            real.hand,
            real.hand_sizes,
            real.pile,
            real.outs,
        )
        shown = cards_in(to_text(replayer.render(frame)))
        for other in (0, 2, 3):
            hidden = truth.state.hands[other] & ~truth.state.known_cards(other)
            assert not [c for c in iter_cards(hidden) if c in shown]
    assert "Face-up hands" not in to_text(replayer.render(replayer.frames[5]))


def test_replay_steps_with_keys(tmp_path: Path) -> None:
    path, _ = recorded_session(tmp_path)
    out = io.StringIO()
    replayer = Replayer(load_records(path)[:1], make_console(file=out, width=80, color=False))
    keys = io.StringIO("\nn\np\nzz\nq\n")
    assert replayer.step(StreamPrompter(keys, out)) == 0
    text = out.getvalue()
    total = len(replayer.frames)
    assert [int(k) for k in re.findall(rf"\[(\d+)/{total}\]", text)] == [1, 2, 3, 2, 2]
    assert "keys: Enter or n = next" in text


def test_replay_of_a_missing_or_broken_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="no such file"):
        load_records(tmp_path / "nope.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text('[Players "4"]\n\n1. A: lead 8H\n', encoding="utf-8")
    with pytest.raises(ReplayError, match=r"bad\.txt"):
        load_records(bad)
    result = CliRunner().invoke(app, ["replay", str(bad)])
    assert result.exit_code == 2 and "error:" in result.output
