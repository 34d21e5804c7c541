"""A vectorised simulator: B independent hands stepped at once (in the style of pgx).

Why: learning and large evaluations spend most of their time stepping games; one
compiled loop over a batch of hands (numba, no Python per hand) is far faster than
B engine states stepped from Python.  The rules are ported move for move from
:mod:`svoi_kozyri.core.game` and tested against it (``tests/test_envs_vector.py``
replays random batches through both and compares every step), and the rule tables
(which cards beat which for each seat, how many cards a refusal takes) are the
engine's own, so every option that only changes them is supported for free.

Supported: the standard variant with 2, 3 or 4 players and every option that
affects a hand: ``trumps_per_player_2p``, ``own_suits_cross_beat``,
``pickup_rule`` (with ``fixed_pickup_count``), ``after_pickup``,
``free_lead_after_defence_out``, ``defence_out_pile``, ``draw_rule``,
``equal_rank_beats``, ``repetition_limit``, ``max_actions_per_hand`` and
``cap_outcome``; ownership is agreed (the defaults, or ``owners=``).  Refused
with :class:`~svoi_kozyri.core.RulesError`: the Besicovitch variant (mirror deal)
and ``suit_assignment="blind"`` (a new ownership per hand).  Options about a
session or a display (``session_mode``, ``pile_visibility``, ...) do not change a
hand and are accepted.

The repetition guard counts, per hand, every position seen at a turn boundary in
a small table of its own (8-byte entries: 48 key bits and a count; see
:mod:`svoi_kozyri._native._reptable`), emptied when the hand is dealt again or a player goes out, so
memory follows the live hands; a batch step's positions are counted in one
prefetched pass after all hands moved.

Layout: every array has the batch as its first axis.  Actions are the engine's 41
step-level actions; observations are :mod:`~svoi_kozyri.envs.encoding`'s tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .._native import layout as L
from .._native.batch import Batch, kernel_flags
from .._native.layout import PH_OVER as _OVER
from .._native.layout import REASONS
from ..core import NUM_CARDS, Game, IllegalMoveError, Rules, RulesError, State
from ..core.cards import cards_of
from .encoding import SCALAR_OFFSET, seat_view
from .rewards import RewardSpec

__all__ = ["REASONS", "VectorGame", "kernel_flags", "unsupported"]

# --------------------------------------------------------------- the Python class


def unsupported(rules: Rules) -> str | None:
    """Why the compiled hand logic cannot play ``rules`` (``None``: it can)."""
    if rules.is_besicovitch:
        return "the vector simulator does not support the Besicovitch variant"
    if rules.suit_assignment == "blind":
        return "the vector simulator needs agreed ownership (not blind)"
    if (rules.repetition_limit or 0) > 0xFFFF:
        return "the vector simulator counts repetitions up to 65535"
    return None


class VectorGame:
    """``batch_size`` independent hands of one game, stepped together.

    >>> vg = VectorGame(Rules(num_players=4), batch_size=8, seed=1)
    >>> vg.legal_masks().shape, vg.observations().shape
    ((8, 41), (8, 634))
    >>> vg.step(vg.random_actions()); int(vg.turns.max())
    1
    """

    def __init__(
        self,
        rules: Rules | None = None,
        batch_size: int = 1024,
        seed: int | None = None,
        owners: Any = None,
    ) -> None:
        rules = rules or Rules()
        why = unsupported(rules)
        if why is not None:
            raise RulesError(why)
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self.rules = rules
        self.game = game = Game(rules, owners)
        n = self.n = game.n
        self.batch_size = B = batch_size
        self.rng = np.random.default_rng(seed)
        self._deck = np.array(cards_of(game.deck), dtype=np.int8)
        views = [seat_view(game, s) for s in range(n)]
        # the compiled hands: all the per-hand numbers live in one (B, 32) int64
        # array, a row per hand (``_native.layout``); the public arrays below are
        # views of its columns
        self._batch = batch = Batch(
            game,
            B,
            [v.rel_of_abs for v in views],
            [v.const for v in views],
            [v.rel_seat for v in views],
        )
        S = batch.state
        #: cards held, per hand and seat (bitmasks as in the engine)
        self.hands = S[:, L.C_HANDS : L.C_HANDS + 4]
        #: the pile, bottom first; ``pile_len`` cards of each row are valid
        self.pile = batch.pile
        self.pile_len = S[:, L.C_PLEN]
        self.discard = S[:, L.C_DISCARD]
        #: the seat to act (-1 once over)
        self.to_act = S[:, L.C_TO_ACT]
        #: 0 free, 1 respond, 2 lead (mid-turn), 3 over
        self.phase = S[:, L.C_PHASE]
        self.turns = S[:, L.C_TURNS]
        #: the durak's seat, -1 for a draw or while the hand goes on
        self.loser = S[:, L.C_LOSER]
        #: index into :data:`REASONS` (0 while the hand goes on)
        self.reason = S[:, L.C_REASON]
        self._picked = S[:, L.C_PICKED : L.C_PICKED + 4]
        self._known0 = S[:, L.C_KNOWN : L.C_KNOWN + 4]
        #: each hand's deck order (top card first, -1 padded) and dealer, so any hand
        #: can be replayed with ``game.deal(dealer, deck)``
        self.decks = batch.decks
        self.dealers = S[:, L.C_DEALER]
        #: hands dealt so far (including the current ones)
        self.hands_dealt = 0
        self._actions = np.zeros(B, dtype=np.int64)
        self.reset()

    # -- episodes ---------------------------------------------------------------------

    def reset(self, rows: npt.ArrayLike | None = None) -> None:
        """Deal new hands in ``rows`` (all rows by default), from the seeded stream."""
        idx = (
            np.arange(self.batch_size)
            if rows is None
            else np.asarray(rows, dtype=np.int64).reshape(-1)
        )
        k = len(idx)
        if not k:
            return
        orders = self.rng.permuted(np.tile(self._deck, (k, 1)), axis=1)
        dealers = self.rng.integers(0, self.n, size=k)
        self.deal(idx, dealers, orders)

    def deal(self, rows: npt.ArrayLike, dealers: npt.ArrayLike, decks: npt.ArrayLike) -> None:
        """Deal explicit deck orders (top card first) and dealers into ``rows``."""
        idx = np.asarray(rows, dtype=np.int64).reshape(-1)
        dl = np.asarray(dealers, dtype=np.int64).reshape(-1)
        orders = np.asarray(decks, dtype=np.int8).reshape(len(idx), -1)
        if len(dl) != len(idx) or np.any((dl < 0) | (dl >= self.n)):
            raise ValueError("one dealer seat per row, each in 0..n-1")
        want = np.sort(self._deck)
        if orders.shape[1] != len(want) or np.any(np.sort(orders, axis=1) != want):
            raise ValueError("every deck must be an order of exactly this game's cards")
        if np.any((idx < 0) | (idx >= self.batch_size)):
            raise ValueError("row out of range")
        self._batch.deal(idx, dl, orders)
        self.hands_dealt += len(idx)

    def load(self, rows: npt.ArrayLike, states: list[State]) -> None:
        """Put engine states (of this game, not over) into ``rows``: positions, not
        only deals, can be simulated.  Like :meth:`Observation.to_state`, repetition
        counts start afresh from the loaded position; ``decks`` of these rows are -1."""
        idx = np.asarray(rows, dtype=np.int64).reshape(-1)
        if len(idx) != len(states):
            raise ValueError("one state per row")
        for state in states:
            if state.game != self.game:
                raise RulesError("the state belongs to another game")
            if state.is_over:
                raise ValueError("the hand of that state is over")
        if self._batch.repetition:
            self._batch.grow_pool(len(idx))
        for b, state in zip(idx.tolist(), states, strict=True):
            self._batch.load(
                b,
                state.hands,
                [state.known_cards(i) for i in range(self.n)],
                state.pile_cards(),
                state.discard,
                state.to_act,
                state.phase,
                state.turns,
            )

    def reset_done(self) -> npt.NDArray[np.int64]:
        """Deal new hands where the old ones ended; returns those rows."""
        rows = np.flatnonzero(self.phase == _OVER)
        self.reset(rows)
        return rows

    @property
    def done(self) -> npt.NDArray[np.bool_]:
        """Which hands are over."""
        done: npt.NDArray[np.bool_] = self.phase == _OVER
        return done

    # -- stepping -------------------------------------------------------------------

    def step(self, actions: npt.ArrayLike) -> None:
        """Apply one step action per hand (ignored for hands that are over).  If any
        live hand's action is illegal, raises :class:`IllegalMoveError` naming the row
        and changes nothing."""
        acts = np.asarray(actions, dtype=np.int64).reshape(-1)
        if len(acts) != self.batch_size:
            raise ValueError(f"expected {self.batch_size} actions, got {len(acts)}")
        bad = self._batch.step(acts)
        if bad >= 0:
            raise IllegalMoveError(
                f"row {bad}: action {int(acts[bad])} is not legal "
                f"(legal: {np.flatnonzero(self.legal_masks()[bad]).tolist()})"
            )

    def random_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action per hand (-1 where the hand is over)."""
        return self._batch.random_actions(self.rng.random(self.batch_size))

    def step_random(self) -> npt.NDArray[np.int64]:
        """Play one uniformly random legal action in every live hand (one compiled
        pass: the fast path for random rollouts); returns the actions (-1: over)."""
        self._batch.step_random(self.rng.random(self.batch_size), self._actions)
        return self._actions.copy()

    # -- views ------------------------------------------------------------------------

    def legal_masks(self, out: npt.NDArray[np.int8] | None = None) -> npt.NDArray[np.int8]:
        """(B, 41) int8 legal-action masks (all zero for hands that are over)."""
        return self._batch.legal_masks(out)

    def observations(
        self, seats: npt.ArrayLike | None = None, out: npt.NDArray[np.float32] | None = None
    ) -> npt.NDArray[np.float32]:
        """(B, OBS_SIZE) float32 tensors, equal to :func:`encoding.encode_state` of the
        seat to act (``seats``: one seat per hand instead; hands that are over and have
        no seat given are seen from seat 0)."""
        if seats is None:
            s = np.where(self.phase == _OVER, 0, self.to_act)
        else:
            s = np.asarray(seats, dtype=np.int64).reshape(-1)
            if len(s) != self.batch_size or np.any((s < 0) | (s >= self.n)):
                raise ValueError(f"one seat in 0..{self.n - 1} per hand")
        return self._batch.observations(s, out)

    def returns(self) -> npt.NDArray[np.float32]:
        """(B, n) float32: -1 for the durak of a finished hand, 0 otherwise (the
        engine's ``State.returns``)."""
        r = np.zeros((self.batch_size, self.n), dtype=np.float32)
        lost = np.flatnonzero((self.phase == _OVER) & (self.loser >= 0))
        r[lost, self.loser[lost]] = -1.0
        return r

    def rewards(self, spec: RewardSpec | str = "durak") -> npt.NDArray[np.float32]:
        """(B, n) float32: the reward option ``spec`` (:mod:`.rewards`) for every
        finished hand, 0 for the others: -1 for the durak, 0 for the others, and the
        draw value (by default -1) for every seat of a drawn hand.  The batch keeps
        no order of going out, so ``placement`` is refused (the engine-state
        environments pay it)."""
        spec = RewardSpec.parse(spec)
        if spec.kind != "durak":
            raise ValueError("the batch simulator pays the durak reward only")
        r = self.returns()
        drawn = np.flatnonzero((self.phase == _OVER) & (self.loser < 0))
        r[drawn, :] = spec.draw
        return r

    def pile_row(self, b: int) -> list[int]:
        """The pile of hand ``b``, bottom first."""
        return [int(c) for c in self.pile[b, : self.pile_len[b]]]

    def deck_of(self, b: int) -> list[int]:
        """The deck order hand ``b`` was dealt from (top card first)."""
        return [int(c) for c in self.decks[b] if c >= 0]


assert SCALAR_OFFSET == 14 * NUM_CARDS
