"""How a hand ended: a typed :class:`Termination` and the :class:`Outcome`.

Why an enum: the reason a hand ended used to be a bare string repeated in six
modules; a typo there was a silent bug.  ``Termination`` is a ``str`` enum, so
``outcome.termination == "out"`` and JSON encoding keep working, while new code
compares members (``outcome.termination is Termination.OUT``).  Modelled on
python-chess's ``chess.Termination`` / ``chess.Outcome``.

>>> from svoi_kozyri import Outcome, Termination
>>> o = Outcome(1, Termination.OUT)
>>> o.is_draw, o.adjudicated, o.result(), str(o)
(False, False, 'loser B', 'loser B')
>>> Outcome(None, Termination.REPETITION).result()
'draw repetition'
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

_SEATS = "ABCD"


class Termination(StrEnum):
    """Why a hand ended."""

    #: the rules of play ended it: one player is left holding cards (the durak)
    OUT = "out"
    #: a draw by the last card (SPEC A12.2): the last two players went out together
    LAST_CARD = "last_card"
    #: a draw by repetition (SPEC D): the same position came round too often
    REPETITION = "repetition"
    #: the action cap (SPEC D) ended it: a draw, or a loss for the most cards
    ACTION_CAP = "action_cap"

    @property
    def adjudicated(self) -> bool:
        """True when a termination guard, not the rules of play, ended the hand."""
        return self in (Termination.REPETITION, Termination.ACTION_CAP)

    @classmethod
    def parse(cls, text: str) -> Termination:
        """The termination named ``text`` (its value), or :class:`MalformedError`."""
        from .errors import MalformedError

        try:
            return cls(text.strip().lower())
        except ValueError:
            names = ", ".join(t.value for t in cls)
            raise MalformedError(f"unknown termination {text!r} (one of {names})") from None


#: Terminations that may end a hand with a loser / with a draw.
LOSS_TERMINATIONS = (Termination.OUT, Termination.ACTION_CAP)
DRAW_TERMINATIONS = (Termination.LAST_CARD, Termination.REPETITION, Termination.ACTION_CAP)


@dataclass(frozen=True)
class Outcome:
    """How a hand ended: ``loser`` is the durak's seat, or ``None`` for a draw.

    A ``termination`` given by its value (``"repetition"``, as records and JSON
    carry it) is converted to :class:`Termination` and checked.
    """

    loser: int | None
    termination: Termination

    def __post_init__(self) -> None:
        t = self.termination
        if not isinstance(t, Termination):
            object.__setattr__(self, "termination", Termination.parse(str(t)))
        allowed = DRAW_TERMINATIONS if self.loser is None else LOSS_TERMINATIONS
        if self.termination not in allowed:
            from .errors import PositionError

            kind = "a draw" if self.loser is None else "a loss"
            raise PositionError(f"{self.termination.value!r} cannot end a hand in {kind}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Outcome, (self.loser, self.termination.value))

    @property
    def is_draw(self) -> bool:
        """True when nobody lost."""
        return self.loser is None

    @property
    def adjudicated(self) -> bool:
        """True when a termination guard (not the rules of play) ended the hand."""
        return self.termination.adjudicated

    def result(self) -> str:
        """The result in record notation: ``loser B``, ``loser B action_cap``,
        ``draw last_card``..."""
        if self.loser is None:
            return f"draw {self.termination.value}"
        text = f"loser {_SEATS[self.loser]}"
        return text if self.termination is Termination.OUT else f"{text} {self.termination.value}"

    @classmethod
    def parse(cls, text: str, n: int = 4) -> Outcome:
        """Read ``loser B``, ``loser B action_cap``, ``draw last_card`` (the record
        notation of :meth:`result`) or the position notation's ``loser=B``,
        ``loser=B:action_cap``, ``draw=repetition``.  Raises :class:`MalformedError`."""
        import re

        from .errors import MalformedError

        words = re.split(r"[=:\s]+", text.strip())
        kind = words[0].lower() if words else ""
        if kind == "draw" and len(words) == 2:
            draws = {d.value: d for d in DRAW_TERMINATIONS}
            if words[1].lower() not in draws:
                raise MalformedError(f"unknown draw reason {words[1]!r} ({', '.join(draws)})")
            return cls(None, draws[words[1].lower()])
        if kind == "loser" and len(words) in (2, 3):
            seat = words[1].upper()
            if len(seat) != 1 or seat not in _SEATS[:n]:
                seats = ", ".join(_SEATS[:n])
                raise MalformedError(f"unknown loser {words[1]!r} (seats are {seats})")
            losses = {t.value: t for t in LOSS_TERMINATIONS}
            reason = words[2].lower() if len(words) == 3 else "out"
            if reason not in losses:
                raise MalformedError(f"unknown loss reason {words[2]!r} (only action_cap)")
            return cls(_SEATS.index(seat), losses[reason])
        raise MalformedError(
            f"malformed result {text!r}: expected loser B, loser B action_cap or draw REASON"
        )

    def __str__(self) -> str:
        if self.loser is None:
            return f"draw ({self.termination.value})"
        return f"loser {_SEATS[self.loser]}" + (
            " (action cap)" if self.termination is Termination.ACTION_CAP else ""
        )
