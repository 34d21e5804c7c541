"""The web hint's rating travels as data (kind, value, score, interval, samples),
so the client words it in the player's language and keeps proven apart from
estimated; the server never words it."""

from __future__ import annotations

from svoi_kozyri.bots.rating import Rating
from svoi_kozyri.server.table.master import hint_rating


def test_proven_values() -> None:
    for value, name in ((1, "win"), (0, "draw"), (-1, "loss")):
        r = hint_rating(Rating.exact(value))
        assert r.kind == "proven" and r.value == name
        assert r.at_least is None and r.at_best is None
        assert r.low == r.score == r.high == (value + 1) / 2


def test_an_estimate_carries_its_interval_and_samples() -> None:
    r = hint_rating(Rating.estimate(1.0, 50, "pimc"))
    assert r.kind == "estimated" and r.value is None
    assert r.samples == 50 and r.source == "pimc"
    # a perfect sample mean is not a certainty: the interval says how sure it is
    assert r.score == 1.0 and r.low < 0.95 and r.high == 1.0


def test_proven_bounds_of_an_unsettled_estimate() -> None:
    r = hint_rating(Rating.estimate(0.8, 100, "pimc", bound_lo=0))
    assert r.kind == "estimated" and r.at_least == "draw" and r.at_best is None
    assert r.low >= 0.5
    r = hint_rating(Rating.estimate(0.2, 100, "pimc", bound_hi=0))
    assert r.at_best == "draw" and r.at_least is None and r.high <= 0.5


def test_no_samples_is_unrated() -> None:
    r = hint_rating(Rating.estimate(float("nan"), 0, "pimc"))
    assert r.kind == "unrated" and r.samples == 0 and r.value is None


def test_the_message_has_no_words() -> None:
    dumped = hint_rating(Rating.estimate(0.62, 400, "pimc+solver")).model_dump()
    assert set(dumped) == {
        "kind",
        "value",
        "score",
        "low",
        "high",
        "samples",
        "source",
        "at_least",
        "at_best",
    }
