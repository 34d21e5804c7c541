"""Pairing benchmark (issue 22 item 1): how long from the moment a match exists
to the moment its players are seated, over many seekers.

Seekers arrive over ``--spread`` seconds in random order, each wanting a
``--players``-player casual game with no bots (so only people fill a table).
Each one posts a seek and polls it every ``--poll`` seconds, as the web page
does (twice a second there; faster here, to measure the server, not the poll).
A group's match exists when the seek completing it has been answered; its lag
is from then until each of its players' polls first says "seated" (at most one
poll interval of that is the poll's own).  The server's side is read from the
database too: ``claimed - created`` of the completing seek, which has no poll
in it.

    .venv/bin/python bench/pairing.py                          # 200 seekers, one process
    .venv/bin/python bench/pairing.py --postgres --workers 2   # two workers, PostgreSQL

With ``--workers 2`` every seeker talks to the one port uvicorn shares between
its workers, so seeks land on both processes and meet across them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, select

from svoi_kozyri.server.runtime.process import ServerProcess, throwaway_postgres
from svoi_kozyri.server.storage.schema import seeks_t


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


async def _seeker(
    client: httpx.AsyncClient, i: int, delay: float, args: argparse.Namespace, out: dict[str, Any]
) -> None:
    await asyncio.sleep(delay)
    r = await client.post(
        "/api/seeks",
        json={"name": f"seeker{i}", "players": args.players, "wait_s": None},
    )
    r.raise_for_status()
    body = r.json()
    answered = time.monotonic()
    sid, token = body["seek"]["id"], body["token"]
    deadline = answered + args.timeout
    while time.monotonic() < deadline:
        v = (await client.get(f"/api/seeks/{sid}", headers={"X-Seek-Token": token})).json()
        if v["state"] == "seated":
            out[sid] = {"answered": answered, "seated": time.monotonic(), "table": v["table_id"]}
            return
        await asyncio.sleep(args.poll)
    out[sid] = {"answered": answered, "seated": None, "table": None}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        if args.postgres:
            db = stack.enter_context(throwaway_postgres({"max_connections": "300"}))
        else:
            db = f"sqlite:///{Path(tmp) / 'pairing.db'}"
        srv = ServerProcess(
            db, log_path=Path(tmp) / "server.log", rate_limits=False, workers=args.workers
        )
        with srv:
            rng = random.Random(args.seed)
            delays = sorted(rng.uniform(0, args.spread) for _ in range(args.seekers))
            out: dict[str, Any] = {}
            limits = httpx.Limits(max_connections=args.seekers + 10)
            async with httpx.AsyncClient(base_url=srv.base, limits=limits, timeout=30) as client:
                await asyncio.gather(
                    *(_seeker(client, i, d, args, out) for i, d in enumerate(delays))
                )
            engine = create_engine(db)
            with engine.connect() as conn:
                rows = conn.execute(
                    select(seeks_t.c.id, seeks_t.c.table_id, seeks_t.c.created, seeks_t.c.claimed)
                ).all()
            engine.dispose()
    by_table: dict[str, list[Any]] = {}
    for r in rows:
        if r.table_id:
            by_table.setdefault(r.table_id, []).append(r)
    client_lag, server_lag = [], []
    for table_id, seeks in by_table.items():
        completing = max(seeks, key=lambda r: r.created)
        server_lag.append(float(completing.claimed) - float(completing.created))
        match_at = out[completing.id]["answered"]
        for s in seeks:
            seated = out[s.id]["seated"]
            if seated is not None:
                client_lag.append(seated - max(match_at, out[s.id]["answered"]))
        assert all(out[s.id]["table"] == table_id for s in seeks)
    unseated = sum(1 for v in out.values() if v["seated"] is None)
    return {
        "seekers": args.seekers,
        "players": args.players,
        "workers": args.workers,
        "database": "postgresql" if args.postgres else "sqlite",
        "tables": len(by_table),
        "unseated": unseated,
        "seated_p50_s": round(_pct(client_lag, 0.5), 3),
        "seated_p99_s": round(_pct(client_lag, 0.99), 3),
        "seated_max_s": round(max(client_lag, default=float("nan")), 3),
        "claim_p50_s": round(_pct(server_lag, 0.5), 3),
        "claim_p99_s": round(_pct(server_lag, 0.99), 3),
        "mean_s": round(statistics.fmean(client_lag), 3) if client_lag else None,
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--seekers", type=int, default=200)
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--spread", type=float, default=20.0, help="seconds over which seekers arrive")
    p.add_argument("--poll", type=float, default=0.05, help="seconds between a seeker's polls")
    p.add_argument("--timeout", type=float, default=60.0, help="give up on a seek after this")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL server")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    if args.workers > 1 and not args.postgres:
        p.error("--workers above 1 needs --postgres")
    if args.seekers % args.players:
        p.error("--seekers must be a multiple of --players (nobody is left over)")
    print(json.dumps(asyncio.run(run(args)), indent=1))


if __name__ == "__main__":
    main()
