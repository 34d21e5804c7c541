"""Engine benchmark: random play at the step and turn level, copies, whole hands,
and OpenSpiel's C++ ``crazy_eights`` driven from Python the same way.

Run:  make bench            (installs the optional ``open-spiel`` dependency)
  or: .venv/bin/python bench/engine.py [--seconds S] [--rounds R]

Method.  Every figure is the median of R timed rounds of S seconds; the rounds of
our engine and of OpenSpiel alternate, so machine load affects both alike.  A
"step" is one decision of a player: get the legal actions, pick one uniformly
with ``random.Random.choice``, apply it.  Dealing is timed but not counted as
steps, for both games: our deal happens when a hand is created, OpenSpiel's as
chance nodes (resolved with ``chance_outcomes()``), which are timed and not
counted.  The last line is ``ratio R``: our step-level figure over OpenSpiel's.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable

from svoi_kozyri import Game, Rules
from svoi_kozyri.core import game as engine_module


def _timed(
    seconds: float, body: Callable[[], int], clock: Callable[[], float] = time.perf_counter
) -> float:
    """Run ``body`` (returns units done) until ``seconds`` elapsed on ``clock``; units
    per second (bench/envs.py times with ``time.process_time`` too)."""
    done = 0
    start = clock()
    while True:
        done += body()
        elapsed = clock() - start
        if elapsed >= seconds:
            return done / elapsed


def step_level(game: Game, rng: random.Random) -> Callable[[], int]:
    """One random hand at the step level; returns the number of steps."""

    def hand() -> int:
        state = game.new_hand(rng.randrange(game.n), rng)
        legal = state.legal_actions
        apply = state.apply_action
        choice = rng.choice
        steps = 0
        while not state.is_over:
            apply(choice(legal()))
            steps += 1
        return steps

    return hand


def turn_level(game: Game, rng: random.Random) -> Callable[[], int]:
    """One random hand at the turn level (legal_moves + push); returns turns."""

    def hand() -> int:
        state = game.new_hand(rng.randrange(game.n), rng)
        legal = state.legal_moves
        push = state.push
        choice = rng.choice
        turns = 0
        while not state.is_over:
            push(choice(legal()))
            turns += 1
        return turns

    return hand


def whole_hands(game: Game, rng: random.Random) -> Callable[[], int]:
    """Complete random hands (step level); returns 1 per hand."""
    play = step_level(game, rng)

    def hand() -> int:
        play()
        return 1

    return hand


def copy_cost_us(game: Game, rng: random.Random, n: int = 200_000) -> float:
    """Microseconds per State.copy() of a mid-hand state."""
    state = game.new_hand(0, rng)
    for _ in range(30):
        if state.is_over:
            break
        state.apply_action(rng.choice(state.legal_actions()))
    start = time.perf_counter()
    for _ in range(n):
        state.copy()
    return (time.perf_counter() - start) / n * 1e6


def openspiel_steps(rng: random.Random) -> Callable[[], int] | None:
    """One random crazy_eights game; returns decision steps (chance steps are timed)."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("crazy_eights")

    def play() -> int:
        state = game.new_initial_state()
        choice = rng.choice
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                steps += 1
        return steps

    return play


def main() -> None:
    """Measure and print the figures; the last line is ``ratio R``."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="length of one timed round")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per figure (median)")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    game = Game(Rules(num_players=args.players))
    build = "compiled (mypyc)" if engine_module.__file__.endswith((".so", ".pyd")) else "pure"
    print(f"svoi-kozyri engine: {build} build, {args.players} players, default rules")
    print(f"python {sys.version.split()[0]}, {args.rounds} rounds x {args.seconds:.1f} s, median")

    ours_step = step_level(game, rng)
    theirs = openspiel_steps(random.Random(args.seed))
    ours_rates: list[float] = []
    theirs_rates: list[float] = []
    for _ in range(args.rounds):
        ours_rates.append(_timed(args.seconds, ours_step))
        if theirs is not None:
            theirs_rates.append(_timed(args.seconds, theirs))
    ours = statistics.median(ours_rates)
    turn_rate = statistics.median(
        _timed(args.seconds, turn_level(game, rng)) for _ in range(args.rounds)
    )
    hands_rate = statistics.median(
        _timed(args.seconds, whole_hands(game, rng)) for _ in range(args.rounds)
    )
    copy_us = statistics.median(copy_cost_us(game, rng) for _ in range(args.rounds))
    print(f"step level (legal_actions + apply_action): {ours:,.0f} steps/s")
    print(f"turn level (legal_moves + push):           {turn_rate:,.0f} turns/s")
    print(f"complete random hands:                     {hands_rate:,.1f} hands/s")
    print(f"State.copy():                              {copy_us:.3f} us")
    if theirs is None:
        print("OpenSpiel is not installed: pip install open-spiel (or make bench)")
        sys.exit(2)
    ref = statistics.median(theirs_rates)
    print(f"OpenSpiel crazy_eights (C++), same loop:   {ref:,.0f} steps/s")
    print(f"ratio {ours / ref:.2f}")


if __name__ == "__main__":
    main()
