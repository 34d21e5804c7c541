"""Properties of the engine over many random hands, for 2/3/4 players and every
option of SPEC C9 (A14 invariants, step/turn agreement, copies, guards, perft).

A fixed list of seeds drives the main sweep (each seed draws a whole option set,
owners, dealer and deck), and a test checks that those seeds really cover every
option value; hypothesis (derandomized) explores further seeds for the lighter
properties.  The action cap is kept small so each hand is short."""

from __future__ import annotations

import random
from functools import partial
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_refused, pick_move, random_hand, random_options
from svoi_kozyri.core import (
    BEAT_MOVES,
    FREE,
    LEAD,
    LEAD_MOVES,
    NUM_CARDS,
    OVER,
    PICKUP,
    PICKUP_MOVE,
    RESPOND,
    Move,
    State,
    parse_card,
)
from svoi_kozyri.core.perft import perft

# Seed 79 is the first that draws the 36-card Besicovitch deck.
SEEDS = [*range(48), 79]

ALL_MOVES: list[Move] = (
    [PICKUP_MOVE]
    + list(LEAD_MOVES)
    + [BEAT_MOVES[b][NUM_CARDS] for b in range(NUM_CARDS)]
    + [BEAT_MOVES[b][ld] for b in range(NUM_CARDS) for ld in range(NUM_CARDS) if b != ld]
)

PROPS = settings(derandomize=True, max_examples=25, deadline=None, database=None)


def light(state: State) -> tuple[Any, ...]:
    """The full observable state, through the public API only (copied values, so
    that a later in-place change cannot alter a snapshot)."""
    return (
        tuple(state.hands),
        tuple(state.pile_cards()),
        state.to_act,
        state.phase,
        state.outs,
        state.discard,
        state.turns,
        state.outcome,
        tuple(state.history()),
        tuple(state.picked),
        state.repetition_count(),
        tuple(state.known_cards(i) for i in range(state.n)),
    )


def check_invariants(state: State) -> None:
    """SPEC A14 invariants of one state."""
    g = state.game
    seen = 0
    total = 0
    for part in [*state.hands, *(1 << c for c in state.pile_cards()), state.discard]:
        assert not part & seen, "a card is in two places"
        seen |= part
        total += part.bit_count()
    assert seen == g.deck and total == g.deck.bit_count(), "cards are not conserved"
    if g.rules.defence_out_pile == "keep":
        assert state.discard == 0
    assert (state.top is None) == (not state.pile_cards())
    empty = {i for i, h in enumerate(state.hands) if not h}
    assert {s for s, _ in state.outs} == empty and len(state.outs) == len(empty)
    if state.phase == OVER:
        r = state.outcome
        assert r is not None and state.is_over and state.to_act == -1
        active = [i for i, h in enumerate(state.hands) if h]
        if r.termination == "out":
            assert active == [r.loser]
        elif r.termination == "last_card":
            assert r.loser is None and len(active) == 1
            assert state.hands[active[0]].bit_count() == 1
        elif r.termination == "action_cap":
            assert state.turns == g.rules.max_actions_per_hand
            if r.loser is not None:
                sizes = state.hand_sizes()
                assert sizes[r.loser] == max(sizes) and sizes.count(max(sizes)) == 1
        else:
            assert r.termination == "repetition" and r.loser is None
        return
    assert state.outcome is None
    assert state.phase in (FREE, RESPOND)
    assert len(state.active_seats()) >= 2
    p = state.to_act
    assert p is not None and state.hands[p], "the player to act holds no cards"
    if state.phase == RESPOND:
        assert state.pile_cards(), "respond mode with an empty pile"
    elif state.pile_cards():
        # Free lead on a non-empty pile: only after a defence-out, or after a
        # pickup under after_pickup="free_lead".
        _, last, _ = state.history()[-1]
        defence_out = last.beat is not None and last.lead is None
        free_after_pickup = last.is_pickup and g.rules.after_pickup == "free_lead"
        assert defence_out or free_after_pickup
    if g.rules.repetition_limit is not None:
        assert 1 <= state.repetition_count() < g.rules.repetition_limit


def check_moves(state: State, rng: random.Random) -> None:
    """Every legal move applies (turn level == step level); other moves are refused
    with the state unchanged; counts agree with perft(1)."""
    moves = state.legal_moves()
    assert len(set(moves)) == len(moves)
    assert state.count_legal_moves() == len(moves) == perft(state, 1)
    legal = set(moves)
    assert set(state.legal_actions()) == {m.steps()[0] for m in moves}
    assert state.legal_action_mask() == sum(1 << a for a in state.legal_actions())
    before = light(state)
    actor = state.to_act
    sample = moves if len(moves) <= 30 else rng.sample(moves, 30)
    by_beat: dict[int, set[int]] = {}
    for m in moves:
        if m.beat is not None and m.lead is not None:
            by_beat.setdefault(m.beat, set()).add(m.lead)
    for m in sample:
        assert state.is_legal(m)
        turn = state.copy()
        turn.push(m)
        step = state.copy()
        for i, a in enumerate(m.steps()):
            if i == 1:
                assert step.phase == LEAD
                assert m.beat is not None
                assert set(step.legal_actions()) == by_beat[m.beat]
            step.apply_action(a)
        assert light(step) == light(turn)
        assert turn.history()[-1][:2] == (actor, m)
        # A text round trip gives the same move.
        assert Move.parse(str(m)) is m
    assert light(state) == before, "applying moves to copies changed the original"
    for m in rng.sample(ALL_MOVES, 24):
        if m not in legal:
            assert not state.is_legal(m)
            assert_refused(state, partial(state.push, m))
            assert_refused(state, partial(state.push_text, str(m)))


def play(state: State, rng: random.Random, full: bool) -> State:
    cap = state.rules.max_actions_per_hand
    assert cap is not None
    check_invariants(state)
    while not state.is_over:
        assert state.turns < cap
        if full:
            check_moves(state, rng)
        state.push(pick_move(state, rng))
        check_invariants(state)
    assert state.turns <= cap
    return state


def test_seeds_cover_every_option_value() -> None:
    seen: dict[str, set[Any]] = {}
    for seed in SEEDS:
        for k, v in random_options(random.Random(seed)).items():
            seen.setdefault(k, set()).add(v)
    expected: dict[str, set[Any]] = {
        "variant": {"besicovitch"},
        "num_players": {2, 3, 4},
        "trumps_per_player_2p": {1, 2},
        "own_suits_cross_beat": {True, False},
        "pickup_rule": {"graded", "fixed", "whole_pile"},
        "after_pickup": {"face_new_top", "free_lead"},
        "free_lead_after_defence_out": {True, False},
        "defence_out_pile": {"keep", "discard"},
        "draw_rule": {"lead_only", "any_last_card", "none"},
        "equal_rank_beats": {"off", "also", "only"},
        "sixes_transfer_public": {True, False},
        "pile_visibility": {"full", "table"},
        "suit_assignment": {"agreed", "blind"},
        "deck_size": {24, 32, 36, 40},
        "besicovitch_first_leader": {"dealer", "non_dealer"},
        "besicovitch_draw_rule": {True, False},
        "taker_leads_after_pickup": {True},
        "repetition_limit": {None, 2, 3},
        "cap_outcome": {"draw", "most_cards_loses"},
    }
    for k, values in expected.items():
        assert values <= seen.get(k, set()), k


def test_sweep_ends_hands_in_every_way() -> None:
    reasons = set()
    for seed in SEEDS:
        s = play(random_hand(random_options(random.Random(seed)), seed), random.Random(seed), False)
        assert s.outcome is not None
        reasons.add(s.outcome.termination)
    # Draws and repetitions are rare in random play; test_engine_rules pins them.
    assert {"out", "action_cap"} <= reasons


def test_random_hands_invariants_and_moves() -> None:
    for seed in SEEDS:
        opts = random_options(random.Random(seed))
        play(random_hand(opts, seed), random.Random(seed + 1), True)


@PROPS
@given(st.integers(0, 2**31))
def test_property_invariants(seed: int) -> None:
    opts = random_options(random.Random(seed))
    play(random_hand(opts, seed), random.Random(seed), True)


@PROPS
@given(st.integers(0, 2**31), st.sampled_from([2, 3, 4]))
def test_same_seed_same_hand(seed: int, players: int) -> None:
    opts = random_options(random.Random(seed))
    if opts.get("variant") != "besicovitch":
        opts["num_players"] = players
        opts.pop("trumps_per_player_2p", None)
        opts.pop("own_suits_cross_beat", None)
    a = play(random_hand(opts, seed), random.Random(seed), False)
    b = play(random_hand(opts, seed), random.Random(seed), False)
    assert a.origin == b.origin
    assert a.history() == b.history()
    assert a.outcome == b.outcome and a.hands == b.hands


@PROPS
@given(st.integers(0, 2**31))
def test_copy_independence(seed: int) -> None:
    opts = random_options(random.Random(seed))
    rng = random.Random(seed)
    s = random_hand(opts, seed)
    copies: list[tuple[State, tuple[Any, ...]]] = []
    while not s.is_over:
        if rng.random() < 0.3:
            c = s.copy()
            copies.append((c, light(c)))
            # Playing the copy ahead must not touch the original.
            before = light(s)
            ahead = c.copy()
            for _ in range(3):
                if ahead.is_over:
                    break
                ahead.push(pick_move(ahead, rng))
            assert light(s) == before
        s.push(pick_move(s, rng))
    for c, snap in copies:
        assert light(c) == snap, "playing the original changed a copy"


@PROPS
@given(st.integers(0, 2**31))
def test_copies_replay_to_the_same_result(seed: int) -> None:
    """A copy played with the same moves reaches the same state and result,
    repetition counts included (the guard's history is carried by the copy)."""
    opts = random_options(random.Random(seed))
    opts["repetition_limit"] = 2
    opts["max_actions_per_hand"] = 400
    rng = random.Random(seed)
    s = random_hand(opts, seed)
    moves: list[Move] = []
    while not s.is_over:
        m = pick_move(s, rng)
        moves.append(m)
        s.push(m)
    t = random_hand(opts, seed)
    for i, m in enumerate(moves):
        if i % 7 == 3:
            t = t.copy()
        t.push(m)
    assert light(t) == light(s)


def test_unbounded_random_play_is_ended_by_the_repetition_guard_or_play() -> None:
    """With the cap off, the repetition guard alone still ends every hand
    (the state space is finite), here on short 2-player 24-card games."""
    for seed in range(6):
        opts = {"variant": "besicovitch", "deck_size": 24, "max_actions_per_hand": None}
        rng = random.Random(seed)
        s = random_hand(opts, seed)
        for _ in range(100_000):
            if s.is_over:
                break
            s.push(rng.choice(s.legal_moves()))
        assert s.is_over
        assert s.outcome is not None and s.outcome.termination in ("out", "repetition")


def test_perft_depth_two_equals_sum_over_children() -> None:
    s = random_hand({"num_players": 4, "max_actions_per_hand": None}, 5)
    s.push(s.legal_moves()[0])
    total = 0
    for m in s.legal_moves():
        c = s.copy()
        c.push(m)
        total += c.count_legal_moves()
    assert perft(s, 2) == total
    assert perft(s, 0) == 1


def test_step_action_indices() -> None:
    assert PICKUP == 40
    assert LEAD_MOVES[parse_card("8H")].steps() == (parse_card("8H"),)


def exact_key(state: State) -> tuple[Any, ...]:
    """SPEC D6.1's position key, built from the public API (no hashing)."""
    return (
        tuple(state.hands),
        tuple(state.pile_cards()),
        state.to_act,
        state.phase,
        state.discard,
    )


@settings(derandomize=True, max_examples=20, deadline=None, database=None)
@given(st.integers(0, 2**31), st.sampled_from([2, 3, 4]))
def test_repetition_counts_match_a_reference_counter(seed: int, players: int) -> None:
    """The engine's repetition count (hashed, shared between copies) equals an
    exact count of identical positions, also while hopping between copies."""
    rng = random.Random(seed)
    if players == 2 and seed % 2:
        opts: dict[str, Any] = {"variant": "besicovitch", "deck_size": 24}
    else:
        opts = {"num_players": players, "defence_out_pile": rng.choice(["keep", "discard"])}
    opts.update(repetition_limit=rng.choice([2, 3, 6]), max_actions_per_hand=600)
    s = random_hand(opts, seed)
    if seed % 3 == 0:
        # A small position (few cards): positions repeat far more often.
        cards_ = rng.sample([c for c in range(40) if s.game.deck >> c & 1], 3 * s.n)
        hands = [sum(1 << c for c in cards_[3 * i : 3 * i + 3]) for i in range(s.n)]
        s = s.game.position(hands, [], rng.randrange(s.n), "free")
    seen: dict[tuple[Any, ...], int] = {exact_key(s): 1}
    limit = opts["repetition_limit"]
    branches: list[tuple[State, dict[tuple[Any, ...], int]]] = []
    while not s.is_over:
        assert s.repetition_count() == seen[exact_key(s)]
        r = rng.random()
        if r < 0.15:
            branches.append((s.copy(), dict(seen)))
        elif r < 0.25 and branches:
            s, seen = branches.pop(rng.randrange(len(branches)))
            continue
        # Random play without the "prefer to play" bias repeats positions more often.
        s.push(rng.choice(s.legal_moves()))
        if not s.is_over:
            seen[exact_key(s)] = seen.get(exact_key(s), 0) + 1
    assert s.outcome is not None
    if s.outcome.termination == "repetition":
        # The final move reached a position already seen limit - 1 times (the
        # finished state keeps hands, pile and discard; seat and mode are reset).
        final = (tuple(s.hands), tuple(s.pile_cards()), s.discard)
        assert any((k[0], k[1], k[4]) == final and v == limit - 1 for k, v in seen.items())
    else:
        assert max(seen.values()) < limit
