"""The two-player rules step on the search's compact position: one module for the
solver, its endgame tables and the benchmark's alpha-beta baseline.

Why this exists: once only two players hold cards, the searches do not step the
engine's :class:`~svoi_kozyri.core.State` (a copy, a Zobrist update, a log entry
and the repetition count a step) but a bare transition function over a handful of
ints.  That function used to be written out in the solver, the endgame tables
and the alpha-beta baseline, so a rules variant meant an edit in each; now they
all call :class:`TwoPlayerRules`.  The compiled fixpoint (:mod:`svoi_kozyri._native.fixpoint`,
numba) keeps a port of :meth:`TwoPlayerRules.child` on its own pile
representation (a trie), and the environments' kernels the n-player step; a
generated differential test (``tests/test_solver_differential.py``) steps all of
them and the engine on the same random positions.

The compact position is ``(h0, h1, pile, plen, p, phase)``:

* ``h0``, ``h1``: the two active players' hands as card bitmasks (the lower and
  the higher seat, or, for the endgame tables, local card indices);
* ``pile``: the pile's card codes (card + 1) packed :data:`PILE_BITS` bits each,
  the top card in the lowest bits, and ``plen`` its number of cards;
* ``p``: the player to act, 0 or 1; ``phase``: the engine's ``FREE``,
  ``RESPOND`` or ``LEAD`` (between a beat and the lead that completes the turn).

A step is an action as the engine numbers them: a card index, or ``PICKUP``.
The rules read only the two players' beat masks and pickup counts by top card,
the draw rule and the two pickup options, which :class:`TwoPlayerRules` holds; so
two positions whose tables agree play alike (the exact reductions of
:mod:`.reduce` rest on that).  Values are for the player who goes out: ``1`` the
other one is the durak, ``0`` a draw by the last card (SPEC A12.2).
"""

from __future__ import annotations

from typing import Final, final

from ...core import FREE, LEAD, OVER, PICKUP, RESPOND, Game, State
from ...core.cards import NUM_CARDS, rank_of
from ...core.rules import Rules

#: Bits of one card code (card + 1, 0 for "no card") in a packed pile.
PILE_BITS: Final = 6
#: The top card's code of a packed pile: ``pile & PILE_MASK``.
PILE_MASK: Final = (1 << PILE_BITS) - 1
#: The ``out`` of :meth:`TwoPlayerRules.child` when the hand goes on.
GOES_ON: Final = -2

#: A compact position: ``(h0, h1, pile, plen, p, phase)`` (see the module text).
Position = tuple[int, int, int, int, int, int]


def draw_mode(rules: Rules) -> int:
    """The last-card draw rule (SPEC A12.2) as a number: 0 none, 1 only when the
    last card was a lead, 2 any last card.  The Besicovitch variant has its own
    option, which is the lead-only rule when on."""
    if rules.is_besicovitch:
        return 1 if rules.besicovitch_draw_rule else 0
    return {"none": 0, "lead_only": 1, "any_last_card": 2}[rules.draw_rule]


def pos_key(h0: int, h1: int, pile: int, p: int, phase: int) -> int:
    """One int naming a compact position (``plen`` follows from ``pile``): the key
    of the solver's transposition tables and of the positions it has met."""
    return (((pile << 40 | h0) << 40 | h1) << 2 | p) << 2 | phase


def pack_pile(cards: list[int]) -> int:
    """The packed pile of ``cards`` (bottom first; card indices, not codes)."""
    pile = 0
    for c in cards:
        pile = pile << PILE_BITS | (c + 1)
    return pile


def pile_codes(pile: int, plen: int) -> list[int]:
    """The card codes (card + 1) of a packed pile, bottom first."""
    codes = [0] * plen
    for i in range(plen - 1, -1, -1):
        codes[i] = pile & PILE_MASK
        pile >>= PILE_BITS
    return codes


def encode(state: State, seats: tuple[int, ...]) -> Position:
    """The compact position of ``state`` between the two players ``seats`` (the
    lower seat is player 0)."""
    a, b = seats
    cards = state.pile_cards()
    p = 0 if state.to_act == a else 1
    return (state.hands[a], state.hands[b], pack_pile(cards), len(cards), p, state.phase)


@final
class TwoPlayerRules:
    """The two-player rules of one game on compact positions.

    ``beat[p][code]`` is the mask of the cards player ``p`` may beat the card of
    ``code`` (card + 1; code 0, the empty pile, beats nothing) with, ``req[p][code]``
    how many cards player ``p`` must pick up facing it; ``draw_mode`` is
    :func:`draw_mode`, ``taker_leads`` and ``face_new_top`` the pickup options
    (SPEC C8: who acts after a pickup, and whether they face the new top card).
    Final, so that mypyc calls its methods directly (no virtual table) in the
    searches' inner loops.
    """

    def __init__(
        self,
        beat: list[list[int]],
        req: list[list[int]],
        draw_mode: int,
        taker_leads: bool,
        face_new_top: bool,
    ) -> None:
        """The rules from their tables (see the class text)."""
        self.beat = beat
        self.req = req
        self.draw_mode = draw_mode
        self.taker_leads = taker_leads
        self.face_new_top = face_new_top

    def __reduce__(self) -> tuple[type[TwoPlayerRules], tuple[object, ...]]:
        """Pickled by its tables (a compiled class is rebuilt through ``__init__``):
        a search bot goes to an arena's worker processes and into an env's copy."""
        args = (self.beat, self.req, self.draw_mode, self.taker_leads, self.face_new_top)
        return (TwoPlayerRules, args)

    @staticmethod
    def for_seats(game: Game, seats: tuple[int, ...]) -> TwoPlayerRules:
        """The rules between seats ``seats`` of ``game`` on the engine's card
        indices (what the solver searches)."""
        beat = [[0] + [game.beat_mask(t, s) for t in range(NUM_CARDS)] for s in seats]
        req = [[0] + [game.required_pickup(t, s) for t in range(NUM_CARDS)] for s in seats]
        return _make(beat, req, game.rules)

    @staticmethod
    def for_cards(game: Game, cards: list[int]) -> TwoPlayerRules:
        """The rules of the two-player ``game`` on the local indices ``0..k-1`` of
        ``cards`` (an endgame table's card set: hands of ``k`` bits)."""
        beat: list[list[int]] = []
        req: list[list[int]] = []
        for s in range(2):
            row = game.beat_row(s)
            pickup = game.pickup_row(s)
            brow = [0]
            rrow = [0]
            for c in cards:
                m = 0
                for j, d in enumerate(cards):
                    if row[c] >> d & 1:
                        m |= 1 << j
                brow.append(m)
                rrow.append(pickup[c])
            beat.append(brow)
            req.append(rrow)
        return _make(beat, req, game.rules)

    def out_value(self, hl: int, top_code: int, last: int, kind_lead: bool) -> int:
        """The value for the player who just went out with the card of ``top_code``
        (a lead when ``kind_lead``, else a beat), the other one (``last``) holding
        ``hl``: 0 when the last-card draw applies (one card left that beats the
        top), else 1."""
        dm = self.draw_mode
        if dm and hl & (hl - 1) == 0 and (dm == 2 or kind_lead) and self.beat[last][top_code] & hl:
            return 0
        return 1

    def actions(self, h0: int, h1: int, pile: int, p: int, phase: int) -> list[int]:
        """The legal step actions, cards in ascending order then the pickup: a
        response beats the top card or picks up; a free lead and the lead after a
        beat play any card in hand."""
        hp = h0 if p == 0 else h1
        m = self.beat[p][pile & PILE_MASK] & hp if phase == RESPOND else hp
        acts: list[int] = []
        while m:
            low = m & -m
            acts.append(low.bit_length() - 1)
            m ^= low
        if phase == RESPOND:
            acts.append(PICKUP)
        return acts

    def order(self, h0: int, h1: int, pile: int, p: int, phase: int, first: int) -> list[int]:
        """The legal step actions, most promising first for a search: ``first``
        (a transposition table's step, if legal), then a response's beats from the
        cheapest (the last card, going out, before all) and the pickup last, or
        the leads the opponent can beat least often (then the lowest)."""
        hp = h0 if p == 0 else h1
        hq = h1 if p == 0 else h0
        scored: list[tuple[int, int]] = []
        if phase == RESPOND:
            bm = self.beat[p][pile & PILE_MASK] & hp
            only = hp & (hp - 1) == 0
            while bm:
                low = bm & -bm
                c = low.bit_length() - 1
                bm ^= low
                scored.append((-100 if only else rank_of(c), c))
            scored.sort()
            acts = [c for _, c in scored]
            acts.append(PICKUP)
        else:
            beat_q = self.beat[1 - p]
            m = hp
            while m:
                low = m & -m
                c = low.bit_length() - 1
                m ^= low
                scored.append(((beat_q[c + 1] & hq).bit_count() * 16 + rank_of(c), c))
            scored.sort()
            acts = [c for _, c in scored]
        if first >= 0 and acts[0] != first and first in acts:
            acts.remove(first)
            acts.insert(0, first)
        return acts

    def child(
        self, h0: int, h1: int, pile: int, plen: int, p: int, phase: int, a: int
    ) -> tuple[int, int, int, int, int, int, int]:
        """Apply the legal step action ``a``: the child position and, when the
        hand ends (phase ``OVER``, the mover ``p`` having gone out), its
        :meth:`out_value` for the mover, else :data:`GOES_ON`."""
        if a == PICKUP:
            k = self.req[p][pile & PILE_MASK]
            if k > plen:
                k = plen
            taken = 0
            for _ in range(k):
                taken |= 1 << ((pile & PILE_MASK) - 1)
                pile >>= PILE_BITS
            plen -= k
            if p == 0:
                h0 |= taken
            else:
                h1 |= taken
            q = p if self.taker_leads else 1 - p
            ph = RESPOND if pile and self.face_new_top else FREE
            return h0, h1, pile, plen, q, ph, GOES_ON
        bit = 1 << a
        if p == 0:
            h0 ^= bit
            hp = h0
            hl = h1
        else:
            h1 ^= bit
            hp = h1
            hl = h0
        pile = pile << PILE_BITS | (a + 1)
        plen += 1
        if phase == RESPOND:
            if hp:
                return h0, h1, pile, plen, p, LEAD, GOES_ON
            return h0, h1, pile, plen, p, OVER, self.out_value(hl, a + 1, 1 - p, False)
        if hp:
            return h0, h1, pile, plen, 1 - p, RESPOND, GOES_ON
        return h0, h1, pile, plen, p, OVER, self.out_value(hl, a + 1, 1 - p, True)


def _make(beat: list[list[int]], req: list[list[int]], rules: Rules) -> TwoPlayerRules:
    """The rules of tables ``beat`` and ``req`` under the options of ``rules``."""
    face_new_top = rules.after_pickup == "face_new_top"
    return TwoPlayerRules(beat, req, draw_mode(rules), rules.taker_leads_after_pickup, face_new_top)


__all__ = [
    "GOES_ON",
    "PILE_BITS",
    "PILE_MASK",
    "Position",
    "TwoPlayerRules",
    "draw_mode",
    "encode",
    "pack_pile",
    "pile_codes",
    "pos_key",
]
