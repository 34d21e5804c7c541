"""Build hook: compile the engine's hot modules with mypyc when possible.

The engine (``svoi_kozyri.core.game`` and ``cards``) and the bots' hot paths
(the greedy and heuristic policies, rollouts, the exact solver, the ISMCTS tree)
are plain, strictly typed Python.  mypyc turns those modules into C extensions,
which makes the hot loop of every bot and simulation several times faster.  If compilation is impossible (no C
compiler, or ``SVOI_KOZYRI_PURE=1``), the package installs as pure Python and
behaves identically, only slower.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup

COMPILED = [
    "src/svoi_kozyri/core/cards.py",
    "src/svoi_kozyri/core/game.py",
    "src/svoi_kozyri/bots/basic.py",
    "src/svoi_kozyri/bots/heuristic.py",
    "src/svoi_kozyri/bots/search/common.py",
    "src/svoi_kozyri/bots/search/ismcts.py",
    "src/svoi_kozyri/bots/search/pimc.py",
    "src/svoi_kozyri/bots/search/solver.py",
    "src/svoi_kozyri/bots/search/alphabeta.py",
]


def _ext_modules() -> list[object]:
    if os.environ.get("SVOI_KOZYRI_PURE") == "1":
        return []
    try:
        from mypyc.build import mypycify

        return list(mypycify(COMPILED, opt_level="3", debug_level="0"))
    except Exception as exc:  # no compiler or mypyc: fall back to pure Python
        print(f"svoi-kozyri: building pure Python ({exc})", file=sys.stderr)
        return []


setup(ext_modules=_ext_modules())
