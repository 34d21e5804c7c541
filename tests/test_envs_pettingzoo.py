"""The PettingZoo AEC environment passes PettingZoo's own conformance tests."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from svoi_kozyri import observe
from svoi_kozyri.core.cards import cards_of
from svoi_kozyri.envs import svoi_kozyri_v0
from svoi_kozyri.envs.encoding import OBS_SIZE, action_mask, encode_observation
from svoi_kozyri.envs.pettingzoo import STATE_FIELDS, STATE_SIZE, env, raw_env

CONFIGS = [
    {"num_players": 2},
    {"num_players": 3},
    {"num_players": 4},
    {"num_players": 2, "trumps_per_player_2p": 1, "draw_rule": "any_last_card"},
    {"num_players": 3, "pickup_rule": "whole_pile", "after_pickup": "free_lead"},
    {"num_players": 4, "suit_assignment": "blind", "equal_rank_beats": "also"},
    {"num_players": 4, "defence_out_pile": "discard", "max_actions_per_hand": 60},
    {"num_players": None, "variant": "besicovitch"},
]


#: A turn cap short enough that ``api_test``'s play test (``num_cycles`` steps per
#: agent) always reaches the end of its hand: random hands run to thousands of
#: steps, so without it the checks made at a hand's end would rarely run.
API_TEST_CAP = 30


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_api_and_seed(config: dict) -> None:
    capped = {**config, "max_actions_per_hand": API_TEST_CAP}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(**config), num_cycles=120)  # deep into a hand, rarely to its end
        e = env(**capped)
        raw = e.unwrapped
        ended: list[dict] = []
        hand_over = raw._hand_over

        def counting_hand_over(agent, returns) -> None:
            hand_over(agent, returns)
            ended.append(dict(raw.terminations))

        raw._hand_over = counting_hand_over  # the one way a hand ends but an illegal action
        api_test(e, num_cycles=120)
        seed_test(lambda: env(**config), num_cycles=120)
    # at least one hand ended during the api test, every agent terminated with it
    assert ended and all(t and all(t.values()) for t in ended)


def _play(e, rng: random.Random) -> tuple[dict, int]:
    e.reset(seed=rng.randrange(1 << 30))
    steps = 0
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert obs["observation"].shape == (OBS_SIZE,)
        e.step(int(rng.choice(list(legal))))
        steps += 1
    return e.unwrapped._cumulative_rewards, steps


def test_rewards_are_the_engine_returns() -> None:
    e = env(num_players=3)
    rng = random.Random(2)
    for _ in range(3):
        _play(e, rng)
        state = e.unwrapped.hand
        assert state.is_over
        # every agent's reward was paid once: the engine's returns
        assert not e.agents


def test_illegal_action_ends_the_hand() -> None:
    e = raw_env(num_players=4)
    e.reset(seed=3)
    agent = e.agent_selection
    state = e.hand
    bad = next(a for a in range(41) if a not in state.legal_actions())
    e.step(bad)
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1.0
    assert e.infos[agent]["illegal"] == agent
    assert not state.is_over  # the engine state was left as it was


@pytest.mark.parametrize("kind", [int, np.int64], ids=["int", "numpy int"])
def test_info_lists_legal_actions_of_the_agent_to_act(kind: type) -> None:
    """... and a NumPy integer is as good an action as an int."""
    e = raw_env(num_players=2)
    e.reset(seed=1)
    for _ in range(30):
        agent = e.agent_selection
        if e.terminations[agent]:
            break
        _, _, _, _, info = e.last(observe=False)
        assert info["legal_actions"] == e.hand.legal_actions()
        e.step(kind(info["legal_actions"][-1]))
        assert "illegal" not in e.infos[agent]


def test_versioned_name() -> None:
    assert svoi_kozyri_v0.raw_env.metadata["name"] == "svoi_kozyri_v0"
    assert isinstance(svoi_kozyri_v0.env(num_players=2).unwrapped, raw_env)


@pytest.mark.parametrize("config", CONFIGS, ids=str)
def test_observations_are_each_seats_own_and_fresh(config: dict) -> None:
    """Every agent's observation, every step, equals the reference (numpy) encoding
    of that seat's Observation, its mask is the engine's for the agent to act and
    zeros for the others; asking twice in a step builds it once; and an
    observation kept from an earlier step still holds what it held then."""
    e = raw_env(**config)
    e.reset(seed=11)
    rng = random.Random(4)
    kept: list[tuple[dict, np.ndarray, np.ndarray]] = []
    big_piles = 0
    for step in range(400):
        agent = e.agent_selection
        if e.terminations[agent]:
            break
        state = e.hand
        big_piles += len(state.pile) > 5
        for a in e.agents:
            seat = e.agents.index(a)
            obs = e.observe(a)
            assert obs["observation"].dtype == np.float32
            assert obs["action_mask"].dtype == np.int8
            np.testing.assert_array_equal(
                obs["observation"], encode_observation(observe(state, seat))
            )
            want = action_mask(state) if a == agent else np.zeros(41, np.int8)
            np.testing.assert_array_equal(obs["action_mask"], want)
        first = e.last()[0]
        assert e.observe(agent) is first  # the same step: built once
        if step % 7 == 0:
            kept.append((first, first["observation"].copy(), first["action_mask"].copy()))
        e.step(rng.choice(e.infos[agent]["legal_actions"]))
        if not e.terminations[e.agent_selection]:
            assert e.last()[0] is not first  # a new step: a new observation
    for obs, tensor, mask in kept:
        np.testing.assert_array_equal(obs["observation"], tensor)
        np.testing.assert_array_equal(obs["action_mask"], mask)
    if config.get("pickup_rule") == "whole_pile" or config == {"num_players": 4}:
        assert big_piles  # the pickup cards of a pile of more than five were checked


def test_observations_are_never_written_again() -> None:
    """Every observation the environment hands out is memory of its own, which it
    never writes again: kept as its dict, as its arrays or as a view of them, it
    stays as it was however many steps follow (and two observations never share
    their arrays)."""
    e = raw_env(num_players=4)
    e.reset(seed=5)
    rng = random.Random(8)
    kept: list[tuple[object, np.ndarray, np.ndarray]] = []
    steps = 0
    for _agent in e.agent_iter(3000):
        obs, _, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        how = steps % 3
        if how == 0:  # the dict
            kept.append((obs, obs["observation"].copy(), obs["action_mask"].copy()))
        elif how == 1:  # the arrays themselves
            held = (obs["observation"], obs["action_mask"])
            kept.append((held, held[0].copy(), held[1].copy()))
        else:  # views of them
            held = (obs["observation"][:600], obs["action_mask"][1:])
            kept.append((held, held[0].copy(), held[1].copy()))
        e.step(rng.choice(info["legal_actions"]))
        steps += 1
    assert steps > 1000
    addresses = set()
    for held, tensor, mask in kept:
        if isinstance(held, dict):
            now = (held["observation"], held["action_mask"])
        else:
            assert isinstance(held, tuple)
            now = held
        np.testing.assert_array_equal(now[0], tensor)
        np.testing.assert_array_equal(now[1], mask)
        addresses.add(now[0].__array_interface__["data"][0])
    assert len(addresses) == len(kept)


def test_wrapped_last_keeps_the_order_check() -> None:
    """``env()``'s direct ``last`` still refuses before ``reset`` (as PettingZoo's
    wrapper does) and then answers exactly as the raw environment."""
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    e = env(num_players=3)
    assert isinstance(e, OrderEnforcingWrapper)
    with pytest.raises(AttributeError):
        e.last()
    e.reset(seed=5)
    obs, reward, term, trunc, info = e.last()
    raw = e.unwrapped
    assert obs is raw.observe(raw.agent_selection)
    assert (reward, term, trunc) == (0.0, False, False)
    assert info["legal_actions"] == raw.hand.legal_actions()


FAST_CONFIGS = [c for c in CONFIGS if c.get("suit_assignment") != "blind" and "variant" not in c]
FAST_CONFIGS.append({"num_players": 3, "repetition_limit": None, "max_actions_per_hand": 400})


@pytest.mark.parametrize("config", FAST_CONFIGS, ids=str)
def test_compiled_hand_plays_exactly_as_the_engine_state(config: dict) -> None:
    """The compiled fast path and the engine path, from the same seeds and actions:
    the same agent to act, observation, mask, infos, rewards and terminations at
    every step of whole hands, and the same engine state at the end."""
    fast, slow = raw_env(**config), raw_env(compiled_hand=False, **config)
    assert fast._fast is not None and slow._fast is None
    rng = random.Random(7)
    steps = 0
    for hand in range(4):
        fast.reset(seed=100 + hand)
        slow.reset(seed=100 + hand)
        for agent in fast.agent_iter():
            assert agent == slow.agent_selection
            # observed in runs and skipped in runs: the step builds the next
            # observation only while the loop keeps asking for them
            observing = (steps // 5) % 3 != 2
            a, b = fast.last(observing), slow.last(observing)
            if observing:
                np.testing.assert_array_equal(a[0]["observation"], b[0]["observation"])
                np.testing.assert_array_equal(a[0]["action_mask"], b[0]["action_mask"])
                if steps % 4 == 0:  # another seat's view in the same step
                    other = fast.agents[(fast.agents.index(agent) + 1) % len(fast.agents)]
                    c, d = fast.observe(other), slow.observe(other)
                    np.testing.assert_array_equal(c["observation"], d["observation"])
                    np.testing.assert_array_equal(c["action_mask"], d["action_mask"])
            assert a[1:] == b[1:]
            if a[2] or a[3]:
                fast.step(None)
                slow.step(None)
                continue
            action = rng.choice(a[4]["legal_actions"])
            fast.step(action)
            slow.step(action)
            steps += 1
        assert fast.rewards == slow.rewards and fast._cumulative_rewards == slow._cumulative_rewards
        assert fast.hand.is_over and repr(fast.hand) == repr(slow.hand)
        assert fast.hand.outcome == slow.hand.outcome
    assert steps > 100


@pytest.mark.parametrize("bad", [99, -5, 2**70, True, 3.0, "7", np.int64(99)], ids=repr)
def test_bad_actions_are_illegal_and_change_nothing(bad: object) -> None:
    """Out of range, a bool, a float, a string or a NumPy integer that is no card:
    the hand ends for the offender with the engine's reason, the engine state stays."""
    for compiled in (True, False):
        e = raw_env(num_players=4, compiled_hand=compiled)
        e.reset(seed=3)
        agent = e.agent_selection
        before = repr(e.hand)
        e.step(bad)
        assert all(e.terminations.values())
        assert e.rewards[agent] == -1.0
        assert e.infos[agent]["illegal"] == agent and e.infos[agent]["why"]
        assert repr(e.hand) == before


def test_wrapped_step_and_iterator_keep_the_order_checks() -> None:
    """``env()``'s direct ``step`` and ``agent_iter`` still refuse before ``reset``
    and still insist on a step between two agents, as PettingZoo's wrapper does."""
    e = env(num_players=2)
    with pytest.raises(Exception, match="reset"):
        e.step(0)
    with pytest.raises(Exception, match="reset"):
        e.agent_iter()
    e.reset(seed=1)
    it = iter(e.agent_iter())
    next(it)
    with pytest.raises(AssertionError, match="step"):
        next(it)


def test_human_render_mode_prints_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    """With ``render_mode="human"`` the engine state is printed after each step
    (the compiled hand is not used: every step needs the engine state anyway)."""
    e = raw_env(num_players=2, render_mode="human")
    assert e._fast is None
    e.reset(seed=2)
    for _ in range(3):
        e.step(e.infos[e.agent_selection]["legal_actions"][0])
    assert capsys.readouterr().out.count("\n") >= 3


@pytest.mark.parametrize("wrapped", [True, False])
def test_step_after_every_agent_is_done_only_warns(wrapped: bool) -> None:
    """PettingZoo's wrapper warns of a step once no agent is left; the raw
    environment (whose step the wrapper hands out after reset) does the same."""
    e = env(num_players=2) if wrapped else raw_env(num_players=2)
    e.reset(seed=3)
    for _agent in e.agent_iter():
        _, _, term, trunc, info = e.last(observe=False)
        e.step(None if term or trunc else info["legal_actions"][0])
    assert not e.agents
    e.step(None)  # no KeyError: a warning (when PettingZoo's logger is on) and nothing else
    assert not e.agents


@pytest.mark.parametrize(
    "make",
    [
        lambda: raw_env(num_players=3),
        lambda: raw_env(num_players=3, compiled_hand=False),
        lambda: env(num_players=2),
    ],
    ids=["compiled", "engine", "wrapped"],
)
def test_an_environment_in_play_pickles_and_plays_on_alike(make) -> None:
    """A pickled copy (for worker processes, Ray actors) continues exactly as the
    original: the compiled hand's kernels are taken again on unpickling."""
    import pickle

    e = make()
    e.reset(seed=8)
    for _ in range(7):
        e.step(e.infos[e.agent_selection]["legal_actions"][0])
    c = pickle.loads(pickle.dumps(e))
    for _ in range(40):
        agent = e.agent_selection
        assert c.agent_selection == agent
        a, b = e.last(), c.last()
        np.testing.assert_array_equal(a[0]["observation"], b[0]["observation"])
        assert a[1:] == b[1:]
        action = None if a[2] else a[4]["legal_actions"][-1]
        e.step(action)
        c.step(action)
        if not e.agents:
            break
    assert repr(e.unwrapped.hand) == repr(c.unwrapped.hand)


@pytest.mark.parametrize("config", [CONFIGS[0], CONFIGS[4], CONFIGS[5], CONFIGS[7]], ids=str)
def test_global_state_is_the_whole_position(config: dict) -> None:
    """``state()`` at every step of whole hands: in ``state_space``, a fresh array,
    each part what :data:`STATE_FIELDS` says of the engine state (every hand
    included), and the same on the compiled and the engine paths."""
    fast, slow = raw_env(**config), raw_env(compiled_hand=False, **config)
    n = fast.rules.num_players
    rng = random.Random(3)
    checked = 0
    for hand in range(2):
        fast.reset(seed=200 + hand)
        slow.reset(seed=200 + hand)
        for _agent in fast.agent_iter():
            g = fast.state()
            assert fast.state_space.contains(g) and g is not fast.state()
            np.testing.assert_array_equal(g, slow.state())
            parts, at = {}, 0
            for name, size in STATE_FIELDS:
                parts[name] = g[at : at + size]
                at += size
            assert at == STATE_SIZE == g.size
            st = fast.hand
            o = observe(st, None)
            hands = parts["hands"].reshape(4, 40)
            known = parts["known"].reshape(4, 40)
            for seat in range(4):
                held = st.hands[seat] if seat < n else 0
                assert np.flatnonzero(hands[seat]).tolist() == cards_of(held)
                assert np.flatnonzero(known[seat]).tolist() == cards_of(
                    o.known[seat] if seat < n else 0
                )
            assert sorted(np.flatnonzero(parts["pile"]).tolist()) == sorted(o.pile)
            tops = parts["pile_top"].reshape(5, 40)
            assert [int(np.argmax(r)) for r in tops if r.any()] == list(reversed(o.pile[-5:]))
            assert np.flatnonzero(parts["discard"]).tolist() == cards_of(o.discard)
            assert parts["hand_sizes"][:n] * 40 == pytest.approx(o.hand_sizes)
            to_act = [] if o.to_act is None else [o.to_act]
            assert np.flatnonzero(parts["to_act"]).tolist() == to_act
            assert np.flatnonzero(parts["phase"]).tolist() == [o.phase]
            owners = parts["suit_owner"].reshape(4, 5).argmax(axis=1).tolist()
            assert owners == [4 if w < 0 else w for w in st.game.suit_owner]
            assert parts["pickup_count"][0] * 40 == pytest.approx(o.pickup_count())
            checked += 1
            _, _, term, trunc, info = fast.last()
            if term or trunc:
                fast.step(None)
                slow.step(None)
                continue
            action = rng.choice(info["legal_actions"])
            fast.step(action)
            slow.step(action)
    assert checked > 50
