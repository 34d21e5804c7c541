# mypy: ignore-errors
"""A compiled (numba) encoder of one observation tensor and action mask.

Why: :func:`~svoi_kozyri.envs.encoding.encode_state` built the 634 floats with a
dozen numpy calls (about 19 µs, ten engine steps); an environment that observes
every step spent nearly all its time there.  This kernel writes the whole tensor
(every entry, so the caller may pass ``np.empty``) and the mask in one call, from
the observer's table and one flat tuple of ints read straight off the state.

Why this calling convention: the cost of a call is numba's dispatch (about 0.3 µs,
plus about 0.25 µs per array argument and a little per int), so the kernel takes
only the arrays it writes and one constant table, and works out in compiled code
what the caller used to compute in Python (the known cards, the pile mask, the
constant part of the tensor).  The tuple's length is ``15 + 3 n``, so there is one
compiled specialisation per player count.

It produces exactly the layout of ``docs/envs.md`` (``tests/test_envs_encoding.py``
checks it against the numpy encoder of
:func:`~svoi_kozyri.envs.encoding.encode_observation`).

mypy does not check this module: numba infers its types.
"""

from __future__ import annotations

from numba import njit

from ..core import NUM_ACTIONS, NUM_CARDS

_BASE = 14 * NUM_CARDS
#: layout of the observer's table (``SeatView.tab``, int64)
TAB_REL = NUM_CARDS  # relative seat of each absolute seat (4, zero padded)
TAB_OPEN = TAB_REL + 4  # 1 when every hand is open (Besicovitch)
TAB_CAP = TAB_OPEN + 1  # the action cap (0: none)
TAB_CONST = TAB_CAP + 1  # the constant scalars of the tensor (0/1 each)
#: layout of the ints tuple: these scalars, then hands[n], picked[n] (the state's
#: fields), then the hand's constants: known at start[n] and the cards in play
I_SEAT, I_DISC, I_TAKE_MASK, I_PILE_LEN, I_TAKE = 0, 1, 2, 3, 4
I_TO_ACT, I_PHASE, I_TURNS, I_LEGAL, I_TOP = 5, 6, 7, 8, 9
I_HANDS = 14


@njit(cache=True)
def encode_obs(out, mask_out, tab, ints):  # pragma: no cover - numba
    """Write every entry of ``out`` (float32[634]) and, when it is not empty, of
    ``mask_out`` (int8[41], the bits of ``ints[I_LEGAL]``).

    ``ints[I_TAKE_MASK]`` is the mask of the cards a pickup would take, -1 for the
    whole pile; ``ints[I_TOP:I_TOP + 5]`` the top five pile cards, top first, -1
    padded; ``ints[I_PHASE]`` 0 free, 1 respond, 2 lead, 3 over."""
    n = (len(ints) - I_HANDS) // 3
    seat = ints[I_SEAT]
    disc = ints[I_DISC]
    in_play = ints[I_HANDS + 3 * n]
    open_hands = tab[TAB_OPEN]
    held = 0
    for i in range(n):
        held |= ints[I_HANDS + i]
    own = ints[I_HANDS + seat]
    pm = in_play & ~(held | disc)
    tm = ints[I_TAKE_MASK]
    if tm < 0:
        tm = pm
    planes = [own, 0, 0, 0, pm, 0, 0, 0, 0, 0, disc, 0, 0, tm]
    for k in range(5):
        t = ints[I_TOP + k]
        if t >= 0:
            planes[5 + k] = 1 << t
    placed = own | disc
    for i in range(n):
        if i != seat:
            h = ints[I_HANDS + i]
            kn = h if open_hands else (ints[I_HANDS + 2 * n + i] | ints[I_HANDS + n + i]) & h
            planes[tab[TAB_REL + i]] = kn
            placed |= kn
    planes[11] = in_play & ~(placed | pm)
    planes[12] = ((1 << NUM_CARDS) - 1) & ~in_play
    for p in range(14):
        m = planes[p]
        o = p * NUM_CARDS
        for i in range(NUM_CARDS):
            out[o + i] = (m >> tab[i]) & 1
    for i in range(out.shape[0] - _BASE):
        out[_BASE + i] = tab[TAB_CONST + i]
    for i in range(n):
        r = tab[TAB_REL + i]
        h = ints[I_HANDS + i]
        c = 0
        while h:
            h &= h - 1
            c += 1
        out[_BASE + r] = c / NUM_CARDS
        out[_BASE + 8 + r] = 1.0 if c else 0.0
    ph = ints[I_PHASE]
    if ph != 3:
        out[_BASE + 12 + tab[TAB_REL + ints[I_TO_ACT]]] = 1.0
    out[_BASE + 16 + ph] = 1.0
    out[_BASE + 56] = ints[I_PILE_LEN] / NUM_CARDS
    out[_BASE + 57] = ints[I_TAKE] / NUM_CARDS
    cap = tab[TAB_CAP]
    out[_BASE + 58] = ints[I_TURNS] / cap if cap else 0.0
    if mask_out.shape[0]:
        legal = ints[I_LEGAL]
        for a in range(NUM_ACTIONS):
            mask_out[a] = (legal >> a) & 1
