"""A worker told to stop drains (server/runtime/drain.py): SIGTERM to one worker
of ``serve --workers 2`` on PostgreSQL while a player plays a bot there.

The worker gives its lease, presence and heartbeat back *before* it closes the
player's socket (with 1012: reconnect at once), so when the player reaches the
other worker the table is free there: the bot goes on playing within a couple of
seconds (a lease left to run out would cost five).  Nothing the player sees is
an error, and the stopped worker exits within the bound (uvicorn's supervisor
then starts a new one).
The same with two hosts behind nginx: tests/test_hosts_netns.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from svoi_kozyri.server.runtime.drain import DRAIN_S
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.web.client import low_card_policy
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)
from test_server_workers import _serving, _workers

pytestmark = pytest.mark.timeout(180)


@dataclass
class Player:
    """One seat that plays its turns and reconnects at once after any close."""

    ws_base: str
    table_id: str
    token: str
    seat: int | None = None
    moves: int = 0
    versions: list[tuple[float, int]] = field(default_factory=list)
    codes: list[int | None] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    on_close: Callable[[int | None], None] | None = None
    """Called at once when a socket closes, with its close code."""

    async def run(self) -> None:
        """Play until cancelled."""
        rng = random.Random(1)
        while True:
            try:
                async with connect(f"{self.ws_base}/ws/{self.table_id}") as ws:
                    await ws.send(json.dumps({"type": "hello", "token": self.token}))
                    with contextlib.suppress(ConnectionClosed):
                        await self._read(ws, rng)
                    if self.on_close is not None:
                        self.on_close(ws.close_code)
                    self.codes.append(ws.close_code)
            except OSError:
                self.codes.append(None)
            await asyncio.sleep(0.05)

    async def _read(self, ws: object, rng: random.Random) -> None:
        sent = -1
        async for raw in ws:  # type: ignore[attr-defined]
            msg = json.loads(raw)
            if msg["type"] == "welcome":
                self.seat = msg["seat"]
            elif msg["type"] == "error":
                self.errors.append(msg["code"])
            elif msg["type"] == "state":
                view = msg["view"]
                self.versions.append((time.monotonic(), view["version"]))
                hand = view["hand"]
                mine = hand and hand["to_act"] == self.seat and hand["legal"]
                if mine and view["version"] != sent:
                    sent = view["version"]
                    move = low_card_policy(hand["legal"], rng)
                    await ws.send(  # type: ignore[attr-defined]
                        json.dumps({"type": "move", "move": move, "version": sent})
                    )
                    self.moves += 1


async def _until(what: str, check: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def _held_by(conn: psycopg.Connection[Any], owner: str) -> dict[str, int]:
    """The rows ``owner`` holds: leases, presence, heartbeat."""
    out = {}
    for table in ("sk_leases", "sk_presence", "sk_processes"):
        row = conn.execute(f"SELECT count(*) FROM {table} WHERE owner = %s", (owner,)).fetchone()
        out[table] = int(row[0]) if row else 0
    return out


def _holder(conn: psycopg.Connection[Any], table_id: str) -> tuple[str | None, str | None]:
    """The process with the player's socket (presence) and the lease holder."""
    seat = conn.execute(
        "SELECT owner FROM sk_presence WHERE table_id = %s AND seats <> ''", (table_id,)
    ).fetchone()
    lease = conn.execute("SELECT owner FROM sk_leases WHERE table_id = %s", (table_id,)).fetchone()
    return (str(seat[0]) if seat else None, str(lease[0]) if lease else None)


async def _scenario(srv: ServerProcess, db: str) -> None:
    cfg = {
        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
        "bot_delay_s": 0.05,
        "hand_pause_s": 0.1,
        "rules": {"loss_limit": 50},
    }
    async with httpx.AsyncClient(base_url=srv.base, timeout=30) as http:
        r = await http.post("/api/tables", json={"name": "P", "config": cfg})
        r.raise_for_status()
        grant = r.json()
    plain = db.replace("postgresql+psycopg://", "postgresql://")
    conn = psycopg.connect(plain, autocommit=True)
    player = Player(srv.ws_base, grant["table_id"], grant["token"])
    at_close: list[dict[str, int]] = []
    task = asyncio.create_task(player.run())
    try:
        await _until("a few moves", lambda: player.moves >= 5, 30)
        await _until(
            "the lease at the player's process",
            lambda: (h := _holder(conn, grant["table_id"]))[0] is not None and h[0] == h[1],
            10,
        )
        owner = _holder(conn, grant["table_id"])[0]
        assert owner is not None
        pid = int(owner.split(":")[1])
        assert pid in _workers(srv)
        # what the stopping worker still holds at the very moment its socket closes
        player.on_close = lambda _code: at_close.append(_held_by(conn, owner))
        stopped = time.monotonic()
        os.kill(pid, signal.SIGTERM)
        await _until("the 1012 close", lambda: 1012 in player.codes, 5)
        assert at_close[0] == {"sk_leases": 0, "sk_presence": 0, "sk_processes": 0}
        before = player.moves
        await _until("play at the other worker", lambda: player.moves >= before + 10, 30)
        # the table never waited long: no gap between two versions over 3 s
        times = [t for t, _v in player.versions if t >= stopped]
        gaps = [b - a for a, b in zip([stopped, *times], times, strict=False)]
        assert max(gaps) < 3.0, f"the table stalled {max(gaps):.1f} s"
        await _until("the worker's exit", lambda: pid not in _workers(srv), DRAIN_S + 5)
        assert player.errors == []
        assert set(player.codes) == {1012}, player.codes
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        conn.close()


def test_sigterm_drains_a_worker_and_its_table_plays_on(
    postgres_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    with ServerProcess(
        postgres_url, workers=2, rate_limits=False, log_path=tmp_path / "server.log"
    ) as srv:
        _serving(srv, postgres_url, 2)
        asyncio.run(_scenario(srv, postgres_url))
