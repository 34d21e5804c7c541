"""Socket robustness (issue 20, items 9, 10 and 13): every malformed message gets
an ``error`` with a stable code and the socket stays open (``{"type": ["move"]}``
used to close it with 1011, a TypeError in the chat dispatcher); chat frames obey
the same 2,048-byte limit and strictness as every message (a 3.2 KB chat message
and extra fields used to pass); a client that never reads is disconnected after
a bounded time (it used to stay connected for ever)."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import time
from pathlib import Path
from typing import Any, get_args

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from svoi_kozyri.server.edge.guard import Limits
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.web.app import create_app
from svoi_kozyri.server.wire.schemas import MAX_MESSAGE_BYTES, ClientMessage
from svoi_kozyri.server.wire.transport import ENV_SEND_STALL, MESSAGE_TYPES

pytestmark = pytest.mark.timeout(180)

H = {"kind": "human"}

MALFORMED: list[str | bytes] = [
    '{"type":["move"]}',
    '{"type":{"a":1}}',
    '{"type":null}',
    '{"type":1}',
    '{"type":true}',
    '{"type":"nope"}',
    '{"type":"' + "x" * 1500 + '"}',
    "{}",
    "[]",
    '[{"type":"ping"}]',
    '"ping"',
    "null",
    "1",
    "1e400",
    "true",
    "NaN",
    '{"type":"ping","x":NaN}',
    "{",
    "",
    '{"type":"move"}',
    '{"type":"move","move":1}',
    '{"type":"move","move":null}',
    '{"type":"move","move":["pickup"]}',
    '{"type":"move","move":{"m":"pickup"}}',
    '{"type":"move","move":"pickup","version":"1"}',
    '{"type":"move","move":"pickup","version":1.0}',
    '{"type":"move","move":"pickup","version":-1}',
    '{"type":"move","move":"pickup","version":true}',
    '{"type":"move","move":"pickup","version":1e400}',
    '{"type":"move","move":"pickup","version":' + "9" * 400 + "}",
    '{"type":"move","move":"pickup","x":1}',
    '{"type":"move","move":"' + "p" * 41 + '"}',
    '{"type":"hello","token":1}',
    '{"type":"hint","x":[[[]]]}',
    '{"type":"ping","x":1}',
    '{"type":"chat"}',
    '{"type":"chat","text":1}',
    '{"type":"chat","text":null}',
    '{"type":"chat","text":["gg"]}',
    '{"type":"chat","text":{"t":"gg"}}',
    '{"type":"chat","text":"gg","name":"Bob"}',
    '{"type":"chat","text":"gg","seat":0}',
    '{"type":"mute"}',
    '{"type":"mute","seat":"1"}',
    '{"type":"mute","seat":1.0}',
    '{"type":"mute","seat":true}',
    '{"type":"mute","seat":[1]}',
    '{"type":"mute","seat":99}',
    '{"type":"mute","seat":-1}',
    '{"type":"mute","seat":1,"muted":"yes"}',
    '{"type":"mute","seat":1,"muted":null}',
    '{"type":"mute","seat":1,"x":1}',
    '{"type":"chat_history","x":1}',
    '{"type":"move","move":"lead \\ud800"}',  # lone surrogates are not text
    '{"type":"chat","text":"a\\ud800b"}',
    '{"type":"hello","token":"\\ud800"}',
    json.dumps({"type": "chat", "text": "ж" * 1600}, ensure_ascii=False),  # 3.2 KB
    json.dumps({"type": "chat", "text": "x" * 1000, "pad": "y" * 1500}),
    b"\xff\xfe\xfd",  # a binary frame that is not UTF-8
    b'{"type":"move","move":"\xff"}',
    b'{"type":["move"]}',
]


def _app(tmp_path: Path) -> Any:
    return create_app(f"sqlite:///{tmp_path / 'web.db'}", seed=3, limits=Limits.off())


def _send(ws: WebSocketTestSession, raw: str | bytes) -> None:
    if isinstance(raw, bytes):
        ws.send_bytes(raw)
    else:
        ws.send_text(raw)


def _until(ws: WebSocketTestSession, kind: str) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    for _ in range(50):
        m: dict[str, Any] = ws.receive_json()
        got.append(m)
        if m["type"] == kind:
            return got
    raise AssertionError(f"no {kind} in {got}")


def test_message_types_are_the_schema_union() -> None:
    union = get_args(get_args(ClientMessage)[0])
    tags = {get_args(m.model_fields["type"].annotation)[0] for m in union}
    assert tags == set(MESSAGE_TYPES)


@pytest.mark.parametrize("who", ["player", "spectator"])
def test_every_malformed_message_is_answered_and_the_socket_stays_open(
    tmp_path: Path, who: str
) -> None:
    with TestClient(_app(tmp_path)) as c:
        g = c.post("/api/tables", json={"name": "Ann", "config": {"seats": [H, H]}}).json()
        c.post(f"/api/tables/{g['table_id']}/join", json={"name": "Bob"})
        with c.websocket_connect(f"/ws/{g['table_id']}") as ws:
            token = g["token"] if who == "player" else None
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            assert _until(ws, "welcome")[-1]["seat"] == (0 if token else None)
            for raw in MALFORMED:
                _send(ws, raw)
                got = _until(ws, "error")
                code = got[-1]["code"]
                if who == "spectator" and code == "spectator":
                    pass  # a well-formed chat message: refused for a spectator
                else:
                    assert code in {"malformed", "too_large"}, (raw[:80], got[-1])
                assert len(got[-1]["message"]) <= 200
                assert "xxxxxxxxxx" not in got[-1]["message"]  # the input is not echoed
                ws.send_text('{"type":"ping"}')
                assert _until(ws, "pong")[-1]["type"] == "pong", raw[:80]
            # nothing was stored by the chat frames that were refused
            if who == "player":
                ws.send_text('{"type":"chat_history"}')
                assert _until(ws, "chat_history")[-1]["messages"] == []


def test_chat_frame_limits_are_the_socket_limits(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path)) as c:
        g = c.post("/api/tables", json={"name": "Ann", "config": {"seats": [H, H]}}).json()
        with c.websocket_connect(f"/ws/{g['table_id']}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
            _until(ws, "welcome")
            # 200 characters of 2-byte text fit the 2,048-byte frame; 1,600 do not
            ok = json.dumps({"type": "chat", "text": "ж" * 200}, ensure_ascii=False)
            assert len(ok.encode()) <= MAX_MESSAGE_BYTES
            ws.send_text(ok)
            assert _until(ws, "chat")[-1]["text"] == "ж" * 200
            ws.send_text(json.dumps({"type": "chat", "text": "ж" * 201}, ensure_ascii=False))
            assert _until(ws, "error")[-1]["code"] == "chat_too_long"
            # 200 combining marks on one letter are cut to two
            ws.send_text(json.dumps({"type": "chat", "text": "Z" + "\u0301" * 200 + "!"}))
            assert _until(ws, "chat")[-1]["text"] == "\u0179\u0301!"  # NFC of Z + two
            # a bidi override and a zero-width space never reach the others
            ws.send_text(json.dumps({"type": "chat", "text": "a\u202eb\u200bc"}))
            assert _until(ws, "chat")[-1]["text"] == "abc"
            ws.send_text(json.dumps({"type": "mute", "seat": 1, "muted": True}))
            assert _until(ws, "chat_mutes")[-1]["muted"] == [1]


# --------------------------------------------------------------------------- slow client


def _frame(text: str) -> bytes:
    payload = text.encode()
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x81]) + (
        bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack("!H", n)
    )
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _server_side_state(server_port: int, client_port: int) -> str | None:
    """The TCP state (``/proc/net/tcp``, hex) of the server's end of a connection."""
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(name) as f:
            for line in f.read().splitlines()[1:]:
                parts = line.split()
                local, remote = parts[1], parts[2]
                if (
                    int(local.rsplit(":", 1)[1], 16) == server_port
                    and int(remote.rsplit(":", 1)[1], 16) == client_port
                ):
                    return parts[3]
    return None


@pytest.mark.skipif(not os.path.exists("/proc/net/tcp"), reason="needs Linux /proc/net/tcp")
def test_a_client_that_never_reads_is_disconnected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real server and a raw TCP client with a tiny receive buffer that asks for
    the chat history 3,000 times and never reads an answer."""
    monkeypatch.setenv(ENV_SEND_STALL, "1")
    srv = ServerProcess(
        f"sqlite:///{tmp_path / 'web.db'}", rate_limits=False, log_path=tmp_path / "s.log"
    )
    srv.start()
    sock = socket.socket()
    try:
        with httpx.Client(base_url=srv.base) as http:
            g = http.post("/api/tables", json={"name": "Ann", "config": {"seats": [H, H]}}).json()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", srv.port))
            key = base64.b64encode(os.urandom(16)).decode()
            sock.sendall(
                (
                    f"GET /ws/{g['table_id']} HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n"
                    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                    f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                ).encode()
            )
            head = b""
            while b"\r\n\r\n" not in head:
                head += sock.recv(1)
            assert b" 101 " in head.split(b"\r\n")[0]
            sock.sendall(_frame(json.dumps({"type": "hello", "token": g["token"]})))
            for _ in range(5):
                sock.sendall(_frame(json.dumps({"type": "chat", "text": "ж" * 200})))
            for _ in range(3000):  # about 6 KB of answer each, never read
                sock.sendall(_frame('{"type":"chat_history"}'))
            client_port = sock.getsockname()[1]
            deadline = time.monotonic() + 30
            connected, state = True, "01"
            while time.monotonic() < deadline and (connected or state == "01"):
                time.sleep(0.25)
                seats = http.get(f"/api/tables/{g['table_id']}").json()["seats"]
                connected = seats[0]["connected"]
                state = _server_side_state(srv.port, client_port) or "gone"
            assert not connected, "the server still counts the client as connected"
            assert state != "01", "the server's end of the connection is still open"
    finally:
        sock.close()
        srv.stop()


# --------------------------------------------------------------------------- strict requests


@pytest.mark.parametrize("given", [3, 4, "2", 2.0, True, None])
def test_rules_num_players_must_be_the_seat_count(tmp_path: Path, given: object) -> None:
    """It used to be replaced by the seat count without a word."""
    with TestClient(_app(tmp_path)) as c:
        cfg = {"seats": [H, H], "rules": {"num_players": given}}
        r = c.post("/api/tables", json={"name": "Ann", "config": cfg})
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0]["type"] == "num_players_mismatch"
        assert c.get("/api/tables").json() == []
        cfg["rules"] = {"num_players": 2}
        assert c.post("/api/tables", json={"name": "Ann", "config": cfg}).status_code == 200


@pytest.mark.parametrize(
    "rules",
    [
        '{"\\ud800": 1}',  # a lone surrogate in a name answered 500 (the error echoed it)
        '{"variant": "\\ud800"}',
        '{"Variant": "standard"}',
        '{"pickup rule": "all"}',
        '{"' + "x" * 41 + '": 1}',
        '{"variant": "' + "s" * 41 + '"}',
        '{"variant": ["standard"]}',
    ],
)
def test_rules_options_are_plain_words_and_scalars(tmp_path: Path, rules: str) -> None:
    with TestClient(_app(tmp_path)) as c:
        body = '{"name": "Ann", "config": {"seats": [{"kind": "human"}, {"kind": "human"}], '
        r = c.post(
            "/api/tables",
            content=body + f'"rules": {rules}}}}}',
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 422, r.text
        assert r.json()["code"] == "invalid"
        assert c.get("/api/tables").json() == []
