"""Accounts, the log-in throttle and ratings on PostgreSQL (a throwaway server, as in
``test_server_postgres.py``; skipped with the reason when PostgreSQL is missing):
two apps on one database, like two worker processes, share sessions, throttle and
ratings, and a finished table is rated exactly once."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from accounts_support import FAST, PASSWORD, create_table, login, play_out, register
from svoi_kozyri.server.platform.accounts import AccountSettings
from svoi_kozyri.server.web.app import create_app
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)

pytestmark = pytest.mark.timeout(300)


def test_accounts_and_ratings_on_postgres(postgres_url: str) -> None:  # noqa: F811
    settings = AccountSettings(time_cost=1, memory_cost=1024, parallelism=1, user_failures=3)
    one_app = create_app(postgres_url, seed=1, accounts=settings, migrate=True)
    two_app = create_app(postgres_url, seed=2, accounts=settings)
    with TestClient(one_app) as one, TestClient(two_app) as two:
        assert register(one, "Alice").status_code == 201
        cookie = one.cookies["sk_session"]
        two.cookies.set("sk_session", cookie)  # the session is valid at every process
        assert two.get("/api/account/me").json()["user"]["username"] == "Alice"
        two.cookies.clear()
        for i in range(3):
            assert login(two, "Alice", f"guess {i}").status_code == 401
        assert login(one, "Alice", PASSWORD).status_code == 429  # counted across processes

        g = create_table(
            one,
            [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
            rated=True,
            rules={"loss_limit": 1},
            **FAST,
        )
        play_out(one, g["table_id"], g["token"])
        players: list[Any] = [one_app.state.players, two_app.state.players]
        done = [p.ratings.process_finished() for p in players]
        assert sorted(done) == [0, 1]  # exactly once, whichever process sweeps first
        prof = two.get("/api/users/Alice").json()
        assert prof["ratings"][0]["players"] == 2 and prof["ratings"][0]["games"] == 1
        games = two.get("/api/users/Alice/games").json()["games"]
        assert games[0]["table_id"] == g["table_id"] and games[0]["rated"] is True
