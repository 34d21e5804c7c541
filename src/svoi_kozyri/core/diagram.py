"""A multi-line text diagram of a hand, for ``str(state)`` and ``str(observation)``.

Why: ``repr`` is one dense line for logs and tests; a person reading a state in a
console or a notebook wants the table: one line per seat (own suits, hand, size,
who acts), then the pile with its top card, then whose turn it is or how it ended.
An observation's diagram shows only what its viewer may know: hidden cards are
``##``, publicly known cards of a hidden hand are listed.

>>> from svoi_kozyri import Game, Rules, observe
>>> from svoi_kozyri.core.cards import parse_card_list, parse_cards
>>> state = Game(Rules(num_players=2)).position(
...     {"A": parse_cards("6S 7S"), "B": parse_cards("7H 8H")}, pile=parse_card_list("9D"),
...     to_act="A", phase="respond")
>>> print(state)
  A  own ♠♥  7S 6S            2 cards  <- to act
  B  own ♦♣  8H 7H            2 cards
  pile: 9D  (1 card, top 9D)
  A to act: beat the top card (then lead) or pick up
>>> print(observe(state, 1))
  A  own ♠♥  ## ##            2 cards  <- to act
  B  own ♦♣  8H 7H            2 cards
  pile: 9D  (1 card, top 9D)
  A to act: beat the top card (then lead) or pick up
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .cards import SUIT_SYMBOLS, format_cards

if TYPE_CHECKING:
    from .game import Game

_SEATS = "ABCD"
_MODE_TEXT = (
    "lead a card",
    "beat the top card (then lead) or pick up",
    "lead the second card of the turn",
    "",
)


def diagram(
    game: Game,
    seen: Sequence[int],
    sizes: Sequence[int],
    pile: Sequence[int],
    to_act: int | None,
    phase: int,
    outs: Iterable[tuple[int, object]],
    outcome: object | None,
) -> str:
    """The text diagram of a hand from what its viewer sees: per seat the cards
    shown (``seen``, a bitmask each) and the hand's size (the rest is ``##``).
    :class:`~.state.State` passes every hand, :class:`~.observation.Observation`
    what its viewer may know; this module knows neither class (it sits below
    both)."""
    n = game.n
    out_kinds = {seat: kind for seat, kind in outs}
    lines = []
    for seat in range(n):
        own = "".join(SUIT_SYMBOLS[s] for s in range(4) if game.owners[seat] >> s & 1)
        shown = format_cards(seen[seat])
        hidden = sizes[seat] - seen[seat].bit_count()
        cards = " ".join([shown] * bool(shown) + ["##"] * hidden) or "-"
        size = f"{sizes[seat]} card{'s' * (sizes[seat] != 1)}"
        extra = ""
        if seat == to_act:
            extra = "  <- to act"
        elif seat in out_kinds:
            extra = f"  out on a {out_kinds[seat]}"
        lines.append(f"  {_SEATS[seat]}  own {own:<3} {cards:<16} {size:>7}{extra}")
    if pile:
        count = f"{len(pile)} card{'s' * (len(pile) != 1)}"
        lines.append(f"  pile: {format_cards(pile)}  ({count}, top {format_cards([pile[-1]])})")
    else:
        lines.append("  pile: empty")
    if outcome is not None:
        lines.append(f"  over: {outcome}")
    elif to_act is not None:
        lines.append(f"  {_SEATS[to_act]} to act: {_MODE_TEXT[phase]}")
    return "\n".join(lines)
