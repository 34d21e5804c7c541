"""Public profiles: ratings per player count, rating history, results and games.

* ``GET /api/users/{name}``: :class:`ProfileView` (bots are labelled accounts, so a
  newcomer can look up how strong each level plays);
* ``GET /api/users/{name}/games?offset=&limit=``: the games the account sat in,
  newest first, each with its players (names; bots by level, which the page words
  in its language), the account's result when it is over and the link of its replay
  (``#/r/<id>``: the owner sees their own cards there, everybody else the
  spectator's view);
* ``GET /api/ratings?players=N``: the leaderboard for N players, bots labelled.

A profile is public, so it shows only public facts: results, ratings and the
tables listed in the lobby.  Unlisted (invite-only) tables appear only in the
owner's own list, since a table id is all a spectator needs to watch.

Ratings carry ``display`` (the Elo-like scale of
:func:`~svoi_kozyri.server.platform.ratings_service.display_rating`, 1500 for a new
account) and ``provisional`` besides the raw ``rating`` (``mu - 3 sigma``),
``mu`` and ``sigma``.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field
from sqlalchemy import Connection, and_, func, select

from ...core import seat_name
from ..storage.schema import results_t, seat_accounts_t, seats_t, tables_t, users_t
from .accounts import AccountError, User
from .players import Players
from .ratings_service import PROVISIONAL_GAMES, display_rating, is_provisional


class RatingView(BaseModel):
    """One rating: for ``players`` players."""

    players: int
    rating: float = Field(description="ordinal, mu - 3 sigma")
    display: int = Field(description="the rating people read: 1500 + 48 (mu - 3 sigma)")
    provisional: bool = Field(description="fewer than 10 rated games and no arena calibration")
    mu: float
    sigma: float
    games: int
    arena_hands: int = Field(
        default=0, description="bots: arena hands their rating was calibrated on"
    )


class HistoryPoint(BaseModel):
    """The rating after one rated game."""

    t: float
    table_id: str
    rating: float
    display: int
    mu: float
    sigma: float


class ProfileView(BaseModel):
    """``GET /api/users/{name}``."""

    username: str
    bot: bool
    created: float
    online: bool
    me: bool = Field(description="this is the viewer's own account")
    ratings: list[RatingView]
    history: dict[int, list[HistoryPoint]]
    games: int
    wins: int
    provisional_games: int = Field(
        default=PROVISIONAL_GAMES, description="rated games until a rating is not provisional"
    )


class GamePlayer(BaseModel):
    """One seat of a game in a profile's list: who sat there (public facts only)."""

    seat: str = Field(description="the seat's letter")
    kind: str = Field(description="human or bot")
    name: str | None = Field(description="the account's name, else the guest's seat name")
    account: str | None = Field(description="the account at this seat (its profile)")
    bot: str | None = Field(description="a bot's level (the page words it in its language)")
    you: bool = Field(description="a seat of the profile's own account")
    place: int | None = Field(description="the seat's place once the session is over")


class GameEntry(BaseModel):
    """One game in a profile's list."""

    table_id: str
    title: str
    players: int
    lineup: list[GamePlayer] = Field(description="every seat, in seat order")
    outcome: str | None = Field(
        description="the account's result: won, lost (the durak), draw or place "
        "(between the first and the last); null while the game is running"
    )
    status: str
    seats: list[int]
    rated: bool | None = Field(description="null while the game is running")
    place: int | None
    losses: int | None
    points: int | None
    rating_change: float | None = Field(description="change of the ordinal (rated games)")
    display_change: int | None = Field(description="the change on the display scale")
    created: float
    finished: float | None
    replay: str = Field(description="where the game's replay and analysis view opens")


class GamesPage(BaseModel):
    """``GET /api/users/{name}/games``."""

    total: int
    offset: int
    limit: int
    games: list[GameEntry]


def _user(players: Players, name: str) -> User:
    user: User | None = players.accounts.user_by_name(name)
    if user is None:
        raise AccountError("no_user", f"no account {name!r}", 404)
    return user


def profile_view(players: Players, user: User, viewer: User | None) -> ProfileView:
    """The profile of ``user`` as ``viewer`` (None: a guest) sees it."""
    eng = players.store.engine
    with eng.connect() as conn:
        games = conn.execute(
            select(func.count(func.distinct(results_t.c.table_id))).where(
                results_t.c.user_id == user.id
            )
        ).scalar_one()
        wins = conn.execute(
            select(func.count(func.distinct(results_t.c.table_id))).where(
                results_t.c.user_id == user.id, results_t.c.place == 1
            )
        ).scalar_one()
    online = not user.is_bot and user.username in set(players.accounts.online())
    hist = players.ratings.history(user)
    return ProfileView(
        username=user.username,
        bot=user.is_bot,
        created=user.created,
        online=online,
        me=viewer is not None and viewer.id == user.id,
        ratings=[
            RatingView(
                players=r.players,
                rating=round(r.ordinal, 2),
                display=r.display,
                provisional=is_provisional(r.games, r.arena_hands),
                mu=round(r.mu, 2),
                sigma=round(r.sigma, 2),
                games=r.games,
                arena_hands=r.arena_hands,
            )
            for r in players.ratings.ratings_of(user)
        ],
        history={n: [HistoryPoint(**p) for p in pts] for n, pts in hist.items()},
        games=int(games),
        wins=int(wins),
    )


def games_page(
    players: Players, user: User, viewer: User | None, offset: int, limit: int
) -> GamesPage:
    """One page of ``user``'s games, newest first.  Another viewer sees the listed
    ones; a viewer in a block with ``user`` (either way) only the finished ones: a
    blocked player learns nothing of the blocker's tables in play (issue 22)."""
    own = viewer is not None and viewer.id == user.id
    cond = [seat_accounts_t.c.user_id == user.id]
    if not own:
        cond.append(tables_t.c.listed == 1)
    if viewer is not None and not own and players.blocks.any_between([viewer.id, user.id]):
        cond.append(tables_t.c.status == "finished")
    base = (
        select(seat_accounts_t.c.table_id)
        .join(tables_t, tables_t.c.id == seat_accounts_t.c.table_id)
        .where(and_(*cond))
        .group_by(seat_accounts_t.c.table_id)
    )
    eng = players.store.engine
    with eng.connect() as conn:
        total = conn.execute(select(func.count()).select_from(base.subquery())).scalar_one()
        page_ids = [
            r.table_id
            for r in conn.execute(
                base.add_columns(func.max(tables_t.c.created).label("c"))
                .order_by(func.max(tables_t.c.created).desc(), seat_accounts_t.c.table_id)
                .offset(offset)
                .limit(limit)
            )
        ]
        rows = conn.execute(
            select(
                seat_accounts_t.c.table_id,
                seat_accounts_t.c.seat,
                tables_t.c.config,
                tables_t.c.status,
                tables_t.c.created,
                results_t.c.rated,
                results_t.c.place,
                results_t.c.losses,
                results_t.c.points,
                results_t.c.mu_before,
                results_t.c.sigma_before,
                results_t.c.mu_after,
                results_t.c.sigma_after,
                results_t.c.finished,
            )
            .join(tables_t, tables_t.c.id == seat_accounts_t.c.table_id)
            .outerjoin(
                results_t,
                and_(
                    results_t.c.table_id == seat_accounts_t.c.table_id,
                    results_t.c.seat == seat_accounts_t.c.seat,
                ),
            )
            .where(seat_accounts_t.c.user_id == user.id, seat_accounts_t.c.table_id.in_(page_ids))
            .order_by(seat_accounts_t.c.seat)
        ).all()
        lineups = _lineups(conn, page_ids, user.id)
    by_table: dict[str, list[Any]] = {}
    for r in rows:
        by_table.setdefault(r.table_id, []).append(r)
    games = []
    for tid in page_ids:
        rs = by_table.get(tid, [])
        if not rs:
            continue
        first = rs[0]
        cfg = json.loads(first.config)
        best = min(rs, key=lambda x: x.place if x.place is not None else 99)
        change = None
        display_change = None
        if best.rated and best.mu_after is not None and best.mu_before is not None:
            change = round(
                (best.mu_after - 3 * best.sigma_after) - (best.mu_before - 3 * best.sigma_before), 2
            )
            display_change = display_rating(best.mu_after, best.sigma_after) - display_rating(
                best.mu_before, best.sigma_before
            )
        lineup = lineups.get(tid, [])
        games.append(
            GameEntry(
                table_id=tid,
                title=cfg.get("title") or f"table {tid}",
                players=len(cfg.get("seats", [])),
                lineup=lineup,
                outcome=outcome(best.place, [p.place for p in lineup]),
                status=first.status,
                seats=[int(x.seat) for x in rs],
                rated=None if best.rated is None else bool(best.rated),
                place=best.place,
                losses=best.losses,
                points=best.points,
                rating_change=change,
                display_change=display_change,
                created=float(first.created),
                finished=None if best.finished is None else float(best.finished),
                replay=f"#/r/{tid}",
            )
        )
    return GamesPage(total=int(total), offset=offset, limit=limit, games=games)


def outcome(place: int | None, places: list[int | None]) -> str | None:
    """The account's result in words a page translates: ``won`` (first, ahead of
    somebody), ``lost`` (last: the durak), ``draw`` (everybody shares one place) or
    ``place`` (in between); None while the game is running."""
    known = [p for p in places if p is not None]
    if place is None or not known:
        return None
    if min(known) == max(known):
        return "draw"
    if place == 1:
        return "won"
    if place == max(known):
        return "lost"
    return "place"


def _lineups(conn: Connection, table_ids: list[str], user_id: int) -> dict[str, list[GamePlayer]]:
    """Every seat of each table: its kind, the bot's level or the person's name (the
    account's when one sat there), whether it is the profile's account, its place.
    Only what the lobby shows of a table anyway: names and results, never a card."""
    if not table_ids:
        return {}
    seats = conn.execute(
        select(seats_t.c.table_id, seats_t.c.seat, seats_t.c.kind, seats_t.c.bot, seats_t.c.name)
        .where(seats_t.c.table_id.in_(table_ids))
        .order_by(seats_t.c.table_id, seats_t.c.seat)
    ).all()
    accounts = {
        (r.table_id, int(r.seat)): (r.username, int(r.user_id))
        for r in conn.execute(
            select(
                seat_accounts_t.c.table_id,
                seat_accounts_t.c.seat,
                seat_accounts_t.c.user_id,
                users_t.c.username,
            )
            .join(users_t, users_t.c.id == seat_accounts_t.c.user_id)
            .where(seat_accounts_t.c.table_id.in_(table_ids))
        )
    }
    places = {
        (r.table_id, int(r.seat)): int(r.place)
        for r in conn.execute(
            select(results_t.c.table_id, results_t.c.seat, results_t.c.place).where(
                results_t.c.table_id.in_(table_ids)
            )
        )
    }
    out: dict[str, list[GamePlayer]] = {}
    for r in seats:
        key = (r.table_id, int(r.seat))
        account = accounts.get(key)
        bot = r.bot if r.kind == "bot" else None
        out.setdefault(r.table_id, []).append(
            GamePlayer(
                seat=seat_name(int(r.seat)),
                kind="bot" if r.kind == "bot" else "human",
                name=None if bot else (account[0] if account else r.name),
                account=None if bot or account is None else account[0],
                bot=bot,
                you=account is not None and account[1] == user_id,
                place=places.get(key),
            )
        )
    return out


def profile_router(players: Players) -> APIRouter:
    """Profiles, their games and the leaderboards."""
    r = APIRouter(tags=["profiles"])

    @r.get("/api/users/{username}")
    async def profile(username: str, request: Request) -> ProfileView:
        """An account's public profile (bots included)."""
        user = _user(players, username[:64])
        return profile_view(players, user, players.user_of(request))

    @r.get("/api/users/{username}/games")
    async def games(
        username: str,
        request: Request,
        offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
        limit: Annotated[int, Query(ge=1, le=50)] = 20,
    ) -> GamesPage:
        """The games the account sat in, newest first."""
        user = _user(players, username[:64])
        return games_page(players, user, players.user_of(request), offset, limit)

    @r.get("/api/ratings")
    async def leaderboard(
        players_: Annotated[int, Query(alias="players", ge=2, le=4)] = 4,
        bots: bool | None = None,
        limit: Annotated[int, Query(ge=1, le=100)] = 20,
    ) -> dict[str, Any]:
        """The best ratings for a number of players; ``bots=true`` lists only the bots
        (how strong each level is), ``bots=false`` only people."""
        return {
            "players": players_,
            "ratings": players.ratings.leaderboard(players_, limit=limit, bots=bots),
        }

    return r
