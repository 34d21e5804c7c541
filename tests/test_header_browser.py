"""The site's one header (static/header.js), in the browser (issue 21).

* Item 15: the table app and every stand-alone page show the same header (Lobby,
  Learn to play, Daily deal, Rules, the account, sound, language), one line high
  and no wider than the screen at 360x640 and 390x844 (and on desktops) in all
  seven languages; on a phone the links fold into a menu that fits the screen.
* Item 4: Learn to play and the daily deal are linked from the first screen and
  from the table's header, for guests and accounts.
* Item 10: after logging in on the lobby, Create table works (the account's name
  is the player's name).
* Item 11: the log-in form opened before the account check answers stays open
  and keeps what was typed.

Playwright drives Debian's chromium (skipped when it is not installed).  Every
wait is on a condition (Playwright's auto-waiting), never a fixed sleep.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from accounts_support import PASSWORD
from browser_support import browser_server, chromium, post
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.web.app import STATIC_DIR

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

LANGUAGES = ("en", "ru", "it", "es", "nl", "pt", "ko")
PHONES = ((360, 640), (390, 844))
LINKS = ("#back-to-lobby", "#nav-learn", "#nav-daily", "#nav-rules")
CONTROLS = ("#lang-select", "#sound-toggle")

MEASURE = """() => {
  const h = document.querySelector('#site-header');
  const r = h.getBoundingClientRect();
  const out = [...h.querySelectorAll('*')].filter((e) => {
    const b = e.getBoundingClientRect();
    return b.width > 0 && b.height > 0 && (b.right > innerWidth + 0.5 || b.left < -0.5);
  }).map((e) => e.id || e.className || e.tagName);
  return {
    height: r.height, width: r.width, innerWidth,
    scroll: h.scrollWidth, client: h.clientWidth, outside: out,
    headers: document.querySelectorAll('header').length,
    old: document.querySelectorAll('header.top, header.pk-top').length,
  };
}"""
"""The header's size, whatever of it sticks out of the screen, and how many
headers the page has."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(tmp_path_factory, "header", seed=15, rate_limits=False) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def table(server: ServerProcess) -> dict[str, Any]:
    """A guest's table against a bot (it waits for its player: no move is made)."""
    return post(
        server,
        "/api/tables",
        {
            "name": "Header",
            "config": {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]},
        },
    )


def new_page(browser: Any, size: tuple[int, int], lang: str = "en", init: str | None = None) -> Any:
    ctx = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, locale=lang, has_touch=size[0] < 500
    )
    if init:
        ctx.add_init_script(init)
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def pages(table: dict[str, Any], lang: str) -> list[tuple[str, str]]:
    """Every kind of page: (name, path)."""
    tid = table["table_id"]
    return [
        ("lobby", "/#/"),
        ("table", f"/#/t/{tid}"),
        ("learn", "/learn"),
        ("rules", f"/rules/{lang}"),
        ("daily deal", "/deal?daily"),
        ("analysis", "/analysis"),
        ("session", f"/session?table={tid}"),
        ("profile", "/#/u/random"),
    ]


def check_header(page: Any, where: str, account: str = "#account-open") -> None:
    """The one header is there, complete, one line high and inside the screen."""
    page.wait_for_selector(f"#site-header {account}")
    m = page.evaluate(MEASURE)
    assert m["headers"] == 1 and m["old"] == 0, (where, m)
    assert m["height"] <= 60, (where, m)  # one line
    assert m["scroll"] <= m["client"] + 1, (where, m)
    assert m["width"] <= m["innerWidth"] + 0.5 and m["outside"] == [], (where, m)
    for sel in (*LINKS, *CONTROLS, "#account-bar"):
        assert page.locator(f"#site-header {sel}").count() == 1, (where, sel)


def open_menu_if_folded(page: Any) -> None:
    """On a phone the links are behind the menu button: open it."""
    if page.locator("#nav-menu").is_visible():
        page.click("#nav-menu")
        page.wait_for_selector("#sk-nav #nav-daily", state="visible")


@pytest.mark.parametrize("size", PHONES, ids=["360x640", "390x844"])
def test_one_header_on_every_page_fits_a_phone_in_every_language(
    browser: Any, server: ServerProcess, table: dict[str, Any], size: tuple[int, int]
) -> None:
    for lang in LANGUAGES:
        init = (
            f"localStorage.setItem('sk.lang', '{lang}');"
            f"localStorage.setItem('sk.token.{table['table_id']}', '{table['token']}');"
        )
        page = new_page(browser, size, lang, init)
        for name, path in pages(table, lang):
            page.goto(server.base + path)
            page.wait_for_selector(f"html[lang='{lang}']", state="attached")
            where = f"{name} {lang} {size}"
            check_header(page, where)
            # the folded menu opens inside the screen, every link reachable
            page.click("#nav-menu")
            for sel in (*LINKS, *CONTROLS):
                page.wait_for_selector(f"#site-header {sel}", state="visible")
            box = page.evaluate(
                "(() => { const b = document.querySelector('#sk-nav').getBoundingClientRect();"
                " return [b.left, b.right, innerWidth]; })()"
            )
            assert box[0] >= 0 and box[1] <= box[2] + 0.5, (where, box)
            page.keyboard.press("Escape")
            page.wait_for_selector("#sk-nav", state="hidden")
        assert not page.errors, page.errors
        page.context.close()


@pytest.mark.parametrize("size", [(1024, 768), (1280, 800)], ids=["1024", "1280"])
def test_the_header_is_one_line_on_desktops_in_every_language(
    browser: Any, server: ServerProcess, table: dict[str, Any], size: tuple[int, int]
) -> None:
    for lang in LANGUAGES:
        page = new_page(browser, size, lang, f"localStorage.setItem('sk.lang', '{lang}');")
        for name, path in pages(table, lang)[:3]:
            page.goto(server.base + path)
            page.wait_for_selector(f"html[lang='{lang}']", state="attached")
            check_header(page, f"{name} {lang} {size}")
            for sel in (*LINKS, *CONTROLS):  # no menu needed: all in the line
                assert page.locator(sel).is_visible(), (name, lang, sel)
        page.context.close()


def test_a_long_account_name_keeps_the_header_one_line_on_a_phone(
    browser: Any, server: ServerProcess, table: dict[str, Any]
) -> None:
    """Logged in with a 20-letter name, in the languages with the longest words."""
    page = new_page(browser, (360, 640))
    page.goto(server.base + "/#/")
    page.click("#account-open")
    page.fill("#account-username", "Abcdefghijklmnopqrst")
    page.fill("#account-password", PASSWORD)
    page.click("#register-btn")
    page.wait_for_selector("#account-name")
    for lang in ("it", "pt", "ru"):
        page.evaluate(f"localStorage.setItem('sk.lang', '{lang}')")
        page.goto("about:blank")  # the app's next load reads the language again
        for name, path in pages(table, lang):
            page.goto(server.base + path)
            page.wait_for_selector(f"html[lang='{lang}']", state="attached")
            check_header(page, f"{name} {lang} logged in", "#account-name")
            assert page.locator("#logout-btn").is_visible()
    page.context.close()


def test_learn_and_daily_deal_from_the_first_screen_and_the_table(
    browser: Any, server: ServerProcess, table: dict[str, Any]
) -> None:
    """Item 4, for a guest and then for an account."""
    init = f"localStorage.setItem('sk.token.{table['table_id']}', '{table['token']}');"
    page = new_page(browser, (390, 844), init=init)
    for who in ("guest", "account"):
        page.goto(server.base + "/#/")
        learn = page.locator("main #lobby-learn")
        daily = page.locator("main #lobby-daily")
        learn.wait_for()
        assert learn.get_attribute("href") == "/learn" and learn.is_visible()
        assert daily.get_attribute("href") == "/deal?daily" and daily.is_visible()
        daily.click()
        page.wait_for_selector("#deal-play")  # today's deal, ready to play
        page.goto(server.base + f"/#/t/{table['table_id']}")
        page.wait_for_selector("#table")
        open_menu_if_folded(page)
        page.click("#nav-learn")
        page.wait_for_selector("#lesson")
        if who == "guest":
            page.click("#account-open")
            page.fill("#account-username", "Headerus")
            page.fill("#account-password", PASSWORD)
            page.click("#register-btn")
            page.wait_for_selector("#account-name")
            # the stand-alone page's account link leads to the profile in the app
            assert page.get_attribute("#account-name", "href") == "/#/u/Headerus"
    assert not page.errors
    page.context.close()


def test_create_table_after_logging_in_on_the_lobby(browser: Any, server: ServerProcess) -> None:
    """Item 10: no "Please choose a name first" once logged in (no name was typed)."""
    page = new_page(browser, (1280, 800))
    page.goto(server.base + "/#/")
    page.click("#new-table summary")
    page.wait_for_selector("#create-btn")
    assert page.input_value("#player-name") == ""
    page.click("#account-open")
    page.fill("#account-username", "Lobbyist")
    page.fill("#account-password", PASSWORD)
    page.click("#register-btn")
    page.wait_for_selector("#account-name")
    page.select_option("#seat-1", "bot:random")
    page.click("#create-btn")
    page.wait_for_selector("#table, #create-error")
    assert page.locator("#create-error").count() == 0, page.inner_text("#create-error")
    assert "Lobbyist" in page.inner_text("#table")
    assert not page.errors
    page.context.close()


@pytest.mark.parametrize("path", ["/#/", "/learn"])
def test_the_login_form_survives_a_late_account_check(
    browser: Any, server: ServerProcess, path: str
) -> None:
    """Item 11: the form opened while GET /api/account/me is still out stays open,
    with what was typed, when the answer comes."""
    page = new_page(browser, (390, 844))
    held: list[Any] = []
    page.route("**/api/account/me", lambda route: held.append(route))
    page.goto(server.base + path)
    page.click("#account-open")
    page.fill("#account-username", "Latecomer")
    page.fill("#account-password", "typed before the answer")
    assert held, "the account check is still out"
    for route in held:
        route.continue_()
    page.unroute("**/api/account/me")
    # the answer redraws the bar: the form must still be there, and its text
    page.wait_for_selector("#account-bar[data-checked='true']", state="attached")
    assert page.locator("#account-form").is_visible()
    assert page.input_value("#account-username") == "Latecomer"
    assert page.input_value("#account-password") == "typed before the answer"
    assert not page.errors
    page.context.close()


def test_sound_switch_on_a_stand_alone_page_is_the_tables(
    browser: Any, server: ServerProcess
) -> None:
    """The header's sound switch is one setting everywhere."""
    page = new_page(browser, (1280, 800))
    page.goto(server.base + "/learn")
    page.wait_for_selector("#sound-toggle[aria-pressed='false']")
    page.click("#sound-toggle")
    page.wait_for_selector("#sound-toggle[aria-pressed='true']")
    assert page.evaluate("localStorage.getItem('sk.sound')") == "on"
    page.goto(server.base + "/#/")
    page.wait_for_selector("#sound-toggle[aria-pressed='true']")
    page.context.close()


def test_the_header_has_no_inline_style_or_script() -> None:
    """The strict Content-Security-Policy forbids inline styles and scripts: the
    header builds with classes only."""
    text = (STATIC_DIR / "header.js").read_text(encoding="utf-8")
    assert ".style" not in text and "innerHTML" not in text and "style=" not in text
