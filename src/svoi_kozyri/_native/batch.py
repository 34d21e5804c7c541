"""The simulator's compiled batch of hands, behind a typed facade.

:class:`Batch` owns the arrays the kernels of :mod:`._batch` work on (the hands'
rows, their piles and decks, the game's tables, the repetition pool) and calls the
kernels with them; the pool grows here, out of sight, whenever a kernel asks for it
(a kernel that needs more pool changes nothing and says so, and the call is made
again).  :class:`svoi_kozyri.envs.vector.VectorGame` is the public API over it and
checks every argument before it gets here: the kernels check nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..core import NUM_ACTIONS, NUM_CARDS, Game
from . import _batch, _hand
from ._jit import F32s, F64s, I8s, I64s
from ._reptable import pool_missing
from .layout import C_TOFF, F_REP, F_SIZE, M_SIZE, NEED_POOL, OBS_SIZE, S_WIDTH


def kernel_flags(game: Game) -> I64s:
    """The kernels' flag vector of ``game`` (the ``F_*`` of :mod:`.layout`): the
    rules options the compiled hand logic follows."""
    rules = game.rules
    draw = {"none": 0, "lead_only": 1, "any_last_card": 2}[rules.draw_rule]
    flags = np.array(
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
    assert flags.shape[0] == F_SIZE
    return flags


class Batch:
    """``size`` hands of ``game`` in the compiled layout (:mod:`.layout`).

    ``state`` is the (size, S_WIDTH) int64 array of the hands' rows, ``pile`` the
    piles (bottom first) and ``decks`` each hand's deck order (top card first, -1
    padded); the caller may read them (and views of their columns) but changes them
    only through these methods.  ``seats`` gives, per seat, the observation's card
    permutation, constant scalars and relative seats (``envs.encoding.SeatView``).
    """

    __slots__ = (
        "_M",
        "_Q",
        "_beat",
        "_const",
        "_deck",
        "_flags",
        "_nxt",
        "_pool",
        "_rel_of_abs",
        "_rel_seat",
        "_req",
        "_suit_owner",
        "decks",
        "pile",
        "state",
    )

    def __init__(
        self,
        game: Game,
        size: int,
        rel_of_abs: Sequence[npt.ArrayLike],
        const: Sequence[npt.ArrayLike],
        rel_seat: Sequence[npt.ArrayLike],
    ) -> None:
        n = game.n
        self._beat = np.array([game.beat_row(s) for s in range(n)], dtype=np.int64)
        self._req = np.array([game.pickup_row(s) for s in range(n)], dtype=np.int64)
        self._nxt = np.array(game.next_seat, dtype=np.int64)
        self._suit_owner = np.array(game.suit_owner, dtype=np.int64)
        self._flags = kernel_flags(game)
        self._deck = game.deck
        self._rel_of_abs = np.array(rel_of_abs, dtype=np.int64)
        self._const = np.array(const, dtype=np.float32)
        self._rel_seat = np.array(rel_seat, dtype=np.int64)
        self.state: I64s = np.zeros((size, S_WIDTH), dtype=np.int64)
        self.pile: I8s = np.zeros((size, NUM_CARDS), dtype=np.int8)
        self.decks: I8s = np.full((size, NUM_CARDS), -1, dtype=np.int8)
        # repetition tables: per hand a slab of the pool (offset, log2 size, entries)
        self.state[:, C_TOFF] = -1
        self._pool: I64s = np.zeros(size << 7 if self._flags[F_REP] else 1, dtype=np.int64)
        self._M: I64s = np.zeros(M_SIZE, dtype=np.int64)  # words in use, queued, free lists
        self._M[2:] = -1
        # the (row, key) positions of one batch step, counted after all hands moved
        self._Q: I64s = np.zeros((2, size), dtype=np.int64)

    @property
    def repetition(self) -> bool:
        """Whether these rules count repeated positions (the pool is in use)."""
        return bool(self._flags[F_REP])

    def grow_pool(self, new_rows: int = 0) -> None:
        """Make the pool large enough for the worst case of the next kernel call
        (the slabs keep their offsets: the words are copied to the same places)."""
        missing = pool_missing(self.state, self._pool, self._M, new_rows)
        if missing <= 0:
            return
        old = self._pool
        self._pool = np.zeros(max(2 * len(old), len(old) + missing), dtype=np.int64)
        self._pool[: len(old)] = old

    def deal(self, rows: I64s, dealers: I64s, orders: I8s) -> None:
        """Deal the deck orders ``orders[j]`` (top card first) into ``rows[j]`` from
        ``dealers[j]`` (checked by the caller)."""
        args = (rows, dealers, orders, self.state, self.pile, self.decks, self._flags)
        while _batch.deal_many(*args, self._suit_owner, self._pool, self._M) == NEED_POOL:
            self.grow_pool(len(rows))

    def load(
        self,
        row: int,
        hands: Sequence[int],
        known: Sequence[int],
        pile: Sequence[int],
        discard: int,
        to_act: int,
        phase: int,
        turns: int,
    ) -> None:
        """Put a position into ``row``, its repetition count started afresh there
        (the caller grew the pool for the rows it loads: :meth:`grow_pool`)."""
        _hand.load(
            row,
            np.array([*hands, *[0] * (4 - len(hands))], dtype=np.int64),
            np.array([*known, *[0] * (4 - len(known))], dtype=np.int64),
            np.array([*pile, *[0] * (NUM_CARDS - len(pile))], dtype=np.int8),
            len(pile),
            discard,
            to_act,
            phase,
            turns,
            self.state,
            self.pile,
            self.decks,
            self._flags,
            self._pool,
            self._M,
        )

    def step(self, actions: I64s) -> int:
        """Apply one action per live hand, all or none: -1, or the first row whose
        action is not legal (nothing changed)."""
        args = (actions, self.state, self.pile, self._flags, self._beat, self._req, self._nxt)
        while (bad := _batch.step_all(*args, self._pool, self._M, self._Q)) == NEED_POOL:
            self.grow_pool()
        return bad

    def step_random(self, u: F64s, actions: I64s) -> None:
        """Play in every live hand the legal action the uniform draw ``u[b]`` picks,
        written into ``actions`` (-1 where the hand is over)."""
        args = (u, actions, self.state, self.pile, self._flags, self._beat, self._req)
        while _batch.step_random(*args, self._nxt, self._pool, self._M, self._Q) == NEED_POOL:
            self.grow_pool()

    def random_actions(self, u: F64s) -> I64s:
        """The legal action the uniform draw ``u[b]`` picks per hand (-1: over)."""
        out = np.empty(self.state.shape[0], dtype=np.int64)
        _batch.random_actions(u, out, self.state, self.pile, self._beat)
        return out

    def legal_masks(self, out: I8s | None = None) -> I8s:
        """(size, 41) int8 legal-action masks (all zero for hands that are over),
        into ``out`` (C-contiguous) if given."""
        if out is None:
            out = np.empty((self.state.shape[0], NUM_ACTIONS), dtype=np.int8)
        _batch.legal_masks(out, self.state, self.pile, self._beat)
        return out

    def observations(self, seats: I64s, out: F32s | None = None) -> F32s:
        """(size, OBS_SIZE) float32 tensors, row ``b`` seen by ``seats[b]``, into
        ``out`` (C-contiguous) if given."""
        if out is None:
            out = np.empty((self.state.shape[0], OBS_SIZE), dtype=np.float32)
        _batch.observations(
            out,
            seats,
            self.state,
            self.pile,
            self._flags,
            self._req,
            self._rel_of_abs,
            self._const,
            self._rel_seat,
            self._deck,
        )
        return out
