"""Every state-changing request of every page, made by clicking as a player
would, logged in and as a guest: none may be refused for its CSRF token (issue
21, item 1: the stand-alone pages' JSON helper never sent the X-CSRF-Token
header, so a logged-in player got "missing or wrong CSRF token" on the
tutorial, Play this deal, Let others play this deal, Rematch and the analysis
record upload), and a refusal reads in the page's language (item 16).

Which requests: every POST/PUT/PATCH/DELETE route of the server's app.
``test_the_list_of_state_changing_routes_is_complete`` reads them from the app
itself, so a new route fails here until a page's use of it is exercised below
(or it is listed as one no page sends).  The challenges the friends page
accepts and declines come from a second account that talks to the server from
Python (with its own cookies and CSRF token).

Playwright drives Debian's chromium (skipped when it is not installed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine

from accounts_support import PASSWORD, make_client
from browser_support import browser_server, chromium, post
from svoi_kozyri.server.platform.moderation import set_role_by_name
from svoi_kozyri.server.runtime.process import ServerProcess

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

ROUTES: dict[str, str] = {
    "POST /api/account/register": r"/api/account/register",
    "POST /api/account/login": r"/api/account/login",
    "POST /api/account/logout": r"/api/account/logout",
    "POST /api/account/logout-all": r"/api/account/logout-all",
    "POST /api/tables": r"/api/tables",
    "POST /api/tables/{table_id}/join": r"/api/tables/[^/]+/join",
    "POST /api/tables/{table_id}/record-link": r"/api/tables/[^/]+/record-link",
    "POST /api/tables/{table_id}/rematch": r"/api/tables/[^/]+/rematch",
    "POST /api/tables/{table_id}/hands/{number}/deal": r"/api/tables/[^/]+/hands/\d+/deal",
    "POST /api/deals/{did}/play": r"/api/deals/[^/]+/play",
    "POST /api/analysis/record": r"/api/analysis/record",
    "POST /api/learn/lessons/{lesson_id}/try": r"/api/learn/lessons/[^/]+/try",
    "PUT /api/account/prefs": r"/api/account/prefs",
    "POST /api/seeks": r"/api/seeks",
    "DELETE /api/seeks/{seek_id}": r"/api/seeks/[^/]+",
    "POST /api/friends/follow": r"/api/friends/follow",
    "POST /api/friends/unfollow": r"/api/friends/unfollow",
    "POST /api/friends/block": r"/api/friends/block",
    "POST /api/friends/unblock": r"/api/friends/unblock",
    "POST /api/challenges": r"/api/challenges",
    "POST /api/challenges/{cid}/accept": r"/api/challenges/[^/]+/accept",
    "POST /api/challenges/{cid}/decline": r"/api/challenges/[^/]+/decline",
    "POST /api/challenges/{cid}/cancel": r"/api/challenges/[^/]+/cancel",
    "POST /api/tournaments": r"/api/tournaments",
    "POST /api/tournaments/{tid}/join": r"/api/tournaments/[^/]+/join",
    "POST /api/tournaments/{tid}/withdraw": r"/api/tournaments/[^/]+/withdraw",
    "POST /api/mod/reports": r"/api/mod/reports",
    "POST /api/mod/reports/{report_id}/resolve": r"/api/mod/reports/\d+/resolve",
    "POST /api/mod/sanctions": r"/api/mod/sanctions",
    "POST /api/mod/sanctions/{sanction_id}/lift": r"/api/mod/sanctions/\d+/lift",
    "POST /api/mod/tables/{table_id}/close": r"/api/mod/tables/[^/]+/close",
    "POST /api/mod/roles": r"/api/mod/roles",
}
"""The state-changing routes the pages send, with the paths they match."""

NO_PAGE: dict[str, str] = {
    "POST /api/account/claim": "no page sends it: registering claims the guest seats itself",
    "POST /api/account/prefs": "the same as PUT for clients that cannot send PUT; pages send PUT",
    "POST /api/mod/chat/{chat_id}/remove": "the admin page removes a chat line by settling "
    "its report (remove_chat); the route is for moderators' own tools",
}
"""State-changing routes no page sends (each with the reason)."""

GUEST_ONLY_SKIPS = {
    "PUT /api/account/prefs",  # a guest's preferences stay in the browser
    # friends, challenges and tournaments are for accounts (a guest is told to log in)
    "POST /api/friends/follow",
    "POST /api/friends/unfollow",
    "POST /api/friends/block",
    "POST /api/friends/unblock",
    "POST /api/challenges",
    "POST /api/challenges/{cid}/accept",
    "POST /api/challenges/{cid}/decline",
    "POST /api/challenges/{cid}/cancel",
    "POST /api/tournaments",
    "POST /api/tournaments/{tid}/join",
    "POST /api/tournaments/{tid}/withdraw",
    "POST /api/account/login",
    "POST /api/account/logout",
    "POST /api/account/logout-all",
    # reports are for accounts (a guest's report is refused: login_required), and
    # the moderators' page for moderators
    "POST /api/mod/reports",
    "POST /api/mod/reports/{report_id}/resolve",
    "POST /api/mod/sanctions",
    "POST /api/mod/sanctions/{sanction_id}/lift",
    "POST /api/mod/tables/{table_id}/close",
    "POST /api/mod/roles",
}
"""What a guest cannot do (registering is what makes a guest an account)."""

EN: dict[str, str] = json.loads(
    (Path(__file__).resolve().parent.parent / "src/svoi_kozyri/web/static/i18n/en.json").read_text(
        encoding="utf-8"
    )
)
"""The English catalogue: the words of the buttons that have no id of their own."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(tmp_path_factory, "csrf", seed=21, rate_limits=False) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


def _routes(routes: list[Any], prefix: str = "") -> Iterator[tuple[str, set[str]]]:
    """Every HTTP route (path, methods), into included routers too (FastAPI keeps
    an included router's routes behind a wrapper with its prefix)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            context = getattr(route, "include_context", None)
            yield from _routes(inner.routes, prefix + (getattr(context, "prefix", "") or ""))
        elif getattr(route, "methods", None):
            yield prefix + str(route.path), set(route.methods)
        elif getattr(route, "routes", None) and hasattr(route, "path"):  # a mount
            yield from _routes(route.routes, prefix + str(route.path))


def test_the_list_of_state_changing_routes_is_complete(tmp_path: Path) -> None:
    """Every state-changing route of the app is exercised below or listed as sent
    by no page: a new one cannot slip past these tests."""
    with make_client(tmp_path) as client:  # started: some routers join at start-up
        app: Any = client.app
        found = {
            f"{method} {path}"
            for path, methods in _routes(app.routes)
            for method in methods - {"GET", "HEAD", "OPTIONS"}
        }
    assert found == set(ROUTES) | set(NO_PAGE)


def url_path(url: str) -> str:
    """The path of a URL, without its query."""
    return "/" + url.split("://", 1)[1].split("/", 1)[1].split("?")[0]


class Requests:
    """Every state-changing request the page sends, with its answer's status and
    code (listening to the browser's own traffic, not to a helper)."""

    def __init__(self, page: Any) -> None:
        self.seen: list[tuple[str, str, int, str]] = []
        page.on("response", self._on)

    def _on(self, response: Any) -> None:
        req = response.request
        if req.method in ("GET", "HEAD", "OPTIONS"):
            return
        try:
            code = str(response.json().get("code", ""))
        except Exception:
            code = ""
        self.seen.append((req.method, url_path(req.url), response.status, code))

    def routes(self) -> set[str]:
        out = set()
        for method, path, _status, _code in self.seen:
            for name, pattern in ROUTES.items():
                if name.startswith(method + " ") and re.fullmatch(pattern, path):
                    out.add(name)
        return out

    def refused(self) -> list[tuple[str, str, int, str]]:
        return [s for s in self.seen if s[2] == 403 or s[3] == "csrf"]


def new_page(browser: Any, lang: str = "en", size: tuple[int, int] = (1280, 800)) -> Any:
    ctx = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, locale=lang, accept_downloads=True
    )
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def register(page: Any, server: ServerProcess, username: str) -> None:
    page.goto(server.base + "/")
    page.click("#account-open")
    page.fill("#account-username", username)
    page.fill("#account-password", PASSWORD)
    page.click("#register-btn")
    page.wait_for_selector("#account-name")


PLAY_OUT = """async ([tid, token]) => await new Promise((resolve, reject) => {
  const ws = new WebSocket(`ws://${location.host}/ws/${tid}`);
  let seat = null;
  const timer = setTimeout(() => reject(new Error('the session did not end')), 240000);
  ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', token }));
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === 'welcome') seat = m.seat;
    if (m.type !== 'state') return;
    const v = m.view;
    if (v.session.over) { clearTimeout(timer); ws.close(); resolve(true); return; }
    const h = v.hand;
    if (h && h.to_act === seat && h.legal && h.legal.length && !h.result)
      ws.send(JSON.stringify({ type: 'move', move: h.legal[0], version: v.version }));
  };
})"""
"""Play the token's seat to the end of the session (the first legal move each
turn), from inside the page: the table page itself is then shown the end."""


def create_by_form(page: Any, server: ServerProcess, name: str, account: bool) -> str:
    """A table against one bot, one loss ends the session, made with the lobby's
    form; its id.  Logged in, the name field shows the account's name."""
    page.goto(server.base + "/#/")
    page.wait_for_selector("#create-btn", state="attached")
    page.click("#new-table summary")
    if account:
        page.wait_for_selector("#player-name[readonly]")
    else:
        page.fill("#player-name", name)
    page.select_option("#players", "2")
    page.select_option("#seat-1", "bot:random")
    page.select_option("#bot_delay", "0")
    page.fill("#length", "1")
    page.click("#create-btn")
    page.wait_for_selector("#table")
    return str(page.url.split("#/t/")[1])


def every_page_request(
    page: Any, server: ServerProcess, tmp_path: Path, name: str, account: bool
) -> None:
    """Send every state-changing request a page can send, by clicking."""
    # the lobby: play with people (a seek nobody else can answer: four players,
    # no bots ever) and stop waiting
    page.goto(server.base + "/#/")
    page.select_option("#seek-players", "4")
    page.select_option("#seek-wait-s", "")
    with answer(page, "POST /api/seeks"):
        page.click("#seek-start")
    with answer(page, "DELETE /api/seeks/{seek_id}"):
        page.click("#seek-cancel")

    # the lobby: Play now, and the form (create); the table's record link
    page.click("#play-now")
    page.wait_for_selector("#table")
    tid = create_by_form(page, server, name, account)
    token = page.evaluate(f"localStorage.getItem('sk.token.{tid}')")
    page.evaluate(PLAY_OUT, [tid, token])
    page.wait_for_selector("#session-over")
    with page.expect_download() as download:
        page.click("#download-record")
    record = tmp_path / "game.skr"
    Path(download.value.path()).replace(record)

    # the analysis page: a record file opened in the browser
    page.goto(server.base + "/analysis")
    page.set_input_files("#record-file", str(record))
    page.wait_for_selector("#analysis", timeout=60_000)

    # the end of the session: let others play this deal, and the rematch
    page.goto(server.base + f"/session?table={tid}")
    page.click("#hands button.pk-link")
    shared = page.locator("#hands a[href*='/deal']").first
    shared.wait_for()
    deal_url = str(shared.get_attribute("href"))
    page.click("#rematch")
    page.wait_for_url(lambda url: "/#/t/" in url and tid not in url)

    # the table's own Play again, at the end of another session
    other = create_by_form(page, server, name, account)
    page.evaluate(PLAY_OUT, [other, page.evaluate(f"localStorage.getItem('sk.token.{other}')")])
    page.click("#rematch-btn")  # the app moves to the new table by its route (#/t/...)
    page.wait_for_url(lambda url: "/#/t/" in url and other not in url, wait_until="commit")

    # Play this deal: the shared one and today's
    for url in (deal_url, server.base + "/deal?daily"):
        page.goto(url if url.startswith("http") else server.base + url)
        page.wait_for_selector("#deal-play")
        if not page.input_value("#deal-name"):
            page.fill("#deal-name", name)
        page.click("#deal-play")
        page.wait_for_url(lambda u: "/#/t/" in u)

    # the tutorial: a move
    page.goto(server.base + "/learn")
    page.click("#lesson .pk-card >> nth=0")
    page.wait_for_selector("#feedback.right, #feedback.wrong")

    # join a friend's table by its invite
    friend = post(
        server,
        "/api/tables",
        {"name": "Friend", "config": {"seats": [{"kind": "human"}, {"kind": "human"}]}},
    )
    page.goto(server.base + f"/#/t/{friend['table_id']}")
    page.click("#join-btn")
    page.wait_for_selector("#table")


def answer(page: Any, route: str) -> Any:
    """The answer to the page's request of ``route`` (a key of ROUTES): a context
    manager around the click that sends it, so the test goes on once the server
    has answered, never after a guessed pause."""
    method, _, _ = route.partition(" ")
    return page.expect_response(
        lambda r: r.request.method == method and re.fullmatch(ROUTES[route], url_path(r.url))
    )


class Other:
    """A second account, talking to the server from Python with its own cookies
    (so with its own CSRF token, sent as X-CSRF-Token as the pages send it)."""

    def __init__(self, client: httpx.Client, name: str) -> None:
        self.client = client
        self.name = name
        self.call("/api/account/register", {"username": name, "password": PASSWORD})

    def call(self, path: str, body: dict[str, Any]) -> Any:
        """POST ``body`` to ``path`` as this account; the answer (a success)."""
        token = self.client.get("/api/account/me").json()["csrf"]
        r = self.client.post(path, json=body, headers={"X-CSRF-Token": token})
        assert r.status_code < 300, r.text
        return r.json()

    def challenge(self, name: str) -> None:
        """Challenge ``name`` to a two-player table."""
        self.call("/api/challenges", {"to": name, "players": 2})


def reopen(page: Any, url: str) -> None:
    """Load ``url`` afresh (not a hash change in the same document): the header
    asks for the challenges as the page starts, so one just sent is shown."""
    page.goto("about:blank")
    page.goto(url)


def friends_and_tournaments(page: Any, server: ServerProcess, name: str) -> None:
    """What an account sends from the friends page (follow, challenge and cancel,
    unfollow, block, unblock; accept one challenge, decline another) and the
    tournaments' pages (create with the form, join, withdraw)."""
    with httpx.Client(base_url=server.base, timeout=30) as client:
        other = Other(client, name + "Pal")
        other.call("/api/friends/follow", {"name": name})  # so the page can block them
        other.challenge(name)
        reopen(page, server.base + "/#/friends")
        with answer(page, "POST /api/challenges/{cid}/accept"):
            page.click(".challenge.incoming .accept-btn")
        page.wait_for_selector("#table")  # at the challenge's table
        other.challenge(name)
    reopen(page, server.base + "/#/friends")
    with answer(page, "POST /api/challenges/{cid}/decline"):
        page.click(".challenge.incoming .decline-btn")

    page.fill("#friend-name", other.name)
    with answer(page, "POST /api/friends/follow"):
        page.click("#follow-btn")
    page.click("#following .challenge-btn")
    with answer(page, "POST /api/challenges"):
        page.click("#challenge-send")
    with answer(page, "POST /api/challenges/{cid}/cancel"):
        page.click(".challenge.outgoing .cancel-btn")
    with answer(page, "POST /api/friends/unfollow"):
        page.locator("#following").get_by_role("button", name=EN["friends.unfollow"]).click()
    with answer(page, "POST /api/friends/block"):
        page.click("#followers .block-btn")
    with answer(page, "POST /api/friends/unblock"):
        page.click("#blocked button")

    page.goto(server.base + "/#/tournaments")
    page.fill("#tour-name", "Csrf cup")
    with answer(page, "POST /api/tournaments"):
        page.click("#tour-form button[type=submit]")
    with answer(page, "POST /api/tournaments/{tid}/join"):
        page.click("#tour-join")
    with answer(page, "POST /api/tournaments/{tid}/withdraw"):
        page.click("#tour-withdraw")
    page.wait_for_selector("#tour-join")


def moderation(page: Any, server: ServerProcess, name: str) -> None:
    """What an account sends about moderation: a report from the table (the flag on
    a seat), then, made an admin, everything the moderators' page sends: settle the
    report, mute and lift, close a table, make a moderator."""
    with httpx.Client(base_url=server.base, timeout=30) as client:
        other = Other(client, name + "Rude")
        seats = [{"kind": "human"}, {"kind": "human"}]
        table = other.call("/api/tables", {"name": other.name, "config": {"seats": seats}})
    tid = table["table_id"]
    page.goto(server.base + f"/#/t/{tid}")
    page.click("#join-btn")
    page.wait_for_selector("#table")
    page.click('[data-report="seat-0"]')
    page.fill("#report-reason", "rude")
    with answer(page, "POST /api/mod/reports"):
        page.click("#report-send")
    engine = create_engine(server.database_url)
    try:
        set_role_by_name(engine, name, "admin")
    finally:
        engine.dispose()
    page.goto(server.base + "/#/admin")
    with answer(page, "POST /api/mod/reports/{report_id}/resolve"):
        page.click("#report-queue li button[type=submit]")  # dismiss, the first action
    page.fill("#sn-name", other.name)
    page.fill("#sn-reason", "spam")
    with answer(page, "POST /api/mod/sanctions"):
        page.click("#sn-send")
    with answer(page, "POST /api/mod/sanctions/{sanction_id}/lift"):
        page.click("#sanction-list button")
    page.fill("#cl-table", tid)
    page.fill("#cl-reason", "test")
    with answer(page, "POST /api/mod/tables/{table_id}/close"):
        page.click("#cl-send")
    page.fill("#role-name", other.name)
    with answer(page, "POST /api/mod/roles"):
        page.click("#role-send")


@pytest.mark.parametrize("who", ["guest", "account"])
def test_every_state_changing_request_of_every_page(
    browser: Any, server: ServerProcess, tmp_path: Path, who: str
) -> None:
    page = new_page(browser)
    sent = Requests(page)
    name = f"Csrf{who.title()}"
    if who == "account":
        register(page, server, name)
    every_page_request(page, server, tmp_path, name, who == "account")
    if who == "account":
        # a preference saved to the account (the settings panel, static/prefs.js)
        page.goto(server.base + "/#/")
        page.click("#settings-open")
        with answer(page, "PUT /api/account/prefs"):
            page.select_option("#deck-select", "four")
        friends_and_tournaments(page, server, name)
        moderation(page, server, name)
        # log out everywhere (the profile), log in again, log out (the header)
        page.goto(server.base + f"/#/u/{name}")
        page.click("#logout-all-btn")
        page.wait_for_selector("#account-open")
        page.click("#account-open")
        page.fill("#account-username", name)
        page.fill("#account-password", PASSWORD)
        page.click("#login-btn")
        page.wait_for_selector("#account-name")
        page.click("#logout-btn")
        page.wait_for_selector("#account-open")
    assert sent.refused() == []
    expected = set(ROUTES) - (
        GUEST_ONLY_SKIPS | {"POST /api/account/register"} if who == "guest" else set()
    )
    assert expected - sent.routes() == set(), "not exercised"
    failed = [s for s in sent.seen if s[2] >= 400]
    assert failed == []
    assert not page.errors
    page.context.close()


def test_a_refusal_reads_in_the_page_language(browser: Any, server: ServerProcess) -> None:
    """The server's English words stay out of a Russian page: the refusal's code
    is worded from the catalogue (a deal that does not exist: no_deal)."""
    catalogue = json.loads(
        (
            Path(__file__).resolve().parent.parent / "src/svoi_kozyri/web/static/i18n/ru.json"
        ).read_text(encoding="utf-8")
    )
    for lang in ("ru", "en"):
        page = new_page(browser, lang, (390, 844))
        page.goto(server.base + "/deal?id=nosuchdeal")
        error = page.locator(".pk-error")
        error.wait_for()
        text = error.inner_text()
        if lang == "ru":
            assert catalogue["error.no_deal"] in text
            assert "no deal" not in text.lower()
        else:
            assert "There is no such deal." in text
        page.context.close()


def test_a_logged_in_tutorial_move_is_accepted_in_russian(
    browser: Any, server: ServerProcess
) -> None:
    """The defect as reported: register, open /learn, tap a card (Russian page)."""
    page = new_page(browser, "ru", (390, 844))
    sent = Requests(page)
    register(page, server, "UchenikRu")
    page.goto(server.base + "/learn")
    page.click("#lesson .pk-card >> nth=0")
    page.wait_for_selector("#feedback.right, #feedback.wrong")
    assert "CSRF" not in page.inner_text("#feedback")
    assert sent.refused() == []
    page.context.close()
