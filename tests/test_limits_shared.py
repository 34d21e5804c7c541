"""Abuse limits that hold on many processes and many addresses (issue 20, items 5,
6, 11 and the policy part of 13).

* Item 5: the creation limit is shared by every server process (two processes
  let 20 of 30 creations through a limit of 10); ``X-Forwarded-For`` counts
  only from a configured proxy (uvicorn believed it from 127.0.0.1, so a client
  on the proxy's host chose its own address); a network (/24, /64) and everyone
  together have ceilings (1,000 loopback addresses made 43.8 tables a second);
  every 429 carries ``Retry-After``.
* Item 6: playing deals and asking for rematches have their own buckets (after
  12 deal plays anyone's rematch answered 400 ``rate_limited``), and a rate
  limit answers 429.
* Item 11: each endpoint's body limit matches what it accepts (a 17-hand
  record of 42.7 KB got 413 from a 16 KB limit while the endpoint takes
  200,000 characters), and docs/protocol.md states every limit.
* Item 13: the page policy's ``connect-src`` names the configured origins,
  never the ``Host`` header; no Swagger UI from a CDN with inline code.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import APIRouter
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from svoi_kozyri.cli.main import app as cli
from svoi_kozyri.server.edge.guard import MAX_BODY_BYTES, Limits, check_origin, network_of
from svoi_kozyri.server.features import analysis_api
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.storage.store import Store
from svoi_kozyri.server.web.app import body_limits, create_app
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)
from test_server_workers import _fresh_db

pytestmark = pytest.mark.timeout(240)

ROOT = Path(__file__).resolve().parents[1]
TWO = {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]}


def _create(http: httpx.Client, base: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return http.post(
        f"{base}/api/tables", json={"name": "Ann", "config": TWO}, headers=headers or {}
    )


def _retry_after_ok(r: httpx.Response) -> bool:
    value = r.headers.get("retry-after", "")
    return value.isdigit() and int(value) >= 1


# -- item 5: one limit for every process ---------------------------------------------------


@pytest.fixture()
def two(postgres_url: str, tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:  # noqa: F811
    db = _fresh_db(postgres_url, f"sk_limits_{os.getpid()}")
    Store(db, migrate=True).close()
    # the default limits (10 new tables, then one every 6 s, per address)
    a = ServerProcess(db, migrate=False, log_path=tmp_path / "a.log")
    b = ServerProcess(db, migrate=False, log_path=tmp_path / "b.log")
    try:
        with ThreadPoolExecutor(2) as pool:
            for started in [pool.submit(a.start, 60), pool.submit(b.start, 60)]:
                started.result()
        yield a, b
    finally:
        a.stop()
        b.stop()
    for name in ("a.log", "b.log"):
        assert "Traceback" not in (tmp_path / name).read_text(), name


def test_two_processes_share_one_creation_limit(
    two: tuple[ServerProcess, ServerProcess],
) -> None:
    """30 creations from one address, half at each process, 15 at a time:
    about 10 pass (the limit), not 20, and every refusal is 429 with Retry-After."""
    a, b = two
    t0 = time.monotonic()
    with httpx.Client(timeout=30) as http, ThreadPoolExecutor(15) as pool:
        answers = list(pool.map(lambda i: _create(http, (a, b)[i % 2].base), range(30)))
    elapsed = time.monotonic() - t0
    ok = [r for r in answers if r.status_code == 200]
    refused = [r for r in answers if r.status_code != 200]
    allowed = 10 + elapsed / 6  # the burst, and the refill meanwhile
    assert 10 <= len(ok) <= allowed + 1, (len(ok), elapsed)
    assert all(r.status_code == 429 and r.json()["code"] == "rate_limited" for r in refused)
    assert all(_retry_after_ok(r) for r in refused)


def test_serve_workers_2_shares_one_creation_limit(postgres_url: str, tmp_path: Path) -> None:  # noqa: F811
    """The same with ``serve --workers 2`` on one port: each request on a new
    connection, so both workers answer (their pids are seen), and still about
    10 of 30 creations pass."""
    db = _fresh_db(postgres_url, f"sk_limits_w_{os.getpid()}")
    Store(db, migrate=True).close()
    with ServerProcess(db, migrate=False, workers=2, log_path=tmp_path / "w.log") as srv:

        def one(i: int) -> tuple[int, int]:
            with httpx.Client(timeout=30) as http:  # a connection of its own
                pid = http.get(f"{srv.base}/healthz").json()["pid"]
                return pid, _create(http, srv.base).status_code

        t0 = time.monotonic()
        with ThreadPoolExecutor(15) as pool:
            answers = list(pool.map(one, range(30)))
        elapsed = time.monotonic() - t0
    assert len({pid for pid, _ in answers}) == 2  # both workers answered
    codes = [code for _, code in answers]
    assert 10 <= codes.count(200) <= 10 + elapsed / 6 + 1, (codes, elapsed)
    assert set(codes) == {200, 429}


# -- item 5: addresses, proxies, networks -------------------------------------------------------


def test_forwarded_for_counts_only_from_a_trusted_proxy(tmp_path: Path) -> None:
    """Without ``--trusted-proxy`` a client that writes its own X-Forwarded-For
    still spends its own address's tokens; behind a trusted proxy each client
    has its own, and the part a client wrote itself (left of the proxy's entry)
    is ignored."""
    db = f"sqlite:///{tmp_path / 'p.db'}"
    with ServerProcess(db, log_path=tmp_path / "p.log") as srv, httpx.Client(timeout=30) as http:
        codes = [
            _create(http, srv.base, {"X-Forwarded-For": f"10.{i}.0.1"}).status_code
            for i in range(14)
        ]
        assert codes.count(200) in (10, 11) and set(codes[11:]) == {429}, codes
    with (
        ServerProcess(
            db, log_path=tmp_path / "q.log", extra_args=["--trusted-proxy", "127.0.0.0/8"]
        ) as srv,
        httpx.Client(timeout=30) as http,
    ):
        codes = [
            _create(http, srv.base, {"X-Forwarded-For": f"10.{i}.0.1"}).status_code
            for i in range(14)
        ]
        assert codes == [200] * 14  # fourteen clients behind the proxy
        spoofed = [
            _create(http, srv.base, {"X-Forwarded-For": f"192.0.2.{i}, 198.51.100.7"}).status_code
            for i in range(14)
        ]
        assert spoofed.count(200) in (10, 11), spoofed  # all from 198.51.100.7


def test_a_thousand_loopback_addresses_do_not_flood(tmp_path: Path) -> None:
    """Creations from 200 loopback addresses of 10 networks (no proxy: the real
    source addresses) with the default limits: each /24 gets three times one
    address's burst and everyone together 100 then 3 a second, so no more than
    about 100 pass (every one of them did)."""
    db = f"sqlite:///{tmp_path / 'l.db'}"
    with ServerProcess(db, log_path=tmp_path / "l.log") as srv:
        t0 = time.monotonic()

        def one(i: int) -> int:
            transport = httpx.HTTPTransport(local_address=f"127.0.{i // 20 + 1}.{i % 20 + 1}")
            with httpx.Client(transport=transport, timeout=30) as http:
                return _create(http, srv.base).status_code

        with ThreadPoolExecutor(8) as pool:
            codes = list(pool.map(one, range(200)))
        elapsed = time.monotonic() - t0
    assert set(codes) == {200, 429}
    assert codes.count(200) <= 100 + 3 * elapsed + 1, (codes.count(200), elapsed)


def _proxied_app(tmp_path: Path, limits: Limits, name: str) -> TestClient:
    app = create_app(f"sqlite:///{tmp_path / name}", limits=limits, trusted_proxies=["127.0.0.1"])
    return TestClient(app, client=("127.0.0.1", 40000))


def test_one_network_and_everyone_have_ceilings(tmp_path: Path) -> None:
    limits = Limits(
        create_burst=2,
        create_rate=0.001,
        network_factor=3,
        create_global_burst=10,
        create_global_rate=0.001,
    )
    with _proxied_app(tmp_path, limits, "n.db") as client:

        def create(addr: str) -> int:
            r = client.post(
                "/api/tables",
                json={"name": "Ann", "config": TWO},
                headers={"X-Forwarded-For": addr},
            )
            return r.status_code

        one_net = [create(f"10.1.1.{i}") for i in range(1, 21)]
        assert one_net.count(200) == 6  # 3 x the burst of one address, for the /24
        many = [create(f"10.{k}.0.1") for k in range(2, 22)]
        assert many.count(200) == 4  # everyone together: 10
    with _proxied_app(tmp_path, limits, "v6.db") as client:
        v6 = [
            client.post(
                "/api/tables",
                json={"name": "Ann", "config": TWO},
                headers={"X-Forwarded-For": f"2001:db8::{i:x}"},
            ).status_code
            for i in range(1, 21)
        ]
        assert v6.count(200) == 6  # one /64


def test_network_of() -> None:
    assert network_of("10.1.2.3") == "10.1.2.0/24"
    assert network_of("::ffff:10.1.2.3") == "10.1.2.0/24"
    assert network_of("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64"
    assert network_of("testclient") == "testclient"


# -- item 6 and Retry-After: purposes have their own buckets; 429, never 400 --------------------


def _hello(ws: Any, token: str) -> None:
    ws.send_text(json.dumps({"type": "hello", "token": token}))
    assert ws.receive_json()["type"] == "welcome"


def test_deal_plays_and_rematches_have_their_own_limits(tmp_path: Path) -> None:
    limits = Limits(create_burst=2, create_rate=0.001)
    app = create_app(f"sqlite:///{tmp_path / 'd.db'}", limits=limits, unattended_delay_s=0)
    with TestClient(app) as client:
        # a finished session: the player plays it out against a random bot
        cfg = {**TWO, "bot_delay_s": 0, "hand_pause_s": 0, "rules": {"loss_limit": 1}}
        a = client.post("/api/tables", json={"name": "Ann", "config": cfg}).json()
        tid = a["table_id"]
        with client.websocket_connect(f"/ws/{tid}") as ws:
            _hello(ws, a["token"])
            for _ in range(5000):
                m = ws.receive_json()
                if m["type"] != "state":
                    continue
                view = m["view"]
                if view["status"] == "finished":
                    break
                hand = view["hand"]
                if hand and hand["to_act"] == a["seat"] and hand["legal"]:
                    ws.send_text(json.dumps({"type": "move", "move": hand["legal"][0]}))
            else:
                raise AssertionError("the session did not finish")
        # deal plays until refused: 429 with Retry-After, not 400
        did = client.get("/api/deals/daily").json()["deal_id"]
        plays = [
            client.post(f"/api/deals/{did}/play", json={"name": f"P{i}", "seat": 0})
            for i in range(3)
        ]
        assert [r.status_code for r in plays] == [200, 200, 429], [r.text for r in plays]
        assert plays[2].json()["code"] == "rate_limited" and _retry_after_ok(plays[2])
        # the creation bucket is spent too (one table above, and a second now)
        assert client.post("/api/tables", json={"name": "Cy", "config": TWO}).status_code == 200
        made = client.post("/api/tables", json={"name": "Cy", "config": TWO})
        assert made.status_code == 429 and _retry_after_ok(made)
        # ...and still the players' rematch goes through (it was 400 rate_limited)
        again = client.post(f"/api/tables/{tid}/rematch", headers={"X-Seat-Token": a["token"]})
        assert again.status_code == 200, again.text


def test_every_429_says_when_to_come_back(tmp_path: Path) -> None:
    router = APIRouter()

    @router.get("/api/test-busy")
    async def busy() -> JSONResponse:  # an endpoint that forgot the header
        return JSONResponse({"code": "busy"}, status_code=429)

    limits = Limits(create_burst=1, create_rate=0.001, join_burst=1, join_rate=0.001)
    app = create_app(f"sqlite:///{tmp_path / 'r.db'}", limits=limits, routers=[router])
    with TestClient(app) as client:
        four = {"seats": [{"kind": "human"}] * 3 + [{"kind": "bot"}]}
        g = client.post("/api/tables", json={"name": "Ann", "config": four}).json()
        r = client.post("/api/tables", json={"name": "Ann", "config": four})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 900  # 1 / 0.001 s
        tid = g["table_id"]
        assert client.post(f"/api/tables/{tid}/join", json={"name": "Bob"}).status_code == 200
        r = client.post(f"/api/tables/{tid}/join", json={"name": "Cy"})
        assert r.status_code == 429 and _retry_after_ok(r)
        r = client.get("/api/test-busy")
        assert r.status_code == 429 and r.headers["retry-after"] == "1"


# -- item 11: one body limit per endpoint, as documented ---------------------------------------


def test_body_limits_match_the_endpoints(tmp_path: Path) -> None:
    with TestClient(create_app(f"sqlite:///{tmp_path / 'b.db'}")) as client:
        # a record of 50 KB (17 hands are 42.7 KB) reaches the endpoint
        text = "x" * 50_000
        r = client.post("/api/analysis/record", json={"text": text})
        assert r.status_code != 413, r.text
        # the longest text the endpoint takes reaches it; a body past the limit does not
        longest = "é" * analysis_api.MAX_RECORD_CHARS
        body = json.dumps({"text": longest}, ensure_ascii=False).encode()
        assert len(body) <= body_limits()["/api/analysis/record"]
        r = client.post(
            "/api/analysis/record", content=body, headers={"content-type": "application/json"}
        )
        assert r.status_code != 413
        big = b'{"text": "' + b"x" * body_limits()["/api/analysis/record"] + b'"}'
        r = client.post(
            "/api/analysis/record", content=big, headers={"content-type": "application/json"}
        )
        assert r.status_code == 413
        # every other endpoint keeps the small limit
        r = client.post("/api/tables", content=b"{" + b" " * MAX_BODY_BYTES + b"}")
        assert r.status_code == 413


def test_protocol_doc_states_every_body_limit() -> None:
    doc = (ROOT / "docs" / "protocol.md").read_text()
    rows = dict(re.findall(r"^\| `([^`]+)` \| ([0-9,]+) bytes", doc, flags=re.M))
    expected = {"everything else": MAX_BODY_BYTES, **body_limits()}
    assert {k: int(v.replace(",", "")) for k, v in rows.items()} == expected


# -- item 13: the page policy names configured origins only; no CDN docs ------------------------


def test_policy_names_the_configured_origin_never_the_host(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path / 'o.db'}", public_origins=["https://Cards.example.org"])
    with TestClient(app) as client:
        for host in ("cards.example.org", "evil.example", "x; script-src *"):
            csp = client.get("/", headers={"host": host}).headers["content-security-policy"]
            assert "connect-src 'self' https://cards.example.org wss://cards.example.org;" in csp
            assert "evil" not in csp and "script-src *" not in csp
        assert client.get("/api/docs").status_code == 404  # no Swagger UI (CDN, inline code)
        spec = client.get("/api/openapi.json")
        assert spec.status_code == 200 and "/api/tables" in spec.json()["paths"]
        for path in ("/", "/api/docs", "/api/openapi.json", "/rules"):
            assert "unsafe-inline" not in client.get(path).headers["content-security-policy"]


@pytest.mark.parametrize(
    "bad",
    ["https://cards.example.org/path", "javascript:alert(1)", "https://a;b", "ftp://x.org", ""],
)
def test_origins_are_checked(bad: str) -> None:
    with pytest.raises(ValueError):
        check_origin(bad)


def test_serve_refuses_bad_proxies_and_origins(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 's.db'}"
    for args in (["--trusted-proxy", "not-an-address"], ["--public-origin", "https://a/b"]):
        out = CliRunner().invoke(cli, ["serve", "--database", db, "--port", "0", *args])
        assert out.exit_code == 2, out.output
        assert args[1] in out.output
