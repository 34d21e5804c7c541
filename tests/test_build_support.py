"""The build helper that keeps docstrings in the mypyc-compiled modules
(``build_support/mypyc_docstrings.py``).

Why a test: the helper edits mypyc's generated C, whose shape a mypyc release may
change; here the installed mypyc generates the C of a small package (no C compiler
runs) and every docstring must land in it, under its own signature.
"""

from __future__ import annotations

import codecs
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent

SOURCE = '''
class Greeter:
    """Says hello: a docstring with «non-ASCII» text and a "quote"."""

    def __init__(self, name: str) -> None:
        self.name = name

    def greet(self, times: int) -> str:
        """The greeting, ``times`` times?"""
        return f"hello {self.name}" * times


def shout(text: str) -> str:
    """The text in capitals."""
    return text.upper()
'''


def _helper() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "mypyc_docstrings", ROOT / "build_support" / "mypyc_docstrings.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _doc_strings(c_code: str) -> list[str]:
    """The texts of every ``PyDoc_STR("...")`` of generated C."""
    out = []
    for lit in re.findall(r'PyDoc_STR\("((?:[^"\\]|\\.)*)"\)', c_code):
        raw = lit.replace("\\?", "?").encode("ascii")
        out.append(codecs.escape_decode(raw)[0].decode("utf-8"))
    return out


OTHER = '''
def shout(text: str) -> str:
    """Another shout, in another module."""
    return text


def whisper(text: str) -> str:
    return text.lower()
'''


def _generated_c(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], str]:
    """mypyc's C for the package ``pkg`` (:data:`SOURCE` as ``pkg.greeting``,
    :data:`OTHER` as ``pkg.other``): the paths compiled, and the C."""
    pytest.importorskip("mypyc")
    from mypyc.build import mypycify

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg" / "greeting.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "pkg" / "other.py").write_text(OTHER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # mypy's cache and mypyc's C go under it
    paths = ["pkg/greeting.py", "pkg/other.py"]
    mypycify(paths, target_dir="build")
    return paths, "".join(p.read_text(encoding="utf-8") for p in Path("build").rglob("*.c"))


def _by_signature(c_code: str) -> dict[str, str]:
    """The doc strings of ``c_code`` after their signature blocks, by signature."""
    out = {}
    for doc in _doc_strings(c_code):
        sig, sep, rest = doc.partition("\n--\n\n")
        if sep:
            out[sig] = rest
    return out


def test_docstrings_are_read_by_full_name(tmp_path: Path) -> None:
    path = tmp_path / "pkg" / "greeting.py"
    path.parent.mkdir()
    path.write_text(SOURCE, encoding="utf-8")
    docs = _helper().docstrings([str(path)], root=str(tmp_path))
    assert docs == {
        "pkg.greeting.Greeter": 'Says hello: a docstring with «non-ASCII» text and a "quote".',
        "pkg.greeting.Greeter.greet": "The greeting, ``times`` times?",
        "pkg.greeting.shout": "The text in capitals.",
    }


def test_the_generated_c_gets_every_docstring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    helper = _helper()
    paths, code = _generated_c(tmp_path, monkeypatch)
    assert set(_by_signature(code).values()) == {""}  # mypyc's own: signatures only
    kept = helper.with_docstrings(code, helper.docstrings(paths, root="."))
    docs = _by_signature(kept)
    assert docs["Greeter(name)"] == 'Says hello: a docstring with «non-ASCII» text and a "quote".'
    assert docs["greet($self, times)"] == "The greeting, ``times`` times?"
    # every docstring once, under its own entry (two functions named ``shout`` in
    # two modules: each gets its own); nothing else added or lost
    assert len(_doc_strings(kept)) == len(_doc_strings(code))
    appended = [doc.partition("\n--\n\n")[2] for doc in _doc_strings(kept)]
    assert sorted(filter(None, appended)) == [
        "Another shout, in another module.",
        'Says hello: a docstring with «non-ASCII» text and a "quote".',
        "The greeting, ``times`` times?",
        "The text in capitals.",
    ]
    assert docs["whisper(text)"] == ""  # no docstring, nothing added
    assert helper.with_docstrings(kept, helper.docstrings(paths, root=".")) == kept


def test_keep_docstrings_rewrites_the_files_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    helper = _helper()
    paths, _ = _generated_c(tmp_path, monkeypatch)
    c_files = [str(p) for p in Path("build").rglob("*.c")]
    helper.keep_docstrings(paths, c_files, root=".")
    code = "".join(Path(p).read_text(encoding="utf-8") for p in c_files)
    assert _by_signature(code)["greet($self, times)"] == "The greeting, ``times`` times?"


def test_c_strings_escape_what_c_would_misread() -> None:
    c_string = _helper().c_string
    assert c_string('a"b\\c\nd??=') == 'a\\"b\\\\c\\nd\\077\\077='
    assert c_string("ё") == "\\321\\221"
