"""Analysis after a hand (server/features/analysis_api.py): stepping through a finished hand
as a seat or a spectator with the library's ratings, records opened in the browser,
and secrecy: no step ever holds a card its viewer could not see at that moment."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from svoi_kozyri.bots.basic import greedy_move
from svoi_kozyri.core import Game, Move, Rules, State, format_card, mask_of, observe, parse_card
from svoi_kozyri.records import GameRecord, write_record
from svoi_kozyri.server.features import analysis_api
from svoi_kozyri.server.table.game import TableGame
from svoi_kozyri.server.web.app import create_app
from svoi_kozyri.server.wire.events import DealEvent, MoveEvent

FAST = {"bot_delay_s": 0, "hand_pause_s": 0, "grace_s": 60}
MS = 8


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, dict[str, Any]]]:
    """A 3-seat table (you, two bots) played to the end of its one-loss session."""
    tmp = tmp_path_factory.mktemp("analysis")
    with (
        pytest.MonkeyPatch.context() as mp,
        TestClient(create_app(f"sqlite:///{tmp / 'w.db'}", seed=11)) as client,
    ):
        r = client.post(
            "/api/tables",
            json={
                "name": "Ann",
                "config": {
                    "seats": [
                        {"kind": "human"},
                        {"kind": "bot", "bot": "random"},
                        {"kind": "bot", "bot": "greedy"},
                    ],
                    "rules": {"loss_limit": 1},
                    **FAST,
                },
            },
        )
        mp.setattr(analysis_api, "TOTAL_MS", 2500.0)  # keep the test quick: a partial rating
        # this module asks for many analyses from one client: no per-client limit here
        no_client_limit(client)
        g = r.json()
        with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
            ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
            while True:
                m = ws.receive_json()
                if m["type"] != "state":
                    continue
                v = m["view"]
                if v["session"]["over"]:
                    break
                h = v["hand"]
                if h and h["to_act"] == 0 and not h["result"] and h["legal"]:
                    ws.send_text(json.dumps({"type": "move", "move": h["legal"][0]}))
        yield client, g


def no_client_limit(client: TestClient) -> None:
    """Many analyses from one test client: lift the per-client limit of its app."""
    if hasattr(analysis_api, "Analyser"):
        client.app.state.analyser = analysis_api.Analyser(burst=1000, rate=100.0)  # type: ignore[attr-defined]


def truth(
    client: TestClient, table_id: str, number: int
) -> tuple[list[tuple[int, Move, State]], State]:
    """The hand's real steps, rebuilt here from the stored events (not by the module)."""
    game: TableGame = client.app.state.hub.get(table_id).game  # type: ignore[attr-defined]
    copy = TableGame(game.table_id, game.config, game.seed, game.seats, game.created)
    hand, steps = 0, []
    for ev in game.events:
        if isinstance(ev, DealEvent):
            if hand == number:
                break
            hand += 1
        elif hand == number and isinstance(ev, MoveEvent):
            assert copy.state is not None
            steps.append((ev.seat, Move.parse(ev.move), copy.state.copy()))
        copy.apply(ev)
    assert copy.state is not None
    return steps, copy.state


def bot_hand(n: int, seed: int) -> tuple[list[analysis_api.Step], State]:
    """A hand of ``n`` greedy bots: its steps and its end."""
    game = Game(Rules(num_players=n))
    assert game.rules.sixes_transfer_public  # (private transfers: see open_turns)
    start = game.new_hand(seed % n, seed)
    st = start.copy()
    rng = random.Random(seed)
    turns: list[tuple[int, Move]] = []
    while not st.is_over:
        seat = st.to_act
        move = greedy_move(st, rng)
        turns.append((seat, move))
        st.push(move, seat)
    return analysis_api.steps_of(start, turns), st


def cards_in(data: Any) -> set[int]:
    """Every card named anywhere in a JSON value (strings that are cards or moves)."""
    out: set[int] = set()
    if isinstance(data, dict):
        for v in data.values():
            out |= cards_in(v)
    elif isinstance(data, list):
        for v in data:
            out |= cards_in(v)
    elif isinstance(data, str):
        for word in data.split():
            with contextlib.suppress(ValueError):
                out.add(parse_card(word))
    return out


def allowed(state: State, viewer: int | None) -> set[int]:
    """What the viewer may see in ``state``: own hand, the pile, publicly known cards."""
    obs = observe(state, viewer)
    seen = obs.hand | sum(obs.known)
    return {c for c in range(40) if seen >> c & 1} | set(obs.pile)


def knew_at_end(
    steps: list[tuple[int, Move, State]], final: State, viewer: int | None, i: int
) -> int | None:
    """The hand of step ``i``'s actor before it, as ``viewer`` knew it at the end
    of the hand (None when they did not): their own hand; a hand whose every card
    was publicly known then; a hand the viewer could name by elimination then
    (the only hand holding cards the viewer could not see); or, when the actor's
    hand at the end is publicly known (empty for a player who went out), the hand
    before step ``i`` rebuilt backwards from the end through the public turns
    (cards played come back, cards picked up go).  Rebuilt here from the public
    log, not by the module, and checked against the truth."""
    seat, _move, before = steps[i]
    if seat == viewer:
        return before.hand(seat)
    now = observe(before, viewer)
    seen = now.hands[seat] | now.known[seat]
    if seen.bit_count() == now.hand_sizes[seat]:
        return seen
    # by elimination: the actor was the only seat holding cards the viewer could not
    # see, so every card not seen anywhere (pile, discard, hands) was in its hand
    short = [
        k for k in range(final.n) if (now.hands[k] | now.known[k]).bit_count() < now.hand_sizes[k]
    ]
    if short == [seat]:
        unseen = before.origin.cards & ~before.discard & ~mask_of(before.pile_cards())
        for k in range(final.n):
            unseen &= ~(now.hands[k] | now.known[k])
        assert seen | unseen == before.hand(seat), "elimination names the hand"
        return seen | unseen
    end = observe(final, viewer)
    hand = end.hands[seat] | end.known[seat]
    if hand.bit_count() != end.hand_sizes[seat]:
        return None
    history = end.history
    assert len(history) == len(steps)
    for who, move, picked in reversed(history[i:]):
        if who == seat:
            hand = (hand & ~picked) | mask_of(move.cards())
    assert hand == before.hand(seat), "the public turns rebuild the hand"
    return hand


def keys_in(data: Any) -> set[str]:
    """Every key of every object in a JSON value."""
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in keys_in(v)}
    if isinstance(data, list):
        return {k for v in data for k in keys_in(v)}
    return set()


def check_secrecy(
    data: dict[str, Any], steps: list[tuple[int, Move, State]], final: State, viewer: int | None
) -> tuple[int, int]:
    """Every step says only what ``viewer`` knew at the end of the hand: a turn of a
    seat whose hand they could not know carries the move alone; a rated turn names
    only cards they saw or knew that seat held.  Returns (other seats' turns rated,
    other seats' turns kept hidden)."""
    assert len(data["steps"]) == len(steps)
    assert "hidden" not in keys_in(data), "no count of unseen moves"
    rated = hidden = 0
    for i, (got, (seat, move, before)) in enumerate(zip(data["steps"], steps, strict=True)):
        assert got["move"] == str(move) and got["seat"] == "ABCD"[seat]
        known = knew_at_end(steps, final, viewer, i)
        if known is None:
            assert got["rating"] is None and got["no_rating"] == "hidden", got
            hidden += 1
        elif got["rating"] is not None:
            legal = {str(m) for m in observe(before, seat).legal_moves()}
            assert {m["move"] for m in got["rating"]["moves"]} <= legal
            rated += seat != viewer
        ok = (
            allowed(before, viewer)
            | set(move.cards())
            | {c for c in range(40) if (known or 0) >> c & 1}
        )
        leaked = cards_in(got) - ok
        assert not leaked, (got["index"], [format_card(c) for c in leaked])
    assert not cards_in(data["final"]) - allowed(final, viewer)
    return rated, hidden


@pytest.mark.parametrize("viewer", [0, None], ids=["seat", "spectator"])
def test_table_hand_analysis_as_seat_and_spectator(
    played: tuple[TestClient, dict[str, Any]], viewer: int | None
) -> None:
    """Every step holds only the viewer's knowledge; ratings are labelled."""
    client, g = played
    tid = g["table_id"]
    params: dict[str, Any] = {"ms": MS}
    headers = {"X-Seat-Token": g["token"]} if viewer is not None else {}
    r = client.get(f"/api/tables/{tid}/hands/1/analysis", params=params, headers=headers)
    assert r.status_code == 200, r.text
    data = r.json()
    steps, final = truth(client, tid, 1)
    check_secrecy(data, steps, final, viewer)
    assert data["viewer"] == ("A" if viewer == 0 else None)
    assert data["result"] is not None
    rated = [s for s in data["steps"] if s["rating"]]
    assert rated, "some turns had a choice"
    for s in rated:
        rt = s["rating"]
        assert rt["played"]["move"] == s["move"] and s["no_rating"] is None
        assert rt["kind"] in ("proven", "estimate")
        for m in [rt["played"], rt["best"], *rt["moves"]]:
            if m["proven"]:
                assert m["samples"] == 0 and m["low"] is None and m["score"] in (0, 0.5, 1)
            else:
                assert m["samples"] > 0 and m["low"] <= m["score"] <= m["high"]
        if s["seat"] == "A" and viewer == 0:
            assert len(rt["moves"]) >= 2
        assert rt["worse"] is False or rt["drop"] > 0
    assert {s["no_rating"] for s in data["steps"]} <= {None, "hidden", "no_choice", "time"}
    if viewer is None:
        assert all(s["before"]["hand"] == [] for s in data["steps"])


def test_analysis_refuses_what_it_must(played: tuple[TestClient, dict[str, Any]]) -> None:
    client, g = played
    tid = g["table_id"]
    assert client.get(f"/api/tables/{tid}/hands/9/analysis").status_code == 404
    assert (
        client.get(f"/api/tables/{tid}/hands/1/analysis", headers={"X-Seat-Token": "x"}).status_code
        == 403
    )
    assert client.get("/api/tables/nope/hands/1/analysis").status_code == 404
    r = client.get(f"/api/tables/{tid}/hands/1/analysis", params={"ms": 1e9})
    assert r.status_code == 200 and r.json()["budget_ms"] <= 500
    # a hand still being played is not analysed (it would be a hint machine)
    r = client.post(
        "/api/tables",
        json={
            "name": "Bo",
            "config": {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}], **FAST},
        },
    )
    live = r.json()
    with client.websocket_connect(f"/ws/{live['table_id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": live["token"]}))
        while True:
            m = ws.receive_json()
            if m["type"] == "state" and m["view"]["hand"]:
                break
        bad = client.get(f"/api/tables/{live['table_id']}/hands/1/analysis")
        assert bad.status_code == 409 and bad.json()["code"] == "hand_running"


def test_downloaded_records_keep_their_viewer(played: tuple[TestClient, dict[str, Any]]) -> None:
    client, g = played
    tid = g["table_id"]
    steps, final = truth(client, tid, 1)
    mine = client.get(f"/api/tables/{tid}/record", headers={"X-Seat-Token": g["token"]}).text
    r = client.post("/api/analysis/record", json={"text": mine, "hand": 1, "ms": MS})
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["viewer"] == "A" and "A" in data["rated"]
    check_secrecy(data, steps, final, 0)
    assert any(s["rating"] for s in data["steps"] if s["seat"] == "A")
    # the same steps as the table's own analysis shows seat A, rated by the same rule
    table = client.get(
        f"/api/tables/{tid}/hands/1/analysis",
        params={"ms": MS},
        headers={"X-Seat-Token": g["token"]},
    ).json()
    keys = ("hand", "pile", "top", "sizes", "to_act", "mode", "legal", "pickup_count")
    assert [[s["before"][k] for k in keys] for s in data["steps"]] == [
        [s["before"][k] for k in keys] for s in table["steps"]
    ]
    assert [s["no_rating"] == "hidden" for s in data["steps"]] == [
        s["no_rating"] == "hidden" for s in table["steps"]
    ]
    public = client.get(f"/api/tables/{tid}/record").text
    spec = client.post("/api/analysis/record", json={"text": public, "ms": MS}).json()
    assert spec["viewer"] is None
    check_secrecy(spec, steps, final, None)
    as_spectator = client.get(f"/api/tables/{tid}/hands/1/analysis", params={"ms": MS}).json()
    assert [s["no_rating"] == "hidden" for s in spec["steps"]] == [
        s["no_rating"] == "hidden" for s in as_spectator["steps"]
    ]
    # a full record (every hand known to whoever holds it) is rated for every seat
    full = write_record(GameRecord.from_state(final))
    every = client.post("/api/analysis/record", json={"text": full, "ms": MS}).json()
    assert every["rated"] == ["A", "B", "C"]
    assert not any(s["no_rating"] == "hidden" for s in every["steps"])
    assert {s["seat"] for s in every["steps"] if s["rating"]} >= {"A"}


@pytest.mark.parametrize(
    "body",
    [
        {"text": "not a record"},
        {"text": '[Players "2"]\n\n1. A: lead 6S\n*'},
        {"text": "x", "hand": 0},
        {"text": "x", "seat": "Q"},
    ],
)
def test_bad_records_get_one_clear_error(tmp_path: Path, body: dict[str, Any]) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'w.db'}")) as client:
        r = client.post("/api/analysis/record", json={"ms": MS, **body})
        assert r.status_code in (400, 422)
        if r.status_code == 400:
            assert r.json()["code"] in ("bad_record", "bad_seat") and r.json()["message"]


# -- what an analysis may cost (issue 20, item 4) and strict bodies (item 10) ---------


def full_record(players: int, seed: int) -> str:
    """A full record (every hand known) of a hand of greedy bots."""
    _steps, final = bot_hand(players, seed)
    return write_record(GameRecord.from_state(final))


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[TestClient]:
    """A new app with the default analysis limits."""
    with TestClient(create_app(f"sqlite:///{tmp_path / 'w.db'}")) as client:
        yield client


def test_the_cache_is_keyed_on_the_hand_not_the_budget(
    fresh: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asking again with another budget is the same analysis, computed once (a new
    budget used to start a new 15 s computation for anyone who asked)."""
    monkeypatch.setattr(analysis_api, "TOTAL_MS", 800.0)
    text = full_record(3, 5)
    first = fresh.post("/api/analysis/record", json={"text": text, "ms": 5})
    assert first.status_code == 200, first.text
    for ms in (6, 80, 500):
        again = fresh.post("/api/analysis/record", json={"text": text, "ms": ms})
        assert again.status_code == 200 and again.json() == first.json()
    assert analysis_api.analyser_of(fresh.app).computed == 1


def _cpu_s(pid: int) -> float:
    """CPU seconds a process has used (user and system, all its threads)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_one_analysis_at_a_time_per_client_off_the_event_loop(
    fresh: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one client's analysis runs: its second one answers 429 at once with
    Retry-After (it used to wait its turn behind a lock, 15/30/45 s), and the rest
    of the server answers quickly (the work is in another process)."""
    monkeypatch.setattr(analysis_api, "TOTAL_MS", 6000.0)
    text = full_record(4, 7)
    answers: list[Any] = []
    worker = threading.Thread(
        target=lambda: answers.append(
            fresh.post("/api/analysis/record", json={"text": text, "ms": 500})
        )
    )
    worker.start()
    analyser = analysis_api.analyser_of(fresh.app)
    deadline = time.monotonic() + 20
    while not analyser.running and time.monotonic() < deadline:
        time.sleep(0.01)
    assert analyser.running, "the analysis started"
    time.sleep(0.5)  # under way in its worker
    t0 = time.perf_counter()
    second = fresh.post("/api/analysis/record", json={"text": text + "\n", "ms": 5})
    assert time.perf_counter() - t0 < 1.0
    assert second.status_code == 429 and second.json()["code"] == "analysis_limit"
    assert int(second.headers["Retry-After"]) >= 1
    # the server's own process stays nearly idle while a worker process does the work
    workers = analysis_api.worker_pids()
    assert workers and os.getpid() not in workers
    cpu0, busy0 = _cpu_s(os.getpid()), sum(_cpu_s(p) for p in workers)
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        assert fresh.get("/healthz").status_code == 200
        times.append(time.perf_counter() - t0)
        time.sleep(0.05)
    cpu, busy = _cpu_s(os.getpid()) - cpu0, sum(_cpu_s(p) for p in workers) - busy0
    assert analyser.running, "the analysis was running all along"
    assert busy > 0.1 and cpu < busy / 2, (cpu, busy)
    times.sort()
    assert times[len(times) // 2] < 0.05 and times[-1] < 0.5, times
    worker.join(30)
    assert answers and answers[0].status_code == 200, answers
    assert not analyser.busy, "the slot is free again"


def test_fresh_analyses_per_client_are_limited(
    fresh: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past its allowance a client gets 429 with Retry-After; the cache still answers."""
    monkeypatch.setattr(analysis_api, "TOTAL_MS", 300.0)
    text = full_record(3, 5)
    codes = [
        fresh.post("/api/analysis/record", json={"text": text + "\n" * k, "ms": 5})
        for k in range(analysis_api.CLIENT_BURST + 1)
    ]
    assert [r.status_code for r in codes[:-1]] == [200] * analysis_api.CLIENT_BURST
    assert codes[-1].status_code == 429 and codes[-1].json()["code"] == "analysis_limit"
    assert int(codes[-1].headers["Retry-After"]) >= 1
    cached = fresh.post("/api/analysis/record", json={"text": text, "ms": 5})
    assert cached.status_code == 200


def test_two_servers_on_one_database_share_a_clients_allowance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--workers N`` must not give a client N allowances (issue 20, item 5): two
    apps on one database (as two worker processes are) take from one bucket."""
    monkeypatch.setattr(analysis_api, "TOTAL_MS", 300.0)
    text = full_record(3, 5)
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    with TestClient(create_app(url)) as one, TestClient(create_app(url)) as two:
        codes = [
            (one if k % 2 else two).post(
                "/api/analysis/record", json={"text": text + "\n" * k, "ms": 5}
            )
            for k in range(analysis_api.CLIENT_BURST + 1)
        ]
    assert [r.status_code for r in codes[:-1]] == [200] * analysis_api.CLIENT_BURST
    assert codes[-1].status_code == 429 and codes[-1].json()["code"] == "analysis_limit"
    assert int(codes[-1].headers["Retry-After"]) >= 1


def test_the_queue_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the queue full, a fresh analysis from another client is refused with
    503 and Retry-After instead of waiting behind the others."""
    monkeypatch.setattr(analysis_api, "TOTAL_MS", 3000.0)
    text = full_record(4, 7)

    async def go() -> None:
        analyser = analysis_api.Analyser(max_pending=1)
        slow = asyncio.ensure_future(
            analyser.get(("a",), ["ip:a"], analysis_api.record_job, text, 1, 500.0, None, 3000.0)
        )
        for _ in range(2000):
            if analyser.running or slow.done():
                break
            await asyncio.sleep(0.01)
        assert analyser.running and not slow.done(), "the first analysis is under way"
        with pytest.raises(analysis_api.Refused) as refused:
            await analyser.get(("b",), ["ip:b"], analysis_api.record_job, text, 1, 5.0, None, 5.0)
        assert refused.value.status == 503 and refused.value.code == "analysis_busy"
        assert int(refused.value.retry_after_header or 0) >= 1
        assert isinstance(await slow, dict)
        # the same analysis asked by another client meanwhile shares the computation
        assert (await analyser.get(("a",), ["ip:b"], analysis_api.record_job))["hand"] == 1
        assert analyser.computed == 1

    asyncio.run(go())


@pytest.mark.parametrize(
    "extra",
    [
        {"hand": "1"},
        {"hand": 1.0},
        {"hand": True},
        {"ms": "60"},
        {"seat": 0},
        {"seat": ""},
        {"extra": 1},
        {"token": "x"},
    ],
    ids=[
        "hand-str",
        "hand-float",
        "hand-bool",
        "ms-str",
        "seat-int",
        "seat-empty",
        "extra",
        "token",
    ],
)
def test_record_bodies_are_strict(fresh: TestClient, extra: dict[str, Any]) -> None:
    """A well-formed record with a field of the wrong type or an unknown field is
    refused with 422 ``invalid`` (``"1"`` and ``1.0`` used to pass as a hand)."""
    text = full_record(3, 5)
    r = fresh.post("/api/analysis/record", json={"text": text, "ms": 5, **extra})
    assert r.status_code == 422 and r.json()["code"] == "invalid", r.text


def test_a_killed_worker_costs_one_answer_not_the_service(
    fresh: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker killed mid-analysis (out of memory, an operator): that request
    answers 503 with Retry-After, the next one gets a fresh worker."""
    import signal

    monkeypatch.setattr(analysis_api, "TOTAL_MS", 6000.0)
    text = full_record(4, 7)
    answers: list[Any] = []
    asking = threading.Thread(
        target=lambda: answers.append(
            fresh.post("/api/analysis/record", json={"text": text, "ms": 500})
        )
    )
    asking.start()
    analyser = analysis_api.analyser_of(fresh.app)
    for _ in range(2000):
        if analyser.running and analysis_api.worker_pids():
            break
        time.sleep(0.01)
    time.sleep(0.3)
    for pid in analysis_api.worker_pids():
        os.kill(pid, signal.SIGKILL)
    asking.join(30)
    assert answers and answers[0].status_code == 503, answers
    assert answers[0].json()["code"] == "analysis_busy" and answers[0].headers["Retry-After"]
    monkeypatch.setattr(analysis_api, "TOTAL_MS", 300.0)
    again = fresh.post("/api/analysis/record", json={"text": text + "\n", "ms": 5})
    assert again.status_code == 200, again.text
