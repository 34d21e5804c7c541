"""The platform added to an app in one call: the CSRF middleware, the account,
profile and live-lobby routers, and the :class:`~.players.Players` object the
table endpoints call (``app.state.players``).  Refusals are
:class:`~.accounts.AccountError`, an ``ApiError`` answered by the app's one
handler (:mod:`svoi_kozyri.server.web.errors`)."""

from __future__ import annotations

from fastapi import FastAPI

from ..storage.store import Store
from ..table.service import TableService
from .accounts import AccountSettings, CsrfMiddleware
from .lobby_live import lobby_router
from .players import Players, account_router
from .profiles import profile_router

__all__ = ["install_players"]


def install_players(
    app: FastAPI, hub: TableService, store: Store, settings: AccountSettings | None = None
) -> Players:
    """Add accounts, profiles and the live lobby to ``app`` (see :mod:`.players`)."""
    players = Players(hub, store, settings)
    app.state.players = players
    app.add_middleware(CsrfMiddleware)

    app.include_router(account_router(players))
    app.include_router(profile_router(players))
    app.include_router(lobby_router(players))
    return players
