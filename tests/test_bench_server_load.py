"""The load benchmark's scrape of ``/metrics`` (bench/server_load.py, issue 26):
Prometheus's quantile rule, and a short run where the server's own metrics and the
benchmark's figures agree (the same actions, the same moves, latencies whose
cumulative fractions match at the histogram's bucket bounds)."""

from __future__ import annotations

import asyncio
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import server_load  # bench/server_load.py

pytestmark = pytest.mark.timeout(180)


def test_histogram_quantile_interpolates_like_prometheus() -> None:
    buckets = {0.001: 0.0, 0.01: 50.0, 0.1: 90.0, 1.0: 100.0, math.inf: 100.0}
    assert server_load.histogram_quantile(0.5, buckets) == pytest.approx(0.01)
    assert server_load.histogram_quantile(0.25, buckets) == pytest.approx(0.0055)
    assert server_load.histogram_quantile(0.95, buckets) == pytest.approx(0.55)
    assert math.isnan(server_load.histogram_quantile(0.5, {1.0: 0.0, math.inf: 0.0}))
    over = {0.1: 0.0, math.inf: 10.0}  # everything above the last bound: that bound
    assert server_load.histogram_quantile(0.99, over) == pytest.approx(0.1)


def test_a_short_run_reads_the_same_from_metrics() -> None:
    argv = "--tables 12 --seats 2 --bots 1 --think 0.2 --duration 5 --warmup 2"
    args = server_load.build_parser().parse_args(argv.split())
    out = asyncio.run(server_load.run(args))
    assert out["errors"] == 0 and out["actions"] > 100, out
    agree = out["metrics_agree"]
    assert 0.9 <= agree["actions_ratio"] <= 1.1, out
    assert 0.85 <= agree["moves_ratio"] <= 1.15, out
    # the client's round trip holds the server's time, so it is never quicker, and
    # on loopback it is not much slower: the fractions agree from 10 ms up
    assert agree["largest_fraction_gap"] <= 0.1, out
    assert out["metrics"]["move_ms_p50"] <= out["rtt_ms_p50"] + 0.5, out
