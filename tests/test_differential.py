"""Differential tests: the engine against the independent reference model.

``tests/reference_model.py`` is a slow, plain reading of SPEC.md written without
looking at the engine.  Here both are driven side by side over many seeded random
hands (random option combinations, every player count, Besicovitch decks, small
action caps and ``repetition_limit=2`` so that the guards fire, and short
cycle-prone positions), and after every move we compare the legal moves, hands,
pile, seat to act, mode, outs, result, pickup count and beat options.  Deals and
sessions are compared too, and the extra scenario files of ``tests/scenarios``
must pass on both the engine and the model.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from svoi_kozyri import Phase
from svoi_kozyri.core import (
    PICKUP,
    Game,
    IllegalMoveError,
    Rules,
    Session,
    State,
    SvoiKozyriError,
    format_card,
    format_cards,
    parse_card,
    parse_card_list,
)
from svoi_kozyri.core.perft import perft
from svoi_kozyri.scenarios import run_paths, run_scenario

sys.path.insert(0, str(Path(__file__).resolve().parent))
import reference_model as rm
from conftest import SCENARIOS_DIR
from svoi_kozyri.notation import position_from_text

HERE = Path(__file__).resolve().parent
SCENARIO_DIR = HERE / "scenarios"
SHARED_SCENARIOS = SCENARIOS_DIR


# ---- random option combinations ------------------------------------------------
def random_rules(rng: random.Random) -> tuple[int, dict[str, Any], dict[str, str], Any]:
    """A random valid (players, options, owners, pairs) of SPEC C9."""
    if rng.random() < 0.2:
        r: dict[str, Any] = {"variant": "besicovitch"}
        r["deck_size"] = rng.choice([24, 32, 36, 40])
        r["besicovitch_first_leader"] = rng.choice(["dealer", "non_dealer"])
        r["besicovitch_draw_rule"] = rng.random() < 0.5
        if rng.random() < 0.2:
            r["pickup_rule"] = rng.choice(["graded", "fixed"])
        elif rng.random() < 0.5:
            r["taker_leads_after_pickup"] = True
        if not r.get("taker_leads_after_pickup") and rng.random() < 0.2:
            r["after_pickup"] = "free_lead"
        suits = list("SHDC")
        rng.shuffle(suits)
        owners = {"A": suits[0], "B": suits[1]}
        pairs = {"A": suits[0] + suits[2], "B": suits[1] + suits[3]}
        n = 2
    else:
        n = rng.choice([2, 3, 4])
        r = {}
        suits = list("SHDC")
        rng.shuffle(suits)
        if n == 2:
            r["trumps_per_player_2p"] = rng.choice([1, 2])
            if r["trumps_per_player_2p"] == 2:
                owners = {"A": suits[0] + suits[1], "B": suits[2] + suits[3]}
                r["own_suits_cross_beat"] = rng.random() < 0.4
            else:
                owners = {"A": suits[0], "B": suits[1]}
        else:
            owners = {rm.SEATS[i]: suits[i] for i in range(n)}
        r["pickup_rule"] = rng.choice(["graded", "graded", "fixed", "whole_pile"])
        if r["pickup_rule"] == "fixed":
            r["fixed_pickup_count"] = rng.randint(1, 6)
        r["after_pickup"] = rng.choice(["face_new_top", "face_new_top", "free_lead"])
        r["free_lead_after_defence_out"] = rng.random() < 0.7
        r["defence_out_pile"] = rng.choice(["keep", "keep", "discard"])
        r["draw_rule"] = rng.choice(["lead_only", "any_last_card", "none"])
        r["equal_rank_beats"] = rng.choice(["off", "off", "also", "only"])
        pairs = None
    r["repetition_limit"] = rng.choice([2, 2, 3, 3, 4])
    r["max_actions_per_hand"] = rng.choice([1, 2, 5, 20, 60, 150, 150])
    r["cap_outcome"] = rng.choice(["draw", "most_cards_loses"])
    return n, r, owners, pairs


def engine_game(n: int, r: dict[str, Any], owners: dict[str, str], pairs: Any) -> Game:
    """The engine's Game for the same options."""
    return Game(Rules.from_dict({"num_players": n, **r}), owners, pairs)


# ---- comparing ------------------------------------------------------------------
def engine_view(s: State) -> dict[str, Any]:
    """The engine's state in the model's terms."""
    res = s.outcome
    result: Any = None
    if res is not None:
        why = res.termination.value
        result = ("draw", why) if res.loser is None else ("loser", res.loser, why)
    respond = s.phase == Phase.RESPOND
    return {
        "legal": sorted(str(m) for m in s.legal_moves()),
        "hands": [set(format_cards(h).split()) for h in s.hands],
        "pile": [format_card(c) for c in s.pile_cards()],
        "to_act": None if s.is_over else s.to_act,  # the model says None once over
        "mode": None if s.is_over else Phase(s.phase).label,
        "outs": [(int(a), str(b)) for a, b in s.outs],
        "result": result,
        "beats": set(format_cards(s.beat_options()).split()) if respond else set(),
        "pickup": s.pickup_count() if respond else 0,
        "discard": set(format_cards(s.discard).split()),
        "turns": s.turns,
        "repeats": s.repetition_count() if res is None else None,
        "actions": legal_steps(s),
    }


def legal_steps(s: State) -> set[str]:
    """The engine's step-level legal actions in card notation (``pickup`` for PICKUP)."""
    return {"pickup" if a == PICKUP else format_card(a) for a in s.legal_actions()}


def model_steps(h: rm.Hand) -> set[str]:
    """The step-level actions the model implies: the first card (or ``pickup``) of each
    legal turn-level move."""
    return {m.split()[0] if m == "pickup" else m.split()[1] for m in h.legal()}


def model_view(h: rm.Hand) -> dict[str, Any]:
    """The model's state in the same shape."""
    return {
        "legal": h.legal(),
        "hands": [set(x) for x in h.hands],
        "pile": list(h.pile),
        "to_act": h.to_act,
        "mode": h.mode,
        "outs": list(h.outs),
        "result": h.result
        if h.result is None or h.result[0] == "draw"
        else (*h.result, h.result_reason),
        "beats": h.beat_options(),
        "pickup": h.pickup_count(),
        "discard": set(h.discard),
        "turns": h.turns,
        "repeats": h.history[h.key()] if h.result is None else None,
        "actions": model_steps(h),
    }


def diff(s: State, h: rm.Hand) -> list[str]:
    """Fields where the engine and the model disagree."""
    e, m = engine_view(s), model_view(h)
    return [f"{k}: engine {e[k]!r} model {m[k]!r}" for k in e if e[k] != m[k]]


def play_side_by_side(
    s: State,
    h: rm.Hand,
    rng: random.Random,
    context: str,
    max_moves: int = 400,
    pickup_bias: float = 0.0,
    cycle_seek: bool = False,
) -> int:
    """Random legal play on both, comparing after every move; returns moves made.
    ``pickup_bias`` is the chance of refusing whenever refusing is legal: stubborn
    refusals keep cards circulating, which is what makes positions repeat (SPEC D).
    With ``cycle_seek`` a move that returns to an earlier position is preferred, so
    that the repetition guard is exercised often."""
    moves = 0
    d = diff(s, h)
    assert not d, f"{context} at start: {d}"
    while h.result is None and moves < max_moves:
        legal = h.legal()
        if rng.random() < 0.05:
            bogus = illegal_move(h, rng)
            if bogus is not None:
                before = engine_view(s)
                with pytest.raises(SvoiKozyriError):
                    s.push_text(bogus)
                assert engine_view(s) == before, f"{context}: refusing {bogus!r} changed state"
        move = "pickup" if "pickup" in legal and rng.random() < pickup_bias else rng.choice(legal)
        if cycle_seek and rng.random() < 0.9:
            back = [m for m in legal if seen_after(h, m)]
            if back:
                move = rng.choice(back)
        if rng.random() < 0.3:
            push_in_steps(s, move)
        else:
            s.push_text(move)
        h.apply(move)
        moves += 1
        d = diff(s, h)
        assert not d, f"{context} after move {moves} {move!r}: {d}"
        if h.result is not None:
            assert s.first_out() == (h.outs[0][0] if h.outs else None), context
    return moves


def push_in_steps(s: State, move: str) -> None:
    """Apply a turn-level move through the step-level API (beat, then lead), checking
    that between the two steps only the leads of the remaining cards are legal."""
    words = move.split()
    if words[0] == "pickup":
        s.apply_action(PICKUP)
        return
    s.apply_action(parse_card(words[1]))
    if len(words) == 4:
        assert Phase(s.phase).label == "lead", move
        assert s.to_act is not None
        assert legal_steps(s) == set(format_cards(s.hand(s.to_act)).split()), move
        s.apply_action(parse_card(words[3]))


def seen_after(h: rm.Hand, move: str) -> bool:
    """Whether ``move`` leads back to a position already in the model's history."""
    c = h.copy()
    c.apply(move)
    return (c.result is None and c.history[c.key()] > 1) or c.result == ("draw", "repetition")


def illegal_move(h: rm.Hand, rng: random.Random) -> str | None:
    """A well-formed move that the model says is illegal now (or None)."""
    assert h.to_act is not None
    hand = sorted(h.hands[h.to_act])
    every = ["pickup"] + [f"lead {c}" for c in hand]
    every += [f"beat {a}" for a in hand]
    every += [f"beat {a} lead {b}" for a in hand for b in hand if a != b]
    others = [c for c in rm.standard_deck() if c not in h.hands[h.to_act]]
    every += [f"lead {rng.choice(others)}"]
    bad = sorted(set(every) - set(h.legal()))
    return rng.choice(bad) if bad else None


# ---- random starts ----------------------------------------------------------------
def random_deck(n: int, r: dict[str, Any], rng: random.Random) -> list[str]:
    """A shuffled deck of the right size for the options."""
    if r.get("variant") == "besicovitch":
        deck = rm.besicovitch_deck(r["deck_size"])
    else:
        deck = rm.standard_deck()
    rng.shuffle(deck)
    return deck


def small_position(
    n: int, r: dict[str, Any], owners: dict[str, str], rng: random.Random
) -> tuple[dict[str, str], str, str, str, list[tuple[str, str]]]:
    """A short, cycle-prone mid-hand position (FORMAT.md: only listed cards exist)."""
    deck = random_deck(n, r, rng)
    k = rng.randint(max(3, n), 10)
    chosen = deck[:k]
    active = rng.sample(range(n), rng.randint(2, n)) if n > 2 else [0, 1]
    hands: dict[int, list[str]] = {i: [] for i in range(n)}
    for i, seat in enumerate(active):
        hands[seat].append(chosen[i])
    pile: list[str] = []
    for c in chosen[len(active) :]:
        if rng.random() < 0.4:
            pile.append(c)
        else:
            hands[rng.choice(active)].append(c)
    to_act = rng.choice(active)
    # Free lead on a non-empty pile happens after a defence-out (A11.4) or with
    # after_pickup=free_lead (C8); a position may start there.
    mode = "respond" if pile and rng.random() < 0.8 else "free"
    outs = [(rm.SEATS[i], rng.choice(["lead", "defence"])) for i in range(n) if not hands[i]]
    return (
        {rm.SEATS[i]: " ".join(hands[i]) for i in range(n)},
        " ".join(pile),
        rm.SEATS[to_act],
        mode,
        outs,
    )


# ---- tests -----------------------------------------------------------------------
def test_model_passes_the_public_scenarios() -> None:
    """The model itself must agree with the hand-checked public suite (perft to depth 2)."""
    fails = []
    for f in sorted(SHARED_SCENARIOS.glob("*.json")):
        for sc in json.loads(f.read_text())["scenarios"]:
            why = rm.run_scenario(sc, max_perft=2)
            if why:
                fails.append(f"{sc['id']}: {why}")
    assert not fails


def test_model_passes_our_scenarios() -> None:
    """Our extra scenarios were derived from SPEC and the model: the model must pass them."""
    fails = []
    for f in sorted(SCENARIO_DIR.glob("*.json")):
        for sc in json.loads(f.read_text())["scenarios"]:
            why = rm.run_scenario(sc, max_perft=3)
            if why:
                fails.append(f"{sc['id']}: {why}")
    assert not fails


def test_engine_passes_our_scenarios() -> None:
    """Every extra scenario file passes the project's runner."""
    outcomes = list(run_paths([SCENARIO_DIR]))
    assert len(outcomes) >= 40
    failed = [o.line() for o in outcomes if not o.ok]
    assert not failed, failed


@pytest.mark.parametrize("chunk", range(4))
def test_random_deals_and_hands(chunk: int) -> None:
    """Full hands from random decks under random options, move by move."""
    total = 0
    for i in range(chunk * 80, chunk * 80 + 80):
        rng = random.Random(1000 + i)
        n, r, owners, pairs = random_rules(rng)
        game = engine_game(n, r, owners, pairs)
        dealer = rng.randrange(n)
        deck = random_deck(n, r, rng)
        s = game.deal(dealer, parse_card_list(" ".join(deck)))
        h = rm.deal(n, owners, r, dealer, deck, pairs)
        ctx = f"seed {1000 + i} n={n} {r} {owners} {pairs}"
        total += play_side_by_side(s, h, rng, ctx, pickup_bias=rng.choice([0.0, 0.0, 0.4]))
    assert total > 1000


@pytest.mark.parametrize("chunk", range(4))
def test_random_small_positions(chunk: int) -> None:
    """Short positions: frequent outs, draws, repetitions and caps."""
    total = 0
    ends: set[Any] = set()
    for i in range(chunk * 400, chunk * 400 + 400):
        rng = random.Random(50_000 + i)
        n, r, owners, _ = random_rules(rng)
        if r.get("variant") == "besicovitch":
            n, r = 2, {k: v for k, v in r.items() if k.startswith(("rep", "max", "cap"))}
            r["trumps_per_player_2p"] = 1
            owners = {"A": owners["A"], "B": owners["B"]}
        hands, pile, to_act, mode, outs = small_position(n, r, owners, rng)
        game = engine_game(n, r, owners, None)
        s = position_from_text(game, hands, pile, to_act, mode, outs)
        h = rm.from_position(n, owners, r, hands, pile, to_act, mode, outs)
        ctx = f"seed {50_000 + i} {r} {owners} {hands} {pile}"
        bias = rng.choice([0.0, 0.5])
        total += play_side_by_side(s, h, rng, ctx, pickup_bias=bias, cycle_seek=i % 2 == 0)
        if h.result is not None:
            ends.add(h.result[0] if h.result[0] == "loser" else h.result[1])
    assert total > 1000
    assert ends >= {"loser", "action_cap"}


def test_two_player_cycle_positions_with_guards() -> None:
    """E19-like 2-player positions with few cards and long caps: repetition must fire."""
    reps = 0
    for i in range(300):
        rng = random.Random(90_000 + i)
        r: dict[str, Any] = {
            "num_players": 2,
            "repetition_limit": rng.choice([2, 3]),
            "max_actions_per_hand": rng.choice([None, 500]),
            "pickup_rule": rng.choice(["graded", "whole_pile", "fixed"]),
        }
        del r["num_players"]
        owners = {"A": "SC", "B": "HD"}
        hands, pile, to_act, mode, outs = small_position(2, r, owners, rng)
        s = position_from_text(engine_game(2, r, owners, None), hands, pile, to_act, mode, outs)
        h = rm.from_position(2, owners, r, hands, pile, to_act, mode, outs)
        ctx = f"seed {90_000 + i} {r} {hands} {pile}"
        play_side_by_side(s, h, rng, ctx, max_moves=2000, pickup_bias=0.3, cycle_seek=True)
        reps += h.result == ("draw", "repetition")
    assert reps >= 5


def test_perft_with_guards_on_and_history() -> None:
    """Perft (core/perft.py, built on ``State.copy``) equals the model's history-aware
    perft with the guards on: repetition_limit=2 and small caps fire inside the tree,
    so a copy that leaked repetition counts or turns between siblings would show."""
    checked = 0
    for i in range(120):
        rng = random.Random(20_000 + i)
        n = rng.choice([2, 2, 3, 4])
        owners = {"A": "SC", "B": "HD"} if n == 2 else {rm.SEATS[j]: "SHDC"[j] for j in range(n)}
        r: dict[str, Any] = {
            "repetition_limit": 2,
            "max_actions_per_hand": rng.choice([3, 5, 8, None]),
            "cap_outcome": rng.choice(["draw", "most_cards_loses"]),
        }
        hands, pile, to_act, mode, outs = small_position(n, r, owners, rng)
        s = position_from_text(engine_game(n, r, owners, None), hands, pile, to_act, mode, outs)
        h = rm.from_position(n, owners, r, hands, pile, to_act, mode, outs)
        for _ in range(rng.randint(0, 4)):
            if h.result is not None:
                break
            m = rng.choice(h.legal())
            s.push_text(m)
            h.apply(m)
        for depth in range(1, 5):
            assert perft(s, depth) == rm.perft(h, depth), (i, depth, r, hands, pile)
        assert not diff(s, h)
        checked += 1
    assert checked == 120


@pytest.mark.parametrize("extra", ["", "AD", "10S JH", "AS 6D 7C", "QC KH 8S 9D"])
@pytest.mark.parametrize("limit", [2, 3, 4])
def test_e19_cycle_family(extra: str, limit: int) -> None:
    """SPEC D3/E19: the 6-action cycle, with spare cards added to A's hand (they do not
    break the cycle), under both engines; repetition fires exactly when P0 occurs for the
    ``limit``-th time, i.e. after 6 * (limit - 1) actions."""
    owners = {"A": "SC", "B": "HD"}
    r = {"repetition_limit": limit, "max_actions_per_hand": None}
    hands = {"A": ("KS 7H " + extra).strip(), "B": "9H 6H QD 8C"}
    s = position_from_text(engine_game(2, r, owners, None), hands, "", "A", "free")
    h = rm.from_position(2, owners, r, hands, "", "A", "free")
    cycle = ["lead 7H", "beat 9H lead 8C", "pickup", "lead 6H", "beat 9H lead 8C", "pickup"]
    for i in range(6 * (limit - 1)):
        assert h.result is None
        s.push_text(cycle[i % 6])
        h.apply(cycle[i % 6])
        assert not diff(s, h), (i, diff(s, h))
    assert h.result == ("draw", "repetition")


def test_deals_every_player_count_and_besicovitch_size() -> None:
    """Deals (A3/A4 sixes, C3.3 mirror deal) of random decks agree exactly."""
    for i in range(300):
        rng = random.Random(7_000 + i)
        n, r, owners, pairs = random_rules(rng)
        game = engine_game(n, r, owners, pairs)
        dealer = rng.randrange(n)
        deck = random_deck(n, r, rng)
        s = game.deal(dealer, parse_card_list(" ".join(deck)))
        h = rm.deal(n, owners, r, dealer, deck, pairs)
        assert not diff(s, h), (i, n, r, owners, pairs, dealer, diff(s, h))
        assert sum(len(x) for x in h.hands) == len(deck)


def test_new_hand_is_a_deal_of_a_shuffled_full_deck() -> None:
    """``Game.new_hand(dealer, seed)`` deals a permutation of the right deck by the same
    procedure (A3/A4, C3.3) as the model."""
    for i in range(100):
        rng = random.Random(11_000 + i)
        n, r, owners, pairs = random_rules(rng)
        game = engine_game(n, r, owners, pairs)
        dealer = rng.randrange(n)
        deck = [format_card(c) for c in game.shuffled_deck(random.Random(i))]
        full = rm.besicovitch_deck(r["deck_size"]) if "deck_size" in r else rm.standard_deck()
        assert sorted(deck) == sorted(full), (n, r)
        s = game.new_hand(dealer, random.Random(i))
        h = rm.deal(n, owners, r, dealer, deck, pairs)
        assert not diff(s, h), (i, n, r, diff(s, h))


def test_sessions() -> None:
    """Random result sequences: dealers, losses, points, durak, winners agree."""
    for i in range(400):
        rng = random.Random(3_000 + i)
        besic = rng.random() < 0.2
        n = 2 if besic else rng.choice([2, 3, 4])
        r: dict[str, Any] = {"num_players": n}
        if besic:
            r["variant"] = "besicovitch"
        r["session_mode"] = rng.choice(["losses", "points"])
        r["loss_limit"] = rng.randint(1, 4)
        r["points_target"] = rng.choice([1, 2, 5])
        if r["session_mode"] == "points":
            r["points_on_draw"] = rng.random() < 0.5
        first = rng.randrange(n)
        sess = Session(Rules.from_dict(r), first_dealer=first)
        model = rm.SessionModel(n, rm.opts(r), first)
        while not model.over:
            fo = rng.randrange(n)
            if rng.random() < 0.3:
                loser = None
                first_out: int | None = fo if rng.random() < 0.5 else None
                sess.record(None, first_out, "last_card")
            else:
                loser = rng.choice([x for x in range(n) if x != fo])
                first_out = fo
                sess.record(loser, first_out)
            model.record(loser, first_out)
            assert sess.dealers == model.dealers, (i, r)
            assert sess.losses == model.losses, (i, r)
            assert sess.points == model.points, (i, r)
            assert sess.over == model.over, (i, r)
            assert sess.next_dealer == model.next_dealer, (i, r)
        assert sess.durak == model.durak, (i, r)
        assert set(sess.winners) == model.winners, (i, r)


def test_illegal_move_leaves_state_unchanged_on_both() -> None:
    """The model refuses what the engine refuses (spot check of the error path)."""
    game = engine_game(4, {}, {"A": "C", "B": "D", "C": "H", "D": "S"}, None)
    s = position_from_text(game, {"A": "KS 8H", "B": "QS", "C": "6H", "D": "7S"}, "", "A", "free")
    with pytest.raises(IllegalMoveError):
        s.push_text("pickup")
    h = rm.from_position(
        4,
        {"A": "C", "B": "D", "C": "H", "D": "S"},
        {},
        {"A": "KS 8H", "B": "QS", "C": "6H", "D": "7S"},
        "",
        "A",
        "free",
    )
    with pytest.raises(ValueError):
        h.apply("pickup")
    assert not diff(s, h)


def test_scenario_reject_steps_use_the_strict_file_notation() -> None:
    """A ``reject`` step with non-canonical spelling must be refused (FORMAT.md Notation)."""
    sc = {
        "id": "strict-notation",
        "players": 4,
        "owners": {"A": "C", "B": "D", "C": "H", "D": "S"},
        "start": {
            "position": {
                "hands": {"A": "KS 8H", "B": "QS 10H 6D", "C": "6H", "D": "7S"},
                "pile": "",
                "to_act": "A",
                "mode": "free",
            }
        },
        "steps": [
            {"reject": "Lead KS"},
            {"reject": "lead ks"},
            {"reject": "lead  KS"},
            {"reject": "lead K\u2660"},
            {"do": "lead 8H"},
            {"reject": "PICKUP"},
            {"expect": {"pile": "8H", "to_act": "B", "mode": "respond"}},
        ],
    }
    outcome = run_scenario(sc)
    assert outcome.ok, outcome.message
