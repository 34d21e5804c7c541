"""What the browser tests share: Debian's chromium, a server for them, a browser.

Why a module: five test files each started their own server and launched chromium
with the same dozen lines; a fix to either (a flag chromium needs, the skip
message) had to be made five times.
"""

from __future__ import annotations

import json
import shutil
import urllib.request
from collections.abc import Iterator
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
    **kwargs: Any,
) -> Iterator[ServerProcess]:
    """A server on a fresh SQLite database for browser tests (skipped, with the
    reason, when chromium is not installed); ``env`` is set while it starts."""
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    tmp = tmp_path_factory.mktemp(name)
    srv = ServerProcess(f"sqlite:///{tmp / 'web.db'}", seed=seed, log_path=tmp / "s.log", **kwargs)
    with pytest.MonkeyPatch.context() as mp:
        for key, value in (env or {}).items():
            mp.setenv(key, value)
        srv.start()
    try:
        yield srv
    finally:
        srv.stop()


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
