"""Precomputed engine tables: legal-action tuples by bitmask and Zobrist keys.

Why a module of their own: they are pure data built once at import, shared by the
state (apply, legal actions, repetition keys) and the move generation.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from .cards import NUM_CARDS, Card, CardSet, cards_of

# Step-level legal-action tuples: four table lookups (10 bits per suit, the last
# table also covering bit 40, PICKUP), memoised by bitmask for the common masks.
# Its size is a trade-off, measured (compiled build, idle machine): random four-player
# play meets a new mask at more than half of its steps (179,532 distinct in 304,095),
# so there a memo of 4,096 entries, which stays in the CPU's cache, ran the engine's
# step loop about 20 % faster and its turn loop 70 % faster than this one; but the
# bots' searches revisit the same positions' masks, and ISMCTS ran 15-30 % slower
# with the small memo.  The bots are what the engine serves most, so it stays large.
_T0: Final = tuple(tuple(i for i in range(10) if m >> i & 1) for m in range(1024))
_T1: Final = tuple(tuple(10 + i for i in range(10) if m >> i & 1) for m in range(1024))
_T2: Final = tuple(tuple(20 + i for i in range(10) if m >> i & 1) for m in range(1024))
_T3: Final = tuple(tuple(30 + i for i in range(11) if m >> i & 1) for m in range(2048))
_ACTIONS_CACHE: dict[int, tuple[int, ...]] = {}
_ACTIONS_CACHE_MAX: Final = 1 << 18


def _actions_of(mask: int) -> tuple[int, ...]:
    t = _T0[mask & 1023] + _T1[mask >> 10 & 1023] + _T2[mask >> 20 & 1023] + _T3[mask >> 30]
    if len(_ACTIONS_CACHE) >= _ACTIONS_CACHE_MAX:
        _ACTIONS_CACHE.clear()
    _ACTIONS_CACHE[mask] = t
    return t


def actions_of_mask(mask: int) -> tuple[int, ...]:
    """The step actions of a legal-action bitmask (bit :data:`PICKUP` = 40 for a
    refusal), ascending: the tuple :meth:`State.legal_actions` returns for that mask.

    Why public: simulators that keep legal actions as bitmasks (the compiled hand of
    the AEC environment) hand out the same tuples as the engine, from the same cache.
    """
    return _ACTIONS_CACHE.get(mask) or _actions_of(mask)


# Zobrist keys of positions for the repetition guard (SPEC D6.1): 128-bit values
# from a fixed seed, XOR-updated as cards move, so a position key is one int (no
# tuple allocation in the hot loop).  Two different positions of a hand share a key
# with probability about n^2 / 2^129 for n positions: below 1e-29 for n = 20000.
_ZRNG = random.Random(0x5EEDC0DE)
_ZH: Final = tuple(tuple(_ZRNG.getrandbits(128) for _ in range(NUM_CARDS)) for _ in range(4))
_ZP: Final = tuple(
    tuple(_ZRNG.getrandbits(128) for _ in range(NUM_CARDS)) for _ in range(NUM_CARDS)
)
_ZD: Final = tuple(_ZRNG.getrandbits(128) for _ in range(NUM_CARDS))
_ZT: Final = tuple(_ZRNG.getrandbits(128) for _ in range(16))


def _zobrist(hands: Sequence[CardSet], pile: Sequence[Card], discard: CardSet) -> int:
    z = 0
    for seat, h in enumerate(hands):
        for c in cards_of(h):
            z ^= _ZH[seat][c]
    for i, c in enumerate(pile):
        z ^= _ZP[i][c]
    for c in cards_of(discard):
        z ^= _ZD[c]
    return z
