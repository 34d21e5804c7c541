"""Every message the server sends on a table's socket is a member of the one
discriminated union ``ServerMessage`` (``server/wire/schemas.py``): a client can
decode any frame by its ``type`` with the published schema, chat and errors
included (issue 27, item 2)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import TypeAdapter, ValidationError

from svoi_kozyri.server.web.app import create_app
from svoi_kozyri.server.wire.schemas import ClientMessage, ServerMessage

SERVER = TypeAdapter(ServerMessage)
CLIENT = TypeAdapter(ClientMessage)


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'w.db'}", seed=5, unattended_delay_s=0)
    with TestClient(app) as c:
        yield c


def _until(ws: Any, kind: str, seen: list[dict[str, Any]]) -> dict[str, Any]:
    for _ in range(500):
        m: dict[str, Any] = ws.receive_json()
        seen.append(m)
        if m["type"] == kind:
            return m
    raise AssertionError(f"no {kind}")


def test_every_frame_a_session_receives_is_a_server_message(client: TestClient) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}]
    cfg = {"seats": seats, "grace_s": 600}
    a = client.post("/api/tables", json={"name": "Ann", "config": cfg}).json()
    tid = a["table_id"]
    b = client.post(f"/api/tables/{tid}/join", json={"name": "Bob"}).json()
    seen: list[dict[str, Any]] = []
    with client.websocket_connect(f"/ws/{tid}") as wa, client.websocket_connect(f"/ws/{tid}") as wb:
        for ws, tok in ((wa, a["token"]), (wb, b["token"])):
            ws.send_text(json.dumps({"type": "hello", "token": tok}))
            _until(ws, "welcome", seen)
        wa.send_text(json.dumps({"type": "ping"}))
        _until(wa, "pong", seen)
        wa.send_text(json.dumps({"type": "chat", "text": "gg"}))
        _until(wb, "chat", seen)
        wb.send_text(json.dumps({"type": "mute", "seat": 0, "muted": True}))
        _until(wb, "chat_mutes", seen)
        wb.send_text(json.dumps({"type": "chat_history"}))
        _until(wb, "chat_history", seen)
        wa.send_text(json.dumps({"type": "move", "move": "lead 1X"}))  # no such card
        assert _until(wa, "error", seen)["code"] == "malformed"
    assert any(m["type"] == "state" and m["view"]["table_id"] == tid for m in seen)
    kinds = {m["type"] for m in seen}
    assert {"welcome", "pong", "chat", "chat_mutes", "chat_history", "error", "state"} <= kinds
    for m in seen:
        parsed = SERVER.validate_python(m)
        assert parsed.type == m["type"]


def test_the_unions_refuse_unknown_types() -> None:
    with pytest.raises(ValidationError):
        SERVER.validate_python({"type": "surprise"})
    with pytest.raises(ValidationError):
        CLIENT.validate_python({"type": "chat", "text": "hi", "extra": 1})
    assert SERVER.validate_python({"type": "rematch", "table_id": "t", "by": 1}).type == "rematch"
