"""The arena: many hands between bots with paired deals and seat rotation,
per-bot statistics with confidence intervals, OpenSkill ratings and charts.

>>> from svoi_kozyri.arena import run_arena
>>> report = run_arena(["greedy", "random"], hands=4, workers=1)
>>> sorted(report.bots), report.hands
(['greedy', 'random'], 4)
"""

from __future__ import annotations

from .outcomes import HandOutcome
from .stats import wilson_interval
from .tournament import (
    ArenaError,
    ArenaReport,
    BotStats,
    round_robin_lineups,
    run_arena,
    run_round_robin,
    split_bot_list,
)

__all__ = [
    "ArenaError",
    "ArenaReport",
    "BotStats",
    "HandOutcome",
    "round_robin_lineups",
    "run_arena",
    "run_round_robin",
    "split_bot_list",
    "wilson_interval",
]
