"""Browser tests of tournaments (issue 22, item 3): an account creates a
tournament with the page's form (a bad one is refused in the catalogue's
words), joins an arena that is about to start, and is sent by the tournament
page to its table, seated there by the entry's secret; the list and a
tournament's page (as a guest and as an entrant, with standings and bots) at
390x844 and 1280x800 in Russian and English have no horizontal overflow, no
untranslated key and no serious axe-core violation.

Accounts are made in the database beforehand and log in through the page's own
API.  Playwright drives Debian's chromium (skipped when it is not installed).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import browser_server, chromium
from svoi_kozyri.server.platform.tournament_director import TIMES_ENV
from svoi_kozyri.server.runtime.process import ServerProcess
from test_friends_browser import CALL, VIEW_OF, account_page
from test_learn_browser import axe_violations
from test_phone_layout_browser import OVERFLOW

expect = pytest.importorskip("playwright.sync_api").expect
expect.set_options(timeout=20_000)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

NAMES = ["Ann", "Bob"] + [f"L{lang}{w}" for lang in ("ru", "en") for w in (390, 1280)]
TIMES = {"interval_s": 0.3, "bot_delay_s": 0.3, "grace_s": 30.0}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    env = {TIMES_ENV: json.dumps(TIMES)}
    with browser_server(
        tmp_path_factory, "tour", seed=5, env=env, rate_limits=False, accounts=NAMES
    ) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


def _create(page: Any, **over: Any) -> str:
    body = {"name": "Layout cup", "kind": "arena", "players": 4, "starts": time.time() + 3600}
    body.update(over)
    if body["kind"] == "arena":
        body.setdefault("minutes", 20)
    status, got = page.evaluate(CALL, ["POST", "/api/tournaments", body])
    assert status == 201, got
    return str(got["tournament"]["id"])


def test_create_with_the_form_join_and_go_to_the_table(browser: Any, server: ServerProcess) -> None:
    ann = account_page(browser, server, "Ann")
    ann.click("#nav-tournaments")
    ann.wait_for_url("**/#/tournaments")
    expect(ann.locator("#tour-form")).to_be_visible()
    # a name of spaces: refused, in the catalogue's words, nothing created
    ann.fill("#tour-name", "   ")
    ann.click("#tour-form button[type=submit]")
    expect(ann.locator("#tour-form .error")).to_contain_text("tournament settings are not possible")
    assert ann.evaluate(CALL, ["GET", "/api/tournaments", None])[1]["upcoming"] == []
    ann.fill("#tour-name", "Evening Swiss")
    ann.check("#tour-form input[value=swiss]")
    ann.fill("#tour-rounds", "3")
    ann.select_option("#tour-players", "3")
    ann.locator("#tour-form .tour-bots label", has_text="Random").locator("input").check()
    ann.click("#tour-form button[type=submit]")
    ann.wait_for_url("**/#/tournaments/*")
    expect(ann.locator("#tour-name-title")).to_have_text("Evening Swiss")
    expect(ann.locator("#tour-standings")).to_contain_text("bot")
    ann.click("#tour-join")
    expect(ann.locator("#tour-withdraw")).to_be_visible()
    expect(ann.locator("#tour-standings")).to_contain_text("Ann")

    # an arena about to start: joining it sends Ann to her table once paired
    arena = _create(ann, name="Quick arena", players=2, starts=time.time() + 2, bots=["random"])
    ann.goto(f"{server.base}/#/tournaments/{arena}")
    ann.click("#tour-join")
    ann.wait_for_url("**/#/t/*", timeout=20_000)
    table_id = ann.url.split("#/t/")[1]
    expect(ann.locator("#status")).to_be_visible()
    view = ann.evaluate(VIEW_OF, table_id)  # the stored seat token is the entry's secret
    assert view["seats"][view["viewer"]]["name"] == "Ann"
    assert view["rules"]["loss_limit"] == 1
    # the table knows its tournament: its end leads back there (table.js)
    assert ann.evaluate(f"localStorage.getItem('sk.tour.{table_id}')") == arena
    ann.goto(f"{server.base}/#/tournaments/{arena}")
    expect(ann.locator("#tour-me a")).to_have_attribute("href", f"#/t/{table_id}")
    expect(ann.locator(".tour-games a", has_text="Watch")).to_have_count(1)
    assert not ann.errors, ann.errors
    ann.context.close()


def _fits_and_passes(page: Any) -> None:
    width, inner, wide = page.evaluate(OVERFLOW)
    assert width <= inner, wide
    assert axe_violations(page) == []
    text = page.locator("#app").inner_text()
    assert "tour." not in text and "error." not in text  # no untranslated key


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("size", [(390, 844), (1280, 800)])
def test_the_pages_fit_read_and_pass_axe(
    browser: Any, server: ServerProcess, lang: str, size: tuple[int, int]
) -> None:
    me = f"L{lang}{size[0]}"
    page = account_page(browser, server, me, size, lang)
    tid = _create(page, name=f"Кубок {me}", bots=["random", "easy", "medium"])
    _create(page, name="Swiss", kind="swiss", rounds=4, players=3)
    assert page.evaluate(CALL, ["POST", f"/api/tournaments/{tid}/join", {}])[0] == 200
    page.goto(server.base + "/#/tournaments")
    expect(page.locator("#tour-upcoming .tour-card").first).to_be_visible()
    expect(page.locator("#tour-form")).to_be_visible()
    _fits_and_passes(page)
    page.goto(f"{server.base}/#/tournaments/{tid}")
    expect(page.locator("#tour-standings tbody tr")).to_have_count(4)
    expect(page.locator("#tour-withdraw")).to_be_visible()
    _fits_and_passes(page)
    assert not page.errors, page.errors
    page.context.close()

    guest = account_page(browser, server, None, size, lang)
    guest.goto(f"{server.base}/#/tournaments/{tid}")
    expect(guest.locator("#tour-login-join")).to_be_visible()
    _fits_and_passes(guest)
    guest.goto(server.base + "/#/tournaments")
    expect(guest.locator("#tour-login-note")).to_be_visible()
    _fits_and_passes(guest)
    guest.context.close()
