"""Table chat: short messages between the players of one table.

Why these limits: a chat at a card table is for "good game" and "one more?",
not a forum, and it must never be a way to hurt the game or other players.

* Only seated players write and read; spectators neither (they might be
  watching a friend's hand and passing on what they see).
* A message is at most ``MAX_CHARS`` characters, control characters removed,
  sent as JSON text; the page shows it as text, never as HTML.
* A player writes at most ``RATE_COUNT`` messages per ``RATE_SECONDS``.
* Each player can mute any other seat: muted seats' messages are not sent to
  them (``{"type": "mute", "seat": 2, "muted": true}``).
* The last ``HISTORY`` messages are kept in memory (per server process) and sent
  to a player on ``{"type": "chat_history"}``, e.g. after a reconnect.

Client messages: ``{"type": "chat", "text": "gg"}``, ``{"type": "mute", "seat": 1,
"muted": true}``, ``{"type": "chat_history"}``.  Server messages:
``{"type": "chat", "seat", "name", "text", "at"}``, ``{"type": "chat_history",
"messages": [...], "muted": [...]}``, ``{"type": "chat_mutes", "muted": [...]}``,
and the usual ``error`` (codes ``spectator``, ``chat_empty``, ``chat_too_long``,
``chat_rate``, ``malformed``).

The hub calls :func:`handle` first for every message; it answers the chat
messages and leaves every other message to the hub.
"""

from __future__ import annotations

import json
import time
import unicodedata
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import Any

MAX_CHARS = 200
RATE_COUNT = 5
RATE_SECONDS = 10.0
HISTORY = 50
TYPES = frozenset({"chat", "mute", "chat_history"})


@dataclass
class Room:
    """The chat of one live table."""

    messages: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=HISTORY))
    sent: dict[int, deque[float]] = field(default_factory=dict)
    muted: dict[int, set[int]] = field(default_factory=dict)


_rooms: weakref.WeakKeyDictionary[Any, Room] = weakref.WeakKeyDictionary()


def room(live: Any) -> Room:
    """The chat room of a live table (created on first use)."""
    r = _rooms.get(live)
    if r is None:
        r = _rooms[live] = Room()
    return r


def clean(text: str) -> str:
    """The text without control and format characters (line breaks become spaces;
    the zero-width joiner of emoji sequences stays), whitespace folded, trimmed."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Cc":
            out.append(" ")
        elif cat[0] != "C" or ch == "\u200d":
            out.append(ch)
    return " ".join("".join(out).split())


def _error(code: str, message: str) -> str:
    return json.dumps({"type": "error", "code": code, "message": message})


def _send(conn: Any, payload: dict[str, Any] | str) -> None:
    conn.queue.put_nowait(payload if isinstance(payload, str) else json.dumps(payload))


async def handle(hub: Any, live: Any, conn: Any, raw: str) -> bool:
    """Answer ``raw`` if it is a chat message (then True); else leave it (False)."""
    if '"type"' not in raw or len(raw) > 4096:
        return False
    try:
        msg = json.loads(raw)
    except ValueError:
        return False
    if not isinstance(msg, dict) or msg.get("type") not in TYPES:
        return False
    seat = conn.seat
    if seat is None:
        _send(conn, _error("spectator", "the table chat is for the players"))
        return True
    r = room(live)
    kind = msg["type"]
    if kind == "chat_history":
        muted = r.muted.get(seat, set())
        _send(
            conn,
            {
                "type": "chat_history",
                "messages": [m for m in r.messages if m["seat"] not in muted],
                "muted": sorted(muted),
            },
        )
        return True
    if kind == "mute":
        other = msg.get("seat")
        if not isinstance(other, int) or isinstance(other, bool) or not 0 <= other < live.game.n:
            _send(conn, _error("malformed", "mute needs a seat number"))
            return True
        muted = r.muted.setdefault(seat, set())
        if msg.get("muted", True) is False:
            muted.discard(other)
        elif other != seat:
            muted.add(other)
        _send(conn, {"type": "chat_mutes", "muted": sorted(muted)})
        return True
    text = msg.get("text")
    if not isinstance(text, str):
        _send(conn, _error("malformed", "a chat message needs a text"))
        return True
    text = clean(text)
    if not text:
        _send(conn, _error("chat_empty", "an empty message is not sent"))
        return True
    if len(text) > MAX_CHARS:
        _send(conn, _error("chat_too_long", f"messages are limited to {MAX_CHARS} characters"))
        return True
    now = time.monotonic()
    times = r.sent.setdefault(seat, deque())
    while times and now - times[0] > RATE_SECONDS:
        times.popleft()
    if len(times) >= RATE_COUNT:
        _send(conn, _error("chat_rate", f"at most {RATE_COUNT} messages in {RATE_SECONDS:g} s"))
        return True
    times.append(now)
    info = live.game.seats[seat]
    out = {
        "type": "chat",
        "seat": seat,
        "name": info.name or f"seat {seat}",
        "text": text,
        "at": time.time(),
    }
    r.messages.append(out)
    payload = json.dumps(out)
    for c in list(live.conns):
        if c.seat is None or seat in r.muted.get(c.seat, set()):
            continue
        _send(c, payload)
    return True
