"""Storage of tables, seats and the event log through SQLAlchemy.

Three tables: ``tables`` (configuration, seed, status, version), ``seats``
(name, kind, bot, and the SHA-256 of the seat's secret token: the token itself
is never stored) and ``events`` (the append-only log of deals and accepted
moves).  An accepted action is written together with the table's new version in
one transaction, before anything is broadcast, so a crash can lose nothing a
client has seen.

SQLite (a file, the default) and PostgreSQL (``postgresql+psycopg://...``) are
supported; SQLite runs in WAL mode so a killed process keeps every committed
transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Engine,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    literal_column,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError

if TYPE_CHECKING:
    from psycopg import AsyncConnection
    from sqlalchemy import Connection

from ..wire.auth import hash_token
from ..wire.events import TableEvent, event_data, event_from_data
from .schema import (
    events_t,
    leases_t,
    limits_t,
    meta_t,
    metadata,
    presence_t,
    processes_t,
    seats_t,
    tables_t,
)

__all__ = ["StaleVersionError", "Store", "StoredTable", "hash_token", "metadata"]

# Statements of the hot path, built once (building them per call costs more than
# the SQLite commit itself).
_BUMP_VERSION = (
    update(tables_t)
    .where(tables_t.c.id == bindparam("b_id"), tables_t.c.version == bindparam("b_seq"))
    .values(
        version=bindparam("b_version"), status=bindparam("b_status"), updated=bindparam("b_now")
    )
)
_INSERT_EVENT = insert(events_t)
_NOTIFY = text("SELECT pg_notify(:c, :p)")
_DB_NOW = "extract(epoch from clock_timestamp())"
DB_NOW = _DB_NOW
"""The database's clock in SQL (leases expire on it, never on a process's clock)."""


def _psycopg(sql: str) -> str:
    """A statement written with SQLAlchemy's ``:name`` parameters in psycopg's
    ``%(name)s`` style, so the async path runs the very text the sync path runs
    (one statement written once, not twice)."""
    return re.sub(r"(?<![:\w]):(\w+)", r"%(\1)s", sql)


_APPEND_CTE = """WITH up AS (
        UPDATE sk_tables SET version = :seq + 1, status = :status, updated = :now
        WHERE id = :id AND version = :seq RETURNING id
    ), ins AS (
        INSERT INTO sk_events (table_id, seq, data, created)
        SELECT id, :seq, CAST(:data AS json), :now FROM up RETURNING table_id
    )"""
_APPEND_PG = text(_APPEND_CTE + " SELECT table_id FROM ins")
"""PostgreSQL's append: the version check, the event and (below) the notification in
one statement, run in autocommit, so one round trip and one transaction per action
(the three statements of the portable path cost about three times the CPU)."""
_APPEND_NOTIFY_SQL = _APPEND_CTE + " SELECT pg_notify(:c, :p) FROM ins"
_APPEND_PG_NOTIFY = text(_APPEND_NOTIFY_SQL)
"""The notification is only sent for a row inserted: a refused write tells nobody."""
_RENEW_SQL = f"""UPDATE sk_leases SET expires = {_DB_NOW} + :ttl
    WHERE owner = :o AND table_id = ANY(:ids) RETURNING table_id"""
_RENEW = text(_RENEW_SQL)
_ACQUIRE = text(
    f"""INSERT INTO sk_leases (table_id, owner, expires) VALUES (:t, :o, {_DB_NOW} + :ttl)
    ON CONFLICT (table_id) DO UPDATE SET owner = EXCLUDED.owner, expires = EXCLUDED.expires
    WHERE sk_leases.owner = EXCLUDED.owner OR sk_leases.expires < {_DB_NOW}
    RETURNING owner"""
)
_LEASE_LEFT = text(
    f"SELECT expires - {_DB_NOW} AS left_s, owner FROM sk_leases WHERE table_id = :t"
)
_VERSIONS_PG = text("SELECT id, version FROM sk_tables WHERE id = ANY(:ids)")
"""One statement text for any number of tables (an expanding IN list is compiled
anew for each length: a visible share of the once-a-second safety net)."""
_HEARTBEAT = text(
    f"""INSERT INTO sk_processes (owner, expires) VALUES (:o, {_DB_NOW} + :ttl)
    ON CONFLICT (owner) DO UPDATE SET expires = EXCLUDED.expires"""
)
_DEAD = text(f"SELECT owner FROM sk_processes WHERE expires < {_DB_NOW}")

_REFILL = """CASE WHEN sk_limits.tokens + (:now - sk_limits.at) * :rate > :burst THEN :burst
    WHEN :now < sk_limits.at THEN sk_limits.tokens
    ELSE sk_limits.tokens + (:now - sk_limits.at) * :rate END"""
_TAKE = text(
    f"""INSERT INTO sk_limits (bucket, tokens, at) VALUES (:b, :burst - 1, :now)
    ON CONFLICT (bucket) DO UPDATE SET tokens = ({_REFILL}) - 1,
        at = CASE WHEN :now < sk_limits.at THEN sk_limits.at ELSE :now END
    RETURNING tokens"""
)
"""Take one token from a bucket in one statement (SQLite and PostgreSQL): refill
for the time passed, capped at the burst, minus one.  A negative result means
the bucket was empty; the caller's transaction is then rolled back, so a refused
request takes nothing (from this bucket or the ones before it)."""
LIMITS_KEEP_S = 3600.0
"""Rows untouched this long are deleted (every bucket is full again by then)."""

CHANNEL = "sk_tables"
"""The PostgreSQL notification channel the server processes talk on."""


@dataclass
class StoredTable:
    """A table as loaded from the database."""

    id: str
    config: dict[str, Any]
    seed: int
    status: str
    version: int
    created: float
    seats: list[dict[str, Any]]
    events: list[TableEvent]


class StaleVersionError(RuntimeError):
    """The stored version is not the expected one (another writer got there first)."""


_APPEND_RAW = _psycopg(_APPEND_NOTIFY_SQL)
"""The same statement as ``_APPEND_PG_NOTIFY`` for psycopg itself."""
_RENEW_RAW = _psycopg(_RENEW_SQL)
_HEARTBEAT_RAW = f"""WITH hb AS (
        INSERT INTO sk_processes (owner, expires) VALUES (%(o)s, {_DB_NOW} + %(ttl)s)
        ON CONFLICT (owner) DO UPDATE SET expires = EXCLUDED.expires RETURNING owner
    ), dead AS (
        SELECT owner FROM sk_processes WHERE expires < {_DB_NOW} AND owner <> %(o)s
    ), gone_presence AS (
        DELETE FROM sk_presence WHERE owner IN (SELECT owner FROM dead)
    ), gone AS (
        DELETE FROM sk_processes WHERE owner IN (SELECT owner FROM dead)
    )
    SELECT owner FROM hb
    UNION SELECT owner FROM sk_processes WHERE owner NOT IN (SELECT owner FROM dead)"""
"""The heartbeat of :meth:`Store.heartbeat` as one statement: renew this process,
drop the dead ones and their presence, return the living (every part of a
statement sees the same snapshot, so the renewed row comes from ``hb``)."""


def _append_params(
    table_id: str, seq: int, event: TableEvent, status: str, notify: str, now: float
) -> dict[str, Any]:
    """The parameters of the append statement (both paths)."""
    return {
        "id": table_id,
        "seq": seq,
        "status": status,
        "now": now,
        "data": json.dumps(event_data(event)),
        "c": CHANNEL,
        "p": notify,
    }


def _json_value(value: Any) -> dict[str, Any]:
    """A ``json`` column as psycopg returns it (already parsed, or text)."""
    if isinstance(value, str | bytes):
        parsed: dict[str, Any] = json.loads(value)
        return parsed
    return dict(value)


class AsyncAppender:
    """PostgreSQL appends on the event loop, without threads or the ORM layer.

    Profiling the two-worker benchmark showed the synchronous append blocking the
    loop for the whole round trip, and, moved to a thread, the thread hand-off
    and SQLAlchemy's execution machinery costing more CPU than the statement.
    So the hot path uses a few autocommit ``psycopg.AsyncConnection`` objects (psycopg
    prepares the statement after a few uses); an append is one round trip.
    """

    def __init__(self, dsn: str, size: int = 16) -> None:
        self.dsn = dsn
        self.size = size
        self._idle: list[AsyncConnection[Any]] = []
        self._open = 0
        self._free: asyncio.Condition | None = None

    async def _get(self) -> AsyncConnection[Any]:
        import psycopg

        if self._free is None:
            self._free = asyncio.Condition()
        async with self._free:
            while not self._idle and self._open >= self.size:
                await self._free.wait()
            if self._idle:
                return self._idle.pop()
            self._open += 1
        try:
            return await psycopg.AsyncConnection.connect(self.dsn, autocommit=True)
        except BaseException:
            await self._put(None)
            raise

    async def _put(self, conn: AsyncConnection[Any] | None) -> None:
        assert self._free is not None
        async with self._free:
            if conn is None:
                self._open -= 1
            else:
                self._idle.append(conn)
            self._free.notify()

    async def append(
        self, table_id: str, seq: int, event: TableEvent, status: str, notify: str
    ) -> None:
        """:meth:`Store.append_event` for PostgreSQL (``StaleVersionError`` if refused)."""
        params = _append_params(table_id, seq, event, status, notify, time.time())
        rows = await self.fetch(_APPEND_RAW, params)
        if len(rows) != 1:
            raise StaleVersionError(f"table {table_id} is not at version {seq}")

    async def fetch(self, sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        """Run one statement (autocommit) on a pooled connection; its rows.

        The cluster's reads and writes of the hot path (the catch-up read, the
        once-a-second heartbeat, renewals and versions) go through here: run
        synchronously they blocked the event loop, every table stalled, for
        each round trip."""
        conn = await self._get()
        try:
            cur = await conn.execute(sql, params)
            rows = await cur.fetchall() if cur.description is not None else []
        except BaseException:
            with contextlib.suppress(Exception):
                await conn.close()
            await self._put(None)
            raise
        await self._put(conn)
        return [tuple(r) for r in rows]

    async def events_since(self, table_id: str, seq: int) -> list[tuple[int, TableEvent]]:
        """(seq, event) of the events numbered ``seq`` and later, in order."""
        rows = await self.fetch(
            "SELECT seq, data FROM sk_events WHERE table_id = %(t)s AND seq >= %(s)s ORDER BY seq",
            {"t": table_id, "s": seq},
        )
        return [(int(r[0]), event_from_data(_json_value(r[1]))) for r in rows]

    async def versions(self, table_ids: list[str]) -> dict[str, int]:
        """:meth:`Store.versions` without blocking the loop."""
        if not table_ids:
            return {}
        rows = await self.fetch(
            "SELECT id, version FROM sk_tables WHERE id = ANY(%(ids)s)", {"ids": table_ids}
        )
        return {str(r[0]): int(r[1]) for r in rows}

    async def renew_leases(self, owner: str, table_ids: list[str], ttl: float) -> set[str]:
        """:meth:`Store.renew_leases` without blocking the loop."""
        if not table_ids:
            return set()
        rows = await self.fetch(_RENEW_RAW, {"o": owner, "ids": table_ids, "ttl": ttl})
        return {str(r[0]) for r in rows}

    async def heartbeat(self, owner: str, ttl: float) -> set[str]:
        """:meth:`Store.heartbeat` in one statement (one round trip, one transaction)."""
        rows = await self.fetch(_HEARTBEAT_RAW, {"o": owner, "ttl": ttl})
        return {str(r[0]) for r in rows}

    async def close(self) -> None:
        """Close the idle connections."""
        idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                await conn.close()


class Store:
    """Database access for the server; every method is one short transaction."""

    def __init__(self, url: str, *, migrate: bool | None = None) -> None:
        """Open the database at ``url``.

        ``migrate``: True brings the schema to the newest revision, False refuses
        (:class:`~.migrate.UnmigratedDatabaseError`) a database that is not
        there; None (the default) migrates SQLite files and checks the others
        (see :mod:`.migrate`).
        """
        from . import migrate as migrations

        self.url = url
        u = make_url(url)
        self.backend = u.get_backend_name()
        kwargs: dict[str, Any] = {}
        if self.backend == "sqlite":
            kwargs["connect_args"] = {"check_same_thread": False}
        self.engine: Engine = create_engine(url, **kwargs)
        if self.backend == "sqlite":
            event.listen(self.engine, "connect", _sqlite_pragmas)
        self._autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT")
        """The same pool in autocommit: single-statement writes (PostgreSQL)."""
        if migrate is None:
            migrate = self.backend == "sqlite"
        try:
            if migrate:
                migrations.upgrade(self.engine)
            else:
                migrations.check(self.engine, url)
        except BaseException:
            self.engine.dispose()
            raise

    def appender(self) -> AsyncAppender | None:
        """An :class:`AsyncAppender` on this database (PostgreSQL), else None."""
        if self.backend != "postgresql":
            return None
        url = self.engine.url.set(drivername="postgresql")
        return AsyncAppender(url.render_as_string(hide_password=False))

    def close(self) -> None:
        """Release the connection pool."""
        self.engine.dispose()

    def server_secret(self) -> bytes:
        """The secret signing this database's links, shared by every server process
        on it (created on first use)."""
        with self.engine.begin() as conn:
            row = conn.execute(select(meta_t.c.value).where(meta_t.c.key == "link_secret")).first()
            if row is not None:
                return bytes.fromhex(row.value)
        value = secrets.token_hex(32)
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(meta_t).values(key="link_secret", value=value))
        except IntegrityError:  # another process created it first
            pass
        with self.engine.connect() as conn:
            row = conn.execute(select(meta_t.c.value).where(meta_t.c.key == "link_secret")).first()
            assert row is not None
            return bytes.fromhex(row.value)

    def take_tokens(self, buckets: list[tuple[str, float, float]], now: float) -> float:
        """Take one token from each ``(bucket, burst, rate)``, all or none, in one
        transaction; 0.0 if taken, else the seconds until the first empty bucket
        has a token again (nothing is taken then).

        The buckets are rows of ``sk_limits``, so every server process on the
        database shares them (per-process buckets let two workers pass twice
        the limit).  Each bucket is one ``INSERT ... ON CONFLICT DO UPDATE``
        whose row lock (PostgreSQL) orders concurrent takes; the buckets are
        always taken in the caller's order, so two takes cannot deadlock."""
        with self.engine.connect() as conn:
            trans = conn.begin()
            try:
                for bucket, burst, rate in buckets:
                    left = conn.execute(
                        _TAKE, {"b": bucket, "burst": burst, "rate": rate, "now": now}
                    ).scalar_one()
                    if float(left) < 0:
                        trans.rollback()
                        return max(1e-3, -float(left) / rate)
                trans.commit()
            except BaseException:
                trans.rollback()
                raise
        return 0.0

    def purge_limits(self, now: float) -> None:
        """Forget the buckets untouched for :data:`LIMITS_KEEP_S` (they are full)."""
        with self.engine.begin() as conn:
            conn.execute(limits_t.delete().where(limits_t.c.at < now - LIMITS_KEEP_S))

    def create_table(
        self, table_id: str, config: dict[str, Any], seed: int, seats: list[dict[str, Any]]
    ) -> None:
        """Store a new table with its seats."""
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                insert(tables_t).values(
                    id=table_id,
                    config=json.dumps(config),
                    seed=seed,
                    status="waiting",
                    version=0,
                    listed=1 if config.get("listed", True) else 0,
                    created=now,
                    updated=now,
                )
            )
            if seats:
                conn.execute(insert(seats_t), [{"table_id": table_id, **s} for s in seats])

    def claim_seat(self, table_id: str, seat: int, name: str, token_hash: str, status: str) -> bool:
        """Take a free human seat; False if someone else took it first."""
        with self.engine.begin() as conn:
            res = conn.execute(
                update(seats_t)
                .where(
                    seats_t.c.table_id == table_id,
                    seats_t.c.seat == seat,
                    seats_t.c.kind == "human",
                    seats_t.c.token_hash.is_(None),
                )
                .values(name=name, token_hash=token_hash)
            )
            if res.rowcount != 1:
                return False
            conn.execute(
                update(tables_t)
                .where(tables_t.c.id == table_id)
                .values(status=status, updated=time.time())
            )
            return True

    def append_event(
        self, table_id: str, seq: int, event: TableEvent, status: str, notify: str = ""
    ) -> None:
        """Store event number ``seq`` (0-based) and the table's new version and status
        in one transaction.  The version check refuses a second writer.  With
        ``notify`` (PostgreSQL) the transaction also sends that payload on
        :data:`CHANNEL`, so the other processes hear of the event once it is committed."""
        now = time.time()
        if self.backend == "postgresql":
            params = _append_params(table_id, seq, event, status, notify, now)
            with self._autocommit.connect() as conn:
                rows = conn.execute(_APPEND_PG_NOTIFY if notify else _APPEND_PG, params).all()
            if len(rows) != 1:
                raise StaleVersionError(f"table {table_id} is not at version {seq}")
            return
        with self.engine.begin() as conn:
            if notify:
                conn.execute(_NOTIFY, {"c": CHANNEL, "p": notify})
            res = conn.execute(
                _BUMP_VERSION,
                {
                    "b_id": table_id,
                    "b_seq": seq,
                    "b_version": seq + 1,
                    "b_status": status,
                    "b_now": now,
                },
            )
            if res.rowcount != 1:
                raise StaleVersionError(f"table {table_id} is not at version {seq}")
            conn.execute(
                _INSERT_EVENT,
                {"table_id": table_id, "seq": seq, "data": event_data(event), "created": now},
            )

    # -- many processes (PostgreSQL) ---------------------------------------------

    def notify(self, payload: str) -> None:
        """Send ``payload`` to every listening process."""
        with self.engine.begin() as conn:
            conn.execute(_NOTIFY, {"c": CHANNEL, "p": payload})

    def events_since(self, table_id: str, seq: int) -> list[TableEvent]:
        """The events numbered ``seq`` and later, in order."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(events_t.c.data)
                .where(events_t.c.table_id == table_id, events_t.c.seq >= seq)
                .order_by(events_t.c.seq)
            )
            return [event_from_data(r.data) for r in rows]

    def total_events(self) -> int:
        """Events stored over all tables (the benchmark's action count)."""
        with self.engine.connect() as conn:
            total = conn.execute(select(func.coalesce(func.sum(tables_t.c.version), 0))).scalar()
            return int(total or 0)

    def versions(self, table_ids: list[str]) -> dict[str, int]:
        """The stored version of each table."""
        if not table_ids:
            return {}
        with self.engine.connect() as conn:
            if self.backend == "postgresql":
                rows = conn.execute(_VERSIONS_PG, {"ids": table_ids})
            else:
                rows = conn.execute(
                    select(tables_t.c.id, tables_t.c.version).where(tables_t.c.id.in_(table_ids))
                )
            return {r.id: int(r.version) for r in rows}

    def load_seats(self, table_id: str) -> list[dict[str, Any]]:
        """A table's seats, in order."""
        with self.engine.connect() as conn:
            return [
                dict(r._mapping)
                for r in conn.execute(
                    select(seats_t).where(seats_t.c.table_id == table_id).order_by(seats_t.c.seat)
                )
            ]

    def acquire_lease(self, table_id: str, owner: str, ttl: float) -> tuple[bool, float]:
        """Take or renew the table's lease for ``ttl`` seconds (database clock):
        (held, seconds the lease runs from now)."""
        held, left, _holder = self.take_lease(table_id, owner, ttl)
        return held, left

    def take_lease(self, table_id: str, owner: str, ttl: float) -> tuple[bool, float, str | None]:
        """:meth:`acquire_lease`, also saying who holds the lease when it is not taken
        (None if nobody: it was released meanwhile)."""
        with self.engine.begin() as conn:
            got = conn.execute(_ACQUIRE, {"t": table_id, "o": owner, "ttl": ttl}).first()
            if got is not None:
                return True, ttl, owner
            row = conn.execute(_LEASE_LEFT, {"t": table_id}).first()
            if row is None:
                return False, 0.0, None
            return False, max(0.0, float(row.left_s or 0.0)), str(row.owner)

    def renew_leases(self, owner: str, table_ids: list[str], ttl: float) -> set[str]:
        """Renew, in one statement, the leases ``owner`` still holds of ``table_ids``
        for ``ttl`` seconds (database clock); the tables renewed.  (One statement a
        second per process instead of one per table: 1,000 tables made 400 a second.)"""
        if not table_ids:
            return set()
        with self._autocommit.connect() as conn:
            rows = conn.execute(_RENEW, {"o": owner, "ids": table_ids, "ttl": ttl})
            return {r.table_id for r in rows}

    def release_leases(self, owner: str) -> None:
        """Give up every lease and presence of ``owner`` (a clean shutdown)."""
        with self.engine.begin() as conn:
            conn.execute(leases_t.delete().where(leases_t.c.owner == owner))
            conn.execute(presence_t.delete().where(presence_t.c.owner == owner))
            conn.execute(processes_t.delete().where(processes_t.c.owner == owner))

    def heartbeat(self, owner: str, ttl: float) -> set[str]:
        """Say ``owner`` is alive for ``ttl`` seconds; the processes that are alive
        (the presence rows of the others are removed)."""
        with self.engine.begin() as conn:
            conn.execute(_HEARTBEAT, {"o": owner, "ttl": ttl})
            dead = [r.owner for r in conn.execute(_DEAD)]
            if dead:
                conn.execute(presence_t.delete().where(presence_t.c.owner.in_(dead)))
                conn.execute(processes_t.delete().where(processes_t.c.owner.in_(dead)))
            return {r.owner for r in conn.execute(select(processes_t.c.owner))}

    def set_presence(
        self, table_id: str, owner: str, seats: str, notify: str, spectators: int = 0
    ) -> None:
        """Record which human seats of a table have a socket at ``owner`` (and how
        many spectators it has there) and tell the other processes."""
        with self.engine.begin() as conn:
            conn.execute(
                presence_t.delete().where(
                    presence_t.c.table_id == table_id, presence_t.c.owner == owner
                )
            )
            if seats or spectators:
                conn.execute(
                    insert(presence_t).values(
                        table_id=table_id, owner=owner, seats=seats, spectators=spectators
                    )
                )
            conn.execute(_NOTIFY, {"c": CHANNEL, "p": notify})

    def presence(self, table_id: str) -> dict[str, tuple[str, int]]:
        """owner -> (seats as digits, spectators) of the living processes' sockets
        at a table."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(presence_t.c.owner, presence_t.c.seats, presence_t.c.spectators)
                .join(processes_t, processes_t.c.owner == presence_t.c.owner)
                .where(
                    presence_t.c.table_id == table_id,
                    # a dead process's rows stay until a heartbeat removes them
                    processes_t.c.expires >= literal_column(_DB_NOW),
                )
            )
            return {r.owner: (r.seats, int(r.spectators)) for r in rows}

    def load(self, table_id: str) -> StoredTable | None:
        """One table with its seats and events, or None (one consistent snapshot)."""
        with self._snapshot() as conn:
            row = conn.execute(select(tables_t).where(tables_t.c.id == table_id)).first()
            if row is None:
                return None
            return self._load_row(conn, row)

    def load_active(self) -> list[StoredTable]:
        """Every table that is not finished (to resume on start-up)."""
        with self._snapshot() as conn:
            rows = conn.execute(select(tables_t).where(tables_t.c.status != "finished")).all()
            return [self._load_row(conn, r) for r in rows]

    def _snapshot(self) -> Connection:
        """A connection whose reads all see one moment (PostgreSQL: REPEATABLE READ),
        so a table's seats and events always agree even while other processes write."""
        conn = self.engine.connect()
        if self.backend == "postgresql":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        return conn

    def _load_row(self, conn: Connection, row: Any) -> StoredTable:
        seats = [
            dict(r._mapping)
            for r in conn.execute(
                select(seats_t).where(seats_t.c.table_id == row.id).order_by(seats_t.c.seat)
            )
        ]
        events = [
            event_from_data(r.data)
            for r in conn.execute(
                select(events_t.c.data)
                .where(events_t.c.table_id == row.id)
                .order_by(events_t.c.seq)
            )
        ]
        return StoredTable(
            id=row.id,
            config=json.loads(row.config),
            seed=int(row.seed),
            status=row.status,
            version=int(row.version),
            created=float(row.created),
            seats=seats,
            events=events,
        )


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA busy_timeout=5000")
    cur.close()
