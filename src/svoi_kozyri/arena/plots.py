"""PNG charts of an arena report (matplotlib, headless)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")  # no display: render to files only
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

if TYPE_CHECKING:
    from .tournament import ArenaReport


def write_plots(report: ArenaReport, directory: str | Path) -> list[Path]:
    """Write the charts into ``directory`` (created if needed) and return their paths:
    ``durak_rate.png`` (with 95 % intervals), ``first_out_rate.png``,
    ``hand_length.png`` and, for a round robin, ``ratings.png``."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    names = list(report.bots)
    stats = [report.bots[n] for n in names]
    paths: list[Path] = []

    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(names) + 2), 4))
    rates = [s.durak_rate for s in stats]
    ci = [s.durak_ci95 for s in stats]
    err = [
        [r - lo for r, (lo, _) in zip(rates, ci, strict=True)],
        [hi - r for r, (_, hi) in zip(rates, ci, strict=True)],
    ]
    ax.bar(names, rates, yerr=err, capsize=6, color="tab:red")
    ax.set_ylabel("durak rate (95 % Wilson CI)")
    ax.set_ylim(0, 1)
    ax.set_title(f"Durak rate over {report.hands} hands")
    paths.append(_save(fig, out / "durak_rate.png"))

    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(names) + 2), 4))
    ax.bar(names, [s.first_out_rate for s in stats], color="tab:green")
    ax.set_ylabel("first-out rate")
    ax.set_ylim(0, 1)
    ax.set_title("First player out (hand winner)")
    paths.append(_save(fig, out / "first_out_rate.png"))

    fig, ax = plt.subplots(figsize=(6, 4))
    turns = [o.turns for o in report.outcomes]
    ax.hist(turns, bins=min(50, max(5, len(set(turns)))), color="tab:blue")
    ax.set_xlabel("hand length (turn-level actions)")
    ax.set_ylabel("hands")
    ax.set_title("Hand length")
    paths.append(_save(fig, out / "hand_length.png"))

    if report.round_robin:
        fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(names) + 2), 4))
        mus = [s.mu or 0.0 for s in stats]
        sig = [s.sigma or 0.0 for s in stats]
        ax.bar(names, mus, yerr=[3 * x for x in sig], capsize=6, color="tab:purple")
        ax.set_ylabel("OpenSkill mu (error bars: 3 sigma)")
        ax.set_title("Round-robin ratings")
        paths.append(_save(fig, out / "ratings.png"))
    return paths


def _save(fig: Figure, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
