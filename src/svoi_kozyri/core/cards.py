"""Cards, suits, ranks and card sets as plain ints.

A card is an ``int`` in ``0..39``: ``suit * 10 + rank`` where suits are
``S H D C`` (0..3, the SPEC's listing order) and ranks ``5 6 7 8 9 10 J Q K A``
(0..9).  Rank 5 exists only in the 40-card Besicovitch deck.  A set of cards is
an ``int`` bitmask (bit ``card`` set), in the spirit of python-chess bitboards:
set operations are single integer operations and ``int.bit_count`` is popcount.

>>> parse_card("10H"), parse_card("TH"), format_card(parse_card("as"))
(15, 15, 'AS')
>>> format_cards(parse_cards("KS 8H 9C"))
'KS 8H 9C'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .errors import CardError

Card = int
CardSet = int

SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
RANKS = ("5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
NUM_RANKS = 10
NUM_CARDS = 40

S, H, D, C = range(4)
R5, R6, R7, R8, R9, R10, RJ, RQ, RK, RA = range(10)

SUIT_MASK: tuple[CardSet, ...] = tuple(((1 << NUM_RANKS) - 1) << (NUM_RANKS * s) for s in range(4))
RANK_MASK: tuple[CardSet, ...] = tuple(
    sum(1 << (s * NUM_RANKS + r) for s in range(4)) for r in range(NUM_RANKS)
)
ALL_CARDS: CardSet = (1 << NUM_CARDS) - 1


def card(suit: int, rank: int) -> Card:
    """Build a card from suit and rank indices."""
    return suit * NUM_RANKS + rank


def suit_of(c: Card) -> int:
    """Suit index of a card."""
    return c // NUM_RANKS


def rank_of(c: Card) -> int:
    """Rank index of a card (0 is the five, 9 the ace)."""
    return c % NUM_RANKS


def higher_mask(c: Card) -> CardSet:
    """Cards of the same suit with a higher rank."""
    r = rank_of(c)
    return SUIT_MASK[suit_of(c)] & ~((1 << (c + 1)) - 1) if r < RA else 0


def deck_mask(ranks_from: int) -> CardSet:
    """All cards whose rank index is at least ``ranks_from`` (1: the 36-card deck)."""
    m = 0
    for s in range(4):
        for r in range(ranks_from, NUM_RANKS):
            m |= 1 << card(s, r)
    return m


_SUIT_CHARS = {ch: i for i, ch in enumerate(SUITS)}
_SUIT_CHARS.update({sym: i for i, sym in enumerate(SUIT_SYMBOLS)})
_RANK_CHARS = {r: i for i, r in enumerate(RANKS)}
_RANK_CHARS["T"] = R10


def parse_suit(text: str) -> int:
    """Parse a suit letter (``S H D C``, any case) or symbol."""
    t = text.strip().upper()
    if t not in _SUIT_CHARS:
        raise CardError(f"unknown suit {text!r} (expected one of S H D C)")
    return _SUIT_CHARS[t]


def parse_card(text: str) -> Card:
    """Parse ``10H``, ``TH``, ``AS``, ``6c`` or ``Q♠`` into a card."""
    t = text.strip().upper()
    if len(t) < 2:
        raise CardError(f"malformed card {text!r}: expected rank then suit, e.g. 10H or AS")
    rank_part, suit_part = t[:-1], t[-1]
    if rank_part not in _RANK_CHARS:
        raise CardError(f"unknown rank in card {text!r} (ranks are 5 6 7 8 9 10 J Q K A)")
    if suit_part not in _SUIT_CHARS:
        raise CardError(f"unknown suit in card {text!r} (suits are S H D C)")
    return card(_SUIT_CHARS[suit_part], _RANK_CHARS[rank_part])


def format_card(c: Card, *, unicode: bool = False, ten: str = "10") -> str:
    """Format a card in project notation (``10H``) or with a Unicode suit (``10♥``)."""
    r = RANKS[rank_of(c)]
    if r == "10":
        r = ten
    return r + (SUIT_SYMBOLS if unicode else SUITS)[suit_of(c)]


def parse_card_list(text: str) -> list[Card]:
    """Parse a space-separated card sequence, keeping order (duplicates are an error)."""
    out: list[Card] = []
    seen = 0
    for tok in text.split():
        c = parse_card(tok)
        if seen >> c & 1:
            raise CardError(f"card {format_card(c)} listed twice in {text!r}")
        seen |= 1 << c
        out.append(c)
    return out


def parse_cards(text: str) -> CardSet:
    """Parse a space-separated card set (``""`` is the empty set)."""
    m = 0
    for c in parse_card_list(text):
        m |= 1 << c
    return m


def iter_cards(mask: CardSet) -> Iterator[Card]:
    """Cards of a set in increasing index order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cards_of(mask: CardSet) -> list[Card]:
    """Cards of a set as a list in increasing index order."""
    return list(iter_cards(mask))


def mask_of(cards: Iterable[Card]) -> CardSet:
    """The set holding the given cards."""
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def display_order(mask: CardSet) -> list[Card]:
    """Cards sorted as the SPEC lists hands: suits S H D C, high to low within a suit."""
    return sorted(iter_cards(mask), key=lambda c: (suit_of(c), -rank_of(c)))


def format_cards(cards: CardSet | Iterable[Card], *, unicode: bool = False) -> str:
    """Format a set (in display order) or a sequence (in its order) of cards."""
    seq = display_order(cards) if isinstance(cards, int) else list(cards)
    return " ".join(format_card(c, unicode=unicode) for c in seq)
