"""The arena: paired deals with seat rotation, statistics, outputs and the CLI."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from svoi_kozyri.arena import (
    round_robin_lineups,
    run_arena,
    run_round_robin,
    split_bot_list,
    wilson_interval,
)
from svoi_kozyri.arena.tournament import deal_rng
from svoi_kozyri.cli.main import app
from svoi_kozyri.core import Game, Rules

runner = CliRunner()


def test_wilson_interval_known_values() -> None:
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(5, 10)
    assert (lo, hi) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_paired_deals_each_played_once_per_rotation() -> None:
    seats = ["heuristic", "greedy", "greedy", "random"]
    report = run_arena(seats, hands=24, workers=1, seed=3)
    assert report.deals == 6 and report.hands == 24
    by_deal: dict[int, list[object]] = {}
    for o in report.outcomes:
        by_deal.setdefault(o.deal, []).append(o)
    assert sorted(by_deal) == list(range(6))
    for deal, hands in by_deal.items():
        assert sorted(o.rotation for o in hands) == [0, 1, 2, 3]  # type: ignore[attr-defined]
        assert len({o.dealer for o in hands}) == 1  # type: ignore[attr-defined]
        for o in hands:
            rot = o.rotation  # type: ignore[attr-defined]
            assert o.bots == tuple(seats[(s - rot) % 4] for s in range(4))  # type: ignore[attr-defined]
        # the heuristic bot sat in every seat of this deal exactly once
        assert sorted(o.bots.index("heuristic") for o in hands) == [0, 1, 2, 3]  # type: ignore[attr-defined]
        rng = deal_rng(3, deal)
        assert hands[0].dealer == rng.randrange(4)  # type: ignore[attr-defined]


def test_same_deal_gives_same_hand_when_the_same_bots_sit_in_the_same_seats() -> None:
    # With identical deterministic bots in every seat, all rotations of a deal are the
    # same game: the deal (deck, dealer) is shared.
    report = run_arena(["heuristic:noise=0"] * 3, hands=9, workers=1, seed=8)
    for deal in range(3):
        hands = [o for o in report.outcomes if o.deal == deal]
        assert len({(o.loser, o.outs, o.turns) for o in hands}) == 1


def test_results_do_not_depend_on_worker_count() -> None:
    seats = ["heuristic", "greedy", "greedy"]
    one = run_arena(seats, hands=30, workers=1, seed=11)
    two = run_arena(seats, hands=30, workers=2, seed=11)
    assert one.outcomes == two.outcomes
    assert {k: v.to_dict() for k, v in one.bots.items()} == {
        k: v.to_dict() for k, v in two.bots.items()
    }
    other = run_arena(seats, hands=30, workers=1, seed=12)
    assert other.outcomes != one.outcomes


def test_bot_figures_are_consistent() -> None:
    report = run_arena(["heuristic", "greedy", "greedy", "greedy"], hands=40, workers=1)
    h, g = report.bots["heuristic"], report.bots["greedy"]
    assert (h.hands, g.hands) == (40, 120)
    losses = Counter(o.bots[o.loser] for o in report.outcomes if o.loser is not None)
    assert (h.durak, g.durak) == (losses["heuristic"], losses["greedy"])
    assert h.durak + g.durak == report.hands - report.draws
    assert h.first_out + g.first_out == sum(1 for o in report.outcomes if o.outs)
    assert sum(h.seat_hands) == 40 and h.seat_hands == [10, 10, 10, 10]
    lo, hi = h.durak_ci95
    assert lo <= h.durak_rate <= hi
    assert report.adjudicated == []
    d = report.to_dict()
    for key in (
        "durak_rate",
        "durak_ci95",
        "first_out_rate",
        "draws",
        "mean_hand_length",
        "adjudicated",
        "per_seat",
    ):
        assert key in d["heuristic"]
    assert d["_meta"]["hands"] == 40


def test_progress_callback_counts_every_hand() -> None:
    done: list[int] = []
    run_arena(["greedy", "heuristic"], hands=10, workers=2, progress=done.append)
    assert sum(done) == 10


def test_round_robin_lineups() -> None:
    assert round_robin_lineups(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    tables = round_robin_lineups(["a", "b"], 3)
    assert tables == [("a", "a", "b"), ("a", "b", "b")]
    with pytest.raises(ValueError):
        round_robin_lineups(["a", "a"], 2)


def test_round_robin_rates_every_bot() -> None:
    report = run_round_robin(["heuristic", "greedy", "random"], 12, players=2, workers=1, seed=2)
    assert report.round_robin and len(report.lineups) == 3
    assert report.hands == 3 * 12
    for st in report.bots.values():
        assert st.mu is not None and st.sigma is not None and st.ordinal is not None
    assert report.bots["random"].mu < report.bots["heuristic"].mu  # type: ignore[operator]
    assert report.bots["random"].mu < report.bots["greedy"].mu  # type: ignore[operator]


def test_rules_are_passed_to_the_hands() -> None:
    rules = Rules(variant="besicovitch")
    report = run_arena(["heuristic", "greedy"], hands=8, rules=rules, workers=1)
    assert report.rules.is_besicovitch and report.hands == 8
    blind = Rules(num_players=4, suit_assignment="blind")
    report = run_arena(["greedy"] * 4, hands=8, rules=blind, workers=1)
    assert report.hands == 8


def test_bad_arguments_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        run_arena(["greedy", "nonsense"], hands=2, workers=1)
    with pytest.raises(ValueError, match="one bot per seat"):
        run_arena(["greedy", "greedy"], hands=2, rules=Rules(num_players=3), workers=1)
    with pytest.raises(ValueError):
        run_arena(["greedy", "greedy"], hands=0, workers=1)


def test_split_bot_list_keeps_options_with_their_bot() -> None:
    assert split_bot_list("ismcts:iterations=200,c=1.4,random") == [
        "ismcts:iterations=200,c=1.4",
        "random",
    ]
    assert split_bot_list("heuristic, random") == ["heuristic", "random"]
    with pytest.raises(ValueError):
        split_bot_list("greedy,,random")


def test_deal_rng_is_independent_of_process_state() -> None:
    game = Game(Rules())
    assert game.shuffled_deck(deal_rng(1, 5)) == game.shuffled_deck(deal_rng(1, 5))
    assert game.shuffled_deck(deal_rng(1, 5)) != game.shuffled_deck(deal_rng(1, 6))


# --------------------------------------------------------------------------- CLI


def test_cli_arena_writes_json_csv_and_plots(tmp_path: Path) -> None:
    js, cs, plots = tmp_path / "r.json", tmp_path / "r.csv", tmp_path / "plots"
    result = runner.invoke(
        app,
        [
            "arena",
            "--seats",
            "heuristic,greedy,greedy",
            "--hands",
            "12",
            "--workers",
            "1",
            "--seed",
            "4",
            "--json",
            str(js),
            "--csv",
            str(cs),
            "--plot",
            str(plots),
            "--quiet",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "durak" in result.output
    data = json.loads(js.read_text())
    assert set(data) == {"heuristic", "greedy", "_meta"}
    assert 0.0 <= data["heuristic"]["durak_rate"] <= 1.0
    assert data["heuristic"]["hands"] == 12 and data["greedy"]["hands"] == 24
    assert data["_meta"]["hands"] == 12 and data["_meta"]["players"] == 3
    rows = list(csv.DictReader(cs.open()))
    assert [r["bot"] for r in rows] == ["heuristic", "greedy"]
    assert float(rows[0]["durak_rate"]) == pytest.approx(data["heuristic"]["durak_rate"])
    for name in ("durak_rate.png", "first_out_rate.png", "hand_length.png"):
        png = plots / name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_round_robin_with_rules(tmp_path: Path) -> None:
    js = tmp_path / "rr.json"
    result = runner.invoke(
        app,
        [
            "arena",
            "--round-robin",
            "heuristic,greedy",
            "--players",
            "3",
            "--hands",
            "6",
            "--workers",
            "1",
            "--pickup-rule",
            "fixed",
            "--rule",
            "fixed_pickup_count=2",
            "--draw-rule",
            "none",
            "--json",
            str(js),
            "--plot",
            str(tmp_path / "p"),
            "-q",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(js.read_text())
    assert data["_meta"]["rules"]["pickup_rule"] == "fixed"
    assert data["_meta"]["rules"]["fixed_pickup_count"] == 2
    assert data["_meta"]["round_robin"] is True
    assert "ordinal" in data["heuristic"] and "mu" in data["greedy"]
    assert (tmp_path / "p" / "ratings.png").exists()


def test_cli_besicovitch() -> None:
    result = runner.invoke(
        app,
        [
            "arena",
            "--seats",
            "heuristic,greedy",
            "--besicovitch",
            "--hands",
            "4",
            "-q",
            "--workers",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["--seats", "greedy,bogus"], "unknown bot"),
        (["--seats", "greedy,greedy", "--players", "3"], "one bot per seat"),
        (["--seats", "greedy,greedy", "--rule", "nonsense=1"], "unknown rules option"),
        (["--seats", "greedy,greedy", "--rule", "novalue"], "key=value"),
        (["--seats", "greedy,greedy", "--pickup-rule", "most"], "pickup_rule"),
        ([], "either --seats or --round-robin"),
    ],
)
def test_cli_bad_input_is_a_clear_error(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["arena", *args, "--hands", "2", "--workers", "1", "-q"])
    assert result.exit_code == 2
    assert message in result.output


def test_strength_ordering_of_the_baselines() -> None:
    """Regression check of the measured ordering (docs/bots.md), on small seeded runs."""
    r = run_arena(["random", "heuristic", "heuristic", "heuristic"], hands=200, workers=2, seed=21)
    assert r.bots["random"].durak_rate >= 0.7
    r = run_arena(["random", "greedy", "greedy", "greedy"], hands=200, workers=2, seed=21)
    assert r.bots["random"].durak_rate >= 0.7
    r = run_arena(["heuristic", "random", "random", "random"], hands=40, workers=2, seed=21)
    assert r.bots["heuristic"].durak_rate <= 0.05
    r = run_arena(["heuristic", "greedy"], hands=400, workers=2, seed=21)
    assert r.bots["heuristic"].durak_rate < r.bots["greedy"].durak_rate
    assert all(not o.adjudicated for o in r.outcomes)


def test_a_failing_bot_is_reported_with_its_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    from svoi_kozyri.arena import ArenaError, tournament
    from svoi_kozyri.bots.base import RandomAgent
    from svoi_kozyri.core import Move, Observation

    class Broken(RandomAgent):
        def choose(self, obs: Observation) -> Move:
            raise RuntimeError("boom")

    real = tournament.make_agent
    monkeypatch.setattr(
        tournament,
        "make_agent",
        lambda spec, seed=None: Broken(seed) if spec == "random" else real(spec, seed),
    )
    with pytest.raises(ArenaError, match=r"deal 0, rotation 0 .*boom"):
        run_arena(["random", "greedy"], hands=2, workers=1)


def test_bad_bot_options_are_a_value_error() -> None:
    with pytest.raises(ValueError, match="bad options"):
        run_arena(["greedy:depth=3", "random"], hands=2, workers=1)


def test_adjudicated_hands_are_listed_with_the_bots_still_playing() -> None:
    rules = Rules(num_players=3, max_actions_per_hand=40)  # a low cap forces adjudication
    report = run_arena(["random", "random", "greedy"], hands=12, rules=rules, workers=1)
    adj = report.adjudicated
    assert adj and all(o.reason == "action_cap" for o in adj)
    meta = report.to_dict()["_meta"]
    assert meta["adjudicated"] == len(adj) == len(meta["adjudicated_hands"])
    first = meta["adjudicated_hands"][0]
    assert first["reason"] == "action_cap" and first["turns"] == 40
    assert len(first["still_playing"]) >= 2
    assert report.bots["random"].adjudicated + report.bots["greedy"].adjudicated == 3 * len(adj)
