"""The OpenSpiel game: OpenSpiel's own consistency checks, its search bots and CFR."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr, exploitability, ismcts, mcts

import svoi_kozyri.envs.openspiel  # noqa: F401  (registers the game)
from svoi_kozyri.core import LEAD, RulesError
from svoi_kozyri.envs.encoding import OBS_SIZE

NAME = "python_svoi_kozyri"
CONFIGS = [
    {"max_actions_per_hand": 60},
    {"num_players": 3, "max_actions_per_hand": 60, "utility": "zero_sum"},
    {"num_players": 4, "max_actions_per_hand": 40, "pickup_rule": "whole_pile"},
    {"num_players": 2, "trumps_per_player_2p": 1, "max_actions_per_hand": 60},
    {"variant": "besicovitch", "max_actions_per_hand": 60},
    {"ranks": 3, "utility": "zero_sum", "max_actions_per_hand": 30},
]


@pytest.mark.parametrize("params", CONFIGS, ids=str)
def test_random_sim(params: dict) -> None:
    game = pyspiel.load_game(NAME, params)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("params", CONFIGS[:3], ids=str)
def test_returns_cap_and_terminal_tensors(params: dict) -> None:
    game = pyspiel.load_game(NAME, params)
    rng = random.Random(1)
    zero_sum = game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    for _ in range(3):
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                assert abs(sum(probs) - 1.0) < 1e-9
                state.apply_action(rng.choice(outcomes))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        assert steps <= game.max_game_length()
        r = state.returns()
        if zero_sum:
            assert abs(sum(r)) < 1e-9
        assert game.min_utility() <= min(r) and max(r) <= game.max_utility()
        for p in range(game.num_players()):
            t = np.array(state.observation_tensor(p))
            assert t.shape == (OBS_SIZE,) and np.all(np.isfinite(t))
            assert state.information_state_string(p)


def test_action_cap_is_real() -> None:
    game = pyspiel.load_game(NAME, {"num_players": 4, "max_actions_per_hand": 5})
    state = game.new_initial_state()
    rng = random.Random(3)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    assert state.hand.turns <= 5 and state.hand.outcome.termination in ("action_cap", "out")


def _dealt(game: pyspiel.Game, seed: int, steps: int) -> pyspiel.State:
    rng = random.Random(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(rng.choice(state.chance_outcomes())[0])
    for _ in range(steps):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_resample_stays_in_the_information_set(num_players: int) -> None:
    game = pyspiel.load_game(NAME, {"num_players": num_players})
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differs = 0
    for seed in range(6):
        state = _dealt(game, seed, 25 * seed)
        if state.is_terminal():
            continue
        p = state.current_player()
        for _ in range(3):
            other = state.resample_from_infostate(p, sampler)
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.observation_tensor(p) == state.observation_tensor(p)
            assert other.legal_actions() == state.legal_actions()
            differs += other.hand.hands != state.hand.hands
    # two players: the other hand is the complement of what the player sees
    assert differs > 0 if num_players > 2 else differs == 0


def test_observation_hides_the_other_hands() -> None:
    game = pyspiel.load_game(NAME, {"num_players": 3})
    state = _dealt(game, 2, 10)
    p = state.current_player()
    other = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert state.observation_string(p) == other.observation_string(p)


def test_mcts_and_ismcts_bots_play_a_hand() -> None:
    game = pyspiel.load_game(NAME, {"num_players": 2, "max_actions_per_hand": 40})
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bots = [
        mcts.MCTSBot(game, 2.0, 20, evaluator, random_state=rs),
        ismcts.ISMCTSBot(game, evaluator, 2.0, 20, random_state=rs),
    ]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [o for o, _ in state.chance_outcomes()]
            state.apply_action(int(rs.choice(outcomes)))
            continue
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.hand.is_over


def test_cfr_on_the_tiny_deck() -> None:
    """CFR on the four-ace two-player game lowers NashConv from the uniform policy's."""
    params = {"ranks": 1, "utility": "zero_sum", "max_actions_per_hand": 10}
    game = pyspiel.load_game(NAME, params)
    solver = cfr.CFRSolver(game)
    start = exploitability.nash_conv(game, solver.average_policy())
    for _ in range(8):
        solver.evaluate_and_update_policy()
    end = exploitability.nash_conv(game, solver.average_policy())
    assert end < start


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(RulesError):
        pyspiel.load_game(NAME, {"max_actions_per_hand": 0})
    with pytest.raises(RulesError):
        pyspiel.load_game(NAME, {"utility": "nonsense"})


def test_resample_mid_turn() -> None:
    """Between the beat and the lead of one turn the beat card is on the pile but not
    yet in the history: resampling must still rebuild a consistent deal."""
    game = pyspiel.load_game(NAME, {"num_players": 4})
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    rng = random.Random(9)
    found = 0
    for seed in range(20):
        state = _dealt(game, seed, 0)
        while not state.is_terminal() and state.hand.phase != LEAD:
            state.apply_action(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        found += 1
        p = state.current_player()
        other = state.resample_from_infostate(p, sampler)
        assert other.information_state_string(p) == state.information_state_string(p)
        assert other.hand.phase == LEAD
    assert found > 0
