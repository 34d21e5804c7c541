"""The Gymnasium single-agent environment against bots."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from svoi_kozyri.envs.gymnasium import ENV_ID, SvoiKozyriEnv, split_bot_specs


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 2, "opponents": "random"},
        {"num_players": 3, "opponents": "greedy,heuristic", "seat": "random"},
        {"num_players": 4, "opponents": "easy,medium", "seat": "C"},
        {"num_players": None, "variant": "besicovitch", "opponents": "greedy"},
    ],
    ids=str,
)
def test_check_env(kwargs: dict) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(SvoiKozyriEnv(**kwargs), skip_render_check=True)


def test_registered_and_plays_to_the_end() -> None:
    env = gymnasium.make(ENV_ID, num_players=3, opponents="greedy")
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(5000):
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += reward
        if terminated or truncated:
            break
    assert terminated
    state = env.unwrapped.hand
    assert state.is_over and total == env.unwrapped.reward.of_state(state)[info["seat"]]


def test_same_seed_same_hand() -> None:
    a = SvoiKozyriEnv(num_players=4, opponents="random")
    b = SvoiKozyriEnv(num_players=4, opponents="random")
    oa, _ = a.reset(seed=11)
    ob, _ = b.reset(seed=11)
    np.testing.assert_array_equal(oa["observation"], ob["observation"])
    for _ in range(50):
        act = int(np.flatnonzero(oa["action_mask"])[0])
        oa, ra, ta, _, _ = a.step(act)
        ob, rb, tb, _, _ = b.step(act)
        np.testing.assert_array_equal(oa["observation"], ob["observation"])
        assert (ra, ta) == (rb, tb)
        if ta:
            break


def test_illegal_action_ends_the_episode() -> None:
    env = SvoiKozyriEnv(num_players=2, opponents="random")
    obs, _ = env.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(bad)
    assert terminated and reward == -1.0 and info["illegal"]


def test_bot_specs_split_keeps_options_together() -> None:
    assert split_bot_specs("expert, ismcts:ms=200,c=1,medium") == [
        "expert",
        "ismcts:ms=200,c=1",
        "medium",
    ]
    with pytest.raises(ValueError):
        SvoiKozyriEnv(num_players=2, opponents="nosuchbot")
