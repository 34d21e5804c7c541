"""Helpers of the account, rating, lobby and security tests (FastAPI TestClient)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from svoi_kozyri.server.platform.accounts import AccountSettings
from svoi_kozyri.server.web.app import create_app

FAST = {"bot_delay_s": 0, "hand_pause_s": 0}
PASSWORD = "correct horse battery"


@contextmanager
def make_client(
    tmp_path: Path, settings: AccountSettings | None = None, db: str = "web.db", **kw: Any
) -> Iterator[TestClient]:
    """A TestClient for a fresh app with cheap password hashing."""
    app = create_app(
        f"sqlite:///{tmp_path / db}", seed=11, accounts=settings or AccountSettings.fast()
    )
    with TestClient(app, **kw) as c:
        yield c


def csrf(client: TestClient) -> dict[str, str]:
    """The CSRF header for the client's current cookies (fetching a token if needed)."""
    token = client.get("/api/account/me").json()["csrf"]
    return {"X-CSRF-Token": token}


def register(client: TestClient, username: str, password: str = PASSWORD, **extra: Any) -> Any:
    """Register (and so log in) ``username``; the response."""
    return client.post(
        "/api/account/register",
        json={"username": username, "password": password, **extra},
        headers=csrf(client),
    )


def login(client: TestClient, username: str, password: str = PASSWORD) -> Any:
    """Log in; the response."""
    return client.post(
        "/api/account/login",
        json={"username": username, "password": password},
        headers=csrf(client),
    )


def create_table(
    client: TestClient, seats: list[dict[str, Any]], name: str = "Ann", **cfg: Any
) -> dict[str, Any]:
    """Create a table (with the CSRF header, needed once logged in)."""
    r = client.post(
        "/api/tables",
        json={"name": name, "config": {"seats": seats, **cfg}},
        headers=csrf(client),
    )
    assert r.status_code == 200, r.text
    grant: dict[str, Any] = r.json()
    return grant


def join_table(client: TestClient, table_id: str, name: str = "Bob") -> Any:
    """Join a table; the response."""
    return client.post(f"/api/tables/{table_id}/join", json={"name": name}, headers=csrf(client))


def play_out(
    client: TestClient, table_id: str, token: str, max_messages: int = 20000
) -> dict[str, Any]:
    """Connect as the token's seat and play the first legal move whenever it is
    this seat's turn, until the session is over; the last view."""
    with client.websocket_connect(f"/ws/{table_id}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome", welcome
        seat = welcome["seat"]
        for _ in range(max_messages):
            m = ws.receive_json()
            if m["type"] != "state":
                continue
            view: dict[str, Any] = m["view"]
            if view["session"]["over"]:
                return view
            hand = view["hand"]
            if hand and hand["to_act"] == seat and hand["legal"] and not hand["result"]:
                ws.send_text(
                    json.dumps(
                        {"type": "move", "move": hand["legal"][0], "version": view["version"]}
                    )
                )
    raise AssertionError("the session did not end")
