"""The tournament director: the step every server process runs (a
:class:`~.services.LoopService`) to start tournaments, seat their games, settle
finished games into the standings, pair the next ones and end tournaments.

**One director per tournament at a time.**  A tournament's row carries a lease
(``owner``, ``expires``); a step directs only the tournaments whose lease it
takes or renews with one conditional UPDATE (free, expired, or already its
own).  When a process dies its leases run out after :attr:`Settings.lease_s`
and another process's next step takes the tournament over where it stood:
everything the director knows is in the database.

**Every change is claimed.**  Even so each change is written so that two
directors could not both make it (a lease can run out in the middle of a
slow step): a new game claims its entrants with ``game_id IS NULL`` in the same
transaction that writes it, a game is settled by moving it from ``playing`` to
``done`` (rowcount 1), a Swiss round is opened by moving ``round`` from r to
r + 1, a table is recorded on its game only while it has none.

**The steps of a game.**  A game is written ``seating`` with its seats; the
director then makes its table (:meth:`~.players.Players.seat_table`, the
entrants seated by the hashes of their entries' secrets) and marks it
``playing``; a game whose process died in between is seated by the next step.
A ``playing`` game is settled once the platform's sweeper recorded its table's
results (``sk_table_meta.state = 'done'``): the points come from
``sk_game_results`` (:mod:`.tournament_standings`).  A table nobody ever played
(the scheduler never plays a table no person connected to) is *void* once it
has not changed for :attr:`Settings.stale_s`.
"""

from __future__ import annotations

import json
import logging
import os
import random
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from sqlalchemy import Connection, Row, and_, func, insert, or_, select, update

from ..storage.schema import (
    table_meta_t,
    tables_t,
    tournament_entries_t,
    tournament_games_t,
    tournament_seats_t,
    tournaments_t,
)
from ..table.service import Holder
from ..wire.schemas import SeatConfig, TableConfig
from .players import Players
from .tournament_standings import (
    BYE,
    DURAK,
    Candidate,
    SeatResult,
    award,
    base_points,
    pair,
    seat_results,
)

log = logging.getLogger("svoi_kozyri.server.tournaments")

PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "whole_pile": {"pickup_rule": "whole_pile"},
    "blind": {"suit_assignment": "blind"},
    "short": {"deck_size": 24, "variant": "besicovitch"},
}
"""The rules a tournament may be played by (merged with ``loss_limit`` 1).
``short`` (Besicovitch's 24-card game) is for two players only."""

OPEN_GAMES = ("seating", "playing")
TIMES_ENV = "SVOI_KOZYRI_TOURNAMENT_TIMES"


@dataclass
class Settings:
    """Tunable times of the tournaments (tests shorten them)."""

    grace_s: float = 20.0
    """The tables' grace before a stand-in plays for an absent entrant."""
    turn_timer_s: float | None = 40.0
    bot_delay_s: float = 0.6
    hand_pause_s: float = 1.0
    present_s: float = 45.0
    """Arena: an entrant is paired only if their page looked within this."""
    fill_after_s: float = 20.0
    """Arena: who waits this long without enough opponents gets house bots."""
    stale_s: float = 150.0
    """A game's table that has not changed for this long (nobody came) is void."""
    lease_s: float = 15.0
    interval_s: float = 1.0
    house_bot: str = "easy"

    @classmethod
    def from_env(cls) -> Settings:
        """The defaults, with the times in ``SVOI_KOZYRI_TOURNAMENT_TIMES`` (a JSON
        object of field names to numbers: the play tests and ``bench/tournament.py``
        shorten them for a server process and its workers)."""
        raw = os.environ.get(TIMES_ENV)
        if not raw:
            return cls()
        values = json.loads(raw)
        names = {f.name for f in fields(cls)}
        if not isinstance(values, dict) or not set(values) <= names:
            raise ValueError(f"{TIMES_ENV}: a JSON object of {sorted(names)}")
        return cls(**values)


def next_seq(conn: Connection, tid: str) -> int:
    """The next game's place in the tournament's order.  An entrant's next game is
    written only after their last one is settled, so their games' numbers grow
    in the order they played them (what the streak counts), whatever the clocks."""
    last = conn.execute(
        select(func.max(tournament_games_t.c.seq)).where(tournament_games_t.c.tournament_id == tid)
    ).scalar()
    return 1 + int(last or 0)


class _Lost(Exception):
    """A claim another director won (the transaction is rolled back)."""


def new_id() -> str:
    """A short random id (lower-case letters and digits, as the page's routes take)."""
    return secrets.token_hex(8)


class Director:
    """Directs the tournaments whose lease this process holds (module docstring)."""

    def __init__(
        self,
        players: Players,
        settings: Settings,
        *,
        owner: str | None = None,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
    ) -> None:
        self.players = players
        self.engine = players.store.engine
        self.settings = settings
        self.owner = owner or f"tdir:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        """This director's name in the leases (its process id shows which process
        directs a tournament: ``bench/tournament.py`` kills that one)."""
        self.clock = clock
        self.rng = rng or random.Random()
        self.before_step: list[Callable[[], object]] = []
        """Run first in every step (the built-in schedule)."""

    # -- the step ------------------------------------------------------------------

    def step(self) -> int:
        """One pass over the tournaments that are due; how many were directed."""
        for hook in self.before_step:
            hook()
        now = self.clock()
        with self.engine.connect() as conn:
            ids = [
                r.id
                for r in conn.execute(
                    select(tournaments_t.c.id).where(
                        tournaments_t.c.state.in_(("scheduled", "running")),
                        tournaments_t.c.starts <= now,
                    )
                )
            ]
        directed = 0
        for tid in ids:
            if not self._lease(tid):
                continue
            directed += 1
            try:
                self.direct(tid)
            except Exception:
                log.exception("tournament %s: directing failed", tid)
        return directed

    def _lease(self, tid: str) -> bool:
        """Take or renew the tournament's lease (one conditional UPDATE)."""
        now = self.clock()
        with self.engine.begin() as conn:
            got = conn.execute(
                update(tournaments_t)
                .where(
                    tournaments_t.c.id == tid,
                    tournaments_t.c.state.in_(("scheduled", "running")),
                    or_(
                        tournaments_t.c.owner.is_(None),
                        tournaments_t.c.owner == self.owner,
                        tournaments_t.c.expires < now,
                    ),
                )
                .values(owner=self.owner, expires=now + self.settings.lease_s)
            )
        return got.rowcount == 1

    def direct(self, tid: str) -> None:
        """Move one tournament on as far as it can go now."""
        t = self._tournament(tid)
        if t is None:
            return
        if t.state == "scheduled":
            self._start(t)
            t = self._tournament(tid)
            if t is None or t.state != "running":
                return
        self._seat_pending(t)
        self._settle(t)
        if t.kind == "arena":
            self._arena(t)
        else:
            self._swiss(t)

    def _tournament(self, tid: str) -> Row[Any] | None:
        with self.engine.connect() as conn:
            return conn.execute(select(tournaments_t).where(tournaments_t.c.id == tid)).first()

    # -- start and end -------------------------------------------------------------

    def _start(self, t: Row[Any]) -> None:
        """Start at the start time; a tournament nobody (no person) entered ends empty."""
        with self.engine.begin() as conn:
            people = conn.execute(
                select(tournament_entries_t.c.id).where(
                    tournament_entries_t.c.tournament_id == t.id,
                    tournament_entries_t.c.bot.is_(None),
                    tournament_entries_t.c.state == "active",
                )
            ).first()
            state = "running" if people is not None else "finished"
            conn.execute(
                update(tournaments_t)
                .where(tournaments_t.c.id == t.id, tournaments_t.c.state == "scheduled")
                .values(state=state, finished=None if people else self.clock())
            )

    def _finish(self, t: Row[Any]) -> None:
        with self.engine.begin() as conn:
            conn.execute(
                update(tournaments_t)
                .where(tournaments_t.c.id == t.id, tournaments_t.c.state == "running")
                .values(state="finished", finished=self.clock(), owner=None, expires=0.0)
            )
            conn.execute(
                update(tournament_entries_t)
                .where(tournament_entries_t.c.tournament_id == t.id)
                .values(game_id=None)
            )

    def _open_games(self, conn: Connection, tid: str) -> list[Row[Any]]:
        return list(
            conn.execute(
                select(tournament_games_t).where(
                    tournament_games_t.c.tournament_id == tid,
                    tournament_games_t.c.state.in_(OPEN_GAMES),
                )
            )
        )

    # -- arena and Swiss -------------------------------------------------------------

    def _arena(self, t: Row[Any]) -> None:
        """Pair whoever is free and here; after the end, finish once every game is."""
        now = self.clock()
        with self.engine.connect() as conn:
            if now >= float(t.ends):
                if not self._open_games(conn, t.id):
                    self._finish(t)
                return
            rows = self._free_entries(conn, t.id)
        here = [
            r for r in rows if r.bot is not None or float(r.seen) >= now - self.settings.present_s
        ]
        cands = [Candidate(r.id, int(r.score), r.bot is not None) for r in here]
        met = self._met(t.id)
        p = pair(cands, int(t.players), met, self.rng, short_ok=False)
        long_wait = {
            r.id
            for r in here
            if r.bot is None and now - float(r.free_since) >= self.settings.fill_after_s
        }
        if any(c.entry_id in long_wait for c in p.left):
            p.tables.extend(pair(p.left, int(t.players), met, self.rng, short_ok=True).tables)
        for group in p.tables:
            self._new_game(t, group, int(t.round))

    def _swiss(self, t: Row[Any]) -> None:
        """Open the next round once every game of the last one is settled."""
        with self.engine.connect() as conn:
            if self._open_games(conn, t.id):
                return
            if int(t.round) >= int(t.rounds):
                self._finish(t)
                return
            rows = self._free_entries(conn, t.id)
        cands = [Candidate(r.id, int(r.score), r.bot is not None) for r in rows]
        p = pair(cands, int(t.players), self._met(t.id), self.rng, short_ok=True)
        nxt = int(t.round) + 1
        with self.engine.begin() as conn:
            moved = conn.execute(
                update(tournaments_t)
                .where(tournaments_t.c.id == t.id, tournaments_t.c.round == t.round)
                .values(round=nxt)
            )
            if moved.rowcount != 1:
                return
            for c in p.left:
                self._bye(conn, t.id, c.entry_id, nxt)
        for group in p.tables:
            self._new_game(t, group, nxt)

    def _free_entries(self, conn: Connection, tid: str) -> list[Row[Any]]:
        return list(
            conn.execute(
                select(tournament_entries_t).where(
                    tournament_entries_t.c.tournament_id == tid,
                    tournament_entries_t.c.state == "active",
                    tournament_entries_t.c.game_id.is_(None),
                )
            )
        )

    def _met(self, tid: str) -> dict[frozenset[str], int]:
        """How often each two entrants have played together (pairing avoids repeats)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(tournament_seats_t.c.game_id, tournament_seats_t.c.entry_id)
                .join(tournament_games_t, tournament_games_t.c.id == tournament_seats_t.c.game_id)
                .where(
                    tournament_games_t.c.tournament_id == tid,
                    tournament_games_t.c.state != "bye",
                )
            ).all()
        by_game: dict[str, list[str]] = {}
        for r in rows:
            by_game.setdefault(r.game_id, []).append(r.entry_id)
        met: dict[frozenset[str], int] = {}
        for ids in by_game.values():
            for i, a in enumerate(ids):
                for b in ids[i + 1 :]:
                    key = frozenset((a, b))
                    met[key] = met.get(key, 0) + 1
        return met

    # -- games -----------------------------------------------------------------------

    def _new_game(self, t: Row[Any], group: list[Candidate], rnd: int) -> str | None:
        """Write a ``seating`` game claiming its entrants (all or none), then seat it."""
        gid = new_id()
        seats = self.rng.sample(range(int(t.players)), len(group))
        now = self.clock()
        try:
            self._write_game(t, gid, group, seats, rnd, now)
        except _Lost:
            return None
        self._seat(t, gid)
        return gid

    def _write_game(
        self, t: Row[Any], gid: str, group: list[Candidate], seats: list[int], rnd: int, now: float
    ) -> None:
        with self.engine.begin() as conn:
            claimed = conn.execute(
                update(tournament_entries_t)
                .where(
                    tournament_entries_t.c.id.in_([c.entry_id for c in group]),
                    tournament_entries_t.c.game_id.is_(None),
                )
                .values(game_id=gid)
            )
            if claimed.rowcount != len(group):
                raise _Lost  # another director took one of them: write nothing
            conn.execute(
                insert(tournament_games_t).values(
                    id=gid,
                    tournament_id=t.id,
                    round=rnd,
                    seq=next_seq(conn, t.id),
                    state="seating",
                    created=now,
                )
            )
            for c, seat in zip(group, seats, strict=True):
                conn.execute(
                    insert(tournament_seats_t).values(game_id=gid, entry_id=c.entry_id, seat=seat)
                )

    def _bye(self, conn: Connection, tid: str, entry_id: str, rnd: int) -> None:
        """A Swiss entrant without a table this round: a settled game worth :data:`BYE`."""
        gid = new_id()
        now = self.clock()
        conn.execute(
            insert(tournament_games_t).values(
                id=gid,
                tournament_id=tid,
                round=rnd,
                seq=next_seq(conn, tid),
                state="bye",
                created=now,
                finished=now,
            )
        )
        conn.execute(
            insert(tournament_seats_t).values(game_id=gid, entry_id=entry_id, seat=None, points=BYE)
        )
        conn.execute(
            update(tournament_entries_t)
            .where(tournament_entries_t.c.id == entry_id)
            .values(score=tournament_entries_t.c.score + BYE)
        )

    def _seat_pending(self, t: Row[Any]) -> None:
        with self.engine.connect() as conn:
            pending = [
                r.id
                for r in conn.execute(
                    select(tournament_games_t.c.id).where(
                        tournament_games_t.c.tournament_id == t.id,
                        tournament_games_t.c.state == "seating",
                    )
                )
            ]
        for gid in pending:
            self._seat(t, gid)

    def table_config(self, t: Row[Any], seats: dict[int, Row[Any]]) -> TableConfig:
        """The table of one game: its entrants at their seats, house bots in the rest."""
        s = self.settings
        config = [SeatConfig(kind="bot", bot=s.house_bot) for _ in range(int(t.players))]
        for seat, e in seats.items():
            config[seat] = SeatConfig(kind="bot", bot=e.bot) if e.bot else SeatConfig()
        rules = {**PRESETS.get(t.preset, {}), "num_players": int(t.players)}
        rules.update(session_mode="losses", loss_limit=1)
        return TableConfig(
            title=str(t.name)[:40],
            seats=config,
            rules=rules,
            grace_s=s.grace_s,
            turn_timer_s=s.turn_timer_s,
            bot_delay_s=s.bot_delay_s,
            hand_pause_s=s.hand_pause_s,
            listed=False,
            rated=bool(t.rated),
        )

    def _seat(self, t: Row[Any], gid: str) -> None:
        """Make the table of a ``seating`` game and record it (only if it has none)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(tournament_seats_t.c.seat, tournament_entries_t)
                .join(
                    tournament_entries_t, tournament_entries_t.c.id == tournament_seats_t.c.entry_id
                )
                .where(tournament_seats_t.c.game_id == gid)
            ).all()
        seats = {int(r.seat): r for r in rows}
        config = self.table_config(t, seats)
        holders = [
            Holder(str(seats[i].name), str(seats[i].token_hash), int(seats[i].user_id))
            for i in sorted(seats)
            if seats[i].bot is None
        ]
        table_id = self.players.seat_table(config, holders)
        with self.engine.begin() as conn:
            conn.execute(
                update(tournament_games_t)
                .where(
                    tournament_games_t.c.id == gid,
                    tournament_games_t.c.state == "seating",
                    tournament_games_t.c.table_id.is_(None),
                )
                .values(table_id=table_id, state="playing")
            )

    def _settle(self, t: Row[Any]) -> None:
        """Settle the games whose tables' results are recorded; void stuck ones."""
        now = self.clock()
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(
                    tournament_games_t.c.id,
                    tournament_games_t.c.table_id,
                    table_meta_t.c.state.label("meta"),
                    tables_t.c.updated,
                )
                .join(table_meta_t, table_meta_t.c.table_id == tournament_games_t.c.table_id)
                .join(tables_t, tables_t.c.id == tournament_games_t.c.table_id)
                .where(
                    tournament_games_t.c.tournament_id == t.id,
                    tournament_games_t.c.state == "playing",
                )
            ).all()
            done = [r for r in rows if r.meta == "done"]
            results = seat_results(conn, [r.table_id for r in done])
        for r in done:
            self._close(t, r.id, "done", results.get(r.table_id, {}))
        for r in rows:
            if r.meta != "done" and float(r.updated) < now - self.settings.stale_s:
                self._close(t, r.id, "void", {})

    def _close(self, t: Row[Any], gid: str, state: str, table: dict[int, SeatResult]) -> None:
        """Settle one game: its points into its seats and its entrants' standings."""
        doubling = t.kind == "arena"
        now = self.clock()
        with self.engine.begin() as conn:
            moved = conn.execute(
                update(tournament_games_t)
                .where(tournament_games_t.c.id == gid, tournament_games_t.c.state == "playing")
                .values(state=state, finished=now)
            )
            if moved.rowcount != 1:
                return
            rows = conn.execute(
                select(tournament_seats_t.c.seat, tournament_entries_t)
                .join(
                    tournament_entries_t, tournament_entries_t.c.id == tournament_seats_t.c.entry_id
                )
                .where(tournament_seats_t.c.game_id == gid)
            ).all()
            everyone = list(table.values())
            for r in rows:
                mine = table.get(int(r.seat)) if r.seat is not None else None
                base = base_points(mine, everyone) if mine is not None else DURAK
                points, streak = award(base, int(r.streak), doubling)
                conn.execute(
                    update(tournament_seats_t)
                    .where(
                        and_(
                            tournament_seats_t.c.game_id == gid,
                            tournament_seats_t.c.entry_id == r.id,
                        )
                    )
                    .values(points=points)
                )
                conn.execute(
                    update(tournament_entries_t)
                    .where(tournament_entries_t.c.id == r.id)
                    .values(
                        score=tournament_entries_t.c.score + points,
                        games=tournament_entries_t.c.games + 1,
                        wins=tournament_entries_t.c.wins + (1 if base == 2 else 0),
                        streak=streak,
                        game_id=None,
                        free_since=now,
                    )
                )
