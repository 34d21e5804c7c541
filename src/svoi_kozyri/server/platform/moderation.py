"""Moderation (issue 26, item 5): roles, bans and mutes, closing tables, removing
chat lines, players' reports and the audit log.

Roles (``sk_roles``): an ``admin`` or a ``moderator``.  The operator grants
either from the command line (``svoi-kozyri account role NAME admin|moderator|none``);
an admin grants and takes back ``moderator`` on the admin page (never ``admin``:
that stays with whoever runs the server).  Every endpoint below ``/api/mod``
but ``me`` and ``reports`` (to file one) asks for a role; a player without one
gets 403 ``forbidden``.

What a moderator can do, each written to the audit log (``sk_audit``) with who
did it, to whom and why:

* **ban** an account, for some minutes or until lifted: every session of the
  account is deleted at once (it is logged out on every device), a log-in is
  refused with 403 ``banned``, and a seat it holds at a table can no longer act
  or chat (the hub asks :class:`BanGate` before each move or hint);
* **mute** an account: its chat lines and challenges are refused (``muted``);
* **lift** a sanction before it expires (an expired one simply stops counting);
* **close a table**: a ``close`` event ends it through the table layer (the
  game is ``finished``, its view says ``closed``; no result or rating is kept);
* **remove a chat line**: its row is deleted, and every player at the table (at
  every process) is sent ``{"type": "chat", "id": N, "removed": true}``;
* **resolve a report** with one of those actions, or dismiss it.

Reports: a logged-in player reports a seat of a table (the player sitting
there) or a chat line with a short reason; a chat line only by someone who
holds a seat at its table (spectators never see the chat).  Guests cannot
report: a report names its reporter, so the queue cannot be flooded
anonymously, and a guest can leave the table or mute the seat instead.  A
report takes a token of the shared rate limit (:meth:`~.players.Players.limiter`).

Nothing secret reaches an answer or an audit line: no session, seat token,
password hash or card (a moderator watching a table sees what any spectator
sees).  Every state is a row in the database, read at each request, so a ban
made through one server process holds at every other at once.  The one check on
the hot path, whether a seat may move (:class:`BanGate`), answers from memory: the
bans in force are few, read in one statement when a ban is made or lifted (every
process hears of it through the notification sent in the same transaction) and
at least every :data:`BAN_REFRESH_S` seconds (issue 26, item 6: the query per
move was a sixth of the server's CPU).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Connection, Engine, and_, delete, insert, or_, select, update

from ..storage.schema import (
    audit_t,
    chat_t,
    reports_t,
    roles_t,
    sanctions_t,
    seat_accounts_t,
    table_meta_t,
    users_t,
)
from ..storage.store import _NOTIFY, CHANNEL
from ..table.game import TableError
from ..wire.events import CloseEvent
from ..wire.schemas import ServerChat
from .accounts import AccountError, User, username_key
from .players import Players

__all__ = [
    "BanGate",
    "Moderation",
    "ModerationError",
    "chat_refusal",
    "install_moderation",
    "refuse_muted",
    "set_role_by_name",
]

Role = Literal["admin", "moderator"]
SanctionKind = Literal["ban", "mute"]
Action = Literal["dismiss", "mute", "ban", "remove_chat", "close_table"]

MAX_REASON = 300
"""Characters of a report's or a sanction's reason."""
MAX_MINUTES = 366 * 24 * 60
"""The longest sanction with an end (a longer one is given without an end)."""
PAGE = 50
"""Rows per page of the queue, the sanctions and the audit log."""
RATE_PURPOSE = "report"
BAN_REFRESH_S = 2.0
"""The longest a process answers the seat gate from its copy of the bans in force
(the notification of a ban or a lifting refreshes it at once; this bounds a lost
notification, as the tables' safety net does for events)."""
SEAT_CACHE = 50_000
"""Seats whose account the gate remembers (cleared when full)."""


class ModerationError(AccountError):
    """A refused moderation request (an :class:`~.accounts.AccountError`)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


Reason = Annotated[str, Field(min_length=1, max_length=MAX_REASON)]
Minutes = Annotated[int, Field(ge=1, le=MAX_MINUTES)]


class ReportRequest(_Strict):
    """``POST /api/mod/reports``: a seat of a table, or one of its chat lines."""

    table_id: str = Field(min_length=1, max_length=32)
    seat: int | None = Field(default=None, ge=0, le=7)
    chat_id: int | None = Field(default=None, ge=1, le=1 << 62)
    reason: Reason


class SanctionRequest(_Strict):
    """``POST /api/mod/sanctions``: ban or mute an account (``minutes`` null: until lifted)."""

    username: str = Field(min_length=1, max_length=64)
    kind: SanctionKind
    minutes: Minutes | None = None
    reason: Reason


class ResolveRequest(_Strict):
    """``POST /api/mod/reports/{id}/resolve``."""

    action: Action
    minutes: Minutes | None = None
    note: str = Field(default="", max_length=MAX_REASON)


class CloseRequest(_Strict):
    """``POST /api/mod/tables/{id}/close``."""

    reason: Reason


class RoleRequest(_Strict):
    """``POST /api/mod/roles``: an admin makes an account a moderator, or not."""

    username: str = Field(min_length=1, max_length=64)
    role: Literal["moderator", "none"]


def _clean(text: str) -> str:
    """A reason as stored: whitespace folded, control characters gone."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def _in_force(now: float) -> Any:
    """The condition of a sanction row that counts now."""
    t = sanctions_t
    return and_(t.c.lifted.is_(None), or_(t.c.expires.is_(None), t.c.expires > now))


def _sanction_of(conn: Connection, user_id: int, kinds: Sequence[str]) -> Any:
    """The account's sanction in force of one of ``kinds`` that lasts longest, or None."""
    t = sanctions_t
    rows = conn.execute(
        select(t.c.kind, t.c.expires).where(
            t.c.user_id == user_id, t.c.kind.in_(kinds), _in_force(time.time())
        )
    ).all()
    if not rows:
        return None
    return max(rows, key=lambda r: float("inf") if r.expires is None else float(r.expires))


def _until(expires: float | None) -> str:
    """The end of a sanction in the English fallback message (pages word the code)."""
    return (
        "until lifted"
        if expires is None
        else time.strftime("until %Y-%m-%d %H:%M UTC", time.gmtime(expires))
    )


def _seat_user(conn: Connection, table_id: str, seat: int) -> int | None:
    """The account holding ``seat`` at ``table_id`` (None: a guest or a bot)."""
    row = conn.execute(
        select(seat_accounts_t.c.user_id).where(
            seat_accounts_t.c.table_id == table_id, seat_accounts_t.c.seat == seat
        )
    ).first()
    return int(row.user_id) if row is not None else None


def chat_refusal(engine: Engine, table_id: str, seat: int) -> tuple[str, str] | None:
    """``(code, message)`` when the account at ``seat`` may not chat (banned or
    muted), else None; a guest seat is never refused here."""
    with engine.connect() as conn:
        uid = _seat_user(conn, table_id, seat)
        row = _sanction_of(conn, uid, ("ban", "mute")) if uid is not None else None
    if row is None:
        return None
    what = "banned" if row.kind == "ban" else "muted"
    return what, f"this account is {what} {_until(row.expires)}"


class BanGate:
    """Whether a seat may act, answered from memory (the hub's seat gate).

    :meth:`known` answers at once when it can: with no ban in force (the usual
    case) every seat may act; with some, a seat whose account is remembered is
    checked against them.  Otherwise (the copy is older than
    :data:`BAN_REFRESH_S`, or the seat's account was not read yet) the hub asks
    :meth:`lookup` in a thread, which reads what is missing.  Which account
    holds a seat never changes once linked (``link_seat`` refuses another), so
    it is kept; that a seat has no account (a guest, who may still register and
    claim it) is kept only as long as the copy of the bans.
    """

    def __init__(self, engine: Engine, refresh_s: float = BAN_REFRESH_S) -> None:
        self.engine = engine
        self.refresh_s = refresh_s
        self._bans: dict[int, float | None] = {}
        self._read_at = -float("inf")
        self._seats: dict[tuple[str, int], int | None] = {}
        self._generation = 0

    def invalidate(self) -> None:
        """A ban was made or lifted: read the bans again before the next answer."""
        self._read_at = -float("inf")
        self._generation += 1

    def known(self, table_id: str, seat: int) -> tuple[bool, tuple[str, str] | None]:
        """``(True, refusal)`` when memory answers (refusal None: the seat may
        act), ``(False, None)`` when :meth:`lookup` must read."""
        if time.monotonic() - self._read_at > self.refresh_s:
            return False, None
        if not self._bans:
            return True, None
        key = (table_id, seat)
        if key not in self._seats:
            return False, None
        return True, self._refusal(self._seats[key])

    def lookup(self, table_id: str, seat: int) -> tuple[str, str] | None:
        """Read what memory lacks (the bans, the seat's account) and answer."""
        if time.monotonic() - self._read_at > self.refresh_s:
            self._read_bans()
        key = (table_id, seat)
        if self._bans and key not in self._seats:
            with self.engine.connect() as conn:
                uid = _seat_user(conn, table_id, seat)
            if len(self._seats) >= SEAT_CACHE:
                self._seats.clear()
            self._seats[key] = uid
        return self._refusal(self._seats.get(key))

    def _read_bans(self) -> None:
        generation, started = self._generation, time.monotonic()
        t = sanctions_t
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(t.c.user_id, t.c.expires).where(t.c.kind == "ban", _in_force(time.time()))
            ).all()
        bans: dict[int, float | None] = {}
        for r in rows:  # the longest ban of each account
            old = bans.get(int(r.user_id), 0.0)
            bans[int(r.user_id)] = None if old is None or r.expires is None else max(old, r.expires)
        self._bans = bans
        # guests' seats may have been claimed by an account meanwhile
        self._seats = {k: v for k, v in self._seats.items() if v is not None}
        if generation == self._generation:  # no ban made while this was read
            self._read_at = started

    def _refusal(self, uid: int | None) -> tuple[str, str] | None:
        if uid is None or uid not in self._bans:
            return None
        expires = self._bans[uid]
        if expires is not None and expires <= time.time():
            return None
        return "banned", f"this account is banned {_until(expires)}"


def refuse_muted(engine: Engine, user_id: int) -> None:
    """Raise 403 ``muted`` (or ``banned``) for an account that may not challenge."""
    with engine.connect() as conn:
        row = _sanction_of(conn, user_id, ("ban", "mute"))
    if row is not None:
        what = "banned" if row.kind == "ban" else "muted"
        raise ModerationError(what, f"this account is {what} {_until(row.expires)}", 403)


def _user_row(conn: Connection, username: str) -> Any:
    """The account named ``username`` in any case (id, name, bot), or None."""
    return conn.execute(
        select(users_t.c.id, users_t.c.username, users_t.c.is_bot).where(
            users_t.c.username_key == username_key(username)[:64]
        )
    ).first()


def _audit(
    conn: Connection, actor: User | None, action: str, target: str, details: str = ""
) -> None:
    """One audit line (in the caller's transaction: the action and its line go together)."""
    conn.execute(
        insert(audit_t).values(
            actor_id=actor.id if actor is not None else None,
            actor_name=actor.username if actor is not None else "(command line)",
            action=action,
            target=target[:80],
            details=details[:400],
            at=time.time(),
        )
    )


def set_role_by_name(
    engine: Engine, username: str, role: Role | None, actor: User | None = None
) -> str:
    """Give ``username`` ``role`` (None: no role), audited; the account's name.
    Raises :class:`ModerationError` for an unknown account or a bot."""
    with engine.begin() as conn:
        row = _user_row(conn, username)
        if row is None:
            raise ModerationError("no_account", f"no account {username!r}", 404)
        if row.is_bot:
            raise ModerationError("bad_target", "a bot has no role", 400)
        uid = int(row.id)
        conn.execute(delete(roles_t).where(roles_t.c.user_id == uid))
        if role is not None:
            conn.execute(
                insert(roles_t).values(
                    user_id=uid,
                    role=role,
                    granted=time.time(),
                    granted_by=actor.id if actor is not None else None,
                )
            )
        _audit(conn, actor, "role", row.username, f"role={role or 'none'}")
    return str(row.username)


class Moderation:
    """The moderation state of one app (see the module docstring)."""

    def __init__(self, players: Players) -> None:
        self.players = players
        self.engine = players.store.engine
        self.gate = BanGate(self.engine)
        """The hub's seat gate: whether a seat's account is banned, from memory."""

    # -- roles and checks ----------------------------------------------------------

    def role(self, user: User | None) -> Role | None:
        """The account's role, or None."""
        if user is None:
            return None
        with self.engine.connect() as conn:
            row = conn.execute(select(roles_t.c.role).where(roles_t.c.user_id == user.id)).first()
        if row is None or row.role not in ("admin", "moderator"):
            return None
        return row.role  # type: ignore[no-any-return]

    def staff(self, request: Request, admin: bool = False) -> User:
        """The request's account when it moderates (an admin with ``admin``), else 401/403."""
        user = self.players.user_of(request)
        if user is None:
            raise ModerationError("login_required", "log in first", 401)
        role = self.role(user)
        if role is None or (admin and role != "admin"):
            raise ModerationError("forbidden", "this is for moderators", 403)
        return user

    def check_login(self, user: User) -> None:
        """Refuse a banned account's log-in (hooked into :meth:`.AccountService.authenticate`)."""
        with self.engine.connect() as conn:
            row = _sanction_of(conn, user.id, ("ban",))
        if row is not None:
            raise ModerationError("banned", f"this account is banned {_until(row.expires)}", 403)

    # -- sanctions -----------------------------------------------------------------

    def sanction(
        self,
        actor: User | None,
        username: str,
        kind: SanctionKind,
        minutes: int | None,
        reason: str,
    ) -> dict[str, Any]:
        """Ban or mute an account; a ban also ends every session of it."""
        reason = _clean(reason)
        if not reason:
            raise ModerationError("invalid", "give a reason", 422)
        now = time.time()
        with self.engine.begin() as conn:
            row = _user_row(conn, username)
            if row is None:
                raise ModerationError("no_account", f"no account {username!r}", 404)
            uid = int(row.id)
            has_role = conn.execute(select(roles_t.c.role).where(roles_t.c.user_id == uid)).first()
            if row.is_bot or has_role is not None or (actor is not None and actor.id == uid):
                raise ModerationError(
                    "bad_target", "bots, moderators and yourself cannot be sanctioned", 409
                )
            expires = now + minutes * 60 if minutes is not None else None
            res = conn.execute(
                insert(sanctions_t).values(
                    user_id=uid,
                    kind=kind,
                    reason=reason,
                    created=now,
                    expires=expires,
                    by_id=actor.id if actor is not None else None,
                )
            )
            sid = int(res.inserted_primary_key[0])  # type: ignore[index]
            _audit(conn, actor, kind, row.username, f"{_until(expires)}; {reason}")
            if kind == "ban":
                self._note_bans(conn)
        if kind == "ban":
            self.gate.invalidate()  # logged out everywhere, at once (the rows are gone)
            user = self.players.accounts.user_by_id(uid)
            if user is not None:
                self.players.accounts.revoke_all(user)
        return {"id": sid, "username": row.username, "kind": kind, "expires": expires}

    def lift(self, actor: User, sanction_id: int) -> None:
        """End a sanction before it expires (404 for one not in force)."""
        now = time.time()
        t = sanctions_t
        with self.engine.begin() as conn:
            row = conn.execute(
                select(t.c.kind, users_t.c.username)
                .join(users_t, users_t.c.id == t.c.user_id)
                .where(t.c.id == sanction_id)
            ).first()
            done = conn.execute(
                update(t)
                .where(t.c.id == sanction_id, _in_force(now))
                .values(lifted=now, lifted_by=actor.id)
            )
            if row is None or done.rowcount != 1:
                raise ModerationError("no_sanction", "no such sanction in force", 404)
            _audit(conn, actor, "lift", row.username, f"{row.kind} #{sanction_id}")
            if row.kind == "ban":
                self._note_bans(conn)
        self.gate.invalidate()

    def _note_bans(self, conn: Connection) -> None:
        """Tell the other processes (with this transaction) to read the bans again."""
        note = self.players.hub.peer.note_bans()
        if note:
            conn.execute(_NOTIFY, {"c": CHANNEL, "p": note})

    def sanctions(self) -> list[dict[str, Any]]:
        """The sanctions in force, newest first."""
        t = sanctions_t
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(t, users_t.c.username)
                .join(users_t, users_t.c.id == t.c.user_id)
                .where(_in_force(time.time()))
                .order_by(t.c.id.desc())
                .limit(PAGE)
            ).all()
        return [
            {
                "id": int(r.id),
                "username": r.username,
                "kind": r.kind,
                "reason": r.reason,
                "created": float(r.created),
                "expires": r.expires,
            }
            for r in rows
        ]

    # -- reports -------------------------------------------------------------------

    def report(self, reporter: User, req: ReportRequest, seats: list[str | None]) -> int:
        """File a report (validated first: bad input changes nothing); its id.
        ``seats``: the table's seat names as shown (None: a bot or a free seat),
        read on the event loop that owns the table."""
        reason = _clean(req.reason)
        if not reason or (req.seat is None) == (req.chat_id is None):
            raise ModerationError("invalid", "name a seat or a chat line, and a reason", 422)
        chat_text: str | None = None
        with self.engine.connect() as conn:
            if req.chat_id is not None:
                line = conn.execute(
                    select(chat_t).where(
                        chat_t.c.id == req.chat_id, chat_t.c.table_id == req.table_id
                    )
                ).first()
                if line is None:
                    raise ModerationError("no_message", "no such chat line at this table", 404)
                if self.players.accounts.seat_of_user(req.table_id, reporter) is None:
                    raise ModerationError("forbidden", "only the players read this chat", 403)
                seat, name, chat_text = int(line.seat), str(line.name), str(line.text)
            else:
                seat = int(req.seat or 0)
                shown = seats[seat] if seat < len(seats) else None
                if shown is None:
                    raise ModerationError("invalid", "nobody sits in that seat", 422)
                name = shown
            target = _seat_user(conn, req.table_id, seat)
        if target == reporter.id:
            raise ModerationError("invalid", "you cannot report yourself", 422)
        self.players.limiter.check(RATE_PURPOSE, f"user:{reporter.id}")
        with self.engine.begin() as conn:
            res = conn.execute(
                insert(reports_t).values(
                    reporter_id=reporter.id,
                    target_id=target,
                    target_name=name[:64],
                    table_id=req.table_id,
                    seat=seat,
                    chat_id=req.chat_id,
                    chat_text=chat_text,
                    reason=reason,
                    state="open",
                    created=time.time(),
                )
            )
        return int(res.inserted_primary_key[0])  # type: ignore[index]

    def reports(self, state: Literal["open", "resolved"]) -> list[dict[str, Any]]:
        """A page of reports in ``state`` (the oldest open first, the newest resolved first)."""
        t = reports_t
        order = t.c.id.asc() if state == "open" else t.c.id.desc()
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(t, users_t.c.username.label("reporter"))
                .join(users_t, users_t.c.id == t.c.reporter_id)
                .where(t.c.state == state)
                .order_by(order)
                .limit(PAGE)
            ).all()
        return [
            {
                "id": int(r.id),
                "reporter": r.reporter,
                "target": r.target_name,
                "account": r.target_id is not None,
                "table_id": r.table_id,
                "seat": int(r.seat),
                "chat_id": r.chat_id,
                "chat_text": r.chat_text,
                "reason": r.reason,
                "created": float(r.created),
                "state": r.state,
                "resolution": r.resolution,
            }
            for r in rows
        ]

    async def resolve(self, actor: User, report_id: int, req: ResolveRequest) -> dict[str, Any]:
        """Settle an open report with ``req.action``.  The report is claimed first
        by a conditional UPDATE (two moderators, at two processes, never both act
        on it); when the action is then refused (the account got a role meanwhile),
        the report is open again and the refusal is the answer."""
        row = await asyncio.to_thread(self._open_report, report_id)
        if req.action in ("mute", "ban") and row.target_id is None:
            raise ModerationError("bad_target", "a guest has no account to sanction", 409)
        if req.action == "remove_chat" and row.chat_id is None:
            raise ModerationError("invalid", "this report names no chat line", 422)
        await asyncio.to_thread(self._claim, actor, report_id, req.action)
        note = _clean(req.note)
        try:
            await self._act(actor, row, req.action, req.minutes, note or f"report #{report_id}")
        except ModerationError:
            await asyncio.to_thread(self._reopen, report_id)
            raise
        await asyncio.to_thread(
            self._audit_line, actor, "resolve", f"report #{report_id}", f"{req.action}; {note}"
        )
        return {"ok": True, "id": report_id, "resolution": req.action}

    async def _act(
        self, actor: User, row: Any, action: Action, minutes: int | None, note: str
    ) -> None:
        """What settling a report with ``action`` does (``dismiss``: nothing)."""
        if action in ("mute", "ban"):
            name = await asyncio.to_thread(self._name_of, int(row.target_id))
            kind: SanctionKind = "ban" if action == "ban" else "mute"
            await asyncio.to_thread(self.sanction, actor, name, kind, minutes, note)
        elif action == "remove_chat":
            await self.remove_chat(actor, int(row.chat_id), missing_ok=True)
        elif action == "close_table":
            await self.close_table(actor, str(row.table_id), note, finished_ok=True)

    def _claim(self, actor: User, report_id: int, action: str) -> None:
        """Mark the report settled, if it is still open (else 404: someone else did)."""
        with self.engine.begin() as conn:
            done = conn.execute(
                update(reports_t)
                .where(reports_t.c.id == report_id, reports_t.c.state == "open")
                .values(
                    state="resolved", resolved=time.time(), resolver_id=actor.id, resolution=action
                )
            )
        if done.rowcount != 1:
            raise ModerationError("no_report", "no such open report", 404)

    def _reopen(self, report_id: int) -> None:
        """Undo :meth:`_claim` when the action was refused."""
        with self.engine.begin() as conn:
            conn.execute(
                update(reports_t)
                .where(reports_t.c.id == report_id)
                .values(state="open", resolved=None, resolver_id=None, resolution=None)
            )

    def _audit_line(self, actor: User, action: str, target: str, details: str) -> None:
        """One audit line in a transaction of its own."""
        with self.engine.begin() as conn:
            _audit(conn, actor, action, target, details)

    def _open_report(self, report_id: int) -> Any:
        """The report's row while it is open, else 404."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(reports_t).where(reports_t.c.id == report_id, reports_t.c.state == "open")
            ).first()
        if row is None:
            raise ModerationError("no_report", "no such open report", 404)
        return row

    def _name_of(self, user_id: int) -> str:
        """An account's name (sanctions take names, as the page does)."""
        user = self.players.accounts.user_by_id(user_id)
        if user is None:
            raise ModerationError("no_account", "the account is gone", 404)
        return user.username

    # -- tables and chat -----------------------------------------------------------

    async def close_table(
        self, actor: User, table_id: str, reason: str, finished_ok: bool = False
    ) -> bool:
        """End a table with a ``close`` event (the game layer's, so every viewer and
        every process sees it finished); no result or rating is recorded.  Whether
        it was closed now (False: it had already ended, with ``finished_ok``)."""
        hub = self.players.hub
        live = hub.get(table_id) if len(table_id) <= 32 else None
        if live is None:
            raise ModerationError("no_table", f"no table {table_id!r}", 404)
        for _ in range(3):  # refused only when another process moved it just now
            await live.settled()
            if live.game.status == "finished":
                if finished_ok:
                    return False
                raise ModerationError("table_finished", "this table has already ended", 409)
            try:
                if await hub.master.commit(live, CloseEvent()):
                    break
            except TableError:  # it ended meanwhile: looked at again above
                pass
            live = hub.get(table_id) or live
        else:
            raise ModerationError("table_busy", "the table is busy; try again", 503)
        await asyncio.to_thread(self._closed, actor, table_id, _clean(reason))
        return True

    def _closed(self, actor: User, table_id: str, reason: str) -> None:
        """After the close event: the table's results are not to be recorded, and
        the closing is audited."""
        with self.engine.begin() as conn:
            # no result to record: the sweeper (ratings_service) leaves it alone
            conn.execute(
                update(table_meta_t)
                .where(table_meta_t.c.table_id == table_id, table_meta_t.c.state == "open")
                .values(state="closed", finished=time.time())
            )
            _audit(conn, actor, "close_table", table_id, reason)

    async def remove_chat(self, actor: User, chat_id: int, missing_ok: bool = False) -> None:
        """Delete a chat line and tell every player at its table to drop it."""
        removal = await asyncio.to_thread(self._delete_chat, actor, chat_id)
        if removal is None:
            if missing_ok:
                return
            raise ModerationError("no_message", "no such chat line", 404)
        table_id, out = removal
        live = self.players.hub.tables.get(table_id)
        if live is not None:  # this process's players (the others' hear the notification)
            self.players.hub.deliver_chat(live, out.model_dump())

    def _delete_chat(self, actor: User, chat_id: int) -> tuple[str, ServerChat] | None:
        """Delete the line, notify the other processes and audit it, in one
        transaction; the table and the removal message, or None for no such line."""
        hub = self.players.hub
        with self.engine.begin() as conn:
            row = conn.execute(select(chat_t).where(chat_t.c.id == chat_id)).first()
            if row is None:
                return None
            conn.execute(delete(chat_t).where(chat_t.c.id == chat_id))
            out = ServerChat(
                seat=int(row.seat), name=row.name, text="", at=time.time(), id=chat_id, removed=True
            )
            note = hub.peer.note_chat(row.table_id, out.model_dump())
            if note:  # the other processes drop it from their players' pages too
                conn.execute(_NOTIFY, {"c": CHANNEL, "p": note})
            _audit(conn, actor, "remove_chat", row.table_id, f"#{chat_id} by {row.name}")
        return str(row.table_id), out

    # -- the audit log and roles ---------------------------------------------------

    def audit(self, before: int | None = None) -> list[dict[str, Any]]:
        """A page of the audit log, newest first (``before``: older than that id)."""
        t = audit_t
        query = select(t).order_by(t.c.id.desc()).limit(PAGE)
        if before is not None:
            query = query.where(t.c.id < before)
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        return [
            {
                "id": int(r.id),
                "actor": r.actor_name,
                "action": r.action,
                "target": r.target,
                "details": r.details,
                "at": float(r.at),
            }
            for r in rows
        ]

    def roles(self) -> list[dict[str, Any]]:
        """Every account with a role."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(users_t.c.username, roles_t.c.role, roles_t.c.granted)
                .join(users_t, users_t.c.id == roles_t.c.user_id)
                .order_by(users_t.c.username_key)
            ).all()
        return [{"username": r.username, "role": r.role, "granted": float(r.granted)} for r in rows]

    def grant(self, actor: User, req: RoleRequest) -> str:
        """An admin's change of a moderator role (an admin's own role is the operator's)."""
        target = self.players.accounts.user_by_name(req.username)
        if target is not None and self.role(target) == "admin":
            raise ModerationError(
                "bad_target", "an admin's role is changed on the command line", 409
            )
        return set_role_by_name(
            self.engine, req.username, None if req.role == "none" else "moderator", actor
        )


def moderation_router(mod: Moderation) -> APIRouter:
    """``/api/mod/*`` (see the module docstring)."""
    r = APIRouter(prefix="/api/mod", tags=["moderation"])
    players = mod.players

    @r.get("/me")
    async def me(request: Request) -> dict[str, Any]:
        """The caller's role (null for a guest or a player): whether to offer the admin page."""
        user = await asyncio.to_thread(players.user_of, request)
        return {"role": await asyncio.to_thread(mod.role, user)}

    @r.post("/reports", status_code=201)
    async def report(req: ReportRequest, request: Request) -> dict[str, Any]:
        """Report a player (a seat of a table) or a chat line."""
        user = await asyncio.to_thread(players.user_of, request)
        if user is None:
            raise ModerationError("login_required", "log in to report a player", 401)
        live = players.hub.get(req.table_id)  # on the loop: the hub is not thread-safe
        if live is None:
            raise ModerationError("no_table", f"no table {req.table_id!r}", 404)
        seats = [s.name if s.kind == "human" and s.name else None for s in live.game.seats]
        return {"ok": True, "id": await asyncio.to_thread(mod.report, user, req, seats)}

    @r.get("/reports")
    async def reports(
        request: Request, state: Literal["open", "resolved"] = "open"
    ) -> dict[str, Any]:
        """The queue of open reports (or the latest resolved ones)."""
        await asyncio.to_thread(mod.staff, request)
        return {"reports": await asyncio.to_thread(mod.reports, state)}

    @r.post("/reports/{report_id}/resolve")
    async def resolve(report_id: int, req: ResolveRequest, request: Request) -> dict[str, Any]:
        """Settle a report with an action, or dismiss it."""
        actor = await asyncio.to_thread(mod.staff, request)
        return await mod.resolve(actor, report_id, req)

    @r.get("/sanctions")
    async def sanctions(request: Request) -> dict[str, Any]:
        """The bans and mutes in force."""
        await asyncio.to_thread(mod.staff, request)
        return {"sanctions": await asyncio.to_thread(mod.sanctions)}

    @r.post("/sanctions", status_code=201)
    async def sanction(req: SanctionRequest, request: Request) -> dict[str, Any]:
        """Ban or mute an account."""
        actor = await asyncio.to_thread(mod.staff, request)
        return await asyncio.to_thread(
            mod.sanction, actor, req.username, req.kind, req.minutes, req.reason
        )

    @r.post("/sanctions/{sanction_id}/lift")
    async def lift(sanction_id: int, request: Request) -> dict[str, Any]:
        """End a sanction now."""
        actor = await asyncio.to_thread(mod.staff, request)
        await asyncio.to_thread(mod.lift, actor, sanction_id)
        return {"ok": True}

    @r.post("/tables/{table_id}/close")
    async def close(table_id: str, req: CloseRequest, request: Request) -> dict[str, Any]:
        """End a table now."""
        actor = await asyncio.to_thread(mod.staff, request)
        await mod.close_table(actor, table_id, req.reason)
        return {"ok": True}

    @r.post("/chat/{chat_id}/remove")
    async def remove(chat_id: int, request: Request) -> dict[str, Any]:
        """Remove a chat line for everybody."""
        actor = await asyncio.to_thread(mod.staff, request)
        await mod.remove_chat(actor, chat_id)
        return {"ok": True}

    @r.get("/audit")
    async def audit(
        request: Request, before: Annotated[int | None, Query(ge=1)] = None
    ) -> dict[str, Any]:
        """The audit log, newest first."""
        await asyncio.to_thread(mod.staff, request)
        return {"audit": await asyncio.to_thread(mod.audit, before)}

    @r.get("/roles")
    async def roles(request: Request) -> dict[str, Any]:
        """Who moderates (admins only)."""
        await asyncio.to_thread(mod.staff, request, True)
        return {"roles": await asyncio.to_thread(mod.roles)}

    @r.post("/roles")
    async def grant(req: RoleRequest, request: Request) -> dict[str, Any]:
        """Make an account a moderator, or not (admins only)."""
        actor = await asyncio.to_thread(mod.staff, request, True)
        name = await asyncio.to_thread(mod.grant, actor, req)
        return {"ok": True, "username": name, "role": req.role}

    return r


def install_moderation(players: Players) -> tuple[Moderation, APIRouter]:
    """The moderation service (its log-in check hooked into the accounts) and its router."""
    mod = Moderation(players)
    players.accounts.login_checks.append(mod.check_login)
    return mod, moderation_router(mod)
