"""Table chat: short messages between the players of one table.

Why these limits: a chat at a card table is for "good game" and "one more?",
not a forum, and it must never be a way to hurt the game or other players.

* Only seated players write and read; spectators neither (they might be
  watching a friend's hand and passing on what they see).
* A message is a socket frame like any other: at most 2,048 bytes of UTF-8
  (:data:`~.schemas.MAX_MESSAGE_BYTES`), strict (no extra fields, no ``"1"`` for
  a seat).  Its text, control and format characters removed and at most two
  combining marks on a character, is at most ``MAX_CHARS`` characters; it is
  sent as JSON text, and the page shows it as text, never as HTML.
* A player writes at most ``RATE_COUNT`` messages per ``RATE_SECONDS``.
* Each player can mute any other seat: muted seats' messages are not sent to
  them (``{"type": "mute", "seat": 2, "muted": true}``).
* Two accounts with a block between them (:mod:`~..platform.blocks`, either
  way) never see each other's messages, as if each had muted the other; it is
  not shown as a mute, and only the blocker can lift it (issue 22, item 2).
* A moderator can remove a message (:mod:`~..platform.moderation`): its row
  is deleted and the players get ``{"type": "chat", "id": N, "removed": true}``
  to drop it; a muted or banned account's messages are refused (``muted``,
  ``banned``).  Each message carries its ``id``, so that a player can report it.
* The last ``HISTORY`` messages are sent to a player on ``{"type": "chat_history"}``,
  e.g. after a reconnect.

Shared truth across server processes: the messages (``sk_chat``) and the mutes
(``sk_chat_mutes``) are rows in the database, so the history, the rate limit
(counted in the rows) and the mutes are the same at every process on it and
survive a restart.  With PostgreSQL a message's row and its notification
(``pg_notify``, see :mod:`.cluster`) are one transaction; every other process
hearing it passes it on to its own sockets at that table (:func:`deliver`).

Client messages: ``{"type": "chat", "text": "gg"}``, ``{"type": "mute", "seat": 1,
"muted": true}``, ``{"type": "chat_history"}``.  Server messages:
``{"type": "chat", "seat", "name", "text", "at"}``, ``{"type": "chat_history",
"messages": [...], "muted": [...]}``, ``{"type": "chat_mutes", "muted": [...]}``,
and the usual ``error`` (codes ``spectator``, ``chat_empty``, ``chat_too_long``,
``chat_rate``, ``malformed``, ``too_large``).

The hub parses every message once (:func:`~.transport.parse_client_message`)
and awaits :func:`handle` for the chat messages.  Every read and write of the
chat's rows runs in a thread (:func:`asyncio.to_thread`), never on the event
loop that serves every table of the process; the messages sent are the typed
server messages of :mod:`~svoi_kozyri.server.wire.schemas` (``ServerChat``,
``ServerChatHistory``, ``ServerChatMutes``, ``ServerError``).
"""

from __future__ import annotations

import asyncio
import time
import unicodedata
from typing import Any

from sqlalchemy import delete, func, insert, select

from ..platform.blocks import Blocks
from ..platform.moderation import chat_refusal
from ..storage.schema import chat_mutes_t, chat_t, seats_t
from ..storage.store import _NOTIFY, CHANNEL, Store
from ..table.live import LiveTable
from ..table.service import TableService
from ..wire.names import limit_marks
from ..wire.schemas import (
    ChatMessage,
    ClientChatHistory,
    ClientMute,
    ServerChat,
    ServerChatHistory,
    ServerChatMutes,
    ServerError,
)
from ..wire.transport import Conn

MAX_CHARS = 200
RATE_COUNT = 5
RATE_SECONDS = 10.0
HISTORY = 50


def clean(text: str) -> str:
    """The text without control and format characters (line breaks become spaces;
    the zero-width joiner of emoji sequences stays: bidi overrides, zero-width
    spaces and lone surrogates go), whitespace folded, trimmed, and at most
    :data:`~.names.MAX_MARKS` combining marks on one character (200 of them drew
    over the lines above and below: issue 20, item 12)."""
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat == "Cc":
            out.append(" ")
        elif cat[0] != "C" or ch == "\u200d":
            out.append(ch)
    return limit_marks(" ".join("".join(out).split()))


def _error(code: str, message: str) -> ServerError:
    return ServerError(code=code, message=message)


def _send(
    conn: Conn, message: ServerError | ServerChat | ServerChatHistory | ServerChatMutes
) -> None:
    # through Conn.send: the queue's bound holds for chat too (it was bypassed)
    conn.send(message.model_dump_json())


def mutes(store: Store, table_id: str) -> dict[int, set[int]]:
    """seat -> the seats that seat's player has muted at the table."""
    out: dict[int, set[int]] = {}
    with store.engine.connect() as db:
        rows = db.execute(
            select(chat_mutes_t.c.seat, chat_mutes_t.c.other).where(
                chat_mutes_t.c.table_id == table_id
            )
        )
        for r in rows:
            out.setdefault(int(r.seat), set()).add(int(r.other))
    return out


def hidden(store: Store, table_id: str) -> dict[int, set[int]]:
    """seat -> the seats whose messages that seat's player does not get: the
    ones they muted and, both ways, those of an account in a block with theirs."""
    out = mutes(store, table_id)
    for seat, others in Blocks(store.engine).hidden_seats(table_id).items():
        out.setdefault(seat, set()).update(others)
    return out


def history(store: Store, table_id: str) -> list[ServerChat]:
    """The table's last :data:`HISTORY` messages, oldest first."""
    with store.engine.connect() as db:
        rows = db.execute(
            select(chat_t)
            .where(chat_t.c.table_id == table_id)
            .order_by(chat_t.c.id.desc())
            .limit(HISTORY)
        ).all()
    return [
        ServerChat(seat=int(r.seat), name=r.name, text=r.text, at=float(r.at), id=int(r.id))
        for r in reversed(rows)
    ]


def _set_mute(store: Store, table_id: str, seat: int, other: int, muted: bool) -> set[int]:
    key = (
        chat_mutes_t.c.table_id == table_id,
        chat_mutes_t.c.seat == seat,
        chat_mutes_t.c.other == other,
    )
    with store.engine.begin() as db:
        db.execute(delete(chat_mutes_t).where(*key))
        if muted:
            db.execute(insert(chat_mutes_t).values(table_id=table_id, seat=seat, other=other))
    return mutes(store, table_id).get(seat, set())


def _post(hub: TableService, table_id: str, seat: int, out: ServerChat) -> bool:
    """Store one message unless the seat is over its rate (counted in the stored
    rows, so every process counts the same); with several processes, notify them
    in the same transaction.  False when over the rate."""
    with hub.store.engine.begin() as db:
        # the seat's row locked (PostgreSQL): two sockets of one player at two
        # processes count one after the other, never both under the limit
        db.execute(
            select(seats_t.c.seat)
            .where(seats_t.c.table_id == table_id, seats_t.c.seat == seat)
            .with_for_update()
        )
        recent = db.execute(
            select(func.count())
            .select_from(chat_t)
            .where(
                chat_t.c.table_id == table_id,
                chat_t.c.seat == seat,
                chat_t.c.at > out.at - RATE_SECONDS,
            )
        ).scalar()
        if int(recent or 0) >= RATE_COUNT:
            return False
        row = db.execute(
            insert(chat_t).values(
                table_id=table_id, seat=seat, name=out.name, text=out.text, at=out.at
            )
        )
        out.id = int(row.inserted_primary_key[0])  # type: ignore[index]  # to report it
        note = hub.peer.note_chat(table_id, out.model_dump())
        if note:  # other processes share the table: tell them in the same transaction
            db.execute(_NOTIFY, {"c": CHANNEL, "p": note})
    return True


async def deliver(store: Store, live: LiveTable, message: dict[str, Any] | ServerChat) -> None:
    """Send a chat message to this process's players at the table (spectators
    never), except those who muted its writer or are in a block with them (:func:`hidden`).
    Deliveries of one table keep the
    order they were started in (the table's ``chat_lock``; the mutes are read in a
    thread)."""
    out = message if isinstance(message, ServerChat) else ServerChat.model_validate(message)
    players = [(c, c.seat) for c in list(live.conns) if c.seat is not None]
    if not players:
        return
    async with live.chat_lock:
        muted = await asyncio.to_thread(hidden, store, live.game.table_id)
        for c, seat in players:
            if out.seat not in muted.get(seat, set()):
                _send(c, out)


async def handle(hub: TableService, live: LiveTable, conn: Conn, msg: ChatMessage) -> None:
    """Answer a chat message, already parsed and validated strictly by
    :func:`~.transport.parse_client_message` (the frame at most
    :data:`~.schemas.MAX_MESSAGE_BYTES` bytes, no extra fields, ``seat`` an int)."""
    seat = conn.seat
    if seat is None:
        _send(conn, _error("spectator", "the table chat is for the players"))
        return
    store = hub.store
    table_id = live.game.table_id
    if isinstance(msg, ClientChatHistory):
        muted = (await asyncio.to_thread(mutes, store, table_id)).get(seat, set())
        unseen = (await asyncio.to_thread(hidden, store, table_id)).get(seat, set())
        messages = await asyncio.to_thread(history, store, table_id)
        _send(
            conn,
            ServerChatHistory(
                messages=[m for m in messages if m.seat not in unseen], muted=sorted(muted)
            ),
        )
        return
    if isinstance(msg, ClientMute):
        if msg.seat >= live.game.n:
            _send(conn, _error("malformed", "mute needs a seat of this table"))
            return
        on = msg.muted and msg.seat != seat
        muted = await asyncio.to_thread(_set_mute, store, table_id, seat, msg.seat, on)
        _send(conn, ServerChatMutes(muted=sorted(muted)))
        return
    # a muted or banned account does not chat (platform/moderation.py); read at
    # every message, so a sanction made at another process holds at once
    refusal = await asyncio.to_thread(chat_refusal, store.engine, table_id, seat)
    if refusal is not None:
        _send(conn, _error(*refusal))
        return
    text = clean(msg.text)
    if not text:
        _send(conn, _error("chat_empty", "an empty message is not sent"))
        return
    if len(text) > MAX_CHARS:
        _send(conn, _error("chat_too_long", f"messages are limited to {MAX_CHARS} characters"))
        return
    info = live.game.seats[seat]
    out = ServerChat(seat=seat, name=info.name or f"seat {seat}", text=text, at=time.time())
    if not await asyncio.to_thread(_post, hub, table_id, seat, out):
        _send(conn, _error("chat_rate", f"at most {RATE_COUNT} messages in {RATE_SECONDS:g} s"))
        return
    await deliver(store, live, out)
