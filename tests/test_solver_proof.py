"""The solver's algorithms one by one, and the fold of their proofs.

Why: :meth:`Solver.solve` runs four algorithms (endgame tables, depth-first win
search, the fixpoint of the reachable graph, df-pn), each returning a
:class:`~svoi_kozyri.bots.search.proof.Proof` that it folds in order.  The whole
solver is checked against the exhaustive reference elsewhere; here each
algorithm alone must return proofs the reference agrees with (so none of them
leans on another to be right), and :func:`fold` must be sound in the order the
solver uses it.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from svoi_kozyri.bots.search.endgame import EndgameTables
from svoi_kozyri.bots.search.proof import NO_PROOF, Proof, fold
from svoi_kozyri.bots.search.solver import Solver, exhaustive_value
from svoi_kozyri.core import Game, Move, Rules, State
from test_solver import GAMES, OPTION_GAMES, _reference_moves, random_open

M1, M2, M3 = Move(None, 0), Move(None, 1), Move(None, 2)


def test_fold_keeps_the_first_answer_and_the_latest_move() -> None:
    """A settled question is never overwritten (a later proof only adds what was
    open); a later winning move (the bisection's shorter win), safe move or hope
    replaces the earlier one; ``failed`` only grows; ``deepened`` belongs to the
    proof that settled the win."""
    deep = Proof(win_me=True, move=M1, deepened=True, failed=3)
    shorter = Proof(win_me=True, move=M2, deepened=True)
    got = fold(deep, shorter)
    assert got == Proof(win_me=True, move=M2, deepened=True, failed=3)
    assert fold(got, Proof(failed=1)).failed == 3
    # the fixpoint's win carries no bisection, whatever a later proof says
    assert not fold(Proof(win_me=True, move=M1), shorter).deepened
    assert fold(Proof(win_opp=False, safe=M1), Proof(win_opp=False)).safe == M1
    assert fold(Proof(hope=M1), Proof(hope=M2)).hope == M2
    assert fold(Proof(win_me=False), Proof(win_me=True, move=M3)).win_me is False
    assert fold(Proof(win_me=False), Proof(win_me=True, move=M3)).move is None


#: hand-made proofs true of a position of each value (proofs of one position
#: never disagree: every answer is a fact about it)
TRUE_OF = {
    1: [
        NO_PROOF,
        Proof(win_me=True, move=M1, deepened=True),
        Proof(win_me=True, move=M2),
        Proof(win_opp=False, safe=M2),
        Proof(win_me=True, win_opp=False, move=M3),
        Proof(failed=4),
    ],
    0: [
        NO_PROOF,
        Proof(win_me=False),
        Proof(win_opp=False, safe=M1),
        Proof(win_opp=False, safe=M3),
        Proof(hope=M2),
        Proof(win_me=False, win_opp=False, safe=M2),
        Proof(failed=6),
    ],
    -1: [
        NO_PROOF,
        Proof(win_me=False),
        Proof(win_opp=True),
        Proof(hope=M3),
        Proof(hope=M1),
        Proof(win_me=False, win_opp=True, hope=M2),
        Proof(failed=2),
    ],
}


@pytest.mark.parametrize("value", [-1, 0, 1])
def test_fold_is_associative_with_no_proof_as_identity(value: int) -> None:
    """Over every sequence of three proofs of one position: the grouping never
    matters and the empty proof changes nothing, so folding question by question
    (and stopping anywhere on a timeout) is the same as folding at the end."""
    proofs = TRUE_OF[value]
    for a, b, c in itertools.product(proofs, repeat=3):
        assert fold(fold(a, b), c) == fold(a, fold(b, c)), (a, b, c)
    for a in proofs:
        assert fold(NO_PROOF, a) == a == fold(a, NO_PROOF)


@pytest.mark.parametrize("value", [-1, 0, 1])
def test_consistent_proofs_give_the_same_bounds_in_any_order(value: int) -> None:
    """Proofs that are all true of one position (of the given value) fold to the
    same bounds in every order, and the bounds contain the value; all of them
    together decide it."""
    facts = [p for p in TRUE_OF[value] if p != NO_PROOF]
    seen = set()
    for order in itertools.permutations(facts):
        acc = NO_PROOF
        for p in order:
            acc = fold(acc, p)
            lo, hi = acc.bounds()
            assert lo <= value <= hi, (order, acc)
        assert acc.decided and acc.bounds() == (value, value)
        seen.add(acc.bounds())
    assert len(seen) == 1


def test_a_winning_move_needs_a_win() -> None:
    with pytest.raises(ValueError):
        Proof(win_opp=True, move=M1)
    with pytest.raises(ValueError):
        Proof(win_me=None, deepened=True)


def _agrees(p: Proof, s: State, ref: int, exact: dict[str, int]) -> None:
    """Every answer of ``p`` is true of ``s`` (exhaustive value ``ref``, each
    move's value ``exact``), and its move achieves its lower bound."""
    assert p.win_me is None or p.win_me == (ref == 1), (s, p, ref)
    assert p.win_opp is None or p.win_opp == (ref == -1), (s, p, ref)
    lo, hi = p.bounds()
    assert lo <= ref <= hi, (s, p, ref)
    m = p.choice()
    if m is not None and lo > -1:
        assert exact[str(m)] >= lo, (s, p, exact)


def _small_positions(seed: int, count: int) -> list[State]:
    rng = random.Random(seed)
    games = GAMES + OPTION_GAMES
    return [random_open(rng, games[i % len(games)], rng.randint(4, 7)) for i in range(count)]


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_the_fixpoint_alone_decides_small_positions(compiled: bool) -> None:
    """The fixpoint of the reachable graph, asked both questions on a fresh
    solver, decides every small position as the reference does."""
    for s in _small_positions(41, 120):
        solver = Solver(compiled_fixpoint=compiled)
        root = solver._root(s)
        me, moves = root[4], s.legal_moves()
        acc = NO_PROOF
        for att in (me, 1 - me):
            acc = fold(acc, solver.fixpoint.prove(root, moves, me, att, 10_000))
        _agrees(acc, s, exhaustive_value(s), _reference_moves(s))
        assert acc.decided, s


def test_the_depth_first_search_alone_is_right_at_every_depth() -> None:
    """Deepening alone: what it settles at each depth is true, the horizon never
    passes for a refutation, and the deepest search decides small positions."""
    undecided = 0
    for s in _small_positions(42, 120):
        solver = Solver()
        root = solver._root(s)
        me, moves = root[4], s.legal_moves()
        ref, exact = exhaustive_value(s), _reference_moves(s)
        acc = NO_PROOF
        for depth in (2, 4, 8, 16, 32, 64):
            for att in (me, 1 - me):
                p = solver.search.prove(root, moves, me, att, depth)
                _agrees(p, s, ref, exact)
                acc = fold(acc, p)
            _agrees(acc, s, ref, exact)
        undecided += not acc.decided
    assert undecided == 0


def test_dfpn_alone_decides_small_positions() -> None:
    """df-pn alone, in slices until both questions are answered: the answers
    and moves agree with the reference, and nearly every position is decided
    (not all: a refutation that rests on repetitions can stay path-dependent,
    which is what the fixpoint before it in :meth:`Solver.solve` is for)."""
    undecided = 0
    for s in _small_positions(43, 120):
        solver = Solver()
        root = solver._root(s)
        me, moves = root[4], s.legal_moves()
        acc = NO_PROOF
        for _ in range(50):
            for att in (me, 1 - me):
                if (acc.win_me if att == me else acc.win_opp) is None:
                    acc = fold(acc, solver.dfpn.prove(root, moves, me, att, 2_000))
            if acc.decided:
                break
        _agrees(acc, s, exhaustive_value(s), _reference_moves(s))
        undecided += not acc.decided
    assert undecided <= 3, undecided


def test_the_table_probe_alone_decides_what_the_tables_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The endgame-table probe: a decided proof with an optimal move for every
    position the tables hold, nothing when the hand's history matters."""
    monkeypatch.setenv("SVOI_KOZYRI_CACHE", str(tmp_path))  # never the user's cache
    game = Game(Rules(num_players=2))
    solver = Solver(tables=EndgameTables.build(game, 4))
    rng = random.Random(44)
    for _ in range(60):
        s = random_open(rng, game, rng.randint(3, 4))
        p = solver.probe.prove(s, False)
        _agrees(p, s, exhaustive_value(s), _reference_moves(s))
        assert p.decided and p.choice() is not None, s
        assert solver.probe.prove(s, True) == NO_PROOF
