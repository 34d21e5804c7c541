"""What one player may know, and sampling hidden hands consistent with it.

An :class:`Observation` is built from a :class:`State` for one seat (or for a
spectator, ``seat=None``) and holds exactly that viewer's knowledge (SPEC A15):
their own hand, ownership, all hand sizes, the pile, the public history of
turns (every card played and every pickup with the cards taken), the sixes
transfers, and for each seat the cards publicly known to be in its hand
(picked up and not played since, or a six handed to its owner).  Bots, the
terminal and the web server only ever see observations; the full state goes
only to an explicitly omniscient caller.

:func:`determinize` samples a full state consistent with an observation: every
card whose holder is publicly known is placed with that holder, the remaining
hidden cards are spread uniformly over the hidden places with the right sizes.

An observation is **complete** (:attr:`Observation.complete`) when at most one
seat holds cards the viewer cannot see: every unseen card must then be in that
one hand, so the observation determines the whole state.  That is the
two-player game with the whole deck dealt from the first card (each player knows
the other's hand by elimination), the Besicovitch game, and three- or
four-player endgames where only one other player still holds hidden cards.
Such a position is open for its viewer: :func:`determinize` returns its one
state without drawing from the generator, and the bots, the hints and the
analysis treat it as a game of perfect information.  Nothing is revealed that
the viewer could not deduce: the predicate and the reconstruction read the
observation only.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .cards import Card, CardSet, cards_of
from .diagram import diagram
from .errors import IllegalMoveError
from .game import (
    FREE,
    OVER,
    RESPOND,
    Game,
    Move,
    State,
    check_move,
    decode_log_entry,
    moves_for,
    parse_seat,
)
from .outcome import Outcome
from .phases import OutKind


@dataclass(frozen=True)
class Observation:
    """One viewer's knowledge of a hand.  ``seat`` is ``None`` for a spectator.

    In the Besicovitch game all hands are open, so ``hands`` holds every hand;
    otherwise ``hands`` holds only the viewer's own hand (others are 0) and
    ``known`` the publicly known part of every hand.
    """

    game: Game
    seat: int | None
    hands: tuple[CardSet, ...]
    hand_sizes: tuple[int, ...]
    known: tuple[CardSet, ...]
    pile: tuple[Card, ...]
    discard: CardSet
    to_act: int | None
    phase: int
    outs: tuple[tuple[int, OutKind], ...]
    outcome: Outcome | None
    turns: int
    log: tuple[int, ...] = field(repr=False, compare=False)
    transfers: tuple[tuple[Card, int, int], ...]
    dealer: int | None
    in_play: CardSet = 0  # the cards that exist in this hand

    @property
    def history(self) -> list[tuple[int, Move, CardSet]]:
        """Public turns so far: ``(seat, move, cards picked up)``, oldest first."""
        return [decode_log_entry(e) for e in self.log]

    @property
    def hand(self) -> CardSet:
        """The viewer's own hand (0 for a spectator)."""
        return 0 if self.seat is None else self.hands[self.seat]

    @property
    def top(self) -> Card | None:
        """Top card of the pile."""
        return self.pile[-1] if self.pile else None

    @property
    def my_turn(self) -> bool:
        """True when the viewer is the seat to act."""
        return self.seat is not None and self.seat == self.to_act

    def unseen(self) -> CardSet:
        """Cards whose location the viewer does not know (in some other hand)."""
        m = (self.in_play or self.game.deck) & ~self.discard
        for c in self.pile:
            m &= ~(1 << c)
        for i in range(self.game.n):
            m &= ~(self.hands[i] | self.known[i])
        return m

    def hidden_counts(self) -> tuple[int, ...]:
        """Per seat, how many of its cards the viewer cannot name (its hand size less
        the cards the viewer holds or knows there)."""
        return tuple(
            self.hand_sizes[i] - (self.hands[i] | self.known[i]).bit_count()
            for i in range(self.game.n)
        )

    @property
    def complete(self) -> bool:
        """True when the observation determines the full state: at most one seat
        holds cards the viewer cannot see, so every unseen card is in that hand.

        Why by elimination and not only in the Besicovitch game: with two players
        and the whole deck dealt, each player knows the other's hand exactly, and
        treating it as hidden made the bots sample one world many times and the
        analysis call proven positions estimates.  With two or more other seats
        holding hidden cards it is False: where each unseen card lies is then
        unknown (a spectator of a two-player hand is such a case)."""
        counts = self.hidden_counts()
        holders = [i for i, k in enumerate(counts) if k]
        return len(holders) <= 1 and sum(counts) == self.unseen().bit_count()

    def full_hands(self) -> tuple[CardSet, ...]:
        """Every hand of the one state consistent with a :attr:`complete`
        observation (the unseen cards go to the one seat with hidden cards).
        Raises :class:`ValueError` for an incomplete observation: its hidden hands
        are not determined (sample them with :func:`sample_hands`)."""
        if not self.complete:
            raise ValueError("the observation does not determine the hidden hands")
        counts = self.hidden_counts()
        unseen = self.unseen()
        return tuple(
            self.hands[i] | self.known[i] | (unseen if counts[i] else 0) for i in range(self.game.n)
        )

    def beat_options(self) -> CardSet:
        """Cards the viewer may beat the top card with, when responding."""
        if not self.my_turn or self.phase != RESPOND or not self.pile:
            return 0
        assert self.seat is not None
        return self.game.beat_mask(self.pile[-1], self.seat) & self.hands[self.seat]

    def pickup_count(self) -> int:
        """Cards a refusal would take now (0 if refusing is impossible)."""
        if self.phase != RESPOND or self.to_act is None or not self.pile:
            return 0
        return min(self.game.required_pickup(self.pile[-1], self.to_act), len(self.pile))

    def legal_moves(self) -> list[Move]:
        """The viewer's legal turn-level moves (empty unless it is their turn)."""
        if not self.my_turn or self.phase not in (FREE, RESPOND):
            return []
        assert self.seat is not None
        top = self.pile[-1] if self.pile else -1
        return moves_for(self.game, self.seat, self.hands[self.seat], top, self.phase)

    def __str__(self) -> str:
        """A multi-line diagram of the table as this viewer sees it: its own hand
        and the publicly known cards of the others (:func:`~.diagram.diagram`)."""
        seen = [self.hands[i] | self.known[i] for i in range(self.game.n)]
        return diagram(
            self.game,
            seen,
            list(self.hand_sizes),
            list(self.pile),
            self.to_act,
            self.phase,
            self.outs,
            self.outcome,
        )

    def check_move(self, move: object) -> None:
        """Raise :class:`IllegalMoveError` unless ``move`` is legal for the viewer now."""
        if self.seat is None or not self.my_turn:
            raise IllegalMoveError("it is not this viewer's turn")
        top = self.pile[-1] if self.pile else -1
        check_move(self.game, self.seat, self.hands[self.seat], top, self.phase, move)

    def to_state(self, hands: tuple[CardSet, ...] | list[CardSet]) -> State:
        """A state with these full hands and the public rest of this observation.
        The repetition count starts afresh from here."""
        return self.game.position(
            list(hands),
            list(self.pile),
            -1 if self.to_act is None else self.to_act,
            self.phase,
            self.outs,
            discard=self.discard,
            turns=self.turns,
            outcome=self.outcome,
            known=self.known,
        )


def observe(state: State, seat: int | str | None) -> Observation:
    """The observation of ``seat`` (an index or a letter; ``None``: a spectator) of
    ``state``.  An unknown seat is a :class:`PositionError`, never a view of nobody."""
    g = state.game
    n = g.n
    seat = None if seat is None else parse_seat(seat, n)
    if g.rules.is_besicovitch:
        hands = tuple(state.hands)
        known = hands
    else:
        hands = tuple(state.hands[i] if i == seat else 0 for i in range(n))
        known = tuple(state.known_cards(i) for i in range(n))
    transfers = (
        state.origin.transfers
        if g.rules.sixes_transfer_public
        else tuple(t for t in state.origin.transfers if seat is not None and seat in (t[1], t[2]))
    )
    return Observation(
        game=g,
        seat=seat,
        hands=hands,
        hand_sizes=state.hand_sizes(),
        known=known,
        pile=tuple(state.pile_cards()),
        discard=state.discard,
        to_act=None if state.phase == OVER else state.to_act,
        phase=state.phase,
        outs=state.outs,
        outcome=state.outcome,
        turns=state.turns,
        log=tuple(state.log[: state.log_len]),
        transfers=transfers,
        dealer=state.origin.dealer,
        in_play=state.origin.cards,
    )


def sample_hands(obs: Observation, rng: random.Random) -> list[CardSet]:
    """Full hands consistent with ``obs``: known cards with their holders, the
    hidden rest dealt uniformly at random to the hidden places.  A
    :attr:`~Observation.complete` observation has one consistent deal: it is
    returned without drawing from ``rng``."""
    if obs.complete:
        return list(obs.full_hands())
    n = obs.game.n
    hands = [0] * n
    need = [0] * n
    for i in range(n):
        fixed = obs.hands[i] | obs.known[i]
        hands[i] = fixed
        need[i] = obs.hand_sizes[i] - fixed.bit_count()
        if need[i] < 0:
            raise ValueError("observation is inconsistent: known cards exceed the hand size")
    pool = cards_of(obs.unseen())
    if len(pool) != sum(need):
        raise ValueError("observation is inconsistent: hidden cards do not match hand sizes")
    rng.shuffle(pool)
    k = 0
    for i in range(n):
        for c in pool[k : k + need[i]]:
            hands[i] |= 1 << c
        k += need[i]
    return hands


def determinize(obs: Observation, rng: random.Random) -> State:
    """A full state sampled uniformly among those consistent with ``obs`` (the
    one such state, with ``rng`` untouched, when ``obs`` is complete)."""
    return obs.to_state(sample_hands(obs, rng))
