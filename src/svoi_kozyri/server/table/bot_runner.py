"""The bot runner: which bots may sit at a table, and where they think.

Cheap bots (well under a millisecond a move) move on the event loop; search
bots (up to seconds a move) think in a small pool of worker processes, so they
neither block the loop nor hold its interpreter lock.

The workers must never outlive the server, whether it exits cleanly, is
stopped with SIGTERM, or is killed with SIGKILL (issue 13, defect 3: a
forkserver, a resource tracker and a worker used to live on under PID 1).  So:

* the pool uses the ``spawn`` start method (no forkserver process);
* each worker asks the kernel for SIGKILL when its parent dies
  (``prctl(PR_SET_PDEATHSIG)`` on Linux) and also runs a watchdog thread that
  exits as soon as its parent process changes (any POSIX system);
* the resource tracker that ``spawn`` starts reads a pipe held only by the
  server and its workers, so it exits by itself once they are gone.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

from ...bots import catalogue
from ...bots.catalogue import make_agent
from ...core import Move, Observation
from ..runtime import metrics
from ..runtime.pools import kill_pool, pool_pids, spawn_pool

CHEAP_BOTS = catalogue.cheap_bots()
"""Bots fast enough to move on the event loop (the bot catalogue's list)."""

WORKERS = 2
"""Worker processes of the pool (the machine the server targets has 2 cores)."""

_PR_SET_PDEATHSIG = 1


def bot_names() -> list[str]:
    """Bots that can take a seat, strongest first (the catalogue's menu order)."""
    return catalogue.strength_order()


def default_bot() -> str:
    """The default bot of the catalogue."""
    return catalogue.default_bot()


def die_with_parent(parent: int) -> None:
    """Make sure this process ends when ``parent`` does (bot workers, and the
    worker processes of ``serve --workers N``)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the prctl took effect
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _think(spec: str, seed: int, obs: Observation) -> str:
    """A search bot's move, computed in a worker process."""
    return str(make_agent(spec, seed=seed).choose(obs))


class EnginePool:
    """The operator's external engines by name (``serve --engine NAME=CMD``), each
    started on first use; one referee-checked process per engine serves every
    table (the engine protocol is stateless)."""

    def __init__(self, engines: dict[str, str]) -> None:
        from ...bots.external import ExternalAgent

        self.names = list(engines)
        self._agents = {
            name: ExternalAgent(cmd, timeout=10.0, label=name, shared=False)
            for name, cmd in engines.items()
        }
        self._locks = {name: threading.Lock() for name in engines}

    def choose(self, name: str, seed: int, obs: Observation) -> Move:
        """The engine's referee-checked move (blocking: run it in a thread)."""
        with self._locks[name]:
            agent = self._agents[name]
            agent.reseed(seed)
            return agent.choose(obs)

    def close(self) -> None:
        """Quit every engine process."""
        for agent in self._agents.values():
            agent.close()


class BotRunner:
    """Chooses bot moves: cheap bots inline, search bots in worker processes,
    the operator's external engines in a thread (their referee turns any failure
    into the default action)."""

    def __init__(self, workers: int = WORKERS, engines: dict[str, str] | None = None) -> None:
        self.workers = workers
        self.engines = EnginePool(engines or {})
        # "engine" itself is never offered: it would need a command from a client
        builtin = [b for b in bot_names() if b != "engine"]
        self.names = builtin + [n for n in self.engines.names if n not in builtin]
        self.default = default_bot()
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def check(self, spec: str | None) -> str:
        """The normalised name of a seat's bot; ``ValueError`` for an unknown one."""
        name = (spec or self.default).lower()
        if name not in self.names:
            raise ValueError(f"unknown bot {name!r} (choose from {', '.join(self.names)})")
        return name

    async def move(self, spec: str, seed: int, obs: Observation) -> str:
        """The move of bot ``spec`` for ``obs`` (a thread if processes are unavailable);
        the time it took is observed per bot kind (the operator's engines as one,
        ``engine``: their names are the operator's, not a bounded set)."""
        kind = spec.partition(":")[0]
        started = time.perf_counter()
        try:
            return await self._choose(spec, seed, obs)
        finally:
            label = kind if kind in catalogue.KINDS else "engine"
            metrics.observe_think(label, time.perf_counter() - started)

    async def _choose(self, spec: str, seed: int, obs: Observation) -> str:
        """The move, from wherever bot ``spec`` thinks (see :meth:`move`)."""
        if spec in self.engines.names:
            return str(await asyncio.to_thread(self.engines.choose, spec, seed, obs))
        if spec.partition(":")[0] not in catalogue.KINDS:  # an engine no longer configured
            spec = self.default
        agent = make_agent(spec, seed=seed)
        if catalogue.is_cheap(spec) or agent.name in CHEAP_BOTS:
            return str(agent.choose(obs))
        if self._pool is None:
            try:
                self._pool = spawn_pool(self.workers, die_with_parent, os.getpid())
            except (OSError, ValueError):
                return str(await asyncio.to_thread(agent.choose, obs))
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, _think, spec, seed, obs)

    def worker_pids(self) -> list[int]:
        """Process ids of the running workers (tests, diagnostics)."""
        return pool_pids(self._pool)

    def stop(self) -> None:
        """Stop the workers and engines now (in-flight moves are abandoned; tables
        recompute them)."""
        self.engines.close()
        pool, self._pool = self._pool, None
        if pool is None:
            return
        kill_pool(pool)
