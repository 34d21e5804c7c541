"""Every command of ``svoi-kozyri`` against many bad inputs.

Each bad input must end with a non-zero exit status, exactly one line of output
that starts with ``error:`` and names what is wrong, no traceback, and no file
created or changed.  The list covers every command ``svoi-kozyri --help``
shows (a test fails when a command is added without cases here).
"""

from __future__ import annotations

import random
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from svoi_kozyri.bots.catalogue import make_agent
from svoi_kozyri.cli.main import app
from svoi_kozyri.core import Game, Rules, observe
from svoi_kozyri.records import GameRecord, write_records

POS = "C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0"
OVER = (
    "SH/DC -/ASKSQSJS9S8S7S6SKHQHJHTH9H8H7H6HADKDQD9D7D6DACKCQCJC9C7C AHJDTCTS6C8C8DTD"
    " - loser=B Ad - 1558"
)
OPEN = "SC/HD KS7H/9H6HQD8C - A free - - 0"
HIDDEN = "C/D/H/S KS8H9C6C/?3/?3/?4 - A free - - 0"

#: (name, command line with {tmp} for the test's folder, words the error must contain)
CASES: list[tuple[str, list[str], str]] = [
    # -- perft
    ("perft-deep", ["perft", POS, "5000"], "depth must be at most"),
    ("perft-negative", ["perft", POS, "-1"], "depth must be >= 0"),
    ("perft-not-a-number", ["perft", POS, "two"], "'depth'"),
    ("perft-bad-position", ["perft", "x", "1"], "position"),
    ("perft-missing-depth", ["perft", POS], "Missing argument"),
    ("perft-hidden-hands", ["perft", HIDDEN, "1"], "?"),
    ("perft-unknown-option", ["perft", POS, "1", "--fast"], "--fast"),
    # -- position
    ("position-empty", ["position", ""], "8 or 9"),
    ("position-fields", ["position", POS + " x y"], "fields"),
    ("position-bad-card", ["position", POS.replace("KS8H", "KZ8H")], "KZ"),
    ("position-twice", ["position", POS.replace("QSTH6D", "KSTH6D")], "KS"),
    ("position-bad-seat", ["position", POS.replace(" A free", " Z free")], "Z"),
    ("position-bad-mode", ["position", POS.replace("free", "attack")], "attack"),
    ("position-bad-turns", ["position", POS[:-1] + "x"], "x"),
    ("position-owners", ["position", POS.replace("C/D/H/S", "C/C/H/S")], "C"),
    ("position-hidden", ["position", HIDDEN], "?"),
    ("position-rules", ["position", POS + " colour=red"], "colour"),
    # -- solve
    ("solve-bad-position", ["solve", "nonsense"], "position"),
    ("solve-over", ["solve", OVER], "over"),
    ("solve-not-open", ["solve", POS], "not an open position"),
    ("solve-time-zero", ["solve", POS, "--time", "0"], "--time"),
    ("solve-time-word", ["solve", POS, "--time", "soon"], "--time"),
    ("solve-time-infinite", ["solve", OPEN, "--time", "inf"], "--time"),
    # -- records
    ("records-missing", ["records", "{tmp}/missing.txt"], "no such file"),
    ("records-folder", ["records", "{tmp}/folder"], "is a folder"),
    ("records-binary", ["records", "{tmp}/binary.bin"], "not UTF-8"),
    ("records-empty", ["records", "{tmp}/empty.txt"], "no game records"),
    ("records-garbage", ["records", "{tmp}/garbage.txt"], "garbage.txt"),
    ("records-viewer", ["records", "{tmp}/game.txt", "--viewer", "Z"], "Z"),
    # -- replay
    ("replay-missing", ["replay", "{tmp}/missing.txt"], "no such file"),
    ("replay-folder", ["replay", "{tmp}/folder"], "is a folder"),
    ("replay-binary", ["replay", "{tmp}/binary.bin"], "not UTF-8"),
    ("replay-empty", ["replay", "{tmp}/empty.txt"], "no game records"),
    ("replay-garbage", ["replay", "{tmp}/garbage.txt"], "garbage.txt"),
    ("replay-hand", ["replay", "{tmp}/game.txt", "--hand", "9", "--all"], "not 9"),
    ("replay-turn", ["replay", "{tmp}/game.txt", "--turn", "999", "--all"], "not 999"),
    ("replay-turn-negative", ["replay", "{tmp}/game.txt", "--turn", "-1"], "--turn"),
    # -- analyse
    ("analyse-missing", ["analyse", "{tmp}/missing.txt"], "no such file"),
    ("analyse-folder", ["analyse", "{tmp}/folder"], "is a folder"),
    ("analyse-binary", ["analyse", "{tmp}/binary.bin"], "not UTF-8"),
    ("analyse-empty", ["analyse", "{tmp}/empty.txt"], "no game records"),
    ("analyse-index", ["analyse", "{tmp}/game.txt", "--index", "9"], "not 9"),
    ("analyse-seat", ["analyse", "{tmp}/game.txt", "--seat", "Z"], "Z"),
    ("analyse-other-seat", ["analyse", "{tmp}/viewerA.txt", "--seat", "B"], "only for"),
    ("analyse-spectator", ["analyse", "{tmp}/spectator.txt"], "spectator"),
    ("analyse-budget", ["analyse", "{tmp}/game.txt", "--budget-ms", "0"], "--budget-ms"),
    ("analyse-threshold", ["analyse", "{tmp}/game.txt", "--threshold", "-1"], "--threshold"),
    # -- scenarios
    ("scenarios-missing", ["scenarios", "{tmp}/missing.json"], "no such file"),
    ("scenarios-empty-folder", ["scenarios", "{tmp}/folder"], "no scenario files"),
    ("scenarios-binary", ["scenarios", "{tmp}/binary.bin"], "not UTF-8"),
    ("scenarios-empty", ["scenarios", "{tmp}/empty.txt"], "not valid JSON"),
    ("scenarios-other-json", ["scenarios", "{tmp}/other.json"], "not a scenario file"),
    ("scenarios-none", ["scenarios"], "Missing argument"),
    # -- demo
    ("demo-players", ["demo", "--players", "5"], "--players"),
    ("demo-seed", ["demo", "--seed", "abc"], "--seed"),
    # -- arena
    ("arena-no-seats", ["arena"], "either --seats or --round-robin"),
    (
        "arena-both",
        ["arena", "--seats", "random,random", "--round-robin", "random,greedy"],
        "either",
    ),
    ("arena-unknown-bot", ["arena", "--seats", "random,nosuch"], "unknown bot 'nosuch'"),
    ("arena-bot-option", ["arena", "--seats", "heuristic:per_card=abc,random"], "per_card"),
    ("arena-bot-syntax", ["arena", "--seats", "random:x,random"], "key=value"),
    ("arena-empty-bot", ["arena", "--seats", "random,,random"], "empty bot name"),
    ("arena-one-seat", ["arena", "--seats", "random"], "players"),
    ("arena-seat-count", ["arena", "--seats", "random,random", "--players", "3"], "2 bots"),
    ("arena-round-robin-one", ["arena", "--round-robin", "random,random"], "two different"),
    ("arena-hands", ["arena", "--seats", "random,random", "--hands", "0"], "--hands"),
    ("arena-hands-word", ["arena", "--seats", "random,random", "--hands", "many"], "--hands"),
    ("arena-workers", ["arena", "--seats", "random,random", "--workers", "0"], "--workers"),
    ("arena-rule", ["arena", "--seats", "random,random", "--rule", "colour=red"], "colour"),
    ("arena-rule-syntax", ["arena", "--seats", "random,random", "--rule", "x"], "key=value"),
    ("arena-pickup", ["arena", "--seats", "random,random", "--pickup-rule", "all"], "all"),
    ("arena-json-folder", ["arena", "--seats", "random,random", "--json", "{tmp}"], "folder"),
    (
        "arena-json-nowhere",
        ["arena", "--seats", "random,random", "--json", "{tmp}/no/dir/x.json"],
        "does not exist",
    ),
    ("arena-csv-proc", ["arena", "--seats", "random,random", "--csv", "/proc/x.csv"], "/proc"),
    ("arena-plot-devnull", ["arena", "--seats", "random,random", "--plot", "/dev/null"], "null"),
    (
        "arena-plot-file",
        ["arena", "--seats", "random,random", "--plot", "{tmp}/empty.txt"],
        "is a file",
    ),
    (
        "arena-same-file",
        ["arena", "--seats", "random,random", "--json", "{tmp}/o", "--csv", "{tmp}/o"],
        "same file",
    ),
    # -- serve (nothing here may start a server)
    ("serve-bogus-url", ["serve", "--database", "bogus://x"], "unknown database"),
    ("serve-not-url", ["serve", "--database", "notaurl"], "not a database URL"),
    (
        "serve-sqlite-folder",
        ["serve", "--database", "sqlite:////nonexistent_dir/x.db"],
        "/nonexistent_dir does not exist",
    ),
    ("serve-sqlite-is-folder", ["serve", "--database", "sqlite:///{tmp}/folder"], "is a folder"),
    ("serve-port", ["serve", "--port", "70000"], "--port"),
    ("serve-port-word", ["serve", "--port", "http"], "--port"),
    ("serve-log-level", ["serve", "--log-level", "loud"], "--log-level"),
    ("serve-host", ["serve", "--host", "no-such-host.invalid"], "unknown host"),
    ("serve-port-in-use", ["serve", "--port", "{busy_port}"], "cannot listen"),
    # -- play (everything checked before the first card is dealt)
    ("play-bot", ["play", "--bot", "nosuch"], "unknown bot 'nosuch'"),
    ("play-bot-option", ["play", "--bot", "heuristic:per_card=abc"], "per_card"),
    ("play-hint-bot", ["play", "--hint-bot", "nosuch"], "unknown bot 'nosuch'"),
    ("play-hint-bot-option", ["play", "--hint-bot", "heuristic:per_card=abc"], "per_card"),
    ("play-hint-level-option", ["play", "--hint-bot", "expert:nonsense=1"], "nonsense"),
    ("play-seats-bot", ["play", "--seats", "human,nosuch"], "unknown bot 'nosuch'"),
    ("play-seats-empty", ["play", "--seats", "human,,random"], "empty bot name"),
    ("play-seats-one", ["play", "--seats", "human"], "2 to 4 seats"),
    ("play-seats-and-bot", ["play", "--seats", "human,random", "--bot", "greedy"], "--bot"),
    ("play-seats-humans", ["play", "--seats", "human,random", "--humans", "1"], "--humans"),
    ("play-players", ["play", "--players", "5"], "--players"),
    ("play-humans", ["play", "--humans", "3", "--players", "2"], "--humans 3"),
    ("play-delay", ["play", "--delay", "-1"], "--delay"),
    ("play-names", ["play", "--players", "2", "--names", "a,b,c"], "3 names"),
    ("play-rule", ["play", "--rule", "colour=red"], "colour"),
    ("play-rule-syntax", ["play", "--rule", "pickup_rule"], "NAME=VALUE"),
    ("play-besicovitch-4", ["play", "--besicovitch", "--players", "4"], "two-player"),
    ("play-losses-points", ["play", "--losses", "2", "--points", "5"], "either --losses"),
    ("play-losses-zero", ["play", "--losses", "0"], "--losses"),
    ("play-save-folder", ["play", "--save", "{tmp}/folder"], "is a folder"),
    ("play-save-nowhere", ["play", "--save", "{tmp}/no/dir/x.txt"], "does not exist"),
    ("play-save-proc", ["play", "--save", "/proc/x.txt"], "/proc"),
    ("play-position-bad", ["play", "--position", "x"], "position"),
    ("play-position-over", ["play", "--position", OVER], "already over"),
    ("play-position-hidden", ["play", "--position", HIDDEN], "?"),
    ("play-position-rules", ["play", "--position", POS, "--pickup-rule", "fixed"], "own rules"),
    ("play-position-players", ["play", "--position", POS, "--players", "2"], "--players 2"),
    ("play-resume-missing", ["play", "--resume", "{tmp}/missing.txt"], "no such file"),
    ("play-resume-folder", ["play", "--resume", "{tmp}/folder"], "is a folder"),
    ("play-resume-binary", ["play", "--resume", "{tmp}/binary.bin"], "not UTF-8"),
    ("play-resume-empty", ["play", "--resume", "{tmp}/empty.txt"], "no game records"),
    ("play-resume-viewer", ["play", "--resume", "{tmp}/viewerA.txt"], "one viewer"),
    (
        "play-resume-and-position",
        ["play", "--resume", "{tmp}/game.txt", "--position", POS],
        "either",
    ),
    # -- engine, engine-test (the engine protocol)
    ("engine-unknown-bot", ["engine", "nosuch"], "unknown bot 'nosuch'"),
    ("engine-test-missing-command", ["engine-test"], "Missing argument"),
    ("engine-test-no-such-engine", ["engine-test", "/nonexistent/engine"], "not found"),
    ("engine-test-timeout", ["engine-test", "true", "--timeout", "-1"], "--timeout"),
    # -- migrate, calibrate-bots (the web server's database)
    ("migrate-bad-url", ["migrate", "--database", "bogus://x"], "bogus"),
    ("account-role-unknown", ["account", "role", "Bob", "wizard"], "admin, moderator or none"),
    (
        "account-role-bad-url",
        ["account", "role", "Bob", "moderator", "--database", "bogus://x"],
        "unknown database",
    ),
    (
        "migrate-sqlite-folder",
        ["migrate", "--database", "sqlite:///{tmp}/missing/x.db"],
        "does not exist",
    ),
    (
        "calibrate-sqlite-folder",
        ["calibrate-bots", "--database", "sqlite:///{tmp}/missing/x.db"],
        "does not exist",
    ),
    (
        "serve-unreachable-postgres",
        ["serve", "--database", "postgresql+psycopg://nobody@127.0.0.1:1/x"],
        "cannot open the database",
    ),
    ("calibrate-one-bot", ["calibrate-bots", "--bots", "nosuch"], "at least two"),
    # -- selfplay
    (
        "selfplay-unknown-bot",
        ["selfplay", "--bots", "nosuch", "--hands", "2", "--out", "{tmp}/sp"],
        "unknown bot 'nosuch'",
    ),
    (
        "selfplay-negative-hands",
        ["selfplay", "--bots", "random", "--hands", "-3", "--out", "{tmp}/sp"],
        "--hands",
    ),
    (
        "selfplay-out-is-a-file",
        ["selfplay", "--bots", "random", "--hands", "2", "--out", "{tmp}/empty.txt"],
        "not a directory",
    ),
    (
        "selfplay-out-no-folder",
        ["selfplay", "--bots", "random", "--hands", "2", "--out", "{tmp}/missing/deeper"],
        "does not exist",
    ),
    # -- tables
    ("tables-unknown-rule", ["tables", "build", "--rule", "nonsense=1"], "nonsense"),
    ("tables-too-big", ["tables", "build", "--cards", "11"], "--cards"),
    ("tables-equal-rank", ["tables", "build", "--rule", "equal_rank_beats=also"], "equal-rank"),
    ("tables-bad-rule-value", ["tables", "path", "--rule", "draw_rule=maybe"], "draw_rule"),
    # -- the command itself
    ("unknown-command", ["deal"], "No such command 'deal'"),
]

#: Commands a case above exercises (checked against ``svoi-kozyri --help``).
COVERED = {argv[0] for _name, argv, _words in CASES if argv and not argv[0].startswith("-")}


def _snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with its bytes (None for folders)."""
    return {
        str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes())
        for p in sorted(root.rglob("*"))
    }


def _record(seed: int) -> GameRecord:
    """A short finished two-player hand between greedy players."""
    rng = random.Random(seed)
    state = Game(Rules(num_players=2)).new_hand(0, rng)
    greedy = make_agent("greedy", seed=seed)
    while not state.is_over:
        state.push(greedy.choose(observe(state, state.to_act)))
    return GameRecord.from_state(state)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The folder of bad (and a few good) files the cases name as ``{tmp}``."""
    root = tmp_path_factory.mktemp("bad_inputs")
    (root / "folder").mkdir()
    (root / "binary.bin").write_bytes(bytes(range(256)) * 4)
    (root / "empty.txt").write_text("", encoding="utf-8")
    (root / "garbage.txt").write_text("hello world\n[Tag\n", encoding="utf-8")
    (root / "other.json").write_text('{"format": "something-else"}\n', encoding="utf-8")
    recs = [_record(1)]
    write_records(root / "game.txt", recs)
    write_records(root / "viewerA.txt", recs, viewer=0)
    from svoi_kozyri.records import SPECTATOR

    write_records(root / "spectator.txt", recs, viewer=SPECTATOR)
    yield root


@pytest.fixture(scope="module")
def busy_port() -> Iterator[int]:
    """A port something already listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        yield sock.getsockname()[1]


def test_every_command_has_bad_input_cases() -> None:
    import typer.main

    group = typer.main.get_command(app)
    commands = set(getattr(group, "commands", {}))
    assert commands, "no commands found"
    missing = commands - COVERED
    assert not missing, f"commands without bad-input cases: {sorted(missing)}"


@pytest.mark.parametrize(("name", "argv", "words"), CASES, ids=[c[0] for c in CASES])
def test_bad_input_gets_one_clear_error_line(
    name: str, argv: list[str], words: str, files: Path, busy_port: int
) -> None:
    args = [a.replace("{tmp}", str(files)).replace("{busy_port}", str(busy_port)) for a in argv]
    before = _snapshot(files)
    result = CliRunner().invoke(app, args, input="")
    output = result.output
    assert result.exit_code not in (0, None), f"{name}: exit 0\n{output}"
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{name}: {result.exception!r}"
    )
    assert "Traceback" not in output
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, f"{name}: expected one line, got\n{output}"
    line = lines[0]
    assert line.startswith("error: "), line
    assert words in line, f"{name}: {words!r} not in {line!r}"
    assert "Errno" not in line, line
    head = line.removeprefix("error: ")
    first = head.split(":")[0]
    assert head.count(first + ":") <= 1 or len(first) < 3, f"file named twice: {line}"
    assert _snapshot(files) == before, f"{name} changed or created files"


def test_nothing_is_created_outside_for_a_bad_json_path(tmp_path: Path) -> None:
    target = tmp_path / "no" / "dir" / "x.json"
    result = CliRunner().invoke(app, ["arena", "--seats", "random,random", "--json", str(target)])
    assert result.exit_code == 2
    assert not (tmp_path / "no").exists()
