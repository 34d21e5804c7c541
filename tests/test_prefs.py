"""Per-account preferences (``/api/account/prefs``, platform/prefs.py): only
accounts keep them, only known keys and values are taken, a change names only
what it changes, every account sees only its own, state-changing requests need
the CSRF token, and saves are rate-limited; on PostgreSQL two processes share
them and never lose one another's change."""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any, get_args

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from accounts_support import csrf, login, make_client, register
from svoi_kozyri.server.platform.accounts import AccountSettings
from svoi_kozyri.server.platform.prefs import (
    MAX_BODY_BYTES,
    AccountPrefs,
    Deck,
    Language,
    Letters,
    PrefsChange,
    TableColour,
)
from svoi_kozyri.server.storage.schema import account_prefs_t
from svoi_kozyri.server.web.app import create_app
from svoi_kozyri.svg import DECKS, INDEX_LETTERS
from test_server_postgres import postgres_url  # noqa: F401  (the fixture)
from test_server_workers import _fresh_db

pytestmark = pytest.mark.timeout(120)

STATIC = Path(str(resources.files("svoi_kozyri") / "web" / "static"))
URL = "/api/account/prefs"


def _put(c: TestClient, body: Any, method: str = "PUT") -> Any:
    return c.request(method, URL, json=body, headers=csrf(c))


def _rows(c: TestClient) -> int:
    engine = c.app.state.players.store.engine  # type: ignore[attr-defined]
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(account_prefs_t)).scalar_one())


def test_guests_are_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        r = c.get(URL)
        assert r.status_code == 401 and r.json()["code"] == "login_required"
        r = _put(c, {"deck": "four"})
        assert r.status_code == 401 and r.json()["code"] == "login_required"
        assert _rows(c) == 0


def test_a_round_trip_changes_only_what_is_sent(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        assert register(c, "Alice").status_code == 201
        r = c.get(URL)
        assert r.status_code == 200 and r.json() == {"prefs": {}}
        assert r.headers["cache-control"] == "no-store"
        r = _put(c, {"deck": "four", "table": "dark"})
        assert r.status_code == 200, r.text
        assert r.json() == {"prefs": {"deck": "four", "table": "dark"}}
        r = _put(c, {"notify": True, "lang": "ru", "letters": "ru"}, method="POST")
        assert r.status_code == 200, r.text
        full = {"deck": "four", "table": "dark", "notify": True, "lang": "ru", "letters": "ru"}
        assert r.json()["prefs"] == full
        assert c.get(URL).json()["prefs"] == full
        r = _put(c, {"deck": None, "notify": False})  # null forgets; False is a choice
        assert r.json()["prefs"] == {
            "table": "dark",
            "notify": False,
            "lang": "ru",
            "letters": "ru",
        }
        assert _rows(c) == 1


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"colour": "dark"},
        {"deck": "four", "theme": "x"},
        {"deck": "rainbow"},
        {"deck": "Four"},
        {"table": "DARK"},
        {"letters": "de"},
        {"lang": "fr"},
        {"lang": "ru-RU"},
        {"notify": "yes"},
        {"notify": 1},
        {"deck": ["four"]},
        ["deck", "four"],
        "four",
    ],
)
def test_unknown_keys_and_values_are_refused_and_change_nothing(tmp_path: Path, body: Any) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        assert _put(c, {"deck": "large"}).status_code == 200
        r = _put(c, body)
        assert r.status_code == 422 and r.json()["code"] == "invalid", r.text
        assert c.get(URL).json()["prefs"] == {"deck": "large"}


def test_csrf_and_size_are_checked_before_anything_changes(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        r = c.put(URL, json={"deck": "four"})  # no token
        assert r.status_code == 403 and r.json()["code"] == "csrf"
        r = c.put(URL, json={"deck": "four"}, headers={"X-CSRF-Token": "x" * 43})
        assert r.status_code == 403 and r.json()["code"] == "csrf"
        cross = csrf(c) | {"Sec-Fetch-Site": "cross-site"}
        assert c.post(URL, json={"deck": "four"}, headers=cross).status_code == 403
        padded = '{"deck": "four"' + " " * MAX_BODY_BYTES + "}"
        r = c.put(URL, content=padded, headers=csrf(c) | {"Content-Type": "application/json"})
        assert r.status_code == 413 and r.json()["code"] == "too_large"
        assert c.get(URL).json()["prefs"] == {}
        assert _rows(c) == 0


def test_two_accounts_keep_their_own(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        register(c, "Alice")
        _put(c, {"deck": "four", "table": "dark"})
        alice = dict(c.cookies)
        c.cookies.clear()
        register(c, "Bobby")
        assert c.get(URL).json()["prefs"] == {}  # nothing of Alice's
        _put(c, {"deck": "large", "lang": "ko"})
        bob = c.get(URL).json()["prefs"]
        assert bob == {"deck": "large", "lang": "ko"}
        c.cookies.clear()
        for k, v in alice.items():
            c.cookies.set(k, v)
        assert c.get(URL).json()["prefs"] == {"deck": "four", "table": "dark"}
        c.post("/api/account/logout", headers=csrf(c))
        assert c.get(URL).status_code == 401  # logged out: the browser keeps its own
        assert login(c, "Bobby").status_code == 200
        assert c.get(URL).json()["prefs"] == bob


def test_saves_are_rate_limited_per_account(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:  # the default limits: a burst, then one every few seconds
        register(c, "Alice")
        codes = [_put(c, {"deck": d}).status_code for d in ["four", "large"] * 8]
        assert codes[:10] == [200] * 10 and codes[-1] == 429
        r = _put(c, {"deck": "classic"})
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        assert c.get(URL).json()["prefs"]["deck"] in ("four", "large")  # reading is free
        c.cookies.clear()
        register(c, "Bobby")  # another account has its own bucket
        assert _put(c, {"deck": "four"}).status_code == 200


def _js_array(source: str, name: str) -> list[str]:
    m = re.search(rf"export const {name} = \[(.*?)\];", source, re.S)
    assert m, name
    return re.findall(r'"([^"]+)"', m.group(1))


def test_the_server_knows_the_values_the_pages_offer() -> None:
    """One list on each side: a value the settings offer and the server refuses
    (or the reverse) would silently stop a preference from following the player."""
    theme = (STATIC / "theme.js").read_text(encoding="utf-8")
    assert list(get_args(Deck)) == _js_array(theme, "DECKS") == list(DECKS)
    assert list(get_args(Letters)) == _js_array(theme, "CORNER_LETTERS")
    assert set(get_args(Letters)) == {"auto", *INDEX_LETTERS}
    assert list(get_args(TableColour)) == _js_array(theme, "TABLE_COLOURS")
    i18n = (STATIC / "i18n.js").read_text(encoding="utf-8")
    assert list(get_args(Language)) == _js_array(i18n, "LANGUAGES")
    assert {p.stem for p in (STATIC / "i18n").glob("*.json")} == set(get_args(Language))
    full = PrefsChange(deck="large", letters="auto", table="light", notify=True, lang="ko")
    assert len(json.dumps(full.model_dump())) < MAX_BODY_BYTES // 4


def test_two_processes_on_postgres_share_prefs_and_lose_no_change(
    postgres_url: str,  # noqa: F811
) -> None:
    db = _fresh_db(postgres_url, "sk_prefs")
    settings = AccountSettings.fast()
    one_app = create_app(db, seed=1, accounts=settings, migrate=True)
    two_app = create_app(db, seed=2, accounts=settings)
    with TestClient(one_app) as one, TestClient(two_app) as two:
        assert register(one, "Alice").status_code == 201
        two.cookies.set("sk_session", one.cookies["sk_session"])
        assert _put(one, {"deck": "four"}).status_code == 200
        assert two.get(URL).json()["prefs"] == {"deck": "four"}
        assert _put(two, {"table": "dark"}).status_code == 200
        assert one.get(URL).json()["prefs"] == {"deck": "four", "table": "dark"}

        # first saves of different preferences at once on two processes: the
        # row is inserted once and neither change is lost
        accounts = one_app.state.players.accounts
        users = [accounts.register(f"racer{i}", "correct horse battery") for i in range(6)]
        a = AccountPrefs(one_app.state.players.store.engine)
        b = AccountPrefs(two_app.state.players.store.engine)
        with ThreadPoolExecutor(2) as pool:
            for u in users:
                left = pool.submit(a.save, u.id, PrefsChange(deck="large"))
                right = pool.submit(b.save, u.id, PrefsChange(lang="nl"))
                left.result()
                right.result()
        for u in users:
            assert a.get(u.id) == {"deck": "large", "lang": "nl"}
