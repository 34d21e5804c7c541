"""What the browser tests share: Debian's chromium, a server for them, a browser.

Why a module: five test files each started their own server and launched chromium
with the same dozen lines; a fix to either (a flag chromium needs, the skip
message) had to be made five times.
"""

from __future__ import annotations

import json
import shutil
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import pytest

from svoi_kozyri.server.runtime.process import ServerProcess

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def browser_server(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    seed: int,
    env: dict[str, str] | None = None,
    accounts: Sequence[str] = (),
    **kwargs: Any,
) -> Iterator[ServerProcess]:
    """A server on a fresh SQLite database for browser tests (skipped, with the
    reason, when chromium is not installed); ``env`` is set while it starts;
    ``accounts`` are registered with :data:`PASSWORD` once it runs."""
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    tmp = tmp_path_factory.mktemp(name)
    srv = ServerProcess(f"sqlite:///{tmp / 'web.db'}", seed=seed, log_path=tmp / "s.log", **kwargs)
    with pytest.MonkeyPatch.context() as mp:
        for key, value in (env or {}).items():
            mp.setenv(key, value)
        srv.start()
    try:
        if accounts:
            register_accounts(srv.database_url, accounts)
        yield srv
    finally:
        srv.stop()


PASSWORD = "correct horse battery"
"""The password of the accounts :func:`browser_server` registers."""


def register_accounts(database_url: str, names: Sequence[str]) -> None:
    """Register ``names`` straight in the database (cheap hashing: the log-in
    pages are tested elsewhere; these tests need people who exist)."""
    from sqlalchemy import create_engine

    from svoi_kozyri.server.platform.accounts import AccountService, AccountSettings

    engine = create_engine(database_url)
    try:
        accounts = AccountService(engine, AccountSettings.fast())
        for name in names:
            accounts.register(name, PASSWORD)
    finally:
        engine.dispose()


@contextmanager
def chromium() -> Iterator[Any]:
    """Debian's chromium, headless, driven by Playwright (never a downloaded browser)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def post(server: ServerProcess, path: str, body: dict[str, Any], **headers: str) -> Any:
    """A JSON request to the test server from outside the browser (a guest with no
    session, so no CSRF token; ``headers`` such as ``X-Seat-Token``)."""
    req = urllib.request.Request(
        server.base + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **headers},
    )
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())


NOTIFICATIONS = """async () => {
  const reg = await navigator.serviceWorker.ready;
  return (await reg.getNotifications()).map((n) => n.title);
}"""


def notifications(page: Any, timeout: float = 15.0) -> list[str]:
    """The titles of the notifications shown through the service worker, once there
    is one (polled from here: ``wait_for_function`` with an async predicate takes
    the pending promise as a true value and does not wait)."""
    end = time.monotonic() + timeout
    while True:
        titles: list[str] = page.evaluate(NOTIFICATIONS)
        if titles or time.monotonic() > end:
            return titles
        page.wait_for_timeout(100)
