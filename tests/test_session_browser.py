"""Browser test of the end-of-session page: standings and the order of going out,
the chat shown as text (never HTML), the rematch, axe-core."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import browser_server, chromium, post
from svoi_kozyri.server.runtime.process import ServerProcess
from test_learn_browser import axe_violations, new_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    # stand-ins finish the session nobody watches at full speed (a real server
    # plays it at a human's pace: tests/test_worker_races.py)
    extra = ["--unattended-delay", "0"]
    with browser_server(
        tmp_path_factory, "session", seed=2, rate_limits=False, extra_args=extra
    ) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


def test_end_of_session_page(browser: Any, server: ServerProcess) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    a = post(
        server,
        "/api/tables",
        {
            "name": "Ann",
            "config": {
                "seats": seats,
                "rules": {"loss_limit": 1},
                "grace_s": 0,
                "bot_delay_s": 0,
                "hand_pause_s": 0,
            },
        },
    )
    tid = a["table_id"]
    b = post(server, f"/api/tables/{tid}/join", {"name": "Bob"})
    # Bob looks in once and leaves: a table nobody joined waits, but one a player
    # has seen plays on for a while, and with grace 0 stand-ins play both humans
    look = new_page(browser, 1280, 800)
    look.goto(server.base + "/learn")
    look.evaluate(f"localStorage.setItem('sk.token.{tid}', '{b['token']}')")
    look.goto(server.base + f"/#/t/{tid}")
    look.wait_for_selector("#table")
    look.context.close()
    for _ in range(600):  # stand-ins play the absent humans to the end
        with urllib.request.urlopen(server.base + f"/api/tables/{tid}") as r:
            if json.loads(r.read())["status"] == "finished":
                break
        time.sleep(0.1)
    page = new_page(browser, 390, 844)
    page.goto(server.base + "/learn")
    page.evaluate(f"localStorage.setItem('sk.token.{tid}', '{a['token']}')")
    page.goto(server.base + f"/session?table={tid}")
    page.wait_for_selector("#chat")
    assert "The session is over" in page.inner_text("#standings")
    assert "The durak" in page.inner_text("#durak")
    assert "Order of going out: 1." in page.inner_text("#hands")
    page.fill("#chat-input", "<img src=x onerror=alert(1)> gg")
    page.click("#chat-send")
    page.wait_for_selector(".pk-chat-msg")
    assert page.locator(".pk-chat-msg").inner_text() == "Ann: <img src=x onerror=alert(1)> gg"
    assert page.locator(".pk-chat img").count() == 0
    assert axe_violations(page) == []
    page.click("#rematch")
    page.wait_for_url(lambda url: "/#/t/" in url and tid not in url)
    assert not page.errors
