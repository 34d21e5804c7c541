"""ISMCTS and PIMC bots: legal, seeded, use only the observation, solve open positions."""

from __future__ import annotations

import math
import random

import pytest

from svoi_kozyri.bots.base import play_out
from svoi_kozyri.bots.catalogue import make_agent
from svoi_kozyri.bots.search.common import Budget, evaluate, policy, rewards, rollout
from svoi_kozyri.bots.search.ismcts import ISMCTS, ISMCTSAgent
from svoi_kozyri.bots.search.pimc import PIMCAgent
from svoi_kozyri.core import Game, Rules, observe
from svoi_kozyri.notation import position_from_text


@pytest.mark.parametrize("spec", ["ismcts:iterations=30", "pimc:iterations=30"])
def test_plays_legal_moves_to_the_end(spec: str) -> None:
    game = Game(Rules(num_players=4))
    state = game.new_hand(0, 11)
    agents = [make_agent(spec if i < 2 else "heuristic", seed=i) for i in range(4)]
    play_out(state, agents)
    assert state.is_over


@pytest.mark.parametrize("cls", [ISMCTSAgent, PIMCAgent])
def test_seeded_and_reproducible(cls: type) -> None:
    state = Game(Rules(num_players=4)).new_hand(1, 5)
    obs = observe(state, state.to_act)
    a = cls(seed=3, iterations=80).choose(obs)
    b = cls(seed=3, iterations=80).choose(obs)
    assert a == b and a in obs.legal_moves()


def test_decision_depends_only_on_the_observation() -> None:
    """Two deals that look the same to the player to act get the same move: the
    bot never sees the hidden hands."""
    game = Game(Rules(num_players=4))
    dealt = game.new_hand(0, 21)
    s1 = game.position(dealt.hands, [], dealt.to_act, "free", [])
    seat = s1.to_act
    obs1 = observe(s1, seat)
    # swap hidden cards between two other seats (same sizes, same public knowledge)
    rng = random.Random(0)
    hands = list(s1.hands)
    others = [i for i in range(4) if i != seat]
    x, y = others[0], others[1]
    hx = [c for c in range(40) if hands[x] >> c & 1 and not obs1.known[x] >> c & 1]
    hy = [c for c in range(40) if hands[y] >> c & 1 and not obs1.known[y] >> c & 1]
    cx, cy = rng.choice(hx), rng.choice(hy)
    hands[x] ^= (1 << cx) | (1 << cy)
    hands[y] ^= (1 << cx) | (1 << cy)
    s2 = game.position(hands, s1.pile_cards(), seat, s1.phase, s1.outs)
    obs2 = observe(s2, seat)
    assert obs2.hands == obs1.hands and obs2.known == obs1.known
    for cls in (ISMCTSAgent, PIMCAgent):
        assert cls(seed=9, iterations=50).choose(obs1) == cls(seed=9, iterations=50).choose(obs2)


def test_open_position_goes_to_the_solver() -> None:
    g = Game(Rules(num_players=4))
    s = position_from_text(
        g,
        {"A": "", "B": "KH", "C": "", "D": "AH"},
        "7C 9C 10H",
        "B",
        "respond",
        [("A", "lead"), ("C", "lead")],
    )
    for cls in (ISMCTSAgent, PIMCAgent):
        assert str(cls(seed=1, iterations=5).choose(observe(s, 1))) == "beat KH"


def test_ismcts_prefers_the_winning_move_in_a_small_endgame() -> None:
    """Three players hold cards, so it is not open; D can go out at once with a
    free lead of his last card, which must be preferred to anything else."""
    g = Game(Rules(num_players=4))
    s = position_from_text(
        g, {"A": "8H 7C", "B": "", "C": "QD 9C", "D": "6S"}, "", "D", "free", [("B", "lead")]
    )
    agent = ISMCTSAgent(seed=2, iterations=200)
    assert str(agent.choose(observe(s, 3))) == "lead 6S"


def test_search_statistics_and_budget() -> None:
    state = Game(Rules(num_players=3)).new_hand(0, 2)
    obs = observe(state, state.to_act)
    search = ISMCTS(random.Random(1))
    root = search.search(obs, Budget(iterations=120))
    assert search.iterations == 120
    assert sum(ch.visits for ch in root.children.values()) == 120
    stats = ISMCTS.move_stats(obs, root)
    assert {m for m, _, _ in stats} == set(obs.legal_moves())
    timed = ISMCTS(random.Random(1))
    timed.search(obs, Budget(ms=50))
    assert timed.iterations >= 1


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ismcts:c=abc", "option c must be a number"),
        ("expert:ms=abc", "option ms must be a number"),
        ("hard:solver_ms=-5", "option solver_ms must be positive"),
        ("ismcts:rollout_turns=1.5", "option rollout_turns must be a whole number"),
        ("pimc:endgame_cards=x", "option endgame_cards must be a whole number"),
        ("pimc:rollout=3", "option rollout must be a name"),
        ("expert:iterations=0", "option iterations must be at least 1"),
        ("greedy:depth=3", "bad options in bot spec 'greedy:depth=3'"),
    ],
)
def test_bad_option_values_are_named(spec: str, message: str) -> None:
    # the agents are compiled: a wrong type must still get our message, not mypyc's
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown ismcts option"):
        make_agent("ismcts:iteratoins=5")
    with pytest.raises(ValueError, match="iterations"):
        ISMCTSAgent(iterations=0)
    with pytest.raises(ValueError, match="rollout policy"):
        PIMCAgent(rollout="nope")
    with pytest.raises(ValueError, match="own turn"):
        s = Game(Rules(num_players=4)).new_hand(0, 1)
        ISMCTSAgent(iterations=5).choose(observe(s, (s.to_act + 1) % 4))


def test_rollout_rewards() -> None:
    s = Game(Rules(num_players=4)).new_hand(0, 4)
    r = rollout(s, random.Random(0), policy("heuristic"))
    assert s.is_over and sorted(r) in ([0.0, 1.0, 1.0, 1.0], [0.5] * 4)
    assert r == rewards(s)


def test_truncated_rollout_stops_and_scores_with_the_evaluation() -> None:
    s = Game(Rules(num_players=4)).new_hand(0, 4)
    turns = s.turns
    r = rollout(s, random.Random(0), policy("heuristic"), max_turns=6)
    assert s.turns == turns + 6 and not s.is_over
    assert r == evaluate(s)
    # every hand is still held: the probabilities of being the durak add up to one
    assert all(0.0 < x < 1.0 for x in r)
    assert sum(1.0 - x for x in r) == pytest.approx(1.0)


def test_evaluation_ignores_players_who_are_out_and_prefers_fewer_cards() -> None:
    game = Game(Rules(num_players=3))
    s = game.position([0b1110, 0, 0b1111111 << 11], [], 0, "free", [(1, "lead")])
    r = evaluate(s)
    assert r[1] == 1.0
    assert r[0] > r[2]  # three low cards against seven: seven is likelier to lose
    assert r[0] + r[2] == pytest.approx(1.0)


def test_evaluation_predicts_the_durak_better_than_a_guess() -> None:
    """The fitted weights carry information: on fresh heuristic self-play the
    evaluation's log-likelihood of the real durak beats the uniform guess."""
    rng = random.Random(99)
    ours = guess = 0.0
    for k in range(300):
        game = Game(Rules(num_players=2 + k % 3))
        s = game.new_hand(k % game.n, 1000 + k)
        seen = []
        while not s.is_over:
            if rng.random() < 0.2:
                seen.append(s.copy())
            s.push_unchecked(policy("heuristic")(s, rng))
        loser = s.outcome.loser if s.outcome else None
        if loser is None:
            continue
        for st in seen:
            active = [i for i, h in enumerate(st.hands) if h]
            if loser in active and len(active) >= 2:
                ours += math.log(1.0 - evaluate(st)[loser])
                guess += math.log(1.0 / len(active))
    assert ours > guess


def test_rollout_turns_option() -> None:
    agent = make_agent("ismcts:iterations=40,rollout_turns=12", seed=1)
    assert isinstance(agent, ISMCTSAgent) and agent.rollout_turns == 12
    s = Game(Rules(num_players=4)).new_hand(0, 3)
    assert agent.choose(observe(s, s.to_act)) in s.legal_moves()
    with pytest.raises(ValueError, match="rollout_turns"):
        ISMCTSAgent(rollout_turns=-1)
