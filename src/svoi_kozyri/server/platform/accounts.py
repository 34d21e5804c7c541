"""Player accounts: registration, log-in sessions, CSRF protection and log-in throttling.

Accounts are optional: a guest plays with a seat token, exactly as before.  An
account adds a name that is the player's own, a rating and a list of games.

* **Passwords** are hashed with argon2id (``argon2-cffi``); only the hash is stored.
  An unknown user name is checked against a dummy hash, so the answer takes as
  long as for a wrong password and does not tell which names exist.
* **Sessions** are random 256-bit ids in an ``HttpOnly``, ``SameSite=Lax`` cookie
  (``Secure`` when the request came over https); the database holds only their
  SHA-256, so a copy of the database opens no session.  "Log out everywhere"
  deletes every session row of the account.
* **CSRF**: :class:`CsrfMiddleware` refuses every state-changing request
  (``POST``, ``PUT``, ``PATCH``, ``DELETE``) sent from another origin (``Origin``
  or ``Sec-Fetch-Site``), and one that carries a session cookie (or logs in or
  registers) without the ``X-CSRF-Token`` header.  With a session the token is
  derived from the session id (:func:`csrf_for_session`), so it cannot be guessed
  and needs no storage; before log-in it is a double-submit cookie.  A page of
  another site can neither read the cookie nor set the header.
* **Throttling** throttles the attacker, never the victim (issue 20, item 7):
  :class:`LoginThrottle` counts failed log-ins per (address, name) pair, per
  address and per name in a sliding window, in the database, so every server
  process counts the same attempts.  A pair waits longer after each failure past
  the first few (HTTP 429 with ``Retry-After``), an address runs out of failures
  over all names, and a name that failed too often from anywhere refuses only the
  addresses that failed for it: the right password from an address with no
  failures for the name always gets through.
* **Look-alike names**: an account name cannot be registered when it looks like
  another account's (the TR39 skeletons of :mod:`.names`: ``aIice`` beside
  ``alice``); :meth:`AccountService.name_registered` tells the seat check the same.
* **Seats**: ``sk_seat_accounts`` links a table seat to the account that holds
  it (created or joined while logged in, or a guest's seat claimed afterwards
  with its seat token).  That link is what ratings and profiles read.

Nothing secret (password, session id, seat token) is ever put in a URL or a log
line; ``tests/test_security_accounts.py`` checks it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import secrets
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import (
    Connection,
    Engine,
    delete,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError
from starlette.types import ASGIApp, Receive, Scope, Send

from ..storage.schema import login_events_t, seat_accounts_t, sessions_t, users_t
from ..wire.errors import ApiError
from ..wire.names import skeletons
from ..wire.schemas import check_name

SESSION_COOKIE = "sk_session"
CSRF_COOKIE = "sk_csrf"
CSRF_HEADER = "x-csrf-token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
CSRF_ALWAYS = ("/api/account/",)
"""Paths whose state-changing requests need the CSRF token even without a session
(log-in and registration: otherwise a foreign page could log a visitor into the
attacker's account)."""

USERNAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{2,19}$"
PASSWORD_MIN = 8
PASSWORD_MAX = 256
RESERVED_NAMES = frozenset({"admin", "administrator", "root", "server", "spectator", "system"})


class AccountError(ApiError):
    """A refused account request; ``code`` is stable, ``status`` the HTTP status."""


@dataclass(frozen=True)
class User:
    """An account as the server uses it (never its password hash)."""

    id: int
    username: str
    is_bot: bool
    created: float


@dataclass(frozen=True)
class AccountSettings:
    """Tunables of the account system.

    The argon2 defaults are argon2-cffi's (RFC 9106 low-memory profile, about
    0.1 to 0.4 s a hash on a small machine); tests pass cheaper ones.  Login
    limits within ``window_s`` seconds: an (address, name) pair has ``pair_free``
    failures, then waits ``pair_delay_s`` after the next, twice that after the one
    after, and so on up to the window; an address has ``ip_failures`` failures over
    all names; after ``user_failures`` failures for a name from anywhere, an address
    that failed for it waits until its failures leave the window (one without
    failures still gets in with the right password).
    """

    time_cost: int = 3
    memory_cost: int = 65536
    parallelism: int = 4
    session_ttl_s: float = 30 * 24 * 3600
    window_s: float = 300.0
    user_failures: int = 5
    ip_failures: int = 20
    pair_free: int = 3
    pair_delay_s: float = 2.0
    registrations_per_ip: int = 10
    online_s: float = 120.0

    @classmethod
    def fast(cls) -> AccountSettings:
        """Cheap hashing for tests (the same algorithm, tiny cost)."""
        return cls(time_cost=1, memory_cost=1024, parallelism=1)


def hash_secret(value: str) -> str:
    """The stored form of a session id (SHA-256; the ids are random, so no salt is
    needed)."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def csrf_for_session(session_id: str) -> str:
    """The CSRF token that belongs to a session: derived from the secret session
    id, so only a page that was given it (by this server) knows it."""
    return hashlib.sha256(
        b"svoi-kozyri csrf\x00" + session_id.encode("utf-8", "replace")
    ).hexdigest()


def username_key(name: str) -> str:
    """The case-insensitive form names are unique in."""
    return name.casefold()


class SlidingWindow:
    """Event times per key within ``window_s``; the least recently used keys are
    forgotten beyond ``max_keys`` (so a flood of addresses cannot exhaust memory)."""

    def __init__(self, window_s: float, max_keys: int = 50_000) -> None:
        self.window_s = window_s
        self.max_keys = max_keys
        self._events: OrderedDict[str, deque[float]] = OrderedDict()

    def _prune(self, key: str, now: float) -> deque[float]:
        q = self._events.pop(key, None) or deque()
        while q and q[0] <= now - self.window_s:
            q.popleft()
        return q

    def count(self, key: str, now: float) -> int:
        """Events of ``key`` still in the window."""
        q = self._prune(key, now)
        if q:
            self._events[key] = q
        return len(q)

    def add(self, key: str, now: float) -> None:
        """Count one event for ``key``."""
        q = self._prune(key, now)
        q.append(now)
        self._events[key] = q
        while len(self._events) > self.max_keys:
            self._events.popitem(last=False)

    def retry_after(self, key: str, now: float) -> int:
        """Whole seconds until the oldest event of ``key`` leaves the window."""
        q = self._prune(key, now)
        if q:
            self._events[key] = q
            return max(1, int(q[0] + self.window_s - now + 0.999))
        return 0

    def newest(self, key: str, now: float) -> float | None:
        """The time of the latest event of ``key`` in the window, or None."""
        q = self._prune(key, now)
        if q:
            self._events[key] = q
            return q[-1]
        return None

    def clear(self, key: str) -> None:
        """Forget ``key``."""
        self._events.pop(key, None)


class DbWindow:
    """:class:`SlidingWindow` kept in the database (``sk_login_events``), so every
    server process sharing it counts the same attempts.  Keys are stored as their
    SHA-256: a name typed into the log-in form may be somebody's password."""

    def __init__(self, engine: Engine, kind: str, window_s: float) -> None:
        self.engine = engine
        self.kind = kind
        self.window_s = window_s
        self._adds = 0

    def _where(self, key: str) -> Any:
        return (login_events_t.c.kind == self.kind) & (login_events_t.c.key == hash_secret(key))

    def count(self, key: str, now: float) -> int:
        """Events of ``key`` still in the window."""
        with self.engine.connect() as conn:
            n = conn.execute(
                select(func.count())
                .select_from(login_events_t)
                .where(self._where(key), login_events_t.c.t > now - self.window_s)
            ).scalar_one()
        return int(n)

    def add(self, key: str, now: float) -> None:
        """Count one event for ``key`` (and now and then forget the expired ones)."""
        with self.engine.begin() as conn:
            conn.execute(insert(login_events_t).values(kind=self.kind, key=hash_secret(key), t=now))
            self._adds += 1
            if self._adds % 100 == 0:
                conn.execute(
                    delete(login_events_t).where(
                        login_events_t.c.kind == self.kind,
                        login_events_t.c.t <= now - self.window_s,
                    )
                )

    def retry_after(self, key: str, now: float) -> int:
        """Whole seconds until the oldest event of ``key`` leaves the window."""
        with self.engine.connect() as conn:
            oldest = conn.execute(
                select(func.min(login_events_t.c.t)).where(
                    self._where(key), login_events_t.c.t > now - self.window_s
                )
            ).scalar_one()
        if oldest is None:
            return 0
        return max(1, int(float(oldest) + self.window_s - now + 0.999))

    def newest(self, key: str, now: float) -> float | None:
        """The time of the latest event of ``key`` in the window, or None."""
        with self.engine.connect() as conn:
            latest = conn.execute(
                select(func.max(login_events_t.c.t)).where(
                    self._where(key), login_events_t.c.t > now - self.window_s
                )
            ).scalar_one()
        return None if latest is None else float(latest)

    def clear(self, key: str) -> None:
        """Forget ``key``."""
        with self.engine.begin() as conn:
            conn.execute(delete(login_events_t).where(self._where(key)))


class LoginThrottle:
    """Failed log-ins per (address, name) pair, per address and per name.

    Why three counts (issue 20, item 7): counting only per name let anyone lock an
    account by typing five wrong passwords, even against its owner typing the
    right one elsewhere.  Now the attacker is slowed, not the victim:

    * a pair gets ``pair_free`` failures, then a delay that doubles with every
      further failure (``pair_delay_s``, ``2 * pair_delay_s``, ... up to the window);
    * an address gets ``ip_failures`` failures over all names (one address trying
      many names);
    * a name that failed ``user_failures`` times from anywhere (many addresses
      trying one name) refuses every address that failed for it until those
      failures leave the window; an address without failures for the name is never
      refused for it, so the owner logs in from their own.

    A refused attempt (429) checks no password and counts nothing.  A correct
    password forgets its pair's failures.  With an ``engine`` the counts live in
    the database and hold across every server process; without, in this process.
    """

    def __init__(self, settings: AccountSettings, engine: Engine | None = None) -> None:
        self.settings = settings
        self.by_user: SlidingWindow | DbWindow
        self.by_ip: SlidingWindow | DbWindow
        self.by_pair: SlidingWindow | DbWindow
        self.registrations: SlidingWindow | DbWindow
        if engine is None:
            self.by_user = SlidingWindow(settings.window_s)
            self.by_ip = SlidingWindow(settings.window_s)
            self.by_pair = SlidingWindow(settings.window_s)
            self.registrations = SlidingWindow(3600.0)
        else:
            self.by_user = DbWindow(engine, "user", settings.window_s)
            self.by_ip = DbWindow(engine, "ip", settings.window_s)
            self.by_pair = DbWindow(engine, "pair", settings.window_s)
            self.registrations = DbWindow(engine, "register", 3600.0)

    @staticmethod
    def _pair(ip: str, name_key: str) -> str:
        return f"{ip}\x00{name_key}"

    def pair_delay(self, failures: int) -> float:
        """Seconds a pair with ``failures`` failures waits after its latest one."""
        s = self.settings
        if failures < s.pair_free:
            return 0.0
        return float(min(s.window_s, s.pair_delay_s * 2.0 ** min(failures - s.pair_free, 30)))

    def check(self, ip: str, name_key: str, now: float | None = None) -> None:
        """Raise a 429 :class:`AccountError` if this attempt is over a limit."""
        now = time.time() if now is None else now
        s = self.settings
        if self.by_ip.count(ip, now) >= s.ip_failures:
            wait = self.by_ip.retry_after(ip, now)
            raise AccountError(
                "throttled", f"too many failed log-ins from here; try again in {wait} s", 429, wait
            )
        pair = self._pair(ip, name_key)
        failures = self.by_pair.count(pair, now)
        if failures == 0:
            return  # never refused for a name it has not failed for
        latest = self.by_pair.newest(pair, now)
        delay = self.pair_delay(failures)
        if latest is not None and now < latest + delay:
            wait = max(1, int(latest + delay - now + 0.999))
            raise AccountError(
                "throttled",
                f"too many failed log-ins for this name; try again in {wait} s",
                429,
                wait,
            )
        if self.by_user.count(name_key, now) >= s.user_failures:
            wait = self.by_pair.retry_after(pair, now)
            raise AccountError(
                "throttled",
                f"too many failed log-ins for this name; try again in {wait} s",
                429,
                wait,
            )

    def failed(self, ip: str, name_key: str, now: float | None = None) -> None:
        """Count a failed attempt."""
        now = time.time() if now is None else now
        self.by_ip.add(ip, now)
        self.by_pair.add(self._pair(ip, name_key), now)
        self.by_user.add(name_key, now)

    def succeeded(self, ip: str, name_key: str) -> None:
        """A correct password: this address's failures for the name are forgotten
        (the name's count stays: an attack on it from elsewhere goes on)."""
        self.by_pair.clear(self._pair(ip, name_key))

    def check_registration(self, ip: str, now: float | None = None) -> None:
        """Raise 429 when this address created too many accounts in the last hour."""
        now = time.time() if now is None else now
        if self.registrations.count(ip, now) >= self.settings.registrations_per_ip:
            wait = self.registrations.retry_after(ip, now)
            raise AccountError(
                "throttled", f"too many new accounts from here; try again in {wait} s", 429, wait
            )
        self.registrations.add(ip, now)


class NameRegistry:
    """The look-alike keys (:func:`.names.skeletons`) of every account's name.

    Names never change and accounts are never deleted, so each process reads only
    the accounts added since its last look (``id`` above the last it saw): every
    process sees the accounts the others registered, at the cost of one indexed
    query per check.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._last_id = 0
        self._keys: tuple[dict[str, int], dict[str, int]] = ({}, {})
        self._lock = threading.Lock()

    def refresh(self, conn: Connection | None = None) -> None:
        """Read the accounts registered since the last look."""
        with self._lock:
            query = (
                select(users_t.c.id, users_t.c.username)
                .where(users_t.c.id > self._last_id)
                .order_by(users_t.c.id)
            )
            if conn is None:
                with self.engine.connect() as own:
                    rows = own.execute(query).all()
            else:
                rows = conn.execute(query).all()
            for r in rows:
                for keys, key in zip(self._keys, skeletons(r.username), strict=True):
                    keys.setdefault(key, int(r.id))
                self._last_id = max(self._last_id, int(r.id))

    def holder(self, name: str, conn: Connection | None = None) -> int | None:
        """The id of an account whose name looks like ``name``, or None."""
        self.refresh(conn)
        for keys, key in zip(self._keys, skeletons(name), strict=True):
            if key in keys:
                return keys[key]
        return None


def _row_user(row: Any) -> User:
    return User(
        id=int(row.id), username=row.username, is_bot=bool(row.is_bot), created=float(row.created)
    )


class AccountService:
    """Accounts, sessions and seat links in the server's database."""

    def __init__(
        self,
        engine: Engine,
        settings: AccountSettings | None = None,
        reserved: set[str] | None = None,
    ) -> None:
        self.engine = engine
        self.settings = settings or AccountSettings()
        s = self.settings
        self.hasher = PasswordHasher(
            time_cost=s.time_cost, memory_cost=s.memory_cost, parallelism=s.parallelism
        )
        self._dummy_hash = self.hasher.hash(secrets.token_urlsafe(16))
        self.throttle = LoginThrottle(s, engine)
        self.reserved = {username_key(r) for r in (reserved or set())} | RESERVED_NAMES
        self._reserved_keys = {k for r in self.reserved for k in skeletons(r)}
        self.names = NameRegistry(engine)
        self._touched: dict[int, float] = {}
        self.login_checks: list[Callable[[User], None]] = []
        """Called with the account after a correct password; one raises to refuse
        the log-in (a banned account: :mod:`.moderation`)."""

    def _is_reserved(self, name: str) -> bool:
        return any(k in self._reserved_keys for k in skeletons(name))

    # -- accounts ------------------------------------------------------------------

    def check_username(self, name: str) -> None:
        """Raise :class:`AccountError` for a name that may not be registered."""
        if not re.fullmatch(USERNAME_PATTERN, name):
            raise AccountError(
                "bad_username",
                "a user name is 3 to 20 letters, digits, '_' or '-', starting with a letter "
                "or digit",
            )
        key = username_key(name)
        if key in self.reserved or key.startswith("bot") or self._is_reserved(name):
            raise AccountError("bad_username", f"the name {name!r} is reserved")
        try:  # the rules every seat name follows: nothing that reads like game text
            check_name(name)
        except ValueError as e:
            raise AccountError("bad_username", str(e)) from None

    def register(self, username: str, password: str) -> User:
        """Create an account (the name must be free, case-insensitively)."""
        self.check_username(username)
        if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
            raise AccountError(
                "bad_password", f"a password is {PASSWORD_MIN} to {PASSWORD_MAX} characters"
            )
        if password.casefold() == username.casefold():
            raise AccountError("bad_password", "the password cannot be the user name")
        pw_hash = self.hasher.hash(password)
        now = time.time()
        try:
            with self.engine.begin() as conn:
                # one registration at a time between the look-alike check and the
                # insert, at every process (the unique key guards only the exact name)
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(7320420)"))
                else:  # SQLite: take the write lock before reading
                    conn.execute(update(users_t).where(users_t.c.id < 0).values(last_seen=0.0))
                if self.names.holder(username, conn) is not None:
                    raise AccountError(
                        "name_taken",
                        f"the name {username!r} is taken (or one that looks just like it)",
                        409,
                    )
                res = conn.execute(
                    insert(users_t).values(
                        username=username,
                        username_key=username_key(username),
                        password_hash=pw_hash,
                        is_bot=0,
                        created=now,
                        last_seen=now,
                    )
                )
                uid = int(res.inserted_primary_key[0])  # type: ignore[index]
        except IntegrityError:
            raise AccountError("name_taken", f"the name {username!r} is taken", 409) from None
        return User(id=uid, username=username, is_bot=False, created=now)

    def ensure_bot(self, name: str) -> User:
        """The labelled account of bot ``name`` (created on first use, never logs in)."""
        key = username_key(name)
        query = select(users_t).where(users_t.c.username_key == key)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None:
            # its own transaction: a unique-key clash (another process made the
            # account just now) must not abort anything else
            with contextlib.suppress(IntegrityError), self.engine.begin() as conn:
                conn.execute(
                    insert(users_t).values(
                        username=name,
                        username_key=key,
                        password_hash=None,
                        is_bot=1,
                        created=time.time(),
                        last_seen=0.0,
                    )
                )
            with self.engine.connect() as conn:
                row = conn.execute(query).first()
        assert row is not None
        return _row_user(row)

    def authenticate(self, username: str, password: str, ip: str) -> User:
        """The account for a correct name and password, else a 401 or 429 error."""
        key = username_key(username)[:64]
        self.throttle.check(ip, key)
        with self.engine.connect() as conn:
            row = conn.execute(
                select(users_t).where(users_t.c.username_key == key, users_t.c.is_bot == 0)
            ).first()
        stored = row.password_hash if row is not None else None
        ok = False
        try:
            ok = self.hasher.verify(stored or self._dummy_hash, password[:PASSWORD_MAX])
        except (VerificationError, InvalidHashError):
            ok = False
        if row is None or not stored or not ok:
            self.throttle.failed(ip, key)
            raise AccountError("bad_login", "wrong user name or password", 401)
        self.throttle.succeeded(ip, key)
        for check in self.login_checks:
            check(_row_user(row))
        if self.hasher.check_needs_rehash(stored):
            with self.engine.begin() as conn:
                conn.execute(
                    update(users_t)
                    .where(users_t.c.id == row.id)
                    .values(password_hash=self.hasher.hash(password))
                )
        return _row_user(row)

    def user_by_name(self, username: str) -> User | None:
        """The account called ``username`` (any case), or None."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(users_t).where(users_t.c.username_key == username_key(username)[:64])
            ).first()
        return _row_user(row) if row is not None else None

    def user_by_id(self, user_id: int) -> User | None:
        """The account with id ``user_id``, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(users_t).where(users_t.c.id == user_id)).first()
        return _row_user(row) if row is not None else None

    def name_registered(self, name: str) -> bool:
        """Whether a guest display name would pass for an account's (or a bot's)
        name: the same name in any case, or one that looks like it (``аlice``)."""
        key = username_key(name.strip())
        if key in self.reserved or self._is_reserved(name):
            return True
        return self.user_by_name(key) is not None or self.names.holder(name) is not None

    # -- sessions ------------------------------------------------------------------

    def new_session(self, user: User) -> str:
        """Open a session for ``user``; the id is returned once, only its hash is stored."""
        sid = secrets.token_urlsafe(32)
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                insert(sessions_t).values(
                    id_hash=hash_secret(sid),
                    user_id=user.id,
                    created=now,
                    expires=now + self.settings.session_ttl_s,
                )
            )
        return sid

    def session_user(self, sid: str | None) -> User | None:
        """The account of a live session id, or None (unknown, revoked or expired)."""
        if not sid or len(sid) > 100:
            return None
        now = time.time()
        with self.engine.connect() as conn:
            row = conn.execute(
                select(users_t)
                .join(sessions_t, sessions_t.c.user_id == users_t.c.id)
                .where(sessions_t.c.id_hash == hash_secret(sid), sessions_t.c.expires > now)
            ).first()
        if row is None:
            return None
        user = _row_user(row)
        self.touch(user, now)
        return user

    def touch(self, user: User, now: float | None = None) -> None:
        """Mark ``user`` as seen now (written at most every 20 s per account)."""
        now = time.time() if now is None else now
        if now - self._touched.get(user.id, 0.0) < 20.0:
            return
        self._touched[user.id] = now
        if len(self._touched) > 100_000:
            self._touched.clear()
        with self.engine.begin() as conn:
            conn.execute(update(users_t).where(users_t.c.id == user.id).values(last_seen=now))

    def revoke(self, sid: str) -> None:
        """End one session."""
        with self.engine.begin() as conn:
            conn.execute(delete(sessions_t).where(sessions_t.c.id_hash == hash_secret(sid)))

    def revoke_all(self, user: User) -> int:
        """End every session of ``user`` (log out everywhere); how many there were."""
        with self.engine.begin() as conn:
            res = conn.execute(delete(sessions_t).where(sessions_t.c.user_id == user.id))
            conn.execute(delete(sessions_t).where(sessions_t.c.expires <= time.time()))
        return int(res.rowcount or 0)

    def session_count(self, user: User) -> int:
        """Live sessions of ``user``."""
        with self.engine.connect() as conn:
            n = conn.execute(
                select(func.count())
                .select_from(sessions_t)
                .where(sessions_t.c.user_id == user.id, sessions_t.c.expires > time.time())
            ).scalar_one()
        return int(n)

    def online(self, since_s: float | None = None) -> list[str]:
        """Names of (human) accounts seen within the last ``since_s`` seconds."""
        cutoff = time.time() - (self.settings.online_s if since_s is None else since_s)
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(users_t.c.username)
                .where(users_t.c.last_seen >= cutoff, users_t.c.is_bot == 0)
                .order_by(users_t.c.username_key)
                .limit(200)
            ).all()
        return [r.username for r in rows]

    # -- seats ---------------------------------------------------------------------

    def link_seat(self, table_id: str, seat: int, user: User) -> None:
        """Record that ``user`` holds ``seat`` at ``table_id``; a seat already linked
        to another account is refused (409)."""
        with self.engine.begin() as conn:
            row = conn.execute(
                select(seat_accounts_t.c.user_id).where(
                    seat_accounts_t.c.table_id == table_id, seat_accounts_t.c.seat == seat
                )
            ).first()
            if row is not None:
                if int(row.user_id) == user.id:
                    return
                raise AccountError("seat_claimed", "this seat belongs to another account", 409)
            if not user.is_bot:  # a bot may fill several seats, a person one
                other = conn.execute(
                    select(seat_accounts_t.c.seat).where(
                        seat_accounts_t.c.table_id == table_id,
                        seat_accounts_t.c.user_id == user.id,
                    )
                ).first()
                if other is not None:
                    raise AccountError(
                        "already_seated", "this account already has a seat at this table", 409
                    )
            try:
                conn.execute(
                    insert(seat_accounts_t).values(
                        table_id=table_id, seat=seat, user_id=user.id, linked=time.time()
                    )
                )
            except IntegrityError:
                raise AccountError(
                    "seat_claimed", "this seat belongs to another account", 409
                ) from None

    def seat_users(self, table_id: str) -> dict[int, User]:
        """The accounts holding seats at ``table_id``, by seat."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(seat_accounts_t.c.seat, users_t)
                .join(users_t, users_t.c.id == seat_accounts_t.c.user_id)
                .where(seat_accounts_t.c.table_id == table_id)
            ).all()
        return {int(r.seat): _row_user(r) for r in rows}

    def seats_for_tables(self, table_ids: list[str]) -> dict[tuple[str, int], str]:
        """``{(table_id, seat): username}`` for many tables at once (the lobby)."""
        if not table_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(seat_accounts_t.c.table_id, seat_accounts_t.c.seat, users_t.c.username)
                .join(users_t, users_t.c.id == seat_accounts_t.c.user_id)
                .where(seat_accounts_t.c.table_id.in_(table_ids))
            ).all()
        return {(r.table_id, int(r.seat)): r.username for r in rows}

    def seat_of_user(self, table_id: str, user: User | None) -> int | None:
        """The seat ``user`` holds at ``table_id`` (their own view of it), or None."""
        if user is None:
            return None
        with self.engine.connect() as conn:
            row = conn.execute(
                select(seat_accounts_t.c.seat).where(
                    seat_accounts_t.c.table_id == table_id, seat_accounts_t.c.user_id == user.id
                )
            ).first()
        return int(row.seat) if row is not None else None


# --------------------------------------------------------------------------- CSRF


def _header(scope: Scope, name: bytes) -> str | None:
    for k, v in scope.get("headers", ()):
        if k == name:
            return str(v.decode("latin-1"))
    return None


def _cookies(scope: Scope) -> dict[str, str]:
    raw = _header(scope, b"cookie")
    out: dict[str, str] = {}
    if not raw:
        return out
    for part in raw.split(";"):
        k, sep, v = part.strip().partition("=")
        if sep and k not in out:
            out[k] = v
    return out


def _same_origin(origin: str, scope: Scope) -> bool:
    host = _header(scope, b"host") or ""
    _scheme, sep, rest = origin.partition("://")
    return bool(sep) and rest.rstrip("/").lower() == host.lower()


def csrf_refusal(scope: Scope) -> str | None:
    """Why a state-changing request must be refused, or None if it may go on."""
    if scope.get("method", "GET") not in UNSAFE_METHODS:
        return None
    if _header(scope, b"sec-fetch-site") == "cross-site":
        return "cross-site request refused"
    origin = _header(scope, b"origin")
    if origin is not None and not _same_origin(origin, scope):
        return "request from another origin refused"
    cookies = _cookies(scope)
    sid = cookies.get(SESSION_COOKIE)
    path: str = scope.get("path", "")
    if not sid and not path.startswith(CSRF_ALWAYS):
        return None  # no ambient credential: the request proves itself (seat token header)
    sent = _header(scope, CSRF_HEADER.encode()) or ""
    expected = csrf_for_session(sid) if sid else cookies.get(CSRF_COOKIE, "")
    if not expected or not sent or not secrets.compare_digest(sent, expected):
        return "missing or wrong CSRF token (send the X-CSRF-Token header)"
    return None


class CsrfMiddleware:
    """Refuse cross-site and token-less state-changing requests with 403 ``csrf``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            why = csrf_refusal(scope)
            if why is not None:
                body = json.dumps({"code": "csrf", "message": why}).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
