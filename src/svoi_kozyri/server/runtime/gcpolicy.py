"""Keep the garbage collector's full collections off the event loop's critical path.

The loop watch (:mod:`.loopwatch`) at 1,000 tables on two workers found the
server's longest stalls in CPython's cyclic garbage collector, not in any
statement: a full (generation 2) collection walks every live object (each
table's game, events and views: millions of objects) and took 365-380 ms, a
generation-1 collection up to 53 ms, each stalling every table of the process.
Long-lived objects grow with every action, so full collections keep coming.

The policy: every :data:`FREEZE_S` seconds ``gc.freeze()`` moves the objects
alive then into the permanent generation, which the collector no longer walks,
so the automatic collections only see what was made since (and stay short).
Reference counting still frees everything that is not in a cycle at once; the
cycles that were frozen are reclaimed by one full collection every
:data:`FULL_S` seconds (``gc.unfreeze()`` then ``gc.collect()``): one known
pause every ten minutes instead of one every few seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import time

log = logging.getLogger("svoi_kozyri.server")

FREEZE_S = 10.0
"""How often the objects alive are frozen (moved out of the collector's walks)."""
FULL_S = 600.0
"""How often everything is unfrozen and collected (the frozen cycles are freed)."""
ENV = "SVOI_KOZYRI_GC_FREEZE_S"
"""Overrides :data:`FREEZE_S`; 0 turns the policy off (to measure without it)."""


def from_env() -> GcPolicy | None:
    """The policy, with :data:`ENV` applied (None when turned off)."""
    try:
        freeze_s = float(os.environ.get(ENV, FREEZE_S))
    except ValueError:
        freeze_s = FREEZE_S
    return GcPolicy(freeze_s) if freeze_s > 0 else None


class GcPolicy:
    """Freezes long-lived objects periodically; a full collection now and then."""

    def __init__(self, freeze_s: float = FREEZE_S, full_s: float = FULL_S) -> None:
        self.freeze_s = freeze_s
        self.full_s = full_s
        self.full_collections = 0
        self._last_full = time.monotonic()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Freeze what start-up made (the resumed tables) and run the policy."""
        gc.freeze()
        self._last_full = time.monotonic()
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        """Stop the policy and give the frozen objects back to the collector."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        gc.unfreeze()

    def tick(self) -> None:
        """One step: a full collection if it is due, then freeze."""
        now = time.monotonic()
        if now - self._last_full >= self.full_s:
            self._last_full = now
            gc.unfreeze()
            t0 = time.perf_counter()
            found = gc.collect()
            self.full_collections += 1
            log.info(
                "full garbage collection: %d unreachable, %.0f ms",
                found,
                1000 * (time.perf_counter() - t0),
            )
        gc.freeze()

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.freeze_s)
            self.tick()
