"""Races between server processes, and tables nobody watches (issue 20, items 2 and 8).

Item 2: two sockets of one seat at two processes send different moves at once;
the process whose move lost the race had applied it in memory while storing
it, and a move of the other player checked meanwhile was answered from that
position ("A must beat 7C" while 7C stayed in B's hand).  Errors also arrived
before the state they describe.  The invariant checked here, for every error
any socket receives: each card it names is shown by the last state that
socket was sent before it.

Item 8: a table whose only human looked in and left played on at full speed
(about 5,300 events a second over eight tables); now stand-ins keep a human's
pace while nobody is connected.

Two separate server processes on two ports (as in test_server_shared_state.py)
so that the test knows which process each socket talks to.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from websockets.sync.client import ClientConnection, connect

from svoi_kozyri.server.edge.guard import Limits
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.storage.store import Store
from svoi_kozyri.server.table.scheduler import UNATTENDED_DELAY_S
from svoi_kozyri.server.web.app import create_app
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)
from test_server_workers import _fresh_db

pytestmark = pytest.mark.timeout(240)

CARD = re.compile(r"(?<![0-9A-Za-z])(?:10|[5-9JQKA])[SHDC](?![0-9A-Za-z])")
"""A card in project notation inside a text (``7C``, ``10H``)."""


class Sock:
    """A socket that said hello, with every message it received, in order."""

    def __init__(self, base: str, table_id: str, token: str) -> None:
        self.ws: ClientConnection = connect(f"{base}/ws/{table_id}", open_timeout=10)
        self.ws.send(json.dumps({"type": "hello", "token": token}))
        self.msgs: list[tuple[dict[str, Any], str]] = []
        self.cv = threading.Condition()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        try:
            for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                with self.cv:
                    self.msgs.append((json.loads(text), text))
                    self.cv.notify_all()
        except Exception:  # closed at the end of the test
            return

    def send_move(self, move: str) -> None:
        self.ws.send(json.dumps({"type": "move", "move": move}))

    def state(self) -> dict[str, Any] | None:
        """The view of the last state received."""
        with self.cv:
            for m, _ in reversed(self.msgs):
                if m["type"] == "state":
                    return dict(m["view"])
        return None

    def wait(self, what: str, check: Callable[[dict[str, Any]], bool], timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        with self.cv:
            while True:
                view = next(
                    (m["view"] for m, _ in reversed(self.msgs) if m["type"] == "state"), None
                )
                if view is not None and check(view):
                    return
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {what}")
                self.cv.wait(left)

    def leaks(self) -> list[str]:
        """Errors naming a card the last state sent before them does not show."""
        out = []
        last = ""
        with self.cv:
            for m, text in self.msgs:
                if m["type"] == "state":
                    last = text
                elif m["type"] == "error":
                    for card in CARD.findall(str(m.get("message", ""))):
                        if not re.search(rf"(?<![0-9A-Za-z]){card}(?![0-9A-Za-z])", last):
                            out.append(f"{m['code']}: {m['message']}")
        return out

    def errors(self) -> list[dict[str, Any]]:
        with self.cv:
            return [m for m, _ in self.msgs if m["type"] == "error"]

    def close(self) -> None:
        self.ws.close()


@pytest.fixture()
def two(postgres_url: str, tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:  # noqa: F811
    db = _fresh_db(postgres_url, f"sk_races_{os.getpid()}")
    Store(db, migrate=True).close()
    a = ServerProcess(db, rate_limits=False, migrate=False, log_path=tmp_path / "a.log")
    b = ServerProcess(db, rate_limits=False, migrate=False, log_path=tmp_path / "b.log")
    try:
        with ThreadPoolExecutor(2) as pool:
            for started in [pool.submit(a.start, 60), pool.submit(b.start, 60)]:
                started.result()
        yield a, b
    finally:
        a.stop()
        b.stop()
    for name in ("a.log", "b.log"):
        assert "Traceback" not in (tmp_path / name).read_text(), name


def test_errors_name_only_what_their_receiver_was_shown(
    two: tuple[ServerProcess, ServerProcess],
) -> None:
    """The seat to act sends two different moves at once from its sockets at
    the two processes (each leads a different card of its hidden hand), and the
    other seat, connected to both, sends a lead of its own at the same moment;
    over many such races no error names a card its receiver was not shown, and
    one of the two moves loses each time (so the race was real)."""
    import httpx

    p, q = two
    cfg = {
        "seats": [{"kind": "human"}, {"kind": "human"}],
        "grace_s": 600,
        "bot_delay_s": 0,
        "hand_pause_s": 0,
        "rules": {"loss_limit": 50},
    }
    with httpx.Client(timeout=30) as http:
        g = http.post(f"{p.base}/api/tables", json={"name": "Ann", "config": cfg}).json()
        tid = g["table_id"]
        j = http.post(f"{p.base}/api/tables/{tid}/join", json={"name": "Bob"}).json()
    tokens = {g["seat"]: g["token"], j["seat"]: j["token"]}
    seat_a, seat_b = 0, 1
    a1, a2 = Sock(p.ws_base, tid, tokens[seat_a]), Sock(q.ws_base, tid, tokens[seat_a])
    b1, b2 = Sock(p.ws_base, tid, tokens[seat_b]), Sock(q.ws_base, tid, tokens[seat_b])
    socks = [a1, a2, b1, b2]
    races = 0
    racers: set[Sock] = set()
    try:
        for s in socks:
            s.wait("the first deal", lambda v: bool(v["hand"] and v["hand"]["to_act"] is not None))
        for _ in range(400):
            if races >= 30:
                break
            # every socket at one version: the position everybody was shown
            newest = max((x.state() or {"version": 0})["version"] for x in socks)
            for s in socks:
                s.wait("the same version", lambda v, n=newest: v["version"] >= n)
            views = {seat_a: a1.state(), seat_b: b1.state()}
            view = views[seat_a]
            assert view is not None
            version = view["version"]
            hand = view["hand"]
            if hand is None or hand["to_act"] is None:
                for s in socks:
                    s.wait("the next deal", lambda v, ver=version: v["version"] > ver)
                continue
            actor = hand["to_act"]
            other = seat_b if actor == seat_a else seat_a
            mover, mover2 = (a1, a2) if actor == seat_a else (b1, b2)
            watcher, watcher2 = (b1, b2) if actor == seat_a else (a1, a2)
            legal = views[actor]["hand"]["legal"]  # type: ignore[index]
            played = [m for m in legal if m != "pickup"]
            theirs = views[other]["hand"]["hand"]  # type: ignore[index]
            if len(played) >= 2 and theirs:
                # two different moves of the seat to act, one at each process,
                # and a lead of the other seat at both, all at once
                z = "lead " + theirs[0]
                mover.send_move(played[0])
                mover2.send_move(played[-1])
                watcher.send_move(z)
                watcher2.send_move(z)
                races += 1
                racers.update({mover, mover2})
            else:
                mover.send_move(legal[0])
            for s in socks:
                s.wait("the move", lambda v, ver=version: v["version"] > ver)
        time.sleep(0.5)  # the last errors arrive
        assert races >= 10, races
        leaks = [leak for s in socks for leak in s.leaks()]
        assert not leaks, leaks[:5]
        # Some of the pairs must really have raced (both processes took a move of
        # the same version; the loser is told "stale").  How many depends on the
        # machine's load: a busy process hears the other's commit before it reads
        # its own socket, and then refuses the move as out of turn instead (12 of
        # 30 were stale on a loaded CI machine, where half was asked and failed).
        lost = [e for s in racers for e in s.errors() if e["code"] == "stale"]
        assert lost, "the two moves never raced"
    finally:
        for s in socks:
            s.close()


# -- item 8: a table nobody watches ------------------------------------------------------


def test_a_table_its_human_left_plays_at_a_human_pace(tmp_path: Path) -> None:
    """No delays at all, a random bot, 50 losses to play: once the only human has
    left, the table writes at most one event per UNATTENDED_DELAY_S (it wrote
    thousands a second)."""
    app = create_app(f"sqlite:///{tmp_path / 'idle.db'}", limits=Limits.off())
    cfg = {
        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
        "grace_s": 0,
        "bot_delay_s": 0,
        "hand_pause_s": 0,
        "rules": {"loss_limit": 50},
    }
    with TestClient(app) as client:
        g = client.post("/api/tables", json={"name": "Ann", "config": cfg}).json()
        tid = g["table_id"]
        with client.websocket_connect(f"/ws/{tid}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
            assert ws.receive_json()["type"] == "welcome"
            ws.receive_json()
        left = client.get(f"/api/tables/{tid}").json()["version"]
        watch_s = 3.0
        time.sleep(watch_s)
        after = client.get(f"/api/tables/{tid}").json()
        assert not after["paused"]  # still playing for the absent player
        assert after["version"] - left <= watch_s / UNATTENDED_DELAY_S + 1, after["version"]
        # a human back at the table: the bots play at the table's own speed again
        with client.websocket_connect(f"/ws/{tid}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
            ws.receive_json()
            versions = set()
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and len(versions) < 6:
                m = ws.receive_json()
                if m["type"] == "state":
                    versions.add(m["view"]["version"])
                    hand = m["view"]["hand"]
                    if hand and hand["to_act"] == g["seat"] and hand["legal"]:
                        ws.send_text(json.dumps({"type": "move", "move": hand["legal"][0]}))
            assert len(versions) >= 6  # well under UNATTENDED_DELAY_S a move
