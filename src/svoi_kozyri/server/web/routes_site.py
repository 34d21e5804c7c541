"""The site's own routes: the app page, the rules redirect, liveness, card
images, the bots and the rules options a table may set."""

from __future__ import annotations

import os
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

__all__ = ["site_router"]


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

    @r.get("/cards/{name}.svg", include_in_schema=False)
    async def card_image(name: str, letters: str = "en") -> Response:
        if name == "back":
            body = back_svg()
        else:
            try:
                body = card_svg(parse_card(name), letters)
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
