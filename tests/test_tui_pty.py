"""End-to-end tests of ``svoi-kozyri play`` and ``replay`` through a pseudo-terminal.

A person is simulated with pexpect: at every prompt it asks for the numbered
menu, then types the first legal move in forgiving notation (lower case), after
one wrong input that must get a message and the same prompt again.  The whole
session is seeded, so the run is reproducible.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

TIMEOUT = 60  # generous: CI shares two cores between many jobs
FIRST_ENTRY = re.compile(r" 1\. (\S+(?: \S+)?)(?:  |\r)")


def command() -> tuple[str, list[str]]:
    """The console script next to the interpreter, else ``python -m``."""
    script = Path(sys.executable).with_name("svoi-kozyri")
    if script.exists():
        return str(script), []
    return sys.executable, ["-m", "svoi_kozyri.cli.main"]


def spawn(*args: str, term: str = "dumb") -> pexpect.spawn:
    exe, pre = command()
    env = dict(os.environ, TERM=term, NO_COLOR="1", COLUMNS="80", LINES="24")
    env.pop("FORCE_COLOR", None)
    return pexpect.spawn(
        exe,
        [*pre, *args],
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
        dimensions=(24, 80),
    )


def play_session(child: pexpect.spawn, prompt: str) -> tuple[int, str]:
    """Answer prompts until the session ends; returns (moves typed, transcript)."""
    transcript: list[str] = []
    typed = 0
    while True:
        child.sendline("moves")
        child.expect(FIRST_ENTRY)
        choice = child.match.group(1).lower()
        child.expect_exact(prompt)
        child.sendline(choice)
        typed += 1
        i = child.expect_exact([prompt, "Session over", "Press Enter for the next hand"])
        transcript.append(child.before)
        if i == 1:
            child.expect(pexpect.EOF)
            transcript.append(child.before)
            return typed, "".join(transcript)
        if i == 2:
            child.sendline("")
            child.expect_exact(prompt)
        assert typed < 2000, "the session does not end"


def test_play_a_seeded_session_then_replay_it(tmp_path: Path) -> None:
    record = tmp_path / "game.txt"
    child = spawn(
        "play",
        *("--players", "3", "--bot", "random", "--seed", "4", "--losses", "1"),
        *("--delay", "0", "--save", str(record)),
    )
    prompt = "A You > "
    child.expect_exact(prompt)
    board = child.before
    assert "Your hand" in board and "Trumps:" in board
    assert "\x1b[3" not in board  # no colour codes with NO_COLOR
    assert all(len(line) <= 80 for line in board.splitlines())

    # a wrong input gets a short, specific message and the same prompt again
    child.sendline("zz")
    child.expect_exact("'zz' is not a card or command")
    child.expect_exact(prompt)
    child.sendline("?")
    child.expect_exact("Commands:")
    child.expect_exact(prompt)
    child.sendline("hint")
    child.expect(r"Hint \((\w+)\): ")
    child.expect_exact(prompt)

    typed, transcript = play_session(child, prompt)
    child.close()
    assert child.exitstatus == 0
    assert typed >= 1
    assert "Durak (loser): " in transcript or "Draw:" in transcript
    assert "Overall durak:" in transcript

    text = record.read_text(encoding="utf-8")
    assert '[Names "A=You,B=random,C=random"]' in text
    hands = text.count("[Event ")
    assert hands >= 1

    replay = spawn("replay", str(record), "--all")
    replay.expect_exact(f"End of record: {hands} hand(s).")
    out = replay.before
    replay.expect(pexpect.EOF)
    replay.close()
    assert replay.exitstatus == 0
    assert "Hand 1/" in out and "turn 1/" in out
    assert "Durak (loser): " in out or "Draw:" in out
    first_turn = re.search(r"^1\. A: (.+?)(?: \{|$)", text, re.M)
    if first_turn:  # A led first in this seed's first hand: the replay shows the same move
        assert f"A You: {first_turn.group(1)}" in out


def test_replay_steps_forward_and_back(tmp_path: Path) -> None:
    record = tmp_path / "bots.txt"
    child = spawn(
        "play",
        *("--humans", "0", "--bot", "random", "--seed", "2", "--losses", "1"),
        *("--delay", "0", "--players", "2", "--save", str(record)),
    )
    child.expect_exact("Session over")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    viewer = spawn("replay", str(record), "--hand", "1")
    viewer.expect(r"\[1/(\d+)\] Enter/n next")
    total = int(viewer.match.group(1))
    assert "turn 0/" in viewer.before
    viewer.sendline("")
    viewer.expect_exact(f"[2/{total}]")
    assert "turn 1/" in viewer.before
    viewer.sendline("n")
    viewer.expect_exact(f"[3/{total}]")
    viewer.sendline("p")
    viewer.expect_exact(f"[2/{total}]")
    viewer.sendline("x")
    viewer.expect_exact("keys: Enter or n = next")
    viewer.sendline("q")
    viewer.expect(pexpect.EOF)
    viewer.close()
    assert viewer.exitstatus == 0


def test_bad_record_file_gets_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text('[Players "4"]\n\n1. A: lead 8H\n', encoding="utf-8")
    child = spawn("replay", str(bad))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "error:" in child.before and "Traceback" not in child.before


def test_full_screen_prompt_completes_moves_with_tab() -> None:
    """On a capable terminal (xterm) prompt_toolkit runs in full mode: Tab lists the
    legal moves that start with what was typed."""
    child = spawn(
        "play",
        *("--players", "3", "--bot", "random", "--seed", "1", "--losses", "1", "--delay", "0"),
        term="xterm",
    )
    child.expect_exact("\x1b[6n")  # prompt_toolkit asks where the cursor is
    board = child.before
    child.send("\x1b[20;1R")  # and we answer as a terminal would
    child.expect_exact("A You >")
    beat = re.search(r"Beat \w+ with \[ \]: (\w+)", board)
    assert beat, board
    first = beat.group(1)
    child.send(first.lower() + "\t")
    child.expect(re.escape(first) + r" \w+\s+.*beat " + re.escape(first) + " lead")
    child.send("\x15zz\r")  # Ctrl-U clears the line
    child.expect_exact("'zz' is not a card or command")
    child.expect_exact("A You >")
    child.send("quit\r")
    child.expect_exact("Game stopped.")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
