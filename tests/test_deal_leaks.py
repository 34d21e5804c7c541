"""Shared deals reveal no hidden card (issue 20, item 1; issue 21, item 7).

The attack: a 4-player table with ``max_actions_per_hand: 200``; after its hand
1, ``POST /api/tables/T/hands/1/deal`` (no token), then ``POST
/api/deals/D/play`` with a random bot.  The deal table's hand 1 nearly always
ends drawn at the action cap, and its hand 2 used to be dealt from the source
table's seed: the source's hand 2, the hand being played there.  Now a deal is
one hand's deal event, the table playing it has a seed of its own, a running
table's hands are shared only by its players and played only once it has
finished, and the daily deck comes from the database's secret, not the date.

The views the deal player receives are checked like tests/test_server_leak.py
checks every message: no card that is, at that version, another player's
private card.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from alembic import command
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, inspect, select, text

from svoi_kozyri.core import Game, iter_cards
from svoi_kozyri.server.edge.guard import Limits
from svoi_kozyri.server.features.deals import Deals
from svoi_kozyri.server.runtime.process import (
    PostgresUnavailableError,
    ServerProcess,
    throwaway_postgres,
)
from svoi_kozyri.server.storage.migrate import alembic_config
from svoi_kozyri.server.storage.schema import deals_t, events_t, plays_t, seats_t, tables_t
from svoi_kozyri.server.storage.store import Store
from svoi_kozyri.server.table.game import SeatInfo, TableGame
from svoi_kozyri.server.web.app import create_app
from svoi_kozyri.server.wire.events import DealEvent, event_data
from svoi_kozyri.server.wire.schemas import SeatConfig, TableConfig
from test_analysis_api import cards_in
from test_server_leak import CARD_RE, _snapshot, _strings

pytestmark = pytest.mark.timeout(300)

FAST = {"bot_delay_s": 0, "hand_pause_s": 0}
RANDOMS = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3
ATTACK_RULES = {"max_actions_per_hand": 200}
POINTS = {"session_mode": "points", "points_target": 2, "points_on_draw": True}
"""A source table that ends after a few hands (random play draws 95 % of the
hands capped at 200 actions); a deal itself is played in losses mode."""


def make_client(path: Path, seed: int = 4) -> TestClient:
    return TestClient(create_app(f"sqlite:///{path}", seed=seed, limits=Limits.off()))


@pytest.fixture()
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path / "w.db") as c:
        deals = c.app.state.deals = Deals(c.app.state.hub)  # type: ignore[attr-defined]
        deals.bot_delay_s = 0  # the deal tables' bots at test speed
        yield c


def hub(client: TestClient) -> Any:
    return client.app.state.hub  # type: ignore[attr-defined]


def drive(
    client: TestClient,
    table_id: str,
    token: str,
    until: Callable[[dict[str, Any]], bool],
    rng: random.Random,
) -> list[dict[str, Any]]:
    """Play the seat with random legal moves until ``until(view)``; every message."""
    msgs: list[dict[str, Any]] = []
    acted = -1
    with client.websocket_connect(f"/ws/{table_id}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        while len(msgs) < 20_000:
            m = ws.receive_json()
            msgs.append(m)
            if m["type"] != "state":
                continue
            v = m["view"]
            if until(v):
                return msgs
            h = v["hand"]
            mine = h and h["to_act"] == v["viewer"] and not h["result"] and h["legal"]
            if mine and v["version"] > acted:
                acted = v["version"]
                ws.send_text(json.dumps({"type": "move", "move": rng.choice(h["legal"])}))
    raise AssertionError("the table did not get there")


def deal_events(client: TestClient, table_id: str) -> list[dict[str, Any]]:
    return [
        event_data(ev) for ev in hub(client).get(table_id).game.events if isinstance(ev, DealEvent)
    ]


def new_table(client: TestClient, rules: dict[str, Any]) -> dict[str, Any]:
    r = client.post(
        "/api/tables",
        json={"name": "Ann", "config": {"seats": RANDOMS, "rules": rules, **FAST}},
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def hand_at_least(n: int) -> Callable[[dict[str, Any]], bool]:
    return lambda v: v["session"]["over"] or bool(v["hand"] and v["hand"]["number"] >= n)


def initial_hands(game: TableGame, number: int) -> list[set[int]]:
    """Each seat's cards right after hand ``number``'s deal (and the sixes' transfers)."""
    ev = [e for e in game.events if isinstance(e, DealEvent)][number - 1]
    start = Game(game.rules, ev.owners, ev.pairs).deal(ev.dealer, ev.deck)
    return [set(iter_cards(h)) for h in start.hands]


def assert_views_keep_secrets(client: TestClient, table_id: str, msgs: list[dict[str, Any]]) -> int:
    """The style of tests/test_server_leak.py: each state message against the
    truth rebuilt from the table's stored events at the message's version."""
    stored = hub(client).store.load(table_id)
    seats = [SeatInfo(s["kind"], s["bot"], s["name"], s["token_hash"]) for s in stored.seats]
    truth = TableGame(table_id, TableConfig.model_validate(stored.config), stored.seed, seats)
    private: list[dict[int | None, set[str]]] = []
    own: list[list[list[str]]] = []
    _snapshot(truth, private, own)
    for ev in stored.events:
        truth.apply(ev)
        _snapshot(truth, private, own)
    checked = 0
    for msg in msgs:
        if msg["type"] != "state":
            continue
        view = msg["view"]
        v, viewer = view["version"], view["viewer"]
        found = {a + b for s in _strings(msg) for a, b in CARD_RE.findall(s)}
        leaked = found & private[v][viewer]
        assert not leaked, f"table {table_id} v{v}: viewer {viewer} was sent {leaked}"
        if view["hand"] is not None:
            assert sorted(view["hand"]["hand"]) == own[v][viewer]
        checked += 1
    return checked


def test_the_attack_a_running_tables_deal_is_shared_by_players_only_and_locked(
    client: TestClient,
) -> None:
    """The exact attack, while the source table plays its hand 2: sharing needs
    the seat's token and playing the deal is refused, so nobody sees a card."""
    src = new_table(client, {**ATTACK_RULES, "loss_limit": 50})
    tid = src["table_id"]
    drive(client, tid, src["token"], hand_at_least(2), random.Random(1))
    assert hub(client).get(tid).game.status == "playing"
    anyone = client.post(f"/api/tables/{tid}/hands/1/deal")
    assert anyone.status_code == 403 and anyone.json()["code"] == "not_a_player"
    wrong = client.post(f"/api/tables/{tid}/hands/1/deal", headers={"X-Seat-Token": "x" * 40})
    assert wrong.status_code == 403 and wrong.json()["code"] == "bad_token"
    auth = {"X-Seat-Token": src["token"]}
    running = client.post(f"/api/tables/{tid}/hands/2/deal", headers=auth)
    assert running.status_code == 409 and running.json()["code"] == "hand_running"
    shared = client.post(f"/api/tables/{tid}/hands/1/deal", headers=auth)
    assert shared.status_code == 200, shared.text
    d = shared.json()
    assert d["locked"] and d["playable"]
    assert not cards_in(d) and "seed" not in json.dumps(d)
    tables_before = len(hub(client).tables)
    for who in ("Eve", "Ann"):
        p = client.post(f"/api/deals/{d['deal_id']}/play", json={"name": who, "bot": "random"})
        assert p.status_code == 409 and p.json()["code"] == "deal_locked"
    assert len(hub(client).tables) == tables_before  # nothing was made
    # the stored deal is the one hand's deal event, nothing that derives another
    stored = client.app.state.deals.get(d["deal_id"])  # type: ignore[attr-defined]
    assert set(stored) >= {"deal"} and "seed" not in stored and "offset" not in stored
    assert {"kind": "deal", **stored["deal"]} == deal_events(client, tid)[0]
    assert str(hub(client).get(tid).game.seed) not in json.dumps(stored)


def test_the_attack_after_the_source_finished_the_deal_shares_one_hand_only(
    client: TestClient,
) -> None:
    """The source has finished; its hand 1 is played again with random bots:
    the deal table deals that hand card for card and every later hand (after a
    draw at the action cap) from its own seed, and no view tells the player a
    card of another seat it may not know."""
    src = new_table(client, {**ATTACK_RULES, **POINTS})
    tid = src["table_id"]
    drive(client, tid, src["token"], lambda v: v["session"]["over"], random.Random(2))
    source = hub(client).get(tid).game
    src_deals = deal_events(client, tid)
    assert len(src_deals) >= 2
    d = client.post(f"/api/tables/{tid}/hands/1/deal").json()  # finished: anyone may
    assert not d["locked"]
    reached_hand_2 = 0
    for attempt in range(6):
        p = client.post(f"/api/deals/{d['deal_id']}/play", json={"name": "Eve", "bot": "random"})
        assert p.status_code == 200, p.text
        grant = p.json()
        msgs = drive(
            client, grant["table_id"], grant["token"], hand_at_least(2), random.Random(10 + attempt)
        )
        game = hub(client).get(grant["table_id"]).game
        assert game.seed != source.seed
        mine = deal_events(client, grant["table_id"])
        assert mine[0] == src_deals[0]  # the shared hand, card for card
        for ev in mine[1:]:  # every other hand is its own
            assert ev["deck"] not in [s["deck"] for s in src_deals]
        if len(mine) >= 2:
            reached_hand_2 += 1
            mine_hands, src_hands = initial_hands(game, 2), initial_hands(source, 2)
            assert all(mine_hands[i] != src_hands[i] for i in range(4))
        assert assert_views_keep_secrets(client, grant["table_id"], msgs) > 10
        if reached_hand_2:
            break
    assert reached_hand_2, "no deal table reached its hand 2 in six tries"
    page = client.get(f"/api/deals/{d['deal_id']}").json()
    assert not cards_in(page) and "seed" not in json.dumps(page)


def test_a_rematch_deals_from_its_own_seed_and_its_summary_holds_no_card(
    client: TestClient,
) -> None:
    """A rematch copies the table's configuration: nothing of it may derive the
    old table's shuffles (a shared seed would let a player who kept the old
    record read every hand of the new session).  Its hands are its own, the
    summary and the rematch answer hold no card, and every view of the new
    table keeps the others' cards closed."""
    src = new_table(client, {"loss_limit": 1})
    tid = src["table_id"]
    drive(client, tid, src["token"], lambda v: v["session"]["over"], random.Random(5))
    source = hub(client).get(tid).game
    r = client.post(f"/api/tables/{tid}/rematch", headers={"X-Seat-Token": src["token"]})
    assert r.status_code == 200, r.text
    grant = r.json()
    assert not cards_in(grant) and "seed" not in json.dumps(grant)
    summary = client.get(f"/api/tables/{tid}/summary").json()
    assert summary["rematch"] == grant["table_id"]
    assert not cards_in(summary) and "seed" not in json.dumps(summary)
    msgs = drive(client, grant["table_id"], grant["token"], hand_at_least(1), random.Random(6))
    again = hub(client).get(grant["table_id"]).game
    assert again.seed != source.seed
    old_decks = [ev["deck"] for ev in deal_events(client, tid)]
    assert all(ev["deck"] not in old_decks for ev in deal_events(client, grant["table_id"]))
    msgs += drive(
        client, grant["table_id"], grant["token"], lambda v: v["session"]["over"], random.Random(7)
    )
    assert assert_views_keep_secrets(client, grant["table_id"], msgs) > 10


def test_sharing_a_finished_hand_twice_or_from_a_deals_table_gives_the_same_deal(
    client: TestClient,
) -> None:
    """Ids are HMACs under the database's secret: stable for a hand, unrelated
    to its table's seed; the hand 1 of a table playing a deal is that deal."""
    src = new_table(client, {**ATTACK_RULES, **POINTS})
    tid = src["table_id"]
    drive(client, tid, src["token"], lambda v: v["session"]["over"], random.Random(3))
    a = client.post(f"/api/tables/{tid}/hands/1/deal").json()
    b = client.post(f"/api/tables/{tid}/hands/1/deal").json()
    assert a["deal_id"] == b["deal_id"] and len(a["deal_id"]) == 16
    seed = hub(client).get(tid).game.seed
    assert a["deal_id"] not in (str(seed), f"{seed:x}")
    grant = client.post(f"/api/deals/{a['deal_id']}/play", json={"name": "Eve"}).json()
    over = drive(
        client,
        grant["table_id"],
        grant["token"],
        lambda v: bool(v["hand"] and v["hand"]["result"]),
        random.Random(4),
    )
    assert over
    again = client.post(
        f"/api/tables/{grant['table_id']}/hands/1/deal", headers={"X-Seat-Token": grant["token"]}
    ).json()
    assert again["deal_id"] == a["deal_id"]


def _daily(client: TestClient) -> tuple[str, list[int]]:
    d = client.get("/api/deals/daily").json()
    stored = client.app.state.deals.get(d["deal_id"])  # type: ignore[attr-defined]
    return d["deal_id"], list(stored["deal"]["deck"])


def test_the_daily_deck_is_not_computable_from_the_date(tmp_path: Path) -> None:
    """Two servers on two databases (two secrets) deal two different daily decks;
    one database gives the same deck on every call, process and restart."""
    with make_client(tmp_path / "a.db") as a:
        first = _daily(a)
        assert _daily(a) == first
        other_worker = Deals(a.app.state.hub)  # type: ignore[attr-defined]
        today = dt.datetime.now(dt.UTC).date()
        assert other_worker.daily(today) == first[0]
    with make_client(tmp_path / "a.db") as again:  # a restart on the same database
        assert _daily(again) == first
    with make_client(tmp_path / "b.db") as b:
        second = _daily(b)
    assert second[0] != first[0] and second[1] != first[1]


@pytest.mark.parametrize("name", ["A loses", "10H KS", "\u202e", "\u200b", "x\u202ey", "\u200bAnn"])
def test_a_name_the_checks_refuse_is_a_422_not_a_500(client: TestClient, name: str) -> None:
    did = client.get("/api/deals/daily").json()["deal_id"]
    before = len(hub(client).tables)
    r = client.post(f"/api/deals/{did}/play", json={"name": name})
    assert r.status_code == 422 and r.json()["code"] == "invalid", r.text
    assert len(hub(client).tables) == before


@pytest.mark.parametrize(
    "body",
    [
        {"name": "Ann", "seat": "1"},
        {"name": "Ann", "seat": 1.0},
        {"name": "Ann", "seat": True},
        {"name": "Ann", "seat": 1, "extra": 1},
        {"name": "Ann", "bot": 3},
        {"name": 5},
    ],
)
def test_play_requests_are_strict(client: TestClient, body: dict[str, Any]) -> None:
    did = client.get("/api/deals/daily").json()["deal_id"]
    before = len(hub(client).tables)
    r = client.post(f"/api/deals/{did}/play", json=body)
    assert r.status_code == 422 and r.json()["code"] == "invalid", r.text
    assert len(hub(client).tables) == before
    ok = client.post(f"/api/deals/{did}/play", json={"name": "Ann", "seat": 1})
    assert ok.status_code == 200 and ok.json()["seat"] == 1


def _finished_events(rules: dict[str, Any], seed: int) -> tuple[TableConfig, list[dict[str, Any]]]:
    """A finished 3-player table's config and events, played with random moves."""
    cfg = TableConfig(seats=[SeatConfig(kind="human")] * 3, rules=rules)
    seats = [SeatInfo(kind="human", name=x, token_hash=x) for x in "xyz"]
    g = TableGame("src", cfg, seed, seats)
    rng = random.Random(seed)
    while not g.session.over:
        g.apply(g.make_deal(g.deal_rng()))
        while g.state is not None and not g.state.is_over:
            st = g.state
            pending = g.prepare_move(st.to_act, str(rng.choice(st.legal_moves())))
            g.apply(pending.event, pending)
    return cfg, g.events


@pytest.fixture(scope="module")
def postgres_server() -> Iterator[str]:
    """A throwaway PostgreSQL server for this module (skipped when there is none)."""
    pytest.importorskip("psycopg", reason="psycopg is not installed")
    try:
        with throwaway_postgres() as url:
            yield url
    except PostgresUnavailableError as e:
        pytest.skip(str(e))


def fresh_postgres(server_url: str, name: str) -> str:
    """An empty database ``name`` on the throwaway server."""
    import psycopg

    plain = server_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    return server_url.rsplit("/", 1)[0] + "/" + name


@pytest.fixture(params=["sqlite", "postgresql"])
def old_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database of each backend."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'old.db'}"
    return fresh_postgres(request.getfixturevalue("postgres_server"), "sk_old")


def test_revision_0008_keeps_old_deals_without_their_seeds(old_db: str) -> None:
    """A database from before: a deal stored as seed and offset becomes the hand's
    deal event (found in its origin's events); an old daily deal (its seed came
    from the date) keeps its results but cannot be played; an unfinished table
    that played a deal with its source's seed gets a seed of its own; the old
    configuration fields leave every stored table."""
    url = old_db
    engine = create_engine(url)
    cfg_a = alembic_config()
    with engine.begin() as conn:
        cfg_a.attributes["connection"] = conn
        command.upgrade(cfg_a, "0007")
    cfg, events = _finished_events({"loss_limit": 1, "max_actions_per_hand": 200}, 77)
    deal_evs = [event_data(ev) for ev in events if isinstance(ev, DealEvent)]
    old_cfg = {**cfg.model_dump(), "deal_offset": 0, "first_dealer": None}
    replay_cfg = {**old_cfg, "first_dealer": deal_evs[0]["dealer"], "listed": False}
    now = time.time()
    with engine.begin() as conn:
        for tid, config, status, seed in (
            ("src", old_cfg, "finished", 77),
            ("rep", replay_cfg, "playing", 77),
        ):
            conn.execute(
                tables_t.insert().values(
                    id=tid,
                    config=json.dumps(config),
                    seed=seed,
                    status=status,
                    version=len(events) if tid == "src" else 0,
                    listed=1,
                    created=now,
                    updated=now,
                )
            )
            conn.execute(
                seats_t.insert(),
                [
                    {"table_id": tid, "seat": i, "kind": "human", "name": n, "token_hash": n}
                    for i, n in enumerate("xyz")
                ],
            )
        conn.execute(
            events_t.insert(),
            [
                {"table_id": "src", "seq": i, "data": event_data(ev), "created": now}
                for i, ev in enumerate(events)
            ],
        )
        insert_old = text(
            'INSERT INTO sk_deals (id, seed, "offset", dealer, players, rules, origin, daily, '
            "created) VALUES (:id, :seed, 0, :dealer, :players, '{}', :origin, :daily, 1)"
        )
        conn.execute(
            insert_old,
            [
                {
                    "id": "old1",
                    "seed": "77",
                    "dealer": deal_evs[0]["dealer"],
                    "players": 3,
                    "origin": "src",
                    "daily": None,
                },
                {
                    "id": "oldday",
                    "seed": "5",
                    "dealer": 1,
                    "players": 4,
                    "origin": None,
                    "daily": "2026-12-01",
                },
            ],
        )
        conn.execute(
            plays_t.insert(),
            [
                {"deal_id": "old1", "table_id": "src", "hand": 1, "created": 1},
                {"deal_id": "old1", "table_id": "rep", "hand": 1, "created": 2},
            ],
        )
    engine.dispose()
    store = Store(url, migrate=True)  # what `svoi-kozyri migrate` does
    try:
        with store.engine.connect() as conn:
            cols = {c["name"] for c in inspect(conn).get_columns("sk_deals")}
            assert "seed" not in cols and "offset" not in cols
            rows = {r.id: r for r in conn.execute(select(deals_t))}
            seeds = {r.id: int(r.seed) for r in conn.execute(select(tables_t))}
            configs = {r.id: json.loads(r.config) for r in conn.execute(select(tables_t))}
        assert json.loads(rows["old1"].deal) == {
            k: deal_evs[0][k] for k in ("dealer", "deck", "owners", "pairs")
        }
        assert rows["old1"].hand == 1 and json.loads(rows["old1"].seats)[0]["kind"] == "human"
        assert rows["oldday"].deal is None
        assert seeds["src"] == 77 and seeds["rep"] != 77
        assert all("first_dealer" not in c and "deal_offset" not in c for c in configs.values())
    finally:
        store.close()
    with TestClient(create_app(url, seed=4, limits=Limits.off())) as c:
        assert c.get("/api/deals/oldday").json()["playable"] is False
        r = c.post("/api/deals/oldday/play", json={"name": "Ann"})
        assert r.status_code == 410 and r.json()["code"] == "deal_retired"
        p = c.post("/api/deals/old1/play", json={"name": "Ann"})
        assert p.status_code == 200, p.text
        assert deal_events(c, p.json()["table_id"])[0] == deal_evs[0]


@pytest.mark.parametrize("extra", [{"first_dealer": 1}, {"deal_offset": 3}])
def test_a_new_table_cannot_choose_its_first_dealer_or_shuffle_offset(
    client: TestClient, extra: dict[str, Any]
) -> None:
    """The fields that let a table follow another's shuffles are gone."""
    config = {"seats": RANDOMS, **FAST, **extra}
    r = client.post("/api/tables", json={"name": "Ann", "config": config})
    assert r.status_code == 422 and r.json()["code"] == "invalid"


def test_two_server_processes_on_one_postgres_deal_the_same_daily_deck(
    postgres_server: str, tmp_path: Path
) -> None:
    """Every process of a deployment agrees on the day's deal (the secret is in
    the database), and a play at either deals the same cards."""
    url = fresh_postgres(postgres_server, "sk_daily")
    Store(url, migrate=True).close()
    servers = [
        ServerProcess(url, log_path=tmp_path / f"s{i}.log", rate_limits=False, migrate=False)
        for i in range(2)
    ]
    ids, tables = set(), []
    for srv in servers:
        srv.start()
    try:
        for srv in servers:
            with httpx.Client(base_url=srv.base) as http:
                did = http.get("/api/deals/daily").json()["deal_id"]
                ids.add(did)
                grant = http.post(f"/api/deals/{did}/play", json={"name": "Ann"}).json()
                tables.append(grant["table_id"])
    finally:
        for srv in servers:
            srv.stop()
    assert len(ids) == 1
    store = Store(url, migrate=False)
    try:
        decks = []
        for tid in tables:
            stored = store.load(tid)
            assert stored is not None
            decks.append(event_data(stored.events[0])["deck"])
    finally:
        store.close()
    assert decks[0] == decks[1]
