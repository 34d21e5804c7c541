"""The state of one hand: :class:`State` (mutable, cheap to copy) and its
:class:`Origin` (how the hand started).

Hands are ``int`` bitmasks and the pile a list of cards, so a copy is a handful of
attribute stores; the move log and the repetition counts are shared structurally
by copies.  Two action forms: turn-level :class:`~.moves.Move` (``legal_moves`` /
``push`` / ``pop``) and step-level ints (``legal_actions`` / ``apply_action``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from .cards import (
    Card,
    CardSet,
    format_card,
    format_cards,
)
from .diagram import diagram
from .errors import (
    EmptyMoveStackError,
    HandOverError,
    IllegalMoveError,
    InvalidMoveError,
    PositionError,
)
from .moves import (
    _PICKUP_BIT,
    FREE,
    LEAD,
    OVER,
    PHASE_NAMES,
    PICKUP,
    RESPOND,
    Move,
    as_action,
    check_move,
    decode_log_entry,
    moves_for,
    parse_seat,
    seat_name,
)
from .outcome import Outcome, Termination
from .phases import OutKind
from .tables import _T0, _T1, _T2, _T3, _ZD, _ZH, _ZP, _ZT, _zobrist

if TYPE_CHECKING:
    from .game import Game
    from .rules import Rules


class StartPosition(NamedTuple):
    """The position a hand started from when it was set up (not dealt): what
    :meth:`State.start_state` rebuilds it from (:meth:`Game.position`'s values)."""

    hands: tuple[CardSet, ...]
    pile: tuple[Card, ...]
    to_act: int
    phase: int
    outs: tuple[tuple[int, OutKind], ...]
    discard: CardSet
    turns: int
    outcome: Outcome | None
    known: tuple[CardSet, ...] | None


class _Snapshot(NamedTuple):
    """What :meth:`State.push` keeps to undo one move (:meth:`State.pop`)."""

    hands: list[CardSet]
    pile: list[Card]
    to_act: int
    phase: int
    outs: tuple[tuple[int, OutKind], ...]
    discard: CardSet
    outcome: Outcome | None
    turns: int
    log_len: int
    zob: int
    picked: tuple[CardSet, ...]
    hist_parent: Any
    move: Move
    parent: Any  # the previous push's _Snapshot (a linked stack shared by copies)
    after_log_len: int
    after_zob: int


@dataclass(frozen=True)
class Origin:
    """How a hand started: the dealer and deck (``None`` for a position start),
    the public sixes transfers, and the cards each seat publicly held at start."""

    dealer: int | None
    deck: tuple[Card, ...] | None
    transfers: tuple[tuple[Card, int, int], ...]
    known: tuple[CardSet, ...]
    cards: CardSet  # the cards that exist in this hand (a position may hold fewer)
    start: StartPosition | None = None  # a position start (None for a deal)

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            Origin,
            (self.dealer, self.deck, self.transfers, self.known, self.cards, self.start),
        )


# --------------------------------------------------------------------------- state


class State:
    """The mutable state of one hand.  Create with :meth:`Game.deal`,
    :meth:`Game.new_hand` or :meth:`Game.position`; never share between threads.

    The state is omniscient: it holds every hand.  Give players an
    :class:`~svoi_kozyri.core.observation.Observation` instead.

    The public attributes are plain values the hot loop reads directly: ``hands``
    (one card set per seat), ``pile`` (bottom to top), ``to_act`` (the seat to act;
    ``-1`` once the hand is over, so test :attr:`is_over` first, as python-chess's
    ``turn`` is a colour even after mate), ``phase`` (an ``int`` equal to a
    :class:`~.phases.Phase` member), ``outs`` (``(seat, OutKind)`` in going-out
    order), ``discard``, ``outcome`` (an :class:`~.outcome.Outcome` once over, else
    ``None``) and ``turns``.
    """

    __slots__ = (
        "_hist",
        "_hist_parent",
        "_undo",
        "discard",
        "game",
        "hands",
        "log",
        "log_len",
        "origin",
        "outcome",
        "outs",
        "phase",
        "picked",
        "pile",
        "to_act",
        "turns",
        "zob",
    )

    game: Game
    hands: list[CardSet]
    pile: list[Card]
    to_act: int
    phase: int
    outs: tuple[tuple[int, OutKind], ...]
    discard: CardSet
    outcome: Outcome | None
    turns: int
    log: list[int]
    log_len: int
    zob: int
    picked: tuple[CardSet, ...]
    origin: Origin
    _hist: dict[int, int]
    _hist_parent: Any
    _undo: Any

    def __init__(
        self,
        game: Game,
        hands: list[CardSet],
        pile: list[Card],
        to_act: int,
        phase: int,
        outs: tuple[tuple[int, OutKind], ...],
        discard: CardSet,
        outcome: Outcome | None,
        turns: int,
        log: list[int],
        log_len: int,
        zob: int,
        picked: tuple[CardSet, ...],
        origin: Origin,
        hist: dict[int, int],
        hist_parent: Any,
        undo: Any = None,
    ) -> None:
        """Low-level constructor: use :meth:`Game.deal`, :meth:`Game.new_hand` or
        :meth:`Game.position` instead."""
        self.game = game
        self.hands = hands
        self.pile = pile
        self.to_act = to_act
        self.phase = phase
        self.outs = outs
        self.discard = discard
        self.outcome = outcome
        self.turns = turns
        self.log = log
        self.log_len = log_len
        self.zob = zob
        self.picked = picked
        self.origin = origin
        self._hist = hist
        self._hist_parent = hist_parent
        self._undo = undo

    @staticmethod
    def _start(
        game: Game,
        hands: list[CardSet],
        pile: list[Card],
        to_act: int,
        phase: int,
        outs: tuple[tuple[int, OutKind], ...],
        discard: CardSet,
        turns: int,
        outcome: Outcome | None,
        origin: Origin,
    ) -> State:
        hist: dict[int, int] = {}
        s = State(
            game,
            list(hands),
            list(pile),
            to_act,
            phase,
            outs,
            discard,
            outcome,
            turns,
            [],
            0,
            _zobrist(hands, pile, discard),
            (0,) * game.n,
            origin,
            hist,
            None,
        )
        if game._rep_limit and phase in (FREE, RESPOND):
            hist[s._key()] = 1
        return s

    # -- copying ---------------------------------------------------------------

    def copy(self) -> State:
        """A cheap independent copy.

        The repetition counts live in a chain of frozen dicts shared by copies:
        copying freezes this state's recent counts into the chain (merging levels
        like a binary counter, so the chain stays logarithmically short) instead of
        copying every count."""
        parent = self._freeze_history()
        return State(
            self.game,
            self.hands[:],
            self.pile[:],
            self.to_act,
            self.phase,
            self.outs,
            self.discard,
            self.outcome,
            self.turns,
            self.log,
            self.log_len,
            self.zob,
            self.picked,
            self.origin,
            {},
            parent,
            self._undo,
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            State,
            (
                self.game,
                self.hands[:],
                self.pile[:],
                self.to_act,
                self.phase,
                self.outs,
                self.discard,
                self.outcome,
                self.turns,
                self.log[: self.log_len],
                self.log_len,
                self.zob,
                self.picked,
                self.origin,
                dict(self._hist),
                self._hist_parent,
            ),
        )

    def __copy__(self) -> State:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> State:
        return self.copy()

    # -- read access -----------------------------------------------------------

    @property
    def n(self) -> int:
        """Number of seats."""
        return self.game.n

    @property
    def rules(self) -> Rules:
        """The rules of this hand."""
        return self.game.rules

    @property
    def is_over(self) -> bool:
        """True once the hand has ended."""
        return self.phase == OVER

    def pile_cards(self) -> list[Card]:
        """The pile, bottom to top (a copy)."""
        return self.pile[:]

    @property
    def top(self) -> Card | None:
        """The top card of the pile, or ``None`` if the pile is empty."""
        return self.pile[-1] if self.pile else None

    def hand(self, seat: int) -> CardSet:
        """Cards held by ``seat`` (omniscient)."""
        return self.hands[seat]

    def hand_sizes(self) -> tuple[int, ...]:
        """Public hand sizes."""
        return tuple(h.bit_count() for h in self.hands)

    def active_seats(self) -> list[int]:
        """Seats still holding cards."""
        return [i for i, h in enumerate(self.hands) if h]

    def beat_options(self) -> CardSet:
        """Cards the player to act may beat the top card with (respond mode), else 0."""
        if self.phase != RESPOND:
            return 0
        p = self.to_act
        return self.game._beat[p][self.pile[-1]] & self.hands[p]

    def pickup_count(self) -> int:
        """Cards a refusal would take now (0 when refusing is not possible)."""
        if self.phase != RESPOND:
            return 0
        return min(self.game._req[self.to_act][self.pile[-1]], len(self.pile))

    def pickup_cards(self) -> list[Card]:
        """The cards a refusal would take now, top first."""
        return self.pile_cards()[::-1][: self.pickup_count()]

    def first_out(self) -> int | None:
        """The first seat to go out (the hand's winner), if any."""
        return self.outs[0][0] if self.outs else None

    def _key(self) -> int:
        return self.zob ^ _ZT[self.to_act * 4 + self.phase]

    def repetition_count(self) -> int:
        """How often the current position has occurred (at turn boundaries)."""
        if not self.game._rep_limit or self.phase not in (FREE, RESPOND):
            return 0
        return self._count(self._key())

    def _freeze_history(self) -> Any:
        level = self._hist
        parent = self._hist_parent
        if not level:
            return parent
        while parent is not None and len(parent[0]) <= 2 * len(level):
            merged = dict(parent[0])
            for k, v in level.items():
                merged[k] = merged.get(k, 0) + v
            level = merged
            parent = parent[1]
        parent = self._hist_parent = (level, parent)
        self._hist = {}
        return parent

    def _count(self, key: int) -> int:
        cnt = self._hist.get(key, 0)
        node = self._hist_parent
        while node is not None:
            cnt += node[0].get(key, 0)
            node = node[1]
        return cnt

    def start_state(self) -> State:
        """A fresh state at the start of this hand (the deal, or the start position)."""
        o = self.origin
        if o.deck is not None and o.dealer is not None:
            return self.game.deal(o.dealer, o.deck)
        st = o.start
        assert st is not None
        return self.game.position(
            list(st.hands),
            list(st.pile),
            st.to_act,
            st.phase,
            st.outs,
            discard=st.discard,
            turns=st.turns,
            outcome=st.outcome,
            known=st.known,
        )

    def known_cards(self, seat: int) -> CardSet:
        """Cards publicly known to be in ``seat``'s hand: a six handed to its owner,
        or a card the seat picked up (a card leaves a hand only face up, and only a
        pickup brings it back, so the last pickup names its holder)."""
        if self.game.open_hands:
            return self.hands[seat]
        return (self.origin.known[seat] | self.picked[seat]) & self.hands[seat]

    def history(self) -> list[tuple[int, Move, CardSet]]:
        """Turns played in this hand: ``(seat, move, cards picked up)``, oldest first."""
        return [decode_log_entry(e) for e in self.log[: self.log_len]]

    def _append_log(self, entry: int) -> None:
        # The log list is shared by copies; whoever appends first extends it in
        # place, a later diverging copy takes its own prefix.
        log = self.log
        n = self.log_len
        if len(log) != n:
            log = self.log = log[:n]
        log.append(entry)
        self.log_len = n + 1

    # -- step level ------------------------------------------------------------

    def legal_actions(self) -> tuple[int, ...]:
        """Legal step-level actions (card indices, and :data:`PICKUP`)."""
        ph = self.phase
        if ph == RESPOND:
            p = self.to_act
            m = (self.game._beat[p][self.pile[-1]] & self.hands[p]) | _PICKUP_BIT
        elif ph == OVER:
            return ()
        else:
            m = self.hands[self.to_act]
        # No memo here: in random play and simulations the masks rarely repeat, so a
        # shared memo mostly inserts (and clears when full); four table lookups are
        # cheaper.  The searches' move generation keeps the memo (moves.py), where
        # the same hands come back again and again.
        return _T0[m & 1023] + _T1[m >> 10 & 1023] + _T2[m >> 20 & 1023] + _T3[m >> 30]

    def legal_action_mask(self) -> int:
        """Legal step-level actions as a bitmask (bit :data:`PICKUP` for a refusal)."""
        ph = self.phase
        if ph == RESPOND:
            p = self.to_act
            return (self.game._beat[p][self.pile[-1]] & self.hands[p]) | _PICKUP_BIT
        if ph == OVER:
            return 0
        return self.hands[self.to_act]

    def apply_action(self, a: object) -> None:
        """Apply a step-level action (an int, or an int-like such as a NumPy integer);
        illegal actions raise :class:`IllegalMoveError` and change nothing."""
        if type(a) is int:
            self._step(a)
            return
        i = as_action(a)
        if i < 0:
            raise self._illegal_step(a)
        self._step(i)

    def _step(self, a: int) -> None:
        ph = self.phase
        p = self.to_act
        h = self.hands[p]
        if ph == RESPOND:
            if a == PICKUP:
                self._pickup(p)
                return
            if a < 0 or not (self.game._beat[p][self.pile[-1]] & h) >> a & 1:
                raise self._illegal_step(a)
            h ^= 1 << a
            self.hands[p] = h
            pile = self.pile
            self.zob ^= _ZH[p][a] ^ _ZP[len(pile)][a]
            pile.append(a)
            if h:
                self.phase = LEAD
            else:
                self._went_out(p, OutKind.DEFENCE, p | (a + 1) << 2)
            return
        if ph == OVER or a < 0 or not h >> a & 1:
            raise self._illegal_step(a)
        pile = self.pile
        # log entry: seat | (beat + 1) << 2 | (lead + 1) << 8
        entry = p | ((pile[-1] + 1) << 2 if ph == LEAD else 0) | (a + 1) << 8
        h ^= 1 << a
        self.hands[p] = h
        self.zob ^= _ZH[p][a] ^ _ZP[len(pile)][a]
        pile.append(a)
        if h:
            g = self.game
            q = g.next_seat[p]
            hands = self.hands
            while not hands[q]:
                q = g.next_seat[q]
            self.to_act = q
            self.phase = RESPOND
            self._append_log(entry)
            self._end_turn()
        else:
            self._went_out(p, OutKind.LEAD, entry)

    def _illegal_step(self, a: object) -> IllegalMoveError:
        if self.phase == OVER:
            return HandOverError("the hand is over: no more actions")
        if not isinstance(a, int) or isinstance(a, bool) or not 0 <= a <= PICKUP:
            return IllegalMoveError(f"step action must be an int in 0..{PICKUP}, not {a!r}")
        who = seat_name(self.to_act)
        if a == PICKUP:
            return IllegalMoveError(f"{who} cannot pick up now: {PHASE_NAMES[self.phase]} mode")
        c = format_card(a)
        if not self.hands[self.to_act] >> a & 1:
            return IllegalMoveError(f"{c} is not in {who}'s hand")
        top = self.top
        assert top is not None
        return IllegalMoveError(f"{c} does not beat {format_card(top)} for {who}")

    def _pickup(self, p: int) -> None:
        g = self.game
        pile = self.pile
        n_pile = len(pile)
        k = g._req[p][pile[-1]]
        if k > n_pile:
            k = n_pile
        taken = 0
        z = self.zob
        zh = _ZH[p]
        for i in range(n_pile - 1, n_pile - 1 - k, -1):
            c = pile.pop()
            taken |= 1 << c
            z ^= _ZP[i][c] ^ zh[c]
        self.zob = z
        self.hands[p] |= taken
        picked = self.picked
        self.picked = (*picked[:p], picked[p] | taken, *picked[p + 1 :])
        self._append_log(p | taken << 14)
        if g._taker_leads:
            q = p
        else:
            q = g.next_seat[p]
            hands = self.hands
            while not hands[q]:
                q = g.next_seat[q]
        self.to_act = q
        self.phase = RESPOND if pile and g._face_new_top else FREE
        self._end_turn()

    def _went_out(self, p: int, kind: OutKind, entry: int) -> None:
        g = self.game
        rules = g.rules
        self._append_log(entry)
        self.outs = (*self.outs, (p, kind))
        hands = self.hands
        remaining = [i for i in range(g.n) if hands[i]]
        if len(remaining) <= 1:
            self.turns += 1
            self.phase = OVER
            self.to_act = -1
            if not remaining:  # cannot happen with at least two active players
                self.outcome = Outcome(None, Termination.LAST_CARD)
                return
            last = remaining[0]
            hl = hands[last]
            top = self.pile[-1]
            if rules.is_besicovitch:
                draw_rule = "lead_only" if rules.besicovitch_draw_rule else "none"
            else:
                draw_rule = rules.draw_rule
            single = hl & (hl - 1) == 0
            if (
                draw_rule != "none"
                and single
                and (draw_rule == "any_last_card" or kind is OutKind.LEAD)
                and g._beat[last][top] & hl
            ):
                self.outcome = Outcome(None, Termination.LAST_CARD)
            else:
                self.outcome = Outcome(last, Termination.OUT)
            return
        q = g.next_seat[p]
        while not hands[q]:
            q = g.next_seat[q]
        self.to_act = q
        if kind is OutKind.DEFENCE:
            if rules.defence_out_pile == "discard":
                d = self.discard
                z = self.zob
                for i, c in enumerate(self.pile):
                    d |= 1 << c
                    z ^= _ZP[i][c] ^ _ZD[c]
                self.discard = d
                self.zob = z
                self.pile = []
            self.phase = FREE if rules.free_lead_after_defence_out or not self.pile else RESPOND
        else:
            self.phase = RESPOND
        self._end_turn()

    def _end_turn(self) -> None:
        turns = self.turns = self.turns + 1
        g = self.game
        limit = g._rep_limit
        if limit:
            key = self.zob ^ _ZT[self.to_act * 4 + self.phase]
            hist = self._hist
            if self._hist_parent is None:
                cnt = hist.get(key, 0) + 1
            else:
                cnt = self._count(key) + 1
            hist[key] = hist.get(key, 0) + 1
            if cnt >= limit:
                self._finish(Outcome(None, Termination.REPETITION))
                return
        cap = g._cap
        if cap and turns >= cap:
            self._cap()

    def _finish(self, outcome: Outcome) -> None:
        self.outcome = outcome
        self.phase = OVER
        self.to_act = -1

    def _cap(self) -> None:
        if self.game.rules.cap_outcome == "most_cards_loses":
            sizes = [h.bit_count() for h in self.hands]
            most = max(sizes)
            if sizes.count(most) == 1:
                self._finish(Outcome(sizes.index(most), Termination.ACTION_CAP))
                return
        self._finish(Outcome(None, Termination.ACTION_CAP))

    # -- turn level ------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Legal turn-level moves (empty once the hand is over)."""
        ph = self.phase
        p = self.to_act
        top = self.pile[-1] if self.pile else -1
        return moves_for(self.game, p, self.hands[p] if ph != OVER else 0, top, ph)

    def count_legal_moves(self) -> int:
        """Number of legal turn-level moves, without building them."""
        ph = self.phase
        p = self.to_act
        h = self.hands[p] if ph != OVER else 0
        if ph == FREE:
            return h.bit_count()
        if ph == RESPOND:
            b = (self.game._beat[p][self.pile[-1]] & h).bit_count()
            n = h.bit_count()
            return 1 + (b if n == 1 else b * (n - 1))
        if ph == LEAD:
            return h.bit_count()
        return 0

    def is_legal(self, move: object) -> bool:
        """Is ``move`` legal now?"""
        try:
            self._check_move(move)
        except IllegalMoveError:
            return False
        return True

    def _check_move(self, move: object, seat: int | None = None) -> None:
        if seat is not None and self.phase != OVER and seat != self.to_act:
            raise IllegalMoveError(
                f"it is {seat_name(self.to_act)}'s turn, not {seat_name(seat)}'s"
            )
        check_move(
            self.game,
            self.to_act,
            self.hands[self.to_act] if self.phase != OVER else 0,
            self.pile[-1] if self.pile else -1,
            self.phase,
            move,
        )

    def push(self, move: object, seat: object = None) -> None:
        """Apply a turn-level move, a :class:`Move` (python-chess's ``Board.push``).  With
        ``seat`` (an index or letter) the move is also refused unless it is that
        seat's turn.  Illegal moves raise :class:`IllegalMoveError` and change
        nothing; text goes through :meth:`push_text`.  (``move`` is typed
        ``object`` on purpose: anything else than a ``Move`` is refused with an
        :class:`InvalidMoveError`, never a bare ``TypeError`` from the compiled
        build.)"""
        if not isinstance(move, Move):
            hint = " (use push_text for notation)" if isinstance(move, str) else ""
            raise InvalidMoveError(f"expected a Move, not {type(move).__name__}{hint}")
        self._check_move(move, None if seat is None else parse_seat(seat, self.game.n))
        before = (
            self.hands[:],
            self.pile[:],
            self.to_act,
            self.phase,
            self.outs,
            self.discard,
            self.outcome,
            self.turns,
            self.log_len,
            self.zob,
            self.picked,
            self._freeze_history(),
        )
        self.push_unchecked(move)
        self._undo = _Snapshot(*before, move, self._undo, self.log_len, self.zob)

    def push_text(self, text: str, seat: object = None) -> Move:
        """Apply a move given in the move notation (``"beat QH lead 6S"``, ``"lead 7D"``,
        ``"pickup"``) and return it (python-chess's ``push_san``).  Malformed text
        raises :class:`InvalidMoveError`, an illegal move :class:`IllegalMoveError`;
        either changes nothing."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"expected move notation, not {type(text).__name__}")
        move = Move.parse(text)
        self.push(move, seat)
        return move

    def pop(self) -> Move:
        """Undo the last move made with :meth:`push` and return it (python-chess's
        ``Board.pop``).  Cheap: the state before each :meth:`push` is kept as a small
        named snapshot (hands, pile, counters; the repetition counts are frozen and
        shared), and copies share the stack.  Moves made with :meth:`apply_action` or
        :meth:`push_unchecked` (the search hot path) keep no snapshot: after such a
        move :meth:`pop` raises :class:`PositionError` rather than undo the wrong thing.
        An empty stack raises :class:`EmptyMoveStackError`, an :class:`IndexError` like
        ``list.pop``'s (and a :class:`SvoiKozyriError`).
        """
        u: _Snapshot | None = self._undo
        if u is None:
            raise EmptyMoveStackError(
                "pop from an empty move stack: no move made with push() to undo"
            )
        if self.log_len != u.after_log_len or self.zob != u.after_zob:
            raise PositionError(
                "cannot pop: actions were applied with apply_action() or push_unchecked() "
                "after the last push()"
            )
        self.hands = u.hands[:]
        self.pile = u.pile[:]
        self.to_act = u.to_act
        self.phase = u.phase
        self.outs = u.outs
        self.discard = u.discard
        self.outcome = u.outcome
        self.turns = u.turns
        self.log_len = u.log_len
        self.zob = u.zob
        self.picked = u.picked
        self._hist_parent = u.hist_parent
        self._hist = {}
        self._undo = u.parent
        return u.move

    @property
    def move_stack(self) -> list[Move]:
        """The moves :meth:`pop` can undo, oldest first."""
        out: list[Move] = []
        u: _Snapshot | None = self._undo
        while u is not None:
            out.append(u.move)
            u = u.parent
        out.reverse()
        return out

    def push_unchecked(self, move: Move) -> None:
        """Apply a move taken from :meth:`legal_moves` without checking it again
        (search hot path).  An illegal move here corrupts the state."""
        if move.beat is None:
            self.apply_action(PICKUP if move.lead is None else move.lead)
            return
        self.apply_action(move.beat)
        if move.lead is not None:
            self.apply_action(move.lead)

    def returns(self) -> tuple[float, ...]:
        """Per-seat returns: -1 for the durak and 0 for the others (a draw or an
        unfinished hand is 0 for all); in the Besicovitch game, where the first out
        wins, +1 for the winner."""
        n = self.game.n
        r = self.outcome
        if r is None or r.loser is None:
            return (0.0,) * n
        if self.game.rules.is_besicovitch:
            return tuple(-1.0 if i == r.loser else 1.0 for i in range(n))
        return tuple(-1.0 if i == r.loser else 0.0 for i in range(n))

    def __str__(self) -> str:
        """A multi-line diagram of the table, every hand shown (:func:`~.diagram.diagram`)."""
        hands = list(self.hands)
        sizes = [h.bit_count() for h in hands]
        pile = self.pile_cards()
        return diagram(
            self.game,
            hands,
            sizes,
            pile,
            None if self.phase == OVER else self.to_act,
            self.phase,
            self.outs,
            self.outcome,
        )

    def __repr__(self) -> str:
        hands = " | ".join(
            f"{seat_name(i)}: {format_cards(h) or '-'}" for i, h in enumerate(self.hands)
        )
        return (
            f"<State {hands} ; pile: {format_cards(self.pile_cards()) or '-'} ; "
            f"{('to act ' + seat_name(self.to_act) + ' ' + PHASE_NAMES[self.phase]) if self.phase != OVER else str(self.outcome)}>"  # noqa: E501
        )

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, State)
            and self.game == other.game
            and self.hands == other.hands
            and self.pile == other.pile
            and self.to_act == other.to_act
            and self.phase == other.phase
            and self.outs == other.outs
            and self.discard == other.discard
            and self.outcome == other.outcome
        )

    __hash__ = None  # type: ignore[assignment]
