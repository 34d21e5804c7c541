"""At the table: chat (players only, length- and rate-limited, muting, history),
the end-of-session summary and the rematch with the same seats."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from svoi_kozyri.server.features import chat
from svoi_kozyri.server.web.app import create_app
from test_analysis_api import cards_in

FAST = {"bot_delay_s": 0, "hand_pause_s": 0}


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    # stand-ins finish sessions nobody watches at full speed here (a server plays
    # them at a human's pace: tests/test_worker_races.py)
    app = create_app(f"sqlite:///{tmp_path / 'w.db'}", seed=3, unattended_delay_s=0)
    with TestClient(app) as c:
        yield c


def two_humans(client: TestClient, **cfg: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    a = client.post("/api/tables", json={"name": "Ann", "config": {"seats": seats, **cfg}}).json()
    b = client.post(f"/api/tables/{a['table_id']}/join", json={"name": "Bob"}).json()
    return a, b


def hello(ws: Any, token: str | None) -> None:
    ws.send_text(json.dumps({"type": "hello", "token": token}))
    assert ws.receive_json()["type"] == "welcome"


def next_of(ws: Any, kind: str) -> dict[str, Any]:
    for _ in range(2000):
        m: dict[str, Any] = ws.receive_json()
        if m["type"] == kind:
            return m
    raise AssertionError(f"no {kind}")


def test_chat_between_players(client: TestClient) -> None:
    a, b = two_humans(client, grace_s=600)
    tid = a["table_id"]
    with (
        client.websocket_connect(f"/ws/{tid}") as wa,
        client.websocket_connect(f"/ws/{tid}") as wb,
        client.websocket_connect(f"/ws/{tid}") as ws,
    ):
        hello(wa, a["token"])
        hello(wb, b["token"])
        hello(ws, None)
        wa.send_text(json.dumps({"type": "chat", "text": "  hi\n<b>Bob</b>\x07 "}))
        got = next_of(wb, "chat")
        assert got["text"] == "hi <b>Bob</b>" and got["seat"] == 0 and got["name"] == "Ann"
        assert next_of(wa, "chat")["text"] == got["text"]  # the writer sees it too
        # spectators neither write nor read
        ws.send_text(json.dumps({"type": "chat", "text": "psst"}))
        assert next_of(ws, "error")["code"] == "spectator"
        # limits
        wa.send_text(json.dumps({"type": "chat", "text": "x" * (chat.MAX_CHARS + 1)}))
        assert next_of(wa, "error")["code"] == "chat_too_long"
        wa.send_text(json.dumps({"type": "chat", "text": " \n "}))
        assert next_of(wa, "error")["code"] == "chat_empty"
        wa.send_text(json.dumps({"type": "chat", "text": 5}))
        assert next_of(wa, "error")["code"] == "malformed"
        for i in range(chat.RATE_COUNT - 1):
            wa.send_text(json.dumps({"type": "chat", "text": f"m{i}"}))
            assert next_of(wa, "chat")["text"] == f"m{i}"
        wa.send_text(json.dumps({"type": "chat", "text": "one too many"}))
        assert next_of(wa, "error")["code"] == "chat_rate"
        # Bob mutes Ann: her messages no longer reach him, nor his history
        wb.send_text(json.dumps({"type": "mute", "seat": 0, "muted": True}))
        assert next_of(wb, "chat_mutes")["muted"] == [0]
        wb.send_text(json.dumps({"type": "chat_history"}))
        hist = next_of(wb, "chat_history")
        assert hist["messages"] == [] and hist["muted"] == [0]
        wb.send_text(json.dumps({"type": "chat", "text": "anyone?"}))
        assert next_of(wa, "chat")["text"] == "anyone?"
        wa.send_text(json.dumps({"type": "chat_history"}))
        texts = [m["text"] for m in next_of(wa, "chat_history")["messages"]]
        assert texts[0] == "hi <b>Bob</b>" and texts[-1] == "anyone?"
        wb.send_text(json.dumps({"type": "mute", "seat": 0, "muted": False}))
        assert next_of(wb, "chat_mutes")["muted"] == []
        wb.send_text(json.dumps({"type": "mute", "seat": 9}))
        assert next_of(wb, "error")["code"] == "malformed"
        # other messages still reach the hub
        wb.send_text(json.dumps({"type": "ping"}))
        assert next_of(wb, "pong")["type"] == "pong"


def wait_finished(client: TestClient, tid: str) -> dict[str, Any]:
    for _ in range(600):
        v: dict[str, Any] = client.get(f"/api/tables/{tid}").json()
        if v["status"] == "finished":
            return v
        time.sleep(0.05)
    raise AssertionError("the session did not finish")


def test_summary_and_rematch_with_the_same_seats(client: TestClient) -> None:
    # Bob looks in once and leaves: a table plays on for a while after its last
    # player left (a table nobody ever joined waits), and with grace 0 stand-in bots
    # play for both humans at once
    a, b = two_humans(client, grace_s=0, rules={"loss_limit": 1}, **FAST)
    tid = a["table_id"]
    with client.websocket_connect(f"/ws/{tid}") as look:
        hello(look, b["token"])
    idle, _ = two_humans(client, grace_s=600)  # nobody plays there: its session runs on
    early = client.post(
        f"/api/tables/{idle['table_id']}/rematch", headers={"X-Seat-Token": idle["token"]}
    )
    assert early.status_code == 409 and early.json()["code"] == "session_running"
    view = wait_finished(client, tid)
    s = client.get(f"/api/tables/{tid}/summary").json()
    assert s["over"] and s["durak"] == "ABC"[view["session"]["durak"]]
    last = s["hands"][-1]
    assert last["over"] and last["loser"] == s["durak"] and len(last["outs"]) == 2
    assert [x["name"] for x in s["standings"]][:2] == ["Ann", "Bob"]
    assert not cards_in(s) and s["rematch"] is None
    assert client.post(f"/api/tables/{tid}/rematch").status_code == 403
    assert (
        client.post(f"/api/tables/{tid}/rematch", headers={"X-Seat-Token": "bad"}).status_code
        == 403
    )
    with client.websocket_connect(f"/ws/{tid}") as wb:
        hello(wb, b["token"])
        ra = client.post(f"/api/tables/{tid}/rematch", headers={"X-Seat-Token": a["token"]})
        assert ra.status_code == 200, ra.text
        new = ra.json()
        assert new["seat"] == 0 and new["table_id"] != tid
        note = next_of(wb, "rematch")
        assert note["table_id"] == new["table_id"]
    rb = client.post(f"/api/tables/{tid}/rematch", headers={"X-Seat-Token": b["token"]}).json()
    assert rb["table_id"] == new["table_id"] and rb["seat"] == 1
    again = client.post(f"/api/tables/{tid}/rematch", headers={"X-Seat-Token": a["token"]})
    assert again.status_code == 409
    nv = client.get(f"/api/tables/{new['table_id']}").json()
    assert [s["name"] for s in nv["seats"]][:2] == ["Ann", "Bob"]
    assert nv["seats"][2]["bot"] == "random" and nv["rules"]["loss_limit"] == 1
    assert client.get(f"/api/tables/{tid}/summary").json()["rematch"] == new["table_id"]
    assert client.get("/api/tables/nope/summary").status_code == 404
