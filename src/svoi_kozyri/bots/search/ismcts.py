"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS).

Why ISMCTS: with 3 or 4 players the other hands are hidden, so a tree over one
dealt position would "see through" the cards.  SO-ISMCTS (Cowling, Powley and
Whitehouse 2012) builds one tree over the searching player's information sets:
every iteration samples a full deal consistent with the observation
(:func:`~svoi_kozyri.core.determinize`, so every card whose holder is public is
placed correctly), walks the tree choosing only among the actions legal in that
deal, and counts for each child how often it was *available* (the UCB
exploration term uses the availability count instead of the parent's visits).

* Every node maximises the reward of the player who moves there (paranoid
  coalitions are not assumed): rewards are per player, 1 for not being the
  durak, 0 for the durak, ½ each in a draw.
* The tree uses step-level actions, so a two-card turn is a beat node followed
  by a lead node of the same player, far narrower than the turn-level moves.
* Rollouts use the heuristic bot (``rollout=greedy`` for the greedy bot); once
  at most two players hold few cards the exact solver ends the rollout.
* At the root, as soon as the position is open (only two players hold cards,
  one of them us), the exact solver decides; if it cannot prove a result within
  its share of the budget the search continues as plain MCTS over the one world.
* The budget is ``iterations=`` or ``ms=``; everything is seeded.
"""

from __future__ import annotations

import math
import random
from typing import Any

from ...core import LEAD, PICKUP, Move, Observation, determinize
from ..base import Agent
from .common import (
    Budget,
    Policy,
    check_observation,
    float_option,
    int_option,
    move_of_steps,
    policy,
    rewards,
    rollout,
    str_option,
)
from .solver import Solver, expected_reward, open_state


class Node:
    """A tree node: statistics of the action leading here, for the player who chose it."""

    __slots__ = ("avail", "children", "total", "visits")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail = 0

    @property
    def mean(self) -> float:
        """Mean reward of the player who chose this action (0.5 before any visit)."""
        return self.total / self.visits if self.visits else 0.5


class ISMCTS:
    """The search itself, reusable by the agent and by the hint analysis."""

    def __init__(
        self,
        rng: random.Random,
        c: float = 0.7,
        rollout_policy: Policy | None = None,
        endgame_cards: int = 10,
        solver: Solver | None = None,
        rollout_turns: int = 0,
    ) -> None:
        self.rng = rng
        self.c = c
        self.policy = rollout_policy or policy("heuristic")
        self.endgame_cards = endgame_cards
        self.rollout_turns = rollout_turns
        self.solver = solver or Solver(max_table=200_000)
        self.iterations = 0

    def search(self, obs: Observation, budget: Budget) -> Node:
        """Run iterations from the viewer's observation; returns the root node."""
        root = Node()
        rng = self.rng
        c = self.c
        pol = self.policy
        i = 0
        while not budget.done(i):
            state = determinize(obs, rng)
            node = root
            path: list[tuple[Node, int]] = []
            while not state.is_over:
                acts = state.legal_actions()
                children = node.children
                untried = [a for a in acts if a not in children]
                for a in acts:
                    ch = children.get(a)
                    if ch is not None:
                        ch.avail += 1
                mover = state.to_act
                if untried:
                    a = untried[rng.randrange(len(untried))]
                    child = Node()
                    child.avail = 1
                    children[a] = child
                    state.apply_action(a)
                    path.append((child, mover))
                    break
                best = -1.0
                best_a = acts[0]
                for a in acts:
                    ch = children[a]
                    score = ch.total / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                    if score > best:
                        best, best_a = score, a
                node = children[best_a]
                state.apply_action(best_a)
                path.append((node, mover))
            if state.is_over:
                r = rewards(state)
            else:
                r = rollout(state, rng, pol, self.solver, self.endgame_cards, self.rollout_turns)
            for nd, mover in path:
                nd.visits += 1
                nd.total += r[mover]
            i += 1
        self.iterations = i
        return root

    @staticmethod
    def best_move(obs: Observation, root: Node) -> Move:
        """The most visited turn-level move of the root (a beat followed by its most
        visited lead)."""
        template = obs.to_state(_any_hands(obs))
        if not root.children:
            return obs.legal_moves()[0]
        first = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].mean))[0]
        second: int | None = None
        if first != PICKUP and template.phase != LEAD:
            s = template.copy()
            s.apply_action(first)
            if not s.is_over and s.phase == LEAD:
                kids = root.children[first].children
                legal = set(s.legal_actions())
                cands = [(n.visits, n.mean, a) for a, n in kids.items() if a in legal]
                if cands:
                    second = max(cands)[2]
                else:
                    second = s.legal_actions()[0]
        return move_of_steps(template, first, second)

    @staticmethod
    def move_value(root: Node, move: Move) -> float | None:
        """The mean reward of ``move`` for its player (the statistics of its last
        step's node), ``None`` if the search never tried it."""
        node: Node | None = root
        for step in move.steps():
            child = node.children.get(step) if node is not None else None
            if child is None or not child.visits:
                break
            node = child
        return None if node is root or node is None else node.mean

    @staticmethod
    def move_stats(obs: Observation, root: Node) -> list[tuple[Move, float, int]]:
        """Every legal turn-level move with its estimated reward and visit count
        (a beat-and-lead move uses the statistics of its lead node)."""
        out: list[tuple[Move, float, int]] = []
        for m in obs.legal_moves():
            steps = m.steps()
            nd = root.children.get(steps[0])
            if nd is not None and len(steps) == 2:
                nd = nd.children.get(steps[1])
            if nd is None or not nd.visits:
                out.append((m, float("nan"), 0))
            else:
                out.append((m, nd.mean, nd.visits))
        return out


def _any_hands(obs: Observation) -> list[int]:
    """Hands for a template state that only serves to replay the viewer's own
    steps (the other hands are filled arbitrarily but consistently)."""
    return determinize(obs, random.Random(0)).hands


class ISMCTSAgent(Agent):
    """SO-ISMCTS bot.  Options: ``iterations=N`` or ``ms=M`` (default 1000
    iterations), ``c`` (UCB exploration), ``rollout`` (``heuristic``/``greedy``),
    ``endgame_cards`` (solve rollouts exactly below this many cards, 0: never),
    ``solver_ms`` (time for the exact solver in open positions), ``rollout_turns``
    (stop rollouts after this many turns and score the leaf with the fitted
    evaluation, 0: play every rollout to the end)."""

    name = "ismcts"

    def __init__(
        self,
        seed: int | None = None,
        iterations: object = None,
        ms: object = None,
        c: object = None,
        rollout: object = "heuristic",
        endgame_cards: object = None,
        solver_ms: object = None,
        rollout_turns: object = None,
        **unknown: Any,
    ) -> None:
        if unknown:
            raise ValueError(
                f"unknown ismcts option(s) {', '.join(unknown)}; choose from iterations, ms, "
                "c, rollout, endgame_cards, solver_ms, rollout_turns"
            )
        super().__init__(seed)
        # (options are ``object`` and default to None: see ``int_option``)
        self.ms = float_option("ms", ms)
        self.iterations = (
            None
            if iterations is None and self.ms is not None
            else int_option("iterations", iterations, 1000, 1)
        )
        c_opt = float_option("c", c)
        self.c = 0.7 if c_opt is None else c_opt
        self.rollout = policy(str_option("rollout", rollout))
        self.endgame_cards = int_option("endgame_cards", endgame_cards, 10, 0)
        self.solver_ms = float_option("solver_ms", solver_ms)
        self.rollout_turns = int_option("rollout_turns", rollout_turns, 0, 0)
        self.solver = Solver(max_table=500_000)

    def choose(self, obs: Observation) -> Move:
        """Search from the observation and play the most visited move; its mean
        reward (or the solver's value) becomes :attr:`last_value`."""
        check_observation(obs)
        self.last_value = None
        moves = obs.legal_moves()
        if len(moves) == 1:
            return moves[0]
        budget = Budget(self.iterations, self.ms)
        full = open_state(obs)
        if full is not None:
            if self.solver_ms is not None:
                limit = self.solver_ms / 1000.0
            elif self.ms is not None:
                limit = self.ms / 2000.0
            else:
                limit = 0.25
            res = self.solver.solve(full, limit)
            if res.move is not None and (res.proven or res.lo >= 0):
                self.last_value = expected_reward(res)
                return res.move
        search = ISMCTS(
            self.rng, self.c, self.rollout, self.endgame_cards, self.solver, self.rollout_turns
        )
        root = search.search(obs, budget)
        move = search.best_move(obs, root)
        self.last_value = search.move_value(root, move)
        return move

    def label(self) -> str:
        """Name with the budget, e.g. ``ismcts(ms=1000)``."""
        b = f"ms={self.ms:g}" if self.ms is not None else f"iterations={self.iterations}"
        return f"ismcts({b})"
