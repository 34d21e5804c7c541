"""Differential test of every implementation of the two-player rules step.

The step of an open position (two players holding cards) is written for four
representations: the engine's :class:`~svoi_kozyri.core.State`, the search's
compact position (:mod:`svoi_kozyri.bots.search.rules2p`, which the solver, its
endgame tables on local card indices and the benchmark's alpha-beta baseline all
call), the compiled fixpoint's port on trie piles (:mod:`svoi_kozyri._native._fixpoint`,
numba) and the environments' n-player kernel (:mod:`svoi_kozyri._native._hand`,
through the one-hand :class:`~svoi_kozyri._native.onehand.FastHand`).  Here all of them step the
same generated positions, under every rules option that changes open play, with
every legal step action, and must agree on the legal actions (and the search's
move order), on every successor and on the value of every step that ends the hand.
A rules change that misses one of them fails here, not in a slow solver test.
"""

from __future__ import annotations

import random
import zlib

import numpy as np
import pytest

from svoi_kozyri._native import _fixpoint as FG
from svoi_kozyri._native import layout as K
from svoi_kozyri._native.fixpoint import FixGraph
from svoi_kozyri._native.onehand import FastHand
from svoi_kozyri.bots.search.endgame import _Shape
from svoi_kozyri.bots.search.rules2p import (
    GOES_ON,
    Position,
    TwoPlayerRules,
    encode,
    pack_pile,
    pile_codes,
)
from svoi_kozyri.bots.search.solver import Solver
from svoi_kozyri.core import FREE, OVER, PICKUP, RESPOND, Game, State, Termination
from svoi_kozyri.envs.encoding import seat_view
from svoi_kozyri.envs.vector import unsupported
from test_solver import GAMES, OPTION_GAMES, random_open

ALL_GAMES = GAMES + OPTION_GAMES

#: (child position, or None when the hand ends; the mover's value if it ended)
Step = tuple[Position | None, int]


def _rules_id(g: Game) -> str:
    return f"{g.n}p-" + (str(g.rules.to_dict(only_changed=True)) or "default")


def positions(game: Game, seed: int, count: int) -> list[State]:
    """``count`` open positions of ``game``: random deals of 2 to 14 cards in play,
    each followed by a random walk of engine steps (so mid-turn positions, where
    the beater must now lead, occur too), every position of the walk kept as a
    fresh start (the search's step knows no history: no repetition may end it)."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        s = random_open(rng, game, rng.randint(2, 14))
        for _ in range(rng.randint(1, 8)):
            out.append(game.position(s.hands, s.pile_cards(), s.to_act, s.phase, s.outs))
            s.apply_action(rng.choice(s.legal_actions()))
            if s.is_over:
                break
    return out[:count]


def engine_steps(s: State, seats: tuple[int, int]) -> dict[int, Step]:
    """The engine's successor of every legal step action, in compact terms."""
    me = s.to_act
    out: dict[int, Step] = {}
    for a in s.legal_actions():
        c = s.copy()
        c.apply_action(a)
        if c.phase == OVER:
            r = c.outcome
            assert r is not None
            if r.loser is None:
                assert r.termination is Termination.LAST_CARD
                out[a] = (None, 0)
            else:
                assert r.termination is Termination.OUT and r.loser != me
                out[a] = (None, 1)
        else:
            out[a] = (encode(c, seats), 0)
    return out


def rules2p_steps(rules: TwoPlayerRules, pos: Position) -> dict[int, Step]:
    """The shared two-player step's successors (the solver's, the tables', the
    baseline's)."""
    h0, h1, pile, plen, p, phase = pos
    out: dict[int, Step] = {}
    for a in rules.actions(h0, h1, pile, p, phase):
        c0, c1, cp, cl, q, cph, v = rules.child(h0, h1, pile, plen, p, phase, a)
        assert cl == len(pile_codes(cp, cl)) and (cp == 0) == (cl == 0)
        out[a] = ((c0, c1, cp, cl, q, cph), 0) if v == GOES_ON else (None, v)
    return out


def shape_steps(game: Game, pos: Position) -> dict[int, Step]:
    """The endgame tables' successors: the position in the local card indices of
    its card set (:class:`_Shape`), stepped there and mapped back."""
    h0, h1, pile, plen, p, phase = pos
    codes = pile_codes(pile, plen)
    cards = sorted({c for c in range(40) if (h0 | h1) >> c & 1} | {c - 1 for c in codes})
    local = {c: i for i, c in enumerate(cards)}

    def to_local(mask: int) -> int:
        return sum(1 << local[c] for c in cards if mask >> c & 1)

    def to_global(mask: int) -> int:
        return sum(1 << c for i, c in enumerate(cards) if mask >> i & 1)

    shape = _Shape(game, cards)
    lpile = pack_pile([local[c - 1] for c in codes])
    key = shape.key(to_local(h0), to_local(h1), lpile, p, phase)
    lacts = shape.rules.actions(to_local(h0), to_local(h1), lpile, p, phase)
    out: dict[int, Step] = {}
    for a, (ck, _same, v) in zip(lacts, shape.children(key), strict=True):
        ga = PICKUP if a == PICKUP else cards[a]
        if ck < 0:
            out[ga] = (None, v)
            continue
        c0, c1, cp, q, cph = shape.unkey(ck)
        gp = [cards[c - 1] for c in _codes(cp)]
        out[ga] = ((to_global(c0), to_global(c1), pack_pile(gp), len(gp), q, cph), 0)
    return out


def _codes(pile: int) -> list[int]:
    """The codes of a packed pile whose length is not known, bottom first."""
    codes: list[int] = []
    while pile:
        codes.append(pile & 63)
        pile >>= 6
    return codes[::-1]


class TriePiles:
    """The compiled fixpoint's kernels on one :class:`~svoi_kozyri._native.fixpoint.FixGraph`'s
    arrays, called one step at a time."""

    def __init__(self, rules: TwoPlayerRules) -> None:
        self.graph = FixGraph(
            rules.beat, rules.req, 0, rules.draw_mode, rules.taker_leads, rules.face_new_top
        )
        self.out = np.zeros(64, dtype=np.int64)
        self.keys = np.zeros(64, dtype=np.int64)

    def pid(self, pile: int, plen: int) -> int:
        """The trie node of a packed pile (made if new)."""
        G = self.graph.piles
        pid = 0
        for code in pile_codes(pile, plen):
            pid = int(FG.pile_push(G[0], G[1], G[2], G[3], G[4], pid, code))
        return pid

    def unpid(self, pid: int) -> tuple[int, int]:
        """A trie node's packed pile and its length."""
        qpar, qcard = self.graph.piles[0], self.graph.piles[1]
        cards: list[int] = []
        while pid:
            cards.append(int(qcard[pid]) - 1)
            pid = int(qpar[pid])
        cards.reverse()
        return pack_pile(cards), len(cards)

    def order(self, pos: Position) -> list[int]:
        """The kernel's move order (:func:`~svoi_kozyri._native._fixpoint.order`)."""
        h0, h1, pile, plen, p, phase = pos
        g = self.graph
        n = FG.order(
            g.BEAT, g.piles[1], h0, h1, self.pid(pile, plen), p, phase, self.out, self.keys
        )
        return [int(x) for x in self.out[:n]]

    def steps(self, pos: Position, acts: list[int]) -> dict[int, Step]:
        """The kernel's successors (:func:`~svoi_kozyri._native._fixpoint.child`) of ``acts``."""
        h0, h1, pile, plen, p, phase = pos
        g = self.graph
        out: dict[int, Step] = {}
        for a in acts:
            pid = self.pid(pile, plen)
            c0, c1, cpid, q, cph, v = FG.child(
                tuple(g.piles), g.R, g.BEAT, g.REQ, h0, h1, pid, p, phase, a
            )
            if v != GOES_ON:
                out[a] = (None, int(v))
                continue
            cp, cl = self.unpid(int(cpid))
            out[a] = ((int(c0), int(c1), cp, cl, int(q), int(cph)), 0)
        return out


def kernel_steps(fh: FastHand, s: State, seats: tuple[int, int]) -> dict[int, Step]:
    """The environments' kernel's successors: the hand loaded afresh, stepped once
    per legal action, its row read back in compact terms."""
    me = s.to_act
    out: dict[int, Step] = {}
    for a in s.legal_actions():
        fh.load(s)
        r = fh.step(a)
        assert r != K.AEC_ILLEGAL, a
        W = fh.W
        row = W[K.W_S : K.W_S + K.S_WIDTH]
        if r == K.AEC_OVER:
            reason = K.REASONS[int(row[K.C_REASON])]
            loser = int(row[K.C_LOSER])
            assert (reason, loser) in (("last_card", -1), ("out", seats[0] + seats[1] - me)), (
                reason,
                loser,
            )
            out[a] = (None, 1 if reason == "out" else 0)
            continue
        hands = [int(row[K.C_HANDS + i]) for i in range(4)]
        assert all(hands[i] == 0 for i in range(4) if i not in seats)
        plen = int(row[K.C_PLEN])
        pile = pack_pile([int(c) for c in W[K.W_P : K.W_P + plen]])
        q = 0 if int(row[K.C_TO_ACT]) == seats[0] else 1
        assert int(row[K.C_TO_ACT]) == seats[q]
        assert r >> K.AEC_SEAT_SHIFT == seats[q]
        out[a] = ((hands[seats[0]], hands[seats[1]], pile, plen, q, int(row[K.C_PHASE])), 0)
    return out


@pytest.mark.parametrize("game", ALL_GAMES, ids=_rules_id)
def test_every_step_implementation_agrees(game: Game) -> None:
    """Engine, shared two-player step, endgame tables' local step, compiled
    fixpoint's trie step and the environments' kernel: the same legal actions,
    successors and terminal values on every generated position."""
    seed = zlib.crc32(_rules_id(game).encode())
    tries: dict[tuple[int, ...], TriePiles] = {}
    views = [seat_view(game, seat) for seat in range(game.n)]
    fast = FastHand(game, views) if unsupported(game.rules) is None else None
    checked = 0
    for i, s in enumerate(positions(game, seed, 300)):
        seats = tuple(j for j, h in enumerate(s.hands) if h)
        assert len(seats) == 2
        a, b = seats
        rules = TwoPlayerRules.for_seats(game, (a, b))
        pos = encode(s, (a, b))
        ctx = (i, str(s))
        want = engine_steps(s, (a, b))
        assert sorted(rules.actions(*pos[:3], *pos[4:])) == sorted(want), ctx
        assert rules2p_steps(rules, pos) == want, ctx
        order = rules.order(*pos[:3], *pos[4:], -1)
        assert sorted(order) == sorted(want), ctx
        if s.phase in (FREE, RESPOND):  # the solver starts at turn boundaries
            solver = Solver()
            assert solver._root(s) == pos and solver.rules2p.beat == rules.beat, ctx
        trie = tries.get(seats)
        if trie is None or trie.graph.counters[FG.C_PILES] > 2000:
            trie = tries[seats] = TriePiles(rules)
        assert trie.order(pos) == order, ctx
        assert trie.steps(pos, order) == want, ctx
        if game.n == 2:
            assert shape_steps(game, pos) == want, ctx
        if fast is not None:
            assert kernel_steps(fast, s, (a, b)) == want, ctx
        checked += 1
    assert checked == 300
