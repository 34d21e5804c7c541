"""The environments' reward options (issue 24): durak-only, placement, and a draw
value that, by default, no policy can raise its reward with (a learner once
steered 40 % of its hands into repetitions when a draw scored like a safe finish).
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from svoi_kozyri.core import Outcome
from svoi_kozyri.envs.gymnasium import SvoiKozyriEnv
from svoi_kozyri.envs.pettingzoo import env as pz_env
from svoi_kozyri.envs.pettingzoo import raw_env
from svoi_kozyri.envs.rewards import DRAW_DEFAULT, RewardSpec, reward_spec


def test_durak_placement_and_draw_values() -> None:
    lost = Outcome(2, "out")
    drawn = Outcome(None, "repetition")
    durak = RewardSpec()
    assert durak.values(4, lost, [1, 0, 3]) == (0.0, 0.0, -1.0, 0.0)
    assert durak.values(4, drawn) == (DRAW_DEFAULT,) * 4 == (-1.0,) * 4
    assert durak.values(4, None) == (0.0,) * 4  # not over (a truncation): nothing
    place = RewardSpec("placement", 0.0)
    # first out +1, second 1/3, third -1/3, the durak -1
    assert place.values(4, lost, [1, 0, 3]) == pytest.approx((1 / 3, 1.0, -1.0, -1 / 3))
    assert place.values(3, Outcome(0, "out"), [2, 1]) == (-1.0, 0.0, 1.0)
    assert place.values(4, drawn) == (0.0,) * 4
    # Besicovitch: the first out wins, whatever the option
    assert place.values(2, Outcome(1, "out"), [0], besicovitch=True) == (1.0, -1.0)
    assert durak.by_loser(3, 1) == (0.0, -1.0, 0.0) and durak.by_loser(3, -1) == (-1.0,) * 3


def test_the_default_draw_is_never_better_than_any_result() -> None:
    spec = RewardSpec()
    for kind in ("durak", "placement"):
        s = RewardSpec(kind, spec.draw)  # type: ignore[arg-type]
        assert s.draw <= s.low() == -1.0


def test_parsing_and_bad_options() -> None:
    assert RewardSpec.parse("placement,draw=-0.5") == RewardSpec("placement", -0.5)
    assert RewardSpec.parse("draw=0") == RewardSpec("durak", 0.0)
    assert RewardSpec.parse(None) == RewardSpec()
    assert reward_spec("placement", 0.25) == RewardSpec("placement", 0.25)
    assert str(RewardSpec("placement", 0.0)) == "placement,draw=0"
    for bad in ("winner", "durak,draw=x", "draw=2", "draw=nan"):
        with pytest.raises(ValueError):
            RewardSpec.parse(bad)


def _play(e, seed: int) -> list[float]:
    """Random legal steps to the hand's end; each agent's final reward, by seat."""
    rng = random.Random(seed)
    e.reset(seed=seed)
    paid: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            paid[agent] = reward
            e.step(None)
            continue
        e.step(int(rng.choice(list(np.flatnonzero(obs["action_mask"])))))
    return [paid[a] for a in e.possible_agents]


@pytest.mark.parametrize("reward", ["durak", "placement", "durak,draw=0", "placement,draw=0.5"])
def test_pettingzoo_pays_the_option_on_both_paths(reward: str) -> None:
    """The compiled hand and the engine state pay the same rewards, the option's;
    a small action cap makes many hands drawn."""
    spec = RewardSpec.parse(reward)
    draws = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(12):
            cfg = {"num_players": 4, "max_actions_per_hand": 40 + 10 * seed, "reward": reward}
            fast, slow = pz_env(**cfg), pz_env(compiled_hand=False, **cfg)
            got = _play(fast, seed)
            assert got == _play(slow, seed)
            state = slow.unwrapped.hand
            want = spec.of_state(state)
            assert got == pytest.approx(list(want))
            draws += state.outcome is not None and state.outcome.loser is None
    assert draws > 0  # the draw value was exercised


def test_gymnasium_pays_the_learner_its_reward_and_a_draw_its_value() -> None:
    for reward, draw in (("durak", None), ("placement", 0.0)):
        env = SvoiKozyriEnv(
            num_players=3, opponents="random", reward=reward, draw=draw, max_actions_per_hand=30
        )
        for seed in range(6):
            obs, info = env.reset(seed=seed)
            rng = random.Random(seed)
            total, done = 0.0, False
            while not done:
                action = int(rng.choice(list(np.flatnonzero(obs["action_mask"]))))
                obs, r, term, trunc, info = env.step(action)
                total += r
                done = term or trunc
            state = env.unwrapped.hand
            assert total == env.reward.of_state(state)[info["seat"]]
            if state.outcome is not None and state.outcome.loser is None:
                assert total == env.reward.draw


def test_raw_env_exposes_its_option() -> None:
    assert raw_env(num_players=2, reward="placement").reward == RewardSpec("placement")
    with pytest.raises(ValueError):
        raw_env(num_players=2, reward="best")


def test_openspiel_utilities_pay_the_option() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import svoi_kozyri.envs.openspiel  # noqa: F401  (registers the game)

    for params, spec in (
        ({"num_players": 3, "max_actions_per_hand": 30}, RewardSpec()),
        (
            {"num_players": 3, "max_actions_per_hand": 30, "utility": "placement", "draw": 0.0},
            RewardSpec("placement", 0.0),
        ),
    ):
        game = pyspiel.load_game("python_svoi_kozyri", params)
        assert game.min_utility() == spec.low() and game.max_utility() == spec.high()
        rng = random.Random(4)
        draws = 0
        for _ in range(20):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(rng.choice([a for a, _p in state.chance_outcomes()]))
                else:
                    state.apply_action(rng.choice(state.legal_actions()))
            assert state.returns() == list(spec.of_state(state.hand))
            draws += state.hand.outcome.loser is None
        assert draws > 0


def test_the_batch_simulator_pays_the_durak_option_with_its_draw_value() -> None:
    from svoi_kozyri.core import Rules
    from svoi_kozyri.envs.vector import VectorGame

    vg = VectorGame(Rules(num_players=2, max_actions_per_hand=150), batch_size=64, seed=3)
    vg.reset()
    for _ in range(1000):
        if (vg.phase == 3).all():
            break
        vg.step(vg.random_actions())
    over = vg.phase == 3
    drawn = over & (vg.loser < 0)
    assert drawn.any() and (over & (vg.loser >= 0)).any()
    r = vg.rewards()
    assert (r[drawn] == -1.0).all()
    assert (vg.rewards("durak,draw=0")[drawn] == 0.0).all()
    lost = np.flatnonzero(over & (vg.loser >= 0))
    assert (r[lost, vg.loser[lost]] == -1.0).all() and r[lost].sum() == -len(lost)
    with pytest.raises(ValueError):
        vg.rewards("placement")
