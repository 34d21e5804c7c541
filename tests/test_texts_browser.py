"""The words the pages write, in the browser (issue 21 items 5, 6 and 14): in
Russian every card written in a text uses the Russian court letters (В Д К Т, so
"A" is only ever a seat), bot levels are translated wherever a seat is named, and
a profile reads a rating on the display scale with each game's date, players and
result.

Playwright drives Debian's chromium (skipped when it is not installed)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from browser_support import browser_server, chromium, post
from svoi_kozyri.server.features.learn import lessons
from svoi_kozyri.server.runtime.process import ServerProcess
from test_learn_browser import new_page, play_lesson_move

pytestmark = [pytest.mark.browser, pytest.mark.timeout(300)]

LATIN_CARD = re.compile(r"(?<![A-Za-z])[JQKA][♠♥♦♣]")
"""A card written with a Latin court letter ("A♥"): wrong in a Russian text."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with browser_server(tmp_path_factory, "texts", seed=21, rate_limits=False) as srv:
        yield srv


@pytest.fixture(scope="module")
def browser(server: ServerProcess) -> Iterator[Any]:
    with chromium() as b:
        yield b


def play_to_the_end(server: ServerProcess, table_id: str, token: str) -> None:
    """Play the token's seat over a real WebSocket until the session is over."""
    from websockets.sync.client import connect

    with connect(server.base.replace("http", "ws") + f"/ws/{table_id}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        seat = None
        for _ in range(20000):
            m = json.loads(ws.recv(timeout=30))
            if m["type"] == "welcome":
                seat = m["seat"]
            if m["type"] != "state":
                continue
            v = m["view"]
            if v["session"]["over"]:
                return
            h = v["hand"]
            if h and h["to_act"] == seat and not h["result"] and h["legal"]:
                ws.send(json.dumps({"type": "move", "move": h["legal"][0]}))
    raise AssertionError("the session did not end")


def test_russian_tutorial_writes_cards_with_russian_letters(
    browser: Any, server: ServerProcess
) -> None:
    """Every lesson in Russian: a card that does not beat (its explanation), the
    first card of a two-card turn (the prompt), the pickup's cost and the right
    move's outcome ("Теперь A должен побить Т♥", never "A♥")."""
    page = new_page(browser, 390, 844, lang="ru")
    page.goto(server.base + "/learn")
    page.wait_for_selector("#lesson")
    seen: list[str] = []
    for i, x in enumerate(lessons()):
        page.locator(".pk-lessons li button").nth(i).click()
        page.wait_for_selector(f'#lesson[data-lesson="{x.id}"]')
        seen.append(page.inner_text("#lesson"))
        view = next(
            v
            for v in page.evaluate("fetch('/api/learn/lessons').then(r => r.json())")["lessons"]
            if v["id"] == x.id
        )
        notes: dict[str, str] = view["notes"]
        wrong = next((c for c, n in notes.items() if n not in ("higher", "own_suit")), None)
        if wrong is not None:  # a card that does not beat: its explanation names cards
            page.click(f'#lesson .pk-card[data-card="{wrong}"]')
            page.wait_for_selector("#feedback")
            seen.append(page.inner_text("#lesson"))
            page.click("#retry")
            page.wait_for_selector(f'#lesson[data-lesson="{x.id}"]:not(:has(#feedback))')
        move = x.accept[0].split()
        if move[0] == "beat" and len(move) == 4:  # the prompt names the chosen card
            page.click(f'#lesson .pk-card[data-card="{move[1]}"]')
            page.wait_for_selector("#cancel")
            seen.append(page.inner_text("#prompt"))
            page.click("#cancel")
            page.wait_for_selector("#lesson:not(:has(#cancel))")
        play_lesson_move(page, x.accept[0])
        page.wait_for_selector("#feedback.right")
        seen.append(page.inner_text("#lesson"))
    text = "\n".join(seen)
    assert "Т♥" in text or "Д♠" in text  # the generated lines did name court cards
    assert LATIN_CARD.findall(text) == [], [
        line for line in text.splitlines() if LATIN_CARD.search(line)
    ]
    assert not page.errors


def test_join_panel_words_bot_levels_in_russian(browser: Any, server: ServerProcess) -> None:
    """«C: Бот: easy» was the server's level name: the panel says «лёгкий»."""
    grant = post(
        server,
        "/api/tables",
        {
            "name": "Маша",
            "config": {
                "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "easy"}],
                "bot_delay_s": 0,
            },
        },
    )
    page = new_page(browser, 390, 844, lang="ru")
    page.goto(server.base + f"/#/t/{grant['table_id']}")
    page.wait_for_selector(".join-seats li")
    seats = page.locator(".join-seats li").all_inner_texts()
    assert seats[2] == "C: Бот: лёгкий", seats
    assert not any("easy" in s for s in seats)


def test_deal_page_words_bot_levels(browser: Any, server: ServerProcess) -> None:
    """The results of a shared deal named a bot seat «random bot (бот)»."""
    grant = post(
        server,
        "/api/tables",
        {
            "name": "Маша",
            "config": {
                "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
                "rules": {"variant": "besicovitch", "deck_size": 24, "loss_limit": 1},
                "bot_delay_s": 0,
                "hand_pause_s": 0,
            },
        },
    )
    play_to_the_end(server, grant["table_id"], grant["token"])
    deal = post(server, f"/api/tables/{grant['table_id']}/hands/1/deal", {})
    page = new_page(browser, 390, 844, lang="ru")
    page.goto(server.base + f"/deal?id={deal['deal_id']}")
    page.wait_for_selector("#results")
    cells = page.locator("#results tbody tr").first.locator("td").all_inner_texts()
    assert cells[:2] == ["Маша", "бот · случайный"], cells
    assert "random" not in page.inner_text("#results")


def test_profile_shows_display_rating_players_result_and_date(
    browser: Any, server: ServerProcess
) -> None:
    """A new account after one rated game: a rating near 1500 marked provisional
    ("?"), no μ ± σ, no negative fraction; the game with its date, its players
    (the bot's level in Russian) and the account's result."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="ru")
    api = ctx.request
    csrf = api.get(server.base + "/api/account/me").json()["csrf"]
    r = api.post(
        server.base + "/api/account/register",
        data={"username": "Masha", "password": "correct horse battery"},
        headers={"X-CSRF-Token": csrf},
    )
    assert r.ok, r.text()
    csrf = api.get(server.base + "/api/account/me").json()["csrf"]
    r = api.post(
        server.base + "/api/tables",
        data={
            "name": "Masha",
            "config": {
                "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}],
                "rules": {"loss_limit": 1},
                "rated": True,
                "bot_delay_s": 0,
                "hand_pause_s": 0,
            },
        },
        headers={"X-CSRF-Token": csrf},
    )
    assert r.ok, r.text()
    grant = r.json()
    play_to_the_end(server, grant["table_id"], grant["token"])
    deadline = time.monotonic() + 60  # results are recorded every few seconds
    while True:
        games = api.get(server.base + "/api/users/Masha/games").json()["games"]
        if games and games[0]["outcome"]:
            break
        assert time.monotonic() < deadline, games
        time.sleep(0.2)
    outcome = games[0]["outcome"]

    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.base + "/#/u/Masha")
    page.wait_for_selector("#profile-ratings tr[data-players='2']")
    rating = page.inner_text("#profile-ratings tr[data-players='2'] .profile-rating")
    assert re.fullmatch(r"1[2-7]\d\d\?(\s+\(.*\))?", rating.strip()), rating
    table = page.inner_text("#profile-ratings")
    assert "μ" not in table and "−" not in table and "-" not in table
    assert "1500" in page.inner_text("#rating-note")
    row = page.locator(f".profile-game[data-table='{grant['table_id']}']")
    row.wait_for()
    text = row.inner_text()
    assert "A: Masha (вы)" in text and "B: бот · случайный" in text, text
    lineup = row.locator(".profile-lineup").inner_text().strip()
    assert lineup == "A: Masha (вы) · B: бот · случайный", lineup  # no stray commas
    axis = page.locator("#rating-chart").text_content() or ""
    assert "партии 1–1" in axis and "партий" not in axis, axis  # «1 … 1 партий» was wrong
    assert {"won": "победа", "lost": "дурак"}[outcome] in row.locator(
        ".profile-outcome"
    ).inner_text()
    assert re.search(r"\d{2}\.\d{2}\.\d{4}", row.locator(".profile-date").inner_text())  # ru date
    assert grant["table_id"] not in text  # the id is in the link, not the words
    assert not errors
    ctx.close()


def test_russian_table_log_and_status_write_cards_and_names_plainly(
    browser: Any, server: ServerProcess
) -> None:
    """The table in Russian: the sixes handed to their owners read «Бот B отдаёт 6♠
    владельцу масти: Маша (вы)» (the name as it is, no dative), and no card in the
    log or the status line has a Latin court letter."""
    grant = post(
        server,
        "/api/tables",
        {
            "name": "Маша",
            "config": {
                "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3,
                "bot_delay_s": 0,
            },
        },
    )
    page = new_page(browser, 1280, 800, lang="ru")
    page.goto(server.base + "/learn")  # same origin: give the page the seat's token
    page.evaluate(f"localStorage.setItem('sk.token.{grant['table_id']}', '{grant['token']}')")
    page.goto(server.base + f"/#/t/{grant['table_id']}")
    page.wait_for_selector("#status.mine")  # our turn: the status names the cards
    page.wait_for_selector("#log li")
    log = page.inner_text("#log")
    status = page.inner_text("#status")
    transfers = [line for line in log.splitlines() if "отдаёт" in line]
    assert transfers, log  # 4 players, 4 owned suits: sixes change hands
    assert all("владельцу масти: " in line for line in transfers), transfers
    assert "владельцу Маша" not in log
    assert LATIN_CARD.findall(log + "\n" + status) == [], (log, status)
    assert not page.errors
