"""Every bot and every environment pickles (issue 24: the Gymnasium env with its
default opponents did not: ``FrozenInstanceError`` from the heuristic's compiled
frozen config, and the search bots' compiled two-player rules could not be
rebuilt).  Pickling is how a bot reaches an arena's worker processes and how
vectorised learners copy environments."""

from __future__ import annotations

import pickle
import random

import pytest

from svoi_kozyri.bots.catalogue import available_agents, make_agent
from svoi_kozyri.core import Game, Rules, observe
from svoi_kozyri.core.cards import cards_of


@pytest.mark.parametrize("name", [n for n in available_agents() if n != "engine"])
def test_every_bot_pickles_and_plays_the_same_after(name: str) -> None:
    game = Game(Rules(num_players=3))
    deck = cards_of(game.deck)
    random.Random(3).shuffle(deck)
    state = game.deal(0, deck)
    obs = observe(state, state.to_act)
    bot = make_agent(f"{name}:iterations=50" if name == "ismcts" else name, 7)
    copy = pickle.loads(pickle.dumps(bot))
    assert type(copy) is type(bot)
    if name in ("random", "greedy", "heuristic", "easy", "medium"):  # fast and seeded
        assert copy.choose(obs) == bot.choose(obs)
    else:
        assert copy.choose(obs) in obs.legal_moves()


def test_the_environments_pickle() -> None:
    pytest.importorskip("gymnasium")
    pytest.importorskip("pettingzoo")
    from svoi_kozyri.envs.gymnasium import SvoiKozyriEnv
    from svoi_kozyri.envs.pettingzoo import env as pz_env

    gym = SvoiKozyriEnv()  # the default opponents (medium: the heuristic)
    gym.reset(seed=1)
    copy = pickle.loads(pickle.dumps(gym))
    assert copy.opponent_specs == gym.opponent_specs
    pz = pz_env(num_players=3)
    pz.reset(seed=1)
    assert pickle.loads(pickle.dumps(pz)).possible_agents == pz.possible_agents
