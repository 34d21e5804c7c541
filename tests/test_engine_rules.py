"""The rules engine, rule by rule (SPEC A1-A16, the B decisions, C1-C8, D guards).

Each test names the SPEC rule it pins and asserts exact cards, counts and
seats, so that a regression in any single rule fails a test with a readable
message.  Positions follow SPEC E: only the listed cards exist."""

from __future__ import annotations

import random
from functools import partial
from typing import Any

import pytest

from conftest import (
    PT_OWNERS,
    assert_refused,
    cards,
    hand_text,
    make_game,
    pos,
    snapshot,
)
from svoi_kozyri import Phase
from svoi_kozyri.core import (
    FREE,
    LEAD,
    OVER,
    PICKUP,
    RESPOND,
    CardError,
    Game,
    HandOverError,
    IllegalMoveError,
    Move,
    Outcome,
    PositionError,
    Rules,
    State,
    card,
    format_card,
    format_cards,
    parse_card,
    parse_card_list,
    rank_of,
    suit_of,
)
from svoi_kozyri.notation import position_from_text
from svoi_kozyri.notation.forgiving import parse_forgiving

A, B, C, D = range(4)


def beats_of(state: State) -> str:
    """The legal beats of the player to act, in SPEC display order."""
    return format_cards(state.beat_options())


# --------------------------------------------------------------------------- A8 beating


def ref_beats(c: int, t: int, own: set[int], cross: bool, equal: str) -> bool:
    """An independent statement of SPEC A8 with the options B19 and C7."""
    if c == t:
        return False
    top_own = suit_of(t) in own
    if equal == "only":
        plain = rank_of(c) == rank_of(t)
    else:
        plain = suit_of(c) == suit_of(t) and rank_of(c) > rank_of(t)
        if equal == "also":
            plain = plain or rank_of(c) == rank_of(t)
    trump = suit_of(c) in own and not top_own
    crossed = cross and top_own and suit_of(c) in own and suit_of(c) != suit_of(t)
    return plain or trump or crossed


@pytest.mark.parametrize(
    ("players", "owners", "options"),
    [
        (4, PT_OWNERS, {}),
        (4, {"A": "S", "B": "H", "C": "D", "D": "C"}, {"equal_rank_beats": "also"}),
        (4, PT_OWNERS, {"equal_rank_beats": "only"}),
        (3, {"A": "C", "B": "D", "C": "H"}, {}),
        (2, {"A": "SC", "B": "HD"}, {}),
        (2, {"A": "SC", "B": "HD"}, {"own_suits_cross_beat": True}),
        (2, {"A": "S", "B": "D"}, {"trumps_per_player_2p": 1}),
        (2, {"A": "S", "B": "D"}, {"variant": "besicovitch", "deck_size": 40}),
    ],
)
def test_a8_beat_relation_matches_reference_for_every_card_pair(
    players: int, owners: dict[str, str], options: dict[str, Any]
) -> None:
    g = make_game(players, owners, **options)
    r = g.rules
    deck = [c for c in range(40) if g.deck >> c & 1]
    for seat, letter in enumerate("ABCD"[:players]):
        own = {"SHDC".index(ch) for ch in owners[letter]}
        for t in deck:
            expected = {
                c for c in deck if ref_beats(c, t, own, r.own_suits_cross_beat, r.equal_rank_beats)
            }
            got = {c for c in deck if g.beats(c, t, seat)}
            assert got == expected, (letter, format_card(t))
            assert g.beat_mask(t, seat) == sum(1 << c for c in expected)


def test_e1_portuguese_chain_relative_trumps() -> None:
    g = make_game()
    s = pos(g, {"A": "KS 8H 9C 6C", "B": "QS 10H 6D", "C": "6H 9D JC", "D": "7S 6S AH 8D"})
    assert sorted(str(m) for m in s.legal_moves()) == [
        "lead 6C",
        "lead 8H",
        "lead 9C",
        "lead KS",
    ]
    s.push_text("lead 8H")
    assert hand_text(s, A) == "KS 9C 6C"
    assert format_cards(s.pile_cards()) == "8H"
    assert (s.to_act, Phase(s.phase).label) == (B, "respond")
    assert beats_of(s) == "10H 6D"
    s.push_text("beat 6D lead QS")
    assert hand_text(s, B) == "10H"
    assert format_cards(s.pile_cards()) == "8H 6D QS"
    assert (s.to_act, Phase(s.phase).label) == (C, "respond")
    assert beats_of(s) == "6H"  # spades are D's suit: plain for C
    s.push_text("beat 6H lead 9D")
    assert hand_text(s, C) == "JC"
    assert format_cards(s.pile_cards()) == "8H 6D QS 6H 9D"
    assert beats_of(s) == "7S 6S"
    assert s.pickup_count() == 3
    assert format_cards(s.pickup_cards()) == "9D 6H QS"
    s.push_text("pickup")  # legal although D could beat
    assert hand_text(s, D) == "QS 7S 6S AH 6H 9D 8D"
    assert format_cards(s.pile_cards()) == "8H 6D"
    assert (s.to_act, Phase(s.phase).label, format_card(s.top or 0)) == (A, "respond", "6D")
    assert beats_of(s) == "9C 6C"  # diamonds are B's trump, plain on A's turn
    s.push_text("beat 9C lead KS")
    assert hand_text(s, A) == "6C"
    assert format_cards(s.pile_cards()) == "8H 6D 9C KS"
    assert (s.to_act, Phase(s.phase).label) == (B, "respond")
    assert [h[0] for h in s.history()] == [A, B, C, D, A]
    assert s.history()[3] == (D, Move.parse("pickup"), cards("9D 6H QS"))
    assert s.turns == 5


@pytest.mark.parametrize(
    ("seat", "hand", "top", "expected"),
    [
        ("B", "JD 9D", "QH", "JD 9D"),  # own trump, any rank
        ("C", "QD 7C", "JD", "QD"),  # B's trump: follow suit; 7C is D's, plain for C
        ("D", "10D 6C 8C", "QD", "8C 6C"),  # own trump beats; 10D is lower
    ],
)
def test_e2_korean_legality_checks(seat: str, hand: str, top: str, expected: str) -> None:
    g = make_game(4, {"A": "S", "B": "D", "C": "H", "D": "C"})
    hands = {k: "" for k in "ABCD"}
    hands[seat] = hand
    # Give one other seat a card so two seats hold cards.
    other = "A" if seat != "A" else "B"
    hands[other] = "AS" if "AS" not in hand else "KS"
    outs = [(k, "lead") for k in "ABCD" if not hands[k]]
    s = pos(g, hands, top, seat, "respond", outs)
    assert beats_of(s) == expected


def test_e3_low_own_trump_beats_foreign_ace_and_short_refusal() -> None:
    g = make_game()
    hands = {"A": "KH 10C 6C", "B": "8D 7D", "C": "QH JH", "D": "10S 9S"}
    s = pos(g, hands, "9H AS", "A", "respond")
    assert beats_of(s) == "10C 6C"
    assert s.pickup_count() == 2  # 3 required, capped; not the whole-pile penalty
    t = s.copy()
    t.push_text("pickup")
    assert hand_text(t, A) == "AS KH 9H 10C 6C"
    assert t.pile_cards() == [] and (t.to_act, Phase(t.phase).label) == (B, "free")
    s.push_text("beat 6C lead KH")
    assert hand_text(s, A) == "10C"
    assert format_cards(s.pile_cards()) == "9H AS 6C KH"
    assert (s.to_act, Phase(s.phase).label) == (B, "respond")


def test_e4_own_suit_on_top_needs_higher_card_of_it() -> None:
    g = make_game()
    hands = {"A": "8C 7C", "B": "QS 8S 7D AC", "C": "QH", "D": "JS 9S AH KD"}
    s = pos(g, hands, "9C 10S", "D", "respond")
    assert beats_of(s) == "JS"
    b = pos(g, hands, "9C 10S", "B", "respond")
    assert beats_of(b) == "QS 7D"
    s.push_text("beat JS lead AH")
    assert hand_text(s, D) == "9S KD"
    assert format_cards(s.pile_cards()) == "9C 10S JS AH"
    assert (s.to_act, Phase(s.phase).label) == (A, "respond")


def test_a8_own_ace_can_never_be_beaten_by_its_owner() -> None:
    g = make_game()
    s = pos(g, {"A": "KC QC 6C", "B": "7D", "C": "8H", "D": "6S"}, "AC", "A", "respond")
    assert s.beat_options() == 0
    assert [str(m) for m in s.legal_moves()] == ["pickup"]


def test_a8_following_suit_is_optional() -> None:
    g = make_game()
    s = pos(g, {"A": "KH 6C", "B": "7D", "C": "8H", "D": "6S"}, "9H", "A", "respond")
    assert beats_of(s) == "KH 6C"
    s.push_text("beat 6C lead KH")
    assert format_cards(s.pile_cards()) == "9H 6C KH"


def test_e16_two_players_two_suits_each() -> None:
    owners = {"A": "SC", "B": "HD"}
    g = make_game(2, owners)
    hands = {"A": "7S AH JC 9C", "B": "KD 8H"}
    s = pos(g, hands, "6D 10C", "A", "respond")
    assert beats_of(s) == "JC"  # spades do not beat own clubs
    assert s.pickup_count() == 2  # 5 required (own suit), capped at 2
    x = pos(make_game(2, owners, own_suits_cross_beat=True), hands, "6D 10C", "A", "respond")
    assert beats_of(x) == "7S JC"
    s = pos(g, hands, "6D 10H", "A", "respond")
    assert beats_of(s) == "7S AH JC 9C"
    assert s.pickup_count() == 2
    s = pos(g, hands, "9S 10S 6D QD AS", "A", "respond")
    assert beats_of(s) == ""
    assert s.pickup_count() == 5
    s.push_text("pickup")
    assert hand_text(s, A) == "AS 10S 9S 7S AH QD 6D JC 9C"
    assert s.pile_cards() == [] and (s.to_act, Phase(s.phase).label) == (B, "free")
    s.push_text("lead 8H")
    assert hand_text(s, B) == "KD"
    assert (s.to_act, Phase(s.phase).label) == (A, "respond")


def test_e16c_played_from_history() -> None:
    g = make_game(2, {"A": "SC", "B": "HD"})
    s = pos(g, {"A": "10S 7S AH 6D JC 9C", "B": "KD QD 9S AS 8H"}, "", "B", "free")
    s.push_text("lead 9S")
    s.push_text("beat 10S lead 6D")
    s.push_text("beat QD lead AS")
    assert format_cards(s.pile_cards()) == "9S 10S 6D QD AS"
    s.push_text("pickup")
    assert hand_text(s, A) == "AS 10S 9S 7S AH QD 6D JC 9C"


def test_e15_three_players_unowned_suit() -> None:
    g = make_game(3, {"A": "C", "B": "D", "C": "H"})
    hands = {"A": "9S 10C", "B": "KS QH 7D", "C": "JS 8H"}
    s = pos(g, hands, "8D 10S 6C JD AS", "B", "respond")
    assert beats_of(s) == "7D"
    assert s.pickup_count() == 3  # nobody's ace: no whole-pile penalty
    s.push_text("pickup")
    assert hand_text(s, B) == "AS KS QH JD 7D 6C"
    assert format_cards(s.pile_cards()) == "8D 10S"
    assert (s.to_act, Phase(s.phase).label) == (C, "respond")
    assert beats_of(s) == "JS 8H"
    c = pos(g, hands, "8D 10S 6C JD AS", "C", "respond")
    assert beats_of(c) == "8H"
    assert c.pickup_count() == 3
    assert g.owner_of(parse_card("AS")) is None
    assert g.owner_of(parse_card("AC")) == A


# --------------------------------------------------------------------------- A9 turn options


def test_a9_free_lead_offers_exactly_one_card_moves() -> None:
    g = make_game()
    s = pos(g, {"A": "KS 8H", "B": "7D", "C": "8D", "D": "6S"})
    assert sorted(str(m) for m in s.legal_moves()) == ["lead 8H", "lead KS"]
    assert s.count_legal_moves() == 2
    assert s.pickup_count() == 0 and s.beat_options() == 0


def test_a9_respond_offers_pickup_and_every_beat_lead_pair() -> None:
    g = make_game()
    s = pos(g, {"A": "KH 6C 7S", "B": "7D", "C": "8D", "D": "6S"}, "9H", "A", "respond")
    assert sorted(str(m) for m in s.legal_moves()) == sorted(
        [
            "pickup",
            "beat KH lead 6C",
            "beat KH lead 7S",
            "beat 6C lead KH",
            "beat 6C lead 7S",
        ]
    )
    assert s.count_legal_moves() == 5


def test_a9_last_card_beat_has_no_lead() -> None:
    g = make_game()
    s = pos(g, {"A": "6C", "B": "7D", "C": "8D", "D": "6S"}, "9H", "A", "respond")
    assert sorted(str(m) for m in s.legal_moves()) == ["beat 6C", "pickup"]


# --------------------------------------------------------------------------- A10 pickups


def test_e5_pickup_five_then_next_faces_new_top() -> None:
    g = make_game()
    hands = {"A": "8C 7C", "B": "QD", "C": "QH", "D": "9S 7S AH KD"}
    s = pos(g, hands, "7H 8H 9H JD KC 9C 10S", "D", "respond")
    assert beats_of(s) == ""
    assert s.pickup_count() == 5
    assert format_cards(s.pickup_cards()) == "10S 9C KC JD 9H"
    s.push_text("pickup")
    assert hand_text(s, D) == "10S 9S 7S AH 9H KD JD KC 9C"
    assert format_cards(s.pile_cards()) == "7H 8H"
    assert (s.to_act, Phase(s.phase).label) == (A, "respond")
    assert beats_of(s) == "8C 7C"


def test_e6_pickup_three() -> None:
    g = make_game()
    s = pos(g, {"A": "AC", "B": "8S 7S", "C": "KC", "D": "QS"}, "6C 7C 9D JS 10H", "B", "respond")
    assert beats_of(s) == ""
    s.push_text("pickup")
    assert hand_text(s, B) == "JS 8S 7S 10H 9D"
    assert format_cards(s.pile_cards()) == "6C 7C"
    assert (s.to_act, Phase(s.phase).label) == (C, "respond")


def test_e7_whole_pile_on_own_ace_then_free_lead() -> None:
    g = make_game()
    hands = {"A": "KC", "B": "QD", "C": "10S 7H", "D": "9S 8S"}
    s = pos(g, hands, "6S 8D 9D 7C JH AH", "C", "respond")
    assert beats_of(s) == ""
    assert s.pickup_count() == 6
    s.push_text("pickup")
    assert hand_text(s, C) == "10S 6S AH JH 7H 9D 8D 7C"
    assert s.pile_cards() == []
    assert (s.to_act, Phase(s.phase).label) == (D, "free")
    assert_refused(s, lambda: s.push_text("pickup"), "nothing to pick up")
    s.push_text("lead 8S")
    assert hand_text(s, D) == "9S"
    assert (s.to_act, Phase(s.phase).label) == (A, "respond")


def test_e8_voluntary_refusal_of_short_pile() -> None:
    g = make_game()
    s = pos(g, {"A": "8S 7C", "B": "JD 10D", "C": "KH", "D": "6S"}, "9D QH", "A", "respond")
    assert beats_of(s) == "7C"
    s.push_text("pickup")
    assert hand_text(s, A) == "8S QH 9D 7C"
    assert s.pile_cards() == [] and (s.to_act, Phase(s.phase).label) == (B, "free")
    s.push_text("lead 10D")
    assert hand_text(s, B) == "JD"
    assert (s.to_act, Phase(s.phase).label) == (C, "respond")


def test_e9_pickup_that_empties_the_pile() -> None:
    g = make_game()
    s = pos(g, {"A": "7D 10C", "B": "KD 8C", "C": "QH", "D": "AS 7S"}, "8S JD 9H", "D", "respond")
    assert beats_of(s) == "AS 7S"
    s.push_text("pickup")
    assert hand_text(s, D) == "AS 8S 7S 9H JD"
    assert (s.to_act, Phase(s.phase).label) == (A, "free")
    s.push_text("lead 10C")
    assert (s.to_act, Phase(s.phase).label) == (B, "respond")
    assert beats_of(s) == "KD"


@pytest.mark.parametrize(
    ("top", "pile_len", "required", "expected"),
    [
        ("KS", 8, 3, 3),  # D-owned spade: plain for A -> 3
        ("KH", 8, 3, 3),
        ("AH", 8, 3, 3),  # another player's trump ace: still 3
        ("KC", 8, 5, 5),  # own suit -> 5
        ("6C", 4, 5, 4),  # own suit, capped at the pile
        ("AC", 8, 40, 8),  # own ace -> whole pile
        ("AC", 1, 40, 1),
        ("9D", 2, 3, 2),
    ],
)
def test_a10_graded_pickup_counts(top: str, pile_len: int, required: int, expected: int) -> None:
    g = make_game(4, {"A": "C", "B": "D", "C": "H", "D": "S"})
    filler = [c for c in parse_card_list("7S 8S 9S 7H 8H 9H 7D 8D 10D") if format_card(c) != top]
    pile = [*filler[: pile_len - 1], parse_card(top)]
    s = g.position([cards("QC"), cards("JD"), cards("JH"), cards("JS")], pile, A, "respond", [])
    assert g.required_pickup(parse_card(top), A) == required
    assert s.pickup_count() == expected
    s.push_text("pickup")
    assert s.hands[A].bit_count() == 1 + expected
    assert len(s.pile_cards()) == pile_len - expected
    assert s.pile_cards() == pile[: pile_len - expected]
    assert s.hands[A] == cards("QC") | sum(1 << c for c in pile[pile_len - expected :])
    assert s.to_act == B
    assert Phase(s.phase).label == ("respond" if pile_len > expected else "free")


@pytest.mark.parametrize(("count", "expected_left"), [(1, "7H 8H 9H JD KC 9C"), (3, "7H 8H 9H JD")])
def test_e18_fixed_pickup_including_own_ace(count: int, expected_left: str) -> None:
    g = make_game(pickup_rule="fixed", fixed_pickup_count=count)
    hands = {"A": "8C 7C", "B": "QD", "C": "QH", "D": "9S 7S AH KD"}
    s = pos(g, hands, "7H 8H 9H JD KC 9C AS", "D", "respond")
    assert beats_of(s) == ""
    assert s.pickup_count() == count
    s.push_text("pickup")
    assert format_cards(s.pile_cards()) == expected_left
    assert s.hands[D].bit_count() == 4 + count
    assert (s.to_act, Phase(s.phase).label) == (A, "respond")
    if count == 3:
        assert hand_text(s, D) == "AS 9S 7S AH KD KC 9C"
        assert format_card(s.top or 0) == "JD"


def test_e18_default_contrast_takes_all_seven() -> None:
    g = make_game()
    hands = {"A": "8C 7C", "B": "QD", "C": "QH", "D": "9S 7S AH KD"}
    s = pos(g, hands, "7H 8H 9H JD KC 9C AS", "D", "respond")
    s.push_text("pickup")
    assert s.hands[D].bit_count() == 11
    assert (s.to_act, Phase(s.phase).label) == (A, "free")


def test_fixed_pickup_capped_at_pile() -> None:
    g = make_game(pickup_rule="fixed", fixed_pickup_count=6)
    s = pos(g, {"A": "8C", "B": "QD", "C": "QH", "D": "9S"}, "7H 8H 9H", "D", "respond")
    assert s.pickup_count() == 3
    s.push_text("pickup")
    assert hand_text(s, D) == "9S 9H 8H 7H"
    assert (s.to_act, Phase(s.phase).label) == (A, "free")


def test_whole_pile_rule_in_standard_game() -> None:
    g = make_game(pickup_rule="whole_pile")
    s = pos(g, {"A": "8C", "B": "QD", "C": "QH", "D": "9S"}, "7H 8H 9H JD", "D", "respond")
    assert s.pickup_count() == 4
    s.push_text("pickup")
    assert s.pile_cards() == [] and (s.to_act, Phase(s.phase).label) == (A, "free")


def test_after_pickup_free_lead_option_leads_on_top_of_the_kept_pile() -> None:
    g = make_game(after_pickup="free_lead")
    hands = {"A": "8C 7C", "B": "QD", "C": "QH", "D": "9S 7S AH KD"}
    s = pos(g, hands, "7H 8H 9H JD KC 9C 10S", "D", "respond")
    s.push_text("pickup")
    assert format_cards(s.pile_cards()) == "7H 8H"
    assert (s.to_act, Phase(s.phase).label) == (A, "free")
    assert sorted(str(m) for m in s.legal_moves()) == ["lead 7C", "lead 8C"]
    s.push_text("lead 7C")
    assert format_cards(s.pile_cards()) == "7H 8H 7C"
    assert (s.to_act, Phase(s.phase).label) == (B, "respond")


def test_pickup_passes_the_turn_over_out_players() -> None:
    g = make_game()
    s = pos(
        g,
        {"A": "", "B": "", "C": "QH 7S", "D": "9S"},
        "7D 8D",
        "D",
        "respond",
        [("A", "lead"), ("B", "defence")],
    )
    s.push_text("pickup")
    assert (s.to_act, Phase(s.phase).label) == (C, "free")
    assert hand_text(s, D) == "9S 8D 7D"


# --------------------------------------------------------------------------- A11 going out


def test_e10_defence_out_gives_free_lead_on_kept_pile_then_lead_out() -> None:
    g = make_game()
    s = pos(g, {"A": "JC 10C", "B": "9D", "C": "7S QC", "D": "8S AD"}, "7C 8H", "B", "respond")
    assert [str(m) for m in s.legal_moves()] == ["pickup", "beat 9D"]
    assert_refused(s, lambda: s.push_text("beat 9D lead QC"), "not in B's hand")
    s.push_text("beat 9D")
    assert s.hands[B] == 0
    assert s.outs == ((B, "defence"),)
    assert format_cards(s.pile_cards()) == "7C 8H 9D"
    assert (s.to_act, Phase(s.phase).label) == (C, "free")
    assert_refused(s, lambda: s.push_text("pickup"))
    assert_refused(s, lambda: s.push_text("beat QC lead 7S"), "free lead")
    s.push_text("lead 7S")
    assert format_cards(s.pile_cards()) == "7C 8H 9D 7S"
    assert (s.to_act, Phase(s.phase).label) == (D, "respond")
    assert beats_of(s) == "8S"
    s.push_text("beat 8S lead AD")
    assert list(s.outs) == [(B, "defence"), (D, "lead")]
    assert s.first_out() == B
    assert (s.to_act, Phase(s.phase).label) == (A, "respond")
    assert beats_of(s) == "JC 10C"
    assert format_cards(s.pile_cards()) == "7C 8H 9D 7S 8S AD"
    assert s.outcome is None


def test_e11_out_on_lead_next_must_answer_the_lead() -> None:
    g = make_game()
    s = pos(g, {"A": "JC 10C", "B": "QH 9D", "C": "7S QC", "D": "8S AD"}, "7C 8H", "B", "respond")
    s.push_text("beat 9D lead QH")
    assert s.outs == ((B, "lead"),)
    assert format_cards(s.pile_cards()) == "7C 8H 9D QH"
    assert (s.to_act, Phase(s.phase).label) == (C, "respond")
    assert beats_of(s) == ""
    assert s.pickup_count() == 4


def test_free_lead_after_defence_out_off_means_beat_the_defence_card() -> None:
    g = make_game(free_lead_after_defence_out=False)
    s = pos(g, {"A": "JC 10C", "B": "9D", "C": "7S QC", "D": "8S AD"}, "7C 8H", "B", "respond")
    s.push_text("beat 9D")
    assert (s.to_act, Phase(s.phase).label) == (C, "respond")
    assert beats_of(s) == ""  # 9D is B's trump, plain for C; C holds no higher diamond
    assert s.pickup_count() == 3
    s.push_text("pickup")
    assert hand_text(s, C) == "7S 8H 9D QC 7C"
    assert (s.to_act, Phase(s.phase).label) == (D, "free")


def test_defence_out_pile_discard() -> None:
    g = make_game(defence_out_pile="discard")
    s = pos(g, {"A": "JC 10C", "B": "9D", "C": "7S QC", "D": "8S AD"}, "7C 8H", "B", "respond")
    s.push_text("beat 9D")
    assert s.pile_cards() == []
    assert s.discard == cards("7C 8H 9D")
    assert (s.to_act, Phase(s.phase).label) == (C, "free")
    s.push_text("lead 7S")
    assert format_cards(s.pile_cards()) == "7S"
    assert s.discard == cards("7C 8H 9D")
    # Card conservation includes the discard.
    held = 0
    for h in s.hands:
        held |= h
    assert held | s.discard | cards(format_cards(s.pile_cards())) == cards(
        "JC 10C 9D 7S QC 8S AD 7C 8H"
    )


def test_defence_out_pile_discard_only_when_the_hand_goes_on() -> None:
    g = make_game(defence_out_pile="discard")
    s = pos(
        g,
        {"A": "", "B": "KH", "C": "", "D": "AH"},
        "7C 9C 10H",
        "B",
        "respond",
        [("A", "lead"), ("C", "lead")],
    )
    s.push_text("beat KH")
    assert s.outcome == Outcome(D, "out")
    assert format_cards(s.pile_cards()) == "7C 9C 10H KH"
    assert s.discard == 0


def test_out_on_free_lead_is_out_on_a_lead() -> None:
    g = make_game()
    s = pos(g, {"A": "KS", "B": "7D 8D", "C": "8H", "D": "6S"})
    s.push_text("lead KS")
    assert s.outs == ((A, "lead"),)
    assert (s.to_act, Phase(s.phase).label) == (B, "respond")


# --------------------------------------------------------------------------- A12 end of hand


def test_e12_defence_out_leaves_last_player_the_loser() -> None:
    g = make_game()
    args: list[Any] = [
        {"A": "", "B": "KH", "C": "", "D": "AH"},
        "7C 9C 10H",
        "B",
        "respond",
        [("A", "lead"), ("C", "defence")],
    ]
    s = pos(g, *args)
    s.push_text("beat KH")
    assert s.outcome == Outcome(D, "out")
    assert s.is_over and s.to_act == -1
    assert s.outs[-1] == (B, "defence")
    assert s.returns() == (0.0, 0.0, 0.0, -1.0)
    assert str(s.outcome) == "loser D"
    s2 = pos(make_game(draw_rule="any_last_card"), *args)
    s2.push_text("beat KH")
    assert s2.outcome == Outcome(None, "last_card")
    assert s2.outcome.is_draw and not s2.outcome.adjudicated
    assert s2.returns() == (0.0,) * 4


@pytest.mark.parametrize(
    ("c_hand", "draw_rule", "expected"),
    [
        ("JH", "lead_only", Outcome(None, "last_card")),  # E13
        ("JH", "any_last_card", Outcome(None, "last_card")),
        ("JH", "none", Outcome(C, "out")),
        ("6H", "lead_only", Outcome(C, "out")),  # E14: lower own card
        ("KS", "lead_only", Outcome(C, "out")),  # E14: other suit
        ("JH 6D", "lead_only", Outcome(C, "out")),  # E14: two cards
        ("JH 6D", "any_last_card", Outcome(C, "out")),
    ],
)
def test_e13_e14_draw_rule(c_hand: str, draw_rule: str, expected: Outcome) -> None:
    g = make_game(draw_rule=draw_rule)
    s = pos(
        g,
        {"A": "QS 7H", "B": "", "C": c_hand, "D": ""},
        "9D 8S",
        "A",
        "respond",
        [("B", "lead"), ("D", "defence")],
    )
    assert beats_of(s) == "QS"
    s.push_text("beat QS lead 7H")
    assert s.outcome == expected
    assert s.outs[-1] == (A, "lead")
    assert format_cards(s.pile_cards()) == "9D 8S QS 7H"


def test_two_players_defence_out_ends_hand() -> None:
    g = make_game(2, {"A": "SC", "B": "HD"})
    s = pos(g, {"A": "7S", "B": "KH AH"}, "9D", "A", "respond")
    s.push_text("beat 7S")
    assert s.outcome == Outcome(B, "out")


def test_first_out_wins_besicovitch_even_on_defence() -> None:
    g = Game(Rules(variant="besicovitch"), {"A": "S", "B": "D"}, {"A": "SC", "B": "DH"})
    s = g.position([cards("7S"), cards("KH AH")], parse_card_list("9D"), A, "respond")
    s.push_text("beat 7S")
    assert s.outcome == Outcome(B, "out")
    assert s.returns() == (1.0, -1.0)


@pytest.mark.parametrize(("draw_option", "expected"), [(False, Outcome(B, "out")), (True, None)])
def test_besicovitch_draw_rule(draw_option: bool, expected: Outcome | None) -> None:
    g = Game(
        Rules.from_dict({"variant": "besicovitch", "besicovitch_draw_rule": draw_option}),
        {"A": "S", "B": "D"},
        {"A": "SC", "B": "DH"},
    )
    s = g.position([cards("QS 7H"), cards("JH")], parse_card_list("8S"), A, "respond")
    # JH beats 7H for B (same suit, higher); hearts are nobody's trump here.
    s.push_text("beat QS lead 7H")
    if expected is None:
        assert s.outcome == Outcome(None, "last_card")
        assert s.returns() == (0.0, 0.0)
    else:
        assert s.outcome == expected
        assert s.returns() == (1.0, -1.0)


# --------------------------------------------------------------------------- A3/A4 dealing

E17_DECK = (
    "6D 7D 6C 6S 6H 8S 9S 10D 7S QH 10H 8D 9C 9D QD AD JH 7C 8C QS KD KS JC JS "
    "AS AH AC 9H 10C JD 7H QC 8H 10S KH KC"
)


def test_e17a_deal_four_players() -> None:
    g = make_game()
    s = g.deal(D, parse_card_list(E17_DECK))
    assert hand_text(s, A) == "AS 7S JH 8H KD 10C 9C 6C"
    assert hand_text(s, B) == "KS 10S 8S AH QH JD 9D 7D 6D 7C"
    assert hand_text(s, C) == "9S KH 10H 7H 6H QD AC JC 8C"
    assert hand_text(s, D) == "QS JS 6S 9H AD 10D 8D KC QC"
    assert s.hand_sizes() == (8, 10, 9, 9)
    assert sorted(s.origin.transfers) == sorted(
        [(parse_card("6D"), A, B), (parse_card("6H"), A, C), (parse_card("6C"), C, A)]
    )
    assert (s.to_act, Phase(s.phase).label) == (A, "free")
    assert s.origin.dealer == D
    hands, _ = g.deal_hands(parse_card_list(E17_DECK), D)
    assert hands == s.hands


def test_e17b_deal_three_players_unowned_six_stays() -> None:
    g = make_game(3, {"A": "C", "B": "D", "C": "H"})
    s = g.deal(C, parse_card_list(E17_DECK))
    assert hand_text(s, A) == "AS KS 10S 9S 6S QH 9H 7H AD 9C 8C 6C"
    assert hand_text(s, B) == "QS AH KH JH 10H 10D 9D 7D 6D QC JC 10C"
    assert hand_text(s, C) == "JS 8S 7S 8H 6H KD QD JD 8D AC KC 7C"
    assert s.hand_sizes() == (12, 12, 12)
    assert len(s.origin.transfers) == 3
    assert s.to_act == A


def test_e17c_deal_two_players() -> None:
    g = make_game(2, {"A": "SC", "B": "HD"})
    s = g.deal(B, parse_card_list(E17_DECK))
    assert hand_text(s, A) == "AS 9S 7S 6S KH JH 10H 8H 7H KD QD AC JC 10C 9C 8C 6C"
    assert hand_text(s, B) == "KS QS JS 10S 8S AH QH 9H 6H AD JD 10D 9D 8D 7D 6D KC QC 7C"
    assert s.hand_sizes() == (17, 19)
    assert s.to_act == A


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(6))
def test_a3_a4_deal_invariants(players: int, seed: int) -> None:
    g = make_game(players)
    rng = random.Random(seed)
    dealer = rng.randrange(players)
    deck = g.shuffled_deck(rng)
    s = g.deal(dealer, deck)
    # Before the sixes: one card at a time from the dealer's left.
    for i, c in enumerate(deck):
        receiver = (dealer + 1 + i) % players
        six_owner = g.owner_of(c) if rank_of(c) == 1 else None
        holder = six_owner if six_owner is not None else receiver
        assert s.hands[holder] >> c & 1
    for seat in range(players):
        for suit in range(4):
            if g.owners[seat] >> suit & 1:
                assert s.hands[seat] >> card(suit, 1) & 1
    assert sum(s.hand_sizes()) == 36
    assert (s.to_act, Phase(s.phase).label) == ((dealer + 1) % players, "free")
    dealt_sizes = [36 // players] * players
    for c, frm, to in s.origin.transfers:
        assert rank_of(c) == 1 and g.owner_of(c) == to and frm != to
        dealt_sizes[frm] -= 1
        dealt_sizes[to] += 1
    assert list(s.hand_sizes()) == dealt_sizes


def test_deal_rejects_bad_decks() -> None:
    g = make_game()
    deck = parse_card_list(E17_DECK)
    with pytest.raises(PositionError, match="missing 6D"):
        g.deal(A, deck[1:])
    with pytest.raises(PositionError, match="twice"):
        g.deal(A, [*deck[1:], deck[2]])
    with pytest.raises(PositionError, match="not in this deck 5S"):
        g.deal(A, [*deck[1:], parse_card("5S")])
    with pytest.raises(PositionError, match="dealer"):
        g.deal(4, deck)


def test_same_seed_same_deal() -> None:
    g = make_game()
    a = g.new_hand(2, seed=1234)
    b = g.new_hand(2, seed=1234)
    c = g.new_hand(2, seed=1235)
    assert a.hands == b.hands and a.origin == b.origin
    assert a.hands != c.hands


# --------------------------------------------------------------------------- C3 Besicovitch


def besic(**options: Any) -> Game:
    return Game(
        Rules.from_dict({"variant": "besicovitch", **options}),
        {"A": "S", "B": "D"},
        {"A": "SC", "B": "DH"},
    )


def test_e21_besicovitch_mirror_deal_example() -> None:
    g = besic(deck_size=24)
    half = "KS QS JS JC 10C 9C AH 10H 9D KD JH QD"
    used = set(half.split())
    rest = [format_card(c) for c in range(40) if g.deck >> c & 1 and format_card(c) not in used]
    deck = parse_card_list(half + " " + " ".join(rest))
    s = g.deal(A, deck)
    assert hand_text(s, A) == "KS QS JS AH KH QH AD 10D 9D JC 10C 9C"
    assert hand_text(s, B) == "AS 10S 9S JH 10H 9H KD QD JD AC KC QC"
    assert s.origin.transfers == ()
    assert (s.to_act, Phase(s.phase).label) == (A, "free")  # the dealer leads


@pytest.mark.parametrize("deck_size", [24, 32, 36, 40])
@pytest.mark.parametrize("seed", range(4))
def test_c3_mirror_deal_property(deck_size: int, seed: int) -> None:
    g = besic(deck_size=deck_size)
    assert g.deck.bit_count() == deck_size
    rng = random.Random(seed)
    dealer = seed % 2
    opp = 1 - dealer
    deck = g.shuffled_deck(rng)
    s = g.deal(dealer, deck)
    assert s.hand_sizes() == (deck_size // 2, deck_size // 2)
    assert s.hands[0] | s.hands[1] == g.deck and not s.hands[0] & s.hands[1]
    t1 = g.owners[dealer].bit_length() - 1
    t2 = g.owners[opp].bit_length() - 1
    assert g.pairs is not None
    s1 = (g.pairs[dealer] & ~g.owners[dealer]).bit_length() - 1
    s2 = (g.pairs[opp] & ~g.owners[opp]).bit_length() - 1
    mirror = {t1: t2, s1: s2, t2: t1, s2: s1}
    for c in range(40):
        if g.deck >> c & 1:
            mc = card(mirror[suit_of(c)], rank_of(c))
            for seat in (0, 1):
                assert (s.hands[seat] >> c & 1) == (s.hands[1 - seat] >> mc & 1)
    # The dealer keeps his own suits' cards of the top half.
    for c in deck[: deck_size // 2]:
        if suit_of(c) in (t1, s1):
            assert s.hands[dealer] >> c & 1
    for c in deck[deck_size // 2 :]:
        if suit_of(c) in (t1, s1):
            assert s.hands[opp] >> c & 1
    if deck_size == 40:
        assert any(rank_of(c) == 0 for c in range(40) if s.hands[dealer] >> c & 1)


@pytest.mark.parametrize(("leader", "expected"), [("dealer", B), ("non_dealer", A)])
def test_c3_first_leader_option(leader: str, expected: int) -> None:
    g = besic(besicovitch_first_leader=leader)
    s = g.new_hand(dealer=B, seed=3)
    assert (s.to_act, Phase(s.phase).label) == (expected, "free")
    assert g.first_player(B) == expected


@pytest.mark.parametrize(("taker_leads", "leader"), [(False, A), (True, B)])
def test_c3_whole_pile_take_and_who_leads_next(taker_leads: bool, leader: int) -> None:
    g = besic(taker_leads_after_pickup=taker_leads)
    s = g.position([cards("KS 9C"), cards("9D 8D 7H")], parse_card_list("9H 8S 10D"), B, "respond")
    assert beats_of(s) == ""  # 10D is B's trump: only a higher diamond; B has none
    assert s.pickup_count() == 3
    s.push_text("pickup")
    assert hand_text(s, B) == "8S 9H 7H 10D 9D 8D"
    assert s.pile_cards() == []
    assert (s.to_act, Phase(s.phase).label) == (leader, "free")


# --------------------------------------------------------------------------- D guards

E19_STEPS = [
    "lead 7H",
    "beat 9H lead 8C",
    "pickup",
    "lead 6H",
    "beat 9H lead 8C",
    "pickup",
]


def e19(**options: Any) -> State:
    g = make_game(2, {"A": "SC", "B": "HD"}, **options)
    return pos(g, {"A": "KS 7H", "B": "9H 6H QD 8C"})


def test_e19_cycle_returns_to_p0_and_threefold_is_a_draw() -> None:
    s = e19()
    p0 = snapshot(s)[:3]
    assert s.repetition_count() == 1
    for m in E19_STEPS:
        s.push_text(m)
    assert snapshot(s)[:3] == p0
    assert s.repetition_count() == 2
    assert s.outcome is None
    for i, m in enumerate(E19_STEPS, 7):
        assert s.outcome is None, i
        s.push_text(m)
    assert s.outcome == Outcome(None, "repetition")
    assert Outcome(None, "repetition").adjudicated and s.is_over
    assert s.turns == 12
    assert_refused(s, lambda: s.push_text("lead 7H"), exc=HandOverError)


def test_e19_intermediate_states() -> None:
    s = e19()
    s.push_text("lead 7H")
    assert beats_of(s) == "9H"
    s.push_text("beat 9H lead 8C")
    assert beats_of(s) == ""
    assert s.pickup_count() == 3
    s.push_text("pickup")
    assert hand_text(s, A) == "KS 9H 7H 8C"
    assert (s.to_act, Phase(s.phase).label) == (B, "free")
    s.push_text("lead 6H")
    assert beats_of(s) == "KS 9H 7H 8C"
    s.push_text("beat 9H lead 8C")
    assert beats_of(s) == "QD"
    s.push_text("pickup")
    assert hand_text(s, B) == "9H 6H QD 8C"
    assert (s.to_act, Phase(s.phase).label) == (A, "free")


@pytest.mark.parametrize("keep", ["copy", "original"])
def test_e19_repetition_is_counted_across_copies(keep: str) -> None:
    """The repetition history travels with copies: continuing on a fresh copy
    (or on the original after copying) after every action still ends at 12."""
    s = e19()
    for i, m in enumerate(E19_STEPS * 2, 1):
        c = s.copy()
        if keep == "copy":
            s = c
        s.push_text(m)
        if i == 6:
            assert s.repetition_count() == 2
        assert (s.outcome is None) == (i < 12), i
    assert s.outcome == Outcome(None, "repetition")


def test_repetition_limit_two_and_off() -> None:
    s = e19(repetition_limit=2)
    for m in E19_STEPS:
        s.push_text(m)
    assert s.outcome == Outcome(None, "repetition") and s.turns == 6
    s = e19(repetition_limit=None)
    for _ in range(5):
        for m in E19_STEPS:
            s.push_text(m)
    assert s.outcome is None and s.turns == 30
    assert s.repetition_count() == 0


def test_repetition_is_checked_before_the_cap() -> None:
    s = e19(repetition_limit=2, max_actions_per_hand=6, cap_outcome="most_cards_loses")
    for m in E19_STEPS:
        s.push_text(m)
    assert s.outcome == Outcome(None, "repetition")


@pytest.mark.parametrize(
    ("cap", "outcome", "expected"),
    [
        (3, "draw", Outcome(None, "action_cap")),
        (3, "most_cards_loses", Outcome(A, "action_cap")),  # A 4 cards, B 2
        (2, "most_cards_loses", Outcome(B, "action_cap")),  # A 1, B 2
        (1, "most_cards_loses", Outcome(B, "action_cap")),  # A 1, B 4
        (4, "most_cards_loses", Outcome(A, "action_cap")),  # A 4, B 1
    ],
)
def test_action_cap(cap: int, outcome: str, expected: Outcome) -> None:
    s = e19(max_actions_per_hand=cap, cap_outcome=outcome)
    for m in E19_STEPS[:cap]:
        assert s.outcome is None
        s.push_text(m)
    assert s.outcome == expected
    assert s.turns == cap
    assert s.outcome.adjudicated
    assert s.is_over and s.to_act == -1


def test_action_cap_tie_is_a_draw() -> None:
    g = make_game(2, {"A": "SC", "B": "HD"}, max_actions_per_hand=1, cap_outcome="most_cards_loses")
    s = pos(g, {"A": "KS 7H 8S", "B": "9H 6H"})
    s.push_text("lead 7H")
    assert s.hand_sizes() == (2, 2)
    assert s.outcome == Outcome(None, "action_cap")


def test_action_that_ends_the_hand_keeps_its_result_at_the_cap() -> None:
    g = make_game(max_actions_per_hand=1, cap_outcome="most_cards_loses")
    s = pos(
        g,
        {"A": "QS 7H", "B": "", "C": "JH", "D": ""},
        "9D 8S",
        "A",
        "respond",
        [("B", "lead"), ("D", "defence")],
    )
    s.push_text("beat QS lead 7H")
    assert s.outcome == Outcome(None, "last_card")
    g = make_game(max_actions_per_hand=1)
    s = pos(
        g,
        {"A": "", "B": "KH", "C": "", "D": "AH"},
        "7C 9C 10H",
        "B",
        "respond",
        [("A", "lead"), ("C", "defence")],
    )
    s.push_text("beat KH")
    assert s.outcome == Outcome(D, "out")


def test_cap_counts_from_the_start_position_turns() -> None:
    g = make_game(2, {"A": "SC", "B": "HD"}, max_actions_per_hand=10)
    s = g.position([cards("KS 7H"), cards("9H 6H QD 8C")], [], A, FREE, [], turns=8)
    s.push_text("lead 7H")
    assert s.outcome is None
    s.push_text("beat 9H lead 8C")
    assert s.outcome == Outcome(None, "action_cap")


# --------------------------------------------------------------------------- bad input


def e1_respond() -> State:
    g = make_game()
    s = pos(g, {"A": "KS 8H 9C 6C", "B": "QS 10H 6D", "C": "6H 9D JC", "D": "7S 6S AH 8D"})
    s.push_text("lead 8H")
    return s


@pytest.mark.parametrize(
    ("move", "match"),
    [
        ("beat 6H lead QS", "6H is not in B's hand"),  # not in hand
        ("beat 6D lead 9C", "9C is not in B's hand"),  # lead not in hand
        ("beat QS lead 6D", "QS does not beat 8H for B"),  # does not beat
        ("beat 6D", "must lead another card"),  # lead missing
        ("beat 6D lead 6D", "beat and lead are one card"),
        ("lead 6D", "a plain lead is only for a free lead"),  # plain lead in respond mode
        ("beat 8H lead 6D", "8H is not in B's hand"),  # the top card itself
        ("lead", "malformed"),
        ("beat 6D lead", "malformed"),
        ("beat 6D QS", "malformed"),
        ("pick up", "malformed"),
        ("lead 1D", "malformed"),
        ("beat XX lead QS", "malformed"),
        ("", "malformed"),
        ("play 6D", "malformed"),
    ],
)
def test_illegal_moves_in_respond_mode_change_nothing(move: str, match: str) -> None:
    s = e1_respond()
    assert_refused(s, lambda: s.push_text(move), match)
    if "malformed" not in match and "one card" not in match:
        assert not s.is_legal(Move.parse(move))


@pytest.mark.parametrize(
    ("move", "match"),
    [
        ("pickup", "nothing to pick up"),  # pickup on a free lead
        ("lead 6D", "6D is not in A's hand"),
        ("beat 9C lead KS", "free lead"),  # lead with a beat-out
        ("beat 9C", "free lead"),
    ],
)
def test_illegal_moves_in_free_mode_change_nothing(move: str, match: str) -> None:
    g = make_game()
    s = pos(g, {"A": "KS 8H 9C 6C", "B": "QS 10H 6D", "C": "6H 9D JC", "D": "7S 6S AH 8D"})
    assert_refused(s, lambda: s.push_text(move), match)


def test_wrong_seat_is_refused() -> None:
    s = e1_respond()
    assert_refused(s, lambda: s.push_text("beat 6D lead QS", seat=C), "it is B's turn, not C's")
    assert_refused(s, lambda: s.push_text("pickup", seat=A), "B's turn")
    s.push_text("beat 6D lead QS", seat=B)
    assert s.to_act == C


@pytest.mark.parametrize("bad", [None, 42, 3.5, ("beat", "6D"), b"pickup", PICKUP])
def test_wrong_types_for_push(bad: Any) -> None:
    s = e1_respond()
    assert_refused(s, lambda: s.push(bad))


def test_moves_after_the_hand_ended_raise_hand_over() -> None:
    g = make_game()
    s = pos(
        g,
        {"A": "", "B": "KH", "C": "", "D": "AH"},
        "7C 9C 10H",
        "B",
        "respond",
        [("A", "lead"), ("C", "defence")],
    )
    s.push_text("beat KH")
    for m in ("pickup", "lead AH", "beat AH", "beat AH lead KH"):
        assert_refused(s, partial(s.push_text, m), "hand is over", HandOverError)
    for a in (PICKUP, parse_card("AH"), 0):
        assert_refused(s, partial(s.apply_action, a), "hand is over", HandOverError)
    assert s.legal_moves() == [] and s.legal_actions() == () and s.legal_action_mask() == 0
    assert s.count_legal_moves() == 0
    assert issubclass(HandOverError, IllegalMoveError)


@pytest.mark.parametrize(
    ("action", "match"),
    [
        (-1, "int in 0..40"),
        (41, "int in 0..40"),
        (1000, "int in 0..40"),
        pytest.param("6D", "int in 0..40"),
        pytest.param(None, "int in 0..40"),
        pytest.param(2.0, "int in 0..40"),
        (parse_card("6H"), "6H is not in B's hand"),
        (parse_card("QS"), "QS does not beat 8H for B"),
    ],
)
def test_illegal_step_actions_in_respond_mode(action: Any, match: str) -> None:
    s = e1_respond()
    assert_refused(s, lambda: s.apply_action(action), match)


@pytest.mark.parametrize(
    ("action", "match"),
    [
        (PICKUP, "cannot pick up now: free mode"),
        (parse_card("6D"), "6D is not in A's hand"),
        (-5, "int in 0..40"),
        pytest.param("pickup", "int in 0..40"),
        pytest.param(None, "int in 0..40"),
    ],
)
def test_illegal_step_actions_in_free_mode(action: Any, match: str) -> None:
    g = make_game()
    s = pos(g, {"A": "KS 8H 9C 6C", "B": "QS 10H 6D", "C": "6H 9D JC", "D": "7S 6S AH 8D"})
    assert_refused(s, lambda: s.apply_action(action), match)


def test_mid_turn_lead_step_and_refusals() -> None:
    s = e1_respond()
    s.apply_action(parse_card("6D"))
    assert s.phase == LEAD and Phase(s.phase).label == "lead"
    assert s.to_act == B
    assert set(s.legal_actions()) == {parse_card("QS"), parse_card("10H")}
    assert_refused(s, lambda: s.apply_action(PICKUP), "cannot pick up now: lead mode")
    assert_refused(s, lambda: s.apply_action(parse_card("9C")), "9C is not in B's hand")
    assert_refused(s, lambda: s.push_text("pickup"), "mid-turn")
    assert_refused(s, lambda: s.push_text("lead QS"), "mid-turn")
    with pytest.raises(IllegalMoveError, match="mid-turn"):
        s.legal_moves()
    assert s.count_legal_moves() == 2
    s.apply_action(parse_card("QS"))
    assert s.history()[-1] == (B, Move.parse("beat 6D lead QS"), 0)
    assert (s.to_act, s.phase) == (C, RESPOND)
    assert s.turns == 2


def test_bool_step_action_is_refused() -> None:
    g = make_game(2, {"A": "SC", "B": "HD"})
    s = pos(g, {"A": "6S 7S", "B": "8H 9H"})
    # bool is an int subclass, but True is not card 1 (6S).
    assert_refused(s, lambda: s.apply_action(True), "int in 0..40")
    assert_refused(s, lambda: s.apply_action(False), "int in 0..40")


def test_numpy_integer_step_actions_are_accepted() -> None:
    np = pytest.importorskip("numpy")
    g = make_game(2, {"A": "SC", "B": "HD"})
    s = pos(g, {"A": "6S 7S", "B": "8H 9H"})
    s.apply_action(np.int64(parse_card("7S")))
    assert format_cards(s.pile_cards()) == "7S" and s.to_act == B
    assert_refused(s, lambda: s.apply_action(np.int64(parse_card("6S"))), "not in B's hand")


def test_move_parse_refuses_non_text() -> None:
    with pytest.raises(IllegalMoveError, match="must be text"):
        Move.parse(5)  # type: ignore[arg-type]


def test_is_legal_and_parse_move() -> None:
    s = e1_respond()
    assert s.is_legal(Move.parse("beat 6D lead QS"))
    assert not s.is_legal(Move.parse("beat QS lead 6D"))
    assert parse_forgiving(s, "6d qs") == Move.parse("beat 6D lead QS")
    assert parse_forgiving(s, "p") == Move.parse("pickup")
    assert parse_forgiving(s, "beat 10h lead 6d") == Move.parse("beat 10H lead 6D")
    before = snapshot(s)
    for bad in ("6d", "qs 6d", "6d 6d", "6d qs 10h", "zz", ""):
        with pytest.raises(IllegalMoveError):
            parse_forgiving(s, bad)
    assert snapshot(s) == before


def test_move_parse_and_interning() -> None:
    m = Move.parse("beat 6D lead QS")
    assert m is Move.parse("BEAT 6d LEAD qs")
    assert m.beat == parse_card("6D") and m.lead == parse_card("QS")
    assert m.steps() == (parse_card("6D"), parse_card("QS"))
    assert Move.parse("pickup").steps() == (PICKUP,)
    assert Move.parse("pickup").is_pickup and Move.parse("lead TH").is_lead
    assert str(Move.parse("lead TH")) == "lead 10H"
    assert str(Move.parse("beat 6D")) == "beat 6D"
    assert Move.get(None, None) is Move.parse("pickup")
    with pytest.raises(IllegalMoveError, match="malformed"):
        Move.parse("lead 5X")
    assert issubclass(CardError, ValueError) and issubclass(IllegalMoveError, ValueError)


# --------------------------------------------------------------------------- positions


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"hands": {"A": "KS", "B": "KS", "C": "7D", "D": "8D"}}, "appear twice"),
        ({"hands": {"A": "KS", "B": "QS", "C": "7D", "D": "8D"}, "pile": "KS"}, "twice"),
        ({"hands": {"A": "KS 5S", "B": "QS", "C": "7D", "D": "8D"}}, "not in this deck"),
        ({"hands": {"A": "KS", "B": "QS", "C": "7D"}}, "all 4 seats"),
        ({"hands": {"A": "KS", "B": "QS", "C": "7D", "D": "8D"}, "phase": "respond"}, "pile"),
        ({"hands": {"A": "", "B": "QS", "C": "7D", "D": "8D"}}, "'out' must list"),
        (
            {
                "hands": {"A": "", "B": "QS", "C": "7D", "D": "8D"},
                "to_act": "A",
                "outs": [("A", "lead")],
            },
            "to act must hold cards",
        ),
        (
            {"hands": {"A": "KS", "B": "", "C": "", "D": ""}, "outs": [("B", "lead")]},
            "'out' must list",
        ),
        (
            {
                "hands": {"A": "KS", "B": "", "C": "", "D": ""},
                "outs": [("B", "lead"), ("C", "lead"), ("D", "lead")],
            },
            "at least two players",
        ),
        ({"hands": {"A": "KS", "B": "QS", "C": "7D", "D": "8D"}, "phase": "bogus"}, "phase"),
        ({"hands": {"A": "KS", "B": "QS", "C": "7D", "E": "8D"}}, "unknown seat"),
        (
            {
                "hands": {"A": "KS", "B": "", "C": "7D", "D": "8D"},
                "outs": [("B", "sideways")],
            },
            "lead or defence",
        ),
    ],
)
def test_bad_positions_raise_position_error(kwargs: dict[str, Any], match: str) -> None:
    g = make_game()
    args = {"pile": "", "to_act": "A", "phase": "free", "outs": None, **kwargs}
    with pytest.raises(PositionError, match=match):
        pos(g, args["hands"], args["pile"], args["to_act"], args["phase"], args["outs"])


@pytest.mark.parametrize(
    ("owners", "players", "match"),
    [
        ({"A": "C", "B": "C", "C": "H", "D": "S"}, 4, "same suit"),
        ({"A": "CD", "B": "H", "C": "S", "D": ""}, 4, "exactly 1 suit"),
        ({"A": "S", "B": "H"}, 2, "exactly 2 suits"),
        (["S", "H", "D"], 4, "4 seats"),
        ({"A": "X", "B": "H", "C": "S", "D": "D"}, 4, "suit"),
    ],
)
def test_bad_ownership(owners: Any, players: int, match: str) -> None:
    with pytest.raises((PositionError, CardError), match=match):
        Game(Rules(num_players=players), owners)


def test_position_start_counts_and_cards_exist_only_as_listed() -> None:
    g = make_game()
    s = pos(g, {"A": "KS", "B": "QS", "C": "7D", "D": "8D"})
    assert sum(s.hand_sizes()) == 4
    assert s.turns == 0 and s.history() == [] and s.outs == ()
    assert s.outcome is None and s.first_out() is None
    assert OVER == 3 and FREE == 0 and RESPOND == 1


def test_position_accepts_json_shaped_outs() -> None:
    """Outs straight from JSON are lists, not tuples; both must work."""
    g = make_game()
    hands = {"A": "", "B": "KH", "C": "", "D": "AH"}
    s = position_from_text(g, hands, "7C 9C 10H", "B", "respond", [["A", "lead"], ["C", "defence"]])  # type: ignore[list-item]
    assert s.outs == ((A, "lead"), (C, "defence"))
