"""Bots' own value estimates (``Agent.last_value``): the search bots report the
expected reward of the move they chose (their root statistics, or the exact
solver's value in open positions); the other bots report none.  Self-play data
and the engine protocol (``info value``) carry it."""

from __future__ import annotations

import random

from svoi_kozyri.bots import make_agent
from svoi_kozyri.bots.search.solver import Solver, open_state
from svoi_kozyri.core import NUM_CARDS, Game, Rules, observe
from svoi_kozyri.protocol.wire import format_position_request

PIMC = "pimc:iterations=8,rollout_turns=8,solver_ms=5"
ISMCTS = "ismcts:iterations=16,rollout_turns=8,solver_ms=5"


def _observations(n: int, players: int, seed: int) -> list:
    """Observations of the player to act along random hands, with a choice of moves."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        state = Game(Rules(num_players=players)).new_hand(0, random.Random(rng.random()))
        for _ in range(rng.randrange(0, 12)):
            if state.is_over:
                break
            state.push(rng.choice(state.legal_moves()))
        if not state.is_over and len(state.legal_moves()) > 1:
            out.append(observe(state, state.to_act))
    return out


def test_search_bots_report_the_value_of_their_move() -> None:
    for spec in (PIMC, ISMCTS):
        agent = make_agent(spec, seed=1)
        values = []
        for obs in _observations(4, players=4, seed=2):
            agent.choose(obs)
            assert agent.last_value is not None, (spec, format_position_request(obs))
            assert 0.0 <= agent.last_value <= 1.0
            values.append(agent.last_value)
        assert len(set(values)) > 1  # estimates of these positions, not a constant


def _endgames(n: int, seed: int) -> list:
    """Small two-player positions (open: every card is known): four cards each of
    eight random cards that exist (SPEC E), a free lead."""
    rng = random.Random(seed)
    game = Game(Rules(num_players=2))
    out = []
    while len(out) < n:
        cards = rng.sample([c for c in range(NUM_CARDS) if game.deck >> c & 1], 8)
        hands = [sum(1 << c for c in cards[:4]), sum(1 << c for c in cards[4:])]
        state = game.position(hands, to_act=rng.randrange(2))
        if len(state.legal_moves()) > 1:
            out.append(observe(state, state.to_act))
    return out


def test_open_positions_report_the_solver_value() -> None:
    """With two players every card is known: the solver decides small positions,
    and its exact result (1 win, ½ draw, 0 loss) is the value."""
    for spec in ("pimc:iterations=8,solver_ms=500", "ismcts:iterations=8,solver_ms=500"):
        agent = make_agent(spec, seed=1)
        for obs in _endgames(3, seed=5):
            agent.choose(obs)
            exact = Solver().solve(open_state(obs), None)
            assert exact.proven and exact.value is not None
            assert agent.last_value == (exact.value + 1) / 2, spec


def test_bots_without_an_estimate_and_forced_moves_report_none() -> None:
    obs = _observations(1, players=3, seed=4)[0]
    for spec in ("random", "easy", "medium"):
        agent = make_agent(spec, seed=1)
        agent.choose(obs)
        assert agent.last_value is None, spec
    search = make_agent(PIMC, seed=1)
    search.choose(obs)
    assert search.last_value is not None
    # a position with a single legal move: no search, so no value (not a stale one)
    rng = random.Random(9)
    for _ in range(200):
        state = Game(Rules(num_players=3)).new_hand(0, random.Random(rng.random()))
        while not state.is_over and len(state.legal_moves()) > 1:
            state.push(rng.choice(state.legal_moves()))
        if not state.is_over:
            search.choose(observe(state, state.to_act))
            assert search.last_value is None
            return
    raise AssertionError("no position with a single legal move found")
