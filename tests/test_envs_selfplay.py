"""Self-play data: determinism, the Parquet schema, the loader and the command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from svoi_kozyri import Game, Rules
from svoi_kozyri.cli.main import app
from svoi_kozyri.envs.encoding import OBS_SIZE, encode_state
from svoi_kozyri.envs.selfplay import (
    DECISIONS_SCHEMA,
    HANDS_SCHEMA,
    SelfPlayConfig,
    load,
    play_chunk,
    run_selfplay,
)

CONFIG = SelfPlayConfig(
    bots=("heuristic", "greedy"), rules={"num_players": 3}, hands=6, seed=4, chunk_size=3
)


def _same(a: pa.Table, b: pa.Table) -> bool:
    """Tables equal, NaN values included (NaN != NaN for Table.equals)."""
    if "value" in a.column_names:
        va, vb = a.column("value").to_numpy(), b.column("value").to_numpy()
        if not np.array_equal(va, vb, equal_nan=True):
            return False
        a, b = a.drop_columns(["value"]), b.drop_columns(["value"])
    return a.equals(b)


def test_chunks_are_pure_and_independent_of_chunking() -> None:
    a = play_chunk(CONFIG, CONFIG.seed, 1)
    b = play_chunk(CONFIG, CONFIG.seed, 1)
    assert _same(a.decisions, b.decisions) and _same(a.hands, b.hands)
    assert a.decisions.schema.equals(DECISIONS_SCHEMA)
    assert a.hands.schema.equals(HANDS_SCHEMA)
    # the same hands cut into other chunks give the same rows
    single = SelfPlayConfig(**{**CONFIG.to_json(), "bots": CONFIG.bots, "chunk_size": 6})
    whole = play_chunk(single, single.seed, 0)
    ids = whole.hands.column("game_id").to_pylist()
    assert ids == list(range(6))
    tail = whole.decisions.filter(np.isin(whole.decisions.column("game_id").to_numpy(), [3, 4, 5]))
    assert _same(tail, a.decisions)


def test_rows_replay_through_the_engine() -> None:
    tables = play_chunk(CONFIG, CONFIG.seed, 0)
    dec = tables.decisions.to_pydict()
    hands = tables.hands.to_pylist()
    rules = Rules(num_players=3)
    game = Game(rules)
    i = 0
    for h in hands:
        state = game.deal(h["dealer"], h["deck"])
        while not state.is_over:
            assert dec["game_id"][i] == h["game_id"]
            seat = dec["seat"][i]
            assert seat == state.to_act
            np.testing.assert_array_equal(
                np.array(dec["observation"][i], dtype=np.float32), encode_state(state, seat)
            )
            mask = dec["legal_mask"][i]
            assert {a for a in range(41) if mask[a]} == set(state.legal_actions())
            state.apply_action(dec["action"][i])
            i += 1
        assert (state.outcome.loser if state.outcome.loser is not None else -1) == h["loser"]
        assert state.outcome.termination == h["reason"]
        assert h["decisions"] == sum(1 for g in dec["game_id"] if g == h["game_id"])
    assert i == len(dec["game_id"])


def test_run_on_workers_equals_one_process_and_loads(tmp_path: Path) -> None:
    seen: list[int] = []
    one = run_selfplay(CONFIG, tmp_path / "one", workers=1, progress=seen.append)
    two = run_selfplay(CONFIG, tmp_path / "two", workers=2)
    assert sum(seen) == CONFIG.hands
    for name in ("decisions-00000", "decisions-00001", "hands-00000", "hands-00001"):
        assert _same(pq.read_table(one / f"{name}.parquet"), pq.read_table(two / f"{name}.parquet"))
    data = load(one)
    n = len(data["action"])
    assert data["observation"].shape == (n, OBS_SIZE)
    assert data["observation"].dtype == np.float32
    assert data["legal_mask"].shape == (n, 41)
    assert np.all(data["legal_mask"][np.arange(n), data["action"]] == 1)
    assert np.all(np.isnan(data["value"]))  # heuristic and greedy have no value estimate
    assert list(data["hand_game_id"]) == list(range(6))
    assert data["hand_returns"].shape == (6, 3)
    meta = json.loads((one / "meta.json").read_text())
    assert meta["observation_size"] == OBS_SIZE and meta["config"]["hands"] == 6


PIMC = "pimc:iterations=6,rollout_turns=8,solver_ms=5"
ISMCTS = "ismcts:iterations=12,rollout_turns=8,solver_ms=5"


def test_value_column_holds_the_search_bots_estimates() -> None:
    """Search bots store their expected reward (root value, or the exact solver's
    in open positions) for the move they chose; bots without one store NaN, and
    so does a search bot with a single legal move (it does not search)."""
    cfg = SelfPlayConfig(
        bots=(PIMC, ISMCTS, "greedy"),
        rules={"num_players": 3},
        hands=1,
        seed=7,
        chunk_size=1,
    )
    dec = play_chunk(cfg, cfg.seed, 0).decisions.to_pydict()
    by_bot: dict[str, list[float]] = {}
    for bot, value in zip(dec["bot"], dec["value"], strict=True):
        by_bot.setdefault(bot, []).append(value)
    assert all(np.isnan(v) for v in by_bot["greedy"])
    for bot in (PIMC, ISMCTS):
        vals = np.array(by_bot[bot])
        known = vals[~np.isnan(vals)]
        assert len(known) >= 0.5 * len(vals), (bot, vals)  # NaN only for forced moves
        assert np.all((known >= 0.0) & (known <= 1.0))
        assert len(set(known.tolist())) > 2  # estimates, not a constant


def test_bad_config_is_refused() -> None:
    with pytest.raises(ValueError, match="nosuchbot"):
        SelfPlayConfig(bots=("nosuchbot",))
    with pytest.raises(ValueError):
        SelfPlayConfig(bots=("random",), rules={"num_players": 7})


def test_command(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "data"
    res = runner.invoke(
        app,
        [
            "selfplay",
            "--bots",
            "random,greedy",
            "--hands",
            "4",
            "--players",
            "2",
            "--out",
            str(out),
            "--workers",
            "1",
            "--quiet",
            "--rule",
            "pickup_rule=whole_pile",
        ],
    )
    assert res.exit_code == 0, res.output
    data = load(out)
    assert len(data["hand_game_id"]) == 4
    bad = runner.invoke(app, ["selfplay", "--bots", "nosuchbot", "--out", str(out), "-q"])
    assert bad.exit_code == 2 and "nosuchbot" in bad.output


def test_command_prints_plain_progress_lines_off_a_terminal(tmp_path: Path) -> None:
    """With stderr not a terminal (CliRunner's is a buffer) the progress bar would
    show nothing: plain lines instead, one per tenth of the hands and a final one;
    none with --quiet."""
    runner = CliRunner()
    args = ["selfplay", "--bots", "random", "--hands", "20", "--players", "2"]
    args += ["--chunk-size", "2", "--workers", "1", "--out", str(tmp_path / "data")]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.stderr.splitlines() if ln.startswith("selfplay: ")]
    for k in range(2, 20, 2):
        assert any(ln.startswith(f"selfplay: {k}/20 hands ({5 * k} %), ") for ln in lines), lines
    assert lines[-1].startswith("selfplay: 20/20 hands done in ") and "hands/s" in lines[-1]
    assert "wrote 20 hands" in res.stdout and "selfplay: " not in res.stdout
    quiet = runner.invoke(app, [*args, "--quiet"])
    assert quiet.exit_code == 0 and quiet.stderr == ""


def test_plain_progress_writes_a_line_after_the_interval() -> None:
    """A run whose chunks take long still says something every ``interval``."""
    import time

    from svoi_kozyri.cli.selfplay_cmds import PlainProgress

    lines: list[str] = []
    progress = PlainProgress(1000, lines.append, interval=0.05)
    progress.start()
    progress.advance(3)  # not yet a tenth: no line
    assert lines == []
    time.sleep(0.3)
    progress.finish(ok=True)
    assert any(ln.startswith("selfplay: 3/1000 hands (0 %)") for ln in lines[:-1]), lines
    assert lines[-1].startswith("selfplay: 3/1000 hands done in ")
    failed: list[str] = []
    progress = PlainProgress(10, failed.append, interval=60)
    progress.start()
    progress.finish(ok=False)
    assert failed == []
