"""Accounts on the web server: the ``/api/account/*`` endpoints and the hooks that
tie accounts to table seats.

:func:`.install.install_players` adds to an app: the CSRF middleware, the account,
profile and lobby routers, and a :class:`Players` object (``app.state.players``)
whose hooks the table endpoints call:

* :meth:`Players.seat_name` before a seat is taken: a logged-in player sits
  under their account name; a guest may not take a registered name, nor one that
  looks like it (nobody can pass for an account), nor sit at a rated table; no
  two seats of a table have names that look alike;
* :meth:`Players.table_created` / :meth:`Players.seat_taken` after it: the seat is
  linked to the account (and a new table noted for results and ratings);
* :meth:`Players.seat_of_request`: the seat an account holds at a table, so a
  logged-in player sees their own cards in a replay or record of their game
  without the seat token (another account's cookie never opens it).

Seat tokens keep working exactly as before; an account is an addition.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from ..storage.store import Store
from ..table.service import Holder, TableService, TokenLimiter
from ..wire.names import looks_alike
from ..wire.schemas import SeatGrant, TableConfig
from .accounts import (
    CSRF_COOKIE,
    SESSION_COOKIE,
    AccountError,
    AccountService,
    AccountSettings,
    User,
    csrf_for_session,
)
from .blocks import Blocks
from .ratings_service import RatingService
from .services import LoopService

log = logging.getLogger("svoi_kozyri.server.platform.accounts")

SeatTokenHeader = Annotated[str | None, Header(max_length=100)]

SEAT_TIMEOUT_S = 10.0
"""How long a service's thread waits for the loop to make its table."""

SWEEP_S = 2.0
"""How often finished tables are looked for (results and ratings)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SeatClaim(_Strict):
    """A guest seat to attach to a new account (the token travels in the body, never a URL)."""

    table_id: str = Field(max_length=32)
    token: str = Field(max_length=100)


class RegisterRequest(_Strict):
    """``POST /api/account/register``."""

    username: str = Field(max_length=32)
    password: str = Field(max_length=256)
    claims: list[SeatClaim] = Field(default_factory=list, max_length=20)


class LoginRequest(_Strict):
    """``POST /api/account/login``."""

    username: str = Field(max_length=64)
    password: str = Field(max_length=256)


class ClaimRequest(_Strict):
    """``POST /api/account/claim`` (with the seat's token in ``X-Seat-Token``)."""

    table_id: str = Field(max_length=32)


class AccountView(BaseModel):
    """What the browser learns about its own account."""

    username: str
    bot: bool
    created: float


class MeView(BaseModel):
    """``GET /api/account/me``: the account (null for a guest) and the CSRF token to
    send back in ``X-CSRF-Token``."""

    user: AccountView | None
    csrf: str


def _view(user: User) -> AccountView:
    return AccountView(username=user.username, bot=user.is_bot, created=user.created)


def _running_on(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def client_ip(request: Request) -> str:
    """The address a request comes from (the proxy's view when uvicorn trusts it)."""
    return request.client.host if request.client else "unknown"


class Players:
    """Accounts and ratings bound to one app's hub (see the module docstring)."""

    def __init__(
        self, hub: TableService, store: Store, settings: AccountSettings | None = None
    ) -> None:
        self.hub = hub
        self.store = store
        reserved = set(getattr(hub, "bots", [])) | {
            "random",
            "greedy",
            "heuristic",
            "pimc",
            "ismcts",
        }
        self.accounts = AccountService(store.engine, settings, reserved=reserved)
        self.ratings = RatingService(store, self.accounts)
        for b in getattr(hub, "bots", []):
            self.accounts.ensure_bot(b)
        self.blocks = Blocks(store.engine)
        """Who blocks whom (:mod:`.blocks`): joins, pairing and chat keep blocked pairs apart."""
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.services: list[LoopService] = []
        """Background loops of the platform's features (pairing, challenges,
        tournaments), started and stopped with the app."""

    def stopped_services(self) -> list[str]:
        """The names of the services that should run and do not (``/readyz``): a
        process whose pairing or tournament loop died must not be sent players."""
        if self._loop is None:
            return []  # not started (yet): the app's lifespan says so itself
        return [s.name for s in self.services if not s.running]

    @property
    def limiter(self) -> TokenLimiter:
        """The hub's rate limits, in the database (shared by every process)."""
        return self.hub.limiter

    def seat_table(self, config: TableConfig, holders: list[Holder]) -> str:
        """Create a table seating ``holders`` in its human seats (in order), note
        it for results and ratings and link each account to its seat; the id.
        The one way pairing, challenges and tournaments make a table.

        The tables live on the event loop (the hub is not thread-safe), while the
        services' steps run in threads: called from another thread, the creation
        is handed to the loop and this waits for it."""
        loop = self._loop
        if loop is not None and not _running_on(loop):
            future = asyncio.run_coroutine_threadsafe(self._seat_async(config, holders), loop)
            return future.result(timeout=SEAT_TIMEOUT_S)
        return self._seat_table(config, holders)

    async def _seat_async(self, config: TableConfig, holders: list[Holder]) -> str:
        return self._seat_table(config, holders)

    def _seat_table(self, config: TableConfig, holders: list[Holder]) -> str:
        table_id = self.hub.create_seated(config, holders)
        self.ratings.table_created(table_id, config)
        humans = [i for i, s in enumerate(config.seats) if s.kind == "human"]
        for seat, holder in zip(humans, holders, strict=True):
            if holder.user_id is not None:
                user = self.accounts.user_by_id(holder.user_id)
                if user is not None:
                    self.accounts.link_seat(table_id, seat, user)
        return table_id

    # -- lifecycle -----------------------------------------------------------------

    async def start(self) -> None:
        """Start the sweeper that records results and ratings of finished tables,
        and the features' services."""
        if self._loop is None:  # the first start's loop holds the tables
            self._loop = asyncio.get_running_loop()
        self._task = asyncio.create_task(self._sweep())
        for service in self.services:
            await service.start()

    async def stop(self) -> None:
        """Stop the services and the sweeper."""
        for service in reversed(self.services):
            await service.stop()
        if self._loop is asyncio.get_running_loop():
            self._loop = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_S)
            try:
                await asyncio.to_thread(self.ratings.process_finished)
            except Exception:
                log.exception("recording results failed")

    # -- requests ------------------------------------------------------------------

    def user_of(self, request: Request) -> User | None:
        """The account of the request's session cookie, or None (a guest)."""
        return self.accounts.session_user(request.cookies.get(SESSION_COOKIE))

    def seat_name(
        self, request: Request, name: str, rated: bool, table_id: str | None = None
    ) -> tuple[User | None, str]:
        """Who takes a seat and under which name (see the module docstring).  An
        account sits at most once at a table (else one player could fill two seats
        of a rated table)."""
        user = self.user_of(request)
        if user is not None:
            if table_id is not None and self.accounts.seat_of_user(table_id, user) is not None:
                raise AccountError("already_seated", "you already have a seat at this table", 409)
            if table_id is not None and self.blocks.at_table(user.id, table_id):
                raise AccountError(
                    "blocked_at_table", "a player at this table and you block one another", 403
                )
            self._check_table_names(table_id, user.username)
            return user, user.username
        if rated:
            raise AccountError("login_required", "rated tables are for accounts: log in first", 403)
        if self.accounts.name_registered(name):
            raise AccountError(
                "name_reserved",
                f"{name.strip()!r} is an account's name (or looks like one): log in, "
                "or choose another name",
                409,
            )
        self._check_table_names(table_id, name)
        return None, name

    def _check_table_names(self, table_id: str | None, name: str) -> None:
        """Refuse a name that looks like another seat's at the table but is not
        the same text (``аlice`` beside ``alice``: the TR39 skeletons of
        :mod:`.names`).  The very same name stays allowed, as before: it is shown
        as the same name, told apart by the seat letters, and passes for nobody."""
        if table_id is None:
            return
        live = self.hub.get(table_id) if len(table_id) <= 32 else None
        if live is None:
            return  # the join answers no_table
        for seat in live.game.seats:
            if seat.name and seat.name != name and looks_alike(seat.name, name):
                raise AccountError(
                    "name_in_use",
                    "a player at this table has that name (or one that looks just like it)",
                    409,
                )

    def table_created(self, grant: SeatGrant, config: TableConfig, user: User | None) -> None:
        """Note a new table (and its bot and creator seats)."""
        self.ratings.table_created(grant.table_id, config)
        if user is not None:
            self.accounts.link_seat(grant.table_id, grant.seat, user)

    def seat_taken(self, grant: SeatGrant, user: User | None) -> None:
        """Link a joined seat to its account."""
        if user is not None:
            self.accounts.link_seat(grant.table_id, grant.seat, user)

    def is_rated(self, table_id: str) -> bool:
        """Whether the table is rated."""
        return self.ratings.is_rated(table_id)

    def seat_of_request(self, request: Request, table_id: str) -> int | None:
        """The seat the request's account holds at ``table_id``, or None."""
        return self.accounts.seat_of_user(table_id, self.user_of(request))

    def claim_all(self, user: User, claims: list[SeatClaim]) -> list[dict[str, Any]]:
        """Claim the guest seats a new account brought along; a stale token (from the
        browser's storage) claims nothing and is skipped."""
        claimed = []
        for c in claims:
            try:
                claimed.append(
                    {"table_id": c.table_id, "seat": self.claim(user, c.table_id, c.token)}
                )
            except AccountError:
                continue
        return claimed

    def claim(self, user: User, table_id: str, token: str | None) -> int:
        """Attach the seat that ``token`` holds at ``table_id`` to ``user``."""
        live = self.hub.get(table_id) if len(table_id) <= 32 else None
        if live is None:
            raise AccountError("no_table", f"no table {table_id!r}", 404)
        seat = self.hub.seat_of_token(live, token)
        if seat is None:
            raise AccountError("bad_token", "this token holds no seat at this table", 403)
        self.accounts.link_seat(table_id, seat, user)
        return int(seat)


def _set_session_cookies(response: Response, request: Request, sid: str, ttl: float) -> None:
    https = request.url.scheme == "https"
    response.headers["Cache-Control"] = "no-store"
    response.set_cookie(
        SESSION_COOKIE,
        sid,
        max_age=int(ttl),
        path="/",
        httponly=True,
        samesite="lax",
        secure=https,
    )
    response.set_cookie(
        CSRF_COOKIE,
        csrf_for_session(sid),
        max_age=int(ttl),
        path="/",
        httponly=False,  # the page reads it to send it back in X-CSRF-Token
        samesite="lax",
        secure=https,
    )


def _set_csrf_cookie(response: Response, request: Request, token: str, max_age: int | None) -> None:
    """The CSRF cookie the pages read (not HttpOnly: the double-submit token);
    a session's lasts as long as the session, a guest's for the browser session."""
    response.set_cookie(
        CSRF_COOKIE,
        token,
        max_age=max_age,
        path="/",
        httponly=False,
        samesite="lax",
        secure=request.url.scheme == "https",
    )


def _clear_session_cookies(response: Response) -> None:
    response.delete_cookie(SESSION_COOKIE, path="/")
    response.delete_cookie(CSRF_COOKIE, path="/")


def account_router(players: Players) -> APIRouter:
    """``/api/account/*``: me, register, log in, log out (here or everywhere), claim."""
    r = APIRouter(prefix="/api/account", tags=["accounts"])
    acc = players.accounts

    @r.get("/me")
    async def me(request: Request, response: Response) -> MeView:
        """The logged-in account (null for a guest) and the CSRF token."""
        response.headers["Cache-Control"] = "no-store"  # it carries the CSRF token
        sid = request.cookies.get(SESSION_COOKIE)
        user = acc.session_user(sid)
        if user is not None and sid:
            token = csrf_for_session(sid)
            if request.cookies.get(CSRF_COOKIE) != token:  # lost or stale: set it again
                _set_csrf_cookie(response, request, token, int(acc.settings.session_ttl_s))
            return MeView(user=_view(user), csrf=token)
        csrf = request.cookies.get(CSRF_COOKIE) or ""
        if len(csrf) < 32 or len(csrf) > 100:
            csrf = secrets.token_urlsafe(32)
            _set_csrf_cookie(response, request, csrf, None)
        if sid:  # a revoked or expired session: forget the cookie
            response.delete_cookie(SESSION_COOKIE, path="/")
        return MeView(user=None, csrf=csrf)

    @r.post("/register", status_code=201)
    async def register(
        req: RegisterRequest, request: Request, response: Response
    ) -> dict[str, Any]:
        """Create an account and log in; guest seats listed in ``claims`` become its own."""
        acc.throttle.check_registration(client_ip(request))
        user = await asyncio.to_thread(acc.register, req.username, req.password)
        claimed = players.claim_all(user, req.claims)
        sid = acc.new_session(user)
        _set_session_cookies(response, request, sid, acc.settings.session_ttl_s)
        return {"user": _view(user).model_dump(), "csrf": csrf_for_session(sid), "claimed": claimed}

    @r.post("/login")
    async def login(req: LoginRequest, request: Request, response: Response) -> dict[str, Any]:
        """Check the name and password (throttled) and open a session."""
        user = await asyncio.to_thread(
            acc.authenticate, req.username, req.password, client_ip(request)
        )
        old = request.cookies.get(SESSION_COOKIE)
        if old:
            acc.revoke(old)  # a new id on every log-in (no session fixation)
        sid = acc.new_session(user)
        _set_session_cookies(response, request, sid, acc.settings.session_ttl_s)
        return {"user": _view(user).model_dump(), "csrf": csrf_for_session(sid)}

    @r.post("/logout")
    async def logout(request: Request, response: Response) -> dict[str, Any]:
        """End this session."""
        sid = request.cookies.get(SESSION_COOKIE)
        if sid:
            acc.revoke(sid)
        _clear_session_cookies(response)
        return {"ok": True}

    @r.post("/logout-all")
    async def logout_all(request: Request, response: Response) -> dict[str, Any]:
        """End every session of this account, on every device."""
        user = players.user_of(request)
        if user is None:
            raise AccountError("login_required", "not logged in", 401)
        n = acc.revoke_all(user)
        _clear_session_cookies(response)
        return {"ok": True, "sessions": n}

    @r.post("/claim")
    async def claim(
        req: ClaimRequest,
        request: Request,
        x_seat_token: SeatTokenHeader = None,
    ) -> dict[str, Any]:
        """Make a guest seat (proved by its token) this account's own."""
        user = players.user_of(request)
        if user is None:
            raise AccountError("login_required", "log in to claim a seat", 401)
        seat = players.claim(user, req.table_id, x_seat_token)
        return {"table_id": req.table_id, "seat": seat}

    return r
