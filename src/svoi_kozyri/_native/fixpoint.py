"""The solver's compiled fixpoint (:mod:`._fixpoint`), behind a typed facade.

:class:`FixGraph` owns the arrays of one fixpoint computation (the node, edge and
pile arrays the kernels work on), grows them when a kernel stops for room, and
answers in plain ints; :meth:`svoi_kozyri.bots.search.solver.Solver` drives it one
slice of work at a time so that it can check its clock between calls.  The
algorithm and the layout are described in :mod:`._fixpoint`.
"""

from __future__ import annotations

import mmap
from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from ._fixpoint import (
    C_DEPS,
    C_EDGES,
    C_NODES,
    C_PILES,
    C_POPS,
    C_SP,
    GROW,
    REFUTED,
    ROOM,
    SLICE,
    WON,
    Arr,
    Nodes,
    Piles,
    probe,
    rehash_nodes,
    rehash_piles,
    root_steps,
    run,
    start,
)
from ._jit import I64s

__all__ = ["GROW", "REFUTED", "SLICE", "WON", "FixGraph"]


#: how much larger a full array is made
_GROWTH: Final = 4


_HUGE: Final = 1 << 21
#: an array growing past this many entries is given its whole reserve
_RESERVE_FROM: Final = 1 << 18


def _zeros(n: int, dtype: npt.DTypeLike) -> Arr:
    """``np.zeros(n, dtype)``, in memory of its own backed by 2 MB pages when large.

    Why: the hash tables and node arrays are read at random, and with 4 KB pages
    nearly every probe of a large table also misses the TLB.  ``np.zeros`` asks
    for huge pages too, but a large block may come from the heap instead (glibc
    raises its threshold for mapping blocks of their own after one is freed)."""
    size = n * np.dtype(dtype).itemsize
    if size < _HUGE or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.zeros(n, dtype)
    buf = mmap.mmap(-1, size + _HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    start = -_address(buf) % _HUGE
    buf.madvise(mmap.MADV_HUGEPAGE, start, size - size % _HUGE or size)
    return np.frombuffer(buf, dtype=dtype, count=n, offset=start)


def _address(buf: mmap.mmap) -> int:
    """The address of a writable buffer's first byte."""
    address: int = np.frombuffer(buf, dtype=np.uint8, count=1).__array_interface__["data"][0]
    return address


def _larger(a: Arr, reserve: int = 0) -> Arr:
    """A copy of ``a`` :data:`_GROWTH` times as long (zeros after), or at once
    ``reserve`` long once that is large: an array filled from the front takes memory
    only as it is written (see :func:`_zeros`), so reserving the room of the largest
    graph spares the copies of growing it further."""
    size = _GROWTH * a.shape[0]
    if size >= _RESERVE_FROM and reserve > size:
        size = reserve
    b = _zeros(size, a.dtype)
    b[: a.shape[0]] = a
    return b


class FixGraph:
    """The arrays of one fixpoint computation, grown on demand (by
    :data:`_GROWTH`, then to their reserve).  A position costs about 60 bytes of
    node arrays, 8 to 32 of hash table, and its edges and waiting edges about 15
    bytes each (some 130 bytes a position in all on 16- and 20-card positions); the
    caller bounds the positions (:attr:`size`) between calls of :meth:`step`."""

    def __init__(
        self,
        beat: npt.ArrayLike,
        req: npt.ArrayLike,
        att: int,
        draw_mode: int,
        taker_leads: bool,
        face_new_top: bool,
        capacity: int = 1 << 12,
        limit: int = 0,
    ) -> None:
        """``capacity``: the positions the arrays are first made for; ``limit``: the
        most the caller will let it meet (0: no reserve), room for which a large
        graph's arrays reserve when they first grow large (:func:`_larger`)."""
        self.BEAT = np.asarray(beat, dtype=np.int64)
        self.REQ = np.asarray(req, dtype=np.int64)
        self.R = np.array([att, draw_mode, int(taker_leads), int(face_new_top)], dtype=np.int64)
        self.scratch = np.zeros(64, dtype=np.int64)
        self.keys = np.zeros(64, dtype=np.int64)
        self.kid = np.zeros((64, 5), dtype=np.int64)  # a new node's children
        n = capacity + 2 * ROOM
        m = limit + 2 * ROOM if limit else 0
        #: the reserve of the node, edge, dependency and pile arrays (see _grow)
        self.reserve = (m, 6 * m, 3 * m, m)
        e, q = 6 * n, 1 << 12
        self.nodes: list[Arr] = [
            np.zeros(n, np.int64),  # H0
            np.zeros(n, np.int64),  # H1
            np.zeros(n, np.int32),  # PID
            np.zeros(n, np.int8),  # PP
            np.zeros(n, np.int8),  # PH
            np.zeros(n, np.bool_),  # OR
            np.zeros(n, np.int8),  # VAL
            np.zeros(n, np.int32),  # RANK
            np.zeros(n, np.int8),  # BEST
            np.zeros(n, np.int16),  # WATCH
            np.zeros(n, np.int32),  # MAXR
            np.zeros(n, np.int64),  # CS
            np.zeros(n, np.int16),  # CN
            np.zeros(n, np.int32),  # DH
            np.zeros(1 << 14, np.int64),  # NHT (pairs of words)
        ]
        self.edges: list[Arr] = [
            np.zeros(e, np.int8),  # EA: the step of each edge
            np.zeros(3 * n, np.int64),  # DE
            np.zeros(3 * n, np.int32),  # DN
            np.zeros(1 << 14, np.int64),  # ST
        ]
        self.piles: list[Arr] = [
            np.zeros(q, np.int32),  # QPAR
            np.zeros(q, np.int8),  # QCARD
            np.zeros(q, np.int16),  # QLEN
            np.zeros(4 * q, np.int32),  # QHT
            np.zeros(8, np.int64),  # counters
        ]
        self.piles[4][C_PILES] = 1  # trie node 0: the empty pile
        self.root = -1

    @property
    def counters(self) -> I64s:
        """The kernels' counters (nodes, edges, waiting edges, stack, piles, ...)."""
        counters: I64s = self.piles[4]
        return counters

    def _caps(self) -> I64s:
        N, E, G = self.nodes, self.edges, self.piles
        return np.array(
            [
                N[0].shape[0],
                N[14].shape[0],
                E[0].shape[0],
                E[1].shape[0],
                E[3].shape[0],
                G[0].shape[0],
                G[3].shape[0],
            ],
            dtype=np.int64,
        )

    def _grow(self) -> None:
        """Make every array that might not hold the next step larger (by
        :data:`_GROWTH`: fewer copies and rehashes than doubling, which cost a third
        of a 16-card question's time)."""
        C = self.counters
        N, E, G = self.nodes, self.edges, self.piles
        nn = int(C[C_NODES]) + ROOM
        if nn > N[0].shape[0]:
            for i in range(14):
                N[i] = _larger(N[i], self.reserve[0])
        if 8 * nn > 3 * N[14].shape[0]:  # (at most 3/4 full: one slot is two words)
            N[14] = _zeros(_GROWTH * N[14].shape[0], np.int64)
            rehash_nodes(N[0], N[2], N[3], N[4], N[14], int(C[C_NODES]))
        for i, used, room in ((0, C_EDGES, 2 * ROOM), (1, C_DEPS, ROOM), (3, C_SP, 2 * ROOM)):
            if int(C[used]) + room > E[i].shape[0]:
                if i == 3:
                    E[3] = _larger(E[3])
                else:
                    E[i] = _larger(E[i], self.reserve[1 + i])
                if i == 1:
                    E[2] = _larger(E[2], self.reserve[2])
        if int(C[C_SP]) >= E[3].shape[0] - 1:  # the wake-up of a long dependency list
            E[3] = _larger(E[3])
        nq = int(C[C_PILES]) + ROOM
        if nq > G[0].shape[0]:
            for i in range(3):
                G[i] = _larger(G[i], self.reserve[3])
        if 2 * nq > G[3].shape[0]:
            G[3] = _zeros(_GROWTH * G[3].shape[0], np.int32)
            rehash_piles(G[0], G[1], G[3], int(C[C_PILES]))

    def reset(self, att: int) -> None:
        """Empty the graph for a new question of the same rules (for ``att``),
        keeping the arrays: memory already written once is not asked of the
        system again (on a 20-card question, zeroing fresh pages for the kernel
        cost a fifth of the time)."""
        C = self.counters
        self.nodes[14].fill(0)
        self.piles[3].fill(0)
        C[:] = 0
        C[C_PILES] = 1
        self.R[0] = att
        self.root = -1

    def _graph(self) -> tuple[Nodes, Piles, I64s, I64s, I64s]:
        """The arguments every kernel takes first: nodes, piles and the rules."""
        return tuple(self.nodes), tuple(self.piles), self.R, self.BEAT, self.REQ

    def start(self, h0: int, h1: int, pile_codes: Sequence[int], p: int, phase: int) -> None:
        """Make the root node."""
        codes = np.asarray(pile_codes, dtype=np.int64)
        edges = tuple(self.edges)
        self.root = int(
            start(*self._graph(), edges, h0, h1, codes, p, phase, self.scratch, self.keys, self.kid)
        )

    def step(self, budget: int) -> int:
        """Run up to ``budget`` edges: WON, REFUTED or SLICE (growing as needed)."""
        while True:
            edges, caps = tuple(self.edges), self._caps()
            r = run(
                *self._graph(), edges, self.root, budget, caps, self.scratch, self.keys, self.kid
            )
            if r != GROW:
                return int(r)
            self._grow()

    @property
    def size(self) -> int:
        """Positions met so far."""
        return int(self.counters[C_NODES])

    @property
    def pops(self) -> int:
        """Edges processed so far."""
        return int(self.counters[C_POPS])

    def probe(
        self, h0: int, h1: int, pile_codes: Sequence[int], p: int, phase: int
    ) -> tuple[int, int, int]:
        """(value, rank, best step) of a position met, or (-1, 0, -1)."""
        codes = np.asarray(pile_codes, dtype=np.int64)
        v, r, b = probe(*self._graph(), h0, h1, codes, p, phase)
        return int(v), int(r), int(b)

    def root_value(self) -> tuple[int, int, int]:
        """(value, rank, best step) of the root."""
        N = self.nodes
        x = self.root
        return int(N[6][x]), int(N[7][x]), int(N[8][x])

    def root_steps(self) -> tuple[int, ...]:
        """The root's proving or refuting turn (empty: none read)."""
        a, b = root_steps(*self._graph(), self.root)
        if a < 0:
            return ()
        return (int(a),) if b < 0 else (int(a), int(b))
