"""Pieces shared by the sampling search bots: rewards, rollouts, budgets.

Why a shared module: ISMCTS, PIMC and the hint analysis must score a finished
hand and play a hand out in exactly the same way, or their numbers would not be
comparable.
"""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable

from ...core import FREE, LEAD, PICKUP, RESPOND, Move, Observation, State
from ..basic import card_costs, cheapest, greedy_move
from ..heuristic import heuristic_move
from .solver import Solver

#: A rollout policy: the move for the player to act in a full state, using only
#: what that player may know (the heuristic and greedy bots promise this).
Policy = Callable[[State, random.Random], Move]

POLICIES: dict[str, Policy] = {"heuristic": heuristic_move, "greedy": greedy_move}

#: Rollouts longer than this many turns are stopped and scored by hand sizes.
ROLLOUT_TURNS = 300


def policy(name: str) -> Policy:
    """The rollout policy called ``name`` (``heuristic`` or ``greedy``)."""
    try:
        return POLICIES[name]
    except KeyError:
        raise ValueError(
            f"unknown rollout policy {name!r} (choose from {', '.join(POLICIES)})"
        ) from None


def rewards(state: State) -> list[float]:
    """Per-seat reward of a finished hand: 1 for not being the durak (for winning,
    in the Besicovitch game), 0 for the durak, ½ each in a draw.  The mean reward
    of a move is therefore its estimated chance of not being the durak, with a
    draw counted as half."""
    n = state.game.n
    r = state.outcome
    if r is None or r.loser is None:
        return [0.5] * n
    return [0.0 if i == r.loser else 1.0 for i in range(n)]


def size_rewards(state: State) -> list[float]:
    """Scores of an unfinished rollout: the biggest hand is treated as the durak."""
    sizes = [h.bit_count() for h in state.hands]
    most = max(sizes)
    if sizes.count(most) > 1:
        return [0.5 if s == most else 1.0 for s in sizes]
    return [0.0 if s == most else 1.0 for s in sizes]


#: Weights of :func:`evaluate` for the features of :func:`eval_features`, fitted by
#: ``bench/fit_evaluation.py`` on heuristic self-play (2, 3 and 4 players).
EVAL_WEIGHTS: tuple[float, ...] = (0.098, -0.105, -0.148, -0.073, 0.030, -0.143)


def eval_features(state: State) -> list[list[float]]:
    """Per seat: hand size, own trumps held, their summed rank (ace = 1), whether
    the seat acts now, the cards it must pick up now (it faces a top card it cannot
    beat), and its plain kings and aces.  Only counts, so one set of weights serves
    every rule variant."""
    g = state.game
    out: list[list[float]] = []
    to_act = state.to_act
    forced = 0
    if state.phase == RESPOND:
        top = state.pile[-1]
        if not g.beat_row(to_act)[top] & state.hands[to_act]:
            forced = min(g.pickup_row(to_act)[top], len(state.pile))
    for i, h in enumerate(state.hands):
        own = h & g.own_cards(i)
        rank_sum = 0
        high = 0
        m = h
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            r = c % 10
            if own >> c & 1:
                rank_sum += r
            elif r >= 8:
                high += 1
        me = i == to_act
        out.append(
            [
                float(h.bit_count()),
                float(own.bit_count()),
                rank_sum / 9.0,
                1.0 if me else 0.0,
                float(forced) if me else 0.0,
                float(high),
            ]
        )
    return out


def evaluate(state: State) -> list[float]:
    """Estimated per-seat rewards of an unfinished hand (a truncated rollout's
    leaf): a conditional logit over the players still holding cards,
    ``P(durak = i) ~ exp(EVAL_WEIGHTS . features_i)``, reward ``1 - P``."""
    feats = eval_features(state)
    w = EVAL_WEIGHTS
    scores: list[float] = []
    total = 0.0
    for i, h in enumerate(state.hands):
        if h:
            f = feats[i]
            z = 0.0
            for k in range(len(w)):
                z += w[k] * f[k]
            e = math.exp(min(z, 50.0))
            scores.append(e)
            total += e
        else:
            scores.append(0.0)
    if total <= 0.0:
        return [0.5] * len(scores)
    return [1.0 - sc / total for sc in scores]


def solved_rewards(state: State, value: int) -> list[float]:
    """Per-seat rewards of an open position whose value for the player to act is known."""
    n = state.game.n
    me = state.to_act
    if value == 0:
        return [0.5] * n
    other = next(i for i, h in enumerate(state.hands) if h and i != me)
    loser = me if value < 0 else other
    return [0.0 if i == loser else 1.0 for i in range(n)]


def rollout(
    state: State,
    rng: random.Random,
    pol: Policy,
    solver: Solver | None = None,
    endgame_cards: int = 0,
    max_turns: int = 0,
) -> list[float]:
    """Play ``state`` out with ``pol`` (mutating it) and return per-seat rewards.
    With ``max_turns`` the rollout stops after that many turns and the leaf is
    scored by :func:`evaluate` (a truncated rollout: cheaper, and less noisy late
    in a long hand).
    When at most two players hold cards and at most ``endgame_cards`` cards are in
    play (their hands and the pile),
    the exact solver finishes the hand instead (a tiny time budget; if it does not
    prove the value, the rollout simply continues)."""
    turns = 0
    if state.phase == LEAD:  # mid-turn after a tree beat: lead the cheapest card
        p = state.to_act
        state.apply_action(cheapest(state.hands[p], card_costs(state.game)[p], rng))
    hands = state.hands  # the state's own list: updated in place by every move
    while not state.is_over:
        if solver is not None and endgame_cards:
            active = 0
            cards = len(state.pile)  # the pile counts too: a pickup brings cards back
            for h in hands:
                if h:
                    active += 1
                    cards += h.bit_count()
            if active == 2 and cards <= endgame_cards:
                res = solver.solve(state, 0.02)
                if res.proven:
                    return solved_rewards(state, res.lo)
                solver = None
        if max_turns and turns >= max_turns:
            return evaluate(state)
        if turns >= ROLLOUT_TURNS:
            return size_rewards(state)
        state.push_unchecked(pol(state, rng))
        turns += 1
    return rewards(state)


def int_option(name: str, value: object, default: int, minimum: int) -> int:
    """A whole-number bot option (``None``: ``default``), refused with a message that
    names it.  Options arrive as ``object`` because the agents are compiled: a typed
    parameter would fail with mypyc's bare TypeError, naming no option."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"option {name} must be a whole number, not {value!r}")
    if value < minimum:
        raise ValueError(f"option {name} must be at least {minimum}, not {value}")
    return value


def float_option(name: str, value: object) -> float | None:
    """A positive number option (``None`` if not given), refused with a clear message."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"option {name} must be a number, not {value!r}")
    if not value > 0:
        raise ValueError(f"option {name} must be positive, not {value}")
    return float(value)


def str_option(name: str, value: object) -> str:
    """A text option, refused with a clear message if it is not text."""
    if not isinstance(value, str):
        raise ValueError(f"option {name} must be a name, not {value!r}")
    return value


#: Set from another thread to end every running search early with its best move so
#: far (the engine protocol's ``stop``); whoever sets it clears it before the next search.
SEARCH_STOP = threading.Event()


class Budget:
    """A search budget: a number of iterations, or milliseconds of wall time.
    Every budget also ends once :data:`SEARCH_STOP` is set."""

    def __init__(self, iterations: int | None = None, ms: float | None = None) -> None:
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {iterations}")
        if ms is not None and ms <= 0:
            raise ValueError(f"ms must be positive, not {ms}")
        self.iterations = iterations
        self.ms = ms
        self.start = time.perf_counter()
        self.deadline = float("inf") if ms is None else self.start + ms / 1000.0

    def restart(self) -> None:
        """Start counting the time from now."""
        self.start = time.perf_counter()
        self.deadline = float("inf") if self.ms is None else self.start + self.ms / 1000.0

    def done(self, i: int) -> bool:
        """True once ``i`` iterations are done or the time is up."""
        if self.iterations is not None and i >= self.iterations:
            return True
        if i > 0 and SEARCH_STOP.is_set():
            return True
        # the clock is read every time (tens of nanoseconds, against a rollout's
        # microseconds at least), so a budget overruns by one iteration at most
        return i > 0 and time.perf_counter() >= self.deadline


def move_of_steps(state: State, first: int, second: int | None) -> Move:
    """The turn-level move made of one or two step actions from ``state``."""
    if state.phase == FREE:
        return Move.get(None, first)
    if first == PICKUP:
        return Move.get(None, None)
    assert state.phase == RESPOND
    return Move.get(first, second)


def check_observation(obs: Observation) -> None:
    """Refuse an observation on which there is nothing to decide."""
    if obs.seat is None or not obs.my_turn:
        raise ValueError("the bot can only choose when it is its own turn")
    if not obs.legal_moves():
        raise ValueError("no legal moves in this observation")
