"""Tournament scoring, pairing and standings: the rules, as pure functions, and
the recomputation of a tournament's standings from its stored games.

**A tournament game is one hand** (``loss_limit`` 1): short games make an
arena lively and a Swiss round end soon.  A hand tells apart the first player
out and the durak; the others went out in between.  So a game scores
(:func:`base_points`):

* the first player out (the winner): **2**;
* the durak: **0**;
* everyone else: **1**; in a drawn hand (no durak) every player: **1**.

**Streak** (arena only, as lichess arenas do): after two wins in a row an
entrant is *on fire*, and every game they play while on fire scores double
(a win 4, a middle place 2); the first game they do not win puts the fire out.
A void game (its table never played: nobody came) scores 0 and ends a streak; a
bye (a Swiss entrant left without a table) scores 1 and leaves it as it was.

Every settled game's points are written once, by the director, into
``sk_tournament_seats`` and added to the entry's row; :func:`recompute`
derives the same standings again from the stored games alone (the tables'
results in ``sk_game_results``), which the tests compare.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Connection, select

from ..storage.schema import (
    results_t,
    tournament_entries_t,
    tournament_games_t,
    tournament_seats_t,
)

WIN, MIDDLE, DURAK, DRAW, BYE = 2, 1, 0, 1, 1
"""Points of a game before the streak doubles them (see the module docstring)."""
FIRE_AFTER = 2
"""Wins in a row after which an arena entrant's games score double."""


@dataclass(frozen=True)
class SeatResult:
    """One seat of a finished one-hand game, as ``sk_game_results`` stores it."""

    losses: int
    first_out: bool


def base_points(me: SeatResult, table: Sequence[SeatResult]) -> int:
    """The points of one seat before any doubling (module docstring)."""
    if not any(s.losses for s in table):
        return DRAW
    if me.losses:
        return DURAK
    return WIN if me.first_out else MIDDLE


def award(base: int, streak: int, doubling: bool) -> tuple[int, int]:
    """``(points, new streak)`` of a game worth ``base`` to an entrant with
    ``streak`` wins in a row before it; ``doubling`` is the arena's fire."""
    points = base * 2 if doubling and streak >= FIRE_AFTER else base
    return points, (streak + 1 if base == WIN else 0)


@dataclass
class Standing:
    """One entrant's line in the standings."""

    entry_id: str
    score: int = 0
    games: int = 0
    wins: int = 0
    streak: int = 0

    def key(self) -> tuple[int, int, int]:
        """Sort key: best first (score, then wins, then fewer games)."""
        return (-self.score, -self.wins, self.games)

    def add(self, base: int, doubling: bool, counted: bool = True) -> int:
        """Count one settled game; the points it earned."""
        points, streak = award(base, self.streak, doubling)
        self.score += points
        if counted:
            self.games += 1
            self.wins += 1 if base == WIN else 0
            self.streak = streak
        return points


def seat_results(conn: Connection, table_ids: Iterable[str]) -> dict[str, dict[int, SeatResult]]:
    """The recorded results of the given tables, by table and seat."""
    ids = list(set(table_ids))
    out: dict[str, dict[int, SeatResult]] = {}
    for start in range(0, len(ids), 500):
        rows = conn.execute(
            select(
                results_t.c.table_id, results_t.c.seat, results_t.c.losses, results_t.c.points
            ).where(results_t.c.table_id.in_(ids[start : start + 500]))
        )
        for r in rows:
            out.setdefault(r.table_id, {})[int(r.seat)] = SeatResult(
                int(r.losses), int(r.points) > 0
            )
    return out


def recompute(conn: Connection, tournament_id: str, doubling: bool) -> dict[str, Standing]:
    """Every entrant's standing derived from the stored games alone: each game
    in the order it was made (``seq``: an entrant plays one at a time, so that
    is the order they played), its seats, and its table's results in
    ``sk_game_results``."""
    standings = {
        r.id: Standing(r.id)
        for r in conn.execute(
            select(tournament_entries_t.c.id).where(
                tournament_entries_t.c.tournament_id == tournament_id
            )
        )
    }
    games = conn.execute(
        select(tournament_games_t)
        .where(
            tournament_games_t.c.tournament_id == tournament_id,
            tournament_games_t.c.state.in_(("done", "void", "bye")),
        )
        .order_by(tournament_games_t.c.seq, tournament_games_t.c.id)
    ).all()
    seats: dict[str, list[tuple[str, int | None]]] = {}
    for s in conn.execute(
        select(tournament_seats_t).where(tournament_seats_t.c.game_id.in_([g.id for g in games]))
    ):
        seats.setdefault(s.game_id, []).append((s.entry_id, s.seat))
    results = seat_results(conn, [g.table_id for g in games if g.state == "done"])
    for g in games:
        table = results.get(g.table_id or "", {})
        for entry_id, seat in seats.get(g.id, []):
            st = standings[entry_id]
            if g.state == "bye":
                st.add(BYE, False, counted=False)
            elif g.state == "void" or seat is None or seat not in table:
                st.add(DURAK, doubling)
            else:
                st.add(base_points(table[seat], list(table.values())), doubling)
    return standings


def ranked(standings: Iterable[Standing]) -> list[Standing]:
    """Standings best first."""
    return sorted(standings, key=lambda s: (*s.key(), s.entry_id))


# -- pairing ------------------------------------------------------------------------


@dataclass(frozen=True)
class Candidate:
    """An entrant to be paired."""

    entry_id: str
    score: int
    bot: bool


@dataclass
class Pairing:
    """The tables of one pairing step: groups of entrants (each with at least
    one person: a table of bots alone would never play, see docs/web.md), and
    those left over (Swiss: a bye; arena: they wait)."""

    tables: list[list[Candidate]] = field(default_factory=list)
    left: list[Candidate] = field(default_factory=list)


def _cost(entry: Candidate, group: Sequence[Candidate], met: Mapping[frozenset[str], int]) -> int:
    return sum(met.get(frozenset((entry.entry_id, o.entry_id)), 0) for o in group)


def pair(
    cands: Sequence[Candidate],
    n: int,
    met: Mapping[frozenset[str], int],
    rng: random.Random,
    *,
    short_ok: bool,
) -> Pairing:
    """Group ``cands`` into tables of ``n`` by score (best first, ties in random
    order), each entrant joined by the nearest in score who has met the group
    least often (``met``: games played together so far), so repeats are avoided
    where the score groups allow.  ``short_ok``: the last, short group becomes a
    table too (filled with house bots by the caller); otherwise it is left over.
    A group without a person is left over."""
    order = sorted(cands, key=lambda c: (-c.score, rng.random()))
    out = Pairing()
    window = 2 * n
    while order:
        group = [order.pop(0)]
        while len(group) < n and order:
            near = order[:window]
            best = min(range(len(near)), key=lambda i: (_cost(near[i], group, met), i))
            group.append(order.pop(best))
        if (len(group) < n and not short_ok) or all(c.bot for c in group):
            out.left.extend(group)
        else:
            out.tables.append(group)
    return out
