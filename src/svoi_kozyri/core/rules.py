"""The rules options of SPEC C9 as one immutable, validated object.

Every option carries its SPEC name and default.  A few defaults depend on the
variant: the Besicovitch game (C3) is a two-player game with one trump each and
whole-pile pickups, so ``Rules(variant="besicovitch")`` resolves
``num_players=2``, ``trumps_per_player_2p=1`` and ``pickup_rule="whole_pile"``
unless they are given.  Contradictions raise :class:`RulesError`.

>>> Rules().num_players, Rules().pickup_rule
(4, 'graded')
>>> r = Rules(variant="besicovitch")
>>> r.num_players, r.pickup_rule, r.deck_size
(2, 'whole_pile', 32)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from .errors import RulesError

_CHOICES: dict[str, tuple[Any, ...]] = {
    "num_players": (2, 3, 4),
    "variant": ("standard", "besicovitch"),
    "suit_assignment": ("agreed", "blind"),
    "trumps_per_player_2p": (1, 2),
    "pickup_rule": ("graded", "fixed", "whole_pile"),
    "after_pickup": ("face_new_top", "free_lead"),
    "defence_out_pile": ("keep", "discard"),
    "draw_rule": ("lead_only", "any_last_card", "none"),
    "equal_rank_beats": ("off", "also", "only"),
    "pile_visibility": ("full", "table"),
    "session_mode": ("losses", "points"),
    "cap_outcome": ("draw", "most_cards_loses"),
    "deck_size": (24, 32, 36, 40),
    "besicovitch_first_leader": ("dealer", "non_dealer"),
}
_BOOLS = (
    "reassign_each_hand",
    "own_suits_cross_beat",
    "free_lead_after_defence_out",
    "sixes_transfer_public",
    "points_on_draw",
    "taker_leads_after_pickup",
    "besicovitch_draw_rule",
)


@dataclass(frozen=True)
class Rules:
    """All options of SPEC C9.  ``None`` for the three variant-dependent options
    means "the default for this variant" and is resolved on construction."""

    num_players: int = None  # type: ignore[assignment]
    variant: str = "standard"
    suit_assignment: str = "agreed"
    reassign_each_hand: bool = False
    trumps_per_player_2p: int = None  # type: ignore[assignment]
    own_suits_cross_beat: bool = False
    pickup_rule: str = None  # type: ignore[assignment]
    fixed_pickup_count: int = 3
    after_pickup: str = "face_new_top"
    free_lead_after_defence_out: bool = True
    defence_out_pile: str = "keep"
    draw_rule: str = "lead_only"
    equal_rank_beats: str = "off"
    sixes_transfer_public: bool = True
    pile_visibility: str = "full"
    session_mode: str = "losses"
    loss_limit: int = 5
    points_target: int = 5
    points_on_draw: bool = False
    repetition_limit: int | None = 3
    max_actions_per_hand: int | None = 20000
    cap_outcome: str = "draw"
    deck_size: int = 32
    besicovitch_first_leader: str = "dealer"
    taker_leads_after_pickup: bool = False
    besicovitch_draw_rule: bool = False

    def __post_init__(self) -> None:
        self._resolve_variant_defaults()
        self._check_values()
        self._check_variant_options()
        self._check_combinations()

    def _resolve_variant_defaults(self) -> None:
        """Check the variant and fill in the options whose default depends on it
        (``None`` until then).

        Why first: every later check reads the resolved values."""
        besic = self.variant == "besicovitch"
        if self.variant not in _CHOICES["variant"]:
            raise RulesError(f"variant must be one of {_CHOICES['variant']}, not {self.variant!r}")
        defaults = {
            "num_players": 2 if besic else 4,
            "trumps_per_player_2p": 1 if besic else 2,
            "pickup_rule": "whole_pile" if besic else "graded",
        }
        for name, value in defaults.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)

    def _check_values(self) -> None:
        """Each option on its own: one of its choices, a bool, or an integer in range.

        Why apart: these checks know nothing of the other options."""
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if type(value) is not type(choices[0]) or value not in choices:
                raise RulesError(
                    f"{name} must be one of {', '.join(map(repr, choices))}, not {value!r}"
                )
        for name in _BOOLS:
            if not isinstance(getattr(self, name), bool):
                raise RulesError(f"{name} must be true or false, not {getattr(self, name)!r}")
        for name, low in (("fixed_pickup_count", 1), ("loss_limit", 1), ("points_target", 1)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise RulesError(f"{name} must be an integer >= {low}, not {value!r}")
        rl = self.repetition_limit
        if rl is not None and (isinstance(rl, bool) or not isinstance(rl, int) or rl < 2):
            raise RulesError(f"repetition_limit must be an integer >= 2 or null, not {rl!r}")
        cap = self.max_actions_per_hand
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
            raise RulesError(f"max_actions_per_hand must be an integer >= 1 or null, not {cap!r}")

    def _check_variant_options(self) -> None:
        """The Besicovitch game is two players with one trump each, and its own
        options stay at their defaults in the standard game (SPEC C3)."""
        if self.variant == "besicovitch":
            if self.num_players != 2:
                raise RulesError("the Besicovitch variant is a two-player game (num_players=2)")
            if self.trumps_per_player_2p != 1:
                raise RulesError("the Besicovitch variant gives each player one trump suit")
        else:
            for name in (
                "deck_size",
                "besicovitch_first_leader",
                "taker_leads_after_pickup",
                "besicovitch_draw_rule",
            ):
                if getattr(self, name) != _DEFAULTS[name]:
                    raise RulesError(f"{name} applies only to the Besicovitch variant")

    def _check_combinations(self) -> None:
        """Options that only apply with another option's value, or contradict it.

        Why apart: each check names both options, so the message says which to drop."""
        if self.taker_leads_after_pickup and self.pickup_rule != "whole_pile":
            raise RulesError(
                "taker_leads_after_pickup needs pickup_rule='whole_pile' "
                "(the taker can only start a new pile when the pile is empty)"
            )
        if self.taker_leads_after_pickup and self.after_pickup != "face_new_top":
            raise RulesError("taker_leads_after_pickup and after_pickup='free_lead' contradict")
        if self.pickup_rule != "fixed" and self.fixed_pickup_count != 3:
            raise RulesError("fixed_pickup_count applies only with pickup_rule='fixed'")
        if self.num_players != 2 and self.trumps_per_player_2p != 2:
            raise RulesError(
                "trumps_per_player_2p applies only to two-player games "
                f"(with {self.num_players} players each owns one suit)"
            )
        if self.own_suits_cross_beat and (self.num_players != 2 or self.trumps_per_player_2p != 2):
            raise RulesError(
                "own_suits_cross_beat applies only when a player owns two suits "
                "(two players with trumps_per_player_2p=2)"
            )
        if self.reassign_each_hand and self.suit_assignment != "blind":
            raise RulesError("reassign_each_hand applies only with suit_assignment='blind'")
        if self.points_on_draw and self.session_mode != "points":
            raise RulesError("points_on_draw applies only with session_mode='points'")

    @classmethod
    def from_dict(cls, options: Mapping[str, Any]) -> Rules:
        """Build from a mapping of SPEC option names, rejecting unknown names."""
        if not isinstance(options, Mapping):
            raise RulesError(
                f"rules options are a mapping of option names, not {type(options).__name__}"
            )
        known = {f.name for f in fields(cls) if not f.name.startswith("_")}
        unknown = sorted(str(k) for k in set(options) - known)
        if unknown:
            raise RulesError(f"unknown rules option(s): {', '.join(unknown)}")
        return cls(**options)

    def to_dict(self, *, only_changed: bool = False) -> dict[str, Any]:
        """The options by name; with ``only_changed``, those that differ from the
        default for this variant (enough to rebuild an equal object)."""
        out: dict[str, Any] = {}
        base = Rules(variant=self.variant) if only_changed else None
        for f in fields(self):
            if f.name.startswith("_"):
                continue
            value = getattr(self, f.name)
            if (
                base is None
                or value != getattr(base, f.name)
                or (f.name == "variant" and (value != "standard"))
            ):
                out[f.name] = value
        return out

    def replace(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated again)."""
        merged = self.to_dict(only_changed=True)
        merged.update(changes)
        return Rules.from_dict(merged)

    @property
    def is_besicovitch(self) -> bool:
        """True for the open two-player Besicovitch game (SPEC C3)."""
        return self.variant == "besicovitch"


#: Options whose value may be null; for them ``none`` is read as null too
#: (``draw_rule="none"`` is a real value, so elsewhere only ``null`` means None).
NULLABLE_OPTIONS = ("repetition_limit", "max_actions_per_hand")


def parse_option_value(key: str, text: str) -> Any:
    """The value of option ``key`` written as text (``key=value`` on a command line or
    in the position notation): ``true``/``false`` (also yes/no, on/off), ``null``
    (``none`` too for the nullable guards), integers, otherwise the text itself.
    Validation is :class:`Rules`'s job."""
    t = text.strip()
    low = t.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low == "null" or (low == "none" and key in NULLABLE_OPTIONS):
        return None
    try:
        return int(t)
    except ValueError:
        return t


_DEFAULTS: dict[str, Any] = {
    f.name: f.default for f in dataclasses.fields(Rules) if not f.name.startswith("_")
}


def option_specs() -> list[dict[str, Any]]:
    """Every option of SPEC C9 as data: ``name``, ``type`` (``choice``, ``bool``,
    ``int`` or ``int_or_null``), ``choices`` (for a choice), ``min`` (for an int),
    ``default`` (the standard game's) and ``besicovitch_default``, and
    ``besicovitch_only``.  Front ends build their rules forms from it, so the
    allowed values live in one place, this module."""
    standard, besic = Rules(), Rules(variant="besicovitch")
    only = {
        "deck_size",
        "besicovitch_first_leader",
        "taker_leads_after_pickup",
        "besicovitch_draw_rule",
    }
    lows = {
        "fixed_pickup_count": 1,
        "loss_limit": 1,
        "points_target": 1,
        "repetition_limit": 2,
        "max_actions_per_hand": 1,
    }
    out: list[dict[str, Any]] = []
    for f in fields(Rules):
        name = f.name
        spec: dict[str, Any] = {
            "name": name,
            "default": getattr(standard, name),
            "besicovitch_default": getattr(besic, name),
            "besicovitch_only": name in only,
        }
        if name in _CHOICES:
            spec["type"] = "choice"
            spec["choices"] = list(_CHOICES[name])
        elif name in _BOOLS:
            spec["type"] = "bool"
        else:
            spec["type"] = "int_or_null" if name in NULLABLE_OPTIONS else "int"
            spec["min"] = lows.get(name, 0)
        out.append(spec)
    return out
