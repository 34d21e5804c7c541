"""Security of accounts (issue 13): log-in brute force is throttled; one player's
session cookie or seat token never opens another's seat, profile actions or
private views; state changes without the CSRF token are refused; no secret
(password, session id, CSRF token, seat token) appears in a URL or a log line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from accounts_support import (
    PASSWORD,
    create_table,
    csrf,
    join_table,
    login,
    make_client,
    register,
)
from svoi_kozyri.server.platform.accounts import AccountSettings
from svoi_kozyri.server.runtime.process import free_port

pytestmark = pytest.mark.timeout(120)

H = {"kind": "human"}
BOT = {"kind": "bot", "bot": "random"}


def _from(c: TestClient, ip: str) -> TestClient:
    return TestClient(c.app, client=(ip, 5555))


def test_login_brute_force_is_throttled(tmp_path: Path) -> None:
    settings = AccountSettings(
        time_cost=1, memory_cost=1024, parallelism=1, user_failures=5, ip_failures=12
    )
    with make_client(tmp_path, settings) as c:
        register(c, "Alice")
        register(c, "Bobby")
        c.cookies.clear()
        codes = [login(c, "Alice", f"guess {i:04d}").status_code for i in range(40)]
        assert codes[:3] == [401] * 3 and set(codes[3:]) == {429}  # growing delays
        r = login(c, "Alice")  # the attacking address waits, even with the right password
        assert r.status_code == 429 and r.json()["code"] == "throttled"
        assert int(r.headers["retry-after"]) > 0
        # the same address guessing other names runs into the per-address limit
        others = [login(c, name, "x" * 10).status_code for name in ("Bobby", "Carol", "Dave")]
        assert others == [401] * 3
        for name in ("Erin", "Frank", "Gina", "Hank", "Ivan", "Judy"):
            assert login(c, name, "x" * 10).status_code == 401
        assert login(c, "Zed", "x" * 10).status_code == 429  # 12 failures from here
        # another address is not locked out of anything: the right password gets in
        with _from(c, "10.0.0.9") as other:
            assert login(other, "Alice").status_code == 200
            assert login(other, "Bobby").status_code == 200
            assert login(other, "Zed", "x" * 10).status_code == 401


def test_wrong_passwords_from_one_address_never_lock_out_the_owner(tmp_path: Path) -> None:
    """Issue 20, item 7: five wrong passwords used to lock the account for five
    minutes against its owner too."""
    with make_client(tmp_path) as c:
        register(c, "Alice")
        with _from(c, "203.0.113.7") as attacker:
            codes = [login(attacker, "Alice", f"guess {i}").status_code for i in range(12)]
            assert codes.count(401) == 3 and codes.count(429) == 9
        with _from(c, "198.51.100.2") as owner:
            r = login(owner, "Alice")
            assert r.status_code == 200, r.text
            assert owner.get("/api/account/me").json()["user"]["username"] == "Alice"


def test_many_addresses_on_one_name_refuse_only_themselves(tmp_path: Path) -> None:
    settings = AccountSettings(time_cost=1, memory_cost=1024, parallelism=1, user_failures=4)
    with make_client(tmp_path, settings) as c:
        register(c, "Alice")
        bots = [_from(c, f"192.0.2.{i}") for i in range(6)]
        for b in bots:
            b.__enter__()
        try:
            assert [login(b, "Alice", "guess a").status_code for b in bots] == [401] * 6
            # the name is under attack: each address that failed for it is refused
            # (even a second guess after the pair's own delay), checking no password
            for b in bots:
                r = login(b, "Alice", "guess b")
                assert r.status_code == 429 and int(r.headers["retry-after"]) > 0
        finally:
            for b in bots:
                b.__exit__(None, None, None)
        with _from(c, "192.0.2.200") as fresh:
            assert login(fresh, "Alice", "guess c").status_code == 401  # one guess each
            assert login(fresh, "Alice").status_code == 429
        with _from(c, "192.0.2.201") as owner:
            assert login(owner, "Alice").status_code == 200


def test_delays_grow_per_address_and_name(tmp_path: Path) -> None:
    """The pair's delay doubles with every failure past the free ones, in the
    database (so every process counts them)."""
    from svoi_kozyri.server.platform.accounts import AccountError, LoginThrottle
    from svoi_kozyri.server.storage.store import Store

    store = Store(f"sqlite:///{tmp_path / 'd.db'}")
    s = AccountSettings(
        pair_free=3, pair_delay_s=2.0, window_s=300.0, ip_failures=100, user_failures=100
    )
    t = LoginThrottle(s, store.engine)
    now = 1000.0
    waits = []
    for i in range(8):
        while True:
            try:
                t.check("10.1.1.1", "alice", now)
                break
            except AccountError as e:
                assert e.status == 429 and e.retry_after > 0
                if i >= 4:
                    waits.append(e.retry_after)
                now += e.retry_after
        t.failed("10.1.1.1", "alice", now)
        t.check("10.9.9.9", "alice", now)  # another address: never delayed by these
        now += 0.5
    assert waits == [4, 8, 16, 32], waits
    assert t.pair_delay(50) == s.window_s  # capped at the window
    t.succeeded("10.1.1.1", "alice")
    t.check("10.1.1.1", "alice", now)  # the right password forgets the pair's failures
    store.close()


def _cards(view: dict[str, Any]) -> list[str]:
    hand = view.get("hand") or {}
    cards: list[str] = hand.get("hand") or []
    return cards


def test_one_players_credentials_never_open_anothers(tmp_path: Path) -> None:
    with make_client(tmp_path) as alice:
        register(alice, "Alice")
        bob = TestClient(alice.app)
        with bob:
            register(bob, "Bobby")
            shared = create_table(alice, [H, H, BOT], title="shared", bot_delay_s=5)
            joined = join_table(bob, shared["table_id"]).json()
            solo = create_table(bob, [H, H], title="bob's", listed=False)
            tid, tid2 = shared["table_id"], solo["table_id"]

            a_view = alice.get(f"/api/tables/{tid}").json()
            b_view = bob.get(f"/api/tables/{tid}").json()
            assert a_view["viewer"] == 0 and b_view["viewer"] == 1
            if a_view["hand"]:
                assert not set(_cards(a_view)) & set(_cards(b_view))
            # Alice's token names her seat even with Bob's cookie in the jar
            with_token = bob.get(f"/api/tables/{tid}", headers={"X-Seat-Token": shared["token"]})
            assert with_token.json()["viewer"] == 0
            # Alice's cookie and token at Bob's table: a spectator, or refused
            assert alice.get(f"/api/tables/{tid2}").json()["viewer"] is None
            r = alice.get(f"/api/tables/{tid2}", headers={"X-Seat-Token": shared["token"]})
            assert r.status_code == 403
            steps = alice.get(f"/api/tables/{tid2}/replay").json()["steps"]
            assert all(s["viewer"] is None and _cards(s) == [] for s in steps)
            record = alice.get(f"/api/tables/{tid}/record").text
            assert '[Viewer "A"]' in record or record == ""  # her own seat, never B
            assert '[Viewer "B"]' not in record

            # a cookie opens no seat over the socket: the seat needs its token
            with alice.websocket_connect(f"/ws/{tid}") as ws:
                ws.send_text(json.dumps({"type": "hello", "token": None}))
                assert ws.receive_json()["seat"] is None
                ws.send_text(json.dumps({"type": "move", "move": "pickup"}))
                for _ in range(20):
                    m = ws.receive_json()
                    if m["type"] == "error":
                        assert m["code"] == "spectator"
                        break
                else:
                    raise AssertionError("no error for a spectator's move")

            # claiming: Bob's seat needs Bob's token; Alice's token claims only her own
            r = alice.post(
                "/api/account/claim",
                json={"table_id": tid},
                headers={**csrf(alice), "X-Seat-Token": joined["token"]},
            )
            assert r.status_code == 409 and r.json()["code"] == "seat_claimed"
            r = alice.post("/api/account/claim", json={"table_id": tid2}, headers=csrf(alice))
            assert r.status_code == 403

            # profile actions: Alice's log-out everywhere ends only her sessions
            assert alice.post("/api/account/logout-all", headers=csrf(alice)).status_code == 200
            assert bob.get("/api/account/me").json()["user"]["username"] == "Bobby"
            # private views: Bob's unlisted table shows only in his own list
            assert tid2 in [
                g["table_id"] for g in bob.get("/api/users/Bobby/games").json()["games"]
            ]
            theirs = alice.get("/api/users/Bobby/games").json()["games"]
            assert tid2 not in [g["table_id"] for g in theirs]
            assert alice.get("/api/users/Bobby").json()["me"] is False


def test_state_changes_without_csrf_token_are_refused(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        # log-in and registration need the token even before there is a session
        r = c.post("/api/account/register", json={"username": "Alice", "password": PASSWORD})
        assert r.status_code == 403 and r.json()["code"] == "csrf"
        assert c.get("/api/users/Alice").status_code == 404
        assert register(c, "Alice").status_code == 201
        seats = {"name": "x", "config": {"seats": [H, BOT]}}
        before = c.get("/api/lobby").json()["total"]
        token = csrf(c)["X-CSRF-Token"]
        refused: list[dict[str, str]] = [
            {},
            {"X-CSRF-Token": "0" * 64},
            {"X-CSRF-Token": token, "Origin": "https://evil.example"},
            {"X-CSRF-Token": token, "Sec-Fetch-Site": "cross-site"},
        ]
        for headers in refused:
            r = c.post("/api/tables", json=seats, headers=headers)
            assert r.status_code == 403 and r.json()["code"] == "csrf", (headers, r.text)
            r = c.post("/api/account/logout-all", headers=headers)
            assert r.status_code == 403
            r = c.post("/api/account/logout", headers=headers)
            assert r.status_code == 403
        assert c.get("/api/lobby").json()["total"] == before
        assert c.get("/api/account/me").json()["user"]["username"] == "Alice"
        # a double-submit cookie alone is not enough with a session: the token is
        # bound to the session id
        c.cookies.set("sk_csrf", "a" * 43)
        r = c.post("/api/tables", json=seats, headers={"X-CSRF-Token": "a" * 43})
        assert r.status_code == 403
        same_origin = {"X-CSRF-Token": token, "Origin": "http://testserver"}
        assert c.post("/api/tables", json=seats, headers=same_origin).status_code == 200
        # guests carry no ambient credential, but other origins are refused for them too
        guest = TestClient(c.app)
        with guest:
            r = guest.post("/api/tables", json=seats, headers={"Origin": "https://evil.example"})
            assert r.status_code == 403
            assert guest.post("/api/tables", json=seats).status_code == 200


def _wait_up(base: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, "server exited"
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError("server did not start")


def test_no_secret_in_any_url_or_log_line(tmp_path: Path) -> None:
    """A real server process at log level debug (uvicorn's access log included)."""
    port = free_port()
    log_path = tmp_path / "server.log"
    cmd = [sys.executable, "-m", "svoi_kozyri.server", "--database"]
    cmd += [f"sqlite:///{tmp_path / 'web.db'}", "--port", str(port), "--log-level", "debug"]
    with open(log_path, "wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    secrets: list[str] = [PASSWORD, "wrong password 1"]
    urls: list[str] = []
    try:
        _wait_up(base, proc)
        with httpx.Client(base_url=base, timeout=30) as a, httpx.Client(base_url=base) as b:

            def post(cl: httpx.Client, path: str, body: Any, **headers: str) -> httpx.Response:
                token = cl.get("/api/account/me").json()["csrf"]
                secrets.append(token)
                return cl.post(path, json=body, headers={"X-CSRF-Token": token, **headers})

            guest = post(
                a, "/api/tables", {"name": "Ann", "config": {"seats": [H, H], "title": "t"}}
            ).json()
            secrets.append(guest["token"])
            urls.append(guest["invite_url"])
            r = post(
                a,
                "/api/account/register",
                {
                    "username": "Alice",
                    "password": PASSWORD,
                    "claims": [{"table_id": guest["table_id"], "token": guest["token"]}],
                },
            )
            assert r.status_code == 201, r.text
            secrets.append(a.cookies["sk_session"])
            assert (
                post(
                    b, "/api/account/login", {"username": "Alice", "password": "wrong password 1"}
                ).status_code
                == 401
            )
            assert (
                post(
                    b, "/api/account/login", {"username": "Alice", "password": PASSWORD}
                ).status_code
                == 200
            )
            secrets.append(b.cookies["sk_session"])
            # Alice already sits at the guest table (claimed), so her second
            # device opens a table of its own
            j = post(b, "/api/tables", {"name": "x", "config": {"seats": [H, H]}}).json()
            secrets.append(j["token"])
            urls.append(j["invite_url"])
            games = a.get("/api/users/Alice/games").json()["games"]
            urls += [g["replay"] for g in games]
            a.get(f"/api/tables/{guest['table_id']}", headers={"X-Seat-Token": guest["token"]})
            a.get(f"/api/tables/{guest['table_id']}/replay")
            post(
                a,
                "/api/account/claim",
                {"table_id": guest["table_id"]},
                **{"X-Seat-Token": guest["token"]},
            )
            page = a.get("/api/lobby").text
            post(b, "/api/account/logout-all", {})
    finally:
        proc.terminate()
        proc.wait(timeout=15)
    log = log_path.read_text(errors="replace")
    assert "POST /api/account/login" in log  # the access log was on
    secrets = [s for s in secrets if s]
    assert len(secrets) >= 8
    for s in secrets:
        assert s not in log, f"a secret is in the server log: {s[:6]}..."
        for u in urls:
            assert s not in u
        assert s not in page
    for u in urls:
        assert not re.search(r"token|session|csrf|password", u, re.I), u


def test_login_throttle_holds_across_server_processes(tmp_path: Path) -> None:
    """Two apps on one database (two worker processes) count the same failures."""
    settings = AccountSettings(time_cost=1, memory_cost=1024, parallelism=1, user_failures=3)
    with make_client(tmp_path, settings) as one, make_client(tmp_path, settings) as two:
        register(one, "Alice")
        one.cookies.clear()
        for i in range(3):
            assert login(one if i % 2 else two, "Alice", f"guess {i}").status_code == 401
        assert login(one, "Alice").status_code == 429
        assert login(two, "Alice").status_code == 429


def test_database_window_forgets_after_the_window(tmp_path: Path) -> None:
    from svoi_kozyri.server.platform.accounts import DbWindow
    from svoi_kozyri.server.storage.store import Store

    store = Store(f"sqlite:///{tmp_path / 'w.db'}")  # migrated: the tables exist
    eng = store.engine
    w = DbWindow(eng, "user", 10.0)
    for t in (0.0, 1.0, 2.0):
        w.add("alice", t)
    assert w.count("alice", 5.0) == 3 and w.count("bob", 5.0) == 0
    assert w.retry_after("alice", 5.0) == 5
    assert w.count("alice", 10.5) == 2
    with eng.connect() as conn:
        keys = {r[0] for r in conn.exec_driver_sql("select key from sk_login_events")}
    assert "alice" not in keys  # stored hashed
    w.clear("alice")
    assert w.count("alice", 5.0) == 0
    store.close()
