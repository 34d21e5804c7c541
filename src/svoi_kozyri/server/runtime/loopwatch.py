"""A watchdog that names what blocks the event loop (a diagnostic, off by default).

With ``SVOI_KOZYRI_LOOP_WATCH_MS=20`` in a server process's environment, a task
on the loop touches a timestamp every few milliseconds and a thread checks it;
when the loop has not come back for longer than the threshold, the thread takes
the loop thread's stack (``sys._current_frames``) and logs its innermost frames
outside the standard library, once per blocking episode.  Built to find
the synchronous database calls left on the hot path of the two-worker benchmark
(py-spy needs ptrace, which a container often refuses); costs one wake-up of
the loop every ``TICK_S`` while on.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import os
import sys
import sysconfig
import threading
import time
import traceback

log = logging.getLogger("svoi_kozyri.server.runtime.loopwatch")

ENV = "SVOI_KOZYRI_LOOP_WATCH_MS"
TICK_S = 0.005
_STDLIB = sysconfig.get_paths()["stdlib"]


def threshold_from_env() -> float | None:
    """The threshold in seconds from :data:`ENV`, or None when off."""
    raw = os.environ.get(ENV, "")
    try:
        ms = float(raw)
    except ValueError:
        return None
    return ms / 1000.0 if ms > 0 else None


class LoopWatch:
    """Logs the loop thread's stack whenever the loop is blocked too long."""

    def __init__(self, threshold_s: float) -> None:
        self.threshold_s = threshold_s
        self.blocked = 0
        """Blocking episodes seen."""
        self._beat = self._started = time.monotonic()
        self._stop = threading.Event()
        self._task: asyncio.Task[None] | None = None
        self._thread: threading.Thread | None = None
        self._loop_thread = threading.get_ident()

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_t0 = time.thread_time()
            return
        took = time.thread_time() - self._gc_t0  # CPU time: not the waits for a core
        gen = info.get("generation", 0)
        self.gc_s[gen] += took
        self.gc_n[gen] += 1
        self.gc_max[gen] = max(self.gc_max[gen], took)

    def start(self) -> None:
        """Start (on the loop to watch)."""
        self.gc_s, self.gc_n, self.gc_max = [0.0] * 3, [0] * 3, [0.0] * 3
        self._gc_t0 = 0.0
        gc.callbacks.append(self._gc)
        self._loop_thread = threading.get_ident()
        self._beat = self._started = time.monotonic()
        self._task = asyncio.get_running_loop().create_task(self._touch())
        self._thread = threading.Thread(target=self._watch, name="loopwatch", daemon=True)
        self._thread.start()

    async def stop(self) -> None:
        """Stop the task and the thread."""
        self._stop.set()
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._gc)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        if self._thread is not None:
            self._thread.join(timeout=1.0)

    async def _touch(self) -> None:
        last = time.monotonic()
        while True:
            self._beat = now = time.monotonic()
            if now - last >= 10.0:  # the garbage collector's pauses, every 10 s
                last = now
                log.warning(
                    "gc pauses by generation: %s",
                    ", ".join(
                        f"{n} x, {1000 * t:.0f} ms, max {1000 * m:.1f} ms"
                        for n, t, m in zip(self.gc_n, self.gc_s, self.gc_max, strict=True)
                    ),
                )
            await asyncio.sleep(TICK_S)

    def _watch(self) -> None:
        reported = 0.0
        while not self._stop.wait(self.threshold_s / 4):
            beat = self._beat
            late = time.monotonic() - beat - TICK_S
            if late < self.threshold_s or beat == reported:
                continue
            reported = beat  # once per episode
            self.blocked += 1
            frame = sys._current_frames().get(self._loop_thread)
            if frame is None:
                continue
            stack = traceback.extract_stack(frame)
            keep = [  # the caller's frames, innermost first: not the stdlib's
                f"{os.path.basename(f.filename)}:{f.lineno} {f.name}"
                for f in stack
                if not f.filename.startswith(_STDLIB)
            ]
            log.warning(
                "event loop blocked %.0f ms (t=%.1f s) at %s",
                late * 1000,
                beat - self._started,
                " < ".join(keep[::-1][:16]),
            )
