"""Tournaments (issue 22, item 3): arenas and Swiss tournaments of one-hand games.

* An **arena** runs for a time window; an entrant who is free and has the
  tournament's page open is paired again as soon as their table ends (by score,
  avoiding the last opponents); the fire streak doubles points
  (:mod:`.tournament_standings`).  Who waits :attr:`~.Settings.fill_after_s`
  without enough opponents gets house bots in the empty seats.
* A **Swiss** tournament plays a fixed number of rounds; every active entrant is
  paired by score groups, avoiding repeats, and a round starts when every table
  of the last one is settled.  An entrant left without a table gets a bye.

Any account creates one (``POST /api/tournaments``: name, kind, players per
table, start time, duration or rounds, rated, rules preset, bots invited); the
operator adds built-in ones (``serve --tournament arena:hourly:4p``,
:func:`parse_schedule`).  An account joins and gets a secret once; the
tournament's tables seat the entry by that secret's hash, so the page stores it
as the table's seat token and opens the table.  The director
(:mod:`.tournament_director`) moves every tournament on; nothing here holds
state outside the database.  No answer carries a card, a seed or a secret's hash.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from sqlalchemy import Connection, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..storage.schema import (
    tournament_entries_t,
    tournament_games_t,
    tournament_seats_t,
    tournaments_t,
    users_t,
)
from ..wire.auth import hash_token, new_token
from .accounts import User
from .players import Players, client_ip
from .services import LoopService
from .tournament_director import Director, Settings, new_id
from .tournament_options import (
    CreateTournament,
    Options,
    Schedule,
    check_options,
    parse_schedule,
    refusal,
)
from .tournament_standings import FIRE_AFTER, ranked, recompute

__all__ = ["Schedule", "Settings", "TournamentService", "install_tournaments", "parse_schedule"]

LIST_LIMIT = 30
"""Tournaments listed per state (upcoming, running, finished)."""


# -- the service ----------------------------------------------------------------------


class TournamentService:
    """Tournaments in the database: create, join, withdraw, views (module docstring)."""

    def __init__(
        self,
        players: Players,
        settings: Settings | None = None,
        schedules: Sequence[Schedule] = (),
    ) -> None:
        self.players = players
        self.engine = players.store.engine
        self.settings = settings or Settings.from_env()
        self.schedules = list(schedules)
        self.director = Director(players, self.settings)
        self.director.before_step.append(self.ensure_scheduled)
        self._scheduled_at = 0.0

    def bots(self) -> list[str]:
        """The bots that may be invited."""
        return list(getattr(self.players.hub, "bots", []))

    def create(self, user: User, options: Options, bots: Sequence[str] = ()) -> str:
        """Write a new tournament (and its invited bots); its id."""
        tid = new_id()
        now = time.time()
        with self.engine.begin() as conn:
            self._insert(conn, tid, options, now, creator_id=user.id)
            for b in bots:
                bot = self.players.accounts.ensure_bot(b)
                self._add_entry(conn, tid, bot.id, b, now, bot=b)
        self.director_wake()
        return tid

    def _insert(
        self,
        conn: Connection,
        tid: str,
        o: Options,
        now: float,
        *,
        creator_id: int | None,
        schedule: str | None = None,
    ) -> None:
        conn.execute(
            insert(tournaments_t).values(
                id=tid,
                name=o.name,
                kind=o.kind,
                players=o.players,
                rated=int(o.rated),
                preset=o.preset,
                starts=o.starts,
                ends=o.ends,
                rounds=o.rounds,
                round=0,
                state="scheduled",
                max_entries=o.max_entries,
                creator_id=creator_id,
                schedule=schedule,
                created=now,
                expires=0.0,
            )
        )

    @staticmethod
    def _add_entry(
        conn: Connection,
        tid: str,
        user_id: int,
        name: str,
        now: float,
        *,
        bot: str | None = None,
        token_hash: str | None = None,
    ) -> str:
        eid = new_id()
        conn.execute(
            insert(tournament_entries_t).values(
                id=eid,
                tournament_id=tid,
                user_id=user_id,
                name=name,
                bot=bot,
                token_hash=token_hash,
                state="active",
                score=0,
                games=0,
                wins=0,
                streak=0,
                joined=now,
                seen=now,
                free_since=now,
            )
        )
        return eid

    def ensure_scheduled(self) -> None:
        """Write the next tournament of each built-in schedule (once, whichever
        process gets there first: the slot's key is unique)."""
        now = time.time()
        if not self.schedules or now - self._scheduled_at < 30.0:
            return
        self._scheduled_at = now
        for s in self.schedules:
            start = s.slot(now)
            ends = start + 60.0 * s.minutes if s.minutes is not None else None
            o = Options(s.name(), s.kind, s.players, start, ends, s.rounds, False, "standard", 200)
            try:
                with self.engine.begin() as conn:
                    self._insert(
                        conn, new_id(), o, now, creator_id=None, schedule=f"{s.spec}@{int(start)}"
                    )
            except IntegrityError:
                continue  # already there

    def director_wake(self) -> None:
        """Ask this process's director to look now (a new tournament or entrant)."""
        for service in self.players.services:
            if service.name == "tournaments":
                service.wake()

    def _get(self, tid: str) -> Any:
        if not re.fullmatch(r"[a-z0-9]{1,24}", tid):
            raise refusal("no_tournament", "no such tournament", 404)
        with self.engine.connect() as conn:
            t = conn.execute(select(tournaments_t).where(tournaments_t.c.id == tid)).first()
        if t is None:
            raise refusal("no_tournament", "no such tournament", 404)
        return t

    def join(self, user: User, tid: str) -> dict[str, Any]:
        """Enter ``user`` (or give an entrant a new secret: another device); the
        secret, returned once."""
        t = self._get(tid)
        if t.state == "finished":
            raise refusal("tournament_over", "this tournament is over", 409)
        secret = new_token()
        now = time.time()
        with self.engine.begin() as conn:
            mine = conn.execute(
                select(tournament_entries_t).where(
                    tournament_entries_t.c.tournament_id == tid,
                    tournament_entries_t.c.user_id == user.id,
                )
            ).first()
            if mine is None:
                self._check_open(conn, t)
            elif mine.state != "active" and t.kind == "swiss" and t.state != "scheduled":
                raise refusal(
                    "tournament_started", "a Swiss tournament is joined before it starts", 409
                )
            if mine is None:
                eid = self._add_entry(
                    conn, tid, user.id, user.username, now, token_hash=hash_token(secret)
                )
            else:
                eid = mine.id
                conn.execute(
                    update(tournament_entries_t)
                    .where(tournament_entries_t.c.id == eid)
                    .values(state="active", token_hash=hash_token(secret), seen=now)
                )
        self.director_wake()
        return {"tournament_id": tid, "entry": eid, "secret": secret}

    @staticmethod
    def _check_open(conn: Connection, t: Any) -> None:
        if t.kind == "swiss" and t.state != "scheduled":
            raise refusal(
                "tournament_started", "a Swiss tournament is joined before it starts", 409
            )
        count = conn.execute(
            select(func.count())
            .select_from(tournament_entries_t)
            .where(tournament_entries_t.c.tournament_id == t.id)
        ).scalar_one()
        if int(count) >= int(t.max_entries):
            raise refusal("tournament_full", "this tournament is full", 409)

    def withdraw(self, user: User, tid: str) -> None:
        """Leave: before the start the entry goes; after, it is no longer paired
        (its score stays in the standings)."""
        t = self._get(tid)
        if t.state == "finished":
            raise refusal("tournament_over", "this tournament is over", 409)
        with self.engine.begin() as conn:
            where = (
                tournament_entries_t.c.tournament_id == tid,
                tournament_entries_t.c.user_id == user.id,
                tournament_entries_t.c.state == "active",
            )
            if t.state == "scheduled":
                gone = conn.execute(delete(tournament_entries_t).where(*where))
            else:
                gone = conn.execute(
                    update(tournament_entries_t).where(*where).values(state="withdrawn")
                )
            if gone.rowcount != 1:
                raise refusal("tournament_not_entered", "you are not in this tournament", 409)

    # -- views ---------------------------------------------------------------------

    def listing(self) -> dict[str, list[dict[str, Any]]]:
        """Upcoming, running and recently finished tournaments."""
        out: dict[str, list[dict[str, Any]]] = {}
        with self.engine.connect() as conn:
            for key, state, order in (
                ("upcoming", "scheduled", tournaments_t.c.starts),
                ("running", "running", tournaments_t.c.starts),
                ("finished", "finished", tournaments_t.c.finished.desc()),
            ):
                rows = conn.execute(
                    select(tournaments_t)
                    .where(tournaments_t.c.state == state)
                    .order_by(order)
                    .limit(LIST_LIMIT)
                ).all()
                counts = self._counts(conn, [r.id for r in rows])
                out[key] = [self._summary(r, counts.get(r.id, 0)) for r in rows]
        return out

    @staticmethod
    def _counts(conn: Connection, ids: list[str]) -> dict[str, int]:
        if not ids:
            return {}
        rows = conn.execute(
            select(tournament_entries_t.c.tournament_id, func.count())
            .where(tournament_entries_t.c.tournament_id.in_(ids))
            .group_by(tournament_entries_t.c.tournament_id)
        )
        return {r[0]: int(r[1]) for r in rows}

    @staticmethod
    def _summary(t: Any, entries: int) -> dict[str, Any]:
        return {
            "id": t.id,
            "name": t.name,
            "kind": t.kind,
            "players": int(t.players),
            "rated": bool(t.rated),
            "preset": t.preset,
            "starts": float(t.starts),
            "ends": None if t.ends is None else float(t.ends),
            "rounds": None if t.rounds is None else int(t.rounds),
            "round": int(t.round),
            "state": t.state,
            "entries": entries,
            "max_entries": int(t.max_entries),
            "builtin": t.schedule is not None,
            "finished": None if t.finished is None else float(t.finished),
        }

    def view(self, tid: str, user: User | None) -> dict[str, Any]:
        """One tournament: standings, running tables, results, and the viewer's entry."""
        t = self._get(tid)
        now = time.time()
        with self.engine.begin() as conn:
            if user is not None:  # an entrant looking: present for the arena's pairing
                conn.execute(
                    update(tournament_entries_t)
                    .where(
                        tournament_entries_t.c.tournament_id == tid,
                        tournament_entries_t.c.user_id == user.id,
                        tournament_entries_t.c.seen < now - 2.0,
                    )
                    .values(seen=now)
                )
            entries = conn.execute(
                select(tournament_entries_t).where(tournament_entries_t.c.tournament_id == tid)
            ).all()
            games = conn.execute(
                select(tournament_games_t)
                .where(tournament_games_t.c.tournament_id == tid)
                .order_by(tournament_games_t.c.created.desc(), tournament_games_t.c.id)
                .limit(300)
            ).all()
            seats = conn.execute(
                select(tournament_seats_t).where(
                    tournament_seats_t.c.game_id.in_([g.id for g in games])
                )
            ).all()
            creator = None
            if t.creator_id is not None:
                creator = conn.execute(
                    select(users_t.c.username).where(users_t.c.id == t.creator_id)
                ).scalar()
        by_id = {e.id: e for e in entries}
        summary = self._summary(t, len(entries))
        summary["creator"] = creator
        return {
            "tournament": summary,
            "now": now,
            "standings": self._standings(entries),
            "tables": self._games(games, seats, by_id, ("playing",)),
            "results": self._games(games, seats, by_id, ("done", "void", "bye"))[:100],
            "me": self._me(entries, games, user),
        }

    @staticmethod
    def _standings(entries: Sequence[Any]) -> list[dict[str, Any]]:
        rows = sorted(
            entries, key=lambda e: (-int(e.score), -int(e.wins), int(e.games), e.name.casefold())
        )
        return [
            {
                "rank": i + 1,
                "name": e.name,
                "bot": e.bot is not None,
                "score": int(e.score),
                "games": int(e.games),
                "wins": int(e.wins),
                "fire": int(e.streak) >= FIRE_AFTER,
                "withdrawn": e.state != "active",
                "playing": e.game_id is not None,
            }
            for i, e in enumerate(rows)
        ]

    @staticmethod
    def _games(
        games: Sequence[Any], seats: Sequence[Any], by_id: dict[str, Any], states: tuple[str, ...]
    ) -> list[dict[str, Any]]:
        of: dict[str, list[Any]] = {}
        for s in seats:
            of.setdefault(s.game_id, []).append(s)
        out = []
        for g in games:
            if g.state not in states:
                continue
            people = sorted(of.get(g.id, []), key=lambda s: (s.seat is None, s.seat or 0))
            out.append(
                {
                    "table_id": g.table_id,
                    "round": int(g.round),
                    "state": g.state,
                    "entrants": [
                        {
                            "name": by_id[s.entry_id].name,
                            "bot": by_id[s.entry_id].bot is not None,
                            "points": s.points,
                        }
                        for s in people
                        if s.entry_id in by_id
                    ],
                }
            )
        return out

    @staticmethod
    def _me(
        entries: Sequence[Any], games: Sequence[Any], user: User | None
    ) -> dict[str, Any] | None:
        if user is None:
            return None
        mine = next((e for e in entries if e.user_id == user.id and e.bot is None), None)
        if mine is None:
            return None
        table = next(
            (g.table_id for g in games if g.id == mine.game_id and g.state == "playing"), None
        )
        return {"state": mine.state, "table_id": table, "score": int(mine.score)}

    def standings_check(
        self, tid: str
    ) -> tuple[dict[str, tuple[int, int, int]], dict[str, tuple[int, int, int]]]:
        """The stored standings and the ones recomputed from the games, by entry
        ``(score, games, wins)``; equal unless something was counted wrong."""
        t = self._get(tid)
        with self.engine.connect() as conn:
            stored = {
                e.id: (int(e.score), int(e.games), int(e.wins))
                for e in conn.execute(
                    select(tournament_entries_t).where(tournament_entries_t.c.tournament_id == tid)
                )
            }
            again = recompute(conn, tid, doubling=t.kind == "arena")
        return stored, {s.entry_id: (s.score, s.games, s.wins) for s in ranked(again.values())}


# -- the HTTP API ---------------------------------------------------------------------


def tournament_router(service: TournamentService) -> APIRouter:
    """``/api/tournaments``: list, create, one tournament, join, withdraw."""
    r = APIRouter(prefix="/api/tournaments", tags=["tournaments"])
    players = service.players

    def account(request: Request) -> User:
        user = players.user_of(request)
        if user is None:
            raise refusal("login_required", "tournaments are for accounts: log in first", 401)
        return user

    @r.get("")
    async def listing() -> dict[str, Any]:
        """Upcoming, running and finished tournaments."""
        return service.listing()

    @r.post("", status_code=201)
    async def create(req: CreateTournament, request: Request) -> dict[str, Any]:
        """Create a tournament (rate-limited per account and per address)."""
        user = account(request)
        options = check_options(req, time.time(), service.bots())
        players.limiter.check("tournament", client_ip(request))
        players.limiter.check("tournament", f"user:{user.id}")
        tid = service.create(user, options, req.bots)
        return service.view(tid, user)

    @r.get("/{tid}")
    async def one(tid: str, request: Request) -> dict[str, Any]:
        """A tournament's standings, tables and results (an entrant's look counts as presence)."""
        return service.view(tid, players.user_of(request))

    @r.post("/{tid}/join")
    async def join(tid: str, request: Request) -> dict[str, Any]:
        """Enter; the entry's secret (once: the page keeps it)."""
        user = account(request)
        players.limiter.check("join", client_ip(request))
        return service.join(user, tid)

    @r.post("/{tid}/withdraw")
    async def withdraw(tid: str, request: Request) -> dict[str, Any]:
        """Leave the tournament."""
        service.withdraw(account(request), tid)
        return {"ok": True}

    return r


def install_tournaments(
    app: FastAPI, players: Players, schedules: Sequence[str] = (), settings: Settings | None = None
) -> TournamentService:
    """Add the tournaments' API and director to an app (``app.state.tournaments``)."""
    service = TournamentService(players, settings, [parse_schedule(s) for s in schedules])
    app.state.tournaments = service
    players.services.append(
        LoopService("tournaments", service.director.step, service.settings.interval_s)
    )
    app.include_router(tournament_router(service))
    return service
