"""The graceful stop of a server process: what runs between SIGTERM and the exit.

uvicorn's own shutdown, on SIGTERM, closes the listening socket (no new
connection reaches this process), closes every WebSocket with code 1012
("service restart": the browser reconnects at once, to another process), lets
the requests and socket handlers under way finish (a move being stored is
committed before its handler returns) for at most :data:`DRAIN_S` seconds, then
runs the app's shutdown.  Two things must not wait for that end:

* the table leases and the presence this process holds: another process takes
  a table's automatic actions (bots, deals, timers) only once the lease is given
  back, and a lease that merely ran out costs its players up to five seconds;
* the automatic actions themselves: a process that is leaving must not start
  new ones.

So the app registers its preparation with :func:`on_terminate`, which wraps the
signal handler uvicorn installed: on SIGTERM the preparation runs first (on the
event loop, for at most :data:`PREPARE_S` seconds), and only then is uvicorn's
handler called.  The order is the point: the leases are given back before any
socket is closed, so a player who reconnects at once to another process finds
the table free there.  ``serve --workers N``'s supervisor forwards SIGTERM to
every worker, and SIGHUP restarts the workers one by one (a rolling restart of
one host: docs/deploy.md).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Awaitable, Callable
from types import FrameType
from typing import Any

log = logging.getLogger("svoi_kozyri.server")

DRAIN_S = 10
"""The longest a stopping process waits for its requests and socket handlers
(uvicorn's ``timeout_graceful_shutdown``); then they are cancelled and it exits."""
PREPARE_S = 3.0
"""The longest the preparation may delay the server's own shutdown (a database
that does not answer must not keep a stopping process alive)."""
SIGNALS = (signal.SIGTERM, signal.SIGINT)


def on_terminate(prepare: Callable[[], Awaitable[None]]) -> Callable[[], None]:
    """On SIGTERM or SIGINT, run ``prepare()`` on the running event loop, then the
    handler already installed (uvicorn's, which starts its shutdown); returns the
    function that puts the previous handlers back.  A second signal goes
    straight to the previous handler (uvicorn: a second Ctrl-C forces the exit).

    Only the main thread can set signal handlers: elsewhere (an app run by a
    test client in a thread) nothing is installed and the stop is the plain one."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()
    previous: dict[int, Any] = {}
    started: list[asyncio.Task[None]] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        def go_on() -> None:
            before = previous.get(signum)
            if callable(before):
                before(signum, frame)

        if started:
            go_on()
            return

        def begin() -> None:
            started.append(loop.create_task(_first(prepare, go_on)))

        # a signal handler runs between two bytecodes of the loop's thread: the
        # preparation waits for the loop
        try:
            loop.call_soon_threadsafe(begin)
        except RuntimeError:  # the loop is closed already
            go_on()

    for sig in SIGNALS:
        previous[sig] = signal.getsignal(sig)
        signal.signal(sig, handler)

    def restore() -> None:
        for sig, before in previous.items():
            if signal.getsignal(sig) is handler:
                signal.signal(sig, before)

    return restore


async def _first(prepare: Callable[[], Awaitable[None]], then: Callable[[], None]) -> None:
    """``prepare()`` (bounded, never raising), then ``then()`` whatever happened."""
    try:
        await asyncio.wait_for(prepare(), PREPARE_S)
    except Exception:
        log.exception("draining before the stop failed")
    finally:
        then()
