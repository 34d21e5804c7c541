"""The socket transport: one WebSocket's outgoing queue, and reading client messages.

A client message is checked before it is parsed: at most
:data:`~.schemas.MAX_MESSAGE_BYTES` bytes and at most :data:`MAX_DEPTH` levels
of nested brackets (``json.loads`` recurses, so 1,000 nested brackets used to
raise ``RecursionError`` and drop the socket with a traceback: issue 13, defect
4).  Then it is validated strictly (no ``"2"`` for 2, no ``2.0`` for 2, no NaN).
A message nested too deeply closes the socket with :data:`CLOSE_POLICY` after an
``error`` message; other bad messages (too large ones, binary frames that are not
UTF-8, JSON that is not an object, a ``type`` that is not one of the message
types, wrong field types, extra fields) are answered with an ``error`` (code
``malformed`` or ``too_large``) and change nothing; the socket stays open.

A client that stops reading is closed, not kept (issue 20, item 13): its queue
is bounded (:data:`MAX_QUEUED`) and a send that does not complete within
:func:`send_stall_s` seconds (the client's TCP window stayed full) ends the
connection with :data:`CLOSE_OVERLOADED`; so does a queue over its bound.
Before, the writer waited on that send for ever, the socket stayed open and
only its broadcasts were dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket
from pydantic import TypeAdapter, ValidationError

from ..runtime import metrics
from .schemas import MAX_MESSAGE_BYTES, AnyClientMessage, ClientMessage, ServerError

MAX_DEPTH = 4
"""Nesting allowed in a client message (the protocol needs 1)."""
MAX_QUEUED = 500
"""Messages waiting for one socket before the server gives up on that client."""
CLOSE_POLICY = 1008
"""Close code for a client that broke the message limits (size, depth, rate)."""
CLOSE_OVERLOADED = 1013
"""Close code for a client that stopped reading its messages."""
CLOSE_RESTART = 1012
"""Close code of a process that is stopping ("service restart", as uvicorn closes
its sockets at the stop): the client reconnects at once, quietly, and reaches
another process (server/runtime/drain.py)."""
SEND_STALL_S = 30.0
"""Seconds one send may wait for a client that does not read, then it is closed."""
ENV_SEND_STALL = "SVOI_KOZYRI_SEND_STALL_S"
"""Environment variable that overrides :data:`SEND_STALL_S` (tests use a second)."""


def send_stall_s() -> float:
    """The send stall limit: :data:`ENV_SEND_STALL` if set to a positive number."""
    try:
        value = float(os.environ.get(ENV_SEND_STALL, ""))
    except ValueError:
        return SEND_STALL_S
    return value if 0 < value < 3600 else SEND_STALL_S


_CLIENT_MESSAGE: TypeAdapter[AnyClientMessage] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = frozenset({"hello", "move", "hint", "ping", "chat", "mute", "chat_history"})
"""The ``type`` of every client message (the discriminator of ``ClientMessage``)."""


def error_text(code: str, message: str) -> str:
    """An ``error`` message as JSON (counted by its code: every socket error is
    made here)."""
    metrics.count_error("socket", code)
    return ServerError(code=code, message=message).model_dump_json()


class FatalMessage(Exception):
    """A client message after which the socket is closed (``code`` says why)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def json_depth(raw: str) -> int:
    """The deepest bracket nesting of ``raw`` outside strings, without parsing it."""
    depth = best = 0
    in_str = esc = False
    for ch in raw:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            best = max(best, depth)
        elif ch in "]}":
            depth -= 1
    return best


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_client_message(raw: str) -> AnyClientMessage | str:
    """A validated client message, or an error message (str) to send back.

    Raises :class:`FatalMessage` for a message over the depth limit.
    """
    if (
        len(raw) > MAX_MESSAGE_BYTES
        or len(raw.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES
    ):
        return error_text("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
    if json_depth(raw) > MAX_DEPTH:
        raise FatalMessage("too_deep", f"messages are limited to {MAX_DEPTH} levels of nesting")
    try:
        data = json.loads(raw, parse_constant=_no_constants)
    except (ValueError, RecursionError):
        return error_text("malformed", "messages must be JSON objects")
    if not isinstance(data, dict):
        return error_text("malformed", "messages must be JSON objects")
    if not isinstance(data.get("type"), str) or data["type"] not in MESSAGE_TYPES:
        # never echoed: the tag may be a list, an object or 2,000 bytes of text
        return error_text("malformed", "unknown message type")
    try:
        return _CLIENT_MESSAGE.validate_python(data, strict=True)
    except ValidationError as e:
        first = e.errors(include_input=False, include_url=False)[0]
        where = ".".join(str(x) for x in first.get("loc", ()))[:60]
        return error_text("malformed", f"invalid message: {where}: {first.get('msg')}"[:200])


def receive_text(msg: Mapping[str, Any]) -> str | None:
    """The text of an ASGI websocket message (bytes decoded), None for a disconnect."""
    if msg["type"] == "websocket.disconnect":
        return None
    raw = msg.get("text")
    if raw is None:
        raw_b = msg.get("bytes") or b""
        raw = raw_b[: MAX_MESSAGE_BYTES + 1].decode("utf-8", "replace")
        if len(raw_b) > MAX_MESSAGE_BYTES:
            raw += " " * MAX_MESSAGE_BYTES  # still over the limit: refused unread
    return str(raw)


@dataclass(eq=False)
class Conn:
    """One WebSocket: its seat (``None`` for a spectator) and an outgoing queue,
    so a slow client never stalls the table.

    ``reader`` is the task that reads the socket (:meth:`~.hub.Hub.serve_socket`);
    while it waits for the client (``reading``) the writer may cancel it, once the
    client has stopped reading (``stalled``) or the server closed the socket, so
    the connection ends (``ended``: the reader's cancellation is expected).
    """

    ws: WebSocket
    seat: int | None
    client: str = ""
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    closed: bool = False
    close_code: int | None = None
    stall_s: float = field(default_factory=send_stall_s)
    stalled: bool = False
    ended: bool = False
    reader: asyncio.Task[Any] | None = None
    reading: bool = False

    def send(self, text: str) -> bool:
        """Queue a message; False (and the connection is closed) if the client
        stopped reading."""
        if self.closed:
            return False
        if self.queue.qsize() > MAX_QUEUED:
            while not self.queue.empty():  # told at once, not after 500 stale states
                self.queue.get_nowait()
            self.close(CLOSE_OVERLOADED)
            return False
        self.queue.put_nowait(text)
        return True

    def close(self, code: int = 1000) -> None:
        """Stop writing and close the socket with ``code`` (it reconnects with its
        token) once what is queued is sent."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self.queue.put_nowait(None)

    def _give_up(self) -> None:
        """The client stopped reading: end the connection, waking the reader."""
        self.stalled = True
        self.closed = True
        self.close_code = CLOSE_OVERLOADED
        self._end_reader()

    def _end_reader(self) -> None:
        """Wake a reader that waits on a client the server is done with."""
        if self.reading and self.reader is not None and not self.ended:
            self.ended = True
            self.reader.cancel()

    async def receive(self) -> Any:
        """The next ASGI message of the socket (the reader's only wait on the client)."""
        self.reading = True
        try:
            return await self.ws.receive()
        finally:
            self.reading = False

    async def writer(self) -> None:
        """Send queued messages in order until the connection is closed; give up
        on a client whose send waits longer than ``stall_s``."""
        while True:
            text = await self.queue.get()
            if text is None:
                code = self.close_code
                if code is not None and code != 1000:
                    try:
                        await asyncio.wait_for(self.ws.close(code=code), self.stall_s)
                    except TimeoutError:
                        self._give_up()
                    except Exception:  # already gone
                        pass
                    self._end_reader()  # closed by us: a client that never answers
                return
            try:
                async with asyncio.timeout(self.stall_s):  # a timer, no task per send
                    await self.ws.send_text(text)
            except TimeoutError:
                self._give_up()
                # start the closing handshake (bounded like any send): the
                # protocol then drops a peer that never answers it, whether or
                # not the reader was waiting on the client at this moment
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.ws.close(code=CLOSE_OVERLOADED), self.stall_s)
                return
            except Exception:  # the socket is gone; the reader will notice
                return
