"""svoi_kozyri.svg: card faces (indices clear of everything, court portraits) and
whole positions that show only what the viewer may know."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from svoi_kozyri import svg
from svoi_kozyri.core import (
    RANKS,
    SUITS,
    Game,
    Rules,
    State,
    format_card,
    observe,
    parse_card,
)
from svoi_kozyri.core.cards import iter_cards
from svoi_kozyri.notation import position_from_text

NS = "{http://www.w3.org/2000/svg}"
ALL = [r + s for r in RANKS for s in SUITS]


def _tree(doc: str) -> ET.Element:
    return ET.fromstring(doc)


@pytest.mark.parametrize("name", ALL)
def test_every_card_is_a_valid_svg_with_a_label_and_two_indices(name: str) -> None:
    root = _tree(svg.card(name))
    assert root.tag == NS + "svg"
    assert root.get("viewBox") == f"0 0 {svg.CARD_WIDTH} {svg.CARD_HEIGHT}"
    symbol = "♠♥♦♣"["SHDC".index(name[-1])]
    assert root.get("aria-label") == name[:-1] + symbol
    ranks = [t.text for t in root.iter(NS + "text")]
    assert ranks == [name[:-1], name[:-1]]  # the corner index, twice, and no words


def test_card_accepts_a_card_value_size_and_trump_edge() -> None:
    assert svg.card(parse_card("10H")) == svg.card("10H")
    small = _tree(svg.card("10H", size=60))
    assert small.get("width") == "60" and small.get("height") == "84"
    assert svg.card("10H", trump=True) != svg.card("10H")
    assert "#e0a526" in svg.card("10H", trump=True)
    with pytest.raises(ValueError):
        svg.card("1X")


def test_russian_corner_letters() -> None:
    texts = lambda doc: [t.text for t in _tree(doc).iter(NS + "text")]  # noqa: E731
    assert texts(svg.card("QS", letters="ru")) == ["Д", "Д"]
    assert texts(svg.card("AH", letters="ru")) == ["Т", "Т"]
    assert texts(svg.card("JC", letters="ru")) == ["В", "В"]
    assert texts(svg.card("10D", letters="ru")) == ["10", "10"]
    with pytest.raises(ValueError):
        svg.card("QS", letters="xx")


def test_pips_stay_clear_of_the_corner_indices() -> None:
    # the index occupies x < 32 (top left) and x > 88 (bottom right, mirrored)
    for rank, pips in svg._PIPS.items():
        for x, y in pips:
            assert x - 10 > 32 and x + 10 < 88, (rank, x, y)
            assert y - 10 > 12 and y + 10 < svg.CARD_HEIGHT - 12, (rank, x, y)


def test_court_cards_are_portraits_and_differ_by_rank() -> None:
    faces = {r: svg.card(r + "S") for r in ("J", "Q", "K")}
    for doc in faces.values():
        root = _tree(doc)
        assert len(list(root.iter(NS + "ellipse"))) == 2  # two heads: double-ended
        assert "JACK" not in doc and "QUEEN" not in doc and "KING" not in doc
    assert len(set(faces.values())) == 3
    # a court portrait is scaled between the indices
    assert "scale(0.8)" in faces["K"]
    # the same rank in a red suit uses the red ink
    assert "#c8102e" in svg.card("KH") and "#c8102e" not in faces["K"].split("<path")[0]


def test_back_and_notebook_display() -> None:
    root = _tree(svg.back())
    assert root.get("aria-label") == "card back"
    assert isinstance(svg.card("AS"), str)
    assert svg.card("AS")._repr_svg_() == svg.card("AS")


def _faces(doc: str) -> list[str]:
    return [g.get("data-card", "") for g in _tree(doc).iter(NS + "g") if g.get("data-card")]


def _state() -> State:
    game = Game(Rules(num_players=4), owners={"A": "C", "B": "D", "C": "H", "D": "S"})
    return position_from_text(
        game,
        {"A": "KS 8H 9C 6C", "B": "QS 10H 6D", "C": "6H 9D JC", "D": "7S 6S AH 8D"},
        pile="7H QC",
        to_act="A",
        phase="respond",
    )


def test_position_shows_the_viewers_hand_and_the_top_card_only() -> None:
    st = _state()
    doc = svg.position(st, 2)
    faces = [f for f in _faces(doc) if f != "back"]
    assert sorted(faces) == sorted(["6H", "9D", "JC", "QC"])  # C's hand and the top card
    assert _faces(doc).count("back") == 4 + 3 + 4 + 1  # other hands face down, pile below
    assert "C ♥ · 3" in doc and "▶ A ♣ · 4" in doc and "pile 2" in doc


def test_position_for_a_spectator_shows_no_private_card() -> None:
    st = _state()
    private = {format_card(c) for h in range(4) for c in iter_cards(st.hands[h])}
    faces = set(_faces(svg.position(st, None))) - {"back"}
    assert faces == {"QC"}
    assert not faces & private


def test_position_of_an_observation_and_the_notebook_hook() -> None:
    st = _state()
    obs = observe(st, 1)
    assert svg.position(obs) == svg.position(st, 1)
    drawing = svg.position(obs)  # what Jupyter displays, through the drawing's own hook
    assert drawing._repr_svg_() == svg.position(st, 1)
    assert sorted(set(_faces(drawing._repr_svg_())) - {"back"}) == ["10H", "6D", "QC", "QS"]
    # the core draws nothing itself: it never imports its drawing layer
    assert not hasattr(st, "_repr_svg_") and not hasattr(obs, "_repr_svg_")


def test_position_of_the_open_besicovitch_game_shows_both_hands() -> None:
    game = Game(Rules(variant="besicovitch"), owners={"A": "S", "B": "H"})
    st = position_from_text(game, {"A": "AS 7H", "B": "KH 8S"}, pile="", to_act="A", phase="free")
    assert sorted(set(_faces(svg.position(st, None))) - {"back"}) == ["7H", "8S", "AS", "KH"]
