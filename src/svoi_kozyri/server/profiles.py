"""Public profiles: ratings per player count, rating history, results and games.

* ``GET /api/users/{name}``: :class:`ProfileView` (bots are labelled accounts, so a
  newcomer can look up how strong each level plays);
* ``GET /api/users/{name}/games?offset=&limit=``: the games the account sat in,
  newest first, each with its result when it is over and the link of its replay
  (``#/r/<id>``: the owner sees their own cards there, everybody else the
  spectator's view);
* ``GET /api/ratings?players=N``: the leaderboard for N players, bots labelled.

A profile is public, so it shows only public facts: results, ratings and the
tables listed in the lobby.  Unlisted (invite-only) tables appear only in the
owner's own list, since a table id is all a spectator needs to watch.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field
from sqlalchemy import and_, func, select

from .accounts import AccountError, User
from .db import tables_t
from .player_tables import results_t, seat_accounts_t


class RatingView(BaseModel):
    """One rating: for ``players`` players."""

    players: int
    rating: float = Field(description="ordinal, mu - 3 sigma")
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


class GameEntry(BaseModel):
    """One game in a profile's list."""

    table_id: str
    title: str
    players: int
    status: str
    seats: list[int]
    rated: bool | None = Field(description="null while the game is running")
    place: int | None
    losses: int | None
    points: int | None
    rating_change: float | None = Field(description="change of the ordinal (rated games)")
    created: float
    finished: float | None
    replay: str = Field(description="where the game's replay and analysis view opens")


class GamesPage(BaseModel):
    """``GET /api/users/{name}/games``."""

    total: int
    offset: int
    limit: int
    games: list[GameEntry]


def _user(players: Any, name: str) -> User:
    user: User | None = players.accounts.user_by_name(name)
    if user is None:
        raise AccountError("no_user", f"no account {name!r}", 404)
    return user


def profile_view(players: Any, user: User, viewer: User | None) -> ProfileView:
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


def games_page(players: Any, user: User, viewer: User | None, offset: int, limit: int) -> GamesPage:
    """One page of ``user``'s games, newest first."""
    own = viewer is not None and viewer.id == user.id
    cond = [seat_accounts_t.c.user_id == user.id]
    if not own:
        cond.append(tables_t.c.listed == 1)
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
        if best.rated and best.mu_after is not None and best.mu_before is not None:
            change = round(
                (best.mu_after - 3 * best.sigma_after) - (best.mu_before - 3 * best.sigma_before), 2
            )
        games.append(
            GameEntry(
                table_id=tid,
                title=cfg.get("title") or f"table {tid}",
                players=len(cfg.get("seats", [])),
                status=first.status,
                seats=[int(x.seat) for x in rs],
                rated=None if best.rated is None else bool(best.rated),
                place=best.place,
                losses=best.losses,
                points=best.points,
                rating_change=change,
                created=float(first.created),
                finished=None if best.finished is None else float(best.finished),
                replay=f"#/r/{tid}",
            )
        )
    return GamesPage(total=int(total), offset=offset, limit=limit, games=games)


def profile_router(players: Any) -> APIRouter:
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
