"""The deal page says when a deal cannot be played yet and which bots it keeps
(issue 20, item 1; issue 21, item 7), in the page's language.

A deal of a table that is still running waits until that table has finished
(playing it would show that hand's first hands, which its players never all
saw): the page shows why and its Play button is off.  The bots of the table the
deal comes from keep their seats, and the page names them.  While a table runs,
the end-of-session page shares a hand with the player's seat token and offers
no Share button to a spectator.

Playwright drives Debian's chromium (skipped when it is not installed).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from browser_support import browser_server, chromium, post
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.web.client import SeatClient, low_card_policy

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

STATIC = Path(__file__).resolve().parent.parent / "src/svoi_kozyri/web/static"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(tmp_path_factory, "dealpage", seed=23, rate_limits=False) as srv:
        yield srv


def catalogue(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / f"i18n/{lang}.json").read_text(encoding="utf-8"))
    return data


def test_a_running_tables_deal_is_shared_by_its_player_locked_and_names_its_bots(
    server: ServerProcess,
) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "greedy"}]
    config = {
        "seats": seats,
        "rules": {"loss_limit": 50, "max_actions_per_hand": 200},
        "bot_delay_s": 0,
        "hand_pause_s": 30,
    }
    grant = post(server, "/api/tables", {"name": "Ann", "config": config})
    tid, token = grant["table_id"], grant["token"]
    client = SeatClient(server.ws_base, tid, token, low_card_policy, seed=5)
    asyncio.run(client.run(stop=lambda v: bool(v["hand"] and v["hand"]["result"])))
    with chromium() as browser:
        # the end-of-session page while the session runs: the player shares hand
        # 1 with the seat token; a spectator is not offered the button
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en")
        page = ctx.new_page()
        page.goto(server.base + "/deal?daily")
        page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"sk.token.{tid}", token])
        page.goto(server.base + f"/session?table={tid}")
        page.click("#hands button.pk-link")
        link = page.locator("#hands a[href*='/deal']").first
        link.wait_for()
        deal = {"url": str(link.get_attribute("href"))}
        assert page.locator(".pk-error").count() == 0
        ctx.close()
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en")
        page = ctx.new_page()
        page.goto(server.base + f"/session?table={tid}")
        page.locator("#hands li").first.wait_for()
        assert page.locator("#hands button.pk-link").count() == 0
        ctx.close()
        for lang in ("ru", "en"):
            words = catalogue(lang)
            ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale=lang)
            page = ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
            page.goto(deal["url"])
            note = page.locator("#deal-locked")
            note.wait_for()
            assert note.inner_text() == words["error.deal_locked"]
            assert page.locator("#deal-play").is_disabled()
            bots = page.locator("#deal-bots").inner_text()
            assert words["bot.random"] in bots and words["bot.greedy"] in bots
            assert "A:" not in bots  # seat A was a person's
            # the results table scrolls in its box; the page fits the phone
            page.locator("#results").wait_for()
            assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
            assert errors == []
            ctx.close()
