"""CFR on the small OpenSpiel variants: how far NashConv falls in a time budget.

    .venv/bin/python bench/openspiel_cfr.py --ranks 2 --cap 4 --minutes 10

Loads ``python_svoi_kozyri`` with ``deal="split"`` (one chance node over the hand
splits), ``utility="zero_sum"`` (the durak -1, the others +1/(n-1), a draw 0) and the
small deck ``ranks=k`` (the ``k`` highest ranks of each suit), runs OpenSpiel's Python
CFR solver (``--solver cfr``, or ``cfrplus``, the default) and measures
``exploitability.nash_conv`` of the average policy after iterations 1, 2, 4, 8, ...
(``--first-report k``: k, 2k, 4k, ..., since a NashConv costs several iterations)
and once more at the end (progress lines go to stderr), until ``--minutes`` of wall
time (solver and NashConv together) are spent or NashConv falls below ``--target``
(the last report is timed by the previous NashConv, so a slower one overshoots).
Prints one JSON object: the variant, the tree's size, and per reported step the
iterations, the seconds since the start and NashConv.  One process, one core.

Why the Python solver and not ``pyspiel.CFRSolver``: the C++ solver accepts a Python
game, but it calls back into Python for every node as well and was no faster here,
and its policy has to be carried back to Python for the NashConv.

``--cap`` is the rules option ``max_actions_per_hand``: a hand that reaches that many
turns is drawn (worth 0 to everybody in the zero-sum utility).  It bounds the tree:
with two players and 8 cards (140 deals: 2 dealers x 70 splits) the whole tree has
51,095 nodes at cap 4, 156,855 at cap 5 and 326,919 at cap 6, and one deal alone
has 42,418 at cap 10.  Small caps make most hands draws (91 % of the leaves at cap 4,
79 % at cap 6), so the solved game is "do not be the durak within ``cap`` turns",
not the whole game.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import pyspiel
from open_spiel.python.algorithms import cfr, exploitability

import svoi_kozyri.envs.openspiel  # noqa: F401  (registers the game)


def variant(args: argparse.Namespace) -> dict[str, Any]:
    """The game's parameters for these arguments."""
    return {
        "num_players": args.players,
        "ranks": args.ranks,
        "max_actions_per_hand": args.cap,
        "repetition_limit": args.repetition_limit,
        "deal": "split",
        "utility": "zero_sum",
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Solve until the budget or the target; the measured curve as a dict."""
    params = variant(args)
    game = pyspiel.load_game("python_svoi_kozyri", params)
    start = time.perf_counter()
    solver_cls = cfr.CFRPlusSolver if args.solver == "cfrplus" else cfr.CFRSolver
    solver = solver_cls(game)
    built = time.perf_counter() - start
    budget = args.minutes * 60.0
    curve: list[dict[str, float]] = []
    it, report_at, iter_s, conv_s = 0, args.first_report, 0.0, 0.0
    while True:
        t0 = time.perf_counter()
        solver.evaluate_and_update_policy()
        iter_s = time.perf_counter() - t0
        it += 1
        # the last report comes early when one more iteration and a NashConv
        # (as long as the last one took) would not fit in the budget
        last = time.perf_counter() - start + 2 * iter_s + conv_s > budget
        if it == report_at or last:
            t0 = time.perf_counter()
            conv = float(exploitability.nash_conv(game, solver.average_policy()))
            conv_s = time.perf_counter() - t0
            seconds = round(time.perf_counter() - start, 2)
            curve.append({"iterations": it, "seconds": seconds, "nash_conv": conv})
            print(json.dumps(curve[-1]), file=sys.stderr, flush=True)
            report_at *= 2
            if conv < args.target or last:
                break
    return {
        "variant": params,
        "solver": args.solver,
        "first_report": args.first_report,
        "info_states": len(solver.average_policy().state_lookup),
        "build_seconds": round(built, 2),
        "seconds_per_iteration": round(iter_s, 2),
        "seconds_per_nash_conv": round(conv_s, 2),
        "target": args.target,
        "reached": curve[-1]["nash_conv"] < args.target,
        "curve": curve,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--ranks", type=int, default=2, help="ranks per suit (the highest k)")
    p.add_argument("--cap", type=int, default=4, help="max_actions_per_hand (draw at the cap)")
    p.add_argument("--repetition-limit", type=int, default=3, help="0 = none")
    p.add_argument("--solver", choices=("cfr", "cfrplus"), default="cfrplus")
    p.add_argument("--minutes", type=float, default=10.0, help="wall-time budget")
    p.add_argument("--target", type=float, default=0.01, help="stop below this NashConv")
    p.add_argument(
        "--first-report", type=int, default=1, help="the first NashConv's iteration (then x2)"
    )
    print(json.dumps(run(p.parse_args()), indent=1))


if __name__ == "__main__":
    main()
