"""The installable app, the themes and "your turn" called back, in the browser
(issue 22, items 5, 6 and 4).

* The page links a valid manifest; the service worker registers from the root and
  controls the page after a reload; offline, a page that cannot be loaded shows
  the offline page in the site's language; the worker's cache holds no API
  answer and nothing with a token.
* The settings in the header change the card images (deck, corner letters) and
  the table's colour, and the choice survives a reload; the panel fits the screen
  at 390x844 and 1280x800 in English and Russian.
* A hidden tab whose player gets the turn says so in its title and icon and, with
  notifications switched on and allowed, with a system notification through the
  service worker's registration; the title comes back when the tab is shown again.

Playwright drives Debian's chromium (skipped when it is not installed).  Every
wait is on a condition (Playwright's auto-waiting ``expect``), never a sleep.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import browser_server, chromium, notifications, post
from svoi_kozyri.server.runtime.process import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

expect = pytest.importorskip("playwright.sync_api").expect

OVERFLOW = """() => {
  const out = [...document.querySelectorAll('#site-header *')].filter((e) => {
    const b = e.getBoundingClientRect();
    return b.width > 0 && b.height > 0 && (b.right > innerWidth + 0.5 || b.left < -0.5);
  }).map((e) => e.id || e.className || e.tagName);
  return {scroll: document.documentElement.scrollWidth, width: innerWidth, out};
}"""
"""How wide the document is, and what of the header (the settings panel with it)
sticks out of the screen sideways."""

CACHED = """async () => {
  const urls = [];
  for (const name of await caches.keys()) {
    for (const req of await (await caches.open(name)).keys()) urls.push(req.url);
  }
  return urls;
}"""
"""Every address in the service worker's caches."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(tmp_path_factory, "pwa", seed=22, rate_limits=False) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


def new_page(browser: Any, size: tuple[int, int], lang: str = "en", init: str = "") -> Any:
    ctx = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, locale=lang, has_touch=size[0] < 500
    )
    if init:
        ctx.add_init_script(init)
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def src(card: str, russian: bool, deck: str) -> str:
    """The image address of ``card`` with Russian letters or not, in ``deck``."""
    query = (["letters=ru"] if russian else []) + ([f"deck={deck}"] if deck != "classic" else [])
    return f"/cards/{card}.svg" + (f"?{'&'.join(query)}" if query else "")


def open_settings(page: Any) -> None:
    """Open the settings panel (from the folded menu on a phone)."""
    if page.locator("#nav-menu").is_visible():
        page.click("#nav-menu")
    page.click("#settings-open")
    expect(page.locator("#settings-panel")).to_be_visible()


def test_installable_with_a_worker_and_an_offline_page(browser: Any, server: ServerProcess) -> None:
    page = new_page(browser, (390, 844))
    page.goto(server.base + "/")
    expect(page.locator("#play-now")).to_be_visible()
    assert page.get_attribute('link[rel="manifest"]', "href") == "/manifest.webmanifest"
    manifest = json.loads(page.evaluate("fetch('/manifest.webmanifest').then((r) => r.text())"))
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    assert {"192x192", "512x512"} <= {i["sizes"] for i in manifest["icons"]}
    # Chromium reads the manifest without complaint
    cdp = page.context.new_cdp_session(page)
    parsed = cdp.send("Page.getAppManifest")
    assert parsed["url"] == server.base + "/manifest.webmanifest"
    assert [e for e in parsed["errors"] if e.get("critical")] == [], parsed["errors"]
    # the worker registers from the root and, once active, controls the reloaded page
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == server.base + "/"
    page.reload()
    expect(page.locator("#play-now")).to_be_visible()
    assert page.evaluate("navigator.serviceWorker.controller.scriptURL") == server.base + "/sw.js"
    # and Chromium would offer to install it (a test browser's profile is off the
    # record, which only it reports)
    cdp = page.context.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [e["errorId"] for e in errors if e["errorId"] != "in-incognito"] == [], errors
    # the lobby called the API under the worker: nothing of it is cached
    page.goto(server.base + "/learn")
    expect(page.locator("#site-header")).to_be_visible()
    cached = page.evaluate(CACHED)
    assert any(u.endswith("/static/offline.html") for u in cached)
    assert not [u for u in cached if "/api/" in u or "token" in u or "/ws" in u], cached
    # offline: a page that cannot be loaded is the offline page, in the site's language
    page.context.set_offline(True)
    page.goto(server.base + "/deal?daily")
    expect(page.locator('#offline section[data-lang="en"]')).to_be_visible()
    expect(page.locator("#offline h1:visible")).to_have_text("You are offline")
    expect(page.locator('#offline section[data-lang="ru"]')).to_be_hidden()
    assert page.evaluate(OVERFLOW)["scroll"] <= 390
    page.evaluate("localStorage.setItem('sk.lang', 'ru')")
    page.reload()
    expect(page.locator("#offline h1:visible")).to_have_text("Нет соединения")
    page.context.set_offline(False)
    page.goto(server.base + "/")
    expect(page.locator("#play-now")).to_be_visible()
    assert not page.errors
    page.context.close()


@pytest.mark.parametrize("size", [(390, 844), (1280, 800)])
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_themes_change_the_cards_and_survive_a_reload(
    browser: Any, server: ServerProcess, size: tuple[int, int], lang: str
) -> None:
    page = new_page(browser, size, lang)
    page.goto(server.base + "/#/")
    hero = page.locator(".hero-fan img").first  # 6S
    court = page.locator(".hero-fan img").nth(1)  # QH
    russian = lang == "ru"  # the corner letters follow the language by default
    expect(hero).to_have_attribute("src", src("6S", russian, "classic"))
    expect(court).to_have_attribute("src", src("QH", russian, "classic"))
    open_settings(page)
    measure = page.evaluate(OVERFLOW)
    assert measure["out"] == [] and measure["scroll"] <= size[0], measure
    page.select_option("#deck-select", "four")
    expect(hero).to_have_attribute("src", src("6S", russian, "four"))
    # the other letters than the language's
    page.select_option("#letters-select", "en" if russian else "ru")
    expect(court).to_have_attribute("src", src("QH", not russian, "four"))
    page.select_option("#table-select", "dark")
    expect(page.locator("html")).to_have_attribute("data-table", "dark")
    # the images are there (the server draws the deck)
    page.wait_for_function(
        "() => [...document.querySelectorAll('.hero-fan img')]"
        ".every((i) => i.complete && i.naturalWidth > 0)"
    )
    page.reload()
    expect(court).to_have_attribute("src", src("QH", not russian, "four"))
    expect(page.locator("html")).to_have_attribute("data-table", "dark")
    open_settings(page)
    expect(page.locator("#deck-select")).to_have_value("four")
    expect(page.locator("#letters-select")).to_have_value("en" if russian else "ru")
    expect(page.locator("#table-select")).to_have_value("dark")
    page.select_option("#deck-select", "large")
    expect(hero).to_have_attribute("src", src("6S", not russian, "large"))
    measure = page.evaluate(OVERFLOW)
    assert measure["out"] == [] and measure["scroll"] <= size[0], measure
    # the same deck at the table and on a stand-alone page
    page.goto(server.base + "/learn")
    expect(page.locator("img.card-img").first).to_have_attribute("src", re.compile(r"deck=large$"))
    assert not page.errors
    page.context.close()


HIDDEN = """
Object.defineProperty(document, 'hidden', {configurable: true, get: () => !!window.__hidden});
Object.defineProperty(document, 'visibilityState', {configurable: true,
  get: () => (window.__hidden ? 'hidden' : 'visible')});
"""
"""Lets the test hide the tab (``window.__hidden``) as switching tabs would."""


def play_one(page: Any) -> None:
    """Make a move at this player's turn: a legal card (a beat takes a second card,
    the lead), else the pickup; with two players the turn then passes to the bot."""
    legal = page.locator("#hand .card.legal")
    if legal.count():
        legal.first.click()
        if page.locator("#hand .card.selected").count():
            page.locator("#hand .card.legal:not(.selected)").first.click()
        return
    page.click("#pickup-btn")
    if page.locator("#pickup-confirm").count():
        page.click("#pickup-confirm")


def test_a_hidden_tab_is_called_back_to_its_turn(browser: Any, server: ServerProcess) -> None:
    grant = post(
        server,
        "/api/tables",
        {
            "name": "Sleepy",
            "config": {
                "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
                "bot_delay_s": 0.2,
            },
        },
    )
    page = new_page(browser, (1280, 800), init=HIDDEN)
    page.context.grant_permissions(["notifications"], origin=server.base)
    page.goto(server.base + "/")
    expect(page.locator("#play-now")).to_be_visible()
    # notifications switched on in the settings (the browser allows them here)
    open_settings(page)
    page.check("#notify-toggle")
    expect(page.locator("#notify-toggle")).to_be_checked()
    assert page.evaluate("localStorage.getItem('sk.notify')") == "on"
    page.keyboard.press("Escape")
    page.evaluate(
        "([id, token]) => localStorage.setItem('sk.token.' + id, token)",
        [grant["table_id"], grant["token"]],
    )
    page.goto(server.base + f"/#/t/{grant['table_id']}")
    expect(page.locator("#status.mine")).to_be_visible(timeout=30000)
    assert page.title() == "Svoi Kozyri"
    # the player moves and leaves the tab; the bot answers and the turn comes back
    page.evaluate("window.__hidden = true")
    play_one(page)
    expect(page).to_have_title("● Your turn · Svoi Kozyri", timeout=30000)
    assert page.get_attribute('link[rel="icon"]', "href") == "/static/icons/turn.svg"
    # and a system notification, shown through the service worker's registration
    shown = notifications(page)
    assert shown == ["Your turn"]
    page.evaluate("window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))")
    expect(page).to_have_title("Svoi Kozyri")
    assert page.get_attribute('link[rel="icon"]', "href") == "/cards/AS.svg"
    assert not page.errors
    page.context.close()
