"""Endgame tables: values and optimal moves against the exhaustive reference under
every rules option that has tables, the versioned cache (never the user's own:
the cache directory is redirected into tmp_path), the solver's use of them and
the ``tables`` command."""

from __future__ import annotations

import random
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from svoi_kozyri.bots.search.endgame import (
    DEFAULT_CARDS,
    FORMAT_VERSION,
    EndgameTables,
    TablesUnavailable,
    supported,
    table_path,
)
from svoi_kozyri.bots.search.solver import Solver, exhaustive_value, value_text
from svoi_kozyri.cli.main import app
from svoi_kozyri.core import Game, Rules
from svoi_kozyri.core.cards import parse_cards
from svoi_kozyri.notation.position import format_position
from test_solver import OPTION_GAMES, _reference_moves, random_open

TABLE_GAMES = [Game(Rules(num_players=2))] + [g for g in OPTION_GAMES if supported(g) is None]


@pytest.fixture(autouse=True)
def _private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every table of these tests goes under tmp_path, never the user's cache."""
    monkeypatch.setenv("SVOI_KOZYRI_CACHE", str(tmp_path))
    return tmp_path


def _rules_id(g: Game) -> str:
    return str(g.rules.to_dict(only_changed=True))


@pytest.mark.parametrize("game", TABLE_GAMES, ids=_rules_id)
def test_table_values_and_optimal_moves_match_the_reference(game: Game) -> None:
    """Every probed position: the value and the set of optimal moves equal the
    exhaustive reference's, and the chosen move is optimal."""
    rng = random.Random(zlib.crc32(_rules_id(game).encode()))
    t = EndgameTables.build(game, 4)
    seen = {-1: 0, 0: 0, 1: 0}
    for i in range(60):
        s = random_open(rng, game, rng.randint(3, 4))
        hit = t.probe_move(s, None)
        assert hit is not None, s
        v, move, optimal = hit
        ref = _reference_moves(s)
        best = max(ref.values())
        assert v == best == exhaustive_value(s), (i, s)
        assert {str(m) for m in optimal} == {m for m, r in ref.items() if r == best}, (i, s)
        assert move in optimal
        seen[best] += 1
    assert seen[1] > 3 and seen[-1] + seen[0] > 3, seen


def test_wins_follow_the_shortest_distance() -> None:
    """Playing the table's moves for the winner against any defence ends the hand
    within the tabled distance, with the defender as the durak."""
    game = Game(Rules(num_players=2))
    t = EndgameTables.build(game, 5)
    rng = random.Random(5)
    wins = 0
    for _ in range(200):
        s = random_open(rng, game, 5)
        e = t.probe(s)
        assert e is not None
        if e[0] != 1:
            continue
        wins += 1
        me, steps = s.to_act, 0
        while not s.is_over:
            if s.to_act == me:
                hit = t.probe_move(s, None)
                assert hit is not None and hit[0] == 1
                move = hit[1]
            else:
                move = rng.choice(s.legal_moves())
            steps += len(move.steps())
            s.push(move)
        assert s.outcome is not None and s.outcome.loser not in (None, me)
        assert steps <= e[1]
    assert wins > 30


def test_cache_is_versioned_built_on_first_use_and_rebuilt_when_damaged(
    _private_cache: Path,
) -> None:
    game = Game(Rules(num_players=2, draw_rule="none"))
    path = table_path(game, 3)
    assert path.parent.parent == _private_cache
    assert path.name.startswith(f"v{FORMAT_VERSION}-") and "draw_rule=none" in path.name
    assert path.name.endswith("-k3.bin")
    assert not path.exists()
    t = EndgameTables.cached(game, 3)
    assert t is not None and path.exists()
    again = EndgameTables.load(game, path)
    assert again is not None and again.entries == t.entries
    path.write_bytes(path.read_bytes()[:-5])  # a truncated file
    assert EndgameTables.load(game, path) is None
    rebuilt = EndgameTables.cached(game, 3)
    assert rebuilt is not None and rebuilt.entries == t.entries
    assert EndgameTables.cached(game, 4, build=False) is None
    # another rules option set gets another file
    assert table_path(Game(Rules(num_players=2)), 3) != path


def test_rules_without_tables_are_refused() -> None:
    for g in (Game(Rules(num_players=4)), Game(Rules(num_players=2, equal_rank_beats="also"))):
        assert supported(g) is not None
        with pytest.raises(TablesUnavailable):
            EndgameTables.build(g, 3)
        assert EndgameTables.cached(g, 3) is None


def test_solver_answers_small_positions_from_the_tables() -> None:
    game = Game(Rules(num_players=2))
    t = EndgameTables.build(game, 5)
    plain = Solver()
    tabled = Solver(tables=t)
    rng = random.Random(9)
    for _ in range(100):
        s = random_open(rng, game, rng.randint(3, 5))
        a = plain.solve(s, None)
        b = tabled.solve(s, None)
        assert b.proven and b.value == a.value
        assert b.nodes == 0  # answered by the tables, no search
        assert dict(tabled.move_values(s, None)) == dict(plain.move_values(s, None))
    big = random_open(rng, game, 7)
    assert tabled.solve(big, None).value == plain.solve(big, None).value


def test_tables_are_not_trusted_one_occurrence_short_of_the_threefold_rule() -> None:
    """SPEC E19's cycle, the start position seen twice already: the history-free
    table says draw for the refusal's position too, but the search is used and
    knows the refusal now ends the hand at once."""
    g = Game(Rules(num_players=2))
    s = g.position([parse_cards("KS 7H"), parse_cards("9H 6H QD 8C")], [], 0, "free")
    cycle = ["lead 7H", "beat 9H lead 8C", "pickup", "lead 6H", "beat 9H lead 8C"]
    for m in [*cycle, "pickup", *cycle]:
        s.push_text(m)
    solver = Solver(tables=EndgameTables.build(g, 6))
    res = solver.solve(s, None)
    assert res.proven and solver.context.danger and res.nodes > 0
    assert {str(m): v for m, v in solver.move_values(s, None)}["pickup"] == 0


def test_tables_command(_private_cache: Path) -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["tables", "path", "--cards", "3"])
    assert r.exit_code == 0 and "not built" in r.output
    r = runner.invoke(app, ["tables", "build", "--cards", "3", "--rule", "draw_rule=none"])
    assert r.exit_code == 0, r.output
    assert "positions" in r.output and str(_private_cache) in r.output
    game = Game(Rules(num_players=2, draw_rule="none"))
    assert table_path(game, 3).exists()
    r = runner.invoke(app, ["tables", "path", "--cards", "3", "--rule", "draw_rule=none"])
    assert r.exit_code == 0 and "(built)" in r.output
    r = runner.invoke(app, ["tables", "build", "--rule", "equal_rank_beats=also"])
    assert r.exit_code == 2 and "equal-rank" in r.output
    r = runner.invoke(app, ["tables", "build", "--rule", "nonsense=1"])
    assert r.exit_code == 2 and "Traceback" not in r.output
    # solve builds the default tables on first use for a small position
    g2 = Game(Rules(num_players=2))
    s = g2.position([parse_cards("KS 7H"), parse_cards("9H 6H QD")], [], 0, "free")
    assert not table_path(g2, DEFAULT_CARDS).exists()
    r = runner.invoke(app, ["solve", format_position(s), "--moves"])
    assert r.exit_code == 0, r.output
    assert f"value for A: {value_text(exhaustive_value(s))}" in r.output
    assert table_path(g2, DEFAULT_CARDS).exists()
