"""Draw the web app's icons (``make icons``): the PNG files the manifest names.

Two fanned cards on the felt, a red heart behind a black spade, drawn with
Pillow (it comes with matplotlib, the ``plots`` extra; the committed PNG files are
what the server serves, so running the game never needs it).  ``icon-<size>.png`` are the
ordinary icons (a rounded square of felt on transparency); ``maskable-<size>.png``
fill the whole square and keep the cards inside the safe zone (the centre
circle of 80 %), so a launcher may cut any shape out of them.  Drawn four times
larger and scaled down for smooth edges, then stored with a small palette to
keep the files small.

    python bench/app_icons.py          # writes src/svoi_kozyri/web/static/icons/
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parent.parent / "src" / "svoi_kozyri" / "web" / "static" / "icons"
FELT = (30, 107, 65, 255)
EDGE = (13, 58, 33, 255)
PAPER = (255, 253, 248, 255)
RED = (200, 16, 46, 255)
BLACK = (29, 35, 48, 255)
GREY = (138, 143, 153, 255)
SUPER = 4


def _heart(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float, fill: tuple[int, ...]) -> None:
    """A heart of width ``s`` centred on (cx, cy)."""
    r = s * 0.27
    d.ellipse((cx - 2 * r, cy - s * 0.3 - r, cx, cy - s * 0.3 + r), fill=fill)
    d.ellipse((cx, cy - s * 0.3 - r, cx + 2 * r, cy - s * 0.3 + r), fill=fill)
    d.polygon(
        [
            (cx - 2 * r + s * 0.01, cy - s * 0.22),
            (cx + 2 * r - s * 0.01, cy - s * 0.22),
            (cx, cy + s * 0.45),
        ],
        fill=fill,
    )


def _spade(d: ImageDraw.ImageDraw, cx: float, cy: float, s: float, fill: tuple[int, ...]) -> None:
    """A spade of width ``s`` centred on (cx, cy): a heart upside down and a stem."""
    r = s * 0.27
    d.polygon(
        [
            (cx, cy - s * 0.5),
            (cx - 2 * r + s * 0.01, cy + s * 0.08),
            (cx + 2 * r - s * 0.01, cy + s * 0.08),
        ],
        fill=fill,
    )
    d.ellipse((cx - 2 * r, cy + s * 0.1 - r, cx, cy + s * 0.1 + r), fill=fill)
    d.ellipse((cx, cy + s * 0.1 - r, cx + 2 * r, cy + s * 0.1 + r), fill=fill)
    d.polygon(
        [(cx, cy + s * 0.05), (cx - s * 0.2, cy + s * 0.5), (cx + s * 0.2, cy + s * 0.5)], fill=fill
    )


def _card(size: int, suit: str, angle: float) -> Image.Image:
    """A card ``size`` high with one large suit, turned by ``angle`` degrees."""
    w, h = int(size * 5 / 7), size
    layer = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(layer)
    d.rounded_rectangle(
        (0, 0, w - 1, h - 1), radius=size * 0.08, fill=PAPER, outline=GREY, width=max(1, size // 60)
    )
    if suit == "H":  # off the centre, where the front card leaves it in view
        _heart(d, w * 0.34, h * 0.36, w * 0.5, RED)
    else:
        _spade(d, w / 2, h / 2, w * 0.62, BLACK)
    return layer.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)


def icon(size: int, *, maskable: bool) -> Image.Image:
    """The icon ``size`` pixels square."""
    big = size * SUPER
    img = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    if maskable:
        d.rectangle((0, 0, big, big), fill=FELT)
        cards = big * 0.5  # inside the safe circle
    else:
        d.rounded_rectangle((0, 0, big - 1, big - 1), radius=big * 0.2, fill=EDGE)
        d.rounded_rectangle(
            (big * 0.04, big * 0.04, big * 0.96, big * 0.96), radius=big * 0.17, fill=FELT
        )
        cards = big * 0.62
    for suit, angle, dx in (("H", 14, -0.16), ("S", -10, 0.12)):
        card = _card(int(cards), suit, angle)
        x = int(big / 2 + dx * cards - card.width / 2)
        y = int(big / 2 - card.height / 2)
        img.alpha_composite(card, (x, y))
    small = img.resize((size, size), Image.Resampling.LANCZOS)
    return small.quantize(colors=64, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


def main(out: Path = OUT) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        for maskable in (False, True):
            name = f"{'maskable' if maskable else 'icon'}-{size}.png"
            icon(size, maskable=maskable).save(out / name, optimize=True)
            print(out / name, (out / name).stat().st_size, "bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
