"""Browser tests of "Play with people" (issue 22 item 1): two, three and four
browser contexts pressing *Find players* with the same choices land at one table
within 2 s of the last press, each in its own seat with its own cards; the panel
at 390x844 and 1280x800 in Russian and English has no horizontal overflow and
no serious axe-core violation; the wait shows the range and the bots' countdown;
stopping the search takes the seek out of the list other players see.

Playwright drives Debian's chromium (skipped when it is not installed).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import browser_server, chromium
from svoi_kozyri.server.runtime.process import ServerProcess
from test_learn_browser import axe_violations
from test_phone_layout_browser import OVERFLOW

expect = pytest.importorskip("playwright.sync_api").expect
expect.set_options(timeout=30_000)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(tmp_path_factory, "pairing", seed=5, rate_limits=False) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


VIEW_OF = """async (id) => {
  const token = localStorage.getItem('sk.token.' + id);
  const r = await fetch('/api/tables/' + id, {headers: {'X-Seat-Token': token}});
  return await r.json();
}"""


def _page(browser: Any, size: tuple[int, int] = (1280, 800), lang: str = "en") -> Any:
    ctx = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, locale=lang, reduced_motion="reduce"
    )
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def _ready(page: Any, server: ServerProcess, name: str, players: int, preset: str) -> None:
    page.goto(server.base + "/")
    page.fill("#player-name", name)
    page.select_option("#seek-players", str(players))
    page.select_option("#seek-preset", preset)
    page.select_option("#seek-wait-s", "")  # never bots: only people may fill the table


@pytest.mark.parametrize("players", [2, 3, 4])
def test_people_pressing_play_are_seated_together(
    browser: Any, server: ServerProcess, players: int
) -> None:
    preset = {2: "standard", 3: "one_hand", 4: "whole_pile"}[players]
    pages = [_page(browser) for _ in range(players)]
    names = [f"P{players}x{i}" for i in range(players)]
    for page, name in zip(pages, names, strict=True):
        _ready(page, server, name, players, preset)
    for page in pages[:-1]:
        page.click("#seek-start")
        expect(page.locator("#seek-wait")).to_be_visible()
    # the others see the waiting players listed
    expect(pages[-1].locator(".seek-item")).to_have_count(players - 1)
    start = time.monotonic()
    pages[-1].click("#seek-start")
    for page in pages:
        page.wait_for_url("**/#/t/*", timeout=10_000)
    elapsed = time.monotonic() - start
    tables = {page.url.split("#/t/")[1] for page in pages}
    assert len(tables) == 1, tables
    assert elapsed < 2.0 + 1.0, elapsed  # 2 s, and the browsers' own round trips
    seats = set()
    (table_id,) = tables
    for page, name in zip(pages, names, strict=True):
        expect(page.locator("#status")).to_be_visible()
        # each page holds its own seat, by the secret its seek was made with
        view = page.evaluate(VIEW_OF, table_id)
        assert view["viewer"] is not None and view["seats"][view["viewer"]]["name"] == name
        assert len(view["hand"]["hand"]) > 0  # its own cards
        seats.add(view["viewer"])
        assert not page.errors, page.errors
    assert seats == set(range(players))
    for page in pages:
        page.context.close()


def test_the_wait_and_stopping_it(browser: Any, server: ServerProcess) -> None:
    ann, bob = _page(browser), _page(browser)
    _ready(ann, server, "Ann", 4, "blind_trumps")
    ann.select_option("#seek-wait-s", "120")
    ann.click("#seek-start")
    status = ann.locator("#seek-status")
    expect(status).to_contain_text("ratings 1350–1650")
    expect(status).to_contain_text("bots in 1")
    bob.goto(server.base + "/")
    expect(bob.locator(".seek-item", has_text="Ann")).to_have_count(1)
    ann.click("#seek-cancel")
    expect(ann.locator("#seek-form")).to_be_visible()
    bob.reload()
    expect(bob.locator("#open-seeks-empty")).to_be_visible()
    assert not ann.errors and not bob.errors
    ann.context.close()
    bob.context.close()


@pytest.mark.parametrize("lang", ["ru", "en"])
@pytest.mark.parametrize("size", [(390, 844), (1280, 800)])
def test_the_panel_fits_reads_and_passes_axe(
    browser: Any, server: ServerProcess, lang: str, size: tuple[int, int]
) -> None:
    page = _page(browser, size, lang)
    page.goto(server.base + "/")
    expect(page.locator("#seek-form")).to_be_visible()
    expect(page.locator("#play-people")).to_have_text(
        "Играть с людьми" if lang == "ru" else "Play with people"
    )
    width, inner, wide = page.evaluate(OVERFLOW)
    assert width <= inner, wide
    assert axe_violations(page) == []
    page.click("#seek-start")
    expect(page.locator("#seek-wait")).to_be_visible()
    expect(page.locator("#seek-status")).to_contain_text("1350–1650")
    width, inner, wide = page.evaluate(OVERFLOW)
    assert width <= inner, wide
    assert axe_violations(page) == []
    text = page.locator("#play-people-panel").inner_text()
    assert "pairing." not in text and "lobby." not in text  # no untranslated key
    page.click("#seek-cancel")
    assert not page.errors, page.errors
    page.context.close()
