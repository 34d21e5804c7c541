"""Text notations above the core: positions (FEN-like) and game records (PGN-like).

* :mod:`svoi_kozyri.notation.position`: one line for any state of a hand.
* :mod:`svoi_kozyri.records`: records of whole hands, sessions of hands, and
  viewer-safe records without the deal.

See ``docs/notation.md`` for the formats.
"""

from .position import (
    format_cards_compact,
    format_observation,
    format_owners,
    format_position,
    format_result,
    format_rules,
    parse_cards_compact,
    parse_game,
    parse_owners,
    parse_position,
    parse_result,
    parse_rules,
    position_from_text,
)

__all__ = [
    "format_cards_compact",
    "format_observation",
    "format_owners",
    "format_position",
    "format_result",
    "format_rules",
    "parse_cards_compact",
    "parse_game",
    "parse_owners",
    "parse_position",
    "parse_result",
    "parse_rules",
    "position_from_text",
]
