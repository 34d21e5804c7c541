"""Environment benchmark: step rates of the PettingZoo, Gymnasium and OpenSpiel
wrappers and of the vectorised simulator, against the raw engine in the same run.

Run:  .venv/bin/python bench/envs.py [--seconds S] [--rounds R] [--players N] [--batch B]

Method.  Every figure is the median of R rounds of S seconds, the rounds of all
loops interleaved, so machine load affects them alike (``--cpu-best``: the best
round by process CPU time instead, which a loaded machine disturbs less).  A *step* is one player
decision at the step level, chosen uniformly at random among the legal actions:

* ``engine``: ``bench/engine.py``'s loop (``legal_actions``, ``random.choice``,
  ``apply_action``) on one ``State``;
* ``pettingzoo``: ``for agent in env.agent_iter(): env.last(); env.step(a)`` on
  ``raw_env`` with the observation dict (tensor + mask) built every step, the
  action drawn from the mask (``np.flatnonzero`` + ``random.choice``, which costs
  about as much as the observation itself); ``pettingzoo (obs + info actions)``: the
  observation dict still built and returned every step, the action drawn from
  ``info["legal_actions"]`` (the same legal set as the mask) so that the figure is
  the environment's cost rather than the random agent's; ``pettingzoo (no obs)``: the same loop with
  ``env.last(observe=False)`` and the legal actions from ``info``; ``pettingzoo
  (wrapped)``: ``env()`` (order enforcing) with observations, the action from the
  mask; ``pettingzoo (wrapped + info actions)``: the same, the action from
  ``info["legal_actions"]``;
* ``gymnasium``: the learner's steps against random bots (the bots' moves are done
  inside ``step`` and not counted);
* ``openspiel``: ``legal_actions`` + ``apply_action`` on the Python game's state
  (chance nodes of the deal timed, not counted);
* ``vector``: B hands per call, ``step_random`` (masks, random choice and step in one
  compiled pass), finished hands dealt again; ``vector (api)``: ``random_actions`` +
  ``step``; ``vector (+obs)``: also the (B, 634) observations and (B, 41) masks
  every step.  ``vector (no repetition)`` runs with ``repetition_limit=None``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

# the engine benchmark's timer and its step-level loop, the reference of every ratio here
from engine import _timed
from engine import step_level as engine_loop
from svoi_kozyri import Game, Rules
from svoi_kozyri.core import game as engine_module


def pettingzoo_loop(
    players: int, wrapped: bool, observe: bool, info_actions: bool = False
) -> Callable[[], int]:
    """One hand through the AEC API (actions from the observation's mask, or with
    ``info_actions`` or without observations from ``info["legal_actions"]``)."""
    from svoi_kozyri.envs.pettingzoo import env, raw_env

    e = env(num_players=players) if wrapped else raw_env(num_players=players)
    rng = random.Random(2)
    e.reset(seed=1)

    def hand() -> int:
        e.reset()
        steps = 0
        choice = rng.choice
        for _agent in e.agent_iter():
            obs, _, term, trunc, info = e.last(observe)
            if term or trunc:
                e.step(None)
                continue
            if observe and not info_actions:
                e.step(choice(np.flatnonzero(obs["action_mask"])))
            else:
                e.step(choice(info["legal_actions"]))
            steps += 1
        return steps

    return hand


def gymnasium_loop(players: int) -> Callable[[], int]:
    """One hand of the learner against random bots."""
    from svoi_kozyri.envs.gymnasium import SvoiKozyriEnv

    e = SvoiKozyriEnv(num_players=players, opponents="random")
    rng = random.Random(3)
    e.reset(seed=1)

    def hand() -> int:
        obs, _ = e.reset()
        steps = 0
        while True:
            obs, _, term, trunc, _ = e.step(rng.choice(np.flatnonzero(obs["action_mask"])))
            steps += 1
            if term or trunc:
                return steps

    return hand


def openspiel_loop(players: int) -> Callable[[], int]:
    """One hand of the Python OpenSpiel game."""
    import pyspiel

    import svoi_kozyri.envs.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game(
        "python_svoi_kozyri", {"num_players": players, "max_actions_per_hand": 20000}
    )
    rng = random.Random(4)

    def hand() -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        return steps

    return hand


def vector_loop(rules: Rules, batch: int, mode: str) -> Callable[[], int]:
    """``batch`` hands, one step each per call."""
    from svoi_kozyri.envs.encoding import OBS_SIZE
    from svoi_kozyri.envs.vector import VectorGame

    vg = VectorGame(rules, batch_size=batch, seed=5)
    obs = np.empty((batch, OBS_SIZE), dtype=np.float32)
    masks = np.empty((batch, 41), dtype=np.int8)

    def call() -> int:
        live = batch - int(vg.done.sum())
        if mode == "random":
            vg.step_random()
        else:
            if mode == "obs":
                vg.observations(out=obs)
                vg.legal_masks(out=masks)
            vg.step(vg.random_actions())
        vg.reset_done()
        return live

    call()
    return call


def main() -> None:
    """Measure and print every figure, then the two ratios the issue asks for."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="", help="comma list of loop names to run (default: all)")
    ap.add_argument(
        "--cpu-best",
        action="store_true",
        help="time by process CPU time and report the best round (less disturbed by load)",
    )
    args = ap.parse_args()
    rules = Rules(num_players=args.players)
    game = Game(rules)
    build = "compiled (mypyc)" if engine_module.__file__.endswith((".so", ".pyd")) else "pure"
    print(f"svoi-kozyri engine: {build} build, {args.players} players, default rules")
    how = "CPU time, best" if args.cpu_best else "median"
    print(f"python {sys.version.split()[0]}, {args.rounds} rounds x {args.seconds:.1f} s, {how}")
    loops: dict[str, Callable[[], int]] = {
        "engine": engine_loop(game, random.Random(args.seed)),
        "pettingzoo": pettingzoo_loop(args.players, wrapped=False, observe=True),
        "pettingzoo (obs + info actions)": pettingzoo_loop(
            args.players, wrapped=False, observe=True, info_actions=True
        ),
        "pettingzoo (no obs)": pettingzoo_loop(args.players, wrapped=False, observe=False),
        "pettingzoo (wrapped)": pettingzoo_loop(args.players, wrapped=True, observe=True),
        "pettingzoo (wrapped + info actions)": pettingzoo_loop(
            args.players, wrapped=True, observe=True, info_actions=True
        ),
        "gymnasium": gymnasium_loop(args.players),
        "openspiel": openspiel_loop(args.players),
        "vector": vector_loop(rules, args.batch, "random"),
        "vector (api)": vector_loop(rules, args.batch, "api"),
        "vector (+obs)": vector_loop(rules, args.batch, "obs"),
        "vector (no repetition)": vector_loop(
            rules.replace(repetition_limit=None), args.batch, "random"
        ),
    }
    if args.only:
        keep = {s.strip() for s in args.only.split(",")} | {"engine"}
        loops = {k: v for k, v in loops.items() if k in keep}
    rates: dict[str, list[float]] = {k: [] for k in loops}
    for _ in range(args.rounds):
        for name, body in loops.items():
            rates[name].append(
                _timed(args.seconds, body, time.process_time)
                if args.cpu_best
                else _timed(args.seconds, body)
            )
    stat = max if args.cpu_best else statistics.median
    med = {k: stat(v) for k, v in rates.items()}
    ref = med["engine"]
    for name, rate in med.items():
        print(f"{name:32s} {rate:>12,.0f} steps/s   {rate / ref:6.2f} x engine")
    # The environment's own cost: the same random choice from the same legal tuple as
    # the engine loop, the observation dict built and returned every step (the issue's
    # target: at least half the engine's rate).
    for name in ("pettingzoo (obs + info actions)", "pettingzoo (wrapped + info actions)"):
        if name in med:
            print(f"ratio {name}/engine {med[name] / ref:.2f}   (environment overhead)")
    if "pettingzoo" in med:
        print(
            f"ratio pettingzoo/engine {med['pettingzoo'] / ref:.2f}   (with the random agent's"
            " np.flatnonzero + random.choice over the mask, about 1.5 us a step)"
        )
    if "vector" in med:
        print(f"ratio vector/engine {med['vector'] / ref:.2f}")


if __name__ == "__main__":
    main()
