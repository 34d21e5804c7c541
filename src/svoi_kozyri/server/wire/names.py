"""Look-alike names: the confusables skeleton of Unicode TR39, and combining marks.

Why: a guest sitting as ``аlice_s`` (Cyrillic ``а``) or ``alice‐s`` (U+2010)
beside the account ``alice_s`` passes for that player (issue 20, item 12).  Two
names are the same name when a key of :func:`skeletons` is: NFKC, then each
character replaced by its TR39 prototype (``а`` -> ``a``, ``‐`` -> ``-``,
``I`` and ``1`` -> ``l``, ``m`` -> ``rn``) and case folded, in both orders, with
every word separator (space, dash, underscore, dot) as one.
The account names are unique in it, a guest cannot sit under an account's
skeleton, and two seats of one table never share one.

The mapping comes from Unicode's ``confusables.txt`` as the package
``confusable-homoglyphs`` ships it (``confusables.json``).  That file lists each
line of ``confusables.txt`` in both directions; a source character has exactly
one neighbour (its prototype), so the prototypes are the characters with several
neighbours or a sequence.  Where a source and its prototype have only each
other, the file does not say which is which: both map to one of them (ASCII
first), which gives the same classes of equal names as TR39.

:func:`too_many_marks` bounds the combining marks on one character: 200 of them
draw over the lines above and below (Zalgo text).
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib.resources import files

MAX_MARKS = 2
"""Combining marks allowed on one base character (Vietnamese needs two: ệ)."""

_INVISIBLE_RANGES = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian variation selectors and vowel separator
    (0x2800, 0x2800),  # braille pattern blank
    (0x3164, 0x3164),  # Hangul filler
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xE0100, 0xE01EF),  # variation selectors supplement
)
"""Characters that draw nothing yet are letters or marks (not format characters,
which every name refuses already): ``alice_s`` + U+3164 reads as ``alice_s``."""

_IGNORED_RANGES = (*_INVISIBLE_RANGES, (0xFE00, 0xFE0F))
"""What :func:`skeletons` drops: the invisible characters and the variation
selectors (an emoji's VS16 may stay in a name, but ``alice`` + VS16 is ``alice``)."""


def _in(ranges: tuple[tuple[int, int], ...], ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in ranges)


def invisible(ch: str) -> bool:
    """Whether ``ch`` is a letter or mark that draws nothing (see :data:`_INVISIBLE_RANGES`)."""
    return _in(_INVISIBLE_RANGES, ch)


def _rank(ch: str) -> tuple[bool, int]:
    return (ord(ch[0]) >= 128, ord(ch[0]))


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable source character -> its prototype (one or more characters)."""
    text = files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    data: dict[str, list[dict[str, str]]] = json.loads(text)
    out: dict[str, str] = {}
    for key, entries in data.items():
        if len(key) != 1 or len(entries) != 1:
            continue  # a sequence, or a character several others look like: a prototype
        other = entries[0]["c"]
        if len(other) > 1 or len(data.get(other, ())) > 1:
            out[key] = other
        else:  # one source, one prototype, and the file does not say which is which
            rep = min(key, other, key=_rank)
            if rep != key:
                out[key] = rep
    return out


def _map(text: str) -> str:
    protos = _prototypes()
    for _ in range(4):  # prototypes are fixed points; a chosen representative may not be
        nfd = unicodedata.normalize("NFD", text)
        mapped = unicodedata.normalize("NFD", "".join(protos.get(ch, ch) for ch in nfd))
        if mapped == text:
            break
        text = mapped
    return text


def skeletons(name: str) -> tuple[str, str]:
    """The two forms in which names that look alike are equal (see :func:`looks_alike`).

    Case folding and the confusables disagree on ``I``: folded it is ``i``, seen it
    is ``l``.  So there are two keys: folded first, then mapped (``ALICE`` equals
    ``alice``), and mapped first, then folded (``AIice`` equals ``alice``).
    """
    text = "".join(
        ch
        for ch in unicodedata.normalize("NFKC", name)
        if not _in(_IGNORED_RANGES, ch) and unicodedata.category(ch) != "Cf"
    )
    text = " ".join(text.split())
    folded_first = _separators(_map(_map(text.casefold()).casefold()))
    mapped_first = _separators(_map(_map(text).casefold()))
    return folded_first, mapped_first


def _separators(text: str) -> str:
    """Word separators as one: ``alice_s``, ``alice-s``, ``alice‐s``, ``alice.s`` and
    ``alice s`` pass for each other at a glance (issue 20, item 12 names ``alice‐s``
    beside ``alice_s``), though TR39 keeps ``_`` and ``-`` apart."""
    return "".join(
        "_" if ch in _SEPARATORS or unicodedata.category(ch) in ("Pd", "Pc", "Zs") else ch
        for ch in text
    )


_SEPARATORS = frozenset("._-\u00b7\u2024\u2027\u30fb")
"""Dots and middle dots that separate words like the dashes and spaces do."""


def looks_alike(a: str, b: str) -> bool:
    """Whether two names would pass for each other (either key of :func:`skeletons`)."""
    sa, sb = skeletons(a), skeletons(b)
    return sa[0] == sb[0] or sa[1] == sb[1]


def too_many_marks(text: str, limit: int = MAX_MARKS) -> bool:
    """Whether a character of ``text`` carries more than ``limit`` combining marks
    (counted decomposed: ``ệ`` has two)."""
    run = 0
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.category(ch) in ("Mn", "Me"):
            run += 1
            if run > limit:
                return True
        else:
            run = 0
    return False


def limit_marks(text: str, limit: int = MAX_MARKS) -> str:
    """``text`` with the combining marks past ``limit`` on one character dropped
    (counted decomposed, returned composed: NFC)."""
    out: list[str] = []
    run = 0
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.category(ch) in ("Mn", "Me"):
            run += 1
            if run > limit:
                continue
        else:
            run = 0
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))
