"""Build helper: keep the source docstrings of the modules mypyc compiles.

Why: mypyc writes only a text signature (``"push($self, a)\\n--\\n\\n"``) into a
compiled function's, method's or class's ``__doc__``, so ``help(State.push)`` would
show nothing in the default install.  There is no supported way to change that:
mypyc (2.4) has no option for docstrings, the ``__doc__`` of a compiled function or
method cannot be set after import (it is read from the C method table), and
mypyc's code generator cannot be hooked from Python (mypyc is itself compiled, so
its internal calls do not go through module globals).  So the docstrings go into
the generated C, between mypyc's generating it and the compiler's reading it:
:func:`keep_docstrings` appends, in each ``PyDoc_STR("<signature>\\n--\\n\\n")`` of a
method table entry and of a class's ``tp_doc``, the docstring read from the source
of that function or class.  Nothing else of the C is touched, and an entry that
does not look as expected is left as mypyc wrote it (the build goes on; only that
docstring is missing).

The one coupling is to the shape of mypyc's C (a method entry names its wrapper
``CPyPy_<C name>``; a class's template names its ``<C name>Object`` before its
``tp_doc``; C names are the module-path suffix and the qualified name joined by
``___``); ``tests/test_build_support.py`` generates the C of a small module with the
installed mypyc and checks that every docstring lands, so a mypyc release that
changes that shape fails there rather than silently in a build.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

__all__ = ["c_string", "docstrings", "keep_docstrings", "with_docstrings"]

_METHOD = re.compile(
    r'(\{"\w+",\s*\(PyCFunction\)CPyPy_(\w+?),\s*METH_[\w |]+,\s*PyDoc_STR\(")'
    r'((?:[^"\\]|\\.)*)("\))'
)
"""A method table entry: its head up to the doc string, the wrapper's C name, the
doc string's C text, its closing."""
_CLASS = re.compile(
    r"(sizeof\((\w+?)Object\),(?:(?!\.tp_doc)[^;])*?\.tp_doc = PyDoc_STR\(\")"
    r'((?:[^"\\]|\\.)*)("\))',
    re.S,
)
"""A class's type template: up to its doc string, the class's C name, the doc
string's C text, its closing."""


def docstrings(paths: list[str], root: str = "src") -> dict[str, str]:
    """The docstrings of the classes, functions and methods in ``paths`` (files
    under ``root``), by full name (``svoi_kozyri.core.game.Game.deal``)."""
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
        module = ".".join(Path(path).relative_to(root).with_suffix("").parts)
        visit(ast.parse(Path(path).read_text(encoding="utf-8")), module)
    return docs


def c_string(text: str) -> str:
    """``text`` as the body of a C string literal (UTF-8, octal escapes; ``?``
    escaped too, which could start a trigraph)."""
    out = []
    for byte in text.encode("utf-8"):
        ch = chr(byte)
        if ch in '\\"':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif 32 <= byte < 127 and ch != "?":
            out.append(ch)
        else:
            out.append(f"\\{byte:03o}")
    return "".join(out)


def _by_c_name(docs: dict[str, str]) -> dict[str, str]:
    """``docs`` under every C name mypyc may give them: a function's or method's
    is the shortest module suffix that makes it unique among the compiled modules
    plus the qualified name (``game___State___push``, or ``push`` alone when that is
    unique), a class's the full path (``svoi_kozyri___core___game___Game``).  Every
    suffix is offered, the longest first; a short one that two docstrings share
    cannot be a C name, which is unique among the same functions."""
    out: dict[str, str] = {}
    for name, doc in docs.items():
        parts = name.split(".")
        # the qualified name starts at the first class (capitalised) or the last part
        qual = next(i for i, p in enumerate(parts) if p[:1].isupper() or i == len(parts) - 1)
        for start in range(qual + 1):
            out.setdefault("___".join(parts[start:]), doc)
    return out


def with_docstrings(c_code: str, docs: dict[str, str]) -> str:
    """``c_code`` (mypyc's generated C) with ``docs`` (by full name, as
    :func:`docstrings` gives them) appended to the doc strings of their functions,
    methods and classes.  A doc string that holds more than mypyc's signature block
    (``"<signature>\\n--\\n\\n"``) is left alone, so applying this twice changes
    nothing."""
    by_c_name = _by_c_name(docs)

    def add(match: re.Match[str]) -> str:
        doc = by_c_name.get(match.group(2))
        if not doc or not match.group(3).endswith("\\n--\\n\\n"):  # a docstring already
            return match.group(0)
        return match.group(1) + match.group(3) + c_string(doc) + match.group(4)

    return _CLASS.sub(add, _METHOD.sub(add, c_code))


def keep_docstrings(paths: list[str], c_files: list[str], root: str = "src") -> None:
    """Rewrite the generated ``c_files`` (in place, before they are compiled) so that
    the compiled functions, methods and classes of ``paths`` carry their source
    docstrings (see the module's docstring)."""
    docs = docstrings(paths, root)
    for path in c_files:
        file = Path(path)
        code = file.read_text(encoding="utf-8")
        new = with_docstrings(code, docs)
        if new != code:
            file.write_text(new, encoding="utf-8")
