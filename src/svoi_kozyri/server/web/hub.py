"""The hub: the live tables of this process, and the parts that run them.

Built from parts along the lines of boardgame.io's ``Master``:

* :mod:`.master` (the table master): protocol, version check, commit, views;
* :mod:`.scheduler`: deals, bot turns, stand-ins, the turn timer, pausing
  tables nobody is at;
* :mod:`.bot_runner`: which bots exist and the worker processes search bots
  think in;
* :mod:`.transport`: one socket's queue, message size/depth limits and parsing;
* :mod:`.auth`: seat tokens and signed links;
* :mod:`.db` (storage) and :mod:`.guard` (rate limits, headers).

The hub itself keeps the registry of live tables, creates tables and seats,
lists the lobby and runs each WebSocket through hello and messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Collection, Coroutine, Sequence
from typing import Any, Protocol

from fastapi import WebSocket, WebSocketDisconnect

from ..cluster import peer_for
from ..edge.guard import Limits, RateLimiter, SharedLimiter
from ..features import chat
from ..storage.store import Store, StoredTable
from ..table.bot_runner import CHEAP_BOTS, BotRunner, EnginePool, bot_names, default_bot
from ..table.game import SeatInfo, TableError, TableGame
from ..table.live import LiveTable
from ..table.master import TableMaster, game_from_stored
from ..table.peer import TablePeer
from ..table.scheduler import IDLE_PAUSE_S, UNATTENDED_DELAY_S, Scheduler
from ..table.service import Holder
from ..wire.auth import LinkSigner, hash_token, new_token, seat_of_token
from ..wire.schemas import (
    ChatMessage,
    ClientHello,
    ClientHint,
    ClientMove,
    CreateTableRequest,
    JoinRequest,
    LobbyEntry,
    SeatGrant,
    ServerWelcome,
    TableConfig,
)
from ..wire.transport import (
    CLOSE_POLICY,
    CLOSE_RESTART,
    Conn,
    FatalMessage,
    error_text,
    parse_client_message,
)
from ..wire.transport import receive_text as _receive_text

__all__ = ["CHEAP_BOTS", "Hub", "bot_names", "default_bot"]

log = logging.getLogger("svoi_kozyri.server")

LOBBY_PAGE = 50
"""Lobby entries per answer by default (``limit`` may ask for up to LOBBY_MAX)."""
LOBBY_MAX = 100
RATE_STRIKES = 20
"""Messages over the rate limit after which a socket is closed."""
CHAT_QUEUE = 8
"""Chat messages of one socket waiting for the database; more are refused."""
COMMIT_WAIT_S = 5.0
"""At the stop, the longest wait for the events being stored to be committed."""


class SeatGate(Protocol):
    """Whether a seat may act (a banned account's may not): answered from memory
    when it can, so a move costs no database read (issue 26, item 6)."""

    def known(self, table_id: str, seat: int) -> tuple[bool, tuple[str, str] | None]:
        """``(True, refusal)`` from memory (None: it may act), or ``(False, None)``."""
        ...

    def lookup(self, table_id: str, seat: int) -> tuple[str, str] | None:
        """The answer read from the database (called in a thread)."""
        ...

    def invalidate(self) -> None:
        """Bans changed: read them again before the next answer."""
        ...


class Hub:
    """Owns the store and every live table of this process."""

    def __init__(
        self,
        store: Store,
        seed: int | None = None,
        *,
        limits: Limits | None = None,
        idle_pause_s: float = IDLE_PAUSE_S,
        engines: dict[str, str] | None = None,
        unattended_delay_s: float = UNATTENDED_DELAY_S,
        peer: TablePeer | None = None,
    ) -> None:
        self.store = store
        self.tables: dict[str, LiveTable] = {}
        self.rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()
        # external engines the operator configured: a client picks one by name only
        self.runner = BotRunner(engines=engines)
        appender = store.appender()
        self.peer: TablePeer = peer if peer is not None else peer_for(store, appender)
        """Sharing the tables with other processes (PostgreSQL), or nobody."""
        self.peer.bind(self)
        self.draining = False
        """Stopping (SIGTERM): no new socket, move or automatic action (:meth:`drain`)."""
        self.scheduler = Scheduler(
            self.runner,
            idle_pause_s=idle_pause_s,
            unattended_delay_s=unattended_delay_s,
            peer=self.peer,
        )
        self.master = TableMaster(
            store, self.scheduler, self.runner, self.rng, peer=self.peer, appender=appender
        )
        self.limits = limits or Limits()
        self.limiter = SharedLimiter(store, self.limits)
        """Creations and joins, per purpose, in the database (every process shares it)."""
        self.message_limit = RateLimiter(self.limits.message_burst, self.limits.message_rate)
        self.signer = LinkSigner(store.server_secret())
        self.seat_gate: SeatGate | None = None
        """Whether a seat may not act, as ``(code, message)``: the app sets it to
        the moderation's :class:`~..platform.moderation.BanGate` (a banned
        account's seat), asked before each move or hint."""

    @property
    def engines(self) -> EnginePool:
        """The operator's external engines (``serve --engine NAME=CMD``)."""
        return self.runner.engines

    @property
    def bots(self) -> list[str]:
        """Bots that can take a seat, strongest first."""
        return self.runner.names

    @property
    def default_bot(self) -> str:
        """The bot used when a seat names none (and for hints)."""
        return self.runner.default

    @property
    def actions(self) -> int:
        """Actions committed by this process since it started."""
        return self.master.actions

    # -- start-up ------------------------------------------------------------------

    async def start(self) -> None:
        """Load every unfinished table; none plays by itself until a human is back."""
        await self.peer.start()
        for stored in self.store.load_active():
            try:
                live = LiveTable.fresh(game_from_stored(stored))
            except (TableError, ValueError, KeyError) as e:
                log.error("table %s cannot be resumed: %s", stored.id, e)
                continue
            self.tables[stored.id] = live
            self.peer.attach(live)
            self.scheduler.schedule(live)
        log.info("resumed %d table(s)", len(self.tables))

    async def stop(self) -> None:
        """Cancel timers, let the commits under way finish (bounded), then stop
        sharing the tables and stop the bot workers (sockets are closed by the
        server)."""
        for live in self.tables.values():
            self.scheduler.cancel(live)
        await self._settle(COMMIT_WAIT_S)
        await self.peer.stop()
        await self.master.aclose()
        self.runner.stop()

    async def drain(self) -> None:
        """This process was told to stop (SIGTERM, :mod:`..runtime.drain`): new
        sockets are refused and a socket that sends a move is closed, both with
        :data:`~.transport.CLOSE_RESTART` (the client reconnects, to another
        process, and makes its move there); no automatic action starts here any
        more; the moves being stored are committed; then the peer hands the tables
        to the other processes.  Only then does the server stop accepting and close
        the open sockets with the same code, so their players find every move
        they made stored, announced and the tables free at the process they reach
        next (a move resent there before it was heard of would be refused as stale)."""
        if self.draining:
            return
        self.draining = True
        for live in self.tables.values():
            self.scheduler.cancel(live)
        await self._settle(COMMIT_WAIT_S / 2)
        await self.peer.drain()

    async def _settle(self, timeout: float) -> None:
        """Wait until the events being stored are committed (at most ``timeout``)."""
        busy = [live.settled() for live in self.tables.values() if live.pending]
        if busy:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*busy), timeout)

    def get(self, table_id: str, *, fresh: bool = True) -> LiveTable | None:
        """A live table, loading a finished one from the store on demand.  With
        ``fresh`` a table other processes moved on is caught up at once (HTTP
        reads); sockets pass False and await the catch-up off the loop instead."""
        live = self.tables.get(table_id)
        if live is not None and live.stale and fresh:
            self.peer.catch_up_now(live)
        if live is None and len(table_id) <= 32:
            stored = self.store.load(table_id)
            if stored is not None:
                live = self.adopt(stored)
                if live is None:  # finished tables never change: not kept in memory
                    live = LiveTable.fresh(game_from_stored(stored))
                else:
                    self.peer.attach(live)
        return live

    def adopt(self, stored: StoredTable) -> LiveTable | None:
        """Keep a table loaded from the store in memory (None if it is finished)."""
        live = LiveTable.fresh(game_from_stored(stored))
        if live.game.status == "finished":
            return None
        self.tables[stored.id] = live
        return live

    # -- the TableHost port (what the peer may do to the tables here) -------------------

    def schedule(self, live: LiveTable) -> None:
        """Arm the table's next automatic action."""
        self.scheduler.schedule(live)

    def deadline(self, live: LiveTable) -> float | None:
        """Seconds until the table's next automatic action, if it has one."""
        return self.scheduler.deadline(live)[0]

    def changed(self, live: LiveTable) -> None:
        """Send every viewer here the table's view and reschedule it."""
        self.master.changed(live)

    def reload(self, live: LiveTable) -> None:
        """Rebuild the table from the database."""
        self.master.reload(live)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """A background task owned by the scheduler (cancelled at stop)."""
        self.scheduler.spawn(coro)

    def deliver_chat(self, live: LiveTable, message: dict[str, Any]) -> None:
        """Pass a chat message stored at another process to the players here."""
        self.scheduler.spawn(chat.deliver(self.store, live, message))

    def bans_changed(self) -> None:
        """Another process banned an account or lifted a ban."""
        if self.seat_gate is not None:
            self.seat_gate.invalidate()

    # -- HTTP actions ------------------------------------------------------------------

    def create_table(
        self,
        req: CreateTableRequest,
        base_url: str,
        client: str = "",
        *,
        seat: int | None = None,
        purpose: str = "create",
    ) -> SeatGrant:
        """Create a table; the creator takes the first human seat (or ``seat``).
        ``purpose`` names the rate limit ``client`` spends (``create``,
        ``deal_play``, ``rematch``: separate buckets, so one kind cannot use up
        another's).

        Every table draws a fresh seed from the hub's random source (the
        system's, unless the server was started with ``--seed`` for tests).  The
        seed derives every hand of the table and never leaves the server; no
        caller can pass one (a shared deal is played from its stored deal event
        by server/features/deals.py, issue 20 item 1)."""
        self.limiter.check(purpose, client)
        cfg = req.config
        table_id = self._new_table(cfg)
        humans = [i for i, s in enumerate(cfg.seats) if s.kind == "human"]
        first = seat if seat in humans else humans[0]
        grant = self._join(table_id, JoinRequest(name=req.name, seat=first), base_url)
        self.peer.announce_new(table_id)
        return grant

    def create_seated(self, config: TableConfig, holders: Sequence[Holder]) -> str:
        """Create a table whose human seats, in order, go to ``holders`` (each
        seated by the hash of a secret it already holds, :class:`~..table.service.Holder`);
        the table's id.  Spends no rate limit: pairing, challenges and tournaments
        limit the requests that lead here."""
        humans = [i for i, s in enumerate(config.seats) if s.kind == "human"]
        if len(humans) != len(holders):
            raise TableError("bad_config", "one holder for each human seat")
        table_id = self._new_table(config)
        for seat, holder in zip(humans, holders, strict=True):
            self._claim(table_id, JoinRequest(name=holder.name, seat=seat), holder.token_hash)
        self.peer.announce_new(table_id)
        return table_id

    def _new_table(self, cfg: TableConfig) -> str:
        """Check the seats, store a new table with a fresh seed and keep it live."""
        for s in cfg.seats:
            if s.kind == "bot":
                try:
                    s.bot = self.runner.check(s.bot)
                except ValueError as e:
                    raise TableError("bad_config", str(e)) from None
            elif s.bot is not None:
                raise TableError("bad_config", "a human seat has no bot")
        humans = [i for i, s in enumerate(cfg.seats) if s.kind == "human"]
        if not humans:
            raise TableError("bad_config", "at least one seat must be for a human player")
        table_id = "".join(self.rng.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(10))
        seed = self.rng.randrange(1 << 62)
        seats = [SeatInfo(kind=s.kind, bot=s.bot) for s in cfg.seats]
        game = TableGame(table_id, cfg, seed, seats, time.time())  # validates the rules
        self.store.create_table(
            table_id,
            cfg.model_dump(),
            seed,
            [
                {"seat": i, "kind": s.kind, "bot": s.bot, "name": None, "token_hash": None}
                for i, s in enumerate(seats)
            ],
        )
        self.tables[table_id] = LiveTable.fresh(game)
        return table_id

    def join(self, table_id: str, req: JoinRequest, base_url: str, client: str = "") -> SeatGrant:
        """Take a free human seat (the one asked for, or the first free one)."""
        self.limiter.check("join", client)
        return self._join(table_id, req, base_url)

    def _join(self, table_id: str, req: JoinRequest, base_url: str) -> SeatGrant:
        token = new_token()
        seat = self._claim(table_id, req, hash_token(token))
        return SeatGrant(
            table_id=table_id,
            seat=seat,
            token=token,
            invite_url=f"{base_url.rstrip('/')}/#/t/{table_id}",
        )

    def _claim(self, table_id: str, req: JoinRequest, th: str) -> int:
        """Give a free human seat (the one asked for, or the first) to the holder
        of the token whose hash is ``th``; the seat."""
        live = self.get(table_id)
        if live is None:
            raise TableError("no_table", f"no table {table_id!r}")
        game = live.game
        for _ in range(game.n):
            free = [i for i, s in enumerate(game.seats) if not s.taken]
            if req.seat is not None:
                if req.seat >= game.n or req.seat not in free:
                    raise TableError("seat_taken", f"seat {req.seat} is not a free human seat")
                seat = req.seat
            elif free:
                seat = free[0]
            else:
                raise TableError("table_full", "every seat of this table is taken")
            info = game.seats[seat]
            info.name, info.token_hash = req.name, th
            if self.store.claim_seat(table_id, seat, req.name, th, game.status):
                break
            info.name, info.token_hash = None, None
            if not self.peer.shared:
                raise TableError("seat_taken", f"seat {seat} was just taken")
            # Taken at another process whose notification has not been applied
            # here yet: learn the seats from the database and choose again.
            for row in self.store.load_seats(table_id):
                other = game.seats[int(row["seat"])]
                other.name, other.token_hash = row["name"], row["token_hash"]
        else:
            raise TableError("seat_taken", "the seats were just taken")
        live.absent_since[seat] = time.monotonic()
        self.peer.announce_seats(table_id)
        self.master.changed(live)
        return seat

    def listed(self) -> list[str]:
        """The ids of the listed tables that are waiting or being played."""
        return [
            tid
            for tid, live in self.tables.items()
            if live.game.config.listed and live.game.status != "finished"
        ]

    def lobby(
        self, limit: int = LOBBY_PAGE, offset: int = 0, hidden: Collection[str] = ()
    ) -> list[LobbyEntry]:
        """A page of the listed tables that are waiting or being played, newest
        first, but those in ``hidden`` (the asker's blocks, issue 22)."""
        lives = [
            live
            for live in self.tables.values()
            if live.game.config.listed
            and live.game.status != "finished"
            and live.game.table_id not in hidden
        ]
        lives.sort(key=lambda live: -live.game.created)
        out = []
        for live in lives[offset : offset + max(0, min(limit, LOBBY_MAX))]:
            g = live.game
            out.append(
                LobbyEntry(
                    table_id=g.table_id,
                    title=g.config.title or f"table {g.table_id}",
                    status=g.status,
                    players=g.n,
                    free_seats=sum(not s.taken for s in g.seats),
                    seats=[g.seat_label(i) for i in range(g.n)],
                    created=g.created,
                    named=bool(g.config.title),
                    host=next((s.name for s in g.seats if s.kind == "human" and s.name), ""),
                    bots=sum(s.kind == "bot" for s in g.seats),
                )
            )
        return out

    def seat_of_token(self, live: LiveTable, token: str | None) -> int | None:
        """The seat a token holds at this table, or None."""
        return seat_of_token(live.game.seats, token)

    def view_for(self, live: LiveTable, seat: int | None) -> str:
        """The current view of ``seat`` as JSON (used by HTTP endpoints)."""
        return self.master.view_for(live, seat)

    # -- sockets ---------------------------------------------------------------------

    async def serve_socket(self, ws: WebSocket, table_id: str, client: str = "") -> None:
        """Run one WebSocket: hello, then moves, hints and pings until it closes.

        Nothing a client sends produces a traceback: a message over the limits
        closes the socket with :data:`~.transport.CLOSE_POLICY` after an error
        message, and an unexpected failure closes it with 1011 and one log line.
        """
        if self.draining:  # accepted before the listener closed: go elsewhere
            await ws.close(code=CLOSE_RESTART)
            return
        greeted = await self._greet(ws, table_id)
        if greeted is None:
            return
        live, seat = greeted
        conn = Conn(ws, seat, client=client)
        writer = asyncio.create_task(conn.writer())
        # chat reads and writes the database (in threads): its own task, so the
        # reader is back at the socket at once and moves never wait behind chat
        chats: asyncio.Queue[ChatMessage] = asyncio.Queue(maxsize=CHAT_QUEUE)
        chatter = asyncio.create_task(self._chat(table_id, live, conn, chats))
        live = await self._welcome(conn, table_id, live)
        conn.reader = asyncio.current_task()
        try:
            await self._read(conn, table_id, live, client, chats)
        except FatalMessage as e:
            conn.send(error_text(e.code, str(e)))
            conn.close(CLOSE_POLICY)
        except (WebSocketDisconnect, RuntimeError):
            pass
        except asyncio.CancelledError:
            if not conn.ended:
                raise  # the server is stopping
            # the writer gave up on a client that stopped reading (transport.py)
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
        except Exception as e:  # never a traceback for what a client sent
            log.warning("table %s: socket closed after %s: %s", table_id, type(e).__name__, e)
            conn.close(1011)
        finally:
            live = self.tables.get(table_id, live)
            live.conns.discard(conn)
            if not conn.closed:
                conn.close()
            chatter.cancel()
            with contextlib.suppress(BaseException):
                await chatter
            with contextlib.suppress(Exception):
                await writer
            self._left(live, conn)

    async def _greet(self, ws: WebSocket, table_id: str) -> tuple[LiveTable, int | None] | None:
        """The table and the seat the hello names (None for a spectator); None
        when the socket was refused and closed (no table, a bad or no hello)."""
        live = self.get(table_id, fresh=False)
        if live is None:
            await ws.send_text(error_text("no_table", f"no table {table_id!r}"))
            await ws.close(code=4404)
            return None
        try:
            seat = await self._hello(ws, live)
        except (WebSocketDisconnect, TimeoutError):
            return None
        except FatalMessage as e:
            await _refuse(ws, e)
            return None
        if seat is False:
            await ws.close(code=4401)
            return None
        return live, seat if isinstance(seat, int) else None

    async def _welcome(self, conn: Conn, table_id: str, live: LiveTable) -> LiveTable:
        """Welcome the connection, count it at the table (caught up with the
        other processes first) and send everybody the new view."""
        live = self.tables.get(table_id, live)
        name = live.game.seats[conn.seat].name if conn.seat is not None else None
        conn.send(ServerWelcome(table_id=table_id, seat=conn.seat, name=name).model_dump_json())
        live.conns.add(conn)
        if live.stale:
            # shielded: a socket closing must not cancel the table's catch-up
            await asyncio.shield(self.peer.catch_up(live))
            live = self.tables.get(table_id, live)
        self._seen(live)
        self.peer.presence(live)
        self.master.changed(live)
        return live

    async def _read(
        self,
        conn: Conn,
        table_id: str,
        live: LiveTable,
        client: str,
        chats: asyncio.Queue[ChatMessage],
    ) -> None:
        """Read the socket until it closes: each message rate-limited, parsed and
        validated once, strictly (chat too: a ``{"type": ["move"]}`` used to reach
        the chat dispatcher unchecked), then answered."""
        strikes = 0
        while not conn.closed:
            raw = _receive_text(await conn.receive())
            if raw is None:
                return
            received = time.perf_counter()  # a move's latency is timed from here
            if not self.message_limit.allow(f"{client}/{table_id}"):
                strikes += 1
                conn.send(error_text("rate_limited", "too many messages; slow down"))
                if strikes >= RATE_STRIKES:
                    conn.close(CLOSE_POLICY)
                continue
            msg = parse_client_message(raw)
            if isinstance(msg, str):
                conn.send(msg)
            elif isinstance(msg, ClientHello):
                conn.send(error_text("already_greeted", "this connection already said hello"))
            elif isinstance(msg, ChatMessage):
                try:
                    chats.put_nowait(msg)
                except asyncio.QueueFull:
                    conn.send(error_text("rate_limited", "too many messages; slow down"))
            elif self.draining:  # stopping: the move is made at the next process
                conn.close(CLOSE_RESTART)
                return
            elif isinstance(msg, ClientMove | ClientHint) and await self._gated(conn, table_id):
                continue
            else:
                live = self.tables.get(table_id, live)
                if live.stale:
                    # another process moved the table: apply that first, so
                    # the move is checked against the newest version
                    await asyncio.shield(self.peer.catch_up(live))
                await self.master.handle(live, conn, msg, received)

    async def _gated(self, conn: Conn, table_id: str) -> bool:
        """Refuse a seat's move or hint when :attr:`seat_gate` says so (sent an
        error); pings are never asked about (no query for a keep-alive)."""
        gate = self.seat_gate
        if gate is None or conn.seat is None:
            return False
        known, refusal = gate.known(table_id, conn.seat)
        if not known:  # a database read: off the event loop
            refusal = await asyncio.to_thread(gate.lookup, table_id, conn.seat)
        if refusal is None:
            return False
        conn.send(error_text(*refusal))
        return True

    async def _chat(
        self, table_id: str, live: LiveTable, conn: Conn, chats: asyncio.Queue[ChatMessage]
    ) -> None:
        """Answer one socket's chat messages in order (:func:`.chat.handle`)."""
        while not conn.closed:
            msg = await chats.get()
            live = self.tables.get(table_id, live)
            try:
                await chat.handle(self, live, conn, msg)
            except Exception as e:  # never a traceback for what a client sent
                log.warning("table %s: chat message failed: %s: %s", table_id, type(e).__name__, e)

    def _seen(self, live: LiveTable) -> None:
        if live.humans_connected():
            live.human_seen = time.monotonic()

    def _left(self, live: LiveTable, conn: Conn) -> None:
        if conn.seat is not None and not live.connected(conn.seat):
            live.absent_since[conn.seat] = time.monotonic()
            if live.game.seats[conn.seat].kind == "human":
                live.human_seen = time.monotonic()
        self.peer.presence(live)
        table_id = live.game.table_id
        if live.game.status == "finished" and not live.conns:
            # finished tables live in the database; drop them from memory
            self.scheduler.cancel(live)
            if self.tables.get(table_id) is live:
                del self.tables[table_id]
        else:
            self.master.changed(live)

    async def _hello(self, ws: WebSocket, live: LiveTable) -> int | bool | None:
        """Wait for the hello; the seat of its token, None (spectator) or False (refused)."""
        for _ in range(10):
            raw = _receive_text(await asyncio.wait_for(ws.receive(), timeout=30))
            if raw is None:
                raise WebSocketDisconnect(1000)
            msg = parse_client_message(raw)
            if isinstance(msg, str):
                await ws.send_text(msg)
                continue
            if not isinstance(msg, ClientHello):
                await ws.send_text(error_text("hello_first", "send a hello message first"))
                continue
            if msg.token is None:
                return None
            seat = seat_of_token(live.game.seats, msg.token)
            if seat is not None:
                return seat
            await ws.send_text(error_text("bad_token", "this token holds no seat at this table"))
            return False
        return False


async def _refuse(ws: WebSocket, e: FatalMessage) -> None:
    with contextlib.suppress(Exception):
        await ws.send_text(error_text(e.code, str(e)))
        await ws.close(code=CLOSE_POLICY)
