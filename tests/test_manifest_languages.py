"""The web app manifest speaks the browser's language (issue 22, item 5): an
install prompt and the installed app's name and description are worded from the
pages' catalogue in the language ``Accept-Language`` asks for (as the rules page
chooses it), English otherwise; the app's identity is the same in every language,
and caches keep one manifest per language (``Vary: Accept-Language``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from svoi_kozyri.server.web.app import STATIC_DIR, create_app
from svoi_kozyri.server.web.routes_site import manifest

pytestmark = pytest.mark.timeout(60)

LANGUAGES = ("en", "ru", "it", "es", "nl", "pt", "ko")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("manifest") / "web.db"
    with TestClient(create_app(f"sqlite:///{db}", seed=22)) as c:
        yield c


def catalogue(lang: str) -> dict[str, str]:
    words: dict[str, str] = json.loads((STATIC_DIR / "i18n" / f"{lang}.json").read_text("utf-8"))
    return words


@pytest.mark.parametrize(
    ("accept", "lang"),
    [
        (None, "en"),
        ("ru-RU,ru;q=0.9,en-US;q=0.8,en;q=0.7", "ru"),
        ("ko", "ko"),
        ("de-DE,de;q=0.9,it;q=0.5", "it"),
        ("en;q=0.2, pt-BR", "pt"),
        ("nl-BE", "nl"),
        ("es-419,es;q=0.9", "es"),
        ("fr-FR,de", "en"),
        ("*;q=x, ???", "en"),
    ],
)
def test_the_manifest_is_in_the_browsers_language(
    client: TestClient, accept: str | None, lang: str
) -> None:
    headers = {"Accept-Language": accept} if accept is not None else {}
    r = client.get("/manifest.webmanifest", headers=headers)
    assert r.status_code == 200
    assert r.headers["vary"].lower().count("accept-language") == 1
    m = json.loads(r.text)
    assert m == manifest(lang)
    words = catalogue(lang)
    assert m["lang"] == lang and m["dir"] == "ltr"
    assert m["name"] == m["short_name"] == words["app.title"]
    assert m["description"] == words["manifest.description"]
    assert m["id"] == "/" and m["start_url"] == "/"  # one app whatever the language


def test_every_language_has_its_own_description() -> None:
    english = manifest("en")["description"]
    assert english.startswith("The Russian card game")
    described = {lang: manifest(lang)["description"] for lang in LANGUAGES}
    assert len(set(described.values())) == len(LANGUAGES), described
    assert "Свои козыри" in described["ru"] and manifest("ru")["name"] == "Свои козыри"
    # the rest of the manifest does not depend on the language
    base = {
        k: v
        for k, v in manifest("en").items()
        if k not in ("name", "short_name", "description", "lang")
    }
    for lang in LANGUAGES:
        assert {k: v for k, v in manifest(lang).items() if k in base} == base
    assert {p.stem for p in Path(STATIC_DIR, "i18n").glob("*.json")} == set(LANGUAGES)
