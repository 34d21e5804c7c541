"""Moderation (platform/moderation.py, issue 26 item 5): roles from the command line
and the admin page, bans that end every session and refuse log-ins, moves and
chat, mutes, sanctions that expire, closing a table through the table layer,
removing a chat line for everyone, reports (accounts only, rate-limited), the
audit log; players without a role get 403, bad input changes nothing, and no
answer carries a session, token, password hash or card."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update
from typer.testing import CliRunner

from accounts_support import csrf, login, make_client, register
from svoi_kozyri.server.platform.accounts import AccountSettings
from svoi_kozyri.server.platform.moderation import set_role_by_name
from svoi_kozyri.server.storage.schema import (
    audit_t,
    chat_t,
    reports_t,
    sanctions_t,
    sessions_t,
    table_meta_t,
)
from svoi_kozyri.server.web.app import create_app
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)
from test_server_workers import _fresh_db
from test_table_social import hello, next_of

pytestmark = pytest.mark.timeout(120)

SEATS = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
SECRETISH = re.compile(r"token|password|hash|sk_session|argon2|\"deck\"|\"hand\"", re.I)


class World:
    """One app with three accounts: ``mod`` (an admin), ``ann`` and ``bob`` at one table.

    Every socket is opened through ``mod``, the client that runs the app's event
    loop (a client not entered runs each request on a loop of its own, and two
    sockets of one table must share the table's loop, as they do in a server)."""

    def __init__(self, c: TestClient) -> None:
        self.app: Any = c.app
        self.mod = c
        self.ann = TestClient(self.app)
        self.bob = TestClient(self.app)
        for client, name in ((self.mod, "Moddy"), (self.ann, "Ann"), (self.bob, "Bob")):
            assert register(client, name).status_code == 201
        set_role_by_name(self.engine, "Moddy", "admin")
        r = self.ann.post(
            "/api/tables",
            json={"name": "Ann", "config": {"seats": SEATS, "grace_s": 600}},
            headers=csrf(self.ann),
        )
        assert r.status_code == 200, r.text
        self.grant_a = r.json()
        self.table_id = self.grant_a["table_id"]
        r = self.bob.post(
            f"/api/tables/{self.table_id}/join", json={"name": "Bob"}, headers=csrf(self.bob)
        )
        assert r.status_code == 200, r.text
        self.grant_b = r.json()

    @property
    def engine(self) -> Any:
        return self.app.state.players.store.engine

    def count(self, table: Any) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


@pytest.fixture()
def world(tmp_path: Path) -> Iterator[World]:
    with make_client(tmp_path) as c:
        yield World(c)


def post(c: TestClient, path: str, body: Any = None) -> Any:
    return c.post(path, json=body, headers=csrf(c))


def clean(r: Any) -> Any:
    """The answer, checked to carry nothing secret."""
    assert not SECRETISH.search(r.text), r.text
    return r


def test_roles_cli_admin_page_and_403_for_players(world: World, tmp_path: Path) -> None:
    assert world.ann.get("/api/mod/me").json() == {"role": None}
    assert world.mod.get("/api/mod/me").json() == {"role": "admin"}
    for path in ("/api/mod/reports", "/api/mod/sanctions", "/api/mod/audit", "/api/mod/roles"):
        assert world.ann.get(path).status_code == 403
        assert TestClient(world.app).get(path).status_code == 401
    r = post(world.ann, "/api/mod/sanctions", {"username": "Bob", "kind": "ban", "reason": "x"})
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    assert post(world.ann, f"/api/mod/tables/{world.table_id}/close", {"reason": "x"}).status_code
    assert world.count(sanctions_t) == 0

    # the admin makes Ann a moderator on the page; a moderator cannot grant roles
    r = post(world.mod, "/api/mod/roles", {"username": "ann", "role": "moderator"})
    assert r.status_code == 200 and r.json()["username"] == "Ann"
    assert world.ann.get("/api/mod/me").json() == {"role": "moderator"}
    assert world.ann.get("/api/mod/reports").status_code == 200
    assert world.ann.get("/api/mod/roles").status_code == 403
    assert post(world.ann, "/api/mod/roles", {"username": "Bob", "role": "moderator"}).status_code
    assert (
        post(world.mod, "/api/mod/roles", {"username": "Moddy", "role": "none"}).status_code == 409
    )
    roles = clean(world.mod.get("/api/mod/roles")).json()["roles"]
    assert [(x["username"], x["role"]) for x in roles] == [("Ann", "moderator"), ("Moddy", "admin")]
    assert (
        post(world.mod, "/api/mod/roles", {"username": "nobody1", "role": "none"}).status_code
        == 404
    )
    assert (
        post(world.mod, "/api/mod/roles", {"username": "Bob", "role": "admin"}).status_code == 422
    )

    # the command line
    db = f"sqlite:///{tmp_path / 'cli.db'}"
    app = create_app(db, accounts=AccountSettings.fast())
    with TestClient(app) as c:
        assert register(c, "Carol").status_code == 201
    from svoi_kozyri.cli.main import app as cli

    out = CliRunner().invoke(cli, ["account", "role", "carol", "moderator", "--database", db])
    assert out.exit_code == 0 and "Carol: moderator" in out.output, out.output
    assert CliRunner().invoke(cli, ["account", "role", "carol", "king", "--database", db]).exit_code
    bad = CliRunner().invoke(cli, ["account", "role", "zed", "admin", "--database", db])
    assert bad.exit_code == 1 and "no account" in bad.output


def test_ban_revokes_sessions_refuses_login_moves_and_chat_then_expires(world: World) -> None:
    tid = world.table_id
    with world.mod.websocket_connect(f"/ws/{tid}") as wb:
        hello(wb, world.grant_b["token"])
        r = clean(
            post(
                world.mod,
                "/api/mod/sanctions",
                {"username": "bob", "kind": "ban", "minutes": 60, "reason": "abuse"},
            )
        )
        assert r.status_code == 201, r.text
        # every session is gone: the cookie no longer opens the account
        assert world.bob.get("/api/account/me").json()["user"] is None
        bob = world.app.state.players.accounts.user_by_name("Bob")
        with world.engine.connect() as conn:
            bob_sessions = conn.execute(
                select(func.count()).select_from(sessions_t).where(sessions_t.c.user_id == bob.id)
            ).scalar_one()
        assert bob_sessions == 0
        r = login(world.bob, "Bob")
        assert r.status_code == 403 and r.json()["code"] == "banned"
        assert "sk_session" not in r.headers.get("set-cookie", "")
        # the seat he holds neither acts nor chats
        wb.send_text(json.dumps({"type": "hint"}))
        assert next_of(wb, "error")["code"] == "banned"
        wb.send_text(json.dumps({"type": "chat", "text": "let me in"}))
        assert next_of(wb, "error")["code"] == "banned"
        wb.send_text(json.dumps({"type": "ping"}))  # a keep-alive is no action
        assert next_of(wb, "pong") == {"type": "pong"}
    assert world.count(chat_t) == 0
    sanctions = clean(world.mod.get("/api/mod/sanctions")).json()["sanctions"]
    assert [(s["username"], s["kind"], s["reason"]) for s in sanctions] == [("Bob", "ban", "abuse")]

    # the ban expires: Bob logs in again
    with world.engine.begin() as conn:
        conn.execute(update(sanctions_t).values(expires=time.time() - 1))
    assert world.mod.get("/api/mod/sanctions").json()["sanctions"] == []
    assert login(world.bob, "Bob").status_code == 200
    # a sanction is lifted early
    sid = post(
        world.mod, "/api/mod/sanctions", {"username": "Bob", "kind": "ban", "reason": "again"}
    )
    sid = sid.json()["id"]
    assert login(world.bob, "Bob").status_code == 403
    assert post(world.mod, f"/api/mod/sanctions/{sid}/lift").status_code == 200
    assert post(world.mod, f"/api/mod/sanctions/{sid}/lift").status_code == 404
    assert login(world.bob, "Bob").status_code == 200
    actions = [a["action"] for a in clean(world.mod.get("/api/mod/audit")).json()["audit"]]
    assert actions[:3] == ["lift", "ban", "ban"]


def test_mute_blocks_chat_and_challenges_only(world: World) -> None:
    r = post(world.mod, "/api/mod/sanctions", {"username": "Ann", "kind": "mute", "reason": "spam"})
    assert r.status_code == 201
    with world.mod.websocket_connect(f"/ws/{world.table_id}") as wa:
        hello(wa, world.grant_a["token"])
        wa.send_text(json.dumps({"type": "chat", "text": "hello"}))
        assert next_of(wa, "error")["code"] == "muted"
    assert world.count(chat_t) == 0
    r = post(world.ann, "/api/challenges", {"to": "Bob", "players": 2})
    assert r.status_code == 403 and r.json()["code"] == "muted", r.text
    assert world.ann.get("/api/account/me").json()["user"]["username"] == "Ann"  # still in


def test_bad_sanctions_change_nothing(world: World) -> None:
    bad: list[dict[str, Any]] = [
        {"username": "Bob", "kind": "kick", "reason": "x"},
        {"username": "Bob", "kind": "ban", "reason": ""},
        {"username": "Bob", "kind": "ban", "reason": "   "},
        {"username": "Bob", "kind": "ban", "reason": "x" * 301},
        {"username": "Bob", "kind": "ban", "minutes": 0, "reason": "x"},
        {"username": "Bob", "kind": "ban", "minutes": "5", "reason": "x"},
        {"username": "Bob", "kind": "ban", "reason": "x", "extra": 1},
        {"username": "nobody1", "kind": "ban", "reason": "x"},
        {"username": "Moddy", "kind": "ban", "reason": "x"},
        {"username": "random", "kind": "mute", "reason": "x"},
    ]
    audit = world.count(audit_t)  # the admin's role, given by the fixture
    for body in bad:
        r = post(world.mod, "/api/mod/sanctions", body)
        assert 400 <= r.status_code < 500, (body, r.text)
    assert world.count(sanctions_t) == 0 and world.count(audit_t) == audit == 1
    assert world.bob.get("/api/account/me").json()["user"] is not None


def test_close_table_ends_it_for_every_viewer(world: World) -> None:
    tid = world.table_id
    with world.mod.websocket_connect(f"/ws/{tid}") as wa:
        hello(wa, world.grant_a["token"])
        r = post(world.mod, f"/api/mod/tables/{tid}/close", {"reason": "cheating ring"})
        assert r.status_code == 200, r.text
        for _ in range(50):
            view = next_of(wa, "state")["view"]
            if view["closed"]:
                break
        assert view["status"] == "finished" and view["closed"] is True
        wa.send_text(json.dumps({"type": "move", "move": "pass"}))
        assert next_of(wa, "error")["code"] in ("table_closed", "stale")
    r = post(world.mod, f"/api/mod/tables/{tid}/close", {"reason": "again"})
    assert r.status_code == 409 and r.json()["code"] == "table_finished"
    assert post(world.mod, "/api/mod/tables/zzzz/close", {"reason": "x"}).status_code == 404
    assert world.ann.get(f"/api/tables/{tid}").json()["status"] == "finished"
    with world.engine.connect() as conn:
        state = conn.execute(select(table_meta_t.c.state).where(table_meta_t.c.table_id == tid))
        assert state.scalar_one() == "closed"
    audit = world.mod.get("/api/mod/audit").json()["audit"]
    assert audit[0]["action"] == "close_table" and audit[0]["target"] == tid


def test_report_a_chat_line_and_remove_it_for_everyone(world: World) -> None:
    tid = world.table_id
    with (
        world.mod.websocket_connect(f"/ws/{tid}") as wa,
        world.mod.websocket_connect(f"/ws/{tid}") as wb,
    ):
        hello(wa, world.grant_a["token"])
        hello(wb, world.grant_b["token"])
        wb.send_text(json.dumps({"type": "chat", "text": "you are bad"}))
        line = next_of(wa, "chat")
        assert line["text"] == "you are bad" and isinstance(line["id"], int)
        next_of(wb, "chat")
        # a spectator's account cannot report the chat; a guest cannot report at all
        assert (
            post(
                world.mod,
                "/api/mod/reports",
                {"table_id": tid, "chat_id": line["id"], "reason": "rude"},
            ).status_code
            == 403
        )
        guest = TestClient(world.app)
        assert (
            post(
                guest, "/api/mod/reports", {"table_id": tid, "seat": 1, "reason": "rude"}
            ).status_code
            == 401
        )
        r = clean(
            post(
                world.ann,
                "/api/mod/reports",
                {"table_id": tid, "chat_id": line["id"], "reason": " rude\nline "},
            )
        )
        assert r.status_code == 201, r.text
        queue = clean(world.mod.get("/api/mod/reports")).json()["reports"]
        assert len(queue) == 1
        rep = queue[0]
        assert (rep["reporter"], rep["target"], rep["chat_text"], rep["reason"]) == (
            "Ann",
            "Bob",
            "you are bad",
            "rude line",
        )
        r = post(world.mod, f"/api/mod/reports/{rep['id']}/resolve", {"action": "remove_chat"})
        assert r.status_code == 200, r.text
        gone = next_of(wa, "chat")
        assert gone["removed"] is True and gone["id"] == line["id"] and gone["text"] == ""
        assert next_of(wb, "chat")["removed"] is True
        wa.send_text(json.dumps({"type": "chat_history"}))
        assert next_of(wa, "chat_history")["messages"] == []
    assert world.count(chat_t) == 0
    assert world.mod.get("/api/mod/reports").json()["reports"] == []
    done = world.mod.get("/api/mod/reports?state=resolved").json()["reports"]
    assert done[0]["resolution"] == "remove_chat"
    r = post(world.mod, f"/api/mod/reports/{rep['id']}/resolve", {"action": "dismiss"})
    assert r.status_code == 404
    assert post(world.mod, f"/api/mod/chat/{line['id']}/remove").status_code == 404
    actions = [a["action"] for a in world.mod.get("/api/mod/audit").json()["audit"]]
    assert actions[:2] == ["resolve", "remove_chat"]  # the action, then its settling


def test_report_a_player_resolve_with_ban_and_bad_reports(world: World) -> None:
    tid = world.table_id
    bad: list[dict[str, Any]] = [
        {"table_id": tid, "reason": "no target"},
        {"table_id": tid, "seat": 1, "chat_id": 1, "reason": "both"},
        {"table_id": tid, "seat": 1, "reason": ""},
        {"table_id": tid, "seat": 1, "reason": "x" * 301},
        {"table_id": tid, "seat": 2, "reason": "a bot"},
        {"table_id": tid, "seat": 7, "reason": "no seat"},
        {"table_id": tid, "seat": 0, "reason": "myself"},
        {"table_id": "nope", "seat": 1, "reason": "no table"},
        {"table_id": tid, "chat_id": 99, "reason": "no line"},
        {"table_id": tid, "seat": "1", "reason": "strict"},
    ]
    for body in bad:
        r = post(world.ann, "/api/mod/reports", body)
        assert 400 <= r.status_code < 500, (body, r.text)
    assert world.count(reports_t) == 0
    r = post(world.ann, "/api/mod/reports", {"table_id": tid, "seat": 1, "reason": "stalling"})
    assert r.status_code == 201
    rid = r.json()["id"]
    # a report of a seat names no chat line; an unknown action is refused
    r = post(world.mod, f"/api/mod/reports/{rid}/resolve", {"action": "remove_chat"})
    assert r.status_code == 422
    assert post(world.mod, f"/api/mod/reports/{rid}/resolve", {"action": "jail"}).status_code == 422
    assert world.count(sanctions_t) == 0
    # refused after the claim (Bob became a moderator): the report is open again
    set_role_by_name(world.engine, "Bob", "moderator")
    r = post(world.mod, f"/api/mod/reports/{rid}/resolve", {"action": "ban"})
    assert r.status_code == 409 and r.json()["code"] == "bad_target"
    assert [x["id"] for x in world.mod.get("/api/mod/reports").json()["reports"]] == [rid]
    set_role_by_name(world.engine, "Bob", None)
    r = post(world.mod, f"/api/mod/reports/{rid}/resolve", {"action": "ban", "minutes": 30})
    assert r.status_code == 200, r.text
    assert login(world.bob, "Bob").json()["code"] == "banned"
    assert world.mod.get("/api/mod/sanctions").json()["sanctions"][0]["username"] == "Bob"


def test_reports_are_rate_limited(world: World) -> None:
    codes = [
        post(
            world.ann, "/api/mod/reports", {"table_id": world.table_id, "seat": 1, "reason": "r"}
        ).status_code
        for _ in range(12)
    ]
    assert codes[0] == 201 and codes[-1] == 429, codes
    assert world.count(reports_t) == codes.count(201) < 12


def test_two_processes_on_postgres_enforce_a_ban(postgres_url: str) -> None:  # noqa: F811
    """A ban and a chat line's removal made through one process hold at the other:
    its sessions, log-ins, the seat's moves and the line on its players' pages."""
    db = _fresh_db(postgres_url, "sk_moderation")
    settings = AccountSettings.fast()
    one_app = create_app(db, seed=1, accounts=settings, migrate=True)
    two_app = create_app(db, seed=2, accounts=settings)
    with TestClient(one_app) as one, TestClient(two_app) as two:
        assert register(one, "Moddy").status_code == 201
        set_role_by_name(one_app.state.players.store.engine, "Moddy", "moderator")
        assert register(two, "Bob").status_code == 201
        r = two.post(
            "/api/tables",
            json={"name": "Bob", "config": {"seats": SEATS, "grace_s": 600}},
            headers=csrf(two),
        )
        grant = r.json()
        guest = post(one, f"/api/tables/{grant['table_id']}/join", {"name": "Moddy"}).json()
        with (
            two.websocket_connect(f"/ws/{grant['table_id']}") as wb,
            one.websocket_connect(f"/ws/{grant['table_id']}") as wm,
        ):
            # each seat's socket at the process that seated it (a seat taken at
            # one process reaches the other with its notification, a moment later)
            hello(wb, grant["token"])
            hello(wm, guest["token"])
            wb.send_text(json.dumps({"type": "chat", "text": "spam spam"}))
            line = next_of(wm, "chat")  # from the other process (LISTEN/NOTIFY)
            assert next_of(wb, "chat")["id"] == line["id"]
            r = post(one, f"/api/mod/chat/{line['id']}/remove")
            assert r.status_code == 200, r.text
            for ws in (wm, wb):  # here, and at the other process
                gone = next_of(ws, "chat")
                assert gone["removed"] is True and gone["id"] == line["id"]
            # the other process's gate answers from memory from now on: only the
            # ban's notification can make it read the bans again
            two_app.state.moderation.gate.refresh_s = 3600.0
            wb.send_text(json.dumps({"type": "hint"}))
            wb.send_text(json.dumps({"type": "ping"}))
            next_of(wb, "pong")
            r = post(one, "/api/mod/sanctions", {"username": "Bob", "kind": "ban", "reason": "x"})
            assert r.status_code == 201
            codes: list[str] = []
            deadline = time.monotonic() + 10
            while "banned" not in codes and time.monotonic() < deadline:
                wb.send_text(json.dumps({"type": "hint"}))
                wb.send_text(json.dumps({"type": "ping"}))
                while (m := wb.receive_json())["type"] != "pong":
                    codes += [m["code"]] if m["type"] == "error" else []
                time.sleep(0.02)
            assert "banned" in codes
        # the other process: the session is gone and a log-in is refused
        assert two.get("/api/account/me").json()["user"] is None
        assert login(two, "Bob").json()["code"] == "banned"
        # and the other process's moderators see it
        two_mod = TestClient(two_app)
        two_mod.cookies.set("sk_session", one.cookies["sk_session"])
        assert two_mod.get("/api/mod/sanctions").json()["sanctions"][0]["username"] == "Bob"
