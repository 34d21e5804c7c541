"""The site's own routes: the app page, the rules redirect, liveness, card
images, the bots and the rules options a table may set; and what makes the site an
installable app: the web app manifest and the service worker, served from the
root so that its scope is the whole site (docs/web.md, "Install, themes,
notifications")."""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Header
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ...core import CardError, parse_card
from ...core.rules import option_specs
from ..edge.pages import page_shell
from ..features import learn
from ..features.cards_svg import back_svg, card_svg
from ..wire.errors import ApiError
from .hub import Hub

__all__ = ["manifest", "site_router", "static_version"]

_STATIC = Path(str(resources.files("svoi_kozyri") / "web" / "static"))
THEME_COLOUR = "#0d3a21"
"""The header's and the browser's bar colour (the felt's edge, static/style.css)."""


@cache
def _catalogue(lang: str) -> dict[str, str]:
    """The page catalogue of ``lang`` (static/i18n), read once per process."""
    text = (_STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8")
    catalogue: dict[str, str] = json.loads(text)
    return catalogue


def manifest(lang: str = "en") -> dict[str, Any]:
    """The web app manifest in ``lang`` (one of the site's languages): what a
    browser needs to offer the site as an app, its name and description worded
    from the pages' catalogue.  The ``id`` is the same in every language, so an
    installed app is one app whatever language it was installed in."""
    words = _catalogue(lang)
    english = _catalogue("en")
    name = words.get("app.title") or english["app.title"]
    icons = [
        {"src": f"/static/icons/{kind}-{size}.png", "sizes": f"{size}x{size}", "type": "image/png"}
        | {"purpose": "maskable" if kind == "maskable" else "any"}
        for kind in ("icon", "maskable")
        for size in (192, 512)
    ]
    return {
        "id": "/",
        "name": name,
        "short_name": name,
        "description": words.get("manifest.description") or english["manifest.description"],
        "lang": lang,
        "dir": "ltr",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": THEME_COLOUR,
        "theme_color": THEME_COLOUR,
        "categories": ["games"],
        "icons": icons,
    }


def static_version(directory: Path | None = None) -> str:
    """A hash of every file under the static directory (names and contents): the
    service worker's cache version, so a deploy that changes any static file
    installs a new worker, which drops the old cache.  The site's own directory's
    is computed once per process."""
    if directory is None:
        return _site_version()
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        digest.update(path.relative_to(directory).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@cache
def _site_version() -> str:
    return static_version(_STATIC)


@cache
def _service_worker() -> str:
    """``static/sw.js`` with its cache version written in."""
    source = (_STATIC / "sw.js").read_text(encoding="utf-8")
    return source.replace("__SK_VERSION__", _site_version())


def site_router(hub: Hub) -> APIRouter:
    """The routes that belong to no table and no feature."""
    r = APIRouter()

    @r.get("/", include_in_schema=False)
    async def index() -> HTMLResponse:
        return page_shell("app")

    @r.get("/rules", include_in_schema=False)
    async def rules_page(
        accept_language: Annotated[str | None, Header()] = None,
    ) -> RedirectResponse:
        """The rules page in the browser's language (``/rules/<lang>``, features/learn.py)."""
        return RedirectResponse(f"/rules/{learn.rules_language(accept_language)}", 307)

    @r.get("/healthz")
    async def healthz(events: bool = False) -> dict[str, Any]:
        """Liveness, and this process's tables and actions; ``?events=true`` adds
        the events stored by every process (the load benchmark's count)."""
        extra = {"events": hub.store.total_events()} if events else {}
        return {
            **extra,
            "ok": True,
            "tables": len(hub.tables),
            "actions": hub.actions,
            "pid": os.getpid(),
        }

    @r.get("/manifest.webmanifest", include_in_schema=False)
    async def web_manifest(
        accept_language: Annotated[str | None, Header()] = None,
    ) -> Response:
        """The web app manifest (every page links it) in the browser's language
        (``Accept-Language``, as the rules page; else English)."""
        return Response(
            json.dumps(manifest(learn.rules_language(accept_language)), ensure_ascii=False),
            media_type="application/manifest+json",
            headers={"Cache-Control": "public, max-age=3600", "Vary": "Accept-Language"},
        )

    @r.get("/sw.js", include_in_schema=False)
    async def service_worker() -> Response:
        """The service worker, from the root so that it may control every page;
        never cached by the browser, so a deploy reaches it at the next visit."""
        return Response(
            _service_worker(),
            media_type="text/javascript",
            headers={"Cache-Control": "no-cache"},
        )

    @r.get("/cards/{name}.svg", include_in_schema=False)
    async def card_image(name: str, letters: str = "en", deck: str = "classic") -> Response:
        if name == "back":
            body = back_svg()
        else:
            try:
                body = card_svg(parse_card(name), letters, deck)
            except CardError as e:
                raise ApiError("bad_card", str(e), 404) from None
        return Response(
            body,
            media_type="image/svg+xml",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    @r.get("/api/bots")
    async def bots() -> dict[str, Any]:
        """Bots that can take a seat (strongest first) and the default one."""
        return {"bots": hub.bots, "default": hub.default_bot}

    @r.get("/api/rules-options")
    async def rules_options() -> dict[str, Any]:
        """The rules options a table may set (SPEC C9): type, allowed values, defaults."""
        return {"options": option_specs()}

    return r
