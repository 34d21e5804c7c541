"""Worker process pools of the server (bot moves, analyses): started whole, killed whole.

Why a module: the bot runner and the analysis pool each started a spawned
``ProcessPoolExecutor``, listed its workers and killed them with the same lines;
a fix to one (a worker still starting when the server dies, a pool shut down
while a worker hangs) belongs to both.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import multiprocessing
import os
from collections.abc import Callable
from typing import Any


def spawn_pool(
    workers: int, initializer: Callable[..., None], *initargs: Any
) -> concurrent.futures.ProcessPoolExecutor:
    """A pool of ``workers`` spawned processes, every one started now rather than
    one per busy moment: a worker still being spawned when the server is killed
    dies reading its start-up pipe and prints a traceback into the server's log."""
    pool = concurrent.futures.ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=initializer,
        initargs=initargs,
    )
    for _ in range(workers):
        pool.submit(os.getpid)
    return pool


def pool_pids(pool: concurrent.futures.ProcessPoolExecutor | None) -> list[int]:
    """Process ids of a pool's workers (tests, diagnostics)."""
    procs = getattr(pool, "_processes", None) or {}
    return sorted(int(p) for p in procs)


def kill_pool(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Stop a pool now: queued work is cancelled, running work abandoned, and the
    workers terminated (a shutdown alone waits for a worker that hangs)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(Exception):
            p.terminate()
