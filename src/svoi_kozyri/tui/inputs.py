"""Reading what a player types at the prompt: a move in forgiving notation, a
menu number, or one of the table commands.

Moves are parsed by :func:`svoi_kozyri.notation.forgiving.parse_forgiving` (``6d qs``,
``10h``, ``p``, ``take``, strict ``beat 6D lead QS``) so the terminal accepts
exactly what the rules accept, with the engine's specific error messages.  The
parser gets only the player's :class:`Observation`: it rebuilds a state with the
player's own hand, the pile and placeholder cards for the others, which is
enough because legality depends only on the acting hand and the pile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from ..core import (
    FREE,
    CardError,
    IllegalMoveError,
    Move,
    Observation,
    format_card,
    parse_card,
)
from ..notation.forgiving import MOVE_WORDS, parse_forgiving

#: Table commands and their aliases (the first spelling is the one shown in help).
COMMANDS: dict[str, tuple[str, ...]] = {
    "help": ("?", "help"),
    "moves": ("moves", "menu", "m"),
    "pile": ("pile",),
    "log": ("log", "history"),
    "known": ("known", "holds"),
    "hint": ("hint",),
    "board": ("board", "show"),
    "quit": ("quit", "exit", "q"),
}
_ALIASES = {alias: name for name, aliases in COMMANDS.items() for alias in aliases}

HELP_TEXT = """\
Type your move in the project's notation; forgiving forms are fine:
  6d qs        beat with 6D, then lead QS   (also: beat 6D lead QS)
  10h          a free lead of 10H (or your last card, beating)
  p            pick up (also: pickup, take)
  3            the move numbered 3 in the 'moves' menu
Commands: moves (numbered menu)  pile (whole pile)  log (all turns of this hand)
          known (cards known to be in each hand)  hint (ask the strongest bot)
          board (show the table again)  quit
Tab completes moves. Cards in [brackets] can beat the top card."""


class InputError(ValueError):
    """The typed text is not a legal move or command; the message says why."""


@dataclass(frozen=True)
class Command:
    """A table command typed at the prompt (``help``, ``pile``, ...)."""

    name: str


def short_notation(move: Move) -> str:
    """The short forgiving form of a move: ``6D QS``, ``10H``, ``p``."""
    if move.is_pickup:
        return "p"
    return " ".join(format_card(c) for c in move.cards())


def parse_input(obs: Observation, text: str, menu: Sequence[Move] = ()) -> Move | Command:
    """A command, a menu number (1-based index into ``menu``) or a legal move.

    Raises :class:`InputError` with a short, specific message otherwise.
    """
    words = text.strip()
    if not words:
        raise InputError("type a move (e.g. 6d qs, or p to pick up), or ? for help")
    low = words.lower()
    if low in _ALIASES:
        return Command(_ALIASES[low])
    if low.isdigit():
        if not menu:
            raise InputError("no menu is shown: type 'moves' for the numbered list")
        k = int(low)
        if not 1 <= k <= len(menu):
            raise InputError(f"choose a number from 1 to {len(menu)}")
        return menu[k - 1]
    if not obs.my_turn:
        raise InputError("it is not your turn")
    for word in words.replace(",", " ").split():
        if word.lower() not in _MOVE_WORDS and not _looks_like_card(word):
            raise InputError(
                f"{word!r} is not a card or command (cards: 10H, QS; p picks up; ? help)"
            )
    try:
        return parse_forgiving(obs, words)
    except IllegalMoveError as e:
        raise InputError(_friendlier(str(e), obs)) from None


_MOVE_WORDS = MOVE_WORDS


def _looks_like_card(word: str) -> bool:
    try:
        parse_card(word)
    except CardError:
        return False
    return True


def _friendlier(message: str, obs: Observation) -> str:
    """The engine says "A's hand"; at the prompt the hand is "your hand"."""
    if obs.seat is not None:
        from ..core import seat_name

        who = seat_name(obs.seat)
        message = message.replace(f"{who}'s hand", "your hand")
        message = message.replace(f" for {who}", " for you")
        message = message.replace(f"{who} must", "you must").replace(f"{who} has", "you have")
        message = message.replace(f"{who} cannot", "you cannot")
    if obs.phase == FREE and "pick up" in message:
        message += " (lead one card)"
    return message


def completion_words(obs: Observation) -> list[tuple[str, str]]:
    """``(text, description)`` pairs the prompt offers: every legal move in short
    and strict notation, then the commands."""
    out: list[tuple[str, str]] = []
    for move in obs.legal_moves():
        out.append((short_notation(move), str(move)))
    for move in obs.legal_moves():
        out.append((str(move), "move"))
    for name, aliases in COMMANDS.items():
        out.append((aliases[-1] if name == "help" else aliases[0], "command"))
    return out


class MoveCompleter(Completer):
    """Tab completion of the legal moves and commands, case-insensitively by prefix."""

    def __init__(self, words: Iterable[tuple[str, str]]) -> None:
        self.words = list(words)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterable[Completion]:
        """Entries whose text starts with what was typed so far (whole line)."""
        typed = document.text_before_cursor.lstrip()
        low = typed.lower()
        seen: set[str] = set()
        for text, meta in self.words:
            if text.lower().startswith(low) and text not in seen:
                seen.add(text)
                yield Completion(text, start_position=-len(typed), display_meta=meta)
