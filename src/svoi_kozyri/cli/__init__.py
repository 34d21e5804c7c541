"""The ``svoi-kozyri`` command line (a surface: may import every layer).

Its dependencies (typer, rich, prompt-toolkit) are the ``[cli]`` extra: on a
bare install the console script says so in one line instead of a traceback.
This module imports only the standard library for that reason.
"""

from __future__ import annotations

import sys

from .extras import install_hint, missing_extra


def main() -> None:
    """Console-script entry point: the command line, or which extra it needs."""
    try:
        from .main import main as run
    except ImportError as e:
        extra = missing_extra(e)
        if extra is None:
            raise
        print(
            f"svoi-kozyri: the command line needs the [{extra}] extra "
            f"(no module named {e.name!r}): {install_hint(extra)}",
            file=sys.stderr,
        )
        sys.exit(1)
    run()
