"""HTTP and WebSocket tests of the web server (in-process, FastAPI TestClient)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import APIRouter, Request
from fastapi.testclient import TestClient

from svoi_kozyri import Phase
from svoi_kozyri.server.edge.guard import Limits
from svoi_kozyri.server.web.app import create_app

pytestmark = pytest.mark.timeout(120)

FAST = {"bot_delay_s": 0, "hand_pause_s": 0}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    # no rate limits: the scripted players move faster than people (the limits have
    # their own tests in test_server_defects.py)
    app = create_app(f"sqlite:///{tmp_path / 'web.db'}", seed=7, limits=Limits.off())
    with TestClient(app) as c:
        yield c


def create(
    client: TestClient, seats: list[dict[str, Any]], name: str = "Ann", **cfg: Any
) -> dict[str, Any]:
    r = client.post("/api/tables", json={"name": name, "config": {"seats": seats, **cfg}})
    assert r.status_code == 200, r.text
    grant: dict[str, Any] = r.json()
    return grant


def hello(ws: Any, token: str | None) -> dict[str, Any]:
    ws.send_text(json.dumps({"type": "hello", "token": token}))
    msg: dict[str, Any] = ws.receive_json()
    assert msg["type"] == "welcome", msg
    return msg


def recv_state(ws: Any, until: Callable[[dict[str, Any]], bool] = lambda v: True) -> dict[str, Any]:
    for _ in range(5000):
        m = ws.receive_json()
        if m["type"] == "state" and until(m["view"]):
            view: dict[str, Any] = m["view"]
            return view
    raise AssertionError("no matching state")


def recv_type(ws: Any, kind: str) -> dict[str, Any]:
    for _ in range(5000):
        m: dict[str, Any] = ws.receive_json()
        if m["type"] == kind:
            return m
    raise AssertionError(f"no {kind} message")


def my_turn(seat: int) -> Callable[[dict[str, Any]], bool]:
    return lambda v: bool(v["hand"]) and v["hand"]["to_act"] == seat and not v["hand"]["result"]


def test_static_pages_and_cards(client: TestClient) -> None:
    assert "app.js" in client.get("/").text
    assert "How to play" in client.get("/rules").text
    for name in ("app.js", "table.js", "api.js", "html.js", "style.css", "i18n/ru.json"):
        assert client.get(f"/static/{name}").status_code == 200
    r = client.get("/cards/10H.svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    assert "10" in r.text and "♥" in r.text
    assert client.get("/cards/back.svg").status_code == 200
    assert client.get("/cards/1X.svg").status_code == 404


def test_create_join_and_lobby(client: TestClient) -> None:
    bots = client.get("/api/bots").json()
    assert bots["default"] in bots["bots"]
    g = create(client, [{"kind": "human"}, {"kind": "human"}, {"kind": "bot"}], title="friends")
    assert g["seat"] == 0 and g["invite_url"].endswith(f"/#/t/{g['table_id']}")
    lobby = client.get("/api/tables").json()
    entry = next(e for e in lobby if e["table_id"] == g["table_id"])
    assert entry["free_seats"] == 1 and entry["status"] == "waiting" and entry["title"] == "friends"
    j = client.post(f"/api/tables/{g['table_id']}/join", json={"name": "Bob"})
    assert j.status_code == 200 and j.json()["seat"] == 1 and j.json()["token"] != g["token"]
    full = client.post(f"/api/tables/{g['table_id']}/join", json={"name": "Cy"})
    assert full.status_code == 409 and full.json()["code"] == "table_full"
    view = client.get(f"/api/tables/{g['table_id']}").json()
    assert view["viewer"] is None and view["status"] in ("playing", "between_hands")
    assert [s["name"] for s in view["seats"]][:2] == ["Ann", "Bob"]
    mine = client.get(f"/api/tables/{g['table_id']}", headers={"X-Seat-Token": j.json()["token"]})
    assert mine.json()["viewer"] == 1
    bad = client.get(f"/api/tables/{g['table_id']}", headers={"X-Seat-Token": "nope"})
    assert bad.status_code == 403


@pytest.mark.parametrize(
    ("config", "code"),
    [
        ({"seats": [{"kind": "human"}]}, 422),
        ({"seats": [{"kind": "human"}] * 5}, 422),
        ({"seats": [{"kind": "bot"}, {"kind": "bot"}]}, 400),
        ({"seats": [{"kind": "human"}, {"kind": "bot", "bot": "nosuchbot"}]}, 400),
        ({"seats": [{"kind": "human"}, {"kind": "human"}], "rules": {"pickup_rule": "x"}}, 400),
        ({"seats": [{"kind": "human"}, {"kind": "human"}], "rules": {"nope": 1}}, 400),
        ({"seats": [{"kind": "human"}] * 3, "rules": {"variant": "besicovitch"}}, 400),
        ({"seats": [{"kind": "human"}, {"kind": "human"}], "grace_s": -1}, 422),
        ({"seats": [{"kind": "human"}, {"kind": "human"}], "extra": 1}, 422),
    ],
)
def test_bad_table_configs(client: TestClient, config: dict[str, Any], code: int) -> None:
    before = client.get("/api/tables").json()
    r = client.post("/api/tables", json={"name": "Ann", "config": config})
    assert r.status_code == code, r.text
    assert client.get("/api/tables").json() == before


def test_bad_names_and_unknown_table(client: TestClient) -> None:
    seats = [{"kind": "human"}, {"kind": "bot"}]
    for name in ("", "x" * 25, "<script>", "a\nb"):
        r = client.post("/api/tables", json={"name": name, "config": {"seats": seats}})
        assert r.status_code == 422
    assert client.post("/api/tables/nosuch/join", json={"name": "Bob"}).status_code == 404
    assert client.get("/api/tables/nosuch").status_code == 404


def test_websocket_rejects_bad_messages_and_changes_nothing(client: TestClient) -> None:
    g = create(client, [{"kind": "human"}, {"kind": "human"}], **FAST)
    j = client.post(f"/api/tables/{g['table_id']}/join", json={"name": "Bob"}).json()
    tid = g["table_id"]
    with (
        client.websocket_connect(f"/ws/{tid}") as a,
        client.websocket_connect(f"/ws/{tid}") as b,
        client.websocket_connect(f"/ws/{tid}") as spec,
    ):
        # before hello
        a.send_text(json.dumps({"type": "move", "move": "pickup"}))
        assert a.receive_json()["code"] == "hello_first"
        hello(a, g["token"])
        hello(b, j["token"])
        hello(spec, None)
        view = recv_state(spec, lambda v: v["status"] == "playing")
        version = view["version"]
        actor = view["hand"]["to_act"]
        ws_actor, ws_other = (a, b) if actor == 0 else (b, a)
        actor_view = recv_state(ws_actor, lambda v: v["version"] == version)
        legal = actor_view["hand"]["legal"]
        assert legal and all(isinstance(m, str) for m in legal)
        hand = actor_view["hand"]["hand"]
        not_mine = next(f"{r}{s}" for s in "SHDC" for r in ("7", "8", "9") if f"{r}{s}" not in hand)
        bad: list[tuple[Any, str, str]] = [
            (ws_actor, "not json", "malformed"),
            (ws_actor, json.dumps({"type": "dance"}), "malformed"),
            (ws_actor, json.dumps({"type": "move"}), "malformed"),
            (ws_actor, json.dumps({"type": "move", "move": 5}), "malformed"),
            (ws_actor, json.dumps({"type": "move", "move": "x" * 5000}), "too_large"),
            (ws_actor, json.dumps({"type": "move", "move": "fly away"}), "malformed"),
            (ws_actor, json.dumps({"type": "move", "move": "pickup", "extra": 1}), "malformed"),
            (ws_actor, json.dumps({"type": "move", "move": f"lead {not_mine}"}), "illegal"),
            (ws_actor, json.dumps({"type": "move", "move": "pickup"}), "illegal"),
            (ws_actor, json.dumps({"type": "move", "move": legal[0], "version": 0}), "stale"),
            (ws_other, json.dumps({"type": "move", "move": "pickup"}), "not_your_turn"),
            (ws_other, json.dumps({"type": "hint"}), "not_your_turn"),
            (spec, json.dumps({"type": "move", "move": legal[0]}), "spectator"),
            (ws_actor, json.dumps({"type": "hello", "token": None}), "already_greeted"),
        ]
        for ws, text, code in bad:
            ws.send_text(text)
            err = recv_type(ws, "error")
            assert err["code"] == code, (text[:60], err)
        ws_actor.send_text(json.dumps({"type": "ping"}))
        assert recv_type(ws_actor, "pong")
        unchanged = client.get(f"/api/tables/{tid}").json()
        assert unchanged["version"] == version
        # a correct move is accepted and everybody sees the new version
        ws_actor.send_text(json.dumps({"type": "move", "move": legal[0], "version": version}))
        after = recv_state(spec, lambda v: v["version"] > version)
        assert after["hand"]["log"][-1]["move"] == legal[0]


def test_bad_token_is_refused(client: TestClient) -> None:
    g = create(client, [{"kind": "human"}, {"kind": "bot"}], **FAST)
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": "forged"}))
        assert ws.receive_json()["code"] == "bad_token"
    with client.websocket_connect("/ws/nosuchtable") as ws:
        assert ws.receive_json()["code"] == "no_table"


def test_play_a_session_against_bots_then_replay(client: TestClient) -> None:
    g = create(
        client,
        [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot"}],
        rules={"loss_limit": 1, "pickup_rule": "fixed", "fixed_pickup_count": 2},
        **FAST,
    )
    tid = g["table_id"]
    moves = 0
    with client.websocket_connect(f"/ws/{tid}") as ws:
        hello(ws, g["token"])
        while True:
            v = recv_state(ws, lambda v: v["session"]["over"] or my_turn(0)(v))
            if v["session"]["over"]:
                break
            assert v["hand"]["hand"] and len(v["hand"]["hand"]) == v["seats"][0]["hand_size"]
            ws.send_text(json.dumps({"type": "move", "move": v["hand"]["legal"][-1]}))
            moves += 1
    assert v["status"] == "finished" and v["session"]["durak"] is not None
    assert v["rules"]["pickup_rule"] == "fixed" and v["rules"]["fixed_pickup_count"] == 2
    steps = client.get(f"/api/tables/{tid}/replay", headers={"X-Seat-Token": g["token"]}).json()
    assert len(steps["steps"]) == v["version"]
    assert steps["steps"][-1]["hand"]["log"] == v["hand"]["log"]
    spect = client.get(f"/api/tables/{tid}/replay").json()["steps"]
    assert all(s["hand"] is None or s["hand"]["hand"] == [] for s in spect)
    # finished tables leave the lobby but stay reachable
    assert tid not in [e["table_id"] for e in client.get("/api/tables").json()]
    assert client.get(f"/api/tables/{tid}").json()["status"] == "finished"


def test_hint_comes_from_a_bot(client: TestClient) -> None:
    g = create(client, [{"kind": "human"}, {"kind": "bot"}], **FAST)
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        hello(ws, g["token"])
        v = recv_state(ws, my_turn(0))
        ws.send_text(json.dumps({"type": "hint"}))
        hint = recv_type(ws, "hint")
        assert hint["move"] in v["hand"]["legal"]
        # the rating is data the client words in its language, never English text
        r = hint["rating"]
        assert r["kind"] in ("proven", "estimated", "unrated")
        assert 0 <= r["low"] <= r["score"] <= r["high"] <= 1
        assert (r["value"] is not None) == (r["kind"] == "proven")


def test_a_hint_is_worked_out_once_per_position(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asking again and again for a hint of one position costs one computation
    (each is ~0.3 s of a thread holding the interpreter lock: twenty asks a second
    used to be twenty computations a second)."""
    from svoi_kozyri.server.table import master

    calls: list[int] = []
    rate = master._hint_rating

    def counted(obs: Any, move: Any) -> Any:
        calls.append(1)
        return rate(obs, move)

    monkeypatch.setattr(master, "_hint_rating", counted)
    g = create(client, [{"kind": "human"}, {"kind": "bot"}], **FAST)
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        hello(ws, g["token"])
        recv_state(ws, my_turn(0))
        for _ in range(6):
            ws.send_text(json.dumps({"type": "hint"}))
        hints = [recv_type(ws, "hint") for _ in range(6)]
    assert len({h["move"] for h in hints}) == 1
    assert len(calls) == 1


def test_reconnect_keeps_the_seat(client: TestClient) -> None:
    g = create(client, [{"kind": "human"}, {"kind": "bot"}], **FAST)
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        hello(ws, g["token"])
        first = recv_state(ws, my_turn(0))
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        assert hello(ws, g["token"])["seat"] == 0
        again = recv_state(ws, my_turn(0))
        assert again["hand"]["hand"] == first["hand"]["hand"]
        assert again["version"] == first["version"]
        assert again["seats"][0]["connected"]


def test_standin_bot_plays_for_an_absent_player(client: TestClient) -> None:
    g = create(client, [{"kind": "human"}, {"kind": "bot"}], grace_s=0.2, **FAST)
    tid = g["table_id"]
    with client.websocket_connect(f"/ws/{tid}") as ws:  # the player comes, then goes
        hello(ws, g["token"])
        recv_state(ws)
    with client.websocket_connect(f"/ws/{tid}") as spec:
        hello(spec, None)
        v = recv_state(
            spec, lambda v: any(e["by"] == "standin" for e in (v["hand"] or {}).get("log", []))
        )
        assert v["seats"][0]["standin"] or v["hand"]["to_act"] != 0


def test_turn_timer_moves_for_a_connected_player(client: TestClient) -> None:
    g = create(client, [{"kind": "human"}, {"kind": "bot"}], turn_timer_s=1, **FAST)
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        hello(ws, g["token"])
        v = recv_state(ws, my_turn(0))
        assert v["hand"]["deadline_s"] is not None and v["hand"]["deadline_s"] <= 1
        v = recv_state(ws, lambda v: any(e["by"] == "timer" for e in v["hand"]["log"]))
        assert v["seats"][0]["connected"] and not v["seats"][0]["standin"]


def test_spectator_and_opponent_views_hold_no_private_cards(client: TestClient) -> None:
    g = create(client, [{"kind": "human"}, {"kind": "human"}], **FAST)
    j = client.post(f"/api/tables/{g['table_id']}/join", json={"name": "Bob"}).json()
    spec = client.get(f"/api/tables/{g['table_id']}").json()
    a = client.get(f"/api/tables/{g['table_id']}", headers={"X-Seat-Token": g["token"]}).json()
    b = client.get(f"/api/tables/{g['table_id']}", headers={"X-Seat-Token": j["token"]}).json()
    assert spec["hand"]["hand"] == [] and spec["hand"]["legal"] == []
    hand_a, hand_b = set(a["hand"]["hand"]), set(b["hand"]["hand"])
    assert hand_a and hand_b and not hand_a & hand_b
    public_b = set(a["seats"][1]["known"])
    text_a = json.dumps(a)
    for c in hand_b - public_b:
        assert f'"{c}"' not in text_a


def test_protocol_doc_names_every_schema() -> None:
    from pydantic import BaseModel

    from svoi_kozyri.server.wire import schemas

    doc = (Path(__file__).parent.parent / "docs" / "protocol.md").read_text()
    models = [
        name
        for name, obj in vars(schemas).items()
        if isinstance(obj, type) and issubclass(obj, BaseModel) and not name.startswith("_")
    ]
    assert len(models) > 15
    missing = [m for m in models if m != "BaseModel" and m not in doc]
    assert not missing, f"docs/protocol.md does not describe {missing}"


def test_record_download_keeps_the_viewers_knowledge(client: TestClient) -> None:
    records = pytest.importorskip("svoi_kozyri.records")
    g = create(
        client,
        [{"kind": "human"}, {"kind": "bot"}, {"kind": "bot"}],
        rules={"loss_limit": 1},
        **FAST,
    )
    tid = g["table_id"]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        hello(ws, g["token"])
        while True:
            v = recv_state(ws, lambda v: v["session"]["over"] or my_turn(0)(v))
            if v["session"]["over"]:
                break
            ws.send_text(json.dumps({"type": "move", "move": v["hand"]["legal"][0]}))
    mine = client.get(f"/api/tables/{tid}/record", headers={"X-Seat-Token": g["token"]})
    assert mine.status_code == 200 and "attachment" in mine.headers["content-disposition"]
    link = client.post(f"/api/tables/{tid}/record-link", headers={"X-Seat-Token": g["token"]})
    assert link.status_code == 200 and g["token"] not in link.text
    by_link = client.get(link.json()["url"])
    assert by_link.status_code == 200 and by_link.text == mine.text
    public = client.get(f"/api/tables/{tid}/record").text
    for text, who in ((mine.text, "A"), (public, "spectator")):
        assert f'[Viewer "{who}"]' in text and "[Deck" not in text
        recs = records.parse_records(text, check=False)
        assert len(recs) == len(v["session"]["hands"])
        assert [str(m) for _, m in recs[-1].moves][-len(v["hand"]["log"]) :] == [
            e["move"] for e in v["hand"]["log"]
        ]
    assert client.get(f"/api/tables/{tid}/record", headers={"X-Seat-Token": "x"}).status_code == 403


def test_serve_command_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from svoi_kozyri.cli.main import app
    from svoi_kozyri.cli.serve_cmds import default_database_url

    out = CliRunner().invoke(app, ["serve", "--help"])
    assert out.exit_code == 0
    for opt in ("--host", "--port", "--database"):
        assert opt in out.output
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    url = default_database_url()
    assert url.startswith("sqlite:///") and url.endswith("web.sqlite3")
    assert Path(url.removeprefix("sqlite:///")).parent.is_dir()


def test_search_bot_thinks_in_a_worker_process(client: TestClient) -> None:
    bots = client.get("/api/bots").json()["bots"]
    assert "hard" in bots  # the search bots ship with the package
    runner = client.app.state.hub.runner  # type: ignore[attr-defined]
    assert runner.worker_pids() == []  # no search bot has moved yet
    g = create(client, [{"kind": "human"}, {"kind": "bot", "bot": "hard"}], **FAST)
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        hello(ws, g["token"])
        for _ in range(2):
            v = recv_state(ws, my_turn(0))
            ws.send_text(json.dumps({"type": "move", "move": v["hand"]["legal"][0]}))
        v = recv_state(ws, lambda v: any(e["by"] == "bot" for e in v["hand"]["log"]))
        assert any(e["seat"] == 1 for e in v["hand"]["log"])
    # the move came from a worker process, not from the event loop's own process
    pids = runner.worker_pids()
    assert pids and os.getpid() not in pids


def test_pile_visibility_table_shows_the_top_and_the_pickup_window() -> None:
    import random

    from svoi_kozyri.server.table.game import SeatInfo, TableError, TableGame
    from svoi_kozyri.server.table.views import table_view
    from svoi_kozyri.server.wire.schemas import TableConfig

    cfg = TableConfig.model_validate(
        {"seats": [{"kind": "human"}] * 3, "rules": {"pile_visibility": "table"}}
    )
    g = TableGame("t", cfg, 1, [SeatInfo("human", None, f"p{i}", "h") for i in range(3)])
    g.apply(g.make_deal(random.Random(1)))
    rng = random.Random(2)
    while g.state is not None and len(g.state.pile_cards()) < 6:
        st = g.state
        moves = [m for m in st.legal_moves() if not m.is_pickup] or st.legal_moves()
        p = g.prepare_move(st.to_act, str(rng.choice(moves)))
        g.apply(p.event, p)
    st = g.state
    assert st is not None and Phase(st.phase).label == "respond"
    actor = st.to_act
    assert actor is not None
    for viewer in (None, 0, 1, 2):
        hv = table_view(g, viewer, [True] * 3, [False] * 3).hand
        assert hv is not None and hv.pile_size == len(st.pile_cards())
        k = hv.pickup_count + 1 if viewer == actor else 1
        assert len(hv.pile) == k and not hv.pile_full
        assert hv.top == hv.pile[-1]
    bad = TableConfig.model_validate(
        {"seats": [{"kind": "human"}] * 2, "rules": {"max_actions_per_hand": None}}
    )
    with pytest.raises(TableError, match="max_actions_per_hand"):
        TableGame("u", bad, 1, [SeatInfo("human")] * 2)


def test_other_modules_add_routes_through_routers(tmp_path: Path) -> None:
    router = APIRouter()

    @router.get("/api/extra")
    async def extra(request: Request) -> dict[str, Any]:
        return {"tables": len(request.app.state.hub.tables)}

    app = create_app(f"sqlite:///{tmp_path / 'r.db'}", routers=[router])
    with TestClient(app) as c:
        r = c.get("/api/extra")
        assert r.status_code == 200 and r.json() == {"tables": 0}
        assert "frame-ancestors" in r.headers["content-security-policy"]
