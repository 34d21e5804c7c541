"""Line input for the terminal game: prompt_toolkit on a real terminal, plain
lines otherwise.

prompt_toolkit gives history, tab completion of the legal moves and line
editing when a person sits at a terminal (it also falls back to a simple mode
on ``TERM=dumb``).  When standard input is a pipe or a file, a plain line reader
takes over, so the game can be scripted (``printf 'p\\n' | svoi-kozyri play``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Protocol, TextIO

from .inputs import MoveCompleter


class Prompter(Protocol):
    """Something that asks for one line of input.  End of input raises ``EOFError``."""

    def ask(self, message: str, words: Sequence[tuple[str, str]] = ()) -> str:
        """Show ``message`` and return the line typed (``words`` feed completion)."""
        ...


class ToolkitPrompter:
    """prompt_toolkit session with in-memory history and move completion."""

    def __init__(self) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import InMemoryHistory

        self.session: PromptSession[str] = PromptSession(history=InMemoryHistory())

    def ask(self, message: str, words: Sequence[tuple[str, str]] = ()) -> str:
        """One line, with Tab completing the given words; Ctrl-D raises ``EOFError``."""
        completer = MoveCompleter(words) if words else None
        return self.session.prompt(message, completer=completer, complete_while_typing=False)


class StreamPrompter:
    """Reads lines from a text stream (a pipe, a file, a test's ``StringIO``)."""

    def __init__(self, infile: TextIO | None = None, outfile: TextIO | None = None) -> None:
        self.infile = infile if infile is not None else sys.stdin
        self.outfile = outfile if outfile is not None else sys.stdout

    def ask(self, message: str, words: Sequence[tuple[str, str]] = ()) -> str:
        """Write the prompt, read one line; end of input raises ``EOFError``."""
        self.outfile.write(message)
        self.outfile.flush()
        line = self.infile.readline()
        if not line:
            self.outfile.write("\n")
            raise EOFError
        return line.rstrip("\r\n")


def default_prompter() -> Prompter:
    """prompt_toolkit when both ends are a terminal, plain lines otherwise."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return ToolkitPrompter()
    return StreamPrompter()
