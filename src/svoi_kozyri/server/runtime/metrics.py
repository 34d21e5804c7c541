"""The server's Prometheus metrics: one set of collectors per process, safe with
``serve --workers N`` (docs/observability.md lists them).

Why here: the table master, the bot runner, the wire's error messages and the web
app all update them, and ``runtime/`` is the server's lowest package, so every
layer may import this module without an upward edge.

One process keeps its values in memory and :func:`exposition` renders this
module's :data:`REGISTRY`.  Several worker processes (uvicorn's supervisor starts
them) cannot share memory, so the supervisor names a folder in
:data:`MULTIPROC_ENV` before they start (:func:`multiproc_dir`); each worker's
``prometheus_client`` then keeps every value in a memory-mapped file there, and a
scrape answered by any worker reads and merges all of them: counters and
histograms are summed over the workers (also those that have exited: a count
never goes back), and each gauge is reported per worker with a ``pid`` label.

Cost on the hot path: an update is one ``prometheus_client`` call (a lock-free
float add in memory, a short lock and a write to the mapped file with several
workers), at most a few per action; the gauges that are sums over the tables are
refreshed by :class:`LoopSampler` once a second, off the hot path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)

__all__ = [
    "ACTIONS",
    "BOT_THINK",
    "CONTENT_TYPE",
    "DB_POOL_IN_USE",
    "ERRORS",
    "HTTP_RESPONSES",
    "LIVE_TABLES",
    "LOOP_LAG",
    "LOOP_LAG_LAST",
    "MOVE_SECONDS",
    "MULTIPROC_ENV",
    "SOCKETS",
    "LoopSampler",
    "count_action",
    "count_error",
    "count_response",
    "exposition",
    "forget_process",
    "multiproc_dir",
    "observe_think",
]

log = logging.getLogger("svoi_kozyri.server.runtime.metrics")

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
"""The folder of the worker processes' value files (prometheus_client's variable)."""
_MULTIPROC = os.environ.get(MULTIPROC_ENV) or None
"""Read once, as prometheus_client chose how to keep values when it was imported
(above): the two must agree, or a scrape would miss this process's values."""

CONTENT_TYPE = CONTENT_TYPE_LATEST
"""The media type of :func:`exposition`'s text format.  (prometheus_client leaves
some helpers unannotated: their calls below carry a type-ignore.)"""

# no ``_created`` series: the merged workers' values have none either
disable_created_metrics()  # type: ignore[no-untyped-call]
REGISTRY = CollectorRegistry()
"""This module's collectors, and (one process) the process's CPU, memory, file
descriptors and garbage collector, as prometheus_client's default registry has;
they cannot be merged over processes, so a worker of ``--workers N`` leaves them out."""
if _MULTIPROC is None:
    ProcessCollector(registry=REGISTRY)
    PlatformCollector(registry=REGISTRY)
    GCCollector(registry=REGISTRY)

SOCKETS = Gauge(
    "svoi_kozyri_sockets",
    "Table sockets open (past the hello), players and spectators",
    registry=REGISTRY,
    multiprocess_mode="liveall",
)
LIVE_TABLES = Gauge(
    "svoi_kozyri_live_tables",
    "Tables held in memory (waiting, playing or paused; finished ones are dropped)",
    registry=REGISTRY,
    multiprocess_mode="liveall",
)
DB_POOL_IN_USE = Gauge(
    "svoi_kozyri_db_pool_in_use",
    "Connections of the SQLAlchemy pool checked out",
    registry=REGISTRY,
    multiprocess_mode="liveall",
)
LOOP_LAG_LAST = Gauge(
    "svoi_kozyri_event_loop_lag_last_seconds",
    "How late the event loop woke the last sampling sleep",
    registry=REGISTRY,
    multiprocess_mode="liveall",
)
LOOP_LAG = Histogram(
    "svoi_kozyri_event_loop_lag_seconds",
    "How late the event loop woke each sampling sleep (time it spent blocked)",
    registry=REGISTRY,
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
ACTIONS = Counter(
    "svoi_kozyri_actions",
    "Actions committed to the event log, by who made them",
    ["by"],
    registry=REGISTRY,
)
MOVE_SECONDS = Histogram(
    "svoi_kozyri_move_seconds",
    "A player's move from its message to its commit and broadcast",
    registry=REGISTRY,
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
BOT_THINK = Histogram(
    "svoi_kozyri_bot_think_seconds",
    "Time a bot took to choose a move (inline, worker process or engine), by bot kind",
    ["bot"],
    registry=REGISTRY,
    buckets=(0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
ERRORS = Counter(
    "svoi_kozyri_errors",
    "Errors answered, by where (http, socket) and code",
    ["where", "code"],
    registry=REGISTRY,
)
HTTP_RESPONSES = Counter(
    "svoi_kozyri_http_responses",
    "HTTP responses, by status code",
    ["status"],
    registry=REGISTRY,
)

ACTION_KINDS = ("player", "bot", "standin", "timer", "deal", "other")
"""The ``by`` label's values: an action's ``by`` field, ``deal`` for a deal."""
_ACTIONS = {kind: ACTIONS.labels(kind) for kind in ACTION_KINDS}
_CODE = re.compile(r"[a-z][a-z0-9_]{0,39}")
"""What an error code looks like; anything else is counted as ``other`` (a label
value is never taken from a client's input, but a code is checked anyway: one
unbounded label would grow the scrape without end)."""


def count_action(by: str) -> None:
    """One action committed (``by``: :data:`ACTION_KINDS`)."""
    _ACTIONS.get(by, _ACTIONS["other"]).inc()


_ERRORS: dict[tuple[str, str], Counter] = {}
_THINK: dict[str, Histogram] = {}
"""The labelled children met so far (a dict lookup is several times quicker than
``labels()``); these and ``_RESPONSES`` stay small, their keys come from fixed sets."""


def count_error(where: str, code: str) -> None:
    """One error answered at ``where`` (``http`` or ``socket``) with ``code``."""
    child = _ERRORS.get((where, code))
    if child is None:
        if not _CODE.fullmatch(code):
            ERRORS.labels(where, "other").inc()
            return
        child = _ERRORS[(where, code)] = ERRORS.labels(where, code)
    child.inc()


_RESPONSES: dict[int, Counter] = {}


def count_response(status: int) -> None:
    """One HTTP response with ``status``."""
    child = _RESPONSES.get(status)
    if child is None:
        child = _RESPONSES[status] = HTTP_RESPONSES.labels(str(status))
    child.inc()


def observe_think(bot: str, seconds: float) -> None:
    """A bot's thinking time (``bot``: its kind, a bounded set)."""
    child = _THINK.get(bot)
    if child is None:
        child = _THINK[bot] = BOT_THINK.labels(bot)
    child.observe(seconds)


class LoopSampler:
    """Samples the event loop's lag and refreshes the gauges, every ``interval_s``.

    The lag is how late a sleep of ``interval_s`` wakes up: whatever held the loop
    meanwhile (a synchronous database call, a long computation, the garbage
    collector) delays it by as much, so every blocking episode shows up, at the cost
    of one wake-up per interval (:mod:`.loopwatch` names the culprit, at more cost).
    ``refresh`` sets the gauges that are sums over the tables, which this package
    knows nothing of; it runs on the loop and must be quick."""

    def __init__(self, refresh: Callable[[], None], interval_s: float = 1.0) -> None:
        self.refresh = refresh
        self.interval_s = interval_s
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        """Whether the sampling task is alive (readiness)."""
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start sampling (on the loop to watch)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="loop-sampler")

    async def stop(self) -> None:
        """Stop sampling.  A sampler started on another loop is left to that loop's
        own stop (one app served twice at once, as two test clients do: the
        second's start found it running and did nothing)."""
        task = self._task
        if task is None or task.get_loop() is not asyncio.get_running_loop():
            return
        self._task = None
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    def sample(self, lag_s: float) -> None:
        """Record one lag sample and refresh the gauges."""
        LOOP_LAG.observe(lag_s)
        LOOP_LAG_LAST.set(lag_s)
        try:
            self.refresh()
        except Exception:  # a metric must never stop the sampling
            log.exception("metrics refresh failed")

    async def _run(self) -> None:
        self.sample(0.0)
        while True:
            start = time.monotonic()
            await asyncio.sleep(self.interval_s)
            self.sample(max(0.0, time.monotonic() - start - self.interval_s))


def exposition() -> bytes:
    """The metrics in Prometheus's text format: this process's, or with several
    workers every worker's, merged (gauges of workers that have gone are dropped
    first, so a restarted worker is not counted twice)."""
    if _MULTIPROC is None:
        return generate_latest(REGISTRY)
    _forget_dead(_MULTIPROC)
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=_MULTIPROC)  # type: ignore[no-untyped-call]
    return generate_latest(registry)


_LIVE_FILE = re.compile(r"gauge_live\w*_(\d+)\.db")


def _forget_dead(path: str) -> None:
    """Drop the gauge files of processes that no longer exist (a worker killed
    with SIGKILL never says goodbye)."""
    for entry in os.scandir(path):
        m = _LIVE_FILE.fullmatch(entry.name)
        if m is None:
            continue
        pid = int(m.group(1))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            multiprocess.mark_process_dead(pid, path)  # type: ignore[no-untyped-call]
        except PermissionError:  # alive, somebody else's
            pass


def forget_process() -> None:
    """This worker is stopping: drop its gauges (its counts stay in the sums)."""
    if _MULTIPROC is not None:
        with contextlib.suppress(OSError):
            multiprocess.mark_process_dead(os.getpid(), _MULTIPROC)  # type: ignore[no-untyped-call]


@contextlib.contextmanager
def multiproc_dir() -> Iterator[str]:
    """The folder the worker processes keep their values in, set in
    :data:`MULTIPROC_ENV` for them (the supervisor of ``serve --workers N``, before
    it starts them).  The operator's folder if the variable is set (its value
    files, which would carry an earlier run's counts into this one, are removed),
    else a fresh temporary folder, removed afterwards."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        folder = Path(given)
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.glob("*.db"):
            old.unlink(missing_ok=True)
        yield str(folder)
        return
    made = tempfile.mkdtemp(prefix="svoi-kozyri-metrics-")
    os.environ[MULTIPROC_ENV] = made
    try:
        yield made
    finally:
        os.environ.pop(MULTIPROC_ENV, None)
        shutil.rmtree(made, ignore_errors=True)
