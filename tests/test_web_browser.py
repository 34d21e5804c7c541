"""Browser end-to-end tests: Playwright driving Debian's chromium against a real server.

Skipped with a clear reason when chromium is not installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

from svoi_kozyri.server.process import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    tmp = tmp_path_factory.mktemp("web")
    with ServerProcess(f"sqlite:///{tmp / 'web.db'}", seed=3, log_path=tmp / "s.log") as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def _page(browser: Any, server: ServerProcess, width: int = 1024) -> Any:
    ctx = browser.new_context(viewport={"width": width, "height": 900})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(server.base + "/")
    return page


def _create(page: Any, name: str, seats: list[str], length: int = 1) -> None:
    page.fill("#player-name", name)
    page.select_option("#players", str(len(seats) + 1))
    for i, s in enumerate(seats, start=1):
        page.select_option(f"#seat-{i}", s)
    page.select_option("#bot_delay", "0")
    page.fill("#length", str(length))
    page.click("#create-btn")
    page.wait_for_selector("#table")


def _log_len(page: Any) -> int:
    n: int = page.locator("#log li").count()
    return n


def _take_turn(page: Any) -> None:
    """One turn by clicking: the first legal card (and a lead after a beat) or pick up."""
    before = _log_len(page)
    legal = page.locator("#hand .card.legal")
    if legal.count():
        legal.first.click()
        if page.locator("#hand .card.selected").count():
            page.locator("#hand .card.legal").first.click()
    else:
        page.click("#pickup-btn")
    page.wait_for_function(
        f"document.querySelectorAll('#log li').length > {before}"
        " || document.querySelector('#hand-over, #session-over')"
    )


def _wait_turn_or_end(page: Any) -> str:
    page.wait_for_selector("#status.mine, #hand-over, #session-over", timeout=60_000)
    if page.locator("#hand-over, #session-over").count():
        return "end"
    return "turn"


def test_play_a_whole_hand_against_three_bots(browser: Any, server: ServerProcess) -> None:
    page = _page(browser, server, width=375)  # a phone screen
    assert page.evaluate("document.documentElement.scrollWidth") <= 375 + 1  # the lobby fits
    bot = page.evaluate("fetch('/api/bots').then(r => r.json())")["default"]
    _create(page, "Ann", [f"bot:{bot}"] * 3)
    assert page.locator("#hand .card").count() > 0
    assert page.locator("#hand .card.trump").count() >= 1  # the own six at least
    turns = 0
    while _wait_turn_or_end(page) == "turn":
        _take_turn(page)
        turns += 1
        assert turns < 400
    banner = page.locator("#hand-over, #session-over").first.inner_text()
    assert "loses" in banner or "draw" in banner or "Session over" in banner
    assert turns > 0 and not page.errors
    # the page fits a phone: no horizontal scrolling
    assert page.evaluate("document.documentElement.scrollWidth") <= 375 + 1
    page.context.close()


def test_two_players_join_by_invite_and_reload_keeps_the_seat(
    browser: Any, server: ServerProcess
) -> None:
    a = _page(browser, server)
    _create(a, "Ann", ["human"], length=3)
    invite = a.input_value("#invite-link")
    assert "#/t/" in invite
    b = _page(browser, server)
    b.goto(invite)
    b.wait_for_selector("#join-btn")  # the join panel, not the lobby's name field
    b.fill("#player-name", "Bob")
    b.click("#join-btn")
    b.wait_for_selector("#hand .card")
    a.wait_for_selector("#hand .card")
    assert "Bob" in a.locator(".seats").inner_text()
    moves = 0
    reloaded = False
    while moves < 8:
        for page in (a, b):
            if page.locator("#status.mine").count():
                if moves == 4 and not reloaded:
                    hand = sorted(
                        page.locator("#hand .card").evaluate_all(
                            "els => els.map(e => e.dataset.card)"
                        )
                    )
                    page.reload()
                    page.wait_for_selector("#status.mine", timeout=30_000)
                    again = sorted(
                        page.locator("#hand .card").evaluate_all(
                            "els => els.map(e => e.dataset.card)"
                        )
                    )
                    assert again == hand
                    assert "(you)" in page.locator(".me").inner_text()
                    reloaded = True
                _take_turn(page)
                moves += 1
        if a.locator("#hand-over, #session-over").count():
            break
        a.wait_for_timeout(50)
    assert reloaded and moves >= 5
    # a spectator sees the table without any hand
    c = _page(browser, server)
    c.goto(invite + "?watch")
    c.wait_for_selector("#status")
    assert c.locator("#hand").count() == 0
    assert "spectator" in c.locator(".table-head").inner_text()
    for p in (a, b, c):
        assert not p.errors
        p.context.close()


def test_rules_page_and_replay(browser: Any, server: ServerProcess) -> None:
    page = _page(browser, server)
    page.goto(server.base + "/rules")
    assert "How to play here" in page.inner_text("body")
    page.goto(server.base + "/")
    bot = page.evaluate("fetch('/api/bots').then(r => r.json())")["default"]
    _create(page, "Cy", [f"bot:{bot}"])
    while _wait_turn_or_end(page) == "turn":
        _take_turn(page)
    page.goto(page.url.split("#")[0] + "#/r/" + page.url.split("#/t/")[1])
    page.wait_for_selector("#replay-step")
    page.click("#replay-first")
    assert page.inner_text("#replay-step").startswith("step 1 /")
    page.click("#replay-next")
    assert page.inner_text("#replay-step").startswith("step 2 /")
    assert not page.errors
    page.context.close()
