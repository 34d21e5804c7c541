"""With CI set, a test skipped because chromium, PostgreSQL or Node is missing fails:
CI must not pass green while its browser or database tests silently did not run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import _required_tool_missing


def test_required_tools_are_recognised() -> None:
    assert _required_tool_missing("Debian's chromium is not installed (apt-get install chromium)")
    assert _required_tool_missing("PostgreSQL (initdb, pg_ctl) is not installed")
    assert not _required_tool_missing("no search bot is installed")


def _run(tmp_path: Path, ci: bool) -> subprocess.CompletedProcess[str]:
    test = tmp_path / "test_needs_chromium.py"
    test.write_text(
        "import pytest\n"
        "def test_browser():\n"
        '    pytest.skip("Debian\'s chromium is not installed")\n'
    )
    (tmp_path / "conftest.py").write_text(
        (Path(__file__).with_name("conftest.py")).read_text(encoding="utf-8")
    )
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_missing_browser_skips_locally_and_fails_in_ci(tmp_path: Path) -> None:
    local = _run(tmp_path, ci=False)
    assert local.returncode == 0 and "1 skipped" in local.stdout, local.stdout
    ci = _run(tmp_path, ci=True)
    assert ci.returncode != 0 and "1 failed" in ci.stdout, ci.stdout
    assert "required tool is missing" in ci.stdout
