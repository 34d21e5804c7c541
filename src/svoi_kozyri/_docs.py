"""Module docstrings for the mypyc-compiled modules.

mypyc drops a compiled module's docstring (``help(svoi_kozyri.core.game)`` would
be empty); setup.py keeps the class and function docstrings, and this restores the
module ones from the sources that ship beside the extension modules.
"""

from __future__ import annotations

import ast
import contextlib
import sys
from pathlib import Path


def restore_module_docs(package: str) -> None:
    """Give each loaded, compiled module of ``package`` its source docstring (called
    by the package ``__init__`` modules once their compiled modules are imported)."""
    for name, module in list(sys.modules.items()):
        if not name.startswith(package + ".") or module is None or module.__doc__:
            continue
        path = Path(getattr(module, "__file__", "") or "")
        if path.suffix == ".py" or not path.name:
            continue
        source = path.with_name(path.name.split(".")[0] + ".py")
        # documentation only: never stop the import over it
        with contextlib.suppress(OSError, SyntaxError, ValueError):
            module.__doc__ = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8")))
