"""Perfect play in the two-player game: from how many cards on does the exact
solver prove the position within the expert's move time?

Why: in the two-player game the whole deck is dealt, so each player knows the
other's hand and the exact solver can settle the hand; the ``expert`` level
plays the solver's move whenever the solver proves the position within its
share of the move's time (``bots/levels.py``, ``ExpertAgent``).  This script
measures where that starts: for positions of real play (two heuristic bots deal
and play a hand until at most ``cards`` cards are in the two hands) it solves
each with a fresh solver on one core and a time limit, and prints the fraction
proven and the median and slowest times.  Cards are counted in the hands: with
the default rules nothing is discarded in the two-player game, so all 36 cards
stay in play and the pile grows instead (a position's pile comes with it).  The
numbers feed docs/bots.md ("Perfect play in the two-player game")::

    .venv/bin/python bench/perfect2p.py --cards 12 16 20 24 --positions 20 --limit 1.0
"""

from __future__ import annotations

import argparse
import statistics
import time

from svoi_kozyri.bots.heuristic import HeuristicAgent
from svoi_kozyri.bots.search.solver import Solver, open_state
from svoi_kozyri.core import Game, Rules, State, observe


def in_hands(state: State) -> int:
    """Cards in the hands."""
    return sum(state.hand_sizes())


def position(game: Game, seed: int, cards: int) -> State | None:
    """The first position of a heuristic-vs-heuristic hand (deal ``seed``) with at
    most ``cards`` cards in the hands and a choice for the player to act, or ``None``
    when the hand ends before."""
    state = game.new_hand(seed % 2, seed)
    bot = HeuristicAgent(seed=seed)
    while not state.is_over:
        if in_hands(state) <= cards and state.count_legal_moves() > 1:
            return state
        seat = state.to_act
        state.push(bot.choose(observe(state, seat)), seat)
    return None


def bench(cards_list: list[int], positions: int, limit: float, seed: int) -> None:
    """Print, for each card count, how many positions the solver proves in ``limit`` s."""
    game = Game(Rules(num_players=2))
    for cards in cards_list:
        times: list[float] = []
        proven = tried = 0
        k = seed
        while tried < positions:
            k += 1
            state = position(game, k, cards)
            if state is None:
                continue
            obs = observe(state, state.to_act)
            assert obs.complete, "a two-player observation determines the deal"
            full = open_state(obs)
            assert full is not None
            tried += 1
            t0 = time.perf_counter()
            res = Solver().solve(full, limit)
            dt = time.perf_counter() - t0
            times.append(dt)
            proven += res.proven
        times.sort()
        print(
            f"{cards} cards in hand: proven {proven}/{tried} within {limit:g} s "
            f"({100.0 * proven / tried:.0f} %), median {statistics.median(times):.3f} s, "
            f"slowest {times[-1]:.3f} s",
            flush=True,
        )


def main() -> None:
    """Parse the arguments and run the benchmark."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cards", type=int, nargs="+", default=[12, 16, 20, 24])
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--limit", type=float, default=1.0, help="seconds per position")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    bench(a.cards, a.positions, a.limit, a.seed)


if __name__ == "__main__":
    main()
