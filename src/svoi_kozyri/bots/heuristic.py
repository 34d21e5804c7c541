"""The heuristic bot: a rule-of-thumb player that counts cards.

The policy (explained for players in ``docs/bots.md``; weights in :class:`Params`):

* **Card values.**  Every card in hand has a *keep value* for its holder: an own
  trump ``own_base + 2 * rank`` (six 12, ace 28), a card of the next player's own
  suit ``attack * rank`` (a lead they can answer only with a higher card of that
  suit; ``attack`` is 2 in the two-player game with two suits each, else 1), any
  other card its rank (0 = five .. 9 = ace).  Own trumps beat everything that is
  not your own suit, so the bot spends plain cards first and keeps its high own
  trumps for the end.
* **Card counting.**  Everything played and picked up is public.  The bot knows
  which cards are certainly in the next player's hand (picked up and not played
  since, or their own six), and which cards are *unseen* (in some hidden hand).
  For a candidate lead ``c`` it finds the cards that beat ``c`` for the next
  player ``q`` (a higher card of the suit, or any card of ``q``'s own suit unless
  ``c`` is one) and computes the chance that ``q`` holds none of them: zero if
  one is known in ``q``'s hand, else the hypergeometric chance that ``q``'s hidden
  cards miss every unseen beater.  A suit ``q`` is known to lack scores high.
* **Leads.**  The score of leading ``c`` is ``P(q cannot beat c) * W - value(c)``
  where ``W`` is ``lead_weight`` times what a refusal costs ``q`` (the 3, 5 or
  whole-pile pickup; the pile after our move is known), plus a bonus when ``q``
  is about to go out, and a large bonus when only ``q`` and we remain and ``q`` could
  end the hand against us (out on a defence with its last card, or a lead we must
  then answer).  So the bot leads the cards the next player cannot beat
  (high cards of ``q``'s own suit, suits ``q`` lacks) and otherwise its cheapest.
  A lead ``q`` can beat only with its own trumps (no higher plain card of the suit
  can be in its hand) earns ``drain * P(q must trump)``: it strips ``q`` of the
  trumps it needs against our later leads.
* **Beating.**  Beat-and-lead chooses the pair ``(c1, c2)`` maximising
  ``-value(c1) + lead score(c2)``: the cheapest beater and the best lead.
* **Refusing.**  Beating sheds two cards, refusing adds ``k``.  The bot refuses
  when ``-(k + 2) * per_card + pickup_gain * value(cards taken)`` beats the best
  beat-and-lead, i.e. only when every beat would waste key cards (high own
  trumps), the pickup is tiny and brings back own trumps.
* **Endgame.**  With one card it beats whenever it can (out on a defence, which
  with one opponent left makes that opponent lose outright); with two it beats
  and leads its last card (out on a lead), choosing the lead the last opponent
  cannot answer so that the draw rule (SPEC A12.2) does not save them.

Two entry points share :func:`heuristic_decide` through :class:`View`, the tiny
abstraction of what the acting player may know: :class:`HeuristicAgent` builds the
view from an :class:`~svoi_kozyri.core.Observation`; the fast
:func:`heuristic_move` builds it from a full ``State`` (for search rollouts) and
reads only public facts and the acting player's own hand, so both give the same
decision for the same position and random stream.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, fields

from ..core import FREE, LEAD_MOVES, PICKUP_MOVE, RESPOND, Game, Move, Observation, State
from ..core.cards import NUM_CARDS, Card, CardSet
from .base import Agent


@dataclass(frozen=True)
class Params:
    """Weights of the heuristic (see the module docstring), tuned against the greedy
    bot; each is a bot option, e.g. ``make_agent("heuristic:per_card=12,attack=1.5")``.
    ``attack=None`` picks the measured best for the game (:func:`default_attack`)."""

    per_card: float = 20.0
    lead_weight: float = 0.25
    own_base: float = 10.0
    attack: float | None = None
    pickup_gain: float = 0.5
    near_out_bonus: float = 16.0
    last_two_bonus: float = 200.0
    noise: float = 0.01
    drain: float = 4.0

    def __reduce__(self) -> tuple[type[Params], tuple[float | None, ...]]:
        """Pickled by its fields: the compiled frozen class cannot be restored
        field by field, and a bot travels to worker processes and env copies."""
        return (Params, tuple(getattr(self, f.name) for f in fields(self)))


DEFAULT_PARAMS = Params()


class View:
    """What the acting player knows, in the form the decision needs.

    ``pile`` lists the pile bottom to top; ``known`` holds the cards publicly known to be in each
    seat's hand; ``hidden`` is the set of cards whose holder the player does not know.
    """

    __slots__ = (
        "game",
        "hand",
        "hidden",
        "known",
        "phase",
        "pile",
        "seat",
        "sizes",
    )

    def __init__(
        self,
        game: Game,
        seat: int,
        hand: CardSet,
        sizes: tuple[int, ...],
        known: tuple[CardSet, ...],
        hidden: CardSet,
        pile: Sequence[Card],
        phase: int,
    ) -> None:
        self.game = game
        self.seat = seat
        self.hand = hand
        self.sizes = sizes
        self.known = known
        self.hidden = hidden
        self.pile = pile
        self.phase = phase

    @classmethod
    def from_state(cls, state: State) -> View:
        """The acting player's view of a full state (reads no other hidden hand:
        the set of cards in other hands equals the public ``deck - pile - discard -
        own hand``, computed here as the union of the hands for speed)."""
        g = state.game
        p = state.to_act
        hands = state.hands
        known_cards = state.known_cards
        known: list[CardSet] = []
        sizes: list[int] = []
        others = 0
        known_others = 0
        for i, h in enumerate(hands):
            sizes.append(h.bit_count())
            if i == p:
                known.append(h)
            else:
                k = known_cards(i)
                known.append(k)
                others |= h
                known_others |= k
        return cls(
            g,
            p,
            hands[p],
            tuple(sizes),
            tuple(known),
            others & ~known_others,
            state.pile,  # read only, and only during this decision
            state.phase,
        )

    @classmethod
    def from_observation(cls, obs: Observation) -> View:
        """The view of an observation whose seat is to act."""
        if obs.seat is None:
            raise ValueError("a spectator observation has no move to choose")
        p = obs.seat
        known = tuple(obs.hand if i == p else obs.known[i] for i in range(obs.game.n))
        return cls(
            obs.game,
            p,
            obs.hand,
            obs.hand_sizes,
            known,
            obs.unseen(),
            obs.pile,
            obs.phase,
        )


# --------------------------------------------------------------------------- tables

_VALUE_CACHE: dict[
    tuple[int, float, float], tuple[Game, tuple[tuple[tuple[float, ...], ...], ...]]
] = {}
#: ``miss_chance`` memo, a flat list indexed by ``(unseen * 41 + beaters) * 41 + draws``
#: (-1.0: not computed yet); a list index is far cheaper than a tuple-keyed dict in
#: the rollout hot loop.
_MISS_SIDE = NUM_CARDS + 1
_MISS_TABLE: list[float] = [-1.0] * (_MISS_SIDE * _MISS_SIDE * _MISS_SIDE)


def keep_values(
    game: Game,
    own_base: float = DEFAULT_PARAMS.own_base,
    attack: float = 1.0,
) -> tuple[tuple[tuple[float, ...], ...], ...]:
    """``table[p][q][c]``: the keep value of card ``c`` for seat ``p`` whose next player
    is ``q``.  An own trump is worth ``own_base + 2 * rank``; a card of ``q``'s own suit
    ``attack * rank`` (a future lead ``q`` can answer only with a higher card of that
    suit); any other card its rank."""
    key = (id(game), own_base, attack)
    hit = _VALUE_CACHE.get(key)
    if hit is not None and hit[0] is game:
        return hit[1]
    n = game.n
    own = [game.own_cards(seat) for seat in range(n)]

    def value(p: int, q: int, c: int) -> float:
        if own[p] >> c & 1:
            return own_base + 2.0 * (c % 10)
        if q != p and own[q] >> c & 1:
            return attack * (c % 10)
        return float(c % 10)

    table = tuple(
        tuple(tuple(value(p, q, c) for c in range(NUM_CARDS)) for q in range(n)) for p in range(n)
    )
    if len(_VALUE_CACHE) > 256:
        _VALUE_CACHE.clear()
    _VALUE_CACHE[key] = (game, table)
    return table


def default_attack(game: Game) -> float:
    """The measured best ``attack`` weight: 2 in the two-player game where each player
    owns two suits (every plain card is an opponent's trump, and a high one is a lead
    they can answer only from above), 1 otherwise (3-4 players, one trump each, the
    Besicovitch game)."""
    return 2.0 if game.n == 2 and game.owners[0].bit_count() == 2 else 1.0


def miss_chance(unseen: int, beaters: int, draws: int) -> float:
    """Chance that ``draws`` cards taken from ``unseen`` hidden cards miss all of
    ``beaters`` of them (hypergeometric, memoised)."""
    if beaters <= 0 or draws <= 0:
        return 1.0
    if unseen - beaters < draws:
        return 0.0
    idx = -1
    if unseen < _MISS_SIDE:
        idx = (unseen * _MISS_SIDE + beaters) * _MISS_SIDE + draws
        hit = _MISS_TABLE[idx]
        if hit >= 0.0:
            return hit
    p = 1.0
    for i in range(draws):
        p *= (unseen - beaters - i) / (unseen - i)
    if idx >= 0:
        _MISS_TABLE[idx] = p
    return p


class _Tables:
    """Per-game, per-weights lookup tables of the decision, built once."""

    __slots__ = ("attack", "game", "own_base", "values")

    def __init__(self, game: Game, own_base: float, attack: float) -> None:
        self.game = game
        self.own_base = own_base
        self.attack = attack
        self.values = keep_values(game, own_base, attack)


_LAST_TABLES: list[_Tables] = []


def _tables(game: Game, params: Params) -> _Tables:
    """The tables for ``game`` and ``params`` (the last ones used are kept, so a
    rollout, which asks every turn, pays one identity check)."""
    attack = params.attack
    if attack is None:
        attack = default_attack(game)
    if _LAST_TABLES:
        t = _LAST_TABLES[0]
        if t.game is game and t.own_base == params.own_base and t.attack == attack:
            return t
        t = _Tables(game, params.own_base, attack)
        _LAST_TABLES[0] = t
        return t
    t = _Tables(game, params.own_base, attack)
    _LAST_TABLES.append(t)
    return t


# --------------------------------------------------------------------------- decision


def heuristic_decide(  # noqa: C901 - hot compiled policy of search rollouts, kept inline
    v: View, rng: random.Random, params: Params = DEFAULT_PARAMS
) -> Move:
    """The heuristic move for the view's player (see the module docstring)."""
    g = v.game
    p = v.seat
    hand = v.hand
    phase = v.phase
    sizes = v.sizes
    n_hand = hand.bit_count()
    n = g.n
    q = (p + 1) % n  # the next player still holding cards
    while sizes[q] == 0 and q != p:
        q = (q + 1) % n
    values = _tables(g, params).values[p][q]
    if phase == RESPOND:
        top = v.pile[-1]
        beaters = g.beat_row(p)[top] & hand
        if not beaters:
            return PICKUP_MOVE
        if n_hand == 1:
            return Move.get(beaters.bit_length() - 1, None)  # out on a defence
    elif phase != FREE:
        raise ValueError("heuristic_decide needs a free-lead or respond position")
    else:
        top = -1
        beaters = 0

    # What a refusal of our lead would cost the next player.
    active = 0
    for size in sizes:
        if size:
            active += 1
    known_q = v.known[q]
    hidden = v.hidden
    n_hidden = hidden.bit_count()
    draws = sizes[q] - known_q.bit_count()
    pile_len = len(v.pile)
    pile_after = pile_len + (2 if phase == RESPOND else 1)
    per_card = params.per_card
    lead_weight = params.lead_weight
    bonus = 0.0
    if sizes[q] <= 2:
        bonus += params.near_out_bonus
        if active == 2:
            bonus += params.last_two_bonus
    noise = params.noise
    drain = params.drain
    own_q = g.own_cards(q)
    beat_q = g.beat_row(q)
    req_q = g.pickup_row(q)

    # Lead score of each card we might lead.
    best_c, best_s, second_c, second_s = -1, -1e18, -1, -1e18
    m = hand
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        bm = beat_q[c]
        if bm & known_q:
            s = 0.0
        else:
            s = miss_chance(n_hidden, (bm & hidden).bit_count(), draws)
        # Trump drain: q can beat, but only with a card of its own suit.
        dr = 0.0
        if drain and s < 1.0:
            plain = bm & ~own_q
            if not plain & known_q:
                dr = drain * miss_chance(n_hidden, (plain & hidden).bit_count(), draws) * (1.0 - s)
        if s:
            k = req_q[c]
            if k > pile_after:
                k = pile_after
            s *= lead_weight * k + bonus
        s += dr - values[c]
        if noise:
            s += noise * rng.random()
        if s > best_s:
            second_c, second_s = best_c, best_s
            best_c, best_s = c, s
        elif s > second_s:
            second_c, second_s = c, s

    if phase == FREE:
        return LEAD_MOVES[best_c]

    # Beat-and-lead: cheapest beater with the best lead that is not that card.
    pair_c1, pair_c2, pair_s = -1, -1, -1e18
    m = beaters
    while m:
        low = m & -m
        c1 = low.bit_length() - 1
        m ^= low
        if c1 == best_c:
            c2, s2 = second_c, second_s
        else:
            c2, s2 = best_c, best_s
        s = s2 - values[c1]
        if s > pair_s:
            pair_c1, pair_c2, pair_s = c1, c2, s
    if n_hand == 2:
        return Move.get(pair_c1, pair_c2)  # out on a lead: always worth it

    # Refusing: keep our cards, take the k top cards of the pile.
    k = g.pickup_row(p)[top]
    if k > pile_len:
        k = pile_len
    gain = 0.0
    pile = v.pile
    for i in range(1, k + 1):
        gain += values[pile[-i]]
    refuse_s = -(k + 2) * per_card + params.pickup_gain * gain
    if refuse_s > pair_s:
        return PICKUP_MOVE
    return Move.get(pair_c1, pair_c2)


def heuristic_move(state: State, rng: random.Random, params: Params = DEFAULT_PARAMS) -> Move:
    """The heuristic move for the player to act in ``state``, using only what that
    player may know (own hand, hand sizes, publicly known cards, the pile).  The fast
    entry point for search rollouts; same decision as :class:`HeuristicAgent`."""
    return heuristic_decide(View.from_state(state), rng, params)


class HeuristicAgent(Agent):
    """A card-counting rule-of-thumb player (see the module docstring and docs/bots.md)."""

    name = "heuristic"

    def __init__(self, seed: int | None = None, **options: object) -> None:
        super().__init__(seed)
        # (``object``, not ``float``: this module is compiled, and mypyc would
        # refuse a wrong type with a bare TypeError before our clear message)
        weights: dict[str, float | None] = {}
        for key, val in options.items():
            if val is None and key == "attack":
                weights[key] = None
            elif isinstance(val, bool) or not isinstance(val, int | float):
                raise ValueError(f"heuristic option {key}={val!r} must be a number")
            else:
                weights[key] = float(val)
        try:
            self.params = Params(**weights)  # type: ignore[arg-type]
        except TypeError:
            allowed = ", ".join(Params.__dataclass_fields__)
            raise ValueError(
                f"unknown heuristic option(s) {', '.join(options)}; choose from {allowed}"
            ) from None

    def choose(self, obs: Observation) -> Move:
        """The heuristic move for this observation."""
        return heuristic_decide(View.from_observation(obs), self.rng, self.params)
