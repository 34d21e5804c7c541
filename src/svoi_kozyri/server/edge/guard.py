"""Protection at the edge of the server: rate limits, body size, headers, log hygiene.

* :class:`SharedLimiter`: token buckets in the database (``sk_limits``), so
  every server process shares them (issue 20, item 5: two workers let 20 of 30
  creations through a limit of 10), per purpose (creating a table, joining,
  playing a deal, a rematch: item 6) and per client address, per network (/24,
  /64) and for everyone, so a thousand addresses of one network cannot create
  tables at 40 a second.  A refusal is :class:`RateLimited`: 429 with
  ``Retry-After``.
* :class:`RateLimiter`: in-process token buckets for what is too frequent for
  the database (WebSocket messages of one socket).
* :class:`TrustedProxyMiddleware`: ``X-Forwarded-For`` / ``X-Forwarded-Proto``
  are believed only from the reverse proxies the operator names
  (``serve --trusted-proxy``); uvicorn's own handling (which trusts 127.0.0.1
  by default, so any client on the proxy's host chose its own address) is off.
* :class:`BodyLimitMiddleware`: a request body over its path's limit
  (:data:`MAX_BODY_BYTES`, or the larger one of an endpoint that takes more,
  item 11) gets 413 without being read further.
* :class:`SecurityHeadersMiddleware`: a Content-Security-Policy without inline
  scripts or styles, whose ``connect-src`` names only the configured public
  origins (never the request's ``Host``), frame protection, ``nosniff``, no
  referrer, and ``Retry-After`` on any 429 that lacks one.
* :class:`RedactQueryFilter`: the access log never shows a query string, so a
  signed link (or any secret someone puts in a URL) is not written to a log
  line (issue 13, defect 1).
"""

from __future__ import annotations

import ipaddress
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..table.game import TableError

if TYPE_CHECKING:
    from ..storage.store import Store

MAX_BODY_BYTES = 16 * 1024
"""The largest request body accepted by default (a table configuration is well
under 2 KB); an endpoint that takes more has its own limit (``body_limits``)."""

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "manifest-src 'self'; worker-src 'self'; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
"""The page policy: scripts, styles and sockets from this server only, no inline
code, never inside a frame; the web app manifest and the service worker
(``/sw.js``) from this server too.  ``connect-src 'self'`` covers ws: and wss: to the
same host in current browsers; :func:`csp_for` adds the configured public
origins' socket addresses (never the request's ``Host`` header, which the
client chooses)."""

RETRY_AFTER_DEFAULT = b"1"
"""``Retry-After`` added to a 429 whose endpoint did not say how long to wait."""


def check_origin(origin: str) -> str:
    """A public origin (``https://host[:port]``) as ``serve --public-origin`` takes
    it, normalised; ValueError for anything else (a path, a query, another
    scheme, characters that could break out of the policy)."""
    parts = urlsplit(origin.strip())
    host = parts.hostname or ""
    if (
        parts.scheme not in ("http", "https")
        or not host
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or parts.username is not None
        or not _HOST_OK.match(parts.netloc)
    ):
        raise ValueError(f"{origin!r} is not an origin like https://cards.example.org")
    return f"{parts.scheme}://{parts.netloc.lower()}"


def csp_for(origins: Sequence[str] = ()) -> str:
    """The page policy with ``connect-src`` naming ``origins`` (checked with
    :func:`check_origin`) and their WebSocket addresses besides ``'self'``."""
    extra: list[str] = []
    for origin in origins:
        o = check_origin(origin)
        ws = ("wss" if o.startswith("https:") else "ws") + o[o.index(":") :]
        extra += [o, ws]
    if not extra:
        return CSP
    return CSP.replace("connect-src 'self'", "connect-src 'self' " + " ".join(extra))


_HOST_OK = re.compile(
    r"^[A-Za-z0-9.\-]{1,253}(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?$"
)
"""A host and port safe to quote in the page policy (a name or IPv4, or [IPv6])."""


@dataclass(frozen=True)
class Limits:
    """Rate limits: a burst, then a steady rate (per second).

    ``create_*`` applies to each kind of table creation separately (a new
    table, a deal played, a rematch), ``join_*`` to joins; each is per client
    address, ``network_factor`` times that per network (/24 for IPv4, /64 for
    IPv6: one machine usually has a whole /64, and a proxy host many loopback
    addresses), and ``*_global_*`` for everyone together (a ceiling no number of
    addresses gets past).  ``message_*`` is per socket, in process.  A rate of 0
    switches that limit off (tests and the load benchmark create thousands of
    tables from one address)."""

    create_burst: float = 10
    create_rate: float = 1 / 6
    join_burst: float = 20
    join_rate: float = 1.0
    message_burst: float = 40
    message_rate: float = 20.0
    network_factor: float = 3.0
    create_global_burst: float = 100
    create_global_rate: float = 3.0
    join_global_burst: float = 300
    join_global_rate: float = 20.0

    @classmethod
    def off(cls) -> Limits:
        """No rate limits."""
        return cls(
            create_rate=0, join_rate=0, message_rate=0, create_global_rate=0, join_global_rate=0
        )

    def buckets(self, purpose: str, client: str) -> list[tuple[str, float, float]]:
        """The ``(bucket, burst, rate)`` a request of ``purpose`` from ``client``
        takes a token from, the most particular first."""
        if purpose == "join":
            one = (self.join_burst, self.join_rate)
            everyone = (self.join_global_burst, self.join_global_rate)
        else:
            one = (self.create_burst, self.create_rate)
            everyone = (self.create_global_burst, self.create_global_rate)
        out: list[tuple[str, float, float]] = []
        if one[1] > 0:
            out.append((f"{purpose}:a:{client}"[:120], *one))
            net = network_of(client)
            if net != client and self.network_factor > 0:
                f = self.network_factor
                out.append((f"{purpose}:n:{net}"[:120], one[0] * f, one[1] * f))
        if everyone[1] > 0:
            out.append((f"{purpose}:all", *everyone))
        return out


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an address (an IPv4-mapped IPv6 one as the IPv4 it maps), or
    None for anything that is not an address."""
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def network_of(client: str) -> str:
    """The network a client address belongs to for the rate limits: its /24
    (IPv4) or /64 (IPv6); anything that is not an address stands for itself."""
    addr = _address(client)
    if addr is None:
        return client
    prefix = 24 if addr.version == 4 else 64
    return str(ipaddress.ip_network(f"{addr}/{prefix}", strict=False))


class RateLimited(TableError):
    """A request over a rate limit: 429 with ``Retry-After`` (never 400)."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__("rate_limited", message)
        self.retry_after = retry_after


_WHAT = {
    "create": "too many new tables",
    "join": "too many joins",
    "deal_play": "too many deals played",
    "rematch": "too many rematches",
    "tournament": "too many new tournaments",
    "follow": "too many follows and unfollows",
    "block": "too many blocks and unblocks",
    "challenge": "too many challenges",
    "seek": "too many seeks",
}


class SharedLimiter:
    """The limits of :class:`Limits` in the database (``sk_limits``), shared by
    every server process on it.  A check is one short transaction on the HTTP
    paths that create or join (never on the move path)."""

    PURGE_EVERY_S = 300.0

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self._purged = 0.0

    def check(self, purpose: str, client: str) -> None:
        """Take a token of ``purpose`` for ``client`` or raise :class:`RateLimited`."""
        buckets = self.limits.buckets(purpose, client or "unknown")
        if not buckets:
            return
        now = time.time()
        if now - self._purged > self.PURGE_EVERY_S:
            self._purged = now
            self.store.purge_limits(now)
        wait = self.store.take_tokens(buckets, now)
        if wait > 0:
            raise RateLimited(f"{_WHAT.get(purpose, 'too many requests')}; wait a little", wait)


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
    """The address a request or socket comes from (after :class:`TrustedProxyMiddleware`)."""
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_proxies(items: Sequence[str]) -> list[Network]:
    """``--trusted-proxy`` values (an address or a CIDR network each) as networks;
    ValueError naming the first bad one."""
    out: list[Network] = []
    for item in items:
        try:
            out.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            raise ValueError(f"--trusted-proxy {item!r} is not an address or network") from None
    return out


def _in(nets: Sequence[Network], host: str) -> bool:
    addr = _address(host)
    return addr is not None and any(addr in net for net in nets)


class TrustedProxyMiddleware:
    """Take the client's address (and scheme) from ``X-Forwarded-For`` (and
    ``X-Forwarded-Proto``) only when the connection comes from one of
    ``proxies``; otherwise those headers are ignored.

    The client is the rightmost address in ``X-Forwarded-For`` that is not a
    trusted proxy (the ones to its left were written by the client itself).
    With no proxies configured (the default) nothing is ever taken from a
    header, so no client picks its own address for the rate limits."""

    def __init__(self, app: ASGIApp, proxies: Sequence[Network] = ()) -> None:
        self.app = app
        self.proxies = list(proxies)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = scope.get("client")
        if (
            self.proxies
            and scope["type"] in ("http", "websocket")
            and client
            and _in(self.proxies, str(client[0]))
        ):
            forwarded: list[str] = []
            proto = ""
            for name, value in scope.get("headers", ()):
                if name == b"x-forwarded-for":
                    forwarded += [p.strip() for p in value.decode("latin-1").split(",")]
                elif name == b"x-forwarded-proto":
                    proto = value.decode("latin-1").split(",")[-1].strip().lower()
            real = None
            for hop in reversed([h for h in forwarded if h]):
                if not _in(self.proxies, hop):
                    real = hop
                    break
            if real is not None:
                try:
                    real = str(ipaddress.ip_address(real))
                except ValueError:
                    real = None  # not an address: keep the proxy's
            scope = dict(scope)
            if real is not None:
                scope["client"] = (real, 0)
            if proto in ("http", "https"):
                secure = proto == "https"
                if scope["type"] == "websocket":
                    scope["scheme"] = "wss" if secure else "ws"
                else:
                    scope["scheme"] = proto
        await self.app(scope, receive, send)


class BodyLimitMiddleware:
    """Refuse a request body over its path's limit with 413, reading no further:
    ``limits`` maps exact paths to their limit, every other path gets ``limit``
    (docs/protocol.md lists them)."""

    def __init__(
        self, app: ASGIApp, limit: int = MAX_BODY_BYTES, limits: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.limit = limit
        self.limits = dict(limits or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limits.get(scope.get("path", ""), self.limit)
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > limit
                except ValueError:
                    too_big = True
                if too_big:
                    await _too_large(send, limit)
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
                if seen > limit and not started:
                    # answer now; the application sees a client that went away
                    rejected = True
                    await _too_large(send, limit)
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
    """Add the page policy and frame protection to every HTTP response, and a
    ``Retry-After`` to any 429 that came without one."""

    def __init__(self, app: ASGIApp, origins: Sequence[str] = ()) -> None:
        self.app = app
        self.csp = csp_for(origins).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                headers = list(msg.get("headers", []))
                headers += [
                    (b"content-security-policy", self.csp),
                    (b"x-frame-options", b"DENY"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"referrer-policy", b"no-referrer"),
                    (b"cross-origin-opener-policy", b"same-origin"),
                ]
                if msg.get("status") == 429 and not any(
                    k.lower() == b"retry-after" for k, _v in headers
                ):
                    headers.append((b"retry-after", RETRY_AFTER_DEFAULT))
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
