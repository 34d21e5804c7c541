"""The one taxonomy of errors the library raises for bad input.

Why a taxonomy: callers (the terminal, the server, the engine protocol, other
programs) must tell "you typed something unreadable" from "that move is not
allowed now" from "that position cannot exist" without reading message text.
Every error raised for bad input derives from :class:`SvoiKozyriError` and from
``ValueError`` (so code written against plain ``ValueError`` keeps working).

==========================  =====================================================
class                       raised when
==========================  =====================================================
``MalformedError``          text cannot be parsed (cards, moves, positions, records)
``CardError``               ... a card, suit or card list in particular
``InvalidMoveError``        ... a move's notation in particular (also an
                            ``IllegalMoveError``: unreadable text is never legal)
``IllegalMoveError``        a well-formed move that is not legal now
``AmbiguousMoveError``      forgiving input that names more than one legal move
``HandOverError``           any move after the hand has ended
``PositionError``           a position, deal, ownership or seat is inconsistent
``RulesError``              a rules option is invalid or cannot apply
``SessionOverError``        a new hand was asked of a session that has ended
``EmptyMoveStackError``     ``State.pop()`` with nothing to undo (an ``IndexError``)
==========================  =====================================================

Branch from the most specific class: ``except MalformedError`` before
``except IllegalMoveError`` tells an unreadable move from an illegal one.

>>> from svoi_kozyri import State, Game, Rules, IllegalMoveError, MalformedError
>>> state = Game(Rules()).new_hand(seed=1)
>>> try:
...     state.push_text("lead")
... except MalformedError as e:
...     print(type(e).__name__)
InvalidMoveError
"""

from __future__ import annotations


class SvoiKozyriError(Exception):
    """Base class of every error the library raises for bad input."""


class MalformedError(SvoiKozyriError, ValueError):
    """Text that cannot be parsed: a card, move, position, record or message."""


class CardError(MalformedError):
    """A card, suit or card list could not be parsed."""


class IllegalMoveError(SvoiKozyriError, ValueError):
    """The move is well formed but not legal now; the state is unchanged."""


class InvalidMoveError(MalformedError, IllegalMoveError):
    """The move's notation cannot be read; the state is unchanged."""


class AmbiguousMoveError(IllegalMoveError):
    """Forgiving move input matches more than one legal move."""


class HandOverError(IllegalMoveError):
    """A move was attempted after the hand ended."""


class PositionError(SvoiKozyriError, ValueError):
    """A position, deal, ownership or seat is malformed or inconsistent."""


class RulesError(SvoiKozyriError, ValueError):
    """A rules option has an invalid value, contradicts another, or cannot apply."""


class SessionOverError(SvoiKozyriError, ValueError):
    """A new hand was requested from a session that has already ended."""


class EmptyMoveStackError(SvoiKozyriError, IndexError):
    """``State.pop()`` with no move to undo (an ``IndexError``, like ``list.pop`` and
    python-chess's ``Board.pop``)."""


__all__ = [
    "AmbiguousMoveError",
    "CardError",
    "EmptyMoveStackError",
    "HandOverError",
    "IllegalMoveError",
    "InvalidMoveError",
    "MalformedError",
    "PositionError",
    "RulesError",
    "SessionOverError",
    "SvoiKozyriError",
]
