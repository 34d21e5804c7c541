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
``_kernels``), emptied when the hand is dealt again or a player goes out, so
memory follows the live hands; a batch step's positions are counted in one
prefetched pass after all hands moved.

Layout: every array has the batch as its first axis.  Actions are the engine's 41
step-level actions; observations are :mod:`~svoi_kozyri.envs.encoding`'s tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..core import NUM_ACTIONS, NUM_CARDS, Game, IllegalMoveError, Rules, RulesError, State
from ..core.cards import cards_of
from . import _kernels as K
from ._kernels import _OVER, REASONS
from .encoding import OBS_SIZE, SCALAR_OFFSET, seat_view
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


def kernel_flags(game: Game) -> npt.NDArray[np.int64]:
    """The kernels' flag vector of ``game`` (``_kernels._F_*``)."""
    rules = game.rules
    draw = {"none": 0, "lead_only": 1, "any_last_card": 2}[rules.draw_rule]
    return np.array(
        [
            game.n,
            rules.repetition_limit or 0,
            rules.max_actions_per_hand or 0,
            int(rules.after_pickup == "face_new_top"),
            int(rules.free_lead_after_defence_out),
            int(rules.defence_out_pile == "discard"),
            draw,
            int(rules.cap_outcome == "most_cards_loses"),
        ],
        dtype=np.int64,
    )


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
        self._beat = np.array([game.beat_row(s) for s in range(n)], dtype=np.int64)
        self._req = np.array([game.pickup_row(s) for s in range(n)], dtype=np.int64)
        self._nxt = np.array(game.next_seat, dtype=np.int64)
        self._suit_owner = np.array(game.suit_owner, dtype=np.int64)
        self._flags = kernel_flags(game)
        self._deck = np.array(cards_of(game.deck), dtype=np.int8)
        views = [seat_view(game, s) for s in range(n)]
        self._rel_of_abs = np.array([v.rel_of_abs for v in views], dtype=np.int64)
        self._const = np.array([v.const for v in views], dtype=np.float32)
        self._rel_seat = np.array([v.rel_seat for v in views], dtype=np.int64)
        # all the per-hand numbers live in one (B, 32) int64 array, a row per hand
        # (see ``_kernels``); the public arrays below are views of its columns
        S = self._S = np.zeros((B, K.S_WIDTH), dtype=np.int64)
        #: cards held, per hand and seat (bitmasks as in the engine)
        self.hands = S[:, K._C_HANDS : K._C_HANDS + 4]
        #: the pile, bottom first; ``pile_len`` cards of each row are valid
        self.pile = np.zeros((B, NUM_CARDS), dtype=np.int8)
        self.pile_len = S[:, K._C_PLEN]
        self.discard = S[:, K._C_DISCARD]
        #: the seat to act (-1 once over)
        self.to_act = S[:, K._C_TO_ACT]
        #: 0 free, 1 respond, 2 lead (mid-turn), 3 over
        self.phase = S[:, K._C_PHASE]
        self.turns = S[:, K._C_TURNS]
        #: the durak's seat, -1 for a draw or while the hand goes on
        self.loser = S[:, K._C_LOSER]
        #: index into :data:`REASONS` (0 while the hand goes on)
        self.reason = S[:, K._C_REASON]
        self._picked = S[:, K._C_PICKED : K._C_PICKED + 4]
        self._known0 = S[:, K._C_KNOWN : K._C_KNOWN + 4]
        #: each hand's deck order (top card first, -1 padded) and dealer, so any hand
        #: can be replayed with ``game.deal(dealer, deck)``
        self.decks = np.full((B, NUM_CARDS), -1, dtype=np.int8)
        self.dealers = S[:, K._C_DEALER]
        #: hands dealt so far (including the current ones)
        self.hands_dealt = 0
        # repetition tables: per hand a slab of the pool (offset, log2 size, entries)
        S[:, K._C_TOFF] = -1
        self._toff = S[:, K._C_TOFF]
        self._tlog = S[:, K._C_TLOG]
        self._tcnt = S[:, K._C_TCNT]
        self._pool = np.zeros(B << 7 if self._flags[1] else 1, dtype=np.int64)
        self._M = np.zeros(K.M_SIZE, dtype=np.int64)  # pool words in use, queued, free lists
        self._M[2:] = -1
        # the (row, key) positions of one batch step, counted after all hands moved
        self._Q = np.zeros((2, B), dtype=np.int64)
        self._actions = np.zeros(B, dtype=np.int64)
        self.reset()

    def _grow_pool(self, new_rows: int = 0) -> None:
        """Make the pool large enough for the worst case of the next kernel call
        (the slabs keep their offsets: the words are copied to the same places)."""
        missing = int(K._pool_missing(self._S, self._pool, self._M, new_rows))
        if missing <= 0:
            return
        old = self._pool
        self._pool = np.zeros(max(2 * len(old), len(old) + missing), dtype=np.int64)
        self._pool[: len(old)] = old

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
        args = (idx, dl, orders, self._S, self.pile, self.decks, self._flags, self._suit_owner)
        while K._deal_many(*args, self._pool, self._M) == K._NEED_POOL:
            self._grow_pool(len(idx))
        self.hands_dealt += len(idx)

    def load(self, rows: npt.ArrayLike, states: list[State]) -> None:
        """Put engine states (of this game, not over) into ``rows``: positions, not
        only deals, can be simulated.  Like :meth:`Observation.to_state`, repetition
        counts start afresh from the loaded position; ``decks`` of these rows are -1."""
        idx = np.asarray(rows, dtype=np.int64).reshape(-1)
        if len(idx) != len(states):
            raise ValueError("one state per row")
        if self._flags[1]:
            self._grow_pool(len(idx))
        for b, state in zip(idx.tolist(), states, strict=True):
            if state.game != self.game:
                raise RulesError("the state belongs to another game")
            if state.is_over:
                raise ValueError("the hand of that state is over")
            hands = [0, 0, 0, 0]
            hands[: self.n] = state.hands
            known = [0, 0, 0, 0]
            known[: self.n] = [state.known_cards(i) for i in range(self.n)]
            pile = state.pile_cards()
            K._load(
                b,
                np.array(hands, dtype=np.int64),
                np.array(known, dtype=np.int64),
                np.array(pile + [0] * (NUM_CARDS - len(pile)), dtype=np.int8),
                len(pile),
                state.discard,
                state.to_act,
                state.phase,
                state.turns,
                self._S,
                self.pile,
                self.decks,
                self._flags,
                self._pool,
                self._M,
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
        args = (acts, self._S, self.pile, self._flags, self._beat, self._req, self._nxt)
        while (bad := K._step_all(*args, self._pool, self._M, self._Q)) == K._NEED_POOL:
            self._grow_pool()
        if bad >= 0:
            raise IllegalMoveError(
                f"row {bad}: action {int(acts[bad])} is not legal "
                f"(legal: {np.flatnonzero(self.legal_masks()[bad]).tolist()})"
            )

    def random_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action per hand (-1 where the hand is over)."""
        out = np.empty(self.batch_size, dtype=np.int64)
        K._random_actions(self.rng.random(self.batch_size), out, self._S, self.pile, self._beat)
        return out

    def step_random(self) -> npt.NDArray[np.int64]:
        """Play one uniformly random legal action in every live hand (one compiled
        pass: the fast path for random rollouts); returns the actions (-1: over)."""
        u = self.rng.random(self.batch_size)
        args = (u, self._actions, self._S, self.pile, self._flags, self._beat, self._req)
        while K._step_random(*args, self._nxt, self._pool, self._M, self._Q) == K._NEED_POOL:
            self._grow_pool()
        return self._actions.copy()

    # -- views ------------------------------------------------------------------------

    def legal_masks(self, out: npt.NDArray[np.int8] | None = None) -> npt.NDArray[np.int8]:
        """(B, 41) int8 legal-action masks (all zero for hands that are over)."""
        if out is None:
            out = np.empty((self.batch_size, NUM_ACTIONS), dtype=np.int8)
        K._legal_masks(out, self._S, self.pile, self._beat)
        return out

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
        if out is None:
            out = np.empty((self.batch_size, OBS_SIZE), dtype=np.float32)
        K._observations(
            out,
            s,
            self._S,
            self.pile,
            self._flags,
            self._req,
            self._rel_of_abs,
            self._const,
            self._rel_seat,
            self.game.deck,
        )
        return out

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
