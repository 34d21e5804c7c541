"""Two server processes on one PostgreSQL database share one truth beyond the
event log: the table chat, the lobby's spectators and players, and the
automatic actions (bot moves, stand-ins, turn timers), which exactly one
process fires and which go on when that process is killed.

Two separate ``python -m svoi_kozyri.server`` processes on two ports (rather
than ``--workers 2`` on one port) so that each test knows which process every
socket is connected to.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from websockets.sync.client import ClientConnection, connect

from svoi_kozyri.server.cluster.postgres import LEASE_S, PROCESS_TTL_S
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.storage.schema import events_t, leases_t
from svoi_kozyri.server.storage.store import Store
from svoi_kozyri.server.table.master import game_from_stored
from svoi_kozyri.server.wire.events import MoveEvent
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)
from test_server_workers import _fresh_db

pytestmark = pytest.mark.timeout(180)

WAIT_S = 20.0
"""Longest wait for something another process must learn (notifications take
milliseconds; the slowest path is a dead process's lease running out, 5 s)."""


def _until(what: str, check: Callable[[], Any], timeout: float = WAIT_S) -> Any:
    """Poll ``check`` until it returns something true (bounded)."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture()
def two(postgres_url: str, tmp_path: Path) -> Iterator[tuple[str, ServerProcess, ServerProcess]]:  # noqa: F811
    db = _fresh_db(postgres_url, f"sk_shared_{os.getpid()}")
    Store(db, migrate=True).close()  # once, so both can start at the same time
    a = ServerProcess(db, rate_limits=False, migrate=False, log_path=tmp_path / "a.log")
    b = ServerProcess(db, rate_limits=False, migrate=False, log_path=tmp_path / "b.log")
    try:
        with ThreadPoolExecutor(2) as pool:
            for started in [pool.submit(a.start, 60), pool.submit(b.start, 60)]:
                started.result()
        yield db, a, b
    finally:
        a.stop()
        b.stop()
    for name in ("a.log", "b.log"):
        logged = (tmp_path / name).read_text()
        assert "Traceback" not in logged, name
        assert "token" not in logged.lower(), name  # no seat token (or its name) logged


def _hello(srv: ServerProcess, table_id: str, token: str | None) -> ClientConnection:
    """A socket at ``srv`` that said hello (closed by the caller)."""
    ws = connect(f"{srv.ws_base}/ws/{table_id}", open_timeout=10).__enter__()
    ws.send(json.dumps({"type": "hello", "token": token}))
    assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
    return ws


def _next(ws: ClientConnection, kind: str, timeout: float = WAIT_S) -> dict[str, Any]:
    """The next message of ``kind`` (others skipped), within ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {kind} message")
        msg: dict[str, Any] = json.loads(ws.recv(timeout=left))
        if msg["type"] == kind:
            return msg


def _said(ws: ClientConnection, text: str) -> list[str]:
    """Wait for the chat message ``text``; the chat texts received before it."""
    before = []
    while (m := _next(ws, "chat"))["text"] != text:
        before.append(m["text"])
    return before


def _drain(ws: ClientConnection) -> list[dict[str, Any]]:
    """Every message already received (without waiting for more)."""
    out = []
    while True:
        try:
            out.append(json.loads(ws.recv(timeout=0.01)))
        except TimeoutError:
            return out


def test_chat_and_lobby_are_shared(two: tuple[str, ServerProcess, ServerProcess]) -> None:
    _db, a, b = two
    cfg = {
        "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "human"}],
        "grace_s": 600,
        "title": "shared",
    }
    with httpx.Client(timeout=30) as http:
        ann = http.post(f"{a.base}/api/tables", json={"name": "Ann", "config": cfg}).json()
        tid = ann["table_id"]
        bob = http.post(f"{b.base}/api/tables/{tid}/join", json={"name": "Bob"}).json()
        cid = http.post(f"{a.base}/api/tables/{tid}/join", json={"name": "Cid"}).json()
    wa = _hello(a, tid, ann["token"])
    wb = _hello(b, tid, bob["token"])
    wc = _hello(a, tid, cid["token"])
    spec_a, spec_b = _hello(a, tid, None), _hello(b, tid, None)
    try:
        # a message written at one process reaches the players at the other
        wa.send(json.dumps({"type": "chat", "text": "hi from A"}))
        got = _next(wb, "chat")
        assert (got["seat"], got["name"], got["text"]) == (0, "Ann", "hi from A")
        _said(wc, "hi from A")
        _said(wa, "hi from A")  # the writer sees it too
        # the history is the database's: a new socket at the other process has it
        wb.send(json.dumps({"type": "chat_history"}))
        assert [m["text"] for m in _next(wb, "chat_history")["messages"]] == ["hi from A"]
        wb.send(json.dumps({"type": "chat", "text": "hi from B"}))
        _said(wa, "hi from B")
        # mutes are the database's too: Bob (at B) mutes Ann (at A)
        wb.send(json.dumps({"type": "mute", "seat": 0, "muted": True}))
        assert _next(wb, "chat_mutes")["muted"] == [0]
        wa.send(json.dumps({"type": "chat", "text": "muted one"}))
        _said(wc, "muted one")
        wc.send(json.dumps({"type": "chat", "text": "after"}))
        assert "muted one" not in _said(wb, "after")
        wb2 = _hello(a, tid, bob["token"])  # Bob at the other process: still muted
        wb2.send(json.dumps({"type": "chat_history"}))
        hist = _next(wb2, "chat_history")
        assert hist["muted"] == [0]
        assert [m["text"] for m in hist["messages"]] == ["hi from B", "after"]
        wb2.close()
        # the rate limit counts the database's rows: Ann at both processes
        wa_b = _hello(b, tid, ann["token"])
        for i in range(3):  # "hi from A", "muted one" and these make five
            (wa_b if i % 2 else wa).send(json.dumps({"type": "chat", "text": f"m{i}"}))
            _said(wc, f"m{i}")
        wa_b.send(json.dumps({"type": "chat", "text": "one too many"}))
        assert _next(wa_b, "error")["code"] == "chat_rate"
        wa_b.close()
        # spectators never see the chat, at either process
        for s in (spec_a, spec_b):
            assert not [m for m in _drain(s) if m["type"].startswith("chat")]

        # the lobby is the same at both processes: one spectator at each, three
        # guests connected (Ann's second socket left)
        def lobby(srv: ServerProcess) -> dict[str, Any]:
            page: dict[str, Any] = httpx.get(f"{srv.base}/api/lobby", timeout=10).json()
            return page

        def agreed() -> bool:
            pages = [lobby(a), lobby(b)]
            return all(
                p["online"]["spectators"] == 2
                and p["online"]["guests"] == 3
                and [(t["table_id"], t["spectators"]) for t in p["tables"]] == [(tid, 2)]
                and all(s["connected"] for s in p["tables"][0]["seats"])
                for p in pages
            )

        _until("both lobbies to count every process's sockets", agreed)
        spec_b.close()
        wb.close()

        def after_leaving() -> bool:
            pages = [lobby(a), lobby(b)]
            return all(
                p["online"]["spectators"] == 1
                and p["online"]["guests"] == 2
                and [s["connected"] for s in p["tables"][0]["seats"]] == [True, False, True]
                for p in pages
            )

        _until("both lobbies to see the spectator and Bob leave B", after_leaving)
    finally:
        for ws in (wa, wb, wc, spec_a, spec_b):
            ws.close()


def _pid_of(owner: str) -> int:
    """The process id in a cluster owner name (``host:pid:random``)."""
    return int(owner.split(":")[-2])


def test_automatic_actions_go_on_after_a_kill_exactly_once(
    two: tuple[str, ServerProcess, ServerProcess],
) -> None:
    db, a, b = two
    quick = {"bot_delay_s": 0.02, "hand_pause_s": 0.05, "rules": {"loss_limit": 50}}
    # stand-in tables: the human looks in once and leaves (grace 0): a stand-in
    # and the bots play on; a timer table: the human stays connected, at both
    # processes, and never moves: the turn timer plays for them
    standin = {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}], "grace_s": 0}
    timer = {
        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}],
        "grace_s": 600,
        "turn_timer_s": 1,
    }
    tables: list[str] = []
    silent: list[ClientConnection] = []
    with httpx.Client(timeout=30) as http:
        for i, (srv, cfg) in enumerate([(a, standin), (b, standin), (a, standin), (a, timer)]):
            g = http.post(
                f"{srv.base}/api/tables", json={"name": f"P{i}", "config": {**cfg, **quick}}
            ).json()
            tables.append(g["table_id"])
            if cfg is timer:
                silent += [
                    _hello(a, g["table_id"], g["token"]),
                    _hello(b, g["table_id"], g["token"]),
                ]
            else:
                _hello(srv, g["table_id"], g["token"]).close()
    store = Store(db, migrate=False)
    try:

        def versions() -> dict[str, int]:
            return store.versions(tables)

        def leases() -> dict[str, str]:
            with store.engine.connect() as conn:
                return {r.table_id: r.owner for r in conn.execute(select(leases_t))}

        assert a.proc is not None and b.proc is not None
        _until(
            "every table to play and A to hold a lease",
            lambda: (
                all(v >= 3 for v in versions().values())
                and a.proc.pid in {_pid_of(o) for o in leases().values()}
            ),
        )
        before = versions()
        os.kill(a.proc.pid, signal.SIGKILL)  # the lease holder dies mid-game
        a.proc.wait()
        killed_at = time.time()

        def moved_on() -> bool:
            now, held = versions(), leases()
            grown = [now[t] - before[t] for t in tables]
            return (
                min(grown[:3]) >= 10
                and grown[3] >= 2
                and all(_pid_of(held[t]) == b.proc.pid for t in tables if t in held)
            )

        _until("every table to go on at B", moved_on, timeout=30)
        # the timer table: B's socket stays, so B's timer plays for the silent human
        _until(
            "the turn timer to fire at B",
            lambda: any(
                (isinstance(e, MoveEvent) and e.by == "timer")
                for e in store.events_since(tables[3], before[tables[3]])
            ),
            timeout=15,
        )
        b.stop()  # the log is final now
        with store.engine.connect() as conn:
            per_seq = Counter(
                (r.table_id, r.seq)
                for r in conn.execute(
                    select(events_t.c.table_id, events_t.c.seq).where(
                        events_t.c.table_id.in_(tables)
                    )
                )
            )
            twice = conn.execute(
                select(events_t.c.table_id, events_t.c.seq, func.count())
                .group_by(events_t.c.table_id, events_t.c.seq)
                .having(func.count() > 1)
            ).all()
            late = conn.execute(
                select(events_t.c.table_id, events_t.c.data, events_t.c.created).where(
                    events_t.c.table_id.in_(tables), events_t.c.created > killed_at
                )
            ).all()
        assert twice == []
        kinds: dict[str, Counter[str]] = {t: Counter() for t in tables}
        first: dict[str, float] = {}
        for row in late:
            kinds[row.table_id][row.data.get("by", row.data["kind"])] += 1
            first[row.table_id] = min(first.get(row.table_id, row.created), row.created)
        # the slowest table waited for the dead process's lease (5 s) to run out
        # and its heartbeat (4 s) to be missed, not longer
        waited = max(first[t] - killed_at for t in tables[:3])
        print(f"automatic actions resumed {waited:.2f} s after the kill")
        assert waited < LEASE_S + PROCESS_TTL_S + 2, waited
        for t in tables:
            stored = store.load(t)
            assert stored is not None
            # every sequence number once, none missing, and the whole log replays
            # legally: no automatic action was applied twice or lost
            seqs = sorted(s for (tid, s) in per_seq if tid == t)
            assert seqs == list(range(stored.version))
            assert game_from_stored(stored).version == stored.version
        for t in tables[:3]:
            assert kinds[t]["bot"] >= 1 and kinds[t]["standin"] >= 1, (t, kinds[t])
    finally:
        for ws in silent:
            ws.close()
        store.close()


def test_a_player_at_one_process_counts_at_the_lease_holder(
    two: tuple[str, ServerProcess, ServerProcess],
) -> None:
    """Created at A (A deals and holds the lease), played from B: no stand-in
    plays for the player connected at B, although the grace is short; once they
    leave, one does."""
    db, a, b = two
    cfg = {
        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
        "grace_s": 0.3,
        "bot_delay_s": 0.02,
        "hand_pause_s": 0.05,
    }
    with httpx.Client(timeout=30) as http:
        g = http.post(f"{a.base}/api/tables", json={"name": "Ann", "config": cfg}).json()
    tid = g["table_id"]
    store = Store(db, migrate=False)
    try:
        ws = _hello(b, tid, g["token"])
        try:
            # the player's turn comes (at the first deal or after the bot's move)
            while True:
                view = _next(ws, "state")["view"]
                if view["hand"] is not None and view["hand"]["to_act"] == 0:
                    break
            with store.engine.connect() as conn:
                holder = conn.execute(select(leases_t.c.owner).where(leases_t.c.table_id == tid))
                owner = holder.scalar()
            assert owner is not None and a.proc is not None and _pid_of(owner) == a.proc.pid
            # ten graces later nobody has played for the connected player
            stop = time.monotonic() + 10 * cfg["grace_s"]  # type: ignore[operator]
            while time.monotonic() < stop:
                with contextlib.suppress(TimeoutError):
                    ws.recv(timeout=0.05)
            events = store.events_since(tid, 0)
            assert not [e for e in events if isinstance(e, MoveEvent) and e.by == "standin"], events
        finally:
            ws.close()
        # gone from B: A (or B) plays a stand-in for them after the grace
        _until(
            "a stand-in for the player who left",
            lambda: any(
                isinstance(e, MoveEvent) and e.by == "standin" for e in store.events_since(tid, 0)
            ),
        )
    finally:
        store.close()


def test_chat_survives_a_restart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The chat is the database's (here SQLite, one process): after a restart the
    history, the mutes and the rate limit's count are still there."""
    from fastapi.testclient import TestClient

    from svoi_kozyri.server.features import chat
    from svoi_kozyri.server.web.app import create_app

    monkeypatch.setattr(chat, "RATE_SECONDS", 600.0)  # a slow restart stays in the window

    url = f"sqlite:///{tmp_path / 'chat.db'}"
    seats = [{"kind": "human"}, {"kind": "human"}]
    cfg = {"seats": seats, "grace_s": 600}
    with TestClient(create_app(url, seed=1)) as c:
        a = c.post("/api/tables", json={"name": "Ann", "config": cfg}).json()
        tid = a["table_id"]
        b = c.post(f"/api/tables/{tid}/join", json={"name": "Bob"}).json()
        with c.websocket_connect(f"/ws/{tid}") as wa, c.websocket_connect(f"/ws/{tid}") as wb:
            for ws, tok in ((wa, a["token"]), (wb, b["token"])):
                ws.send_text(json.dumps({"type": "hello", "token": tok}))
            wb.send_text(json.dumps({"type": "mute", "seat": 0, "muted": True}))
            while wb.receive_json()["type"] != "chat_mutes":
                pass
            for i in range(4):
                wa.send_text(json.dumps({"type": "chat", "text": f"before {i}"}))
                while (m := wa.receive_json())["type"] != "chat":
                    pass
                assert m["text"] == f"before {i}"
    with (
        TestClient(create_app(url, seed=2)) as c,
        c.websocket_connect(f"/ws/{tid}") as wa,
        c.websocket_connect(f"/ws/{tid}") as wb,
    ):
        for ws, tok in ((wa, a["token"]), (wb, b["token"])):
            ws.send_text(json.dumps({"type": "hello", "token": tok}))
        wa.send_text(json.dumps({"type": "chat_history"}))
        while (h := wa.receive_json())["type"] != "chat_history":
            pass
        assert [m["text"] for m in h["messages"]] == [f"before {i}" for i in range(4)]
        wb.send_text(json.dumps({"type": "chat_history"}))
        while (h := wb.receive_json())["type"] != "chat_history":
            pass
        assert h["muted"] == [0] and h["messages"] == []  # Bob still mutes Ann
        wa.send_text(json.dumps({"type": "chat", "text": "fifth"}))
        wa.send_text(json.dumps({"type": "chat", "text": "sixth"}))
        got = []
        while len(got) < 2:
            m = wa.receive_json()
            if m["type"] in ("chat", "error"):
                got.append(m.get("text") or m["code"])
        assert got == ["fifth", "chat_rate"]  # the four before the restart count
