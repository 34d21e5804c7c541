"""Regression tests of the defects of issue 13 (found by an independent client).

1. seat tokens in URLs and logs; 2. tables that play themselves forever, unbounded
options, growing views, no rate limits, no lobby paging; 3. orphaned bot worker
processes (see test_server_processes.py); 4. deeply nested JSON; 5. NaN, Infinity
and lone surrogates answered with 500; 6. lax types and unbounded bodies;
7. names that spoof the page, no CSP or frame protection.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from svoi_kozyri.server.edge.guard import Limits, RateLimiter
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.table.game import SeatInfo, TableGame
from svoi_kozyri.server.table.scheduler import UNATTENDED_DELAY_S
from svoi_kozyri.server.table.views import HANDS_LIMIT, table_view
from svoi_kozyri.server.web.app import create_app
from svoi_kozyri.server.web.client import SeatClient, low_card_policy
from svoi_kozyri.server.wire.auth import LinkSigner
from svoi_kozyri.server.wire.schemas import TableConfig, check_name

pytestmark = pytest.mark.timeout(120)

FAST = {"bot_delay_s": 0, "hand_pause_s": 0}
HUMAN_BOT = [{"kind": "human"}, {"kind": "bot", "bot": "random"}]


def _app(tmp_path: Path, name: str = "web.db", **kw: Any) -> Any:
    kw.setdefault("limits", Limits.off())
    return create_app(f"sqlite:///{tmp_path / name}", seed=3, **kw)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(_app(tmp_path)) as c:
        yield c


def create(client: TestClient, seats: list[dict[str, Any]], **cfg: Any) -> dict[str, Any]:
    r = client.post("/api/tables", json={"name": "Ann", "config": {"seats": seats, **cfg}})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def hello(ws: Any, token: str | None) -> None:
    ws.send_text(json.dumps({"type": "hello", "token": token}))
    assert ws.receive_json()["type"] == "welcome"


def version(client: TestClient, tid: str) -> int:
    v: int = client.get(f"/api/tables/{tid}").json()["version"]
    return v


# --------------------------------------------------------------------- 1. secrets in URLs


def test_no_seat_token_in_any_url_or_log_line(tmp_path: Path) -> None:
    """A real server logging at info level (uvicorn's access log on): after
    creating, joining, viewing, replaying, downloading and playing, no log line
    holds a token, and no URL the server hands out does either."""
    log = tmp_path / "server.log"
    db = f"sqlite:///{tmp_path / 'log.db'}"
    srv = ServerProcess(db, seed=2, log_path=log, extra_args=["--log-level", "info"])
    with srv:

        async def scenario() -> list[str]:
            async with httpx.AsyncClient(base_url=srv.base, timeout=30) as http:
                cfg = {"seats": [{"kind": "human"}, {"kind": "human"}], **FAST}
                g = (await http.post("/api/tables", json={"name": "Ann", "config": cfg})).json()
                tid = g["table_id"]
                j = (await http.post(f"/api/tables/{tid}/join", json={"name": "Bob"})).json()
                tokens = [g["token"], j["token"]]
                urls = [g["invite_url"], j["invite_url"]]
                players = [
                    SeatClient(srv.ws_base, tid, t, low_card_policy, seed=i, max_moves=3)
                    for i, t in enumerate(tokens)
                ]
                await asyncio.gather(*(p.run() for p in players))
                for t in tokens:
                    h = {"X-Seat-Token": t}
                    assert (await http.get(f"/api/tables/{tid}", headers=h)).status_code == 200
                    r = await http.get(f"/api/tables/{tid}/replay", headers=h)
                    assert r.status_code == 200
                    link = (await http.post(f"/api/tables/{tid}/record-link", headers=h)).json()
                    urls.append(link["url"])
                    assert (await http.get(link["url"])).status_code == 200
                    # the old way is refused outright, not silently served
                    r = await http.get(f"/api/tables/{tid}/record", params={"token": t})
                    assert r.status_code == 400 and r.json()["code"] == "token_in_url"
                return tokens + urls

        found = asyncio.run(scenario())
    tokens, urls = found[:2], found[2:]
    text = log.read_text()
    assert '"GET /api/tables/' in text  # the access log is on
    for t in tokens:
        assert t not in text
        assert all(t not in u for u in urls)
    assert "token=" not in text and "link=" not in text
    assert "Traceback" not in text


def test_signed_record_links_are_scoped_and_expire() -> None:
    signer = LinkSigner(b"k" * 32, ttl_s=60)
    now = 1_000_000.0
    link = signer.sign("record", "tableA", 1, now=now)
    assert signer.check("record", "tableA", link, now=now + 59) == 1
    assert signer.check("record", "tableA", link, now=now + 61) is False  # expired
    assert signer.check("record", "tableB", link, now=now) is False  # another table
    assert signer.check("replay", "tableA", link, now=now) is False  # another purpose
    who, exp, mac = link.split(".")
    assert signer.check("record", "tableA", f"0.{exp}.{mac}", now=now) is False  # other seat
    assert signer.check("record", "tableA", f"{who}.{int(exp) + 999}.{mac}", now=now) is False
    assert LinkSigner(b"x" * 32).check("record", "tableA", link, now=now) is False
    spect = signer.sign("record", "tableA", None, now=now)
    assert signer.check("record", "tableA", spect, now=now) is None


def test_forged_record_link_is_refused(client: TestClient) -> None:
    g = create(client, HUMAN_BOT, **FAST)
    tid = g["table_id"]
    r = client.get(f"/api/tables/{tid}/record", params={"link": "0.99999999999.forged"})
    assert r.status_code == 403 and r.json()["code"] == "bad_link"


# ------------------------------------------------------- 2. bounds, pausing, views, limits


@pytest.mark.parametrize(
    "extra",
    [
        {"turn_timer_s": 1e-9},
        {"turn_timer_s": 0.5},
        {"grace_s": 1e9},
        {"bot_delay_s": 1e9},
        {"hand_pause_s": -1},
        {"rules": {"loss_limit": 1_000_000_000}},
        {"rules": {"session_mode": "points", "points_target": 10_000}},
        {"rules": {"max_actions_per_hand": 1}},
        {"rules": {"max_actions_per_hand": None}},
        {"rules": {"repetition_limit": 1000}},
        {"rules": {"x" * 100: 1}},
        {"rules": {"pickup_rule": [1, 2]}},
    ],
)
def test_table_options_are_bounded(client: TestClient, extra: dict[str, Any]) -> None:
    r = client.post("/api/tables", json={"name": "Ann", "config": {"seats": HUMAN_BOT, **extra}})
    assert r.status_code in (400, 422), (extra, r.text)
    assert client.get("/api/tables").json() == []


def test_a_table_nobody_joins_does_not_play(client: TestClient) -> None:
    """One human seat that never connects, a random bot, no delays: the table is
    dealt once and then waits (it used to write about 3,400 events a second)."""
    g = create(client, HUMAN_BOT, grace_s=0, **FAST, rules={"loss_limit": 50})
    time.sleep(0.5)
    v = client.get(f"/api/tables/{g['table_id']}").json()
    assert v["version"] <= 2 and v["paused"]


def test_a_table_stops_after_its_people_leave(tmp_path: Path) -> None:
    # stand-ins play at a human's pace (UNATTENDED_DELAY_S) once nobody is here
    with TestClient(_app(tmp_path, idle_pause_s=2.5 * UNATTENDED_DELAY_S)) as client:
        g = create(client, HUMAN_BOT, grace_s=0, bot_delay_s=0.01, hand_pause_s=0.01)
        tid = g["table_id"]
        with client.websocket_connect(f"/ws/{tid}") as ws:
            hello(ws, g["token"])
            ws.receive_json()
        deadline = time.monotonic() + 5 * UNATTENDED_DELAY_S
        while time.monotonic() < deadline and not client.get(f"/api/tables/{tid}").json()["paused"]:
            time.sleep(0.05)
        paused = client.get(f"/api/tables/{tid}").json()
        assert paused["paused"] and paused["version"] > 2  # stand-ins played, then it stopped
        time.sleep(0.3)
        assert version(client, tid) == paused["version"]
        # the player comes back: the table plays on
        with client.websocket_connect(f"/ws/{tid}") as ws:
            hello(ws, g["token"])
            for _ in range(200):
                m = ws.receive_json()
                if m["type"] == "state" and not m["view"]["paused"]:
                    break
            assert not m["view"]["paused"]


def test_a_restart_does_not_resume_an_empty_table(tmp_path: Path) -> None:
    with TestClient(_app(tmp_path)) as client:
        g = create(client, HUMAN_BOT, grace_s=0, bot_delay_s=0.01, hand_pause_s=0.01)
        tid = g["table_id"]
        with client.websocket_connect(f"/ws/{tid}") as ws:
            hello(ws, g["token"])
            ws.receive_json()
        time.sleep(0.2)  # stand-ins play for the player who left
    with TestClient(_app(tmp_path)) as client:
        before = version(client, tid)
        time.sleep(0.4)
        v = client.get(f"/api/tables/{tid}").json()
        assert v["version"] == before and v["paused"]


def _play_hands(game: TableGame, hands: int, rng: random.Random) -> None:
    while len(game.session.hands) < hands:
        if game.needs_deal():
            game.apply(game.make_deal(rng))
        st = game.state
        assert st is not None and st.to_act is not None
        move = rng.choice(st.legal_moves())
        game.apply(game.prepare_move(st.to_act, str(move)).event)


def test_views_carry_the_latest_hands_only() -> None:
    cfg = TableConfig.model_validate(
        {"seats": [{"kind": "bot"}, {"kind": "bot"}], "rules": {"loss_limit": 50}}
    )
    game = TableGame("t", cfg, 1, [SeatInfo("bot", "random"), SeatInfo("bot", "random")])
    _play_hands(game, HANDS_LIMIT + 5, random.Random(4))
    sess = table_view(game, None, [False, False], [False, False]).session
    assert len(sess.hands) == HANDS_LIMIT
    assert sess.hands_played == len(game.session.hands) == sess.hands_start + HANDS_LIMIT
    assert sum(sess.losses) <= sess.hands_played


def test_table_creation_and_joins_are_rate_limited(tmp_path: Path) -> None:
    limits = Limits(create_burst=3, create_rate=0.01, join_burst=2, join_rate=0.01)
    with TestClient(_app(tmp_path, limits=limits)) as client:
        two = [{"kind": "human"}] * 4
        codes = [
            client.post("/api/tables", json={"name": "Ann", "config": {"seats": two}}).status_code
            for _ in range(5)
        ]
        assert codes == [200, 200, 200, 429, 429]
        tid = client.get("/api/tables").json()[0]["table_id"]
        joins = [
            client.post(f"/api/tables/{tid}/join", json={"name": "Bob"}).status_code
            for _ in range(3)
        ]
        assert joins == [200, 200, 429]


def test_socket_messages_are_rate_limited(tmp_path: Path) -> None:
    limits = Limits(message_burst=5, message_rate=0.01)
    with TestClient(_app(tmp_path, limits=limits)) as client:
        g = create(client, HUMAN_BOT, **FAST)
        with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
            hello(ws, g["token"])
            codes = []
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(100):
                    ws.send_text(json.dumps({"type": "ping"}))
                for _ in range(200):
                    m = ws.receive_json()
                    if m["type"] in ("pong", "error"):
                        codes.append(m.get("code", "pong"))
            assert closed.value.code == 1008
        assert codes[:5] == ["pong"] * 5 and set(codes[5:]) == {"rate_limited"}


def test_rate_limiter_refills() -> None:
    lim = RateLimiter(burst=2, rate=1.0)
    assert [lim.allow("a", now=0.0) for _ in range(3)] == [True, True, False]
    assert lim.allow("b", now=0.0)  # per client
    assert lim.allow("a", now=1.01) and not lim.allow("a", now=1.02)


def test_lobby_is_paged(client: TestClient) -> None:
    for i in range(60):
        create(client, [{"kind": "human"}] * 2, title=f"t{i}")
    page = client.get("/api/tables").json()
    assert len(page) == 50 and page[0]["title"] == "t59"
    rest = client.get("/api/tables", params={"offset": 50, "limit": 20}).json()
    assert [e["title"] for e in rest] == [f"t{i}" for i in range(9, -1, -1)]
    assert client.get("/api/tables", params={"limit": 1000}).status_code == 422


# ------------------------------------------------------------------ 4. nested brackets


def test_nested_brackets_close_the_socket_cleanly(client: TestClient) -> None:
    g = create(client, HUMAN_BOT, **FAST)
    for text in ("[" * 1000 + "]" * 1000, '{"type": "move", "move": ' + "[" * 900 + "]" * 900):
        with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
            hello(ws, g["token"])
            ws.send_text(text)
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(50):
                    m = ws.receive_json()
                    if m["type"] == "error":
                        assert m["code"] == "too_deep"
            assert closed.value.code == 1008
    # before the hello too
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        ws.send_text("{" * 1000)
        assert ws.receive_json()["code"] == "too_deep"
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()
    assert version(client, g["table_id"]) <= 2


# ------------------------------------------------------ 5./6. bad numbers, types, sizes


@pytest.mark.parametrize(
    "body",
    [
        '{"name": "Ann", "config": {"seats": [{"kind": "human"}, {"kind": "bot"}], '
        '"grace_s": NaN}}',
        '{"name": "Ann", "config": {"seats": [{"kind": "human"}, {"kind": "bot"}], '
        '"grace_s": Infinity}}',
        '{"name": "Ann", "config": {"seats": [{"kind": "human"}, {"kind": "bot"}], '
        '"turn_timer_s": -Infinity}}',
        '{"name": "Ann", "config": {"seats": [{"kind": "human"}, {"kind": "bot"}], '
        '"rules": {"loss_limit": NaN}}}',
        '{"name": "\\ud800", "config": {"seats": [{"kind": "human"}, {"kind": "bot"}]}}',
        '{"name": "A\\udfffnn", "config": {"seats": [{"kind": "human"}, {"kind": "bot"}]}}',
        '{"name": "Ann", "config": {"seats": [{"kind": "human"}, {"kind": "bot"}], '
        '"listed": "yes"}}',
        '{"name": "Ann", "config": {"seats": [{"kind": "human"}, {"kind": "bot"}], '
        '"grace_s": "5"}}',
        '{"name": 5, "config": {"seats": [{"kind": "human"}, {"kind": "bot"}]}}',
    ],
)
def test_bad_numbers_and_text_answer_422(client: TestClient, body: str) -> None:
    r = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert "NaN" not in r.text and "Infinity" not in r.text
    assert client.get("/api/tables").json() == []


def test_join_is_strict(client: TestClient) -> None:
    g = create(client, [{"kind": "human"}] * 3, **FAST)
    tid = g["table_id"]
    for seat in ("1", 1.0, True):
        r = client.post(f"/api/tables/{tid}/join", json={"name": "Bob", "seat": seat})
        assert r.status_code == 422, seat
    assert (
        client.post(f"/api/tables/{tid}/join", json={"name": "Bob", "seat": 1}).status_code == 200
    )


def test_socket_messages_are_strict(client: TestClient) -> None:
    g = create(client, HUMAN_BOT, **FAST)
    tid = g["table_id"]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        hello(ws, g["token"])
        view = None
        for _ in range(100):
            m = ws.receive_json()
            if m["type"] == "state" and m["view"]["hand"] and m["view"]["hand"]["to_act"] == 0:
                view = m["view"]
                break
        assert view is not None
        legal, v = view["hand"]["legal"][0], view["version"]
        for bad in (str(v), float(v), True, "NaN"):
            ws.send_text(json.dumps({"type": "move", "move": legal, "version": bad}))
            err = ws.receive_json()
            assert err["type"] == "error" and err["code"] == "malformed", (bad, err)
        ws.send_text('{"type": "move", "move": "pickup", "version": NaN}')
        assert ws.receive_json()["code"] == "malformed"
        assert version(client, tid) == v


def test_request_bodies_are_limited(client: TestClient) -> None:
    huge = json.dumps({"name": "Ann", "config": {"seats": HUMAN_BOT, "title": "x" * 10_000_000}})
    r = client.post("/api/tables", content=huge, headers={"content-type": "application/json"})
    assert r.status_code == 413 and len(r.content) < 500

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while reading
        for _ in range(100):
            yield b"x" * 100_000

    r = client.post("/api/tables", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and len(r.content) < 500
    long_title = {"name": "Ann", "config": {"seats": HUMAN_BOT, "title": "x" * 5000}}
    r = client.post("/api/tables", json=long_title)
    assert r.status_code == 422 and len(r.content) < 2000  # the 422 does not echo the input


# --------------------------------------------------------------- 7. names, CSP, frames


@pytest.mark.parametrize(
    "name",
    [
        "\u202eevil",  # right-to-left override
        "ab\u2066c",  # left-to-right isolate
        "a\u200bb",  # zero-width space
        "10H KS",
        "qs",
        "A loses",
        "B wins",
        "draw",
        "medium bot",
        "durak",
        "C",
        "   ",
        "...",
        "\ue000x",  # private use
        "x" * 25,
    ],
)
def test_spoofing_names_are_refused(client: TestClient, name: str) -> None:
    r = client.post("/api/tables", json={"name": name, "config": {"seats": HUMAN_BOT}})
    assert r.status_code == 422, name
    with pytest.raises(ValueError):
        check_name(name)


@pytest.mark.parametrize("name", ["Ann", "Борис", "José 2", "Ли Вэй", "Ann-Marie", "Kate  B."])
def test_ordinary_names_are_accepted(client: TestClient, name: str) -> None:
    r = client.post("/api/tables", json={"name": name, "config": {"seats": HUMAN_BOT}})
    assert r.status_code == 200, r.text
    tid = r.json()["table_id"]
    seats = client.get(f"/api/tables/{tid}").json()["seats"]
    assert seats[0]["name"] == " ".join(name.split())


def test_pages_send_csp_and_frame_protection(client: TestClient) -> None:
    for path in ("/", "/rules", "/static/app.js", "/api/tables", "/cards/10H.svg"):
        r = client.get(path)
        csp = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "'unsafe-inline'" not in csp
        assert "script-src 'self'" in csp and "style-src 'self'" in csp
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert "connect-src 'self';" in csp  # no public origin configured
    # the Host header is never quoted in the policy (issue 20, item 13)
    for host in ("evil; script-src *", "evil.example"):
        r = client.get("/", headers={"host": host})
        assert "evil" not in r.headers["content-security-policy"]


def test_front_end_has_no_inline_scripts_or_styles() -> None:
    """The CSP forbids inline code, so the pages must not need any."""
    import re

    from svoi_kozyri.server.web.app import STATIC_DIR

    for page in STATIC_DIR.glob("*.html"):
        html = page.read_text()
        for tag in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in tag, (page.name, tag)
        assert "<style" not in html and " style=" not in html, page.name
        assert not re.search(r"\son[a-z]+=", html), page.name
    for js in STATIC_DIR.glob("*.js"):
        text = js.read_text()
        assert "innerHTML" not in text and "eval(" not in text, js.name
        assert 'setAttribute("style"' not in text, js.name
