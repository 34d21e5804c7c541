"""Search speed: ISMCTS simulations per second, PIMC rollouts per second, solver
nodes per second and the time to solve random two-player positions.

Why a separate script: these numbers feed docs/performance.md and must be
reproducible with one command; none of them is asserted in the tests (the CI
machine's speed varies).  ``--reference`` also runs the same benchmark on the
pure-Python build of the same sources (a copy without the compiled modules) in
the same run and prints the ratio, so the figure does not depend on the machine::

    .venv/bin/python bench/search.py --part ismcts --seconds 4 --reference
    .venv/bin/python bench/search.py --part solver --cards 12 16 20 24 28 --positions 10 --limit 30
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import svoi_kozyri
from alphabeta import AlphaBetaSolver
from svoi_kozyri.bots.search.common import Budget, policy
from svoi_kozyri.bots.search.ismcts import ISMCTS
from svoi_kozyri.bots.search.pimc import pimc_values
from svoi_kozyri.bots.search.solver import Solver
from svoi_kozyri.core import Game, Rules, State, observe
from svoi_kozyri.core.cards import cards_of


def bench_ismcts(seconds: float, rollout: str, endgame: int, turns: int = 0) -> None:
    """Iterations per second of SO-ISMCTS from the opening of several 4-player deals."""
    game = Game(Rules(num_players=4))
    total_i = 0
    total_t = 0.0
    for seed in range(4):
        s = game.new_hand(seed % 4, seed)
        obs = observe(s, s.to_act)
        search = ISMCTS(
            random.Random(seed),
            rollout_policy=policy(rollout),
            endgame_cards=endgame,
            rollout_turns=turns,
        )
        t0 = time.perf_counter()
        search.search(obs, Budget(ms=seconds * 1000 / 4))
        total_t += time.perf_counter() - t0
        total_i += search.iterations
    print(
        f"ismcts rollout={rollout} endgame_cards={endgame} rollout_turns={turns}: "
        f"{total_i / total_t:.0f} "
        f"simulations/s ({total_i} in {total_t:.1f} s, one core)"
    )


def bench_pimc(seconds: float) -> None:
    """Heuristic rollouts per second of PIMC from the opening of 4-player deals."""
    game = Game(Rules(num_players=4))
    n = 0
    t = 0.0
    for seed in range(4):
        s = game.new_hand(0, seed)
        obs = observe(s, s.to_act)
        t0 = time.perf_counter()
        vals = pimc_values(
            obs, Budget(ms=seconds * 1000 / 4), random.Random(seed), policy("heuristic")
        )
        t += time.perf_counter() - t0
        n += sum(k for _, _, k in vals)
    print(f"pimc: {n / t:.0f} rollouts/s ({n} in {t:.1f} s)")


def random_two_player(rng: random.Random, game: Game, cards: int) -> State:
    """A random two-player position with ``cards`` cards left (hands and pile): a
    pile of 0..8 cards (at most ``cards - 2``), the rest dealt alternately, the
    player to act at random (a pile means the player to act faces its top)."""
    deck = cards_of(game.deck)
    rng.shuffle(deck)
    cs = deck[:cards]
    k = rng.randint(0, min(8, cards - 2))
    pile = cs[:k]
    hands = [0, 0]
    for i, c in enumerate(cs[k:]):
        hands[i % 2] |= 1 << c
    mode = "respond" if pile else "free"
    return game.position(hands, pile, rng.randrange(2), mode, [])


def bench_solver(
    cards_list: list[int], positions: int, limit: float, baseline: bool, each: bool = False
) -> None:
    """Share of random two-player positions (default rules) proven within 1 s and
    within ``limit`` s of CPU time (one core), and the median CPU time (an
    unproven position counts as longer than ``limit``)."""
    game = Game(Rules(num_players=2))
    kinds: list[tuple[str, type[Solver] | type[AlphaBetaSolver]]] = [("solver", Solver)]
    if baseline:
        kinds.append(("alpha-beta baseline", AlphaBetaSolver))
    # numba's import and the compiled fixpoint's load from its cache (about 1 s,
    # once per process) are not a position's time: one position first, uncounted
    warm = random_two_player(random.Random(1), game, 12)
    Solver(quick_depth=0).solve(warm, limit)
    for name, kind in kinds:
        rng = random.Random(12345)
        for cards in cards_list:
            times = []
            nodes = 0
            spent = 0.0
            values = {-1: 0, 0: 0, 1: 0}
            for _ in range(positions):
                s = random_two_player(rng, game, cards)
                solver = kind()
                solver.clock = time.process_time
                t0 = time.process_time()
                res = solver.solve(s, limit)
                dt = time.process_time() - t0
                times.append(dt if res.proven else float("inf"))
                nodes += res.nodes
                spent += dt
                if res.value is not None:
                    values[res.value] += 1
                if each:
                    print(
                        f"  {cards} cards #{len(times)}: value {res.value}, {dt:.3f} s", flush=True
                    )
            med = statistics.median(times)
            med_txt = f"{med:.3f} s" if med != float("inf") else f"> {limit:g} s"
            in1 = sum(t <= 1.0 for t in times)
            in10 = sum(t <= 10.0 for t in times)
            inl = sum(t <= limit for t in times)
            mid = f"{in10}/{positions} within 10 s, " if limit > 10 else ""
            print(
                f"{name} {cards} cards: proven {in1}/{positions} within 1 s, {mid}"
                f"{inl}/{positions} within {limit:g} s; median {med_txt}; "
                f"wins/draws/losses {values[1]}/{values[0]}/{values[-1]}; "
                f"{nodes / max(spent, 1e-9):.0f} nodes/s (CPU seconds, one core)",
                flush=True,
            )


def _ismcts_figures(out: str) -> dict[str, float]:
    """``setting -> simulations/s`` from the ISMCTS lines of this script's output."""
    found = re.findall(r"^(ismcts [^:]*): (\d+) simulations/s", out, re.M)
    return {k: float(v) for k, v in found}


def reference(seconds: float) -> None:
    """Run the ISMCTS part compiled and on a pure-Python copy of the same sources,
    one after the other in this run, and print both with their ratio."""
    src = Path(svoi_kozyri.__file__).resolve().parent
    args = [sys.executable, __file__, "--part", "ismcts", "--seconds", str(seconds)]
    compiled = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(src, Path(tmp) / "svoi_kozyri", ignore=shutil.ignore_patterns("*.so"))
        env = dict(os.environ, PYTHONPATH=tmp)
        pure = subprocess.run(args, capture_output=True, text=True, check=True, env=env).stdout
    a, b = _ismcts_figures(compiled), _ismcts_figures(pure)
    print(f"{'setting':<62} {'compiled':>9} {'pure':>7} {'ratio':>6}")
    for key, v in a.items():
        w = b.get(key, float("nan"))
        print(f"{key:<62} {v:>9.0f} {w:>7.0f} {v / w:>6.2f}")


def main() -> None:
    """Parse the options and run the chosen parts."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["all", "ismcts", "pimc", "solver"], default="all")
    ap.add_argument("--seconds", type=float, default=8.0, help="time per sampling benchmark")
    ap.add_argument("--cards", type=int, nargs="+", default=[12, 16, 20])
    ap.add_argument("--positions", type=int, default=10, help="positions per card count")
    ap.add_argument("--limit", type=float, default=30.0, help="solver cap per position (CPU s)")
    ap.add_argument("--baseline", action="store_true", help="also run the old alpha-beta solver")
    ap.add_argument("--each", action="store_true", help="print every position's value and time")
    ap.add_argument(
        "--reference",
        action="store_true",
        help="also run the ISMCTS part on the pure-Python build and print the ratios",
    )
    a = ap.parse_args()
    if a.reference:
        reference(a.seconds)
        return
    if a.part in ("all", "ismcts"):
        bench_ismcts(a.seconds, "heuristic", 10)
        bench_ismcts(a.seconds, "heuristic", 0)
        for turns in (40, 30, 20, 12):
            bench_ismcts(a.seconds, "heuristic", 10, turns)
        bench_ismcts(a.seconds, "greedy", 0)
    if a.part in ("all", "pimc"):
        bench_pimc(a.seconds)
    if a.part in ("all", "solver"):
        bench_solver(a.cards, a.positions, a.limit, a.baseline, a.each)


if __name__ == "__main__":
    main()
