"""One hand in the simulator's compiled layout, behind a typed facade: the AEC
environment's fast path.

Why: an AEC environment steps one hand at a time and must return an observation
every step.  With the engine's state (a compiled Python object) each observation
meant reading about twenty fields back into Python and passing them to numba,
which cost more than the engine step itself.  Here the whole hand, with every table
the rules and the encoder need, lives in one int64 array (``W_*`` in
:mod:`.layout`), so a step is one compiled call (check, apply, count the position
for the repetition guard, and return the next turn's legal actions and seat packed
in one int) and an observation is another.  The hand logic and the encoder are the
batch kernels' own (a batch of one), which the tests replay against the engine move
for move.

The hot loop of :mod:`svoi_kozyri.envs.pettingzoo` calls the kernels' compiled
entry points (:attr:`FastHand.step_observe_entry` and :attr:`FastHand.step_entry`)
directly, skipping numba's type dispatch (about a quarter of a call); those check
nothing, so they are typed here by what they must be given (:class:`StepEntry`,
:class:`StepObserveEntry`) and :class:`FastHand`'s own methods wrap them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol, cast

import numpy as np
import numpy.typing as npt
from numba import types

from ..core import NUM_ACTIONS, NUM_CARDS, Game, State
from . import _onehand
from ._jit import F32s, I8s, I64s
from ._reptable import pool_missing
from .batch import kernel_flags
from .layout import (
    AEC_ILLEGAL,
    AEC_OVER,
    AEC_SEAT_SHIFT,
    C_LOSER,
    C_TOFF,
    F_REP,
    F_SIZE,
    M_SIZE,
    NEED_POOL,
    OBS_NCONST,
    OBS_SIZE,
    S_WIDTH,
    W_BEAT,
    W_CONST,
    W_DECK,
    W_FLAGS,
    W_M,
    W_NXT,
    W_REL,
    W_RELABS,
    W_REQ,
    W_S,
    W_SIZE,
)

ILLEGAL: Final = AEC_ILLEGAL
""":meth:`FastHand.step`'s result: the action is not legal (nothing changed)."""
OVER: Final = AEC_OVER
""":meth:`FastHand.step`'s result: the hand ended."""
SEAT_SHIFT: Final = AEC_SEAT_SHIFT
"""A packed next turn: its legal bits, then the seat to act from this bit on."""
LEGAL_BITS: Final = (1 << SEAT_SHIFT) - 1
"""The legal actions' part of a packed next turn."""

_F32: Final = np.dtype(np.float32)
_I8: Final = np.dtype(np.int8)
_I64C: Final = types.Array(types.int64, 1, "C")


class SeatTables(Protocol):
    """What the observation of one seat needs of its game (``envs.encoding.SeatView``
    is one): the card permutation, the relative seats and the constant scalars."""

    @property
    def rel_of_abs(self) -> npt.NDArray[np.int64]: ...

    @property
    def rel_seat(self) -> tuple[int, ...]: ...

    @property
    def const(self) -> npt.NDArray[np.float32]: ...


class StepEntry(Protocol):
    """:func:`._onehand.aec_step`'s entry point: a hand's array and an int in
    0..40, else :data:`ILLEGAL`; :data:`NEED_POOL` when the pool must grow."""

    def __call__(self, W: I64s, a: int, /) -> int: ...


class StepObserveEntry(Protocol):
    """:func:`._onehand.aec_step_observe`'s entry point: as :class:`StepEntry`,
    writing the next observation into C-contiguous float32[OBS_SIZE] and int8[41]
    arrays."""

    def __call__(self, W: I64s, a: int, obs: F32s, mask: I8s, /) -> int: ...


class _ObserveEntry(Protocol):
    def __call__(self, W: I64s, obs: F32s, mask: I8s, seat: int, /) -> None: ...


def _entry(kernel: Callable[..., Any], sig: tuple[Any, ...], *example: Any) -> Any:
    """``kernel``'s compiled entry point for ``sig`` (compiled with ``example``
    on first use), or the dispatcher if this numba does not expose it.  The entry
    point skips numba's type dispatch but checks nothing, so only :class:`FastHand`
    and the caller it hands it to call it, with arrays it made itself."""
    kernel(*example)
    dispatcher: Any = kernel
    try:
        res = dispatcher.overloads.get(sig)
    except AttributeError:  # pragma: no cover - another numba
        return kernel
    return kernel if res is None else res.entry_point


class FastHand:
    """One hand of ``game`` in one int64 array, stepped and observed by one
    compiled call each; ``seats`` holds each seat's :class:`SeatTables`.

    >>> import random
    >>> from svoi_kozyri import Game, Rules
    >>> from svoi_kozyri.envs.encoding import seat_view
    >>> game = Game(Rules(num_players=2))
    >>> state = game.new_hand(0, random.Random(1))
    >>> fh = FastHand(game, [seat_view(game, s) for s in range(game.n)]); fh.load(state)
    >>> a = state.legal_actions()[0]
    >>> r = fh.step(a); state.apply_action(a)
    >>> r >> SEAT_SHIFT == state.to_act, r & LEGAL_BITS == state.legal_action_mask()
    (True, True)
    """

    __slots__ = ("W", "_observe", "n", "step_entry", "step_observe_entry")

    def __init__(self, game: Game, seats: Sequence[SeatTables]) -> None:
        n = self.n = game.n
        flags = kernel_flags(game)
        # the hand's tables and fields, then its repetition pool (grown on demand)
        W = self.W = np.zeros(W_SIZE + (1 << 7 if flags[F_REP] else 1), dtype=np.int64)
        W[W_S + C_TOFF] = -1  # no repetition table yet
        W[W_M + 2 : W_M + M_SIZE] = -1  # empty free lists
        W[W_FLAGS : W_FLAGS + F_SIZE] = flags
        W[W_BEAT : W_BEAT + n * NUM_CARDS] = np.ravel([game.beat_row(s) for s in range(n)])
        W[W_REQ : W_REQ + n * NUM_CARDS] = np.ravel([game.pickup_row(s) for s in range(n)])
        W[W_NXT : W_NXT + n] = game.next_seat
        W[W_RELABS : W_RELABS + n * NUM_CARDS] = np.ravel([v.rel_of_abs for v in seats])
        rel = np.zeros((4, 4), dtype=np.int64)
        rel[:n, :n] = [v.rel_seat for v in seats]
        W[W_REL : W_REL + 16] = rel.ravel()
        W[W_DECK] = game.deck
        const = np.array([v.const for v in seats], dtype=np.int64)
        if const.shape[1] != OBS_NCONST:
            raise ValueError(f"a seat's constants must be {OBS_NCONST} values")
        W[W_CONST : W_CONST + n * OBS_NCONST] = const.ravel()
        self._bind()

    def _bind(self) -> None:
        """Take the kernels' compiled entry points (compiled on first use, on copies
        of the arrays: an example call must not change this hand)."""
        W = self.W
        obs, mask = np.empty(OBS_SIZE, _F32), np.empty(NUM_ACTIONS, _I8)
        obs_sig = (types.Array(types.float32, 1, "C"), types.Array(types.int8, 1, "C"))
        self._observe = cast(
            _ObserveEntry,
            _entry(_onehand.aec_observe, (_I64C, *obs_sig, types.int64), W.copy(), obs, mask, 0),
        )
        #: the step's entry point (see the module's docstring)
        self.step_entry = cast(
            StepEntry, _entry(_onehand.aec_step, (_I64C, types.int64), W.copy(), -1)
        )
        #: the step-and-observe's entry point (see the module's docstring)
        self.step_observe_entry = cast(
            StepObserveEntry,
            _entry(
                _onehand.aec_step_observe,
                (_I64C, types.int64, *obs_sig),
                W.copy(),
                -1,
                obs,
                mask,
            ),
        )

    def __getstate__(self) -> tuple[I64s, int]:
        """The hand's array (the entry points are taken again on unpickling)."""
        return self.W, self.n

    def __setstate__(self, state: tuple[I64s, int]) -> None:
        self.W, self.n = state
        self._bind()

    def _grow_pool(self, new_rows: int) -> None:
        """Make the pool (the array after ``W_SIZE``) large enough for the worst case
        of the next call: a longer array, the words copied to the same places."""
        W = self.W
        S = W[W_S : W_S + S_WIDTH].reshape(1, S_WIDTH)
        M = W[W_M : W_M + M_SIZE]
        pool = W[W_SIZE:]
        missing = pool_missing(S, pool, M, new_rows)
        if missing > 0:
            grown = np.zeros(W_SIZE + max(2 * len(pool), len(pool) + missing), dtype=np.int64)
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
        args = (hands, known, pile_in, len(pile), state.discard, state.to_act)
        while _onehand.aec_load(self.W, *args, state.phase, state.turns) == NEED_POOL:
            self._grow_pool(1)

    def step(self, a: int) -> int:
        """Apply step action ``a`` (an int in 0..40; the caller checks the type and
        range): :data:`ILLEGAL` (nothing changed), :data:`OVER`, or the next turn's
        legal actions as bits | its seat << :data:`SEAT_SHIFT`."""
        r = self.step_entry(self.W, a)
        while r == NEED_POOL:
            self._grow_pool(0)
            r = self.step_entry(self.W, a)
        return r

    def step_observe(self, a: int, obs: F32s, mask: I8s) -> int:
        """:meth:`step`, then, if the hand goes on, the next seat to act's tensor and
        mask written into ``obs`` and ``mask`` (C-contiguous float32[OBS_SIZE] and
        int8[41], which the caller makes: the entry point checks nothing)."""
        r = self.step_observe_entry(self.W, a, obs, mask)
        while r == NEED_POOL:
            self._grow_pool(0)
            r = self.step_observe_entry(self.W, a, obs, mask)
        return r

    def observe(self, seat: int) -> tuple[F32s, I8s]:
        """``seat``'s tensor and action mask (zeros unless ``seat`` is to act), in
        fresh arrays."""
        obs = np.empty(OBS_SIZE, _F32)
        mask = np.empty(NUM_ACTIONS, _I8)
        self._observe(self.W, obs, mask, seat)
        return obs, mask

    @property
    def loser(self) -> int:
        """The durak's seat once the hand is over (-1: a draw, or not over)."""
        return int(self.W[W_S + C_LOSER])

    def returns(self) -> tuple[float, ...]:
        """Per-seat returns as :meth:`State.returns` gives them for these rules (never
        the Besicovitch variant): -1 for the durak, 0 for the others and for draws."""
        loser = self.loser
        return tuple(-1.0 if i == loser else 0.0 for i in range(self.n))
