"""The greedy baseline bot: beat with the cheapest card that works, lead the cheapest card.

Card cost (for the player ``p`` who holds the card)::

    cost(c) = rank(c)            for a card of a suit p does not own (0 = five ... 9 = ace)
    cost(c) = 10 + rank(c)       for a card of p's own (trump) suit

so any plain card is cheaper than any own trump, and within each group a lower
rank is cheaper.  Ties (equal rank in different suits) are broken with the
agent's seeded random stream, which keeps games reproducible and stops two
greedy players from locking into a deterministic cycle (SPEC D).

Greedy never refuses when it can beat: refusing grows the hand and is the only
way a card returns from the pile, so an always-beat policy keeps hands short
(SPEC D4 reports greedy self-play finishing every hand).  When it beats with its
last-but-one card it leads the last and goes out on a lead; with one card it goes
out on a defence.

Two entry points share :func:`greedy_decide`: :class:`GreedyAgent` (an
:class:`~svoi_kozyri.bots.base.Agent` fed an observation) and the fast
:func:`greedy_move` (a full ``State``, used as a rollout policy by search bots; it
reads only the acting player's own hand and the public top card).
"""

from __future__ import annotations

import random

from ..core import FREE, LEAD_MOVES, PICKUP_MOVE, RESPOND, Game, Move, Observation, State
from ..core.cards import NUM_CARDS, CardSet
from .base import Agent

_COST_CACHE: dict[int, tuple[Game, tuple[tuple[int, ...], ...]]] = {}


def card_costs(game: Game) -> tuple[tuple[int, ...], ...]:
    """Per seat, the greedy cost of each of the 40 cards (see the module docstring)."""
    hit = _COST_CACHE.get(id(game))
    if hit is not None and hit[0] is game:
        return hit[1]
    table = tuple(
        tuple((c % 10) + (10 if game.own_cards(seat) >> c & 1 else 0) for c in range(NUM_CARDS))
        for seat in range(game.n)
    )
    if len(_COST_CACHE) > 256:
        _COST_CACHE.clear()
    _COST_CACHE[id(game)] = (game, table)
    return table


def cheapest(mask: CardSet, costs: tuple[int, ...], rng: random.Random, exclude: int = -1) -> int:
    """The cheapest card of ``mask`` (not ``exclude``); ties broken by ``rng``.  -1 if none."""
    best = -1
    best_cost = 1 << 30
    ties = 0
    m = mask
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        if c == exclude:
            continue
        k = costs[c]
        if k < best_cost:
            best, best_cost, ties = c, k, 1
        elif k == best_cost:
            ties += 1
            if rng.random() * ties < 1.0:  # reservoir sampling: uniform among ties
                best = c
    return best


def greedy_decide(
    game: Game, seat: int, hand: CardSet, phase: int, top: int, rng: random.Random
) -> Move:
    """The greedy move of ``seat`` holding ``hand``; ``top`` is the top card (-1: none)."""
    costs = card_costs(game)[seat]
    if phase == FREE:
        return LEAD_MOVES[cheapest(hand, costs, rng)]
    if phase != RESPOND:
        raise ValueError("greedy_decide needs a free-lead or respond position")
    beaters = game.beat_mask(top, seat) & hand
    if not beaters:
        return PICKUP_MOVE
    c1 = cheapest(beaters, costs, rng)
    rest = hand & ~(1 << c1)
    if not rest:
        return Move.get(c1, None)
    return Move.get(c1, cheapest(rest, costs, rng))


def greedy_move(state: State, rng: random.Random) -> Move:
    """Greedy move for the player to act in ``state``, from that player's knowledge only
    (own hand and the top card).  Fast enough to serve as a rollout policy."""
    p = state.to_act
    top = state.top
    return greedy_decide(
        state.game, p, state.hands[p], state.phase, -1 if top is None else top, rng
    )


class GreedyAgent(Agent):
    """Beats with the cheapest card that works and leads the cheapest card; never refuses
    when it can beat.  See the module docstring for the card cost."""

    name = "greedy"

    def choose(self, obs: Observation) -> Move:
        """The greedy move for this observation."""
        if obs.seat is None:
            raise ValueError("a spectator observation has no move to choose")
        top = obs.pile[-1] if obs.pile else -1
        return greedy_decide(obs.game, obs.seat, obs.hand, obs.phase, top, self.rng)
