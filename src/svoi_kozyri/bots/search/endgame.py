"""Exact endgame tables of small two-player positions, by retrograde analysis.

What a table holds: for one rules option set (and suit assignment) and a size
``K``, the exact value (win, draw or loss for the player to act) and the
distance in steps to the end under best play, of *every* open position with at
most ``K`` cards in play (hands and pile), up to the exact reductions of
:mod:`.reduce` (only one card set per class of rank-compressed, suit-symmetric
card sets is built; a position is looked up through its images).

How it is built.  In the two-player game the cards in play never change during
the hand (there is no stock and no discard; a card leaves a hand only for the
pile and the pile only for a hand), so the positions on one card set form a
closed graph.  Each card set's graph is enumerated (every split of the cards
into the two hands and an ordered pile, either player to act, free lead or
respond, and the mid-turn nodes between a beat and its lead) and solved
backwards: a position is won if a move reaches a position lost for the player
then to act, lost if every move reaches a won one, by a queue in order of
distance (so a win's distance is the shortest, a loss's the longest).  What is
never decided is a draw: a last-card draw, or endless play.

**Why a history-free value is right, and when it is not.**  The engine ends a
hand as a draw at the third occurrence of a position (SPEC D6.1), counted from
the start of the hand.  A player with a forced win has a winning strategy along
which the distance to the win strictly falls, so the win never revisits a
position and no repetition rule can stop it; a player who cannot force a win
can be held to at most a draw by endless play, and endless play is a draw under
the threefold rule too.  So the table value equals the real value *provided*
no position of the current hand has already occurred ``repetition_limit - 1``
times (then entering it again would end the hand at once, which a history-free
value does not know) and the action cap leaves room for the distance.  The
solver consults the tables only in exactly those cases (see
:meth:`EndgameTables.probe_move` and ``Solver.solve``) and searches otherwise.

A consequence of the closed graphs: a table answers the positions of at most
``K`` cards in play, and no larger search ever reaches one (its cards in play
never shrink), so tables serve small positions instantly but are no leaves of a
search of a larger position.

Tables are built on first use or by ``svoi-kozyri tables build`` and cached in
the user's cache directory under a file name holding the format version, the
rules options and ``K``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import deque
from collections.abc import Callable
from itertools import permutations, product
from pathlib import Path

from ...core import FREE, LEAD, OVER, RESPOND, Game, Move, State
from ...core.cards import NUM_CARDS, NUM_RANKS, RA, card
from .reduce import Reducer, encode, map_mask
from .rules2p import GOES_ON, PILE_BITS, PILE_MASK, TwoPlayerRules, pack_pile

#: Bump when the file layout or the meaning of an entry changes.
FORMAT_VERSION = 1

#: Default table size (cards in play) for ``tables build``.
DEFAULT_CARDS = 5

_MAGIC = b"SKEG"


class TablesUnavailable(Exception):
    """The rules have no endgame tables (see :func:`supported`)."""


def supported(game: Game) -> str | None:
    """Why ``game`` has no tables (``None``: it has).  Tables need the two-player
    game (only there does an open position stay open with the same two players)
    and rules under which ranks compress per suit (not equal-rank beating)."""
    if game.n != 2:
        return "endgame tables exist for two-player games only"
    if game.rules.equal_rank_beats != "off":
        return "endgame tables need rules without equal-rank beating"
    return None


def rules_tag(game: Game) -> str:
    """The rules part of a table's file name: the changed options, readable, and a
    short hash of everything that changes values (all options and the suits)."""
    changed = game.rules.to_dict(only_changed=True)
    text = "-".join(f"{k}={v}" for k, v in sorted(changed.items())) or "default"
    safe = "".join(ch if ch.isalnum() or ch in "=-_." else "_" for ch in text)[:120]
    full = json.dumps(
        {"rules": game.rules.to_dict(), "owners": list(game.owners), "pairs": game.pairs},
        sort_keys=True,
        default=str,
    )
    return f"{safe}-{hashlib.sha256(full.encode()).hexdigest()[:12]}"


def cache_dir() -> Path:
    """Where tables are cached: ``SVOI_KOZYRI_CACHE`` if set, else platformdirs'
    user cache directory of the application."""
    env = os.environ.get("SVOI_KOZYRI_CACHE")
    if env:
        return Path(env) / "endgame"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("svoi-kozyri")) / "endgame"


def table_path(game: Game, cards: int) -> Path:
    """The versioned cache file of ``game``'s tables of up to ``cards`` cards."""
    return cache_dir() / f"v{FORMAT_VERSION}-{rules_tag(game)}-k{cards}.bin"


class _Shape:
    """One card set's closed graph in local card indices (0..k-1), stepped by the
    solver's own two-player rules (:mod:`.rules2p`) on those indices."""

    def __init__(self, game: Game, cards: list[int]) -> None:
        self.cards = cards
        self.k = self.kbits = len(cards)
        self.rules = TwoPlayerRules.for_cards(game, cards)

    def key(self, h0: int, h1: int, pile: int, p: int, phase: int) -> int:
        k = self.kbits
        return (((pile << k | h0) << k | h1) << 1 | p) << 2 | phase

    def unkey(self, key: int) -> tuple[int, int, int, int, int]:
        k = self.kbits
        mask = (1 << k) - 1
        phase = key & 3
        key >>= 2
        p = key & 1
        key >>= 1
        h1 = key & mask
        key >>= k
        h0 = key & mask
        pile = key >> k
        return h0, h1, pile, p, phase

    def children(self, key: int) -> list[tuple[int, int, int]]:
        """(child key or -1, 1 if the same player acts there, terminal value for
        the mover) for every step action from ``key``."""
        h0, h1, pile, p, phase = self.unkey(key)
        plen = (pile.bit_length() + PILE_BITS - 1) // PILE_BITS
        rules = self.rules
        out: list[tuple[int, int, int]] = []
        for a in rules.actions(h0, h1, pile, p, phase):
            c0, c1, cp, _cl, q, cph, v = rules.child(h0, h1, pile, plen, p, phase, a)
            if v != GOES_ON:
                out.append((-1, 1, v))
            else:
                out.append((self.key(c0, c1, cp, q, cph), 1 if q == p else 0, 0))
        return out

    def boundary(self) -> list[int]:
        """Every turn-boundary position on this card set (both hands non-empty)."""
        k = self.k
        out: list[int] = []
        for where in product(range(3), repeat=k):
            h0 = h1 = 0
            pile_cards: list[int] = []
            for i, w in enumerate(where):
                if w == 0:
                    h0 |= 1 << i
                elif w == 1:
                    h1 |= 1 << i
                else:
                    pile_cards.append(i)
            if not h0 or not h1:
                continue
            for order in permutations(pile_cards):
                pile = pack_pile(list(order))
                for p in range(2):
                    out.append(self.key(h0, h1, pile, p, FREE))
                    if pile:
                        out.append(self.key(h0, h1, pile, p, RESPOND))
        return out

    def solve(self) -> dict[int, tuple[int, int]]:
        """Retrograde analysis of the closed graph: boundary key -> (value for the
        player to act, distance in steps; 0 for a draw)."""
        index: dict[int, int] = {}
        keys: list[int] = []
        for key in self.boundary():
            index[key] = len(keys)
            keys.append(key)
        preds: list[list[tuple[int, int]]] = []
        remaining: list[int] = []
        has_draw: list[bool] = []
        value: list[int] = []
        dist: list[int] = []
        queue: deque[int] = deque()
        i = 0
        while i < len(keys):
            preds.append([])
            remaining.append(0)
            has_draw.append(False)
            value.append(2)  # undecided
            dist.append(0)
            i += 1
        i = 0
        while i < len(keys):
            won = False
            n = 0
            for ck, same, tv in self.children(keys[i]):
                if ck < 0:
                    if tv == 1:
                        won = True
                    else:
                        has_draw[i] = True
                    continue
                j = index.get(ck, -1)
                if j < 0:
                    j = index[ck] = len(keys)
                    keys.append(ck)
                    preds.append([])
                    remaining.append(0)
                    has_draw.append(False)
                    value.append(2)
                    dist.append(0)
                preds[j].append((i, same))
                n += 1
            remaining[i] = n
            if won:
                value[i] = 1
                dist[i] = 1
                queue.append(i)
            i += 1
        _retrograde(queue, preds, remaining, has_draw, value, dist)
        out: dict[int, tuple[int, int]] = {}
        for i, key in enumerate(keys):
            if key & 3 == LEAD:
                continue
            v = value[i]
            out[key] = (0, 0) if v == 2 else (v, dist[i])
        return out


def _retrograde(
    queue: deque[int],
    preds: list[list[tuple[int, int]]],
    remaining: list[int],
    has_draw: list[bool],
    value: list[int],
    dist: list[int],
) -> None:
    """Backward induction from the positions in ``queue`` (decided, ``value`` 1 or
    -1): a predecessor is won when a move reaches a loss for its mover, lost when
    its last undecided move reaches a win and it has no drawing move.  Sets
    ``value`` and ``dist`` (steps to the end) of every position it decides; what
    stays undecided (2) is a draw.

    Why apart: the graph's construction and its solution are two phases of
    :meth:`_Shape.solve`; this loop is the second, run once per graph."""
    while queue:
        x = queue.popleft()
        vx = value[x]
        for y, same in preds[x]:
            if value[y] != 2:
                continue
            v = vx if same else -vx
            if v == 1:
                value[y] = 1
                dist[y] = dist[x] + 1
                queue.append(y)
            else:
                remaining[y] -= 1
                if remaining[y] == 0 and not has_draw[y]:
                    value[y] = -1
                    dist[y] = dist[x] + 1
                    queue.append(y)


def _shapes(game: Game, red: Reducer, most: int) -> list[list[int]]:
    """One representative card set (as a sorted card list) per class of rank-
    compressed card sets of 2..``most`` cards under the rules' suit symmetries."""
    low = red.low_rank
    per_suit = RA - low  # non-ace ranks of the deck in a suit
    options: list[list[tuple[int, int]]] = []
    for _s in range(4):
        options.append([(n, a) for n in range(per_suit + 1) for a in range(2)])
    seen: set[int] = set()
    out: list[list[int]] = []
    for combo in product(*options):
        total = sum(n + a for n, a in combo)
        if total < 2 or total > most:
            continue
        mask = 0
        for s, (n, a) in enumerate(combo):
            for r in range(n):
                mask |= 1 << card(s, low + r)
            if a:
                mask |= 1 << card(s, RA)
        if mask & ~game.deck:
            continue  # pragma: no cover - the ranks above come from the deck
        rep = min(map_mask(mask, sigma) for sigma, _pi in red.autos)
        if rep in seen:
            continue
        seen.add(rep)
        out.append([c for c in range(NUM_CARDS) if rep >> c & 1])
    return out


class EndgameTables:
    """Exact values of every open two-player position of up to ``cards`` cards in
    play for one game, keyed by the reduced frame (see the module text)."""

    def __init__(self, game: Game, cards: int, entries: dict[tuple[int, ...], tuple[int, int]]):
        self.game = game
        self.cards = cards
        self.entries = entries
        self.reducer = Reducer(game)
        self.max_distance = max((d for _v, d in entries.values()), default=0)

    # -- building and the cache -------------------------------------------------------

    @classmethod
    def build(
        cls, game: Game, cards: int, progress: Callable[[int, int], None] | None = None
    ) -> EndgameTables:
        """Build the tables by retrograde analysis (no cache involved)."""
        why = supported(game)
        if why is not None:
            raise TablesUnavailable(why)
        if not 2 <= cards <= NUM_RANKS:
            raise TablesUnavailable(f"table size must be 2..{NUM_RANKS} cards, not {cards}")
        red = Reducer(game)
        shapes = _shapes(game, red, cards)
        entries: dict[tuple[int, ...], tuple[int, int]] = {}
        for n, cs in enumerate(shapes):
            shape = _Shape(game, cs)
            for key, vd in shape.solve().items():
                h0, h1, pile, p, phase = shape.unkey(key)
                pl: list[int] = []
                while pile:
                    pl.append(cs[(pile & PILE_MASK) - 1])
                    pile >>= PILE_BITS
                pl.reverse()
                fr = (_glob(cs, h0), _glob(cs, h1), tuple(pl), p, phase)
                entries[encode(fr)] = vd
            if progress is not None:
                progress(n + 1, len(shapes))
        return cls(game, cards, entries)

    def save(self, path: Path) -> None:
        """Write the tables to ``path`` (atomically: a temporary file, renamed)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        chunks = [_MAGIC, FORMAT_VERSION.to_bytes(2, "little"), self.cards.to_bytes(2, "little")]
        chunks.append(len(self.entries).to_bytes(8, "little"))
        for key, (v, d) in self.entries.items():
            chunks.append(len(key).to_bytes(1, "little"))
            for x in key:
                chunks.append(x.to_bytes(6, "little"))
            chunks.append((v + 1).to_bytes(1, "little"))
            chunks.append(d.to_bytes(2, "little"))
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(b"".join(chunks))
        os.replace(tmp, path)

    @classmethod
    def load(cls, game: Game, path: Path) -> EndgameTables | None:
        """The tables in ``path``, or ``None`` if it is missing, of another format
        version or damaged (then it is rebuilt)."""
        try:
            data = path.read_bytes()
        except OSError:
            return None
        try:
            if data[:4] != _MAGIC or int.from_bytes(data[4:6], "little") != FORMAT_VERSION:
                return None
            cards = int.from_bytes(data[6:8], "little")
            count = int.from_bytes(data[8:16], "little")
            pos = 16
            entries: dict[tuple[int, ...], tuple[int, int]] = {}
            for _ in range(count):
                n = data[pos]
                pos += 1
                key = tuple(
                    int.from_bytes(data[pos + 6 * j : pos + 6 * j + 6], "little") for j in range(n)
                )
                pos += 6 * n
                v = data[pos] - 1
                d = int.from_bytes(data[pos + 1 : pos + 3], "little")
                pos += 3
                entries[key] = (v, d)
            if pos != len(data):
                return None
        except IndexError:
            return None
        return cls(game, cards, entries)

    @classmethod
    def cached(
        cls, game: Game, cards: int = DEFAULT_CARDS, build: bool = True
    ) -> EndgameTables | None:
        """The cached tables of ``game`` (built and cached first if missing and
        ``build``); ``None`` when there are none or the rules have no tables."""
        if supported(game) is not None:
            return None
        path = table_path(game, cards)
        t = cls.load(game, path)
        if t is None and build:
            t = cls.build(game, cards)
            t.save(path)
        return t

    # -- lookup ----------------------------------------------------------------------

    def probe(self, state: State) -> tuple[int, int] | None:
        """(value for the player to act, distance in steps) of an open ``state`` at
        a turn boundary with at most ``cards`` cards in play, history-free (see
        the module text); ``None`` when the tables do not hold it."""
        if state.game != self.game or state.phase not in (FREE, RESPOND):
            return None
        if sum(h.bit_count() for h in state.hands) + len(state.pile_cards()) > self.cards:
            return None
        seats, fr = self.reducer.frame(state)
        if len(seats) != 2:
            return None
        for img, _f, _swap in self.reducer.images(seats, fr):
            e = self.entries.get(encode(img))
            if e is not None:
                return e
        return None

    def probe_move(
        self, state: State, steps_left: int | None
    ) -> tuple[int, Move, list[Move]] | None:
        """The exact value of ``state``, a move achieving it (a shortest win, or a
        loss held out longest) and every optimal move, or ``None`` if the tables
        cannot answer it exactly: not held, or a win or loss longer than
        ``steps_left`` steps (the action cap; ``None``: no cap).  The caller makes
        sure no position of the hand is one occurrence short of the threefold
        rule."""
        root = self.probe(state)
        if root is None:
            return None
        v0, d0 = root
        if v0 != 0 and steps_left is not None and d0 > steps_left:
            return None
        me = state.to_act
        scored: list[tuple[int, int, Move]] = []  # (value for me, distance, move)
        for m in state.legal_moves():
            c = state.copy()
            c.push_unchecked(m)
            if c.phase == OVER:
                r = c.outcome
                assert r is not None
                v = 0 if r.loser is None else (-1 if r.loser == me else 1)
                scored.append((v, 0, m))
                continue
            e = self.probe(c)
            if e is None:
                return None  # pragma: no cover - the same card set is always held
            v, d = e
            scored.append((v if c.to_act == me else -v, d, m))
        best = max(v for v, _d, _m in scored)
        if best != v0:  # pragma: no cover - a table inconsistent with its rules
            return None
        optimal = [m for v, _d, m in scored if v == best]
        if best == 1:
            move = min((d, i) for i, (v, d, _m) in enumerate(scored) if v == 1)
        elif best == -1:
            move = min((-d, i) for i, (v, d, _m) in enumerate(scored) if v == -1)
        else:
            move = (0, next(i for i, (v, _d, _m) in enumerate(scored) if v == 0))
        return best, scored[move[1]][2], optimal


def _glob(cs: list[int], local: int) -> int:
    out = 0
    while local:
        low = local & -local
        out |= 1 << cs[low.bit_length() - 1]
        local ^= low
    return out


__all__ = [
    "DEFAULT_CARDS",
    "FORMAT_VERSION",
    "EndgameTables",
    "TablesUnavailable",
    "cache_dir",
    "rules_tag",
    "supported",
    "table_path",
]
