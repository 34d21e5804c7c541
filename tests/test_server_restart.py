"""Nothing is lost: SIGKILL the server in the middle of games, restart, resume.

Runs against SQLite by default; ``test_server_postgres.py`` runs the same
scenario against a throwaway PostgreSQL server.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.web.client import SeatClient, low_card_policy

pytestmark = pytest.mark.timeout(300)

HUMAN = {"kind": "human"}


def _tables() -> list[dict[str, Any]]:
    slow_bot = {"bot_delay_s": 0.02, "hand_pause_s": 0.05}
    return [
        # a human against bots: the table waits for the human at their turn
        {"seats": [HUMAN, {"kind": "bot"}, {"kind": "bot"}], **slow_bot},
        # two humans
        {"seats": [HUMAN, HUMAN], "rules": {"pickup_rule": "fixed"}, **slow_bot},
        # a four-seat table whose human looked in and left: bots and a stand-in
        # keep playing, so the kill lands in the middle of moves being made
        {
            "seats": [HUMAN, {"kind": "bot"}, {"kind": "bot"}, {"kind": "bot"}],
            "grace_s": 0,
            **slow_bot,
        },
    ]


async def _setup_and_play(srv: ServerProcess) -> list[dict[str, Any]]:
    """Create the tables, play a few moves as each human, watch as a spectator."""
    out = []
    async with httpx.AsyncClient(base_url=srv.base, timeout=30) as http:
        for i, cfg in enumerate(_tables()):
            r = await http.post("/api/tables", json={"name": f"P{i}", "config": cfg})
            r.raise_for_status()
            g = r.json()
            tokens = [g["token"]]
            for _ in range(sum(s["kind"] == "human" for s in cfg["seats"]) - 1):
                j = await http.post(f"/api/tables/{g['table_id']}/join", json={"name": "Q"})
                tokens.append(j.json()["token"])
            out.append({"id": g["table_id"], "tokens": tokens, "away": "grace_s" in cfg})
    for t in out:
        if t["away"]:
            # the player looks in once and leaves: stand-ins play for them (a table
            # whose humans never connected would not play by itself)
            await SeatClient(srv.ws_base, t["id"], t["tokens"][0], None, max_moves=0).run()
            continue
        clients = [
            SeatClient(srv.ws_base, t["id"], tok, low_card_policy, seed=k, max_moves=4)
            for k, tok in enumerate(t["tokens"])
        ]
        await asyncio.gather(*(c.run() for c in clients))
        assert all(c.moves == 4 for c in clients)
    return out


async def _snapshot(srv: ServerProcess, tables: list[dict[str, Any]]) -> dict[str, Any]:
    """Each table as each token holder and a spectator see it now."""
    snap: dict[str, Any] = {}
    async with httpx.AsyncClient(base_url=srv.base, timeout=30) as http:
        for t in tables:
            views = []
            for tok in [None, *t["tokens"]]:
                headers = {"X-Seat-Token": tok} if tok else {}
                r = await http.get(f"/api/tables/{t['id']}", headers=headers)
                r.raise_for_status()
                views.append(r.json())
            snap[t["id"]] = views
    return snap


def _essence(view: dict[str, Any]) -> Any:
    hand = view["hand"]
    return (
        view["version"],
        view["status"],
        view["session"],
        None
        if hand is None
        else (hand["hand"], hand["to_act"], hand["mode"], hand["pile"], hand["legal"], hand["log"]),
    )


def crash_and_resume(db_url: str, tmp_path: Path) -> None:
    """The scenario shared by the SQLite and PostgreSQL tests."""
    port = None
    with ServerProcess(db_url, seed=5, log_path=tmp_path / "server.log") as srv:
        port = srv.port
        tables = asyncio.run(_setup_and_play(srv))
        time.sleep(0.3)  # the away table keeps moving
        before = asyncio.run(_snapshot(srv, tables))
        srv.kill()  # SIGKILL in the middle of the away table's moves
    with ServerProcess(db_url, port=port, log_path=tmp_path / "server2.log") as srv:
        after = asyncio.run(_snapshot(srv, tables))
        for t in tables:
            b, a = before[t["id"]], after[t["id"]]
            if not t["away"]:
                # waiting for a human: exactly where it was, for every viewer
                for vb, va in zip(b, a, strict=True):
                    assert _essence(va) == _essence(vb)
                    assert va["viewer"] == vb["viewer"]
            else:
                # still moving: nothing seen before the kill is lost
                assert a[0]["version"] >= b[0]["version"] > 0
                if a[0]["hand"]["number"] == b[0]["hand"]["number"]:
                    n = len(b[0]["hand"]["log"])
                    assert a[0]["hand"]["log"][:n] == b[0]["hand"]["log"]
        # the players reconnect with their tokens and the games go on
        for t in tables:
            if t["away"]:
                continue
            clients = [
                SeatClient(srv.ws_base, t["id"], tok, low_card_policy, seed=9, max_moves=2)
                for tok in t["tokens"]
            ]
            asyncio.run(_run_all(clients))
            for k, c in enumerate(clients):
                assert c.seat == k and c.moves == 2 and not c.errors
        final = asyncio.run(_snapshot(srv, tables))
        for t in tables:
            if not t["away"]:
                assert final[t["id"]][0]["version"] > after[t["id"]][0]["version"]


async def _run_all(clients: list[SeatClient]) -> None:
    await asyncio.gather(*(c.run() for c in clients))


def test_sigkill_and_restart_sqlite(tmp_path: Path) -> None:
    crash_and_resume(f"sqlite:///{tmp_path / 'crash.db'}", tmp_path)
