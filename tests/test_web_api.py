"""The server side of the web table: the rules options the form is built from,
the lobby's naming fields, the order of going out and the pause between hands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from svoi_kozyri.core import Rules
from svoi_kozyri.core.rules import option_specs
from svoi_kozyri.server.web.app import create_app

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'web.db'}", seed=5)
    with TestClient(app) as c:
        yield c


def test_rules_options_come_from_core_rules(client: TestClient) -> None:
    options = client.get("/api/rules-options").json()["options"]
    by_name = {o["name"]: o for o in options}
    assert options == option_specs()
    assert set(by_name) == set(Rules().to_dict())
    assert by_name["pickup_rule"] == {
        "name": "pickup_rule",
        "type": "choice",
        "choices": ["graded", "fixed", "whole_pile"],
        "default": "graded",
        "besicovitch_default": "whole_pile",
        "besicovitch_only": False,
    }
    assert by_name["own_suits_cross_beat"]["type"] == "bool"
    assert by_name["fixed_pickup_count"]["type"] == "int"
    assert by_name["fixed_pickup_count"]["min"] == 1
    assert by_name["repetition_limit"]["type"] == "int_or_null"
    assert by_name["deck_size"]["besicovitch_only"]
    # every choice of a plain option is accepted by the rules themselves
    for o in options:
        if o["type"] != "choice" or o["name"] in ("num_players", "variant", "pickup_rule"):
            continue
        base = {"variant": "besicovitch"} if o["besicovitch_only"] else {}
        for value in o["choices"]:
            if o["name"] == "trumps_per_player_2p":
                base = {"num_players": 2}
            assert Rules.from_dict({**base, o["name"]: value}).to_dict()[o["name"]] == value


def test_cards_with_russian_letters(client: TestClient) -> None:
    assert ">Д<" in client.get("/cards/QS.svg?letters=ru").text
    assert ">Q<" in client.get("/cards/QS.svg").text
    assert ">Q<" in client.get("/cards/QS.svg?letters=zz").text  # unknown: the default


def test_lobby_names_tables_by_host_and_counts_bots(client: TestClient) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    r = client.post("/api/tables", json={"name": "Ann", "config": {"seats": seats}})
    assert r.status_code == 200
    r2 = client.post(
        "/api/tables", json={"name": "Bob", "config": {"seats": seats, "title": "Friday"}}
    )
    assert r2.status_code == 200
    entries = {e["table_id"]: e for e in client.get("/api/tables").json()}
    a, b = entries[r.json()["table_id"]], entries[r2.json()["table_id"]]
    assert (a["named"], a["host"], a["bots"]) == (False, "Ann", 1)
    assert (b["named"], b["title"], b["host"]) == (True, "Friday", "Bob")


def test_views_carry_the_order_of_going_out_and_the_hand_pause(client: TestClient) -> None:
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3
    cfg = {"seats": seats, "bot_delay_s": 0, "hand_pause_s": 2.5, "rules": {"loss_limit": 1}}
    grant = client.post("/api/tables", json={"name": "Ann", "config": cfg}).json()
    with client.websocket_connect(f"/ws/{grant['table_id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": grant["token"]}))
        view: dict[str, Any] = {}
        for _ in range(5000):
            m = ws.receive_json()
            if m["type"] != "state":
                continue
            view = m["view"]
            assert view["hand_pause_s"] == 2.5
            hand = view["hand"]
            if hand is None:
                continue
            outs = [s["seat"] for s in view["seats"] if s["out"]]
            assert sorted(hand["out_order"]) == sorted(outs)
            if hand["result"] is not None:
                break
            if hand["to_act"] == 0:
                move = hand["legal"][0]
                ws.send_text(json.dumps({"type": "move", "move": move, "version": view["version"]}))
        hand = view["hand"]
        assert hand["result"] is not None
        loser = hand["result"]["loser"]
        if loser is not None:
            assert loser not in hand["out_order"] and len(hand["out_order"]) == 3
