"""Sessions: a series of hands with dealer rotation and scoring (SPEC A3, A13).

The loser of a hand deals the next; after a draw the same dealer deals again
(in the Besicovitch game the deal alternates, SPEC C3.7).  In ``losses`` mode
the session ends when a player reaches ``loss_limit`` losses: that player is
the overall durak and those with the fewest losses are the (joint) winners.
In ``points`` mode the first player out of each hand scores a point (drawn
hands only with ``points_on_draw``) and the first to ``points_target`` wins.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .errors import PositionError, SessionOverError
from .game import Game, State, blind_owners, seat_name
from .outcome import Outcome, Termination
from .rules import Rules


@dataclass
class HandRecord:
    """One finished hand of a session."""

    dealer: int
    loser: int | None
    first_out: int | None
    termination: Termination = Termination.OUT

    def __post_init__(self) -> None:
        if not isinstance(self.termination, Termination):
            self.termination = Termination.parse(str(self.termination))

    @property
    def outcome(self) -> Outcome:
        """How the hand ended, as an :class:`Outcome`."""
        return Outcome(self.loser, self.termination)


@dataclass
class Session:
    """Bookkeeping of a series of hands.  ``first_dealer`` defaults to a random seat
    drawn from ``rng`` (SPEC A3.1)."""

    rules: Rules = field(default_factory=Rules)
    first_dealer: int | None = None
    rng: random.Random = field(default_factory=random.Random)
    owners: object = None
    pairs: object = None
    hands: list[HandRecord] = field(default_factory=list)
    game: Game = field(init=False)
    _dealer: int = field(init=False)

    def __post_init__(self) -> None:
        n = self.rules.num_players
        if self.first_dealer is None:
            self.first_dealer = self.rng.randrange(n)
        if not 0 <= self.first_dealer < n:
            raise PositionError(f"first dealer {self.first_dealer} is not a seat")
        self._dealer = self.first_dealer
        if self.rules.suit_assignment == "blind" and self.owners is None:
            self.owners, self.pairs = blind_owners(self.rules, self.rng)
        self.game = Game(self.rules, self.owners, self.pairs)

    @property
    def n(self) -> int:
        """Number of players."""
        return self.rules.num_players

    @property
    def dealers(self) -> list[int]:
        """Who dealt each recorded hand."""
        return [h.dealer for h in self.hands]

    @property
    def next_dealer(self) -> int | None:
        """Who deals the next hand (``None`` once the session is over)."""
        return None if self.over else self._dealer

    @property
    def losses(self) -> list[int]:
        """Losses per seat."""
        out = [0] * self.n
        for h in self.hands:
            if h.loser is not None:
                out[h.loser] += 1
        return out

    @property
    def points(self) -> list[int]:
        """Points per seat (first player out of each scoring hand)."""
        out = [0] * self.n
        for h in self.hands:
            if h.first_out is not None and (h.loser is not None or self.rules.points_on_draw):
                out[h.first_out] += 1
        return out

    @property
    def over(self) -> bool:
        """True once a player reached the loss limit or the points target."""
        if self.rules.session_mode == "losses":
            return max(self.losses) >= self.rules.loss_limit
        return max(self.points) >= self.rules.points_target

    @property
    def durak(self) -> int | None:
        """The overall durak (losses mode), once the session is over."""
        if not self.over or self.rules.session_mode != "losses":
            return None
        losses = self.losses
        return losses.index(max(losses))

    @property
    def winners(self) -> list[int]:
        """The session's winners (empty until it is over)."""
        if not self.over:
            return []
        if self.rules.session_mode == "losses":
            losses = self.losses
            best = min(losses)
            return [i for i in range(self.n) if losses[i] == best]
        pts = self.points
        return [pts.index(max(pts))]

    def ranking(self) -> list[int]:
        """Seats from best to worst by the session's measure."""
        if self.rules.session_mode == "losses":
            losses = self.losses
            return sorted(range(self.n), key=lambda i: (losses[i], i))
        pts = self.points
        return sorted(range(self.n), key=lambda i: (-pts[i], i))

    def record(
        self,
        loser: int | None,
        first_out: int | None = None,
        termination: Termination | str = Termination.OUT,
    ) -> None:
        """Feed one hand's result (``loser=None`` for a draw) and rotate the deal."""
        if self.over:
            raise SessionOverError("the session is over")
        for s in (loser, first_out):
            if s is not None and not 0 <= s < self.n:
                raise PositionError(f"seat {s} does not exist")
        if loser is not None and loser == first_out:
            raise PositionError("the loser cannot be the first player out")
        term = Termination.parse(str(termination))
        self.hands.append(HandRecord(self._dealer, loser, first_out, term))
        if self.rules.is_besicovitch:
            self._dealer = 1 - self._dealer
        elif loser is not None:
            self._dealer = loser
        if self.rules.reassign_each_hand and self.rules.suit_assignment == "blind":
            self.owners, self.pairs = blind_owners(self.rules, self.rng)
            self.game = Game(self.rules, self.owners, self.pairs)

    def record_result(self, state: State) -> None:
        """Feed a finished hand."""
        if state.outcome is None:
            raise PositionError("the hand is not over")
        r: Outcome = state.outcome
        self.record(r.loser, state.first_out(), r.termination)

    def new_hand(self, seed: int | random.Random | None = None) -> State:
        """Deal the next hand with the session's dealer from a seeded shuffle."""
        if self.over:
            raise SessionOverError("the session is over")
        rng = (
            seed
            if isinstance(seed, random.Random)
            else (self.rng if seed is None else random.Random(seed))
        )
        return self.game.new_hand(self._dealer, rng)

    def summary(self) -> str:
        """One line of standings."""
        if self.rules.session_mode == "losses":
            vals = self.losses
            what = "losses"
        else:
            vals = self.points
            what = "points"
        return f"{what}: " + ", ".join(f"{seat_name(i)}={v}" for i, v in enumerate(vals))
