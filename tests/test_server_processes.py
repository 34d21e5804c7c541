"""Issue 13, defect 3: no process outlives a server that ran a search bot.

A real server process plays a table against the ``hard`` bot (which thinks in
worker processes); then the server is killed with SIGKILL (or stopped with
SIGTERM) and every process it started (workers, and whatever helper
``multiprocessing`` started) must be gone within a few seconds instead of
living on under PID 1.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.web.client import SeatClient, low_card_policy

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc"),
]


def _children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        out.setdefault(ppid, []).append(int(entry.name))
    return out


def descendants(pid: int) -> set[int]:
    """Every living process below ``pid``."""
    tree = _children()
    found: set[int] = set()
    todo = [pid]
    while todo:
        for c in tree.get(todo.pop(), []):
            if c not in found:
                found.add(c)
                todo.append(c)
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _play_against_hard(srv: ServerProcess) -> None:
    async def go() -> None:
        cfg = {
            "seats": [{"kind": "human"}, {"kind": "bot", "bot": "hard"}],
            "bot_delay_s": 0,
            "hand_pause_s": 0,
        }
        async with httpx.AsyncClient(base_url=srv.base, timeout=60) as http:
            r = await http.post("/api/tables", json={"name": "Ann", "config": cfg})
            r.raise_for_status()
            g = r.json()
        player = SeatClient(srv.ws_base, g["table_id"], g["token"], low_card_policy, max_moves=3)
        await asyncio.wait_for(player.run(), timeout=120)

    asyncio.run(go())


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_bot_workers_die_with_the_server(tmp_path: Path, how: signal.Signals) -> None:
    srv = ServerProcess(f"sqlite:///{tmp_path / 'p.db'}", seed=1, log_path=tmp_path / "s.log")
    with srv:
        assert srv.proc is not None
        _play_against_hard(srv)
        kids = descendants(srv.proc.pid)
        assert kids, "the hard bot should think in worker processes"
        os.kill(srv.proc.pid, how)
        srv.proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(p) for p in kids):
            time.sleep(0.1)
        left = [p for p in kids if _alive(p)]
        for p in left:  # clean up before failing
            os.kill(p, signal.SIGKILL)
        assert not left, f"processes outlived the server: {left}"
    assert "Traceback" not in (tmp_path / "s.log").read_text()
