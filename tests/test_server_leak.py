"""No client ever receives a card it may not know.

200 full games are played through a real server process (uvicorn, real
WebSockets): the human seats are scripted clients, the other seats server bots,
and a spectator watches every table.  Afterwards every message each viewer
received is checked against the truth rebuilt from the database's event log at
the message's version: it may hold no card that is, at that moment, a private
card of another player (in another hand and not publicly known), and the
viewer's own hand in it must be exactly right.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from svoi_kozyri.core import format_card, iter_cards
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.storage.store import Store
from svoi_kozyri.server.table.game import SeatInfo, TableGame
from svoi_kozyri.server.web.client import SeatClient, low_card_policy
from svoi_kozyri.server.web.hub import bot_names
from svoi_kozyri.server.wire.schemas import TableConfig

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

GAMES = int(os.environ.get("SK_LEAK_GAMES", "200"))
CONCURRENT = 25
CARD_RE = re.compile(r"(?<![0-9A-Za-z])(10|[5-9JQKA])([SHDC])(?![0-9A-Za-z])")


def _configs() -> list[dict[str, Any]]:
    bots = [b for b in ("heuristic", "greedy") if b in bot_names()] or ["random"]
    fast = {"bot_delay_s": 0, "hand_pause_s": 0}
    h = {"kind": "human"}
    return [
        {
            "seats": [h, {"kind": "bot", "bot": bots[0]}, h, {"kind": "bot", "bot": bots[-1]}],
            "rules": {"loss_limit": 1},
            **fast,
        },
        {
            "seats": [h, h, {"kind": "bot", "bot": bots[0]}],
            "rules": {"loss_limit": 1, "suit_assignment": "blind"},
            **fast,
        },
        {"seats": [h, h], "rules": {"loss_limit": 1, "pickup_rule": "fixed"}, **fast},
        {
            "seats": [h, {"kind": "bot", "bot": bots[0]}, h, h],
            "rules": {"loss_limit": 1, "pile_visibility": "table", "sixes_transfer_public": False},
            **fast,
        },
        {
            "seats": [h, {"kind": "bot", "bot": bots[-1]}],
            "rules": {"loss_limit": 1, "trumps_per_player_2p": 1, "draw_rule": "any_last_card"},
            **fast,
        },
    ]


async def _play_table(
    srv: ServerProcess, http: httpx.AsyncClient, i: int, cfg: dict[str, Any]
) -> tuple[str, list[SeatClient]]:
    r = await http.post("/api/tables", json={"name": f"p{i}", "config": cfg})
    r.raise_for_status()
    grant = r.json()
    tid = grant["table_id"]
    tokens = [grant["token"]]
    for _ in range(sum(s["kind"] == "human" for s in cfg["seats"]) - 1):
        j = await http.post(f"/api/tables/{tid}/join", json={"name": f"q{i}"})
        j.raise_for_status()
        tokens.append(j.json()["token"])
    clients = [
        SeatClient(srv.ws_base, tid, t, low_card_policy, seed=i * 10 + k)
        for k, t in enumerate(tokens)
    ]
    clients.append(SeatClient(srv.ws_base, tid, None, None))
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), timeout=300)
    return tid, clients


async def _play_all(srv: ServerProcess) -> list[tuple[str, list[SeatClient]]]:
    configs = _configs()
    sem = asyncio.Semaphore(CONCURRENT)
    async with httpx.AsyncClient(base_url=srv.base, timeout=30) as http:

        async def one(i: int) -> tuple[str, list[SeatClient]]:
            async with sem:
                return await _play_table(srv, http, i, configs[i % len(configs)])

        return await asyncio.gather(*(one(i) for i in range(GAMES)))


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in [str(k), *_strings(v)]]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def _snapshot(
    truth: TableGame, private: list[dict[int | None, set[str]]], own: list[list[list[str]]]
) -> None:
    """Append, for the table's current version, each viewer's forbidden cards
    (other players' cards not publicly known) and every seat's true hand."""
    st = truth.state
    per: dict[int | None, set[str]] = {}
    hands: list[list[str]] = []
    for viewer in [None, *range(truth.n)]:
        cards: set[str] = set()
        if st is not None and not truth.rules.is_besicovitch:
            for i in range(truth.n):
                if i != viewer:
                    secret = st.hands[i] & ~st.known_cards(i)
                    cards |= {format_card(c) for c in iter_cards(secret)}
        per[viewer] = cards
    if st is not None:
        hands = [sorted(format_card(c) for c in iter_cards(h)) for h in st.hands]
    private.append(per)
    own.append(hands)


def test_no_message_leaks_a_private_card(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'leak.db'}"
    with ServerProcess(db, seed=11, log_path=tmp_path / "server.log", rate_limits=False) as srv:
        results = asyncio.run(_play_all(srv))
    store = Store(db)
    checked = 0
    finished = 0
    for tid, clients in results:
        stored = store.load(tid)
        assert stored is not None
        seats = [SeatInfo(s["kind"], s["bot"], s["name"], s["token_hash"]) for s in stored.seats]
        cfg = TableConfig.model_validate(stored.config)
        truth = TableGame(tid, cfg, stored.seed, seats)
        # private[v][viewer]: cards the viewer may not know at version v
        private: list[dict[int | None, set[str]]] = []
        own: list[list[list[str]]] = []

        _snapshot(truth, private, own)
        for ev in stored.events:
            truth.apply(ev)
            _snapshot(truth, private, own)
        finished += truth.session.over
        for client in clients:
            for raw in client.messages:
                msg = json.loads(raw)
                if msg["type"] != "state":
                    continue
                view = msg["view"]
                v = view["version"]
                viewer = view["viewer"]
                assert viewer == client.seat
                found = {a + b for s in _strings(msg) for a, b in CARD_RE.findall(s)}
                leaked = found & private[v][viewer]
                assert not leaked, f"table {tid} v{v}: viewer {viewer} was sent {leaked}"
                if view["hand"] is not None and viewer is not None:
                    assert sorted(view["hand"]["hand"]) == own[v][viewer]
                checked += 1
    assert finished == GAMES
    assert checked > GAMES * 50
