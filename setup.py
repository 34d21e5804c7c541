"""Build hook: compile the engine's hot modules with mypyc when possible.

The engine (``svoi_kozyri.core.game`` and ``cards``) and the bots' hot paths
(the greedy and heuristic policies, rollouts, the exact solver, the ISMCTS tree)
are plain, strictly typed Python.  mypyc turns those modules into C extensions,
which makes the hot loop of every bot and simulation several times faster.  If
compilation is impossible (no C compiler, or ``SVOI_KOZYRI_PURE=1``), the package
installs as pure Python and behaves identically, only slower.  The docstrings are
kept in the compiled build (mypyc would keep only the signatures):
``build_support/mypyc_docstrings.py`` says how.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup

COMPILED = [
    "src/svoi_kozyri/core/cards.py",
    "src/svoi_kozyri/core/tables.py",
    "src/svoi_kozyri/core/moves.py",
    "src/svoi_kozyri/core/state.py",
    "src/svoi_kozyri/core/game.py",
    "src/svoi_kozyri/bots/basic.py",
    "src/svoi_kozyri/bots/heuristic.py",
    "src/svoi_kozyri/bots/search/common.py",
    "src/svoi_kozyri/bots/search/ismcts.py",
    "src/svoi_kozyri/bots/search/pimc.py",
    "src/svoi_kozyri/bots/search/proof.py",
    "src/svoi_kozyri/bots/search/proofsearch.py",
    "src/svoi_kozyri/bots/search/dfpn.py",
    "src/svoi_kozyri/bots/search/fixpoint.py",
    "src/svoi_kozyri/bots/search/solver.py",
    "src/svoi_kozyri/bots/search/rules2p.py",
    "src/svoi_kozyri/bots/search/reduce.py",
    "src/svoi_kozyri/bots/search/endgame.py",
]


def _keep_docstrings(c_files: list[str]) -> None:
    """Put the source docstrings into mypyc's generated C (its build helper,
    ``build_support/mypyc_docstrings.py``, says why and how); documentation only,
    so the build goes on without them if that fails."""
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from build_support.mypyc_docstrings import keep_docstrings

        keep_docstrings(COMPILED, c_files)
    except Exception as exc:
        print(f"svoi-kozyri: compiled docstrings unavailable ({exc})", file=sys.stderr)


def _ext_modules() -> list[object]:
    if os.environ.get("SVOI_KOZYRI_PURE") == "1":
        return []
    try:
        from mypyc.build import mypycify

        extensions = list(mypycify(COMPILED, opt_level="3", debug_level="0"))
    except Exception as exc:  # no compiler or mypyc: fall back to pure Python
        print(f"svoi-kozyri: building pure Python ({exc})", file=sys.stderr)
        return []
    sources = [src for ext in extensions for src in getattr(ext, "sources", [])]
    _keep_docstrings([src for src in sources if src.endswith(".c")])
    return extensions


setup(ext_modules=_ext_modules())
