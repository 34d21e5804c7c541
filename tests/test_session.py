"""Sessions (SPEC A3 dealer rotation, A12.6, A13 scoring, C3.7, E20)."""

from __future__ import annotations

import random

import pytest

from conftest import pick_move, pos
from svoi_kozyri.core import (
    Game,
    PositionError,
    Rules,
    Session,
    SessionOverError,
    SvoiKozyriError,
)

A, B, C, D = range(4)


def test_e20_losses_mode() -> None:
    s = Session(Rules.from_dict({"loss_limit": 2}), first_dealer=D)
    assert s.next_dealer == D and not s.over
    assert s.winners == [] and s.durak is None
    s.record(B, A)
    assert s.losses == [0, 1, 0, 0] and s.next_dealer == B
    s.record(None, None, "last_card")  # a draw: nothing recorded, same dealer
    assert s.losses == [0, 1, 0, 0] and s.next_dealer == B
    assert not s.over
    s.record(B, C)
    assert s.dealers == [D, B, B]
    assert s.losses == [0, 2, 0, 0]
    assert s.over and s.next_dealer is None
    assert s.durak == B
    assert s.winners == [A, C, D]
    assert s.ranking() == [A, C, D, B]
    assert s.summary() == "losses: A=0, B=2, C=0, D=0"
    assert [h.termination for h in s.hands] == ["out", "last_card", "out"]


def test_errors_after_the_session_is_over_change_nothing() -> None:
    s = Session(Rules.from_dict({"loss_limit": 1}), first_dealer=A)
    s.record(C, B)
    assert s.over
    with pytest.raises(SessionOverError, match="over"):
        s.record(A, B)
    with pytest.raises(SessionOverError):
        s.new_hand(seed=1)
    assert len(s.hands) == 1 and s.losses == [0, 0, 1, 0]
    # its own class (issue #9): a finished session is not a bad position
    assert issubclass(SessionOverError, SvoiKozyriError)
    assert not issubclass(SessionOverError, PositionError)


@pytest.mark.parametrize(
    ("loser", "first_out", "match"),
    [(4, None, "seat 4"), (-1, None, "seat -1"), (A, 7, "seat 7"), (B, B, "first player out")],
)
def test_bad_records_raise_and_change_nothing(
    loser: int, first_out: int | None, match: str
) -> None:
    s = Session(Rules(), first_dealer=A)
    with pytest.raises(PositionError, match=match):
        s.record(loser, first_out)
    assert s.hands == [] and s.next_dealer == A


def test_points_mode() -> None:
    s = Session(Rules.from_dict({"session_mode": "points", "points_target": 2}), first_dealer=D)
    s.record(B, A)
    assert s.points == [1, 0, 0, 0]
    s.record(None, C, "last_card")  # a draw scores nothing by default
    assert s.points == [1, 0, 0, 0] and s.next_dealer == B
    s.record(D, A)
    assert s.points == [2, 0, 0, 0]
    assert s.over and s.winners == [A]
    assert s.durak is None
    assert s.dealers == [D, B, B]
    assert s.summary() == "points: A=2, B=0, C=0, D=0"
    assert s.ranking()[0] == A


def test_points_on_draw() -> None:
    rules = Rules.from_dict({"session_mode": "points", "points_target": 5, "points_on_draw": True})
    s = Session(rules, first_dealer=A)
    s.record(None, C, "last_card")
    assert s.points == [0, 0, 1, 0]
    assert s.next_dealer == A


def test_losses_mode_ties_are_joint_winners() -> None:
    s = Session(Rules.from_dict({"loss_limit": 2}), first_dealer=A)
    for loser in (B, C, B):
        s.record(loser, A)
    assert s.losses == [0, 2, 1, 0]
    assert s.winners == [A, D] and s.durak == B


def test_besicovitch_dealer_alternates() -> None:
    rules = Rules.from_dict({"variant": "besicovitch", "loss_limit": 3})
    s = Session(rules, first_dealer=A, owners={"A": "S", "B": "D"}, pairs={"A": "SC", "B": "DH"})
    s.record(A, B)
    s.record(A, B)
    s.record(None, None, "repetition")
    s.record(B, A)
    assert s.dealers == [A, B, A, B]
    assert s.next_dealer == A
    assert s.losses == [2, 1]


def test_first_dealer_drawn_from_the_seeded_rng() -> None:
    dealers = {Session(Rules(), rng=random.Random(seed)).first_dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    a = Session(Rules(), rng=random.Random(5))
    b = Session(Rules(), rng=random.Random(5))
    assert a.first_dealer == b.first_dealer
    with pytest.raises(PositionError, match="first dealer"):
        Session(Rules(num_players=3), first_dealer=3)


def test_new_hand_uses_the_session_dealer() -> None:
    s = Session(Rules(num_players=3), first_dealer=B)
    h = s.new_hand(seed=3)
    assert h.origin.dealer == B and h.to_act == C
    s.record(A, B)
    h = s.new_hand(seed=3)
    assert h.origin.dealer == A and h.to_act == B
    assert s.new_hand(seed=8).hands == s.new_hand(seed=8).hands


def test_record_result_from_finished_states() -> None:
    g = Game(Rules(), {"A": "C", "B": "D", "C": "H", "D": "S"})
    s = Session(g.rules, first_dealer=C, owners=g.owners)
    st = pos(
        g,
        {"A": "", "B": "KH", "C": "", "D": "AH"},
        "7C 9C 10H",
        "B",
        "respond",
        [("A", "lead"), ("C", "defence")],
    )
    with pytest.raises(PositionError, match="not over"):
        s.record_result(st)
    assert s.hands == []
    st.push_text("beat KH")
    s.record_result(st)
    assert s.hands[-1].loser == D and s.hands[-1].first_out == A
    assert s.next_dealer == D


def test_played_session_bookkeeping() -> None:
    """A whole session of random hands: the dealer rule holds at every hand."""
    rules = Rules.from_dict({"num_players": 3, "loss_limit": 3, "max_actions_per_hand": 80})
    s = Session(rules, rng=random.Random(1))
    rng = random.Random(2)
    expected_dealer = s.first_dealer
    hands = 0
    while not s.over:
        state = s.new_hand(seed=rng.randrange(10**6))
        assert state.origin.dealer == expected_dealer
        while not state.is_over:
            state.push(pick_move(state, rng))
        s.record_result(state)
        assert state.outcome is not None
        if state.outcome.loser is not None:
            expected_dealer = state.outcome.loser
        hands += 1
        assert hands < 200
    assert sum(s.losses) == sum(1 for h in s.hands if h.loser is not None)
    assert max(s.losses) == 3 and s.durak == s.losses.index(3)


def test_blind_assignment_and_reassignment() -> None:
    rules = Rules.from_dict(
        {"suit_assignment": "blind", "reassign_each_hand": True, "loss_limit": 50}
    )
    s = Session(rules, first_dealer=A, rng=random.Random(3))
    seen = set()
    for i in range(12):
        owners = s.game.owners
        assert sorted(owners) == [1, 2, 4, 8]
        seen.add(owners)
        s.record(i % 4, (i + 1) % 4)
    assert len(seen) > 1
    fixed = Session(
        Rules.from_dict({"suit_assignment": "blind"}), first_dealer=A, rng=random.Random(3)
    )
    first = fixed.game.owners
    fixed.record(B, A)
    assert fixed.game.owners == first


@pytest.mark.parametrize("players", [2, 3])
def test_blind_assignment_for_fewer_players(players: int) -> None:
    s = Session(
        Rules.from_dict({"num_players": players, "suit_assignment": "blind"}),
        first_dealer=A,
        rng=random.Random(4),
    )
    owned = 0
    for m in s.game.owners:
        assert not owned & m
        owned |= m
    assert owned.bit_count() == (4 if players == 2 else 3)


def test_blind_two_player_one_trump_standard_session() -> None:
    rules = Rules.from_dict(
        {"num_players": 2, "trumps_per_player_2p": 1, "suit_assignment": "blind"}
    )
    s = Session(rules, first_dealer=A, rng=random.Random(0))
    assert [m.bit_count() for m in s.game.owners] == [1, 1]
