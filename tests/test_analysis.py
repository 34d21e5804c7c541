"""Hints (rating every legal move from one player's view) and record analysis."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from svoi_kozyri.bots.analysis import (
    MoveRating,
    analyse_position,
    analyse_record,
    clearly_worse,
    rate_move,
)
from svoi_kozyri.bots.rating import Rating, format_rating
from svoi_kozyri.cli.main import app
from svoi_kozyri.core import Game, Move, Rules, State, observe
from svoi_kozyri.notation import position_from_text
from svoi_kozyri.records import GameRecord, write_record

OUTS = [("A", "lead"), ("C", "lead")]


def e12_start() -> State:
    g = Game(Rules(num_players=4))
    return position_from_text(
        g, {"A": "", "B": "KH", "C": "", "D": "AH"}, "7C 9C 10H", "B", "respond", OUTS
    )


def test_open_position_hints_are_proven() -> None:
    s = e12_start()
    ratings = analyse_position(observe(s, 1), budget_ms=2000)
    assert [(str(r.move), r.score, r.proven) for r in ratings] == [
        ("beat KH", 1.0, True),
        ("pickup", 0.0, True),
    ]
    assert "win" in ratings[0].describe()


def test_hidden_position_hints_rate_every_move() -> None:
    s = Game(Rules(num_players=4)).new_hand(0, 4)
    obs = observe(s, s.to_act)
    ratings = analyse_position(obs, iterations=300, seed=1)
    assert {r.move for r in ratings} == set(obs.legal_moves())
    assert all(0.0 <= r.score <= 1.0 and not r.proven and r.samples > 0 for r in ratings)
    assert ratings == sorted(ratings, key=lambda r: -r.score)


def test_hints_use_only_the_observation() -> None:
    """Swapping hidden cards between two opponents does not change the hints."""
    g = Game(Rules(num_players=4))
    dealt = g.new_hand(0, 6)
    s1 = g.position(dealt.hands, [], dealt.to_act, "free", [])
    seat = s1.to_act
    hands = list(s1.hands)
    x, y = [i for i in range(4) if i != seat][:2]
    rng = random.Random(0)
    cx = rng.choice([c for c in range(40) if hands[x] >> c & 1])
    cy = rng.choice([c for c in range(40) if hands[y] >> c & 1])
    hands[x] ^= (1 << cx) | (1 << cy)
    hands[y] ^= (1 << cx) | (1 << cy)
    s2 = g.position(hands, [], seat, "free", [])
    r1 = analyse_position(observe(s1, seat), iterations=120, seed=4)
    r2 = analyse_position(observe(s2, seat), iterations=120, seed=4)
    assert r1 == r2


def blunder_record() -> GameRecord:
    start = e12_start()
    s = start.copy()
    s.push_text("pickup")  # B refuses a won position: now D must answer
    while not s.is_over:
        s.push(s.legal_moves()[0])
    return GameRecord.from_state(s, start=start)


def test_record_analysis_flags_the_blunder() -> None:
    rec = blunder_record()
    reviews = analyse_record(rec, 1, budget_ms=1000)
    assert reviews and reviews[0].index == 0
    assert str(reviews[0].played.move) == "pickup" and str(reviews[0].best.move) == "beat KH"
    assert reviews[0].loss == 1.0
    assert "turn 1 (B)" in reviews[0].describe()


def test_only_clear_drops_are_flagged() -> None:
    m = Move.parse("pickup")
    assert clearly_worse(MoveRating(m, 1.0, True, 0), MoveRating(m, 0.5, True, 0), 0.1)
    assert not clearly_worse(MoveRating(m, 0.5, True, 0), MoveRating(m, 0.5, True, 0), 0.1)
    # a 15-point gap on 8 samples each is noise, on 2000 samples it is real
    assert not clearly_worse(MoveRating(m, 0.6, False, 8), MoveRating(m, 0.45, False, 8), 0.1)
    assert clearly_worse(MoveRating(m, 0.6, False, 2000), MoveRating(m, 0.45, False, 2000), 0.1)
    assert not clearly_worse(MoveRating(m, 0.6, False, 2000), MoveRating(m, 0.55, False, 2000), 0.1)
    # six rollouts each are no evidence, however large the gap looks (issue 21,
    # item 9: the terminal's analyse flagged such late turns like the web did)
    assert not clearly_worse(MoveRating(m, 0.95, False, 6), MoveRating(m, 0.05, False, 6), 0.1)
    assert clearly_worse(MoveRating(m, 0.95, False, 30), MoveRating(m, 0.05, False, 30), 0.1)


def test_analyse_cli(tmp_path: Path) -> None:
    path = tmp_path / "hand.txt"
    path.write_text(write_record(blunder_record()), encoding="utf-8")
    r = CliRunner().invoke(app, ["analyse", str(path), "--seat", "B", "--budget-ms", "500"])
    assert r.exit_code == 0, r.output
    assert "pickup" in r.output and "beat KH" in r.output
    bad = CliRunner().invoke(app, ["analyse", str(tmp_path / "missing.txt")])
    assert bad.exit_code == 2 and "missing.txt: no such file" in bad.output
    bad = CliRunner().invoke(app, ["analyse", str(path), "--seat", "Z"])
    assert bad.exit_code == 2


# --------------------------------------------------------------------------- ratings


def test_an_unproven_rating_never_prints_as_a_certainty() -> None:
    for mean in (1.0, 0.999, 0.0, 0.001):
        for n in (1, 10, 400, 100_000):
            text = format_rating(Rating.estimate(mean, n, "pimc"))
            assert text.startswith("estimated "), text
            point = text.split("(")[0]
            assert "100 %" not in point and " 0 %" not in point, text
            assert f"{n} samples" in text and "95 % interval" in text
    assert format_rating(Rating.estimate(1.0, 50, "pimc")).startswith("estimated >99 %")
    assert format_rating(Rating.exact(1)) == "proven win"
    assert format_rating(Rating.exact(0)) == "proven draw"
    assert format_rating(Rating.exact(-1)) == "proven loss"


def test_estimates_carry_an_interval_inside_the_proven_bounds() -> None:
    r = Rating.estimate(0.62, 400, "pimc")
    assert not r.proven and r.value is None
    assert r.low < 0.62 < r.high and r.high - r.low < 0.1
    wide = Rating.estimate(0.62, 20, "pimc")
    assert wide.high - wide.low > r.high - r.low
    # the solver proved at least a draw: the estimate cannot fall below one half
    b = Rating.estimate(0.2, 100, "pimc", bound_lo=0)
    assert b.score >= 0.5 and b.low >= 0.5
    assert format_rating(b).startswith("at least a draw (proven); estimated")
    assert format_rating(Rating.estimate(0.9, 100, "pimc", bound_hi=0)).startswith(
        "at best a draw (proven)"
    )
    assert Rating.estimate(0.5, 100, "pimc", 1, 1) == Rating.exact(1)
    with pytest.raises(ValueError):
        Rating.exact(2)


def test_hidden_position_ratings_say_they_are_estimates() -> None:
    s = Game(Rules(num_players=4)).new_hand(0, 3)
    obs = observe(s, s.to_act)
    for r in analyse_position(obs, iterations=200, seed=1):
        text = r.describe()
        assert "estimated" in text and "samples" in text and "proven" not in text
        assert r.as_rating().low <= r.score <= r.as_rating().high


def test_rate_move_proves_open_positions_and_estimates_hidden_ones() -> None:
    g = Game(Rules(num_players=4))
    s = position_from_text(
        g,
        {"A": "", "B": "KH", "C": "", "D": "AH"},
        "7C 9C 10H",
        "B",
        "respond",
        [("A", "lead"), ("C", "lead")],
    )
    obs = observe(s, 1)
    assert rate_move(obs, Move.parse("beat KH")) == Rating.exact(1)
    assert rate_move(obs, Move.parse("pickup")) == Rating.exact(-1)
    h = Game(Rules(num_players=4)).new_hand(0, 5)
    hobs = observe(h, h.to_act)
    r = rate_move(hobs, hobs.legal_moves()[0], budget_ms=50)
    assert not r.proven and r.samples >= 8
    with pytest.raises(ValueError):
        rate_move(obs, Move.parse("beat AH"))


def test_the_terminal_hint_carries_the_rating() -> None:
    import io

    from svoi_kozyri.tui.play import TableSetup, TerminalGame, make_seats
    from svoi_kozyri.tui.prompter import StreamPrompter
    from svoi_kozyri.tui.render import make_console

    setup = TableSetup(
        Rules(num_players=4), make_seats(["human", "random", "random", "random"]), seed=4
    )
    game = TerminalGame(setup, make_console(file=io.StringIO()), StreamPrompter(io.StringIO()))
    obs = observe(e12_start(), 1)  # open: B beats KH and goes out, D is the durak
    assert "Hint (" in game.hint(obs)
    line = game.hint_rating(obs)
    assert line.startswith("  Rating: proven ")
    hidden = Game(Rules(num_players=4)).new_hand(0, 2)
    hobs = observe(hidden, hidden.to_act)
    game.hint(hobs)
    assert "estimated" in game.hint_rating(hobs)


# -- the web analysis's evidence (issue 21, item 9) -------------------------------------


def test_few_samples_are_never_flagged_as_a_worsening() -> None:
    """Late turns got 4 to 7 samples (intervals like 18-100 %) and were flagged
    "the result got worse"; now an estimate needs MIN_SAMPLES rollouts on each side."""
    from svoi_kozyri.server.features.analysis_api import MIN_SAMPLES, got_worse

    best, played = Move.parse("lead 7C"), Move.parse("lead 8C")
    assert not got_worse(MoveRating(best, 1.0, False, 4), MoveRating(played, 0.43, False, 7))
    n = 2 * MIN_SAMPLES
    assert got_worse(MoveRating(best, 1.0, False, n), MoveRating(played, 0.43, False, n))
    # a proven loss against an estimate with too few samples: not flagged either
    assert not got_worse(MoveRating(best, 0.9, False, 5), MoveRating(played, 0.0, True, 0))
    assert got_worse(MoveRating(best, 1.0, True, 0), MoveRating(played, 0.0, True, 0))


def test_intervals_are_honest_with_few_samples() -> None:
    """Four wins in four rollouts are not "78-100 %" (Wilson's interval: 51-100 %)."""
    from svoi_kozyri.server.features.analysis_api import _interval

    ci = _interval(MoveRating(Move.parse("pickup"), 1.0, False, 4))
    assert ci is not None and ci[0] < 0.55 and ci[1] == 1.0
    for score, n in [(0.0, 3), (0.5, 10), (0.37, 200), (1.0, 1)]:
        ci = _interval(MoveRating(Move.parse("pickup"), score, False, n))
        assert ci is not None and ci[0] <= score <= ci[1]


def test_late_turns_get_enough_samples_and_keep_what_is_proven() -> None:
    """The late open turns of a four-player hand (two hands left, big pile): the
    solver proves some moves but not all within its share, and sometimes overruns
    it; the moves it proves keep their proven value and every other move still
    gets MIN_SAMPLES rollouts (the solver's overrun used to leave one).

    The sampling budget is the server's times four, so that a loaded machine
    still gives the sampling its room: what is tested is what the budget buys,
    not speed.  (How long it takes is a measurement, not a test: a wall-clock
    bound here failed CI once on a loaded machine, 15.5 s for 6 positions,
    because the solver can overrun its 10 ms share; that belongs in bench/.)"""
    from svoi_kozyri.bots.search.solver import open_state
    from svoi_kozyri.server.features import analysis_api
    from svoi_kozyri.server.features.analysis_api import MIN_SAMPLES, SOLVE_CARDS, rate_position
    from test_analysis_api import bot_hand

    steps, _final = bot_hand(4, 6)
    late = [
        (i, observe(s.before, s.seat))
        for i, s in enumerate(steps)
        if s.before.count_legal_moves() > 1
        and open_state(observe(s.before, s.seat)) is not None
        and sum(s.before.hand_sizes()) <= SOLVE_CARDS
    ]
    assert len(late) >= 3
    proven = 0
    for i, obs in late:
        ratings = rate_position(obs, 4 * analysis_api.DEFAULT_MS, seed=i)
        assert {r.move for r in ratings} == set(obs.legal_moves())
        assert all(r.proven or r.samples >= MIN_SAMPLES for r in ratings)
        proven += sum(r.proven for r in ratings)
    assert proven, "some moves are proven"
