"""The expert level in the two-player game plays the solver from the first move it
can (the two-player game is open from the deal): against ``hard`` it never does
worse than the exact value of the position, in both seats."""

from __future__ import annotations

import random

from svoi_kozyri.bots.catalogue import make_agent
from svoi_kozyri.bots.search.solver import exhaustive_value, terminal_value
from svoi_kozyri.core import Game, Rules, State, observe
from test_solver import random_open


def _play(s: State, agents: dict[int, object], cap: int = 200) -> State:
    for _ in range(cap):
        if s.is_over:
            break
        agent = agents[s.to_act]
        s.push(agent.choose(observe(s, s.to_act)))  # type: ignore[attr-defined]
    return s


def test_expert_never_does_worse_than_the_exact_value_against_hard() -> None:
    game = Game(Rules(num_players=2))
    rng = random.Random(4)
    wins = 0
    for i in range(6):
        start = random_open(rng, game, rng.randint(6, 7))
        v = exhaustive_value(start)
        me = start.to_act
        other = 1 - me
        for expert_seat in (me, other):
            expert = make_agent("expert:ms=60", seed=i)
            hard = make_agent("hard", seed=i)
            s = _play(start.copy(), {expert_seat: expert, 1 - expert_seat: hard})
            assert s.is_over
            got = terminal_value(s, expert_seat)
            exact = v if expert_seat == me else -v
            assert got >= exact, (i, start, expert_seat, got, exact)
            wins += got == 1
    assert wins >= 3
