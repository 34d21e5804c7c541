"""Runner for machine-checkable rules scenarios (``svoi-kozyri-scenarios/1``).

The format is described in ``../shared/scenarios/FORMAT.md``.  Each scenario
starts a hand from a position or a deal (or feeds results to a session), then
applies ``do`` steps, checks that ``reject`` steps are refused without any
change, and compares ``expect`` blocks.  Every problem becomes a failure line,
never a traceback.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .core import (
    PHASE_NAMES,
    RESPOND,
    Game,
    Rules,
    Session,
    State,
    SvoiKozyriError,
    format_cards,
    parse_card_list,
    parse_cards,
    parse_seat,
    seat_name,
)
from .core.perft import perft
from .notation.position import position_from_text

FORMAT_ID = "svoi-kozyri-scenarios/1"

# Scenario files use the strict notation: lower-case keywords, upper-case cards
# (T accepted for 10), single spaces.  Anything else in a step is malformed.
_CARD = r"(?:10|[5-9TJQKA])[SHDC]"
_STRICT_ACTION = re.compile(rf"lead {_CARD}|beat {_CARD} lead {_CARD}|beat {_CARD}|pickup")


class ScenarioFormatError(SvoiKozyriError, ValueError):
    """The scenario file or entry does not follow the format."""


@dataclass(frozen=True)
class Outcome:
    """The result of one scenario."""

    id: str
    ok: bool
    message: str = ""

    def line(self) -> str:
        """``PASS id`` or ``FAIL id: message``."""
        return f"PASS {self.id}" if self.ok else f"FAIL {self.id}: {self.message}"


class _Fail(Exception):
    pass


def _seat_map(obj: Any, n: int, what: str) -> dict[int, Any]:
    if not isinstance(obj, dict):
        raise ScenarioFormatError(f"{what} must be an object keyed by seat letters")
    return {parse_seat(k, n): v for k, v in obj.items()}


def build_game(sc: dict[str, Any]) -> Game:
    """The game of a scenario: players, rules and owners."""
    n = sc.get("players")
    if n not in (2, 3, 4):
        raise ScenarioFormatError("'players' must be 2, 3 or 4")
    options = dict(sc.get("rules") or {})
    if not isinstance(options, dict):
        raise ScenarioFormatError("'rules' must be an object")
    options["num_players"] = n
    rules = Rules.from_dict(options)
    owners = sc.get("owners")
    pairs = sc.get("pairs")
    return Game(rules, owners, pairs)


def start_state(game: Game, start: Any) -> State:
    """A hand from a scenario START."""
    if not isinstance(start, dict) or len(start) != 1:
        raise ScenarioFormatError("'start' must hold exactly one of 'position' or 'deal'")
    if "position" in start:
        pos = start["position"]
        if not isinstance(pos, dict):
            raise ScenarioFormatError("'position' must be an object")
        unknown = set(pos) - {"hands", "pile", "to_act", "mode", "out"}
        if unknown:
            raise ScenarioFormatError(f"unknown position key(s): {', '.join(sorted(unknown))}")
        if pos.get("mode") not in ("free", "respond"):
            raise ScenarioFormatError("position 'mode' must be 'free' or 'respond'")
        outs = pos.get("out") or []
        if not isinstance(outs, list) or not all(isinstance(o, list) and len(o) == 2 for o in outs):
            raise ScenarioFormatError("'out' must be a list of [seat, how] pairs")
        return position_from_text(
            game,
            pos.get("hands") or {},
            pos.get("pile", ""),
            pos.get("to_act", ""),
            pos["mode"],
            [(o[0], o[1]) for o in outs],
        )
    if "deal" in start:
        deal = start["deal"]
        if not isinstance(deal, dict) or "dealer" not in deal or "deck" not in deal:
            raise ScenarioFormatError("'deal' needs 'dealer' and 'deck'")
        return game.deal(parse_seat(deal["dealer"], game.n), parse_card_list(deal["deck"]))
    raise ScenarioFormatError("'start' must hold 'position' or 'deal'")


def _snapshot(state: State) -> tuple[Any, ...]:
    return (
        tuple(state.hands),
        tuple(state.pile),
        state.to_act,
        state.phase,
        state.outs,
        state.discard,
        state.outcome,
        state.turns,
        state.repetition_count(),
        tuple(state.log[: state.log_len]),
        state.zob,
    )


def _result_json(state: State) -> Any:
    r = state.outcome
    if r is None:
        return None
    if r.loser is None:
        return {"draw": r.termination.value}
    return {"loser": seat_name(r.loser)}


def check_expect(state: State, exp: Any) -> list[str]:
    """Differences between ``state`` and an EXPECT block (empty when all hold)."""
    if not isinstance(exp, dict):
        raise ScenarioFormatError("'expect' must be an object")
    diffs: list[str] = []
    for key, want in exp.items():
        check = _EXPECT_CHECKS.get(key)
        if check is None:
            raise ScenarioFormatError(f"unknown expect key {key!r}")
        diffs += check(state, want)
    return diffs


def _expect_hands(state: State, want: Any) -> list[str]:
    """``hands``: each listed seat holds exactly these cards."""
    diffs: list[str] = []
    for seat, txt in _seat_map(want, state.n, "hands").items():
        got = state.hands[seat]
        if got != parse_cards(txt):
            diffs.append(f"hand {seat_name(seat)} is {format_cards(got)!r}, expected {txt!r}")
    return diffs


def _expect_hand_sizes(state: State, want: Any) -> list[str]:
    """``hand_sizes``: each listed seat holds this many cards."""
    diffs: list[str] = []
    for seat, size in _seat_map(want, state.n, "hand_sizes").items():
        got_n = state.hands[seat].bit_count()
        if got_n != size:
            diffs.append(f"hand size of {seat_name(seat)} is {got_n}, expected {size}")
    return diffs


def _expect_pile(state: State, want: Any) -> list[str]:
    """``pile``: the pile's cards, bottom to top."""
    got_p = state.pile_cards()
    if got_p != parse_card_list(want):
        return [f"pile is {format_cards(got_p)!r}, expected {want!r}"]
    return []


def _expect_to_act(state: State, want: Any) -> list[str]:
    """``to_act``: the seat letter to act (``null`` once the hand is over)."""
    got_s = None if state.is_over else seat_name(state.to_act)
    if got_s != want:
        return [f"to_act is {got_s!r}, expected {want!r}"]
    return []


def _expect_mode(state: State, want: Any) -> list[str]:
    """``mode``: free, respond, lead or over."""
    got = "over" if state.is_over else PHASE_NAMES[state.phase]
    if got != want and not (want is None and state.is_over):
        return [f"mode is {got!r}, expected {want!r}"]
    return []


def _expect_beats(state: State, want: Any) -> list[str]:
    """``beats``: the cards that may beat the top card (none outside respond mode)."""
    got_b = state.beat_options() if state.phase == RESPOND else 0
    if got_b != parse_cards(want):
        return [f"beats are {format_cards(got_b)!r}, expected {want!r}"]
    return []


def _expect_pickup_count(state: State, want: Any) -> list[str]:
    """``pickup_count``: how many cards a pickup would take now."""
    if state.pickup_count() != want:
        return [f"pickup_count is {state.pickup_count()}, expected {want}"]
    return []


def _expect_legal_count(state: State, want: Any) -> list[str]:
    """``legal_count``: the number of legal moves."""
    got_c = state.count_legal_moves()
    if got_c != want:
        return [f"legal_count is {got_c}, expected {want}"]
    return []


def _expect_out(state: State, want: Any) -> list[str]:
    """``out``: the seats that went out, in order, with how (``[seat, how]``)."""
    got_o = [[seat_name(s), k] for s, k in state.outs]
    if got_o != want:
        return [f"out is {got_o}, expected {want}"]
    return []


def _expect_result(state: State, want: Any) -> list[str]:
    """``result``: ``{"loser": X}``, ``{"draw": reason}`` or ``null``."""
    got_r = _result_json(state)
    if got_r != want:
        return [f"result is {got_r}, expected {want}"]
    return []


def _expect_perft(state: State, want: Any) -> list[str]:
    """``perft``: the number of move sequences of each depth, shallowest first."""
    if not isinstance(want, dict):
        raise ScenarioFormatError("'perft' must map depths to counts")
    diffs: list[str] = []
    for depth, count in sorted(want.items(), key=lambda kv: int(kv[0])):
        got_n = perft(state, int(depth))
        if got_n != count:
            diffs.append(f"perft({depth}) is {got_n}, expected {count}")
    return diffs


_EXPECT_CHECKS: dict[str, Callable[[State, Any], list[str]]] = {
    "hands": _expect_hands,
    "hand_sizes": _expect_hand_sizes,
    "pile": _expect_pile,
    "to_act": _expect_to_act,
    "mode": _expect_mode,
    "beats": _expect_beats,
    "pickup_count": _expect_pickup_count,
    "legal_count": _expect_legal_count,
    "out": _expect_out,
    "result": _expect_result,
    "perft": _expect_perft,
}
"""The check of each EXPECT key: the differences it finds (empty when it holds).

Why a table: one small function per key keeps each check (and its message) apart,
and the keys a scenario may use are the table's keys."""


def _run_hand(sc: dict[str, Any]) -> None:
    game = build_game(sc)
    state = start_state(game, sc.get("start"))
    steps = sc.get("steps", [])
    if not isinstance(steps, list):
        raise ScenarioFormatError("'steps' must be a list")
    for i, step in enumerate(steps, 1):
        if not isinstance(step, dict) or len(step) != 1:
            raise ScenarioFormatError(f"step {i} must hold exactly one of do, reject, expect")
        ((kind, arg),) = step.items()
        if kind in ("do", "reject") and not (
            isinstance(arg, str) and _STRICT_ACTION.fullmatch(arg)
        ):
            if kind == "do":
                raise _Fail(f"step {i}: {arg!r} is not an action in the scenario notation")
            continue  # a malformed action is refused, and nothing changes
        if kind == "do":
            try:
                state.push_text(arg)
            except SvoiKozyriError as e:
                raise _Fail(f"step {i}: {arg!r} was refused: {e}") from None
        elif kind == "reject":
            before = _snapshot(state)
            try:
                state.push_text(arg)
            except SvoiKozyriError:
                if _snapshot(state) != before:
                    raise _Fail(f"step {i}: refusing {arg!r} changed the state") from None
            else:
                raise _Fail(f"step {i}: {arg!r} was accepted, expected a refusal")
        elif kind == "expect":
            diffs = check_expect(state, arg)
            if diffs:
                raise _Fail(f"step {i}: " + "; ".join(diffs))
        else:
            raise ScenarioFormatError(f"unknown step kind {kind!r}")


def _run_session(sc: dict[str, Any]) -> None:
    session = _played_session(sc)
    exp = sc.get("expect") or {}
    diffs: list[str] = []
    for key, want in exp.items():
        got, want = _session_fact(session, key, want)
        if got != want:
            diffs.append(f"{key} is {got}, expected {want}")
    if diffs:
        raise _Fail("; ".join(diffs))


def _played_session(sc: dict[str, Any]) -> Session:
    """The session of a session scenario with its hands' results recorded.

    Why apart: building the session (players, rules, first dealer, owners) and
    feeding it the results is the scenario's setup; the expectations come after."""
    n = sc.get("players")
    if n not in (2, 3, 4):
        raise ScenarioFormatError("'players' must be 2, 3 or 4")
    options = dict(sc.get("rules") or {})
    options["num_players"] = n
    rules = Rules.from_dict(options)
    spec = sc["session"]
    if not isinstance(spec, dict):
        raise ScenarioFormatError("'session' must be an object")
    session = Session(
        rules,
        first_dealer=parse_seat(spec["first_dealer"], n),
        owners=sc.get("owners"),
        pairs=sc.get("pairs"),
    )
    for i, hand in enumerate(spec.get("hands", []), 1):
        if not isinstance(hand, dict):
            raise ScenarioFormatError(f"session hand {i} must be an object")
        first = hand.get("first_out")
        first_seat = None if first is None else parse_seat(first, n)
        if "loser" in hand:
            session.record(parse_seat(hand["loser"], n), first_seat)
        elif "draw" in hand:
            session.record(None, first_seat, str(hand["draw"]))
        else:
            raise ScenarioFormatError(f"session hand {i} needs 'loser' or 'draw'")
    return session


def _session_fact(session: Session, key: str, want: Any) -> tuple[Any, Any]:
    """The session's value of expect key ``key`` and ``want`` made comparable to
    it (seat letters; seats left out of ``losses`` and ``points`` count 0).

    Why apart: one branch per key, each a fact of the session in the scenario's
    terms; :func:`_run_session` only compares."""
    if key == "dealers":
        got: Any = [seat_name(d) for d in session.dealers]
    elif key == "next_dealer":
        nd = session.next_dealer
        got = None if nd is None else seat_name(nd)
    elif key == "losses":
        got = {seat_name(i): v for i, v in enumerate(session.losses)}
        want = {k: want.get(k, 0) for k in got} if isinstance(want, dict) else want
    elif key == "points":
        got = {seat_name(i): v for i, v in enumerate(session.points)}
        want = {k: want.get(k, 0) for k in got} if isinstance(want, dict) else want
    elif key == "over":
        got = session.over
    elif key == "durak":
        d = session.durak
        got = None if d is None else seat_name(d)
    elif key == "winners":
        got = sorted(seat_name(w) for w in session.winners)
        want = sorted(str(w) for w in want) if isinstance(want, list) else want
    else:
        raise ScenarioFormatError(f"unknown session expect key {key!r}")
    return got, want


def run_scenario(sc: Any, index: int = 0) -> Outcome:
    """Run one scenario object."""
    sid = sc.get("id", f"#{index}") if isinstance(sc, dict) else f"#{index}"
    try:
        if not isinstance(sc, dict):
            raise ScenarioFormatError("a scenario must be an object")
        if "session" in sc:
            _run_session(sc)
        else:
            _run_hand(sc)
    except _Fail as e:
        return Outcome(str(sid), False, str(e))
    except (ScenarioFormatError, SvoiKozyriError, ValueError, KeyError, TypeError) as e:
        kind = (
            "bad scenario"
            if isinstance(e, ScenarioFormatError | KeyError | TypeError)
            else ("error")
        )
        return Outcome(str(sid), False, f"{kind}: {e}")
    return Outcome(str(sid), True)


def load_file(path: Path) -> list[Any]:
    """The scenarios of one file (raises ScenarioFormatError)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except IsADirectoryError:
        raise ScenarioFormatError("is a folder (name the folder itself to run its files)") from None
    except FileNotFoundError:
        raise ScenarioFormatError("no such file") from None
    except OSError as e:
        raise ScenarioFormatError(f"cannot read: {(e.strerror or str(e)).lower()}") from None
    except UnicodeDecodeError as e:
        raise ScenarioFormatError(f"not UTF-8 text ({e.reason})") from None
    except json.JSONDecodeError as e:
        raise ScenarioFormatError(
            f"not valid JSON: {e.msg} at line {e.lineno} column {e.colno}"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT_ID:
        raise ScenarioFormatError(f"not a scenario file: 'format' must be {FORMAT_ID!r}")
    scenarios = data.get("scenarios")
    if not isinstance(scenarios, list):
        raise ScenarioFormatError("'scenarios' must be a list")
    ids = [s.get("id") for s in scenarios if isinstance(s, dict)]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise ScenarioFormatError(f"duplicate scenario id(s): {', '.join(sorted(map(str, dup)))}")
    return scenarios


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files named, and the ``*.json`` files of directories named (sorted)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(p.glob("*.json")))
        else:
            out.append(p)
    return out


def run_paths(paths: Iterable[str | Path]) -> Iterator[Outcome]:
    """Run every scenario of the given files and directories."""
    for path in expand_paths(paths):
        try:
            scenarios = load_file(path)
        except ScenarioFormatError as e:
            yield Outcome(str(path), False, str(e))
            continue
        for i, sc in enumerate(scenarios):
            yield run_scenario(sc, i)
