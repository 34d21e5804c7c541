"""Exact position reduction for open positions: a canonical key.

Why: two open positions that differ only by a relabelling of cards the rules
cannot tell apart have the same value and corresponding optimal moves, so one
solved (or tabled) position answers the whole class.  Three exact reductions
are combined:

* **rank compression**: only the order of the ranks *in play* (hands and pile)
  matters, not the gaps between them, except where a rule looks at an absolute
  rank.  The only such rule is the whole-pile pickup on the ace of one's own
  suit (SPEC A10), so an ace stays an ace; every other card in play is relabelled
  to the lowest ranks of the deck, per suit in order.  With equal-rank beating
  (SPEC C7) ranks of *different* suits are compared too; then the ranks are
  compressed across all suits together (same rank stays same rank);
* **suit symmetries**: permutations of the suits (with a permutation of the
  seats in the two-player game) under which the rules' beat and pickup tables
  are unchanged, e.g. a player's two suits swapped in the two-suit game, or the
  two players' roles exchanged together with their suits;
* the key is relative to the player to act in the two-player game, so the
  same situation for either seat gets one key.

Nothing is assumed about the rules: every candidate relabelling is *verified*
against the game's own beat and pickup tables (every pair of cards in play for
both seats, and every pickup count), and a relabelling that fails is not used.
So the reduction stays exact under every rules option; at worst it reduces
less.  The value of a position and of the corresponding moves depends only on
those tables (the solver's transition function reads nothing else), so equal
keys mean equal values.
"""

from __future__ import annotations

from itertools import permutations

from ...core import FREE, RESPOND, Game, PositionError, State
from ...core.cards import NUM_CARDS, NUM_RANKS, RA, card, rank_of, suit_of

#: A position in a seat-indexed frame: (hands of the two active seats in seat
#: order, pile bottom to top, index 0/1 of the player to act, phase).
Frame = tuple[int, int, tuple[int, ...], int, int]


class Reducer:
    """Canonical keys for the open positions of one game.

    The rules symmetries (suit permutations with the seat permutation they
    induce) are found once, by checking the game's full beat and pickup tables."""

    def __init__(self, game: Game) -> None:
        self.game = game
        n = game.n
        self.beat = [game.beat_row(s) for s in range(n)]
        self.req = [game.pickup_row(s) for s in range(n)]
        deck = game.deck
        self.low_rank = min(rank_of(c) for c in range(NUM_CARDS) if deck >> c & 1)
        seat_perms: list[tuple[int, ...]] = [tuple(range(n))]
        if n == 2:
            seat_perms.append((1, 0))
        self.autos: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
        for sigma in permutations(range(4)):
            for pi in seat_perms:
                if self._is_auto(sigma, pi):
                    self.autos.append((sigma, pi))

    # -- symmetries --------------------------------------------------------------

    def _is_auto(self, sigma: tuple[int, ...], pi: tuple[int, ...]) -> bool:
        deck = self.game.deck
        for s in range(self.game.n):
            for t in range(NUM_CARDS):
                if not deck >> t & 1:
                    continue
                ft = card(sigma[suit_of(t)], rank_of(t))
                if self.req[pi[s]][ft] != self.req[s][t]:
                    return False
                if self.beat[pi[s]][ft] != map_mask(self.beat[s][t], sigma):
                    return False
        return True

    # -- rank compression ----------------------------------------------------------

    def compression(self, cards: int, seats: tuple[int, ...]) -> list[int]:
        """A verified relabelling of the cards in ``cards`` (index: card, value: new
        card; cards not in play map to themselves): per-suit compression if the
        rules allow it here, else compression across suits, else none."""
        per_suit = self._per_suit(cards)
        if self._preserves(per_suit, cards, seats):
            return per_suit
        across = self._across(cards)
        if self._preserves(across, cards, seats):
            return across
        return list(range(NUM_CARDS))

    def _per_suit(self, cards: int) -> list[int]:
        f = list(range(NUM_CARDS))
        for s in range(4):
            nxt = self.low_rank
            for r in range(NUM_RANKS):
                c = card(s, r)
                if cards >> c & 1:
                    if r == RA:
                        f[c] = c
                    else:
                        f[c] = card(s, nxt)
                        nxt += 1
        return f

    def _across(self, cards: int) -> list[int]:
        present = sorted({rank_of(c) for c in range(NUM_CARDS) if cards >> c & 1} - {RA})
        new = {r: self.low_rank + i for i, r in enumerate(present)}
        new[RA] = RA
        f = list(range(NUM_CARDS))
        for c in range(NUM_CARDS):
            if cards >> c & 1:
                f[c] = card(suit_of(c), new[rank_of(c)])
        return f

    def _preserves(self, f: list[int], cards: int, seats: tuple[int, ...]) -> bool:
        """Does ``f`` keep every beat relation and pickup count among ``cards``?"""
        inplay = [c for c in range(NUM_CARDS) if cards >> c & 1]
        for s in seats:
            row, req = self.beat[s], self.req[s]
            for t in inplay:
                ft = f[t]
                if req[ft] != req[t]:
                    return False
                bt, bft = row[t], row[ft]
                for c in inplay:
                    if (bt >> c & 1) != (bft >> f[c] & 1):
                        return False
        return True

    # -- keys ------------------------------------------------------------------------

    def frame(self, state: State) -> tuple[tuple[int, ...], Frame]:
        """The active seats and ``state`` in their frame."""
        seats = tuple(i for i, h in enumerate(state.hands) if h)
        p = seats.index(state.to_act)
        h = state.hands
        return seats, (h[seats[0]], h[seats[1]], tuple(state.pile_cards()), p, state.phase)

    def images(self, seats: tuple[int, ...], fr: Frame) -> list[tuple[Frame, list[int], int]]:
        """Every reduced image of ``fr``: (image in the frame of the first active
        seat acting, card map, seat swap) for each usable symmetry."""
        h0, h1, pile, p, phase = fr
        cards = h0 | h1
        for c in pile:
            cards |= 1 << c
        out: list[tuple[Frame, list[int], int]] = []
        for sigma, pi in self.autos:
            if self.game.n > 2 and pi != tuple(range(self.game.n)):
                continue  # pragma: no cover - only the two-player game swaps seats
            swap = 0
            if self.game.n == 2:
                swap = 1 if pi[seats[0]] != seats[0] else 0
            m = [card(sigma[suit_of(c)], rank_of(c)) for c in range(NUM_CARDS)]
            mcards = map_mask(cards, sigma)
            if self.game.n == 2:
                img_seats: tuple[int, ...] = (pi[seats[0]], pi[seats[1]])
                img_seats = tuple(sorted(img_seats))
            else:
                img_seats = seats
            comp = self.compression(mcards, img_seats)
            f = [comp[m[c]] for c in range(NUM_CARDS)]
            a = _apply(f, h0)
            b = _apply(f, h1)
            q = p
            if swap:
                a, b, q = b, a, 1 - p
            img: Frame = (a, b, tuple(f[c] for c in pile), q, phase)
            out.append((img, f, swap))
        return out

    def key(self, state: State) -> tuple[int, ...]:
        """The canonical key of an open ``state``: equal for positions the rules
        cannot tell apart (the same value for the player to act, and moves that
        correspond).  For games of three or four players the active seats are part
        of the key (the seats of an open position matter there)."""
        seats, fr = self.frame(state)
        best = min(encode(img) for img, _f, _s in self.images(seats, fr))
        if self.game.n > 2:
            return (seats[0], seats[1], *best)
        return best


def map_mask(mask: int, sigma: tuple[int, ...]) -> int:
    """``mask`` with every card's suit replaced by ``sigma[suit]``."""
    out = 0
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        mask ^= low
        out |= 1 << card(sigma[suit_of(c)], rank_of(c))
    return out


def _apply(f: list[int], mask: int) -> int:
    out = 0
    while mask:
        low = mask & -mask
        c = low.bit_length() - 1
        mask ^= low
        out |= 1 << f[c]
    return out


def encode(fr: Frame) -> tuple[int, ...]:
    """A frame as a comparable tuple: phase, the seat index to act, the hands and
    the pile (its length first, so no two frames share a tuple)."""
    h0, h1, pile, p, phase = fr
    if phase not in (FREE, RESPOND):
        raise PositionError("a canonical key needs a turn boundary")
    return (phase, p, h0, h1, len(pile), *pile)
