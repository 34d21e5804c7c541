"""Browser tests of the web game on phones: nothing wider than the screen, cards big
enough for a finger, and a turn that a mis-tap cannot spoil.

Why these exist (issue 21, found by playing on a 390x844 phone): the set-up form was
643 px wide in Russian, so the browser zoomed out and a tap on «Создать стол» hit a
select; with 10-13 cards in hand a card showed 28-37 px of itself, with 30 or more
16-17 px; the second card of a two-card turn was sent at the first touch; a pickup of
29 cards needed no confirmation, its button sat where the thumb rests; with no card
able to beat, the status still said "beat 8♠ or pick up"; toasts covered the table's
own buttons and the keyboard's hint showed on touch screens.

Big hands (13, 25, 36 cards) are not positions a real deal starts from, so those
tests give the real page a table socket that answers with a crafted table view
(Playwright's ``route_web_socket``): the page, its scripts and styles are the real
ones, only the server's side of the socket is played by the test, which also sees
every move the page sends.  The page-width test uses the real server throughout.

Playwright drives Debian's chromium (skipped when it is not installed).
"""

from __future__ import annotations

import asyncio
import json
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import browser_server, chromium
from svoi_kozyri.server.runtime.process import ServerProcess
from svoi_kozyri.server.web.client import SeatClient

expect = pytest.importorskip("playwright.sync_api").expect
expect.set_options(timeout=30_000)  # a loaded 2-core machine: wait, do not give up at 5 s

pytestmark = [pytest.mark.browser, pytest.mark.timeout(600)]

PHONES = [(390, 844), (360, 640)]
LANGS = ["en", "ru", "es", "it", "ko", "nl", "pt"]
RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
DECK = [r + s for s in "SHDC" for r in RANKS]
TID = "mocktable1"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(tmp_path_factory, "phone", seed=7, rate_limits=False) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


def _post(server: ServerProcess, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        server.base + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req) as r:
        data: dict[str, Any] = json.loads(r.read())
    return data


def _context(browser: Any, size: tuple[int, int], lang: str = "en", touch: bool = True) -> Any:
    ctx = browser.new_context(
        viewport={"width": size[0], "height": size[1]},
        locale=lang,
        has_touch=touch,
        reduced_motion="reduce",
    )
    return ctx


def _page(ctx: Any) -> Any:
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


# ---------------------------------------------------------------- crafted table views


def _seat(i: int, cards: int, viewer: bool) -> dict[str, Any]:
    return {
        "seat": i,
        "letter": "AB"[i],
        "name": "Ann" if viewer else "medium bot",
        "kind": "human" if viewer else "bot",
        "bot": None if viewer else "medium",
        "taken": True,
        "connected": True,
        "standin": False,
        "suits": "SH" if i == 0 else "DC",
        "hand_size": cards,
        "known": [],
        "out": None,
    }


def _view(
    hand: list[str],
    legal: list[str],
    *,
    top: str | None = "6D",
    pile: list[str] | None = None,
    mode: str = "beat",
    to_act: int = 0,
    version: int = 5,
    viewer: int | None = 0,
    pickup_count: int | None = None,
) -> dict[str, Any]:
    """A two-seat TableView (docs/protocol.md) with the viewer's hand and legal moves."""
    pile = pile if pile is not None else ([top] if top else [])
    others = max(0, 36 - len(hand) - len(pile))
    return {
        "table_id": TID,
        "title": "",
        "status": "playing",
        "version": version,
        "viewer": viewer,
        "rules": {"num_players": 2},
        "turn_timer_s": None,
        "grace_s": 60.0,
        "hand_pause_s": 3.0,
        "paused": False,
        "seats": [_seat(0, len(hand), True), _seat(1, others, False)],
        "hand": {
            "number": 1,
            "dealer": 1,
            "hand": hand if viewer is not None else [],
            "open_hands": None,
            "pile": pile,
            "pile_size": len(pile),
            "pile_full": True,
            "top": top,
            "to_act": to_act,
            "mode": mode,
            "legal": legal if viewer is not None and to_act == viewer else [],
            "pickup_count": len(pile) if pickup_count is None else pickup_count,
            "log": [],
            "log_start": 0,
            "transfers": [],
            "result": None,
            "deadline_s": None,
            "out_order": [],
        },
        "session": {
            "mode": "losses",
            "target": 5,
            "losses": [0, 0],
            "points": [0, 0],
            "hands": [],
            "hands_start": 0,
            "hands_played": 0,
            "over": False,
            "winners": [],
            "durak": None,
        },
    }


class MockTable:
    """The real table page whose socket the test answers with crafted views; it
    records what the page sends, and answers each move with a view one version on
    (the page then shows ``data-version``, which the test waits for)."""

    def __init__(self, page: Any, server: ServerProcess, view: dict[str, Any]) -> None:
        self.page = page
        self.view = view
        self.sent: list[dict[str, Any]] = []
        self.ws: Any = None
        page.route_web_socket(lambda url: "/ws/" in url, self._connect)
        page.goto(server.base + "/rules/en")  # same origin: give the page a seat token
        page.evaluate(f"localStorage.setItem('sk.token.{TID}', 'tok')")
        watch = "?watch" if view["viewer"] is None else ""
        page.goto(server.base + f"/#/t/{TID}{watch}")
        page.wait_for_selector("#table")

    def _connect(self, ws: Any) -> None:
        self.ws = ws
        ws.on_message(self._message)

    def _message(self, text: str) -> None:
        msg = json.loads(text)
        self.sent.append(msg)
        if msg["type"] == "hello":
            self.ws.send(json.dumps({"type": "state", "view": self.view}))
        elif msg["type"] == "move":
            self.push({**self.view, "version": self.view["version"] + 1})

    def push(self, view: dict[str, Any]) -> None:
        self.view = view
        self.ws.send(json.dumps({"type": "state", "view": view}))

    def moves(self) -> list[str]:
        return [m["move"] for m in self.sent if m["type"] == "move"]


# the largest square (in CSS px) of each playable card that a finger's tap reaches:
# after scrolling the hand (not the page) to the card, elementFromPoint is asked
# every 2 px over the card's box, and the largest square of points that land on
# this card is found; points outside the viewport land on nothing
HIT_AREAS = """() => {
  const hand = document.getElementById('hand');
  const out = [];
  for (const card of hand.querySelectorAll('.card.legal')) {
    const h = hand.getBoundingClientRect();
    let r = card.getBoundingClientRect();
    if (r.left < h.left || r.right > h.right) {
      hand.scrollLeft += r.left - h.left - 8;
      r = card.getBoundingClientRect();
    }
    const grid = [];
    for (let y = Math.floor(r.top) + 0.5; y < r.bottom; y += 2) {
      const row = [];
      for (let x = Math.floor(r.left) + 0.5; x < r.right; x += 2) {
        const e = document.elementFromPoint(x, y);
        row.push(!!e && e.closest('.card') === card);
      }
      grid.push(row);
    }
    let best = 0;
    const dp = grid.map((row) => row.map(() => 0));
    for (let i = 0; i < grid.length; i++)
      for (let j = 0; j < grid[i].length; j++) {
        if (!grid[i][j]) continue;
        dp[i][j] = i && j ? 1 + Math.min(dp[i - 1][j], dp[i][j - 1], dp[i - 1][j - 1]) : 1;
        best = Math.max(best, dp[i][j]);
      }
    out.push([card.dataset.card, (best - 1) * 2]);
  }
  return out;
}"""


def _beats_of(hand: list[str]) -> list[str]:
    # the viewer's own suits are spades and hearts: each of those beats 6♦
    return [f"beat {c}" for c in hand if c[-1] in "SH"]


@pytest.mark.parametrize("size", PHONES, ids=["390x844", "360x640"])
def test_every_playable_card_is_a_fingertip_target(
    browser: Any, server: ServerProcess, size: tuple[int, int]
) -> None:
    ctx = _context(browser, size)
    for n in (13, 25, 36):
        hand = DECK[:n]
        for legal, what in (
            ([*_beats_of(hand), "pickup"], "beat"),
            ([f"lead {c}" for c in hand], "free lead"),
        ):
            mode = "free" if what == "free lead" else "beat"
            top = None if mode == "free" else "6D"
            page = _page(ctx)
            MockTable(
                page,
                server,
                _view(hand, legal, top=top, pile=[] if top is None else None, mode=mode),
            )
            expect(page.locator("#hand .card")).to_have_count(n)
            areas = page.evaluate(HIT_AREAS)
            assert len(areas) == len(legal) - (what == "beat"), (n, what)
            small = [(c, a) for c, a in areas if a < 44]
            assert not small, (size, n, what, small)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= size[0], (n, what, width)
            assert not page.errors
            page.close()
    ctx.close()


def test_the_second_card_of_a_turn_waits_for_confirmation(
    browser: Any, server: ServerProcess
) -> None:
    ctx = _context(browser, PHONES[0])
    page = _page(ctx)
    hand = ["7S", "9S", "QS", "7D", "9C", "KC", "AC", "10H"]
    # 9♠ beats the top card 6♦ and then leads any other card
    legal = [f"beat 9S lead {c}" for c in hand if c != "9S"] + ["pickup"]
    table = MockTable(page, server, _view(hand, legal))
    page.tap('#hand .card[data-card="9S"]', position={"x": 10, "y": 20})
    expect(page.locator('#hand .card[data-card="9S"].selected')).to_be_visible()
    # the mis-tap: 7♦ is shown as the lead, nothing is sent yet
    page.tap('#hand .card[data-card="7D"]', position={"x": 10, "y": 20})
    expect(page.locator('#hand .card[data-card="7D"].pending')).to_be_visible()
    expect(page.locator("#confirm-btn")).to_be_visible()
    expect(page.locator("#step")).to_contain_text("then you lead 7♦")
    page.tap("#undo-btn")
    expect(page.locator("#hand .card.pending")).to_have_count(0)
    expect(page.locator('#hand .card[data-card="9S"].selected')).to_be_visible()
    # the right one: a second tap on the same card confirms it
    page.tap('#hand .card[data-card="KC"]', position={"x": 10, "y": 20})
    expect(page.locator('#hand .card[data-card="KC"].pending')).to_be_visible()
    page.tap('#hand .card[data-card="KC"]', position={"x": 10, "y": 20})
    expect(page.locator("#table")).to_have_attribute("data-version", "6")
    assert table.moves() == ["beat 9S lead KC"]  # the mis-tap never left the page
    # the Confirm button does the same
    page.tap('#hand .card[data-card="9S"]', position={"x": 10, "y": 20})
    page.tap('#hand .card[data-card="AC"]', position={"x": 10, "y": 20})
    page.tap("#confirm-btn")
    expect(page.locator("#table")).to_have_attribute("data-version", "7")
    assert table.moves() == ["beat 9S lead KC", "beat 9S lead AC"]
    assert not page.errors
    ctx.close()


def test_a_mouse_plays_the_second_card_at_once(browser: Any, server: ServerProcess) -> None:
    ctx = _context(browser, (1280, 800), touch=False)
    page = _page(ctx)
    hand = ["7S", "9S", "QS", "7D"]
    legal = [f"beat 9S lead {c}" for c in hand if c != "9S"] + ["pickup"]
    table = MockTable(page, server, _view(hand, legal))
    page.click('#hand .card[data-card="9S"]', position={"x": 10, "y": 20})
    page.click('#hand .card[data-card="QS"]', position={"x": 10, "y": 20})
    expect(page.locator("#table")).to_have_attribute("data-version", "6")
    assert table.moves() == ["beat 9S lead QS"]
    ctx.close()


def test_with_nothing_to_beat_the_status_says_only_a_pickup_is_left(
    browser: Any, server: ServerProcess
) -> None:
    ctx = _context(browser, PHONES[0])
    for lang, words, wrong in (
        ("en", "you can only pick up", "Step 1"),
        ("ru", "остаётся только взять", "Шаг 1"),
    ):
        page = _page(ctx)
        page.goto(server.base + "/rules/en")
        page.evaluate(f"localStorage.setItem('sk.lang', '{lang}')")
        hand = ["7D", "8C", "9C"]  # nothing of the own suits, nothing above the ace
        MockTable(page, server, _view(hand, ["pickup"], top="AD", pile=["9D", "AD"]))
        expect(page.locator("#step")).to_contain_text(words)
        assert wrong not in page.inner_text("#step")
        expect(page.locator("#hand .card.legal")).to_have_count(0)
        page.close()
    ctx.close()


def test_a_large_pickup_asks_first_and_sits_away_from_the_hand(
    browser: Any, server: ServerProcess
) -> None:
    ctx = _context(browser, PHONES[0])
    page = _page(ctx)
    hand = ["7S", "9C"]
    pile = [c for c in DECK if c not in hand][:29]
    table = MockTable(page, server, _view(hand, ["pickup"], top=pile[-1], pile=pile))
    button = page.locator("#pickup-btn")
    expect(button).to_have_text("Pick up 29")
    # the button is by the pile, well above the hand where the thumb rests to play
    b = button.bounding_box()
    hand_top = page.locator("#hand").bounding_box()["y"]
    assert b["y"] + b["height"] + 40 <= hand_top, (b, hand_top)
    button.tap()
    expect(page.locator("#pickup-ask")).to_contain_text("Pick up 29 cards?")
    page.tap("#pickup-no")
    expect(page.locator("#pickup-ask")).to_have_count(0)
    button.tap()
    page.tap("#pickup-confirm")
    expect(page.locator("#table")).to_have_attribute("data-version", "6")
    assert table.moves() == ["pickup"]
    # a small pickup goes at once; P on a keyboard asks as the button does
    page.close()
    page = _page(ctx)
    table = MockTable(page, server, _view(hand, ["pickup"], top="AD", pile=["9D", "AD"]))
    page.tap("#pickup-btn")
    expect(page.locator("#table")).to_have_attribute("data-version", "6")
    assert table.moves() == ["pickup"]
    ctx.close()


def test_toasts_clear_the_buttons_and_the_keyboard_hint_only_at_a_keyboard(
    browser: Any, server: ServerProcess
) -> None:
    ctx = _context(browser, PHONES[0])
    page = _page(ctx)
    hand = ["7S", "9S", "QS", "7D"]
    table = MockTable(page, server, _view(hand, [], to_act=1))
    table.push(_view(hand, [*_beats_of(hand), "pickup"], version=6))
    toast = page.locator("#announce.shown")
    expect(toast).to_have_text("Your turn")
    box = toast.bounding_box()
    controls = "header a, header button, header select, .table-head a, .table-head button"
    for el in page.locator(controls).all():
        if not el.is_visible():
            continue
        r = el.bounding_box()
        apart = (
            r["x"] >= box["x"] + box["width"]
            or box["x"] >= r["x"] + r["width"]
            or r["y"] >= box["y"] + box["height"]
            or box["y"] >= r["y"] + r["height"]
        )
        assert apart, (el.evaluate("e => e.outerHTML.slice(0, 80)"), r, box)
    # on a touch screen there is no keyboard to hint at
    expect(page.locator("#keys-hint")).to_have_count(0)
    ctx.close()
    ctx = _context(browser, (1280, 800), touch=False)
    page = _page(ctx)
    MockTable(page, server, _view(hand, [*_beats_of(hand), "pickup"]))
    expect(page.locator("#keys-hint")).to_be_visible()
    page.close()
    page = _page(ctx)
    MockTable(page, server, _view(hand, [], viewer=None, to_act=1))
    expect(page.locator("#spectator")).to_be_visible()
    expect(page.locator("#keys-hint")).to_have_count(0)  # a spectator plays nothing
    ctx.close()


# ---------------------------------------------------------------- no page wider than a phone


def _finished_table(server: ServerProcess) -> dict[str, Any]:
    """A table of one hand against a bot (its seat's grant)."""
    grant = _post(
        server,
        "/api/tables",
        {
            "name": "Ann",
            "config": {
                "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
                "rules": {"loss_limit": 1},
                "bot_delay_s": 0,
                "hand_pause_s": 0,
            },
        },
    )
    return grant


OVERFLOW = """() => {
  const w = innerWidth;
  const wide = [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > w + 0.5)
    .filter((e) => getComputedStyle(e).position !== 'fixed')
    .slice(0, 4)
    .map((e) => `${e.tagName}#${e.id}.${e.className} ${e.getBoundingClientRect().right | 0}`);
  return [document.documentElement.scrollWidth, w, wide];
}"""


def _fits(page: Any, where: str, bad: list[Any]) -> None:
    width, inner, wide = page.evaluate(OVERFLOW)
    if width > inner:
        bad.append((where, width, inner, wide))


def test_no_page_is_wider_than_a_phone_in_any_language(browser: Any, server: ServerProcess) -> None:
    finished = _finished_table(server)
    tid = finished["table_id"]
    # the human's seat plays its low cards until the session is over (in a thread
    # of its own: Playwright's sync API holds this one's event loop)
    player = SeatClient(server.ws_base, tid, finished["token"])
    worker = threading.Thread(target=lambda: asyncio.run(player.run()))
    worker.start()
    worker.join(120)
    assert player.last_view and player.last_view["session"]["over"]
    live = _post(
        server,
        "/api/tables",
        {"name": "Ann", "config": {"seats": [{"kind": "human"}] + [{"kind": "bot"}] * 3}},
    )
    bad: list[Any] = []
    for size in PHONES:
        for lang in LANGS:
            ctx = _context(browser, size, lang)
            page = _page(ctx)
            page.goto(server.base + "/")
            page.wait_for_selector("#play-now")
            _fits(page, f"lobby {lang} {size}", bad)
            page.click("#new-table summary")
            page.wait_for_selector("#rule-variant option", state="attached")
            page.wait_for_selector("#create-btn")
            _fits(page, f"set-up form {lang} {size}", bad)
            # the button is hit where it is drawn: nothing lies over it
            page.locator("#create-btn").scroll_into_view_if_needed()
            box = page.locator("#create-btn").bounding_box()
            hit = page.evaluate(
                "([x, y]) => document.elementFromPoint(x, y)?.id",
                [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
            )
            assert hit == "create-btn", (lang, size, hit)
            opener = page.locator("#account-open")
            if opener.count() and opener.is_visible():
                opener.click()
                _fits(page, f"log-in form {lang} {size}", bad)
            page.evaluate(
                f"localStorage.setItem('sk.token.{live['table_id']}', '{live['token']}');"
                f"localStorage.setItem('sk.token.{tid}', '{finished['token']}')"
            )
            for path, ready in (
                (f"/#/t/{live['table_id']}", "#status"),
                (f"/#/t/{tid}", "#session-over"),
                (f"/#/r/{tid}", "#replay-step"),
                ("/#/u/random", "main h1, main h2"),
                ("/#/tournaments", "main h1, main h2"),
                ("/#/friends", "main h1, main h2"),
                ("/#/admin", "main h1"),
                ("/learn", "#lesson"),
                (f"/rules/{lang}", "h1"),
                ("/deal?daily", "main h2"),
                (f"/session?table={tid}", "#hands li"),
                (f"/analysis?table={tid}&hand=1", "main h1"),
                ("/analysis", "main h1"),
            ):
                page.goto(server.base + path)
                page.wait_for_selector(ready)
                _fits(page, f"{path} {lang} {size}", bad)
            assert not page.errors, (lang, size, page.errors)
            ctx.close()
    assert not bad, bad
