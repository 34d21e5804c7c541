"""Per-account preferences in the browser (issue 22, item 6; static/prefs.js):
the look of the game follows a logged-in player to another browser.

One browser context creates an account (what it chose as a guest goes with it),
then picks the four-colour deck, the dark table and Russian; a fresh context
shows the defaults until the same account logs in there, then the account's
choices: the settings panel, the card images (the server draws the four-colour
deck) and the page's language.  That browser keeps them after a reload and
after logging out, and a change made logged out stays in that browser.  A change
whose saves the network fails is kept by the account's next page and saved
from there.

Playwright drives Debian's chromium (skipped when it is not installed); every
wait is on a condition, never a sleep.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import browser_server, chromium
from svoi_kozyri.server.runtime.process import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

expect = pytest.importorskip("playwright.sync_api").expect

PASSWORD = "correct horse battery"
PATH = "/api/account/prefs"

PREFS = """async () => {
  const r = await fetch('/api/account/prefs', {credentials: 'same-origin'});
  return r.ok ? (await r.json()).prefs : null;
}"""
"""What the account has saved, asked from inside the page (its session cookie)."""

DECK_IMAGES = """(deck) => {
  const imgs = [...document.querySelectorAll('.hero-fan img')];
  return imgs.length > 0 && imgs.every((i) => i.getAttribute('src').includes('deck=' + deck)
    && i.complete && i.naturalWidth > 0);
}"""
"""Every card of the lobby's fan is drawn in ``deck`` and has loaded."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(tmp_path_factory, "prefs", seed=23) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


def new_page(browser: Any, size: tuple[int, int]) -> Any:
    ctx = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, locale="en", has_touch=size[0] < 500
    )
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def open_settings(page: Any) -> None:
    """Open the settings panel (from the folded menu on a phone)."""
    if page.locator("#nav-menu").is_visible():
        page.click("#nav-menu")
    if not page.locator("#settings-panel").is_visible():
        page.click("#settings-open")
    expect(page.locator("#settings-panel")).to_be_visible()


def close_menus(page: Any) -> None:
    page.keyboard.press("Escape")
    if (
        page.locator("#nav-menu").is_visible()
        and page.locator("#nav-menu").get_attribute("aria-expanded") == "true"
    ):
        page.click("#nav-menu")


def account_form(page: Any, name: str, button: str) -> None:
    """Log in or register ``name`` from the header's account bar (outside the
    folded menu, on a phone too)."""
    page.click("#account-open")
    page.fill("#account-username", name)
    page.fill("#account-password", PASSWORD)
    page.click(button)
    expect(page.locator("#account-name")).to_have_text(name)


def refuse_saves(route: Any) -> None:
    """The network failing every save (a reading goes through)."""
    if route.request.method == "PUT":
        route.abort()
    else:
        route.continue_()


def saved(page: Any, want: dict[str, Any], timeout_s: float = 10.0) -> None:
    """Wait until the account holds ``want`` (a save follows a change shortly).
    Polled from Python: ``wait_for_function`` does not wait for a promise."""
    deadline = time.monotonic() + timeout_s
    while True:
        got = page.evaluate(PREFS)
        if got is not None and all(got.get(k) == v for k, v in want.items()):
            return
        assert time.monotonic() < deadline, f"the account holds {got}, not {want}"
        page.wait_for_timeout(100)


def test_the_look_follows_the_account_to_a_fresh_browser(
    browser: Any, server: ServerProcess
) -> None:
    first = new_page(browser, (1280, 800))
    first.goto(server.base + "/#/")
    expect(first.locator("#account-bar[data-checked]")).to_be_attached()
    # chosen as a guest: goes with the account created here
    open_settings(first)
    first.select_option("#letters-select", "ru")
    close_menus(first)
    account_form(first, "Painter", "#register-btn")
    saved(first, {"letters": "ru"})
    # chosen logged in: saved to the account
    open_settings(first)
    first.select_option("#deck-select", "four")
    first.select_option("#table-select", "dark")
    close_menus(first)
    first.select_option("#lang-select", "ru")
    expect(first.locator("html")).to_have_attribute("lang", "ru")
    saved(first, {"deck": "four", "table": "dark", "lang": "ru", "letters": "ru"})
    first.wait_for_function(DECK_IMAGES, arg="four")
    assert not first.errors

    # a fresh browser: its own defaults until the account logs in
    second = new_page(browser, (390, 844))
    second.goto(server.base + "/#/")
    expect(second.locator("#account-bar[data-checked]")).to_be_attached()
    hero = second.locator(".hero-fan img").nth(1)  # QH
    expect(hero).to_have_attribute("src", "/cards/QH.svg")
    expect(second.locator("html")).to_have_attribute("lang", "en")
    account_form(second, "Painter", "#login-btn")
    expect(hero).to_have_attribute("src", "/cards/QH.svg?letters=ru&deck=four")
    second.wait_for_function(DECK_IMAGES, arg="four")
    expect(second.locator("html")).to_have_attribute("data-table", "dark")
    expect(second.locator("html")).to_have_attribute("lang", "ru")
    open_settings(second)
    expect(second.locator("#deck-select")).to_have_value("four")
    expect(second.locator("#table-select")).to_have_value("dark")
    expect(second.locator("#letters-select")).to_have_value("ru")
    expect(second.locator("#lang-select")).to_have_value("ru")
    # the four-colour deck as the server draws it: blue diamonds
    drawn = second.evaluate("fetch('/cards/7D.svg?deck=four').then((r) => r.text())")
    assert "#1565c0" in drawn.lower()

    # the browser keeps them: after a reload, and after logging out
    second.reload()
    expect(hero).to_have_attribute("src", "/cards/QH.svg?letters=ru&deck=four")
    expect(second.locator("html")).to_have_attribute("data-table", "dark")
    second.click("#logout-btn")
    expect(second.locator("#account-open")).to_be_attached()
    close_menus(second)
    second.reload()
    expect(hero).to_have_attribute("src", "/cards/QH.svg?letters=ru&deck=four")
    expect(second.locator("html")).to_have_attribute("data-table", "dark")
    # logged out, a change stays in this browser; the account keeps its choice
    open_settings(second)
    second.select_option("#deck-select", "large")
    expect(hero).to_have_attribute("src", "/cards/QH.svg?letters=ru&deck=large")
    first.reload()
    expect(first.locator("#account-name")).to_have_text("Painter")
    assert first.evaluate(PREFS)["deck"] == "four"
    first.wait_for_function(DECK_IMAGES, arg="four")

    # a change the page could not send (the network fails every save, on this
    # page and as it is left) is kept by the account's next page, and sent by
    # the first page that can
    open_settings(first)
    first.route("**/api/account/prefs", refuse_saves)
    with first.expect_request(lambda r: r.method == "PUT" and r.url.endswith(PATH)):
        first.select_option("#deck-select", "large")
    with first.expect_response(lambda r: r.request.method == "GET" and r.url.endswith(PATH)):
        first.goto(server.base + "/learn")
    expect(first.locator("img.card-img").first).to_have_attribute("src", re.compile("deck=large$"))
    assert first.evaluate("localStorage.getItem('sk.deck')") == "large"
    assert first.evaluate(PREFS)["deck"] == "four"
    first.unroute("**/api/account/prefs")
    first.goto(server.base + "/#/")
    first.wait_for_function(DECK_IMAGES, arg="large")
    saved(first, {"deck": "large"})
    assert not first.errors and not second.errors
    first.context.close()
    second.context.close()
