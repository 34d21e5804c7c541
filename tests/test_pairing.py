"""Quick pairing (issue 22 item 1): seeks, the pairing step, bots after the wait,
cancel and expiry, bad input and rate limits, nothing hidden in the answers."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from accounts_support import csrf, make_client, register
from svoi_kozyri.server.platform.pairing import (
    RANGE_ANY_S,
    RANGE_START,
    SEEK_TTL_S,
    _Seek,
    compatible,
    find_group,
    rating_range,
)
from svoi_kozyri.server.storage.schema import seeks_t
from svoi_kozyri.server.wire.auth import hash_token


def _seek(client: TestClient, **body: Any) -> Any:
    body = {"name": "Ann", "players": 2, **body}
    return client.post("/api/seeks", json=body, headers=csrf(client))


def _poll(client: TestClient, seek: dict[str, Any], token: str) -> dict[str, Any]:
    r = client.get(f"/api/seeks/{seek['id']}", headers={"X-Seek-Token": token})
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def _until_seated(
    client: TestClient, made: list[tuple[dict[str, Any], str]], timeout: float = 5.0
) -> list[dict[str, Any]]:
    end = time.monotonic() + timeout
    while True:
        views = [_poll(client, s, tok) for s, tok in made]
        if all(v["state"] == "seated" for v in views) or time.monotonic() > end:
            return views
        time.sleep(0.05)


def _age(client: TestClient, seek_id: str, seconds: float, *, seen: bool = False) -> None:
    """Pretend the seek was made ``seconds`` ago (and, with ``seen``, last polled then)."""
    app: Any = client.app
    values: dict[str, Any] = {"created": time.time() - seconds}
    if seen:
        values["seen"] = time.time() - seconds
    with app.state.players.store.engine.begin() as conn:
        conn.execute(update(seeks_t).where(seeks_t.c.id == seek_id).values(**values))


def _state(client: TestClient, seek_id: str) -> str:
    app: Any = client.app
    with app.state.players.store.engine.connect() as conn:
        row = conn.execute(select(seeks_t.c.state).where(seeks_t.c.id == seek_id)).first()
    assert row is not None
    return str(row.state)


def _made(r: Any) -> tuple[dict[str, Any], str]:
    assert r.status_code == 201, r.text
    body = r.json()
    return body["seek"], body["token"]


def test_the_rating_range_widens_with_the_wait() -> None:
    assert rating_range(0) == RANGE_START
    assert rating_range(1.9) == RANGE_START
    assert rating_range(2.0) == RANGE_START + 50
    assert rating_range(10.5) == RANGE_START + 250
    assert rating_range(RANGE_ANY_S) is None


def _s(sid: str, rating: float, created: float = 0.0, user: int | None = None, **kw: Any) -> _Seek:
    base: dict[str, Any] = {
        "token_hash": "h" + sid,
        "user_id": user,
        "name": sid,
        "players": 3,
        "rated": False,
        "preset": "standard",
        "rating": rating,
        "wait_s": None,
        "created": created,
    }
    base.update(kw)
    return _Seek(id=sid, **base)


class _Blocks:
    def __init__(self, pairs: set[frozenset[int]]) -> None:
        self.pairs = pairs

    def any_between(self, user_ids: Any) -> bool:
        ids = list(user_ids)
        return any(frozenset((a, b)) in self.pairs for a in ids for b in ids if a != b)


def test_groups_are_compatible_oldest_first_and_respect_blocks() -> None:
    a, b, c, d = (
        _s("a", 1500, 0, 1),
        _s("b", 1900, 0.1, 2),
        _s("c", 1600, 0.2, 3),
        _s("d", 1550, 0.3, 4),
    )
    pool = [a, b, c, d]
    # b is out of range for a at once; c and d are within 150 of a and of each other
    assert [s.id for s in find_group(a, pool, 1.0, _Blocks(set()))] == ["a", "c", "d"]
    # after 40 s anybody will do: the oldest come first
    assert [s.id for s in find_group(a, pool, 41.0, _Blocks(set()))] == ["a", "b", "c"]
    # a block between a and c skips c
    assert [s.id for s in find_group(a, pool, 1.0, _Blocks({frozenset((1, 3))}))] == ["a", "d"]
    # another game, or the same account, never shares a table
    assert not compatible(a, _s("e", 1500, preset="one_hand"), 1.0)
    assert not compatible(a, _s("f", 1500, rated=True), 1.0)
    assert not compatible(a, _s("g", 1500, players=2), 1.0)
    assert not compatible(a, _s("h", 1500, user=1), 1.0)


def test_two_guests_are_seated_at_one_table_and_their_secret_opens_it(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        ann = _made(_seek(client, name="Ann"))
        assert ann[0]["state"] == "open" and ann[0]["range"] == RANGE_START
        listed = client.get("/api/seeks").json()["seeks"]
        assert [(s["name"], s["players"], s["account"]) for s in listed] == [("Ann", 2, False)]
        bob = _made(_seek(client, name="Bob"))
        t0 = time.monotonic()
        views = _until_seated(client, [ann, bob])
        # within a second of the match existing, and the polls' own time on a busy machine
        assert time.monotonic() - t0 < 2.0
        assert {v["state"] for v in views} == {"seated"}
        table_id = views[0]["table_id"]
        assert table_id and views[1]["table_id"] == table_id
        assert {v["seat"] for v in views} == {0, 1}
        assert client.get("/api/seeks").json()["seeks"] == []
        for (seek, token), view in zip([ann, bob], views, strict=True):
            with client.websocket_connect(f"/ws/{table_id}") as ws:
                ws.send_text(json.dumps({"type": "hello", "token": token}))
                welcome = json.loads(ws.receive_text())
                assert welcome["type"] == "welcome" and welcome["seat"] == view["seat"]
                assert welcome["name"] == seek["name"]
        table = client.get(f"/api/tables/{table_id}").json()
        assert [s["kind"] for s in table["seats"]] == ["human", "human"]
        assert table["turn_timer_s"] == 60


def test_different_games_wait_and_bots_fill_after_the_chosen_wait(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        a = _made(_seek(client, name="Ann", players=3, wait_s=10))
        b = _made(_seek(client, name="Bob", players=3, preset="one_hand"))
        time.sleep(0.6)
        assert _poll(client, *a)["state"] == "open"
        assert _poll(client, *a)["bots_in_s"] > 8
        _age(client, a[0]["id"], 11)
        (view,) = _until_seated(client, [a])
        assert view["state"] == "seated"
        table = client.get(f"/api/tables/{view['table_id']}").json()
        assert [s["kind"] for s in table["seats"]] == ["human", "bot", "bot"]
        assert _poll(client, *b)["state"] == "open"  # no bots asked for: still waiting


def test_ratings_out_of_range_meet_once_the_range_has_widened(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        a = _made(_seek(client, name="Ann"))
        # a seeker rated 2200 (written as the pool holds it; the API rates guests 1500)
        app: Any = client.app
        now = time.time()
        token = "far-away-token-" + "x" * 30
        row = {**_row(a[0]["id"], app), "id": "far", "name": "Bob", "rating": 2200.0}
        row.update(token_hash=hash_token(token), created=now, seen=now)
        with app.state.players.store.engine.begin() as conn:
            conn.execute(seeks_t.insert().values(**row))
        b = ({"id": "far"}, token)
        time.sleep(0.6)
        assert _poll(client, *a)["state"] == "open"
        assert _poll(client, *b)["state"] == "open"
        _age(client, a[0]["id"], RANGE_ANY_S + 1)
        _age(client, "far", RANGE_ANY_S + 1)
        views = _until_seated(client, [a, b])
        assert {v["state"] for v in views} == {"seated"}


def _row(seek_id: str, app: Any) -> dict[str, Any]:
    with app.state.players.store.engine.connect() as conn:
        row = conn.execute(select(seeks_t).where(seeks_t.c.id == seek_id)).first()
    assert row is not None
    return dict(row._mapping)


def test_cancel_and_expiry_take_the_seek_away(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        a = _made(_seek(client, name="Ann", players=4))
        r = client.delete(
            f"/api/seeks/{a[0]['id']}", headers={"X-Seek-Token": a[1], **csrf(client)}
        )
        assert r.status_code == 200 and r.json()["state"] == "cancelled"
        assert client.get("/api/seeks").json()["seeks"] == []
        b = _made(_seek(client, name="Bob", players=4))
        assert len(client.get("/api/seeks").json()["seeks"]) == 1
        _age(client, b[0]["id"], SEEK_TTL_S + 1, seen=True)  # the tab was closed
        assert client.get("/api/seeks").json()["seeks"] == []
        # the next step expires it (a poll now would be the player back: not here)
        end = time.monotonic() + 3
        while _state(client, b[0]["id"]) != "expired" and time.monotonic() < end:
            time.sleep(0.05)
        assert _state(client, b[0]["id"]) == "expired"
        assert _poll(client, *b)["state"] == "expired"  # and stays so


def test_an_account_has_one_open_seek_and_rated_needs_an_account(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        r = _seek(client, name="Ann", rated=True)
        assert r.status_code == 403 and r.json()["code"] == "login_required"
        assert register(client, "carol").status_code == 201
        first = _made(_seek(client, name="ignored", rated=True, players=3))
        assert first[0]["name"] == "carol" and first[0]["rated"] is True
        assert first[0]["rating"] > 0
        second = _made(_seek(client, name="ignored", rated=True, players=3))
        assert _poll(client, *first)["state"] == "cancelled"
        listed = client.get("/api/seeks").json()["seeks"]
        assert [s["id"] for s in listed] == [second[0]["id"]]
        assert listed[0]["account"] is True


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"players": 5}, 422, None),
        ({"players": 3, "preset": "besicovitch"}, 422, "bad_seek"),
        ({"wait_s": 7}, 422, "bad_seek"),
        ({"preset": "anything"}, 422, None),
        ({"extra": 1}, 422, None),
        ({"name": ""}, 422, None),
        ({"players": "2"}, 422, None),
    ],
)
def test_impossible_seeks_are_refused_and_change_nothing(
    tmp_path: Path, body: dict[str, Any], status: int, code: str | None
) -> None:
    with make_client(tmp_path) as client:
        r = _seek(client, **body)
        assert r.status_code == status, r.text
        if code is not None:
            assert r.json()["code"] == code
        assert client.get("/api/seeks").json()["seeks"] == []


def test_a_seek_is_only_its_tokens_and_answers_hold_no_secret(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        seek, token = _made(_seek(client, name="Ann"))
        sid = seek["id"]
        assert client.get(f"/api/seeks/{sid}").status_code == 403
        assert (
            client.get(f"/api/seeks/{sid}", headers={"X-Seek-Token": "x" * 40}).status_code == 403
        )
        assert client.get("/api/seeks/nope", headers={"X-Seek-Token": token}).status_code == 404
        r = client.delete(f"/api/seeks/{sid}", headers={"X-Seek-Token": "bad", **csrf(client)})
        assert r.status_code == 403
        assert _poll(client, seek, token)["state"] == "open"
        text = client.get("/api/seeks").text + json.dumps(_poll(client, seek, token))
        assert token not in text and "token" not in text and "hand" not in text


def test_a_flood_of_seeks_is_rate_limited(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        codes = [_seek(client, name=f"P{i}", players=4).status_code for i in range(14)]
        assert codes[:10] == [201] * 10
        limited = _seek(client, name="Q", players=4)
        assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
        assert int(limited.headers["Retry-After"]) >= 1


def test_blocked_players_are_never_paired_nor_see_each_others_seeks(tmp_path: Path) -> None:
    from svoi_kozyri.server.platform.blocks import Blocks

    with make_client(tmp_path) as client:
        app: Any = client.app
        accounts = app.state.players.accounts
        assert register(client, "carol").status_code == 201
        carol = _made(_seek(client, name="carol", wait_s=None))
        client.post("/api/account/logout", headers=csrf(client))
        assert register(client, "dave").status_code == 201
        ids = [accounts.user_by_name(n).id for n in ("carol", "dave")]
        Blocks(app.state.players.store.engine).add(ids[0], ids[1])  # carol blocks dave
        assert client.get("/api/seeks").json()["seeks"] == []  # dave sees nothing of carol
        dave = _made(_seek(client, name="dave", wait_s=None))
        _age(client, carol[0]["id"], RANGE_ANY_S + 1)
        _age(client, dave[0]["id"], RANGE_ANY_S + 1)
        time.sleep(0.8)
        assert _poll(client, *carol)["state"] == "open"
        assert _poll(client, *dave)["state"] == "open"
        # a third player is paired with one of them at once
        client.post("/api/account/logout", headers=csrf(client))
        erin = _made(_seek(client, name="Erin", wait_s=None))
        views = _until_seated(client, [erin])
        assert views[0]["state"] == "seated"
        assert {_poll(client, *carol)["state"], _poll(client, *dave)["state"]} == {"open", "seated"}
