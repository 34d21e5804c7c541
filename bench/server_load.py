"""Load benchmark of the web server: many concurrent tables over real WebSockets.

The server runs in a child process (uvicorn, SQLite in a temporary directory,
every action stored before it is broadcast).  Each table has two scripted
players connected over loopback WebSockets (they "think" for a random time
around ``--think`` seconds, then send a legal move), server bots in the other
seats (moving after the same delay) and optionally a spectator.  Reported:
tables, actions per second (all actions, bots included, counted by the server)
and the round trip of the scripted players' actions: from sending a move to
receiving the table state that includes it.

The server's own ``/metrics`` are scraped at the start and the end of the
measured window and reported beside (``metrics``): the actions counter against
the database's count, and the move latency histogram (message received to
commit and broadcast queued) against the client's round trips, as cumulative
fractions at the histogram's bucket bounds (``metrics_agree``): an operator's
dashboard shows what the benchmark measured.

    .venv/bin/python bench/server_load.py --tables 200 --duration 60
    .venv/bin/python bench/server_load.py --postgres --workers 2 --tables 1000

With ``--workers N`` the server is ``N`` uvicorn worker processes sharing the
tables through PostgreSQL (``--postgres`` starts a throwaway one); the action
count is read from the database, so it covers every process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from svoi_kozyri.server.runtime.process import ServerProcess, throwaway_postgres
from svoi_kozyri.server.web.client import SeatClient, low_card_policy
from svoi_kozyri.server.web.hub import default_bot


async def _make_tables(
    srv: ServerProcess, n: int, seats: int, bots: int, think: float
) -> list[tuple[str, list[str]]]:
    cfg = {
        "seats": [{"kind": "human"}] * (seats - bots)
        + [{"kind": "bot", "bot": default_bot()}] * bots,
        "rules": {"loss_limit": 50},  # the most a web table allows
        "bot_delay_s": think,
        "hand_pause_s": think,
        "listed": False,
    }
    limit = asyncio.Semaphore(16)  # a few creations at a time: 1,000 one by one took minutes

    async def one(http: httpx.AsyncClient, i: int) -> tuple[str, list[str]]:
        async with limit:
            r = await http.post("/api/tables", json={"name": f"load{i}", "config": cfg})
            r.raise_for_status()
            g = r.json()
            tokens = [g["token"]]
            for _ in range(seats - bots - 1):
                j = await http.post(f"/api/tables/{g['table_id']}/join", json={"name": "x"})
                j.raise_for_status()
                tokens.append(j.json()["token"])
            return g["table_id"], tokens

    async with httpx.AsyncClient(base_url=srv.base, timeout=60) as http:
        out = await asyncio.gather(*(one(http, i) for i in range(n)))
    return list(out)


async def _actions(srv: ServerProcess) -> int:
    """Events stored by every server process (counted in the database)."""
    async with httpx.AsyncClient(base_url=srv.base, timeout=60) as http:
        n: int = (await http.get("/healthz", params={"events": "true"})).json()["events"]
        return n


async def _scrape(srv: ServerProcess) -> dict[str, Any]:
    """The actions counter and the move latency histogram from ``/metrics``
    (every worker's, merged by the server)."""
    async with httpx.AsyncClient(base_url=srv.base, timeout=60) as http:
        text = (await http.get("/metrics")).text
    out: dict[str, Any] = {"actions": 0.0, "buckets": {}, "count": 0.0, "sum": 0.0}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "svoi_kozyri_actions_total":
                out["actions"] += sample.value
            elif sample.name == "svoi_kozyri_move_seconds_bucket":
                out["buckets"][float(sample.labels["le"])] = sample.value
            elif sample.name == "svoi_kozyri_move_seconds_count":
                out["count"] = sample.value
            elif sample.name == "svoi_kozyri_move_seconds_sum":
                out["sum"] = sample.value
    return out


def histogram_quantile(q: float, buckets: dict[float, float]) -> float:
    """Prometheus's ``histogram_quantile``: linear within the bucket holding the
    ``q`` quantile of cumulative counts ``buckets`` (upper bound -> count)."""
    bounds = sorted(buckets)
    total = buckets[bounds[-1]] if bounds else 0.0
    if total <= 0:
        return float("nan")
    rank, lower, below = q * total, 0.0, 0.0
    for b in bounds:
        if buckets[b] >= rank:
            if b == float("inf"):
                return lower
            return lower + (b - lower) * (rank - below) / max(buckets[b] - below, 1e-12)
        lower, below = b, buckets[b]
    return lower


GAP_FROM_S = 0.01
"""The bucket bounds compared (``largest_fraction_gap``): from 10 ms up.  Below,
the client's own part of the round trip (the loopback hop, its event loop and
JSON parsing: about 1 ms on an idle machine) is the size of the bound itself."""


def metrics_report(
    m0: dict[str, Any], m1: dict[str, Any], seconds: float, db_actions: int, lat: list[float]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The scraped window (``metrics``) and how it agrees with the benchmark's own
    figures (``metrics_agree``): ratios of the counts, and the largest gap between
    the server's and the client's cumulative latency fractions at the bucket
    bounds from :data:`GAP_FROM_S` (the client's round trip adds the loopback
    hop and its own loop)."""
    buckets = {b: m1["buckets"].get(b, 0.0) - m0["buckets"].get(b, 0.0) for b in m1["buckets"]}
    moves = m1["count"] - m0["count"]
    actions = m1["actions"] - m0["actions"]
    report = {
        "actions_per_s": round(actions / seconds, 1),
        "moves": int(moves),
        "move_ms_p50": round(1000 * histogram_quantile(0.5, buckets), 1),
        "move_ms_p90": round(1000 * histogram_quantile(0.9, buckets), 1),
        "move_ms_p99": round(1000 * histogram_quantile(0.99, buckets), 1),
        "move_ms_mean": round(1000 * (m1["sum"] - m0["sum"]) / moves, 1) if moves else None,
    }
    gaps, far = {}, []
    for b in sorted(x for x in buckets if x != float("inf")):
        server = buckets[b] / moves if moves else 0.0
        client = sum(1 for x in lat if x <= b) / len(lat) if lat else 0.0
        gaps[f"{1000 * b:g} ms"] = [round(server, 3), round(client, 3)]
        if b >= GAP_FROM_S:
            far.append(abs(server - client))
    agree = {
        "actions_ratio": round(actions / db_actions, 3) if db_actions else None,
        "moves_ratio": round(moves / len(lat), 3) if lat else None,
        "fraction_within_server_client": gaps,
        "largest_fraction_gap": round(max(far), 3) if far else None,
    }
    return report, agree


_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _children() -> dict[int, list[int]]:
    """Parent pid -> child pids of every process (from /proc)."""
    kids: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(entry.name))
    return kids


def tree_cpu(root: int | None) -> float:
    """CPU seconds (user + system, reaped children included) of process ``root`` and
    all its descendants now (Linux /proc; 0.0 elsewhere).  The benchmark's evidence
    is CPU per action, which the other jobs on a shared machine hardly change."""
    if root is None or not Path("/proc/self/stat").exists():
        return 0.0
    kids = _children()
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo.extend(kids.get(pid, []))
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return total / _TICK


def postmaster_pid(db: str) -> int | None:
    """The throwaway PostgreSQL server's main process (found by its port)."""
    port = db.rsplit(":", 1)[-1].split("/", 1)[0]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                if (
                    argv
                    and argv[0].endswith(b"postgres")
                    and f"-p {port}".encode() in b" ".join(argv)
                ):
                    return int(entry.name)
    return None


def self_cpu() -> float:
    """CPU seconds of this benchmark process (its clients)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        if args.postgres:
            db = stack.enter_context(throwaway_postgres({"max_connections": "300"}))
        else:
            db = args.database or f"sqlite:///{Path(tmp) / 'load.db'}"
        log = Path(args.log) if args.log else Path(tmp) / "server.log"
        srv = ServerProcess(
            db,
            seed=None if args.workers > 1 else 1,
            log_path=log,
            rate_limits=False,
            workers=args.workers,
        )
        with srv:
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
            server_pid = srv.proc.pid if srv.proc is not None else None
            pg_pid = postmaster_pid(db) if args.postgres else None
            load0 = os.getloadavg()[0]
            m0 = await _scrape(srv)
            a0, t0 = await _actions(srv), time.monotonic()
            cpu0 = (tree_cpu(server_pid), tree_cpu(pg_pid), self_cpu())
            await asyncio.sleep(args.duration)
            a1, t1 = await _actions(srv), time.monotonic()
            cpu1 = (tree_cpu(server_pid), tree_cpu(pg_pid), self_cpu())
            m1 = await _scrape(srv)
            load1 = os.getloadavg()[0]
            lat = sorted(x for c in clients for x in c.latencies)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            errors = sum(len(c.errors) for c in clients)
            server_log_lines = log.read_text(errors="replace").count("\n")

    def pct(p: float) -> float:
        return lat[min(len(lat) - 1, int(p / 100 * len(lat)))] * 1000 if lat else float("nan")

    actions = max(1, a1 - a0)
    scraped, agree = metrics_report(m0, m1, t1 - t0, a1 - a0, lat)
    server_s, pg_s, bench_s = (b - a for a, b in zip(cpu0, cpu1, strict=True))
    return {
        "database": "postgresql" if args.postgres or "postgresql" in db else "sqlite",
        "workers": args.workers,
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
        "server_cpu_s": round(server_s, 2),
        "postgres_cpu_s": round(pg_s, 2),
        "bench_cpu_s": round(bench_s, 2),
        "server_cpu_ms_per_action": round(1000 * server_s / actions, 3),
        "postgres_cpu_ms_per_action": round(1000 * pg_s / actions, 3),
        "bench_cpu_ms_per_action": round(1000 * bench_s / actions, 3),
        "load_average": [round(load0, 2), round(load1, 2)],
        "errors": errors,
        "server_log_lines": server_log_lines,
        "metrics": scraped,
        "metrics_agree": agree,
    }


def build_parser() -> argparse.ArgumentParser:
    """The command line (also used by the test that runs a short benchmark)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--tables", type=int, default=200)
    p.add_argument("--seats", type=int, default=4, choices=(2, 3, 4))
    p.add_argument("--bots", type=int, default=2, help="server bots per table")
    p.add_argument("--think", type=float, default=1.0, help="mean think time of every seat (s)")
    p.add_argument("--duration", type=float, default=60.0, help="measured seconds")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    p.add_argument("--spectators", action="store_true", help="one spectator per table")
    p.add_argument("--log", default=None, help="keep the server's log in this file")
    p.add_argument("--workers", type=int, default=1, help="server processes (PostgreSQL)")
    p.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL server")
    p.add_argument("--database", default=None, help="SQLAlchemy URL (default: SQLite file)")
    return p


def main(argv: list[str] | None = None) -> None:
    """Parse the options, run the benchmark, print a JSON summary."""
    p = build_parser()
    args = p.parse_args(argv)
    if not 0 <= args.bots < args.seats:
        p.error("--bots must leave at least one human seat")
    if args.workers > 1 and not (args.postgres or "postgresql" in (args.database or "")):
        p.error("--workers above 1 needs --postgres or a PostgreSQL --database")
    result = asyncio.run(run(args))
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
