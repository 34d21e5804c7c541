"""Many server processes on one PostgreSQL database, one truth: the event log.

Every process holds the live tables in memory, but none of them is the
authority; the database is.  A move accepted by a process is stored with the
optimistic version check (``UPDATE ... WHERE version = seq``), and the same
transaction sends a notification (``pg_notify``) on :data:`~.db.CHANNEL`.  Every
process LISTENs on that channel with its own connection; hearing of version v of
a table it is behind on, it reads the missing events (``seq >= its version``),
applies them and pushes each of its own viewers its own view.  A process that
committed first wins; the loser's commit is refused by the version check and it
reloads the table from the database.  Once a second the process also compares
its tables' versions with the database's, so a lost notification (a listener
reconnecting) costs at most a second.

Clients resynchronise by sequence number: every view carries the table's
``version`` (the number of stored events), and a client that reconnects, to any
process, receives a full view at the current version.

Automatic actions (deals, bot turns, stand-ins, the turn timer) are fired by
the holder of the table's *lease* (``sk_leases``, expiry on the database's
clock, :data:`LEASE_S` seconds, renewed while the table needs it).  Exactly once:
a second process that fired anyway would be refused by the version check, so no
action is ever applied twice; a dead process's lease runs out and another
process takes it, so no action is lost.

Presence (which human seats have a socket open where) is shared through
``sk_presence`` and notifications, so a stand-in never plays for a player who is
connected to another process; ``sk_processes`` holds a heartbeat per process, and
the presence of a process whose heartbeat stopped is dropped.  The same rows
carry each process's spectator count, so every process's lobby counts them all.
Table chat travels on the same channel (``"k": "chat"``): the writer's process
stores the message and notifies in one transaction, the others pass it on to
their own players (:func:`.chat.deliver`).

A process that is told to stop (SIGTERM, :mod:`..runtime.drain`) *drains*
(:meth:`Cluster.drain`): it takes and renews no lease any more, gives back its
leases, presence and heartbeat, and says so (``"k": "bye"``), so the others take
its tables at once instead of when the leases would have run out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import time
from typing import TYPE_CHECKING, Any

from ..storage.store import CHANNEL, DB_NOW, AsyncAppender, Store, StoredTable
from ..table.live import LiveTable
from ..table.peer import TableHost

if TYPE_CHECKING:
    from psycopg import AsyncConnection

log = logging.getLogger("svoi_kozyri.server")

LEASE_S = 5.0
"""How long a table's lease lasts without renewal (a dead process's tables wait
at most this long for another process)."""
HEARTBEAT_S = 1.0
BATCH_S = 0.005
"""How long presence changes and lease takes gather before they are written."""
PROCESS_TTL_S = 4.0
"""A process that has not renewed its heartbeat for this long is taken for dead."""


class Cluster:
    """This process's part in sharing the tables with other processes: the
    PostgreSQL :class:`~svoi_kozyri.server.table.peer.TablePeer`.

    Constructed with the store and the async connections of the hot path (the
    master's appender, shared so one pool serves both), then bound to the
    process's tables through the :class:`~svoi_kozyri.server.table.peer.TableHost`
    port (:meth:`bind`); it never reaches into the hub, the scheduler or the
    master."""

    shared = True

    def __init__(self, store: Store, appender: AsyncAppender) -> None:
        self.store = store
        self._pool = appender
        """The async connections of the hot path (the master's appender)."""
        self._host: TableHost | None = None
        host = socket.gethostname()[:24]
        self.owner = f"{host}:{os.getpid()}:{secrets.token_hex(4)}"
        self._tasks: list[asyncio.Task[None]] = []
        self._listening = asyncio.Event()
        self._announced: dict[str, tuple[frozenset[int], int]] = {}
        self.heard = 0
        self._alive: set[str] = set()
        """The processes whose heartbeat ran at the last tick."""
        self._dirty: dict[str, list[tuple[str, int]]] = {}
        """Presence not yet written: table -> the changes, in order, each (its human
        seats here as digits, its spectators here).  Every change is notified, not
        only the last: a player who looked in and left within one batch still
        counts as seen at the other processes (stand-ins then play for them)."""
        self._takes: dict[str, LiveTable] = {}
        """Tables whose lease this process wants to take."""
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None
        self._loading: dict[str, list[str]] = {}
        """Tables announced by another process that are being loaded here (off the
        loop), with the notifications about them heard meanwhile, replayed in
        order once the table is in memory (none is lost)."""
        self.draining = False
        # held by every write of this process's presence, leases and heartbeat, so
        # that drain() gives them back after the last write under way, never before
        self._io = asyncio.Lock()
        """Stopping: no lease is taken or renewed here any more (:meth:`drain`)."""

    def bind(self, host: TableHost) -> None:
        """The tables this peer shares (the hub, at its construction)."""
        self._host = host

    @property
    def host(self) -> TableHost:
        """The tables of this process (:meth:`bind` comes first)."""
        assert self._host is not None, "a peer is bound to its host before use"
        return self._host

    # -- life cycle ------------------------------------------------------------------

    async def start(self) -> None:
        """Heartbeat, start listening (before the tables are loaded, so nothing
        committed after the load is missed) and take over the scheduler's leases."""
        self._alive = self.store.heartbeat(self.owner, PROCESS_TTL_S)
        self._tasks.append(asyncio.create_task(self._listen()))
        self._tasks.append(asyncio.create_task(self._ticker()))
        self._writer = asyncio.create_task(self._write_batches())
        self._tasks.append(self._writer)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._listening.wait(), timeout=10)

    async def stop(self) -> None:
        """Stop listening and give up this process's leases and presence."""
        for t in self._tasks:
            t.cancel()
        for t in self._tasks:
            with contextlib.suppress(BaseException):
                await t
        with contextlib.suppress(Exception):
            self.store.release_leases(self.owner)

    async def drain(self) -> None:
        """Hand this process's tables to the others now (it is stopping): take and
        renew no lease from here on, give back the leases, the presence and the
        heartbeat, and tell the others (``bye``), who take the tables at once.
        The listener keeps running, so the sockets still open here (closed by
        the server a moment later) keep seeing the others' moves."""
        if self.draining:
            return
        self.draining = True
        self._takes.clear()
        held, now = 0, time.monotonic()
        for live in self.host.tables.values():
            if live.lease_until > now:
                held += 1
            live.lease_until = 0.0
            if live.retry is not None:
                live.retry.cancel()
                live.retry = None
        try:
            async with self._io:  # after a batch or heartbeat under way, never before
                await asyncio.to_thread(self._leave)
        except Exception as e:  # the leases then run out by themselves (LEASE_S)
            log.warning("leases not given back (%s)", e)
            return
        log.info("draining: gave back the leases of %d table(s)", held)

    def _leave(self) -> None:
        self.store.release_leases(self.owner)
        self.store.notify(self._payload("bye", ""))

    def running(self) -> bool:
        """Whether the listener, the heartbeat and lease ticker and the batch
        writer all run (readiness: without them this process neither hears the
        others' moves nor keeps its leases)."""
        return bool(self._tasks) and not any(t.done() for t in self._tasks)

    # -- what this process tells the others ---------------------------------------------

    def _payload(self, kind: str, table_id: str, **extra: Any) -> str:
        return json.dumps({"k": kind, "t": table_id, "o": self.owner, **extra})

    def note_event(self, table_id: str, version: int) -> str:
        """The notification sent with a committed event (same transaction)."""
        return self._payload("ev", table_id, v=version)

    def announce_new(self, table_id: str) -> None:
        """A table was created here."""
        self.store.notify(self._payload("new", table_id))

    def announce_seats(self, table_id: str) -> None:
        """A seat of a table was taken here."""
        self.store.notify(self._payload("seat", table_id))

    def presence(self, live: LiveTable) -> None:
        """Tell the others which human seats of the table have a socket here, and
        how many spectators watch it here (the lobby's counts)."""
        table_id = live.game.table_id
        seats = live.local_human_seats()
        watching = sum(1 for c in live.conns if c.seat is None)
        if self._announced.get(table_id) == (seats, watching):
            return
        if not seats and not watching and table_id not in self._announced:
            return  # nothing was announced for this table: nothing to take back
        self._announced[table_id] = (seats, watching)
        digits = "".join(str(s) for s in sorted(seats))
        if self._writer is None:  # not started (tests): write it now
            self.store.set_presence(
                table_id,
                self.owner,
                digits,
                self._payload("pres", table_id, s=digits, n=watching),
                spectators=watching,
            )
            return
        # written with the next batch (a few ms)
        self._dirty.setdefault(table_id, []).append((digits, watching))
        self._wake.set()

    def attach(self, live: LiveTable) -> None:
        """A table was loaded here: learn who is connected to it elsewhere."""
        self._set_attached(live, self.store.presence(live.game.table_id))

    def _set_attached(self, live: LiveTable, presence: dict[str, tuple[str, int]]) -> None:
        remote: dict[str, frozenset[int]] = {}
        watching: dict[str, int] = {}
        for o, (seats, spectators) in presence.items():
            if o == self.owner:
                continue
            if seats:
                remote[o] = frozenset(int(c) for c in seats)
            if spectators:
                watching[o] = spectators
        live.remote, live.remote_spectators = remote, watching
        if live.remote:
            live.human_seen = time.monotonic()

    def note_chat(self, table_id: str, message: dict[str, Any]) -> str:
        """The notification sent with a chat message (same transaction as its row)."""
        return self._payload("chat", table_id, m=message)

    def note_bans(self) -> str:
        """The notification sent with a ban or its lifting (same transaction)."""
        return self._payload("bans", "")

    # -- leases ----------------------------------------------------------------------

    def may_act(self, live: LiveTable) -> bool:
        """Whether this process fires the table's automatic actions now: it holds
        (or has just taken) the lease.  Otherwise retry when the holder's lease
        would run out, if this process has a reason to take it over: a player of
        the table is here, or the holder is dead.  (Retrying every table held
        elsewhere was one synchronous lease query per table every five seconds,
        a tenth of the load at 1,000 tables; a dead holder's tables are found by
        the heartbeat tick instead.)"""
        if self.draining:
            return False
        now = time.monotonic()
        if live.lease_until - now > 0.5:
            return True
        if now < live.lease_other_until:
            # another process holds it
            if live.retry is None and self._wants_lease(live):
                self._arm_retry(live, live.lease_other_until - now)
            return False
        if self._players_elsewhere(live):
            # The table's players are at another process: let the lease pass there
            # (re-taking our own lapsed lease here kept it at the process without
            # the sockets for ever, and every action then crossed processes: a
            # notification and a synchronous read of the event on each side).
            # The other process gets a head start of LEASE_S after our lease ran
            # out; if it has not taken the lease by then, this process does.
            back = live.lease_until + 0.5 + LEASE_S - now
            if back > 0:
                if live.retry is None:
                    self._arm_retry(live, back)
                return False
        if self._writer is None:
            return self._take(live)
        # taken with the next batch, without blocking the event loop; the table
        # is scheduled again once it is held
        self._takes[live.game.table_id] = live
        self._wake.set()
        return False

    @staticmethod
    def _players_elsewhere(live: LiveTable) -> bool:
        return bool(live.remote) and not live.local_human_seats()

    def _wants_lease(self, live: LiveTable) -> bool:
        holder = live.lease_holder
        return bool(live.local_human_seats()) or holder is None or holder not in self._alive

    def _arm_retry(self, live: LiveTable, delay: float) -> None:
        if live.retry is not None:
            live.retry.cancel()

        def retry() -> None:
            live.retry = None
            self.host.schedule(live)

        live.retry = asyncio.get_running_loop().call_later(delay + 0.1, retry)

    def _take(self, live: LiveTable) -> bool:
        """Take or renew the lease in the database."""
        now = time.monotonic()
        try:
            held, left, holder = self.store.take_lease(live.game.table_id, self.owner, LEASE_S)
        except Exception as e:
            log.warning("table %s: lease not taken (%s)", live.game.table_id, e)
            held, left, holder = False, 1.0, None
        live.lease_holder = holder
        if held:
            live.lease_until = now + LEASE_S - 0.5
            return True
        live.lease_until = 0.0
        live.lease_other_until = now + left
        if live.retry is not None:
            live.retry.cancel()
            live.retry = None
        if self._wants_lease(live):
            self._arm_retry(live, left)
        return False

    # -- batched writes ----------------------------------------------------------------

    async def _write_batches(self) -> None:
        """Write presence changes and take leases in batches, on an async connection
        of its own.  Profiling 1,000 tables on two workers showed the event loop
        blocked on these synchronous statements most of the time while sockets
        connected (four statements per connection here, a lease query per table
        at the other process), so that no table got its turn for seconds."""
        import psycopg

        conn: AsyncConnection[Any] | None = None
        while True:
            await self._wake.wait()
            await asyncio.sleep(BATCH_S)  # let a burst gather
            self._wake.clear()
            presence, self._dirty = self._dirty, {}
            takes, self._takes = self._takes, {}
            try:
                async with self._io:
                    if self.draining:
                        continue  # given back: a leaving process writes none again
                    if conn is None or conn.closed:
                        conn = await psycopg.AsyncConnection.connect(self._dsn(), autocommit=True)
                    if presence:
                        await self._write_presence(conn, presence)
                    if takes:
                        await self._take_many(conn, takes)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("presence/lease batch not written (%s); retrying", e)
                for k, v in presence.items():
                    self._dirty[k] = v + self._dirty.get(k, [])
                for k, live in takes.items():
                    self._takes.setdefault(k, live)
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.close()
                conn = None
                await asyncio.sleep(1.0)
                self._wake.set()

    async def _write_presence(
        self, conn: AsyncConnection[Any], presence: dict[str, list[tuple[str, int]]]
    ) -> None:
        ids = list(presence)
        seats = [presence[t][-1][0] for t in ids]
        watching = [presence[t][-1][1] for t in ids]
        payloads = [
            self._payload("pres", t, s=digits, n=n) for t in ids for digits, n in presence[t]
        ]
        async with conn.transaction():
            await conn.execute(
                "DELETE FROM sk_presence WHERE owner = %(o)s AND table_id = ANY(%(ids)s)",
                {"o": self.owner, "ids": ids},
            )
            await conn.execute(
                """INSERT INTO sk_presence (table_id, owner, seats, spectators)
                SELECT t, %(o)s, s, n
                FROM unnest(%(ids)s::text[], %(seats)s::text[], %(n)s::int[]) AS x(t, s, n)
                WHERE s <> '' OR n > 0""",
                {"o": self.owner, "ids": ids, "seats": seats, "n": watching},
            )
            await conn.execute(
                """SELECT pg_notify(%(c)s, p)
                FROM unnest(%(ps)s::text[]) WITH ORDINALITY AS x(p, i) ORDER BY i""",
                {"c": CHANNEL, "ps": payloads},
            )

    async def _take_many(self, conn: AsyncConnection[Any], takes: dict[str, LiveTable]) -> None:
        """:meth:`_take` for many tables in two statements."""
        ids = list(takes)
        t0 = time.monotonic()
        cur = await conn.execute(
            f"""INSERT INTO sk_leases (table_id, owner, expires)
            SELECT t, %(o)s, {DB_NOW} + %(ttl)s FROM unnest(%(ids)s::text[]) AS t
            ON CONFLICT (table_id) DO UPDATE SET owner = EXCLUDED.owner, expires = EXCLUDED.expires
            WHERE sk_leases.owner = EXCLUDED.owner OR sk_leases.expires < {DB_NOW}
            RETURNING table_id""",
            {"o": self.owner, "ids": ids, "ttl": LEASE_S},
        )
        taken = {r[0] for r in await cur.fetchall()}
        others: dict[str, tuple[float, str]] = {}
        rest = [t for t in ids if t not in taken]
        if rest:
            cur = await conn.execute(
                f"""SELECT table_id, expires - {DB_NOW}, owner FROM sk_leases
                WHERE table_id = ANY(%(ids)s)""",
                {"ids": rest},
            )
            others = {r[0]: (max(0.0, float(r[1])), str(r[2])) for r in await cur.fetchall()}
        for table_id, live in takes.items():
            if self.host.tables.get(table_id) is not live:
                continue
            if table_id in taken:
                live.lease_holder = self.owner
                live.lease_until = t0 + LEASE_S - 0.5
                self.host.schedule(live)
                continue
            left, holder = others.get(table_id, (0.0, ""))
            live.lease_holder = holder or None
            live.lease_until = 0.0
            live.lease_other_until = t0 + left
            if live.retry is not None:
                live.retry.cancel()
                live.retry = None
            if self._wants_lease(live):
                self._arm_retry(live, left)

    def _dsn(self) -> str:
        url = self.store.engine.url.set(drivername="postgresql")
        return url.render_as_string(hide_password=False)

    # -- what this process hears ---------------------------------------------------------

    async def _listen(self) -> None:
        import psycopg

        dsn = self._dsn()
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self._listening.set()
                    # in a task: the notifications are read from the first moment
                    self.host.spawn(self._safety_net())
                    async for n in conn.notifies():
                        self.heard += 1
                        try:
                            self.on_notify(n.payload)
                        except Exception as e:
                            log.warning("notification %r not handled: %s", n.payload[:80], e)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("listener lost its connection (%s); reconnecting", e)
                await asyncio.sleep(1.0)

    def on_notify(self, payload: str) -> None:
        """Act on another process's notification."""
        msg = json.loads(payload)
        if msg.get("o") == self.owner:
            return
        kind, table_id = msg.get("k"), str(msg.get("t"))
        if kind == "bye":
            self._gone(str(msg.get("o")))
            return
        if kind == "bans":
            self.host.bans_changed()
            return
        loading = self._loading.get(table_id)
        if loading is not None:
            loading.append(payload)  # replayed once the table is loaded
            return
        if kind == "new":
            if table_id not in self.host.tables and len(table_id) <= 32:
                self._loading[table_id] = []
                self.host.spawn(self._load_new(table_id))
            return
        live = self.host.tables.get(table_id)
        if live is None:
            return
        if kind == "ev":
            self._behind(live, int(msg["v"]))
        elif kind == "seat":
            self.host.spawn(self._reload_seats(live))
        elif kind == "pres":
            seats = frozenset(int(c) for c in str(msg.get("s", "")))
            self._set_spectators(live, str(msg["o"]), int(msg.get("n", 0)))
            self._set_remote(live, str(msg["o"]), seats)
        elif kind == "chat":
            self.host.deliver_chat(live, dict(msg["m"]))

    def _gone(self, owner: str) -> None:
        """Another process drained (:meth:`drain`): its players are reconnecting
        elsewhere, and its tables' leases are free to take now."""
        self._alive.discard(owner)
        for live in list(self.host.tables.values()):
            self._set_spectators(live, owner, 0)
            if owner in live.remote:
                self._set_remote(live, owner, frozenset())
            if live.lease_holder == owner:
                live.lease_holder = None
                live.lease_other_until = 0.0
                if live.retry is not None:
                    live.retry.cancel()
                    live.retry = None
                self.host.schedule(live)

    def _behind(self, live: LiveTable, version: int) -> None:
        """Another process committed ``version`` of the table."""
        if version <= live.game.version:
            return
        live.want_version = max(live.want_version, version)
        if self._idle_here(live) and live.catching is None:
            live.stale = True  # nobody here needs it now: catch up when used
        else:
            self.catch_up(live)

    async def _load_new(self, table_id: str) -> None:
        """Load a table another process created, off the event loop (a load is a
        few statements; 1,000 tables created at the other process blocked this
        loop for seconds)."""
        stored: StoredTable | None = None
        presence: dict[str, tuple[str, int]] = {}
        try:
            stored, presence = await asyncio.to_thread(self._read_table, table_id)
        except Exception as e:
            log.warning("table %s: not loaded (%s)", table_id, e)
        finally:
            heard = self._loading.pop(table_id, [])
        if stored is not None and table_id not in self.host.tables:
            live = self.host.adopt(stored)
            if live is not None:
                self._set_attached(live, presence)
        for payload in heard:
            try:
                self.on_notify(payload)
            except Exception as e:
                log.warning("notification %r not handled: %s", payload[:80], e)

    def _read_table(self, table_id: str) -> tuple[StoredTable | None, dict[str, tuple[str, int]]]:
        stored = self.store.load(table_id)
        return stored, (self.store.presence(table_id) if stored is not None else {})

    def _idle_here(self, live: LiveTable) -> bool:
        """No socket and no lease here: the table's changes can wait."""
        return not live.conns and live.lease_until <= time.monotonic()

    def refresh(self, live: LiveTable) -> bool:
        """Bring a stale table up to date before the scheduler computes its next
        action, so a process taking over a dead process's table acts on the newest
        state.  True if it is up to date now; otherwise the catch-up runs (off the
        loop's critical path) and schedules the table again when it is done."""
        if not live.stale:
            return True
        self.catch_up(live)
        return False

    def catch_up(self, live: LiveTable) -> asyncio.Task[None]:
        """Apply the events other processes committed since this process's version:
        read on the async connections (a synchronous read here blocked every table
        of the process for each round trip), then announced and scheduled.  At most
        one read per table runs; the table stays ``stale`` (nothing automatic is
        fired on it) until it has caught up."""
        live.stale = True
        if live.catching is None:
            live.catching = asyncio.get_running_loop().create_task(self._catch_up(live))
        return live.catching

    async def _catch_up(self, live: LiveTable) -> None:
        applied = False
        try:
            for _ in range(10):  # bounded: each round reads what was missing
                game = live.game
                rows = await self._pool.events_since(game.table_id, game.version)
                if live.game is not game:
                    continue  # rebuilt from the database meanwhile: look again
                for seq, event in rows:
                    if seq < game.version:
                        # already applied here (committed by us, or pending and
                        # then refused by the version check, which rebuilds)
                        continue
                    if seq > game.version:
                        break
                    game.apply(event)
                    applied = True
                if not rows or game.version >= live.want_version:
                    live.stale = False  # nothing newer is stored: up to date
                    break
        except Exception as e:
            log.warning("table %s: catching up failed (%s); reloading", live.game.table_id, e)
            live.catching = None
            live.stale = False
            self.host.reload(live)
            return
        live.catching = None
        if applied:
            live.turn_since = time.monotonic()
            self.host.changed(live)
        else:
            self.host.schedule(live)

    def catch_up_now(self, live: LiveTable) -> None:
        """:meth:`catch_up` at once, blocking (HTTP reads of a table that must see
        its newest state; not the hot path)."""
        game = live.game
        try:
            events = self.store.events_since(game.table_id, game.version)
            for ev in events:
                game.apply(ev)
        except Exception as e:
            log.warning("table %s: catching up failed (%s); reloading", game.table_id, e)
            self.host.reload(live)
            return
        if live.catching is None and game.version >= live.want_version:
            live.stale = False
        if events:
            live.turn_since = time.monotonic()
            self.host.changed(live)

    async def _safety_net(self) -> None:
        try:
            await self.catch_up_all()
        except Exception as e:
            log.warning("tables not compared with the database (%s)", e)

    async def catch_up_all(self) -> None:
        """Bring every live table to the database's version (safety net)."""
        tables = self.host.tables
        for table_id, version in (await self._pool.versions(list(tables))).items():
            live = tables.get(table_id)
            if live is not None:
                self._behind(live, version)

    async def _reload_seats(self, live: LiveTable) -> None:
        try:
            rows = await self._pool.fetch(
                "SELECT seat, name, token_hash FROM sk_seats WHERE table_id = %(t)s",
                {"t": live.game.table_id},
            )
        except Exception as e:  # a join here re-reads the seats if it needs them
            log.warning("table %s: seats not reloaded (%s)", live.game.table_id, e)
            return
        for seat, name, token_hash in rows:
            info = live.game.seats[int(seat)]
            if token_hash is None and info.token_hash is not None:
                # rows read before a join at this process committed: a seat once
                # taken stays taken, so a stale read must not empty it again
                continue
            info.name, info.token_hash = name, token_hash
        self.host.changed(live)

    @staticmethod
    def _set_spectators(live: LiveTable, owner: str, count: int) -> None:
        if count > 0:
            live.remote_spectators[owner] = count
        else:
            live.remote_spectators.pop(owner, None)

    def _set_remote(self, live: LiveTable, owner: str, seats: frozenset[int]) -> None:
        before = live.remote.get(owner, frozenset())
        if seats:
            live.remote[owner] = seats
        else:
            live.remote.pop(owner, None)
        now = time.monotonic()
        for s in before - seats:
            if not live.connected(s):
                live.absent_since[s] = now
        if before or seats:
            live.human_seen = now
        self.host.changed(live)

    async def _ticker(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S)
            try:
                await self._tick()
            except Exception as e:
                log.warning("cluster heartbeat failed: %s", e)

    async def _tick(self) -> None:
        async with self._io:
            if self.draining:
                return  # no heartbeat, no lease: the others took this process's tables
            alive = self._alive = await self._pool.heartbeat(self.owner, PROCESS_TTL_S)
        now = time.monotonic()
        due: list[LiveTable] = []
        for live in list(self.host.tables.values()):
            for owner in [o for o in live.remote_spectators if o not in alive]:
                self._set_spectators(live, owner, 0)
            for owner in [o for o in live.remote if o not in alive]:
                self._set_remote(live, owner, frozenset())
            holder = live.lease_holder
            if (
                holder is not None
                and holder != self.owner
                and holder not in alive
                and live.retry is None
                and live.lease_until <= now
            ):
                # its lease holder died: take over once the lease has run out
                live.lease_holder = None
                self._arm_retry(live, max(0.0, live.lease_other_until - now))
            # renew while the table has work or a player here (who is thinking
            # now, and whose move will need a bot or timer next: letting the lease
            # lapse meanwhile cost a synchronous take per turn), unless its players
            # are all at another process: then let the lease pass to that process
            renew = 0 < live.lease_until - now < LEASE_S / 2
            elsewhere = bool(live.remote) and not live.conns
            if (
                renew
                and not elsewhere
                and (live.local_human_seats() or self.host.deadline(live) is not None)
            ):
                due.append(live)
        await self._renew(due)
        await self.catch_up_all()

    async def _renew(self, due: list[LiveTable]) -> None:
        """Renew the leases of ``due`` in one statement; a table whose lease could
        not be renewed that way (it ran out, or passed to another process) goes
        to the batched take, which also arms the retry."""
        if not due:
            return
        now = time.monotonic()  # before the statement: the lease runs at least this long
        try:
            renewed = await self._pool.renew_leases(
                self.owner, [live.game.table_id for live in due], LEASE_S
            )
        except Exception as e:
            log.warning("leases not renewed (%s)", e)
            renewed = set()
        for live in due:
            if live.game.table_id in renewed:
                live.lease_until = now + LEASE_S - 0.5
            elif self._writer is None:
                self._take(live)
            else:
                live.lease_until = 0.0  # not renewed: not held until taken again
                self._takes[live.game.table_id] = live
                self._wake.set()
