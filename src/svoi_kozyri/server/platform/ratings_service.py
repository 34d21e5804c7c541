"""Results and OpenSkill ratings of finished tables, per player count.

When a table is created the server notes it in ``sk_table_meta`` (rated or not,
number of players) and links its bot seats to the bots' labelled accounts.  Once
the table's session is over, :meth:`RatingService.process_finished` (run every
few seconds by the server, and safe to run in several processes at once) claims
the table with one conditional update, so it is processed exactly once, and in
the same transaction:

* stores every account's (and bot's) place and score in ``sk_game_results``, the
  list a profile shows;
* for a **rated** table (every seat an account or a bot) updates each player's
  OpenSkill (Plackett-Luce) rating for that number of players, ranking the seats
  by the session's measure (fewest losses, or most points; ties share a place).
  A bot filling several seats takes the sum of its copies' changes, as in
  :mod:`svoi_kozyri.arena.ratings`, so a match stays zero-sum in ``mu``.

Ratings are kept as OpenSkill's ``mu`` and ``sigma``; the conservative ordinal
``mu - 3 sigma`` (it grows as the system becomes sure of a player) is what ranks
them.  People read it on a familiar, Elo-like scale, :func:`display_rating`:
``1500 + 48 * (mu - 3 sigma)``, so a new account reads 1500 and never a negative
fraction such as -1.57.  48 display points per unit because one ``beta`` (25/6,
the spread of a player's performance in OpenSkill's model) between two settled
players is about a 76 % chance of finishing ahead, which Elo writes as 200 points.
A rating is *provisional* (shown with a "?", as lichess marks Glicko-2 ratings
with a large deviation) until :data:`PROVISIONAL_GAMES` rated games, unless an
arena calibration rated it (the bots).
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy import (
    Engine,
    insert,
    select,
    update,
)

from ..storage.schema import ratings_t, results_t, seat_accounts_t, table_meta_t, tables_t, users_t
from ..storage.store import Store
from ..table.game import SeatInfo, TableGame
from ..wire.schemas import TableConfig
from .accounts import AccountService, User

log = logging.getLogger("svoi_kozyri.server.ratings")

MU0 = 25.0
SIGMA0 = 25.0 / 3.0


DISPLAY_BASE = 1500
"""The display rating of a new account (``mu = 25``, ``sigma = 25/3``: ordinal 0)."""
DISPLAY_SCALE = 48.0
"""Display points per unit of the ordinal: 200 per ``beta`` (25/6), as in Elo."""
PROVISIONAL_GAMES = 10
"""Rated games after which a rating is no longer marked provisional."""


def ordinal(mu: float, sigma: float) -> float:
    """The conservative rating: ``mu - 3 sigma``."""
    return mu - 3.0 * sigma


def display_rating(mu: float, sigma: float) -> int:
    """The rating as people read it: ``1500 + 48 (mu - 3 sigma)``, rounded.

    >>> display_rating(MU0, SIGMA0)
    1500
    >>> display_rating(20.96, 8.08)  # a new account after one lost game
    1343
    """
    return round(DISPLAY_BASE + DISPLAY_SCALE * ordinal(mu, sigma))


def is_provisional(games: int, arena_hands: int = 0) -> bool:
    """Whether a rating is still provisional: fewer than :data:`PROVISIONAL_GAMES`
    rated games and no arena calibration."""
    return games < PROVISIONAL_GAMES and arena_hands == 0


def places(measure: list[int], lower_is_better: bool) -> list[int]:
    """1-based places of each seat by ``measure``; equal measures share a place."""
    key = measure if lower_is_better else [-m for m in measure]
    return [1 + sum(1 for other in key if other < mine) for mine in key]


def rate_match(
    players: list[int], current: dict[int, tuple[float, float]], ranks: list[int]
) -> dict[int, tuple[float, float]]:
    """New ``(mu, sigma)`` of each account after one match.

    ``players[i]`` is the account at seat ``i`` (an account may fill several seats:
    its changes are summed), ``ranks[i]`` its place (lower is better).
    """
    model = PlackettLuce()
    teams = [[model.rating(mu=current[u][0], sigma=current[u][1])] for u in players]
    new = model.rate(teams, ranks=[float(r) for r in ranks])
    acc: dict[int, list[tuple[float, float]]] = {}
    for u, team in zip(players, new, strict=True):
        acc.setdefault(u, []).append((float(team[0].mu), float(team[0].sigma)))
    out: dict[int, tuple[float, float]] = {}
    for u, vals in acc.items():
        mu, sigma = current[u]
        var = sigma * sigma
        out[u] = (
            mu + sum(v[0] - mu for v in vals),
            math.sqrt(max(1e-6, var + sum(v[1] * v[1] - var for v in vals))),
        )
    return out


@dataclass(frozen=True)
class RatingRow:
    """One account's rating for one player count."""

    players: int
    mu: float
    sigma: float
    games: int
    arena_hands: int = 0

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``."""
        return ordinal(self.mu, self.sigma)

    @property
    def display(self) -> int:
        """The rating on the display scale (:func:`display_rating`)."""
        return display_rating(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        """Still provisional (:func:`is_provisional`)."""
        return is_provisional(self.games, self.arena_hands)


class RatingService:
    """Table bookkeeping, results and ratings (see the module docstring)."""

    def __init__(self, store: Store, accounts: AccountService) -> None:
        self.store = store
        self.engine: Engine = store.engine
        self.accounts = accounts
        self._rated: dict[str, bool] = {}

    # -- creation ------------------------------------------------------------------

    def table_created(self, table_id: str, config: TableConfig) -> None:
        """Note a new table and link its bot seats to the bots' accounts."""
        with self.engine.begin() as conn:
            conn.execute(
                insert(table_meta_t).values(
                    table_id=table_id,
                    rated=1 if config.rated else 0,
                    players=len(config.seats),
                    state="open",
                    created=time.time(),
                )
            )
        self._rated[table_id] = bool(config.rated)
        for i, s in enumerate(config.seats):
            if s.kind == "bot" and s.bot:
                self.accounts.link_seat(table_id, i, self.accounts.ensure_bot(s.bot))

    def is_rated(self, table_id: str) -> bool:
        """Whether ``table_id`` is a rated table."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(table_meta_t.c.rated).where(table_meta_t.c.table_id == table_id)
            ).first()
        return bool(row and row.rated)

    def rated_tables(self, table_ids: list[str]) -> set[str]:
        """Which of ``table_ids`` are rated (remembered: a table's flag never changes,
        and the lobby asks for every table on every poll)."""
        missing = [t for t in table_ids if t not in self._rated]
        for start in range(0, len(missing), 500):
            chunk = missing[start : start + 500]
            with self.engine.connect() as conn:
                rows = conn.execute(
                    select(table_meta_t.c.table_id, table_meta_t.c.rated).where(
                        table_meta_t.c.table_id.in_(chunk)
                    )
                ).all()
            if len(self._rated) > 200_000:
                self._rated.clear()
            found = {r.table_id: bool(r.rated) for r in rows}
            for t in chunk:  # tables made before accounts existed are unrated
                self._rated[t] = found.get(t, False)
        return {t for t in table_ids if self._rated.get(t)}

    # -- finishing -----------------------------------------------------------------

    def process_finished(self, limit: int = 50) -> int:
        """Record results (and ratings) of finished tables not yet processed; how many."""
        with self.engine.connect() as conn:
            ids = [
                r.table_id
                for r in conn.execute(
                    select(table_meta_t.c.table_id)
                    .join(tables_t, tables_t.c.id == table_meta_t.c.table_id)
                    .where(table_meta_t.c.state == "open", tables_t.c.status == "finished")
                    .limit(limit)
                )
            ]
        done = 0
        for table_id in ids:
            try:
                if self._process(table_id):
                    done += 1
            except Exception:
                log.exception("table %s: recording the results failed", table_id)
        return done

    def _process(self, table_id: str) -> bool:
        stored = self.store.load(table_id)
        if stored is None:
            return False
        config = TableConfig.model_validate(stored.config)
        seats = [
            SeatInfo(kind=s["kind"], bot=s["bot"], name=s["name"], token_hash=s["token_hash"])
            for s in stored.seats
        ]
        game = TableGame(stored.id, config, stored.seed, seats, stored.created)
        game.replay(stored.events)
        session = game.session
        if not session.over:
            return False
        losses, points = session.losses, session.points
        if session.rules.session_mode == "losses":
            place = places(losses, lower_is_better=True)
        else:
            place = places(points, lower_is_better=False)
        n = game.n
        now = time.time()
        with self.engine.begin() as conn:
            claimed = conn.execute(
                update(table_meta_t)
                .where(table_meta_t.c.table_id == table_id, table_meta_t.c.state == "open")
                .values(state="done", finished=now)
            )
            if claimed.rowcount != 1:
                return False  # another process got there first
            meta = conn.execute(
                select(table_meta_t.c.rated).where(table_meta_t.c.table_id == table_id)
            ).one()
            owners = {
                int(r.seat): int(r.user_id)
                for r in conn.execute(
                    select(seat_accounts_t.c.seat, seat_accounts_t.c.user_id).where(
                        seat_accounts_t.c.table_id == table_id
                    )
                )
            }
            rated = bool(meta.rated) and all(i in owners for i in range(n))
            before: dict[int, tuple[float, float]] = {}
            after: dict[int, tuple[float, float]] = {}
            if rated:
                users = [owners[i] for i in range(n)]
                rows = {
                    int(r.user_id): r
                    for r in conn.execute(
                        select(ratings_t)
                        .where(ratings_t.c.user_id.in_(set(users)), ratings_t.c.players == n)
                        .with_for_update()
                    )
                }
                before = {
                    u: (float(rows[u].mu), float(rows[u].sigma)) if u in rows else (MU0, SIGMA0)
                    for u in users
                }
                after = rate_match(users, before, place)
                for u, (mu, sigma) in after.items():
                    copies = users.count(u)
                    if u in rows:
                        conn.execute(
                            update(ratings_t)
                            .where(ratings_t.c.user_id == u, ratings_t.c.players == n)
                            .values(
                                mu=mu, sigma=sigma, games=ratings_t.c.games + copies, updated=now
                            )
                        )
                    else:
                        conn.execute(
                            insert(ratings_t).values(
                                user_id=u,
                                players=n,
                                mu=mu,
                                sigma=sigma,
                                games=copies,
                                arena_hands=0,
                                updated=now,
                            )
                        )
            for i, u in owners.items():
                if i >= n:
                    continue
                b = before.get(u)
                a = after.get(u)
                conn.execute(
                    insert(results_t).values(
                        table_id=table_id,
                        seat=i,
                        user_id=u,
                        players=n,
                        rated=1 if rated else 0,
                        place=place[i],
                        losses=losses[i],
                        points=points[i],
                        mu_before=b[0] if b else None,
                        sigma_before=b[1] if b else None,
                        mu_after=a[0] if a else None,
                        sigma_after=a[1] if a else None,
                        finished=now,
                    )
                )
        return True

    # -- queries -------------------------------------------------------------------

    def ratings_of(self, user: User) -> list[RatingRow]:
        """``user``'s ratings, one per player count they have played rated."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(ratings_t)
                .where(ratings_t.c.user_id == user.id)
                .order_by(ratings_t.c.players)
            ).all()
        return [
            RatingRow(
                int(r.players), float(r.mu), float(r.sigma), int(r.games), int(r.arena_hands or 0)
            )
            for r in rows
        ]

    def history(self, user: User, limit: int = 500) -> dict[int, list[dict[str, Any]]]:
        """Rating after each rated game, per player count, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(results_t)
                .where(results_t.c.user_id == user.id, results_t.c.rated == 1)
                .order_by(results_t.c.finished.desc(), results_t.c.table_id, results_t.c.seat)
                .limit(limit)
            ).all()
        out: dict[int, list[dict[str, Any]]] = {}
        seen: set[str] = set()
        for r in reversed(rows):
            if r.table_id in seen:  # a bot in several seats: one point per game
                continue
            seen.add(r.table_id)
            out.setdefault(int(r.players), []).append(
                {
                    "t": float(r.finished),
                    "table_id": r.table_id,
                    "mu": float(r.mu_after),
                    "sigma": float(r.sigma_after),
                    "rating": round(ordinal(float(r.mu_after), float(r.sigma_after)), 2),
                    "display": display_rating(float(r.mu_after), float(r.sigma_after)),
                }
            )
        return out

    def leaderboard(
        self, players: int, limit: int = 20, bots: bool | None = None
    ) -> list[dict[str, Any]]:
        """The best ratings for ``players`` players (optionally only bots or only people)."""
        q = (
            select(users_t.c.username, users_t.c.is_bot, ratings_t)
            .join(users_t, users_t.c.id == ratings_t.c.user_id)
            .where(ratings_t.c.players == players)
        )
        if bots is not None:
            q = q.where(users_t.c.is_bot == (1 if bots else 0))
        with self.engine.connect() as conn:
            rows = conn.execute(q).all()
        out = [
            {
                "username": r.username,
                "bot": bool(r.is_bot),
                "rating": round(ordinal(float(r.mu), float(r.sigma)), 2),
                "display": display_rating(float(r.mu), float(r.sigma)),
                "provisional": is_provisional(int(r.games), int(r.arena_hands or 0)),
                "mu": round(float(r.mu), 2),
                "sigma": round(float(r.sigma), 2),
                "games": int(r.games),
                "arena_hands": int(r.arena_hands or 0),
            }
            for r in rows
        ]
        out.sort(key=lambda e: -e["rating"])
        return out[:limit]

    # -- bots ------------------------------------------------------------------------

    def calibrate_bots(
        self,
        bots: list[str],
        players: int,
        hands_per_table: int = 200,
        *,
        seed: int = 0,
        workers: int | None = None,
        force: bool = False,
    ) -> dict[str, tuple[float, float]]:
        """Rate the bots' accounts for ``players`` players from an arena round robin
        between them (:func:`svoi_kozyri.arena.tournament.run_round_robin`), so a new
        server shows how strong each level is before anybody played it.

        A bot that already has rated web games keeps its rating unless ``force``.
        Returns the ``(mu, sigma)`` written, by bot.
        """
        from ...arena.tournament import run_round_robin

        report = run_round_robin(bots, hands_per_table, players=players, seed=seed, workers=workers)
        written: dict[str, tuple[float, float]] = {}
        now = time.time()
        for name, st in report.bots.items():
            if st.mu is None or st.sigma is None:
                continue
            user = self.accounts.ensure_bot(name)
            with self.engine.begin() as conn:
                row = conn.execute(
                    select(ratings_t).where(
                        ratings_t.c.user_id == user.id, ratings_t.c.players == players
                    )
                ).first()
                if row is not None and int(row.games) > 0 and not force:
                    continue
                values = {"mu": st.mu, "sigma": st.sigma, "arena_hands": st.hands, "updated": now}
                if row is None:
                    conn.execute(
                        insert(ratings_t).values(
                            user_id=user.id, players=players, games=0, **values
                        )
                    )
                else:
                    conn.execute(
                        update(ratings_t)
                        .where(ratings_t.c.user_id == user.id, ratings_t.c.players == players)
                        .values(**values)
                    )
            written[name] = (float(st.mu), float(st.sigma))
        return written
