"""Which extra of the package brings each third-party module the code imports.

The bare ``pip install svoi-kozyri`` has no dependencies (the engine, notation,
records, SVG and the pure-Python bots); everything else comes with an extra of
``pyproject.toml``.  When a command reaches a module of a missing extra, the
command line says which extra to install instead of showing a traceback.
``tests/test_light_install.py`` keeps this map and ``pyproject.toml`` in step
with every import in ``src/``.  Standard library only: it runs on a bare install.
"""

from __future__ import annotations

#: Top-level import name -> the extra that installs it.
EXTRA_FOR_MODULE: dict[str, str] = {
    "typer": "cli",
    "click": "cli",
    "rich": "cli",
    "prompt_toolkit": "cli",
    "numpy": "fast",
    "numba": "fast",
    "llvmlite": "fast",
    "platformdirs": "bots",
    "openskill": "bots",
    "matplotlib": "plots",
    "gymnasium": "envs",
    "pettingzoo": "envs",
    "pyspiel": "envs",
    "open_spiel": "envs",
    "pyarrow": "envs",
    "fastapi": "web",
    "starlette": "web",
    "uvicorn": "web",
    "websockets": "web",
    "sqlalchemy": "web",
    "alembic": "web",
    "pydantic": "web",
    "pydantic_core": "web",
    "argon2": "web",
    "confusable_homoglyphs": "web",
    "prometheus_client": "web",
    "psycopg": "postgres",
    "ray": "ray",
}


def missing_extra(error: ImportError) -> str | None:
    """The extra whose absence caused ``error``, or ``None`` when it is not a
    missing third-party module of one of the package's extras (a real bug)."""
    if not isinstance(error, ModuleNotFoundError) or not error.name:
        return None
    return EXTRA_FOR_MODULE.get(error.name.partition(".")[0])


def install_hint(extra: str) -> str:
    """The one line that tells how to get ``extra``."""
    return f"pip install 'svoi-kozyri[{extra}]'"
