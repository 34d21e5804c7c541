"""Entry point of the ``svoi-kozyri`` command.

Each sub-command lives in its own module of this package with a
``register(app)`` function, listed in ``COMMAND_MODULES``; this keeps the
surfaces independent and the start-up import cost of one command low.

Bad input of any command ends in one place, :meth:`App.main`: a usage error
(unknown option, bad number), a :class:`~svoi_kozyri.core.SvoiKozyriError`
raised for bad input, or an ``OSError`` about a file becomes one line
``error: ...`` on standard error and exit status 2, never a traceback.
A command that needs a missing extra (``serve`` without ``[web]``) says which
one to install, with exit status 1.
Commands still check what they can before they start working (so nothing is
half done), and real bugs are fixed where they arise; this is the last
resort that keeps the promise of one clear line.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup

try:  # typer >= 0.20 carries its own copy of click
    from typer._click.exceptions import ClickException, NoArgsIsHelpError
except ImportError:  # pragma: no cover - older typer on top of click
    from click.exceptions import ClickException, NoArgsIsHelpError  # type: ignore[assignment]

from ..core import SvoiKozyriError
from .extras import install_hint, missing_extra

COMMAND_MODULES = [
    "engine_cmds",
    "arena_cmds",
    "play_cmds",
    "serve_cmds",
    "account_cmds",
    "search_cmds",
    "notation_cmds",
    "selfplay_cmds",
    "protocol_cmds",
]

#: Exit status of every "bad input" error (as click uses for usage errors).
BAD_INPUT = 2


def os_error_text(e: OSError) -> str:
    """``path: reason`` for an ``OSError``, without Python's ``[Errno N]`` noise."""
    reason = e.strerror or str(e) or type(e).__name__
    if reason and reason[0].isupper() and not reason[:2].isupper():
        reason = reason[0].lower() + reason[1:]
    name = e.filename
    return f"{name}: {reason}" if name is not None else reason


def _usage_line(e: ClickException) -> str:
    """A click usage error as one line, with where to find help."""
    message = " ".join(e.format_message().split())
    ctx = getattr(e, "ctx", None)
    if ctx is not None and ctx.command.get_help_option(ctx) is not None:
        message += f" (see {ctx.command_path} --help)"
    return message


class App(TyperGroup):
    """The command group; its :meth:`main` turns bad input into one error line."""

    def main(  # type: ignore[override]
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Run a command; in standalone mode every bad-input error exits with one line."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except NoArgsIsHelpError as e:
            typer.echo(e.format_message())
            sys.exit(BAD_INPUT)
        except ClickException as e:
            typer.echo(f"error: {_usage_line(e)}", err=True)
            sys.exit(e.exit_code)
        except typer.Exit as e:
            sys.exit(e.exit_code)
        except typer.Abort:
            typer.echo("Aborted.", err=True)
            sys.exit(1)
        except SvoiKozyriError as e:
            typer.echo(f"error: {e}", err=True)
            sys.exit(BAD_INPUT)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as e:
            typer.echo(f"error: {os_error_text(e)}", err=True)
            sys.exit(BAD_INPUT)
        except BrokenPipeError:
            sys.exit(1)
        except ImportError as e:
            needed = missing_extra(e)
            if needed is None:
                raise
            typer.echo(
                f"error: this command needs the [{needed}] extra "
                f"(no module named {e.name!r}): {install_hint(needed)}",
                err=True,
            )
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    name="svoi-kozyri",
    help="Svoi Kozyri (own trumps): play, analyse and simulate the card game.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",  # reflow the docstrings' hard line breaks
    cls=App,
)

for _name in COMMAND_MODULES:
    importlib.import_module(f"{__package__}.{_name}").register(app)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
