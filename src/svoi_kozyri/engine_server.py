"""The engine side of the protocol: any built-in bot served over stdin/stdout
(``svoi-kozyri engine BOT``).

A surface above :mod:`svoi_kozyri.bots` (it needs the bots it serves), while the
wire format and the client stay in :mod:`svoi_kozyri.protocol` below the bots,
where :mod:`svoi_kozyri.bots.external` can use them.

Why threads: the protocol requires ``isready`` and ``stop`` to be answered while
a search runs, so the main thread keeps reading commands and a worker thread
searches.  ``stop`` sets :data:`~svoi_kozyri.bots.search.common.SEARCH_STOP`, which
every search budget checks, so the search returns its best move so far at once.

The engine is stateless: every ``position`` line carries the player's whole
information state, rebuilt into an :class:`~svoi_kozyri.core.Observation` equal
to the one the bot would get in-process.  Without ``go seed`` the bot is seeded
from the request itself, so one position under one node limit always gives one
move (determinism, checked by ``svoi-kozyri engine-test``).

A ``position``, ``go`` or ``newhand`` that comes while a ``go`` runs (a search, or
``go infinite`` waiting for ``stop``) acts as ``stop`` first: the running search
sends its ``bestmove`` (for the position it searched), then the new command is
handled; so every ``go`` is answered by exactly one ``bestmove``, in order.  A
line longer than :data:`~svoi_kozyri.protocol.wire.MAX_REQUEST_LINE_BYTES` is read
in bounded pieces, ignored and reported with an ``info string error``.
"""

from __future__ import annotations

import math
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import TextIO

from . import __version__
from .bots.base import Agent
from .bots.catalogue import make_agent
from .bots.search.common import SEARCH_STOP
from .core import Move, Observation, SvoiKozyriError
from .protocol.wire import (
    MAX_REQUEST_LINE_BYTES,
    PROTOCOL_VERSION,
    GoRequest,
    format_move_token,
    parse_go,
    parse_position_request,
    request_size,
    split_keywords,
)

#: ``go infinite`` searches at most this long (ms) if no ``stop`` ever comes.
INFINITE_MS = 600_000.0
#: ... and gives the exact solver of open positions this long (ms): the solver
#: cannot be stopped, so this bounds the latency of ``stop``.
INFINITE_SOLVER_MS = 100.0


class EngineServer:
    """Serve the bot ``spec`` (a :func:`~svoi_kozyri.bots.catalogue.make_agent` string)."""

    def __init__(self, spec: str, out: TextIO) -> None:
        make_agent(spec, 0)  # a bad spec fails here, before the handshake
        self.spec = spec
        self.out = out
        self._lock = threading.Lock()
        self._obs: Observation | None = None
        self._request = ""
        self._search: threading.Thread | None = None
        self._stop_wanted = threading.Event()
        self._agents: dict[str, Agent] = {}

    # ------------------------------------------------------------------ output

    def send(self, line: str) -> None:
        """Write one line and flush (from any thread)."""
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    # ------------------------------------------------------------------ loop

    def run(self, inp: TextIO) -> None:
        """Answer commands from ``inp`` until ``quit`` or the end of input."""
        for raw in read_lines(inp):
            if raw is None:
                self.send(
                    f"info string error: a line longer than {MAX_REQUEST_LINE_BYTES} bytes "
                    "(the protocol's limit) was ignored"
                )
                continue
            if not self.handle(raw):
                break
        self._finish_search()

    def handle(self, raw: str) -> bool:
        """Handle one command line; False after ``quit``.  Unknown words before a
        command are skipped (as in UCI), unknown commands ignored."""
        tokens = raw.split()
        while tokens and tokens[0] not in _COMMANDS:
            tokens.pop(0)
        if not tokens:
            return True
        cmd = tokens[0]
        line = " ".join(tokens)
        if cmd == "quit":
            return False
        try:
            _COMMANDS[cmd](self, line)
        except SvoiKozyriError as e:
            self.send(f"info string error: {e}")
        return True

    def _ske(self, line: str) -> None:
        self.send(f"id name {self.spec} (svoi-kozyri {__version__})")
        self.send("id author the svoi-kozyri project")
        self.send(f"option name Bot type string default {self.spec}")
        self.send(f"skeok {PROTOCOL_VERSION}")

    def _isready(self, line: str) -> None:
        self.send("readyok")

    def _setoption(self, line: str) -> None:
        kw = split_keywords(line.split()[1:], {"name": None, "value": None})
        name = " ".join(kw.get("name", []))
        value = " ".join(kw.get("value", []))
        if name.lower() == "bot":
            try:
                make_agent(value, 0)
            except ValueError as e:
                self.send(f"info string error: bad Bot option: {e}")
                return
            self.spec = value
        else:
            self.send(f"info string unknown option {name!r} ignored")

    def _newhand(self, line: str) -> None:
        self._finish_search()  # a search still running answers first

    def _position(self, line: str) -> None:
        self._finish_search()  # a search still running answers (its own position) first
        req = parse_position_request(line)
        self._obs = req.obs
        self._request = line

    def _go(self, line: str) -> None:
        self._finish_search()  # a search still running answers first
        go = parse_go(line)
        obs = self._obs
        if obs is None or not obs.my_turn or not obs.legal_moves():
            self.send("info string error: go without a position in which the engine must move")
            self.send("bestmove none")
            return
        SEARCH_STOP.clear()
        self._stop_wanted.clear()
        seed = go.seed if go.seed is not None else zlib.crc32(self._request.encode())
        agent = self._agent(go)
        agent.reseed(seed)
        self._search = threading.Thread(
            target=self._think, args=(agent, obs, go), name="engine-search", daemon=True
        )
        self._search.start()

    def _stop(self, line: str) -> None:
        self._stop_wanted.set()
        SEARCH_STOP.set()

    # ------------------------------------------------------------------ search

    def _agent(self, go: GoRequest) -> Agent:
        """The bot under this ``go``'s limits: ``nodes`` become ``iterations=``,
        ``movetime`` becomes ``ms=`` (60 %) and ``solver_ms=`` (30 %), ``infinite`` a
        long ``ms=`` ended by ``stop``, for the bots that search; bots without a
        budget ignore limits."""
        tries: list[str] = []  # the options to try, most specific first
        if go.nodes is not None:
            tries = [f"iterations={go.nodes}"]
        elif go.infinite:
            tries = [f"ms={INFINITE_MS:g},solver_ms={INFINITE_SOLVER_MS:g}", f"ms={INFINITE_MS:g}"]
        elif go.movetime is not None:
            # the exact solver of open positions runs before the search: share the time
            t = float(go.movetime)
            tries = [f"ms={max(1.0, t * 0.6):g},solver_ms={max(1.0, t * 0.3):g}"]
            tries.append(f"ms={max(1.0, t * 0.9):g}")
        key = f"{self.spec}|{tries[0] if tries else ''}"
        agent = self._agents.get(key)
        if agent is None:
            sep = "," if ":" in self.spec else ":"
            for extra in tries:
                try:
                    agent = make_agent(self.spec + sep + extra, 0)
                    break
                except ValueError:  # this bot does not take these options
                    continue
            if agent is None:
                agent = make_agent(self.spec, 0)
            self._agents[key] = agent
        return agent

    def _think(self, agent: Agent, obs: Observation, go: GoRequest) -> None:
        t0 = time.perf_counter()
        move: Move | None
        try:
            move = agent.choose(obs)
        except Exception as e:  # report, then fall back to the first legal move
            self.send(f"info string error: the bot failed: {type(e).__name__}: {e}")
            move = None
        value = agent.last_value  # the bot's estimate for its own move, if it has one
        if move is None or move not in obs.legal_moves():
            move, value = obs.legal_moves()[0], None
        if go.infinite:  # UCI rule: under infinite, bestmove waits for stop
            self._stop_wanted.wait()
        # the stop flag is process-wide: clear it once this search is over, so a
        # later search in the same process (another bot, a test) is not cut short
        SEARCH_STOP.clear()
        ms = int((time.perf_counter() - t0) * 1000)
        if value is not None and not math.isnan(value):
            self.send(f"info time {ms} value {value:.4f}")
        else:
            self.send(f"info time {ms}")
        self.send(f"bestmove {format_move_token(move)}")

    def _finish_search(self) -> None:
        """Stop a running search (its bestmove is still sent) and wait for it."""
        t = self._search
        if t is not None:
            self._stop_wanted.set()
            SEARCH_STOP.set()
            t.join()
            SEARCH_STOP.clear()
            self._search = None


def read_lines(inp: TextIO) -> Iterator[str | None]:
    """The lines of ``inp`` (newline kept), or ``None`` for a line longer than
    :data:`~svoi_kozyri.protocol.wire.MAX_REQUEST_LINE_BYTES` bytes, which is read
    in bounded pieces and dropped: no line, however long, is held whole."""
    cap = MAX_REQUEST_LINE_BYTES + 2  # characters: the line, then "\r\n"
    while True:
        raw = inp.readline(cap)
        if not raw:
            return
        if len(raw) == cap and not raw.endswith("\n"):
            while raw and not raw.endswith("\n"):  # skip the rest of the line
                raw = inp.readline(cap)
            yield None
        elif request_size(raw) > MAX_REQUEST_LINE_BYTES:
            yield None
        else:
            yield raw


def _quit(self: EngineServer, line: str) -> None:
    """``quit`` is handled by the loop itself."""


_COMMANDS: dict[str, Callable[[EngineServer, str], None]] = {
    "ske": EngineServer._ske,
    "isready": EngineServer._isready,
    "setoption": EngineServer._setoption,
    "newhand": EngineServer._newhand,
    "position": EngineServer._position,
    "go": EngineServer._go,
    "stop": EngineServer._stop,
    "quit": _quit,
}


def serve(spec: str, inp: TextIO, out: TextIO) -> None:
    """Serve the bot ``spec`` on ``inp``/``out`` until ``quit`` or end of input."""
    EngineServer(spec, out).run(inp)
