"""Friends: follows, presence, blocks and direct challenges (issue 22, item 2).

What an account can do here (``/api/friends*``, ``/api/challenges*``; guests get
``login_required``: they keep playing friends by invite link):

* **Follow** another account (one way, no consent needed, like a bookmark) and
  see, for the people they follow and the people who follow them, whether each
  is *online* (seen within :attr:`~.accounts.AccountSettings.online_s`: every
  authenticated request marks an account as seen, and the friends page and the
  header's badge poll), *playing* (holds a seat at an unfinished table that moved
  within :data:`PLAYING_S`) and, when that table is listed, the table to watch.
  An unlisted table stays private: "playing", no id.
* **Block** another account (:mod:`.blocks`): the follows between the two end,
  their open challenges are cancelled, and from then on neither follows,
  challenges or shares a table with the other, and the lists never show one to
  the other.
* **Challenge** an account to a table: the challenger picks 2, 3 or 4 players
  (the other seats are bots of one chosen level), rated or casual, listed or
  not, and a few rules.  The challenge is a row of ``sk_challenges``, open for
  :data:`CHALLENGE_TTL_S`; the challenged accepts or declines, the challenger
  may cancel, and a :class:`~.services.LoopService` marks the old ones expired.

Why secrets and not seat tokens: the table is made when the challenged accepts,
while the challenger is only polling.  So the challenger's browser is given a
secret once, when the challenge is made (only its hash is stored), and the
accepter's once, in the answer to the accept; the table's seats are claimed
with those hashes (:meth:`.players.Players.seat_table`), and each browser keeps
its secret as the table's seat token.  The challenger's page learns the table's
id by polling its challenge.

Every state change is one conditional ``UPDATE ... WHERE state = 'open'``: two
workers, or a double click, accept a challenge once; the loser is told why
(expired, cancelled, taken).  Every refusal is an :class:`~.accounts.AccountError`
with a stable code and changes nothing.  Follows, blocks and challenges are rate
limited per account and per address (``follow``, ``block``, ``challenge`` in the
shared limiter).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sqlalchemy import Connection, Row, and_, delete, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ..edge.guard import client_key
from ..storage.schema import (
    challenges_t,
    follows_t,
    seat_accounts_t,
    tables_t,
    users_t,
)
from ..table.game import TableError, rules_for
from ..table.service import Holder
from ..wire.auth import hash_token, new_token
from ..wire.schemas import SeatConfig, TableConfig
from .accounts import AccountError, User
from .blocks import Blocks
from .moderation import refuse_muted
from .players import Players
from .services import LoopService

__all__ = ["FriendService", "friends_router", "install_friends"]

CHALLENGE_TTL_S = 120.0
"""How long a challenge waits for an answer."""
PLAYING_S = 900.0
"""A seat at an unfinished table counts as "playing" while the table moved within
this many seconds (an abandoned table is not a game in progress)."""
KEEP_S = 86_400.0
"""Answered and expired challenges are deleted after a day."""
SHOWN_S = 120.0
"""How long the challenger still sees an answered challenge (its table, a decline)."""
SWEEP_S = 10.0
"""How often open challenges past their time are marked expired."""
MAX_FOLLOWS = 500
MAX_OPEN_CHALLENGES = 3
"""Open challenges one account may have out at once."""

Role = Literal["challenger", "challenged"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NameRequest(_Strict):
    """``POST /api/friends/{follow,unfollow,block,unblock}``: the other account."""

    name: str = Field(min_length=1, max_length=64)


class ChallengeRequest(_Strict):
    """``POST /api/challenges``: whom, and the table to play at."""

    to: str = Field(min_length=1, max_length=64)
    players: int = Field(default=2, ge=2, le=4)
    rated: bool = False
    listed: bool = True
    bot: str | None = Field(default=None, max_length=40)
    """The level of the bots in the other seats of a 3- or 4-player table."""
    rules: dict[str, Any] = Field(default_factory=dict)


class Presence(BaseModel):
    """One person in a friends list."""

    name: str
    online: bool
    playing: bool
    watch: str | None
    """The listed table they play at (``#/t/<id>?watch``), None if none or unlisted."""
    i_follow: bool
    follows_me: bool


class FriendsView(BaseModel):
    """``GET /api/friends``."""

    following: list[Presence]
    followers: list[Presence]
    blocked: list[str]


class ChallengeView(BaseModel):
    """A challenge as either of its two players sees it (never the secret)."""

    id: str
    challenger: str
    challenged: str
    players: int
    rated: bool
    listed: bool
    bot: str | None
    rules: dict[str, Any]
    state: str
    expires_in: float
    table_id: str | None


class ChallengesView(BaseModel):
    """``GET /api/challenges``: open challenges to me, and mine (open or just answered)."""

    incoming: list[ChallengeView]
    outgoing: list[ChallengeView]


class ChallengeMade(BaseModel):
    """The answer to ``POST /api/challenges``: the challenge and, once, the
    challenger's secret (their seat token at the table, once accepted)."""

    challenge: ChallengeView
    secret: str


class ChallengeAccepted(BaseModel):
    """The answer to an accept: the table and, once, the accepter's seat secret."""

    table_id: str
    secret: str


def _err(code: str, message: str, status: int = 400) -> AccountError:
    return AccountError(code, message, status)


class FriendService:
    """The database side of the feature (see the module docstring)."""

    def __init__(self, players: Players) -> None:
        self.players = players
        self.accounts = players.accounts
        self.engine = players.store.engine
        self.blocks: Blocks = players.blocks

    # -- the other account ---------------------------------------------------------

    def target(self, me: User, name: str) -> User:
        """The account called ``name`` that ``me`` acts on: it must exist, be a
        person and not be ``me``."""
        other = self.accounts.user_by_name(name.strip())
        if other is None:
            raise _err("unknown_user", f"no account {name.strip()[:32]!r}", 404)
        if other.id == me.id:
            raise _err("self_target", "that is your own account")
        if other.is_bot:
            raise _err("bot_account", "bots are played from the lobby, not followed or challenged")
        return other

    def check_unblocked(self, me: User, other: User) -> None:
        """Refuse when either of the two blocks the other."""
        if self.blocks.blocks(me.id, other.id):
            raise _err("you_blocked", "you blocked this player: unblock them first", 409)
        if self.blocks.blocks(other.id, me.id):
            raise _err("blocked", "this player does not accept that from you", 403)

    # -- follows -------------------------------------------------------------------

    def follow(self, me: User, name: str) -> bool:
        """Follow ``name``; False when already followed."""
        other = self.target(me, name)
        self.check_unblocked(me, other)
        with self.engine.connect() as conn:
            n = conn.execute(
                select(func.count()).select_from(follows_t).where(follows_t.c.follower == me.id)
            ).scalar_one()
        if int(n) >= MAX_FOLLOWS:
            raise _err("too_many_follows", f"you follow {MAX_FOLLOWS} players already", 409)
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    insert(follows_t).values(follower=me.id, followee=other.id, created=time.time())
                )
        except IntegrityError:
            return False
        return True

    def unfollow(self, me: User, name: str) -> bool:
        """Stop following ``name``; False when not followed."""
        other = self.target(me, name)
        with self.engine.begin() as conn:
            res = conn.execute(
                delete(follows_t).where(
                    follows_t.c.follower == me.id, follows_t.c.followee == other.id
                )
            )
        return bool(res.rowcount)

    def block(self, me: User, name: str) -> bool:
        """Block ``name``: end the follows both ways and cancel the open
        challenges between the two; False when blocked already."""
        other = self.target(me, name)
        added = self.blocks.add(me.id, other.id)
        pair = or_(
            and_(follows_t.c.follower == me.id, follows_t.c.followee == other.id),
            and_(follows_t.c.follower == other.id, follows_t.c.followee == me.id),
        )
        between = or_(
            and_(challenges_t.c.from_user == me.id, challenges_t.c.to_user == other.id),
            and_(challenges_t.c.from_user == other.id, challenges_t.c.to_user == me.id),
        )
        with self.engine.begin() as conn:
            conn.execute(delete(follows_t).where(pair))
            conn.execute(
                update(challenges_t)
                .where(between, challenges_t.c.state == "open")
                .values(state="cancelled", decided=time.time())
            )
        return added

    def unblock(self, me: User, name: str) -> bool:
        """Lift a block ``me`` made; False when there was none."""
        return self.blocks.remove(me.id, self.target(me, name).id)

    # -- the lists -----------------------------------------------------------------

    def view(self, me: User) -> FriendsView:
        """Whom ``me`` follows, who follows ``me`` (both with presence), whom ``me``
        blocks.  Nobody on either side of a block with ``me`` is in the lists."""
        hidden = self.blocks.related(me.id)
        blocked_ids = self.blocks.blocked_by(me.id)
        with self.engine.connect() as conn:
            following = {
                int(r.followee)
                for r in conn.execute(
                    select(follows_t.c.followee).where(follows_t.c.follower == me.id)
                )
            } - hidden
            followers = {
                int(r.follower)
                for r in conn.execute(
                    select(follows_t.c.follower).where(follows_t.c.followee == me.id)
                )
            } - hidden
            people = self._presence(conn, following | followers | set(blocked_ids))
        for uid, p in people.items():
            p.i_follow = uid in following
            p.follows_me = uid in followers
        by_name = sorted(people.values(), key=lambda p: (p.name.casefold(), p.name))
        return FriendsView(
            following=[p for p in by_name if p.i_follow],
            followers=[p for p in by_name if p.follows_me],
            blocked=[people[u].name for u in blocked_ids if u in people],
        )

    def _presence(self, conn: Connection, ids: set[int]) -> dict[int, Presence]:
        """Presence of the accounts ``ids`` (one query for the names, one for the
        tables)."""
        if not ids:
            return {}
        now = time.time()
        online_since = now - self.accounts.settings.online_s
        users = conn.execute(
            select(users_t.c.id, users_t.c.username, users_t.c.last_seen).where(
                users_t.c.id.in_(sorted(ids))
            )
        ).all()
        seats = conn.execute(
            select(seat_accounts_t.c.user_id, tables_t.c.id, tables_t.c.listed)
            .join(tables_t, tables_t.c.id == seat_accounts_t.c.table_id)
            .where(
                seat_accounts_t.c.user_id.in_(sorted(ids)),
                tables_t.c.status != "finished",
                tables_t.c.updated >= now - PLAYING_S,
            )
            .order_by(tables_t.c.updated)
        ).all()
        table: dict[int, tuple[str, bool]] = {}
        for s in seats:  # the most recently moved table last, so it wins
            table[int(s.user_id)] = (str(s.id), bool(s.listed))
        out: dict[int, Presence] = {}
        for u in users:
            uid = int(u.id)
            at = table.get(uid)
            out[uid] = Presence(
                name=u.username,
                online=float(u.last_seen) >= online_since,
                playing=at is not None,
                watch=at[0] if at is not None and at[1] else None,
                i_follow=False,
                follows_me=False,
            )
        return out

    # -- challenges ----------------------------------------------------------------

    def config_for(self, req: ChallengeRequest) -> TableConfig:
        """The table a challenge asks for, checked now (not when it is accepted):
        the challenger and the challenged in the first two seats, bots after."""
        bot: str | None = None
        if req.players > 2:
            known = list(getattr(self.players.hub, "bots", []))
            bot = (req.bot or (known[0] if known else "")).lower()
            if bot not in known:
                raise _err("bad_config", f"unknown bot {bot[:40]!r}")
        elif req.bot is not None:
            raise _err("bad_config", "a two-player challenge has no bots")
        if "num_players" in req.rules and req.rules["num_players"] != req.players:
            raise _err("bad_config", "rules.num_players is not the number of players")
        seats = [SeatConfig(kind="human"), SeatConfig(kind="human")]
        seats += [SeatConfig(kind="bot", bot=bot) for _ in range(req.players - 2)]
        try:
            config = TableConfig(seats=seats, rules=req.rules, rated=req.rated, listed=req.listed)
            rules_for(config)
        except ValidationError as e:
            raise _err("bad_config", f"invalid rules: {e.errors()[0]['msg']}") from None
        except TableError as e:
            raise _err("bad_config", str(e)) from None
        return config

    def challenge(self, me: User, req: ChallengeRequest) -> ChallengeMade:
        """Challenge ``req.to``; the challenge and the challenger's secret (once)."""
        other = self.target(me, req.to)
        self.check_unblocked(me, other)
        config = self.config_for(req)
        now = time.time()
        secret = new_token()
        cid = secrets.token_hex(8)
        with self.engine.begin() as conn:
            mine = conn.execute(
                select(challenges_t.c.to_user).where(
                    challenges_t.c.from_user == me.id,
                    challenges_t.c.state == "open",
                    challenges_t.c.expires > now,
                )
            ).all()
            if any(int(r.to_user) == other.id for r in mine):
                raise _err("challenge_pending", "you already challenged this player", 409)
            if len(mine) >= MAX_OPEN_CHALLENGES:
                raise _err(
                    "too_many_challenges",
                    f"at most {MAX_OPEN_CHALLENGES} open challenges at once",
                    409,
                )
            conn.execute(
                insert(challenges_t).values(
                    id=cid,
                    from_user=me.id,
                    to_user=other.id,
                    config=config.model_dump_json(),
                    token_hash=hash_token(secret),
                    state="open",
                    created=now,
                    expires=now + CHALLENGE_TTL_S,
                )
            )
        return ChallengeMade(challenge=self.one(me, cid), secret=secret)

    def _row(self, cid: str) -> Row[Any] | None:
        """Challenge ``cid``'s row, or None."""
        with self.engine.connect() as conn:
            return conn.execute(select(challenges_t).where(challenges_t.c.id == cid)).first()

    def one(self, me: User, cid: str) -> ChallengeView:
        """One challenge of ``me``'s (either side)."""
        row = self._row(cid)
        if row is None or me.id not in (int(row.from_user), int(row.to_user)):
            raise _err("no_challenge", "no such challenge", 404)
        return self._views([row])[0]

    def _views(self, rows: Sequence[Row[Any]]) -> list[ChallengeView]:
        """The rows as their players see them: names, the table asked for, the
        seconds left (an open row past its time reads as expired before the
        sweep marks it)."""
        if not rows:
            return []
        ids = {int(r.from_user) for r in rows} | {int(r.to_user) for r in rows}
        with self.engine.connect() as conn:
            names = {
                int(u.id): str(u.username)
                for u in conn.execute(
                    select(users_t.c.id, users_t.c.username).where(users_t.c.id.in_(sorted(ids)))
                )
            }
        now = time.time()
        out = []
        for r in rows:
            config = TableConfig.model_validate_json(r.config)
            bots = [s.bot for s in config.seats if s.kind == "bot"]
            expired = r.state == "open" and float(r.expires) <= now
            out.append(
                ChallengeView(
                    id=r.id,
                    challenger=names.get(int(r.from_user), "?"),
                    challenged=names.get(int(r.to_user), "?"),
                    players=len(config.seats),
                    rated=config.rated,
                    listed=config.listed,
                    bot=bots[0] if bots else None,
                    rules=config.rules,
                    state="expired" if expired else r.state,
                    expires_in=max(0.0, round(float(r.expires) - now, 1)),
                    table_id=r.table_id,
                )
            )
        return out

    def challenges(self, me: User) -> ChallengesView:
        """Open challenges to ``me``, and ``me``'s own: open, or answered within
        :data:`SHOWN_S` (the challenger's page learns the table from them)."""
        now = time.time()
        hidden = sorted(self.blocks.related(me.id))
        with self.engine.connect() as conn:
            incoming = conn.execute(
                select(challenges_t)
                .where(
                    challenges_t.c.to_user == me.id,
                    challenges_t.c.state == "open",
                    challenges_t.c.expires > now,
                    challenges_t.c.from_user.not_in(hidden),
                )
                .order_by(challenges_t.c.created)
            ).all()
            outgoing = conn.execute(
                select(challenges_t)
                .where(
                    challenges_t.c.from_user == me.id,
                    or_(
                        and_(
                            challenges_t.c.state == "open",
                            challenges_t.c.expires >= now - SHOWN_S,
                        ),
                        challenges_t.c.decided >= now - SHOWN_S,
                    ),
                )
                .order_by(challenges_t.c.created)
            ).all()
        return ChallengesView(incoming=self._views(incoming), outgoing=self._views(outgoing))

    def _settle(self, me: User, cid: str, role: Role, state: str) -> Row[Any]:
        """Move challenge ``cid`` from open to ``state`` for ``me`` acting as
        ``role``, in one conditional UPDATE (only one of two racing requests
        wins); the row, or the reason it could not be."""
        now = time.time()
        who = challenges_t.c.to_user if role == "challenged" else challenges_t.c.from_user
        with self.engine.begin() as conn:
            res = conn.execute(
                update(challenges_t)
                .where(
                    challenges_t.c.id == cid,
                    who == me.id,
                    challenges_t.c.state == "open",
                    challenges_t.c.expires > now,
                )
                .values(state=state, decided=now)
            )
        row = self._row(cid)
        if res.rowcount == 1 and row is not None:
            return row
        raise _refusal(row, me, role, now)

    def accept(self, me: User, cid: str) -> tuple[Row[Any], str]:
        """Claim challenge ``cid`` for its challenged player; the row and the
        accepter's fresh secret.  The table is made by :meth:`seat`."""
        row = self._settle(me, cid, "challenged", "accepted")
        if self.blocks.any_between([int(row.from_user), int(row.to_user)]):
            self._fail(cid, "cancelled")  # blocked between the two clicks
            raise _err("blocked", "this player does not accept that from you", 403)
        return row, new_token()

    def seat(self, row: Row[Any], me: User, secret: str) -> str:
        """Make the accepted challenge's table (on the event loop: the table's
        timers are armed there) and note it on the challenge; the table's id."""
        challenger = self.accounts.user_by_id(int(row.from_user))
        if challenger is None:
            self._fail(row.id, "failed")
            raise _err("unknown_user", "the challenger's account is gone", 404)
        config = TableConfig.model_validate_json(row.config)
        holders = [
            Holder(challenger.username, str(row.token_hash), challenger.id),
            Holder(me.username, hash_token(secret), me.id),
        ]
        try:
            table_id = self.players.seat_table(config, holders)
        except Exception:
            self._fail(row.id, "failed")
            raise
        with self.engine.begin() as conn:
            conn.execute(
                update(challenges_t).where(challenges_t.c.id == row.id).values(table_id=table_id)
            )
        return table_id

    def _fail(self, cid: str, state: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(update(challenges_t).where(challenges_t.c.id == cid).values(state=state))

    def decline(self, me: User, cid: str) -> None:
        """The challenged player says no."""
        self._settle(me, cid, "challenged", "declined")

    def cancel(self, me: User, cid: str) -> None:
        """The challenger takes the challenge back."""
        self._settle(me, cid, "challenger", "cancelled")

    def expire(self) -> int:
        """Mark open challenges past their time expired, delete day-old ones;
        how many expired (the service's step, at every process: the UPDATE
        is conditional, so two processes never both act on one row)."""
        now = time.time()
        with self.engine.begin() as conn:
            res = conn.execute(
                update(challenges_t)
                .where(challenges_t.c.state == "open", challenges_t.c.expires <= now)
                .values(state="expired", decided=now)
            )
            conn.execute(delete(challenges_t).where(challenges_t.c.created < now - KEEP_S))
        return int(res.rowcount or 0)


def _refusal(row: Row[Any] | None, me: User, role: Role, now: float) -> AccountError:
    """Why challenge ``row`` could not be settled by ``me`` as ``role``."""
    if row is None:
        return _err("no_challenge", "no such challenge", 404)
    mine = int(row.to_user) if role == "challenged" else int(row.from_user)
    if mine != me.id:
        return _err("challenge_not_yours", "this challenge is not yours to answer", 403)
    if row.state == "expired" or (row.state == "open" and float(row.expires) <= now):
        return _err("challenge_expired", "this challenge has expired", 410)
    if row.state == "cancelled":
        return _err("challenge_cancelled", "this challenge was cancelled", 409)
    return _err("challenge_closed", f"this challenge was {row.state} already", 409)


def friends_router(players: Players, service: FriendService) -> APIRouter:
    """``/api/friends*`` and ``/api/challenges*`` (see the module docstring)."""
    r = APIRouter(tags=["friends"])

    def account(request: Request, purpose: str | None = None) -> User:
        """The request's account (guests are refused), its rate limits spent
        for ``purpose`` (per address and per account)."""
        user = players.user_of(request)
        if user is None:
            raise _err("login_required", "friends and challenges need an account: log in", 401)
        if purpose is not None:
            players.limiter.check(purpose, client_key(request.scope))
            players.limiter.check(purpose, f"account:{user.id}")
        return user

    @r.get("/api/friends")
    async def friends(request: Request) -> FriendsView:
        """Whom I follow and who follows me, with presence; whom I block.  Polling
        it keeps the account online."""
        return await asyncio.to_thread(service.view, account(request))

    async def _on_name(
        request: Request, purpose: str, act: Callable[[User, str], bool], req: NameRequest
    ) -> dict[str, bool]:
        """Spend ``purpose``'s limits, then ``act`` on the named account (in a thread)."""
        me = account(request, purpose)
        return {"ok": True, "changed": await asyncio.to_thread(act, me, req.name)}

    @r.post("/api/friends/follow")
    async def follow(req: NameRequest, request: Request) -> dict[str, bool]:
        """Follow an account."""
        return await _on_name(request, "follow", service.follow, req)

    @r.post("/api/friends/unfollow")
    async def unfollow(req: NameRequest, request: Request) -> dict[str, bool]:
        """Stop following an account."""
        return await _on_name(request, "follow", service.unfollow, req)

    @r.post("/api/friends/block")
    async def block(req: NameRequest, request: Request) -> dict[str, bool]:
        """Block an account (ends the follows and open challenges between you)."""
        return await _on_name(request, "block", service.block, req)

    @r.post("/api/friends/unblock")
    async def unblock(req: NameRequest, request: Request) -> dict[str, bool]:
        """Lift a block."""
        return await _on_name(request, "block", service.unblock, req)

    @r.get("/api/challenges")
    async def challenges(request: Request) -> ChallengesView:
        """Open challenges to me, and mine (with the table once accepted)."""
        return await asyncio.to_thread(service.challenges, account(request))

    @r.post("/api/challenges", status_code=201)
    async def challenge(req: ChallengeRequest, request: Request) -> ChallengeMade:
        """Challenge an account; the challenger's secret is in this answer only."""
        me = account(request, "challenge")
        await asyncio.to_thread(refuse_muted, players.store.engine, me.id)  # moderation.py
        return await asyncio.to_thread(service.challenge, me, req)

    @r.post("/api/challenges/{cid}/accept")
    async def accept(cid: str, request: Request) -> ChallengeAccepted:
        """Accept a challenge: the table is made; the accepter's secret is in
        this answer only."""
        me = account(request)
        row, secret = await asyncio.to_thread(service.accept, me, cid[:24])
        table_id = service.seat(row, me, secret)
        return ChallengeAccepted(table_id=table_id, secret=secret)

    @r.post("/api/challenges/{cid}/decline")
    async def decline(cid: str, request: Request) -> dict[str, bool]:
        """Decline a challenge."""
        await asyncio.to_thread(service.decline, account(request), cid[:24])
        return {"ok": True}

    @r.post("/api/challenges/{cid}/cancel")
    async def cancel(cid: str, request: Request) -> dict[str, bool]:
        """Take back my challenge."""
        await asyncio.to_thread(service.cancel, account(request), cid[:24])
        return {"ok": True}

    return r


def install_friends(players: Players) -> APIRouter:
    """The feature's service and router; its expiry loop joins the platform's
    services.  The router for the app to include."""
    service = FriendService(players)
    players.services.append(LoopService("challenges", service.expire, SWEEP_S))
    return friends_router(players, service)
