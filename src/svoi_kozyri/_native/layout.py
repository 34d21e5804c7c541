"""The compiled simulators' memory layout: the columns of a hand's row, the flag
vector, the one-hand array and the kernels' result codes.

Why a module of plain constants: the kernels (which numba compiles, reading these
module globals as compile-time constants) and the Python that makes and reads their
arrays (:mod:`svoi_kozyri.envs.vector`, :class:`~._native.onehand.FastHand`, the
differential tests) must agree on every offset; here they import the one copy.
Nothing here needs numba.

The state of B hands is one int64 array ``S`` of shape (B, :data:`S_WIDTH`), one
row of four cache lines per hand (the ``C_*`` columns), plus the piles ``P`` (B, 40)
int8.  The kernels take those few arrays as plain arguments, never tuples of
arrays: taking an array out of a tuple inside a loop costs numba a
reference-count call each time, which used to be most of a step.
"""

from __future__ import annotations

from typing import Final

from ..core import FREE, LEAD, NUM_ACTIONS, NUM_CARDS, OVER, RESPOND, Termination

# The phases, the action numbers and the termination codes are the engine's own:
# imported, never re-declared.
PH_FREE: Final = FREE
PH_RESPOND: Final = RESPOND
PH_LEAD: Final = LEAD
PH_OVER: Final = OVER

REASONS: Final = ("", *(t.value for t in Termination))
"""Reason codes of a hand's end (``S[b, C_REASON]``; 0 while it goes on): the
engine's terminations, numbered from 1."""
R_OUT: Final = REASONS.index(Termination.OUT)
R_LAST_CARD: Final = REASONS.index(Termination.LAST_CARD)
R_REPETITION: Final = REASONS.index(Termination.REPETITION)
R_ACTION_CAP: Final = REASONS.index(Termination.ACTION_CAP)

# the flag vector (int64[8]): the rules the kernels follow (``batch.kernel_flags``)
F_N: Final = 0  # players
F_REP: Final = 1  # repetition limit (0: no guard)
F_CAP: Final = 2  # action cap (0: none)
F_FACE: Final = 3  # a pickup leaves the rest of the pile face up to respond to
F_FREEDEF: Final = 4  # a defender who goes out leaves a free turn
F_DISCARD: Final = 5  # a defender who goes out discards the pile
F_DRAW: Final = 6  # last-card draws: 0 none, 1 on a lead, 2 always
F_MOST: Final = 7  # at the cap the most cards held loses
F_SIZE: Final = 8

# columns of S
C_HANDS: Final = 0  # 4 seats: cards held (bitmasks as in the engine)
C_PICKED: Final = 4  # 4 seats: cards picked up and not played since
C_KNOWN: Final = 8  # 4 seats: sixes handed to their owner at the deal
C_PLEN: Final = 12
C_DISCARD: Final = 13
C_TO_ACT: Final = 14
C_PHASE: Final = 15
C_TURNS: Final = 16
C_ZOB: Final = 17
C_LOSER: Final = 18
C_REASON: Final = 19
C_DEALER: Final = 20
C_SERIAL: Final = 21  # hands dealt into this row
C_TOFF: Final = 22  # repetition table: offset in the pool
C_TLOG: Final = 23  # log2 of its slots
C_TCNT: Final = 24  # entries held
S_WIDTH: Final = 32

M_SIZE: Final = 2 + 64
"""Length of the repetition pool's bookkeeping ``M``: words in use, positions
queued, then a free list per table size."""
NEED_POOL: Final = -2
"""A kernel's result: the repetition pool must grow first (nothing was changed)."""

OBS_NCONST: Final = 74
"""The observation tensor's scalars after its 14 card planes."""
OBS_SIZE: Final = 14 * NUM_CARDS + OBS_NCONST
"""The observation tensor's length (``docs/envs.md``; ``envs.encoding`` checks it
against its field table)."""

# --------------------------------------------------------------- one hand, one array
# The AEC environment's fast path (:class:`~._native.onehand.FastHand`): one hand
# whose every table and field lives in one int64 array ``W``, its repetition pool in
# the same array after ``W_SIZE`` (so it grows by making the array longer), so that
# a step or an observation is one compiled call with one to three array arguments
# (numba's call costs some 35 ns per array argument, which a step of a dozen
# separate arrays would spend several times over).  The kernels view these spans as
# the batch kernels' arrays for a batch of one, so the hand logic is the same code.
W_S: Final = 0  # the hand's row of S (S_WIDTH)
W_P: Final = W_S + S_WIDTH  # its pile, bottom first (NUM_CARDS, as int64)
W_FLAGS: Final = W_P + NUM_CARDS  # the flag vector (F_SIZE)
W_BEAT: Final = W_FLAGS + F_SIZE  # beat[seat, top] (4 x NUM_CARDS)
W_REQ: Final = W_BEAT + 4 * NUM_CARDS  # req[seat, top] (4 x NUM_CARDS)
W_NXT: Final = W_REQ + 4 * NUM_CARDS  # next seat (4)
W_M: Final = W_NXT + 4  # pool bookkeeping (M_SIZE)
W_Q: Final = W_M + M_SIZE  # the position queue of one step (2)
W_RELABS: Final = W_Q + 2  # rel_of_abs[seat, card] (4 x NUM_CARDS)
W_REL: Final = W_RELABS + 4 * NUM_CARDS  # rel_seat[seat, i] (4 x 4)
W_DECK: Final = W_REL + 16  # the game's cards (1)
W_CONST: Final = W_DECK + 1  # the tensor's constant scalars per seat (4 x OBS_NCONST, 0/1)
W_MASKS: Final = W_CONST + 4 * OBS_NCONST  # scratch of the encoder (14)
W_D: Final = W_MASKS + 14  # scratch deck row for the loader (NUM_CARDS)
W_SIZE: Final = W_D + NUM_CARDS

AEC_ILLEGAL: Final = -1
"""A one-hand step's result: the action is not legal (nothing changed)."""
AEC_OVER: Final = -3
"""A one-hand step's result: the hand ended."""
AEC_SEAT_SHIFT: Final = NUM_ACTIONS
"""A packed next turn: the legal bits, then the seat to act from this bit on."""
