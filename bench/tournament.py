"""The tournaments' acceptance run (issue 22, item 3).

    .venv/bin/python bench/tournament.py --minutes 10

24 scripted entrants (accounts that log in, join, and play every table the
tournament sends them to, through the HTTP and WebSocket API, as a browser
would) and 4 bots play an arena on two server processes sharing a throwaway
PostgreSQL.  Halfway through, one process is killed (SIGKILL): its entrants go
on through the other (as behind a load balancer), its tables and the
tournament's direction are taken over.  At the end the stored standings are
compared with a recomputation from the stored games, and the result printed.

:class:`Entrant` is also the scripted client of ``tests/test_tournament_play.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select

from svoi_kozyri.server.platform.accounts import AccountService, AccountSettings
from svoi_kozyri.server.platform.tournament_director import TIMES_ENV
from svoi_kozyri.server.platform.tournament_standings import recompute
from svoi_kozyri.server.runtime.process import ServerProcess, throwaway_postgres
from svoi_kozyri.server.storage.schema import tournament_entries_t, tournaments_t
from svoi_kozyri.server.storage.store import Store
from svoi_kozyri.server.web.client import SeatClient

PASSWORD = "correct horse battery"
FAST_TIMES = {
    "grace_s": 5.0,
    "turn_timer_s": 20.0,
    "bot_delay_s": 0.2,
    "hand_pause_s": 0.3,
    "present_s": 20.0,
    "fill_after_s": 6.0,
    "stale_s": 60.0,
    "lease_s": 5.0,
    "interval_s": 0.5,
}
"""The tournaments' times for a short run (``SVOI_KOZYRI_TOURNAMENT_TIMES``)."""


def make_accounts(database_url: str, names: list[str]) -> None:
    """Register the entrants' accounts straight in the database (the HTTP
    registration allows ten a hour from one address), with cheap hashing."""
    store = Store(database_url, migrate=True)
    try:
        accounts = AccountService(store.engine, AccountSettings.fast())
        for name in names:
            accounts.register(name, PASSWORD)
    finally:
        store.close()


@dataclass
class Entrant:
    """One scripted entrant: logs in, joins, and plays each table it is sent to.

    ``bases`` are the servers it may talk to (the first that answers; another
    after a failure, as behind a load balancer)."""

    bases: list[str]
    name: str
    plays: bool = True
    """False: an entrant who keeps the page open but never goes to a table (a
    stand-in plays for it)."""
    tournament_id: str = ""
    secret: str = ""
    games: int = 0
    tables: list[str] = field(default_factory=list)
    failovers: int = 0
    _csrf: str = ""
    _cookies: httpx.Cookies = field(default_factory=httpx.Cookies)

    async def _call(self, method: str, path: str, body: Any = None) -> Any:
        last: Exception | None = None
        for _ in range(3 * len(self.bases)):
            base = self.bases[0]
            try:
                async with httpx.AsyncClient(base_url=base, cookies=self._cookies, timeout=10) as c:
                    headers = {"X-CSRF-Token": self._csrf} if self._csrf else {}
                    r = await c.request(method, path, json=body, headers=headers)
                    self._cookies.update(c.cookies)
                if r.status_code >= 400:
                    raise RuntimeError(f"{method} {path}: {r.status_code} {r.text}")
                return r.json()
            except httpx.TransportError as e:
                last = e
                self.bases.append(self.bases.pop(0))
                self.failovers += 1
                await asyncio.sleep(0.3)
        raise RuntimeError(f"{self.name}: no server answers") from last

    async def login(self) -> None:
        """Log in (an account made by :func:`make_accounts`)."""
        me = await self._call("GET", "/api/account/me")
        self._csrf = me["csrf"]
        out = await self._call(
            "POST", "/api/account/login", {"username": self.name, "password": PASSWORD}
        )
        self._csrf = out["csrf"]

    async def join(self, tournament_id: str) -> None:
        """Enter the tournament and keep its secret (as the page keeps it)."""
        self.tournament_id = tournament_id
        got = await self._call("POST", f"/api/tournaments/{tournament_id}/join", {})
        self.secret = got["secret"]

    async def view(self) -> dict[str, Any]:
        """The tournament's page data (polling it counts as being on the page)."""
        out: dict[str, Any] = await self._call("GET", f"/api/tournaments/{self.tournament_id}")
        return out

    async def play(self, deadline: float, poll_s: float = 0.5) -> dict[str, Any]:
        """Poll; play each new table with the entry's secret; until the end."""
        while time.monotonic() < deadline:
            v = await self.view()
            if v["tournament"]["state"] == "finished":
                return v
            table = (v.get("me") or {}).get("table_id")
            if table and table not in self.tables:
                self.tables.append(table)
                if self.plays:
                    await self._play_table(table)
                    self.games += 1
                    continue
            await asyncio.sleep(poll_s)
        raise TimeoutError(f"{self.name}: the tournament did not finish in time")

    async def _play_table(self, table_id: str) -> None:
        for _ in range(3 * len(self.bases)):
            ws = self.bases[0].replace("http://", "ws://")
            client = SeatClient(ws, table_id, self.secret, seed=hash(self.name) % 1000)
            try:
                await client.run()
                return
            except Exception:  # a killed server: go on through another
                self.bases.append(self.bases.pop(0))
                self.failovers += 1
                await asyncio.sleep(0.5)


async def create(entrant: Entrant, **options: Any) -> str:
    """Create a tournament as ``entrant``; its id."""
    out = await entrant._call("POST", "/api/tournaments", options)
    return str(out["tournament"]["id"])


def check_standings(database_url: str, tournament_id: str) -> tuple[bool, list[dict[str, Any]]]:
    """Compare the stored standings with a recomputation from the stored games."""
    store = Store(database_url, migrate=False)
    try:
        with store.engine.connect() as conn:
            t = conn.execute(select(tournaments_t).where(tournaments_t.c.id == tournament_id)).one()
            rows = conn.execute(
                select(tournament_entries_t).where(
                    tournament_entries_t.c.tournament_id == tournament_id
                )
            ).all()
            again = recompute(conn, tournament_id, doubling=t.kind == "arena")
    finally:
        store.close()
    table = []
    same = True
    for r in sorted(rows, key=lambda r: (-int(r.score), r.name)):
        a = again[r.id]
        ok = (int(r.score), int(r.games), int(r.wins)) == (a.score, a.games, a.wins)
        same = same and ok
        table.append(
            {
                "name": r.name + (" (bot)" if r.bot else ""),
                "score": int(r.score),
                "games": int(r.games),
                "wins": int(r.wins),
                "recomputed": a.score,
                "ok": ok,
            }
        )
    return same, table


async def _run(args: argparse.Namespace, url: str, a: ServerProcess, b: ServerProcess) -> int:
    names = [f"entrant{i:02d}" for i in range(args.entrants)]
    entrants = [
        Entrant([a.base, b.base] if i % 2 else [b.base, a.base], n) for i, n in enumerate(names)
    ]
    await asyncio.gather(*(e.login() for e in entrants))
    tid = await create(
        entrants[0],
        name="Acceptance arena",
        kind="arena",
        players=args.players,
        starts=time.time() + 5,
        minutes=args.minutes,
        bots=args.bots,
        max_entries=64,
    )
    await asyncio.gather(*(e.join(tid) for e in entrants))
    started = time.monotonic()
    deadline = started + 60 * args.minutes + 300

    async def killer() -> None:
        """Halfway, SIGKILL the process directing the tournament (no clean stop,
        no lease given back): another must take the tournament over."""
        await asyncio.sleep(5 + 30 * args.minutes)
        owner = owners[-1] if owners else ""
        victim = next((s for s in (a, b) if s.proc and f":{s.proc.pid}:" in owner), a)
        assert victim.proc is not None
        victim.proc.kill()
        name = "A" if victim is a else "B"
        print(f"[{time.monotonic() - started:6.1f} s] killed server {name} (pid {victim.proc.pid})")

    owners: list[str] = []

    async def watch() -> None:  # which process directs the tournament, over time
        store = Store(url, migrate=False)
        try:
            while True:
                with store.engine.connect() as conn:
                    owner = conn.execute(
                        select(tournaments_t.c.owner).where(tournaments_t.c.id == tid)
                    ).scalar()
                if owner and (not owners or owners[-1] != owner):
                    owners.append(owner)
                await asyncio.sleep(0.5)
        finally:
            store.close()

    kill = asyncio.create_task(killer())
    watcher = asyncio.create_task(watch())
    views = await asyncio.gather(*(e.play(deadline) for e in entrants))
    kill.cancel()
    watcher.cancel()
    same, table = check_standings(url, tid)
    games = sum(e.games for e in entrants)
    print(f"tournament {tid}: finished in {time.monotonic() - started:.0f} s")
    print(
        f"{len(entrants)} entrants + {len(args.bots)} bots; {games} games played by the "
        f"scripted entrants; {sum(e.failovers for e in entrants)} fail-overs after the kill"
    )
    print(f"directed by {len(owners)} process(es) in turn: {' -> '.join(owners)}")
    print(f"{'#':>3} {'name':<18} {'score':>5} {'games':>5} {'wins':>4}  recomputed")
    for i, row in enumerate(table, 1):
        flag = "" if row["ok"] else "  MISMATCH"
        print(
            f"{i:>3} {row['name']:<18} {row['score']:>5} {row['games']:>5} {row['wins']:>4}"
            f"  {row['recomputed']}{flag}"
        )
    assert views[0]["tournament"]["state"] == "finished"
    print("standings equal to the recomputation:", "yes" if same else "NO")
    return 0 if same and games > 0 else 1


def main() -> int:
    """Run the acceptance scenario; 0 when the standings match the recomputation."""
    p = argparse.ArgumentParser()
    p.add_argument("--minutes", type=int, default=10, help="the arena's length")
    p.add_argument("--entrants", type=int, default=24)
    p.add_argument("--players", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--bots", nargs="*", default=["random", "greedy", "heuristic", "easy"])
    args = p.parse_args()
    os.environ[TIMES_ENV] = json.dumps(FAST_TIMES)
    with throwaway_postgres() as base, tempfile.TemporaryDirectory() as tmp:
        import psycopg

        plain = base.replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(plain, autocommit=True) as conn:
            conn.execute("CREATE DATABASE sk_tournament")
        url = base.rsplit("/", 1)[0] + "/sk_tournament"
        make_accounts(url, [f"entrant{i:02d}" for i in range(args.entrants)])
        a = ServerProcess(url, rate_limits=False, migrate=False, log_path=Path(tmp) / "a.log")
        b = ServerProcess(url, rate_limits=False, migrate=False, log_path=Path(tmp) / "b.log")
        a.start(60)
        b.start(60)
        try:
            return asyncio.run(_run(args, url, a, b))
        finally:
            a.stop()
            b.stop()


if __name__ == "__main__":
    sys.exit(main())
