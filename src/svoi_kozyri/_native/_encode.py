"""Kernels: the compiled (numba) encoder of one observation tensor and action mask
from an engine state's fields; :mod:`.encoder` is its typed facade.

Why: :func:`~svoi_kozyri.envs.encoding.encode_state` built the 634 floats with a
dozen numpy calls (about 19 µs, ten engine steps); an environment that observes
every step spent nearly all its time there.  This kernel writes the whole tensor
(every entry, so the caller may pass ``np.empty``) and the mask in one call.

Why this calling convention: the cost of a call is numba's dispatch, about 0.25 µs
plus about 0.1 µs per array argument and, measured here, about 25 ns per int of a
tuple argument.  So the kernel takes the two arrays it writes, one int64 table per
(hand, seat) holding everything that does not change during the hand (the card
permutation, relative seats, constant scalars, the game's beat and pickup tables,
the cards known at the start and the cards in play), and a tuple of only the
state's changing fields; it works out in compiled code what the caller used to
compute in Python (known cards, the pile mask and size, the pickup count and
cards, the legal mask).  The tuple's length is ``11 + 2 n``, so there is one
compiled specialisation per player count.

It produces exactly the layout of ``docs/envs.md`` (``tests/test_envs_encoding.py``
checks it against the numpy encoder of
:func:`~svoi_kozyri.envs.encoding.encode_observation`).
"""

from __future__ import annotations

from typing import Final

from ..core import NUM_ACTIONS, NUM_CARDS
from ._jit import F32s, I8s, I64s, kernel, popcount
from .layout import OBS_NCONST

_BASE: Final = 14 * NUM_CARDS
_NUM_CONST: Final = OBS_NCONST
_PICKUP_BIT: Final = 1 << NUM_CARDS
#: layout of a seat's table of a game (``SeatView.tab``, int64)
TAB_REL = NUM_CARDS  # relative seat of each absolute seat (4, zero padded)
TAB_OPEN = TAB_REL + 4  # 1 when every hand is open (Besicovitch)
TAB_CAP = TAB_OPEN + 1  # the action cap (0: none)
TAB_CONST = TAB_CAP + 1  # the constant scalars of the tensor (0/1 each)
TAB_REQ = TAB_CONST + _NUM_CONST  # cards a pickup requires, [seat * 40 + top]
TAB_BEAT = TAB_REQ + 4 * NUM_CARDS  # cards that beat a top card, [seat * 40 + top]
#: then the hand's part (``HandEncoder``): the observer, known at start[4], in play
TAB_SEAT = TAB_BEAT + 4 * NUM_CARDS
TAB_KNOWN = TAB_SEAT + 1
TAB_IN_PLAY = TAB_KNOWN + 4
TAB_SIZE = TAB_IN_PLAY + 1
#: layout of the ints tuple: these fields, then hands[n] and picked[n]
I_DISC, I_TO_ACT, I_PHASE, I_TURNS, I_MASK_ANY, I_TAKE_MASK, I_TOP = 0, 1, 2, 3, 4, 5, 6
I_HANDS = 11


@kernel(inline=True)
def _plane(out: F32s, p: int, m: int, tab: I64s) -> None:
    """Write 40-card plane ``p`` of ``out``: the bits of mask ``m``, relative order."""
    o = p * NUM_CARDS
    for i in range(NUM_CARDS):
        out[o + i] = (m >> tab[i]) & 1


@kernel(inline=True)
def _pickup_and_legal(
    tab: I64s, ints: tuple[int, ...], to_act: int, ph: int, pm: int, np_: int
) -> tuple[int, int, int]:
    """The cards a pickup would take (their count and mask: respond mode only) and
    the legal actions of the seat to act, as a mask of the 41 actions.

    Why apart (inlined, so free): the one part of the kernel that reads the game's
    tables rather than the state."""
    take = 0
    tm = 0
    legal = 0
    if ph == 1:
        top = ints[I_TOP]
        take = min(tab[TAB_REQ + to_act * NUM_CARDS + top], np_)
        if ints[I_TAKE_MASK] >= 0:
            tm = ints[I_TAKE_MASK]
        elif take >= np_:
            tm = pm
        else:
            for k in range(take):
                tm |= 1 << ints[I_TOP + k]
        legal = (tab[TAB_BEAT + to_act * NUM_CARDS + top] & ints[I_HANDS + to_act]) | _PICKUP_BIT
    elif ph != 3:
        legal = ints[I_HANDS + to_act]
    return take, tm, legal


@kernel(inline=True)
def _card_planes(
    out: F32s, tab: I64s, ints: tuple[int, ...], n: int, own: int, pm: int, tm: int
) -> None:
    """Write the 14 card planes of ``out`` (the layout of ``docs/envs.md``).

    Why apart (inlined, so free): the planes are the cards as the observer knows
    them; the scalars after them are written by :func:`_scalars`."""
    seat = tab[TAB_SEAT]
    disc = ints[I_DISC]
    in_play = tab[TAB_IN_PLAY]
    open_hands = tab[TAB_OPEN]
    _plane(out, 0, own, tab)
    _plane(out, 4, pm, tab)
    for k in range(5):
        t = ints[I_TOP + k]
        _plane(out, 5 + k, (1 << t) if t >= 0 else 0, tab)
    _plane(out, 10, disc, tab)
    _plane(out, 13, tm, tab)
    for r in range(n, 4):
        _plane(out, r, 0, tab)  # relative seats that do not exist
    placed = own | disc
    for i in range(n):
        if i != seat:
            h = ints[I_HANDS + i]
            kn = h if open_hands else (tab[TAB_KNOWN + i] | ints[I_HANDS + n + i]) & h
            _plane(out, tab[TAB_REL + i], kn, tab)
            placed |= kn
    _plane(out, 11, in_play & ~(placed | pm), tab)
    _plane(out, 12, ((1 << NUM_CARDS) - 1) & ~in_play, tab)


@kernel(inline=True)
def _scalars(
    out: F32s,
    tab: I64s,
    ints: tuple[int, ...],
    n: int,
    to_act: int,
    ph: int,
    np_: int,
    take: int,
) -> None:
    """Write the scalars of ``out`` after the card planes: the constants of the
    game, then the hand sizes, who acts, the phase, the pile and the turn counter.

    Why apart (inlined, so free): see :func:`_card_planes`."""
    for i in range(_NUM_CONST):
        out[_BASE + i] = tab[TAB_CONST + i]
    for i in range(n):
        r = tab[TAB_REL + i]
        c = popcount(ints[I_HANDS + i])
        out[_BASE + r] = c / NUM_CARDS
        out[_BASE + 8 + r] = 1.0 if c else 0.0
    if ph != 3:
        out[_BASE + 12 + tab[TAB_REL + to_act]] = 1.0
    out[_BASE + 16 + ph] = 1.0
    out[_BASE + 56] = np_ / NUM_CARDS
    out[_BASE + 57] = take / NUM_CARDS
    cap = tab[TAB_CAP]
    out[_BASE + 58] = ints[I_TURNS] / cap if cap else 0.0


@kernel()
def encode_obs(out: F32s, mask_out: I8s, tab: I64s, ints: tuple[int, ...]) -> None:
    """Write every entry of ``out`` (float32[634]) and, when it is not empty, of
    ``mask_out`` (int8[41]: the legal actions of the seat to act if
    ``ints[I_MASK_ANY]``, else only if the observer is to act, else zeros).

    ``ints[I_TAKE_MASK]``: the mask of the cards a pickup would take when the
    caller worked it out (a pile of more than five cards), else -1;
    ``ints[I_TOP:I_TOP + 5]`` the top five pile cards, top first, -1 padded;
    ``ints[I_PHASE]`` 0 free, 1 respond, 2 lead, 3 over."""
    n = (len(ints) - I_HANDS) // 2
    seat = tab[TAB_SEAT]
    to_act = ints[I_TO_ACT]
    ph = ints[I_PHASE]
    held = 0
    for i in range(n):
        held |= ints[I_HANDS + i]
    own = ints[I_HANDS + seat]
    pm = tab[TAB_IN_PLAY] & ~(held | ints[I_DISC])
    np_ = popcount(pm)
    take, tm, legal = _pickup_and_legal(tab, ints, to_act, ph, pm, np_)
    _card_planes(out, tab, ints, n, own, pm, tm)
    _scalars(out, tab, ints, n, to_act, ph, np_, take)
    if mask_out.shape[0]:
        if not ints[I_MASK_ANY] and to_act != seat:
            legal = 0
        for a in range(NUM_ACTIONS):
            mask_out[a] = (legal >> a) & 1
