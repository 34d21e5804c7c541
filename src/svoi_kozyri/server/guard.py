"""Protection at the edge of the server: rate limits, body size, headers, log hygiene.

* :class:`RateLimiter`: token buckets per client address (table creation, seat
  joins, WebSocket messages), issue 13 defect 2.
* :class:`BodyLimitMiddleware`: request bodies over :data:`MAX_BODY_BYTES` get
  413 without being read further (defect 6: 10 MB were accepted and echoed back).
* :class:`SecurityHeadersMiddleware`: a Content-Security-Policy without inline
  scripts or styles (the front end has none), frame protection, ``nosniff`` and
  no referrer (defect 7).
* :class:`RedactQueryFilter`: the access log never shows a query string, so a
  signed link (or any secret someone puts in a URL) is not written to a log
  line (defect 1).
"""

from __future__ import annotations

import logging
import re
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 16 * 1024
"""The largest request body accepted (a table configuration is well under 2 KB)."""

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
"""The page policy: scripts, styles and sockets from this server only, no inline
code, never inside a frame.  (``connect-src 'self'`` covers ws: and wss: to the
same host in current browsers.)"""

DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: "
    "https://fastapi.tiangolo.com; frame-ancestors 'none'"
)
"""The interactive API docs (``/api/docs``) load Swagger UI with an inline script."""


_HOST_OK = re.compile(
    r"^[A-Za-z0-9.\-]{1,253}(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?$"
)
"""A Host header safe to quote in the page policy (a name or IPv4, or [IPv6], and a port)."""


@dataclass(frozen=True)
class Limits:
    """Rate limits per client address: a burst, then a steady rate (per second).

    A rate of 0 switches that limit off (tests and the load benchmark create
    thousands of tables from one address)."""

    create_burst: float = 10
    create_rate: float = 1 / 6
    join_burst: float = 20
    join_rate: float = 1.0
    message_burst: float = 40
    message_rate: float = 20.0

    @classmethod
    def off(cls) -> Limits:
        """No rate limits."""
        return cls(create_rate=0, join_rate=0, message_rate=0)


class RateLimiter:
    """Token buckets keyed by (purpose, client); the least recently used are forgotten."""

    MAX_KEYS = 50_000

    def __init__(self, burst: float, rate: float) -> None:
        self.burst = burst
        self.rate = rate
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str, now: float | None = None) -> bool:
        """Take one token for ``key``; False if its bucket is empty."""
        if self.rate <= 0:
            return True
        now = time.monotonic() if now is None else now
        tokens, last = self._buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - last) * self.rate)
        ok = tokens >= 1
        self._buckets[key] = (tokens - 1 if ok else tokens, now)
        while len(self._buckets) > self.MAX_KEYS:
            self._buckets.popitem(last=False)
        return ok

    def retry_after(self) -> int:
        """Seconds until a token is back (for the Retry-After header)."""
        return max(1, round(1 / self.rate)) if self.rate > 0 else 0


def client_key(scope: Scope) -> str:
    """The address a request or socket comes from."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class BodyLimitMiddleware:
    """Refuse request bodies over ``limit`` bytes with 413, reading no further."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.limit
                except ValueError:
                    too_big = True
                if too_big:
                    await _too_large(send, self.limit)
                    return
        seen = 0
        started = rejected = False

        async def limited_receive() -> Message:
            nonlocal seen, rejected
            if rejected:
                return {"type": "http.disconnect"}
            msg = await receive()
            if msg["type"] == "http.request":
                seen += len(msg.get("body", b""))
                if seen > self.limit and not started:
                    # answer now; the application sees a client that went away
                    rejected = True
                    await _too_large(send, self.limit)
                    return {"type": "http.disconnect"}
            return msg

        async def tracking_send(msg: Message) -> None:
            nonlocal started
            if rejected:
                return  # the 413 has been sent; drop whatever the app answers
            if msg["type"] == "http.response.start":
                started = True
            await send(msg)

        await self.app(scope, limited_receive, tracking_send)


async def _too_large(send: Send, limit: int) -> None:
    body = b'{"code":"too_large","message":"request bodies are limited to %d bytes"}' % limit
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class SecurityHeadersMiddleware:
    """Add the page policy and frame protection to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        if path.startswith("/api/docs") or path == "/api/redoc":
            csp = DOCS_CSP
        else:
            # name this host's sockets explicitly: not every browser counts
            # ws:/wss: to the same host as 'self'
            host = next((v for k, v in scope.get("headers", ()) if k == b"host"), b"")
            text = host.decode("latin-1")
            if text and _HOST_OK.match(text):
                csp = CSP.replace(
                    "connect-src 'self'", f"connect-src 'self' ws://{text} wss://{text}"
                )
            else:
                csp = CSP

        async def with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                headers = list(msg.get("headers", []))
                headers += [
                    (b"content-security-policy", csp.encode()),
                    (b"x-frame-options", b"DENY"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"cross-origin-opener-policy", b"same-origin"),
                ]
                msg = {**msg, "headers": headers}
            await send(msg)

        await self.app(scope, receive, with_headers)


class RedactQueryFilter(logging.Filter):
    """Drop the query string from uvicorn's access log lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        args: Any = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            path = args[2]
            if "?" in path:
                record.args = (*args[:2], path.split("?", 1)[0] + "?…", *args[3:])
        return True


def install_log_redaction() -> None:
    """Attach :class:`RedactQueryFilter` to uvicorn's access logger (idempotent)."""
    logger = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactQueryFilter) for f in logger.filters):
        logger.addFilter(RedactQueryFilter())
