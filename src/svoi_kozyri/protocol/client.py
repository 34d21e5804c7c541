"""Talk to an engine process (any language) over the engine protocol.

Modelled on python-chess's ``chess.engine``: an asyncio protocol
(:class:`EngineProtocol`, started with :func:`popen_engine`) and a blocking facade
(:class:`SimpleEngine`) that runs the protocol on an event loop in a background
thread.  :meth:`EngineProtocol.play` sends one complete ``position`` (the player's
whole information state, so the engine keeps no state between moves) and a
``go`` with the :class:`Limit`, and returns a :class:`PlayResult` with the move and
the engine's ``info``.  Every wait has a time-out: an engine that does not answer
in time gets ``stop`` and a short grace, then :class:`EngineTimeoutError`.

:class:`MockTransport` replaces the process in tests: it expects given command
lines and answers with scripted lines (as ``chess.engine``'s mock does).

Illegal answers are *not* corrected here: :class:`PlayResult` carries what the
engine said (``move`` is ``None`` for an unreadable answer).  The referee is
:class:`svoi_kozyri.bots.external.ExternalAgent`.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import shlex
import threading
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..core import Move, Observation, SvoiKozyriError
from .wire import (
    PROTOCOL_VERSION,
    ProtocolError,
    check_request_length,
    format_go,
    format_position_request,
    parse_move_token,
)

T = TypeVar("T")

#: Seconds an engine gets to answer ``ske``, ``isready`` or ``stop``.
DEFAULT_TIMEOUT = 10.0
#: Seconds beyond the move time that a ``go`` may take before ``stop`` is sent.
DEFAULT_GRACE = 2.0
#: Bounds on what the client keeps, so that no engine, however broken, can make
#: the client grow without limit.  The longest line of the protocol is a position
#: request of a few kilobytes; an engine line longer than this is dropped (from
#: the point it passes the bound up to its newline).
MAX_LINE_BYTES = 1 << 20
#: Engine lines waiting to be read: lines nobody waits for are dropped anyway, so
#: when an engine floods, the oldest waiting ones go first.
MAX_PENDING_LINES = 10_000
#: Bytes written to the engine's stdin that it has not read yet; past this the
#: engine is not reading its input, and sending more is an :class:`EngineError`.
MAX_UNREAD_BYTES = 1 << 20
#: Commands remembered in :attr:`EngineProtocol.sent` (the latest ones).
MAX_SENT = 1000
#: Seconds between checks that the engine's event loop still runs.
_POLL = 0.5


class EngineError(SvoiKozyriError, RuntimeError):
    """The engine misbehaved: bad handshake, bad answer, or it is gone."""


class EngineTerminatedError(EngineError):
    """The engine process ended (crashed, or quit) while we waited for it."""


class EngineTimeoutError(EngineError, TimeoutError):
    """The engine did not answer in time."""


@dataclass(frozen=True)
class Limit:
    """How long the engine may think: ``time`` in seconds, ``nodes`` (search
    iterations, the limit that makes a search bot deterministic), or neither (the
    engine's own default).  ``infinite`` searches until :meth:`EngineProtocol.stop`."""

    time: float | None = None
    nodes: int | None = None
    infinite: bool = False

    def __post_init__(self) -> None:
        if self.time is not None and not self.time > 0:
            raise ValueError(f"Limit.time must be positive seconds, not {self.time}")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"Limit.nodes must be at least 1, not {self.nodes}")


@dataclass
class PlayResult:
    """An engine's answer to one ``go``: ``move`` (``None`` when the engine said
    ``bestmove none`` or something unreadable), ``raw`` (the token it sent), and
    ``info``: the fields of its ``info`` lines (``nodes``, ``time`` in ms, ``value``,
    ``pv`` as a list of tokens, ``string`` lines in ``strings``)."""

    move: Move | None
    raw: str
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EngineOption:
    """One ``option`` line from the handshake."""

    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    var: tuple[str, ...] = ()


def parse_info(tokens: Sequence[str], into: dict[str, Any]) -> None:
    """Merge one ``info`` line's tokens into ``into`` (unknown words ignored)."""
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "string":
            into.setdefault("strings", []).append(" ".join(tokens[i + 1 :]))
            return
        if tok == "pv":
            into["pv"] = list(tokens[i + 1 :])
            return
        if tok in ("nodes", "time", "nps", "depth") and i + 1 < len(tokens):
            with contextlib.suppress(ValueError):
                into[tok] = int(tokens[i + 1])
            i += 2
            continue
        if tok == "value" and i + 1 < len(tokens):
            with contextlib.suppress(ValueError):
                into["value"] = float(tokens[i + 1])
            i += 2
            continue
        i += 1


def _parse_option(tokens: Sequence[str]) -> EngineOption | None:
    keys = ("name", "type", "default", "min", "max", "var")
    cur: str | None = None
    vals: dict[str, list[str]] = {}
    for tok in tokens:
        if tok in keys:
            cur = tok
            vals.setdefault(tok, [])
            if tok == "var":
                vals.setdefault("_vars", []).append("")
        elif cur == "var":
            v = vals["_vars"]
            v[-1] = (v[-1] + " " + tok).strip()
        elif cur is not None:
            vals[cur].append(tok)
    if not vals.get("name"):
        return None

    def num(k: str) -> int | None:
        try:
            return int(vals[k][0]) if vals.get(k) else None
        except ValueError:
            return None

    default = " ".join(vals["default"]) if "default" in vals else None
    return EngineOption(
        name=" ".join(vals["name"]),
        type=" ".join(vals.get("type", ["string"])),
        default=default,
        min=num("min"),
        max=num("max"),
        var=tuple(vals.get("_vars", [])),
    )


class EngineProtocol(asyncio.SubprocessProtocol):
    """The client side of the protocol over an engine's stdin/stdout.

    One command at a time (an internal lock); lines the engine sends that no
    command waits for are dropped, so a late ``bestmove`` after a time-out cannot
    be mistaken for the answer to the next ``go``.
    """

    def __init__(self) -> None:
        self.transport: Any = None
        self.id: dict[str, str] = {}
        self.options: dict[str, EngineOption] = {}
        self.version: int | None = None
        self.returncode: asyncio.Future[int] | None = None
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self.sent: collections.deque[str] = collections.deque(maxlen=MAX_SENT)
        self.dropped_lines = 0
        self._lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._buffer = {1: b"", 2: b""}
        self._overlong = {1: False, 2: False}
        self._lock = asyncio.Lock()
        self._terminated = False

    # ------------------------------------------------------------------ asyncio

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Called by asyncio with the subprocess (or mock) transport."""
        self.transport = transport
        self.returncode = asyncio.get_running_loop().create_future()

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        """Split the engine's output into lines (stdout) or keep it (stderr).

        Every buffer is bounded: a partial line longer than :data:`MAX_LINE_BYTES`
        is dropped up to its newline, and past :data:`MAX_PENDING_LINES` unread
        lines the oldest are dropped (``dropped_lines`` counts both)."""
        raw = data.encode() if isinstance(data, str) else data
        buf = self._buffer.get(fd, b"") + raw
        *lines, rest = buf.split(b"\n")
        if lines and self._overlong.get(fd):
            lines.pop(0)  # the tail of a line whose start was dropped
            self._overlong[fd] = False
        if len(rest) > MAX_LINE_BYTES:
            if not self._overlong.get(fd):
                self.dropped_lines += 1
            rest = b""
            self._overlong[fd] = True
        self._buffer[fd] = rest
        for ln in lines:
            if len(ln) > MAX_LINE_BYTES:
                self.dropped_lines += 1
                continue
            text = ln.decode("utf-8", errors="replace").rstrip("\r")
            if fd == 2:
                self.stderr_tail.append(text)
            elif text.strip():
                self._put_line(text)

    def _put_line(self, text: str) -> None:
        """Queue one stdout line, dropping the oldest waiting one when full."""
        if self._lines.qsize() >= MAX_PENDING_LINES:
            oldest = self._lines.get_nowait()
            if oldest is None:  # never drop the end-of-process mark
                self._lines.put_nowait(None)
                return
            self.dropped_lines += 1
        self._lines.put_nowait(text)

    def process_exited(self) -> None:
        """The engine ended: wake every waiting command with an error."""
        self._terminated = True
        self._lines.put_nowait(None)
        code = self.transport.get_returncode() if self.transport is not None else None
        if self.returncode is not None and not self.returncode.done():
            self.returncode.set_result(-1 if code is None else code)

    # ------------------------------------------------------------------ lines

    def send_line(self, line: str) -> None:
        """Write one command line to the engine.

        A line longer than :data:`~.wire.MAX_REQUEST_LINE_BYTES` is not sent:
        :class:`~.wire.RequestTooLongError` (a :class:`ProtocolError`, not an
        :class:`EngineError`: the engine did nothing wrong)."""
        check_request_length(line)
        if self._terminated:
            raise EngineTerminatedError(f"the engine has ended{self._stderr_note()}")
        pipe = self.transport.get_pipe_transport(0)
        unread = pipe.get_write_buffer_size()
        if unread > MAX_UNREAD_BYTES:
            raise EngineError(
                f"the engine is not reading its input ({unread} bytes unread){self._stderr_note()}"
            )
        self.sent.append(line)
        pipe.write((line + "\n").encode())

    def _stderr_note(self) -> str:
        return f" (stderr: {self.stderr_tail[-1]})" if self.stderr_tail else ""

    async def _next_line(self, deadline: float) -> str:
        loop = asyncio.get_running_loop()
        left = deadline - loop.time()
        if left <= 0:
            raise EngineTimeoutError("the engine did not answer in time")
        try:
            line = await asyncio.wait_for(self._lines.get(), left)
        except TimeoutError:
            raise EngineTimeoutError("the engine did not answer in time") from None
        if line is None:
            self._lines.put_nowait(None)  # every later wait fails too
            raise EngineTerminatedError(f"the engine has ended{self._stderr_note()}")
        return line

    async def read_line(self, timeout: float = DEFAULT_TIMEOUT) -> str:
        """The engine's next line (for raw conversations such as the conformance
        test); :class:`EngineTimeoutError` after ``timeout`` seconds."""
        return await self._next_line(asyncio.get_running_loop().time() + timeout)

    def _drain(self) -> None:
        """Drop lines nobody waits for (late answers to an abandoned command)."""
        while not self._lines.empty():
            item = self._lines.get_nowait()
            if item is None:
                self._lines.put_nowait(None)
                break

    # ------------------------------------------------------------------ commands

    async def initialize(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """The handshake: ``ske 1``, then ``id``/``option`` lines up to ``skeok V``."""
        async with self._lock:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + timeout
            self.send_line(f"ske {PROTOCOL_VERSION}")
            while True:
                tokens = (await self._next_line(deadline)).split()
                if not tokens:
                    continue
                if tokens[0] == "id" and len(tokens) >= 2:
                    self.id[tokens[1]] = " ".join(tokens[2:])
                elif tokens[0] == "option":
                    opt = _parse_option(tokens[1:])
                    if opt is not None:
                        self.options[opt.name] = opt
                elif tokens[0] == "skeok":
                    try:
                        version = int(tokens[1]) if len(tokens) > 1 else 1
                    except ValueError:
                        raise EngineError(f"bad handshake answer {' '.join(tokens)!r}") from None
                    if not 1 <= version <= PROTOCOL_VERSION:
                        raise EngineError(f"the engine speaks protocol {version}, not 1")
                    self.version = version
                    return

    async def ping(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """``isready`` -> ``readyok``."""
        async with self._lock:
            await self._ping(asyncio.get_running_loop().time() + timeout)

    async def _ping(self, deadline: float) -> None:
        self._drain()
        self.send_line("isready")
        while (await self._next_line(deadline)).strip() != "readyok":
            pass

    async def configure(
        self, options: Mapping[str, object], timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        """``setoption name N value V`` for each option, then a ping."""
        async with self._lock:
            for name, value in options.items():
                if isinstance(value, bool):
                    value = "true" if value else "false"
                self.send_line(f"setoption name {name} value {value}")
            await self._ping(asyncio.get_running_loop().time() + timeout)

    async def new_hand(self) -> None:
        """``newhand``: a hint that a new hand begins (engines may clear caches)."""
        async with self._lock:
            self.send_line("newhand")

    async def play(
        self,
        obs: Observation,
        limit: Limit | None = None,
        *,
        seed: int | None = None,
        timeout: float | None = None,
        grace: float = DEFAULT_GRACE,
    ) -> PlayResult:
        """Ask for a move in ``obs`` (the engine's own seat, its turn).

        ``timeout`` (seconds; default: the limit's time plus :data:`DEFAULT_GRACE`,
        or :data:`DEFAULT_TIMEOUT`) bounds the wait for ``bestmove``; past it the
        engine gets ``stop`` and ``grace`` more seconds, then :class:`EngineTimeoutError`.
        """
        limit = limit or Limit()
        if timeout is None:
            timeout = (limit.time or 0.0) + DEFAULT_GRACE if limit.time else DEFAULT_TIMEOUT
            if limit.infinite:
                raise ValueError("an infinite search needs an explicit timeout")
        async with self._lock:
            loop = asyncio.get_running_loop()
            self._drain()
            self.send_line(format_position_request(obs))
            ms = None if limit.time is None else limit.time * 1000.0
            self.send_line(format_go(ms, limit.nodes, limit.infinite, seed))
            info: dict[str, Any] = {}
            deadline = loop.time() + timeout
            stopped = False
            while True:
                try:
                    line = await self._next_line(deadline)
                except EngineTimeoutError:
                    if stopped:
                        raise EngineTimeoutError(
                            f"the engine gave no bestmove within {timeout:g} s and "
                            f"{grace:g} s after stop"
                        ) from None
                    self.send_line("stop")
                    stopped = True
                    deadline = loop.time() + grace
                    continue
                tokens = line.split()
                if tokens[0] == "info":
                    parse_info(tokens[1:], info)
                elif tokens[0] == "bestmove":
                    raw = tokens[1] if len(tokens) > 1 else ""
                    try:
                        move: Move | None = parse_move_token(raw) if raw else None
                    except ProtocolError:
                        move = None
                    info["timed_out"] = stopped
                    return PlayResult(move, raw, info)

    async def stop(self) -> None:
        """Send ``stop`` (the running ``go`` then answers ``bestmove`` at once)."""
        self.send_line("stop")

    async def quit(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """``quit``, then wait for the process to end (killed after ``timeout``)."""
        with contextlib.suppress(EngineTerminatedError):
            self.send_line("quit")
        if timeout <= 0:
            self.kill()
        if self.returncode is not None:
            try:
                await asyncio.wait_for(asyncio.shield(self.returncode), max(timeout, 1.0))
            except TimeoutError:
                self.kill()
        with contextlib.suppress(Exception):
            self.transport.close()

    def kill(self) -> None:
        """End the engine process now."""
        with contextlib.suppress(ProcessLookupError, AttributeError):
            self.transport.kill()


def _command(command: str | Sequence[str]) -> list[str]:
    args = shlex.split(command) if isinstance(command, str) else list(command)
    if not args:
        raise ValueError("empty engine command")
    return args


async def popen_engine(
    command: str | Sequence[str],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    **popen_args: Any,
) -> tuple[asyncio.SubprocessTransport, EngineProtocol]:
    """Start ``command`` (a string split like a shell would, or an argument list)
    and do the handshake.  Raises :class:`EngineError` if it cannot start or
    does not complete the handshake in ``timeout`` seconds."""
    args = _command(command)
    loop = asyncio.get_running_loop()
    try:
        transport, protocol = await loop.subprocess_exec(EngineProtocol, *args, **popen_args)
    except OSError as e:
        raise EngineError(f"cannot start engine {args[0]!r}: {e}") from None
    try:
        await protocol.initialize(timeout)
    except EngineError:
        transport.close()
        raise
    return transport, protocol


class SimpleEngine:
    """A blocking engine: the protocol runs on an event loop in a background
    thread, and each method waits for its result (with the protocol's time-outs).

    >>> # engine = SimpleEngine.popen("svoi-kozyri engine medium")
    >>> # result = engine.play(observation, Limit(time=0.1)); engine.quit()
    """

    def __init__(self, protocol: EngineProtocol, loop: asyncio.AbstractEventLoop) -> None:
        self.protocol = protocol
        self._loop = loop
        self._closed = False

    @classmethod
    def popen(
        cls, command: str | Sequence[str], *, timeout: float = DEFAULT_TIMEOUT, **popen_args: Any
    ) -> SimpleEngine:
        """Start an engine process and do the handshake."""
        loop = _start_loop()

        async def start() -> EngineProtocol:
            _, protocol = await popen_engine(command, timeout=timeout, **popen_args)
            return protocol

        try:
            protocol = _run(loop, start(), None)
        except BaseException:
            _stop_loop(loop)
            raise
        return cls(protocol, loop)

    @classmethod
    def mock(cls, setup: Callable[[MockTransport], None] | None = None) -> SimpleEngine:
        """An engine on a :class:`MockTransport` (no process); ``setup`` scripts it
        before the handshake runs (the mock must expect ``ske 1``)."""
        loop = _start_loop()

        async def start() -> EngineProtocol:
            protocol = EngineProtocol()
            mock = MockTransport(protocol)
            if setup is not None:
                setup(mock)
            await protocol.initialize()
            return protocol

        return cls(_run(loop, start(), None), loop)

    @property
    def id(self) -> dict[str, str]:
        """The engine's ``id`` lines (``name``, ``author``)."""
        return self.protocol.id

    @property
    def options(self) -> dict[str, EngineOption]:
        """The engine's options from the handshake."""
        return self.protocol.options

    def play(
        self,
        obs: Observation,
        limit: Limit | None = None,
        *,
        seed: int | None = None,
        timeout: float | None = None,
        grace: float = DEFAULT_GRACE,
    ) -> PlayResult:
        """See :meth:`EngineProtocol.play`."""
        coro = self.protocol.play(obs, limit, seed=seed, timeout=timeout, grace=grace)
        return _run(self._loop, coro, None)

    def ping(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """See :meth:`EngineProtocol.ping`."""
        _run(self._loop, self.protocol.ping(timeout), None)

    def configure(self, options: Mapping[str, object]) -> None:
        """See :meth:`EngineProtocol.configure`."""
        _run(self._loop, self.protocol.configure(options), None)

    def new_hand(self) -> None:
        """See :meth:`EngineProtocol.new_hand`."""
        _run(self._loop, self.protocol.new_hand(), None)

    def quit(self, timeout: float = DEFAULT_TIMEOUT) -> None:
        """Ask the engine to quit, kill it if it does not, stop the loop."""
        if self._closed:
            return
        self._closed = True
        try:
            _run(self._loop, self.protocol.quit(timeout), None)
        except Exception:  # quitting never fails: whatever went wrong, kill it
            self.protocol.kill()
        finally:
            _stop_loop(self._loop)

    close = quit

    def __enter__(self) -> SimpleEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()


def _start_loop() -> asyncio.AbstractEventLoop:
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def main() -> None:
        asyncio.set_event_loop(loop)
        loop.call_soon(ready.set)
        loop.run_forever()
        # close the transports of ended processes before the loop goes away
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()

    threading.Thread(target=main, name="svoi-kozyri-engine", daemon=True).start()
    ready.wait()
    return loop


def _stop_loop(loop: asyncio.AbstractEventLoop) -> None:
    if not loop.is_closed():
        loop.call_soon_threadsafe(loop.stop)


def _run(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
    """Run ``coro`` on the engine's loop and wait for it; every protocol call has
    its own time-out, and a loop that has stopped (its thread ended) is an error
    rather than a wait for ever.

    Why ``wait`` and not ``fut.result(0.5)`` in a ``try``: since Python 3.11
    ``concurrent.futures.TimeoutError`` *is* the built-in :class:`TimeoutError`, and
    :class:`EngineTimeoutError` derives from it.  Catching it around ``result``
    mistook the coroutine's own time-out for "not done yet" and re-raised the same
    exception object in a busy loop, each raise adding frames to its traceback:
    memory grew by ~100 MB/s while waiting on a hung engine, and the call never
    returned.  ``wait`` tells "finished" and "still running" apart without raising.
    """
    if loop.is_closed() or not loop.is_running():
        coro.close()
        raise EngineTerminatedError("the engine's event loop has stopped")
    fut: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(coro, loop)
    waited = 0.0
    while True:
        done, _ = concurrent.futures.wait((fut,), timeout=_POLL)
        if done:
            return fut.result()
        waited += _POLL
        if not loop.is_running() or (timeout is not None and waited >= timeout):
            fut.cancel()
            raise EngineTerminatedError("the engine's event loop has stopped")


# --------------------------------------------------------------------------- mock


class MockTransport:
    """A stand-in for an engine process: ``expect(line, answers)`` scripts one
    command and the lines sent back; an unexpected command raises
    :class:`AssertionError` inside the protocol call; :meth:`assert_done` checks
    that every expectation was used.  ``exit()`` simulates a crash; an expected
    ``quit`` ends the mock as it would end a process."""

    def __init__(self, protocol: EngineProtocol) -> None:
        self.protocol = protocol
        self.expectations: collections.deque[tuple[str | Callable[[str], bool], list[str]]] = (
            collections.deque()
        )
        self._returncode: int | None = None
        protocol.connection_made(self)  # type: ignore[arg-type]

    def expect(self, line: str | Callable[[str], bool], answers: Iterable[str] = ()) -> None:
        """Expect the command ``line`` (or one a predicate accepts) and answer."""
        self.expectations.append((line, list(answers)))

    def assert_done(self) -> None:
        """Fail unless every expected command was sent."""
        assert not self.expectations, f"expected but not sent: {self.expectations[0][0]!r}"

    def get_pipe_transport(self, fd: int) -> MockTransport:
        """The stdin pipe is the mock itself."""
        assert fd == 0
        return self

    def write(self, data: bytes) -> None:
        """A command arrived: match it against the next expectation and answer."""
        for line in data.decode().splitlines():
            assert self.expectations, f"unexpected command {line!r}"
            want, answers = self.expectations.popleft()
            ok = want(line) if callable(want) else want == line
            assert ok, f"expected {want!r}, got {line!r}"
            loop = asyncio.get_running_loop()
            for ans in answers:
                loop.call_soon(self.protocol.pipe_data_received, 1, (ans + "\n").encode())
            if line == "quit":  # like a real engine, the mock ends after quit
                self.exit(0)

    def exit(self, code: int = 1) -> None:
        """Simulate the engine ending."""
        self._returncode = code
        asyncio.get_running_loop().call_soon(self.protocol.process_exited)

    def get_write_buffer_size(self) -> int:
        """The mock reads every command at once: nothing is left unread."""
        return 0

    def get_returncode(self) -> int | None:
        """The exit code once :meth:`exit` ran."""
        return self._returncode

    def get_pid(self) -> int:
        """No process: 0."""
        return 0

    def kill(self) -> None:
        """Killing the mock ends it."""
        if self._returncode is None:
            self.exit(-9)

    def close(self) -> None:
        """Nothing to close."""
