"""The card images the web server serves: a thin user of :mod:`svoi_kozyri.svg`.

``/cards/<CARD>.svg`` (e.g. ``/cards/10H.svg``, ``?letters=ru``, ``?deck=four``) and
``/cards/back.svg``; the server caches them since they never change.

>>> card_svg(parse_card("QS")).startswith("<svg")
True
"""

from __future__ import annotations

from ... import svg
from ...core.cards import Card, parse_card

__all__ = ["back_svg", "card_svg", "parse_card"]


def card_svg(c: Card, letters: str = "en", deck: str = "classic") -> str:
    """The SVG document of card ``c``, 120 x 168 units, with the corner letters of
    ``letters`` (``"en"`` or ``"ru"``, see :data:`svoi_kozyri.svg.INDEX_LETTERS`) in
    ``deck`` (``"classic"``, ``"four"`` or ``"large"``, :data:`svoi_kozyri.svg.DECKS`);
    an unknown value draws the default."""
    return str(
        svg.card(
            c,
            letters=letters if letters in svg.INDEX_LETTERS else "en",
            deck=deck if deck in svg.DECKS else "classic",
        )
    )


def back_svg() -> str:
    """The SVG document of a card's back."""
    return str(svg.back())
