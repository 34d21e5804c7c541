"""Per-account preferences: the look of the game follows the player to every device.

The browser keeps the card deck, the corner letters, the table's colour, "notify
me on my turn" and the pages' language in its own storage (``static/theme.js``,
``settings.js``, ``i18n.js``), which is all a guest has.  A logged-in player's
choices are kept with the account as well, so that a new phone shows the game
the way the player set it up on their computer: at log-in (and on every page
load of a logged-in browser) the browser applies what the account saved, the
account winning over the browser, and each change made while logged in is saved
back (``static/prefs.js``).  Logged out, the browser keeps its own.

* ``GET /api/account/prefs``: ``{"prefs": {...}}``, only the preferences the
  account has chosen (an account that chose nothing answers ``{}``).
* ``PUT`` (or ``POST``) ``/api/account/prefs`` with one or more of ``deck``,
  ``letters``, ``table``, ``notify``, ``lang``: the keys sent replace the saved
  ones (``null`` forgets one, so the browser's own stands again), the others are
  kept; the answer is the GET's.  Strict: an unknown key, a value outside the
  known ones or an empty change is 422 ``invalid`` and changes nothing; the body
  is limited to :data:`MAX_BODY_BYTES`; CSRF as every state-changing request
  (:class:`~.accounts.CsrfMiddleware`); rate-limited per account in the
  database (:meth:`~.players.Players.limiter`, shared by every process).

Guests are refused with 401 ``login_required``: their preferences stay in their
browser.  One column per preference (``sk_account_prefs``), changed by an UPDATE
of only the columns sent, so two devices changing different preferences at once
never overwrite each other, on SQLite as on PostgreSQL with many workers.
"""

from __future__ import annotations

import time
from typing import Any, Literal, Self

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, model_validator
from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..storage.schema import account_prefs_t
from .accounts import AccountError, User
from .players import Players

__all__ = ["MAX_BODY_BYTES", "AccountPrefs", "PrefsChange", "prefs_router"]

MAX_BODY_BYTES = 1024
"""The largest body ``PUT /api/account/prefs`` accepts (a full change is under 120 bytes)."""

RATE_PURPOSE = "prefs"
"""The rate limit a save takes a token from (keyed by account, not address: only
accounts save, and a household behind one address should not share one bucket)."""

# The values the pages offer; tests/test_prefs.py checks them against svg.DECKS,
# svg.INDEX_LETTERS, theme.js and the catalogues, so that no side knows a value
# the other refuses.
Deck = Literal["classic", "four", "large"]
Letters = Literal["auto", "en", "ru"]
TableColour = Literal["light", "dark"]
Language = Literal["en", "ru", "it", "es", "nl", "pt", "ko"]

COLUMNS: dict[str, str] = {
    "deck": "deck",
    "letters": "letters",
    "table": "table_colour",
    "notify": "notify",
    "lang": "lang",
}
"""Each preference's column (``table`` is a reserved word in SQL)."""


class PrefsChange(BaseModel):
    """``PUT /api/account/prefs``: the preferences to change; ``null`` forgets one."""

    model_config = ConfigDict(extra="forbid", strict=True)

    deck: Deck | None = None
    letters: Letters | None = None
    table: TableColour | None = None
    notify: bool | None = None
    lang: Language | None = None

    @model_validator(mode="after")
    def _names_one(self) -> Self:
        """An empty change is a mistake of the caller, not a no-op to answer 200."""
        if not self.model_fields_set:
            raise ValueError("name at least one preference")
        return self

    def columns(self) -> dict[str, Any]:
        """The columns this change sets, and to what (only the keys that were sent)."""
        out: dict[str, Any] = {}
        for key in sorted(self.model_fields_set):
            value = getattr(self, key)
            out[COLUMNS[key]] = int(value) if isinstance(value, bool) else value
        return out


class PrefsView(BaseModel):
    """What the account has chosen (a key it has not chosen is absent)."""

    prefs: dict[str, str | bool]


class AccountPrefs:
    """The ``sk_account_prefs`` rows: read and change one account's preferences."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def get(self, user_id: int) -> dict[str, str | bool]:
        """The preferences ``user_id`` has chosen ({} if none)."""
        t = account_prefs_t
        with self.engine.connect() as conn:
            row = conn.execute(select(t).where(t.c.user_id == user_id)).mappings().first()
        if row is None:
            return {}
        out: dict[str, str | bool] = {}
        for key, column in COLUMNS.items():
            value = row[column]
            if value is not None:
                out[key] = bool(value) if key == "notify" else str(value)
        return out

    def save(self, user_id: int, change: PrefsChange) -> dict[str, str | bool]:
        """Set the columns ``change`` names for ``user_id``; the preferences after it.

        An UPDATE of those columns only; the first save INSERTs the row, and
        when another process inserted it in between (the primary key refuses
        the second), the UPDATE is made on the row that won."""
        values = change.columns() | {"updated": time.time()}
        t = account_prefs_t
        if not self._update(user_id, values):
            try:
                with self.engine.begin() as conn:
                    conn.execute(insert(t).values(user_id=user_id, **values))
            except IntegrityError:
                self._update(user_id, values)
        return self.get(user_id)

    def _update(self, user_id: int, values: dict[str, Any]) -> bool:
        """Whether the account's row existed (and now holds ``values``)."""
        t = account_prefs_t
        with self.engine.begin() as conn:
            done = conn.execute(update(t).where(t.c.user_id == user_id).values(**values))
        return done.rowcount > 0


def _account(players: Players, request: Request) -> User:
    """The request's account; a guest is refused (their choices stay in their browser)."""
    user = players.user_of(request)
    if user is None:
        raise AccountError(
            "login_required", "log in to keep your preferences with your account", 401
        )
    return user


def prefs_router(players: Players) -> APIRouter:
    """``/api/account/prefs``: read and change the account's preferences (module docstring)."""
    r = APIRouter(prefix="/api/account", tags=["accounts"])
    prefs = AccountPrefs(players.store.engine)

    @r.get("/prefs")
    def read_prefs(request: Request, response: Response) -> PrefsView:
        """The preferences the logged-in account has chosen."""
        response.headers["Cache-Control"] = "no-store"  # one account's, never a cache's
        return PrefsView(prefs=prefs.get(_account(players, request).id))

    @r.put("/prefs")
    @r.post("/prefs")
    def save_prefs(change: PrefsChange, request: Request, response: Response) -> PrefsView:
        """Save the preferences sent; the others the account chose are kept."""
        user = _account(players, request)
        players.limiter.check(RATE_PURPOSE, f"user:{user.id}")
        response.headers["Cache-Control"] = "no-store"
        return PrefsView(prefs=prefs.save(user.id, change))

    return r
