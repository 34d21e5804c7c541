"""Who may see and do what at a table: seat tokens and short-lived signed links.

A seat belongs to a secret token (only its SHA-256 is stored).  Tokens travel in
the ``X-Seat-Token`` header or the WebSocket hello, never in a URL: URLs end up
in access logs, browser history and ``Referer`` headers (issue 13, defect 1).
A browser download cannot set a header, so the record download uses a signed
link instead: ``POST /api/tables/{id}/record-link`` (with the header) returns a
URL carrying ``table``, ``seat`` and an expiry signed with the server's secret;
it opens only that record, for that seat, for :data:`LINK_TTL_S` seconds.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Sequence
from typing import Protocol

LINK_TTL_S = 60.0
"""How long a signed record link stays valid."""


class _HasTokenHash(Protocol):
    token_hash: str | None


def hash_token(token: str) -> str:
    """The stored form of a seat token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_token() -> str:
    """A fresh secret seat token."""
    return secrets.token_urlsafe(24)


def seat_of_token(seats: Sequence[_HasTokenHash], token: str | None) -> int | None:
    """The seat whose token is ``token``, or None (compared in constant time)."""
    if not token:
        return None
    th = hash_token(token)
    found = None
    for i, s in enumerate(seats):
        if s.token_hash is not None and secrets.compare_digest(s.token_hash, th):
            found = i
    return found


class LinkSigner:
    """Signs and checks short-lived links (HMAC-SHA256 with the server's secret).

    Every process serving one database must share the secret (it lives in the
    database, see :meth:`~.db.Store.server_secret`) so a link made by one worker
    opens on another.
    """

    def __init__(self, secret: bytes, ttl_s: float = LINK_TTL_S) -> None:
        self._secret = secret
        self.ttl_s = ttl_s

    def _mac(self, payload: str) -> str:
        mac = hmac.new(self._secret, payload.encode(), hashlib.sha256).digest()[:18]
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def sign(self, purpose: str, table_id: str, seat: int | None, now: float | None = None) -> str:
        """A link value for ``purpose`` at ``table_id`` as ``seat`` (None: spectator)."""
        expires = int((now if now is not None else time.time()) + self.ttl_s)
        who = "s" if seat is None else str(seat)
        payload = f"{purpose}.{table_id}.{who}.{expires}"
        return f"{who}.{expires}.{self._mac(payload)}"

    def check(
        self, purpose: str, table_id: str, value: str, now: float | None = None
    ) -> int | bool | None:
        """The seat a valid link is for (None: spectator), or False if it is forged,
        for another table or purpose, or expired."""
        parts = value.split(".")
        if len(parts) != 3 or len(value) > 80:
            return False
        who, expires, mac = parts
        if not expires.isdigit() or not (who == "s" or (who.isdigit() and len(who) == 1)):
            return False
        payload = f"{purpose}.{table_id}.{who}.{expires}"
        if not hmac.compare_digest(self._mac(payload), mac):
            return False
        if int(expires) < (now if now is not None else time.time()):
            return False
        return None if who == "s" else int(who)
