"""The rules engine: a game configuration, the state of one hand, and moves.

Design (after python-chess and OpenSpiel):

* :class:`Game` is immutable: the rules, who owns which suit, the deck, and
  precomputed tables (which cards beat which for each seat, how many cards a
  refusal costs).  Every :class:`State` of a hand shares it.
* :class:`State` is the mutable state of one hand: hands are ``int`` bitmasks,
  the pile is one ``int`` holding 6 bits per card (``card + 1``, top card in the
  low bits), so a copy is a handful of attribute stores.
* Two action forms over the same state.  The **turn level** uses :class:`Move`
  (``lead X``, ``beat X lead Y``, ``beat X``, ``pickup``), one per player turn.
  The **step level** uses a fixed action space of 41 ints (one per card of the
  40-card universe plus :data:`PICKUP`) for search and learning: a two-card
  turn is two steps (beat, then lead) and nothing else can happen between them.
* Termination guards of SPEC D: a repetition counter keyed on the full state at
  every turn boundary, and an action cap counting turn-level actions.

Nothing here does I/O; the only randomness is an explicit ``random.Random``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .cards import (
    NUM_CARDS,
    R5,
    R6,
    R7,
    R9,
    RA,
    RANK_MASK,
    SUIT_MASK,
    SUITS,
    Card,
    CardSet,
    card,
    cards_of,
    deck_mask,
    format_card,
    format_cards,
    higher_mask,
    parse_card,
    parse_card_list,
    parse_cards,
    parse_suit,
    rank_of,
    suit_of,
)
from .errors import (
    HandOverError,
    IllegalMoveError,
    InvalidMoveError,
    PositionError,
)
from .outcome import Outcome, Result, Termination
from .rules import Rules

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

# Step-level legal-action tuples: four table lookups (10 bits per suit, the last
# table also covering bit 40, PICKUP), memoised by bitmask for the common masks.
_T0: Final = tuple(tuple(i for i in range(10) if m >> i & 1) for m in range(1024))
_T1: Final = tuple(tuple(10 + i for i in range(10) if m >> i & 1) for m in range(1024))
_T2: Final = tuple(tuple(20 + i for i in range(10) if m >> i & 1) for m in range(1024))
_T3: Final = tuple(tuple(30 + i for i in range(11) if m >> i & 1) for m in range(2048))
_ACTIONS_CACHE: dict[int, tuple[int, ...]] = {}
_ACTIONS_CACHE_MAX: Final = 1 << 18


def _actions_of(mask: int) -> tuple[int, ...]:
    t = _T0[mask & 1023] + _T1[mask >> 10 & 1023] + _T2[mask >> 20 & 1023] + _T3[mask >> 30]
    if len(_ACTIONS_CACHE) >= _ACTIONS_CACHE_MAX:
        _ACTIONS_CACHE.clear()
    _ACTIONS_CACHE[mask] = t
    return t


# Zobrist keys of positions for the repetition guard (SPEC D6.1): 128-bit values
# from a fixed seed, XOR-updated as cards move, so a position key is one int (no
# tuple allocation in the hot loop).  Two different positions of a hand share a key
# with probability about n^2 / 2^129 for n positions: below 1e-29 for n = 20000.
_ZRNG = random.Random(0x5EEDC0DE)
_ZH: Final = tuple(tuple(_ZRNG.getrandbits(128) for _ in range(NUM_CARDS)) for _ in range(4))
_ZP: Final = tuple(
    tuple(_ZRNG.getrandbits(128) for _ in range(NUM_CARDS)) for _ in range(NUM_CARDS)
)
_ZD: Final = tuple(_ZRNG.getrandbits(128) for _ in range(NUM_CARDS))
_ZT: Final = tuple(_ZRNG.getrandbits(128) for _ in range(16))


def _zobrist(hands: Sequence[CardSet], pile: Sequence[Card], discard: CardSet) -> int:
    z = 0
    for seat, h in enumerate(hands):
        for c in cards_of(h):
            z ^= _ZH[seat][c]
    for i, c in enumerate(pile):
        z ^= _ZP[i][c]
    for c in cards_of(discard):
        z ^= _ZD[c]
    return z


def encode_log_entry(seat: int, move: Move, taken: CardSet) -> int:
    """One turn of the public log as an int (seat, beat, lead, cards picked up)."""
    beat = 0 if move.beat is None else move.beat + 1
    lead = 0 if move.lead is None else move.lead + 1
    return seat | beat << 2 | lead << 8 | taken << 14


def decode_log_entry(e: int) -> tuple[int, Move, CardSet]:
    """Inverse of :func:`encode_log_entry`: ``(seat, move, cards picked up)``."""
    beat = (e >> 2 & 63) - 1
    lead = (e >> 8 & 63) - 1
    return (
        e & 3,
        Move.get(None if beat < 0 else beat, None if lead < 0 else lead),
        e >> 14,
    )


def _as_action(a: object) -> int:
    """An int-like step action (e.g. a NumPy integer) as an int; -1 if it is not one."""
    if isinstance(a, bool) or not hasattr(a, "__index__"):
        return -1
    return int(a.__index__())


# --------------------------------------------------------------------------- results


# --------------------------------------------------------------------------- game


def _parse_owner_map(owners: Any, n: int) -> list[int]:
    """Owners as a per-seat suit bitmask list, from strings, a mapping or masks."""
    if isinstance(owners, Mapping):
        seats = [0] * n
        for key, val in owners.items():
            seat = parse_seat(key, n) if isinstance(key, str) else int(key)
            if not 0 <= seat < n:
                raise PositionError(f"seat {key!r} does not exist with {n} players")
            seats[seat] = _suits_mask(val)
        return seats
    seq = list(owners)
    if len(seq) != n:
        raise PositionError(f"expected suit ownership for {n} seats, got {len(seq)}")
    return [_suits_mask(v) for v in seq]


def _suits_mask(val: Any) -> int:
    if isinstance(val, int):
        if not 0 <= val < 16:
            raise PositionError(f"invalid suit mask {val!r}")
        return val
    if isinstance(val, str):
        m = 0
        for ch in val.replace(",", "").replace(" ", ""):
            s = parse_suit(ch)
            if m >> s & 1:
                raise PositionError(f"suit {SUITS[s]} listed twice in {val!r}")
            m |= 1 << s
        return m
    m = 0
    for s in val:
        m |= 1 << int(s)
    return m


def default_owners(rules: Rules) -> list[int]:
    """A conventional agreed assignment: 4 players S/H/D/C by seat, 3 players
    S/H/D (clubs unowned), 2 players SH/DC (one trump each: S and D)."""
    n = rules.num_players
    if n == 4:
        return [1, 2, 4, 8]
    if n == 3:
        return [1, 2, 4]
    if rules.trumps_per_player_2p == 2:
        return [1 | 2, 4 | 8]
    return [1, 4]


def blind_owners(rules: Rules, rng: random.Random) -> tuple[list[int], list[int] | None]:
    """A uniformly random assignment (SPEC C4): owners, and Besicovitch pairs."""
    suits = [0, 1, 2, 3]
    rng.shuffle(suits)
    n = rules.num_players
    if n >= 3:
        return [1 << suits[i] for i in range(n)], None
    if rules.trumps_per_player_2p == 2:
        return [(1 << suits[0]) | (1 << suits[1]), (1 << suits[2]) | (1 << suits[3])], None
    pairs = [(1 << suits[0]) | (1 << suits[1]), (1 << suits[2]) | (1 << suits[3])]
    return [1 << suits[0], 1 << suits[2]], pairs if rules.is_besicovitch else None


class Game:
    """Immutable configuration of hands: rules, ownership, deck and rule tables.

    ``owners`` gives each seat's own (trump) suits: a mapping such as
    ``{"A": "C", "B": "D"}``, or a sequence of suit strings or suit bitmasks.
    ``pairs`` (Besicovitch only) gives each player's two suits, trump included;
    it only matters for the mirror deal.
    """

    __slots__ = (
        "_beat",
        "_cap",
        "_face_new_top",
        "_ownmask",
        "_rep_limit",
        "_req",
        "_taker_leads",
        "deck",
        "n",
        "next_seat",
        "open_hands",
        "owners",
        "pairs",
        "rules",
        "suit_owner",
    )

    def __init__(self, rules: Rules | None = None, owners: Any = None, pairs: Any = None) -> None:
        rules = rules or Rules()
        self.rules = rules
        n = rules.num_players
        self.n = n
        own = default_owners(rules) if owners is None else _parse_owner_map(owners, n)
        self._validate_owners(own)
        self.owners: tuple[int, ...] = tuple(own)
        suit_owner = [-1] * 4
        for seat, m in enumerate(own):
            for s in range(4):
                if m >> s & 1:
                    suit_owner[s] = seat
        self.suit_owner: tuple[int, ...] = tuple(suit_owner)
        if rules.is_besicovitch:
            pr = self._besicovitch_pairs(own) if pairs is None else _parse_owner_map(pairs, 2)
            for seat in range(2):
                if pr[seat].bit_count() != 2 or not pr[seat] & own[seat]:
                    raise PositionError(
                        f"Besicovitch pair of seat {seat_name(seat)} must be two suits "
                        "including its trump"
                    )
            if pr[0] & pr[1]:
                raise PositionError("Besicovitch pairs must not share a suit")
            self.pairs: tuple[int, ...] | None = tuple(pr)
            self.deck: CardSet = deck_mask({24: R9, 32: R7, 36: R6, 40: R5}[rules.deck_size])
        else:
            if pairs is not None:
                raise PositionError("suit pairs apply only to the Besicovitch variant")
            self.pairs = None
            self.deck = deck_mask(R6)
        self.next_seat: tuple[int, ...] = tuple((i + 1) % n for i in range(n))
        # Rule flags read in the hot loop, as plain attributes (0 means "off").
        self._rep_limit: int = rules.repetition_limit or 0
        self._cap: int = rules.max_actions_per_hand or 0
        self._face_new_top: bool = rules.after_pickup == "face_new_top"
        self._taker_leads: bool = rules.taker_leads_after_pickup
        #: Besicovitch: every hand is face up from the deal.
        self.open_hands: bool = rules.is_besicovitch
        ownmask = [0] * n
        for seat, m in enumerate(own):
            for s in range(4):
                if m >> s & 1:
                    ownmask[seat] |= SUIT_MASK[s]
        self._ownmask: tuple[CardSet, ...] = tuple(ownmask)
        self._beat: tuple[tuple[CardSet, ...], ...] = tuple(
            tuple(self._beat_mask(seat, t) for t in range(NUM_CARDS)) for seat in range(n)
        )
        self._req: tuple[tuple[int, ...], ...] = tuple(
            tuple(self._required(seat, t) for t in range(NUM_CARDS)) for seat in range(n)
        )

    def _validate_owners(self, own: list[int]) -> None:
        rules, n = self.rules, self.n
        per = 2 if n == 2 and rules.trumps_per_player_2p == 2 else 1
        seen = 0
        for seat, m in enumerate(own):
            if m.bit_count() != per:
                raise PositionError(
                    f"seat {seat_name(seat)} must own exactly {per} suit{'s' * (per > 1)} "
                    f"with {n} players, not {m.bit_count()}"
                )
            if seen & m:
                raise PositionError("two seats own the same suit")
            seen |= m

    def _besicovitch_pairs(self, own: list[int]) -> list[int]:
        rest = [s for s in range(4) if not (own[0] | own[1]) >> s & 1]
        return [own[0] | 1 << rest[0], own[1] | 1 << rest[1]]

    def _beat_mask(self, seat: int, t: Card) -> CardSet:
        """Cards that beat top card ``t`` for ``seat`` (SPEC A8, C7, B19)."""
        rules = self.rules
        own = self._ownmask[seat]
        top_own = bool(own >> t & 1)
        if rules.equal_rank_beats == "only":
            m = RANK_MASK[rank_of(t)] & ~(1 << t)
        else:
            m = higher_mask(t)
            if rules.equal_rank_beats == "also":
                m |= RANK_MASK[rank_of(t)] & ~(1 << t)
        if not top_own:
            m |= own
        elif rules.own_suits_cross_beat:
            m |= own & ~SUIT_MASK[suit_of(t)]
        return m & self.deck

    def _required(self, seat: int, t: Card) -> int:
        """Cards a refusal of ``seat`` on top card ``t`` requires (SPEC A10, C6)."""
        rules = self.rules
        if rules.pickup_rule == "whole_pile":
            return NUM_CARDS
        if rules.pickup_rule == "fixed":
            return rules.fixed_pickup_count
        if not self._ownmask[seat] >> t & 1:
            return 3
        return NUM_CARDS if rank_of(t) == RA else 5

    # -- public helpers ---------------------------------------------------------

    def beats(self, c: Card, top: Card, seat: int) -> bool:
        """Does card ``c`` beat ``top`` when played by ``seat``?"""
        return bool(self.beat_mask(top, seat) >> c & 1)

    def beat_mask(self, top: Card, seat: int) -> CardSet:
        """All cards of the deck that beat ``top`` for ``seat``."""
        self._check_card_seat(top, seat)
        return self._beat[seat][top]

    def required_pickup(self, top: Card, seat: int) -> int:
        """How many cards a refusal on ``top`` requires before the pile-size cap."""
        self._check_card_seat(top, seat)
        return self._req[seat][top]

    def beat_row(self, seat: int) -> tuple[CardSet, ...]:
        """``beat_row(seat)[top] == beat_mask(top, seat)`` for every card: the whole
        table of one seat, for hot loops that would otherwise call :meth:`beat_mask`
        once per card."""
        if not 0 <= seat < self.n:
            raise PositionError(f"no such seat: {seat!r}")
        return self._beat[seat]

    def pickup_row(self, seat: int) -> tuple[int, ...]:
        """``pickup_row(seat)[top] == required_pickup(top, seat)`` for every card."""
        if not 0 <= seat < self.n:
            raise PositionError(f"no such seat: {seat!r}")
        return self._req[seat]

    def _check_card_seat(self, c: Card, seat: int) -> None:
        if not 0 <= c < NUM_CARDS:
            raise PositionError(f"no such card: {c!r}")
        if not 0 <= seat < self.n:
            raise PositionError(f"no such seat: {seat!r}")

    def own_cards(self, seat: int) -> CardSet:
        """All deck cards of the suits ``seat`` owns."""
        return self._ownmask[seat] & self.deck

    def owner_of(self, c: Card) -> int | None:
        """The seat owning the card's suit, or ``None``."""
        o = self.suit_owner[suit_of(c)]
        return None if o < 0 else o

    def owners_str(self) -> dict[str, str]:
        """Ownership in scenario notation, e.g. ``{"A": "C", "B": "D"}``."""
        return {
            seat_name(i): "".join(SUITS[s] for s in range(4) if m >> s & 1)
            for i, m in enumerate(self.owners)
        }

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Game)
            and self.rules == other.rules
            and self.owners == other.owners
            and self.pairs == other.pairs
        )

    def __hash__(self) -> int:
        return hash((self.rules, self.owners, self.pairs))

    def __repr__(self) -> str:
        return f"Game(players={self.n}, owners={self.owners_str()})"

    # -- starting hands --------------------------------------------------------

    def deal_hands(
        self, deck: Sequence[Card], dealer: int
    ) -> tuple[list[CardSet], list[tuple[Card, int, int]]]:
        """Deal an explicit deck order (top card first) as SPEC A3/A4 or C3.3.

        Returns the hands and the sixes transfers ``(card, from_seat, to_seat)``.
        """
        order = list(deck)
        if not 0 <= dealer < self.n:
            raise PositionError(f"dealer seat {dealer} does not exist")
        m = 0
        for c in order:
            if not (isinstance(c, int) and 0 <= c < NUM_CARDS) or m >> c & 1:
                raise PositionError("the deck lists a card twice or an invalid card")
            m |= 1 << c
        if m != self.deck:
            missing = format_cards(self.deck & ~m)
            extra = format_cards(m & ~self.deck)
            raise PositionError(
                f"the deck must hold exactly the {self.deck.bit_count()} cards of this game"
                + (f"; missing {missing}" if missing else "")
                + (f"; not in this deck {extra}" if extra else "")
            )
        n = self.n
        hands = [0] * n
        if self.rules.is_besicovitch:
            assert self.pairs is not None
            opp = 1 - dealer
            t1, t2 = self.owners[dealer], self.owners[opp]
            s1, s2 = self.pairs[dealer] & ~t1, self.pairs[opp] & ~t2
            mirror = {
                t1.bit_length() - 1: t2.bit_length() - 1,
                s1.bit_length() - 1: s2.bit_length() - 1,
            }
            half = 0
            for c in order[: len(order) // 2]:
                half |= 1 << c
            for c in order:
                s = suit_of(c)
                if s in mirror:
                    mc = card(mirror[s], rank_of(c))
                    if half >> c & 1:
                        hands[dealer] |= 1 << c
                        hands[opp] |= 1 << mc
                    else:
                        hands[opp] |= 1 << c
                        hands[dealer] |= 1 << mc
            return hands, []
        for i, c in enumerate(order):
            hands[(dealer + 1 + i) % n] |= 1 << c
        transfers: list[tuple[Card, int, int]] = []
        for s in range(4):
            owner = self.suit_owner[s]
            if owner < 0:
                continue
            six = card(s, R6)
            for seat in range(n):
                if seat != owner and hands[seat] >> six & 1:
                    transfers.append((six, seat, owner))
        for six, frm, to in transfers:
            hands[frm] &= ~(1 << six)
            hands[to] |= 1 << six
        return hands, transfers

    def first_player(self, dealer: int) -> int:
        """Who opens a hand dealt by ``dealer`` (SPEC A5, C3.4)."""
        if self.rules.is_besicovitch:
            return dealer if self.rules.besicovitch_first_leader == "dealer" else 1 - dealer
        return (dealer + 1) % self.n

    def deal(self, dealer: int, deck: Sequence[Card]) -> State:
        """Start a hand from an explicit deck order, top card first."""
        hands, transfers = self.deal_hands(deck, dealer)
        known = [0] * self.n
        if not self.rules.is_besicovitch:
            # After the redistribution every owner holds the six of each own suit
            # (SPEC A4.2), so their location is public whether or not the transfers
            # were shown (sixes_transfer_public only hides who handed them over).
            for s in range(4):
                if self.suit_owner[s] >= 0:
                    known[self.suit_owner[s]] |= 1 << card(s, R6)
        else:
            known = list(hands)  # open hands: everything is public
        origin = Origin(
            dealer=dealer,
            deck=tuple(deck),
            transfers=tuple(transfers),
            known=tuple(known),
            cards=self.deck,
        )
        return State._start(
            self, hands, [], self.first_player(dealer), FREE, (), 0, 0, None, origin
        )

    def shuffled_deck(self, rng: random.Random) -> list[Card]:
        """The game's deck in a random order drawn from ``rng``."""
        order = cards_of(self.deck)
        rng.shuffle(order)
        return order

    def new_hand(self, dealer: int = 0, seed: int | random.Random | None = None) -> State:
        """Start a hand from a seeded shuffle (``seed`` an int or a ``random.Random``)."""
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        return self.deal(dealer, self.shuffled_deck(rng))

    def position(
        self,
        hands: Sequence[CardSet] | Mapping[str, str],
        pile: Sequence[Card] | str = (),
        to_act: int | str = 0,
        mode: int | str = FREE,
        outs: Iterable[Sequence[Any]] = (),
        *,
        discard: CardSet = 0,
        turns: int = 0,
        result: Result | None = None,
        known: Sequence[CardSet] | None = None,
    ) -> State:
        """Start a hand from any position (SPEC E: only the listed cards exist)."""
        n = self.n
        if isinstance(hands, Mapping):
            hs = [0] * n
            given = set()
            for key, txt in hands.items():
                seat = parse_seat(key, n)
                hs[seat] = parse_cards(txt)
                given.add(seat)
            if len(given) != n:
                raise PositionError(f"a position must list the hands of all {n} seats")
        else:
            hs = list(hands)
            if len(hs) != n:
                raise PositionError(f"a position must list {n} hands, not {len(hs)}")
        if isinstance(pile, str):
            pile_cards = parse_card_list(pile)
        else:
            pile_cards = list(pile)
        seat = parse_seat(to_act, n) if isinstance(to_act, str) else to_act
        if isinstance(mode, str):
            if mode not in PHASE_NAMES:
                raise PositionError(f"unknown mode {mode!r} (free, respond or lead)")
            ph = PHASE_NAMES.index(mode)
        else:
            ph = mode
        out_list: list[tuple[int, str]] = []
        for s, kind in outs:
            si = parse_seat(s, n) if isinstance(s, str) else s
            if kind not in ("lead", "defence"):
                raise PositionError(f"unknown way of going out {kind!r} (lead or defence)")
            out_list.append((si, kind))
        seen = 0
        total = 0
        for h in [*hs, *[1 << c for c in pile_cards], discard]:
            if h & seen:
                raise PositionError(f"card(s) {format_cards(h & seen)} appear twice")
            seen |= h
            total += h.bit_count()
        if seen & ~self.deck:
            raise PositionError(f"card(s) {format_cards(seen & ~self.deck)} are not in this deck")
        empty = [i for i in range(n) if not hs[i]]
        if sorted(s for s, _ in out_list) != empty or len({s for s, _ in out_list}) != len(
            out_list
        ):
            raise PositionError(
                "'out' must list exactly the seats with empty hands "
                f"({', '.join(seat_name(i) for i in empty) or 'none'})"
            )
        active = n - len(empty)
        if type(turns) is not int or turns < 0:
            raise PositionError(f"the turn counter must be an integer >= 0, not {turns!r}")
        cap = self.rules.max_actions_per_hand
        if result is None and ph != OVER and cap is not None and turns >= cap:
            raise PositionError(
                f"the turn counter {turns} has reached the action cap "
                f"(max_actions_per_hand={cap}): the hand would be over"
            )
        if result is None and ph != OVER:
            if active < 2:
                raise PositionError("at least two players must hold cards while the hand goes on")
            if not 0 <= seat < n or not hs[seat]:
                raise PositionError("the player to act must hold cards")
            if ph in (RESPOND, LEAD) and not pile_cards:
                raise PositionError("respond mode needs a card on the pile")
            if ph == LEAD and not hs[seat]:
                raise PositionError("the player to lead must hold cards")
        else:
            ph, seat = OVER, -1
        origin = Origin(
            dealer=None,
            deck=None,
            transfers=(),
            known=tuple(known) if known is not None else tuple([0] * n),
            cards=seen,
            start=(
                tuple(hs),
                tuple(pile_cards),
                seat,
                ph,
                tuple(out_list),
                discard,
                turns,
                result,
                tuple(known) if known is not None else None,
            ),
        )
        return State._start(
            self, hs, pile_cards, seat, ph, tuple(out_list), discard, turns, result, origin
        )


@dataclass(frozen=True)
class Origin:
    """How a hand started: the dealer and deck (``None`` for a position start),
    the public sixes transfers, and the cards each seat publicly held at start."""

    dealer: int | None
    deck: tuple[Card, ...] | None
    transfers: tuple[tuple[Card, int, int], ...]
    known: tuple[CardSet, ...]
    cards: CardSet  # the cards that exist in this hand (a position may hold fewer)
    # A position start: (hands, pile, to_act, phase, outs, discard, turns, result, known).
    start: tuple[Any, ...] | None = None

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            Origin,
            (self.dealer, self.deck, self.transfers, self.known, self.cards, self.start),
        )


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


_PICKUP_WORDS: Final = (["p"], ["pickup"], ["pick", "up"], ["take"], ["refuse"], ["pass"])
_FILLER_WORDS: Final = ("beat", "lead", "b", "l", "with")


def parse_forgiving(
    game: Game, seat: int, hand: CardSet, top: int, phase: int, text: object
) -> Move:
    """Parse forgiving input (``6d qs``, ``10h``, ``p``, ``take``, strict notation)
    for ``seat`` in the given situation, and check that the move is legal."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"a move must be text, not {type(text).__name__}")
    words = text.replace(",", " ").split()
    low = [w.lower() for w in words]
    if low in _PICKUP_WORDS:
        move = PICKUP_MOVE
    else:
        cards_txt = [w for w in words if w.lower() not in _FILLER_WORDS]
        try:
            cs = [parse_card(w) for w in cards_txt]
        except ValueError as e:
            raise InvalidMoveError(f"cannot read {text!r}: {e}") from None
        if len(cs) == 1:
            c = cs[0]
            if phase == RESPOND and hand == 1 << c:
                move = BEAT_MOVES[c][_NO_CARD]
            elif phase == RESPOND:
                raise IllegalMoveError(
                    "name two cards: the card that beats, then the card you lead"
                )
            else:
                move = LEAD_MOVES[c]
        elif len(cs) == 2:
            if cs[0] == cs[1]:
                raise IllegalMoveError("the beat and the lead must be different cards")
            move = BEAT_MOVES[cs[0]][cs[1]]
        else:
            raise IllegalMoveError(
                f"cannot read {text!r}: type one card to lead, two cards to beat and lead, "
                "or p to pick up"
            )
    check_move(game, seat, hand, top, phase, move)
    return move


# --------------------------------------------------------------------------- state


class State:
    """The mutable state of one hand.  Create with :meth:`Game.deal`,
    :meth:`Game.new_hand` or :meth:`Game.position`; never share between threads.

    The state is omniscient: it holds every hand.  Give players an
    :class:`~svoi_kozyri.core.observation.Observation` instead.
    """

    __slots__ = (
        "_hist",
        "_hist_parent",
        "_undo",
        "discard",
        "game",
        "hands",
        "log",
        "log_len",
        "origin",
        "outs",
        "phase",
        "picked",
        "pile",
        "result",
        "to_act_seat",
        "turns",
        "zob",
    )

    game: Game
    hands: list[CardSet]
    pile: list[Card]
    to_act_seat: int
    phase: int
    outs: tuple[tuple[int, str], ...]
    discard: CardSet
    result: Result | None
    turns: int
    log: list[int]
    log_len: int
    zob: int
    picked: tuple[CardSet, ...]
    origin: Origin
    _hist: dict[int, int]
    _hist_parent: Any
    _undo: Any

    def __init__(
        self,
        game: Game,
        hands: list[CardSet],
        pile: list[Card],
        to_act_seat: int,
        phase: int,
        outs: tuple[tuple[int, str], ...],
        discard: CardSet,
        result: Result | None,
        turns: int,
        log: list[int],
        log_len: int,
        zob: int,
        picked: tuple[CardSet, ...],
        origin: Origin,
        hist: dict[int, int],
        hist_parent: Any,
        undo: Any = None,
    ) -> None:
        """Low-level constructor: use :meth:`Game.deal`, :meth:`Game.new_hand` or
        :meth:`Game.position` instead."""
        self.game = game
        self.hands = hands
        self.pile = pile
        self.to_act_seat = to_act_seat
        self.phase = phase
        self.outs = outs
        self.discard = discard
        self.result = result
        self.turns = turns
        self.log = log
        self.log_len = log_len
        self.zob = zob
        self.picked = picked
        self.origin = origin
        self._hist = hist
        self._hist_parent = hist_parent
        self._undo = undo

    @staticmethod
    def _start(
        game: Game,
        hands: list[CardSet],
        pile: list[Card],
        to_act: int,
        phase: int,
        outs: tuple[tuple[int, str], ...],
        discard: CardSet,
        turns: int,
        result: Result | None,
        origin: Origin,
    ) -> State:
        hist: dict[int, int] = {}
        s = State(
            game,
            list(hands),
            list(pile),
            to_act,
            phase,
            outs,
            discard,
            result,
            turns,
            [],
            0,
            _zobrist(hands, pile, discard),
            (0,) * game.n,
            origin,
            hist,
            None,
        )
        if game._rep_limit and phase in (FREE, RESPOND):
            hist[s._key()] = 1
        return s

    # -- copying ---------------------------------------------------------------

    def copy(self) -> State:
        """A cheap independent copy.

        The repetition counts live in a chain of frozen dicts shared by copies:
        copying freezes this state's recent counts into the chain (merging levels
        like a binary counter, so the chain stays logarithmically short) instead of
        copying every count."""
        parent = self._freeze_history()
        return State(
            self.game,
            self.hands[:],
            self.pile[:],
            self.to_act_seat,
            self.phase,
            self.outs,
            self.discard,
            self.result,
            self.turns,
            self.log,
            self.log_len,
            self.zob,
            self.picked,
            self.origin,
            {},
            parent,
            self._undo,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            State,
            (
                self.game,
                self.hands[:],
                self.pile[:],
                self.to_act_seat,
                self.phase,
                self.outs,
                self.discard,
                self.result,
                self.turns,
                self.log[: self.log_len],
                self.log_len,
                self.zob,
                self.picked,
                self.origin,
                dict(self._hist),
                self._hist_parent,
            ),
        )

    def __copy__(self) -> State:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        return self.copy()

    # -- read access -----------------------------------------------------------

    @property
    def n(self) -> int:
        """Number of seats."""
        return self.game.n

    @property
    def rules(self) -> Rules:
        """The rules of this hand."""
        return self.game.rules

    @property
    def to_act(self) -> int | None:
        """Seat to act, or ``None`` once the hand is over."""
        return None if self.phase == OVER else self.to_act_seat

    @property
    def mode(self) -> str | None:
        """``"free"``, ``"respond"``, ``"lead"`` (mid-turn), or ``None`` when over."""
        return None if self.phase == OVER else PHASE_NAMES[self.phase]

    @property
    def is_over(self) -> bool:
        """True once the hand has ended."""
        return self.phase == OVER

    def pile_cards(self) -> list[Card]:
        """The pile, bottom to top (a copy)."""
        return self.pile[:]

    @property
    def top(self) -> Card | None:
        """The top card of the pile, or ``None`` if the pile is empty."""
        return self.pile[-1] if self.pile else None

    def hand(self, seat: int) -> CardSet:
        """Cards held by ``seat`` (omniscient)."""
        return self.hands[seat]

    def hand_sizes(self) -> tuple[int, ...]:
        """Public hand sizes."""
        return tuple(h.bit_count() for h in self.hands)

    def active_seats(self) -> list[int]:
        """Seats still holding cards."""
        return [i for i, h in enumerate(self.hands) if h]

    def beat_options(self) -> CardSet:
        """Cards the player to act may beat the top card with (respond mode), else 0."""
        if self.phase != RESPOND:
            return 0
        p = self.to_act_seat
        return self.game._beat[p][self.pile[-1]] & self.hands[p]

    def pickup_count(self) -> int:
        """Cards a refusal would take now (0 when refusing is not possible)."""
        if self.phase != RESPOND:
            return 0
        return min(self.game._req[self.to_act_seat][self.pile[-1]], len(self.pile))

    def pickup_cards(self) -> list[Card]:
        """The cards a refusal would take now, top first."""
        return self.pile_cards()[::-1][: self.pickup_count()]

    def first_out(self) -> int | None:
        """The first seat to go out (the hand's winner), if any."""
        return self.outs[0][0] if self.outs else None

    def _key(self) -> int:
        return self.zob ^ _ZT[self.to_act_seat * 4 + self.phase]

    def repetition_count(self) -> int:
        """How often the current position has occurred (at turn boundaries)."""
        if not self.game._rep_limit or self.phase not in (FREE, RESPOND):
            return 0
        return self._count(self._key())

    def _freeze_history(self) -> Any:
        level = self._hist
        parent = self._hist_parent
        if not level:
            return parent
        while parent is not None and len(parent[0]) <= 2 * len(level):
            merged = dict(parent[0])
            for k, v in level.items():
                merged[k] = merged.get(k, 0) + v
            level = merged
            parent = parent[1]
        parent = self._hist_parent = (level, parent)
        self._hist = {}
        return parent

    def _count(self, key: int) -> int:
        cnt = self._hist.get(key, 0)
        node = self._hist_parent
        while node is not None:
            cnt += node[0].get(key, 0)
            node = node[1]
        return cnt

    def start_state(self) -> State:
        """A fresh state at the start of this hand (the deal, or the start position)."""
        o = self.origin
        if o.deck is not None and o.dealer is not None:
            return self.game.deal(o.dealer, o.deck)
        assert o.start is not None
        hands, pile, to_act, ph, outs, discard, turns, result, known = o.start
        return self.game.position(
            list(hands),
            list(pile),
            to_act,
            ph,
            outs,
            discard=discard,
            turns=turns,
            result=result,
            known=known,
        )

    def known_cards(self, seat: int) -> CardSet:
        """Cards publicly known to be in ``seat``'s hand: a six handed to its owner,
        or a card the seat picked up (a card leaves a hand only face up, and only a
        pickup brings it back, so the last pickup names its holder)."""
        if self.game.open_hands:
            return self.hands[seat]
        return (self.origin.known[seat] | self.picked[seat]) & self.hands[seat]

    def history(self) -> list[tuple[int, Move, CardSet]]:
        """Turns played in this hand: ``(seat, move, cards picked up)``, oldest first."""
        return [decode_log_entry(e) for e in self.log[: self.log_len]]

    def _append_log(self, entry: int) -> None:
        # The log list is shared by copies; whoever appends first extends it in
        # place, a later diverging copy takes its own prefix.
        log = self.log
        n = self.log_len
        if len(log) != n:
            log = self.log = log[:n]
        log.append(entry)
        self.log_len = n + 1

    # -- step level ------------------------------------------------------------

    def legal_actions(self) -> tuple[int, ...]:
        """Legal step-level actions (card indices, and :data:`PICKUP`)."""
        ph = self.phase
        if ph == RESPOND:
            p = self.to_act_seat
            m = (self.game._beat[p][self.pile[-1]] & self.hands[p]) | _PICKUP_BIT
        elif ph == OVER:
            return ()
        else:
            m = self.hands[self.to_act_seat]
        return _ACTIONS_CACHE.get(m) or _actions_of(m)

    def legal_action_mask(self) -> int:
        """Legal step-level actions as a bitmask (bit :data:`PICKUP` for a refusal)."""
        ph = self.phase
        if ph == RESPOND:
            p = self.to_act_seat
            return (self.game._beat[p][self.pile[-1]] & self.hands[p]) | _PICKUP_BIT
        if ph == OVER:
            return 0
        return self.hands[self.to_act_seat]

    def apply_action(self, a: object) -> None:
        """Apply a step-level action (an int, or an int-like such as a NumPy integer);
        illegal actions raise :class:`IllegalMoveError` and change nothing."""
        if type(a) is int:
            self._step(a)
            return
        i = _as_action(a)
        if i < 0:
            raise self._illegal_step(a)
        self._step(i)

    def _step(self, a: int) -> None:
        ph = self.phase
        p = self.to_act_seat
        h = self.hands[p]
        if ph == RESPOND:
            if a == PICKUP:
                self._pickup(p)
                return
            if a < 0 or not (self.game._beat[p][self.pile[-1]] & h) >> a & 1:
                raise self._illegal_step(a)
            h ^= 1 << a
            self.hands[p] = h
            pile = self.pile
            self.zob ^= _ZH[p][a] ^ _ZP[len(pile)][a]
            pile.append(a)
            if h:
                self.phase = LEAD
            else:
                self._went_out(p, "defence", p | (a + 1) << 2)
            return
        if ph == OVER or a < 0 or not h >> a & 1:
            raise self._illegal_step(a)
        pile = self.pile
        # log entry: seat | (beat + 1) << 2 | (lead + 1) << 8
        entry = p | ((pile[-1] + 1) << 2 if ph == LEAD else 0) | (a + 1) << 8
        h ^= 1 << a
        self.hands[p] = h
        self.zob ^= _ZH[p][a] ^ _ZP[len(pile)][a]
        pile.append(a)
        if h:
            g = self.game
            q = g.next_seat[p]
            hands = self.hands
            while not hands[q]:
                q = g.next_seat[q]
            self.to_act_seat = q
            self.phase = RESPOND
            self._append_log(entry)
            self._end_turn()
        else:
            self._went_out(p, "lead", entry)

    def _illegal_step(self, a: object) -> IllegalMoveError:
        if self.phase == OVER:
            return HandOverError("the hand is over: no more actions")
        if not isinstance(a, int) or isinstance(a, bool) or not 0 <= a <= PICKUP:
            return IllegalMoveError(f"step action must be an int in 0..{PICKUP}, not {a!r}")
        who = seat_name(self.to_act_seat)
        if a == PICKUP:
            return IllegalMoveError(f"{who} cannot pick up now: {PHASE_NAMES[self.phase]} mode")
        c = format_card(a)
        if not self.hands[self.to_act_seat] >> a & 1:
            return IllegalMoveError(f"{c} is not in {who}'s hand")
        top = self.top
        assert top is not None
        return IllegalMoveError(f"{c} does not beat {format_card(top)} for {who}")

    def _pickup(self, p: int) -> None:
        g = self.game
        pile = self.pile
        n_pile = len(pile)
        k = g._req[p][pile[-1]]
        if k > n_pile:
            k = n_pile
        taken = 0
        z = self.zob
        zh = _ZH[p]
        for i in range(n_pile - 1, n_pile - 1 - k, -1):
            c = pile.pop()
            taken |= 1 << c
            z ^= _ZP[i][c] ^ zh[c]
        self.zob = z
        self.hands[p] |= taken
        picked = self.picked
        self.picked = (*picked[:p], picked[p] | taken, *picked[p + 1 :])
        self._append_log(p | taken << 14)
        if g._taker_leads:
            q = p
        else:
            q = g.next_seat[p]
            hands = self.hands
            while not hands[q]:
                q = g.next_seat[q]
        self.to_act_seat = q
        self.phase = RESPOND if pile and g._face_new_top else FREE
        self._end_turn()

    def _went_out(self, p: int, kind: str, entry: int) -> None:
        g = self.game
        rules = g.rules
        self._append_log(entry)
        self.outs = (*self.outs, (p, kind))
        hands = self.hands
        remaining = [i for i in range(g.n) if hands[i]]
        if len(remaining) <= 1:
            self.turns += 1
            self.phase = OVER
            self.to_act_seat = -1
            if not remaining:  # cannot happen with at least two active players
                self.result = Outcome(None, Termination.LAST_CARD)
                return
            last = remaining[0]
            hl = hands[last]
            top = self.pile[-1]
            if rules.is_besicovitch:
                draw_rule = "lead_only" if rules.besicovitch_draw_rule else "none"
            else:
                draw_rule = rules.draw_rule
            single = hl & (hl - 1) == 0
            if (
                draw_rule != "none"
                and single
                and (draw_rule == "any_last_card" or kind == "lead")
                and g._beat[last][top] & hl
            ):
                self.result = Outcome(None, Termination.LAST_CARD)
            else:
                self.result = Outcome(last, Termination.OUT)
            return
        q = g.next_seat[p]
        while not hands[q]:
            q = g.next_seat[q]
        self.to_act_seat = q
        if kind == "defence":
            if rules.defence_out_pile == "discard":
                d = self.discard
                z = self.zob
                for i, c in enumerate(self.pile):
                    d |= 1 << c
                    z ^= _ZP[i][c] ^ _ZD[c]
                self.discard = d
                self.zob = z
                self.pile = []
            self.phase = FREE if rules.free_lead_after_defence_out or not self.pile else RESPOND
        else:
            self.phase = RESPOND
        self._end_turn()

    def _end_turn(self) -> None:
        turns = self.turns = self.turns + 1
        g = self.game
        limit = g._rep_limit
        if limit:
            key = self.zob ^ _ZT[self.to_act_seat * 4 + self.phase]
            hist = self._hist
            if self._hist_parent is None:
                cnt = hist.get(key, 0) + 1
            else:
                cnt = self._count(key) + 1
            hist[key] = hist.get(key, 0) + 1
            if cnt >= limit:
                self._finish(Outcome(None, Termination.REPETITION))
                return
        cap = g._cap
        if cap and turns >= cap:
            self._cap()

    def _finish(self, result: Result) -> None:
        self.result = result
        self.phase = OVER
        self.to_act_seat = -1

    def _cap(self) -> None:
        if self.game.rules.cap_outcome == "most_cards_loses":
            sizes = [h.bit_count() for h in self.hands]
            most = max(sizes)
            if sizes.count(most) == 1:
                self._finish(Outcome(sizes.index(most), Termination.ACTION_CAP))
                return
        self._finish(Outcome(None, Termination.ACTION_CAP))

    # -- turn level ------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Legal turn-level moves (empty once the hand is over)."""
        ph = self.phase
        p = self.to_act_seat
        top = self.pile[-1] if self.pile else -1
        return moves_for(self.game, p, self.hands[p] if ph != OVER else 0, top, ph)

    def count_legal_moves(self) -> int:
        """Number of legal turn-level moves, without building them."""
        ph = self.phase
        p = self.to_act_seat
        h = self.hands[p] if ph != OVER else 0
        if ph == FREE:
            return h.bit_count()
        if ph == RESPOND:
            b = (self.game._beat[p][self.pile[-1]] & h).bit_count()
            n = h.bit_count()
            return 1 + (b if n == 1 else b * (n - 1))
        if ph == LEAD:
            return h.bit_count()
        return 0

    def is_legal(self, move: object) -> bool:
        """Is ``move`` legal now?"""
        try:
            self._check_move(move)
        except IllegalMoveError:
            return False
        return True

    def _check_move(self, move: object, seat: int | None = None) -> None:
        if seat is not None and self.phase != OVER and seat != self.to_act_seat:
            raise IllegalMoveError(
                f"it is {seat_name(self.to_act_seat)}'s turn, not {seat_name(seat)}'s"
            )
        check_move(
            self.game,
            self.to_act_seat,
            self.hands[self.to_act_seat] if self.phase != OVER else 0,
            self.pile[-1] if self.pile else -1,
            self.phase,
            move,
        )

    def push(self, move: object, seat: object = None) -> None:
        """Apply a turn-level move (a :class:`Move` or its notation).  With ``seat``
        the move is also refused unless it is that seat's turn.  Illegal moves raise
        :class:`IllegalMoveError` and change nothing."""
        if isinstance(move, str):
            move = Move.parse(move)
        if not isinstance(move, Move):
            raise InvalidMoveError(f"expected a Move or its notation, not {type(move).__name__}")
        self._check_move(move, None if seat is None else parse_seat(seat, self.game.n))
        snap = (
            self.hands[:],
            self.pile[:],
            self.to_act_seat,
            self.phase,
            self.outs,
            self.discard,
            self.result,
            self.turns,
            self.log_len,
            self.zob,
            self.picked,
            self._freeze_history(),
        )
        self.push_unchecked(move)
        self._undo = (snap, self._undo, move, self.log_len, self.zob)

    def pop(self) -> Move:
        """Undo the last move made with :meth:`push` and return it (python-chess's
        ``Board.pop``).  Cheap: the state before each :meth:`push` is kept as a small
        snapshot (hands, pile, counters; the repetition counts are frozen and shared),
        and copies share the stack.  Moves made with :meth:`apply_action` or
        :meth:`push_unchecked` (the search hot path) keep no snapshot: after such a
        move :meth:`pop` raises :class:`PositionError` rather than undo the wrong thing.
        An empty stack raises :class:`IndexError`, like ``list.pop``.
        """
        u = self._undo
        if u is None:
            raise IndexError("pop from an empty move stack: no move made with push() to undo")
        snap, parent, move, log_len, zob = u
        if self.log_len != log_len or self.zob != zob:
            raise PositionError(
                "cannot pop: actions were applied with apply_action() or push_unchecked() "
                "after the last push()"
            )
        (
            hands,
            pile,
            self.to_act_seat,
            self.phase,
            self.outs,
            self.discard,
            self.result,
            self.turns,
            self.log_len,
            self.zob,
            self.picked,
            self._hist_parent,
        ) = snap
        self.hands = hands[:]
        self.pile = pile[:]
        self._hist = {}
        self._undo = parent
        result: Move = move
        return result

    @property
    def move_stack(self) -> list[Move]:
        """The moves :meth:`pop` can undo, oldest first."""
        out: list[Move] = []
        u = self._undo
        while u is not None:
            out.append(u[2])
            u = u[1]
        out.reverse()
        return out

    def push_unchecked(self, move: Move) -> None:
        """Apply a move taken from :meth:`legal_moves` without checking it again
        (search hot path).  An illegal move here corrupts the state."""
        if move.beat is None:
            self.apply_action(PICKUP if move.lead is None else move.lead)
            return
        self.apply_action(move.beat)
        if move.lead is not None:
            self.apply_action(move.lead)

    def parse_move(self, text: object) -> Move:
        """Parse forgiving input against this state: ``6d qs``, ``10h``, ``p``, ``take``,
        as well as strict notation.  The move is checked for legality."""
        p = self.to_act_seat
        return parse_forgiving(
            self.game,
            p,
            self.hands[p] if self.phase != OVER else 0,
            self.pile[-1] if self.pile else -1,
            self.phase,
            text,
        )

    # -- outcome ---------------------------------------------------------------

    def returns(self) -> tuple[float, ...]:
        """Per-seat returns: -1 for the durak and 0 for the others (a draw or an
        unfinished hand is 0 for all); in the Besicovitch game, where the first out
        wins, +1 for the winner."""
        n = self.game.n
        r = self.result
        if r is None or r.loser is None:
            return (0.0,) * n
        if self.game.rules.is_besicovitch:
            return tuple(-1.0 if i == r.loser else 1.0 for i in range(n))
        return tuple(-1.0 if i == r.loser else 0.0 for i in range(n))

    def __repr__(self) -> str:
        hands = " | ".join(
            f"{seat_name(i)}: {format_cards(h) or '-'}" for i, h in enumerate(self.hands)
        )
        return (
            f"<State {hands} ; pile: {format_cards(self.pile_cards()) or '-'} ; "
            f"{('to act ' + seat_name(self.to_act_seat) + ' ' + PHASE_NAMES[self.phase]) if self.phase != OVER else str(self.result)}>"  # noqa: E501
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State)
            and self.game == other.game
            and self.hands == other.hands
            and self.pile == other.pile
            and self.to_act_seat == other.to_act_seat
            and self.phase == other.phase
            and self.outs == other.outs
            and self.discard == other.discard
            and self.result == other.result
        )

    __hash__ = None  # type: ignore[assignment]
