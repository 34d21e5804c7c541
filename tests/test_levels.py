"""Difficulty levels: each name builds its documented bot, budgets can be overridden."""

from __future__ import annotations

from svoi_kozyri.arena import run_arena
from svoi_kozyri.bots.basic import GreedyAgent
from svoi_kozyri.bots.catalogue import make_agent
from svoi_kozyri.bots.heuristic import HeuristicAgent
from svoi_kozyri.bots.levels import LEVELS, ExpertAgent
from svoi_kozyri.bots.search.ismcts import ISMCTSAgent
from svoi_kozyri.bots.search.pimc import PIMCAgent
from svoi_kozyri.core import Game, Rules, observe


def test_levels_build_their_documented_bots() -> None:
    assert isinstance(make_agent("easy"), GreedyAgent)
    assert isinstance(make_agent("medium"), HeuristicAgent)
    hard = make_agent("hard")
    assert isinstance(hard, PIMCAgent) and hard.iterations == 150
    expert = make_agent("expert")
    assert isinstance(expert, ExpertAgent) and expert.search.ms == 900
    assert set(LEVELS) == {"easy", "medium", "hard", "expert"}


def test_level_budget_override() -> None:
    e = make_agent("expert:iterations=40", seed=1)
    assert isinstance(e, ExpertAgent)
    assert isinstance(e.search, ISMCTSAgent) and e.search.iterations == 40 and e.search.ms is None
    h = make_agent("hard:ms=50")
    assert isinstance(h, PIMCAgent) and h.ms == 50


def test_levels_choose_legal_moves() -> None:
    state = Game(Rules(num_players=4)).new_hand(2, 8)
    obs = observe(state, state.to_act)
    for spec in ("easy", "medium", "hard:iterations=30", "expert:iterations=30"):
        assert make_agent(spec, seed=0).choose(obs) in obs.legal_moves()


def test_medium_is_stronger_than_easy_in_the_arena() -> None:
    """Paired deals with seat rotation: the heuristic loses clearly less than 1/4."""
    report = run_arena(["medium", "easy", "easy", "easy"], hands=800, seed=5, workers=1)
    _lo, hi = report.bots["medium"].durak_ci95
    assert hi < 0.25
