"""Rules options (SPEC C9): defaults, variant-dependent defaults, validation.

Every invalid value and every contradictory combination must raise RulesError
with a message naming the option, because rules come from scenario files, the
CLI and the web API, and a silently ignored option is a wrong game."""

from __future__ import annotations

from typing import Any

import pytest

from svoi_kozyri.core import Rules, RulesError


def test_defaults_are_spec_c9() -> None:
    r = Rules()
    assert r.num_players == 4
    assert r.variant == "standard"
    assert r.suit_assignment == "agreed"
    assert r.reassign_each_hand is False
    assert r.trumps_per_player_2p == 2
    assert r.own_suits_cross_beat is False
    assert r.pickup_rule == "graded"
    assert r.fixed_pickup_count == 3
    assert r.after_pickup == "face_new_top"
    assert r.free_lead_after_defence_out is True
    assert r.defence_out_pile == "keep"
    assert r.draw_rule == "lead_only"
    assert r.equal_rank_beats == "off"
    assert r.sixes_transfer_public is True
    assert r.pile_visibility == "full"
    assert r.session_mode == "losses"
    assert r.loss_limit == 5
    assert r.points_target == 5
    assert r.points_on_draw is False
    assert r.repetition_limit == 3
    assert r.max_actions_per_hand == 20000
    assert r.cap_outcome == "draw"
    assert r.deck_size == 32
    assert r.besicovitch_first_leader == "dealer"
    assert r.taker_leads_after_pickup is False
    assert r.besicovitch_draw_rule is False
    assert not r.is_besicovitch


def test_besicovitch_variant_defaults() -> None:
    r = Rules(variant="besicovitch")
    assert r.is_besicovitch
    assert (r.num_players, r.trumps_per_player_2p, r.pickup_rule) == (2, 1, "whole_pile")
    assert r.deck_size == 32
    r2 = Rules.from_dict({"variant": "besicovitch", "deck_size": 24, "pickup_rule": "graded"})
    assert (r2.deck_size, r2.pickup_rule) == (24, "graded")


def test_two_player_default_two_trumps() -> None:
    assert Rules(num_players=2).trumps_per_player_2p == 2
    assert Rules.from_dict({"num_players": 2, "trumps_per_player_2p": 1}).trumps_per_player_2p == 1


def test_rules_are_frozen_and_hashable() -> None:
    r = Rules()
    with pytest.raises(AttributeError):
        r.num_players = 3  # type: ignore[misc]
    assert hash(r) == hash(Rules())
    assert r == Rules.from_dict({})
    assert Rules(num_players=3) != r


def test_from_dict_and_to_dict_roundtrip() -> None:
    opts = {
        "num_players": 3,
        "pickup_rule": "fixed",
        "fixed_pickup_count": 4,
        "draw_rule": "none",
        "max_actions_per_hand": None,
        "session_mode": "points",
        "points_on_draw": True,
    }
    r = Rules.from_dict(opts)
    changed = r.to_dict(only_changed=True)
    assert changed == opts
    assert Rules.from_dict(changed) == r
    full = r.to_dict()
    assert full["loss_limit"] == 5 and full["num_players"] == 3
    assert Rules.from_dict(full) == r
    b = Rules.from_dict({"variant": "besicovitch", "deck_size": 40})
    assert b.to_dict(only_changed=True) == {"variant": "besicovitch", "deck_size": 40}
    assert Rules.from_dict(b.to_dict(only_changed=True)) == b


def test_replace_validates_again() -> None:
    r = Rules().replace(num_players=3, cap_outcome="most_cards_loses")
    assert (r.num_players, r.cap_outcome) == (3, "most_cards_loses")
    with pytest.raises(RulesError, match="num_players"):
        Rules().replace(num_players=5)
    with pytest.raises(RulesError, match="fixed_pickup_count"):
        Rules.from_dict({"pickup_rule": "fixed", "fixed_pickup_count": 5}).replace(
            pickup_rule="graded"
        )


BAD_VALUES: list[tuple[str, Any]] = [
    ("num_players", 1),
    ("num_players", 5),
    ("num_players", "4"),
    ("num_players", True),
    ("variant", "durak"),
    ("suit_assignment", "random"),
    ("trumps_per_player_2p", 3),
    ("trumps_per_player_2p", 0),
    ("pickup_rule", "all"),
    ("pickup_rule", "GRADED"),
    ("after_pickup", "new_top"),
    ("defence_out_pile", "kill"),
    ("draw_rule", "always"),
    ("equal_rank_beats", True),
    ("equal_rank_beats", "on"),
    ("pile_visibility", "top"),
    ("session_mode", "score"),
    ("cap_outcome", "loss"),
    ("reassign_each_hand", 1),
    ("reassign_each_hand", "yes"),
    ("own_suits_cross_beat", None),
    ("free_lead_after_defence_out", 0),
    ("sixes_transfer_public", "true"),
    ("points_on_draw", 1),
    ("fixed_pickup_count", 0),
    ("fixed_pickup_count", -3),
    ("fixed_pickup_count", 2.5),
    ("fixed_pickup_count", True),
    ("loss_limit", 0),
    ("loss_limit", "5"),
    ("points_target", 0),
    ("points_target", None),
    ("repetition_limit", 1),
    ("repetition_limit", 0),
    ("repetition_limit", True),
    ("repetition_limit", 2.0),
    ("max_actions_per_hand", 0),
    ("max_actions_per_hand", -1),
    ("max_actions_per_hand", False),
    ("max_actions_per_hand", "100"),
]


@pytest.mark.parametrize(("name", "value"), BAD_VALUES)
def test_invalid_values_raise_naming_the_option(name: str, value: Any) -> None:
    with pytest.raises(RulesError, match=name):
        Rules.from_dict({name: value})
    with pytest.raises(RulesError, match=name):
        Rules(**{name: value})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("deck_size", 52),
        ("deck_size", "36"),
        ("besicovitch_first_leader", "opponent"),
        ("taker_leads_after_pickup", "no"),
        ("besicovitch_draw_rule", 0),
    ],
)
def test_invalid_besicovitch_values(name: str, value: Any) -> None:
    with pytest.raises(RulesError, match=name):
        Rules.from_dict({"variant": "besicovitch", name: value})


def test_valid_edge_values() -> None:
    assert Rules.from_dict({"repetition_limit": None}).repetition_limit is None
    assert Rules.from_dict({"repetition_limit": 2}).repetition_limit == 2
    assert Rules.from_dict({"max_actions_per_hand": None}).max_actions_per_hand is None
    assert Rules.from_dict({"max_actions_per_hand": 1}).max_actions_per_hand == 1
    assert Rules.from_dict({"pickup_rule": "fixed", "fixed_pickup_count": 1}).fixed_pickup_count
    assert Rules.from_dict({"loss_limit": 1, "points_target": 10}).points_target == 10
    for size in (24, 32, 36, 40):
        assert Rules.from_dict({"variant": "besicovitch", "deck_size": size}).deck_size == size


CONTRADICTIONS: list[tuple[dict[str, Any], str]] = [
    ({"variant": "besicovitch", "num_players": 4}, "two-player"),
    ({"variant": "besicovitch", "num_players": 3}, "two-player"),
    ({"variant": "besicovitch", "trumps_per_player_2p": 2}, "one trump"),
    ({"deck_size": 24}, "deck_size applies only to the Besicovitch"),
    ({"deck_size": 40, "num_players": 2}, "deck_size"),
    ({"besicovitch_first_leader": "non_dealer"}, "besicovitch_first_leader"),
    ({"taker_leads_after_pickup": True}, "taker_leads_after_pickup"),
    ({"besicovitch_draw_rule": True}, "besicovitch_draw_rule"),
    (
        {"variant": "besicovitch", "taker_leads_after_pickup": True, "pickup_rule": "graded"},
        "whole_pile",
    ),
    (
        {"variant": "besicovitch", "taker_leads_after_pickup": True, "after_pickup": "free_lead"},
        "contradict",
    ),
    ({"fixed_pickup_count": 5}, "fixed_pickup_count applies only"),
    ({"fixed_pickup_count": 4, "pickup_rule": "whole_pile"}, "fixed_pickup_count"),
    ({"points_on_draw": True}, "points_on_draw applies only"),
    ({"points_on_draw": True, "session_mode": "losses"}, "points_on_draw"),
    ({"no_such_option": 1}, "unknown rules option.*no_such_option"),
    ({"_explicit": frozenset()}, "unknown rules option"),
    ({"Num_Players": 4, "zzz": 0}, "Num_Players, zzz"),
]


@pytest.mark.parametrize(("options", "match"), CONTRADICTIONS)
def test_contradictions_raise(options: dict[str, Any], match: str) -> None:
    with pytest.raises(RulesError, match=match):
        Rules.from_dict(options)


def test_besicovitch_only_options_at_their_default_are_accepted() -> None:
    # Stating a Besicovitch-only option at its default value is not a contradiction.
    r = Rules.from_dict({"deck_size": 32, "taker_leads_after_pickup": False})
    assert r.variant == "standard"
    r = Rules.from_dict({"fixed_pickup_count": 3})
    assert r.pickup_rule == "graded"


def test_rules_error_is_a_value_error() -> None:
    assert issubclass(RulesError, ValueError)


@pytest.mark.parametrize(
    "options",
    [
        {"deck_size": 24},
        {"fixed_pickup_count": 5},
        {"points_on_draw": True},
        {"besicovitch_first_leader": "non_dealer"},
    ],
)
def test_constructor_rejects_contradictions_too(options: dict[str, Any]) -> None:
    """Rules(...) built directly is validated like Rules.from_dict(...)."""
    with pytest.raises(RulesError, match=next(iter(options))):
        Rules(**options)


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 4.0},
        {"num_players": 2, "trumps_per_player_2p": 1.0},
        {"variant": "besicovitch", "deck_size": 36.0},
    ],
)
def test_float_counts_are_rejected(options: dict[str, Any]) -> None:
    with pytest.raises(RulesError):
        Rules.from_dict(options)


def test_typed_option_values_keep_the_string_none_of_draw_rule() -> None:
    """``draw_rule=none`` is a value, not null; only the guards read ``none`` as null."""
    from svoi_kozyri.core.rules import parse_option_value

    assert parse_option_value("draw_rule", "none") == "none"
    assert Rules.from_dict({"draw_rule": parse_option_value("draw_rule", "none")}).draw_rule == (
        "none"
    )
    assert parse_option_value("repetition_limit", "none") is None
    assert parse_option_value("max_actions_per_hand", "null") is None
    assert parse_option_value("loss_limit", " 7 ") == 7
    assert parse_option_value("own_suits_cross_beat", "yes") is True
    assert parse_option_value("free_lead_after_defence_out", "off") is False
