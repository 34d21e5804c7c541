"""Game records: exact examples, round trips (record -> text -> record -> same final
state) over random hands of every player count and many options, sessions of
several records in one file, viewer-safe records that hide the deal, and a clear
RecordError naming the line and turn for every kind of malformed record."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from svoi_kozyri.core import (
    LEAD,
    Game,
    Move,
    Outcome,
    Rules,
    State,
    SvoiKozyriError,
    format_cards,
    observe,
    parse_card,
    parse_cards,
)
from svoi_kozyri.notation import format_observation, format_position, parse_position
from svoi_kozyri.records import (
    SPECTATOR,
    GameRecord,
    RecordError,
    parse_record,
    parse_records,
    read_records,
    write_record,
    write_records,
)
from test_notation import E1, dealt_hand, small_position

PT = {"A": "C", "B": "D", "C": "H", "D": "S"}


def play(state: State, seed: int, max_turns: int = 120) -> State:
    """Random play (preferring plays to pickups) for up to ``max_turns`` turns."""
    rng = random.Random(seed)
    for _ in range(max_turns):
        if state.is_over:
            break
        moves = state.legal_moves()
        plays = [m for m in moves if not m.is_pickup]
        state.push(rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(moves))
    return state


def e1_chain() -> tuple[State, State]:
    start = parse_position(E1)
    state = start.copy()
    for move in ("lead 8H", "beat 6D lead QS", "beat 6H lead 9D", "pickup", "beat 9C lead KS"):
        state.push_text(move)
    return start, state


E1_RECORD = """\
[Event "SPEC E1"]
[Players "4"]
[Owners "C/D/H/S"]
[Position "C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0"]
[Result "*"]

1. A: lead 8H
2. B: beat 6D lead QS
3. C: beat 6H lead 9D
4. D: pickup {takes QS 6H 9D}
5. A: beat 9C lead KS
*
"""

# A short whole hand of SPEC E13's shape: B and D are out, A goes out on a lead
# and C's single JH beats 7H (C's own suit), so the hand is drawn.
SHORT = """\
[Event "Short"]
[Date "2026.11.29"]
[Players "4"]
[Owners "C/D/H/S"]
[Names "A=alice,B=heuristic,C=random,D=bob"]
[Position "C/D/H/S QS7H/-/JH/- 9D8S A respond Bl,Dl - 40"]
[Result "draw last_card"]

1. A: beat QS lead 7H
draw last_card
"""


# --------------------------------------------------------------------------- examples


def test_e1_record_exact() -> None:
    start, state = e1_chain()
    rec = GameRecord.from_state(state, start=start, Event="SPEC E1")
    assert write_record(rec) == E1_RECORD
    back = parse_record(E1_RECORD)
    assert back == rec
    assert back.replay() == state
    assert [str(m) for _, m, _ in back.states()] == [
        "lead 8H", "beat 6D lead QS", "beat 6H lead 9D", "pickup", "beat 9C lead KS",
    ]  # fmt: skip
    assert back.result is None and back.tags == {"Event": "SPEC E1"}


def test_short_full_record() -> None:
    rec = parse_record(SHORT)
    final = rec.replay()
    assert final.outcome == Outcome(None, "last_card")
    assert rec.names == {0: "alice", 1: "heuristic", 2: "random", 3: "bob"}
    assert rec.tags == {"Event": "Short", "Date": "2026.11.29"}
    assert write_record(rec) == SHORT


def test_dealt_record_exact_head() -> None:
    game = Game(Rules(), PT)
    state = game.new_hand(dealer=3, seed=11)
    deck = state.origin.deck
    assert deck is not None
    state.push(state.legal_moves()[0])
    rec = GameRecord.from_state(state, names={0: "alice"}, Date="2026.11.29", Hand="3")
    text = write_record(rec)
    head = text.split("\n\n")[0].splitlines()
    assert head == [
        '[Date "2026.11.29"]',
        '[Hand "3"]',
        '[Players "4"]',
        '[Owners "C/D/H/S"]',
        '[Names "A=alice"]',
        '[Dealer "D"]',
        f'[Deck "{format_cards(deck)}"]',
        '[Result "*"]',
    ]
    assert text.endswith(f"1. A: {state.history()[0][1]}\n*\n")
    assert parse_record(text).replay() == state


# --------------------------------------------------------------------------- round trips


def assert_record_round_trip(state: State, start: State | None = None) -> GameRecord:
    rec = GameRecord.from_state(state, start=start, Event="t")
    text = write_record(rec)
    back = parse_record(text)
    assert back == rec
    final = back.replay()
    assert final == state and final.turns == state.turns
    steps = list(back.states())
    assert len(steps) == len(rec.moves) + (rec.pending is not None)
    if steps:
        assert steps[-1][2] == state
    assert write_record(back) == text
    return rec


@pytest.mark.parametrize("seed", range(16))
def test_round_trip_dealt_hands(seed: int) -> None:
    state = play(dealt_hand(seed), seed)
    assert_record_round_trip(state)


@pytest.mark.parametrize("seed", range(1, 33, 2))
def test_round_trip_position_starts(seed: int) -> None:
    start = small_position(seed)
    state = play(start.copy(), seed)
    rec = assert_record_round_trip(state, start)
    assert rec.position == format_position(start)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.integers(min_value=0, max_value=10**9), st.integers(min_value=0, max_value=80))
def test_round_trip_hypothesis(seed: int, turns: int) -> None:
    state = play(dealt_hand(seed), seed, max_turns=turns)
    assert_record_round_trip(state)


def test_round_trip_covers_player_counts_and_results() -> None:
    seen: set[object] = set()
    for seed in range(16):
        state = play(dealt_hand(seed), seed)
        seen.add(state.n)
        seen.add(state.rules.variant)
        seen.add("over" if state.is_over else "unfinished")
    for seed in range(1, 33, 2):
        state = play(small_position(seed), seed)
        if state.outcome is not None:
            seen.add(state.outcome.termination)
    assert {2, 3, 4, "standard", "besicovitch", "over", "unfinished", "out"} <= seen


def test_mid_turn_end_and_mid_turn_start() -> None:
    # after E1 step 4: A beats 8H6D's top with 6C and has KS left to lead
    mid = parse_position("C/D/H/S KS6C/TH/JC/QS7S6SAH6H9D8D 8H6D A respond - - 4")
    mid_start = mid.copy()
    mid.apply_action(parse_card("6C"))
    assert mid.phase == LEAD
    rec = GameRecord.from_state(mid, start=mid_start)
    assert rec.pending == parse_card("6C") and rec.moves == []
    text = write_record(rec)
    assert "1. A: beat 6C lead ?\n*\n" in text
    back = parse_record(text)
    assert back == rec and back.replay() == mid
    (seat, move, after), = back.states()  # fmt: skip
    assert (seat, move, after) == (0, Move.parse("beat 6C"), mid)
    # a record starting mid-turn completes the beat with its lead
    later = mid.copy()
    later.apply_action(parse_card("KS"))
    rec2 = GameRecord.from_state(later, start=mid)
    assert write_record(rec2).endswith("1. A: beat 6C lead KS\n*\n")
    assert parse_record(write_record(rec2)).replay() == later


def test_from_state_of_a_position_start() -> None:
    _, state = e1_chain()
    rec = GameRecord.from_state(state)
    assert rec.position == E1
    assert parse_record(write_record(rec)).replay() == state
    fresh = parse_position(E1)
    assert GameRecord.from_state(fresh).position == E1
    other = parse_position(E1.replace("KS8H", "8HKS").replace(" A free", " B free"))
    with pytest.raises(RecordError, match="do not lead to this state"):
        GameRecord.from_state(state, start=other)
    with pytest.raises(RecordError, match="comes from the record itself"):
        GameRecord.from_state(fresh, Result="loser A")
    with pytest.raises(RecordError, match="tag name"):
        GameRecord.from_state(fresh, **{"9x": "y"})
    with pytest.raises(RecordError, match="seat 7"):
        GameRecord.from_state(fresh, names={7: "x"})


# --------------------------------------------------------------------------- sessions, files


def test_session_file_round_trip(tmp_path: Path) -> None:
    recs = []
    for i, seed in enumerate((3, 4, 5)):
        state = play(dealt_hand(seed), seed)
        recs.append(GameRecord.from_state(state, Event="Session", Hand=str(i + 1)))
    path = tmp_path / "session.skr"
    write_records(path, recs)
    back = read_records(path)
    assert back == recs
    assert [r.tags["Hand"] for r in back] == ["1", "2", "3"]
    assert parse_records(path.read_text(encoding="utf-8")) == recs
    with pytest.raises(RecordError, match="expected one record, found 3"):
        parse_record(path.read_text(encoding="utf-8"))


def test_wrapped_movetext_and_comments() -> None:
    wrapped = E1_RECORD.replace(
        "1. A: lead 8H\n2. B: beat 6D lead QS\n",
        "; a line comment\n1. A: lead 8H {opening\nover two lines} 2. B: beat 6D lead QS ",
    ).replace("3. C: ", "C: ")  # turn numbers are optional
    rec = parse_record(wrapped)
    assert rec == parse_record(E1_RECORD)
    assert rec.lines == [8, 9, 9, 10, 11]


def test_bom_and_crlf_are_read(tmp_path: Path) -> None:
    path = tmp_path / "win.skr"
    path.write_bytes(b"\xef\xbb\xbf" + E1_RECORD.replace("\n", "\r\n").encode("utf-8"))
    assert read_records(path) == [parse_record(E1_RECORD)]


def test_not_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.skr"
    path.write_bytes(b"\xff\xfe[Event")
    with pytest.raises(RecordError, match="not UTF-8"):
        read_records(path)


# --------------------------------------------------------------------------- viewers


@pytest.mark.parametrize("seed", [0, 1, 2, 6, 8])
def test_viewer_record_hides_the_deal(seed: int) -> None:
    state = play(dealt_hand(seed), seed, max_turns=40)
    rec = GameRecord.from_state(state)
    start = rec.start_state()
    for viewer in [*range(state.n), SPECTATOR]:
        text = write_record(rec, viewer=viewer)
        assert "[Deck" not in text
        tags = text.split("\n\n")[0]
        seat = None if viewer == SPECTATOR else viewer
        position = format_observation(observe(start, seat))
        assert f'[Position "{position}"]' in tags
        hands = position.split()[1].split("/")
        obs = observe(start, seat)
        for other in range(state.n):
            if other != seat and not state.rules.is_besicovitch:
                assert hands[other].split("?")[0] in ("", "-", *[hands[other].split("?")[0]])
                visible = parse_cards(" ".join(_split(hands[other].split("?")[0])))
                assert visible & ~obs.known[other] == 0
        # the turns are public and all kept
        for i, (s, move) in enumerate(rec.moves):
            assert f"{i + 1}. {'ABCD'[s]}: {move}" in text
        back = parse_record(text)
        assert back.moves == rec.moves and back.result == rec.result
        assert back.viewer == viewer
        assert write_record(back) == write_record(back, viewer=viewer)
        if state.rules.is_besicovitch:
            assert back.replay() == state  # open hands: nothing is hidden
        else:
            with pytest.raises(RecordError, match="hides the deal"):
                back.replay()
            if viewer != SPECTATOR:
                with pytest.raises(RecordError, match="another viewer"):
                    write_record(back, viewer=(viewer + 1) % state.n)


@pytest.mark.parametrize("players", [3, 4])
def test_viewer_record_does_not_depend_on_hidden_cards(players: int) -> None:
    """Two deals that differ only in which other seat holds two private cards give
    the same record for the viewer (and different full records)."""
    game = Game(Rules(num_players=players))
    state = game.new_hand(dealer=0, seed=players)
    deck = list(state.origin.deck or ())
    viewer = 1
    seat_of = {i: (0 + 1 + i) % players for i in range(len(deck))}
    six = {parse_card(f"6{s}") for s in "SHDC"}
    i, j = next(
        (i, j)
        for i in range(len(deck))
        for j in range(len(deck))
        if viewer not in (seat_of[i], seat_of[j])
        and seat_of[i] != seat_of[j]
        and not {deck[i], deck[j]} & six
    )
    deck2 = deck[:]
    deck2[i], deck2[j] = deck2[j], deck2[i]
    other = game.deal(0, deck2)
    assert other.hands != state.hands and other.hands[viewer] == state.hands[viewer]
    rec1, rec2 = GameRecord.from_state(state), GameRecord.from_state(other)
    assert write_record(rec1) != write_record(rec2)
    assert write_record(rec1, viewer=viewer) == write_record(rec2, viewer=viewer)
    assert write_record(rec1, viewer=SPECTATOR) == write_record(rec2, viewer=SPECTATOR)


def _split(compact: str) -> list[str]:
    out, i = [], 0
    while i < len(compact) and compact != "-":
        j = i + (3 if compact[i : i + 2] == "10" else 2)
        out.append(compact[i:j])
        i = j
    return out


def test_viewer_must_be_a_seat() -> None:
    rec = parse_record(E1_RECORD)
    with pytest.raises(RecordError, match="viewer 4 is not a seat"):
        write_record(rec, viewer=4)


# --------------------------------------------------------------------------- errors


def _mutate(old: str, new: str, text: str = E1_RECORD) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (_mutate("2. B: beat 6D lead QS", "2. B: beat 6S lead QS"), r"line 8, turn 2 .*6S"),
        (_mutate("3. C: beat 6H", "3. D: beat 6H"), r"line 9, turn 3 .*C's turn, not D's"),
        (_mutate("4. D: pickup", "4. D: lead 7S"), r"line 10, turn 4 .*must beat 9D"),
        (_mutate("5. A:", "6. A:"), r"line 11: expected turn number 5\., found 6\."),
        (_mutate("5. A: beat 9C", "5. E: beat 9C"), r"line 11, turn 5: unknown seat"),
        (_mutate("5. A: beat 9C", "5. A: beet 9C"), r"line 11, turn 5: expected a move"),
        (_mutate("5. A: beat 9C", "5. A: beat 9X"), r"line 11, turn 5: malformed move"),
        (_mutate("5. A: beat 9C", "5. beat 9C"), r"line 11, turn 5: expected the seat"),
        (_mutate("\n*\n", "\n"), "without a result token"),
        (_mutate("\n*\n", "\nloser Q\n"), "line 12: unknown loser 'Q'"),
        (_mutate("\n*\n", "\ndraw tired\n"), "line 12: unknown draw reason"),
        (_mutate("\n*\n", "\nloser B\n"), r"line 5: \[Result '\*'\]: disagrees"),
        (_mutate('[Result "*"]', '[Result "loser B"]'), r"\[Result 'loser B'\]: disagrees"),
        (
            _mutate('[Result "*"]\n', "").replace("\n*\n", "\nloser B\n"),
            r"result is 'loser B' but its turns give '\*'",
        ),
        (_mutate("\n*\n", "\n* 6. B: pickup\n"), r"line 12: '6\.' after the result"),
        (_mutate('[Event "SPEC E1"]', '[Event "SPEC E1"'), r"line 1: malformed tag"),
        (_mutate('[Event "SPEC E1"]', '[Event "a\\q"]'), r"line 1: unknown escape"),
        (_mutate('[Event "SPEC E1"]', '[Players "4"]'), r"line 2: tag \[Players\] is given twice"),
        (_mutate('[Players "4"]', '[Players "3"]'), r"line 2: \[Players '3'\]: the game has 4"),
        (_mutate('[Owners "C/D/H/S"]', '[Owners "C/D/S/H"]'), r"line 3: .*disagrees"),
        (_mutate('[Owners "C/D/H/S"]', '[Rules "pickup_rule=fixed"]'), r"line 3: .*disagrees"),
        (_mutate('[Owners "C/D/H/S"]', '[Owners "C/D/H/X"]'), r"line 3: .*unknown suit"),
        (_mutate("- A free - - 0", "- A free - -"), r"line 4: \[Position .*8 or 9 fields"),
        (_mutate("- A free - - 0", "- A free - - x"), r"line 4: \[Position .*field 8"),
        (_mutate("KS8H9C6C/", "KS8H9C6CQS/"), r"line 4: \[Position .*QS appear twice"),
        (
            _mutate('[Position "C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0"]\n', ""),
            r"line 1: a record needs \[Dealer\] and \[Deck\], or \[Position\]",
        ),
        (_mutate("{takes QS 6H 9D}", "{takes QS 6H 9D"), r"line 10: comment .* never closed"),
        (
            _mutate("5. A: beat 9C lead KS", "5. A: beat 9C lead ?\n6. B: pickup"),
            "must be the last",
        ),
        (_mutate("1. A: lead 8H", "1. A: lead 8H }"), r"line 7: unexpected '}'"),
        (
            _mutate('[Position "C/D/H', '[Viewer "A"]\n[Deck "KS"]\n[Position "C/D/H'),
            r"must not hold the deck",
        ),
        (
            _mutate('[Position "C/D/H', '[Dealer "D"]\n[Deck "KS"]\n[Position "C/D/H'),
            r"either \[Deck\] or \[Position\]",
        ),
        (_mutate('[Players "4"]', '[Names "A=x,Q=y"]'), r"\[Names .*unknown seat 'Q'"),
        (_mutate('[Players "4"]', '[Names "A"]'), r"\[Names .*expected SEAT=name"),
        (_mutate('[Players "4"]', '[Viewer "E"]'), r"\[Viewer .*unknown seat"),
    ],
)
def test_malformed_records(text: str, match: str) -> None:
    with pytest.raises(RecordError, match=match):
        parse_record(text)


DEALT = """\
[Players "2"]
[Owners "SH/DC"]
[Dealer "A"]
[Deck "{deck}"]
[Result "*"]

*
"""


def test_malformed_deck() -> None:
    game = Game(Rules(num_players=2))
    deck = list(game.new_hand(0, seed=1).origin.deck or ())
    good = DEALT.format(deck=format_cards(deck))
    assert parse_record(good).start_state() == game.deal(0, deck)
    compact = DEALT.format(deck=format_cards(deck).replace(" ", "").replace("10", "T"))
    assert parse_record(compact) == parse_record(good)
    with pytest.raises(RecordError, match=r"\[Deck\]: .*missing"):
        parse_record(DEALT.format(deck=format_cards(deck[1:])))
    with pytest.raises(RecordError, match=r"\[Deck .*listed twice"):
        parse_record(DEALT.format(deck=format_cards(deck + deck[:1])))
    with pytest.raises(RecordError, match=r"\[Deck .*needs \[Dealer\]"):
        parse_record(good.replace('[Dealer "A"]\n', ""))
    with pytest.raises(RecordError, match=r"\[Dealer .*unknown seat"):
        parse_record(good.replace('[Dealer "A"]', '[Dealer "C"]'))


def test_record_errors_are_engine_errors_and_check_can_be_skipped() -> None:
    bad = _mutate("2. B: beat 6D lead QS", "2. B: beat 6S lead QS")
    with pytest.raises(SvoiKozyriError):
        parse_record(bad)
    rec = parse_record(bad, check=False)  # syntax only; replay still refuses
    with pytest.raises(RecordError, match="turn 2"):
        rec.replay()
    with pytest.raises(RecordError, match="turn 2"):
        list(rec.states())


def test_tag_values_are_escaped() -> None:
    start = parse_position(E1)
    rec = GameRecord.from_state(
        start, names={0: 'a,b=c "d" %e', 1: "Дурак"}, Event='say "hi"\\\nbye'
    )
    text = write_record(rec)
    assert '[Event "say \\"hi\\"\\\\\\nbye"]' in text
    back = parse_record(text)
    assert back.names == rec.names and back.tags["Event"] == 'say "hi"\\\nbye'


# --------------------------------------------------------------------------- the docs

DOCS = Path(__file__).resolve().parents[1] / "docs" / "notation.md"


def _doc_blocks() -> list[str]:
    """The indented example blocks of docs/notation.md."""
    blocks: list[str] = []
    current: list[str] = []
    for line in [*DOCS.read_text(encoding="utf-8").splitlines(), ""]:
        if line.startswith("    ") and not line.startswith("     "):
            current.append(line[4:])
        elif current and line == "":
            blocks.append("\n".join(current) + "\n")
            current = []
        elif current:
            current.append(line)
    return blocks


def test_docs_examples_are_exact() -> None:
    """Every position and every complete record shown in docs/notation.md is what
    the library reads and writes."""
    positions = records = 0
    blocks = _doc_blocks()
    for i, block in enumerate(blocks):
        first = block.split("\n", 1)[0]
        # a record continues after a blank line (tags, then turns)
        text = block + ("\n" + blocks[i + 1] if i + 1 < len(blocks) else "")
        if first.startswith("[") and "..." not in text:
            rec = parse_record(text, check=True)
            assert write_record(rec) == text
            records += 1
        elif first.split(" ")[0].count("/") >= 1 and len(first.split()) >= 8:
            for line in block.splitlines():
                if "?" in line:
                    continue
                assert format_position(parse_position(line)) == line
                positions += 1
    assert positions >= 6 and records >= 2


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 10**6),
            st.integers(0, 2),
            st.sampled_from('ABCD0123456789.:{}[]";*\n HSCQKTJpickuplead?beatloserdraw'),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_mutated_records_parse_or_raise_record_error(edits: list[tuple[int, int, str]]) -> None:
    """Random edits of a valid record never crash the reader: it reads a record
    that replays, or raises a RecordError (or another engine error)."""
    text = E1_RECORD
    for pos, op, ch in edits:
        i = pos % (len(text) + 1)
        if op == 0:
            text = text[:i] + ch + text[i:]
        elif op == 1:
            text = text[:i] + text[i + 1 :]
        else:
            text = text[:i] + ch + text[i + 1 :]
    try:
        recs = parse_records(text)
    except RecordError:
        return
    for rec in recs:
        rec.replay()
        assert parse_records(write_record(rec)) == [rec]


def test_cli_records_command(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from svoi_kozyri.cli.main import app

    runner = CliRunner()
    recs = [GameRecord.from_state(play(dealt_hand(s), s), Hand=str(s)) for s in (3, 4)]
    path = tmp_path / "s.skr"
    write_records(path, recs)
    ok = runner.invoke(app, ["records", str(path)])
    assert ok.exit_code == 0, ok.output
    lines = ok.output.splitlines()
    assert lines[-1] == "2 record(s) OK"
    assert lines[0].startswith(f"record 1 (hand 3): {recs[0].game.n} players, deal, ")
    mine = runner.invoke(app, ["records", str(path), "--viewer", "b"])
    assert mine.exit_code == 0, mine.output
    assert mine.output == "\n".join(write_record(r, viewer=1) for r in recs)
    assert "[Deck" not in mine.output
    spect = runner.invoke(app, ["records", str(path), "--viewer", "spectator"])
    assert spect.output == "\n".join(write_record(r, viewer=SPECTATOR) for r in recs)
    bad = runner.invoke(app, ["records", str(path), "--viewer", "Z"])
    assert bad.exit_code == 2 and "unknown seat 'Z'" in bad.output
    path.write_text(E1_RECORD.replace("beat 6D lead QS", "beat 6S lead QS"), encoding="utf-8")
    broken = runner.invoke(app, ["records", str(path)])
    assert broken.exit_code == 1 and "line 8, turn 2" in broken.output
    missing = runner.invoke(app, ["records", str(tmp_path / "nope.skr")])
    assert missing.exit_code == 2 and "no such file" in missing.output
