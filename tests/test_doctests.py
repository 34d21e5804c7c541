"""The examples in the library modules' docstrings run as written."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "svoi_kozyri.core.errors",
    "svoi_kozyri.core.outcome",
    "svoi_kozyri.core.diagram",
    "svoi_kozyri.core.rules",
    "svoi_kozyri.notation.forgiving",
]


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name: str) -> None:
    module = importlib.import_module(name)
    failures, tried = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0, f"{name} has no examples"
    assert failures == 0
