"""The tutorial: every lesson's expected moves are legal and every claim of its
explanation holds in the engine; the lesson API; the catalogues carry every text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from svoi_kozyri.core import RESPOND, Phase, format_card, format_cards, parse_card, seat_name
from svoi_kozyri.notation import format_position
from svoi_kozyri.server.features.learn import Lesson, card_note, lessons
from svoi_kozyri.server.web.app import create_app

STATIC = Path(__file__).resolve().parent.parent / "src" / "svoi_kozyri" / "web" / "static"
LESSONS = lessons()


def _beats(state: Any) -> list[str]:
    return format_cards(state.beat_options()).split() if state.phase == RESPOND else []


def _check(state: Any, claims: dict[str, Any], mover: int | None = None) -> None:
    for key, want in claims.items():
        if key == "legal_beats":
            assert sorted(_beats(state)) == sorted(want), key
        elif key == "not_beats":
            top, seat = state.top, state.to_act
            for c in want:
                assert not state.game.beats(parse_card(c), top, seat), c
                assert state.hand(seat) >> parse_card(c) & 1, c  # held, and does not beat
        elif key == "pickup_count":
            assert state.pickup_count() == want, key
        elif key == "legal_count":
            assert len(state.legal_moves()) == want, key
        elif key == "mode":
            assert Phase(state.phase).label == want, key
        elif key == "to_act":
            assert state.to_act is not None and seat_name(state.to_act) == want, key
        elif key == "top":
            assert state.top is not None and format_card(state.top) == want, key
        elif key == "pile_size":
            assert len(state.pile_cards()) == want, key
        elif key == "outs":
            got = ",".join(f"{seat_name(s)}{kind[0]}" for s, kind in state.outs)
            assert got == want, key
        elif key == "result":
            assert state.is_over
            assert format_position(state).split()[4] == want, key
        elif key == "hand":
            assert mover is not None
            assert sorted(format_cards(state.hand(mover)).split()) == sorted(want), key
        elif key == "taken":
            assert mover is not None
            _, move, taken = state.history()[-1]
            assert move.is_pickup and sorted(format_cards(taken).split()) == sorted(want), key
        else:
            raise AssertionError(f"unknown claim {key!r}")


@pytest.mark.parametrize("x", LESSONS, ids=[x.id for x in LESSONS])
def test_lesson_holds_in_the_engine(x: Lesson) -> None:
    state = x.state()
    assert format_position(state) == x.position  # written the library's one way
    legal = {str(m) for m in state.legal_moves()}
    assert x.accept and set(x.accept) <= legal, "every accepted move is legal"
    assert legal - set(x.accept) or len(legal) == 1 or x.id == "first-lead"
    _check(state, x.claims)
    for move, claims in x.after.items():
        assert move in legal, move
        after = x.state()
        mover = after.to_act
        after.push_text(move)
        _check(after, claims, mover)


def test_lessons_cover_the_brief() -> None:
    ids = {x.id for x in LESSONS}
    for need in (
        "own-trump",
        "others-trump",
        "pickup-three",
        "pickup-five",
        "pickup-all",
        "out-defence",
        "out-lead",
        "last-card-draw",
    ):
        assert need in ids
    assert len(ids) == len(LESSONS)


def test_card_notes_say_why() -> None:
    x = next(x for x in LESSONS if x.id == "own-suit-top")
    st = x.state()
    g, seat, top = st.game, st.to_act, st.top
    assert seat is not None and top is not None
    assert card_note(g, seat, parse_card("JS"), top) == "higher"
    assert card_note(g, seat, parse_card("9S"), top) == "lower"
    assert card_note(g, seat, parse_card("AH"), top) == "needs_higher"
    y = next(x for x in LESSONS if x.id == "own-trump").state()
    assert card_note(y.game, 1, parse_card("6D"), parse_card("8H")) == "own_suit"
    assert card_note(y.game, 1, parse_card("QS"), parse_card("8H")) == "other_suit"


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_catalogues_hold_every_lesson_text(lang: str) -> None:
    cat = json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    for x in LESSONS:
        for part in ("title", "goal", "hint", "explain"):
            assert cat.get(f"learn.{x.id}.{part}"), f"{lang}: learn.{x.id}.{part}"
    for note in ("higher", "own_suit", "lower", "needs_higher", "other_suit"):
        assert cat.get(f"learn.note.{note}"), note


@pytest.fixture()
def client(tmp_path: Path) -> Any:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'w.db'}", seed=1)) as c:
        yield c


def test_lesson_api(client: Any) -> None:
    data = client.get("/api/learn/lessons").json()["lessons"]
    assert [d["id"] for d in data] == [x.id for x in LESSONS]
    first = data[1]
    assert first["to_act"] == "B" and "beat 6D lead QS" in first["legal"]
    assert first["notes"]["6D"] == "own_suit" and first["owners"]["B"] == "D"
    ok = client.post("/api/learn/lessons/own-trump/try", json={"move": "beat 6d lead qs"}).json()
    assert ok["legal"] and ok["correct"] and ok["after"]["to_act"] == "C"
    other = client.post("/api/learn/lessons/own-trump/try", json={"move": "pickup"}).json()
    assert other["legal"] and not other["correct"]
    bad = client.post("/api/learn/lessons/own-trump/try", json={"move": "beat 9C lead QS"})
    assert bad.status_code == 200 and bad.json()["legal"] is False and bad.json()["why"]
    assert client.post("/api/learn/lessons/own-trump/try", json={"move": "fly"}).status_code == 400
    assert client.post("/api/learn/lessons/nope/try", json={"move": "pickup"}).status_code == 404
    assert client.post("/api/learn/lessons/own-trump/try", json={"mv": 1}).status_code == 422
    draw = client.post(
        "/api/learn/lessons/last-card-draw/try", json={"move": "beat QS lead 9S"}
    ).json()
    assert not draw["correct"] and draw["after"]["result"] == {"loser": None, "reason": "last_card"}
    assert client.get("/learn").status_code == 200
