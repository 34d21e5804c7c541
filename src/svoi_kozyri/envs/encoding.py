"""The observation tensor: one player's knowledge of a hand as a float32 vector.

Why this layout: a learner should see the game from its own chair.  Seats are
*relative* (0 is the observer, 1 the next seat in turn order, ...), and suits are
permuted so that the observer's own (trump) suits come first, then the suits of
relative seat 1, 2, 3, then unowned suits; so "my trump" is always relative suit 0
and one network can play every seat.  Cards are re-indexed as
``relative_suit * 10 + rank`` (rank 0 is the five, 9 the ace).  The action space
stays the engine's absolute one (41 actions, :data:`~svoi_kozyri.core.PICKUP` = 40);
the tensor carries the suit map, and :func:`relative_actions` /
:func:`absolute_actions` convert between the two.

Only what the observer may know goes in (SPEC A15): the encoder reads an
:class:`~svoi_kozyri.core.Observation` (or exactly the same fields of a state, via
:func:`encode_state`, which the tests check against it).  The layout is documented
field by field in ``docs/envs.md``; :data:`FIELDS` lists it as ``(name, offset,
size)`` for code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from .._native import layout as _layout
from .._native.encoder import (
    I_MASK_ANY,
    TAB_KNOWN,
    TAB_SEAT,
    TAB_SIZE,
    encode_obs,
    fresh_kernel,
)
from ..core import (
    FREE,
    LEAD,
    NUM_ACTIONS,
    NUM_CARDS,
    OVER,
    PICKUP,
    RESPOND,
    Game,
    Observation,
    Origin,
    State,
)

#: 40-card planes, in this order (see ``docs/envs.md``).
PLANES: Final = (
    "own_hand",
    "known_seat1",
    "known_seat2",
    "known_seat3",
    "pile",
    "pile_top1",
    "pile_top2",
    "pile_top3",
    "pile_top4",
    "pile_top5",
    "discard",
    "unseen",
    "not_in_play",
    "pickup_would_take",
)
NUM_PLANES: Final = len(PLANES)
#: Scalar groups after the planes: (name, size).
SCALARS: Final = (
    ("hand_size", 4),
    ("seat_exists", 4),
    ("seat_holds_cards", 4),
    ("to_act", 4),
    ("phase", 4),
    ("suit_owner", 20),
    ("suit_map", 16),
    ("pile_size", 1),
    ("pickup_count", 1),
    ("turns_of_cap", 1),
    ("rules", 15),
)


def _fields() -> tuple[tuple[str, int, int], ...]:
    out = [(name, i * NUM_CARDS, NUM_CARDS) for i, name in enumerate(PLANES)]
    off = NUM_PLANES * NUM_CARDS
    for name, size in SCALARS:
        out.append((name, off, size))
        off += size
    return tuple(out)


#: ``(name, offset, size)`` of every field of the tensor.
FIELDS: Final = _fields()
#: Length of the observation tensor.
OBS_SIZE: Final = FIELDS[-1][1] + FIELDS[-1][2]
assert OBS_SIZE == _layout.OBS_SIZE  # the compiled writers' length is this table's
_OFF: Final = {name: off for name, off, _ in FIELDS}
SCALAR_OFFSET: Final = NUM_PLANES * NUM_CARDS

_PHASE_INDEX: Final = {FREE: 0, RESPOND: 1, LEAD: 2, OVER: 3}
assert all(k == v for k, v in _PHASE_INDEX.items())  # the kernel takes phases as they are


def suit_order(game: Game, seat: int) -> tuple[int, ...]:
    """Absolute suits in relative order for ``seat``: its own suits first (by suit
    index), then those of the following seats in turn order, then unowned suits."""
    n = game.n

    def key(s: int) -> tuple[int, int]:
        o = game.suit_owner[s]
        return ((o - seat) % n if o >= 0 else 4, s)

    return tuple(sorted(range(4), key=key))


def rules_features(game: Game) -> tuple[float, ...]:
    """The 15 rule flags of the ``rules`` field (the same for every seat)."""
    r = game.rules
    return (
        float(r.pickup_rule == "graded"),
        float(r.pickup_rule == "fixed"),
        float(r.pickup_rule == "whole_pile"),
        float(r.after_pickup == "face_new_top"),
        float(r.free_lead_after_defence_out),
        float(r.defence_out_pile == "discard"),
        float(r.draw_rule == "lead_only"),
        float(r.draw_rule == "any_last_card"),
        float(r.draw_rule == "none"),
        float(r.equal_rank_beats == "off"),
        float(r.equal_rank_beats == "also"),
        float(r.equal_rank_beats == "only"),
        float(r.own_suits_cross_beat),
        float(r.is_besicovitch),
        float(r.cap_outcome == "most_cards_loses"),
    )


class SeatView:
    """Precomputed per-(game, seat) tables: the card permutation and the constant
    part of the tensor (seat existence, ownership, suit map, rules)."""

    __slots__ = (
        "abs_of_rel",
        "const",
        "n",
        "perm",
        "rel4",
        "rel_of_abs",
        "rel_seat",
        "seat",
        "shifts",
        "tab",
    )

    def __init__(self, game: Game, seat: int) -> None:
        n = game.n
        self.n = n
        self.seat = seat
        order = suit_order(game, seat)
        rel_suit = [0] * 4
        for r, s in enumerate(order):
            rel_suit[s] = r
        # abs_of_rel[i]: the absolute card at relative index i.
        self.abs_of_rel = np.array(
            [order[i // 10] * 10 + i % 10 for i in range(NUM_CARDS)], dtype=np.uint64
        )
        self.rel_of_abs = np.array(
            [rel_suit[c // 10] * 10 + c % 10 for c in range(NUM_CARDS)], dtype=np.int64
        )
        self.shifts = self.abs_of_rel
        #: the same as int64, and the relative seats padded to 4 (compiled encoder)
        self.perm = self.abs_of_rel.astype(np.int64)
        #: relative seat of absolute seat i, for i in range(n)
        self.rel_seat = tuple((i - seat) % n for i in range(n))
        self.rel4 = np.array([*self.rel_seat, *[0] * (4 - n)], dtype=np.int64)
        const = np.zeros(OBS_SIZE - SCALAR_OFFSET, dtype=np.float32)
        base = SCALAR_OFFSET
        for i in range(n):
            const[_OFF["seat_exists"] - base + i] = 1.0
        for r, s in enumerate(order):
            o = game.suit_owner[s]
            col = (o - seat) % n if o >= 0 else 4
            const[_OFF["suit_owner"] - base + r * 5 + col] = 1.0
            const[_OFF["suit_map"] - base + r * 4 + s] = 1.0
        const[_OFF["rules"] - base : _OFF["rules"] - base + 15] = rules_features(game)
        self.const = const
        #: the compiled encoder's table of this game and seat (layout in
        #: ``_native._encode``): the card permutation, relative seats, open hands,
        #: the cap, the constant scalars (all 0 or 1, so they travel as ints), the game's
        #: pickup and beat tables; :class:`HandEncoder` appends the hand's part
        assert np.all((const == 0) | (const == 1))
        req = np.zeros((4, NUM_CARDS), dtype=np.int64)
        req[:n] = game._req
        beat = np.zeros((4, NUM_CARDS), dtype=np.int64)
        beat[:n] = game._beat
        self.tab = np.concatenate(
            [
                self.perm,
                self.rel4,
                np.array(
                    [int(game.open_hands), game.rules.max_actions_per_hand or 0], dtype=np.int64
                ),
                const.astype(np.int64),
                req.reshape(-1),
                beat.reshape(-1),
            ]
        )
        assert self.tab.shape[0] == TAB_SEAT


_VIEWS: dict[tuple[Game, int], SeatView] = {}


#: the views of the games used last, by object identity (the entry holds the game,
#: so its id cannot be reused while cached): hashing a Game hashes its whole rules,
#: which cost more than the rest of an observation
_LAST: dict[int, tuple[Game, list[SeatView]]] = {}


def seat_view(game: Game, seat: int) -> SeatView:
    """The cached :class:`SeatView` of ``seat`` in ``game``."""
    hit = _LAST.get(id(game))
    if hit is not None and hit[0] is game:
        return hit[1][seat]
    key = (game, seat)
    v = _VIEWS.get(key)
    if v is None:
        if len(_VIEWS) > 4096:
            _VIEWS.clear()
        v = _VIEWS[key] = SeatView(game, seat)
    if len(_LAST) > 64:
        _LAST.clear()
    _LAST[id(game)] = (game, [seat_view_uncached(game, s) for s in range(game.n)])
    return v


def seat_view_uncached(game: Game, seat: int) -> SeatView:
    """The view of ``seat`` from the (hash-keyed) cache, building it if needed."""
    key = (game, seat)
    v = _VIEWS.get(key)
    if v is None:
        v = _VIEWS[key] = SeatView(game, seat)
    return v


def _encode(
    game: Game,
    seat: int,
    own: int,
    known: Sequence[int],
    sizes: Sequence[int],
    pile: Sequence[int],
    discard: int,
    to_act: int,
    phase: int,
    turns: int,
    in_play: int,
    out: npt.NDArray[np.float32] | None,
) -> npt.NDArray[np.float32]:
    view = seat_view(game, seat)
    n = view.n
    masks = [0] * NUM_PLANES
    masks[0] = own
    placed = own | discard
    for i in range(n):
        if i != seat:
            masks[view.rel_seat[i]] = known[i]
            placed |= known[i]
    pm = 0
    for c in pile:
        pm |= 1 << c
    masks[4] = pm
    np_ = len(pile)
    for k in range(min(5, np_)):
        masks[5 + k] = 1 << pile[np_ - 1 - k]
    masks[10] = discard
    masks[11] = in_play & ~(placed | pm)
    masks[12] = ((1 << NUM_CARDS) - 1) & ~in_play
    take = 0
    if phase == RESPOND and np_:
        take = min(game._req[to_act][pile[-1]], np_)
        tm = 0
        for c in pile[np_ - take :]:
            tm |= 1 << c
        masks[13] = tm
    if out is None:
        out = np.empty(OBS_SIZE, dtype=np.float32)
    bits = (np.array(masks, dtype=np.uint64)[:, None] >> view.shifts) & np.uint64(1)
    out[:SCALAR_OFFSET] = bits.reshape(-1)
    sc = out[SCALAR_OFFSET:]
    sc[:] = view.const
    base = SCALAR_OFFSET
    hs = _OFF["hand_size"] - base
    hc = _OFF["seat_holds_cards"] - base
    for i in range(n):
        r = view.rel_seat[i]
        sc[hs + r] = sizes[i] / NUM_CARDS
        sc[hc + r] = 1.0 if sizes[i] else 0.0
    if phase != OVER:
        sc[_OFF["to_act"] - base + view.rel_seat[to_act]] = 1.0
    sc[_OFF["phase"] - base + _PHASE_INDEX[phase]] = 1.0
    sc[_OFF["pile_size"] - base] = np_ / NUM_CARDS
    sc[_OFF["pickup_count"] - base] = take / NUM_CARDS
    cap = game.rules.max_actions_per_hand
    sc[_OFF["turns_of_cap"] - base] = turns / cap if cap else 0.0
    return out


def encode_observation(
    obs: Observation, out: npt.NDArray[np.float32] | None = None
) -> npt.NDArray[np.float32]:
    """The tensor of an observation (a player's own, not a spectator's)."""
    if obs.seat is None:
        raise ValueError("a spectator's observation has no seat to encode relative to")
    seat = obs.seat
    known = [obs.hands[i] | obs.known[i] for i in range(obs.game.n)]
    return _encode(
        obs.game,
        seat,
        obs.hands[seat],
        known,
        obs.hand_sizes,
        obs.pile,
        obs.discard,
        -1 if obs.to_act is None else obs.to_act,
        obs.phase,
        obs.turns,
        obs.in_play or obs.game.deck,
        out,
    )


def encode_state(
    state: State,
    seat: int,
    out: npt.NDArray[np.float32] | None = None,
    mask_out: npt.NDArray[np.int8] | None = None,
) -> npt.NDArray[np.float32]:
    """The tensor of ``seat``'s observation of ``state``, read directly from the
    state's public fields and ``seat``'s own hand (equal to
    ``encode_observation(observe(state, seat))``, without building the observation).
    Written by one compiled call (:mod:`svoi_kozyri._native.encoder`); with
    ``mask_out`` that call also writes :func:`action_mask` of ``state`` (the mask of
    the seat to act) there."""
    if out is None:
        out = np.empty(OBS_SIZE, dtype=np.float32)
    hand_encoder(state).encode(
        state, seat, out, _NO_MASK if mask_out is None else mask_out, mask_any=1
    )
    return out


_EncoderState = tuple[Game, Origin, tuple[tuple[int, ...], ...], list[npt.NDArray[np.int64]]]


class HandEncoder:
    """The encoder of one hand's states (one deal, or one position start): it holds
    each seat's table with the hand's constants in it (the cards known at the start,
    the cards in play), so that :meth:`encode` only reads the state's changing
    fields.

    Why: an observation every step should cost about as little as an engine step,
    and numba's dispatch is most of it, at about 25 ns per int passed; so the Python
    side is one short tuple of plain attribute reads, and the compiled kernel works
    out the rest."""

    __slots__ = ("_kernel", "game", "origin", "req", "tabs")

    _kernel: Callable[..., Any]

    def __init__(self, state: State) -> None:
        game = state.game
        self.game = game
        origin = self.origin = state.origin
        self.req = game._req
        known = [*origin.known, 0, 0, 0, 0][:4]
        tabs = []
        for s in range(game.n):
            tab = np.empty(TAB_SIZE, dtype=np.int64)
            tab[:TAB_SEAT] = seat_view(game, s).tab
            tab[TAB_SEAT] = s
            tab[TAB_KNOWN : TAB_KNOWN + 4] = known
            tab[TAB_KNOWN + 4] = origin.cards
            tabs.append(tab)
        self.tabs = tabs
        self._kernel = fresh_kernel(game.n)

    def __getstate__(self) -> _EncoderState:
        """Everything but the kernel's entry point (taken again on unpickling)."""
        return self.game, self.origin, self.req, self.tabs

    def __setstate__(self, state: _EncoderState) -> None:
        self.game, self.origin, self.req, self.tabs = state
        self._kernel = fresh_kernel(self.game.n)

    def _fields(self, state: State) -> tuple[int, ...]:
        pile = state.pile
        np_ = len(pile)
        tm = -1
        if np_ > 5 and state.phase == RESPOND:
            take = self.req[state.to_act][pile[-1]]
            if take < np_:
                tm = 0
                for c in pile[np_ - take :]:
                    tm |= 1 << c
        top = pile[:-6:-1]
        return (
            state.discard,
            state.to_act,
            state.phase,
            state.turns,
            0,
            tm,
            *top,
            *_PADS[len(top)],
            *state.hands,
            *state.picked,
        )

    def encode(
        self,
        state: State,
        seat: int,
        out: npt.NDArray[np.float32],
        mask_out: npt.NDArray[np.int8],
        mask_any: int = 0,
    ) -> None:
        """Write ``seat``'s tensor of ``state`` (a state of this hand) into ``out``
        (every entry) and, unless ``mask_out`` is empty, the action mask into it
        (every entry): the legal actions if ``seat`` is to act (or ``mask_any`` is
        1), else zeros."""
        ints = self._fields(state)
        if mask_any:
            ints = (*ints[:I_MASK_ANY], 1, *ints[I_MASK_ANY + 1 :])
        encode_obs(out, mask_out, self.tabs[seat], ints)

    def observe(
        self, state: State, seat: int
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """``seat``'s tensor of ``state`` and its action mask (zeros unless ``seat``
        is to act), in fresh arrays.

        Why a separate method: the arrays are made here, so their types are known,
        and the kernel is called through its compiled entry point for this player
        count, which skips numba's type dispatch (about a quarter of the call)."""
        obs = np.empty(OBS_SIZE, _F32)  # positional dtype objects: a quarter faster
        mask = np.empty(NUM_ACTIONS, _I8)
        self._kernel(obs, mask, self.tabs[seat], self._fields(state))
        return obs, mask


#: the encoders of the hands used last, by the identity of their origin (the entry
#: holds the origin, so its id cannot be reused while cached)
_HANDS: dict[int, HandEncoder] = {}


def hand_encoder(state: State) -> HandEncoder:
    """The cached :class:`HandEncoder` of ``state``'s hand."""
    origin = state.origin
    enc = _HANDS.get(id(origin))
    if enc is None or enc.origin is not origin or enc.game is not state.game:
        if len(_HANDS) > 64:
            _HANDS.clear()
        enc = _HANDS[id(origin)] = HandEncoder(state)
    return enc


#: -1 padding of the top five pile cards, by how many there are
_PADS: Final = tuple((-1,) * (5 - k) for k in range(6))
_NO_MASK: Final = np.zeros(0, dtype=np.int8)
_F32: Final = np.dtype(np.float32)
_I8: Final = np.dtype(np.int8)


def action_mask(state: State) -> npt.NDArray[np.int8]:
    """The int8 mask over the 41 step-level actions (all zero once the hand is over)."""
    m = state.legal_action_mask()
    return ((np.uint64(m) >> _ACTION_SHIFTS) & np.uint64(1)).astype(np.int8)


_ACTION_SHIFTS: Final = np.arange(NUM_ACTIONS, dtype=np.uint64)


def relative_actions(game: Game, seat: int, actions: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Absolute step actions as ``seat``'s relative card indices (PICKUP stays 40)."""
    a = np.asarray(actions, dtype=np.int64)
    view = seat_view(game, seat)
    table = np.append(view.rel_of_abs, PICKUP)
    return table[a]


def absolute_actions(game: Game, seat: int, actions: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Inverse of :func:`relative_actions`."""
    a = np.asarray(actions, dtype=np.int64)
    view = seat_view(game, seat)
    table = np.append(view.abs_of_rel.astype(np.int64), PICKUP)
    return table[a]
