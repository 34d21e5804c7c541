"""Arena backends: the same seed gives the same hands locally and on a local Ray
(started once for this module with 2 CPUs), also with an external engine seat."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from svoi_kozyri.arena import run_arena, run_round_robin
from svoi_kozyri.arena.backends import LocalBackend, RayBackend, make_backend
from svoi_kozyri.cli.main import app
from svoi_kozyri.core import Rules

ROOT = Path(__file__).resolve().parent.parent
AWK_ENGINE = str(ROOT / "examples" / "engines" / "lowcard.sh")


def test_make_backend_names_and_errors() -> None:
    assert isinstance(make_backend("local", workers=3), LocalBackend)
    assert make_backend("local", workers=3).workers == 3
    assert isinstance(make_backend("RAY", address="auto"), RayBackend)
    with pytest.raises(ValueError, match="unknown backend"):
        make_backend("slurm")
    with pytest.raises(ValueError, match="only for --backend ray"):
        make_backend("local", address="auto")


def test_local_results_do_not_depend_on_workers() -> None:
    a = run_arena(["medium", "easy", "random"], hands=12, seed=2, workers=1)
    b = run_arena(["medium", "easy", "random"], hands=12, seed=2, workers=2)
    assert a.outcomes == b.outcomes and a.backend == "local"


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


def test_ray_backend_gives_the_local_results(local_ray: None) -> None:
    seats = ["medium", "easy", "random"]
    local = run_arena(seats, hands=24, seed=5, workers=2)
    seen: list[int] = []
    on_ray = run_arena(seats, hands=24, seed=5, workers=2, backend="ray", progress=seen.append)
    assert on_ray.backend == "ray" and on_ray.workers == 2
    assert on_ray.outcomes == local.outcomes
    assert sum(seen) == on_ray.hands  # the progress bar sees every hand
    for name in seats:
        assert on_ray.bots[name].to_dict() == local.bots[name].to_dict()
    rules = Rules(num_players=2)
    rr_local = run_round_robin(["easy", "random", "medium"], 6, rules=rules, seed=1, workers=2)
    rr_ray = run_round_robin(
        ["easy", "random", "medium"], 6, rules=rules, seed=1, workers=2, backend="ray"
    )
    assert rr_ray.outcomes == rr_local.outcomes
    assert {n: s.mu for n, s in rr_ray.bots.items()} == {n: s.mu for n, s in rr_local.bots.items()}


def test_ray_backend_with_an_engine_seat_and_the_cli(local_ray: None, tmp_path: Path) -> None:
    spec = f"engine:{AWK_ENGINE}"
    local = run_arena([spec, "medium"], hands=4, seed=9, workers=1)
    on_ray = run_arena([spec, "medium"], hands=4, seed=9, workers=2, backend="ray")
    assert on_ray.outcomes == local.outcomes
    out = tmp_path / "r.json"
    res = CliRunner().invoke(
        app,
        [
            "arena",
            "--seats",
            "easy,random",
            "--hands",
            "4",
            "--backend",
            "ray",
            "-q",
            "--json",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(out.read_text())["_meta"]["backend"] == "ray"
    res = CliRunner().invoke(app, ["arena", "--seats", "easy,random", "--backend", "slurm"])
    assert res.exit_code == 2 and "unknown backend" in res.output


def test_map_jobs_keeps_job_order_on_every_backend(local_ray: None) -> None:
    """(The job function must be importable by Ray's workers: a package function.)"""
    from svoi_kozyri.arena.backends import map_jobs
    from svoi_kozyri.arena.stats import wilson_interval

    jobs = [(k, 20) for k in range(12)]
    want = [wilson_interval(k, 20) for k in range(12)]
    seen: list[tuple[float, float]] = []
    assert map_jobs(wilson_interval, jobs, workers=1, progress=seen.append) == want
    assert sorted(seen) == sorted(want)
    assert map_jobs(wilson_interval, jobs, workers=2) == want
    assert map_jobs(wilson_interval, jobs, backend="ray") == want


def test_selfplay_on_ray_writes_the_local_data(local_ray: None, tmp_path: Path) -> None:
    """Self-play chunks run as Ray tasks (tables sent back and written by the
    driver) give exactly the files of the local backend, and the progress
    callback and the command see every hand.  (Bots with counted budgets: a
    timed budget, such as the exact solver's in open positions, is not
    reproducible on any backend.)"""
    import pyarrow.parquet as pq

    from svoi_kozyri.envs.selfplay import SelfPlayConfig, run_selfplay

    config = SelfPlayConfig(
        bots=("heuristic", "greedy", "random"),
        rules={"num_players": 3},
        hands=6,
        seed=3,
        chunk_size=2,
    )
    local = run_selfplay(config, tmp_path / "local", workers=1)
    seen: list[int] = []
    on_ray = run_selfplay(config, tmp_path / "ray", progress=seen.append, backend="ray")
    assert sum(seen) == 6 and len(seen) == 3
    files = sorted(p.name for p in local.glob("*.parquet"))
    assert len(files) == 6 and files == sorted(p.name for p in on_ray.glob("*.parquet"))
    for name in files:
        a, b = pq.read_table(local / name), pq.read_table(on_ray / name)
        if "value" in a.column_names:  # NaN for these bots, and NaN != NaN
            a, b = a.drop_columns(["value"]), b.drop_columns(["value"])
        assert a.num_rows > 0 and a.equals(b), name
    out = tmp_path / "cli"
    args = ["selfplay", "--bots", "random,greedy", "--players", "2", "--hands", "3"]
    res = CliRunner().invoke(
        app, [*args, "--chunk-size", "1", "--out", str(out), "--backend", "ray", "-q"]
    )
    assert res.exit_code == 0, res.output
    assert len(list(out.glob("hands-*.parquet"))) == 3
    bad = CliRunner().invoke(
        app, ["selfplay", "--bots", "random", "--out", str(out), "--backend", "slurm", "-q"]
    )
    assert bad.exit_code == 2 and "unknown backend" in bad.output
    assert len(list(out.glob("hands-*.parquet"))) == 3  # refused before touching the files
