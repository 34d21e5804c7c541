"""Analysis after a hand (server/analysis_api.py): stepping through a finished hand
as a seat or a spectator with the library's ratings, records opened in the browser,
and secrecy: no step ever holds a card its viewer could not see at that moment."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from svoi_kozyri.core import Move, State, format_card, mask_of, observe, parse_card
from svoi_kozyri.records import GameRecord, write_record
from svoi_kozyri.server import analysis_api
from svoi_kozyri.server.app import create_app
from svoi_kozyri.server.table import TableGame

FAST = {"bot_delay_s": 0, "hand_pause_s": 0, "grace_s": 60}
MS = 8


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, dict[str, Any]]]:
    """A 3-seat table (you, two bots) played to the end of its one-loss session."""
    tmp = tmp_path_factory.mktemp("analysis")
    with (
        pytest.MonkeyPatch.context() as mp,
        TestClient(create_app(f"sqlite:///{tmp / 'w.db'}", seed=11)) as client,
    ):
        r = client.post(
            "/api/tables",
            json={
                "name": "Ann",
                "config": {
                    "seats": [
                        {"kind": "human"},
                        {"kind": "bot", "bot": "random"},
                        {"kind": "bot", "bot": "greedy"},
                    ],
                    "rules": {"loss_limit": 1},
                    **FAST,
                },
            },
        )
        mp.setattr(analysis_api, "TOTAL_MS", 2500.0)  # keep the test quick: a partial rating
        # this module asks for many analyses from one client: no per-client limit here
        client.app.state.analyser = analysis_api.Analyser(burst=1000, rate=100.0)  # type: ignore[attr-defined]
        g = r.json()
        with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
            while True:
                m = ws.receive_json()
                if m["type"] != "state":
                    continue
                v = m["view"]
                if v["session"]["over"]:
                    break
                h = v["hand"]
                if h and h["to_act"] == 0 and not h["result"] and h["legal"]:
                    ws.send_text(json.dumps({"type": "move", "move": h["legal"][0]}))
        yield client, g


def truth(
    client: TestClient, table_id: str, number: int
) -> tuple[list[tuple[int, Move, State]], State]:
    """The hand's real steps, rebuilt here from the stored events (not by the module)."""
    game: TableGame = client.app.state.hub.get(table_id).game  # type: ignore[attr-defined]
    copy = TableGame(game.table_id, game.config, game.seed, game.seats, game.created)
    hand, steps = 0, []
    for ev in game.events:
        if ev["kind"] == "deal":
            if hand == number:
                break
            hand += 1
        elif hand == number:
            assert copy.state is not None
            steps.append((ev["seat"], Move.parse(ev["move"]), copy.state.copy()))
        copy.apply(ev)
    assert copy.state is not None
    return steps, copy.state


def cards_in(data: Any) -> set[int]:
    """Every card named anywhere in a JSON value (strings that are cards or moves)."""
    out: set[int] = set()
    if isinstance(data, dict):
        for v in data.values():
            out |= cards_in(v)
    elif isinstance(data, list):
        for v in data:
            out |= cards_in(v)
    elif isinstance(data, str):
        for word in data.split():
            with contextlib.suppress(ValueError):
                out.add(parse_card(word))
    return out


def allowed(state: State, viewer: int | None) -> set[int]:
    """What the viewer may see in ``state``: own hand, the pile, publicly known cards."""
    obs = observe(state, viewer)
    seen = obs.hand | sum(obs.known)
    return {c for c in range(40) if seen >> c & 1} | set(obs.pile)


def knew_at_end(
    steps: list[tuple[int, Move, State]], final: State, viewer: int | None, i: int
) -> int | None:
    """The hand of step ``i``'s actor before it, as ``viewer`` knew it at the end
    of the hand (None when they did not): their own hand; a hand whose every card
    was publicly known then; or, when the actor's hand at the end is publicly
    known (empty for a player who went out), the hand before step ``i`` rebuilt
    backwards from the end through the public turns (cards played come back,
    cards picked up go).  Rebuilt here from the public log, not by the module,
    and checked against the truth."""
    seat, _move, before = steps[i]
    if seat == viewer:
        return before.hand(seat)
    now = observe(before, viewer)
    seen = now.hands[seat] | now.known[seat]
    if seen.bit_count() == now.hand_sizes[seat]:
        return seen
    end = observe(final, viewer)
    hand = end.hands[seat] | end.known[seat]
    if hand.bit_count() != end.hand_sizes[seat]:
        return None
    history = end.history
    assert len(history) == len(steps)
    for who, move, picked in reversed(history[i:]):
        if who == seat:
            hand = (hand & ~picked) | mask_of(move.cards())
    assert hand == before.hand(seat), "the public turns rebuild the hand"
    return hand


def keys_in(data: Any) -> set[str]:
    """Every key of every object in a JSON value."""
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in keys_in(v)}
    if isinstance(data, list):
        return {k for v in data for k in keys_in(v)}
    return set()


def check_secrecy(
    data: dict[str, Any], steps: list[tuple[int, Move, State]], final: State, viewer: int | None
) -> tuple[int, int]:
    """Every step says only what ``viewer`` knew at the end of the hand: a turn of a
    seat whose hand they could not know carries the move alone; a rated turn names
    only cards they saw or knew that seat held.  Returns (other seats' turns rated,
    other seats' turns kept hidden)."""
    assert len(data["steps"]) == len(steps)
    assert "hidden" not in keys_in(data), "no count of unseen moves"
    rated = hidden = 0
    for i, (got, (seat, move, before)) in enumerate(zip(data["steps"], steps, strict=True)):
        assert got["move"] == str(move) and got["seat"] == "ABCD"[seat]
        known = knew_at_end(steps, final, viewer, i)
        if known is None:
            assert got["rating"] is None and got["no_rating"] == "hidden", got
            hidden += 1
        elif got["rating"] is not None:
            legal = {str(m) for m in observe(before, seat).legal_moves()}
            assert {m["move"] for m in got["rating"]["moves"]} <= legal
            rated += seat != viewer
        ok = (
            allowed(before, viewer)
            | set(move.cards())
            | {c for c in range(40) if (known or 0) >> c & 1}
        )
        leaked = cards_in(got) - ok
        assert not leaked, (got["index"], [format_card(c) for c in leaked])
    assert not cards_in(data["final"]) - allowed(final, viewer)
    return rated, hidden


@pytest.mark.parametrize("viewer", [0, None], ids=["seat", "spectator"])
def test_table_hand_analysis_as_seat_and_spectator(
    played: tuple[TestClient, dict[str, Any]], viewer: int | None
) -> None:
    """Every step holds only the viewer's knowledge; ratings are labelled."""
    client, g = played
    tid = g["table_id"]
    params: dict[str, Any] = {"ms": MS}
    headers = {"X-Seat-Token": g["token"]} if viewer is not None else {}
    r = client.get(f"/api/tables/{tid}/hands/1/analysis", params=params, headers=headers)
    assert r.status_code == 200, r.text
    data = r.json()
    steps, final = truth(client, tid, 1)
    check_secrecy(data, steps, final, viewer)
    assert data["viewer"] == ("A" if viewer == 0 else None)
    assert data["result"] is not None
    rated = [s for s in data["steps"] if s["rating"]]
    assert rated, "some turns had a choice"
    for s in rated:
        rt = s["rating"]
        assert rt["played"]["move"] == s["move"] and s["no_rating"] is None
        assert rt["kind"] in ("proven", "estimate")
        for m in [rt["played"], rt["best"], *rt["moves"]]:
            if m["proven"]:
                assert m["samples"] == 0 and m["low"] is None and m["score"] in (0, 0.5, 1)
            else:
                assert m["samples"] > 0 and m["low"] <= m["score"] <= m["high"]
        if s["seat"] == "A" and viewer == 0:
            assert len(rt["moves"]) >= 2
        assert rt["worse"] is False or rt["drop"] > 0
    assert {s["no_rating"] for s in data["steps"]} <= {None, "hidden", "no_choice", "time"}
    if viewer is None:
        assert all(s["before"]["hand"] == [] for s in data["steps"])


def test_analysis_refuses_what_it_must(played: tuple[TestClient, dict[str, Any]]) -> None:
    client, g = played
    tid = g["table_id"]
    assert client.get(f"/api/tables/{tid}/hands/9/analysis").status_code == 404
    assert (
        client.get(f"/api/tables/{tid}/hands/1/analysis", headers={"X-Seat-Token": "x"}).status_code
        == 403
    )
    assert client.get("/api/tables/nope/hands/1/analysis").status_code == 404
    r = client.get(f"/api/tables/{tid}/hands/1/analysis", params={"ms": 1e9})
    assert r.status_code == 200 and r.json()["budget_ms"] <= 500
    # a hand still being played is not analysed (it would be a hint machine)
    r = client.post(
        "/api/tables",
        json={
            "name": "Bo",
            "config": {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}], **FAST},
        },
    )
    live = r.json()
    with client.websocket_connect(f"/ws/{live['table_id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": live["token"]}))
        while True:
            m = ws.receive_json()
            if m["type"] == "state" and m["view"]["hand"]:
                break
        bad = client.get(f"/api/tables/{live['table_id']}/hands/1/analysis")
        assert bad.status_code == 409 and bad.json()["code"] == "hand_running"


def test_downloaded_records_keep_their_viewer(played: tuple[TestClient, dict[str, Any]]) -> None:
    client, g = played
    tid = g["table_id"]
    steps, final = truth(client, tid, 1)
    mine = client.get(f"/api/tables/{tid}/record", headers={"X-Seat-Token": g["token"]}).text
    r = client.post("/api/analysis/record", json={"text": mine, "hand": 1, "ms": MS})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["viewer"] == "A" and "A" in data["rated"]
    check_secrecy(data, steps, final, 0)
    assert any(s["rating"] for s in data["steps"] if s["seat"] == "A")
    # the same steps as the table's own analysis shows seat A, rated by the same rule
    table = client.get(
        f"/api/tables/{tid}/hands/1/analysis",
        params={"ms": MS},
        headers={"X-Seat-Token": g["token"]},
    ).json()
    keys = ("hand", "pile", "top", "sizes", "to_act", "mode", "legal", "pickup_count")
    assert [[s["before"][k] for k in keys] for s in data["steps"]] == [
        [s["before"][k] for k in keys] for s in table["steps"]
    ]
    assert [s["no_rating"] == "hidden" for s in data["steps"]] == [
        s["no_rating"] == "hidden" for s in table["steps"]
    ]
    public = client.get(f"/api/tables/{tid}/record").text
    spec = client.post("/api/analysis/record", json={"text": public, "ms": MS}).json()
    assert spec["viewer"] is None
    check_secrecy(spec, steps, final, None)
    as_spectator = client.get(f"/api/tables/{tid}/hands/1/analysis", params={"ms": MS}).json()
    assert [s["no_rating"] == "hidden" for s in spec["steps"]] == [
        s["no_rating"] == "hidden" for s in as_spectator["steps"]
    ]
    # a full record (every hand known to whoever holds it) is rated for every seat
    full = write_record(GameRecord.from_state(final))
    every = client.post("/api/analysis/record", json={"text": full, "ms": MS}).json()
    assert every["rated"] == ["A", "B", "C"]
    assert not any(s["no_rating"] == "hidden" for s in every["steps"])
    assert {s["seat"] for s in every["steps"] if s["rating"]} >= {"A"}


@pytest.mark.parametrize(
    "body",
    [
        {"text": "not a record"},
        {"text": '[Players "2"]\n\n1. A: lead 6S\n*'},
        {"text": "x", "hand": 0},
        {"text": "x", "seat": "Q"},
    ],
)
def test_bad_records_get_one_clear_error(tmp_path: Path, body: dict[str, Any]) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'w.db'}")) as client:
        r = client.post("/api/analysis/record", json={"ms": MS, **body})
        assert r.status_code in (400, 422)
        if r.status_code == 400:
            assert r.json()["code"] in ("bad_record", "bad_seat") and r.json()["message"]
