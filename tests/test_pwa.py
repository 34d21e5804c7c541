"""The installable app and the card decks (issue 22, items 5 and 6), server side.

* The web app manifest (``/manifest.webmanifest``) has what an install prompt
  needs: names, ``display: standalone``, a start URL, a theme colour and PNG icons
  of 192 and 512 pixels, one of them maskable, whose files are that size and small.
* The service worker is served from the site's root (``/sw.js``, scope ``/``) with
  a JavaScript type, ``Cache-Control: no-cache`` and its cache's version written
  in: a hash of the static files, so a deploy that changes one installs a new
  worker; every file of the shell it caches exists; it never answers for the API.
* Every page links the manifest; the policy stays strict and names the manifest
  and the worker.
* Every deck's suit colours read on the card face: WCAG contrast at least 4.5
  (the threshold for normal text, although the corner indices are bold and
  large), on the paper and on the court cards' frame.
"""

from __future__ import annotations

import json
import re
import struct
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from svoi_kozyri import svg
from svoi_kozyri.core import RANKS, SUITS
from svoi_kozyri.server.edge.pages import DOCUMENTS
from svoi_kozyri.server.web.app import STATIC_DIR, create_app
from svoi_kozyri.server.web.routes_site import manifest, static_version

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path / 'web.db'}", seed=22)
    with TestClient(app) as c:
        yield c


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header (IHDR)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_manifest_has_what_an_install_prompt_needs(client: TestClient) -> None:
    r = client.get("/manifest.webmanifest")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/manifest+json")
    m = json.loads(r.text)
    assert m == manifest()
    assert m["name"] == "Svoi Kozyri" and 0 < len(m["short_name"]) <= 12
    assert m["display"] == "standalone"
    assert m["start_url"] == "/" and m["scope"] == "/" and m["id"] == "/"
    assert re.fullmatch(r"#[0-9a-f]{6}", m["theme_color"])
    assert re.fullmatch(r"#[0-9a-f]{6}", m["background_color"])
    sizes = {(i["sizes"], i.get("purpose", "any")) for i in m["icons"]}
    assert {("192x192", "any"), ("512x512", "any")} <= sizes
    assert any(purpose == "maskable" for _, purpose in sizes)
    for icon in m["icons"]:
        assert icon["type"] == "image/png" and icon["src"].startswith("/static/icons/")
        got = client.get(icon["src"])
        assert got.status_code == 200
        assert png_size(got.content) == tuple(int(x) for x in icon["sizes"].split("x"))
        assert len(got.content) < 30_000, f"{icon['src']} is {len(got.content)} bytes"


def test_the_service_worker_is_served_from_the_root(client: TestClient) -> None:
    r = client.get("/sw.js")
    assert r.status_code == 200
    assert r.headers["content-type"].split(";")[0] in ("text/javascript", "application/javascript")
    assert r.headers["cache-control"] == "no-cache"
    body = r.text
    assert "__SK_VERSION__" not in body
    assert f'const VERSION = "{static_version()}";' in body
    # every file of the shell it caches on install is there
    shell = re.search(r"const SHELL = \[(.*?)\];", body, re.S)
    assert shell is not None
    paths = [*re.findall(r'"(/[^"]+)"', shell.group(1)), "/static/offline.html"]
    assert len(paths) > 8
    for path in paths:
        assert client.get(path).status_code == 200, path
    # it answers for static files and card images only, never for the API
    assert 'url.pathname.startsWith("/static/") || url.pathname.startsWith("/cards/")' in body
    assert "X-Seat-Token" in body
    assert "caches.match(OFFLINE)" in body


def test_the_cache_version_follows_the_static_files(tmp_path: Path) -> None:
    (tmp_path / "a.js").write_text("one")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.css").write_text("two")
    first = static_version(tmp_path)
    assert first == static_version(tmp_path) and re.fullmatch(r"[0-9a-f]{12}", first)
    (tmp_path / "sub" / "b.css").write_text("three")
    assert static_version(tmp_path) != first
    assert static_version() == static_version(STATIC_DIR)


def test_every_page_links_the_manifest_and_the_policy_names_it(client: TestClient) -> None:
    for doc in DOCUMENTS.values():
        assert '<link rel="manifest" href="/manifest.webmanifest">' in doc
        assert '<meta name="theme-color"' in doc
    for path in ("/", "/learn", "/sw.js", "/manifest.webmanifest"):
        csp = client.get(path).headers["content-security-policy"]
        assert "manifest-src 'self'" in csp and "worker-src 'self'" in csp
        assert "'unsafe-inline'" not in csp and "'unsafe-eval'" not in csp
    offline = (STATIC_DIR / "offline.html").read_text(encoding="utf-8")
    assert "<script>" not in offline and "style=" not in offline
    langs = re.findall(r'<section lang="(\w+)" data-lang="\1">', offline)
    assert sorted(langs) == sorted(["en", "ru", "it", "es", "nl", "pt", "ko"])


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of ``#rrggbb``."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two colours (1 to 21)."""
    hi, lo = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_contrast_helper_matches_wcag() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("deck", sorted(svg.DECKS))
def test_every_decks_suit_colours_read_on_the_card(deck: str) -> None:
    """4.5:1, the WCAG AA threshold for normal text, for every suit on the face and
    on the court frame (the indices are bold and 26 to 46 units high, so large
    text's 3:1 would do; the stricter threshold holds)."""
    inks = svg.DECKS[deck].inks
    for suit, ink in zip("SHDC", inks, strict=True):
        assert contrast(ink, svg.PAPER) >= 4.5, (deck, suit, ink)
        assert contrast(ink, svg.COURT_PAPER) >= 4.5, (deck, suit, ink)
    # the red and the black suits stay apart in every deck
    assert inks[0] != inks[1]


def test_decks_are_drawn_by_the_server(client: TestClient) -> None:
    four = client.get("/cards/KD.svg?deck=four").text
    assert svg.BLUE in four and svg.BLUE not in client.get("/cards/KD.svg").text
    assert client.get("/cards/KD.svg").text == str(svg.card("KD"))
    large = client.get("/cards/QS.svg?deck=large&letters=ru")
    assert large.status_code == 200 and ">Д<" in large.text and 'font-size="46"' in large.text
    assert client.get("/cards/QS.svg?deck=nope").text == str(svg.card("QS"))  # the default
    assert set(svg.DECKS) == {"classic", "four", "large"}
    with pytest.raises(ValueError):
        svg.card("QS", deck="nope")
    # every card of every deck is a well-formed drawing with its two indices
    for deck in svg.DECKS:
        for rank in RANKS:
            for suit in SUITS:
                root = ET.fromstring(svg.card(rank + suit, deck=deck, letters="ru"))
                texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
                assert len(texts) == 2 and texts[0] == texts[1], (deck, rank, suit)
    # four colours: four different inks; the others two
    assert len(set(svg.DECKS["four"].inks)) == 4
    assert len(set(svg.DECKS["classic"].inks)) == len(set(svg.DECKS["large"].inks)) == 2
