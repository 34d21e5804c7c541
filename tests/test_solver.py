"""The exact solver of open positions: agreement with a plain exhaustive search,
sound bounds under a budget, proven wins are converted, and the CLI."""

from __future__ import annotations

import random
import sys
import time
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from svoi_kozyri.bots.search.solver import (
    QUICK_DEPTH,
    Solver,
    exhaustive_value,
    is_open,
    open_state,
    value_text,
)
from svoi_kozyri.cli.main import app
from svoi_kozyri.core import Game, Move, Rules, State, observe
from svoi_kozyri.core.cards import cards_of
from svoi_kozyri.notation import position_from_text
from svoi_kozyri.notation.position import format_position

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from alphabeta import AlphaBetaSolver  # the benchmark's baseline: an independent search

GAMES = [
    Game(Rules(num_players=2)),
    Game(Rules(num_players=4)),
    Game(Rules(num_players=3)),
    Game(Rules(variant="besicovitch")),
    Game(Rules(num_players=4, draw_rule="any_last_card")),
    Game(Rules(variant="besicovitch", taker_leads_after_pickup=True, besicovitch_draw_rule=True)),
    Game(Rules(num_players=4, after_pickup="free_lead")),
]

#: Every rules option that changes open play, each in a game of its own (the
#: two-player game with two suits each, unless the option belongs elsewhere).
OPTION_GAMES = [
    Game(Rules(num_players=2, own_suits_cross_beat=True)),
    Game(Rules(num_players=2, pickup_rule="fixed", fixed_pickup_count=2)),
    Game(Rules(num_players=2, pickup_rule="whole_pile")),
    Game(Rules(num_players=2, draw_rule="none")),
    Game(Rules(num_players=2, draw_rule="any_last_card")),
    Game(Rules(num_players=2, equal_rank_beats="also")),
    Game(Rules(num_players=2, equal_rank_beats="only")),
    Game(Rules(num_players=2, after_pickup="free_lead")),
    Game(Rules(num_players=2, trumps_per_player_2p=1)),
    Game(Rules(num_players=3, draw_rule="none", pickup_rule="fixed", fixed_pickup_count=4)),
    Game(Rules(num_players=4, defence_out_pile="discard", free_lead_after_defence_out=False)),
    Game(Rules(variant="besicovitch", deck_size=24)),
    Game(Rules(variant="besicovitch", deck_size=36, besicovitch_first_leader="non_dealer")),
    Game(Rules(variant="besicovitch", deck_size=40, taker_leads_after_pickup=True)),
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


def _reference_moves(s: State) -> dict[str, int]:
    """Each legal move's exact value for the mover, by the exhaustive reference."""
    out = {}
    me = s.to_act
    for m in s.legal_moves():
        c = s.copy()
        c.push_unchecked(m)
        if c.is_over:
            r = c.outcome
            assert r is not None
            out[str(m)] = 0 if r.loser is None else (-1 if r.loser == me else 1)
        else:
            v = exhaustive_value(c)
            out[str(m)] = v if c.to_act == me else -v
    return out


def _rules_id(g: Game) -> str:
    return str(g.rules.to_dict(only_changed=True))


@pytest.mark.parametrize("game", OPTION_GAMES, ids=_rules_id)
def test_values_and_optimal_moves_agree_under_every_option(game: Game) -> None:
    """Per rules option: the value and the *set* of optimal moves agree with the
    exhaustive reference, and the move the solver picks is one of them."""
    rng = random.Random(zlib.crc32(str(game.rules.to_dict()).encode()))
    seen = {-1: 0, 0: 0, 1: 0}
    solver = Solver()
    for i in range(80):
        s = random_open(rng, game, rng.randint(3, 7))
        ref = _reference_moves(s)
        best = max(ref.values())
        res = solver.solve(s, None)
        assert res.proven and res.value == best, (i, s, ref, res)
        assert res.move is not None and ref[str(res.move)] == best, (i, s, ref, res.move)
        got = {str(m): v for m, v in solver.move_values(s, None)}
        assert got == ref, (i, s)
        seen[best] += 1
    assert seen[1] > 5 and seen[-1] + seen[0] > 5, seen


def test_the_fixpoint_alone_agrees_under_every_option() -> None:
    """The fixpoint of the reachable graph with no depth-first phase before it
    (``quick_depth=0``): values, the set of optimal moves and the move picked
    agree with the exhaustive reference in every game and option set, with one
    solver (its tables kept) over many positions."""
    rng = random.Random(31)
    games = GAMES + OPTION_GAMES
    solver = Solver(quick_depth=0)
    seen = {-1: 0, 0: 0, 1: 0}
    for i in range(300):
        s = random_open(rng, games[i % len(games)], rng.randint(4, 7))
        ref = _reference_moves(s)
        best = max(ref.values())
        res = solver.solve(s, None)
        assert res.proven and res.value == best, (i, s, ref, res)
        assert res.move is not None and ref[str(res.move)] == best, (i, s, ref, res.move)
        got = {str(m): v for m, v in Solver(quick_depth=0).move_values(s, None)}
        assert got == ref, (i, s)
        seen[best] += 1
    assert min(seen.values()) > 20, seen


def test_compiled_fixpoint_agrees_with_the_python_one() -> None:
    """Both questions of many positions under every option, answered by the
    compiled fixpoint and by the Python one: the same answers, and a proven win's
    rank bounds a real win (the engine's exhaustive value agrees)."""
    rng = random.Random(33)
    games = GAMES + OPTION_GAMES
    for i in range(250):
        s = random_open(rng, games[i % len(games)], rng.randint(4, 9))
        fast, slow = Solver(), Solver(compiled_fixpoint=False)
        root = fast._root(s)
        assert slow._root(s) == root
        for att in (root[4], 1 - root[4]):
            assert fast.fixpoint.decide(root, att) == slow.fixpoint.decide(root, att), (i, s, att)


def test_compiled_fixpoint_grows_its_arrays_and_keeps_its_answers() -> None:
    """Arrays made tiny, so that every one of them grows many times (and a long
    list of waiting edges is woken over several calls): the same answers and
    steps as with the usual sizes, on positions of 10 to 12 cards."""
    from svoi_kozyri._native import fixpoint

    rng = random.Random(34)
    game = Game(Rules(num_players=2))
    for _ in range(6):
        s = random_open(rng, game, rng.randint(10, 12))
        solver = Solver()
        h0, h1, pile, plen, p, phase = solver._root(s)
        rules = solver.rules2p
        codes = [(pile >> (6 * (plen - 1 - k))) & 63 for k in range(plen)]
        got = []
        for capacity in (1 << 12, 1):
            for att in (0, 1):
                g = fixpoint.FixGraph(
                    rules.beat,
                    rules.req,
                    att,
                    rules.draw_mode,
                    rules.taker_leads,
                    rules.face_new_top,
                    capacity=capacity,
                )
                g.edges[3] = g.edges[3][:2]  # a stack of two entries to begin with
                g.start(h0, h1, codes, p, phase)
                r = g.step(1000)
                while r == fixpoint.SLICE:
                    r = g.step(1000)
                got.append((capacity, att, r, g.size, g.root_value(), g.root_steps()))
        half = len(got) // 2
        assert [x[2:] for x in got[:half]] == [x[2:] for x in got[half:]]


def test_fixpoint_refutations_hold_in_any_context() -> None:
    """Both questions answered by the fixpoint alone, on a fresh solver each:
    the win/no-win answers match the reference, never both a win."""
    rng = random.Random(32)
    games = GAMES + OPTION_GAMES
    for i in range(200):
        s = random_open(rng, games[i % len(games)], rng.randint(4, 7))
        ref = exhaustive_value(s)
        solver = Solver()
        root = solver._root(s)
        me = root[4]
        moves = s.legal_moves()
        fixpoint = solver.fixpoint
        wm = fixpoint.decide(root, me)
        picked = [fixpoint.root_move(root, moves, me)] if wm else []
        wo = fixpoint.decide(root, 1 - me)
        if not wo:
            picked.append(fixpoint.root_move(root, moves, 1 - me))
        assert wm in (0, 1) and wo in (0, 1) and not (wm and wo)
        value = 1 if wm else (-1 if wo else 0)
        assert value == ref, (i, s)
        fixpoint.steps = ()  # the moves read back from the tables alone
        if wm:
            picked.append(fixpoint.root_move(root, moves, me))
        if not wo:
            picked.append(fixpoint.root_move(root, moves, 1 - me))
        if picked:
            exact = _reference_moves(s)
            for m in picked:
                assert m is not None and exact[str(m)] >= min(value, 0), (i, s, m, exact)
                if m is picked[0] and wm:
                    assert exact[str(m)] == 1


def test_alphabeta_baseline_agrees_too() -> None:
    rng = random.Random(11)
    for i in range(300):
        s = random_open(rng, GAMES[i % len(GAMES)], rng.randint(3, 7))
        assert AlphaBetaSolver().solve(s, None).value == exhaustive_value(s), (i, s)


def test_larger_positions_agree_with_the_alphabeta_baseline() -> None:
    """Nine- and ten-card positions, beyond the exhaustive reference: the two
    independent searches agree where both finish within a second of CPU time (the
    baseline runs as plain Python from ``bench/``; CPU time keeps a busy machine
    from cutting either short)."""
    rng = random.Random(12)
    game = Game(Rules(num_players=2))
    both = 0
    for i in range(8):
        s = random_open(rng, game, rng.randint(9, 10))
        fast, slow = Solver(), AlphaBetaSolver()
        fast.clock = slow.clock = time.process_time
        a = fast.solve(s, 1.0)
        b = slow.solve(s, 1.0)
        if a.proven and b.proven:
            both += 1
            assert a.value == b.value, (i, s)
    assert both >= 3


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


@pytest.mark.parametrize("quick", [QUICK_DEPTH, 0])
def test_proven_wins_are_never_lost(quick: int) -> None:
    """Playing the solver's moves from a proven win against random replies always
    ends with the opponent as the loser (no loss, no draw by repetition); also
    with wins proven by the fixpoint alone (``quick_depth=0``)."""
    rng = random.Random(7)
    wins = 0
    for i in range(400):
        s = random_open(rng, GAMES[i % len(GAMES)], rng.randint(4, 8))
        solver = Solver(quick_depth=quick)
        if solver.solve(s, 5.0).value != 1:
            continue
        wins += 1
        me = s.to_act
        while not s.is_over:
            if s.to_act == me:
                move = solver.solve(s, 5.0).move
                assert move is not None
            else:
                move = rng.choice(s.legal_moves())
            s.push(move)
        assert s.outcome is not None
        assert s.outcome.loser is not None and s.outcome.loser != me
    assert wins > 130


def test_move_values_and_principal_line() -> None:
    g = Game(Rules(num_players=4))
    # E12: B beats KH and goes out on a defence with only D left: D loses.
    s = position_from_text(
        g,
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
    s = position_from_text(g, {"A": "KS 7H", "B": "9H 6H QD 8C"}, "", "A", "free")
    assert exhaustive_value(s) == Solver().solve(s, None).value


def test_open_state_from_observation_only() -> None:
    g = Game(Rules(num_players=4))
    s = position_from_text(
        g,
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
    assert open_state(observe(s4, s4.to_act)) is None
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
    s = position_from_text(
        g,
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


def _repetition_seeker(s: State, rng: random.Random) -> Move:
    """A defender that plays for the threefold draw: it goes out if it can, else
    it moves to the position this hand has seen most often."""
    scored = []
    for m in s.legal_moves():
        c = s.copy()
        c.push_unchecked(m)
        if c.is_over:
            r = c.outcome
            assert r is not None
            score = -1 if r.loser == s.to_act else 1000
        else:
            score = c.repetition_count()
        scored.append((score, rng.random(), m))
    return max(scored, key=lambda t: (t[0], t[1]))[2]


@pytest.mark.parametrize("quick", [QUICK_DEPTH, 0])
def test_proven_wins_are_converted_under_the_real_guards(quick: int) -> None:
    """Positions reached after random play, so the hand's history already holds
    repeated positions: a proven win played out by the solver against a
    defender that seeks the threefold repetition always ends with the defender
    as the durak (the engine's own repetition rule and action cap apply)."""
    rng = random.Random(21)
    wins = with_history = 0
    for i in range(1500):
        game = GAMES[i % len(GAMES)]
        s = random_open(rng, game, rng.randint(4, 7))
        for _ in range(rng.randint(4, 40)):
            if s.is_over:
                break
            s.push(rng.choice(s.legal_moves()))
        if s.is_over or not is_open(s):
            continue
        solver = Solver(quick_depth=quick)
        if solver.solve(s, 5.0).value != 1:
            continue
        wins += 1
        with_history += bool(solver.context.danger)
        me = s.to_act
        while not s.is_over:
            if s.to_act == me:
                move = solver.solve(s, 5.0).move
                assert move is not None
            else:
                move = _repetition_seeker(s, rng)
            s.push(move)
        assert s.outcome is not None
        assert s.outcome.loser is not None and s.outcome.loser != me, (i, s.outcome)
    assert wins > 40 and with_history >= 5, (wins, with_history)


def test_a_position_repeated_twice_already_counts_as_a_draw() -> None:
    """SPEC E19's cycle: once the start position has occurred twice, entering it
    again ends the hand, and the solver knows it."""
    g = Game(Rules(num_players=2))
    s = position_from_text(g, {"A": "KS 7H", "B": "9H 6H QD 8C"}, "", "A", "free")
    cycle = ["lead 7H", "beat 9H lead 8C", "pickup", "lead 6H", "beat 9H lead 8C"]
    for m in cycle:
        s.push_text(m)
    # B to act: refusing returns to the start for the second time
    s.push_text("pickup")
    assert s.repetition_count() == 2 and not s.is_over
    for m in cycle:
        s.push_text(m)
    solver = Solver()
    res = solver.solve(s, None)
    assert res.proven and solver.context.danger
    # B's refusal would make the start position occur a third time: a draw now
    vals = {str(m): v for m, v in solver.move_values(s, None)}
    assert vals["pickup"] == 0
