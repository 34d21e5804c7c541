"""Background services that live as long as the app: a step run every few
seconds in a thread, started and stopped with the platform (:class:`~.players.Players`).

Why one class: pairing, challenges and tournaments each need a loop that looks at
the database now and then (seeks to match, challenges to expire, rounds to
pair).  Each such loop had the same start, stop, sleep and "log, never die"
lines; here they are written once.  A step runs in a worker thread, because it
talks to the database synchronously and must not hold the event loop, and every
server process runs its own loop: whatever a step claims, it claims with a
conditional UPDATE, so two processes never both act on one row."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

__all__ = ["LoopService"]

log = logging.getLogger("svoi_kozyri.server.platform.services")


class LoopService:
    """Runs ``step`` every ``interval_s`` seconds (in a thread) until stopped."""

    def __init__(self, name: str, step: Callable[[], object], interval_s: float) -> None:
        self.name = name
        self.step = step
        self.interval_s = interval_s
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()

    @property
    def running(self) -> bool:
        """Whether the loop is alive (readiness, ``/readyz``)."""
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        """Start the loop (idempotent)."""
        if self._task is None:
            self._wake = asyncio.Event()
            self._task = asyncio.create_task(self._run(), name=f"service:{self.name}")

    async def stop(self) -> None:
        """Stop the loop and wait for a running step to end.  A loop started on
        another event loop is left to that one's stop (one app served twice at
        once, as two test clients do: the second's start found it running)."""
        task = self._task
        if task is None or task.get_loop() is not asyncio.get_running_loop():
            return
        self._task = None
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task

    def wake(self) -> None:
        """Run the next step now instead of at the end of the interval (a new seek
        should not wait a whole interval to be matched)."""
        self._wake.set()

    async def _run(self) -> None:
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.interval_s)
            self._wake.clear()
            try:
                await asyncio.to_thread(self.step)
            except Exception:
                log.exception("%s: step failed", self.name)
