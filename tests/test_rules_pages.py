"""The rules page in seven languages: served per language (and by the browser's
Accept-Language at /rules), each with the way back to the lobby, the same
sections as the English one, and none of the specification's jargon."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from svoi_kozyri.server.features.learn import RULES_LANGUAGES, rules_language
from svoi_kozyri.server.web.app import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    tmp = tmp_path_factory.mktemp("rules")
    with TestClient(create_app(f"sqlite:///{tmp / 'w.db'}")) as c:
        yield c


def sections(html: str) -> list[str]:
    return re.findall(r'<h2 id="([a-z]+)">', html)


@pytest.mark.parametrize("lang", RULES_LANGUAGES)
def test_rules_page_in_each_language(client: TestClient, lang: str) -> None:
    r = client.get(f"/rules/{lang}")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    html = r.text
    assert f'<html lang="{lang}">' in html
    assert 'href="/" id="back-to-lobby"' in html, "a way back to the lobby"
    assert 'href="/learn"' in html
    for other in RULES_LANGUAGES:
        assert f'href="/rules/{other}"' in html
    assert "SPEC" not in html and "C9" not in html and "[T3]" not in html
    english = client.get("/rules/en").text
    assert sections(html) == sections(english) and len(sections(html)) >= 8
    text = re.sub(r"<[^>]+>", " ", html)
    for fact in ("36", "3", "5"):
        assert fact in text  # the deck and the pickup counts are stated


def test_rules_follow_the_browser_language(client: TestClient) -> None:
    r = client.get(
        "/rules", headers={"Accept-Language": "ru-RU,ru;q=0.9,en;q=0.8"}, follow_redirects=False
    )
    assert r.status_code == 307 and r.headers["location"] == "/rules/ru"
    assert client.get("/rules").url.path == "/rules/en"
    assert "How to play" in client.get("/rules").text
    assert client.get("/rules/xx").status_code == 404
    assert rules_language("de-DE, ko;q=0.5, it;q=0.7") == "it"
    assert rules_language("pt-BR") == "pt"
    assert rules_language("*") == "en" and rules_language(None) == "en"
    assert rules_language("ko;q=bad, es") == "es"


def test_rules_files_exist_for_every_language() -> None:
    static = Path(__file__).resolve().parent.parent / "src" / "svoi_kozyri" / "web" / "static"
    assert sorted(p.stem for p in (static / "rules").glob("*.html")) == sorted(RULES_LANGUAGES)
