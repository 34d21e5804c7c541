"""Fit the leaf evaluation used by truncated rollouts (``bots/search/common.py``).

Why: a rollout that stops after a few turns needs a guess of who will end as the
durak.  The guess is a conditional logit over the players still holding cards:
``P(durak = i) = exp(w . x_i) / sum_j exp(w . x_j)`` with a handful of public-
looking features of each hand (see :func:`svoi_kozyri.bots.search.common.eval_features`).
The weights are fitted here by maximum likelihood on positions from heuristic
self-play (2, 3 and 4 players), and the fitted numbers are pasted into
``EVAL_WEIGHTS``.  Run::

    .venv/bin/python bench/fit_evaluation.py --games 3000
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from svoi_kozyri.bots.heuristic import heuristic_move
from svoi_kozyri.bots.search.common import EVAL_WEIGHTS, eval_features
from svoi_kozyri.core import Game, Rules


def collect(games: int, seed: int) -> tuple[list[np.ndarray], list[int]]:
    """Positions (one feature matrix per position, a row per active seat) and the
    index of the durak's row, from heuristic self-play."""
    rng = random.Random(seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    variants = [Game(Rules(num_players=n)) for n in (2, 3, 4)]
    for k in range(games):
        game = variants[k % len(variants)]
        s = game.new_hand(rng.randrange(game.n), rng.randrange(1 << 30))
        seen = []
        while not s.is_over:
            if rng.random() < 0.25:
                seen.append(s.copy())
            s.push_unchecked(heuristic_move(s, rng))
        r = s.outcome
        if r is None or r.loser is None:
            continue
        for st in seen:
            active = [i for i, h in enumerate(st.hands) if h]
            if r.loser not in active or len(active) < 2:
                continue
            feats = eval_features(st)
            xs.append(np.array([feats[i] for i in active], dtype=float))
            ys.append(active.index(r.loser))
    return xs, ys


def fit(xs: list[np.ndarray], ys: list[int], steps: int = 25) -> tuple[np.ndarray, float]:
    """Maximum-likelihood weights of the conditional logit (Newton's method; the
    log-likelihood is concave)."""
    d = xs[0].shape[1]
    w = np.zeros(d)
    by_size: dict[int, tuple[list[np.ndarray], list[int]]] = {}
    for x, y in zip(xs, ys, strict=True):
        rows, labels = by_size.setdefault(x.shape[0], ([], []))
        rows.append(x)
        labels.append(y)
    groups = [(np.stack(a), np.array(b)) for a, b in by_size.values()]
    n = len(xs)
    ll = 0.0
    for _ in range(steps):
        grad = np.zeros(d)
        hess = np.zeros((d, d))
        ll = 0.0
        for x, y in groups:
            z = x @ w
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            idx = np.arange(len(y))
            ll += float(np.log(p[idx, y]).sum())
            mean = (p[:, :, None] * x).sum(axis=1)
            grad += (x[idx, y] - mean).sum(axis=0)
            second = np.einsum("nk,nki,nkj->ij", p, x, x)
            hess -= second - mean.T @ mean
        w -= np.linalg.solve(hess - 1e-6 * np.eye(d), grad)
    return w, ll / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    xs, ys = collect(a.games, a.seed)
    w, ll = fit(xs, ys)
    base = float(np.mean([-np.log(x.shape[0]) for x in xs]))
    print(f"{len(xs)} positions; mean log-likelihood {ll:.4f} (uniform guess {base:.4f})")
    print("EVAL_WEIGHTS = (" + ", ".join(f"{v:.3f}" for v in w) + ")")
    print("current:      ", EVAL_WEIGHTS)


if __name__ == "__main__":
    main()
