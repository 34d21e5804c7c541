"""The compiled observation encoder of an engine state, behind a typed facade.

:class:`svoi_kozyri.envs.encoding.HandEncoder` builds, per (hand, seat), the int64
table of everything that does not change during the hand (layout ``TAB_*`` below)
and, per observation, the tuple of the state's changing fields (layout ``I_*``);
one compiled call (:mod:`._encode`) writes the whole tensor and mask from them.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

import numpy as np
from numba import types

from ..core import NUM_ACTIONS
from . import _encode
from ._encode import (
    I_DISC,
    I_HANDS,
    I_MASK_ANY,
    I_PHASE,
    I_TAKE_MASK,
    I_TO_ACT,
    I_TOP,
    I_TURNS,
    TAB_BEAT,
    TAB_CAP,
    TAB_CONST,
    TAB_IN_PLAY,
    TAB_KNOWN,
    TAB_OPEN,
    TAB_REL,
    TAB_REQ,
    TAB_SEAT,
    TAB_SIZE,
)
from ._jit import F32s, I8s, I64s
from .layout import OBS_SIZE

__all__ = [
    "I_DISC",
    "I_HANDS",
    "I_MASK_ANY",
    "I_PHASE",
    "I_TAKE_MASK",
    "I_TOP",
    "I_TO_ACT",
    "I_TURNS",
    "TAB_BEAT",
    "TAB_CAP",
    "TAB_CONST",
    "TAB_IN_PLAY",
    "TAB_KNOWN",
    "TAB_OPEN",
    "TAB_REL",
    "TAB_REQ",
    "TAB_SEAT",
    "TAB_SIZE",
    "EncodeEntry",
    "encode_obs",
    "fresh_kernel",
]


class EncodeEntry(Protocol):
    """The encoder's compiled entry point for one player count: C-contiguous
    float32[OBS_SIZE] and int8[41] (or int8[0]) outputs, the int64 table and the
    ints tuple of ``11 + 2 n`` fields.  It checks nothing."""

    def __call__(self, out: F32s, mask_out: I8s, tab: I64s, ints: tuple[int, ...], /) -> None: ...


def encode_obs(out: F32s, mask_out: I8s, tab: I64s, ints: tuple[int, ...]) -> None:
    """Write every entry of ``out`` (float32[OBS_SIZE]) and, when it is not empty,
    of ``mask_out`` (int8[41]: the legal actions of the seat to act if
    ``ints[I_MASK_ANY]``, else only if the observer is to act, else zeros), through
    numba's dispatch (which checks the arguments' types)."""
    _encode.encode_obs(out, mask_out, tab, ints)


_ENTRIES: dict[int, EncodeEntry] = {}


def fresh_kernel(n: int) -> EncodeEntry:
    """The encoder's compiled entry point for ``n`` players (compiled on first use),
    or the dispatcher itself if this numba does not expose it.  The entry point
    skips numba's type dispatch (about a quarter of a call) but does not check the
    arrays' types, so only :meth:`~svoi_kozyri.envs.encoding.HandEncoder.observe`
    calls it, with arrays it has just made."""
    entry = _ENTRIES.get(n)
    if entry is None:
        ints = (0, 0, 3, 0, 0, -1, -1, -1, -1, -1, -1, *[0] * (2 * n))
        out = np.empty(OBS_SIZE, np.float32)
        tab = np.zeros(TAB_SIZE, np.int64)
        encode_obs(out, np.empty(NUM_ACTIONS, np.int8), tab, ints)
        want = (
            types.Array(types.float32, 1, "C"),
            types.Array(types.int8, 1, "C"),
            types.Array(types.int64, 1, "C"),
            types.UniTuple(types.int64, len(ints)),  # type: ignore[no-untyped-call]
        )
        dispatcher: Any = _encode.encode_obs
        found: Any = dispatcher
        try:
            res = dispatcher.overloads.get(want)
            if res is not None:
                found = res.entry_point
        except AttributeError:  # pragma: no cover - another numba
            pass
        entry = _ENTRIES[n] = cast(EncodeEntry, found)
    return entry
