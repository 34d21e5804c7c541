"""Analysis says nothing a viewer did not know at the end of the hand (issue 20,
item 3): the prober found, on 272 of 492 other players' turns, how many of the
actor's moves the viewer could not see, and 36 hidden best moves scored above
the move played.  Here every step of every analysed hand is checked for every
viewer (each seat and a spectator): a turn of a seat whose hand the viewer could
not know carries the move alone, a rated turn names only cards the viewer saw or
knew that seat held (rebuilt independently in :func:`test_analysis_api.knew_at_end`),
and no answer holds a count of unseen moves."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from svoi_kozyri.core import observe
from svoi_kozyri.server.features import analysis_api
from svoi_kozyri.server.web.app import create_app
from test_analysis_api import bot_hand, check_secrecy, keys_in, no_client_limit, truth

FAST = {"bot_delay_s": 0, "hand_pause_s": 0, "grace_s": 60}


@pytest.mark.parametrize(("players", "seed"), [(3, 5), (4, 2), (4, 7), (4, 8)])
def test_every_viewer_learns_only_what_they_knew_at_the_end(players: int, seed: int) -> None:
    steps, final = bot_hand(players, seed)
    plain = [(s.seat, s.move, s.before) for s in steps]
    rated = hidden = 0
    for viewer in [*range(players), None]:
        data = analysis_api.hand_analysis(steps, final, viewer, 1, 5.0, 600.0)
        r, h = check_secrecy(data, plain, final, viewer)
        rated += r
        hidden += h
        # a loser still holding cards nobody saw: their turns stay closed to the others
        loser = final.outcome.loser if final.outcome else None
        end = observe(final, viewer)
        if loser is not None and loser != viewer and end.known[loser] != final.hand(loser):
            closed = [s for s in data["steps"] if s["seat"] == "ABCD"[loser]]
            assert any(s["no_rating"] == "hidden" for s in closed)
        assert data["worse"] == sum(
            bool(s["rating"] and s["rating"]["worse"]) for s in data["steps"]
        )
    assert rated, "turns of players who went out are rated for everyone"
    loser = final.outcome.loser if final.outcome else None
    if loser is not None and observe(final, None).known[loser] != final.hand(loser):
        assert hidden, "turns of a hand nobody else saw are not"


@pytest.fixture(scope="module")
def four_seats(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Any]]:
    """A 4-seat table (you and three bots) played to the end of its one hand."""
    tmp = tmp_path_factory.mktemp("leaks")
    with (
        pytest.MonkeyPatch.context() as mp,
        TestClient(create_app(f"sqlite:///{tmp / 'w.db'}", seed=5)) as client,
    ):
        mp.setattr(analysis_api, "TOTAL_MS", 1500.0)
        no_client_limit(client)
        seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "greedy"}] * 3
        r = client.post(
            "/api/tables",
            json={"name": "Ann", "config": {"seats": seats, "rules": {"loss_limit": 1}, **FAST}},
        )
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
                    ws.send_text(json.dumps({"type": "move", "move": h["legal"][-1]}))
        yield client, g


@pytest.mark.parametrize("viewer", [0, None], ids=["seat", "spectator"])
def test_table_analysis_keeps_other_hands_closed(
    four_seats: tuple[TestClient, Any], viewer: int | None
) -> None:
    client, g = four_seats
    tid = g["table_id"]
    headers = {"X-Seat-Token": g["token"]} if viewer is not None else {}
    data = client.get(f"/api/tables/{tid}/hands/1/analysis", headers=headers).json()
    steps, final = truth(client, tid, 1)
    check_secrecy(data, steps, final, viewer)
    assert "hidden" not in keys_in(data)


@pytest.mark.parametrize("viewer", [0, None], ids=["seat", "spectator"])
def test_record_analysis_keeps_other_hands_closed(
    four_seats: tuple[TestClient, Any], viewer: int | None
) -> None:
    """The record a seat (or a spectator) downloads, analysed: the same rule."""
    client, g = four_seats
    tid = g["table_id"]
    headers = {"X-Seat-Token": g["token"]} if viewer is not None else {}
    text = client.get(f"/api/tables/{tid}/record", headers=headers).text
    r = client.post("/api/analysis/record", json={"text": text, "ms": 5})
    assert r.status_code == 200, r.text
    steps, final = truth(client, tid, 1)
    check_secrecy(r.json(), steps, final, viewer)


def test_no_token_in_the_url(tmp_path: Path) -> None:
    """docs/protocol.md once offered ``?token=`` for the analysis: it is refused."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'w.db'}")) as client:
        r = client.get("/api/tables/x/hands/1/analysis", params={"token": "abc"})
        assert r.status_code == 400 and r.json()["code"] == "token_in_url"
