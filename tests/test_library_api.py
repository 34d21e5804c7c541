"""The library's public names (issue #9): one error taxonomy, typed outcomes, one seat
parser, options that cannot apply refused, and undo with State.pop()."""

from __future__ import annotations

import pickle
import random

import pytest

import svoi_kozyri as sk
from svoi_kozyri import (
    AmbiguousMoveError,
    CardError,
    Game,
    HandOverError,
    IllegalMoveError,
    InvalidMoveError,
    MalformedError,
    Outcome,
    PositionError,
    Rules,
    RulesError,
    Session,
    SessionOverError,
    SvoiKozyriError,
    Termination,
    observe,
    parse_card,
    parse_cards,
    parse_seat,
)
from svoi_kozyri.notation import position_from_text


@pytest.mark.parametrize(
    "cls",
    [
        MalformedError,
        CardError,
        IllegalMoveError,
        InvalidMoveError,
        AmbiguousMoveError,
        HandOverError,
        PositionError,
        RulesError,
        SessionOverError,
    ],
)
def test_every_error_derives_from_the_base_and_value_error(cls: type[Exception]) -> None:
    assert issubclass(cls, SvoiKozyriError)
    assert issubclass(cls, ValueError)


def test_taxonomy_branches() -> None:
    assert issubclass(CardError, MalformedError)
    assert issubclass(InvalidMoveError, MalformedError)
    assert issubclass(InvalidMoveError, IllegalMoveError)
    assert not issubclass(SessionOverError, PositionError)
    assert not issubclass(RulesError, PositionError)
    assert not issubclass(IllegalMoveError, MalformedError)


def test_errors_raised_are_of_the_right_class() -> None:
    state = Game(Rules()).new_hand(seed=3)
    with pytest.raises(CardError):
        parse_card("ZZ")
    with pytest.raises(InvalidMoveError):
        state.push_text("lead")
    with pytest.raises(InvalidMoveError):
        state.push_text("beat 6S lead 6S")
    move = state.legal_moves()[0]
    bad = next(m for m in (sk.Move.parse(f"lead {c}") for c in ("AS", "AH", "AD", "AC")))
    if bad in state.legal_moves():
        bad = sk.Move.parse("pickup")
    with pytest.raises(IllegalMoveError) as info:
        state.push(bad)
    assert not isinstance(info.value, MalformedError)
    state.push(move)
    with pytest.raises(RulesError):
        Rules(num_players=5)
    with pytest.raises(PositionError):
        Game(Rules()).position([0, 0, 0, 0])


def test_hand_over_error() -> None:
    game = Game(Rules(num_players=2))
    state = position_from_text(game, {"A": "6S", "B": "7H"}, to_act="A")
    state.push_text("lead 6S")
    assert state.is_over
    with pytest.raises(HandOverError):
        state.push_text("pickup")


def test_session_over_error_is_its_own_class() -> None:
    s = Session(Rules(num_players=2, loss_limit=1), first_dealer=0)
    s.record(1, 0)
    assert s.over
    with pytest.raises(SessionOverError):
        s.record(0, 1)


def test_termination_and_outcome() -> None:
    assert Termination("out") is Termination.OUT
    assert Termination.OUT == "out"
    assert Termination.REPETITION.adjudicated and not Termination.LAST_CARD.adjudicated
    o = Outcome(1, Termination.ACTION_CAP)
    assert o.termination.value == "action_cap" and o.adjudicated and not o.is_draw
    assert o.result() == "loser B action_cap"
    assert Outcome.parse("loser=B:action_cap") == o
    assert Outcome.parse("draw last_card") == Outcome(None, Termination.LAST_CARD)
    assert Outcome(None, "repetition").termination is Termination.REPETITION
    assert pickle.loads(pickle.dumps(o)) == o
    assert sk.Outcome is Outcome
    with pytest.raises(PositionError):
        Outcome(None, Termination.OUT)  # a draw cannot end "out"
    with pytest.raises(PositionError):
        Outcome(0, Termination.REPETITION)
    with pytest.raises(MalformedError):
        Outcome.parse("loser Z")
    with pytest.raises(MalformedError):
        Termination.parse("boredom")


def test_finished_hands_carry_a_termination() -> None:
    game = Game(Rules(num_players=3))
    rng = random.Random(5)
    state = game.new_hand(seed=5)
    while not state.is_over:
        state.push(rng.choice(state.legal_moves()))
    assert state.outcome is not None
    assert isinstance(state.outcome.termination, Termination)
    s = Session(Rules(num_players=3), first_dealer=0)
    s.record(state.outcome.loser, state.first_out(), state.outcome.termination)
    assert s.hands[0].termination is state.outcome.termination


@pytest.mark.parametrize(("value", "index"), [(1, 1), ("B", 1), ("b", 1), (" c ", 2), (0, 0)])
def test_one_seat_parser(value: object, index: int) -> None:
    assert parse_seat(value, 4) == index


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ("Z", PositionError),
        ("AB", PositionError),
        (1.5, PositionError),
        ("C", PositionError),
        (2, PositionError),
        (-1, PositionError),
        (None, PositionError),
    ],
)
def test_seat_parser_errors(value: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        parse_seat(value, 2)


def test_push_accepts_a_seat_letter_like_position() -> None:
    game = Game(Rules(num_players=2))
    state = position_from_text(game, {"A": "6S 7S", "B": "7H 8H"}, to_act="B")
    before = state.copy()
    with pytest.raises(IllegalMoveError):
        state.push_text("lead 7H", seat="A")
    assert state == before
    state.push_text("lead 7H", seat="B")
    assert state.to_act == 0


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4, "trumps_per_player_2p": 1},
        {"num_players": 3, "trumps_per_player_2p": 1},
        {"num_players": 4, "own_suits_cross_beat": True},
        {"num_players": 2, "trumps_per_player_2p": 1, "own_suits_cross_beat": True},
        {"variant": "besicovitch", "own_suits_cross_beat": True},
        {"reassign_each_hand": True},
    ],
)
def test_options_that_cannot_apply_are_refused(options: dict[str, object]) -> None:
    with pytest.raises(RulesError):
        Rules.from_dict(options)


def test_position_turn_counter_checked_against_the_cap() -> None:
    game = Game(Rules(num_players=2, max_actions_per_hand=50))
    hands = {"A": "6S 7S", "B": "7H 8H"}
    position_from_text(game, hands, to_act="A", turns=49)
    with pytest.raises(PositionError):
        position_from_text(game, hands, to_act="A", turns=50)
    with pytest.raises(PositionError):
        position_from_text(game, hands, to_act="A", turns=-1)


def test_position_takes_typed_cards_and_points_text_to_the_notation_layer() -> None:
    """Game.position takes card sets and card lists; card text is the notation layer's
    job (position_from_text), and text given to the core gets a PositionError that
    says where to parse it, not a wrong position."""
    game = Game(Rules(num_players=2))
    typed = game.position(
        {"A": parse_cards("6S 7S"), "B": parse_cards("7H 8H")}, [parse_card("9D")], "B", "respond"
    )
    assert typed == position_from_text(
        game, {"A": "6S 7S", "B": "7H 8H"}, "9D", to_act="B", phase="respond"
    )
    with pytest.raises(PositionError, match="position_from_text"):
        game.position({"A": "6S 7S", "B": "7H 8H"})  # type: ignore[dict-item]
    with pytest.raises(PositionError, match="position_from_text"):
        game.position([parse_cards("6S"), parse_cards("7H")], "9D")  # type: ignore[arg-type]
    with pytest.raises(PositionError, match="card set"):
        game.position([parse_cards("6S"), -1])
    with pytest.raises(PositionError, match="one card set per seat"):
        game.position(None)  # type: ignore[arg-type]
    with pytest.raises(PositionError, match="pile"):
        game.position([parse_cards("6S"), parse_cards("7H")], ["9D"])  # type: ignore[list-item]
    with pytest.raises(PositionError, match="pile"):
        game.position([parse_cards("6S"), parse_cards("7H")], [99])
    with pytest.raises(CardError):
        position_from_text(game, {"A": "6S 7X", "B": "7H"})


# ----------------------------------------------------------------------------- undo


@pytest.mark.parametrize("seed", range(12))
def test_pop_restores_every_earlier_state(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([2, 3, 4])
    rules = Rules(num_players=n, repetition_limit=rng.choice([2, 3]))
    state = Game(rules).new_hand(seed=seed)
    seen = [(state.copy(), state.repetition_count(), len(state.history()))]
    while not state.is_over and len(seen) < 150:
        state.push(rng.choice(state.legal_moves()))
        seen.append((state.copy(), state.repetition_count(), len(state.history())))
    assert len(state.move_stack) == len(seen) - 1
    for before, reps, hist in reversed(seen[:-1]):
        state.pop()
        assert state == before
        assert state.repetition_count() == reps
        assert len(state.history()) == hist
        assert state.legal_moves() == before.legal_moves()
    with pytest.raises(IndexError):
        state.pop()


def test_pop_then_play_on_equals_playing_directly() -> None:
    rng = random.Random(7)
    state = Game(Rules()).new_hand(seed=7)
    for _ in range(30):
        if state.is_over:
            break
        state.push(rng.choice(state.legal_moves()))
    snapshot = state.copy()
    moves = []
    for _ in range(10):
        if state.is_over:
            break
        m = rng.choice(state.legal_moves())
        moves.append(m)
        state.push(m)
    for _ in moves:
        state.pop()
    assert state == snapshot
    for m in moves:
        state.push(m)
        snapshot.push(m)
    assert state == snapshot and state.history() == snapshot.history()


def test_copies_share_the_stack_but_not_the_state() -> None:
    state = Game(Rules(num_players=2)).new_hand(seed=1)
    first = state.legal_moves()[0]
    state.push(first)
    other = state.copy()
    other.pop()
    assert other.move_stack == [] and state.move_stack == [first]
    assert state.history() != other.history()


def test_pop_refuses_after_unchecked_steps() -> None:
    state = Game(Rules(num_players=2)).new_hand(seed=2)
    state.push(state.legal_moves()[0])
    before = state.copy()
    state.apply_action(state.legal_actions()[0])
    with pytest.raises(PositionError):
        state.pop()
    assert state != before or state.is_over


def test_more_bad_library_input_is_a_svoi_kozyri_error() -> None:
    """Seats, rules mappings, owners and undo: bad input is one of the library's
    errors (which callers can catch as ``SvoiKozyriError``), never a view of nobody."""
    state = Game(Rules()).new_hand(0, 1)
    with pytest.raises(PositionError):
        observe(state, 9)
    with pytest.raises(PositionError):
        observe(state, "Z")
    assert observe(state, "B").seat == 1
    with pytest.raises(RulesError):
        Rules.from_dict([("num_players", 2)])  # type: ignore[arg-type]
    with pytest.raises(PositionError):
        Game(Rules(), 5)
    assert Game(Rules()).new_hand("B", 1) == Game(Rules()).new_hand(1, 1)
    with pytest.raises(IndexError):
        state.copy().pop()
    with pytest.raises(SvoiKozyriError):
        state.copy().pop()


def test_phase_enum_and_the_engine_constants_agree() -> None:
    """The compiled loop compares plain ints and the notations print PHASE_NAMES;
    the Phase enum must name the same values with the same words."""
    from svoi_kozyri.core import FREE, LEAD, OVER, PHASE_NAMES, RESPOND, Phase

    assert [int(p) for p in Phase] == [FREE, RESPOND, LEAD, OVER]
    assert tuple(p.label for p in Phase) == PHASE_NAMES
