"""Browser tests of friends (issue 22, item 2): two browser contexts, one follows
the other and challenges them to a three-player table; the other sees the
challenge counted in the header's badge, accepts it on the friends page, and
both land at the one table, each in their own seat; a blocked player's challenge
is refused with the catalogue's words; the friends page (with lists, challenges
and the challenge form, and as a guest) at 390x844 and 1280x800 in Russian and
English has no horizontal overflow and no serious axe-core violation; a hidden
tab is called back when a challenge arrives (its title, a system notification).

Accounts are made in the database beforehand (the registration limit per
address is not what is tested here) and log in through the page's own API.
Playwright drives Debian's chromium (skipped when it is not installed).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import PASSWORD, browser_server, chromium, notifications
from svoi_kozyri.server.runtime.process import ServerProcess
from test_learn_browser import axe_violations
from test_phone_layout_browser import OVERFLOW

expect = pytest.importorskip("playwright.sync_api").expect
expect.set_options(timeout=20_000)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

NAMES = ["Ann", "Bob", "Cat", "Dan"] + [
    f"{p}{lang}{w}" for p in "LM" for lang in ("ru", "en") for w in (390, 1280)
]

LOGIN = """async ([name, password]) => {
  const me = await (await fetch('/api/account/me')).json();
  const r = await fetch('/api/account/login', {method: 'POST',
    headers: {'Content-Type': 'application/json', 'X-CSRF-Token': me.csrf},
    body: JSON.stringify({username: name, password})});
  return r.status;
}"""

CALL = """async ([method, path, body]) => {
  const csrf = (document.cookie.match(/(?:^|; )sk_csrf=([^;]+)/) || [])[1] || '';
  const r = await fetch(path, {method, headers: {'Content-Type': 'application/json',
    'X-CSRF-Token': decodeURIComponent(csrf)}, body: body ? JSON.stringify(body) : undefined});
  return [r.status, await r.json()];
}"""
"""A request as the page's account (its cookies and CSRF token)."""

VIEW_OF = """async (id) => {
  const token = localStorage.getItem('sk.token.' + id);
  const r = await fetch('/api/tables/' + id, {headers: {'X-Seat-Token': token}});
  return await r.json();
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(
        tmp_path_factory, "friends", seed=9, rate_limits=False, accounts=NAMES
    ) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


HIDDEN = """
Object.defineProperty(document, 'hidden', {configurable: true, get: () => !!window.__hidden});
Object.defineProperty(document, 'visibilityState', {configurable: true,
  get: () => (window.__hidden ? 'hidden' : 'visible')});
"""
"""Lets the test hide the tab (``window.__hidden``) as switching tabs would."""

NOTIFY = "localStorage.setItem('sk.notify', 'on');"
"""Notifications switched on in the settings (test_pwa_browser.py switches them on
through the settings panel)."""


def account_page(
    browser: Any,
    server: ServerProcess,
    name: str | None,
    size: tuple[int, int] = (1280, 800),
    lang: str = "en",
    init: str = "",
) -> Any:
    """A new browser context logged in as ``name`` (a guest for None), at the lobby."""
    ctx = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, locale=lang, reduced_motion="reduce"
    )
    if init:
        ctx.add_init_script(init)
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(server.base + "/")
    # the bar's own account check sets the CSRF cookie first (two checks at once
    # could each set a different one)
    expect(page.locator("#account-bar[data-checked]")).to_have_count(1)
    if name is not None:
        assert page.evaluate(LOGIN, [name, PASSWORD]) == 200
        page.reload()
        expect(page.locator("#account-name")).to_have_text(name)
    return page


def _friends(page: Any) -> None:
    page.click("#nav-friends")
    page.wait_for_url("**/#/friends")


def test_follow_challenge_accept_both_at_the_table(browser: Any, server: ServerProcess) -> None:
    # Bob's tab is open but hidden, with notifications switched on and allowed
    bob = account_page(browser, server, "Bob", init=HIDDEN + NOTIFY)
    bob.context.grant_permissions(["notifications"], origin=server.base)
    bob.evaluate("window.__hidden = true")
    ann = account_page(browser, server, "Ann")
    _friends(ann)
    ann.fill("#friend-name", "bob")
    ann.click("#follow-btn")
    row = ann.locator("#following .friend-row", has_text="Bob")
    expect(row).to_contain_text("online")
    row.locator(".challenge-btn").click()
    expect(ann.locator("#challenge-title")).to_have_text("Challenge Bob")
    ann.select_option("#ch-players", "3")
    ann.select_option("#ch-bot", "random")
    ann.fill("#ch-losses", "2")
    ann.click("#challenge-send")
    expect(ann.locator("#challenges .challenge.outgoing")).to_contain_text("waiting")

    # the hidden tab is called back: its title, and a system notification
    expect(bob).to_have_title("● Ann challenges you · Svoi Kozyri", timeout=15_000)
    shown = notifications(bob)
    assert shown == ["Ann challenges you"]
    bob.evaluate("window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))")
    expect(bob).to_have_title("Svoi Kozyri")
    expect(bob.locator("#nav-friends .friends-badge")).to_have_text("1")
    _friends(bob)
    incoming = bob.locator("#challenges .challenge.incoming")
    expect(incoming).to_contain_text("Ann challenges you")
    expect(incoming).to_contain_text("3 players")
    expect(bob.locator("#followers .friend-row", has_text="Ann")).to_be_visible()
    incoming.locator(".accept-btn").click()
    bob.wait_for_url("**/#/t/*")
    ann.wait_for_url("**/#/t/*", timeout=10_000)  # its poll learns the table
    table_id = bob.url.split("#/t/")[1]
    assert ann.url.split("#/t/")[1] == table_id
    for page, name, seat in ((ann, "Ann", 0), (bob, "Bob", 1)):
        expect(page.locator("#status")).to_be_visible()
        view = page.evaluate(VIEW_OF, table_id)
        assert view["viewer"] == seat and view["seats"][seat]["name"] == name
        assert [s["kind"] for s in view["seats"]] == ["human", "human", "bot"]
        assert view["rules"]["loss_limit"] == 2
        assert not page.errors, page.errors
    ann.context.close()
    bob.context.close()


def test_blocked_cannot_challenge(browser: Any, server: ServerProcess) -> None:
    dan = account_page(browser, server, "Dan")
    _friends(dan)
    dan.fill("#friend-name", "Cat")
    dan.click("#follow-btn")
    row = dan.locator("#following .friend-row", has_text="Cat")
    row.get_by_role("button", name="Block").click()
    expect(dan.locator("#blocked")).to_contain_text("Cat")
    expect(dan.locator("#following")).to_have_count(0)

    cat = account_page(browser, server, "Cat", lang="ru")
    _friends(cat)
    cat.fill("#friend-name", "Dan")
    cat.click("#challenge-name-btn")
    cat.click("#challenge-send")
    expect(cat.locator("#challenge-error")).to_have_text("Этот игрок не принимает от вас такое.")
    cat.click("#challenge-close")
    cat.click("#follow-btn")
    expect(cat.locator("#friends-error")).to_have_text("Этот игрок не принимает от вас такое.")
    assert cat.evaluate(CALL, ["GET", "/api/challenges", None]) == [
        200,
        {"incoming": [], "outgoing": []},
    ]
    assert not cat.errors and not dan.errors
    cat.context.close()
    dan.context.close()


def _fits_and_passes(page: Any, axe: bool = True) -> None:
    width, inner, wide = page.evaluate(OVERFLOW)
    assert width <= inner, wide
    if axe:
        assert axe_violations(page) == []
    text = page.locator("#app").inner_text()
    assert "friends." not in text and "error." not in text  # no untranslated key


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("size", [(390, 844), (1280, 800)])
def test_the_page_fits_reads_and_passes_axe(
    browser: Any, server: ServerProcess, lang: str, size: tuple[int, int]
) -> None:
    me, other = f"L{lang}{size[0]}", f"M{lang}{size[0]}"
    guest = account_page(browser, server, None, size, lang)
    guest.goto(server.base + "/#/friends")
    expect(guest.locator("#friends-guest")).to_be_visible()
    _fits_and_passes(guest)
    guest.click("#friends-login")
    expect(guest.locator("#account-form")).to_be_visible()
    guest.context.close()

    them = account_page(browser, server, other, size, lang)
    page = account_page(browser, server, me, size, lang)
    # a follow each way, a challenge each way: every part of the page is shown
    assert them.evaluate(CALL, ["POST", "/api/friends/follow", {"name": me}])[0] == 200
    assert page.evaluate(CALL, ["POST", "/api/friends/follow", {"name": other}])[0] == 200
    assert them.evaluate(CALL, ["POST", "/api/challenges", {"to": me, "players": 4}])[0] == 201
    page.goto(server.base + "/#/friends")
    expect(page.locator("#following .friend-row")).to_have_count(1)
    expect(page.locator("#challenges .challenge.incoming")).to_have_count(1)
    page.locator("#following .challenge-btn").click()
    page.select_option("#ch-players", "4")
    expect(page.locator("#ch-bot")).to_be_visible()
    _fits_and_passes(page)
    page.click("#challenge-send")
    expect(page.locator("#challenges .challenge.outgoing")).to_have_count(1)
    _fits_and_passes(page, axe=False)  # the same parts as above, one row more
    assert not page.errors and not them.errors
    page.context.close()
    them.context.close()
