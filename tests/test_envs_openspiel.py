"""The OpenSpiel game: OpenSpiel's own consistency checks, its search bots and CFR."""

from __future__ import annotations

import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr, exploitability, get_all_states, ismcts, mcts
from open_spiel.python.observation import make_observation

from svoi_kozyri.core import LEAD, RulesError
from svoi_kozyri.envs.encoding import FIELDS, OBS_SIZE
from svoi_kozyri.envs.openspiel import INFO_STATE_FIELDS, MAX_SPLITS, PUBLIC_FIELDS

NAME = "python_svoi_kozyri"
CONFIGS = [
    {"max_actions_per_hand": 60},
    {"num_players": 3, "max_actions_per_hand": 60, "utility": "zero_sum"},
    {"num_players": 4, "max_actions_per_hand": 40, "pickup_rule": "whole_pile"},
    {"num_players": 2, "trumps_per_player_2p": 1, "max_actions_per_hand": 60},
    {"variant": "besicovitch", "max_actions_per_hand": 60},
    {"ranks": 3, "utility": "zero_sum", "max_actions_per_hand": 30},
    {"ranks": 2, "deal": "split", "utility": "zero_sum", "max_actions_per_hand": 30},
    {"ranks": 2, "deal": "split", "num_players": 3, "max_actions_per_hand": 30},
]
SPLIT3 = {"ranks": 2, "deal": "split", "num_players": 3, "max_actions_per_hand": 30}
PUBLIC = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=False, private_info=pyspiel.PrivateInfoType.NONE
)
PUBLIC_RECALL = pyspiel.IIGObservationType(
    public_info=True, perfect_recall=True, private_info=pyspiel.PrivateInfoType.NONE
)


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
            assert other.information_state_tensor(p) == state.information_state_tensor(p)
            assert other.observation_tensor(p) == state.observation_tensor(p)
            assert other.legal_actions() == state.legal_actions()
            deal = 1 + len(game.cfg.deck)  # the dealer, then one node per card
            assert other.history()[:1] == state.history()[:1]
            assert other.history()[deal:] == state.history()[deal:]
            assert len(other.history()) == len(state.history())
            differs += other.hand.hands != state.hand.hands
    # two players: the other hand is the complement of what the player sees
    assert differs > 0 if num_players > 2 else differs == 0


def test_observation_hides_the_other_hands() -> None:
    game = pyspiel.load_game(NAME, {"num_players": 3})
    state = _dealt(game, 2, 10)
    p = state.current_player()
    other = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert state.observation_string(p) == other.observation_string(p)


@pytest.mark.parametrize(
    "params",
    [{"max_actions_per_hand": 40}, {**SPLIT3, "max_actions_per_hand": 40}],
    ids=["cards", "split"],
)
def test_mcts_and_ismcts_bots_play_a_hand(params: dict) -> None:
    game = pyspiel.load_game(NAME, params)
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    bots = [
        mcts.MCTSBot(game, 2.0, 20, evaluator, random_state=rs),
        ismcts.ISMCTSBot(game, evaluator, 2.0, 20, random_state=rs),
    ]
    bots += bots[:1]
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


# -- the deal as one chance node over the splits ------------------------------------


@pytest.mark.parametrize(("players", "ranks", "splits"), [(2, 2, 70), (3, 2, 560), (2, 1, 6)])
def test_splits_are_every_deal_once(players: int, ranks: int, splits: int) -> None:
    """The split node has one outcome per way to share the deck, equally likely; each
    outcome deals the shares of the engine's deal (seat dealer+1 first) and ``rank``
    inverts ``unrank``."""
    game = pyspiel.load_game(NAME, {"num_players": players, "ranks": ranks, "deal": "split"})
    cfg = game.cfg
    deck = sum(1 << c for c in cfg.deck)
    for dealer in range(players):
        state = game.new_initial_state()
        state.apply_action(dealer)
        outcomes = state.chance_outcomes()
        assert [a for a, _ in outcomes] == list(range(splits))
        assert all(p == pytest.approx(1 / splits) for _, p in outcomes)
        seen = set()
        for k, _ in outcomes:
            hands = cfg.unrank(dealer, k)
            assert sum(hands) == deck and all(not a & b for a in hands for b in hands if a != b)
            sizes = [hands[(dealer + 1 + j) % players].bit_count() for j in range(players)]
            assert sizes == sorted(sizes, reverse=True) and sizes[0] - sizes[-1] <= 1
            assert cfg.rank(dealer, hands) == k
            seen.add(tuple(hands))
        assert len(seen) == splits
        child = state.child(splits - 1)
        assert child.current_player() == (dealer + 1) % players
        assert list(child.hand.hands) == cfg.unrank(dealer, splits - 1)


def test_split_and_card_deals_give_the_same_game() -> None:
    """The two deals reach the same information sets with the same probabilities:
    the card deal only adds orders, so the split tree is far smaller and CFR's
    uniform starting policy has the same NashConv on both."""
    base = {"ranks": 1, "utility": "zero_sum", "max_actions_per_hand": 10}
    cards = pyspiel.load_game(NAME, {**base, "deal": "cards"})
    split = pyspiel.load_game(NAME, {**base, "deal": "split"})
    sizes = [
        len(get_all_states.get_all_states(g, include_chance_states=True)) for g in (cards, split)
    ]
    assert sizes[1] < sizes[0]
    convs = [exploitability.nash_conv(g, cfr.CFRSolver(g).average_policy()) for g in (cards, split)]
    assert convs[0] == pytest.approx(convs[1])
    infos = [
        {
            s.information_state_string()
            for s in get_all_states.get_all_states(g, include_terminals=False).values()
        }
        for g in (cards, split)
    ]
    assert infos[0] == infos[1]


def test_split_deal_is_refused_where_it_cannot_be_listed() -> None:
    pyspiel.load_game(NAME, {"ranks": 5, "deal": "split"})  # 184,756 splits: listed lazily
    for params in (
        {"deal": "split"},  # the whole deck: about 9e9 splits
        {"ranks": 4, "num_players": 3, "deal": "split"},  # 2,018,016 > MAX_SPLITS
        {"ranks": 2, "deal": "shuffle"},
    ):
        with pytest.raises(RulesError, match="deal"):
            pyspiel.load_game(NAME, params)
    assert MAX_SPLITS < 2_018_016


def test_resample_with_the_split_deal() -> None:
    game = pyspiel.load_game(NAME, SPLIT3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differs = 0
    for seed in range(6):
        state = _dealt(game, seed, 2 * seed)
        if state.is_terminal():
            continue
        p = state.current_player()
        for _ in range(3):
            other = state.resample_from_infostate(p, sampler)
            # the dealer, one split, the same steps
            assert len(other.history()) == len(state.history())
            assert other.history()[:1] == state.history()[:1]
            assert other.history()[2:] == state.history()[2:]
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.information_state_tensor(p) == state.information_state_tensor(p)
            assert other.legal_actions() == state.legal_actions()
            differs += other.hand.hands != state.hand.hands
    assert differs > 0


# -- the information-state tensor and the named observation fields ------------------


def _walk(game: pyspiel.Game, seed: int) -> list[pyspiel.State]:
    """Every state of one random hand, the chance nodes included."""
    rng = random.Random(seed)
    state, seen = game.new_initial_state(), []
    while True:
        seen.append(state.clone())
        if state.is_terminal():
            return seen
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))


def test_information_state_tensor_parts() -> None:
    """The tensor is the dict's parts in order; each part holds what its name says."""
    cap = 30
    game = pyspiel.load_game(NAME, SPLIT3)
    shapes = {"rows": 2 * cap}
    size = sum(int(np.prod([shapes.get(k, k) for k in shape])) for _, shape in INFO_STATE_FIELDS)
    assert game.information_state_tensor_shape() == [size]
    obs = make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    assert list(obs.dict) == [name for name, _ in INFO_STATE_FIELDS]
    assert obs.dict["history"].shape == (2 * cap, 45)
    for state in _walk(game, 4):
        if state.is_chance_node():
            continue
        p = state.current_player() if not state.is_terminal() else 0
        obs.set_from(state, p)
        assert list(obs.tensor) == state.information_state_tensor(p)
        d = obs.dict
        assert d["player"].tolist() == [1.0 if i == p else 0.0 for i in range(4)]
        assert np.flatnonzero(d["dealer"]).tolist() == [state.dealer]
        start = state.hand.start_state()
        assert np.flatnonzero(d["dealt_hand"]).tolist() == [
            c for c in range(40) if start.hands[p] >> c & 1
        ]
        steps = len(state.actions)
        assert d["history"].sum() == 2 * steps and not d["history"][steps:].any()
        for t, (who, a) in enumerate(zip(state.actors, state.actions, strict=True)):
            assert np.flatnonzero(d["history"][t]).tolist() == [who, 4 + a]


@pytest.mark.parametrize(
    "params",
    [
        {"ranks": 1, "num_players": 3, "deal": "split", "max_actions_per_hand": 8},
        {"ranks": 2, "deal": "split", "max_actions_per_hand": 3},
    ],
    ids=["3p-aces", "2p-8cards"],
)
def test_tensor_holds_exactly_the_information_state(params: dict) -> None:
    """Over every state of a small game: two states give a player the same tensor
    exactly when they give it the same information-state string (no more knowledge,
    no less)."""
    game = pyspiel.load_game(NAME, params)
    states = get_all_states.get_all_states(game, include_terminals=False)
    for p in range(game.num_players()):
        by_string: dict[str, tuple[float, ...]] = {}
        by_tensor: dict[tuple[float, ...], str] = {}
        for state in states.values():
            if state.current_player() != p:
                continue
            s = state.information_state_string(p)
            t = tuple(state.information_state_tensor(p))
            assert by_string.setdefault(s, t) == t
            assert by_tensor.setdefault(t, s) == s
        assert len(by_string) > 1


def test_hidden_cards_never_change_what_a_player_sees() -> None:
    """Same public history, other players' hidden cards different: player p's
    information-state tensor, observation and public views are unchanged; its own
    hand changing does change them (so the check can fail)."""
    game = pyspiel.load_game(NAME, SPLIT3)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    public = make_observation(game, PUBLIC)
    public_recall = make_observation(game, PUBLIC_RECALL)
    moved = 0
    for seed in range(8):
        state = _dealt(game, seed, seed)
        if state.is_terminal():
            continue
        p = state.current_player()
        other = state.resample_from_infostate(p, sampler)
        if other.hand.hands == state.hand.hands:
            continue
        moved += 1
        assert other.actions == state.actions
        assert other.information_state_tensor(p) == state.information_state_tensor(p)
        assert other.observation_tensor(p) == state.observation_tensor(p)
        for obs in (public, public_recall):
            obs.set_from(state, p)
            mine = obs.tensor.copy()
            obs.set_from(other, p)
            assert np.array_equal(mine, obs.tensor)
    assert moved >= 3
    # the converse: same history, p's own hand different
    state = game.new_initial_state()
    state.apply_action(0)
    a, b = state.child(0), state.child(game.cfg.num_splits - 1)
    assert a.hand.hands[1] != b.hand.hands[1]
    assert a.information_state_tensor(1) != b.information_state_tensor(1)


def test_public_observation_is_the_same_for_every_player() -> None:
    game = pyspiel.load_game(NAME, {"num_players": 3, "max_actions_per_hand": 60})
    public = make_observation(game, PUBLIC)
    recall = make_observation(game, PUBLIC_RECALL)
    assert list(public.dict) == [name for name, _ in PUBLIC_FIELDS]
    assert "player" not in recall.dict and "dealt_hand" not in recall.dict
    for state in _walk(game, 5)[::7]:
        views = []
        for p in range(3):
            public.set_from(state, p)
            recall.set_from(state, p)
            views.append((public.tensor.tobytes(), recall.tensor.tobytes()))
            views.append((public.string_from(state, p), recall.string_from(state, p)))
        assert len(set(views[0::2])) == 1 and len(set(views[1::2])) == 1
        if state.hand is not None and not state.is_terminal():
            d = public.dict
            assert np.flatnonzero(d["to_act"]).tolist() == [state.current_player()]
            assert d["pile"].sum() == len(state.hand.pile_cards())
            assert d["hand_sizes"].sum() * 40 == pytest.approx(sum(state.hand.hand_sizes()))


def test_observation_parts_are_named_by_the_encoding() -> None:
    game = pyspiel.load_game(NAME, {"num_players": 2})
    obs = make_observation(game)
    assert [(k, v.size) for k, v in obs.dict.items()] == [(n, s) for n, _, s in FIELDS]
    state = _dealt(game, 1, 6)
    obs.set_from(state, 1)
    assert list(obs.tensor) == state.observation_tensor(1)
    assert obs.dict["own_hand"].sum() == state.hand.hand_sizes()[1]
    with pytest.raises(ValueError):
        make_observation(
            game,
            pyspiel.IIGObservationType(
                perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
            ),
        )


def test_cfr_on_the_split_deal() -> None:
    """CFR on the smallest split game (four aces, two players) lowers NashConv."""
    params = {"ranks": 1, "deal": "split", "utility": "zero_sum", "max_actions_per_hand": 10}
    game = pyspiel.load_game(NAME, params)
    solver = cfr.CFRPlusSolver(game)
    curve = [exploitability.nash_conv(game, solver.average_policy())]
    for _ in range(3):
        for _ in range(4):
            solver.evaluate_and_update_policy()
        curve.append(exploitability.nash_conv(game, solver.average_policy()))
    assert curve[-1] < curve[0] and curve[-1] == min(curve)
