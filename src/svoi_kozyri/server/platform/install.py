"""The platform added to an app in one call: the CSRF middleware, the account,
profile, preferences and live-lobby routers, and the :class:`~.players.Players` object the
table endpoints call (``app.state.players``).  Refusals are
:class:`~.accounts.AccountError`, an ``ApiError`` answered by the app's one
handler (:mod:`svoi_kozyri.server.web.errors`)."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import FastAPI

from ..storage.store import Store
from ..table.service import TableService
from .accounts import AccountSettings, CsrfMiddleware
from .friends import install_friends
from .lobby_live import lobby_router
from .moderation import install_moderation
from .pairing import install_pairing
from .players import Players, account_router
from .prefs import prefs_router
from .profiles import profile_router
from .tournaments import install_tournaments

__all__ = ["install_players"]


def install_players(
    app: FastAPI,
    hub: TableService,
    store: Store,
    settings: AccountSettings | None = None,
    tournaments: Sequence[str] = (),
) -> Players:
    """Add accounts, profiles, the live lobby and tournaments to ``app`` (see
    :mod:`.players`); ``tournaments``: the operator's built-in schedules
    (``serve --tournament``, :func:`.tournaments.parse_schedule`)."""
    players = Players(hub, store, settings)
    app.state.players = players
    app.add_middleware(CsrfMiddleware)

    app.include_router(account_router(players))
    app.include_router(profile_router(players))
    app.include_router(lobby_router(players))
    app.include_router(install_friends(players))
    app.include_router(prefs_router(players))
    moderation, moderation_routes = install_moderation(players)
    app.state.moderation = moderation
    app.include_router(moderation_routes)
    pairing, pairing_routes = install_pairing(players, players.blocks)
    app.state.pairing = pairing
    app.include_router(pairing_routes)
    install_tournaments(app, players, tournaments)
    return players
