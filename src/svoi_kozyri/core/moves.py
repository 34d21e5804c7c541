"""Moves, seats and phases: the turn-level :class:`Move`, interned once per card
combination, and the move generation and checking every player and search shares.

Move generation takes only what the acting player knows (their hand, the top card,
the phase) and the game's precomputed tables, so observations use it as well as
full states.  Compiled with mypyc with the rest of the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from .cards import (
    NUM_CARDS,
    Card,
    CardSet,
    format_card,
    parse_card,
)
from .errors import HandOverError, IllegalMoveError, InvalidMoveError, PositionError
from .tables import _ACTIONS_CACHE, _actions_of

if TYPE_CHECKING:
    from .game import Game

# Phases (modes) of a state.
FREE: Final = 0  # free lead of one card
RESPOND: Final = 1  # beat the top card (then lead) or pick up
LEAD: Final = 2  # mid-turn: beaten, must now lead a second card (step level only)
OVER: Final = 3  # the hand has ended
PHASE_NAMES: Final = ("free", "respond", "lead", "over")

PICKUP: Final = NUM_CARDS  # step-level action index of a refusal
NUM_ACTIONS: Final = NUM_CARDS + 1
_PICKUP_BIT: Final = 1 << PICKUP
_NO_CARD: Final = NUM_CARDS  # "no lead" column of the beat-move table

SEAT_LETTERS: Final = "ABCD"


def seat_name(seat: int) -> str:
    """Seat letter ``A``..``D`` of a seat index."""
    return SEAT_LETTERS[seat]


def parse_seat(value: object, n: int = 4) -> int:
    """Seat index of a seat given as an index (``1``) or a letter (``"B"``/``"b"``),
    checked against the number of players ``n``.  The one seat parser of the
    library: every API that takes a seat accepts both forms, and every bad seat
    raises :class:`PositionError` naming the seats the table has.
    """
    if type(value) is int:
        if not 0 <= value < n:
            raise PositionError(f"unknown seat {value} (seats are 0..{n - 1} at {n} players)")
        return value
    letters = SEAT_LETTERS[:n]
    if not isinstance(value, str):
        raise PositionError(f"a seat is a letter or an index, not {type(value).__name__}")
    t = value.strip().upper()
    if len(t) != 1 or t not in letters:
        raise PositionError(f"unknown seat {value!r} (seats are {', '.join(letters)})")
    return SEAT_LETTERS.index(t)


# --------------------------------------------------------------------------- moves


class Move:
    """A turn-level action.  Instances are interned: compare with ``==`` or ``is``.

    ``lead X`` has ``beat is None``; ``beat X`` (going out on a defence) has
    ``lead is None``; ``pickup`` has both ``None``.
    """

    __slots__ = ("beat", "lead")

    beat: Card | None
    lead: Card | None

    def __init__(self, beat: Card | None, lead: Card | None) -> None:
        self.beat = beat
        self.lead = lead

    @property
    def is_pickup(self) -> bool:
        """True for a refusal."""
        return self.beat is None and self.lead is None

    @property
    def is_lead(self) -> bool:
        """True for a one-card free lead."""
        return self.beat is None and self.lead is not None

    def cards(self) -> tuple[Card, ...]:
        """The cards played, in order."""
        return tuple(c for c in (self.beat, self.lead) if c is not None)

    def steps(self) -> tuple[int, ...]:
        """The equivalent step-level actions."""
        return self.cards() or (PICKUP,)

    def __str__(self) -> str:
        if self.beat is None:
            return "pickup" if self.lead is None else f"lead {format_card(self.lead)}"
        if self.lead is None:
            return f"beat {format_card(self.beat)}"
        return f"beat {format_card(self.beat)} lead {format_card(self.lead)}"

    def __repr__(self) -> str:
        return f"Move({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self.beat == other.beat and self.lead == other.lead

    def __hash__(self) -> int:
        return hash((self.beat, self.lead))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Move.get, (self.beat, self.lead))

    @staticmethod
    def get(beat: Card | None, lead: Card | None) -> Move:
        """The interned move for ``beat``/``lead``."""
        if beat is None:
            return PICKUP_MOVE if lead is None else LEAD_MOVES[lead]
        return BEAT_MOVES[beat][_NO_CARD if lead is None else lead]

    @staticmethod
    def parse(text: object) -> Move:
        """Parse strict notation: ``lead X``, ``beat X lead Y``, ``beat X``, ``pickup``.

        Keywords are case-insensitive and ``T`` is accepted for 10.

        >>> Move.parse("beat 6D lead QS"), Move.parse("PICKUP")
        (Move('beat 6D lead QS'), Move('pickup'))
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be text, not {type(text).__name__}")
        words = text.split()
        low = [w.lower() for w in words]
        try:
            if low == ["pickup"]:
                return PICKUP_MOVE
            if len(low) == 2 and low[0] == "lead":
                return LEAD_MOVES[parse_card(words[1])]
            if len(low) == 2 and low[0] == "beat":
                return BEAT_MOVES[parse_card(words[1])][_NO_CARD]
            if len(low) == 4 and low[0] == "beat" and low[2] == "lead":
                b, ld = parse_card(words[1]), parse_card(words[3])
                if b == ld:
                    raise InvalidMoveError(f"malformed move {text!r}: beat and lead are one card")
                return BEAT_MOVES[b][ld]
        except ValueError as e:
            if isinstance(e, InvalidMoveError):
                raise
            raise InvalidMoveError(f"malformed move {text!r}: {e}") from None
        raise InvalidMoveError(
            f"malformed move {text!r}: expected 'lead X', 'beat X lead Y', 'beat X' or 'pickup'"
        )


PICKUP_MOVE: Final = Move(None, None)
LEAD_MOVES: Final[tuple[Move, ...]] = tuple(Move(None, c) for c in range(NUM_CARDS))
BEAT_MOVES: Final[tuple[tuple[Move, ...], ...]] = tuple(
    tuple(Move(b, ld if ld < NUM_CARDS else None) for ld in range(NUM_CARDS + 1))
    for b in range(NUM_CARDS)
)


def decode_log_entry(e: int) -> tuple[int, Move, CardSet]:
    """One turn of the public log, stored as an int (``seat | (beat + 1) << 2 |
    (lead + 1) << 8 | taken << 14``), as ``(seat, move, cards picked up)``."""
    beat = (e >> 2 & 63) - 1
    lead = (e >> 8 & 63) - 1
    return (
        e & 3,
        Move.get(None if beat < 0 else beat, None if lead < 0 else lead),
        e >> 14,
    )


def as_action(a: object) -> int:
    """An int-like step action (e.g. a NumPy integer) as an int; -1 if it is not one
    (a bool is not: ``True`` would otherwise be card 1).  The conversion
    :meth:`State.apply_action` makes, public for wrappers that check actions first."""
    if isinstance(a, bool) or not hasattr(a, "__index__"):
        return -1
    return int(a.__index__())


def moves_for(game: Game, seat: int, hand: CardSet, top: int, phase: int) -> list[Move]:
    """Legal turn-level moves of ``seat`` holding ``hand`` in ``phase`` with top card
    ``top`` (ignored unless responding).  Needs only what the acting player knows, so
    observations use it too."""
    if phase == FREE:
        return [LEAD_MOVES[c] for c in (_ACTIONS_CACHE.get(hand) or _actions_of(hand))]
    if phase == RESPOND:
        h = hand
        b = game._beat[seat][top] & h
        out = [PICKUP_MOVE]
        if b:
            for c1 in _ACTIONS_CACHE.get(b) or _actions_of(b):
                rest = h ^ (1 << c1)
                row = BEAT_MOVES[c1]
                if rest:
                    out += [row[c2] for c2 in (_ACTIONS_CACHE.get(rest) or _actions_of(rest))]
                else:
                    out.append(row[_NO_CARD])
        return out
    if phase == LEAD:
        raise IllegalMoveError("mid-turn (a beat awaits its lead): use step-level actions")
    return []


def check_move(game: Game, seat: int, hand: CardSet, top: int, phase: int, move: object) -> None:
    """Raise :class:`IllegalMoveError` with a specific reason unless ``move`` is legal
    for ``seat`` holding ``hand`` with top card ``top`` (-1: empty pile) in ``phase``.
    Needs only what the acting player knows, so observations use it too."""
    if not isinstance(move, Move):
        raise IllegalMoveError(f"expected a Move, not {type(move).__name__}")
    if phase == OVER:
        raise HandOverError("the hand is over: no more moves")
    if phase == LEAD:
        raise IllegalMoveError("mid-turn (a beat awaits its lead): use step-level actions")
    who = seat_name(seat)
    h = hand
    if move.is_pickup:
        if phase == FREE:
            raise IllegalMoveError(f"{who} has a free lead: there is nothing to pick up")
        return
    if move.beat is None:
        assert move.lead is not None
        if phase != FREE:
            raise IllegalMoveError(
                f"{who} must beat {format_card(top)} (then lead) or pick up; "
                "a plain lead is only for a free lead"
            )
        if not h >> move.lead & 1:
            raise IllegalMoveError(f"{format_card(move.lead)} is not in {who}'s hand")
        return
    if phase == FREE:
        raise IllegalMoveError(f"{who} has a free lead: lead one card, there is nothing to beat")
    b = move.beat
    if not h >> b & 1:
        raise IllegalMoveError(f"{format_card(b)} is not in {who}'s hand")
    if not game._beat[seat][top] >> b & 1:
        raise IllegalMoveError(f"{format_card(b)} does not beat {format_card(top)} for {who}")
    rest = h & ~(1 << b)
    if move.lead is None:
        if rest:
            raise IllegalMoveError(
                f"after beating with {format_card(b)} {who} must lead another card"
            )
    elif not rest >> move.lead & 1:
        raise IllegalMoveError(f"{format_card(move.lead)} is not in {who}'s hand")
