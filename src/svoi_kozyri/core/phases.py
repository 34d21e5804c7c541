"""The named kinds of the engine: the :class:`Phase` of a state and the
:class:`OutKind` of a player going out.

Why enums: the phase used to be an ``int`` with a parallel ``mode`` string, and the
way a player went out a bare ``"lead"``/``"defence"`` string repeated across
modules.  ``Phase`` is an ``IntEnum`` whose members equal the engine's ``FREE``,
``RESPOND``, ``LEAD`` and ``OVER`` constants, so ``state.phase == Phase.RESPOND``
holds while the compiled hot loop keeps comparing plain ints (python-chess keeps
its colours and piece types as plain ints for the same reason).  ``OutKind`` is a
``str`` enum, so records and JSON keep the words ``lead`` and ``defence``.

>>> from svoi_kozyri import Game, Rules, Phase, OutKind
>>> state = Game(Rules(num_players=2)).new_hand(seed=1)
>>> Phase(state.phase), Phase(state.phase).label
(<Phase.FREE: 0>, 'free')
>>> OutKind.parse("defence") is OutKind.DEFENCE
True
"""

from __future__ import annotations

from enum import IntEnum, StrEnum


class Phase(IntEnum):
    """What the player to act does now (``State.phase``)."""

    #: lead one card freely
    FREE = 0
    #: beat the top card (then lead) or pick up
    RESPOND = 1
    #: mid-turn at the step level: the top card is beaten, now lead the second card
    LEAD = 2
    #: the hand has ended
    OVER = 3

    @property
    def label(self) -> str:
        """The lower-case word of the notations (``free``, ``respond``, ...)."""
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Phase:
        """The phase named ``text`` (``free``, ``respond``, ``lead`` or ``over``), or
        :class:`~.errors.PositionError`."""
        from .errors import PositionError

        try:
            return cls[text.strip().upper()]
        except KeyError:
            names = ", ".join(p.label for p in cls)
            raise PositionError(f"unknown phase {text!r} (one of {names})") from None


class OutKind(StrEnum):
    """How a player went out (``State.outs``): the last card led, or beaten."""

    #: the player's last card was a lead
    LEAD = "lead"
    #: the player's last card beat the top card
    DEFENCE = "defence"

    @classmethod
    def parse(cls, text: str) -> OutKind:
        """The out kind named ``text``, or :class:`~.errors.PositionError`."""
        from .errors import PositionError

        try:
            return cls(text.strip().lower())
        except ValueError:
            raise PositionError(f"unknown out kind {text!r} (lead or defence)") from None
