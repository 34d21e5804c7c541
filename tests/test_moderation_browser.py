"""Moderation in the browser (issue 26 item 5), on a phone in Russian: a player
reports another from the table (the flag on the seat), the moderator finds the
report in the queue of ``#/admin`` and settles it with a ban, and the banned
player's page is logged out and told, in words of the catalogue, that the
account is banned; the pages fit 390 px and pass axe-core."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine

from browser_support import PASSWORD, browser_server, chromium
from svoi_kozyri.server.platform.moderation import set_role_by_name
from svoi_kozyri.server.runtime.process import ServerProcess
from test_friends_browser import CALL, account_page
from test_learn_browser import axe_violations
from test_phone_layout_browser import OVERFLOW

expect = pytest.importorskip("playwright.sync_api").expect
expect.set_options(timeout=20_000)

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

RU: dict[str, str] = json.loads(
    (Path(__file__).resolve().parent.parent / "src/svoi_kozyri/web/static/i18n/ru.json").read_text(
        encoding="utf-8"
    )
)
PHONE = (390, 844)
SEATS = [{"kind": "human"}, {"kind": "human"}]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(
        tmp_path_factory, "moderation", seed=5, rate_limits=False, accounts=["Ann", "Bob", "Moddy"]
    ) as srv:
        engine = create_engine(srv.database_url)
        try:
            set_role_by_name(engine, "Moddy", "admin")
        finally:
            engine.dispose()
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


def fits_and_passes(page: Any) -> None:
    width, inner, wide = page.evaluate(OVERFLOW)
    assert width <= inner, wide
    assert axe_violations(page) == []
    text = page.locator("#app").inner_text()
    assert "mod." not in text and "error." not in text  # no untranslated key


def at_table(page: Any, grant: dict[str, Any]) -> None:
    """Open the table of ``grant`` in ``page`` with its seat token."""
    page.evaluate(f"localStorage.setItem('sk.token.{grant['table_id']}', '{grant['token']}')")
    page.goto(page.url.split("#")[0] + f"#/t/{grant['table_id']}")
    page.wait_for_selector("#status")


def test_report_at_the_table_ban_from_the_queue_and_the_banned_page(
    browser: Any, server: ServerProcess
) -> None:
    ann = account_page(browser, server, "Ann", PHONE, "ru")
    bob = account_page(browser, server, "Bob", PHONE, "ru")
    status, grant_a = ann.evaluate(
        CALL, ["POST", "/api/tables", {"name": "Ann", "config": {"seats": SEATS, "grace_s": 600}}]
    )
    assert status == 200, grant_a
    tid = grant_a["table_id"]
    status, grant_b = bob.evaluate(CALL, ["POST", f"/api/tables/{tid}/join", {"name": "Bob"}])
    assert status == 200, grant_b
    at_table(ann, grant_a)
    at_table(bob, grant_b)

    # Ann reports Bob with the flag on his seat (none on her own)
    expect(ann.locator('[data-report="seat-0"]')).to_have_count(0)
    flag = ann.locator('[data-report="seat-1"]')
    expect(flag).to_have_attribute("aria-label", RU["mod.reportName"].replace("{name}", "Bob"))
    flag.click()
    ann.fill("#report-reason", "оскорбляет в чате")
    fits_and_passes(ann)
    ann.click("#report-send")
    expect(ann.locator("#report-status")).to_have_text(RU["mod.sent"])
    ann.click("#report-close")
    expect(ann.locator("#report-reason")).to_have_count(0)

    # Bob writes a line; Ann reports it with the flag on the line
    bob.click("#chat-toggle")
    bob.fill("#chat-input", "плохие слова")
    bob.click("#chat-send")
    ann.click("#chat-toggle")
    line = ann.locator(".pk-chat-msg", has_text="плохие слова")
    line.locator("[data-report^=chat-]").click()
    ann.fill("#report-reason", "грубость")
    ann.click("#report-send")
    expect(ann.locator("#report-status")).to_have_text(RU["mod.sent"])
    ann.click("#report-close")
    expect(bob.locator(".pk-chat-msg [data-report]")).to_have_count(0)  # not on his own

    # the moderator: a link to the page, the report in the queue, a ban
    mod = account_page(browser, server, "Moddy", PHONE, "ru")
    mod.click("#mod-link")
    mod.wait_for_url("**/#/admin")
    expect(mod.locator("#report-queue li")).to_have_count(2)
    fits_and_passes(mod)
    # the chat line's report (the newer): removed for everyone, at once
    chat_row = mod.locator("#report-queue li").nth(1)
    expect(chat_row).to_contain_text("плохие слова")
    chat_row.locator("select").select_option("remove_chat")
    chat_row.locator("button[type=submit]").click()
    expect(mod.locator("#report-queue li")).to_have_count(1)
    expect(ann.locator(".pk-chat-msg", has_text="плохие слова")).to_have_count(0)
    expect(bob.locator(".pk-chat-msg", has_text="плохие слова")).to_have_count(0)
    row = mod.locator("#report-queue li").first
    expect(row).to_contain_text("оскорбляет в чате")
    expect(row).to_contain_text("Bob")
    row.locator("select").select_option("ban")
    row.locator("input[type=number]").fill("60")
    row.locator("button[type=submit]").click()
    expect(mod.locator("#mod-status")).to_have_text(RU["mod.done"])
    expect(mod.locator("#report-queue")).to_have_count(0)
    expect(mod.locator("#sanction-list li")).to_contain_text("Bob")
    expect(mod.locator("#audit-log li").first).to_contain_text("ban")
    fits_and_passes(mod)
    # the moderator closes the table: Ann is told so
    mod.fill("#cl-table", tid)
    mod.fill("#cl-reason", "нарушения")
    mod.click("#cl-send")
    expect(ann.locator("#table-closed")).to_contain_text(RU["mod.tableClosed"])
    fits_and_passes(ann)
    # a player has no link and no page
    expect(ann.locator("#mod-link")).to_have_count(0)
    ann.goto(server.base + "/#/admin")
    expect(ann.locator("#mod-forbidden")).to_have_text(RU["mod.forbidden"])

    # Bob: logged out everywhere; his log-in is refused in words of the catalogue
    bob.goto(server.base + "/")
    expect(bob.locator("#account-open")).to_be_visible()
    bob.click("#account-open")
    bob.fill("#account-username", "Bob")
    bob.fill("#account-password", PASSWORD)
    bob.click("#login-btn")
    expect(bob.locator("#account-error")).to_have_text(RU["error.banned"])
    fits_and_passes(bob)
    for page in (ann, bob, mod):
        assert not page.errors, page.errors
        page.context.close()
