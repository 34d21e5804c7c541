"""Browser tests of the stand-alone pages (learn; analysis in test_analysis_web.py):
the tutorial completed end to end by clicking, progress kept over a reload,
axe-core finding no serious or critical violation, and the Russian catalogue used.

Playwright drives Debian's chromium (skipped when it is not installed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser_support import browser_server, chromium
from svoi_kozyri.server.features.learn import lessons
from svoi_kozyri.server.runtime.process import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(tmp_path_factory, "learn", seed=5) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


def new_page(browser: Any, width: int = 1280, height: int = 800, lang: str = "en") -> Any:
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale=lang)
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """Serious and critical axe-core violations of the page as it is now."""
    # evaluated through the DevTools protocol: the page's CSP forbids inline scripts
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    result = page.evaluate("async () => await axe.run(document)")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:3]}
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


def play_lesson_move(page: Any, move: str) -> None:
    words = move.split()
    if words[0] == "pickup":
        page.click("#pickup")
    elif words[0] == "lead":
        page.click(f'#lesson .pk-card[data-card="{words[1]}"]')
    else:
        page.click(f'#lesson .pk-card[data-card="{words[1]}"]')
        if len(words) == 4:
            page.click(f'#lesson .pk-card[data-card="{words[3]}"]')


@pytest.mark.parametrize("size", [(1280, 800), (390, 844)], ids=["desktop", "phone"])
def test_tutorial_end_to_end(browser: Any, server: ServerProcess, size: tuple[int, int]) -> None:
    page = new_page(browser, *size)
    page.goto(server.base + "/learn")
    page.wait_for_selector("#lesson")
    all_lessons = lessons()
    # a wrong card first: explained, nothing marked done
    first_respond = next(x for x in all_lessons if x.id == "own-suit-top")
    page.locator(".pk-lessons li button").nth(all_lessons.index(first_respond)).click()
    page.wait_for_selector(f'#lesson[data-lesson="{first_respond.id}"]')
    page.click('#lesson .pk-card[data-card="9S"]')
    assert "does not beat" in page.inner_text("#feedback")
    page.click("#retry")
    # every lesson, from the first, by clicking the expected move
    page.click(".pk-lessons li:first-child button")
    for i, x in enumerate(all_lessons):
        page.wait_for_selector(f'#lesson[data-lesson="{x.id}"]')
        play_lesson_move(page, x.accept[0])
        page.wait_for_selector("#feedback.right")
        if i < len(all_lessons) - 1:
            page.click("#next")
    page.wait_for_selector("#finished")
    assert f"{len(all_lessons)} of {len(all_lessons)}" in page.inner_text("#progress")
    page.reload()
    page.wait_for_selector("#finished")  # progress remembered
    assert not page.errors


def test_tutorial_wrong_but_legal_move_is_explained(browser: Any, server: ServerProcess) -> None:
    page = new_page(browser)
    page.goto(server.base + "/learn")
    page.wait_for_selector("#lesson")
    page.locator(".pk-lessons li button", has_text="avoid the draw").click()
    page.wait_for_selector('#lesson[data-lesson="last-card-draw"]')
    play_lesson_move(page, "beat QS lead 9S")
    text = page.inner_text("#feedback.wrong")
    assert "draw" in text and "jack" in text


def test_learn_accessibility_and_russian(browser: Any, server: ServerProcess) -> None:
    for lang, size in (("en", (1280, 800)), ("ru", (390, 844))):
        page = new_page(browser, *size, lang=lang)
        page.goto(server.base + "/learn")
        page.wait_for_selector("#lesson")
        if lang == "ru":
            assert "Учимся играть" in page.inner_text("h1")
            assert page.evaluate("document.documentElement.lang") == "ru"
        assert axe_violations(page) == []
        page.locator("#lesson .pk-card").first.click()
        page.wait_for_selector("#feedback")
        assert axe_violations(page) == []


def test_rules_pages_accessible_with_a_way_back(browser: Any, server: ServerProcess) -> None:
    for lang, size in (("en", (1280, 800)), ("ru", (390, 844)), ("ko", (390, 844))):
        page = new_page(browser, *size, lang=lang)
        page.goto(server.base + "/rules")
        assert page.url.endswith(f"/rules/{lang}")
        page.wait_for_selector("#site-header")  # the site's header replaced the static one
        assert axe_violations(page) == []
        if page.locator("#nav-menu").is_visible():  # a phone: the links are in the menu
            page.click("#nav-menu")
        page.click("#back-to-lobby")
        page.wait_for_url(server.base + "/")
