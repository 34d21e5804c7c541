"""Browser test of accounts: a guest creates an account from the header (claiming
the guest seat), plays a rated game, and finds it on the profile page with the
rating chart; the replay opened from there shows the player's own cards; the
live lobby lists who is online; log out everywhere.  Playwright with Debian's
chromium at phone width (skipped when chromium is missing)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import browser_server, chromium
from svoi_kozyri.server.runtime.process import ServerProcess

expect = pytest.importorskip("playwright.sync_api").expect
expect.set_options(timeout=30_000)  # a loaded 2-core machine: wait, do not give up at 5 s

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(tmp_path_factory, "web", seed=5) as srv:
        yield srv


def _create(page: Any, players: int, bots: list[str], rated: bool) -> str:
    page.goto(page.url.split("#")[0] + "#/")
    page.wait_for_selector("#create-btn", state="attached")
    if not page.evaluate("document.querySelector('#new-table').open"):
        page.click("#new-table summary")  # the full form is folded away under Play now
    if page.is_editable("#player-name"):  # logged in, the account's name is shown instead
        page.fill("#player-name", "Guesty")
    page.select_option("#players", str(players))
    for i, b in enumerate(bots, start=1):
        page.select_option(f"#seat-{i}", f"bot:{b}")
    page.select_option("#bot_delay", "0")
    page.fill("#length", "1")
    if rated:
        page.check("#rated")
    page.click("#create-btn")
    page.wait_for_selector("#table")
    return str(page.url.split("#/t/")[1])


def _wait_js(page: Any, expr: str, timeout_s: float = 30.0) -> None:
    """Poll ``expr`` until it is truthy (page.evaluate runs through the DevTools
    protocol, so the page's CSP, which forbids eval, does not stop it)."""
    for _ in range(int(timeout_s * 20)):
        if page.evaluate(expr):
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"timed out waiting for {expr}")


def _click_card(card: Any) -> None:
    # a fanned card shows its left strip (with the index): click there, as a player
    # would, since the next card covers the rest of it
    card.click(position={"x": 8, "y": 30})


def _play_until_over(page: Any) -> None:
    for _ in range(400):
        page.wait_for_selector("#status.mine, #hand-over, #session-over", timeout=60_000)
        if page.locator("#session-over").count():
            return
        if page.locator("#hand-over").count():
            page.wait_for_timeout(300)
            continue
        # the table's version grows with every stored event (a move, a deal)
        before = page.get_attribute("#table", "data-version")
        legal = page.locator("#hand .card.legal")
        if legal.count():
            _click_card(legal.first)
            if page.locator("#hand .card.selected").count():
                _click_card(page.locator("#hand .card.legal:not(.selected)").first)
        else:
            many = int(re.sub(r"\D", "", page.inner_text("#pickup-btn"))) >= 6
            page.click("#pickup-btn")
            if many:  # a pickup of six cards or more asks first
                page.click("#pickup-confirm")
        page.wait_for_selector(
            f"#table:not([data-version='{before}']), #hand-over, #session-over",
            state="attached",
        )
    raise AssertionError("the session did not end")


def test_account_rated_game_profile_chart_and_replay(server: ServerProcess) -> None:
    with chromium() as browser:
        ctx = browser.new_context(viewport={"width": 375, "height": 800})
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.base + "/")
        guest_table = _create(page, 2, ["random"], rated=False)

        # create the account from the header: the guest seat becomes the account's
        page.goto(server.base + "/#/")
        page.click("#account-open")
        page.fill("#account-username", "Alice")
        page.fill("#account-password", "correct horse battery")
        page.click("#register-btn")
        page.wait_for_selector("#account-name")
        assert page.inner_text("#account-name") == "Alice"
        expect(page.locator("#account-note")).to_contain_text("1 guest seat")
        _wait_js(
            page,
            "!!document.querySelector('#lobby-online') &&"
            " document.querySelector('#lobby-online').innerText.includes('Alice')",
        )

        assert page.locator("#lobby-online a").all_inner_texts() == ["Alice"]
        rated_table = _create(page, 2, ["random"], rated=True)
        _play_until_over(page)

        page.goto(server.base + "/#/u/Alice")
        page.wait_for_selector("#profile-name")
        for _ in range(50):  # results are recorded within a few seconds
            if page.locator("#rating-chart circle").count():
                break
            page.wait_for_timeout(300)
            page.reload()
            page.wait_for_selector("#profile-name")
        assert page.locator("#rating-chart circle").count() == 1
        assert page.locator("#profile-ratings tr[data-players='2']").count() == 1
        page.wait_for_selector(f".profile-game[data-table='{rated_table}']")
        assert page.locator(f".profile-game[data-table='{guest_table}']").count() == 1
        assert page.evaluate("document.documentElement.scrollWidth") <= 375 + 1

        # the replay opened from the profile: the account's own cards, no token needed
        page.evaluate(f"localStorage.removeItem('sk.token.{rated_table}')")
        page.click(f".profile-game[data-table='{rated_table}'] a")
        _wait_js(page, "!!document.querySelector('#replay-step')?.textContent")
        page.click("#replay-first")
        page.wait_for_selector("#hand .card")
        assert page.locator("#hand .card").count() > 0

        # a bot's profile is labelled
        page.goto(server.base + "/#/u/random")
        page.wait_for_selector("#bot-badge")

        # log out everywhere, from the own profile
        page.goto(server.base + "/#/u/Alice")
        page.click("#logout-all-btn")
        page.wait_for_selector("#account-open")
        expect(page.locator("#logout-all-note")).to_contain_text("1 device")
        assert not errors, errors
        ctx.close()
