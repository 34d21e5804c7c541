"""Observability (issue 26, item 3): Prometheus metrics, JSON logs, readiness.

* the metrics move with play (actions by who made them, move latency, bot think
  time, sockets, live tables, loop lag) and errors are counted by code, over HTTP
  and over sockets;
* ``/metrics`` asks for the bearer token when one is set;
* ``/readyz`` is 200 only with the database reachable and at the newest schema
  revision and the background loops running, else 503 with the reason;
* ``serve --log-format json`` writes one JSON object per line, with request and
  table ids, and neither the logs nor the metrics carry a seat token, the
  database's secret or a card of any hand;
* the Grafana dashboard names only metrics that exist, and every metric is on it;
* with ``--workers 2`` on PostgreSQL, one scrape merges both workers' counts.

The collectors are process-wide, so the in-process tests compare before and after.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import Engine, create_engine, text
from websockets.sync.client import connect

from svoi_kozyri.core.cards import format_card
from svoi_kozyri.server.edge.guard import Limits
from svoi_kozyri.server.runtime import metrics
from svoi_kozyri.server.runtime.logs import REQUEST_ID, TABLE_ID, JsonFormatter
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.storage.migrate import head_revision
from svoi_kozyri.server.storage.store import Store
from svoi_kozyri.server.web import observability
from svoi_kozyri.server.web.app import create_app
from svoi_kozyri.server.wire.events import DealEvent
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)
from test_server_workers import _fresh_db

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parent.parent
DASHBOARD = ROOT / "docs" / "grafana-dashboard.json"
QUICK = {"bot_delay_s": 0, "hand_pause_s": 0, "grace_s": 60}
VS_BOT = {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}], **QUICK}

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parse(body: str) -> Samples:
    """Every sample of a scrape, by name and labels."""
    out: Samples = {}
    for family in text_string_to_metric_families(body):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of the samples called ``name`` whose labels include ``labels``."""
    want = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and want <= ls)


def label_values(samples: Samples, name: str, label: str) -> set[str]:
    """The values of ``label`` among the samples called ``name``."""
    return {dict(ls)[label] for (n, ls), _ in samples.items() if n == name and label in dict(ls)}


def _until(what: str, check: Any, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _move_when_asked(m: dict[str, Any], last: int) -> str | None:
    """The move to send for state message ``m`` (seat 0's first legal move, once
    per version), or None."""
    if m.get("type") != "state":
        return None
    view = m["view"]
    h = view["hand"]
    if view["version"] > last and h and h["to_act"] == 0 and not h["result"] and h["legal"]:
        return json.dumps({"type": "move", "move": h["legal"][0], "version": view["version"]})
    return None


# -- in one process (TestClient) ---------------------------------------------------------


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("metrics") / "t.sqlite3"
    app = create_app(f"sqlite:///{db}", seed=26, limits=Limits.off())
    with TestClient(app) as c:
        yield c


def scrape(client: TestClient) -> Samples:
    r = client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    return parse(r.text)


def _with_socket(client: TestClient) -> Samples | None:
    """A scrape that counts an open socket, or None."""
    samples = scrape(client)
    return samples if total(samples, "svoi_kozyri_sockets") >= 1 else None


def _stamp(engine: Engine, revision: str) -> None:
    """Set the database's schema revision (as an older or newer program would)."""
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = :v"), {"v": revision})


def test_metrics_move_with_play(client: TestClient) -> None:
    before = scrape(client)
    g = client.post("/api/tables", json={"name": "Ann", "config": VS_BOT}).json()
    moves, last = 0, -1
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": g["token"]}))
        while moves < 4:
            m = ws.receive_json()
            move = _move_when_asked(m, last)
            if move is not None:
                ws.send_text(move)
                moves, last = moves + 1, m["view"]["version"]
        # the gauges are refreshed once a second, off the hot path
        during = _until("the socket counted", lambda: _with_socket(client))
    after = scrape(client)

    def grew(name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(before, name, **labels)

    assert grew("svoi_kozyri_actions_total", by="player") == moves
    assert grew("svoi_kozyri_actions_total", by="deal") >= 1
    bot_moves = grew("svoi_kozyri_actions_total", by="bot")
    assert bot_moves >= moves - 1
    assert grew("svoi_kozyri_bot_think_seconds_count", bot="random") == bot_moves
    assert grew("svoi_kozyri_move_seconds_count") == moves
    assert 0 < grew("svoi_kozyri_move_seconds_sum") < 5 * moves
    assert total(during, "svoi_kozyri_live_tables") >= 1
    assert total(after, "svoi_kozyri_event_loop_lag_seconds_count") >= 1
    assert total(after, "svoi_kozyri_db_pool_in_use") >= 0
    assert grew("svoi_kozyri_http_responses_total", status="200") >= 2
    assert total(after, "process_resident_memory_bytes") > 0  # one process: its own


def test_errors_are_counted_by_code(client: TestClient) -> None:
    before = scrape(client)
    assert client.get("/api/tables/nosuchtable").status_code == 404
    assert client.get("/api/tables", params={"token": "x"}).status_code == 400
    assert client.post("/api/tables", json={"name": 5}).status_code == 422
    g = client.post("/api/tables", json={"name": "Bo", "config": VS_BOT}).json()
    with client.websocket_connect(f"/ws/{g['table_id']}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": None}))  # a spectator
        ws.send_text(json.dumps({"type": "move", "move": "pass"}))
        ws.send_text("{not json")
        codes: list[str] = []
        while len(codes) < 2:
            m = ws.receive_json()
            if m["type"] == "error":
                codes.append(m["code"])
    after = scrape(client)

    def grew(where: str, code: str) -> float:
        labels = {"where": where, "code": code}
        name = "svoi_kozyri_errors_total"
        return total(after, name, **labels) - total(before, name, **labels)

    assert grew("http", "no_table") == 1
    assert grew("http", "token_in_url") == 1
    assert grew("http", "invalid") == 1
    assert codes[0] == "spectator"
    for code in codes:
        assert grew("socket", code) >= 1, code
    assert total(after, "svoi_kozyri_http_responses_total", status="404") >= 1


def test_errors_with_odd_codes_share_one_label() -> None:
    before = parse(metrics.exposition().decode())
    metrics.count_error("http", "Not A Code\n{}")
    after = parse(metrics.exposition().decode())
    name = "svoi_kozyri_errors_total"
    assert total(after, name, code="other") - total(before, name, code="other") == 1
    assert not any("Not A Code" in v for v in label_values(after, name, "code"))


def test_request_ids(client: TestClient) -> None:
    r = client.get("/healthz", headers={"X-Request-ID": "abc-123"})
    assert r.headers["x-request-id"] == "abc-123"
    odd = client.get("/healthz", headers={"X-Request-ID": 'a b"{}' * 30})
    assert re.fullmatch(r"[0-9a-f]{16}", odd.headers["x-request-id"])
    assert client.get("/healthz").headers["x-request-id"] != odd.headers["x-request-id"]


def test_readyz(client: TestClient) -> None:
    assert client.get("/readyz").json() == {"ready": True}
    hub = client.app.state.hub  # type: ignore[attr-defined]
    engine = hub.store.engine
    head = head_revision()
    _stamp(engine, "0001")
    try:
        r = client.get("/readyz")
        assert r.status_code == 503
        assert r.json()["problems"] == [
            f"database at schema revision 0001, this program needs {head}"
        ]
    finally:
        _stamp(engine, head)
    assert client.get("/readyz").status_code == 200
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE alembic_version RENAME TO alembic_version_away"))
    try:
        r = client.get("/readyz")
    finally:
        with engine.begin() as conn:
            conn.execute(text("ALTER TABLE alembic_version_away RENAME TO alembic_version"))
    assert r.json()["problems"] == ["database schema revision unreadable (OperationalError)"]
    assert client.get("/readyz").status_code == 200
    # a database server nobody answers at: refused at once on this port
    hub.store.engine = create_engine("postgresql+psycopg://nobody:pw-sekrit@127.0.0.1:1/none")
    try:
        r = client.get("/readyz")
    finally:
        hub.store.engine.dispose()
        hub.store.engine = engine
    assert r.status_code == 503
    assert r.json()["problems"] == ["database unreachable (OperationalError)"]
    assert "sekrit" not in r.text and "nobody" not in r.text
    assert client.get("/readyz").status_code == 200
    assert client.get("/healthz").status_code == 200  # liveness is not readiness


def test_readyz_gives_up_on_a_silent_database(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(observability, "DB_CHECK_S", 0.2)
    monkeypatch.setattr(observability, "database_problem", lambda _engine: time.sleep(1.0))
    r = client.get("/readyz")
    assert r.status_code == 503
    assert r.json()["problems"] == ["database did not answer within 0.2 s"]
    time.sleep(1.0)  # the shared check ends: the next probe starts a new one
    monkeypatch.undo()
    assert client.get("/readyz").status_code == 200


def test_metrics_token(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'm.sqlite3'}", metrics_token="tok-7f3a")
    with TestClient(app) as c:
        assert c.get("/metrics").status_code == 401
        wrong = c.get("/metrics", headers={"Authorization": "Bearer tok-7f3b"})
        assert wrong.status_code == 401 and wrong.json()["code"] == "metrics_token"
        assert c.get("/metrics", headers={"Authorization": "Basic tok-7f3a"}).status_code == 401
        ok = c.get("/metrics", headers={"Authorization": "Bearer tok-7f3a"})
        assert ok.status_code == 200 and "svoi_kozyri_actions_total" in ok.text
        assert "tok-7f3a" not in ok.text
        assert c.get("/readyz").status_code == 200  # readiness needs no token


def test_json_formatter() -> None:
    fmt = JsonFormatter()
    record = logging.LogRecord(
        "svoi_kozyri.server", logging.WARNING, __file__, 1, "a %s", ("b",), None
    )
    plain = json.loads(fmt.format(record))
    assert plain["message"] == "a b" and plain["level"] == "warning"
    assert plain["logger"] == "svoi_kozyri.server"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", plain["time"])
    assert "request_id" not in plain and "table_id" not in plain
    rid, tid = REQUEST_ID.set("r1"), TABLE_ID.set("t1")
    try:
        try:
            raise ValueError("boom\nline")
        except ValueError:
            record = logging.LogRecord(
                "x", logging.ERROR, __file__, 1, "failed: %r", ({"a": 1},), sys.exc_info()
            )
        line = fmt.format(record)
    finally:
        TABLE_ID.reset(tid)
        REQUEST_ID.reset(rid)
    assert "\n" not in line
    got = json.loads(line)
    assert got["request_id"] == "r1" and got["table_id"] == "t1"
    assert "ValueError: boom" in got["exception"]


def test_dashboard_names_only_metrics_that_exist() -> None:
    board = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    exprs: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("expr", "query") and isinstance(value, str):
                    exprs.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(board)
    assert exprs, "the dashboard has queries"
    families = {m.name for m in metrics.REGISTRY.collect() if m.name.startswith("svoi_kozyri_")}
    named: set[str] = set()
    for expr in exprs:
        for name in re.findall(r"\bsvoi_kozyri_[a-z_]+", expr):
            base = re.sub(r"_(total|bucket|sum|count)$", "", name)
            assert base in families, f"{name} in {expr!r} is no metric"
            named.add(base)
    assert named == families, f"not on the dashboard: {sorted(families - named)}"


def test_multiproc_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(metrics.MULTIPROC_ENV, raising=False)
    with metrics.multiproc_dir() as made:
        assert os.environ[metrics.MULTIPROC_ENV] == made and Path(made).is_dir()
    assert not Path(made).exists() and metrics.MULTIPROC_ENV not in os.environ
    given = tmp_path / "prom"
    given.mkdir()
    (given / "counter_123.db").write_bytes(b"an earlier run")
    (given / "keep.txt").write_text("not ours")
    monkeypatch.setenv(metrics.MULTIPROC_ENV, str(given))
    with metrics.multiproc_dir() as used:
        assert used == str(given)
    assert sorted(p.name for p in given.iterdir()) == ["keep.txt"]  # the old values gone


def test_gauges_of_dead_workers_are_dropped(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    gone = int(dead.stdout)
    for pid in (os.getpid(), gone):
        for name in (f"gauge_liveall_{pid}.db", f"counter_{pid}.db"):
            (tmp_path / name).write_bytes(b"")
    metrics._forget_dead(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [f"gauge_liveall_{os.getpid()}.db", f"counter_{os.getpid()}.db", f"counter_{gone}.db"]
    )


def test_serve_passes_the_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from svoi_kozyri.cli.main import app as cli
    from svoi_kozyri.server.web import run

    got: dict[str, Any] = {}
    monkeypatch.setattr(run, "run_server", lambda url, **kw: got.update(kw))
    db = ["--database", f"sqlite:///{tmp_path / 's.sqlite3'}", "--port", "0"]
    env = {"SVOI_KOZYRI_METRICS_TOKEN": "tok-from-env"}
    done = CliRunner().invoke(cli, ["serve", *db, "--log-format", "json"], env=env)
    assert done.exit_code == 0, done.output
    assert got["log_format"] == "json" and got["metrics_token"] == "tok-from-env"
    assert "tok-from-env" not in done.output
    bad = CliRunner().invoke(cli, ["serve", *db, "--log-format", "xml"])
    assert bad.exit_code != 0 and "--log-format must be one of text, json" in bad.output


# -- a real server process: JSON logs, and nothing secret anywhere ----------------------------


def _card_pattern(cards: set[str]) -> re.Pattern[str]:
    words = "|".join(sorted(map(re.escape, cards), key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9])(?:{words})(?![A-Za-z0-9])")


def _play_over_socket(srv: ServerProcess, table_id: str, token: str, moves: int) -> int:
    made, last = 0, -1
    with connect(f"{srv.ws_base}/ws/{table_id}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        while made < moves:
            m = json.loads(ws.recv(timeout=10))
            move = _move_when_asked(m, last)
            if move is not None:
                ws.send(move)
                made, last = made + 1, m["view"]["version"]
        ws.send(json.dumps({"type": "move", "move": "nonsense"}))
        while json.loads(ws.recv(timeout=10))["type"] != "error":
            pass
    return made


def test_json_logs_and_no_secret_in_logs_or_metrics(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'j.sqlite3'}"
    log = tmp_path / "server.log"
    args = ["--log-format", "json", "--log-level", "info"]
    tokens: list[str] = []
    tables: list[str] = []
    srv = ServerProcess(db, seed=7, rate_limits=False, log_path=log, extra_args=args)
    with srv, httpx.Client(base_url=srv.base, timeout=10) as http:
        two = {"seats": [{"kind": "human"}, {"kind": "human"}], **QUICK}
        for config in (VS_BOT, two):
            g = http.post("/api/tables", json={"name": "Ann", "config": config}).json()
            tables.append(g["table_id"])
            tokens.append(g["token"])
        joined = http.post(f"/api/tables/{tables[1]}/join", json={"name": "Bo"}).json()
        tokens.append(joined["token"])
        _play_over_socket(srv, tables[0], tokens[0], 5)
        _play_over_socket(srv, tables[1], tokens[1], 0)  # seat 1 may lead: no wait
        # a token where it must not be: refused, and cut from the access log
        http.get(f"/api/tables/{tables[0]}", params={"token": tokens[0]})
        http.get(f"/api/tables/{tables[0]}", headers={"X-Seat-Token": tokens[2]})
        time.sleep(1.2)  # one refresh of the gauges
        scraped = http.get("/metrics").text
        assert http.get("/readyz").json() == {"ready": True}
    store = Store(db)
    try:
        secret = store.server_secret()
        cards: set[str] = set()
        for table_id in tables:
            stored = store.load(table_id)
            assert stored is not None
            for event in stored.events:
                if isinstance(event, DealEvent):
                    cards |= {format_card(c) for c in event.deck}
                    cards |= {format_card(c, ten="T") for c in event.deck}
    finally:
        store.close()
    assert len(cards) >= 36

    lines = log.read_text(encoding="utf-8").splitlines()
    parsed = [json.loads(line) for line in lines]  # every line is one JSON object
    assert parsed and all({"time", "level", "logger", "message"} <= set(p) for p in parsed)
    access = [p for p in parsed if p["logger"] == "uvicorn.access"]
    assert access and all(re.fullmatch(r"[0-9a-f]{16}", p["request_id"]) for p in access)
    assert any(p.get("table_id") == tables[0] and "/api/tables/" in p["message"] for p in access)
    assert any(p.get("table_id") == tables[0] and "WebSocket" in p["message"] for p in parsed)

    cards_seen = _card_pattern(cards)
    for where, body in (("logs", "\n".join(lines)), ("metrics", scraped)):
        for token in tokens:
            assert token not in body, f"a seat token in the {where}"
        assert secret.hex() not in body and secret.hex().upper() not in body, where
        found = cards_seen.search(body)
        assert found is None, f"a card ({found and found.group()}) in the {where}"
    assert "svoi_kozyri_actions_total" in scraped


# -- PostgreSQL: two workers, one scrape ------------------------------------------------------


def _each_worker(srv: ServerProcess, path: str, workers: int = 2) -> dict[int, Any]:
    """The answer of ``path`` from every worker, by pid (new connections until
    each worker has answered one: the kernel hands them out)."""
    seen: dict[int, Any] = {}
    deadline = time.monotonic() + 30
    while len(seen) < workers:
        assert time.monotonic() < deadline, f"only workers {sorted(seen)} answered"
        with httpx.Client(base_url=srv.base, timeout=10) as http:
            body = http.get("/healthz").json()
            seen[body["pid"]] = body if path == "/healthz" else http.get(path).json()
    return seen


def test_two_workers_on_postgres_one_scrape(postgres_url: str, tmp_path: Path) -> None:  # noqa: F811
    db = _fresh_db(postgres_url, "sk_metrics")
    Store(db, migrate=True).close()
    # a table nobody is at stops at once (the counts settle); JSON lines in every worker
    args = ["--idle-pause", "0", "--log-format", "json", "--log-level", "info"]
    log = tmp_path / "w.log"
    srv = ServerProcess(
        db,
        workers=2,
        rate_limits=False,
        migrate=False,
        log_path=log,
        extra_args=args,
    )
    moves = 0
    folders = set(Path(tempfile.gettempdir()).glob("svoi-kozyri-metrics-*"))
    with srv:
        with httpx.Client(base_url=srv.base, timeout=10) as http:
            for _ in range(4):
                g = http.post("/api/tables", json={"name": "Ann", "config": VS_BOT}).json()
                moves += _play_over_socket(srv, g["table_id"], g["token"], 3)

        def settled() -> Samples | None:
            first = parse(httpx.get(srv.base + "/metrics", timeout=10).text)
            time.sleep(0.5)
            second = parse(httpx.get(srv.base + "/metrics", timeout=10).text)
            name = "svoi_kozyri_actions_total"
            return second if total(first, name) == total(second, name) else None

        scraped = _until("the actions to settle", settled)
        workers = _each_worker(srv, "/healthz")
        # counters are summed over the workers: the scrape any worker answers
        # holds every worker's actions
        assert total(scraped, "svoi_kozyri_actions_total") == sum(
            w["actions"] for w in workers.values()
        )
        assert total(scraped, "svoi_kozyri_actions_total", by="player") == moves
        assert total(scraped, "svoi_kozyri_move_seconds_count") == moves
        assert total(scraped, "svoi_kozyri_errors_total", where="socket") >= 4
        # gauges are per worker
        pids = {str(pid) for pid in workers}
        for gauge in ("svoi_kozyri_event_loop_lag_last_seconds", "svoi_kozyri_live_tables"):
            assert label_values(scraped, gauge, "pid") == pids, gauge
        assert total(scraped, "process_resident_memory_bytes") == 0  # not mergeable

        assert all(r == {"ready": True} for r in _each_worker(srv, "/readyz").values())
        engine = create_engine(db)
        try:
            _stamp(engine, "0001")
            stale = _each_worker(srv, "/readyz")
            assert all(
                not r["ready"] and "revision 0001" in r["problems"][0] for r in stale.values()
            )
            _stamp(engine, head_revision())
            assert all(r["ready"] for r in _each_worker(srv, "/readyz").values())
        finally:
            engine.dispose()
    # the supervisor removed the workers' value files
    assert set(Path(tempfile.gettempdir()).glob("svoi-kozyri-metrics-*")) == folders
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert {p["logger"] for p in lines} >= {"uvicorn.error", "uvicorn.access"}
    assert not any("exception" in p for p in lines)


def test_readyz_needs_the_cluster_loops(postgres_url: str) -> None:  # noqa: F811
    db = _fresh_db(postgres_url, "sk_metrics_loops")
    Store(db, migrate=True).close()
    with TestClient(create_app(db, migrate=False)) as c:
        assert c.get("/readyz").json() == {"ready": True}
        peer = c.app.state.hub.peer  # type: ignore[attr-defined]
        task = peer._tasks[0]

        async def cancel() -> None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

        c.portal.call(cancel)  # type: ignore[union-attr]
        r = c.get("/readyz")
        assert r.status_code == 503
        assert r.json()["problems"] == ["cluster loops (notifications, leases) not running"]


def test_readyz_needs_the_platform_loops(client: TestClient) -> None:
    """A process whose pairing (or challenges, tournaments) loop died must not be
    sent players: readiness names the loop."""
    players = client.app.state.players  # type: ignore[attr-defined]
    pairing = next(s for s in players.services if s.name == "pairing")
    assert client.get("/readyz").status_code == 200
    task = pairing._task
    assert task is not None
    portal = client.portal  # type: ignore[attr-defined]
    portal.call(pairing.stop)
    try:
        r = client.get("/readyz")
        assert r.status_code == 503
        assert r.json()["problems"] == ["pairing loop not running"]
    finally:
        portal.call(pairing.start)
    assert client.get("/readyz").status_code == 200
