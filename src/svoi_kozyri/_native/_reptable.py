"""Kernels: the repetition guard's per-hand hash tables (numba).

Every hand has its own open-addressing table: a slab of ``2**S[b, C_TLOG]`` int64
words at ``pool[S[b, C_TOFF]:]``, holding ``S[b, C_TCNT]`` entries (at most 3/4
full).  An entry is the position key's upper 48 bits | its count (16 bits); 0 is an
empty slot.  Slabs are carved from the front of the pool (``M[0]`` words in use; the
pool past them is zero) and a freed slab goes on the free list of its size
(``M[2 + log]``, linked through the slab's first word).  A batch kernel first checks
that the pool can serve the worst case of its step (:func:`pool_missing`); if not,
it changes nothing and returns :data:`~.layout.NEED_POOL`, and Python grows the pool
and calls again.

Why tables per hand rather than one: a hand that is dealt again or whose player
goes out (after which no earlier position can recur) starts afresh in O(1).
"""

from __future__ import annotations

from typing import Final

import numpy as np

from ._jit import I64s, kernel, unmanaged
from .layout import C_PHASE, C_TCNT, C_TLOG, C_TOFF, PH_OVER

MIN_LOG: Final = 6
"""log2 of a fresh table's slots."""
TAG: Final = -65536
"""``~0xFFFF`` as int64: the key bits an entry keeps."""
_SALT: Final = np.uint64(0x9E3779B97F4A7C15)


@kernel(inline=True)
def home(tag: int, log: int) -> np.int64:
    """Home slot of an entry in a table of 2**log slots (the tag's top bits mixed)."""
    return np.int64((np.uint64(tag) * _SALT) >> np.uint64(64 - log))


@kernel(inline=True)
def _slab_alloc(pool: I64s, M: I64s, log: int) -> int:
    size = np.int64(1) << log
    off = int(M[2 + log])
    if off >= 0:
        M[2 + log] = pool[off]
        for i in range(off, off + size):
            pool[i] = 0
    else:
        off = int(M[0])
        M[0] = off + size
    return off


@kernel(inline=True)
def table_reset(b: int, S: I64s, pool: I64s, M: I64s) -> None:
    """Hand ``b`` starts afresh (dealt again, loaded, or a player went out, after
    which no earlier position can recur): an empty table of the smallest size."""
    off = S[b, C_TOFF]
    if off >= 0 and S[b, C_TLOG] == MIN_LOG:
        if S[b, C_TCNT]:
            for i in range(off, off + (1 << MIN_LOG)):
                pool[i] = 0
    else:
        if off >= 0:
            log = S[b, C_TLOG]
            pool[off] = M[2 + log]
            M[2 + log] = off
        S[b, C_TOFF] = _slab_alloc(pool, M, MIN_LOG)
        S[b, C_TLOG] = MIN_LOG
    S[b, C_TCNT] = 0


@kernel()
def _table_grow(b: int, S: I64s, pool: I64s, M: I64s) -> None:
    """Move hand ``b``'s entries into a table twice as large."""
    S, pool, M = unmanaged(S), unmanaged(pool), unmanaged(M)
    old = S[b, C_TOFF]
    log = S[b, C_TLOG]
    nlog = log + 1
    new = _slab_alloc(pool, M, nlog)
    mask = (np.int64(1) << nlog) - 1
    for j in range(old, old + (np.int64(1) << log)):
        e = pool[j]
        if e != 0:
            i = home(e & TAG, nlog)
            while pool[new + i] != 0:
                i = (i + 1) & mask
            pool[new + i] = e
    pool[old] = M[2 + log]
    M[2 + log] = old
    S[b, C_TOFF] = new
    S[b, C_TLOG] = nlog


@kernel(inline=True)
def table_add(b: int, S: I64s, pool: I64s, M: I64s, key: int) -> int:
    """Count one more occurrence of ``key`` in hand ``b``; the new count."""
    tag = key & TAG
    log = S[b, C_TLOG]
    off = S[b, C_TOFF]
    mask = (np.int64(1) << log) - 1
    i = home(tag, log)
    while True:
        e = pool[off + i]
        if e == 0:
            break
        if (e & TAG) == tag:
            c = (e & 0xFFFF) + 1
            if c <= 0xFFFF:
                pool[off + i] = tag | c
            return int(c)
        i = (i + 1) & mask
    n = S[b, C_TCNT] + 1
    if 4 * n > 3 * (mask + 1):
        _table_grow(b, S, pool, M)
        log = S[b, C_TLOG]
        off = S[b, C_TOFF]
        mask = (np.int64(1) << log) - 1
        i = home(tag, log)
        while pool[off + i] != 0:
            i = (i + 1) & mask
    pool[off + i] = tag | 1
    S[b, C_TCNT] = n
    return 1


@kernel()
def pool_missing(S: I64s, pool: I64s, M: I64s, new_rows: int) -> int:
    """Pool words missing for the worst case of one batch step (every live hand
    growing its table, or going out and taking a fresh one) plus ``new_rows``
    fresh tables; 0 or less when the pool suffices."""
    need = np.int64(new_rows) << MIN_LOG
    for b in range(S.shape[0]):
        if S[b, C_PHASE] != PH_OVER:
            need += np.int64(1) << MIN_LOG
            if 4 * (S[b, C_TCNT] + 1) > 3 * (np.int64(1) << S[b, C_TLOG]):
                need += np.int64(2) << S[b, C_TLOG]
    return int(M[0] + need - pool.shape[0])
