"""What a finished hand is worth to each seat: the environments' reward options.

Why this exists: a researcher trained MaskablePPO against three ``random`` bots for
20 minutes.  Its durak rate fell from 0.89 to 0.005, and then it steered hands into
threefold repetitions: 40 % of its evaluation hands ended drawn, because a draw
scored 0, the same as finishing safely, and a hand that is drawn cannot be lost.
A reward a policy can improve by drawing teaches it to draw.

So every environment takes the same reward options (``reward=`` and ``draw=``):

* ``"durak"``: the durak -1, every other seat 0 (the game's own result);
* ``"placement"``: by the order of going out, the first out +1 down to the durak -1
  in equal steps (``1 - 2k/(n-1)`` for the ``k``-th out, the durak last), so a
  policy also learns to go out early, not only to avoid being last;
* in Besicovitch's game (two players, the first out wins) both are +1 / -1.

``draw`` is what every seat gets when a hand is drawn (the last card, a threefold
repetition, the action cap).  Its default, :data:`DRAW_DEFAULT` = -1, is the worst
result a seat can have, so **no policy can raise its expected reward by steering
into draws**: a drawn hand is worth no more than losing it.  Set ``draw=0`` for the
game's own scoring (a draw is nobody's loss), or any value in between.
A hand cut off unfinished (a truncation) is worth 0 to everybody.

``RewardSpec.parse("placement,draw=-0.5")`` reads the text form the command line
and the OpenSpiel parameters use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from ..core import Outcome, State

__all__ = ["DRAW_DEFAULT", "REWARD_KINDS", "RewardKind", "RewardSpec", "reward_spec"]

RewardKind = Literal["durak", "placement"]
REWARD_KINDS: Final = ("durak", "placement")
DRAW_DEFAULT: Final = -1.0
"""A drawn hand is worth as little as the worst result: drawing never pays."""


@dataclass(frozen=True)
class RewardSpec:
    """A reward option: ``kind`` (``durak`` or ``placement``) and the value of a draw."""

    kind: RewardKind = "durak"
    draw: float = DRAW_DEFAULT

    def __post_init__(self) -> None:
        if self.kind not in REWARD_KINDS:
            raise ValueError(f"reward must be one of {', '.join(REWARD_KINDS)}, not {self.kind!r}")
        if not math.isfinite(self.draw) or not -1.0 <= self.draw <= 1.0:
            raise ValueError(f"draw must be a number from -1 to 1, not {self.draw!r}")

    @classmethod
    def parse(cls, text: str | RewardSpec | None) -> RewardSpec:
        """``"durak"``, ``"placement"``, ``"durak,draw=0"``, ``"draw=-0.5"`` (durak)."""
        if isinstance(text, RewardSpec):
            return text
        if text is None or not text.strip():
            return cls()
        kind: RewardKind = "durak"
        draw = DRAW_DEFAULT
        for part in (p.strip() for p in text.split(",")):
            if part.startswith("draw="):
                try:
                    draw = float(part[5:])
                except ValueError:
                    raise ValueError(f"draw must be a number, not {part[5:]!r}") from None
            elif part == "durak":
                kind = "durak"
            elif part == "placement":
                kind = "placement"
            else:
                raise ValueError(f"unknown reward option {part!r}")
        return cls(kind, draw)

    def __str__(self) -> str:
        return f"{self.kind},draw={self.draw:g}"

    def low(self) -> float:
        """The smallest value a seat can get."""
        return min(-1.0, self.draw)

    def high(self, besicovitch: bool = False) -> float:
        """The largest value a seat can get (in Besicovitch's game the winner's +1)."""
        best = 1.0 if self.kind == "placement" or besicovitch else 0.0
        return max(best, self.draw)

    def values(
        self,
        n: int,
        outcome: Outcome | None,
        out_order: Sequence[int] = (),
        *,
        besicovitch: bool = False,
    ) -> tuple[float, ...]:
        """Each seat's reward for a hand that ended with ``outcome`` (None: not
        ended), the seats having gone out in ``out_order``."""
        if outcome is None:
            return (0.0,) * n
        loser = outcome.loser
        if loser is None:
            return (float(self.draw),) * n
        if besicovitch:
            return tuple(-1.0 if i == loser else 1.0 for i in range(n))
        if self.kind == "durak" or n < 2:
            return tuple(-1.0 if i == loser else 0.0 for i in range(n))
        place = {seat: k for k, seat in enumerate(out_order)}
        order = [place.get(i, n - 2) for i in range(n)]  # a seat still holding cards: last but one
        order[loser] = n - 1
        return tuple(1.0 - 2.0 * k / (n - 1) for k in order)

    def by_loser(self, n: int, loser: int) -> tuple[float, ...]:
        """The ``durak`` rewards of a finished hand from its loser alone (-1: a draw),
        as the compiled kernels report it (never the Besicovitch variant)."""
        if loser < 0:
            return (float(self.draw),) * n
        return tuple(-1.0 if i == loser else 0.0 for i in range(n))

    def of_state(self, state: State) -> tuple[float, ...]:
        """Each seat's reward for ``state`` (0 for all while the hand goes on)."""
        return self.values(
            state.game.n,
            state.outcome if state.is_over else None,
            [seat for seat, _kind in state.outs],
            besicovitch=state.game.rules.is_besicovitch,
        )


def reward_spec(reward: str | RewardSpec | None, draw: float | None = None) -> RewardSpec:
    """An environment's ``reward=`` and ``draw=`` arguments as one spec (``draw``,
    when given, overrides a draw value in the text)."""
    spec = RewardSpec.parse(reward)
    return spec if draw is None else RewardSpec(spec.kind, float(draw))
