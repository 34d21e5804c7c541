"""Build hook: compile the engine's hot modules with mypyc when possible.

The engine (``svoi_kozyri.core.game`` and ``cards``) and the bots' hot paths
(the greedy and heuristic policies, rollouts, the exact solver, the ISMCTS tree)
are plain, strictly typed Python.  mypyc turns those modules into C extensions,
which makes the hot loop of every bot and simulation several times faster.  If
compilation is impossible (no C compiler, or ``SVOI_KOZYRI_PURE=1``), the package
installs as pure Python and behaves identically, only slower.  The docstrings are
kept in the compiled build (mypyc would keep only the signatures).
"""

from __future__ import annotations

import os
import re
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
    "src/svoi_kozyri/bots/search/solver.py",
    "src/svoi_kozyri/bots/search/rules2p.py",
    "src/svoi_kozyri/bots/search/reduce.py",
    "src/svoi_kozyri/bots/search/endgame.py",
]


def _docstrings(paths: list[str]) -> dict[str, str]:
    """Docstrings of the classes and functions in ``paths``, by full name."""
    import ast

    docs: dict[str, str] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in getattr(node, "body", []):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}.{child.name}"
                doc = ast.get_docstring(child)
                if doc:
                    docs[name] = doc
                if isinstance(child, ast.ClassDef):
                    visit(child, name)

    for path in paths:
        module = path.removeprefix("src/").removesuffix(".py").replace("/", ".")
        with open(path, encoding="utf-8") as f:
            visit(ast.parse(f.read()), module)
    return docs


def _c_string(text: str) -> str:
    """``text`` as the body of a C string literal (UTF-8, octal escapes)."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif 32 <= byte < 127 and ch != "?":  # '?' would risk a trigraph
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out)


def _keep_docstrings(paths: list[str], c_files: list[str]) -> None:
    """mypyc writes only a signature into a compiled function's or class's
    ``__doc__``, so ``help(State.push)`` would show nothing in the default install.
    Put the source docstrings after those signatures in the generated C, before
    it is compiled."""
    docs = _docstrings(paths)
    # mypyc names C functions by the shortest unique module suffix
    # (game___State___push) and classes by the full path (svoi_kozyri___core___game___Game)
    by_c_name: dict[str, str] = {}
    for name, doc in docs.items():
        parts = name.split(".")
        qual = next(i for i, p in enumerate(parts) if p[:1].isupper() or i == len(parts) - 1)
        for start in range(qual):
            by_c_name.setdefault("___".join(parts[start:]), doc)
    method = re.compile(
        r'(\{"\w+",\s*\(PyCFunction\)CPyPy_(\w+?),\s*METH_[\w |]+,\s*PyDoc_STR\(")'
        r'((?:[^"\\]|\\.)*)("\))'
    )
    klass = re.compile(
        r"(sizeof\((\w+?)Object\),(?:(?!\.tp_doc)[^;])*?\.tp_doc = PyDoc_STR\(\")"
        r'((?:[^"\\]|\\.)*)("\))',
        re.S,
    )

    def add(match: re.Match[str]) -> str:
        doc = by_c_name.get(match.group(2))
        if not doc or match.group(3).count("\\n") > 3:  # only "sig\n--\n\n" so far
            return match.group(0)
        return match.group(1) + match.group(3) + _c_string(doc) + match.group(4)

    for path in c_files:
        with open(path, encoding="utf-8") as f:
            code = f.read()
        new = klass.sub(add, method.sub(add, code))
        if new != code:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)


def _ext_modules() -> list[object]:
    if os.environ.get("SVOI_KOZYRI_PURE") == "1":
        return []
    try:
        from mypyc.build import mypycify

        extensions = list(mypycify(COMPILED, opt_level="3", debug_level="0"))
        c_files = [src for ext in extensions for src in getattr(ext, "sources", [])]
        try:
            _keep_docstrings(COMPILED, [c for c in c_files if c.endswith(".c")])
        except Exception as exc:  # documentation only: build without it
            print(f"svoi-kozyri: compiled docstrings unavailable ({exc})", file=sys.stderr)
        return extensions
    except Exception as exc:  # no compiler or mypyc: fall back to pure Python
        print(f"svoi-kozyri: building pure Python ({exc})", file=sys.stderr)
        return []


setup(ext_modules=_ext_modules())
