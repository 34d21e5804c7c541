"""One table's game, rebuilt from its event log (no I/O, no clocks).

A table is its configuration plus an append-only list of typed events
(:mod:`svoi_kozyri.server.wire.events`):

* :class:`DealEvent` (dealer, deck, owners, pairs) starts a hand from an explicit deck
  order and suit ownership;
* :class:`MoveEvent` (seat, move ``beat 6D lead QS``, by) is one accepted turn (``by``
  says who chose it: the player, a bot seat, a stand-in bot for an absent player, or
  the turn timer);
* :class:`CloseEvent`: a moderator ended the table.

The engine is deterministic, so replaying the events gives back exactly the
table's state: this is how a restarted server resumes every table, and how a
finished game is replayed.  :meth:`TableGame.prepare_move` checks a move on a copy
and leaves the table unchanged; the caller stores the event and only then
commits it with :meth:`TableGame.apply`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from ...core import (
    Game,
    IllegalMoveError,
    MalformedError,
    Move,
    Rules,
    RulesError,
    Session,
    State,
    SvoiKozyriError,
    seat_name,
)
from ..wire.errors import ApiError
from ..wire.events import CloseEvent, DealEvent, MoveEvent, TableEvent
from ..wire.schemas import TableConfig

TABLE_STATUS = {
    "no_table": 404,
    "seat_taken": 409,
    "table_full": 409,
    "bad_token": 403,
    "no_record": 409,
    "bad_link": 403,
    "rate_limited": 429,
}
"""The HTTP status of a table's refusals by code (400 for the others)."""


class TableError(ApiError):
    """A request the table refuses; ``code`` is a stable machine-readable reason
    and decides the HTTP status (:data:`TABLE_STATUS`)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message, TABLE_STATUS.get(code, 400))


def rules_for(config: TableConfig) -> Rules:
    """The engine rules of a table: its options with the player count from its seats."""
    options = dict(config.rules)
    options.pop("num_players", None)
    n = len(config.seats)
    if options.get("variant") == "besicovitch" and n != 2:
        raise TableError("bad_config", "the Besicovitch variant needs exactly 2 seats")
    options["num_players"] = n
    for guard in ("repetition_limit", "max_actions_per_hand"):
        if guard in options and options[guard] is None:
            raise TableError(
                "bad_config", f"{guard} cannot be switched off at a web table (SPEC D guards)"
            )
    try:
        rules = Rules.from_dict(options)
    except (RulesError, TypeError, ValueError) as e:
        raise TableError("bad_config", f"invalid rules: {e}") from None
    for name, (low, high) in WEB_BOUNDS.items():
        value = getattr(rules, name)
        if value is not None and not low <= value <= high:
            raise TableError(
                "bad_config", f"{name} must be between {low} and {high} at a web table"
            )
    return rules


WEB_BOUNDS: dict[str, tuple[int, int]] = {
    "loss_limit": (1, 50),
    "points_target": (1, 50),
    "fixed_pickup_count": (1, 12),
    "repetition_limit": (2, 10),
    "max_actions_per_hand": (200, 20000),
}
"""Bounds of the rules options at a web table (issue 13, defect 2): a session has
an end (a loss limit or points target of at most 50), and the action cap cannot
be so small that every hand is a draw and the session never ends."""


@dataclass
class SeatInfo:
    """Who sits at a seat (persisted in the ``seats`` table)."""

    kind: str  # "human" or "bot"
    bot: str | None = None
    name: str | None = None
    token_hash: str | None = None

    @property
    def taken(self) -> bool:
        """A bot seat is always taken; a human seat once someone joined."""
        return self.kind == "bot" or self.token_hash is not None


@dataclass
class PendingMove:
    """A checked move: the event to store and the state it leads to."""

    event: MoveEvent
    after: State


@dataclass
class TableGame:
    """The game of one table: configuration, seats, session score and current hand."""

    table_id: str
    config: TableConfig
    seed: int
    seats: list[SeatInfo]
    created: float = 0.0
    rules: Rules = field(init=False)
    rules_dict: dict[str, Any] = field(init=False)
    session: Session = field(init=False)
    state: State | None = field(init=False, default=None)
    hand_number: int = field(init=False, default=0)
    version: int = field(init=False, default=0)
    by: list[str] = field(init=False, default_factory=list)
    events: list[TableEvent] = field(init=False, default_factory=list)
    _games: dict[tuple[Any, ...], Game] = field(init=False, default_factory=dict)
    closed: bool = field(init=False, default=False)
    """Ended by a moderator (a ``close`` event): finished, whatever the score."""

    def __post_init__(self) -> None:
        self.rules = rules_for(self.config)
        self.rules_dict = self.rules.to_dict()
        rng = random.Random(self.seed)
        first = rng.randrange(self.rules.num_players)
        self.session = Session(self.rules, first_dealer=first, rng=rng)

    # -- status ------------------------------------------------------------------

    @property
    def n(self) -> int:
        """Number of seats."""
        return len(self.seats)

    @property
    def full(self) -> bool:
        """True once every human seat is taken."""
        return all(s.taken for s in self.seats)

    @property
    def status(self) -> str:
        """``waiting`` (seats free), ``playing``, ``between_hands`` or ``finished``
        (the session is over, or a moderator closed the table)."""
        if self.session.over or self.closed:
            return "finished"
        if self.state is None:
            return "waiting" if not self.full else "between_hands"
        return "playing" if not self.state.is_over else "between_hands"

    def needs_deal(self) -> bool:
        """True when the next hand should be dealt (everyone seated, no hand running)."""
        if self.closed:
            return False
        return self.full and not self.session.over and (self.state is None or self.state.is_over)

    # -- events ------------------------------------------------------------------

    def deal_rng(self) -> random.Random:
        """The shuffle of the next hand: it follows from the seed and the hand's
        number.  The seed never leaves the server (it derives every hand of the
        table, the one being played included): a shared deal stores one hand's
        deal event instead, and a table playing it has a seed of its own
        (server/features/deals.py, issue 20 item 1)."""
        return random.Random(f"{self.seed}:{self.hand_number}")

    def make_deal(self, rng: random.Random) -> DealEvent:
        """The event that deals the next hand from a shuffle drawn from ``rng``."""
        if not self.needs_deal():
            raise TableError("no_deal", "no hand can be dealt now")
        game = self.session.game
        dealer = self.session.next_dealer
        assert dealer is not None
        return DealEvent(
            dealer=dealer,
            deck=game.shuffled_deck(rng),
            owners=list(game.owners),
            pairs=list(game.pairs) if game.pairs is not None else None,
        )

    def prepare_move(self, seat: int | None, text: Any, by: str = "player") -> PendingMove:
        """Check ``text`` as ``seat``'s move; the table is not changed.

        Raises :class:`TableError` with a specific reason for a spectator, a move when
        no hand runs, out of turn, malformed or illegal moves.
        """
        if seat is None:
            raise TableError("spectator", "spectators cannot play")
        st = self.state
        if self.closed:
            raise TableError("table_closed", "a moderator closed this table")
        if st is None or st.is_over:
            raise TableError("no_hand", "no hand is being played now")
        if st.to_act != seat:
            who = st.to_act
            raise TableError(
                "not_your_turn",
                f"it is {seat_name(who) if who is not None else 'nobody'}'s turn, "
                f"not {seat_name(seat)}'s",
            )
        if not isinstance(text, str):
            raise TableError("malformed", "a move must be text")
        try:
            move = Move.parse(text)
        except MalformedError as e:  # text that is no move at all
            raise TableError("malformed", str(e)) from None
        try:
            after = st.copy()
            after.push(move, seat)
        except IllegalMoveError as e:  # a well-formed move that is not legal now
            raise TableError("illegal", str(e)) from None
        return PendingMove(MoveEvent(seat=seat, move=str(move), by=by), after)

    def apply(self, event: TableEvent, pending: PendingMove | None = None) -> None:
        """Apply a stored event (``pending``: the state already computed by
        :meth:`prepare_move`, saving a second application)."""
        if isinstance(event, DealEvent):
            self._apply_deal(event)
        elif isinstance(event, MoveEvent):
            self._apply_move(event, pending)
        elif isinstance(event, CloseEvent):  # a moderator ended the table
            if self.closed or self.session.over:
                raise TableError("bad_event", "close event on a finished table")
            self.closed = True
        else:
            raise TableError("bad_event", f"unknown event {type(event).__name__}")
        self.events.append(event)
        self.version += 1

    def _apply_deal(self, event: DealEvent) -> None:
        if not self.needs_deal():
            raise TableError("bad_event", "deal event while a hand is running")
        owners = tuple(event.owners)
        pairs = tuple(event.pairs) if event.pairs else None
        if self.hand_number == 0:
            self._session_from_first_deal(event.dealer, owners, pairs)
        key = (owners, pairs)
        game = self._games.get(key)
        if game is None:
            game = self._games[key] = Game(self.rules, list(owners), pairs)
        try:
            self.state = game.deal(event.dealer, event.deck)
        except SvoiKozyriError as e:
            raise TableError("bad_event", f"stored deal does not replay: {e}") from None
        self.hand_number += 1
        self.by = []

    def _apply_move(self, event: MoveEvent, pending: PendingMove | None) -> None:
        if pending is not None:
            after = pending.after
        else:
            st = self.state
            if st is None:
                raise TableError("bad_event", "move event before any deal")
            after = st.copy()
            try:
                after.push(Move.parse(event.move), event.seat)
            except SvoiKozyriError as e:
                raise TableError("bad_event", f"stored move does not replay: {e}") from None
        self.state = after
        self.by.append(event.by)
        if after.is_over:
            self.session.record_result(after)

    def _session_from_first_deal(
        self, dealer: int, owners: tuple[int, ...], pairs: tuple[int, ...] | None
    ) -> None:
        """Make the session start as the table's first deal event says.

        A table's own first deal always agrees with its session (dealer and suit
        owners drawn from the seed), so nothing changes there.  A table playing
        a shared deal starts from the stored deal event of another table's hand
        (server/features/deals.py): its session takes that hand's dealer and owners, so
        that after a draw the same dealer deals again and the suits stay with
        their owners (SPEC A3), while the later hands' shuffles come from this
        table's own seed.
        """
        game = self.session.game
        same_pairs = (tuple(game.pairs) if game.pairs is not None else None) == pairs
        if self.session.next_dealer == dealer and tuple(game.owners) == owners and same_pairs:
            return
        self.session = Session(
            self.rules,
            first_dealer=dealer,
            rng=self.session.rng,
            owners=list(owners),
            pairs=list(pairs) if pairs is not None else None,
        )

    def replay(self, events: list[TableEvent]) -> None:
        """Apply stored events in order (start-up, or rebuilding a finished table)."""
        for ev in events:
            self.apply(ev)

    # -- queries -------------------------------------------------------------------

    def seat_label(self, seat: int) -> str:
        """The display name of a seat."""
        info = self.seats[seat]
        if info.kind == "bot":
            return f"{info.bot or 'bot'} bot"
        return info.name or f"open seat {seat_name(seat)}"
