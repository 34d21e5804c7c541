"""External engines as bots: ``engine:CMD`` plays through the engine protocol.

Why a referee here: an engine is somebody else's program.  Every answer is
checked against the legal moves of the observation; an engine that crashes,
hangs past its time-out, or answers with an illegal or unreadable move loses
that move to the *default action* (the easy level's move, computed from the
same observation) and the hand goes on.  A crashed engine is restarted for its
next move.  ``failures`` counts what went wrong, for reports.

Only the player's own observation is sent, so an engine never learns a hidden
card.  Options (``engine:CMD`` with CMD a shell-like command line) are given to
:class:`ExternalAgent` directly or through the bot catalogue.
"""

from __future__ import annotations

import atexit
import collections
import contextlib
import logging
import re
import shutil
import threading
from typing import TYPE_CHECKING, Any, ClassVar

from ..core import Move, Observation
from .base import Agent
from .basic import GreedyAgent

if TYPE_CHECKING:  # the protocol layer is imported on first use (it is not small)
    from ..protocol.client import SimpleEngine

#: The bot kind prefix: ``engine:./my-engine --fast``.
ENGINE_PREFIX = "engine:"
#: Failures reported on stderr per engine command and process; later ones are counted.
MAX_WARNINGS = 3

log = logging.getLogger("svoi_kozyri.engine")

# Engine processes shared by every agent of this process with the same command:
# the protocol is stateless, so one process can play every seat, and starting a
# process (hundreds of milliseconds for a Python engine) happens once per worker,
# not once per arena batch and seat.  A process that misbehaves is killed and
# dropped, and the next move starts a fresh one.
_SHARED: dict[str, SimpleEngine] = {}
_SHARED_LOCK = threading.Lock()
_WARNED: collections.Counter[str] = collections.Counter()


def close_shared_engines() -> None:
    """Quit every shared engine process (also run at interpreter exit)."""
    with _SHARED_LOCK:
        engines = list(_SHARED.values())
        _SHARED.clear()
    for engine in engines:
        with contextlib.suppress(Exception):
            engine.quit(timeout=2.0)


atexit.register(close_shared_engines)


class ExternalAgent(Agent):
    """A bot played by an engine process speaking the engine protocol.

    ``command``: the engine's command line; ``movetime_ms``/``nodes``: the limit
    sent with every ``go`` (default: the engine's own); ``timeout``: seconds to
    wait for a move before ``stop`` (default: the move time plus a grace), and
    ``grace``: seconds after ``stop`` before the engine is given up and killed;
    ``shared``: use this process's one engine process for the command (else a
    private one, quit by :meth:`close`).
    """

    name: ClassVar[str] = "engine"

    def __init__(
        self,
        command: str,
        seed: int | None = None,
        movetime_ms: float | None = None,
        nodes: int | None = None,
        timeout: float | None = None,
        grace: float | None = None,
        label: str | None = None,
        shared: bool = True,
    ) -> None:
        super().__init__(seed)
        from ..protocol.client import Limit, _command

        args = _command(command)  # ValueError for an empty or unbalanced command
        if shutil.which(args[0]) is None:
            raise ValueError(f"engine command not found: {args[0]!r} (in {command!r})")
        self.command = command
        self.limit = Limit(
            time=None if movetime_ms is None else movetime_ms / 1000.0,
            nodes=nodes,
        )
        self.timeout = timeout
        self.grace = grace
        self._label = label
        self._fallback = GreedyAgent(seed)
        self.shared = shared
        self._engine: SimpleEngine | None = None
        self.failures: collections.Counter[str] = collections.Counter()
        self.last_error: str | None = None

    def reseed(self, seed: int | None) -> None:
        """Reset the random stream (the seeds sent with ``go`` come from it)."""
        super().reseed(seed)
        self._fallback.reseed(seed)

    def label(self) -> str:
        """``engine:CMD`` or the name it was configured under."""
        return self._label or f"{ENGINE_PREFIX}{self.command}"

    def _start(self) -> SimpleEngine:
        from ..protocol.client import SimpleEngine

        if self.shared:  # looked up every time: another agent may have replaced it
            with _SHARED_LOCK:
                engine = _SHARED.get(self.command)
                if engine is None:
                    engine = _SHARED[self.command] = SimpleEngine.popen(self.command)
            self._engine = engine
        elif self._engine is None:
            self._engine = SimpleEngine.popen(self.command)
        return self._engine

    def choose(self, obs: Observation) -> Move:
        """The engine's move if it is legal, else the default action."""
        from ..protocol.client import EngineError
        from ..protocol.wire import RequestTooLongError

        legal = obs.legal_moves()
        seed = self.rng.getrandbits(31)
        self.last_value = None
        try:
            engine = self._start()
            if self.grace is None:
                result = engine.play(obs, self.limit, seed=seed, timeout=self.timeout)
            else:
                result = engine.play(
                    obs, self.limit, seed=seed, timeout=self.timeout, grace=self.grace
                )
        except RequestTooLongError as e:  # nothing was sent: the engine stays
            self.failures["too_long"] += 1
            self.last_error = f"{type(e).__name__}: {e}"
            self._warn(obs)
            return self.default_action(obs)
        except (EngineError, OSError, ValueError) as e:
            kind = type(e).__name__
            self.failures["timeout" if "Timeout" in kind else "crash"] += 1
            self.last_error = f"{kind}: {e}"
            self.close(kill=True)  # a fresh process for the next move
            self._warn(obs)
            return self.default_action(obs)
        if result.move is None or result.move not in legal:
            self.failures["illegal"] += 1
            self.last_error = f"illegal or unreadable move {result.raw!r}"
            self._warn(obs)
            return self.default_action(obs)
        value = result.info.get("value")
        if isinstance(value, float) and 0.0 <= value <= 1.0:
            self.last_value = value  # the engine's own estimate (``info value``)
        return result.move

    def _warn(self, obs: Observation) -> None:
        """Say what went wrong on stderr (the first few times per command in this
        process), so the author of an engine sees it; later failures are only counted."""
        with _SHARED_LOCK:
            _WARNED[self.command] += 1
            total = _WARNED[self.command]
        if total <= MAX_WARNINGS:
            from ..protocol.wire import MAX_REQUEST_LINE_BYTES, format_position_request

            more = " (further failures are only counted)" if total == MAX_WARNINGS else ""
            request = format_position_request(obs)
            if len(request) > MAX_REQUEST_LINE_BYTES:  # too long to send: its start will do
                request = request[:2000] + f"... ({len(request)} characters)"
            log.warning(
                "%s: %s; the default action was played instead%s. Position: %s",
                self.label(),
                self.last_error,
                more,
                request,
            )

    def default_action(self, obs: Observation) -> Move:
        """The move played for a failed engine: the easy level's choice."""
        return self._fallback.choose(obs)

    def close(self, kill: bool = False) -> None:
        """Let go of the engine process: a private one is quit, a shared one stays
        for the other agents unless ``kill`` (a misbehaving engine: killed at once
        and dropped).  A later move starts a new one."""
        engine, self._engine = self._engine, None
        if engine is None:
            return
        if self.shared:
            if not kill:
                return
            with _SHARED_LOCK:
                if _SHARED.get(self.command) is engine:
                    del _SHARED[self.command]
        with contextlib.suppress(Exception):
            engine.quit(timeout=0.0 if kill else 2.0)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


_SPEC_OPTION = re.compile(r"(movetime|nodes|timeout)=([0-9]+(?:\.[0-9]*)?):")


def make_external(spec: str, seed: int | None = None, **options: Any) -> ExternalAgent:
    """Build an :class:`ExternalAgent` from ``engine:CMD`` or, with limits,
    ``engine:movetime=200:CMD``, ``engine:nodes=500:timeout=5:CMD`` (``movetime``
    in ms, ``timeout`` in seconds; each option ends with a colon)."""
    if not spec.lower().startswith(ENGINE_PREFIX):
        raise ValueError(f"an engine bot is written {ENGINE_PREFIX}COMMAND, not {spec!r}")
    rest = spec[len(ENGINE_PREFIX) :].strip()
    while (m := _SPEC_OPTION.match(rest)) is not None:
        key, value = m.group(1), float(m.group(2))
        if key == "movetime":
            options["movetime_ms"] = value
        elif key == "nodes":
            options["nodes"] = int(value)
        else:
            options["timeout"] = value
        rest = rest[m.end() :].strip()
    if not rest:
        raise ValueError("engine: needs a command, e.g. engine:./my-engine")
    return ExternalAgent(rest, seed=seed, **options)


def engine_agent(argument: str, seed: int | None = None) -> ExternalAgent:
    """The catalogue's factory for the ``engine`` kind: ``argument`` is the text
    after ``engine:`` (limits, then the command)."""
    return make_external(ENGINE_PREFIX + argument, seed)
