"""The shared scenario suite, and the scenario runner's own error reporting.

Every file of ../shared/scenarios must pass.  The runner must turn every
problem (a wrong expectation, a broken file) into a FAIL line naming the
scenario and the step, never a traceback, and the CLI must exit non-zero."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from conftest import SCENARIOS_DIR
from svoi_kozyri.cli.main import app
from svoi_kozyri.scenarios import FORMAT_ID, Outcome, run_paths, run_scenario

SCENARIOS = SCENARIOS_DIR

needs_suite = pytest.mark.skipif(
    not SCENARIOS.is_dir(), reason=f"shared scenario suite not found at {SCENARIOS}"
)

E5: dict[str, Any] = {
    "id": "e5",
    "players": 4,
    "owners": {"A": "C", "B": "D", "C": "H", "D": "S"},
    "start": {
        "position": {
            "hands": {"A": "8C 7C", "B": "QD", "C": "QH", "D": "9S 7S AH KD"},
            "pile": "7H 8H 9H JD KC 9C 10S",
            "to_act": "D",
            "mode": "respond",
        }
    },
    "steps": [
        {"expect": {"beats": "", "pickup_count": 5, "legal_count": 1}},
        {"reject": "beat 9S lead 7S"},
        {"do": "pickup"},
        {
            "expect": {
                "hands": {"D": "10S 9S 7S AH 9H KD JD KC 9C"},
                "pile": "7H 8H",
                "to_act": "A",
                "mode": "respond",
                "beats": "8C 7C",
                "result": None,
                "out": [],
            }
        },
    ],
}


def write(tmp_path: Path, name: str, data: Any) -> Path:
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return p


def suite(*scenarios: Any) -> dict[str, Any]:
    return {"format": FORMAT_ID, "scenarios": list(scenarios)}


def with_steps(steps: list[Any], **changes: Any) -> dict[str, Any]:
    return {**E5, **changes, "steps": steps}


@needs_suite
def test_shared_suite_passes() -> None:
    outcomes = list(run_paths([SCENARIOS]))
    assert len(outcomes) >= 100
    failed = [o.line() for o in outcomes if not o.ok]
    assert failed == []
    ids = [o.id for o in outcomes]
    assert len(ids) == len(set(ids))


@needs_suite
def test_shared_suite_files_each_hold_scenarios() -> None:
    files = sorted(SCENARIOS.glob("*.json"))
    assert files
    for f in files:
        outs = list(run_paths([f]))
        assert outs and all(o.ok for o in outs), f.name


def test_a_correct_scenario_passes(tmp_path: Path) -> None:
    outs = list(run_paths([write(tmp_path, "ok.json", suite(E5))]))
    assert [o.line() for o in outs] == ["PASS e5"]


@pytest.mark.parametrize(
    ("steps", "needle"),
    [
        ([{"do": "pickup"}, {"expect": {"to_act": "B"}}], "step 2: to_act is 'A', expected 'B'"),
        ([{"expect": {"pickup_count": 3}}], "step 1: pickup_count is 5, expected 3"),
        ([{"expect": {"beats": "9S"}}], "step 1: beats are '', expected '9S'"),
        ([{"expect": {"legal_count": 2}}], "step 1: legal_count is 1, expected 2"),
        (
            [{"do": "pickup"}, {"expect": {"pile": "7H"}}],
            "step 2: pile is '7H 8H', expected '7H'",
        ),
        (
            [{"expect": {"hands": {"A": "8C"}}}],
            "step 1: hand A is '8C 7C', expected '8C'",
        ),
        ([{"expect": {"hand_sizes": {"D": 5}}}], "hand size of D is 4, expected 5"),
        ([{"expect": {"mode": "free"}}], "mode is 'respond', expected 'free'"),
        ([{"expect": {"result": {"loser": "D"}}}], "result is None"),
        ([{"expect": {"out": [["A", "lead"]]}}], "out is [], expected"),
        ([{"expect": {"perft": {"1": 2}}}], "perft(1) is 1, expected 2"),
        ([{"do": "beat 9S lead 7S"}], "step 1: 'beat 9S lead 7S' was refused"),
        ([{"reject": "pickup"}], "step 1: 'pickup' was accepted, expected a refusal"),
        ([{"expect": {"colour": "red"}}], "unknown expect key 'colour'"),
        ([{"dance": "pickup"}], "unknown step kind 'dance'"),
        ([{"do": "pickup", "expect": {}}], "step 1 must hold exactly one"),
        ("pickup", "'steps' must be a list"),
    ],
)
def test_wrong_expectations_give_a_fail_line_naming_the_step(
    tmp_path: Path, steps: Any, needle: str
) -> None:
    outs = list(run_paths([write(tmp_path, "bad.json", suite(with_steps(steps)))]))
    assert len(outs) == 1
    line = outs[0].line()
    assert line.startswith("FAIL e5: "), line
    assert needle in line, line


@pytest.mark.parametrize(
    ("scenario", "needle"),
    [
        (with_steps([], players=5), "'players' must be 2, 3 or 4"),
        (with_steps([], rules={"pickup_rule": "nope"}), "pickup_rule"),
        (with_steps([], rules={"bogus": 1}), "unknown rules option"),
        (with_steps([], owners={"A": "C", "B": "C", "C": "H", "D": "S"}), "same suit"),
        (with_steps([], start={"position": {"mode": "respond"}, "deal": {}}), "exactly one"),
        (with_steps([], start={"board": {}}), "'position' or 'deal'"),
        (
            with_steps([], start={"position": {**E5["start"]["position"], "colour": 1}}),
            "unknown position key",
        ),
        (
            with_steps([], start={"position": {**E5["start"]["position"], "mode": "lead"}}),
            "'free' or 'respond'",
        ),
        (
            with_steps([], start={"position": {**E5["start"]["position"], "pile": "7H 8H 7H"}}),
            "twice",
        ),
        (with_steps([], start={"deal": {"dealer": "A"}}), "'dealer' and 'deck'"),
        (with_steps([], start={"deal": {"dealer": "A", "deck": "6S 7S"}}), "missing"),
        ("just text", "a scenario must be an object"),
    ],
)
def test_bad_scenarios_fail_without_traceback(tmp_path: Path, scenario: Any, needle: str) -> None:
    outs = list(run_paths([write(tmp_path, "bad.json", suite(scenario))]))
    assert len(outs) == 1 and not outs[0].ok
    assert needle in outs[0].message, outs[0].message


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ("{not json", "not valid JSON"),
        ("", "not valid JSON"),
        (json.dumps({"format": "svoi-kozyri-scenarios/2", "scenarios": []}), "'format' must be"),
        (json.dumps({"scenarios": []}), "'format' must be"),
        (json.dumps([1, 2]), "'format' must be"),
        (json.dumps({"format": FORMAT_ID, "scenarios": {}}), "'scenarios' must be a list"),
        (json.dumps(suite(E5, E5)), "duplicate scenario id(s): e5"),
    ],
)
def test_broken_files_give_one_fail_line(tmp_path: Path, content: str, needle: str) -> None:
    path = write(tmp_path, "broken.json", content)
    outs = list(run_paths([path]))
    assert len(outs) == 1
    assert outs[0].line().startswith(f"FAIL {path}: ")
    assert needle in outs[0].message


def test_non_utf8_and_missing_files(tmp_path: Path) -> None:
    p = tmp_path / "latin1.json"
    p.write_bytes(b'{"format": "\xff"}')
    (out,) = run_paths([p])
    assert not out.ok and "UTF-8" in out.message
    missing = tmp_path / "nope.json"
    (out,) = run_paths([missing])
    assert not out.ok and out.id == str(missing) and "no such file" in out.message


def test_directory_runs_json_files_in_order(tmp_path: Path) -> None:
    write(tmp_path, "b.json", suite({**E5, "id": "second"}))
    write(tmp_path, "a.json", suite({**E5, "id": "first"}))
    write(tmp_path, "notes.txt", "ignored")
    assert [o.id for o in run_paths([tmp_path])] == ["first", "second"]


def test_run_scenario_directly_and_outcome_lines() -> None:
    assert run_scenario(E5).ok
    assert Outcome("x", True).line() == "PASS x"
    assert Outcome("x", False, "why").line() == "FAIL x: why"
    out = run_scenario({k: v for k, v in E5.items() if k != "id"}, 7)
    assert out.id == "#7"


def test_session_scenarios(tmp_path: Path) -> None:
    good = {
        "id": "sess",
        "players": 4,
        "rules": {"loss_limit": 2},
        "session": {
            "first_dealer": "D",
            "hands": [
                {"loser": "B", "first_out": "A"},
                {"draw": "last_card"},
                {"loser": "B", "first_out": "C"},
            ],
        },
        "expect": {
            "dealers": ["D", "B", "B"],
            "next_dealer": None,
            "losses": {"B": 2},
            "over": True,
            "durak": "B",
            "winners": ["D", "A", "C"],
        },
    }
    bad = {**good, "id": "sess-bad", "expect": {"durak": "A", "dealers": ["D"]}}
    weird = {**good, "id": "sess-weird", "expect": {"mood": 1}}
    nohand = {**good, "id": "sess-nohand", "session": {"first_dealer": "A", "hands": [{}]}}
    outs = list(run_paths([write(tmp_path, "s.json", suite(good, bad, weird, nohand))]))
    assert outs[0].line() == "PASS sess"
    assert not outs[1].ok and "durak is B, expected A" in outs[1].message
    assert "dealers is ['D', 'B', 'B'], expected ['D']" in outs[1].message
    assert not outs[2].ok and "unknown session expect key 'mood'" in outs[2].message
    assert not outs[3].ok and "needs 'loser' or 'draw'" in outs[3].message


# --------------------------------------------------------------------------- CLI

runner = CliRunner()


def test_cli_all_pass_exit_zero(tmp_path: Path) -> None:
    p = write(tmp_path, "ok.json", suite(E5, {**E5, "id": "e5-again"}))
    res = runner.invoke(app, ["scenarios", str(p)])
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    assert lines == ["PASS e5", "PASS e5-again", "2 passed, 0 failed"]


def test_cli_failures_exit_one_and_count(tmp_path: Path) -> None:
    good = write(tmp_path, "a.json", suite(E5))
    bad = write(tmp_path, "b.json", suite(with_steps([{"expect": {"to_act": "B"}}], id="e5b")))
    broken = write(tmp_path, "c.json", "{oops")
    missing = tmp_path / "d.json"
    res = runner.invoke(app, ["scenarios", str(good), str(bad), str(broken), str(missing)])
    assert res.exit_code == 1
    assert res.exception is None or isinstance(res.exception, SystemExit)
    lines = res.output.strip().splitlines()
    assert lines[0] == "PASS e5"
    assert lines[1].startswith("FAIL e5b: step 1: to_act is 'D', expected 'B'")
    assert lines[2].startswith(f"FAIL {broken}: ")
    assert lines[3].startswith(f"FAIL {missing}: ")
    assert lines[-1] == "1 passed, 3 failed"
    assert "Traceback" not in res.output


def test_cli_nothing_run_is_a_failure(tmp_path: Path) -> None:
    res = runner.invoke(app, ["scenarios", str(tmp_path)])
    assert res.exit_code == 2
    assert res.output == f"error: {tmp_path}: no scenario files (*.json) in the folder\n"


def test_cli_needs_a_path() -> None:
    res = runner.invoke(app, ["scenarios"])
    assert res.exit_code == 2


@needs_suite
def test_cli_shared_suite() -> None:
    res = runner.invoke(app, ["scenarios", str(SCENARIOS)])
    assert res.exit_code == 0, res.output
    last = res.output.strip().splitlines()[-1]
    passed = int(last.split()[0])
    assert last == f"{passed} passed, 0 failed" and passed >= 100


def test_a_refusal_that_changes_the_state_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runner compares snapshots around a refused action; an engine whose
    refusal left a trace must be reported.  A correct engine never does that, so
    the snapshot function is made to differ on every call."""
    import itertools

    import svoi_kozyri.scenarios as runner_module

    counter = itertools.count()
    monkeypatch.setattr(runner_module, "_snapshot", lambda state: next(counter))
    outs = list(run_paths([write(tmp_path, "r.json", suite(with_steps([{"reject": "lead 8C"}])))]))
    assert outs[0].line() == "FAIL e5: step 1: refusing 'lead 8C' changed the state"
