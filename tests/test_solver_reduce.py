"""Exact position reduction: equivalent open positions get equal canonical keys and
equal values (by the exhaustive reference), under every rules option."""

from __future__ import annotations

import random
import zlib
from collections import defaultdict

import pytest

from svoi_kozyri.bots.search.reduce import Reducer
from svoi_kozyri.bots.search.solver import Solver, exhaustive_value
from svoi_kozyri.core import Game, Rules, State
from svoi_kozyri.core.cards import NUM_CARDS, RA, card, cards_of, rank_of, suit_of
from test_solver import GAMES, OPTION_GAMES, random_open

ALL_GAMES = GAMES + OPTION_GAMES


def _rules_id(g: Game) -> str:
    return str(g.rules.to_dict(only_changed=True))


def _relabel(state: State, f: list[int], seat_map: list[int]) -> State:
    """``state`` with every card ``c`` replaced by ``f[c]`` and seat ``i`` by
    ``seat_map[i]``."""
    g = state.game
    hands = [0] * g.n
    for i, h in enumerate(state.hands):
        for c in cards_of(h):
            hands[seat_map[i]] |= 1 << f[c]
    pile = [f[c] for c in state.pile_cards()]
    outs = [(i, "lead") for i in range(g.n) if not hands[i]]
    return g.position(hands, pile, seat_map[state.to_act], state.phase, outs)


def _random_monotone(rng: random.Random, game: Game, cards: int, across: bool) -> list[int]:
    """A random order-preserving relabelling of the non-ace ranks in play (aces stay
    aces): per suit, or one map for all suits when ``across``."""
    low = min(rank_of(c) for c in range(NUM_CARDS) if game.deck >> c & 1)
    f = list(range(NUM_CARDS))
    groups: list[list[int]] = []
    if across:
        groups.append(sorted({rank_of(c) for c in cards_of(cards)} - {RA}))
    else:
        for s in range(4):
            groups.append(
                sorted(rank_of(c) for c in cards_of(cards) if suit_of(c) == s and rank_of(c) != RA)
            )
    for gi, ranks in enumerate(groups):
        new = sorted(rng.sample(range(low, RA), len(ranks)))
        m = dict(zip(ranks, new, strict=True))
        for c in cards_of(cards):
            if rank_of(c) in m and (across or suit_of(c) == gi):
                f[c] = card(suit_of(c), m[rank_of(c)])
    return f


def _cards(state: State) -> int:
    m = 0
    for h in state.hands:
        m |= h
    for c in state.pile_cards():
        m |= 1 << c
    return m


@pytest.mark.parametrize("game", ALL_GAMES, ids=_rules_id)
def test_equivalent_positions_get_equal_keys_and_values(game: Game) -> None:
    """Random positions and random images under the rules' symmetries and
    order-preserving rank relabellings: the key and the exact value agree."""
    rng = random.Random(zlib.crc32(_rules_id(game).encode()))
    red = Reducer(game)
    across = game.rules.equal_rank_beats != "off"
    assert red.autos, "the identity is always a symmetry"
    if game.n == 2 and game.rules.trumps_per_player_2p == 2:
        # each player's two suits swap, and the players swap: 8 symmetries
        assert len(red.autos) == 8
    checked = 0
    for _ in range(50):
        s = random_open(rng, game, rng.randint(3, 6))
        seats = tuple(i for i, h in enumerate(s.hands) if h)
        sigma, pi = rng.choice(red.autos)
        g = _random_monotone(rng, game, _cards(s), across)
        if not red._preserves(g, _cards(s), seats):
            continue
        f = [card(sigma[suit_of(g[c])], rank_of(g[c])) for c in range(NUM_CARDS)]
        t = _relabel(s, f, list(pi))
        assert red.key(s) == red.key(t), (s, t)
        assert exhaustive_value(s) == exhaustive_value(t), (s, t)
        checked += 1
    assert checked >= 25


@pytest.mark.parametrize(
    "game",
    [
        Game(Rules(num_players=2)),
        Game(Rules(num_players=2, equal_rank_beats="also")),
        Game(Rules(num_players=2, pickup_rule="fixed", fixed_pickup_count=2)),
        Game(Rules(variant="besicovitch", deck_size=24)),
        Game(Rules(num_players=4)),
    ],
    ids=_rules_id,
)
def test_positions_with_equal_keys_have_equal_values(game: Game) -> None:
    """Thousands of random small positions grouped by key: every group has one
    exact value (exhaustive reference) and the solver agrees with it."""
    rng = random.Random(7)
    red = Reducer(game)
    groups: dict[tuple[int, ...], list[State]] = defaultdict(list)
    for _ in range(1500):
        s = random_open(rng, game, rng.randint(3, 5))
        groups[red.key(s)].append(s)
    shared = [g for g in groups.values() if len(g) > 1]
    assert len(shared) > 25  # the reduction does merge positions
    solver = Solver()
    for members in shared:
        vals = {exhaustive_value(s) for s in members[:4]}
        assert len(vals) == 1, members[:4]
        assert solver.solve(members[-1], None).value in vals


def test_per_suit_compression_is_refused_when_equal_ranks_beat() -> None:
    """With equal-rank beating, ranks of different suits are compared, so the
    compression works across suits (equal ranks stay equal)."""
    g = Game(Rules(num_players=2, equal_rank_beats="also"))
    red = Reducer(g)
    # 9S and 9H (equal ranks) with QD: per suit, 9S -> 5S, 9H -> 5H, QD -> 5D would
    # make QD equal in rank to them
    cards = (1 << card(0, 4)) | (1 << card(1, 4)) | (1 << card(2, 7))
    f = red.compression(cards, (0, 1))
    assert rank_of(f[card(0, 4)]) == rank_of(f[card(1, 4)]) != rank_of(f[card(2, 7)])


def test_aces_stay_aces() -> None:
    g = Game(Rules(num_players=2))
    red = Reducer(g)
    cards = (1 << card(0, RA)) | (1 << card(0, 3))
    f = red.compression(cards, (0, 1))
    assert rank_of(f[card(0, RA)]) == RA
    assert rank_of(f[card(0, 3)]) == red.low_rank
