"""One hand in the vector simulator's compiled layout: the AEC environment's fast path.

Why: an AEC environment steps one hand at a time and must return an observation
every step.  With the engine's state (a compiled Python object) each observation
meant reading about twenty fields back into Python and passing them to numba,
which cost more than the engine step itself.  Here the whole hand, with every table
the rules and the encoder need, lives in one int64 array (``_kernels.W_*``), so a
step is one compiled call (``aec_step``: check, apply, count the position for the
repetition guard, and return the next turn's legal actions and seat packed in one
int) and an observation is another (``aec_observe``).  The hand logic and the
encoder are the batch kernels' own (a batch of one), which the tests replay against
the engine move for move.

The environment keeps the engine's state too, brought up to date from the actions
played only when someone asks for it (``raw_env.hand``), so nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from numba import types

from ..core import NUM_ACTIONS, NUM_CARDS, Game, State
from . import _kernels as K
from .encoding import OBS_SIZE, seat_view
from .vector import kernel_flags

#: :meth:`FastHand.step` results besides a packed next turn (see ``_kernels``)
ILLEGAL: Final = K.AEC_ILLEGAL
OVER: Final = K.AEC_OVER
#: the repetition pool must grow first (nothing changed; :meth:`FastHand.step` grows it)
NEED_POOL: Final = K._NEED_POOL
SEAT_SHIFT: Final = K.AEC_SEAT_SHIFT
LEGAL_BITS: Final = (1 << SEAT_SHIFT) - 1

_F32: Final = np.dtype(np.float32)
_I8: Final = np.dtype(np.int8)
_I64C: Final = types.Array(types.int64, 1, "C")


def _entry(kernel: Any, sig: tuple[Any, ...], *example: Any) -> Callable[..., Any]:
    """``kernel``'s compiled entry point for ``sig`` (compiled with ``example``
    on first use), or the dispatcher if this numba does not expose it.  The entry
    point skips numba's type dispatch but checks nothing, so only :class:`FastHand`
    calls it, with arrays it made itself."""
    kernel(*example)
    try:
        res = kernel.overloads.get(sig)
    except AttributeError:  # pragma: no cover - another numba
        return kernel  # type: ignore[no-any-return]
    return kernel if res is None else res.entry_point  # type: ignore[no-any-return]


class FastHand:
    """One hand of ``game`` in one int64 array, stepped and observed by one
    compiled call each.

    >>> import random
    >>> from svoi_kozyri import Game, Rules
    >>> game = Game(Rules(num_players=2))
    >>> state = game.new_hand(0, random.Random(1))
    >>> fh = FastHand(game); fh.load(state)
    >>> a = state.legal_actions()[0]
    >>> r = fh.step(a); state.apply_action(a)
    >>> r >> SEAT_SHIFT == state.to_act_seat, r & LEGAL_BITS == state.legal_action_mask()
    (True, True)
    """

    __slots__ = ("W", "_observe", "_step", "_step_observe", "n")

    def __init__(self, game: Game) -> None:
        n = self.n = game.n
        flags = kernel_flags(game)
        # the hand's tables and fields, then its repetition pool (grown on demand)
        W = self.W = np.zeros(K.W_SIZE + (1 << 7 if flags[1] else 1), dtype=np.int64)
        W[K.W_S + K._C_TOFF] = -1  # no repetition table yet
        W[K.W_M + 2 : K.W_M + K.M_SIZE] = -1  # empty free lists
        W[K.W_FLAGS : K.W_FLAGS + 8] = flags
        W[K.W_BEAT : K.W_BEAT + n * NUM_CARDS] = np.ravel([game.beat_row(s) for s in range(n)])
        W[K.W_REQ : K.W_REQ + n * NUM_CARDS] = np.ravel([game.pickup_row(s) for s in range(n)])
        W[K.W_NXT : K.W_NXT + n] = game.next_seat
        views = [seat_view(game, s) for s in range(n)]
        W[K.W_RELABS : K.W_RELABS + n * NUM_CARDS] = np.ravel([v.rel_of_abs for v in views])
        rel = np.zeros((4, 4), dtype=np.int64)
        rel[:n, :n] = [v.rel_seat for v in views]
        W[K.W_REL : K.W_REL + 16] = rel.ravel()
        W[K.W_DECK] = game.deck
        const = np.array([v.const for v in views], dtype=np.int64)
        assert const.shape[1] == K.W_NCONST
        W[K.W_CONST : K.W_CONST + n * K.W_NCONST] = const.ravel()
        self._bind()

    def _bind(self) -> None:
        """Take the kernels' compiled entry points (compiled on first use, on copies
        of the arrays: an example call must not change this hand)."""
        W = self.W
        obs, mask = np.empty(OBS_SIZE, _F32), np.empty(NUM_ACTIONS, _I8)
        obs_sig = (types.Array(types.float32, 1, "C"), types.Array(types.int8, 1, "C"))
        self._observe = _entry(
            K.aec_observe, (_I64C, *obs_sig, types.int64), W.copy(), obs, mask, 0
        )
        self._step = _entry(K.aec_step, (_I64C, types.int64), W.copy(), -1)
        self._step_observe = _entry(
            K.aec_step_observe, (_I64C, types.int64, *obs_sig), W.copy(), -1, obs, mask
        )

    def __getstate__(self) -> tuple[npt.NDArray[np.int64], int]:
        """The hand's array (the entry points are taken again on unpickling)."""
        return self.W, self.n

    def __setstate__(self, state: tuple[npt.NDArray[np.int64], int]) -> None:
        self.W, self.n = state
        self._bind()

    def _grow_pool(self, new_rows: int) -> None:
        """Make the pool (the array after ``W_SIZE``) large enough for the worst case
        of the next call: a longer array, the words copied to the same places."""
        W = self.W
        S = W[K.W_S : K.W_S + K.S_WIDTH].reshape(1, K.S_WIDTH)
        M = W[K.W_M : K.W_M + K.M_SIZE]
        pool = W[K.W_SIZE :]
        missing = int(K._pool_missing(S, pool, M, new_rows))
        if missing > 0:
            grown = np.zeros(K.W_SIZE + max(2 * len(pool), len(pool) + missing), dtype=np.int64)
            grown[: len(W)] = W
            self.W = grown

    def load(self, state: State) -> None:
        """Start from ``state`` (a state of this game whose hand goes on): its
        position, with the repetition count started afresh there, as at a deal."""
        n = self.n
        hands = np.zeros(4, dtype=np.int64)
        hands[:n] = state.hands
        known = np.zeros(4, dtype=np.int64)
        known[:n] = [state.known_cards(i) for i in range(n)]
        pile = state.pile_cards()
        pile_in = np.zeros(NUM_CARDS, dtype=np.int64)
        pile_in[: len(pile)] = pile
        args = (hands, known, pile_in, len(pile), state.discard, state.to_act_seat)
        while K.aec_load(self.W, *args, state.phase, state.turns) == K._NEED_POOL:
            self._grow_pool(1)

    def step(self, a: int) -> int:
        """Apply step action ``a`` (an int in 0..40; the caller checks the type and
        range): :data:`ILLEGAL` (nothing changed), :data:`OVER`, or the next turn's
        legal actions as bits | its seat << :data:`SEAT_SHIFT`."""
        r: int = self._step(self.W, a)
        while r == K._NEED_POOL:
            self._grow_pool(0)
            r = self._step(self.W, a)
        return r

    def step_observe(self, a: int, obs: npt.NDArray[np.float32], mask: npt.NDArray[np.int8]) -> int:
        """:meth:`step`, then, if the hand goes on, the next seat to act's tensor and
        mask written into ``obs`` and ``mask`` (C-contiguous float32[OBS_SIZE] and
        int8[41], which the caller makes: the entry point checks nothing)."""
        r: int = self._step_observe(self.W, a, obs, mask)
        while r == K._NEED_POOL:
            self._grow_pool(0)
            r = self._step_observe(self.W, a, obs, mask)
        return r

    def observe(self, seat: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """``seat``'s tensor and action mask (zeros unless ``seat`` is to act), in
        fresh arrays."""
        obs = np.empty(OBS_SIZE, _F32)
        mask = np.empty(NUM_ACTIONS, _I8)
        self._observe(self.W, obs, mask, seat)
        return obs, mask

    @property
    def loser(self) -> int:
        """The durak's seat once the hand is over (-1: a draw, or not over)."""
        return int(self.W[K.W_S + K._C_LOSER])

    def returns(self) -> tuple[float, ...]:
        """Per-seat returns as :meth:`State.returns` gives them for these rules (never
        the Besicovitch variant): -1 for the durak, 0 for the others and for draws."""
        loser = self.loser
        return tuple(-1.0 if i == loser else 0.0 for i in range(self.n))
