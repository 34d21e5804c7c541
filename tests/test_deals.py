"""Same deal, compared (server/deals.py): a finished hand shared as a deal is
dealt again, card for card, at the tables of those who play it; everybody's
results are listed and no card is; the daily deal is the same all day."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from svoi_kozyri.server.app import create_app
from svoi_kozyri.server.deals import daily_seed
from svoi_kozyri.server.schemas import SeatConfig, TableConfig
from svoi_kozyri.server.table import SeatInfo, TableGame
from test_analysis_api import cards_in

FAST = {"bot_delay_s": 0, "hand_pause_s": 0}


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'w.db'}", seed=4)) as c:
        yield c


def play_out(client: TestClient, table_id: str, token: str) -> None:
    """Play the seat's moves (always the first legal one) until the session ends."""
    with client.websocket_connect(f"/ws/{table_id}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        while True:
            m = ws.receive_json()
            if m["type"] != "state":
                continue
            v = m["view"]
            if v["session"]["over"]:
                return
            h = v["hand"]
            if h and h["to_act"] == v["viewer"] and not h["result"] and h["legal"]:
                ws.send_text(json.dumps({"type": "move", "move": h["legal"][0]}))


def first_deal(client: TestClient, table_id: str, number: int = 1) -> dict[str, Any]:
    game = client.app.state.hub.get(table_id).game  # type: ignore[attr-defined]
    deals = [ev for ev in game.events if ev["kind"] == "deal"]
    return dict(deals[number - 1])


def test_a_shared_hand_is_dealt_again_and_results_are_compared(client: TestClient) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "greedy"}]
    r = client.post(
        "/api/tables",
        json={
            "name": "Ann",
            "config": {"seats": seats, "rules": {"loss_limit": 1, "pickup_rule": "fixed"}, **FAST},
        },
    )
    g = r.json()
    # a hand being played cannot be shared yet
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
        while (m := ws.receive_json())["type"] != "state" or not m["view"]["hand"]:
            pass
        early = client.post(f"/api/tables/{g['table_id']}/hands/1/deal")
        assert early.status_code == 409 and early.json()["code"] == "hand_running"
    play_out(client, g["table_id"], g["token"])
    shared = client.post(f"/api/tables/{g['table_id']}/hands/1/deal").json()
    did = shared["deal_id"]
    assert shared["url"].endswith(f"/deal?id={did}") and shared["players"] == 3
    assert [x["table_id"] for x in shared["results"]] == [g["table_id"]]
    # Bob plays the same deal from seat B
    p = client.post(f"/api/deals/{did}/play", json={"name": "Bob", "seat": 1})
    assert p.status_code == 200, p.text
    bob = p.json()
    assert bob["seat"] == 1 and bob["deal_id"] == did
    play_out(client, bob["table_id"], bob["token"])
    a, b = first_deal(client, g["table_id"]), first_deal(client, bob["table_id"])
    assert (a["deck"], a["dealer"], a["owners"]) == (b["deck"], b["dealer"], b["owners"])
    again = client.post(f"/api/tables/{bob['table_id']}/hands/1/deal").json()
    assert again["deal_id"] == did  # the replay is the same deal
    page = client.get(f"/api/deals/{did}").json()
    assert {x["table_id"] for x in page["results"]} == {g["table_id"], bob["table_id"]}
    bobs = next(x for x in page["results"] if x["table_id"] == bob["table_id"])
    assert bobs["seats"][1]["name"] == "Bob" and bobs["seats"][1]["kind"] == "human"
    assert bobs["loser"] is not None or bobs["reason"] != "out"
    assert not cards_in(page), "a deal's page names no card"
    assert client.get("/deal").status_code == 200
    # errors
    assert client.get("/api/deals/nope").status_code == 404
    assert client.post(f"/api/deals/{did}/play", json={"name": "Cy", "seat": 3}).status_code == 400
    assert client.post(f"/api/deals/{did}/play", json={"name": "<b>", "seat": 0}).status_code == 422
    assert client.post(f"/api/tables/{g['table_id']}/hands/5/deal").status_code == 404


def test_a_later_hand_replays_with_offset_and_dealer() -> None:
    """Hand k of a table is dealt as the first hand of a table with deal_offset k-1."""
    seats = [SeatConfig(kind="human"), SeatConfig(kind="human")]
    cfg = TableConfig(seats=seats, rules={"loss_limit": 3})
    info = [
        SeatInfo(kind="human", name="x", token_hash="h"),
        SeatInfo(kind="human", name="y", token_hash="i"),
    ]
    g = TableGame("t1", cfg, 12345, info)
    rng = random.Random(0)
    deals = []
    for _ in range(2):
        ev = g.make_deal(g.deal_rng())
        deals.append(ev)
        g.apply(ev)
        while g.state is not None and not g.state.is_over:
            st = g.state
            pending = g.prepare_move(st.to_act, str(rng.choice(st.legal_moves())))
            g.apply(pending.event, pending)
    replay_cfg = cfg.model_copy(update={"deal_offset": 1, "first_dealer": deals[1]["dealer"]})
    g2 = TableGame("t2", replay_cfg, 12345, info)
    assert g2.make_deal(g2.deal_rng()) == deals[1]


def test_daily_deal_is_the_same_all_day(client: TestClient) -> None:
    d1 = client.get("/api/deals/daily").json()
    d2 = client.get("/api/deals/daily").json()
    assert d1["deal_id"] == d2["deal_id"] and d1["daily"] and d1["players"] == 4
    p = client.post(f"/api/deals/{d1['deal_id']}/play", json={"name": "Ann"}).json()
    ev = first_deal(client, p["table_id"])
    import datetime as dt

    assert ev["dealer"] == daily_seed(dt.date.fromisoformat(d1["daily"])) % 4
    other = client.post(f"/api/deals/{d1['deal_id']}/play", json={"name": "Bo"}).json()
    assert first_deal(client, other["table_id"])["deck"] == ev["deck"]
