"""A scripted WebSocket client of the server (tests and the load benchmark).

:class:`SeatClient` connects to a table as a seat (or as a spectator), keeps
every message it receives, and, when it is its seat's turn, answers with a move
chosen from the view's legal moves by a simple policy.  It sees exactly what a
browser would: only the messages the server sends to that viewer.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from ...core import parse_card, rank_of

Policy = Callable[[list[str], random.Random], str]


def low_card_policy(legal: list[str], rng: random.Random) -> str:
    """Beat whenever possible with the lowest card and lead the lowest card;
    pick up only when nothing beats.  Hands end quickly with it."""
    plays = [m for m in legal if m != "pickup"]
    if not plays:
        return legal[0]

    def key(m: str) -> tuple[int, int, float]:
        cards = [parse_card(w) for w in m.split()[1::2]]
        return (rank_of(cards[0]), rank_of(cards[-1]), rng.random())

    return min(plays, key=key)


@dataclass
class SeatClient:
    """One viewer of a table: ``token=None`` is a spectator."""

    ws_base: str
    table_id: str
    token: str | None
    policy: Policy | None = low_card_policy
    seed: int = 0
    think_s: float = 0.0
    max_moves: int | None = None
    messages: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    seat: int | None = None
    last_view: dict[str, Any] | None = None
    moves: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)

    async def run(self, stop: Callable[[dict[str, Any]], bool] | None = None) -> None:
        """Play until the session is over (or ``stop(view)`` or ``max_moves``)."""
        rng = random.Random(self.seed)
        async with connect(f"{self.ws_base}/ws/{self.table_id}", max_size=2**22) as ws:
            await ws.send(json.dumps({"type": "hello", "token": self.token}))
            sent_at: float | None = None
            sent_version = -1
            async for raw in ws:
                assert isinstance(raw, str)
                self.messages.append(raw)
                msg = json.loads(raw)
                kind = msg["type"]
                if kind == "welcome":
                    self.seat = msg["seat"]
                    continue
                if kind == "error":
                    self.errors.append(msg)
                    if msg["code"] in ("bad_token", "no_table"):
                        return
                    continue
                if kind != "state":
                    continue
                view = msg["view"]
                self.last_view = view
                if sent_at is not None and view["version"] > sent_version:
                    self.latencies.append(time.perf_counter() - sent_at)
                    sent_at = None
                if view["session"]["over"] or (stop is not None and stop(view)):
                    return
                if self.max_moves is not None and self.moves >= self.max_moves:
                    return
                hand = view["hand"]
                if (
                    self.policy is None
                    or self.seat is None
                    or hand is None
                    or hand["to_act"] != self.seat
                    or not hand["legal"]
                    or view["version"] == sent_version
                ):
                    continue
                if self.think_s:
                    await asyncio.sleep(self.think_s * (0.5 + rng.random()))
                move = self.policy(hand["legal"], rng)
                sent_version = view["version"]
                sent_at = time.perf_counter()
                await self._send(ws, {"type": "move", "move": move, "version": sent_version})
                self.moves += 1

    @staticmethod
    async def _send(ws: ClientConnection, msg: dict[str, Any]) -> None:
        await ws.send(json.dumps(msg))
