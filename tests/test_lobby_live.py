"""The live lobby: filters, paging, spectator counts and who is online."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accounts_support import create_table, join_table, make_client, register

pytestmark = pytest.mark.timeout(120)

H = {"kind": "human"}
BOT = {"kind": "bot", "bot": "random"}


def test_lobby_filters_and_pages(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        two = create_table(c, [H, H], title="two")
        three = create_table(c, [H, BOT, BOT], title="three", rules={"pickup_rule": "fixed"})
        four = create_table(c, [H, H, BOT, BOT], title="four", rated=True)
        hidden = create_table(c, [H, H], title="hidden", listed=False)
        full = create_table(c, [H, BOT], title="full")

        page = c.get("/api/lobby").json()
        ids = [t["table_id"] for t in page["tables"]]
        assert hidden["table_id"] not in ids and page["total"] == 4
        # open seats first, then the newest
        assert ids == [four["table_id"], two["table_id"], full["table_id"], three["table_id"]]

        def only(**params: object) -> list[str]:
            r = c.get("/api/lobby", params=params)
            assert r.status_code == 200, r.text
            return [t["table_id"] for t in r.json()["tables"]]

        assert only(players=2) == [two["table_id"], full["table_id"]]
        assert only(rated="true") == [four["table_id"]]
        assert set(only(rated="false")) == {two["table_id"], three["table_id"], full["table_id"]}
        assert only(pickup_rule="fixed") == [three["table_id"]]
        assert only(status="playing") == [full["table_id"], three["table_id"]]
        assert full["table_id"] not in only(status="open")
        assert only(players=3, pickup_rule="graded") == []

        first = c.get("/api/lobby", params={"limit": 2}).json()
        second = c.get("/api/lobby", params={"limit": 2, "offset": 2}).json()
        assert first["total"] == second["total"] == 4
        assert [t["table_id"] for t in first["tables"] + second["tables"]] == ids
        for bad in ({"limit": 0}, {"limit": 51}, {"players": 5}, {"status": "x"}, {"offset": -1}):
            assert c.get("/api/lobby", params=bad).status_code == 422

        entry = next(t for t in page["tables"] if t["table_id"] == three["table_id"])
        assert entry["rules"]["pickup_rule"] == "fixed" and entry["players"] == 3
        assert entry["free_seats"] == 0 and entry["seats"][1]["bot"] == "random"
        assert "token" not in json.dumps(page)


def test_lobby_counts_spectators_and_shows_who_is_online(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        g = create_table(c, [H, H, BOT], title="live")
        guest = c.__class__(c.app)
        with guest:
            j = join_table(guest, g["table_id"], name="Gus").json()
            with (
                guest.websocket_connect(f"/ws/{g['table_id']}") as player,
                guest.websocket_connect(f"/ws/{g['table_id']}") as watcher,
                guest.websocket_connect(f"/ws/{g['table_id']}") as watcher2,
            ):
                player.send_text(json.dumps({"type": "hello", "token": j["token"]}))
                assert player.receive_json()["type"] == "welcome"
                for w in (watcher, watcher2):
                    w.send_text(json.dumps({"type": "hello", "token": None}))
                    assert w.receive_json()["type"] == "welcome"
                page = guest.get("/api/lobby").json()
                entry = next(t for t in page["tables"] if t["table_id"] == g["table_id"])
                assert entry["spectators"] == 2
                assert [s["connected"] for s in entry["seats"]] == [False, True, True]
                assert page["online"]["spectators"] == 2 and page["online"]["guests"] == 1
                assert page["online"]["accounts"] == ["Alice"]  # seen recently
                assert page["online"]["tables"] == 1
