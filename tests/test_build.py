"""The compiled modules are current, and the pure-Python engine behaves the same.

The hot modules (the engine, the bots' policies and search) are compiled with
mypyc on install.  A compiled module shadows its source, so a stale build would
silently test old code: fail loudly instead.
The pure-Python fallback (``SVOI_KOZYRI_PURE=1``) must pass the same scenarios.
"""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SCENARIOS_DIR

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = SCENARIOS_DIR
#: The modules setup.py compiles, read from setup.py itself so the list cannot drift.
COMPILED = [
    p.removeprefix("src/").removesuffix(".py").replace("/", ".")
    for p in re.findall(r'"(src/svoi_kozyri/[^"]+\.py)"', (ROOT / "setup.py").read_text())
]


def test_the_compiled_list_is_read() -> None:
    assert "svoi_kozyri.core.game" in COMPILED
    assert "svoi_kozyri.bots.heuristic" in COMPILED


def test_all_or_none_of_the_modules_are_compiled() -> None:
    # setup.py compiles them in one mypyc call: a mixture means a stale or broken build
    kinds = {
        name: Path(getattr(importlib.import_module(name), "__file__", "")).suffix
        for name in COMPILED
    }
    assert len(set(kinds.values())) == 1, kinds


@pytest.mark.parametrize("name", COMPILED)
def test_compiled_module_is_not_stale(name: str) -> None:
    module = importlib.import_module(name)
    path = Path(getattr(module, "__file__", ""))
    if path.suffix == ".py":
        pytest.skip("pure-Python build in use")
    source = path.parent / (path.name.split(".")[0] + ".py")
    assert source.stat().st_mtime <= path.stat().st_mtime, (
        f"{path.name} is older than {source.name}: rebuild with `make` "
        "(or `pip install --no-deps -e .`)"
    )


@pytest.mark.skipif(not SCENARIOS.is_dir(), reason="shared scenarios not found")
def test_pure_python_engine_passes_scenarios(tmp_path: Path) -> None:
    src = ROOT / "src" / "svoi_kozyri"
    shutil.copytree(src, tmp_path / "svoi_kozyri", ignore=shutil.ignore_patterns("*.so"))
    code = (
        "import sys, svoi_kozyri.core.game as g\n"
        "assert g.__file__.endswith('.py'), g.__file__\n"
        "from svoi_kozyri.scenarios import run_paths\n"
        f"out = list(run_paths([{str(SCENARIOS)!r}]))\n"
        "bad = [o.line() for o in out if not o.ok]\n"
        "print(len(out), bad)\n"
        "sys.exit(1 if bad or not out else 0)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_installed_build_keeps_its_documentation() -> None:
    # mypyc keeps only signatures; setup.py and svoi_kozyri._docs put the docs back
    import svoi_kozyri.core.game as game

    assert game.__doc__ and "rules engine" in game.__doc__
    assert game.State.push.__doc__ and "turn-level move" in game.State.push.__doc__
    assert game.State.pop.__doc__ and "Undo the last move" in game.State.pop.__doc__
    assert game.State.__doc__ and "mutable state of one hand" in game.State.__doc__
    assert game.parse_seat.__doc__ and "seat parser" in game.parse_seat.__doc__
