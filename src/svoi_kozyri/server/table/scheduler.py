"""The scheduler: every action nobody sends (deals, bot turns, stand-ins, the turn timer).

Each live table has at most one timer, for its next automatic action.  The
action is recomputed when the timer fires and dropped if the table changed in
the meantime (its version moved on), so a timer can never act twice or on a
stale position.

Tables without people stop (issue 13, defect 2).  A table plays by itself only
while a human player is connected, or for ``idle_pause_s`` after the last one
left (stand-ins then play for the absent players); after that it is *paused*
until a human player opens a socket again.  A table whose humans never
connected (or, after a restart, have not reconnected yet) never plays by
itself (beyond the first deal once every seat is taken), so an abandoned table
writes nothing.

While no human player is connected the table plays at a human's pace: every
automatic action waits at least :data:`UNATTENDED_DELAY_S`, whatever the
table's ``bot_delay_s`` and ``hand_pause_s`` (issue 20, item 8: eight tables
with no delays whose human looked in and left wrote 14,309 events in 2.7 s,
each finishing a 50-loss session nobody watched).  Fast bots are for the
people watching them.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from ...core import observe
from ..runtime.logs import REQUEST_ID, TABLE_ID
from ..wire.events import TableEvent
from .bot_runner import BotRunner
from .game import PendingMove
from .live import LiveTable
from .peer import LocalPeer, TablePeer

log = logging.getLogger("svoi_kozyri.server")

IDLE_PAUSE_S = 300.0
"""How long a table keeps playing by itself after its last human player left."""
UNATTENDED_DELAY_S = 2.0
"""The least time between two automatic actions of a table no human is connected
to (at most ``IDLE_PAUSE_S / UNATTENDED_DELAY_S`` events before it pauses)."""

Commit = Callable[[LiveTable, TableEvent, PendingMove | None], Awaitable[bool]]


class Scheduler:
    """Arms and fires each table's timer; commits through ``commit``."""

    def __init__(
        self,
        bots: BotRunner,
        idle_pause_s: float = IDLE_PAUSE_S,
        unattended_delay_s: float = UNATTENDED_DELAY_S,
        *,
        peer: TablePeer | None = None,
    ) -> None:
        self.bots = bots
        self.idle_pause_s = idle_pause_s
        self.unattended_delay_s = unattended_delay_s
        self.commit: Commit | None = None
        self.peer: TablePeer = peer if peer is not None else LocalPeer()
        """Whether this process fires a table's automatic actions (the table's
        lease holder when several processes share the tables), and whether a
        table marked stale has caught up with the other processes' commits."""
        self._tasks: set[asyncio.Future[None]] = set()

    def paused(self, live: LiveTable, now: float | None = None) -> bool:
        """True when no human player is here and none has been for ``idle_pause_s``."""
        if live.humans_connected():
            return False
        seen = live.human_seen
        now = time.monotonic() if now is None else now
        return seen is None or now - seen >= self.idle_pause_s

    def standin(self, live: LiveTable) -> list[bool]:
        """For each seat: is a stand-in bot playing for its absent player?"""
        now = time.monotonic()
        g = live.game
        return [
            s.kind == "human"
            and s.taken
            and not live.connected(i)
            and now >= live.absent_since[i] + g.config.grace_s
            for i, s in enumerate(g.seats)
        ]

    def deadline(self, live: LiveTable) -> tuple[float | None, str | None]:
        """Seconds until an automatic action, and its kind (``deal``, ``bot``,
        ``standin``, ``timer``, ``pause``), or (None, None) when waiting for a player."""
        game = live.game
        now = time.monotonic()
        if game.status == "finished":  # over, or closed by a moderator
            return None, None
        if game.state is None and game.needs_deal():
            return 0.0, "deal"  # the first deal, once everyone is seated: one event
        if self.paused(live, now):
            return None, None
        if not live.humans_connected():
            # nobody here: play on until the idle pause, then stop
            assert live.human_seen is not None
            until_pause: float | None = live.human_seen + self.idle_pause_s - now
        else:
            until_pause = None
        delay, kind = self._next_action(live, now)
        if until_pause is not None and delay is not None:
            delay = max(delay, self.unattended_delay_s)  # nobody watches: a human's pace
        if until_pause is not None and (delay is None or until_pause < delay):
            return max(0.0, until_pause), "pause"
        return delay, kind

    def _next_action(self, live: LiveTable, now: float) -> tuple[float | None, str | None]:
        game = live.game
        if game.needs_deal():
            return (game.config.hand_pause_s if game.state is not None else 0.0), "deal"
        st = game.state
        if st is None or st.is_over:
            return None, None
        seat = st.to_act
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

    def schedule(self, live: LiveTable) -> None:
        """(Re)arm the table's one timer for its next automatic action."""
        if live.handle is not None:
            live.handle.cancel()
            live.handle = None
        # A stale table is caught up (a database read) only if this process is
        # to act on it: at 1,000 tables the other process's presence changes
        # made one such read per table here.  If the lease is being taken, the
        # take schedules the table again; so does the catch-up when it is done.
        if live.stale and (not self.peer.may_act(live) or not self.peer.refresh(live)):
            return
        delay, kind = self.deadline(live)
        if delay is None or kind is None:
            return
        if not self.peer.may_act(live):
            return
        version = live.game.version
        loop = asyncio.get_running_loop()
        live.handle = loop.call_later(delay, lambda: self._spawn(self._fire(live, version, kind)))

    def cancel(self, live: LiveTable) -> None:
        """Disarm the table's timer."""
        if live.handle is not None:
            live.handle.cancel()
            live.handle = None

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` as a task, keeping a reference until it is done."""
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run a background coroutine owned by the scheduler."""
        self._spawn(coro)

    async def _fire(self, live: LiveTable, version: int, kind: str) -> None:
        game = live.game
        # this task's own context: its log lines name the table, and no request
        # (the timer may have been armed while serving one, long ago)
        TABLE_ID.set(game.table_id)
        REQUEST_ID.set(None)
        if game.version != version or self.commit is None:
            return
        if not self.peer.may_act(live):  # the lease went to another process
            return
        if live.stale:  # another process moved it: catch up first (then rescheduled)
            self.schedule(live)
            return
        try:
            if kind == "pause":
                self.schedule(live)  # nothing runs any more until a human is back
                return
            if kind == "deal":
                if game.needs_deal():
                    await self.commit(live, game.make_deal(game.deal_rng()), None)
                return
            st = game.state
            if st is None or st.is_over:
                return
            seat = st.to_act
            spec = game.seats[seat].bot or self.bots.default
            seed = game.seed + seat + 7919 * game.version
            move = await self.bots.move(spec, seed, observe(st, seat))
            if live.game is not game or game.version != version:
                return
            pending = game.prepare_move(seat, move, by=kind)
            await self.commit(live, pending.event, pending)
        except Exception:
            log.exception("table %s: automatic %s failed", game.table_id, kind)
