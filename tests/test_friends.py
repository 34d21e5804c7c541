"""Friends (issue 22, item 2): follows and presence, blocks (lists, joins, chat,
pairing's check), direct challenges (made, seen, accepted once, declined,
cancelled, expired), the refusals with their codes, and the rate limits; and on
PostgreSQL, two server processes: a challenge made at one is accepted at the
other, and two accepts racing at the two processes make one table."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select, update

from accounts_support import FAST, PASSWORD, create_table, csrf, join_table, register
from svoi_kozyri.server.edge.guard import Limits
from svoi_kozyri.server.platform.accounts import AccountService, AccountSettings
from svoi_kozyri.server.platform.blocks import Blocks
from svoi_kozyri.server.platform.players import Players
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.storage.schema import challenges_t, follows_t
from svoi_kozyri.server.web.app import create_app
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)
from test_server_workers import _fresh_db

pytestmark = pytest.mark.timeout(120)


class World:
    """One app and one logged-in client per name (each its own cookies)."""

    def __init__(self, app: FastAPI, main: TestClient) -> None:
        self.app = app
        self.main = main
        self.clients: dict[str, TestClient] = {}

    @property
    def players(self) -> Players:
        players: Players = self.app.state.players
        return players

    def user(self, name: str) -> TestClient:
        """A client logged in as a new account ``name``."""
        c = self.main if not self.clients else TestClient(self.app)
        assert register(c, name).status_code == 201
        self.clients[name] = c
        return c

    def guest(self) -> TestClient:
        return TestClient(self.app)


def _world(tmp_path: Path, limits: Limits | None) -> Iterator[World]:
    app = create_app(
        f"sqlite:///{tmp_path / 'friends.db'}",
        seed=5,
        accounts=AccountSettings.fast(),
        limits=limits,
    )
    with TestClient(app) as main:
        yield World(app, main)


@pytest.fixture()
def world(tmp_path: Path) -> Iterator[World]:
    yield from _world(tmp_path, Limits.off())


def post(c: TestClient, path: str, body: dict[str, Any] | None = None) -> Any:
    return c.post(path, json=body if body is not None else {}, headers=csrf(c))


def code(r: Any) -> str:
    return str(r.json().get("code"))


def _friends(c: TestClient) -> dict[str, Any]:
    r = c.get("/api/friends")
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _names(people: list[dict[str, Any]]) -> list[str]:
    return [p["name"] for p in people]


def test_guests_are_told_to_log_in(world: World) -> None:
    g = world.guest()
    for r in (
        g.get("/api/friends"),
        g.get("/api/challenges"),
        post(g, "/api/friends/follow", {"name": "x"}),
        post(g, "/api/challenges", {"to": "x"}),
    ):
        assert r.status_code == 401 and code(r) == "login_required", r.text


def test_follow_lists_and_presence(world: World) -> None:
    ann, bob = world.user("Ann"), world.user("Bob")
    cat = world.user("Cat")
    r = post(ann, "/api/friends/follow", {"name": "bob"})  # any case
    assert r.json() == {"ok": True, "changed": True}
    assert post(ann, "/api/friends/follow", {"name": "Bob"}).json()["changed"] is False
    assert post(cat, "/api/friends/follow", {"name": "Ann"}).status_code == 200
    view = _friends(ann)
    assert _names(view["following"]) == ["Bob"] and _names(view["followers"]) == ["Cat"]
    me_bob = view["following"][0]
    assert me_bob["online"] and not me_bob["playing"] and me_bob["watch"] is None
    assert me_bob["i_follow"] and not me_bob["follows_me"]
    assert _names(_friends(bob)["followers"]) == ["Ann"]

    # playing at a listed table: watchable; at an unlisted one: playing, no id
    grant = create_table(bob, [{"kind": "human"}, {"kind": "bot", "bot": "random"}], **FAST)
    bob_now = _friends(ann)["following"][0]
    assert bob_now["playing"] and bob_now["watch"] == grant["table_id"]
    create_table(cat, [{"kind": "human"}, {"kind": "bot"}], listed=False, **FAST)
    cat_now = _friends(ann)["followers"][0]
    assert cat_now["playing"] and cat_now["watch"] is None

    # seen long ago: offline
    from svoi_kozyri.server.storage.schema import users_t

    with world.players.store.engine.begin() as conn:
        conn.execute(update(users_t).where(users_t.c.username == "Cat").values(last_seen=1.0))
    world.players.accounts._touched.clear()  # Cat's next request may mark it again
    assert _friends(ann)["followers"][0]["online"] is False

    assert post(ann, "/api/friends/unfollow", {"name": "Bob"}).json()["changed"] is True
    assert post(ann, "/api/friends/unfollow", {"name": "Bob"}).json()["changed"] is False
    assert _friends(ann)["following"] == []


@pytest.mark.parametrize(
    ("target", "status", "error"),
    [("Ann", 400, "self_target"), ("nobody", 404, "unknown_user"), ("random", 400, "bot_account")],
)
def test_bad_targets_change_nothing(world: World, target: str, status: int, error: str) -> None:
    ann = world.user("Ann")
    for path, body in (
        ("/api/friends/follow", {"name": target}),
        ("/api/friends/block", {"name": target}),
        ("/api/challenges", {"to": target}),
    ):
        r = post(ann, path, body)
        assert (r.status_code, code(r)) == (status, error), (path, r.text)
    view = _friends(ann)
    assert view == {"following": [], "followers": [], "blocked": []}
    assert ann.get("/api/challenges").json() == {"incoming": [], "outgoing": []}


def test_block_hides_and_refuses(world: World) -> None:
    ann, bob = world.user("Ann"), world.user("Bob")
    post(ann, "/api/friends/follow", {"name": "Bob"})
    post(bob, "/api/friends/follow", {"name": "Ann"})
    r = post(ann, "/api/challenges", {"to": "Bob"})
    assert r.status_code == 201
    cid = r.json()["challenge"]["id"]

    assert post(bob, "/api/friends/block", {"name": "Ann"}).json()["changed"] is True
    # the follows both ways end, the open challenge is cancelled
    assert _friends(ann) == {"following": [], "followers": [], "blocked": []}
    bob_view = _friends(bob)
    assert bob_view["blocked"] == ["Ann"] and not bob_view["following"]
    assert bob.get("/api/challenges").json()["incoming"] == []
    r = post(bob, f"/api/challenges/{cid}/accept")
    assert (r.status_code, code(r)) == (409, "challenge_cancelled")
    # the blocked cannot follow or challenge; the blocker must unblock first
    r = post(ann, "/api/friends/follow", {"name": "Bob"})
    assert (r.status_code, code(r)) == (403, "blocked")
    r = post(ann, "/api/challenges", {"to": "Bob"})
    assert (r.status_code, code(r)) == (403, "blocked")
    r = post(bob, "/api/friends/follow", {"name": "Ann"})
    assert (r.status_code, code(r)) == (409, "you_blocked")
    # nor join a table where the other sits, either way
    grant = create_table(bob, [{"kind": "human"}, {"kind": "human"}], name="Bob")
    r = join_table(ann, grant["table_id"])
    assert (r.status_code, code(r)) == (403, "blocked_at_table")
    # only the blocker lifts it
    assert post(ann, "/api/friends/unblock", {"name": "Bob"}).json()["changed"] is False
    assert post(bob, "/api/friends/unblock", {"name": "Ann"}).json()["changed"] is True
    assert join_table(ann, grant["table_id"]).status_code == 200
    assert post(ann, "/api/friends/follow", {"name": "Bob"}).json()["changed"] is True


def test_any_between(world: World) -> None:
    ids = {}
    for name in ("Ann", "Bob", "Cat"):
        world.user(name)
        user = world.players.accounts.user_by_name(name)
        assert user is not None
        ids[name] = user.id
    blocks = Blocks(world.players.store.engine)
    assert not blocks.any_between([ids["Ann"], ids["Bob"], ids["Cat"]])
    post(world.clients["Cat"], "/api/friends/block", {"name": "Ann"})
    assert blocks.any_between([ids["Ann"], ids["Bob"], ids["Cat"]])
    assert blocks.any_between([ids["Cat"], ids["Ann"]])  # either order
    assert not blocks.any_between([ids["Ann"], ids["Bob"]])
    assert not blocks.any_between([ids["Ann"]])


def _challenge(c: TestClient, to: str, **kw: Any) -> dict[str, Any]:
    r = post(c, "/api/challenges", {"to": to, **kw})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def test_challenge_accepted_seats_both(world: World) -> None:
    ann, bob = world.user("Ann"), world.user("Bob")
    cat = world.user("Cat")
    made = _challenge(ann, "Bob", players=3, bot="random", rated=True, rules={"loss_limit": 3})
    secret, cid = made["secret"], made["challenge"]["id"]
    assert made["challenge"]["state"] == "open" and 100 < made["challenge"]["expires_in"] <= 120
    incoming = bob.get("/api/challenges").json()["incoming"]
    assert [(c["id"], c["challenger"], c["players"], c["bot"], c["rated"]) for c in incoming] == [
        (cid, "Ann", 3, "random", True)
    ]
    assert secret not in bob.get("/api/challenges").text
    assert secret not in ann.get("/api/challenges").text  # given once, never again

    r = post(cat, f"/api/challenges/{cid}/accept")
    assert (r.status_code, code(r)) == (403, "challenge_not_yours")
    r = post(ann, f"/api/challenges/{cid}/accept")  # the challenger cannot accept
    assert (r.status_code, code(r)) == (403, "challenge_not_yours")

    r = post(bob, f"/api/challenges/{cid}/accept")
    assert r.status_code == 200, r.text
    table_id, bob_secret = r.json()["table_id"], r.json()["secret"]
    again = post(bob, f"/api/challenges/{cid}/accept")
    assert (again.status_code, code(again)) == (409, "challenge_closed")
    out = ann.get("/api/challenges").json()["outgoing"]
    assert [(c["state"], c["table_id"]) for c in out] == [("accepted", table_id)]

    # each secret is its holder's seat token; the accounts are linked to the seats
    for token, seat, name in ((secret, 0, "Ann"), (bob_secret, 1, "Bob")):
        view = ann.get(f"/api/tables/{table_id}", headers={"X-Seat-Token": token}).json()
        assert view["viewer"] == seat and view["seats"][seat]["name"] == name
    view = ann.get(f"/api/tables/{table_id}").json()
    assert [s["kind"] for s in view["seats"]] == ["human", "human", "bot"]
    assert view["rules"]["loss_limit"] == 3 and world.players.is_rated(table_id)
    assert world.players.accounts.seat_users(table_id)[1].username == "Bob"


def test_decline_cancel_expire_and_limits(world: World) -> None:
    ann, bob = world.user("Ann"), world.user("Bob")
    world.user("Cat")
    world.user("Dan")
    world.user("Eve")
    first = _challenge(ann, "Bob")["challenge"]["id"]
    r = post(ann, "/api/challenges", {"to": "Bob"})
    assert (r.status_code, code(r)) == (409, "challenge_pending")
    _challenge(ann, "Cat")
    _challenge(ann, "Dan")
    r = post(ann, "/api/challenges", {"to": "Eve"})
    assert (r.status_code, code(r)) == (409, "too_many_challenges")

    assert post(bob, f"/api/challenges/{first}/decline").status_code == 200
    r = post(bob, f"/api/challenges/{first}/accept")
    assert (r.status_code, code(r)) == (409, "challenge_closed")
    out = {c["id"]: c["state"] for c in ann.get("/api/challenges").json()["outgoing"]}
    assert out[first] == "declined"

    second = _challenge(ann, "Bob")["challenge"]["id"]
    r = post(bob, f"/api/challenges/{second}/cancel")  # not the challenger's
    assert (r.status_code, code(r)) == (403, "challenge_not_yours")
    assert post(ann, f"/api/challenges/{second}/cancel").status_code == 200
    r = post(bob, f"/api/challenges/{second}/accept")
    assert (r.status_code, code(r)) == (409, "challenge_cancelled")

    third = _challenge(bob, "Ann")["challenge"]["id"]
    engine = world.players.store.engine
    with engine.begin() as conn:
        conn.execute(
            update(challenges_t).where(challenges_t.c.id == third).values(expires=time.time() - 1)
        )
    r = post(ann, f"/api/challenges/{third}/accept")
    assert (r.status_code, code(r)) == (410, "challenge_expired")
    assert ann.get("/api/challenges").json()["incoming"] == []
    from svoi_kozyri.server.platform.friends import FriendService

    assert FriendService(world.players).expire() >= 1
    with engine.connect() as conn:
        state = conn.execute(
            select(challenges_t.c.state).where(challenges_t.c.id == third)
        ).scalar_one()
    assert state == "expired"
    r = post(ann, "/api/challenges/nosuchid/accept")
    assert (r.status_code, code(r)) == (404, "no_challenge")


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"players": 3, "bot": "nosuchbot"}, 400, "bad_config"),
        ({"players": 2, "bot": "random"}, 400, "bad_config"),
        ({"rules": {"loss_limit": 0}}, 400, "bad_config"),
        ({"rules": {"no_such_option": 1}}, 400, "bad_config"),
        ({"rules": {"num_players": 3}}, 400, "bad_config"),
        ({"players": 5}, 422, "None"),
        ({"players": "2"}, 422, "None"),
    ],
)
def test_bad_challenges_change_nothing(
    world: World, body: dict[str, Any], status: int, error: str
) -> None:
    ann, bob = world.user("Ann"), world.user("Bob")
    r = post(ann, "/api/challenges", {"to": "Bob", **body})
    assert r.status_code == status, r.text
    if status != 422:
        assert code(r) == error
    assert bob.get("/api/challenges").json()["incoming"] == []


def test_two_accepts_at_once_make_one_table(world: World) -> None:
    ann, bob = world.user("Ann"), world.user("Bob")
    cid = _challenge(ann, "Bob")["challenge"]["id"]
    headers = csrf(bob)
    with ThreadPoolExecutor(4) as pool:
        answers = list(
            pool.map(
                lambda _: bob.post(f"/api/challenges/{cid}/accept", json={}, headers=headers),
                range(4),
            )
        )
    assert sorted(r.status_code for r in answers) == [200, 409, 409, 409]
    tables = {c["table_id"] for c in ann.get("/api/challenges").json()["outgoing"]}
    assert len(tables) == 1 and None not in tables


def test_blocked_pair_chat_is_hidden_both_ways(world: World) -> None:
    ann, bob = world.user("Ann"), world.user("Bob")
    made = _challenge(ann, "Bob", players=3, bot="random")
    r = post(bob, f"/api/challenges/{made['challenge']['id']}/accept").json()
    table_id = r["table_id"]
    # a block made while both sit at the table: the chat hides each from the other
    assert post(bob, "/api/friends/block", {"name": "Ann"}).status_code == 200
    with (
        ann.websocket_connect(f"/ws/{table_id}") as a,
        bob.websocket_connect(f"/ws/{table_id}") as b,
    ):
        for ws, token in ((a, made["secret"]), (b, r["secret"])):
            ws.send_text(json.dumps({"type": "hello", "token": token}))
            assert ws.receive_json()["type"] == "welcome"
        a.send_text(json.dumps({"type": "chat", "text": "hello Bob"}))
        b.send_text(json.dumps({"type": "chat", "text": "hello Ann"}))
        got: dict[str, list[str]] = {"a": [], "b": []}
        for key, ws in (("a", a), ("b", b)):
            ws.send_text(json.dumps({"type": "chat_history"}))
            while True:
                m = ws.receive_json()
                if m["type"] == "chat":
                    got[key].append(m["text"])
                if m["type"] == "chat_history":
                    got[key] += [x["text"] for x in m["messages"]]
                    assert m["muted"] == []  # a block is not shown as a mute
                    break
    assert "hello Ann" not in got["a"] and "hello Bob" in got["a"]
    assert "hello Bob" not in got["b"] and "hello Ann" in got["b"]


def test_rate_limits_per_account(tmp_path: Path) -> None:
    for world in _world(tmp_path, None):
        ann = world.user("Ann")
        world.user("Bob")
        answers = [
            post(ann, f"/api/friends/{'follow' if i % 2 == 0 else 'unfollow'}", {"name": "Bob"})
            for i in range(14)
        ]
        limited = [r for r in answers if r.status_code == 429]
        assert limited and code(limited[0]) == "rate_limited"
        assert "follows" in limited[0].json()["message"]
        # the refused follows changed nothing: the last state is the last allowed one
        with world.players.store.engine.connect() as conn:
            rows = conn.execute(select(follows_t)).all()
        allowed = [i for i, r in enumerate(answers) if r.status_code == 200]
        assert len(rows) == (1 if allowed[-1] % 2 == 0 else 0)


def _logged_in(srv: ServerProcess, name: str) -> httpx.Client:
    """A client of ``srv`` logged in as ``name``, sending its CSRF token."""
    c = httpx.Client(base_url=srv.base, timeout=20)
    token = c.get("/api/account/me").json()["csrf"]
    r = c.post(
        "/api/account/login",
        json={"username": name, "password": PASSWORD},
        headers={"X-CSRF-Token": token},
    )
    assert r.status_code == 200, r.text
    c.headers["X-CSRF-Token"] = r.json()["csrf"]
    return c


def test_challenges_across_two_processes(postgres_url: str, tmp_path: Path) -> None:  # noqa: F811
    db = _fresh_db(postgres_url, f"sk_friends_{os.getpid()}")
    engine = create_engine(db)
    try:
        from svoi_kozyri.server.storage.store import Store

        Store(db, migrate=True).close()
        accounts = AccountService(engine, AccountSettings.fast())
        for name in ("Ann", "Bob"):
            accounts.register(name, PASSWORD)
    finally:
        engine.dispose()
    a = ServerProcess(db, rate_limits=False, migrate=False, log_path=tmp_path / "a.log")
    b = ServerProcess(db, rate_limits=False, migrate=False, log_path=tmp_path / "b.log")
    a.start(60)
    try:
        b.start(60)
        ann, bob = _logged_in(a, "Ann"), _logged_in(b, "Bob")
        ann_at_b = _logged_in(b, "Ann")
        bob_at_a = _logged_in(a, "Bob")
        # made at A, seen and accepted at B, the table learnt at A
        r = ann.post("/api/challenges", json={"to": "Bob", "players": 3, "bot": "random"})
        assert r.status_code == 201, r.text
        secret, cid = r.json()["secret"], r.json()["challenge"]["id"]
        assert [c["id"] for c in bob.get("/api/challenges").json()["incoming"]] == [cid]
        r = bob.post(f"/api/challenges/{cid}/accept", json={})
        assert r.status_code == 200, r.text
        table_id, bob_secret = r.json()["table_id"], r.json()["secret"]
        out = ann.get("/api/challenges").json()["outgoing"]
        assert [(c["state"], c["table_id"]) for c in out] == [("accepted", table_id)]
        # each secret opens its seat at either process
        for srv in (a, b):
            for token, seat in ((secret, 0), (bob_secret, 1)):
                view = httpx.get(
                    f"{srv.base}/api/tables/{table_id}", headers={"X-Seat-Token": token}
                ).json()
                assert view["viewer"] == seat, (srv.base, view)

        # two accepts racing at the two processes: one table, one refusal
        cid = ann_at_b.post("/api/challenges", json={"to": "Bob"}).json()["challenge"]["id"]
        with ThreadPoolExecutor(2) as pool:
            answers = list(
                pool.map(
                    lambda c: c.post(f"/api/challenges/{cid}/accept", json={}), [bob, bob_at_a]
                )
            )
        assert sorted(r.status_code for r in answers) == [200, 409]
        assert code(next(r for r in answers if r.status_code == 409)) == "challenge_closed"
        for c in (ann, bob, ann_at_b, bob_at_a):
            c.close()
    finally:
        a.stop()
        b.stop()
    for name in ("a.log", "b.log"):
        assert "Traceback" not in (tmp_path / name).read_text(), name


def test_a_blocked_player_learns_nothing_of_the_blockers_tables(world: World) -> None:
    """The live lobby and the list of tables leave out the tables where someone in
    a block with the viewer sits, and them from the online list; their profile
    shows no game in play."""
    ann, bob, cat = world.user("Ann"), world.user("Bob"), world.user("Cat")
    grant = create_table(ann, [{"kind": "human"}, {"kind": "bot", "bot": "random"}], **FAST)
    table_id = grant["table_id"]
    assert post(ann, "/api/friends/block", {"name": "Bob"}).status_code == 200

    def lobby(c: TestClient) -> tuple[list[str], list[str]]:
        page = c.get("/api/lobby").json()
        return [t["table_id"] for t in page["tables"]], page["online"]["accounts"]

    def running(c: TestClient) -> list[str]:
        games = c.get("/api/users/Ann/games").json()["games"]
        return [g["table_id"] for g in games]

    tables, online = lobby(cat)  # a third player sees Ann and her table
    assert table_id in tables and "Ann" in online
    assert running(cat) == [table_id]
    for c in (bob, ann):  # the blocked player, and the blocker about the blocked
        tables, online = lobby(c)
        hidden = "Ann" if c is bob else "Bob"
        assert hidden not in online
        if c is bob:
            assert table_id not in tables
            assert running(bob) == []
    text = bob.get("/api/lobby").text + bob.get("/api/users/Ann/games").text
    assert table_id not in text
    # the plain list of tables too (the older lobby API), and only for him
    assert table_id in [t["table_id"] for t in cat.get("/api/tables").json()]
    assert table_id not in bob.get("/api/tables").text
    assert table_id in [t["table_id"] for t in TestClient(world.app).get("/api/tables").json()]
