"""Accounts: registration, log-in sessions, log-out everywhere, seats of accounts,
claiming a guest seat, rated tables needing accounts."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from accounts_support import (
    FAST,
    PASSWORD,
    create_table,
    csrf,
    join_table,
    login,
    make_client,
    register,
)
from svoi_kozyri.server.platform.accounts import AccountSettings, LoginThrottle, SlidingWindow

pytestmark = pytest.mark.timeout(120)


def _set_cookies(resp: object) -> list[str]:
    return resp.headers.get_list("set-cookie")  # type: ignore[attr-defined, no-any-return]


def test_register_login_logout_and_cookie_flags(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        me = c.get("/api/account/me").json()
        assert me["user"] is None and len(me["csrf"]) >= 32
        r = register(c, "Alice")
        assert r.status_code == 201, r.text
        assert r.json()["user"]["username"] == "Alice"
        cookies = _set_cookies(r)
        session = next(h for h in cookies if h.startswith("sk_session="))
        low = session.lower()
        assert "httponly" in low and "samesite=lax" in low and "path=/" in low
        assert "secure" not in low  # plain http (the https case is tested below)
        token_cookie = next(h for h in cookies if h.startswith("sk_csrf="))
        assert "httponly" not in token_cookie.lower()  # the page reads it
        me = c.get("/api/account/me")
        assert me.json()["user"]["username"] == "Alice"
        assert me.headers["cache-control"] == "no-store" == r.headers["cache-control"]
        good = c.cookies["sk_csrf"]
        c.cookies.delete("sk_csrf")  # a lost token cookie comes back with the next "me"
        c.get("/api/account/me")
        assert c.cookies["sk_csrf"] == good

        assert c.post("/api/account/logout", headers=csrf(c)).status_code == 200
        assert c.get("/api/account/me").json()["user"] is None
        bad = login(c, "alice", "wrong password")
        assert bad.status_code == 401 and bad.json()["code"] == "bad_login"
        unknown = login(c, "nobody", PASSWORD)
        assert unknown.status_code == 401 and unknown.json()["message"] == bad.json()["message"]
        ok = login(c, "ALICE")  # names are case-insensitive
        assert ok.status_code == 200 and ok.json()["user"]["username"] == "Alice"
        assert c.get("/api/account/me").json()["user"]["username"] == "Alice"


def test_session_cookie_is_secure_over_https(tmp_path: Path) -> None:
    with make_client(tmp_path, base_url="https://testserver") as c:
        r = register(c, "Alice")
        assert r.status_code == 201
        for h in _set_cookies(r):
            assert "secure" in h.lower(), h


@pytest.mark.parametrize(
    ("username", "password", "code"),
    [
        ("ab", PASSWORD, "bad_username"),
        ("a" * 21, PASSWORD, "bad_username"),
        ("<b>x</b>", PASSWORD, "bad_username"),
        ("al ice", PASSWORD, "bad_username"),
        ("medium", PASSWORD, "bad_username"),  # a bot's account
        ("Random", PASSWORD, "bad_username"),
        ("bot_anna", PASSWORD, "bad_username"),
        ("admin", PASSWORD, "bad_username"),
        ("10H", PASSWORD, "bad_username"),  # reads like a card
        ("Durak", PASSWORD, "bad_username"),  # a word of the table's messages
        ("Alice", "short", "bad_password"),
        ("Alice", "alice", "bad_password"),
    ],
)
def test_bad_registrations_change_nothing(
    tmp_path: Path, username: str, password: str, code: str
) -> None:
    with make_client(tmp_path) as c:
        r = register(c, username, password)
        assert r.status_code == 400 and r.json()["code"] == code, r.text
        assert c.get("/api/account/me").json()["user"] is None
        assert c.get(f"/api/users/{username}").status_code in (200, 404)
        if code == "bad_password":
            assert c.get(f"/api/users/{username}").status_code == 404


def test_names_are_unique_case_insensitively_and_strict_bodies(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        assert register(c, "Alice").status_code == 201
        c.cookies.clear()
        r = register(c, "aLiCe")
        assert r.status_code == 409 and r.json()["code"] == "name_taken"
        r = c.post(
            "/api/account/register",
            json={"username": "Bob", "password": PASSWORD, "admin": True},
            headers=csrf(c),
        )
        assert r.status_code == 422
        r = c.post(
            "/api/account/register",
            json={"username": "Bob", "password": 12345678},
            headers=csrf(c),
        )
        assert r.status_code == 422
        assert c.get("/api/users/Bob").status_code == 404


def test_sessions_and_passwords_are_stored_hashed(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        sid = c.cookies["sk_session"]
        eng = create_engine(f"sqlite:///{tmp_path / 'web.db'}")
        with eng.connect() as conn:
            pw = conn.execute(text("select password_hash from sk_users where username='Alice'"))
            pw_hash = pw.scalar_one()
            ids = [r[0] for r in conn.execute(text("select id_hash from sk_sessions"))]
        eng.dispose()
        assert pw_hash.startswith("$argon2id$") and PASSWORD not in pw_hash
        assert ids == [hashlib.sha256(sid.encode()).hexdigest()]
        assert sid not in ids


def test_logout_everywhere_revokes_every_session(tmp_path: Path) -> None:
    with make_client(tmp_path) as laptop:
        register(laptop, "Alice")
        phone = laptop.__class__(laptop.app)
        with phone:
            assert login(phone, "Alice").status_code == 200
            old_phone_cookie = phone.cookies["sk_session"]
            assert phone.get("/api/account/me").json()["user"]["username"] == "Alice"
            r = laptop.post("/api/account/logout-all", headers=csrf(laptop))
            assert r.status_code == 200 and r.json()["sessions"] == 2
            assert laptop.get("/api/account/me").json()["user"] is None
            assert phone.get("/api/account/me").json()["user"] is None
            # the revoked cookie is worth nothing, even presented again by hand
            phone.cookies.set("sk_session", old_phone_cookie)
            assert phone.get("/api/account/me").json()["user"] is None


def test_logout_everywhere_needs_a_session(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        r = c.post("/api/account/logout-all", headers=csrf(c))
        assert r.status_code == 401 and r.json()["code"] == "login_required"


def test_accounts_sit_under_their_name_and_guests_cannot_take_it(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        g = create_table(c, [{"kind": "human"}, {"kind": "human"}], name="Whatever")
        view = c.get(f"/api/tables/{g['table_id']}", headers={"X-Seat-Token": g["token"]}).json()
        assert view["seats"][0]["name"] == "Alice"
        guest = c.__class__(c.app)
        with guest:
            for name in ("alice", "ALICE ", "medium"):
                r = join_table(guest, g["table_id"], name=name)
                assert r.status_code == 409 and r.json()["code"] == "name_reserved", r.text
            assert join_table(guest, g["table_id"], name="Bob").status_code == 200


def test_rated_tables_need_accounts(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
        r = c.post("/api/tables", json={"name": "Ann", "config": {"seats": seats, "rated": True}})
        assert r.status_code == 403 and r.json()["code"] == "login_required"
        register(c, "Alice")
        g = create_table(c, seats, rated=True)
        guest = c.__class__(c.app)
        with guest:
            r = join_table(guest, g["table_id"], name="Bob")
            assert r.status_code == 403 and r.json()["code"] == "login_required"
            register(guest, "Bobby")
            assert join_table(guest, g["table_id"]).status_code == 200
        lobby = c.get("/api/lobby").json()
        entry = next(t for t in lobby["tables"] if t["table_id"] == g["table_id"])
        assert entry["rated"] is True
        assert [s["account"] for s in entry["seats"]] == ["Alice", "Bobby", None]
        assert entry["seats"][2]["bot"] == "random"


def test_guest_seat_claimed_by_the_account_they_create(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        g = create_table(c, [{"kind": "human"}, {"kind": "bot", "bot": "random"}], **FAST)
        other = create_table(c, [{"kind": "human"}, {"kind": "human"}], name="Cy")
        r = register(
            c,
            "Alice",
            claims=[
                {"table_id": g["table_id"], "token": g["token"]},
                {"table_id": other["table_id"], "token": "not-a-token"},
                {"table_id": "nosuch", "token": g["token"]},
            ],
        )
        assert r.status_code == 201
        assert r.json()["claimed"] == [{"table_id": g["table_id"], "seat": 0}]
        games = c.get("/api/users/Alice/games").json()
        assert [x["table_id"] for x in games["games"]] == [g["table_id"]]
        # the account now opens its own seat's view without the token
        view = c.get(f"/api/tables/{g['table_id']}").json()
        assert view["viewer"] == 0
        # the later claim endpoint: with the seat's token in the header
        r = c.post(
            "/api/account/claim",
            json={"table_id": other["table_id"]},
            headers={**csrf(c), "X-Seat-Token": other["token"]},
        )
        assert r.status_code == 200 and r.json()["seat"] == 0
        r = c.post(
            "/api/account/claim",
            json={"table_id": other["table_id"]},
            headers={**csrf(c), "X-Seat-Token": g["token"]},
        )
        assert r.status_code == 403 and r.json()["code"] == "bad_token"


def test_a_claimed_seat_cannot_be_claimed_by_another_account(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        g = create_table(c, [{"kind": "human"}, {"kind": "human"}])
        assert register(c, "Alice", claims=[{"table_id": g["table_id"], "token": g["token"]}])
        c.post("/api/account/logout", headers=csrf(c))
        register(c, "Bobby")
        r = c.post(
            "/api/account/claim",
            json={"table_id": g["table_id"]},
            headers={**csrf(c), "X-Seat-Token": g["token"]},
        )
        assert r.status_code == 409 and r.json()["code"] == "seat_claimed"
        assert c.get("/api/users/Bobby/games").json()["total"] == 0


def test_sliding_window_and_throttle_unlock_after_the_window() -> None:
    s = AccountSettings.fast()
    t = LoginThrottle(s)
    for i in range(s.user_failures):
        t.check("1.2.3.4", "alice", now=i * 10.0)  # past each growing delay
        t.failed("1.2.3.4", "alice", now=i * 10.0)
    with pytest.raises(ValueError, match="too many"):
        t.check("1.2.3.4", "alice", now=100.0)  # the same address and name
    t.check("9.9.9.9", "alice", now=100.0)  # another address is not locked out (issue 20)
    t.check("1.2.3.4", "alice", now=s.window_s + 0.5)  # the oldest failure left the window
    w = SlidingWindow(10.0, max_keys=3)
    for k in "abcd":
        w.add(k, 0.0)
    assert w.count("a", 1.0) == 0 and w.count("d", 1.0) == 1  # least recent forgotten


def test_an_account_sits_at_most_once_at_a_table(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        g = create_table(c, [{"kind": "human"}] * 3, rated=True)
        r = join_table(c, g["table_id"])
        assert r.status_code == 409 and r.json()["code"] == "already_seated"
        view = c.get(f"/api/tables/{g['table_id']}").json()
        assert [s["taken"] for s in view["seats"]] == [True, False, False]
        # a second guest seat of the same browser is not claimed twice either
        guest = c.__class__(c.app)
        with guest:
            t1 = create_table(guest, [{"kind": "human"}, {"kind": "human"}])
            t2 = join_table(guest, t1["table_id"], name="Gus").json()
            r = register(
                guest,
                "Gustav",
                claims=[
                    {"table_id": t1["table_id"], "token": t1["token"]},
                    {"table_id": t1["table_id"], "token": t2["token"]},
                ],
            )
            assert r.json()["claimed"] == [{"table_id": t1["table_id"], "seat": 0}]
