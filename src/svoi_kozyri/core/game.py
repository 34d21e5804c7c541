"""The rules engine's game configuration: :class:`Game` (rules, ownership, deck and
rule tables; dealing and starting positions), re-exporting the engine's names.

The engine is split by job, all compiled together with mypyc: ``moves`` (moves,
seats, phases, move generation and checking), ``tables`` (precomputed action and
Zobrist tables), ``game`` (this module: set-up, deal, position) and ``state``
(the state of one hand).

Design (after python-chess and OpenSpiel):

* :class:`Game` is immutable: the rules, who owns which suit, the deck, and
  precomputed tables (which cards beat which for each seat, how many cards a
  refusal costs).  Every :class:`State` of a hand shares it.
* :class:`State` is the mutable state of one hand: hands are ``int`` bitmasks
  and the pile a short list of cards, so a copy is a handful of attribute stores.
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
from typing import Any

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
    format_cards,
    higher_mask,
    parse_suit,
    rank_of,
    suit_of,
)
from .errors import PositionError
from .moves import (
    BEAT_MOVES,
    FREE,
    LEAD,
    LEAD_MOVES,
    NUM_ACTIONS,
    OVER,
    PHASE_NAMES,
    PICKUP,
    PICKUP_MOVE,
    RESPOND,
    SEAT_LETTERS,
    Move,
    check_move,
    decode_log_entry,
    moves_for,
    parse_seat,
    seat_name,
)
from .outcome import Outcome
from .phases import OutKind, Phase
from .rules import Rules
from .state import Origin, StartPosition, State

__all__ = [
    "BEAT_MOVES",
    "FREE",
    "LEAD",
    "LEAD_MOVES",
    "NUM_ACTIONS",
    "OVER",
    "PHASE_NAMES",
    "PICKUP",
    "PICKUP_MOVE",
    "RESPOND",
    "SEAT_LETTERS",
    "Game",
    "Move",
    "Origin",
    "State",
    "blind_owners",
    "check_move",
    "decode_log_entry",
    "default_owners",
    "moves_for",
    "parse_seat",
    "seat_name",
]

# --------------------------------------------------------------------------- game


def _parse_owner_map(owners: Any, n: int) -> list[int]:
    """Owners as a per-seat suit bitmask list, from strings, a mapping or masks."""
    if isinstance(owners, Mapping):
        seats = [0] * n
        for key, val in owners.items():
            seat = parse_seat(key, n)
            seats[seat] = _suits_mask(val)
        return seats
    if not isinstance(owners, (str, Sequence)):
        raise PositionError(
            "owners are a mapping of seat to suits or one entry per seat "
            f"(e.g. 'CDHS' or ['SC', 'HD']), not {type(owners).__name__}"
        )
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


_TEXT_HINT = (
    "{what}: Game.position takes card sets and card lists, not text; parse card text "
    "with svoi_kozyri.notation.position_from_text or svoi_kozyri.core.cards.parse_cards"
)


def _card_set(value: object, what: str) -> int:
    """``value`` as a card set, or a :class:`PositionError` that says what it got."""
    if isinstance(value, str):
        raise PositionError(_TEXT_HINT.format(what=what))
    if type(value) is not int or value < 0:
        raise PositionError(f"{what} must be a card set (an int bit mask), not {value!r}")
    return value


def _position_pile(pile: Any) -> list[Card]:
    """The pile of :meth:`Game.position`, bottom to top: card ints, not text.

    Typed ``Any`` for the same reason as :meth:`Game._position_hands`."""
    loose_pile: Any = pile
    if isinstance(loose_pile, str):
        raise PositionError(_TEXT_HINT.format(what="the pile"))
    pile_cards: list[int] = []
    for c in loose_pile:
        if type(c) is not int or not 0 <= c < NUM_CARDS:
            raise PositionError(f"the pile holds cards (ints 0..{NUM_CARDS - 1}), not {c!r}")
        pile_cards.append(c)
    return pile_cards


def _position_outs(outs: Iterable[Sequence[Any]], n: int) -> list[tuple[int, OutKind]]:
    """The ``outs`` of :meth:`Game.position`: (seat index or letter, an
    :class:`OutKind` or its word) pairs, the seats as indices."""
    out_list: list[tuple[int, OutKind]] = []
    for s, kind in outs:
        si = parse_seat(s, n) if isinstance(s, str) else s
        out_list.append((si, kind if isinstance(kind, OutKind) else OutKind.parse(str(kind))))
    return out_list


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
        self._check_deck(order)
        if self.rules.is_besicovitch:
            return self._deal_besicovitch(order, dealer), []
        n = self.n
        hands = [0] * n
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

    def _check_deck(self, order: list[Card]) -> None:
        """A :class:`PositionError` unless ``order`` lists each card of this game's
        deck exactly once.

        Why apart: the check of the input, before either way of dealing."""
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

    def _deal_besicovitch(self, order: list[Card], dealer: int) -> list[CardSet]:
        """The Besicovitch deal (SPEC C3.3): the dealer takes the top half of the deck,
        and each card dealt gives the other player its mirror in their own suits.

        Why apart: it shares nothing with the standard deal but the checked deck."""
        hands = [0] * self.n
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
        return hands

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

    def new_hand(self, dealer: int | str = 0, seed: int | random.Random | None = None) -> State:
        """Start a hand from a seeded shuffle (``seed`` an int or a ``random.Random``);
        the dealer is a seat index or letter."""
        d = parse_seat(dealer, self.n) if isinstance(dealer, str) else dealer
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        return self.deal(d, self.shuffled_deck(rng))

    def position(
        self,
        hands: Sequence[CardSet] | Mapping[int | str, CardSet],
        pile: Sequence[Card] = (),
        to_act: int | str = 0,
        phase: int | str = FREE,
        outs: Iterable[Sequence[Any]] = (),
        *,
        discard: CardSet = 0,
        turns: int = 0,
        outcome: Outcome | None = None,
        known: Sequence[CardSet] | None = None,
    ) -> State:
        """Start a hand from any position (SPEC E: only the listed cards exist).

        The values are typed, like ``chess.Board``'s setters: ``hands`` is one card
        set (an ``int`` bit mask, see :mod:`svoi_kozyri.core.cards`) per seat, as a
        sequence in seat order or a mapping from seat (index or letter) to card set;
        ``pile`` lists the pile's cards bottom to top.  Card *text* is parsed by the
        notation layer: :func:`svoi_kozyri.notation.position_from_text` (loose card
        lists) or :func:`svoi_kozyri.notation.parse_position` (the position notation).
        """
        n = self.n
        hs = self._position_hands(hands)
        pile_cards = _position_pile(pile)
        seat = parse_seat(to_act, n) if isinstance(to_act, str) else to_act
        ph = int(Phase.parse(phase)) if isinstance(phase, str) else phase
        out_list = _position_outs(outs, n)
        seen = self._position_cards(hs, pile_cards, discard)
        empty = [i for i in range(n) if not hs[i]]
        if sorted(s for s, _ in out_list) != empty or len({s for s, _ in out_list}) != len(
            out_list
        ):
            raise PositionError(
                "'out' must list exactly the seats with empty hands "
                f"({', '.join(seat_name(i) for i in empty) or 'none'})"
            )
        if type(turns) is not int or turns < 0:
            raise PositionError(f"the turn counter must be an integer >= 0, not {turns!r}")
        if outcome is None and ph != OVER:
            self._check_in_play(hs, pile_cards, seat, ph, turns, n - len(empty))
        else:
            ph, seat = OVER, -1
        origin = Origin(
            dealer=None,
            deck=None,
            transfers=(),
            known=tuple(known) if known is not None else tuple([0] * n),
            cards=seen,
            start=StartPosition(
                tuple(hs),
                tuple(pile_cards),
                seat,
                ph,
                tuple(out_list),
                discard,
                turns,
                outcome,
                tuple(known) if known is not None else None,
            ),
        )
        return State._start(
            self, hs, pile_cards, seat, ph, tuple(out_list), discard, turns, outcome, origin
        )

    def _position_hands(self, hands: Any) -> list[CardSet]:
        """The hands of :meth:`position`, one card set per seat, from a sequence in
        seat order or a mapping from seat (index or letter) that names every seat.

        Typed ``Any``: the values are checked here, where mypyc would otherwise
        refuse a wrong type with a bare TypeError before the helpful PositionError."""
        n = self.n
        hs: list[int] = [0] * n
        loose: Any = hands
        if isinstance(loose, Mapping):
            given = set()
            for key, value in loose.items():
                seat = parse_seat(key, n)
                hs[seat] = _card_set(value, f"the hand of {seat_name(seat)}")
                given.add(seat)
            if len(given) != n:
                raise PositionError(f"a position must list the hands of all {n} seats")
            return hs
        if isinstance(loose, str):
            raise PositionError(_TEXT_HINT.format(what="hands"))
        if not isinstance(loose, Iterable):
            raise PositionError(f"hands are one card set per seat, not {loose!r}")
        hl: list[Any] = list(loose)
        if len(hl) != n:
            raise PositionError(f"a position must list {n} hands, not {len(hl)}")
        for i, value in enumerate(hl):
            hs[i] = _card_set(value, f"the hand of {seat_name(i)}")
        return hs

    def _position_cards(self, hs: list[CardSet], pile_cards: list[Card], discard: CardSet) -> int:
        """Every card of a position (hands, pile, discard), each at most once and
        all of this game's deck.

        Why apart: the one check across the hands, the pile and the discard."""
        seen = 0
        total = 0
        for h in [*hs, *[1 << c for c in pile_cards], discard]:
            if h & seen:
                raise PositionError(f"card(s) {format_cards(h & seen)} appear twice")
            seen |= h
            total += h.bit_count()
        if seen & ~self.deck:
            raise PositionError(f"card(s) {format_cards(seen & ~self.deck)} are not in this deck")
        return seen

    def _check_in_play(
        self, hs: list[CardSet], pile_cards: list[Card], seat: int, ph: int, turns: int, active: int
    ) -> None:
        """The checks of a position whose hand goes on: below the action cap, two
        players holding cards, one of them to act, a pile to respond to.

        Why apart: a finished position (a result, or mode over) skips all of them."""
        cap = self.rules.max_actions_per_hand
        if cap is not None and turns >= cap:
            raise PositionError(
                f"the turn counter {turns} has reached the action cap "
                f"(max_actions_per_hand={cap}): the hand would be over"
            )
        if active < 2:
            raise PositionError("at least two players must hold cards while the hand goes on")
        if not 0 <= seat < self.n or not hs[seat]:
            raise PositionError("the player to act must hold cards")
        if ph in (RESPOND, LEAD) and not pile_cards:
            raise PositionError("respond mode needs a card on the pile")
        if ph == LEAD and not hs[seat]:
            raise PositionError("the player to lead must hold cards")
