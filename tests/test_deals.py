"""Same deal, compared (server/features/deals.py): a finished hand shared as a deal is
dealt again, card for card, at the tables of those who play it, against the
original table's bots; everybody's results are listed and no card is; the daily
deal is the same all day.  The leaks that deals once opened are in
tests/test_deal_leaks.py."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from svoi_kozyri.server.table.game import SeatInfo, TableGame
from svoi_kozyri.server.web.app import create_app
from svoi_kozyri.server.wire.events import DealEvent, event_data
from svoi_kozyri.server.wire.schemas import SeatConfig, TableConfig
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
    deals = [ev for ev in game.events if isinstance(ev, DealEvent)]
    return event_data(deals[number - 1])


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
    # a hand being played cannot be shared yet, not even by its player
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
        while (m := ws.receive_json())["type"] != "state" or not m["view"]["hand"]:
            pass
        early = client.post(
            f"/api/tables/{g['table_id']}/hands/1/deal", headers={"X-Seat-Token": g["token"]}
        )
        assert early.status_code == 409 and early.json()["code"] == "hand_running"
        anyone = client.post(f"/api/tables/{g['table_id']}/hands/1/deal")
        assert anyone.status_code == 403 and anyone.json()["code"] == "not_a_player"
    play_out(client, g["table_id"], g["token"])
    shared = client.post(f"/api/tables/{g['table_id']}/hands/1/deal").json()  # finished
    did = shared["deal_id"]
    assert shared["url"].endswith(f"/deal?id={did}") and shared["players"] == 3
    assert shared["playable"] and not shared["locked"]
    assert [s["bot"] for s in shared["seats"]] == [None, "random", "greedy"]
    assert [x["table_id"] for x in shared["results"]] == [g["table_id"]]
    # Bob plays the same deal from seat B
    p = client.post(f"/api/deals/{did}/play", json={"name": "Bob", "seat": 1})
    assert p.status_code == 200, p.text
    bob = p.json()
    assert bob["seat"] == 1 and bob["deal_id"] == did
    # the original table's bots stay in their seats; Ann's seat gets the medium bot
    bob_seats = client.app.state.hub.get(bob["table_id"]).game.seats  # type: ignore[attr-defined]
    assert [(s.kind, s.bot) for s in bob_seats] == [
        ("bot", "medium"),
        ("human", None),
        ("bot", "greedy"),
    ]
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


def test_a_table_playing_a_stored_deal_takes_its_dealer_and_owners() -> None:
    """Hand 2 of a table, stored as a deal, is the first event of another table
    with a seed of its own: that table deals it card for card, its session starts
    from the deal's dealer and suit owners (so a draw keeps the dealer), and its
    next hand comes from its own seed, not from the source's."""
    seats = [SeatConfig(kind="human"), SeatConfig(kind="human"), SeatConfig(kind="human")]
    cfg = TableConfig(seats=seats, rules={"loss_limit": 3, "suit_assignment": "blind"})
    info = [SeatInfo(kind="human", name=x, token_hash=x) for x in "xyz"]
    g = TableGame("t1", cfg, 12345, info)
    rng = random.Random(0)
    deals = []
    for _ in range(3):
        ev = g.make_deal(g.deal_rng())
        deals.append(ev)
        g.apply(ev)
        while g.state is not None and not g.state.is_over:
            st = g.state
            pending = g.prepare_move(st.to_act, str(rng.choice(st.legal_moves())))
            g.apply(pending.event, pending)
    g2 = TableGame("t2", cfg, 999, info)
    g2.apply(deals[1])
    assert g2.state is not None and g2.state.origin.deck == tuple(deals[1].deck)
    assert g2.session.next_dealer == deals[1].dealer
    assert list(g2.session.game.owners) == deals[1].owners
    while not g2.state.is_over:
        st = g2.state
        pending = g2.prepare_move(st.to_act, str(rng.choice(st.legal_moves())))
        g2.apply(pending.event, pending)
    nxt = g2.make_deal(g2.deal_rng())
    assert nxt.deck not in [d.deck for d in deals]
    res = g2.state.outcome
    assert res is not None
    assert nxt.dealer == (deals[1].dealer if res.loser is None else res.loser)


def test_daily_deal_is_the_same_all_day(client: TestClient) -> None:
    d1 = client.get("/api/deals/daily").json()
    d2 = client.get("/api/deals/daily").json()
    assert d1["deal_id"] == d2["deal_id"] and d1["daily"] and d1["players"] == 4
    assert d1["seats"] is None and d1["playable"] and not d1["locked"]
    p = client.post(f"/api/deals/{d1['deal_id']}/play", json={"name": "Ann"}).json()
    ev = first_deal(client, p["table_id"])
    assert ev["dealer"] == "ABCD".index(d1["dealer"])
    other = client.post(f"/api/deals/{d1['deal_id']}/play", json={"name": "Bo"}).json()
    assert first_deal(client, other["table_id"])["deck"] == ev["deck"]
    game = client.app.state.hub.get(p["table_id"]).game  # type: ignore[attr-defined]
    assert [(s.kind, s.bot) for s in game.seats] == [("human", None)] + [("bot", "medium")] * 3
