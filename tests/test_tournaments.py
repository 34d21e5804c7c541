"""Tournaments: the API (create, list, view, join, withdraw), refusals of bad
input (nothing changed), the scoring and pairing rules, the director's lease
and take-over, and the standings recomputed from the stored games.

The director is stepped by hand here (its background loop is slowed down), and
a table's end is written as the platform's sweeper writes it (``sk_game_results``,
``sk_table_meta``), so every step is deterministic; tests/test_tournament_play.py
plays real tournaments through the API."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, insert, select, update

from accounts_support import csrf, login, register
from svoi_kozyri.server.platform.accounts import AccountSettings
from svoi_kozyri.server.platform.tournament_director import Director
from svoi_kozyri.server.platform.tournament_options import parse_schedule
from svoi_kozyri.server.platform.tournament_standings import (
    Candidate,
    SeatResult,
    award,
    base_points,
    pair,
)
from svoi_kozyri.server.platform.tournaments import TournamentService
from svoi_kozyri.server.storage.schema import (
    results_t,
    seats_t,
    table_meta_t,
    tournament_entries_t,
    tournament_games_t,
    tournaments_t,
)
from svoi_kozyri.server.web.app import create_app

pytestmark = pytest.mark.timeout(120)


@contextmanager
def app_client(
    tmp_path: Path, name: str = "t.db"
) -> Iterator[tuple[TestClient, TournamentService]]:
    """A TestClient whose tournament director runs only when a test steps it
    (its background loop is not started)."""
    app = create_app(f"sqlite:///{tmp_path / name}", seed=3, accounts=AccountSettings.fast())
    players = app.state.players
    players.services = [s for s in players.services if s.name != "tournaments"]
    with TestClient(app) as c:
        yield c, app.state.tournaments


def arena(**over: Any) -> dict[str, Any]:
    body = {
        "name": "Friday arena",
        "kind": "arena",
        "players": 2,
        "starts": time.time() + 600,
        "minutes": 10,
    }
    body.update(over)
    return body


def post(c: TestClient, path: str, body: Any = None) -> Any:
    return c.post(path, json={} if body is None else body, headers=csrf(c))


def count(svc: TournamentService, table: Any) -> int:
    with svc.engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


# -- rules ------------------------------------------------------------------------------


def test_points_for_place_and_the_fire_streak() -> None:
    win, mid, durak = SeatResult(0, True), SeatResult(0, False), SeatResult(1, False)
    table = [win, mid, mid, durak]
    assert [base_points(s, table) for s in table] == [2, 1, 1, 0]
    drawn = [SeatResult(0, False), SeatResult(0, False)]
    assert [base_points(s, drawn) for s in drawn] == [1, 1]
    # two wins light the fire: the third win scores 4, a middle place on fire 2,
    # and a game not won puts it out
    streak, got = 0, []
    for base in (2, 2, 2, 1, 2):
        points, streak = award(base, streak, doubling=True)
        got.append(points)
    assert got == [2, 2, 4, 2, 2] and streak == 1
    assert award(2, 5, doubling=False) == (2, 6)  # Swiss: no doubling


def test_pairing_avoids_repeats_and_tables_of_bots_alone() -> None:
    people = [Candidate(f"p{i}", 0, False) for i in range(4)]
    met = {frozenset(("p0", "p1")): 1, frozenset(("p2", "p3")): 1}
    for seed in range(20):
        p = pair(people, 2, met, random.Random(seed), short_ok=False)
        assert len(p.tables) == 2 and not p.left
        for group in p.tables:
            assert frozenset(c.entry_id for c in group) not in met
    bots = [Candidate(f"b{i}", 9, True) for i in range(3)]
    p = pair([*bots, people[0]], 2, {}, random.Random(1), short_ok=True)
    assert all(any(not c.bot for c in g) for g in p.tables)
    assert len(p.tables) == 1 and len(p.left) == 2  # the bots without a person: byes
    p = pair(people[:3], 2, {}, random.Random(1), short_ok=False)
    assert len(p.tables) == 1 and len(p.left) == 1  # the arena's odd one waits


def test_schedule_specs() -> None:
    s = parse_schedule("arena:hourly:4p")
    assert (s.kind, s.every_s, s.players, s.minutes) == ("arena", 3600.0, 4, 30)
    assert s.slot(7201.0) == 10800.0
    assert parse_schedule("swiss:daily:3p:7r").rounds == 7
    assert parse_schedule("arena:30m:2p:20m").minutes == 20
    for bad in ("arena:hourly:5p", "arena:1m:2p", "swiss:daily:2p:20m", "arena:hourly:2p:90m", "x"):
        with pytest.raises(ValueError, match="tournament schedule"):
            parse_schedule(bad)


# -- the API ----------------------------------------------------------------------------


def test_create_list_join_withdraw_and_no_secret_in_views(tmp_path: Path) -> None:
    with app_client(tmp_path) as (c, _svc):
        assert post(c, "/api/tournaments", arena()).status_code == 401  # a guest
        register(c, "Alice")
        r = post(c, "/api/tournaments", arena(bots=["easy"]))
        assert r.status_code == 201, r.text
        view = r.json()
        tid = view["tournament"]["id"]
        assert (
            view["tournament"]["creator"] == "Alice" and view["tournament"]["state"] == "scheduled"
        )
        assert [s["name"] for s in view["standings"]] == ["easy"] and view["standings"][0]["bot"]
        listing = c.get("/api/tournaments").json()
        assert [t["id"] for t in listing["upcoming"]] == [tid]
        assert listing["running"] == [] and listing["finished"] == []

        joined = post(c, f"/api/tournaments/{tid}/join").json()
        secret = joined["secret"]
        assert len(secret) >= 32
        again = post(c, f"/api/tournaments/{tid}/join").json()  # another device: a new secret
        assert again["secret"] != secret and again["entry"] == joined["entry"]
        page = c.get(f"/api/tournaments/{tid}")
        text = page.text
        assert secret not in text and again["secret"] not in text and "token" not in text
        assert page.json()["me"] == {"state": "active", "table_id": None, "score": 0}

        assert post(c, f"/api/tournaments/{tid}/withdraw").status_code == 200
        assert c.get(f"/api/tournaments/{tid}").json()["me"] is None  # before the start: gone
        r = post(c, f"/api/tournaments/{tid}/withdraw")
        assert r.status_code == 409 and r.json()["code"] == "tournament_not_entered"
        assert c.get("/api/tournaments/nope!").status_code == 404
        assert c.get("/api/tournaments/abc123").json()["code"] == "no_tournament"


@pytest.mark.parametrize(
    ("over", "code"),
    [
        ({"players": 5}, "tournament_bad"),
        ({"players": 1}, "tournament_bad"),
        ({"kind": "swiss", "minutes": None, "rounds": 0}, "tournament_bad"),
        ({"kind": "swiss", "minutes": None, "rounds": 16}, "tournament_bad"),
        ({"kind": "swiss", "rounds": 3}, "tournament_bad"),  # a length and rounds
        ({"starts": time.time() - 3600}, "tournament_bad"),
        ({"starts": time.time() + 30 * 86400}, "tournament_bad"),
        ({"minutes": 0}, "tournament_bad"),
        ({"minutes": None}, "tournament_bad"),
        ({"preset": "poker"}, "tournament_bad"),
        ({"preset": "short", "players": 3}, "tournament_bad"),
        ({"name": "  "}, "tournament_bad"),
        ({"name": "a\u202eb"}, "tournament_bad"),
        ({"bots": ["nobody"]}, "tournament_bot"),
        ({"bots": ["easy", "easy"]}, "tournament_bot"),
        ({"max_entries": 1}, "tournament_bad"),
        ({"players": "2"}, "invalid"),
        ({"starts": float("nan")}, "invalid"),
        ({"secret": "x"}, "invalid"),
    ],
)
def test_impossible_options_are_refused_and_nothing_is_written(
    tmp_path: Path, over: dict[str, Any], code: str
) -> None:
    with app_client(tmp_path) as (c, svc):
        register(c, "Alice")
        body = arena(**over)
        r = c.post(
            "/api/tournaments",
            content=json.dumps(body, allow_nan=True),
            headers={**csrf(c), "Content-Type": "application/json"},
        )
        assert r.status_code in (400, 422), r.text
        assert r.json()["code"] == code
        assert count(svc, tournaments_t) == 0 and count(svc, tournament_entries_t) == 0


def test_a_flood_of_creations_is_rate_limited(tmp_path: Path) -> None:
    with app_client(tmp_path) as (c, svc):
        register(c, "Alice")
        codes = [post(c, "/api/tournaments", arena()).status_code for _ in range(12)]
        assert codes[:10] == [201] * 10 and codes[10:] == [429, 429]
        r = post(c, "/api/tournaments", arena())
        assert r.json()["code"] == "rate_limited" and "tournaments" in r.json()["message"]
        assert int(r.headers["Retry-After"]) >= 1
        assert count(svc, tournaments_t) == 10


def test_joining_full_started_and_finished_tournaments(tmp_path: Path) -> None:
    with app_client(tmp_path) as (c, svc):
        assert post(c, "/api/tournaments/abc/join").status_code == 401  # a guest
        for name in ("Alice", "Bob", "Carol"):
            register(c, name)
            post(c, "/api/account/logout")
        login(c, "Alice")
        small = post(c, "/api/tournaments", arena(max_entries=2)).json()["tournament"]["id"]
        swiss = post(
            c, "/api/tournaments", arena(kind="swiss", minutes=None, rounds=2, starts=time.time())
        ).json()["tournament"]["id"]
        post(c, f"/api/tournaments/{small}/join")
        post(c, f"/api/tournaments/{swiss}/join")
        post(c, "/api/account/logout")
        login(c, "Bob")
        assert post(c, f"/api/tournaments/{small}/join").status_code == 200
        post(c, f"/api/tournaments/{swiss}/join")
        post(c, "/api/account/logout")
        login(c, "Carol")
        r = post(c, f"/api/tournaments/{small}/join")
        assert r.status_code == 409 and r.json()["code"] == "tournament_full"
        svc.director.step()  # the Swiss starts (its start time has come)
        assert c.get(f"/api/tournaments/{swiss}").json()["tournament"]["state"] == "running"
        r = post(c, f"/api/tournaments/{swiss}/join")
        assert r.status_code == 409 and r.json()["code"] == "tournament_started"
        with svc.engine.begin() as conn:
            conn.execute(update(tournaments_t).values(state="finished"))
        r = post(c, f"/api/tournaments/{small}/join")
        assert r.status_code == 409 and r.json()["code"] == "tournament_over"
        assert count(svc, tournament_entries_t) == 4


# -- the director -------------------------------------------------------------------------


def finish_table(svc: TournamentService, table_id: str, losses: dict[int, int], first: int) -> None:
    """Write a table's end as the sweeper does: its results and its meta state."""
    with svc.engine.begin() as conn:
        seats = conn.execute(select(seats_t.c.seat).where(seats_t.c.table_id == table_id)).all()
        for s in seats:
            seat = int(s.seat)
            conn.execute(
                insert(results_t).values(
                    table_id=table_id,
                    seat=seat,
                    user_id=1000 + seat,
                    players=len(seats),
                    rated=0,
                    place=1,
                    losses=losses.get(seat, 0),
                    points=1 if seat == first else 0,
                    finished=time.time(),
                )
            )
        conn.execute(
            update(table_meta_t).where(table_meta_t.c.table_id == table_id).values(state="done")
        )


def playing(svc: TournamentService, tid: str) -> list[Any]:
    with svc.engine.connect() as conn:
        return list(
            conn.execute(
                select(tournament_games_t).where(
                    tournament_games_t.c.tournament_id == tid,
                    tournament_games_t.c.state == "playing",
                )
            )
        )


def seat_of(svc: TournamentService, table_id: str, name: str) -> int:
    with svc.engine.connect() as conn:
        return int(
            conn.execute(
                select(seats_t.c.seat).where(seats_t.c.table_id == table_id, seats_t.c.name == name)
            ).scalar_one()
        )


def test_arena_director_streak_takeover_and_recomputation(tmp_path: Path) -> None:
    with app_client(tmp_path) as (c, svc):
        for name in ("Alice", "Bob"):
            register(c, name)
            post(c, "/api/account/logout")
        login(c, "Alice")
        tid = post(c, "/api/tournaments", arena(starts=time.time(), minutes=30)).json()[
            "tournament"
        ]["id"]
        post(c, f"/api/tournaments/{tid}/join")
        post(c, "/api/account/logout")
        login(c, "Bob")
        post(c, f"/api/tournaments/{tid}/join")

        clock = [time.time()]
        a = Director(svc.players, svc.settings, owner="A", clock=lambda: clock[0])
        b = Director(svc.players, svc.settings, owner="B", clock=lambda: clock[0])
        assert a.step() == 1 and b.step() == 0  # one director at a time
        for game in range(4):
            (g,) = playing(svc, tid)
            alice = seat_of(svc, g.table_id, "Alice")
            bob = seat_of(svc, g.table_id, "Bob")
            if game < 3:  # Alice wins three in a row (the third on fire), then loses
                finish_table(svc, g.table_id, {bob: 1}, alice)
            else:
                finish_table(svc, g.table_id, {alice: 1}, bob)
            a.step()
        page = c.get(f"/api/tournaments/{tid}").json()
        assert page["standings"][0]["name"] == "Alice"
        score = {s["name"]: (s["score"], s["games"], s["wins"]) for s in page["standings"]}
        assert score == {"Alice": (8, 4, 3), "Bob": (2, 4, 1)}
        assert [t["state"] for t in page["tables"]] == ["playing"]  # the fifth game
        assert page["me"]["table_id"] == page["tables"][0]["table_id"]
        assert "secret" not in json.dumps(page) and "token_hash" not in json.dumps(page)

        # A dies: B takes the tournament over only once A's lease ran out
        clock[0] += 1.0
        assert b.step() == 0
        clock[0] += svc.settings.lease_s + 1
        assert b.step() == 1 and a.step() == 0
        (g,) = playing(svc, tid)
        finish_table(
            svc, g.table_id, {seat_of(svc, g.table_id, "Alice"): 1}, seat_of(svc, g.table_id, "Bob")
        )
        b.step()
        stored, again = svc.standings_check(tid)
        assert stored == again and len(stored) == 2
        assert sorted(stored.values()) == [(4, 5, 2), (8, 5, 3)]

        # a table nobody ever played is void after stale_s: 0 points, the streak out
        (g,) = playing(svc, tid)
        clock[0] = time.time() + svc.settings.stale_s + 10
        with svc.engine.begin() as conn:
            conn.execute(
                update(tournaments_t).where(tournaments_t.c.id == tid).values(ends=clock[0] + 5)
            )
        b.step()
        with svc.engine.connect() as conn:
            state = conn.execute(
                select(tournament_games_t.c.state).where(tournament_games_t.c.id == g.id)
            ).scalar_one()
        assert state == "void"
        stored, again = svc.standings_check(tid)
        assert stored == again and sorted(stored.values()) == [(4, 6, 2), (8, 6, 3)]

        # the end: no new games; the open one settles, then the arena is finished
        clock[0] += 10
        b.step()
        for g in playing(svc, tid):
            finish_table(svc, g.table_id, {}, -1)  # a drawn hand: 1 point each
        b.step()
        final = c.get(f"/api/tournaments/{tid}").json()
        assert final["tournament"]["state"] == "finished" and final["tables"] == []
        stored, again = svc.standings_check(tid)
        assert stored == again


def test_swiss_rounds_byes_and_bots(tmp_path: Path) -> None:
    with app_client(tmp_path) as (c, svc):
        register(c, "Alice")
        body = arena(
            kind="swiss", minutes=None, rounds=2, starts=time.time(), bots=["easy", "random"]
        )
        tid = post(c, "/api/tournaments", body).json()["tournament"]["id"]
        post(c, f"/api/tournaments/{tid}/join")
        svc.director.step()
        page = c.get(f"/api/tournaments/{tid}").json()
        assert page["tournament"]["round"] == 1
        (table,) = page["tables"]  # Alice's (with a bot entrant, or a house bot)
        names = [e["name"] for e in table["entrants"]]
        assert "Alice" in names
        byes = [r for r in page["results"] if r["state"] == "bye"]
        assert len(names) + len(byes) == 3  # a bot without a person to play: a bye
        assert all(b["entrants"][0]["bot"] for b in byes)
        svc.director.step()  # the round is not over: nothing new
        assert len(c.get(f"/api/tournaments/{tid}").json()["tables"]) == 1
        for _ in range(2):
            (g,) = playing(svc, tid)
            finish_table(svc, g.table_id, {seat_of(svc, g.table_id, "Alice"): 1}, -1)
            svc.director.step()
        final = c.get(f"/api/tournaments/{tid}").json()
        assert final["tournament"]["state"] == "finished" and final["tournament"]["round"] == 2
        stored, again = svc.standings_check(tid)
        assert stored == again
        alice = next(s for s in final["standings"] if s["name"] == "Alice")
        assert (alice["score"], alice["games"]) == (0, 2)


def test_built_in_schedules_are_written_once_by_any_process(tmp_path: Path) -> None:
    with app_client(tmp_path) as (c, svc):
        specs = [parse_schedule("arena:hourly:4p"), parse_schedule("swiss:daily:2p:3r")]
        one = TournamentService(svc.players, svc.settings, specs)
        two = TournamentService(svc.players, svc.settings, specs)  # another process
        one.ensure_scheduled()
        two.ensure_scheduled()
        one.ensure_scheduled()  # within 30 s: not even looked at again
        upcoming = c.get("/api/tournaments").json()["upcoming"]
        assert sorted(t["kind"] for t in upcoming) == ["arena", "swiss"]
        arena_t = next(t for t in upcoming if t["kind"] == "arena")
        assert arena_t["builtin"] and arena_t["starts"] % 3600 == 0
        assert arena_t["ends"] - arena_t["starts"] == 30 * 60 and arena_t["players"] == 4
        assert c.get(f"/api/tournaments/{arena_t['id']}").json()["tournament"]["creator"] is None


def test_an_arena_entrant_withdraws_and_comes_back(tmp_path: Path) -> None:
    with app_client(tmp_path) as (c, svc):
        register(c, "Alice")
        tid = post(c, "/api/tournaments", arena(starts=time.time(), max_entries=2)).json()[
            "tournament"
        ]["id"]
        post(c, f"/api/tournaments/{tid}/join")
        post(c, "/api/account/logout")
        register(c, "Bob")
        post(c, f"/api/tournaments/{tid}/join")  # full now
        svc.director.step()
        assert c.get(f"/api/tournaments/{tid}").json()["me"]["table_id"]  # paired with Alice
        assert post(c, f"/api/tournaments/{tid}/withdraw").status_code == 200
        page = c.get(f"/api/tournaments/{tid}").json()
        assert page["me"]["state"] == "withdrawn"
        assert [s["withdrawn"] for s in page["standings"] if s["name"] == "Bob"] == [True]
        again = post(c, f"/api/tournaments/{tid}/join")  # a full arena takes its own back
        assert again.status_code == 200, again.text
        assert c.get(f"/api/tournaments/{tid}").json()["me"]["state"] == "active"


def test_serve_refuses_a_bad_tournament_schedule(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from svoi_kozyri.cli.main import app as cli

    db = f"sqlite:///{tmp_path / 's.db'}"
    args = ["serve", "--database", db, "--port", "0", "--tournament", "arena:hourly:9p"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 2, out.output
    assert "arena:hourly:9p" in out.output and "KIND:EVERY:Np" in out.output


def test_a_server_started_with_schedules_lists_its_built_in_tournaments(tmp_path: Path) -> None:
    """``serve --tournament`` end to end: the option reaches the app (here as
    ``create_app(tournaments=...)``, which ``serve`` and its workers call), whose
    director writes the next tournament of each schedule at start-up."""
    import httpx

    from svoi_kozyri.server.runtime.process import ServerProcess

    srv = ServerProcess(
        f"sqlite:///{tmp_path / 'sched.db'}",
        log_path=tmp_path / "s.log",
        extra_args=["--tournament", "arena:hourly:2p", "--tournament", "swiss:daily:3p:4r"],
    )
    with srv:
        deadline = time.monotonic() + 20
        while True:
            upcoming = httpx.get(srv.base + "/api/tournaments", timeout=10).json()["upcoming"]
            if len(upcoming) == 2 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
    got = sorted((t["kind"], t["players"], t["builtin"]) for t in upcoming)
    assert got == [("arena", 2, True), ("swiss", 3, True)]
