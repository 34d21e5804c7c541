"""Forgiving move input for people typing at a prompt: ``6d qs``, ``10h``, ``p``, ``take``.

Why here and not in the engine: the core reads only the strict notation
(:meth:`Move.parse`); guessing what a person meant ("one card while I must
beat means going out on a defence") is a surface's business, shared by the
terminal game and anything else that lets a person type a move.

>>> from svoi_kozyri import Game, Rules
>>> from svoi_kozyri.notation import position_from_text
>>> from svoi_kozyri.notation.forgiving import parse_forgiving
>>> state = position_from_text(Game(Rules(num_players=2)), {"A": "6S 7S", "B": "7H 8H"})
>>> str(parse_forgiving(state, "6s")), str(parse_forgiving(state, "lead 7s"))
('lead 6S', 'lead 7S')
"""

from __future__ import annotations

from typing import Final

from ..core import (
    PICKUP_MOVE,
    RESPOND,
    CardSet,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Observation,
    State,
    parse_card,
    seat_name,
)
from ..core.game import check_move

#: Words that mean "pick up" on their own.
PICKUP_WORDS: Final = (["p"], ["pickup"], ["pick", "up"], ["take"], ["refuse"], ["pass"])
#: Words that may stand between the cards and mean nothing by themselves.
FILLER_WORDS: Final = ("beat", "lead", "b", "l", "with")
#: Every word the parser knows (besides cards).
MOVE_WORDS: Final = frozenset([w for words in PICKUP_WORDS for w in words] + list(FILLER_WORDS))


def parse_forgiving(view: State | Observation, text: object) -> Move:
    """The move a person typed for the player to act in ``view`` (a state, or the
    observation of the seat typing), checked for legality.

    One card is a lead in free-lead mode, and in respond mode a defence that goes out
    when it is the last card in hand; two cards are beat then lead.  Raises
    :class:`InvalidMoveError` for unreadable text and :class:`IllegalMoveError` for a
    move that is not legal now (the engine's own message).
    """
    if isinstance(view, Observation):
        if view.seat is None:
            raise IllegalMoveError("a spectator cannot move")
        if not view.my_turn:
            who = "nobody" if view.to_act is None else seat_name(view.to_act)
            raise IllegalMoveError(f"it is {who}'s turn, not {seat_name(view.seat)}'s")
        seat = view.seat
        hand = view.hands[seat]
        top = view.pile[-1] if view.pile else -1
        phase = view.phase
        game = view.game
    else:
        if view.is_over:
            seat, hand = -1, 0
        else:
            seat = view.to_act
            hand = view.hands[seat]
        top = view.pile[-1] if view.pile else -1
        phase = view.phase
        game = view.game
    move = _read(text, hand, phase)
    check_move(game, seat, hand, top, phase, move)
    return move


def _read(text: object, hand: CardSet, phase: int) -> Move:
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move must be text, not {type(text).__name__}")
    words = text.replace(",", " ").split()
    low = [w.lower() for w in words]
    if low in PICKUP_WORDS:
        return PICKUP_MOVE
    cards_txt = [w for w in words if w.lower() not in FILLER_WORDS]
    try:
        cs = [parse_card(w) for w in cards_txt]
    except ValueError as e:
        raise InvalidMoveError(f"cannot read {text!r}: {e}") from None
    if len(cs) == 1:
        c = cs[0]
        if phase == RESPOND and hand == 1 << c:
            return Move.get(c, None)
        if phase == RESPOND:
            raise IllegalMoveError("name two cards: the card that beats, then the card you lead")
        return Move.get(None, c)
    if len(cs) == 2:
        if cs[0] == cs[1]:
            raise InvalidMoveError("the beat and the lead must be different cards")
        return Move.get(cs[0], cs[1])
    raise InvalidMoveError(
        f"cannot read {text!r}: type one card to lead, two cards to beat and lead, or p to pick up"
    )
