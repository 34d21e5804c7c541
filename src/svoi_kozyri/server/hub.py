"""The live side of the server: tables in memory, sockets, bots and timers.

All table changes happen on the event loop, one at a time per table: a move is
checked on a copy of the state, stored (event + version, one transaction),
applied, and only then broadcast, each viewer receiving a view built from their
own observation.  Bots (bot seats, stand-ins for absent players after the grace
period, and the turn timer) produce the same events as players, so a table is
always its event log.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import multiprocessing
import random
import secrets
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import TypeAdapter, ValidationError

from ..bots.base import available_agents, make_agent
from ..core import Move, Observation, observe
from .db import Store, hash_token
from .schemas import (
    MAX_MESSAGE_BYTES,
    ClientHello,
    ClientHint,
    ClientMessage,
    ClientMove,
    ClientPing,
    CreateTableRequest,
    JoinRequest,
    LobbyEntry,
    SeatGrant,
    ServerError,
    ServerHint,
    ServerPong,
    ServerState,
    ServerWelcome,
    TableConfig,
)
from .table import PendingMove, SeatInfo, TableError, TableGame
from .views import table_view

log = logging.getLogger("svoi_kozyri.server")

BOT_PREFERENCE = ("expert", "hard", "medium", "easy", "heuristic", "greedy", "random")
DEFAULT_PREFERENCE = ("medium", "heuristic", "greedy", "random")
CHEAP_BOTS = frozenset({"random", "greedy", "heuristic", "easy"})
"""Bots fast enough (well under a millisecond) to move on the event loop; the
others (search bots, up to seconds a move) think in a worker process, so they
neither block the loop nor hold its interpreter lock."""


def _think(spec: str, seed: int, obs: Observation) -> str:
    """A search bot's move, computed in a worker process."""
    return str(make_agent(spec, seed=seed).choose(obs))


MAX_QUEUED = 500
"""Messages waiting for one socket before the server gives up on that client."""
_CLIENT_MESSAGE: TypeAdapter[Any] = TypeAdapter(ClientMessage)


def bot_names() -> list[str]:
    """Bots that can take a seat, strongest first."""
    have = set(available_agents())
    return [b for b in BOT_PREFERENCE if b in have] + sorted(
        have - set(BOT_PREFERENCE) - {"pimc", "ismcts"}
    )


def default_bot() -> str:
    """The strongest available of medium, heuristic, greedy and random."""
    have = set(available_agents())
    return next(b for b in DEFAULT_PREFERENCE if b in have)


@dataclass(eq=False)
class Conn:
    """One WebSocket: its seat (``None`` for a spectator) and an outgoing queue,
    so a slow client never stalls the table."""

    ws: WebSocket
    seat: int | None
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)

    async def writer(self) -> None:
        """Send queued messages in order until ``None``."""
        while True:
            text = await self.queue.get()
            if text is None:
                return
            try:
                await self.ws.send_text(text)
            except Exception:  # the socket is gone; the reader will notice
                return


@dataclass(eq=False)
class LiveTable:
    """A table loaded in memory with its connections and pending bot move."""

    game: TableGame
    conns: set[Conn] = field(default_factory=set)
    absent_since: list[float] = field(default_factory=list)
    turn_since: float = 0.0
    handle: asyncio.TimerHandle | None = None

    def connected(self, seat: int) -> bool:
        """Whether the seat's player has at least one open socket."""
        return any(c.seat == seat for c in self.conns)


class Hub:
    """Owns the store and every live table."""

    def __init__(self, store: Store, seed: int | None = None) -> None:
        self.store = store
        self.tables: dict[str, LiveTable] = {}
        self.rng: random.Random = random.Random(seed) if seed is not None else random.SystemRandom()
        self.bots = bot_names()
        self.default_bot = default_bot()
        self.actions = 0
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._tasks: set[asyncio.Future[None]] = set()

    # -- start-up ------------------------------------------------------------------

    async def start(self) -> None:
        """Resume every unfinished table from its event log."""
        for stored in self.store.load_active():
            try:
                live = self._live_from_stored(stored)
            except (TableError, ValueError, KeyError) as e:
                log.error("table %s cannot be resumed: %s", stored.id, e)
                continue
            self.tables[stored.id] = live
            self._schedule(live)
        log.info("resumed %d table(s)", len(self.tables))

    async def stop(self) -> None:
        """Cancel timers and stop the bot workers (sockets are closed by the server)."""
        for live in self.tables.values():
            if live.handle is not None:
                live.handle.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    async def bot_move(self, spec: str, seed: int, obs: Observation) -> str:
        """The move of bot ``spec`` for ``obs``: on the loop for cheap bots, else in a
        worker process (a thread if processes are unavailable)."""
        agent = make_agent(spec, seed=seed)
        if agent.name in CHEAP_BOTS:
            return str(agent.choose(obs))
        if self._pool is None:
            try:
                ctx = multiprocessing.get_context("forkserver")
                self._pool = concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx)
            except (OSError, ValueError):
                return str(await asyncio.to_thread(agent.choose, obs))
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, _think, spec, seed, obs)

    def _live_from_stored(self, stored: Any) -> LiveTable:
        config = TableConfig.model_validate(stored.config)
        seats = [
            SeatInfo(kind=s["kind"], bot=s["bot"], name=s["name"], token_hash=s["token_hash"])
            for s in stored.seats
        ]
        game = TableGame(stored.id, config, stored.seed, seats, stored.created)
        game.replay(stored.events)
        now = time.monotonic()
        return LiveTable(game, absent_since=[now] * game.n, turn_since=now)

    def get(self, table_id: str) -> LiveTable | None:
        """A live table, loading a finished one from the store on demand."""
        live = self.tables.get(table_id)
        if live is None and len(table_id) <= 32:
            stored = self.store.load(table_id)
            if stored is not None:
                live = self._live_from_stored(stored)
                if live.game.status != "finished":  # finished tables never change
                    self.tables[table_id] = live
        return live

    # -- HTTP actions ------------------------------------------------------------------

    def create_table(self, req: CreateTableRequest, base_url: str) -> SeatGrant:
        """Create a table; the creator takes the first human seat."""
        cfg = req.config
        for s in cfg.seats:
            if s.kind == "bot":
                s.bot = (s.bot or self.default_bot).lower()
                if s.bot not in self.bots:
                    raise TableError(
                        "bad_config", f"unknown bot {s.bot!r} (choose from {', '.join(self.bots)})"
                    )
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
        now = time.monotonic()
        live = LiveTable(game, absent_since=[now] * game.n, turn_since=now)
        self.tables[table_id] = live
        return self.join(table_id, JoinRequest(name=req.name, seat=humans[0]), base_url)

    def join(self, table_id: str, req: JoinRequest, base_url: str) -> SeatGrant:
        """Take a free human seat (the one asked for, or the first free one)."""
        live = self.get(table_id)
        if live is None:
            raise TableError("no_table", f"no table {table_id!r}")
        game = live.game
        free = [i for i, s in enumerate(game.seats) if not s.taken]
        if req.seat is not None:
            if req.seat >= game.n or req.seat not in free:
                raise TableError("seat_taken", f"seat {req.seat} is not a free human seat")
            seat = req.seat
        elif free:
            seat = free[0]
        else:
            raise TableError("table_full", "every seat of this table is taken")
        token = secrets.token_urlsafe(24)
        th = hash_token(token)
        info = game.seats[seat]
        info.name, info.token_hash = req.name, th
        status = game.status
        if not self.store.claim_seat(table_id, seat, req.name, th, status):
            info.name, info.token_hash = None, None
            raise TableError("seat_taken", f"seat {seat} was just taken")
        live.absent_since[seat] = time.monotonic()
        self._broadcast(live)
        self._schedule(live)
        return SeatGrant(
            table_id=table_id,
            seat=seat,
            token=token,
            invite_url=f"{base_url.rstrip('/')}/#/t/{table_id}",
        )

    def lobby(self) -> list[LobbyEntry]:
        """Listed tables that are waiting or being played, newest first."""
        out = []
        for live in self.tables.values():
            g = live.game
            if not g.config.listed or g.status == "finished":
                continue
            out.append(
                LobbyEntry(
                    table_id=g.table_id,
                    title=g.config.title or f"table {g.table_id}",
                    status=g.status,
                    players=g.n,
                    free_seats=sum(not s.taken for s in g.seats),
                    seats=[g.seat_label(i) for i in range(g.n)],
                    created=g.created,
                )
            )
        out.sort(key=lambda e: -e.created)
        return out

    # -- sockets ---------------------------------------------------------------------

    async def serve_socket(self, ws: WebSocket, table_id: str) -> None:
        """Run one WebSocket: hello, then moves, hints and pings until it closes."""
        live = self.get(table_id)
        if live is None:
            await ws.send_text(_err("no_table", f"no table {table_id!r}"))
            await ws.close(code=4404)
            return
        try:
            seat = await self._hello(ws, live)
        except (WebSocketDisconnect, TimeoutError):
            return
        if seat is False:
            await ws.close(code=4401)
            return
        conn = Conn(ws, seat if isinstance(seat, int) else None)
        writer = asyncio.create_task(conn.writer())
        name = live.game.seats[conn.seat].name if conn.seat is not None else None
        conn.queue.put_nowait(
            ServerWelcome(table_id=table_id, seat=conn.seat, name=name).model_dump_json()
        )
        live.conns.add(conn)
        self._broadcast(live)
        self._schedule(live)
        try:
            while True:
                msg = await ws.receive()
                if msg["type"] == "websocket.disconnect":
                    break
                raw = msg.get("text")
                if raw is None:
                    raw_b = msg.get("bytes") or b""
                    raw = raw_b.decode("utf-8", "replace")
                await self._handle(live, conn, raw)
        except WebSocketDisconnect:
            pass
        finally:
            live.conns.discard(conn)
            conn.queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await writer
            if conn.seat is not None and not live.connected(conn.seat):
                live.absent_since[conn.seat] = time.monotonic()
            if live.game.status == "finished" and not live.conns:
                # finished tables live in the database; drop them from memory
                if live.handle is not None:
                    live.handle.cancel()
                if self.tables.get(table_id) is live:
                    del self.tables[table_id]
            else:
                self._broadcast(live)
                self._schedule(live)

    async def _hello(self, ws: WebSocket, live: LiveTable) -> int | bool | None:
        """Wait for the hello; the seat of its token, None (spectator) or False (refused)."""
        while True:
            raw = await asyncio.wait_for(ws.receive_text(), timeout=30)
            msg = self._parse(raw)
            if isinstance(msg, str):
                await ws.send_text(msg)
                continue
            if not isinstance(msg, ClientHello):
                await ws.send_text(_err("hello_first", "send a hello message first"))
                continue
            if msg.token is None:
                return None
            th = hash_token(msg.token)
            for i, s in enumerate(live.game.seats):
                if s.token_hash is not None and secrets.compare_digest(s.token_hash, th):
                    return i
            await ws.send_text(_err("bad_token", "this token holds no seat at this table"))
            return False

    def _parse(self, raw: str) -> Any:
        """A client message, or an error message (str) to send back."""
        if len(raw) > MAX_MESSAGE_BYTES:
            return _err("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
        try:
            data = json.loads(raw)
        except ValueError:
            return _err("malformed", "messages must be JSON objects")
        try:
            return _CLIENT_MESSAGE.validate_python(data)
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ()))
            return _err("malformed", f"invalid message: {where}: {first.get('msg')}")

    async def _handle(self, live: LiveTable, conn: Conn, raw: str) -> None:
        msg = self._parse(raw)
        if isinstance(msg, str):
            conn.queue.put_nowait(msg)
        elif isinstance(msg, ClientMove):
            if msg.version is not None and msg.version != live.game.version:
                conn.queue.put_nowait(
                    _err("stale", f"the table changed (version {live.game.version})")
                )
                return
            try:
                pending = live.game.prepare_move(conn.seat, msg.move)
            except TableError as e:
                conn.queue.put_nowait(_err(e.code, str(e)))
                return
            self._commit(live, pending.event, pending)
        elif isinstance(msg, ClientHint):
            await self._hint(live, conn)
        elif isinstance(msg, ClientPing):
            conn.queue.put_nowait(ServerPong().model_dump_json())
        else:  # a second hello
            conn.queue.put_nowait(_err("already_greeted", "this connection already said hello"))

    async def _hint(self, live: LiveTable, conn: Conn) -> None:
        st = live.game.state
        seat = conn.seat
        if seat is None or st is None or st.to_act != seat:
            conn.queue.put_nowait(_err("not_your_turn", "a hint is for the player to act"))
            return
        version = live.game.version
        agent = make_agent(self.default_bot, seed=self.rng.randrange(1 << 30))
        obs = observe(st, seat)
        move = await asyncio.to_thread(agent.choose, obs)
        rating = await asyncio.to_thread(_hint_rating, obs, move)
        if live.game.version == version:
            conn.queue.put_nowait(
                ServerHint(move=str(move), bot=self.default_bot, rating=rating).model_dump_json()
            )

    # -- changes -------------------------------------------------------------------

    def _commit(
        self, live: LiveTable, event: dict[str, Any], pending: PendingMove | None = None
    ) -> bool:
        """Apply, store and broadcast one event; False if the store refused it.

        Nothing awaits between applying and storing, so no client can observe the
        applied state before the event is committed; if the store fails the table is
        rebuilt from the database, which then still holds the previous version.
        """
        game = live.game
        seq = game.version
        game.apply(event, pending)
        try:
            self.store.append_event(game.table_id, seq, event, game.status)
        except Exception:
            log.exception("table %s: storing event %d failed; reloading", game.table_id, seq)
            stored = self.store.load(game.table_id)
            if stored is not None:
                fresh = self._live_from_stored(stored)
                live.game = fresh.game
            self._broadcast(live)
            self._schedule(live)
            return False
        self.actions += 1
        live.turn_since = time.monotonic()
        self._broadcast(live)
        self._schedule(live)
        return True

    def _deadline(self, live: LiveTable) -> tuple[float | None, str | None]:
        """Seconds until an automatic action, and its kind (``deal``, ``bot``,
        ``standin``, ``timer``), or (None, None) when waiting for a player."""
        game = live.game
        if game.needs_deal():
            return (game.config.hand_pause_s if game.state is not None else 0.0), "deal"
        st = game.state
        if st is None or st.is_over:
            return None, None
        seat = st.to_act
        assert seat is not None
        now = time.monotonic()
        if game.seats[seat].kind == "bot":
            return game.config.bot_delay_s, "bot"
        waits: list[tuple[float, str]] = []
        if not live.connected(seat):
            waits.append((live.absent_since[seat] + game.config.grace_s - now, "standin"))
        if game.config.turn_timer_s is not None:
            waits.append((live.turn_since + game.config.turn_timer_s - now, "timer"))
        if not waits:
            return None, None
        delay, kind = min(waits)
        if kind == "standin":  # a stand-in plays at bot speed once the grace has run out
            delay = max(delay, game.config.bot_delay_s)
        return max(0.0, delay), kind

    def _schedule(self, live: LiveTable) -> None:
        """(Re)arm the table's one timer for its next automatic action."""
        if live.handle is not None:
            live.handle.cancel()
            live.handle = None
        delay, kind = self._deadline(live)
        if delay is None or kind is None:
            return
        version = live.game.version
        loop = asyncio.get_running_loop()
        live.handle = loop.call_later(delay, lambda: self._spawn(self._auto(live, version, kind)))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as a task, keeping a reference until it is done."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _auto(self, live: LiveTable, version: int, kind: str) -> None:
        game = live.game
        if game.version != version:
            return
        try:
            if kind == "deal":
                if game.needs_deal():
                    rng = random.Random(f"{game.seed}:{game.hand_number}")
                    self._commit(live, game.make_deal(rng))
                return
            st = game.state
            if st is None or st.is_over:
                return
            seat = st.to_act
            assert seat is not None
            spec = game.seats[seat].bot or self.default_bot
            seed = game.seed + seat + 7919 * game.version
            move = await self.bot_move(spec, seed, observe(st, seat))
            if game.version != version:
                return
            pending = game.prepare_move(seat, move, by=kind)
            self._commit(live, pending.event, pending)
        except Exception:
            log.exception("table %s: automatic %s failed", game.table_id, kind)

    def _standin(self, live: LiveTable) -> list[bool]:
        now = time.monotonic()
        g = live.game
        return [
            s.kind == "human"
            and s.taken
            and not live.connected(i)
            and now >= live.absent_since[i] + g.config.grace_s
            for i, s in enumerate(g.seats)
        ]

    def _broadcast(self, live: LiveTable) -> None:
        """Send every connection the table as its own viewer sees it."""
        if not live.conns:
            return
        game = live.game
        connected = [live.connected(i) for i in range(game.n)]
        standin = self._standin(live)
        delay, kind = self._deadline(live)
        deadline = delay if kind in ("standin", "timer") else None
        cache: dict[int | None, str] = {}
        for conn in list(live.conns):
            if conn.queue.qsize() > MAX_QUEUED:
                # a client that stopped reading: drop it (it reconnects with its token)
                live.conns.discard(conn)
                conn.queue.put_nowait(None)
                self._spawn(_close(conn.ws))
                continue
            text = cache.get(conn.seat)
            if text is None:
                view = table_view(game, conn.seat, connected, standin, deadline)
                text = cache[conn.seat] = ServerState(view=view).model_dump_json()
            conn.queue.put_nowait(text)

    def view_for(self, live: LiveTable, seat: int | None) -> str:
        """The current view of ``seat`` as JSON (used by HTTP endpoints)."""
        game = live.game
        connected = [live.connected(i) for i in range(game.n)]
        return table_view(game, seat, connected, self._standin(live)).model_dump_json()

    def seat_of_token(self, live: LiveTable, token: str | None) -> int | None:
        """The seat a token holds at this table, or None."""
        if not token:
            return None
        th = hash_token(token)
        for i, s in enumerate(live.game.seats):
            if s.token_hash is not None and secrets.compare_digest(s.token_hash, th):
                return i
        return None


async def _close(ws: WebSocket) -> None:
    with contextlib.suppress(Exception):
        await ws.close(code=1013)


def _err(code: str, message: str) -> str:
    return ServerError(code=code, message=message).model_dump_json()


def _hint_rating(obs: Observation, move: Move) -> str:
    """The hinted move's rating in the shared wording (proven, or estimated with its
    samples and interval; never an unproven certainty)."""
    from ..bots.analysis import rate_move
    from ..bots.rating import format_rating

    return format_rating(rate_move(obs, move, budget_ms=300.0))
