"""The observation tensor: layout, relative seats and suits, and hidden information."""

from __future__ import annotations

import random

import numpy as np
import pytest

from svoi_kozyri import Game, Rules, observe
from svoi_kozyri.core import PICKUP, determinize
from svoi_kozyri.envs import encoding as enc

RULES = [
    Rules(num_players=4),
    Rules(num_players=3, pickup_rule="whole_pile", after_pickup="free_lead"),
    Rules(num_players=2),
    Rules(num_players=2, trumps_per_player_2p=1, defence_out_pile="discard"),
    Rules(variant="besicovitch"),
]


def _played(game: Game, seed: int, steps: int):
    rng = random.Random(seed)
    state = game.new_hand(rng.randrange(game.n), rng)
    for _ in range(steps):
        if state.is_over:
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_fields_tile_the_tensor() -> None:
    off = 0
    for _name, o, size in enc.FIELDS:
        assert o == off
        off += size
    assert off == enc.OBS_SIZE


@pytest.mark.parametrize("rules", RULES, ids=lambda r: str(r.to_dict(only_changed=True)))
def test_state_and_observation_encodings_agree(rules: Rules) -> None:
    game = Game(rules)
    for seed in range(6):
        state = _played(game, seed, 7 * seed)
        for seat in range(game.n):
            a = enc.encode_state(state, seat)
            b = enc.encode_observation(observe(state, seat))
            assert a.dtype == np.float32 and a.shape == (enc.OBS_SIZE,)
            np.testing.assert_array_equal(a, b)
            assert np.all((a >= 0) & (a <= 1))


@pytest.mark.parametrize("rules", RULES[:4], ids=lambda r: str(r.to_dict(only_changed=True)))
def test_hidden_cards_do_not_change_the_tensor(rules: Rules) -> None:
    """Two states that differ only in cards the observer cannot see encode alike for
    it, and differently for a seat whose own hand differs."""
    game = Game(rules)
    rng = random.Random(5)
    differed = 0
    for seed in range(20):
        state = _played(game, seed, 3 * seed)
        seat = state.to_act if not state.is_over else 0
        obs = observe(state, seat)
        other = determinize(obs, rng)
        np.testing.assert_array_equal(enc.encode_state(state, seat), enc.encode_state(other, seat))
        for s in range(game.n):
            if s != seat and other.hands[s] != state.hands[s]:
                differed += 1
                assert not np.array_equal(enc.encode_state(state, s), enc.encode_state(other, s))
    # With two players the other hand is the complement of what the observer sees,
    # so nothing is hidden; with more, sampled deals do differ.
    assert differed > 0 if game.n > 2 else differed == 0


def test_own_suit_is_relative_suit_zero() -> None:
    game = Game(Rules(num_players=4))  # A owns S, B H, C D, D C
    state = game.new_hand(0, 1)
    for seat in range(4):
        t = enc.encode_state(state, seat)
        off = dict((n, o) for n, o, _ in enc.FIELDS)
        suit_map = t[off["suit_map"] : off["suit_map"] + 16].reshape(4, 4)
        assert suit_map[0].argmax() == seat  # relative suit 0 is the own suit
        owner = t[off["suit_owner"] : off["suit_owner"] + 20].reshape(4, 5)
        assert [int(r.argmax()) for r in owner] == [0, 1, 2, 3]
        own = t[0:40]
        hand = state.hands[seat]
        assert own.sum() == hand.bit_count()
        rel = enc.relative_actions(game, seat, [c for c in range(40) if hand >> c & 1])
        assert set(np.flatnonzero(own)) == set(rel.tolist())


def test_action_conversion_round_trips() -> None:
    game = Game(Rules(num_players=3))
    acts = np.arange(41)
    for seat in range(3):
        rel = enc.relative_actions(game, seat, acts)
        assert rel[PICKUP] == PICKUP
        np.testing.assert_array_equal(enc.absolute_actions(game, seat, rel), acts)


def test_action_mask_matches_legal_actions() -> None:
    game = Game(Rules(num_players=4))
    state = _played(game, 3, 40)
    mask = enc.action_mask(state)
    assert mask.dtype == np.int8
    assert set(np.flatnonzero(mask)) == set(state.legal_actions())


def test_spectator_observation_is_refused() -> None:
    game = Game(Rules(num_players=2))
    with pytest.raises(ValueError):
        enc.encode_observation(observe(game.new_hand(0, 1), None))
