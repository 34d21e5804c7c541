"""Playing cards drawn as SVG by the project (no downloaded card images).

Each card is a small self-contained SVG document: rounded face, rank and suit in
two corners, and a large suit symbol (or a pip layout for number cards) in the
middle.  Hearts and diamonds are red, spades and clubs dark.  The web client
loads them from ``/cards/<CARD>.svg`` (e.g. ``/cards/10H.svg``) and
``/cards/back.svg``; the server caches them since they never change.

>>> card_svg(parse_card("QS")).startswith("<svg")
True
"""

from __future__ import annotations

from functools import lru_cache

from ..core.cards import RANKS, SUIT_SYMBOLS, Card, parse_card, rank_of, suit_of

__all__ = ["back_svg", "card_svg", "parse_card"]

_W, _H = 60, 84
_COLORS = ("#1d2330", "#c8102e", "#c8102e", "#1d2330")

# Pip positions (x, y) in a 60x84 card for ranks 5..10; courts and aces get one big symbol.
_PIPS: dict[str, tuple[tuple[float, float], ...]] = {
    "5": ((19, 22), (41, 22), (30, 42), (19, 62), (41, 62)),
    "6": ((19, 22), (41, 22), (19, 42), (41, 42), (19, 62), (41, 62)),
    "7": ((19, 22), (41, 22), (30, 32), (19, 42), (41, 42), (19, 62), (41, 62)),
    "8": ((19, 22), (41, 22), (30, 32), (19, 42), (41, 42), (30, 52), (19, 62), (41, 62)),
    "9": ((19, 20), (41, 20), (19, 34), (41, 34), (30, 42), (19, 50), (41, 50), (19, 64), (41, 64)),
    "10": (
        (19, 20),
        (41, 20),
        (30, 27),
        (19, 34),
        (41, 34),
        (19, 50),
        (41, 50),
        (30, 57),
        (19, 64),
        (41, 64),
    ),
}


@lru_cache(maxsize=64)
def card_svg(c: Card) -> str:
    """The SVG document of card ``c``."""
    rank = RANKS[rank_of(c)]
    sym = SUIT_SYMBOLS[suit_of(c)]
    color = _COLORS[suit_of(c)]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" '
        f'width="{_W * 2}" height="{_H * 2}" role="img" aria-label="{rank}{sym}">',
        f'<rect x="0.5" y="0.5" width="{_W - 1}" height="{_H - 1}" rx="5" '
        'fill="#fffdf8" stroke="#8a8f99" stroke-width="1"/>',
        f'<g fill="{color}" font-family="Georgia, \'DejaVu Serif\', serif" font-weight="bold">',
        f'<text x="4" y="13" font-size="{10 if rank == "10" else 12}">{rank}</text>',
        f'<text x="4" y="23" font-size="10">{sym}</text>',
        f'<g transform="rotate(180 {_W / 2} {_H / 2})">'
        f'<text x="4" y="13" font-size="{10 if rank == "10" else 12}">{rank}</text>'
        f'<text x="4" y="23" font-size="10">{sym}</text></g>',
    ]
    pips = _PIPS.get(rank)
    if pips is None:
        parts.append(
            f'<rect x="14" y="18" width="32" height="48" rx="3" fill="none" '
            f'stroke="{color}" stroke-opacity="0.35"/>'
            if rank != "A"
            else ""
        )
        size = 30 if rank == "A" else 20
        parts.append(
            f'<text x="30" y="{42 + size * 0.35:.1f}" font-size="{size}" '
            f'text-anchor="middle">{sym}</text>'
        )
        if rank != "A":
            parts.append(
                f'<text x="30" y="60" font-size="9" text-anchor="middle">'
                f"{ {'J': 'JACK', 'Q': 'QUEEN', 'K': 'KING'}[rank] }</text>"
            )
    else:
        for x, y in pips:
            parts.append(
                f'<text x="{x}" y="{y + 4}" font-size="11" text-anchor="middle">{sym}</text>'
            )
    parts.append("</g></svg>")
    return "".join(parts)


@lru_cache(maxsize=1)
def back_svg() -> str:
    """The SVG document of a card's back."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" '
        f'width="{_W * 2}" height="{_H * 2}" role="img" aria-label="card back">'
        '<defs><pattern id="p" width="6" height="6" patternUnits="userSpaceOnUse" '
        'patternTransform="rotate(45)"><rect width="6" height="6" fill="#24527a"/>'
        '<rect width="3" height="6" fill="#2f6a9c"/></pattern></defs>'
        f'<rect x="0.5" y="0.5" width="{_W - 1}" height="{_H - 1}" rx="5" fill="#fffdf8" '
        'stroke="#8a8f99"/>'
        f'<rect x="4" y="4" width="{_W - 8}" height="{_H - 8}" rx="3" fill="url(#p)"/>'
        "</svg>"
    )
