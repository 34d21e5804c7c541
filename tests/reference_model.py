"""An independent, deliberately plain reference model of the rules of SPEC.md.

Written from ``../shared/rules/SPEC.md`` (sections A, C, D, E) and
``../shared/scenarios/FORMAT.md`` alone, without looking at the engine, so that
the differential tests compare two independent readings of the rules.  Speed is
irrelevant here: cards are strings (``"10H"``), hands are Python sets, the pile
is a list (bottom -> top), moves are the turn-level strings of FORMAT.md, and
the repetition history is a ``Counter`` of full position tuples.

Where SPEC leaves something open the model follows ``docs/rules.md``; the few
places where even that is silent are marked ``OPEN:`` below.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

SUITS = "SHDC"
#: Rank order, low to high (A1.2); ``5`` exists only in the 40-card Besicovitch deck.
RANKS = ["5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
SEATS = "ABCD"

#: Per option name, the SPEC C9 default.
DEFAULTS: dict[str, Any] = {
    "variant": "standard",
    "trumps_per_player_2p": 2,
    "own_suits_cross_beat": False,
    "pickup_rule": "graded",
    "fixed_pickup_count": 3,
    "after_pickup": "face_new_top",
    "free_lead_after_defence_out": True,
    "defence_out_pile": "keep",
    "draw_rule": "lead_only",
    "equal_rank_beats": "off",
    "session_mode": "losses",
    "loss_limit": 5,
    "points_target": 5,
    "points_on_draw": False,
    "repetition_limit": 3,
    "max_actions_per_hand": 20000,
    "cap_outcome": "draw",
    "deck_size": 32,
    "besicovitch_first_leader": "dealer",
    "taker_leads_after_pickup": False,
    "besicovitch_draw_rule": False,
}


def opts(rules: dict[str, Any]) -> dict[str, Any]:
    """The full option map: SPEC defaults overlaid with ``rules`` (Besicovitch
    takes whole-pile pickups unless told otherwise, C3.4/C6)."""
    out = dict(DEFAULTS)
    if rules.get("variant") == "besicovitch":
        out["pickup_rule"] = "whole_pile"
        out["trumps_per_player_2p"] = 1
    out.update(rules)
    return out


def rank(c: str) -> int:
    """Rank index, higher is stronger."""
    return RANKS.index(c[:-1])


def suit(c: str) -> str:
    """Suit letter."""
    return c[-1]


def norm(c: str) -> str:
    """Normalise ``T`` to ``10``."""
    return "10" + c[-1] if c[:-1] == "T" else c


def cards(text: str) -> list[str]:
    """Split a card string of FORMAT.md."""
    return [norm(x) for x in text.split()]


def standard_deck() -> list[str]:
    """The 36-card deck of A1."""
    return [r + s for s in SUITS for r in RANKS[1:]]


def besicovitch_deck(size: int) -> list[str]:
    """The deck of C3.1: 24 = A..9, 32 = A..7, 36 = A..6, 40 = A..5."""
    low = {24: "9", 32: "7", 36: "6", 40: "5"}[size]
    ranks = RANKS[RANKS.index(low) :]
    return [r + s for s in SUITS for r in ranks]


@dataclass
class Hand:
    """One hand in progress.  ``owned[p]`` is the set of suits whose cards are
    trumps for seat ``p`` (for Besicovitch: the one trump suit)."""

    n: int
    owned: list[set[str]]
    options: dict[str, Any]
    hands: list[set[str]]
    pile: list[str]
    to_act: int | None
    mode: str | None
    outs: list[tuple[int, str]] = field(default_factory=list)
    discard: list[str] = field(default_factory=list)
    result: tuple[str, Any] | None = None  # ("loser", seat) or ("draw", reason)
    result_reason: str | None = None
    turns: int = 0
    history: Counter[tuple[Any, ...]] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        # FORMAT.md: the start position is the first occurrence.
        if self.result is None:
            self.history[self.key()] += 1

    # ---- rules --------------------------------------------------------------
    @property
    def besic(self) -> bool:
        """The Besicovitch game (C3)."""
        return bool(self.options["variant"] == "besicovitch")

    def beats(self, c: str, t: str, p: int) -> bool:
        """A8 with the C7 equal-rank option and the B19 cross-beat option."""
        own = self.owned[p]
        era = self.options["equal_rank_beats"]
        if era == "only":
            a = rank(c) == rank(t)
        else:
            a = suit(c) == suit(t) and rank(c) > rank(t)
            if era == "also" and rank(c) == rank(t):
                a = True
        b = suit(c) in own and suit(t) not in own
        cross = (
            bool(self.options["own_suits_cross_beat"])
            and suit(c) in own
            and suit(t) in own
            and suit(c) != suit(t)
        )
        return a or b or cross

    def required(self, p: int) -> int:
        """A10 / C6: how many cards a refusal takes now."""
        t = self.pile[-1]
        rule = self.options["pickup_rule"]
        if rule == "whole_pile":
            need = len(self.pile)
        elif rule == "fixed":
            need = int(self.options["fixed_pickup_count"])
        elif suit(t) not in self.owned[p]:
            need = 3
        elif t[:-1] == "A":
            need = len(self.pile)
        else:
            need = 5
        return min(need, len(self.pile))

    def next_seat(self, p: int) -> int:
        """A6.2: the next seat clockwise from ``p`` that holds cards."""
        for i in range(1, self.n + 1):
            q = (p + i) % self.n
            if self.hands[q]:
                return q
        raise AssertionError("nobody holds cards")

    def beat_options(self) -> set[str]:
        """The cards the seat to act may beat the top with (respond mode only)."""
        if self.result is not None or self.mode != "respond":
            return set()
        p = self.to_act
        assert p is not None
        return {c for c in self.hands[p] if self.beats(c, self.pile[-1], p)}

    def pickup_count(self) -> int:
        """How many cards a refusal would take (0 outside respond mode)."""
        if self.result is not None or self.mode != "respond":
            return 0
        assert self.to_act is not None
        return self.required(self.to_act)

    def legal(self) -> list[str]:
        """A9 / A16 legal(): the turn-level moves as FORMAT.md strings."""
        if self.result is not None:
            return []
        p = self.to_act
        assert p is not None
        hand = self.hands[p]
        if self.mode == "free":
            return sorted(f"lead {c}" for c in hand)
        acts = ["pickup"]
        for c1 in self.beat_options():
            rest = hand - {c1}
            if not rest:
                acts.append(f"beat {c1}")
            else:
                acts += [f"beat {c1} lead {c2}" for c2 in rest]
        return sorted(acts)

    # ---- applying -----------------------------------------------------------
    def key(self) -> tuple[Any, ...]:
        """The full exact position (D6.1 plus the discard)."""
        return (
            tuple(frozenset(h) for h in self.hands),
            tuple(self.pile),
            frozenset(self.discard),
            self.to_act,
            self.mode,
        )

    def apply(self, move: str) -> None:
        """Apply one legal turn-level move; ``ValueError`` (nothing changed) if illegal."""
        if move not in self.legal():
            raise ValueError(f"illegal move {move!r}")
        p = self.to_act
        assert p is not None
        words = move.split()
        ended = False
        if words[0] == "lead":
            self.hands[p].remove(words[1])
            self.pile.append(words[1])
            ended = self._after_card(p, "lead")
        elif words[0] == "beat":
            self.hands[p].remove(words[1])
            self.pile.append(words[1])
            if len(words) == 2:
                ended = self._went_out(p, "defence")
            else:
                self.hands[p].remove(words[3])
                self.pile.append(words[3])
                ended = self._after_card(p, "lead")
        else:
            k = self.required(p)
            taken = self.pile[len(self.pile) - k :]
            del self.pile[len(self.pile) - k :]
            self.hands[p].update(taken)
            if self.besic and self.options["taker_leads_after_pickup"] and not self.pile:
                self.to_act, self.mode = p, "free"
            else:
                self.to_act = self.next_seat(p)
                free = not self.pile or self.options["after_pickup"] == "free_lead"
                self.mode = "free" if free else "respond"
        self.turns += 1
        if ended:
            return
        # D6: repetition first, then the action cap (FORMAT.md).
        k2 = self.key()
        self.history[k2] += 1
        limit = self.options["repetition_limit"]
        cap = self.options["max_actions_per_hand"]
        if limit is not None and self.history[k2] >= limit:
            self._end(("draw", "repetition"))
        elif cap is not None and self.turns >= cap:
            if self.options["cap_outcome"] == "most_cards_loses":
                sizes = [len(h) for h in self.hands]
                top = max(sizes)
                if sizes.count(top) == 1:
                    self._end(("loser", sizes.index(top)), "action_cap")
                    return
            self._end(("draw", "action_cap"))

    def _end(self, result: tuple[str, Any], reason: str | None = None) -> None:
        self.result = result
        self.result_reason = reason or (result[1] if result[0] == "draw" else "out")
        self.to_act = None
        self.mode = None

    def _after_card(self, p: int, kind: str) -> bool:
        """After a lead by ``p``: out on a lead, or the next player responds."""
        if not self.hands[p]:
            return self._went_out(p, kind)
        self.to_act = self.next_seat(p)
        self.mode = "respond"
        return False

    def _went_out(self, p: int, kind: str) -> bool:
        """A11 / A12 / C3.6: returns True when the hand ended."""
        self.outs.append((p, kind))
        active = [q for q in range(self.n) if self.hands[q]]
        if len(active) == 1:
            last = active[0]
            hand = self.hands[last]
            if self.besic:
                # C3.6: first out wins; with besicovitch_draw_rule apply A12.2.
                rule = "lead_only" if self.options["besicovitch_draw_rule"] else "none"
            else:
                rule = self.options["draw_rule"]
            draw = False
            if len(hand) == 1 and rule != "none":
                (c,) = tuple(hand)
                if rule == "any_last_card" or kind == "lead":
                    draw = self.beats(c, self.pile[-1], last)
            self._end(("draw", "last_card") if draw else ("loser", last))
            return True
        nxt = self.next_seat(p)
        if kind == "defence":
            if self.options["defence_out_pile"] == "discard":
                self.discard += self.pile
                self.pile = []
            if self.options["free_lead_after_defence_out"] or not self.pile:
                self.to_act, self.mode = nxt, "free"
            else:
                self.to_act, self.mode = nxt, "respond"
        else:
            self.to_act, self.mode = nxt, "respond"
        return False

    def copy(self) -> Hand:
        """A deep copy."""
        return Hand(
            self.n,
            [set(o) for o in self.owned],
            dict(self.options),
            [set(h) for h in self.hands],
            list(self.pile),
            self.to_act,
            self.mode,
            list(self.outs),
            list(self.discard),
            self.result,
            self.result_reason,
            self.turns,
            Counter(self.history),
        )


# ---- construction -----------------------------------------------------------
def owned_sets(n: int, owners: dict[str, str]) -> list[set[str]]:
    """Per seat, the suits it owns, from a FORMAT.md owners map."""
    return [set(owners.get(SEATS[i], "")) for i in range(n)]


def from_position(
    n: int,
    owners: dict[str, str],
    rules: dict[str, Any],
    hands: dict[str, str],
    pile: str,
    to_act: str,
    mode: str,
    outs: list[tuple[str, str]] | None = None,
) -> Hand:
    """A hand from a FORMAT.md position."""
    return Hand(
        n,
        owned_sets(n, owners),
        opts(rules),
        [set(cards(hands.get(SEATS[i], ""))) for i in range(n)],
        cards(pile),
        SEATS.index(to_act),
        mode,
        [(SEATS.index(s), k) for s, k in (outs or [])],
    )


def deal(
    n: int,
    owners: dict[str, str],
    rules: dict[str, Any],
    dealer: int,
    deck: list[str],
    pairs: dict[str, str] | None = None,
) -> Hand:
    """A3/A4 (or C3.3 for Besicovitch): deal ``deck`` (top first) and start the hand."""
    o = opts(rules)
    owned = owned_sets(n, owners)
    hands: list[set[str]] = [set() for _ in range(n)]
    if o["variant"] == "besicovitch":
        assert pairs is not None and n == 2
        opp = 1 - dealer
        t1, t2 = owners[SEATS[dealer]], owners[SEATS[opp]]
        s1 = next(s for s in pairs[SEATS[dealer]] if s != t1)
        s2 = next(s for s in pairs[SEATS[opp]] if s != t2)
        mirror = {t1: t2, s1: s2}
        half = set(deck[: len(deck) // 2])
        for x in deck:
            if suit(x) not in mirror:
                continue
            m = x[:-1] + mirror[suit(x)]
            if x in half:
                hands[dealer].add(x)
                hands[opp].add(m)
            else:
                hands[opp].add(x)
                hands[dealer].add(m)
        first = dealer if o["besicovitch_first_leader"] == "dealer" else opp
        return Hand(n, owned, o, hands, [], first, "free")
    for i, c in enumerate(deck):
        hands[(dealer + 1 + i) % n].add(c)
    for p in range(n):
        for s in owned[p]:
            six = "6" + s
            for q in range(n):
                hands[q].discard(six)
            hands[p].add(six)
    return Hand(n, owned, o, hands, [], (dealer + 1) % n, "free")


# ---- sessions (A3, A13, C3.7, E20) -------------------------------------------
@dataclass
class SessionModel:
    """Dealer rotation and scoring over a series of hands."""

    n: int
    options: dict[str, Any]
    dealer: int
    dealers: list[int] = field(default_factory=list)
    losses: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.losses = [0] * self.n
        self.points = [0] * self.n

    @property
    def over(self) -> bool:
        """Loss limit or points target reached."""
        if self.options["session_mode"] == "losses":
            return max(self.losses) >= int(self.options["loss_limit"])
        return max(self.points) >= int(self.options["points_target"])

    def record(self, loser: int | None, first_out: int | None) -> None:
        """One hand's result."""
        self.dealers.append(self.dealer)
        if loser is not None:
            self.losses[loser] += 1
        scores = loser is not None or self.options["points_on_draw"]
        if first_out is not None and scores:
            self.points[first_out] += 1
        if self.options["variant"] == "besicovitch":
            self.dealer = 1 - self.dealer
        elif loser is not None:
            self.dealer = loser

    @property
    def next_dealer(self) -> int | None:
        """None once over."""
        return None if self.over else self.dealer

    @property
    def durak(self) -> int | None:
        """Losses mode: the player who reached the limit."""
        if not self.over or self.options["session_mode"] != "losses":
            return None
        return self.losses.index(max(self.losses))

    @property
    def winners(self) -> set[int]:
        """Fewest losses (joint) or the one who reached the target."""
        if not self.over:
            return set()
        if self.options["session_mode"] == "losses":
            return {i for i in range(self.n) if self.losses[i] == min(self.losses)}
        return {i for i in range(self.n) if self.points[i] >= self.options["points_target"]}


# ---- running FORMAT.md scenarios on the model ---------------------------------
def perft(h: Hand, depth: int) -> int:
    """Number of turn-level action sequences of length ``depth`` (history-aware)."""
    if depth == 0:
        return 1
    total = 0
    for m in h.legal():
        if depth == 1:
            total += 1
            continue
        c = h.copy()
        c.apply(m)
        total += perft(c, depth - 1)
    return total


def view(h: Hand, exp: dict[str, Any], max_perft: int = 2) -> dict[str, Any]:
    """The model's values for the keys of an EXPECT block (FORMAT.md)."""
    got: dict[str, Any] = {}
    for key, want in exp.items():
        if key == "hands":
            got[key] = {s: set(cards(v)) for s, v in want.items()}
            got[key] = {s: h.hands[SEATS.index(s)] for s in want}
        elif key == "hand_sizes":
            got[key] = {s: len(h.hands[SEATS.index(s)]) for s in want}
        elif key == "pile":
            got[key] = list(h.pile)
        elif key == "to_act":
            got[key] = None if h.to_act is None else SEATS[h.to_act]
        elif key == "mode":
            got[key] = h.mode
        elif key == "beats":
            got[key] = h.beat_options()
        elif key == "pickup_count":
            got[key] = h.pickup_count()
        elif key == "legal_count":
            got[key] = len(h.legal())
        elif key == "out":
            got[key] = [[SEATS[s], k] for s, k in h.outs]
        elif key == "result":
            r = h.result
            got[key] = (
                None
                if r is None
                else ({"draw": r[1]} if r[0] == "draw" else {"loser": SEATS[r[1]]})
            )
        elif key == "perft":
            got[key] = {d: perft(h, int(d)) for d in want if int(d) <= max_perft}
    return got


def expected(exp: dict[str, Any], max_perft: int = 2) -> dict[str, Any]:
    """An EXPECT block in the same shape as :func:`view`."""
    out: dict[str, Any] = {}
    for key, want in exp.items():
        if key == "hands":
            out[key] = {s: set(cards(v)) for s, v in want.items()}
        elif key in ("pile",):
            out[key] = cards(want) if isinstance(want, str) else [norm(c) for c in want]
        elif key == "beats":
            out[key] = set(cards(want))
        elif key == "perft":
            out[key] = {d: v for d, v in want.items() if int(d) <= max_perft}
        else:
            out[key] = want
    return out


def run_scenario(sc: dict[str, Any], max_perft: int = 2) -> str | None:
    """Run one FORMAT.md scenario on the model: ``None`` if it passes, else why not."""
    n = sc["players"]
    rules = dict(sc.get("rules") or {})
    o = opts(rules)
    if "session" in sc:
        spec = sc["session"]
        sm = SessionModel(n, o, SEATS.index(spec["first_dealer"]))
        for hd in spec["hands"]:
            fo = hd.get("first_out")
            sm.record(
                SEATS.index(hd["loser"]) if "loser" in hd else None,
                None if fo is None else SEATS.index(fo),
            )
        want = sc.get("expect", {})
        got: dict[str, Any] = {
            "dealers": [SEATS[d] for d in sm.dealers],
            "next_dealer": None if sm.next_dealer is None else SEATS[sm.next_dealer],
            "losses": {SEATS[i]: v for i, v in enumerate(sm.losses)},
            "points": {SEATS[i]: v for i, v in enumerate(sm.points)},
            "over": sm.over,
            "durak": None if sm.durak is None else SEATS[sm.durak],
            "winners": sorted(SEATS[i] for i in sm.winners),
        }
        for k, v in want.items():
            if k in ("losses", "points"):
                v = {s: v.get(s, 0) for s in SEATS[:n]}
            if k == "winners":
                v = sorted(v)
            if got[k] != v:
                return f"session {k}: model {got[k]}, scenario {v}"
        return None
    owners = sc.get("owners") or default_owners(n, o)
    start = sc["start"]
    if "position" in start:
        p = start["position"]
        h = from_position(
            n,
            owners,
            rules,
            p.get("hands") or {},
            p.get("pile", ""),
            p["to_act"],
            p["mode"],
            [(a, b) for a, b in p.get("out") or []],
        )
    else:
        d = start["deal"]
        h = deal(n, owners, rules, SEATS.index(d["dealer"]), cards(d["deck"]), sc.get("pairs"))
    for i, step in enumerate(sc.get("steps", []), 1):
        ((kind, arg),) = step.items()
        if kind == "do":
            try:
                h.apply(norm_move(arg))
            except ValueError:
                return f"step {i}: model refuses {arg!r}"
        elif kind == "reject":
            if norm_move(arg) in h.legal():
                return f"step {i}: model accepts {arg!r}"
        else:
            w = expected(arg, max_perft)
            g = view(h, arg, max_perft)
            for k in w:
                if w[k] != g[k]:
                    return f"step {i}: {k}: model {g[k]}, scenario {w[k]}"
    return None


def norm_move(text: str) -> str:
    """A move string with ``T`` spelled ``10`` (FORMAT.md accepts ``T`` on input)."""
    return " ".join(norm(w) if len(w) > 1 and w[-1] in SUITS else w for w in text.split())


def default_owners(n: int, o: dict[str, Any]) -> dict[str, str]:
    """docs/rules.md conventional assignment when a scenario gives none."""
    if o["variant"] == "besicovitch":
        return {"A": "S", "B": "D"}
    if n == 4:
        return {"A": "S", "B": "H", "C": "D", "D": "C"}
    if n == 3:
        return {"A": "S", "B": "H", "C": "D"}
    if o["trumps_per_player_2p"] == 1:
        return {"A": "S", "B": "D"}
    return {"A": "SH", "B": "DC"}
