"""Hidden information (SPEC A15): an Observation holds only what its seat may
know, and determinize() samples uniformly among the states consistent with it.

The set of publicly known cards is derived here independently from the public
history (owned sixes start with their owner; a pickup names its taker; playing a
card makes it leave every hand), and the engine's ``known`` must never go beyond
it.  A second check swaps two hidden cards between two other players and
demands an identical observation."""

from __future__ import annotations

import math
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import pick_move, pos, random_hand, random_options
from svoi_kozyri import Phase
from svoi_kozyri.core import (
    RESPOND,
    Game,
    Observation,
    Rules,
    State,
    card,
    determinize,
    observe,
    parse_card,
    parse_card_list,
    parse_cards,
    sample_hands,
)
from svoi_kozyri.core.cards import R6

SEEDS = [*range(40), 79]
PROPS = settings(derandomize=True, max_examples=20, deadline=None, database=None)


def public_known(state: State) -> list[int]:
    """Cards publicly known to be in each hand, from the public record only."""
    g = state.game
    if g.rules.is_besicovitch:
        return list(state.hands)  # open hands
    known = [0] * g.n
    for s in range(4):
        owner = g.owner_of(card(s, R6))
        if owner is not None:
            known[owner] |= 1 << card(s, R6)  # A4.2: every owned six ends with its owner
    for seat, move, taken in state.history():
        for c in move.cards():
            for i in range(g.n):
                known[i] &= ~(1 << c)
        known[seat] |= taken
    return known


def check_observations(state: State) -> None:
    g = state.game
    derived = public_known(state)
    open_hands = g.rules.is_besicovitch
    for seat in [*range(g.n), None]:
        obs = observe(state, seat)
        assert obs.seat == seat
        for j in range(g.n):
            if open_hands or j == seat:
                assert obs.hands[j] == state.hands[j]
            else:
                assert obs.hands[j] == 0, f"seat {seat} sees seat {j}'s hand"
            assert obs.known[j] & ~state.hands[j] == 0, "known card not in that hand"
            assert obs.known[j] & ~derived[j] == 0, (
                f"seat {seat} is told card(s) of seat {j} that are not public"
            )
            # Every owned six is known to be with its owner whether or not the
            # transfers were shown (A4.2), so the two sets are equal.
            assert obs.known[j] == derived[j]
        assert obs.hand_sizes == state.hand_sizes()
        assert list(obs.pile) == state.pile_cards()
        assert (obs.to_act, obs.phase, obs.outs, obs.outcome, obs.turns, obs.discard) == (
            None if state.is_over else state.to_act,
            state.phase,
            state.outs,
            state.outcome,
            state.turns,
            state.discard,
        )
        assert obs.history == state.history()
        assert obs.dealer == state.origin.dealer
        if g.rules.sixes_transfer_public:
            assert obs.transfers == state.origin.transfers
        else:
            assert all(seat in (t[1], t[2]) for t in obs.transfers)
        if obs.my_turn:
            assert obs.legal_moves() == state.legal_moves()
            assert obs.beat_options() == state.beat_options()
        else:
            assert obs.legal_moves() == []
        assert obs.pickup_count() == state.pickup_count()
        # The unseen cards are exactly the other hands' cards not publicly known.
        hidden = 0
        for j in range(g.n):
            if not (open_hands or j == seat):
                hidden |= state.hands[j] & ~obs.known[j]
        assert obs.unseen() == hidden


def check_determinize(state: State, rng: random.Random) -> None:
    g = state.game
    for seat in range(g.n):
        obs = observe(state, seat)
        d = determinize(obs, rng)
        assert d.hands[seat] == state.hands[seat]
        assert d.hand_sizes() == state.hand_sizes()
        assert d.pile_cards() == state.pile_cards()
        assert (d.to_act, d.phase, d.outs, d.discard, d.turns) == (
            state.to_act,
            state.phase,
            state.outs,
            state.discard,
            state.turns,
        )
        union = d.discard
        for j in range(g.n):
            assert d.hands[j] & obs.known[j] == obs.known[j], "a known card was moved"
            assert not union & d.hands[j]
            union |= d.hands[j]
        for c in d.pile_cards():
            union |= 1 << c
        assert union == g.deck
        assert d.legal_moves() == state.legal_moves() or seat != state.to_act


def play_checked(state: State, rng: random.Random) -> None:
    check_observations(state)
    check_determinize(state, rng)
    while not state.is_over:
        state.push(pick_move(state, rng))
        check_observations(state)
        if rng.random() < 0.3:
            check_determinize(state, rng)


def test_observations_over_random_hands() -> None:
    for seed in SEEDS:
        opts = random_options(random.Random(seed))
        play_checked(random_hand(opts, seed), random.Random(seed))


@PROPS
@given(st.integers(0, 2**31))
def test_property_observations(seed: int) -> None:
    opts = random_options(random.Random(seed))
    play_checked(random_hand(opts, seed), random.Random(seed))


def swap_hidden_and_replay(state: State, viewer: int, rng: random.Random) -> State | None:
    """The same public hand, with two never-used cards of two other seats swapped
    in the deck; ``None`` when no such pair exists."""
    g = state.game
    deck = state.origin.deck
    assert deck is not None and state.origin.dealer is not None
    used = 0
    for _, move, taken in state.history():
        for c in move.cards():
            used |= 1 << c
        used |= taken
    others = [j for j in range(g.n) if j != viewer]
    candidates = []
    for a in others:
        for b in others:
            if a < b:
                for x in parse_card_list_of(state.hands[a] & ~used):
                    for y in parse_card_list_of(state.hands[b] & ~used):
                        if x % 10 != R6 and y % 10 != R6:
                            candidates.append((x, y))
    if not candidates:
        return None
    x, y = rng.choice(candidates)
    new_deck = [y if c == x else x if c == y else c for c in deck]
    t = g.deal(state.origin.dealer, new_deck)
    for _, move, _ in state.history():
        t.push(move)
    return t


def parse_card_list_of(mask: int) -> list[int]:
    return [c for c in range(40) if mask >> c & 1]


@pytest.mark.parametrize("seed", range(12))
def test_observation_does_not_depend_on_other_players_hidden_cards(seed: int) -> None:
    rng = random.Random(seed)
    players = [2, 3, 4][seed % 3]
    opts: dict[str, Any] = {"num_players": players, "max_actions_per_hand": 60}
    if players == 2:
        opts = {**opts, "num_players": 3}  # two others are needed for a swap
    s = random_hand(opts, seed)
    for _ in range(rng.randrange(0, 25)):
        if s.is_over:
            break
        s.push(pick_move(s, rng))
    viewer = rng.randrange(s.n)
    t = swap_hidden_and_replay(s, viewer, rng)
    assert t is not None
    assert t.hands != s.hands
    assert observe(t, viewer) == observe(s, viewer)
    assert observe(t, None) == observe(s, None)


# --------------------------------------------------------------------------- fixed cases


def test_known_cards_from_a_pickup_are_forgotten_once_played() -> None:
    g = Game(Rules(), {"A": "C", "B": "D", "C": "H", "D": "S"})
    s = pos(g, {"A": "KS 8H 9C 6C", "B": "QS 10H 6D", "C": "6H 9D JC", "D": "7S 6S AH 8D"})
    for m in ("lead 8H", "beat 6D lead QS", "beat 6H lead 9D", "pickup"):
        s.push_text(m)
    obs = observe(s, A := 0)
    assert obs.known[3] == parse_cards("9D 6H QS")
    assert obs.hands[3] == 0 and obs.hand_sizes[3] == 7
    assert obs.hands[A] == parse_cards("KS 9C 6C")
    s.push_text("beat 9C lead KS")
    s.push_text("pickup")  # B takes KS 9C 6D (KS is D's suit: plain for B, so 3)
    obs = observe(s, 0)
    assert obs.known[1] == parse_cards("KS 9C 6D")
    s.push_text("pickup")  # C cannot beat 8H (own suit, JC is not a heart): takes 1
    assert Phase(s.phase).label == "free" and s.to_act == 3
    assert observe(s, 1).known[2] == parse_cards("8H")
    s.push_text("lead 9D")  # D plays a known card: it is no longer known anywhere
    obs = observe(s, 2)
    assert obs.known == (0, parse_cards("KS 9C 6D"), parse_cards("8H"), parse_cards("6H QS"))


def test_position_start_has_no_known_cards_and_known_argument() -> None:
    g = Game(Rules(), {"A": "C", "B": "D", "C": "H", "D": "S"})
    s = pos(g, {"A": "KS", "B": "QS", "C": "7D", "D": "8D"})
    assert observe(s, 0).known == (0, 0, 0, 0)
    t = g.position(
        [parse_cards("KS"), parse_cards("QS"), parse_cards("7D"), parse_cards("8D")],
        known=[0, parse_cards("QS"), 0, 0],
    )
    assert observe(t, 0).known[1] == parse_cards("QS")


def test_dealt_hand_knows_only_owned_sixes() -> None:
    deck = parse_card_list(
        "6D 7D 6C 6S 6H 8S 9S 10D 7S QH 10H 8D 9C 9D QD AD JH 7C 8C QS KD KS JC JS "
        "AS AH AC 9H 10C JD 7H QC 8H 10S KH KC"
    )
    g = Game(Rules(), {"A": "C", "B": "D", "C": "H", "D": "S"})
    s = g.deal(3, deck)
    obs = observe(s, 1)
    assert obs.known == tuple(parse_cards(x) for x in ("6C", "6D", "6H", "6S"))
    assert obs.hands == (0, s.hands[1], 0, 0)
    assert len(obs.transfers) == 3


def test_private_six_transfers_are_not_revealed_through_known() -> None:
    deck = parse_card_list(
        "6D 7D 6C 6S 6H 8S 9S 10D 7S QH 10H 8D 9C 9D QD AD JH 7C 8C QS KD KS JC JS "
        "AS AH AC 9H 10C JD 7H QC 8H 10S KH KC"
    )
    g = Game(Rules(sixes_transfer_public=False), {"A": "C", "B": "D", "C": "H", "D": "S"})
    s1 = g.deal(3, deck)  # C is dealt 6C and hands it to A
    i, j = deck.index(parse_card("6C")), deck.index(parse_card("AS"))
    swapped = list(deck)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    s2 = g.deal(3, swapped)  # now A is dealt 6C itself: no transfer
    assert s1.hands[0] >> parse_card("6C") & 1 and s2.hands[0] >> parse_card("6C") & 1
    # D took part in neither deal's 6C transfer: D's view must not tell them apart.
    assert observe(s1, 3).known[0] == observe(s2, 3).known[0]


def test_besicovitch_hands_are_open() -> None:
    g = Game(Rules(variant="besicovitch"), {"A": "S", "B": "D"}, {"A": "SC", "B": "DH"})
    s = g.new_hand(0, seed=4)
    for seat in (0, 1, None):
        obs = observe(s, seat)
        assert obs.hands == tuple(s.hands) and obs.known == tuple(s.hands)
        assert obs.unseen() == 0


def test_spectator_sees_no_hand() -> None:
    g = Game(Rules(num_players=3))
    s = g.new_hand(1, seed=9)
    obs = observe(s, None)
    assert obs.hands == (0, 0, 0) and obs.hand == 0 and not obs.my_turn
    assert obs.legal_moves() == []


# --------------------------------------------------------------------------- uniformity


def test_determinize_is_uniform_over_hidden_splits() -> None:
    """Five hidden cards over B (2 unknown) and C (3 unknown): each of the
    C(5,2) = 10 splits must be equally likely (chi-square, fixed seed)."""
    g = Game(Rules(num_players=3), {"A": "S", "B": "H", "C": "D"})
    hands = [parse_cards(h) for h in ("KS 7C", "9H 8C QC", "6D 10C JC AC")]
    used = hands[0] | hands[1] | hands[2]
    pile = [c for c in range(40) if g.deck >> c & 1 and not used >> c & 1]
    # All 36 cards exist: 27 on the pile (positions with fewer cards are tested below).
    s = g.position(hands, pile, 0, RESPOND, [], known=[0, parse_cards("9H"), parse_cards("6D")])
    obs = observe(s, 0)
    assert obs.known == (0, parse_cards("9H"), parse_cards("6D"))
    assert obs.unseen() == parse_cards("8C QC 10C JC AC")
    rng = random.Random(2024)
    n = 3000
    counts: Counter[int] = Counter()
    for _ in range(n):
        hands = sample_hands(obs, rng)
        assert hands[0] == s.hands[0]
        assert hands[1] & parse_cards("9H") and hands[2] & parse_cards("6D")
        assert hands[1].bit_count() == 3 and hands[2].bit_count() == 4
        counts[hands[1]] += 1
    assert len(counts) == math.comb(5, 2)
    expected = n / 10
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 40, chi2  # df = 9: p(chi2 > 40) < 1e-5


def test_determinize_card_frequencies_in_a_dealt_hand() -> None:
    """Every hidden card lands in each hidden hand in proportion to its unknown size."""
    g = Game(Rules(), {"A": "C", "B": "D", "C": "H", "D": "S"})
    s = g.new_hand(3, seed=11)
    obs = observe(s, 0)
    rng = random.Random(7)
    pool = obs.unseen()
    need = [obs.hand_sizes[j] - obs.known[j].bit_count() for j in range(4)]
    need[0] = 0
    n = 1500
    counts = Counter[tuple[int, int]]()
    for _ in range(n):
        d = determinize(obs, rng)
        for j in (1, 2, 3):
            for c in parse_card_list_of(d.hands[j] & pool):
                counts[(c, j)] += 1
    total = pool.bit_count()
    chi2 = 0.0
    cells = 0
    for c in parse_card_list_of(pool):
        for j in (1, 2, 3):
            e = n * need[j] / total
            chi2 += (counts[(c, j)] - e) ** 2 / e
            cells += 1
    df = cells - pool.bit_count()  # rows sum to n
    assert chi2 < df + 6 * math.sqrt(2 * df), (chi2, df)


def test_sample_hands_rejects_inconsistent_observations() -> None:
    g = Game(Rules(num_players=3), {"A": "S", "B": "H", "C": "D"})
    s = pos(g, {"A": "KS 7C", "B": "9H 8C", "C": "6D 10C"}, "", "A", "free")
    obs = observe(s, 0)
    bad = Observation(**{**obs.__dict__, "hand_sizes": (2, 5, 2)})
    with pytest.raises(ValueError, match="inconsistent"):
        sample_hands(bad, random.Random(0))
    bad = Observation(**{**obs.__dict__, "known": (0, parse_cards("9H 8C 7H"), 0)})
    with pytest.raises(ValueError, match="inconsistent"):
        sample_hands(bad, random.Random(0))


def test_respond_mode_observation_pickup_view() -> None:
    g = Game(Rules(), {"A": "C", "B": "D", "C": "H", "D": "S"})
    s = pos(
        g,
        {"A": "8C 7C", "B": "QD", "C": "QH", "D": "9S 7S AH KD"},
        "7H 8H 9H JD KC 9C 10S",
        "D",
        "respond",
    )
    obs = observe(s, 3)
    assert obs.phase == RESPOND and obs.my_turn
    assert obs.pickup_count() == 5 and obs.beat_options() == 0
    other = observe(s, 0)
    assert other.pickup_count() == 5 and other.beat_options() == 0
    assert [str(m) for m in obs.legal_moves()] == ["pickup"]


def test_determinize_works_from_a_position_with_fewer_cards() -> None:
    g = Game(Rules(num_players=3), {"A": "S", "B": "H", "C": "D"})
    s = pos(g, {"A": "KS 7C", "B": "9H 8C QC", "C": "6D 10C JC AC"}, "", "A", "free")
    obs = observe(s, 0)
    assert obs.unseen() == parse_cards("9H 8C QC 6D 10C JC AC")
    d = determinize(obs, random.Random(0))
    assert d.hand_sizes() == (2, 3, 4)


def test_determinized_state_keeps_public_knowledge() -> None:
    g = Game(Rules(), {"A": "C", "B": "D", "C": "H", "D": "S"})
    s = g.new_hand(3, seed=21)
    obs = observe(s, 0)
    assert any(obs.known[1:])
    d = determinize(obs, random.Random(1))
    assert observe(d, 0).known == obs.known
