"""Cost of the account pieces: argon2 log-in, session lookups and the live lobby.

    .venv/bin/python bench/accounts.py --tables 500

In-process (FastAPI TestClient, a SQLite file in a temporary directory): the
time of a log-in with the default argon2 parameters (the password check is the
point of it being slow), of a request authenticated by its session cookie, and
of ``GET /api/lobby`` pages with ``--tables`` listed tables in memory.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

from svoi_kozyri.server.edge.guard import Limits
from svoi_kozyri.server.platform.accounts import AccountSettings
from svoi_kozyri.server.web.app import create_app


def _ms(samples: list[float]) -> str:
    s = sorted(samples)
    return (
        f"median {statistics.median(s) * 1000:.1f} ms, "
        f"p90 {s[int(0.9 * (len(s) - 1))] * 1000:.1f} ms"
    )


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tables", type=int, default=500)
    p.add_argument("--logins", type=int, default=10)
    p.add_argument("--requests", type=int, default=50)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            f"sqlite:///{Path(tmp) / 'b.db'}",
            seed=1,
            limits=Limits.off(),
            accounts=AccountSettings(user_failures=10**6, ip_failures=10**6),
        )
        with TestClient(app) as c:
            tok = c.get("/api/account/me").json()["csrf"]
            body = {"username": "Bench", "password": "correct horse battery"}
            c.post("/api/account/register", json=body, headers={"X-CSRF-Token": tok})
            logins = []
            for _ in range(args.logins):
                tok = c.get("/api/account/me").json()["csrf"]
                t0 = time.perf_counter()
                r = c.post("/api/account/login", json=body, headers={"X-CSRF-Token": tok})
                logins.append(time.perf_counter() - t0)
                assert r.status_code == 200, r.text
            me = []
            for _ in range(args.requests):
                t0 = time.perf_counter()
                c.get("/api/account/me")
                me.append(time.perf_counter() - t0)
            tok = c.get("/api/account/me").json()["csrf"]
            seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
            for i in range(args.tables):
                cfg = {"seats": seats, "title": f"t{i}"}
                r = c.post(
                    "/api/tables", json={"name": "x", "config": cfg}, headers={"X-CSRF-Token": tok}
                )
                if r.status_code == 409:  # one seat per account and table: create as a guest
                    continue
            c.post("/api/account/logout", headers={"X-CSRF-Token": tok})
            for i in range(args.tables):
                cfg = {"seats": seats, "title": f"g{i}"}
                c.post("/api/tables", json={"name": "Guest", "config": cfg})
            lobby = []
            for i in range(args.requests):
                t0 = time.perf_counter()
                page = c.get("/api/lobby", params={"offset": (i * 20) % 200, "limit": 20}).json()
                lobby.append(time.perf_counter() - t0)
            filtered = []
            for _ in range(args.requests):
                t0 = time.perf_counter()
                c.get("/api/lobby", params={"players": 3, "rated": "false", "status": "open"})
                filtered.append(time.perf_counter() - t0)
    print(f"log-in (argon2 defaults): {_ms(logins)}")
    print(f"GET /api/account/me with a session: {_ms(me)}")
    print(f"GET /api/lobby, {page['total']} tables, pages of 20: {_ms(lobby)}")
    print(f"GET /api/lobby filtered: {_ms(filtered)}")


if __name__ == "__main__":
    main()
