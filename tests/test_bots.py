"""Baseline bots: observation-only play, legality everywhere, reproducibility, policy."""

from __future__ import annotations

import random

import pytest

from svoi_kozyri.bots.base import Agent, RandomAgent, play_out
from svoi_kozyri.bots.basic import GreedyAgent, card_costs, greedy_move
from svoi_kozyri.bots.catalogue import make_agent
from svoi_kozyri.bots.heuristic import HeuristicAgent, View, heuristic_move, miss_chance
from svoi_kozyri.core import (
    FREE,
    RESPOND,
    Game,
    Move,
    Observation,
    Rules,
    State,
    observe,
    parse_card,
    sample_hands,
)
from svoi_kozyri.notation import position_from_text

BOTS = ("random", "greedy", "heuristic")

RULE_SETS: list[dict[str, object]] = [
    {"num_players": 4},
    {"num_players": 3},
    {"num_players": 2},
    {"num_players": 2, "trumps_per_player_2p": 1},
    {"num_players": 2, "own_suits_cross_beat": True},
    {"variant": "besicovitch"},
    {"variant": "besicovitch", "deck_size": 24, "besicovitch_draw_rule": True},
    {"variant": "besicovitch", "taker_leads_after_pickup": True},
    {"num_players": 4, "pickup_rule": "fixed", "fixed_pickup_count": 2},
    {"num_players": 3, "pickup_rule": "whole_pile"},
    {"num_players": 4, "after_pickup": "free_lead"},
    {"num_players": 4, "defence_out_pile": "discard", "free_lead_after_defence_out": False},
    {"num_players": 4, "draw_rule": "any_last_card"},
    {"num_players": 3, "draw_rule": "none"},
    {"num_players": 4, "equal_rank_beats": "also"},
    {"num_players": 4, "equal_rank_beats": "only"},
    {"num_players": 4, "suit_assignment": "blind"},
    {"num_players": 4, "sixes_transfer_public": False},
]


def random_positions(rules: Rules, count: int, seed: int) -> list[State]:
    """States reached by random play from seeded deals (varied phases and sizes)."""
    rng = random.Random(seed)
    game = Game(rules)
    out = []
    while len(out) < count:
        state = game.new_hand(rng.randrange(game.n), rng.randrange(1 << 30))
        for _ in range(rng.randrange(0, 120)):
            if state.is_over:
                break
            state.push(rng.choice(state.legal_moves()))
        if not state.is_over:
            out.append(state)
    return out


class PeekingGuard(Agent):
    """Wraps an agent; checks that its observation hides every other hand."""

    name = "guard"

    def __init__(self, inner: Agent, state_ref: list[State]) -> None:
        super().__init__(0)
        self.inner = inner
        self.state_ref = state_ref
        self.calls = 0

    def choose(self, obs: Observation) -> Move:
        state = self.state_ref[0]
        assert obs.seat == state.to_act
        for i in range(obs.game.n):
            if i != obs.seat and not obs.game.rules.is_besicovitch:
                assert obs.hands[i] == 0, "another player's hand leaked into the observation"
                assert obs.known[i] & ~state.hands[i] == 0
                assert obs.known[i] == state.known_cards(i)
        self.calls += 1
        move = self.inner.choose(obs)
        assert move in obs.legal_moves()
        return move


@pytest.mark.parametrize("name", BOTS)
def test_agents_only_see_their_observation(name: str) -> None:
    for n in (2, 3, 4):
        game = Game(Rules(num_players=n))
        state = game.new_hand(0, 11 * n)
        ref = [state]
        guards = [PeekingGuard(make_agent(name, seed=i), ref) for i in range(n)]
        play_out(state, guards, max_moves=400)
        assert sum(g.calls for g in guards) > 0


@pytest.mark.parametrize(
    "opts", RULE_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
)
def test_every_bot_returns_legal_moves_on_random_positions(opts: dict[str, object]) -> None:
    rules = Rules.from_dict(opts)
    agents = [make_agent(b, seed=3) for b in BOTS]
    rng = random.Random(5)
    for state in random_positions(rules, 25, seed=hash(tuple(opts.items())) & 0xFFFF):
        legal = state.legal_moves()
        obs = observe(state, state.to_act)
        for agent in agents:
            assert agent.choose(obs) in legal, (agent.name, state)
        assert greedy_move(state, rng) in legal
        assert heuristic_move(state, rng) in legal


@pytest.mark.parametrize("opts", RULE_SETS[:8], ids=str)
def test_baseline_bots_finish_hands_without_the_guards(opts: dict[str, object]) -> None:
    rules = Rules.from_dict(opts)
    game = Game(rules)
    for seed in range(6):
        for names in (
            ["greedy"] * game.n,
            ["heuristic"] * game.n,
            ["heuristic", *["greedy"] * (game.n - 1)],
        ):
            state = game.new_hand(seed % game.n, seed)
            play_out(state, [make_agent(b, seed=seed * 10 + i) for i, b in enumerate(names)])
            assert state.outcome is not None and not state.outcome.adjudicated, (names, seed)


@pytest.mark.parametrize("name", BOTS)
def test_seeded_games_are_reproducible(name: str) -> None:
    game = Game(Rules(num_players=3))

    def run(seed: int) -> tuple[object, ...]:
        state = game.new_hand(1, 42)
        play_out(state, [make_agent(name, seed=seed + i) for i in range(3)], max_moves=300)
        return (tuple(state.history()), state.outcome)

    assert run(7) == run(7)
    if name == "random":
        assert run(7) != run(8)


def test_heuristic_move_matches_the_agent_and_ignores_hidden_cards() -> None:
    """The fast State entry point decides as the Observation agent does, and moving
    hidden cards between the other players never changes the decision."""
    for n in (2, 3, 4):
        rules = Rules(num_players=n)
        for k, state in enumerate(random_positions(rules, 30, seed=100 + n)):
            p = state.to_act
            obs = observe(state, p)
            expected = HeuristicAgent(seed=k).choose(obs)
            assert heuristic_move(state, random.Random(k)) == expected
            g_expected = GreedyAgent(seed=k).choose(obs)
            for j in range(3):
                hands = sample_hands(obs, random.Random(j))
                other = state.game.position(
                    hands,
                    state.pile_cards(),
                    p,
                    state.phase,
                    state.outs,
                    discard=state.discard,
                    known=obs.known,
                )
                assert other.hands[p] == state.hands[p]
                assert heuristic_move(other, random.Random(k)) == expected
                assert greedy_move(other, random.Random(k)) == g_expected


def test_view_from_state_equals_view_from_observation() -> None:
    for state in random_positions(Rules(num_players=4), 20, seed=9):
        a = View.from_state(state)
        b = View.from_observation(observe(state, state.to_act))
        # (compiled by mypyc, the class has no __slots__ to list)
        for attr in ("game", "hand", "hidden", "known", "phase", "pile", "seat", "sizes"):
            assert (
                list(getattr(a, attr)) == list(getattr(b, attr))
                if attr == "pile"
                else (getattr(a, attr) == getattr(b, attr))
            ), attr


# --------------------------------------------------------------------------- policy


def pos(game: Game, hands: dict[str, str], pile: str, to_act: str, mode: str) -> State:
    return position_from_text(game, hands, pile, to_act, mode)


def test_greedy_costs_put_plain_cards_before_own_trumps() -> None:
    game = Game(Rules(num_players=4))  # A owns spades
    costs = card_costs(game)[0]
    assert costs[parse_card("AH")] < costs[parse_card("6S")] < costs[parse_card("AS")]
    assert costs[parse_card("7H")] < costs[parse_card("KD")]


def test_greedy_beats_with_the_cheapest_card_and_leads_the_cheapest() -> None:
    game = Game(Rules(num_players=4))  # A: S, B: H, C: D, D: C
    state = pos(
        game,
        {"A": "6S KH 9D 7C", "B": "8H 6H", "C": "6D 7D", "D": "6C 8C"},
        "8D",
        "A",
        "respond",
    )
    # 9D (plain) beats 8D more cheaply than the own trump 6S; then lead the cheapest: 7C.
    assert greedy_move(state, random.Random(0)) == Move.parse("beat 9D lead 7C")
    free = pos(
        game,
        {"A": "6S KH 9D 7C", "B": "8H 6H", "C": "6D 7D", "D": "6C 8C"},
        "",
        "A",
        "free",
    )
    assert greedy_move(free, random.Random(0)) == Move.parse("lead 7C")


def test_greedy_never_refuses_when_it_can_beat() -> None:
    game = Game(Rules(num_players=4))
    state = pos(
        game,
        {"A": "AS KS", "B": "8H 6H", "C": "6D 7D 10D", "D": "6C 8C"},
        "8D 9D",
        "A",
        "respond",
    )
    assert greedy_move(state, random.Random(0)).beat == parse_card("KS")


def test_heuristic_leads_what_the_next_player_cannot_beat() -> None:
    game = Game(Rules(num_players=4))  # B (next after A) owns hearts
    # B is about to go out and is known to hold 6H 7H (its six and a picked-up card):
    # a 10H lead cannot be beaten by B, any other lead can (B trumps it).
    hands = [parse_cards_mask(t) for t in ("7D 10H 8C 9C", "6H 7H", "AH KH QH JH", "6C 9D 6D")]
    state = game.position(hands, [], 0, FREE, known=[0, hands[1], 0, 0])
    assert heuristic_move(state, random.Random(0)) == Move.parse("lead 10H")
    # When B is known to hold a higher heart, 10H is no better than any other lead.
    hands = [parse_cards_mask(t) for t in ("7D 10H 8C 9C", "6H QH", "AH KH 7H JH", "6C 9D 6D")]
    state = game.position(hands, [], 0, FREE, known=[0, hands[1], 0, 0])
    assert heuristic_move(state, random.Random(0)) == Move.parse("lead 7D")  # cheapest


def test_heuristic_goes_out_and_avoids_the_draw() -> None:
    game = Game(Rules(num_players=4))
    # A holds two cards and faces 8D: beat and lead the last card (out on a lead).
    # Only A and B are left; B holds one card, KH (B's own suit: hearts).  Leading
    # 9C would let B answer with KH (B's trump beats clubs) for a draw; leading
    # AH cannot be answered.
    state = game.position(
        [parse_cards_mask("9D AH 9C"), parse_cards_mask("KH"), 0, 0],
        [parse_card("8D")],
        0,
        RESPOND,
        outs=[(2, "lead"), (3, "lead")],
        known=[0, parse_cards_mask("KH"), 0, 0],
    )
    move = heuristic_move(state, random.Random(0))
    assert move.beat == parse_card("9D") and move.lead == parse_card("AH")
    one = game.position(
        [parse_cards_mask("AS"), parse_cards_mask("KH 7C"), 0, 0],
        [parse_card("8D")],
        0,
        RESPOND,
        outs=[(2, "lead"), (3, "lead")],
    )
    assert heuristic_move(one, random.Random(0)) == Move.parse("beat AS")  # out on a defence


def test_heuristic_keeps_high_own_trumps() -> None:
    game = Game(Rules(num_players=4))  # A owns spades
    others = {"B": "8H 6H", "C": "6D 7D", "D": "6C 8C"}
    # Only trumps beat 10H: the low one is spent, the ace is neither spent nor led.
    state = pos(game, {"A": "AS 6S 9D 7C", **others}, "10H", "A", "respond")
    move = heuristic_move(state, random.Random(0))
    assert move.beat == parse_card("6S") and move.lead != parse_card("AS")
    # A plain card that beats is spent before any trump.
    state = pos(game, {"A": "AS 6S QH 9D 7C", **others}, "10H", "A", "respond")
    move = heuristic_move(state, random.Random(0))
    assert move.beat == parse_card("QH") and move.lead not in (parse_card("AS"), parse_card("6S"))


def test_heuristic_options_and_errors() -> None:
    agent = make_agent("heuristic:per_card=12,lead_weight=1", seed=1)
    assert isinstance(agent, HeuristicAgent) and agent.params.per_card == 12
    with pytest.raises(ValueError, match="unknown heuristic option"):
        make_agent("heuristic:bogus=1")
    with pytest.raises(ValueError, match="must be a number"):
        make_agent("heuristic:attack=high")
    with pytest.raises(ValueError, match="spectator"):
        GreedyAgent(0).choose(observe(Game().new_hand(0, 1), None))


def test_miss_chance_is_hypergeometric() -> None:
    assert miss_chance(10, 0, 3) == 1.0
    assert miss_chance(10, 8, 3) == 0.0
    assert miss_chance(4, 1, 2) == pytest.approx(0.5)
    assert miss_chance(10, 2, 3) == pytest.approx((8 * 7 * 6) / (10 * 9 * 8))


def test_random_agent_is_uniform_over_legal_moves() -> None:
    state = Game().new_hand(0, 3)
    agent = RandomAgent(1)
    seen = {agent.choose(observe(state, state.to_act)) for _ in range(300)}
    assert seen == set(state.legal_moves())


def parse_cards_mask(text: str) -> int:
    m = 0
    for t in text.split():
        m |= 1 << parse_card(t)
    return m
