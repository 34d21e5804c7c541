"""Quick pairing: "Play with people" seats strangers together (issue 22, item 1).

A player who presses *Play with people* makes a **seek**: how many players (2, 3
or 4), rated or casual, a rules preset, and how long they accept to wait before
bots of a matching level fill the empty seats.  The seek pool is a database
table (``sk_seeks``), so every server process sees every seek, and every process
runs the pairing step (:class:`Pairing`, a :class:`~.services.LoopService` five
times a second, and at once when a seek arrives): seekers connected to
different workers meet.

Why a secret per seek: the server answers a new seek with a token, once, and
keeps only its hash.  When the seek is paired, the seat at the new table is
claimed by that same hash (:class:`~..table.service.Holder`), so the browser
that made the seek opens the table with the token it already has: no seat token
is made, stored in clear or sent, and nobody else can take the seat.

Who is paired with whom:

* the same players, rated flag and preset;
* ratings within each other's range: ``±RANGE_START`` display points, widening by
  ``RANGE_STEP`` every ``RANGE_EVERY_S`` seconds of waiting, anybody after
  ``RANGE_ANY_S`` (the range is shown to the player);
* never two seeks of one account, never a pair where one blocks the other;
* oldest seeks first, so the longest waiter is served first.

A claim is one conditional ``UPDATE ... WHERE state = 'open'`` whose row count
must be the group's size, so two processes never seat the same seek twice.  A
seek whose player stopped polling for ``SEEK_TTL_S`` is gone (closing the tab
makes the seek disappear; the lobby never shows ghosts), and a claim left by a
process that died before seating is released after ``CLAIM_TTL_S``.

Nothing here carries a card: a seek is options, a name and a rating.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Protocol

from fastapi import APIRouter, Header, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Engine, and_, select, update

from ..edge.guard import client_key
from ..storage.schema import ratings_t, seeks_t
from ..table.service import Holder
from ..wire.auth import hash_token, new_token
from ..wire.errors import ApiError
from ..wire.schemas import PlayerName, SeatConfig, TableConfig
from .players import Players
from .ratings_service import DISPLAY_BASE, display_rating
from .services import LoopService

__all__ = [
    "PRESETS",
    "Pairing",
    "SeekRequest",
    "SeekView",
    "pairing_router",
    "rating_range",
]

log = logging.getLogger("svoi_kozyri.server.platform.pairing")

PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "one_hand": {"loss_limit": 1},
    "blind_trumps": {"suit_assignment": "blind"},
    "whole_pile": {"pickup_rule": "whole_pile"},
    "besicovitch": {"variant": "besicovitch"},
}
"""Rules presets a seek may ask for (SPEC C9 options over the defaults).  Why
presets and not the whole form: strangers are paired only when they asked for
the same game, and a handful of named games keeps the pool from splitting into
groups of one."""

TWO_PLAYER_ONLY = frozenset({"besicovitch"})
WAITS: tuple[int, ...] = (10, 20, 30, 60, 120)
"""Seconds a seeker may choose to wait before bots fill the empty seats (or never)."""

RANGE_START = 150
RANGE_STEP = 50
RANGE_EVERY_S = 2.0
RANGE_ANY_S = 40.0
SEEK_TTL_S = 12.0
"""A seek whose player has not polled for this long is gone (the tab was closed)."""
SEEN_EVERY_S = 2.0
CLAIM_TTL_S = 15.0
STEP_S = 0.2
TURN_TIMER_S = 60.0
"""Strangers' tables have a turn timer: nobody waits forever on a player who left."""
MAX_OPEN_LISTED = 100


def rating_range(waited_s: float) -> int | None:
    """How far (display points) a seeker's opponents' ratings may be from theirs
    after waiting ``waited_s`` seconds; None once anybody will do."""
    if waited_s >= RANGE_ANY_S:
        return None
    return RANGE_START + RANGE_STEP * int(waited_s // RANGE_EVERY_S)


class PairCheck(Protocol):
    """Whether any of some accounts blocks another."""

    def any_between(self, user_ids: Sequence[int]) -> bool:
        """True if one of ``user_ids`` blocks another of them."""
        ...


class BlockCheck(PairCheck, Protocol):
    """The blocks between accounts (:class:`.blocks.Blocks`)."""

    def related(self, user_id: int) -> set[int]:
        """The accounts in a block with ``user_id``, either way."""
        ...

    def pairs_among(self, user_ids: Sequence[int]) -> set[frozenset[int]]:
        """Every pair of ``user_ids`` with a block between them."""
        ...


class _NoBlocks:
    def any_between(self, user_ids: Sequence[int]) -> bool:
        return False

    def related(self, user_id: int) -> set[int]:
        return set()

    def pairs_among(self, user_ids: Sequence[int]) -> set[frozenset[int]]:
        return set()


class KnownBlocks:
    """The blocks among one pool of seekers, read once per pairing step (a query
    per candidate would make a step quadratic in database round trips)."""

    def __init__(self, pairs: set[frozenset[int]]) -> None:
        self.pairs = pairs

    def any_between(self, user_ids: Sequence[int]) -> bool:
        """True if a pair of ``user_ids`` has a block between them."""
        ids = list(user_ids)
        return any(frozenset((a, b)) in self.pairs for i, a in enumerate(ids) for b in ids[i + 1 :])


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SeekRequest(_Strict):
    """``POST /api/seeks``: what the player wants to play."""

    name: PlayerName
    players: int = Field(ge=2, le=4)
    rated: bool = False
    preset: Literal["standard", "one_hand", "blind_trumps", "whole_pile", "besicovitch"] = (
        "standard"
    )
    wait_s: int | None = Field(
        default=30, description="seconds before bots fill the empty seats; null: never"
    )


class SeekView(BaseModel):
    """A seek as its own player sees it (``GET /api/seeks/{id}``)."""

    id: str
    state: Literal["open", "claimed", "seated", "cancelled", "expired"]
    name: str
    players: int
    rated: bool
    preset: str
    rating: int
    range: int | None = Field(description="± display points accepted now; null: anybody")
    waited_s: float
    wait_s: int | None
    bots_in_s: float | None = Field(description="seconds until bots fill the empty seats")
    table_id: str | None = Field(description="the table once seated")
    seat: int | None


class SeekCreated(BaseModel):
    """``POST /api/seeks``: the seek and its secret (sent once; keep it)."""

    seek: SeekView
    token: str


class OpenSeek(BaseModel):
    """A seek as the lobby lists it: options, a name and a rating, never a token."""

    id: str
    name: str
    account: bool
    rating: int
    players: int
    rated: bool
    preset: str
    waited_s: float


class OpenSeeks(BaseModel):
    """``GET /api/seeks``: the seeks waiting now, oldest first."""

    seeks: list[OpenSeek]


@dataclass(frozen=True)
class _Seek:
    id: str
    token_hash: str
    user_id: int | None
    name: str
    players: int
    rated: bool
    preset: str
    rating: float
    wait_s: float | None
    created: float

    def waited(self, now: float) -> float:
        return max(0.0, now - self.created)

    def accepts(self, other: _Seek, now: float) -> bool:
        """Whether this seeker accepts ``other`` at ``now`` (rating range only)."""
        spread = rating_range(self.waited(now))
        return spread is None or abs(self.rating - other.rating) <= spread


def _row_seek(r: Any) -> _Seek:
    return _Seek(
        id=r.id,
        token_hash=r.token_hash,
        user_id=r.user_id,
        name=r.name,
        players=int(r.players),
        rated=bool(r.rated),
        preset=r.preset,
        rating=float(r.rating),
        wait_s=None if r.wait_s is None else float(r.wait_s),
        created=float(r.created),
    )


def compatible(a: _Seek, b: _Seek, now: float) -> bool:
    """Two seeks may share a table: same game, not one account twice, and each
    rating within the other's range."""
    if (a.players, a.rated, a.preset) != (b.players, b.rated, b.preset):
        return False
    if a.user_id is not None and a.user_id == b.user_id:
        return False
    return a.accepts(b, now) and b.accepts(a, now)


def find_group(anchor: _Seek, pool: Sequence[_Seek], now: float, blocks: PairCheck) -> list[_Seek]:
    """The oldest seeks that can sit with ``anchor`` and with each other, at most
    a table's worth, anchor first."""
    group = [anchor]
    for other in pool:
        if len(group) == anchor.players:
            break
        if other.id == anchor.id or not all(compatible(g, other, now) for g in group):
            continue
        ids = [s.user_id for s in [*group, other] if s.user_id is not None]
        if len(ids) > 1 and blocks.any_between(ids):
            continue
        group.append(other)
    return group


class Pairing:
    """The seek pool and the pairing step of one server process."""

    def __init__(self, players: Players, blocks: BlockCheck | None = None) -> None:
        self.players = players
        self.engine: Engine = players.store.engine
        self.blocks: BlockCheck = blocks or _NoBlocks()
        self.service = LoopService("pairing", self.step, STEP_S)
        self.seated = 0
        """Tables this process made from seeks (for tests and the benchmark)."""

    # -- seeks ---------------------------------------------------------------------

    def create(
        self, req: SeekRequest, user_id: int | None, now: float | None = None
    ) -> tuple[SeekView, str]:
        """Store a new seek; its view and its secret.  An account has one open
        seek at a time: a new one replaces the old."""
        if req.preset in TWO_PLAYER_ONLY and req.players != 2:
            raise ApiError("bad_seek", f"the {req.preset} preset is for two players", 422)
        if req.wait_s is not None and req.wait_s not in WAITS:
            raise ApiError("bad_seek", f"wait_s must be one of {list(WAITS)} or null", 422)
        now = time.time() if now is None else now
        # casual seeks pair by rating too (an account's, the base for a guest), so
        # a newcomer does not meet the strongest regulars first
        rating = self._rating(user_id, req.players)
        token = new_token()
        seek_id = secrets.token_urlsafe(12)[:16]
        with self.engine.begin() as conn:
            if user_id is not None:
                conn.execute(
                    update(seeks_t)
                    .where(seeks_t.c.user_id == user_id, seeks_t.c.state == "open")
                    .values(state="cancelled")
                )
            conn.execute(
                seeks_t.insert().values(
                    id=seek_id,
                    token_hash=hash_token(token),
                    user_id=user_id,
                    name=req.name,
                    players=req.players,
                    rated=1 if req.rated else 0,
                    preset=req.preset,
                    rating=rating,
                    wait_s=None if req.wait_s is None else float(req.wait_s),
                    state="open",
                    created=now,
                    seen=now,
                )
            )
        self.service.wake()
        view = self.view(seek_id, token, now=now)
        return view, token

    def _rating(self, user_id: int | None, players: int) -> float:
        """The account's display rating for ``players`` (the base for a newcomer)."""
        if user_id is None:
            return float(DISPLAY_BASE)
        with self.engine.connect() as conn:
            row = conn.execute(
                select(ratings_t.c.mu, ratings_t.c.sigma).where(
                    ratings_t.c.user_id == user_id, ratings_t.c.players == players
                )
            ).first()
        return float(DISPLAY_BASE if row is None else display_rating(row.mu, row.sigma))

    def _row(self, seek_id: str, token: str | None) -> Any:
        if len(seek_id) > 24:
            raise ApiError("no_seek", "no such seek", 404)
        with self.engine.connect() as conn:
            row = conn.execute(select(seeks_t).where(seeks_t.c.id == seek_id)).first()
        if row is None:
            raise ApiError("no_seek", "no such seek", 404)
        if not token or not secrets.compare_digest(row.token_hash, hash_token(token)):
            raise ApiError("bad_seek_token", "this token does not hold the seek", 403)
        return row

    def view(self, seek_id: str, token: str | None, *, now: float | None = None) -> SeekView:
        """The seek's state for its player; a poll keeps an open seek alive."""
        now = time.time() if now is None else now
        row = self._row(seek_id, token)
        if row.state == "open" and row.seen < now - SEEN_EVERY_S:
            # written at most every SEEN_EVERY_S: a poll twice a second per seeker
            # must not be a write twice a second
            with self.engine.begin() as conn:
                conn.execute(
                    update(seeks_t)
                    .where(seeks_t.c.id == seek_id, seeks_t.c.state == "open")
                    .values(seen=now)
                )
        return _view(row, now)

    def cancel(self, seek_id: str, token: str | None) -> SeekView:
        """Withdraw an open seek (a seated one stays seated: its table exists)."""
        self._row(seek_id, token)
        with self.engine.begin() as conn:
            conn.execute(
                update(seeks_t)
                .where(seeks_t.c.id == seek_id, seeks_t.c.state.in_(("open", "claimed")))
                .where(seeks_t.c.table_id.is_(None))
                .values(state="cancelled")
            )
        return self.view(seek_id, token)

    def open_seeks(self, viewer: int | None = None, now: float | None = None) -> list[OpenSeek]:
        """The seeks waiting now, oldest first; a viewer does not see the seeks of
        accounts that block them (a blocked player learns nothing of the blocker)."""
        now = time.time() if now is None else now
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(seeks_t)
                .where(seeks_t.c.state == "open", seeks_t.c.seen > now - SEEK_TTL_S)
                .order_by(seeks_t.c.created)
                .limit(MAX_OPEN_LISTED)
            ).all()
        hidden = self.blocks.related(viewer) if viewer is not None else set()
        out = []
        for r in rows:
            if r.user_id is not None and int(r.user_id) in hidden:
                continue
            out.append(
                OpenSeek(
                    id=r.id,
                    name=r.name,
                    account=r.user_id is not None,
                    rating=round(r.rating),
                    players=int(r.players),
                    rated=bool(r.rated),
                    preset=r.preset,
                    waited_s=round(max(0.0, now - r.created), 1),
                )
            )
        return out

    # -- the pairing step ----------------------------------------------------------

    def step(self, now: float | None = None) -> int:
        """One pass over the pool: expire, release stale claims, seat every group
        that can be seated; the number of tables made."""
        now = time.time() if now is None else now
        self._expire(now)
        made = 0
        pool = self._open(now)
        known = KnownBlocks(self.blocks.pairs_among([s.user_id for s in pool if s.user_id]))
        taken: set[str] = set()
        for anchor in pool:
            if anchor.id in taken:
                continue
            free = [s for s in pool if s.id not in taken]
            group = find_group(anchor, free, now, known)
            full = len(group) == anchor.players
            bots_due = anchor.wait_s is not None and anchor.waited(now) >= anchor.wait_s
            if not full and not bots_due:
                continue
            if self._seat(group, now):
                made += 1
                taken.update(s.id for s in group)
            else:
                taken.add(anchor.id)  # someone else took part of it: next pass
        self.seated += made
        return made

    def _expire(self, now: float) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(seeks_t)
                .where(seeks_t.c.state == "open", seeks_t.c.seen < now - SEEK_TTL_S)
                .values(state="expired")
            )
            conn.execute(
                update(seeks_t)
                .where(
                    seeks_t.c.state == "claimed",
                    seeks_t.c.table_id.is_(None),
                    seeks_t.c.claimed < now - CLAIM_TTL_S,
                )
                .values(state="open", claimed=None, seen=now)
            )

    def _open(self, now: float) -> list[_Seek]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(seeks_t)
                .where(seeks_t.c.state == "open", seeks_t.c.seen >= now - SEEK_TTL_S)
                .order_by(seeks_t.c.created, seeks_t.c.id)
            ).all()
        return [_row_seek(r) for r in rows]

    def _claim(self, group: Sequence[_Seek], now: float) -> bool:
        ids = [s.id for s in group]
        with self.engine.begin() as conn:
            n = conn.execute(
                update(seeks_t)
                .where(and_(seeks_t.c.id.in_(ids), seeks_t.c.state == "open"))
                .values(state="claimed", claimed=now)
            ).rowcount
            if n != len(ids):
                conn.rollback()
                return False
        return True

    def _seat(self, group: list[_Seek], now: float) -> bool:
        """Claim the group's seeks and seat them (bots in the empty seats)."""
        if not self._claim(group, now):
            return False
        anchor = group[0]
        bot = self.bot_for(anchor.rating, anchor.players)
        seats = [SeatConfig(kind="human") for _ in group] + [
            SeatConfig(kind="bot", bot=bot) for _ in range(anchor.players - len(group))
        ]
        config = TableConfig(
            title="",
            seats=seats,
            rules=dict(PRESETS[anchor.preset]),
            turn_timer_s=TURN_TIMER_S,
            listed=True,
            rated=anchor.rated,
        )
        holders = [Holder(s.name, s.token_hash, s.user_id) for s in group]
        try:
            table_id = self.players.seat_table(config, holders)
        except Exception:
            log.exception("pairing: seating %s failed", [s.id for s in group])
            with self.engine.begin() as conn:
                conn.execute(
                    update(seeks_t)
                    .where(seeks_t.c.id.in_([s.id for s in group]), seeks_t.c.state == "claimed")
                    .values(state="open", claimed=None)
                )
            return False
        with self.engine.begin() as conn:
            for seat, s in enumerate(group):
                conn.execute(
                    update(seeks_t)
                    .where(seeks_t.c.id == s.id)
                    .values(state="seated", table_id=table_id, seat=seat)
                )
        return True

    def bot_for(self, rating: float, players: int) -> str:
        """The bot whose rating for ``players`` is nearest ``rating`` (the
        default bot when no bot is rated yet: ``calibrate-bots`` rates them)."""
        hub = self.players.hub
        best, gap = hub.default_bot, float("inf")
        for name in hub.bots:
            user = self.players.accounts.user_by_name(name)
            if user is None:
                continue
            row = next(
                (r for r in self.players.ratings.ratings_of(user) if r.players == players), None
            )
            if row is None:
                continue
            if abs(row.display - rating) < gap:
                best, gap = name, abs(row.display - rating)
        return best


def _view(row: Any, now: float) -> SeekView:
    waited = max(0.0, now - float(row.created))
    wait_s = None if row.wait_s is None else int(row.wait_s)
    open_ = row.state == "open"
    return SeekView(
        id=row.id,
        state=row.state,
        name=row.name,
        players=int(row.players),
        rated=bool(row.rated),
        preset=row.preset,
        rating=round(row.rating),
        range=rating_range(waited) if open_ else None,
        waited_s=round(waited, 1),
        wait_s=wait_s,
        bots_in_s=round(max(0.0, wait_s - waited), 1) if open_ and wait_s is not None else None,
        table_id=row.table_id,
        seat=row.seat,
    )


SeekToken = Annotated[str | None, Header(max_length=100)]
"""``X-Seek-Token``: the seek's secret (never in a URL)."""


def pairing_router(players: Players, pairing: Pairing) -> APIRouter:
    """``/api/seeks``: make, poll, cancel and list seeks."""
    r = APIRouter(prefix="/api/seeks", tags=["pairing"])

    @r.post("", status_code=201)
    async def create(req: SeekRequest, request: Request) -> SeekCreated:
        """Make a seek (rate-limited per address and per account)."""
        user, req.name = players.seat_name(request, req.name, req.rated)
        client = client_key(request.scope)
        players.limiter.check("seek", client)
        if user is not None:
            players.limiter.check("seek", f"user:{user.id}")
        view, token = pairing.create(req, user.id if user is not None else None)
        return SeekCreated(seek=view, token=token)

    @r.get("")
    async def listed(request: Request, response: Response) -> OpenSeeks:
        """The open seeks (the lobby's "Play" list)."""
        response.headers["Cache-Control"] = "no-store"
        user = players.user_of(request)
        return OpenSeeks(seeks=pairing.open_seeks(user.id if user is not None else None))

    @r.get("/{seek_id}")
    async def poll(seek_id: str, response: Response, x_seek_token: SeekToken = None) -> SeekView:
        """The seek's state (and its table once seated); keeps it alive."""
        response.headers["Cache-Control"] = "no-store"
        return pairing.view(seek_id, x_seek_token)

    @r.delete("/{seek_id}")
    async def cancel(seek_id: str, x_seek_token: SeekToken = None) -> SeekView:
        """Withdraw the seek."""
        return pairing.cancel(seek_id, x_seek_token)

    return r


def install_pairing(
    players: Players, blocks: BlockCheck | None = None
) -> tuple[Pairing, APIRouter]:
    """The pairing service (registered with the platform's services) and its router."""
    pairing = Pairing(players, blocks)
    players.services.append(pairing.service)
    return pairing, pairing_router(players, pairing)
