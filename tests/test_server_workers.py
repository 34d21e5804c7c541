"""Two server processes on one PostgreSQL database (``--workers 2``): kill one, kill both.

While games run (players over WebSockets, bots, stand-ins), SIGKILL one of the
two uvicorn workers: every client reconnects (to whichever process accepts it)
and plays on, and every view any client ever received agrees with the event log
replayed from the database, so no accepted action was lost or applied twice.
Then kill everything and start again on the same database: the same holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed

from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.storage.store import Store
from svoi_kozyri.server.table.master import game_from_stored
from svoi_kozyri.server.table.views import table_view
from svoi_kozyri.server.web.client import SeatClient, low_card_policy
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)
from test_server_processes import _alive, descendants

pytestmark = pytest.mark.timeout(300)

MOVES = 12
"""Moves each player makes per phase of the test."""


def _fresh_db(base_url: str, name: str) -> str:
    import psycopg

    plain = base_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return base_url.rsplit("/", 1)[0] + "/" + name


def _workers(srv: ServerProcess) -> list[int]:
    """The uvicorn worker processes (children running multiprocessing's spawn)."""
    assert srv.proc is not None
    out = []
    for pid in descendants(srv.proc.pid):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        if b"spawn_main" in cmd and b"resource_tracker" not in cmd and parent == srv.proc.pid:
            out.append(pid)
    return out


async def _make_tables(srv: ServerProcess) -> list[dict[str, Any]]:
    # a short grace: once one player of a table has made its moves and left, a
    # stand-in plays for it, so the others can make theirs
    quick = {
        "bot_delay_s": 0.02,
        "hand_pause_s": 0.05,
        "grace_s": 0.5,
        "rules": {"loss_limit": 50},
    }
    configs = [
        {"seats": [{"kind": "human"}, {"kind": "human"}], **quick},
        {"seats": [{"kind": "human"}, {"kind": "human"}], **quick},
        {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}], **quick},
        {
            "seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}, {"kind": "human"}],
            **quick,
        },
    ]
    out = []
    async with httpx.AsyncClient(base_url=srv.base, timeout=30) as http:
        for i, cfg in enumerate(configs):
            r = await http.post("/api/tables", json={"name": f"P{i}", "config": cfg})
            r.raise_for_status()
            g = r.json()
            tokens = [g["token"]]
            for _ in range(sum(s["kind"] == "human" for s in cfg["seats"]) - 1):
                j = await http.post(f"/api/tables/{g['table_id']}/join", json={"name": "Q"})
                j.raise_for_status()
                tokens.append(j.json()["token"])
            out.append({"id": g["table_id"], "tokens": tokens})
    return out


async def _play(client: SeatClient, moves: int, deadline: float) -> int:
    """Play until ``moves`` more moves, reconnecting whenever the socket drops."""
    target = client.moves + moves
    reconnects = 0
    while client.moves < target and time.monotonic() < deadline:
        client.max_moves = target
        with contextlib.suppress(ConnectionClosed, OSError):
            await client.run()
        if client.moves < target:
            reconnects += 1
            await asyncio.sleep(0.1)
    return reconnects


def _check_against_log(db_url: str, tables: list[dict[str, Any]], clients: list[Any]) -> None:
    """Every state message any client received equals the view replayed from the
    stored events at that version."""
    store = Store(db_url, migrate=False)
    try:
        for t in tables:
            stored = store.load(t["id"])
            assert stored is not None and stored.version == len(stored.events)
            truth = game_from_stored(stored)  # the whole log replays: nothing illegal
            assert truth.version == stored.version
            n = truth.n
            seen: dict[tuple[int | None, int], Any] = {}
            for c in clients:
                if c.table_id != t["id"]:
                    continue
                for raw in c.messages:
                    msg = json.loads(raw)
                    if msg["type"] == "state":
                        v = msg["view"]
                        seen[(v["viewer"], v["version"])] = v
            assert seen
            copy = game_from_stored(stored.__class__(**{**stored.__dict__, "events": []}))
            by_version: dict[int, Any] = {}
            for k in sorted({ver for _, ver in seen}):
                while copy.version < k:
                    copy.apply(stored.events[copy.version])
                by_version[k] = copy
                for (viewer, ver), v in seen.items():
                    if ver != k:
                        continue
                    want = table_view(copy, viewer, [False] * n, [False] * n)
                    got_hand, want_hand = v["hand"], want.model_dump(mode="json")["hand"]
                    if want_hand is None:
                        assert got_hand is None
                        continue
                    for key in ("hand", "log", "to_act", "pile", "legal", "number"):
                        assert got_hand[key] == want_hand[key], (t["id"], ver, viewer, key)
    finally:
        store.close()


async def _watch(client: SeatClient, until: asyncio.Event) -> int:
    """A spectator that watches until ``until`` is set, reconnecting whenever its
    socket drops; the number of reconnects."""
    reconnects = 0
    while not until.is_set():
        task = asyncio.create_task(client.run(stop=lambda _view: until.is_set()))
        stopper = asyncio.create_task(until.wait())
        await asyncio.wait({task, stopper}, return_when=asyncio.FIRST_COMPLETED)
        stopper.cancel()
        if not task.done():
            task.cancel()
        with contextlib.suppress(ConnectionClosed, OSError, asyncio.CancelledError):
            await task
        if not until.is_set():
            reconnects += 1
            await asyncio.sleep(0.1)
    return reconnects


def _until(what: str, check: Any, timeout: float) -> Any:
    """Poll ``check`` until it returns something true (bounded)."""
    deadline = time.monotonic() + timeout
    while not (got := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
    return got


def _serving(srv: ServerProcess, db: str, n: int) -> None:
    """Wait until ``n`` workers run and each has joined the cluster (its heartbeat
    is in ``sk_processes``), so both take connections when the test starts."""
    from sqlalchemy import func, select

    from svoi_kozyri.server.storage.schema import processes_t

    _until("the workers to start", lambda: len(_workers(srv)) >= n, 60)
    store = Store(db, migrate=False)
    try:

        def joined() -> bool:
            with store.engine.connect() as conn:
                return (
                    int(conn.execute(select(func.count()).select_from(processes_t)).scalar() or 0)
                    >= n
                )

        _until("the workers to join the cluster", joined, 60)
    finally:
        store.close()


def test_kill_one_worker_then_both(postgres_url: str, tmp_path: Path) -> None:  # noqa: F811
    db = _fresh_db(postgres_url, "sk_workers")
    srv = ServerProcess(db, workers=2, rate_limits=False, log_path=tmp_path / "s1.log")
    srv.start(timeout=90)  # two workers import the whole server: slow on a busy machine
    try:
        _serving(srv, db, 2)
        workers = _workers(srv)
        assert len(workers) == 2
        tables = asyncio.run(_make_tables(srv))
        clients = [
            SeatClient(srv.ws_base, t["id"], tok, low_card_policy, seed=k, think_s=0.02)
            for t in tables
            for k, tok in enumerate(t["tokens"])
        ]
        players = list(clients)
        spectators = [SeatClient(srv.ws_base, t["id"], None, None) for t in tables[:2]]
        clients += spectators
        at_kill: dict[str, int] = {}

        def _sockets(pid: int) -> int:
            fds = Path(f"/proc/{pid}/fd")
            return sum(1 for fd in fds.iterdir() if os.readlink(fd).startswith("socket:"))

        async def phase_one() -> tuple[list[int], list[int]]:
            end = time.monotonic() + 90
            done = asyncio.Event()
            watching = [asyncio.create_task(_watch(c, done)) for c in spectators]
            tasks = [asyncio.create_task(_play(c, MOVES, end)) for c in players]
            # every player is under way (not a guessed sleep): then a worker dies
            while min(c.moves for c in players) < 2 and time.monotonic() < end:
                await asyncio.sleep(0.05)
            nonlocal busiest
            busiest = max(workers, key=_sockets)
            store = Store(db, migrate=False)
            at_kill.update(store.versions([t["id"] for t in tables]))
            store.close()
            os.kill(busiest, signal.SIGKILL)  # the worker with the most sockets dies mid-game
            played = list(await asyncio.gather(*tasks))
            done.set()
            return played, list(await asyncio.gather(*watching))

        busiest = 0
        reconnects, rewatched = asyncio.run(phase_one())
        report = [
            (c.table_id, c.seat, c.moves, r, c.last_view and c.last_view["version"])
            for c, r in zip(players, reconnects, strict=True)
        ]
        assert all(c.moves >= MOVES for c in players), (at_kill, report)
        assert sum(reconnects) + sum(rewatched) >= 1  # the killed worker's clients came back
        assert all(not [e for e in c.errors if e["code"] not in ("stale",)] for c in players)
        for c in spectators:  # every spectator sees the table after the kill
            assert c.last_view is not None, rewatched
            assert c.last_view["version"] > at_kill[c.table_id], (at_kill, rewatched)
        survivors = _workers(srv)
        assert survivors and busiest not in survivors
        # kill everything: the supervisor and both workers
        everything = [*_workers(srv)]
        srv.kill()
        # a worker uvicorn was just restarting may still be importing the server:
        # it ends as soon as it gets that far (bounded)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(p) for p in everything):
            time.sleep(0.1)
        left = [p for p in everything if _alive(p)]
        for p in left:
            os.kill(p, signal.SIGKILL)
        assert not left, f"workers outlived their supervisor: {left}"
    finally:
        srv.stop()
    _check_against_log(db, tables, clients)
    port = srv.port
    srv2 = ServerProcess(db, workers=2, port=port, rate_limits=False, log_path=tmp_path / "s2.log")
    srv2.start(timeout=90)
    try:

        async def phase_two() -> None:
            end = time.monotonic() + 90
            await asyncio.gather(*(_play(c, MOVES // 2, end) for c in players))

        asyncio.run(phase_two())
        assert all(c.moves >= MOVES + MOVES // 2 for c in players)
    finally:
        srv2.stop()
    _check_against_log(db, tables, clients)
    tokens = [tok for t in tables for tok in t["tokens"]]
    for name in ("s1.log", "s2.log"):
        logged = (tmp_path / name).read_text()
        assert "Traceback" not in logged, name
        assert not [tok for tok in tokens if tok in logged], name  # no seat token in a log line


def test_a_worker_whose_supervisor_is_gone_ends_at_once(tmp_path: Path) -> None:
    """A worker uvicorn started just before its supervisor died (SIGKILL) reaches
    the app factory with init as its parent: it must not take init for the
    supervisor, but compare with the supervisor's pid that ``run_server`` gave it."""
    import subprocess
    import sys

    from svoi_kozyri.server.web.app import ENV_PREFIX

    db = f"sqlite:///{tmp_path / 'x.db'}"
    Store(db, migrate=True).close()
    env = {
        **os.environ,
        ENV_PREFIX + "SUPERVISOR": "999999999",  # no such process: the supervisor is gone
        ENV_PREFIX + "DATABASE": db,
    }
    code = "from svoi_kozyri.server.web.app import app_from_env; app_from_env(); print('alive')"
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 1 and "alive" not in out.stdout, (out.stdout, out.stderr)
    # with its supervisor alive (here: this test process) the worker builds its app
    env[ENV_PREFIX + "SUPERVISOR"] = str(os.getpid())
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0 and "alive" in out.stdout, out.stderr
