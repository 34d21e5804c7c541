"""Position notation: exact examples, round trips over random hands of every player
count and many options (also mid-turn and finished), forgiving input, a clear
error for every malformed field, public views, and ``svoi-kozyri perft`` on the
shared perft scenarios converted to the notation."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from conftest import SCENARIOS_DIR
from svoi_kozyri.cli.main import app
from svoi_kozyri.core import (
    LEAD,
    OVER,
    Game,
    Outcome,
    PositionError,
    Rules,
    State,
    blind_owners,
    observe,
    parse_card,
    parse_cards,
)
from svoi_kozyri.notation import (
    format_cards_compact,
    format_observation,
    format_position,
    format_result,
    format_rules,
    parse_cards_compact,
    parse_position,
    parse_result,
    position_from_text,
)

E1 = "C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0"
PERFT_FILE = SCENARIOS_DIR / "perft.json"


def e1_state() -> State:
    game = Game(Rules(), {"A": "C", "B": "D", "C": "H", "D": "S"})
    return position_from_text(
        game, {"A": "KS 8H 9C 6C", "B": "QS 10H 6D", "C": "6H 9D JC", "D": "7S 6S AH 8D"}
    )


def options_for(rng: random.Random) -> dict[str, Any]:
    """A random valid option set touching every option the notation must carry."""
    opts: dict[str, Any] = {}
    if rng.random() < 0.25:
        opts["variant"] = "besicovitch"
        opts["deck_size"] = rng.choice([24, 32, 36, 40])
        opts["besicovitch_first_leader"] = rng.choice(["dealer", "non_dealer"])
        opts["besicovitch_draw_rule"] = rng.random() < 0.5
        if rng.random() < 0.4:
            opts["taker_leads_after_pickup"] = True
    else:
        n = rng.choice([2, 3, 4])
        opts["num_players"] = n
        if n == 2:
            opts["trumps_per_player_2p"] = rng.choice([1, 2])
            cross = rng.random() < 0.5  # drawn either way: seeds keep their options
            if opts["trumps_per_player_2p"] == 2:  # it applies only to two own suits
                opts["own_suits_cross_beat"] = cross
        opts["pickup_rule"] = rng.choice(["graded", "fixed", "whole_pile"])
        if opts["pickup_rule"] == "fixed":
            opts["fixed_pickup_count"] = rng.randint(1, 6)
        opts["after_pickup"] = rng.choice(["face_new_top", "free_lead"])
        opts["free_lead_after_defence_out"] = rng.random() < 0.7
        opts["defence_out_pile"] = rng.choice(["keep", "discard", "discard"])
        opts["draw_rule"] = rng.choice(["lead_only", "any_last_card", "none"])
        opts["equal_rank_beats"] = rng.choice(["off", "also", "only"])
        opts["sixes_transfer_public"] = rng.random() < 0.7
        opts["suit_assignment"] = rng.choice(["agreed", "blind"])
    opts["repetition_limit"] = rng.choice([None, 2, 3])
    opts["max_actions_per_hand"] = rng.choice([None, rng.randint(10, 120)])
    opts["cap_outcome"] = rng.choice(["draw", "most_cards_loses"])
    if rng.random() < 0.2:
        opts["session_mode"] = "points"
        opts["points_target"] = rng.randint(1, 9)
    return opts


def dealt_hand(seed: int) -> State:
    """A fresh hand: options, owners (blind or agreed), dealer and deck from ``seed``."""
    rng = random.Random(seed)
    rules = Rules.from_dict(options_for(rng))
    if rules.suit_assignment == "blind" or rng.random() < 0.3:
        owners, pairs = blind_owners(rules, rng)
        game = Game(rules, owners, pairs if rules.is_besicovitch else None)
    else:
        game = Game(rules)
    return game.new_hand(rng.randrange(rules.num_players), rng)


def small_position(seed: int) -> State:
    """A random endgame: the dealt hand cut to 1-4 cards a seat and a short pile, so
    that random play soon reaches outs, discards and results."""
    rng = random.Random(seed)
    full = dealt_hand(seed)
    game = full.game
    cards = [c for h in full.hands for c in range(40) if h >> c & 1]
    rng.shuffle(cards)
    hands = [0] * game.n
    for seat in range(game.n):
        for _ in range(rng.randint(1, 4)):
            hands[seat] |= 1 << cards.pop()
    pile = [cards.pop() for _ in range(rng.randint(0, 5))]
    mode = "respond" if pile and rng.random() < 0.7 else "free"
    return game.position(hands, pile, rng.randrange(game.n), mode)


def states_of_hand(seed: int, max_turns: int = 150) -> list[State]:
    """Every turn-boundary state of a random hand (a full deal for even seeds, a
    small endgame for odd ones), plus mid-turn (lead mode) states."""
    rng = random.Random(seed * 7919 + 1)
    state = dealt_hand(seed) if seed % 2 == 0 else small_position(seed)
    out = [state.copy()]
    for _ in range(max_turns):
        if state.is_over:
            break
        moves = state.legal_moves()
        plays = [m for m in moves if not m.is_pickup]
        outs = [m for m in plays if m.beat is not None and m.lead is None]
        if outs and rng.random() < 0.9:  # going out on a defence: discards, free leads
            move = outs[0]
        else:
            move = rng.choice(plays) if plays and rng.random() < 0.8 else rng.choice(moves)
        if move.beat is not None and move.lead is not None:
            mid = state.copy()
            mid.apply_action(move.beat)
            assert mid.phase == LEAD
            out.append(mid)
        state.push(move)
        out.append(state.copy())
    return out


def assert_round_trip(state: State) -> None:
    text = format_position(state)
    back = parse_position(text)
    assert back == state, text
    assert back.turns == state.turns
    assert back.game == state.game
    assert format_position(back) == text
    assert "  " not in text and text == text.strip()


# --------------------------------------------------------------------------- examples


def test_e1_start_position_exact() -> None:
    assert format_position(e1_state()) == E1
    assert parse_position(E1) == e1_state()


def test_e1_chain_positions_exact() -> None:
    state = e1_state()
    for move in ("lead 8H", "beat 6D lead QS", "beat 6H lead 9D", "pickup"):
        state.push_text(move)
    assert format_position(state) == ("C/D/H/S KS9C6C/TH/JC/QS7S6SAH6H9D8D 8H6D A respond - - 4")
    state.apply_action(parse_cards_compact("9C")[0])
    assert format_position(state) == "C/D/H/S KS6C/TH/JC/QS7S6SAH6H9D8D 8H6D9C A lead - - 4"
    assert parse_position(format_position(state)) == state


def test_finished_hand_and_outs_exact() -> None:
    # SPEC E12: B beats KH, goes out on a defence, and D loses holding AH.
    game = Game(Rules(), {"A": "C", "B": "D", "C": "H", "D": "S"})
    state = position_from_text(
        game,
        {"A": "", "B": "KH", "C": "", "D": "AH"},
        "7C 9C 10H",
        "B",
        "respond",
        [("A", "lead"), ("C", "defence")],
    )
    assert format_position(state) == "C/D/H/S -/KH/-/AH 7C9CTH B respond Al,Cd - 0"
    state.push_text("beat KH")
    text = format_position(state)
    assert text == "C/D/H/S -/-/-/AH 7C9CTHKH - loser=D Al,Cd,Bd - 1"
    back = parse_position(text)
    assert back == state and back.outcome == Outcome(3, "out") and back.phase == OVER


def test_over_without_result_round_trips() -> None:
    game = Game(Rules(), {"A": "C", "B": "D", "C": "H", "D": "S"})
    state = position_from_text(game, {"A": "", "B": "", "C": "", "D": "AH"}, "KH", "A", OVER,
                          [("A", "lead"), ("B", "lead"), ("C", "lead")])  # fmt: skip
    assert state.is_over and state.outcome is None
    assert format_position(state) == "C/D/H/S -/-/-/AH KH - over Al,Bl,Cl - 0"
    assert parse_position(format_position(state)) == state


@pytest.mark.parametrize(
    ("result", "text"),
    [
        (Outcome(1, "out"), "loser=B"),
        (Outcome(0, "action_cap"), "loser=A:action_cap"),
        (Outcome(None, "last_card"), "draw=last_card"),
        (Outcome(None, "repetition"), "draw=repetition"),
        (Outcome(None, "action_cap"), "draw=action_cap"),
    ],
)
def test_result_field(result: Outcome, text: str) -> None:
    assert format_result(result) == text
    assert parse_result(text) == result
    assert parse_result(format_result(result, sep=" ")) == result


def test_rules_field_and_variants_exact() -> None:
    assert format_rules(Rules()) == "-"
    assert format_rules(Rules(num_players=2)) == "-"
    assert format_rules(Rules(pickup_rule="fixed", fixed_pickup_count=4)) == (
        "pickup_rule=fixed,fixed_pickup_count=4"
    )
    assert format_rules(Rules(repetition_limit=None, free_lead_after_defence_out=False)) == (
        "free_lead_after_defence_out=false,repetition_limit=null"
    )
    game = Game(Rules(variant="besicovitch", deck_size=36), ["S", "D"], ["SC", "DH"])
    state = game.position(
        [parse_cards("AS 7C"), parse_cards("6D KH")], [parse_card("9S")], "B", "respond"
    )
    text = format_position(state)
    assert text == "S+C/D+H AS7C/KH6D 9S B respond - - 0 variant=besicovitch,deck_size=36"
    assert parse_position(text) == state
    # two players with one trump each: the owners say so, the rules field need not
    one = Game(Rules(num_players=2, trumps_per_player_2p=1), ["H", "C"])
    s1 = one.position([parse_cards("AS"), parse_cards("KS")], [], "A", "free")
    assert format_position(s1) == "H/C AS/KS - A free - - 0"
    assert parse_position("H/C AS/KS - A free - - 0").game == one


def test_discard_field() -> None:
    game = Game(Rules(defence_out_pile="discard"), {"A": "C", "B": "D", "C": "H", "D": "S"})
    state = position_from_text(
        game, {"A": "JC", "B": "9D", "C": "QC 7S", "D": "8S AD"}, "7C 8H", "B", "respond"
    )
    state.push_text("beat 9D")
    text = format_position(state)
    assert text == "C/D/H/S JC/-/7SQC/8SAD - C free Bd 8H9D7C 1 defence_out_pile=discard"
    assert parse_position(text) == state


def test_compact_cards() -> None:
    assert format_cards_compact(parse_cards("10H KS 6C")) == "KSTH6C"
    assert format_cards_compact([parse_cards_compact("6C")[0], 0]) == "6C5S"
    assert format_cards_compact(0) == "-"
    assert parse_cards_compact("10hTs6♣") == parse_cards_compact("THTS6C")
    assert parse_cards_compact("-") == []


def test_forgiving_input() -> None:
    assert parse_position("c/d/h/s ks8h9c6c/qs10h6d/6h9djc/7s6sah8d - a FREE - - 0 -") == e1_state()
    assert parse_position("C/D/H/S K♠8♥9♣6♣/Q♠10♥6♦/6♥9♦J♣/7♠6♠A♥8♦ - A free - - 0") == (e1_state())
    assert parse_position("  " + E1.replace(" ", "   ") + "\n") == e1_state()


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("seed", range(24))
def test_round_trip_random_hands(seed: int) -> None:
    for state in states_of_hand(seed):
        assert_round_trip(state)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(min_value=1000, max_value=10**9))
def test_round_trip_hypothesis(seed: int) -> None:
    states = states_of_hand(seed, max_turns=60)
    for state in states[:: max(1, len(states) // 8)] + states[-1:]:
        assert_round_trip(state)


def test_round_trip_covers_every_player_count_mode_and_result() -> None:
    seen: set[Any] = set()
    for seed in range(24):
        for state in states_of_hand(seed):
            seen.add(("n", state.n))
            seen.add(("phase", state.phase))
            seen.add(("variant", state.rules.variant))
            if state.outcome is not None:
                seen.add(("result", state.outcome.is_draw))
            if state.discard:
                seen.add("discard")
            if state.outs:
                seen.add("outs")
    assert {("n", 2), ("n", 3), ("n", 4)} <= seen
    assert {("phase", p) for p in range(4)} <= seen
    assert {("variant", "besicovitch"), ("variant", "standard")} <= seen
    assert {("result", True), ("result", False), "outs"} <= seen  # discard: see below


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "8 or 9 space-separated fields"),
        (E1 + " - extra", "8 or 9 space-separated fields"),
        ("C/D/H/S/S KS/QS/6H/7S/8S - A free - - 0", r"field 1 \(owners\).*5 seats"),
        ("C/D/X/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0", "field 1.*unknown suit 'X'"),
        ("C/D/C/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0", "field 1.*same suit"),
        ("CC/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0", "field 1.*twice"),
        ("CD/H/S/- KS/QS/6H/7S - A free - - 0", "field 1.*unknown suit '-'"),
        ("SH/DC KS/QS - A free - - 0 variant=besicovitch", "field 1.*exactly 1 suit"),
        ("S+C/D KS/QS - A free - - 0 variant=besicovitch", "field 1.*every seat or for none"),
        ("S+C/D+H KS/QS - A free - - 0", "field 1.*only for variant=besicovitch"),
        ("S+S/D+H KS/QD - A free - - 0 variant=besicovitch", "field 1.*coincide"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC - A free - - 0", r"field 2 \(hands\).*3 hands"),
        ("C/D/H/S KS8H9C6X/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0", "field 2.*'6X'"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8DKS - A free - - 0", "KS appear twice"),
        ("C/D/H/S KSKS/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0", "field 2.*KS is listed twice"),
        ("C/D/H/S KS8H9C6C//6H9DJC/7S6SAH8D - A free - - 0", "field 2.*empty.*'-'"),
        ("C/D/H/S KS8H9C?3/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0", "field 2.*hidden"),
        ("C/D/H/S 5S8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0", "5S are not in this deck"),
        ("C/D/H/S KS8H9C/QSTH6D/6H9DJC/7S6SAH8D 6CZZ A respond - - 0", r"field 3 \(pile\)"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - E free - - 0", r"field 4 \(to_act\)"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - AB free - - 0", "field 4"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - - free - - 0", "field 4"),
        ("C/D/H/S -/-/-/AH KH A loser=D Al,Bl,Cd - 0", "field 4.*write '-'"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A fre - - 0", r"field 5 \(mode\)"),
        ("C/D/H/S -/-/-/AH KH - loser=E Al,Bl,Cd - 0", "field 5.*unknown loser 'E'"),
        ("C/D/H/S -/-/-/AH KH - draw=tired Al,Bl,Cd - 0", "field 5.*unknown draw reason"),
        ("C/D/H/S -/-/-/AH KH - loser=D:bored Al,Bl,Cd - 0", "field 5.*unknown loss reason"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A respond - - 0", "needs a card on the pile"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/- 7S6SAH8D A respond Dx - 0", r"field 6 \(outs\)"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/- 7S6SAH8D A respond Dl,Dd - 0", "field 6.*twice"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/- 7S6SAH8D A respond - - 0", "'out' must list"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - B free Al - 0", "'out' must list"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - 9D 0", "9D appear twice"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - 9Q 0", r"field 7 \(discard\)"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - -1", r"field 8 \(turns\)"),
        ("C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - x", r"field 8 \(turns\)"),
        (E1 + " pickup_rule=sometimes", r"field 9 \(rules\).*pickup_rule"),
        (E1 + " colour=red", "field 9.*unknown rules option.*colour"),
        (E1 + " pickup_rule", "field 9.*expected key=value"),
        (E1 + " pickup_rule=fixed,pickup_rule=fixed", "field 9.*twice"),
        (E1 + " num_players=3", "field 9.*owners list 4 seats"),
        (E1 + " deck_size=36", "field 9.*only to the Besicovitch"),
        ("C/D/H/S KS8H9C6C/-/-/- - A free Bl,Cl,Dl - 0", "at least two players"),
        ("C/D/H/S KS8H9C6C/-/6H/- - B free Bl,Dl - 0", "to act must hold cards"),
    ],
)
def test_malformed_fields(text: str, match: str) -> None:
    with pytest.raises(PositionError, match=match):
        parse_position(text)


def test_errors_name_the_field_and_change_nothing() -> None:
    before = parse_position(E1)
    for bad in (E1.replace("KS8H", "KS8Q"), E1.replace(" A ", " Z ")):
        with pytest.raises(PositionError, match=r"position field \d \(\w+\)"):
            parse_position(bad)
    assert parse_position(E1) == before
    with pytest.raises(PositionError, match="must be text"):
        parse_position(42)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- public views


@pytest.mark.parametrize("seed", range(12))
def test_public_view_hides_other_hands(seed: int) -> None:
    for state in states_of_hand(seed, max_turns=30)[::5]:
        for seat in range(state.n):
            obs = observe(state, seat)
            text = format_observation(obs)
            fields = text.split()
            assert fields[0] == format_position(state).split()[0]
            assert fields[2:] == format_position(state).split()[2:]
            parts = fields[1].split("/")
            for other, part in enumerate(parts):
                shown = parse_cards_compact(part.split("?")[0] or "-")
                if other == seat or state.rules.is_besicovitch:
                    assert part == format_cards_compact(state.hands[other])
                else:
                    # only publicly known cards are shown, the rest is a count
                    for c in shown:
                        assert obs.known[other] >> c & 1
                    hidden = state.hands[other].bit_count() - len(shown)
                    assert part.endswith(f"?{hidden}") or (hidden == 0 and "?" not in part)
            if not state.rules.is_besicovitch and any(
                state.hands[o] & ~obs.known[o] for o in range(state.n) if o != seat
            ):
                with pytest.raises(PositionError, match="hidden"):
                    parse_position(text)


# --------------------------------------------------------------------------- perft CLI


def perft_cases() -> list[tuple[str, str, int]]:
    data = json.loads(PERFT_FILE.read_text(encoding="utf-8"))
    cases = []
    for sc in data["scenarios"]:
        rules = Rules.from_dict({"num_players": sc["players"], **sc.get("rules", {})})
        game = Game(rules, sc["owners"], sc.get("pairs"))
        p = sc["start"]["position"]
        outs = [(seat, kind) for seat, kind in p.get("out", [])]
        state = position_from_text(game, p["hands"], p["pile"], p["to_act"], p["mode"], outs)
        counts = sc["steps"][0]["expect"]["perft"]
        cases.append((sc["id"], format_position(state), int(counts["2"])))
    return cases


def test_perft_positions_convert_and_round_trip() -> None:
    cases = perft_cases()
    assert len(cases) >= 30
    for _, text, _ in cases:
        assert format_position(parse_position(text)) == text


@pytest.mark.parametrize(("sid", "text", "expected"), perft_cases()[::3])
def test_cli_perft_depth_2(sid: str, text: str, expected: int) -> None:
    result = CliRunner().invoke(app, ["perft", text, "2"])
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == str(expected), sid


def test_cli_perft_e1_and_divide() -> None:
    result = CliRunner().invoke(app, ["perft", E1, "1", "--divide"])
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[-1] == "4"
    assert sorted(lines[:-1]) == ["lead 6C: 1", "lead 8H: 1", "lead 9C: 1", "lead KS: 1"]


def test_cli_perft_bad_position() -> None:
    result = CliRunner().invoke(app, ["perft", E1.replace(" A ", " Q "), "2"])
    assert result.exit_code == 2
    assert "field 4 (to_act)" in result.output


ALPHABET = "ACDHJKLQST0123456789/+-=,: ?abcdelnoprstu_"


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(
        st.tuples(st.integers(0, 200), st.integers(0, 3), st.sampled_from(ALPHABET)),
        min_size=1,
        max_size=4,
    )
)
def test_mutated_positions_parse_or_raise_position_error(
    edits: list[tuple[int, int, str]],
) -> None:
    """Random edits of valid positions never crash the parser: the result is a
    position that writes back to itself, or a PositionError."""
    base = [
        E1,
        "C/D/H/S -/-/-/AH 7C9CTHKH - loser=D Al,Cd,Bd - 1",
        "S+C/D+H AS7C/KH6D 9S B respond - - 0 variant=besicovitch,deck_size=36",
        "C/D/H/S KS6C/TH/JC/QS7S6SAH6H9D8D 8H6D9C A lead - - 4 pickup_rule=fixed",
    ]
    text = base[edits[0][0] % len(base)]
    for pos, op, ch in edits:
        i = pos % (len(text) + 1)
        if op == 0:
            text = text[:i] + ch + text[i:]
        elif op == 1:
            text = text[:i] + text[i + 1 :]
        else:
            text = text[:i] + ch + text[i + 1 :]
    try:
        state = parse_position(text)
    except PositionError:
        return
    assert parse_position(format_position(state)) == state


def test_cli_position_command() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["position", E1.lower().replace("t", "10")])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == E1
    assert "A owns C: KS 8H 9C 6C" in lines
    assert lines[-1].startswith("4 legal: ") and "lead 8H" in lines[-1]
    mid = runner.invoke(app, ["position", "C/D/H/S KS6C/TH/JC/QS7S6SAH6H9D8D 8H6D9C A lead - - 4"])
    assert mid.output.splitlines()[-1] == "2 legal: lead KS, lead 6C"
    over = runner.invoke(app, ["position", "C/D/H/S -/-/-/AH 7C9CTHKH - loser=D Al,Cd,Bd - 1"])
    assert over.exit_code == 0 and over.output.splitlines()[-1] == "over: loser D"
    bad = runner.invoke(app, ["position", E1.replace(" 0", " x")])
    assert bad.exit_code == 2 and "field 8 (turns)" in bad.output
