"""``svoi-kozyri engine-test CMD``: does an engine speak the protocol?

Checks, in order: the handshake (``ske 1`` -> ``skeok``), ``isready``, that
unknown commands are ignored, that ``newhand`` is taken without an answer, that
unknown ``position`` keywords (where a later revision adds them: before ``legal``,
which is always the last field) are skipped with their values, a legal move on
each of a fixed set of positions (2, 3 and 4 players and several rule options,
all from fixed seeds, so every engine meets the same positions), ``isready``
answered while searching and the latency of ``stop`` after ``go infinite``,
determinism under a node limit (the same request twice gives the same move),
and ``quit``.  Each check prints ``PASS``/``FAIL``/``WARN`` with the reason.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ..core import Game, Observation, Rules, observe
from .client import EngineError, EngineProtocol, Limit, popen_engine
from .wire import format_go, format_position_request, parse_move_token

#: Largest acceptable time (ms) from ``stop`` to ``bestmove``.
STOP_LATENCY_MS = 500.0

#: The rule sets the fixed positions are drawn from.
RULE_SETS: tuple[dict[str, object], ...] = (
    {"num_players": 4},
    {"num_players": 3},
    {"num_players": 2},
    {"num_players": 2, "trumps_per_player_2p": 1},
    {"num_players": 2, "variant": "besicovitch"},
    {"num_players": 4, "pickup_rule": "fixed", "fixed_pickup_count": 2},
    {"num_players": 3, "defence_out_pile": "discard"},
)


def fixed_positions(count: int, seed: int = 2026) -> list[Observation]:
    """``count`` observations (the player to act's view) from random play of fixed
    seeds, cycling through :data:`RULE_SETS`; deterministic."""
    rng = random.Random(seed)
    out: list[Observation] = []
    k = 0
    while len(out) < count:
        rules = Rules.from_dict(dict(RULE_SETS[k % len(RULE_SETS)]))
        k += 1
        state = Game(rules).new_hand(rng.randrange(rules.num_players), rng)
        stop_at = rng.randrange(1, 40)
        turns = 0
        while not state.is_over and turns < stop_at:
            state.push(rng.choice(state.legal_moves()))
            turns += 1
        if not state.is_over:
            out.append(observe(state, state.to_act))
    return out


@dataclass
class Check:
    """One line of the report."""

    name: str
    status: str  # PASS, FAIL or WARN
    detail: str = ""

    def line(self) -> str:
        """``PASS name: detail``."""
        return f"{self.status} {self.name}" + (f": {self.detail}" if self.detail else "")


@dataclass
class ConformanceReport:
    """All checks run against one engine."""

    command: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no check failed (warnings allowed) and the handshake ran."""
        return bool(self.checks) and all(c.status != "FAIL" for c in self.checks)

    def summary(self) -> str:
        """The last line: counts per status."""
        n = {s: sum(1 for c in self.checks if c.status == s) for s in ("PASS", "FAIL", "WARN")}
        verdict = "conforms" if self.ok else "does NOT conform"
        return (
            f"{n['PASS']} passed, {n['FAIL']} failed, {n['WARN']} warnings: "
            f"the engine {verdict} to protocol 1"
        )


def run_conformance(
    command: str,
    *,
    positions: int = 40,
    timeout: float = 5.0,
    echo: Callable[[str], None] | None = None,
) -> ConformanceReport:
    """Run every check against ``command``; ``echo`` gets each line as it is decided."""
    report = ConformanceReport(command)

    def add(name: str, ok: bool | None, detail: str = "") -> bool:
        status = "PASS" if ok else ("WARN" if ok is None else "FAIL")
        report.checks.append(Check(name, status, detail))
        if echo is not None:
            echo(report.checks[-1].line())
        return bool(ok)

    asyncio.run(_run(command, positions, timeout, add))
    return report


async def _read(protocol: EngineProtocol, timeout: float) -> str:
    return await protocol.read_line(timeout)


async def _run(
    command: str, count: int, timeout: float, add: Callable[[str, bool | None, str], bool]
) -> None:
    t0 = time.perf_counter()
    try:
        transport, protocol = await popen_engine(command, timeout=timeout)
    except (EngineError, ValueError) as e:
        add("handshake", False, str(e))
        return
    add(
        "handshake",
        True,
        f"id name {protocol.id.get('name', '?')!r}, protocol {protocol.version}"
        f", {1000 * (time.perf_counter() - t0):.0f} ms",
    )
    try:
        if not protocol.id.get("name"):
            add("id name", None, "the engine sent no 'id name' line")
        await _checks(protocol, count, timeout, add)
    except EngineError as e:
        add("engine alive", False, str(e))
    finally:
        t1 = time.perf_counter()
        await protocol.quit(timeout)
        code = (
            protocol.returncode.result()
            if protocol.returncode and protocol.returncode.done()
            else None
        )
        add(
            "quit",
            code is not None,
            f"ended in {1000 * (time.perf_counter() - t1):.0f} ms"
            if code is not None
            else "did not end after quit; killed",
        )
        transport.close()


async def _checks(
    protocol: EngineProtocol,
    count: int,
    timeout: float,
    add: Callable[[str, bool | None, str], bool],
) -> None:
    if not await _check_handshake_lines(protocol, timeout, add):
        return
    obs_list = fixed_positions(count)
    if not await _check_legal_moves(protocol, obs_list, timeout, add):
        return
    # an unknown keyword in a position must be skipped with its values; a later
    # revision adds its fields before ``legal``, which always ends the line
    obs = max(obs_list, key=lambda o: len(o.legal_moves()))
    protocol._drain()
    protocol.send_line(with_future_field(format_position_request(obs)))
    protocol.send_line(format_go(50, None, False, 1))
    answer = await _bestmove(protocol, timeout)
    add(
        "unknown position keyword ignored",
        answer is not None and _legal(answer, obs),
        f"answered {answer!r}",
    )
    await _check_search_control(protocol, obs, timeout, add)
    await _check_determinism(protocol, obs_list, timeout, add)


async def _check_handshake_lines(
    protocol: EngineProtocol, timeout: float, add: Callable[[str, bool | None, str], bool]
) -> bool:
    """``isready``, an unknown command ignored, every declared option accepting its
    own default, and ``newhand`` without an answer; False when one failed (the later
    checks would only repeat it).

    Why apart: these need no position, and each failure stops the run."""
    try:
        await protocol.ping(timeout)
        add("isready", True, "")
    except EngineError as e:
        add("isready", False, str(e))
        return False
    protocol.send_line("xyzzy unknown command 42")
    try:
        await protocol.ping(timeout)
        add("unknown command ignored", True, "")
    except EngineError as e:
        add("unknown command ignored", False, str(e))
        return False

    # every declared option accepts its own default
    opts = {o.name: o.default for o in protocol.options.values() if o.default is not None}
    if opts:
        try:
            await protocol.configure(opts, timeout)
            add("options", True, f"{len(opts)} set to their defaults: {', '.join(opts)}")
        except EngineError as e:
            add("options", False, f"setoption with the defaults: {e}")
            return False
    return await _check_newhand(protocol, timeout, add)


async def _check_newhand(
    protocol: EngineProtocol, timeout: float, add: Callable[[str, bool | None, str], bool]
) -> bool:
    """``newhand`` has no answer: after it, ``isready`` gets ``readyok`` with at most
    ``info`` lines before it; False when the engine answered otherwise or not at all."""
    protocol._drain()
    protocol.send_line("newhand")
    protocol.send_line("isready")
    extra: list[str] = []
    try:
        while (line := (await _read(protocol, timeout)).strip()) != "readyok":
            if line.split()[0] != "info":
                extra.append(line)
    except EngineError as e:
        return add("newhand", False, f"no readyok after newhand and isready: {e}")
    if extra:
        return add("newhand", False, f"answered {extra[0]!r}; newhand has no answer")
    return add("newhand", True, "no answer, then readyok")


async def _check_legal_moves(
    protocol: EngineProtocol,
    obs_list: list[Observation],
    timeout: float,
    add: Callable[[str, bool | None, str], bool],
) -> bool:
    """A legal move for every fixed position; False when any move was wrong.

    Why apart: the one check over all the positions, timed for the report."""
    bad: list[str] = []
    times: list[float] = []
    for i, obs in enumerate(obs_list):
        t = time.perf_counter()
        try:
            res = await protocol.play(obs, Limit(time=0.05), seed=i, timeout=timeout)
        except EngineError as e:
            bad.append(f"position {i}: {e}")
            break
        times.append(time.perf_counter() - t)
        if res.move is None or res.move not in obs.legal_moves():
            bad.append(
                f"position {i}: {res.raw!r} is not legal in {format_position_request(obs)!r}"
            )
    if bad:
        add("legal moves", False, f"{len(bad)} of {len(obs_list)} wrong; first: {bad[0]}")
        return False
    add("legal moves", True, f"{len(obs_list)} positions, slowest {1000 * max(times):.0f} ms")
    return True


async def _check_search_control(
    protocol: EngineProtocol,
    obs: Observation,
    timeout: float,
    add: Callable[[str, bool | None, str], bool],
) -> None:
    """``isready`` answered while searching ``go infinite``, no ``bestmove`` before
    ``stop``, and the latency of ``stop``.

    Why apart: the checks of an engine that searches while it reads its input."""
    protocol._drain()
    protocol.send_line(format_position_request(obs))
    protocol.send_line("go infinite")
    await asyncio.sleep(0.2)
    early: str | None = None
    protocol.send_line("isready")
    t = time.perf_counter()
    got_ready = False
    try:
        while True:
            line = await _read(protocol, 1.0)
            if line.startswith("bestmove"):
                early = line
            elif line.strip() == "readyok":
                got_ready = True
                break
    except EngineError:
        pass
    add(
        "isready while searching",
        got_ready,
        f"readyok in {1000 * (time.perf_counter() - t):.0f} ms"
        if got_ready
        else "no readyok in 1 s",
    )
    if early is not None:
        add("infinite waits for stop", None, f"sent {early!r} before stop")
    await asyncio.sleep(0.1)
    t = time.perf_counter()
    protocol.send_line("stop")
    if early is None:
        answer = await _bestmove(protocol, timeout)
        ms = 1000 * (time.perf_counter() - t)
        add(
            "stop latency",
            answer is not None and ms <= STOP_LATENCY_MS and _legal(answer, obs),
            f"bestmove {answer!r} {ms:.0f} ms after stop (limit {STOP_LATENCY_MS:g} ms)",
        )
    else:
        await asyncio.sleep(0.2)


async def _check_determinism(
    protocol: EngineProtocol,
    obs_list: list[Observation],
    timeout: float,
    add: Callable[[str, bool | None, str], bool],
) -> None:
    """Determinism under a node limit: the same request twice gives the same move."""
    differ = []
    for i, o in enumerate(obs_list[:8]):
        a = await protocol.play(o, Limit(nodes=100), seed=5, timeout=timeout)
        b = await protocol.play(o, Limit(nodes=100), seed=5, timeout=timeout)
        if a.raw != b.raw:
            differ.append(f"position {i}: {a.raw} then {b.raw}")
    add(
        "deterministic under a node limit",
        not differ,
        differ[0] if differ else f"{min(8, len(obs_list))} positions, go nodes 100 seed 5 twice",
    )


async def _bestmove(protocol: EngineProtocol, timeout: float) -> str | None:
    try:
        while True:
            line = await protocol.read_line(timeout)
            if line.startswith("bestmove"):
                parts = line.split()
                return parts[1] if len(parts) > 1 else ""
    except EngineError:
        return None


def with_future_field(request: str) -> str:
    """``request`` with a field of a later protocol revision, ``futurefield 1 2 3``,
    where such fields go: before ``legal`` (always the last field)."""
    words = request.split()
    at = words.index("legal")
    return " ".join([*words[:at], "futurefield", "1", "2", "3", *words[at:]])


def _legal(token: str, obs: Observation) -> bool:
    try:
        return parse_move_token(token) in obs.legal_moves()
    except ValueError:
        return False
