"""Entry point of the ``svoi-kozyri`` command.

Each sub-command lives in its own module of this package with a
``register(app)`` function, listed in ``COMMAND_MODULES``; this keeps the
surfaces independent and the start-up import cost of one command low.
"""

from __future__ import annotations

import importlib

import typer

COMMAND_MODULES = [
    "engine_cmds",
    "arena_cmds",
    "play_cmds",
    "serve_cmds",
    "search_cmds",
    "notation_cmds",
    "protocol_cmds",
]

app = typer.Typer(
    name="svoi-kozyri",
    help="Svoi Kozyri (own trumps): play, analyse and simulate the card game.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _name in COMMAND_MODULES:
    importlib.import_module(f"{__package__}.{_name}").register(app)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
