"""Tournaments played to the end through the HTTP and WebSocket API.

One server process on SQLite; scripted entrants (``bench/tournament.py``'s
:class:`Entrant`: log in, join, keep polling the tournament's page, play every
table it sends them to with the entry's secret as the seat token) play a short
arena (2 players a table, one minute, a bot entrant, and one entrant who never
goes to a table: stand-ins play for it) and, at the same time, a Swiss
tournament of two rounds (3-player tables).  Both must finish, every entrant
must have played, and the stored standings must equal their recomputation
from the stored games.  The times are shortened through
``SVOI_KOZYRI_TOURNAMENT_TIMES``; the acceptance run (24 entrants, two
workers on PostgreSQL, one killed) is ``bench/tournament.py``."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from svoi_kozyri.server.platform.tournament_director import TIMES_ENV
from svoi_kozyri.server.runtime.process import ServerProcess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import tournament as bench

pytestmark = pytest.mark.timeout(180)

TIMES = {
    "grace_s": 2.0,
    "turn_timer_s": 10.0,
    "bot_delay_s": 0.1,
    "hand_pause_s": 0.2,
    "present_s": 20.0,
    "fill_after_s": 4.0,
    "stale_s": 20.0,
    "lease_s": 5.0,
    "interval_s": 0.3,
}


async def _scenario(srv: ServerProcess, db: str) -> dict[str, Any]:
    arena_names = ["ann", "ben", "cat", "dan"]
    swiss_names = ["eve", "fay", "gus", "hal"]
    arena = [bench.Entrant([srv.base], n, plays=n != "dan") for n in arena_names]
    swiss = [bench.Entrant([srv.base], n) for n in swiss_names]
    await asyncio.gather(*(e.login() for e in arena + swiss))
    a_id = await bench.create(
        arena[0],
        name="Lunch arena",
        kind="arena",
        players=2,
        starts=time.time() + 1,
        minutes=1,
        bots=["random"],
    )
    s_id = await bench.create(
        swiss[0],
        name="Swiss",
        kind="swiss",
        players=3,
        starts=time.time() + 2,
        rounds=2,
        bots=["easy"],
    )
    await asyncio.gather(*(e.join(a_id) for e in arena), *(e.join(s_id) for e in swiss))
    deadline = time.monotonic() + 150
    views = await asyncio.gather(*(e.play(deadline) for e in arena + swiss))
    return {
        "arena": (a_id, arena, views[0]),
        "swiss": (s_id, swiss, views[len(arena)]),
    }


def test_an_arena_and_a_swiss_played_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = f"sqlite:///{tmp_path / 'play.db'}"
    bench.make_accounts(db, ["ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal"])
    monkeypatch.setenv(TIMES_ENV, json.dumps(TIMES))
    srv = ServerProcess(db, rate_limits=False, migrate=False, log_path=tmp_path / "s.log")
    srv.start(60)
    try:
        got = asyncio.run(_scenario(srv, db))
    finally:
        srv.stop()

    a_id, arena, a_view = got["arena"]
    assert a_view["tournament"]["state"] == "finished" and a_view["tables"] == []
    assert all(e.games >= 1 for e in arena if e.plays)
    assert len(next(e for e in arena if not e.plays).tables) >= 1  # paired, a stand-in played
    names = {s["name"]: s for s in a_view["standings"]}
    assert set(names) == {"ann", "ben", "cat", "dan", "random"} and names["random"]["bot"]
    assert sum(s["games"] for s in a_view["standings"]) >= 4
    same, table = bench.check_standings(db, a_id)
    assert same, table

    s_id, swiss, s_view = got["swiss"]
    assert s_view["tournament"]["state"] == "finished" and s_view["tournament"]["round"] == 2
    rounds = sorted({r["round"] for r in s_view["results"]})
    assert rounds == [1, 2]
    assert all(e.games == 2 for e in swiss)  # 5 entrants, 3 a table: everyone plays each round
    same, table = bench.check_standings(db, s_id)
    assert same, table
    for view in (a_view, s_view):
        text = json.dumps(view)
        assert "secret" not in text and "token" not in text and "seed" not in text
