"""The exact solver of open positions: agreement with a plain exhaustive search,
sound bounds under a budget, proven wins are converted, and the CLI."""

from __future__ import annotations

import random

import pytest
from typer.testing import CliRunner

from svoi_kozyri.bots.search.solver import (
    Solver,
    exhaustive_value,
    is_open,
    open_state,
    value_text,
)
from svoi_kozyri.cli.main import app
from svoi_kozyri.core import Game, Rules, State, observe
from svoi_kozyri.core.cards import cards_of
from svoi_kozyri.notation.position import format_position

GAMES = [
    Game(Rules(num_players=2)),
    Game(Rules(num_players=4)),
    Game(Rules(num_players=3)),
    Game(Rules(variant="besicovitch")),
    Game(Rules(num_players=4, draw_rule="any_last_card")),
    Game(Rules(variant="besicovitch", taker_leads_after_pickup=True, besicovitch_draw_rule=True)),
    Game(Rules(num_players=4, after_pickup="free_lead")),
]


def random_open(rng: random.Random, game: Game, ncards: int) -> State:
    """A random open position: two players hold ``ncards`` minus the pile between them."""
    deck = cards_of(game.deck)
    rng.shuffle(deck)
    cs = deck[:ncards]
    a, b = rng.sample(range(game.n), 2)
    hands = [0] * game.n
    hands[a] |= 1 << cs[0]
    hands[b] |= 1 << cs[1]
    pile = []
    for c in cs[2:]:
        r = rng.random()
        if r < 0.35:
            hands[a] |= 1 << c
        elif r < 0.7:
            hands[b] |= 1 << c
        else:
            pile.append(c)
    mode = "respond" if pile and rng.random() < 0.7 else "free"
    outs = [(i, "lead") for i in range(game.n) if not hands[i]]
    return game.position(hands, pile, a, mode, outs)


def test_agrees_with_exhaustive_search_on_many_small_positions() -> None:
    rng = random.Random(1)
    seen = {-1: 0, 0: 0, 1: 0}
    for i in range(2500):
        s = random_open(rng, GAMES[i % len(GAMES)], rng.randint(3, 7))
        ref = exhaustive_value(s)
        res = Solver().solve(s, None)
        assert res.proven
        assert res.value == ref, (i, s)
        seen[ref] += 1
    assert min(seen.values()) > 100  # wins, draws and losses all occur


def test_shared_table_agrees_too() -> None:
    """One solver (one transposition table) over many positions of the same game."""
    rng = random.Random(2)
    solver = Solver()
    game = GAMES[0]
    for _ in range(500):
        s = random_open(rng, game, rng.randint(4, 7))
        assert solver.solve(s, None).value == exhaustive_value(s)


def test_bounds_under_a_depth_limit_are_sound() -> None:
    rng = random.Random(3)
    for i in range(200):
        s = random_open(rng, GAMES[i % len(GAMES)], rng.randint(4, 7))
        ref = exhaustive_value(s)
        for depth in (1, 2, 4):
            res = Solver().solve(s, None, max_depth=depth, step=depth)
            assert res.lo <= ref <= res.hi, (s, depth, res)


def test_proven_wins_are_never_lost() -> None:
    """Playing the solver's moves from a proven win against random replies always
    ends with the opponent as the loser (no loss, no draw by repetition)."""
    rng = random.Random(7)
    wins = 0
    for i in range(400):
        s = random_open(rng, GAMES[i % len(GAMES)], rng.randint(4, 8))
        solver = Solver()
        if solver.solve(s, 5.0).value != 1:
            continue
        wins += 1
        me = s.to_act_seat
        while not s.is_over:
            if s.to_act_seat == me:
                move = solver.solve(s, 5.0).move
                assert move is not None
            else:
                move = rng.choice(s.legal_moves())
            s.push(move)
        assert s.result is not None
        assert s.result.loser is not None and s.result.loser != me
    assert wins > 130


def test_move_values_and_principal_line() -> None:
    g = Game(Rules(num_players=4))
    # E12: B beats KH and goes out on a defence with only D left: D loses.
    s = g.position(
        {"A": "", "B": "KH", "C": "", "D": "AH"},
        "7C 9C 10H",
        "B",
        "respond",
        [("A", "lead"), ("C", "lead")],
    )
    vals = dict((str(m), v) for m, v in Solver().move_values(s))
    assert vals == {"pickup": -1, "beat KH": 1}
    res = Solver().principal_line(s)
    assert res.value == 1 and [str(m) for m in res.pv] == ["beat KH"]


def test_repetition_is_a_draw() -> None:
    """SPEC E19: neither player can force a win; the cycle is a draw."""
    g = Game(Rules(num_players=2))
    s = g.position({"A": "KS 7H", "B": "9H 6H QD 8C"}, "", "A", "free")
    assert exhaustive_value(s) == Solver().solve(s, None).value


def test_open_state_from_observation_only() -> None:
    g = Game(Rules(num_players=4))
    s = g.position(
        {"A": "KS 7H", "B": "", "C": "9H 6H QD", "D": ""},
        "8C 10D",
        "A",
        "respond",
        [("B", "lead"), ("D", "defence")],
    )
    full = open_state(observe(s, 0))
    assert full is not None and full.hands == s.hands
    assert open_state(observe(s, 1)) is None  # an out player cannot act
    s4 = g.new_hand(0, 1)
    assert open_state(observe(s4, s4.to_act_seat)) is None
    assert not is_open(s4)


def test_refuses_hidden_positions() -> None:
    s = Game(Rules(num_players=4)).new_hand(0, 3)
    with pytest.raises(ValueError, match="open position"):
        Solver().solve(s)
    with pytest.raises(ValueError, match="open position"):
        exhaustive_value(s)


def test_time_budget_returns_bounds() -> None:
    g = Game(Rules(num_players=2))
    s = g.new_hand(0, 5)  # 36 cards: far beyond a 0.2 s budget
    res = Solver().solve(s, 0.2)
    assert res.move is not None and res.move in s.legal_moves()
    assert res.lo <= res.hi
    assert res.seconds < 5


def test_value_text() -> None:
    assert value_text(1) == "win" and value_text(-1) == "loss" and value_text(0) == "draw"
    assert "unproven" in value_text(None, -1, 1)


def test_solve_cli() -> None:
    g = Game(Rules(num_players=4))
    s = g.position(
        {"A": "", "B": "KH", "C": "", "D": "AH"},
        "7C 9C 10H",
        "B",
        "respond",
        [("A", "lead"), ("C", "lead")],
    )
    r = CliRunner().invoke(app, ["solve", format_position(s), "--time", "2", "--moves"])
    assert r.exit_code == 0, r.output
    assert "value for B: win" in r.output and "beat KH" in r.output
    bad = CliRunner().invoke(app, ["solve", format_position(g.new_hand(0, 1))])
    assert bad.exit_code == 2 and "not an open position" in bad.output
    bad = CliRunner().invoke(app, ["solve", "nonsense"])
    assert bad.exit_code == 2
