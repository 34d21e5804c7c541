"""Load benchmark of the web server: many concurrent tables over real WebSockets.

The server runs in a child process (uvicorn, SQLite in a temporary directory,
every action stored before it is broadcast).  Each table has two scripted
players connected over loopback WebSockets (they "think" for a random time
around ``--think`` seconds, then send a legal move), server bots in the other
seats (moving after the same delay) and optionally a spectator.  Reported:
tables, actions per second (all actions, bots included, counted by the server)
and the round trip of the scripted players' actions: from sending a move to
receiving the table state that includes it.

    .venv/bin/python bench/server_load.py --tables 200 --duration 60
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from svoi_kozyri.server.client import SeatClient, low_card_policy
from svoi_kozyri.server.hub import default_bot
from svoi_kozyri.server.process import ServerProcess


async def _make_tables(
    srv: ServerProcess, n: int, seats: int, bots: int, think: float
) -> list[tuple[str, list[str]]]:
    out = []
    cfg = {
        "seats": [{"kind": "human"}] * (seats - bots)
        + [{"kind": "bot", "bot": default_bot()}] * bots,
        "rules": {"loss_limit": 1000},
        "bot_delay_s": think,
        "hand_pause_s": think,
        "listed": False,
    }
    async with httpx.AsyncClient(base_url=srv.base, timeout=60) as http:
        for i in range(n):
            r = await http.post("/api/tables", json={"name": f"load{i}", "config": cfg})
            r.raise_for_status()
            g = r.json()
            tokens = [g["token"]]
            for _ in range(seats - bots - 1):
                j = await http.post(f"/api/tables/{g['table_id']}/join", json={"name": "x"})
                j.raise_for_status()
                tokens.append(j.json()["token"])
            out.append((g["table_id"], tokens))
    return out


async def _actions(srv: ServerProcess) -> int:
    async with httpx.AsyncClient(base_url=srv.base, timeout=60) as http:
        n: int = (await http.get("/healthz")).json()["actions"]
        return n


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = f"sqlite:///{Path(tmp) / 'load.db'}"
        with ServerProcess(db, seed=1, log_path=Path(tmp) / "server.log", rate_limits=False) as srv:
            tables = await _make_tables(srv, args.tables, args.seats, args.bots, args.think)
            end = time.monotonic() + args.warmup + args.duration
            clients = [
                SeatClient(srv.ws_base, tid, tok, low_card_policy, seed=k, think_s=args.think)
                for tid, tokens in tables
                for k, tok in enumerate(tokens)
            ]
            if args.spectators:
                clients += [SeatClient(srv.ws_base, tid, None, None) for tid, _ in tables]
            tasks = [
                asyncio.create_task(c.run(stop=lambda _v: time.monotonic() > end)) for c in clients
            ]
            await asyncio.sleep(args.warmup)
            for c in clients:
                c.latencies.clear()
            a0, t0 = await _actions(srv), time.monotonic()
            await asyncio.sleep(args.duration)
            a1, t1 = await _actions(srv), time.monotonic()
            lat = sorted(x for c in clients for x in c.latencies)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            errors = sum(len(c.errors) for c in clients)

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(p / 100 * len(lat)))] * 1000 if lat else float("nan")

    return {
        "tables": args.tables,
        "connections": len(clients),
        "seats": args.seats,
        "server_bots_per_table": args.bots,
        "think_s": args.think,
        "duration_s": round(t1 - t0, 1),
        "actions": a1 - a0,
        "actions_per_s": round((a1 - a0) / (t1 - t0), 1),
        "player_actions_measured": len(lat),
        "rtt_ms_p50": round(pct(50), 1),
        "rtt_ms_p90": round(pct(90), 1),
        "rtt_ms_p99": round(pct(99), 1),
        "rtt_ms_max": round(max(lat) * 1000, 1) if lat else None,
        "rtt_ms_mean": round(statistics.fmean(lat) * 1000, 1) if lat else None,
        "errors": errors,
    }


def main(argv: list[str] | None = None) -> None:
    """Parse the options, run the benchmark, print a JSON summary."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--seats", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--bots", type=int, default=2, help="server bots per table")
    p.add_argument("--think", type=float, default=1.0, help="mean think time of every seat (s)")
    p.add_argument("--duration", type=float, default=60.0, help="measured seconds")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    p.add_argument("--spectators", action="store_true", help="one spectator per table")
    args = p.parse_args(argv)
    if not 0 <= args.bots < args.seats:
        p.error("--bots must leave at least one human seat")
    result = asyncio.run(run(args))
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
