"""Screenshots of the web game's main views for docs/web.md.

Starts the server on a temporary SQLite database (fixed seed, so the deal is
the same every run), drives Debian's chromium through Playwright and writes
PNGs of the lobby, the wait of "Play with people", the set-up form, the table on
your turn, the hint with its rating, the table chat, the two-card turn's second
step, the end of a hand, the analysis of that hand, the replay, the tutorial, a
25-card hand (a crafted view over a routed socket: no deal starts with one), the
end of a session with its *Play again*, the friends page, the tournaments and
the moderators' page with a player's report,
at 1280x800 and 390x844, in English and Russian::

    .venv/bin/python bench/screenshots.py            # writes docs/img/*.png
    .venv/bin/python bench/screenshots.py --out DIR --lang en

It takes about two minutes (the analysis of a hand takes up to 15 s in the
pure-Python build).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine

from svoi_kozyri.server.platform.moderation import set_role_by_name
from svoi_kozyri.server.runtime.process import ServerProcess

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
CORNER = {"x": 8, "y": 30}  # a fanned card shows its left strip
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def _wait_my_turn(page: Any, timeout: float = 30_000) -> bool:
    page.wait_for_selector("#status.mine, #hand-over, #session-over", timeout=timeout)
    mine: int = page.locator("#status.mine").count()
    over: int = page.locator("#hand-over").count()
    return mine > 0 and over == 0


def _pick_up(page: Any) -> None:
    # a pickup of six cards or more asks first
    many = int(re.sub(r"\D", "", page.inner_text("#pickup-btn"))) >= 6
    page.click("#pickup-btn")
    if many:
        page.click("#pickup-confirm")


def _take_turn(page: Any, prefer_pickup: bool = False) -> None:
    before = page.get_attribute("#table", "data-version")
    legal = page.locator("#hand .card.legal")
    if prefer_pickup and page.locator("#pickup-btn").count():
        _pick_up(page)
    elif legal.count():
        legal.first.click(position=CORNER)
        if page.locator("#hand .card.selected").count():
            page.locator("#hand .card.legal:not(.selected)").first.click(position=CORNER)
    else:
        _pick_up(page)
    # a CSS selector, not a JavaScript predicate: the page's CSP forbids eval
    page.wait_for_selector(
        f"#table:not([data-version='{before}']), #hand-over, #session-over", state="attached"
    )


def shoot(base: str, out: Path, lang: str, size: str, browser: Any, database: str) -> list[Path]:
    w, h = SIZES[size]
    ctx = browser.new_context(
        viewport={"width": w, "height": h},
        locale=lang,
        reduced_motion="reduce",
        device_scale_factor=1,
    )
    ctx.add_init_script(f"localStorage.setItem('sk.lang', '{lang}')")
    page = ctx.new_page()
    files = []

    def snap(name: str) -> None:
        # an announcement ("Your turn") fades after two seconds: not in the picture
        if page.locator("#announce.shown").count():
            page.wait_for_selector("#announce:not(.shown)", state="attached", timeout=5_000)
            page.wait_for_timeout(300)  # its fade
        path = out / f"{name}-{size}-{lang}.png"
        page.screenshot(path=str(path))
        files.append(path)

    page.goto(base + "/")
    page.wait_for_selector("#play-now")
    page.fill("#player-name", "Anna" if lang != "ru" else "Аня")
    page.wait_for_timeout(300)
    snap("lobby")
    # "Play with people": the wait, with its rating range and the bots' countdown
    page.select_option("#seek-wait-s", "60")
    page.click("#seek-start")
    page.wait_for_selector("#seek-status")
    page.evaluate("document.getElementById('play-people-panel').scrollIntoView()")
    page.wait_for_timeout(1200)
    snap("seek")
    page.click("#seek-cancel")
    page.wait_for_selector("#seek-form")
    # a table against three bots, bots instant, so the shots come quickly
    page.click("#new-table summary")
    page.wait_for_selector("#rule-variant option", state="attached")
    page.evaluate("document.getElementById('new-table').scrollIntoView()")  # the form itself
    page.wait_for_timeout(200)
    snap("setup")
    page.evaluate("window.scrollTo(0, 0)")
    page.select_option("#bot_delay", "0")
    page.fill("#length", "2")  # the first hand's end shows the countdown to the next
    page.click("#create-btn")
    page.wait_for_selector("#table")
    _wait_my_turn(page)
    page.wait_for_timeout(300)
    snap("table")
    # the hint with its rating, worded by the client in the page's language
    page.click("#hint-btn")
    page.wait_for_selector("#hint-rating", timeout=30_000)
    page.wait_for_timeout(200)
    snap("hint")
    # the table chat: a drawer over the table, opened from the table's head
    page.click("#chat-toggle")
    page.fill("#chat-input", "Удачи всем!" if lang == "ru" else "Good luck, everyone!")
    page.press("#chat-input", "Enter")
    page.wait_for_selector("#chat-drawer .pk-chat-msg")
    page.wait_for_timeout(200)
    snap("chat")
    page.click("#chat-close")
    # find a turn where a beat is possible, to show step 2 of the two-card turn
    for _ in range(60):
        if not _wait_my_turn(page):
            break
        beat = page.locator("#hand .card[data-beat='1']")
        if beat.count():
            beat.first.click(position=CORNER)
            page.wait_for_timeout(200)
            snap("two-step")
            page.locator("#hand .card.legal:not(.selected)").first.click(position=CORNER)
            break
        _take_turn(page)
    while _wait_my_turn(page, 60_000):
        _take_turn(page)
    page.wait_for_selector("#hand-over, #session-over")
    page.wait_for_timeout(600)
    snap("hand-over")
    table_id = page.url.split("#/t/")[1]
    # the analysis of the hand just played, from the seat played
    page.goto(f"{base}/analysis?table={table_id}&hand=1")
    page.wait_for_selector("#analysis", timeout=90_000)
    worse = page.locator(".pk-step.worse")
    (worse.first if worse.count() else page.locator(".pk-step").nth(2)).click()
    page.evaluate("window.scrollTo(0, 0)")  # the position and its rating, not the list
    page.wait_for_timeout(300)
    snap("analysis")
    page.goto(f"{base}/#/r/{table_id}")
    page.wait_for_selector("#replay-step")
    page.click("#replay-first")
    for _ in range(6):
        page.click("#replay-next")
    page.wait_for_timeout(200)
    snap("replay")
    # the tutorial: the second lesson (your own trump beats everything else)
    page.goto(f"{base}/learn")
    page.wait_for_selector("#lesson")
    page.locator(".pk-lessons li button").nth(1).click()
    page.wait_for_timeout(300)
    snap("learn")
    # a 25-card hand, on a table whose socket answers with a crafted view
    page.route_web_socket(lambda url: "/ws/" in url, _big_hand_socket)
    page.evaluate("localStorage.setItem('sk.token.bighand', 'x')")
    page.goto(f"{base}/#/t/bighand")
    page.wait_for_selector("#hand .card")
    page.wait_for_timeout(300)
    snap("hand25")
    ctx.close()
    # the end of a session: one hand against one bot, then the banner's Play again
    ctx = browser.new_context(
        viewport={"width": w, "height": h}, locale=lang, reduced_motion="reduce"
    )
    ctx.add_init_script(f"localStorage.setItem('sk.lang', '{lang}')")
    # an account, so the session is rated and its profile has a game to show
    user = f"{'Anna' if lang != 'ru' else 'Masha'}_{size[:1]}"
    csrf = ctx.request.get(base + "/api/account/me").json()["csrf"]
    ctx.request.post(
        base + "/api/account/register",
        data={"username": user, "password": "correct horse battery"},
        headers={"X-CSRF-Token": csrf},
    )
    page = ctx.new_page()
    page.goto(base + "/")
    page.wait_for_selector("#play-now")
    page.click("#new-table summary")
    page.wait_for_selector("#rated")
    page.check("#rated")
    page.select_option("#players", "2")
    page.select_option("#bot_delay", "0")
    page.fill("#length", "1")
    page.click("#create-btn")
    page.wait_for_selector("#table")
    while _wait_my_turn(page, 60_000):
        _take_turn(page)
    page.wait_for_selector("#session-over #rematch-btn")
    page.wait_for_timeout(600)
    snap("session-over")
    # the profile: a rating on the display scale, the game with its players and result
    for _ in range(100):  # results are recorded every few seconds
        games = ctx.request.get(f"{base}/api/users/{user}/games").json().get("games", [])
        if games and games[0].get("outcome"):
            break
        page.wait_for_timeout(300)
    page.goto(f"{base}/#/u/{user}")
    page.wait_for_selector(".profile-game")
    page.wait_for_timeout(300)
    snap("profile")
    # the tournaments: an arena with bots, made by this account and joined
    csrf = ctx.request.get(base + "/api/account/me").json()["csrf"]
    arena = ctx.request.post(
        base + "/api/tournaments",
        data={
            "name": "Вечерняя арена" if lang == "ru" else "Evening arena",
            "kind": "arena",
            "players": 4,
            "starts": time.time() + 600,
            "minutes": 30,
            "bots": ["easy", "medium"],
        },
        headers={"X-CSRF-Token": csrf},
    ).json()
    page.goto(f"{base}/#/tournaments")
    page.wait_for_selector("main h1, main h2")
    page.wait_for_timeout(400)
    snap("tournaments")
    page.goto(f"{base}/#/tournaments/{arena['tournament']['id']}")
    page.wait_for_selector("main h1, main h2")
    page.wait_for_timeout(400)
    snap("tournament")
    # the friends page of an account that follows one player
    friend = f"Boris_{size[:1]}_{lang}"
    other, _csrf = _account(browser, base, friend)
    other.close()
    ctx.request.post(
        base + "/api/friends/follow", data={"name": friend}, headers={"X-CSRF-Token": csrf}
    )
    page.goto(f"{base}/#/friends")
    page.wait_for_selector("main h1, main h2")
    page.wait_for_timeout(400)
    snap("friends")
    # the moderators' page: this account made an admin, two reports waiting
    set_role_by_name(create_engine(database), user, "admin")
    page.goto(f"{base}/#/admin")
    page.wait_for_selector(".mod-report")
    page.wait_for_timeout(400)
    snap("admin")
    ctx.close()
    return files


def _account(browser: Any, base: str, name: str) -> tuple[Any, str]:
    """A new browser context logged in as a new account ``name``, and its CSRF token."""
    ctx = browser.new_context()
    csrf = ctx.request.get(base + "/api/account/me").json()["csrf"]
    r = ctx.request.post(
        base + "/api/account/register",
        data={"username": name, "password": "correct horse battery"},
        headers={"X-CSRF-Token": csrf},
    )
    if not r.ok:  # e.g. the registrations one address may make
        raise RuntimeError(f"registering {name}: {r.status} {r.text()}")
    return ctx, ctx.request.get(base + "/api/account/me").json()["csrf"]


def _report_a_player(browser: Any, base: str) -> None:
    """Two accounts at a table of two human seats; the first reports the second,
    in English and in Russian (made once: the server lets one address register
    ten accounts, and each view set registers two)."""
    host, host_csrf = _account(browser, base, "Vera")
    rude, rude_csrf = _account(browser, base, "Grubiyan")
    seats = [{"kind": "human"}, {"kind": "human"}]
    grant = host.request.post(
        base + "/api/tables",
        data={"name": "Vera", "config": {"seats": seats, "listed": False}},
        headers={"X-CSRF-Token": host_csrf},
    ).json()
    rude.request.post(
        f"{base}/api/tables/{grant['table_id']}/join",
        data={"name": "Grubiyan"},
        headers={"X-CSRF-Token": rude_csrf},
    )
    for reason in ("insults in the chat", "оскорбления в чате"):
        r = host.request.post(
            base + "/api/mod/reports",
            data={"table_id": grant["table_id"], "seat": 1, "reason": reason},
            headers={"X-CSRF-Token": host_csrf},
        )
        if not r.ok:
            raise RuntimeError(f"report refused: {r.status} {r.text()}")
    host.close()
    rude.close()


def _big_hand_socket(ws: Any) -> None:
    """The server's side of a table socket that shows a 25-card hand on its turn."""
    deck = [r + s for s in "SHDC" for r in ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]]
    hand = [*deck[:18], "6D", "7D", "8D", "10D", "6C", "7C", "8C"]
    pile = ["9D", "JD"]
    seat = {"taken": True, "connected": True, "standin": False, "known": [], "out": None}
    view = {
        "table_id": "bighand",
        "title": "",
        "status": "playing",
        "version": 3,
        "viewer": 0,
        "rules": {"num_players": 2},
        "turn_timer_s": None,
        "grace_s": 60.0,
        "hand_pause_s": 3.0,
        "paused": False,
        "seats": [
            {
                **seat,
                "seat": 0,
                "letter": "A",
                "name": "Anna",
                "kind": "human",
                "bot": None,
                "suits": "SH",
                "hand_size": 25,
            },
            {
                **seat,
                "seat": 1,
                "letter": "B",
                "name": "bot",
                "kind": "bot",
                "bot": "medium",
                "suits": "DC",
                "hand_size": 9,
            },
        ],
        "hand": {
            "number": 1,
            "dealer": 1,
            "hand": hand,
            "open_hands": None,
            "pile": pile,
            "pile_size": 2,
            "pile_full": True,
            "top": "JD",
            "to_act": 0,
            "mode": "beat",
            "legal": [f"beat {c}" for c in hand if c[-1] in "SH" or c in ("QD", "KD", "AD")]
            + ["pickup"],
            "pickup_count": 2,
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
    ws.on_message(
        lambda m: ws.send(json.dumps({"type": "state", "view": view})) if '"hello"' in m else None
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).parent.parent / "docs" / "img")
    ap.add_argument("--lang", action="append", help="en, ru, ... (default: en and ru)")
    ap.add_argument("--size", action="append", choices=sorted(SIZES))
    args = ap.parse_args(argv)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("needs Debian's chromium (apt-get install chromium)", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory() as tmp,
        ServerProcess(
            f"sqlite:///{tmp}/shots.db",
            seed=7,
            log_path=Path(tmp) / "server.log",
            rate_limits=False,  # one address makes every account and table here
        ) as srv,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=chromium, args=ARGS)
        _report_a_player(browser, srv.base)
        for lang in args.lang or ["en", "ru"]:
            for size in args.size or sorted(SIZES):
                for f in shoot(srv.base, args.out, lang, size, browser, srv.database_url):
                    print(f)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
