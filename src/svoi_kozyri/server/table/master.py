"""The table master: the protocol of a table, the version check, the commit, the views.

Modelled on boardgame.io's ``Master``, which takes the transport, the storage and
the auth as parts: a move is checked on a copy of the state (version, seat, turn,
legality), stored (event and version in one transaction, refused if another
writer got there first), applied, and only then announced, each connection
receiving a view built from its own viewer's observation.  Bots, stand-ins and
the turn timer (:mod:`.scheduler`) commit through the same :meth:`commit`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Literal

from ...bots.catalogue import make_agent
from ...bots.rating import Rating
from ...core import Move, Observation, observe
from ..runtime import metrics
from ..storage.store import AsyncAppender, Store, StoredTable
from ..wire.events import DealEvent, TableEvent
from ..wire.schemas import (
    ClientHint,
    ClientMove,
    ClientPing,
    HintRating,
    ServerHint,
    ServerPong,
    TableConfig,
    TableMessage,
    ValueName,
)
from ..wire.transport import Conn, error_text
from .bot_runner import BotRunner
from .game import PendingMove, SeatInfo, TableError, TableGame
from .live import LiveTable
from .peer import LocalPeer, TablePeer
from .scheduler import Scheduler
from .views import state_message, table_view

HINT_SLOTS = 2
"""Hints worked out at once in one server process: each is about 0.3 s of a
thread holding the interpreter lock, so more would only slow every table."""

log = logging.getLogger("svoi_kozyri.server")


def game_from_stored(stored: StoredTable) -> TableGame:
    """Rebuild a table's game from its stored configuration, seats and events."""
    config = TableConfig.model_validate(stored.config)
    seats = [
        SeatInfo(kind=s["kind"], bot=s["bot"], name=s["name"], token_hash=s["token_hash"])
        for s in stored.seats
    ]
    game = TableGame(stored.id, config, stored.seed, seats, stored.created)
    game.replay(stored.events)
    return game


class TableMaster:
    """Runs the protocol of every live table against one store."""

    def __init__(
        self,
        store: Store,
        scheduler: Scheduler,
        bots: BotRunner,
        rng: random.Random,
        *,
        peer: TablePeer | None = None,
        appender: AsyncAppender | None = None,
    ) -> None:
        self.store = store
        self.scheduler = scheduler
        self.bots = bots
        self.rng = rng
        self.actions = 0
        self._hint_slots = asyncio.Semaphore(HINT_SLOTS)
        self.peer: TablePeer = peer if peer is not None else LocalPeer()
        """Makes the notification sent with each commit (several processes)."""
        self.appender = appender if appender is not None else store.appender()
        """PostgreSQL: events are stored without blocking the event loop (a network
        round trip).  SQLite: on the loop (a local write, quicker than any hop)."""
        scheduler.commit = self.commit

    def note(self, table_id: str, version: int) -> str:
        """The notification stored with version ``version`` of a table ("" with one
        process: nobody listens)."""
        return self.peer.note_event(table_id, version)

    # -- the protocol --------------------------------------------------------------

    async def handle(
        self, live: LiveTable, conn: Conn, msg: TableMessage, received: float | None = None
    ) -> None:
        """Act on one validated client message (after the hello); ``received``:
        when its frame was read (``time.perf_counter``), for the move latency
        metric (it then covers the checks before this call too)."""
        if isinstance(msg, ClientMove):
            if received is None:
                received = time.perf_counter()
            # checked against the committed state only: a move of this table still
            # being stored may yet lose to another process's (issue 20, item 2)
            await live.settled()
            game = live.game
            if live.pending:  # still storing after a long wait: nothing is checked
                conn.send(error_text("stale", "the table is busy; try again"))
                return
            if msg.version is not None and msg.version != game.version:
                conn.send(error_text("stale", f"the table changed (version {game.version})"))
                return
            try:
                pending = game.prepare_move(conn.seat, msg.move)
            except TableError as e:
                conn.send(self.refusal(live, conn, e))
                return
            if not await self.commit(live, pending.event, pending):
                conn.send(error_text("stale", "the table changed; try again"))
                return
            # received, checked, stored and sent to every viewer here: once per move
            metrics.MOVE_SECONDS.observe(time.perf_counter() - received)
        elif isinstance(msg, ClientHint):
            await self._hint(live, conn)
        elif isinstance(msg, ClientPing):
            conn.send(ServerPong().model_dump_json())
        else:  # a second hello
            conn.send(error_text("already_greeted", "this connection already said hello"))

    def refusal(self, live: LiveTable, conn: Conn, e: TableError) -> str:
        """The error for a refused move, worded from what ``conn`` was last sent:
        the reason (which may name cards of the position) only if that is the
        state the move was checked against; otherwise ``stale`` and the version,
        naming nothing the receiver has not seen yet (the state follows)."""
        version = live.game.version
        if live.delivered.get(conn) == version:
            return error_text(e.code, str(e))
        return error_text("stale", f"the table changed (version {version}); look again")

    async def _hint(self, live: LiveTable, conn: Conn) -> None:
        await live.settled()  # from the committed state only, as a move is checked
        game = live.game
        st = game.state
        seat = conn.seat
        if seat is None or st is None or st.to_act != seat or live.pending:
            conn.send(error_text("not_your_turn", "a hint is for the player to act"))
            return
        version = game.version
        known = live.hints.get(seat)
        if known is not None and known[0] == version:
            task = known[1]  # the same position: the hint computed (or under way) for it
        else:
            if known is not None and not known[1].done():
                conn.send(error_text("hint_busy", "a hint is still being worked out"))
                return
            obs = observe(st, seat)
            task = asyncio.ensure_future(self._hint_text(obs))
            live.hints[seat] = (version, task)
        text = await asyncio.shield(task)
        if live.game is game and game.version == version and live.delivered.get(conn) == version:
            conn.send(text)

    async def _hint_text(self, obs: Observation) -> str:
        """The hint message for ``obs``: the default bot's move and its rating, both
        computed in a thread, one hint at a time in this process (:data:`HINT_SLOTS`)."""
        agent = make_agent(self.bots.default, seed=self.rng.randrange(1 << 30))
        async with self._hint_slots:
            move = await asyncio.to_thread(agent.choose, obs)
            rating = await asyncio.to_thread(_hint_rating, obs, move)
        return ServerHint(move=str(move), bot=self.bots.default, rating=rating).model_dump_json()

    # -- changes -------------------------------------------------------------------

    async def commit(
        self, live: LiveTable, event: TableEvent, pending: PendingMove | None = None
    ) -> bool:
        """Apply, store and announce one event; False if the store refused it.

        The event is applied in memory at once (nothing awaits before that, so
        the next message or timer of the table sees it), then stored; nothing of
        the table is announced while any of its events is not yet committed
        (``live.pending``), so no client can observe a state whose event is not
        in the database.  On PostgreSQL the store is awaited, so the event loop
        serves the other tables during the round trip (it used to wait there,
        blocked, most of the time under load); the table's lock keeps its events
        in order.  If the store refuses (another writer committed this
        version first) or fails, the table is rebuilt from the database, which
        holds the truth, and the events applied after the refused one are
        refused too.
        """
        game = live.game
        seq = game.version
        game.apply(event, pending)
        status = game.status
        note = self.peer.note_event(game.table_id, seq + 1)
        stored = False
        live.pending += 1
        try:
            async with live.lock:
                if live.game is game:  # not rebuilt after an earlier refusal
                    try:
                        if self.appender is not None:
                            await self.appender.append(game.table_id, seq, event, status, note)
                        else:
                            self.store.append_event(game.table_id, seq, event, status, notify=note)
                        stored = True
                    except Exception as e:
                        log.warning(
                            "table %s: event %d not stored (%s); reloading",
                            game.table_id,
                            seq,
                            e,
                        )
                        self._rebuild(live)
        finally:
            live.pending -= 1
        if stored:
            self.actions += 1
            by = "deal" if isinstance(event, DealEvent) else event.by
            metrics.count_action(by)
            live.turn_since = time.monotonic()
        self.changed(live)
        return stored

    def _rebuild(self, live: LiveTable) -> None:
        stored = self.store.load(live.game.table_id)
        if stored is not None:
            live.game = game_from_stored(stored)

    async def aclose(self) -> None:
        """Close the appender's connections (shutdown)."""
        if self.appender is not None:
            await self.appender.close()

    def reload(self, live: LiveTable) -> None:
        """Rebuild the table from the database and announce it."""
        self._rebuild(live)
        self.changed(live)

    def changed(self, live: LiveTable) -> None:
        """The table changed (or who is connected did): announce it, re-arm its timer.
        Not while one of its events is being committed: the last commit to finish
        announces the table as it then is."""
        if live.pending:
            return
        self.broadcast(live)
        self.scheduler.schedule(live)

    # -- views ---------------------------------------------------------------------

    def broadcast(self, live: LiveTable) -> None:
        """Send every connection the table as its own viewer sees it."""
        if not live.conns:
            return
        game = live.game
        connected = [live.connected(i) for i in range(game.n)]
        standin = self.scheduler.standin(live)
        delay, kind = self.scheduler.deadline(live)
        deadline = delay if kind in ("standin", "timer") else None
        paused = self.scheduler.paused(live)
        cache: dict[int | None, str] = {}
        for conn in list(live.conns):
            text = cache.get(conn.seat)
            if text is None:
                text = state_message(game, conn.seat, connected, standin, deadline, paused)
                cache[conn.seat] = text
            if conn.send(text):
                live.delivered[conn] = game.version
            else:
                live.conns.discard(conn)

    def view_for(self, live: LiveTable, seat: int | None) -> str:
        """The current view of ``seat`` as JSON (used by HTTP endpoints)."""
        game = live.game
        connected = [live.connected(i) for i in range(game.n)]
        paused = self.scheduler.paused(live)
        view = table_view(game, seat, connected, self.scheduler.standin(live), None, paused)
        return view.model_dump_json()


_VALUE_NAMES: dict[int, ValueName] = {1: "win", 0: "draw", -1: "loss"}


def hint_rating(r: Rating) -> HintRating:
    """A rating as the hint message carries it: data, never English words (the
    client words it from its catalogue, bots.rating.format_rating for the terminal)."""
    kind: Literal["proven", "estimated", "unrated"]
    if r.proven:
        kind = "proven"
    elif r.samples > 0:
        kind = "estimated"
    else:
        kind = "unrated"
    return HintRating(
        kind=kind,
        value=_VALUE_NAMES[r.bound_lo] if r.proven else None,
        score=round(r.score, 4),
        low=round(r.low, 4),
        high=round(r.high, 4),
        samples=r.samples,
        source=r.source,
        at_least=_VALUE_NAMES[r.bound_lo] if not r.proven and r.bound_lo > -1 else None,
        at_best=_VALUE_NAMES[r.bound_hi] if not r.proven and r.bound_hi < 1 else None,
    )


def _hint_rating(obs: Observation, move: Move) -> HintRating:
    """The hinted move's rating (proven, or estimated with its samples and interval;
    never an unproven certainty)."""
    from ...bots.analysis import rate_move

    return hint_rating(rate_move(obs, move, budget_ms=300.0))
