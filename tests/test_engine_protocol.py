"""The engine protocol: wire format round trips (the request is a player's whole
information state and nothing more), the built-in server, the client library on a
mock transport and on real processes, the referee for misbehaving engines, the
arena with engine bots, and the conformance command."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import random
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import pick_move, random_hand, random_options
from svoi_kozyri.arena import run_arena
from svoi_kozyri.bots import make_agent
from svoi_kozyri.bots.external import ExternalAgent
from svoi_kozyri.cli.main import app
from svoi_kozyri.core import NUM_CARDS, Game, Move, Rules, format_card, observe
from svoi_kozyri.protocol import (
    EngineError,
    EngineTerminatedError,
    EngineTimeoutError,
    Limit,
    MockTransport,
    ProtocolError,
    SimpleEngine,
    format_move_token,
    format_position_request,
    parse_move_token,
    parse_position_request,
)
from svoi_kozyri.protocol.conformance import fixed_positions, run_conformance, with_future_field
from svoi_kozyri.protocol.wire import (
    MAX_REQUEST_LINE_BYTES,
    RequestTooLongError,
    parse_go,
)

ROOT = Path(__file__).resolve().parent.parent
AWK_ENGINE = str(ROOT / "examples" / "engines" / "lowcard.sh")
SERVED = f"{sys.executable} -m svoi_kozyri.cli.main engine"


def _observations(count: int, seed: int) -> list:
    rng = random.Random(seed)
    out = []
    for k in range(count):
        state = random_hand(random_options(rng), seed * 1000 + k)
        for _ in range(rng.randrange(0, 30)):
            if state.is_over:
                break
            state.push(pick_move(state, rng))
        if not state.is_over:
            out.append((state, observe(state, state.to_act)))
    return out


# --------------------------------------------------------------------------- wire


def test_every_move_token_round_trips() -> None:
    moves = {Move.get(None, None)}
    for c in range(NUM_CARDS):
        moves.add(Move.get(None, c))
        moves.add(Move.get(c, None))
        for d in range(0, NUM_CARDS, 7):
            if d != c:
                moves.add(Move.get(c, d))
    for m in moves:
        tok = format_move_token(m)
        assert " " not in tok and "10" not in tok
        assert parse_move_token(tok) == m
        assert parse_move_token(str(m)) == m  # the ordinary notation is read too
    with pytest.raises(ProtocolError):
        parse_move_token("lead-XX")


def test_position_request_round_trips_to_the_same_observation() -> None:
    seen = 0
    for _state, obs in _observations(60, seed=3):
        line = format_position_request(obs)
        req = parse_position_request(line)
        assert req.obs == obs, line
        assert req.obs.log == obs.log
        assert list(req.legal) == obs.legal_moves()
        assert format_position_request(req.obs) == line
        seen += 1
    assert seen >= 40


def test_position_request_hides_every_unknown_card() -> None:
    """No card of another hand that the player cannot know appears anywhere in the
    request (its hands field shows only counts for them)."""
    checked = 0
    for state, obs in _observations(60, seed=5):
        if state.rules.is_besicovitch:
            continue
        line = format_position_request(obs)
        for other in range(state.n):
            if other == obs.seat:
                continue
            secret = state.hands[other] & ~obs.known[other]
            for c in range(NUM_CARDS):
                if secret >> c & 1:
                    assert format_card(c, ten="T") not in line, (line, format_card(c))
                    checked += 1
    assert checked > 100


def test_unknown_position_keywords_and_go_words_are_skipped() -> None:
    obs = fixed_positions(1)[0]
    line = format_position_request(obs)
    assert parse_position_request(line.replace(" legal", " future 1 2 beat-XX legal")).obs == obs
    assert parse_position_request(line.replace("legal", "newfield a b legal")).obs == obs
    # after ``legal`` (always the last field) every word is a move
    with pytest.raises(ProtocolError, match="last field"):
        parse_position_request(line + " future 1 2")
    go = parse_go("go movetime 30 ponder nodes 200 seed 4 infinite")
    assert (go.movetime, go.nodes, go.seed, go.infinite) == (30, 200, 4, True)
    with pytest.raises(ProtocolError):
        parse_go("go nodes many")
    with pytest.raises(ProtocolError):
        parse_position_request("position seat A")


# --------------------------------------------------------------------------- mock


def _handshake(mock: MockTransport) -> None:
    mock.expect(
        "ske 1", ["id name mock", "option name Depth type spin default 3 min 1 max 9", "skeok 1"]
    )


def test_simple_engine_on_a_mock_transport() -> None:
    obs = fixed_positions(3)[2]
    legal = obs.legal_moves()
    mocks: list[MockTransport] = []

    def setup(mock: MockTransport) -> None:
        mocks.append(mock)
        _handshake(mock)
        mock.expect("isready", ["readyok"])
        mock.expect(format_position_request(obs))
        mock.expect(
            "go movetime 100 seed 7",
            [
                "info nodes 321 time 90 value 0.75 pv x y",
                "info string hello there",
                f"bestmove {format_move_token(legal[-1])}",
            ],
        )
        mock.expect("quit")

    engine = SimpleEngine.mock(setup)
    try:
        assert engine.id["name"] == "mock"
        assert engine.options["Depth"].max == 9
        engine.ping()
        res = engine.play(obs, Limit(time=0.1), seed=7)
        assert res.move == legal[-1]
        assert res.info["nodes"] == 321 and res.info["value"] == 0.75
        assert res.info["pv"] == ["x", "y"] and res.info["strings"] == ["hello there"]
    finally:
        engine.quit(timeout=0.1)
    mocks[0].assert_done()


def test_client_time_out_sends_stop_then_gives_up() -> None:
    obs = fixed_positions(1)[0]

    async def main() -> None:
        from svoi_kozyri.protocol.client import EngineProtocol

        protocol = EngineProtocol()
        mock = MockTransport(protocol)
        _handshake(mock)
        await protocol.initialize()
        # answers only after stop: the result is flagged as timed out
        mock.expect(lambda ln: ln.startswith("position"))
        mock.expect("go nodes 5")
        mock.expect("stop", ["bestmove pickup"])
        res = await protocol.play(obs, Limit(nodes=5), timeout=0.05, grace=0.2)
        assert res.raw == "pickup" and res.info["timed_out"]
        # never answers: EngineTimeoutError after the grace
        mock.expect(lambda ln: ln.startswith("position"))
        mock.expect("go nodes 5")
        mock.expect("stop")
        with pytest.raises(EngineTimeoutError):
            await protocol.play(obs, Limit(nodes=5), timeout=0.05, grace=0.05)
        # a late bestmove is dropped, not taken as the next answer
        protocol.pipe_data_received(1, b"bestmove lead-AS\n")
        mock.expect("isready", ["readyok"])
        await protocol.ping()
        mock.expect(lambda ln: ln.startswith("position"))
        mock.expect("go nodes 5")
        mock.exit(3)
        with pytest.raises(EngineTerminatedError):
            await protocol.play(obs, Limit(nodes=5), timeout=1.0)
        mock.assert_done()

    asyncio.run(main())


def test_mock_refuses_an_unexpected_command() -> None:
    async def main() -> None:
        from svoi_kozyri.protocol.client import EngineProtocol

        protocol = EngineProtocol()
        mock = MockTransport(protocol)
        mock.expect("isready", ["readyok"])
        with pytest.raises(AssertionError):
            await protocol.initialize(timeout=0.1)

    asyncio.run(main())


# --------------------------------------------------------------------------- real engines


def test_served_bot_plays_like_the_bot_itself() -> None:
    """Over the protocol the bot gets an observation equal to its own, so with the
    same seed it makes the same move as in-process."""
    with SimpleEngine.popen(f"{SERVED} ismcts:iterations=30") as engine:
        assert engine.id["name"].startswith("ismcts")
        for i, obs in enumerate(fixed_positions(6)):
            res = engine.play(obs, Limit(nodes=30), seed=100 + i)
            local = make_agent("ismcts:iterations=30", seed=100 + i).choose(obs)
            assert res.move == local
            assert "time" in res.info


def test_popen_of_a_missing_command_is_an_engine_error() -> None:
    with pytest.raises(EngineError):
        SimpleEngine.popen("/nonexistent/engine-binary")
    with pytest.raises(ValueError, match="not found"):
        make_agent("engine:/nonexistent/engine-binary")


def _script(tmp_path: Path, name: str, body: str) -> str:
    """A tiny Python engine for the referee tests: handshake and isready always
    work; ``body`` handles ``go`` (``legal`` holds the legal tokens)."""
    path = tmp_path / f"{name}.py"
    path.write_text(
        textwrap.dedent(
            """\
            import sys, os, time
            legal = []
            for line in sys.stdin:
                w = line.split()
                if not w:
                    continue
                if w[0] == "ske":
                    print("id name test"); print("skeok 1", flush=True)
                elif w[0] == "isready":
                    print("readyok", flush=True)
                elif w[0] == "position":
                    legal = w[w.index("legal") + 1:] if "legal" in w else []
                elif w[0] == "go":
            """
        )
        + textwrap.indent(textwrap.dedent(body), " " * 8)
        + "        sys.stdout.flush()\n"
        + "    elif w[0] == 'quit':\n        break\n"
    )
    return f"{sys.executable} {path}"


def _play_hand(seat0: ExternalAgent, seed: int = 1) -> tuple[int, int]:
    """One two-player hand, the engine in seat A against the easy level; returns
    (turns, moves the engine was asked for)."""
    state = Game(Rules(num_players=2)).new_hand(0, random.Random(seed))
    other = make_agent("easy", seed=seed)
    asked = 0
    while not state.is_over:
        seat = state.to_act
        obs = observe(state, seat)
        if seat == 0:
            asked += 1
            move = seat0.choose(obs)
        else:
            move = other.choose(obs)
        state.push(move, seat)  # the referee's move is always legal
    return state.turns, asked


@pytest.mark.parametrize(
    ("name", "body", "failure"),
    [
        ("illegal", "print('bestmove lead-5S')\n", "illegal"),
        ("garbage", "print('bestmove ???')\n", "illegal"),
        ("crash", "sys.exit(3)\n", "crash"),
    ],
)
def test_misbehaving_engine_loses_its_move_and_the_hand_goes_on(
    tmp_path: Path, name: str, body: str, failure: str
) -> None:
    agent = ExternalAgent(_script(tmp_path, name, body), seed=1, timeout=5.0)
    try:
        turns, asked = _play_hand(agent)
    finally:
        agent.close()
    assert turns > 0 and asked > 0
    assert agent.failures[failure] == asked
    assert agent.last_error is not None


class MemoryGrowthError(Exception):
    """Raised in the test's thread by :func:`_memory_guard` when memory runs away."""


def _rss_kib() -> int:
    """This process's resident memory in KiB (Linux ``/proc``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


@contextlib.contextmanager
def _memory_guard(limit_mib: int, seconds: float) -> Iterator[None]:
    """Fail the test (not the machine) if this process grows by more than
    ``limit_mib`` or the block runs past ``seconds``: a watchdog thread raises
    :class:`MemoryGrowthError` asynchronously in the test's thread, which stops a
    runaway Python loop such as the one that once grew by ~100 MB/s here."""
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc to watch memory")
    target = threading.get_ident()
    start, t0 = _rss_kib(), time.monotonic()
    done = threading.Event()
    tripped: list[str] = []

    def watch() -> None:
        while not done.wait(0.05):
            grown = (_rss_kib() - start) // 1024
            late = time.monotonic() - t0 > seconds
            if grown > limit_mib or late:
                tripped.append(f"grew {grown} MiB in {time.monotonic() - t0:.1f} s")
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(target), ctypes.py_object(MemoryGrowthError)
                )
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    except MemoryGrowthError:
        pytest.fail(f"memory guard: {tripped[0] if tripped else 'tripped'}")
    finally:
        done.set()
        watcher.join()


def test_hanging_engine_loses_its_move_then_is_restarted(tmp_path: Path) -> None:
    marker = tmp_path / "hung"
    body = f"""\
        if not os.path.exists({str(marker)!r}):
            open({str(marker)!r}, "w").close()
            time.sleep(60)
        print("bestmove " + legal[0])
        """
    agent = ExternalAgent(_script(tmp_path, "hang", body), seed=1, timeout=1.0, grace=0.3)
    try:
        with _memory_guard(limit_mib=200, seconds=30.0):
            _turns, asked = _play_hand(agent)
    finally:
        agent.close()
    assert agent.failures["timeout"] == 1
    assert asked > 1 and sum(agent.failures.values()) == 1  # the new process answers


_WAIT_ON_HUNG_ENGINE = """\
import resource, sys, threading, time
from svoi_kozyri.core import Game, Rules, observe
from svoi_kozyri.protocol import EngineTimeoutError, Limit, SimpleEngine

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])

state = Game(Rules(num_players=2)).new_hand(0, 1)
engine = SimpleEngine.popen(sys.argv[1])
start, peak, stop = rss(), [0], threading.Event()

def sample():
    while not stop.wait(0.02):
        peak[0] = max(peak[0], rss())

threading.Thread(target=sample, daemon=True).start()
t0 = time.monotonic()
try:
    engine.play(observe(state, state.to_act), Limit(), timeout=1.5, grace=0.5)
    print("no time-out")
except EngineTimeoutError:
    pass
waited = time.monotonic() - t0
stop.set()
engine.quit(timeout=0.0)
print(f"waited {waited:.2f} grown_kib {max(peak[0], rss()) - start}")
"""


def test_waiting_on_a_hung_engine_keeps_memory_bounded_and_times_out(tmp_path: Path) -> None:
    """Regression: the client once re-raised the engine's own time-out in a busy
    loop (``EngineTimeoutError`` is a ``TimeoutError``, which the wait loop took for
    "not done yet"), growing ~100 MB/s for ever.  Run in a child process with an
    address-space limit and a wall-clock limit, so that a regression fails this
    test instead of taking the machine's memory."""
    engine = tmp_path / "deaf.py"
    engine.write_text(
        "import sys, time\n"
        "for line in sys.stdin:\n"
        "    if line.startswith('ske'):\n"
        "        print('skeok 1', flush=True)\n"
        "    elif line.startswith('go'):\n"
        "        time.sleep(60)  # hangs, reading nothing more\n"
    )
    script = tmp_path / "wait.py"
    script.write_text(_WAIT_ON_HUNG_ENGINE)
    limit = 1 << 30  # 1 GiB of address space; the child needs about 300 MiB

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    out = tmp_path / "out.txt"
    with out.open("w") as sink:
        # its own process group, so that on a time-out the child and the engine
        # it started are killed together (a pipe held by the engine would keep
        # a plain ``run(timeout=...)`` waiting)
        child = subprocess.Popen(
            [sys.executable, str(script), f"{sys.executable} {engine}"],
            stdout=sink,
            stderr=subprocess.STDOUT,
            preexec_fn=cap,
            start_new_session=True,
        )
        try:
            code = child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            pytest.fail("the client did not return within 30 s of waiting on a hung engine")
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)  # the engine, if still there
    text = out.read_text()
    assert code == 0, text[-2000:]
    proc = subprocess.CompletedProcess(child.args, code, text)
    words = proc.stdout.split()
    waited, grown_kib = float(words[1]), int(words[3])
    assert 1.9 <= waited < 10.0, proc.stdout  # time-out 1.5 s + grace 0.5 s, then it returns
    assert grown_kib < 20 * 1024, proc.stdout  # it was gigabytes


def test_client_buffers_are_bounded() -> None:
    """However an engine misbehaves, the client keeps a bounded amount: an
    endless line is dropped up to its newline, a flood of unread lines keeps only
    the newest, and the command log keeps the latest commands."""
    from svoi_kozyri.protocol import client

    proto = client.EngineProtocol()
    chunk = b"x" * (1 << 16)
    for _ in range((client.MAX_LINE_BYTES >> 16) + 8):  # more than the bound, no newline
        proto.pipe_data_received(1, chunk)
        assert len(proto._buffer[1]) <= client.MAX_LINE_BYTES + len(chunk)
    proto.pipe_data_received(1, b"still the long line\nbestmove pickup\n")
    assert proto._lines.qsize() == 1 and proto._lines.get_nowait() == "bestmove pickup"
    assert proto.dropped_lines == 1
    proto.pipe_data_received(1, b"info nodes 1\n" * (client.MAX_PENDING_LINES + 500))
    assert proto._lines.qsize() == client.MAX_PENDING_LINES
    proto.pipe_data_received(2, b"e" * (client.MAX_LINE_BYTES + 10))
    assert len(proto._buffer[2]) == 0 and not proto.stderr_tail


def test_client_stops_writing_to_an_engine_that_does_not_read(tmp_path: Path) -> None:
    """An engine that never reads its input cannot make the client buffer
    without bound: past ``MAX_UNREAD_BYTES`` unread, sending is an EngineError."""
    from svoi_kozyri.protocol import client

    deaf = tmp_path / "deaf.py"
    deaf.write_text(
        "import sys, time\nsys.stdin.readline()\nprint('skeok 1', flush=True)\ntime.sleep(60)\n"
    )

    async def flood() -> int:
        transport, proto = await client.popen_engine([sys.executable, str(deaf)], timeout=10.0)
        sent = 0
        try:
            with pytest.raises(EngineError, match="not reading its input"):
                for _ in range(10_000):
                    proto.send_line("isready " + "x" * 4000)
                    sent += 1
                    await asyncio.sleep(0)  # let the loop write what the pipe takes
        finally:
            proto.kill()
            transport.close()
        return sent

    sent = asyncio.run(flood())
    assert 100 < sent < 2000  # 1 MiB of asyncio buffer plus the pipe, then refused


def test_arena_with_engine_seats_is_reproducible() -> None:
    spec = f"engine:{AWK_ENGINE}"
    a = run_arena([spec, "medium"], hands=4, seed=3, workers=1)
    b = run_arena([spec, "medium"], hands=4, seed=3, workers=1)
    assert a.hands == 4 and spec in a.bots
    assert [o.loser for o in a.outcomes] == [o.loser for o in b.outcomes]


# --------------------------------------------------------------------------- conformance


def test_conformance_passes_on_the_example_and_a_served_bot() -> None:
    for command in (AWK_ENGINE, f"{SERVED} medium"):
        report = run_conformance(command, positions=12, timeout=5.0)
        assert report.ok, [c.line() for c in report.checks]
        names = [c.name for c in report.checks]
        assert "stop latency" in names and "deterministic under a node limit" in names
        assert "newhand" in names


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_node_example_engine_conforms_and_plays() -> None:
    command = f"node {ROOT / 'examples' / 'engines' / 'greedy.js'}"
    report = run_conformance(command, positions=12, timeout=5.0)
    assert report.ok and not [c for c in report.checks if c.status == "WARN"]
    arena = run_arena([f"engine:{command}", "medium"], hands=4, seed=2, workers=1)
    assert arena.bots[f"engine:{command}"].replaced == 0


def test_conformance_fails_clearly_on_broken_engines(tmp_path: Path) -> None:
    illegal = _script(tmp_path, "illegal", "print('bestmove lead-5S')\n")
    report = run_conformance(illegal, positions=5, timeout=2.0)
    assert not report.ok
    bad = next(c for c in report.checks if c.name == "legal moves")
    assert bad.status == "FAIL" and "lead-5S" in bad.detail
    mute = tmp_path / "mute.py"
    mute.write_text("import sys\nfor line in sys.stdin: pass\n")
    report = run_conformance(f"{sys.executable} {mute}", positions=5, timeout=0.5)
    assert not report.ok and report.checks[0].name == "handshake"
    assert "did not answer" in report.checks[0].detail


def test_cli_engine_and_engine_test() -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["engine", "nosuchbot"])
    assert res.exit_code == 2 and "unknown bot" in res.output
    res = runner.invoke(app, ["engine", "medium"], input="ske 1\nisready\nquit\n")
    assert res.exit_code == 0
    assert res.output.splitlines()[-2:] == ["skeok 1", "readyok"]
    res = runner.invoke(app, ["engine-test", AWK_ENGINE, "--positions", "5"])
    assert res.exit_code == 0, res.output
    assert "the engine conforms" in res.output


def test_search_stop_ends_a_long_search_with_a_legal_move() -> None:
    """``stop`` reaches a running search through SEARCH_STOP (the served bots'
    stop latency); cleared again, searches run normally."""
    import threading
    import time

    from svoi_kozyri.bots.search.common import SEARCH_STOP, Budget

    obs = max(fixed_positions(20), key=lambda o: len(o.legal_moves()))
    agent = make_agent("ismcts:ms=60000,solver_ms=20", seed=1)
    timer = threading.Timer(0.3, SEARCH_STOP.set)
    timer.start()
    try:
        t0 = time.perf_counter()
        move = agent.choose(obs)
        assert time.perf_counter() - t0 < 10.0
        assert move in obs.legal_moves()
        assert Budget(iterations=5).done(1)  # once set, every budget is done
    finally:
        timer.cancel()
        SEARCH_STOP.clear()
    assert not Budget(iterations=5).done(1)


def test_engine_spec_limits() -> None:
    agent = make_agent(f"engine:movetime=150:timeout=4:{AWK_ENGINE}")
    assert isinstance(agent, ExternalAgent)
    assert agent.limit == Limit(time=0.15) and agent.timeout == 4.0
    assert agent.command == AWK_ENGINE
    agent = make_agent(f"engine:nodes=300:{AWK_ENGINE}")
    assert isinstance(agent, ExternalAgent) and agent.limit == Limit(nodes=300)
    with pytest.raises(ValueError, match="needs a command"):
        make_agent("engine:nodes=3:")


def test_agents_of_one_command_share_a_process_and_its_replacement(tmp_path: Path) -> None:
    """Two seats played by one engine command use one process; when one seat's
    engine is killed for misbehaving, the other seat uses the new process
    without a failure of its own."""
    marker = tmp_path / "once"
    body = f"""\
        if not os.path.exists({str(marker)!r}):
            open({str(marker)!r}, "w").close()
            print("bestmove lead-5S")
            sys.exit(1)
        print("bestmove " + legal[0])
        """
    command = _script(tmp_path, "once", body)
    a = ExternalAgent(command, seed=1)
    b = ExternalAgent(command, seed=2)
    obs = fixed_positions(1)[0]
    try:
        a.choose(obs)  # illegal answer, and the process ends
        assert a.failures["illegal"] == 1
        first = a.choose(obs)  # the process is gone: a crash, it is replaced
        assert first in obs.legal_moves()
        assert b.choose(obs) == obs.legal_moves()[0]
        assert not b.failures and a.failures["crash"] == 1
        assert a.choose(obs) == obs.legal_moves()[0]
        assert a._engine is b._engine and sum(a.failures.values()) == 2
    finally:
        a.close(kill=True)
        b.close()


def test_engine_is_a_catalogue_kind() -> None:
    from svoi_kozyri.bots.catalogue import KINDS, BotSpecError, split_specs, validate_spec

    kind = KINDS["engine"]
    assert kind.free_argument and not kind.listed
    assert split_specs(f"engine:{AWK_ENGINE} --x a,b,medium,random") == [
        f"engine:{AWK_ENGINE} --x a,b",
        "medium",
        "random",
    ]
    assert validate_spec(f"engine:nodes=5:{AWK_ENGINE}") == f"engine:nodes=5:{AWK_ENGINE}"
    with pytest.raises(BotSpecError, match="not found"):
        validate_spec("engine:/no/such/engine")
    with pytest.raises(BotSpecError):
        validate_spec("engine:")


def test_arena_counts_and_reports_replaced_engine_moves(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    spec = "engine:" + _script(tmp_path, "bad", "print('bestmove lead-5S')\n")
    with caplog.at_level("WARNING", logger="svoi_kozyri.engine"):
        report = run_arena([spec, "easy"], hands=2, seed=1, workers=1)
    st = report.bots[spec]
    assert st.replaced > 0 and st.to_dict()["replaced_moves"] == st.replaced
    assert report.bots["easy"].replaced == 0
    assert sum(sum(o.replaced) for o in report.outcomes) == st.replaced
    warned = [r for r in caplog.records if "illegal or unreadable move 'lead-5S'" in r.message]
    assert 1 <= len(warned) <= 3 and "position seat" in warned[0].message


def test_served_engine_survives_bad_requests() -> None:
    """A malformed position is reported as an info string and changes nothing; a go
    without a position answers bestmove none; unknown words before a command are
    skipped (as in UCI)."""
    obs = fixed_positions(1)[0]
    good = format_position_request(obs)
    lines = [
        "ske 1",
        "position seat Z pos nonsense",
        "go nodes 5",
        "debug on isready",
        good.replace("legal", "legal lead-XX"),
        good,
        "go nodes 5 seed 3",
        "isready",
        "quit",
    ]
    res = CliRunner().invoke(app, ["engine", "medium"], input="\n".join(lines) + "\n")
    out = res.output.splitlines()
    assert res.exit_code == 0
    errors = [ln for ln in out if ln.startswith("info string error")]
    assert len(errors) >= 2
    best = [ln.split()[1] for ln in out if ln.startswith("bestmove")]
    assert best[0] == "none"
    assert parse_move_token(best[1]) in obs.legal_moves()
    assert out.count("readyok") == 2


def test_the_engines_value_reaches_the_referee() -> None:
    """A served search bot sends ``info value`` (its estimate for the move it
    chose); the ExternalAgent keeps it as ``last_value``, so self-play data with an
    engine seat has values too.  A served bot without an estimate sends none."""
    obs = next(
        o for _s, o in _observations(40, seed=11) if len(o.legal_moves()) > 2 and len(o.hands) > 2
    )
    search = ExternalAgent(f"{SERVED} pimc:rollout_turns=8,solver_ms=5", seed=1, nodes=8)
    plain = ExternalAgent(f"{SERVED} medium", seed=1)
    try:
        search.choose(obs)
        assert search.last_value is not None and 0.0 <= search.last_value <= 1.0
        assert not search.failures
        plain.choose(obs)
        assert plain.last_value is None and not plain.failures
    finally:
        search.close()
        plain.close()


@pytest.mark.skipif(shutil.which("perl") is None, reason="perl is not installed")
def test_perl_example_engine_written_from_the_docs_conforms_and_plays() -> None:
    """The newcomer check: an engine in Perl written from docs/engine-protocol.md
    alone passes every conformance check and plays the arena without one move
    replaced, started by its #! line."""
    script = ROOT / "examples" / "engines" / "trumpsaver.pl"
    report = run_conformance(f"perl {script}", positions=12, timeout=5.0)
    assert report.ok and not [c for c in report.checks if c.status == "WARN"], [
        c.line() for c in report.checks
    ]
    arena = run_arena([f"engine:{script}", "medium"], hands=4, seed=2, workers=1)
    assert arena.bots[f"engine:{script}"].replaced == 0


# --------------------------------------------------------------------------- issue 24


def _page_parser_moves(line: str) -> list[str]:
    """The legal moves as the page tells an engine to read them: every word after
    ``legal`` up to the end of the line."""
    words = line.split()
    return words[words.index("legal") + 1 :]


def test_legal_is_always_sent_and_always_last() -> None:
    """A parser written from the page alone (the moves run to the end of the line)
    reads exactly the legal moves, also from the request with the unknown field
    that ``engine-test`` sends; a position with no move still ends with ``legal``."""
    checked = 0
    for state, obs in _observations(40, seed=24):
        want = [format_move_token(m) for m in obs.legal_moves()]
        for line in (format_position_request(obs), with_future_field(format_position_request(obs))):
            assert _page_parser_moves(line) == want
            assert line.split().count("legal") == 1
            assert list(parse_position_request(line).legal) == obs.legal_moves()
        other = observe(state, (obs.seat + 1) % state.n)  # not its turn: no legal move
        line = format_position_request(other)
        assert line.endswith(" legal") and parse_position_request(line).legal == ()
        checked += 1
    assert checked >= 20
    line = with_future_field(format_position_request(fixed_positions(1)[0]))
    assert " futurefield 1 2 3 legal " in line


def test_the_pages_own_python_engine_conforms() -> None:
    """The smallest engine of the page ("Writing an engine"), run as written:
    engine-test passes it (a warning only for answering go infinite at once)."""
    page = (ROOT / "docs" / "engine-protocol.md").read_text()
    section = page.split("## Writing an engine", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert 'words.index("legal") + 1 :]' in code
    with contextlib.ExitStack() as stack:
        import tempfile

        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        (folder / "tiny.py").write_text(code)
        report = run_conformance(f"{sys.executable} {folder / 'tiny.py'}", positions=8)
    assert report.ok, [c.line() for c in report.checks]
    by_name = {c.name: c.status for c in report.checks}
    assert by_name["unknown position keyword ignored"] == "PASS"
    assert by_name["newhand"] == "PASS"


def test_engine_test_fails_an_engine_that_answers_newhand(tmp_path: Path) -> None:
    chatty = tmp_path / "chatty.py"
    chatty.write_text(
        textwrap.dedent(
            """\
            import sys
            for line in sys.stdin:
                w = line.split()
                if not w:
                    continue
                if w[0] == "ske":
                    print("id name chatty"); print("skeok 1", flush=True)
                elif w[0] == "isready":
                    print("readyok", flush=True)
                elif w[0] == "newhand":
                    print("bestmove none", flush=True)
                elif w[0] == "quit":
                    break
            """
        )
    )
    report = run_conformance(f"{sys.executable} {chatty}", positions=3, timeout=2.0)
    check = next(c for c in report.checks if c.name == "newhand")
    assert not report.ok and check.status == "FAIL" and "bestmove none" in check.detail


def test_request_line_limit_client_side(monkeypatch: pytest.MonkeyPatch) -> None:
    """The client refuses a line over the limit before sending anything; the referee
    plays the default action for it and keeps the engine."""

    async def main() -> None:
        from svoi_kozyri.protocol.client import EngineProtocol

        protocol = EngineProtocol()
        mock = MockTransport(protocol)  # it fails on any command it does not expect
        _handshake(mock)
        await protocol.initialize()
        with pytest.raises(RequestTooLongError, match=f"limit of {MAX_REQUEST_LINE_BYTES} bytes"):
            protocol.send_line("isready " + "x" * MAX_REQUEST_LINE_BYTES)
        at_limit = "isready " + "x" * (MAX_REQUEST_LINE_BYTES - 8)
        mock.expect(at_limit, ["readyok"])
        protocol.send_line(at_limit)
        mock.assert_done()

    asyncio.run(main())

    import svoi_kozyri.protocol.wire as wire

    obs = fixed_positions(1)[0]
    monkeypatch.setattr(wire, "MAX_REQUEST_LINE_BYTES", 100)
    agent = ExternalAgent(AWK_ENGINE, seed=1, shared=False)
    try:
        move = agent.choose(obs)
        assert move == agent.default_action(obs)
        assert agent.failures == {"too_long": 1} and "100 bytes" in (agent.last_error or "")
        monkeypatch.setattr(wire, "MAX_REQUEST_LINE_BYTES", 1 << 20)
        engine_before = agent._engine
        assert agent.choose(obs) in obs.legal_moves() and agent.failures == {"too_long": 1}
        assert engine_before is not None and agent._engine is engine_before  # kept
    finally:
        agent.close()


def test_request_line_limit_server_side() -> None:
    """The built-in engine ignores a line over the limit with an info string and
    goes on; a line of exactly the limit is read."""
    at_limit = "isready" + " " * (MAX_REQUEST_LINE_BYTES - len("isready"))
    over = "isready" + " " * (MAX_REQUEST_LINE_BYTES - len("isready") + 1)
    lines = ["ske 1", over, at_limit, "x" * (3 * MAX_REQUEST_LINE_BYTES), "isready", "quit"]
    res = CliRunner().invoke(app, ["engine", "medium"], input="\n".join(lines) + "\n")
    assert res.exit_code == 0
    out = res.output.splitlines()
    error = (
        f"info string error: a line longer than {MAX_REQUEST_LINE_BYTES} bytes "
        "(the protocol's limit) was ignored"
    )
    assert out[out.index("skeok 1") + 1 :] == [error, "readyok", error, "readyok"]


def _two_positions() -> tuple:
    """Two positions whose legal moves have no token in common."""
    obs = fixed_positions(40)
    for a in obs:
        for b in obs:
            ta = {format_move_token(m) for m in a.legal_moves()}
            tb = {format_move_token(m) for m in b.legal_moves()}
            if len(ta) > 1 and len(tb) > 1 and not ta & tb:
                return a, b
    raise AssertionError("no two positions without a common legal move")


_SEARCH_ENGINES = [
    pytest.param(f"{SERVED} medium", id="served medium"),
    pytest.param(f"{SERVED} ismcts", id="served ismcts"),
    pytest.param(AWK_ENGINE, id="awk"),
    pytest.param(
        f"node {ROOT / 'examples' / 'engines' / 'greedy.js'}",
        id="node",
        marks=pytest.mark.skipif(shutil.which("node") is None, reason="no Node.js"),
    ),
    pytest.param(
        f"perl {ROOT / 'examples' / 'engines' / 'trumpsaver.pl'}",
        id="perl",
        marks=pytest.mark.skipif(shutil.which("perl") is None, reason="no perl"),
    ),
]


@pytest.mark.parametrize("command", _SEARCH_ENGINES)
def test_position_go_or_newhand_during_a_search_acts_as_stop_first(command: str) -> None:
    """The page's rule: a position, go or newhand that comes while a go runs ends
    that search first, so its bestmove (for its own position) comes before the
    new command is handled; every go gets exactly one bestmove, in order."""
    a, b = _two_positions()
    pa, pb = format_position_request(a), format_position_request(b)
    lines = [
        "ske 1",
        pa,
        "go infinite",
        pb,  # answers the search of a
        "go nodes 5 seed 1",
        "go infinite",  # answers the search above (of b), searches b again
        "go nodes 5 seed 2",  # answers that one; searches b
        pa,
        "go infinite",
        "newhand",  # answers the search of a
        "isready",
        "quit",
    ]
    proc = subprocess.run(
        shlex.split(command),
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    best = [ln.split()[1] for ln in proc.stdout.splitlines() if ln.startswith("bestmove")]
    legal_a = {format_move_token(m) for m in a.legal_moves()}
    legal_b = {format_move_token(m) for m in b.legal_moves()}
    assert len(best) == 5, proc.stdout
    assert best[0] in legal_a and all(m in legal_b for m in best[1:4]) and best[4] in legal_a
    assert "readyok" in proc.stdout
