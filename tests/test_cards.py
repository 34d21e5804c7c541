"""Card encoding, parsing and formatting (SPEC A1 notation, FORMAT.md notation).

Cards are ints ``suit * 10 + rank``; these tests pin the exact encoding because
scenario files, records and the step-level action space all depend on it."""

from __future__ import annotations

import pytest

from svoi_kozyri.core import (
    ALL_CARDS,
    NUM_CARDS,
    CardError,
    card,
    cards_of,
    display_order,
    format_card,
    format_cards,
    iter_cards,
    mask_of,
    parse_card,
    parse_card_list,
    parse_cards,
    parse_suit,
    rank_of,
    suit_of,
)
from svoi_kozyri.core.cards import deck_mask, higher_mask


def test_encoding_is_suit_times_ten_plus_rank() -> None:
    assert NUM_CARDS == 40
    assert parse_card("5S") == 0
    assert parse_card("6S") == 1
    assert parse_card("AS") == 9
    assert parse_card("5H") == 10
    assert parse_card("10H") == 15
    assert parse_card("6D") == 21
    assert parse_card("AC") == 39
    for c in range(NUM_CARDS):
        assert card(suit_of(c), rank_of(c)) == c


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10H", "10H"),
        ("TH", "10H"),
        ("th", "10H"),
        ("tH", "10H"),
        ("as", "AS"),
        (" qd ", "QD"),
        ("6c", "6C"),
        ("5S", "5S"),
        ("Q♠", "QS"),
        ("10♥", "10H"),
        ("T♦", "10D"),
        ("j♣", "JC"),
    ],
)
def test_parse_card_accepts_all_spellings(text: str, expected: str) -> None:
    assert format_card(parse_card(text)) == expected


@pytest.mark.parametrize(
    "text",
    ["", "H", "1H", "11H", "4S", "10", "AX", "A", "KSS", "10HH", "ZZ", "1 0H", "♠Q", "6♤"],
)
def test_parse_card_rejects_bad_cards(text: str) -> None:
    with pytest.raises(CardError):
        parse_card(text)


def test_card_error_is_a_value_error_with_the_text() -> None:
    with pytest.raises(ValueError, match="'1H'"):
        parse_card("1H")
    with pytest.raises(CardError, match="suit"):
        parse_card("AX")
    with pytest.raises(CardError, match="rank"):
        parse_card("ZS")


def test_format_card_variants() -> None:
    ten_h = parse_card("10H")
    assert format_card(ten_h) == "10H"
    assert format_card(ten_h, ten="T") == "TH"
    assert format_card(ten_h, unicode=True) == "10♥"
    assert format_card(parse_card("AS"), unicode=True) == "A♠"
    assert format_card(parse_card("6D"), unicode=True) == "6♦"
    assert format_card(parse_card("KC"), unicode=True) == "K♣"
    assert format_card(parse_card("5C")) == "5C"


def test_format_parse_roundtrip_all_cards() -> None:
    for c in range(NUM_CARDS):
        assert parse_card(format_card(c)) == c
        assert parse_card(format_card(c, unicode=True)) == c
        assert parse_card(format_card(c, ten="T")) == c


def test_parse_suit() -> None:
    assert [parse_suit(s) for s in "SHDC"] == [0, 1, 2, 3]
    assert [parse_suit(s) for s in "shdc"] == [0, 1, 2, 3]
    assert [parse_suit(s) for s in "♠♥♦♣"] == [0, 1, 2, 3]
    for bad in ("", "X", "SH", "1"):
        with pytest.raises(CardError):
            parse_suit(bad)


def test_card_lists_keep_order_and_sets_display_in_spec_order() -> None:
    seq = parse_card_list("9C KS 8H 6C")
    assert [format_card(c) for c in seq] == ["9C", "KS", "8H", "6C"]
    assert format_cards(seq) == "9C KS 8H 6C"
    m = parse_cards("9C KS 8H 6C")
    assert m == mask_of(seq)
    # A set is shown S H D C, high to low (the SPEC listing order).
    assert format_cards(m) == "KS 8H 9C 6C"
    assert [format_card(c) for c in display_order(m)] == ["KS", "8H", "9C", "6C"]
    assert format_cards(m, unicode=True) == "K♠ 8♥ 9♣ 6♣"
    assert parse_cards("") == 0
    assert format_cards(0) == ""
    assert parse_card_list("  ") == []


def test_card_list_rejects_duplicates_and_bad_tokens() -> None:
    with pytest.raises(CardError, match="twice"):
        parse_card_list("KS 8H KS")
    with pytest.raises(CardError, match="twice"):
        parse_cards("10H TH")
    with pytest.raises(CardError):
        parse_cards("KS 8X")


def test_set_helpers() -> None:
    m = parse_cards("AC 6S 10H")
    assert cards_of(m) == [1, 15, 39]
    assert list(iter_cards(m)) == [1, 15, 39]
    assert m.bit_count() == 3
    assert ALL_CARDS.bit_count() == 40
    assert mask_of([]) == 0


def test_decks() -> None:
    assert deck_mask(1).bit_count() == 36  # 6..A
    assert deck_mask(0) == ALL_CARDS
    assert format_cards(deck_mask(8) & parse_cards("KS QS 9S AS")) == "AS KS"
    assert not deck_mask(1) >> parse_card("5H") & 1


def test_higher_mask() -> None:
    assert format_cards(higher_mask(parse_card("10S"))) == "AS KS QS JS"
    assert higher_mask(parse_card("AH")) == 0
    assert format_cards(higher_mask(parse_card("KD"))) == "AD"
    assert higher_mask(parse_card("5C")).bit_count() == 9
