"""Every Python example of docs/envs.md runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "envs.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def test_there_is_an_example_per_framework() -> None:
    text = "\n".join(EXAMPLES)
    for needle in (
        "svoi_kozyri_v0",
        "gymnasium.make",
        "pyspiel.load_game",
        "VectorGame",
        "run_selfplay",
    ):
        assert needle in text
    for code in EXAMPLES:
        assert len(code.strip().splitlines()) <= 12


@pytest.mark.parametrize("code", EXAMPLES, ids=lambda c: c.splitlines()[-1][:40])
def test_example_runs(code: str, capsys: pytest.CaptureFixture[str]) -> None:
    exec(compile(code, str(DOC), "exec"), {"__name__": "__docs__"})
    assert capsys.readouterr().out.strip()  # every example prints its result


@pytest.mark.parametrize("name", ["envs.vector", "_native.onehand"])
def test_docstring_examples(name: str) -> None:
    import doctest
    import importlib

    module = importlib.import_module(f"svoi_kozyri.{name}")
    failures, tried = doctest.testmod(module)
    assert tried > 0 and failures == 0
