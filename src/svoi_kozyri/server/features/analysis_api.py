"""Analysis after a hand: every turn of a finished hand, as the viewer saw it,
with ratings of the moves (the library's search pieces, as in
:func:`svoi_kozyri.bots.analysis.analyse_position`).

What a viewer may learn (issue 20, item 3): **nothing they did not know at the
end of the hand.**

* A step's ``before`` holds only what the viewer could see before that turn:
  their own hand (nothing for a spectator), the pile as the table showed it,
  hand sizes and the publicly known cards (:func:`~svoi_kozyri.server.table.views.hand_view`,
  the live table's own view builder).
* A turn is rated from the **acting player's** observation (what that player
  could know then), so its numbers are a function of the actor's hand.  The
  viewer's own turns are always rated.  Another seat's turn is rated only when
  the viewer knew, at the end of the hand, that seat's whole hand before the
  turn (:func:`open_turns`): every card of it was publicly known then, or the
  seat's hand at the end of the hand is publicly known (empty for a player who
  went out, or nothing but picked-up cards), since every later turn is public
  (the cards played and the cards picked up), so the hand before each turn
  follows; or the viewer's observation before the turn was **complete**
  (:attr:`~svoi_kozyri.core.Observation.complete`: at most one seat held cards
  the viewer could not see, so every unseen card was in that hand, as in the
  two-player game with the whole deck dealt, where each player knows the
  other's hand from the first card).  No other deduction by elimination is
  used (the loser's remaining private cards stay private, as in every other
  view, unless the viewer could name them at the time).  Any other turn shows
  the move and nothing more: no score, no best move, no count of moves.
  ``tests/test_analysis_leaks.py`` checks every field of every step for every
  viewer against this rule.
* Only finished hands are analysed: during play this would be a hint machine.

And what it may cost (item 4): the ratings are computed in a small pool of
worker processes (:data:`WORKERS`, lower CPU priority), never on the event
loop or in a thread holding its interpreter lock; at most :data:`MAX_PENDING`
analyses run or wait in one server process (more answer 503 ``analysis_busy``
with ``Retry-After``); one client (address, and account when logged in) has at
most one analysis running and :data:`CLIENT_BURST` fresh ones at a time,
refilled every ``1 / CLIENT_RATE`` s (more answer 429 ``analysis_limit`` with
``Retry-After``; these buckets are rows of the database, shared by every server
process).  Results are cached by what they depend on (the table and
hand, or the record's text and hand, and the viewer), never by the requested
budget, and identical requests in flight share one computation.

A downloaded record (``POST /api/analysis/record``) gets the same view.  A
record written for one player hides the other hands; the server fills them
with cards consistent with everything public (:func:`complete_viewer_record`),
which is exact for every seat whose hand the viewer could know by the rule
above and changes nothing the viewer sees; the same rule picks the turns that
are rated.  A full record (all hands known to whoever holds the file) is rated
for every seat.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import hashlib
import json
import math
import os
import random
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Final

from fastapi import APIRouter, Header, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ...bots.analysis import MoveRating, clearly_worse
from ...bots.rating import Rating
from ...bots.search.common import Budget, policy
from ...bots.search.pimc import pimc_values
from ...bots.search.solver import Solver, open_state
from ...core import (
    FREE,
    Move,
    Observation,
    State,
    SvoiKozyriError,
    display_order,
    format_card,
    mask_of,
    observe,
    seat_name,
)
from ...notation import parse_position
from ..edge.guard import RateLimiter, client_key
from ..edge.pages import page_shell
from ..runtime.pools import kill_pool, pool_pids, spawn_pool
from ..table.game import SeatInfo, TableError, TableGame
from ..table.views import hand_view
from ..wire.errors import ApiError
from ..wire.events import DealEvent, MoveEvent, TableEvent

if TYPE_CHECKING:
    from ..storage.store import Store

DEFAULT_MS = 60.0
MIN_MS, MAX_MS = 5.0, 500.0
TOTAL_MS = 15000.0
"""About this much analysis time for one hand at most (the environment variable
``SVOI_KOZYRI_ANALYSIS_MS`` overrides it): the per-turn budget shrinks to fit, and
once it is spent the remaining turns stay unrated (a turn needs at least one
sampling round, every legal move played out once)."""
ROLLOUT_TURNS = 10
"""Rollouts stop after this many turns and score the position with the fitted
evaluation, so one sampling round has a bounded cost."""
SOLVE_CARDS = 12
"""Open positions with at most this many cards in hand go to the exact solver
(bigger ones would overrun a budget of a few milliseconds); the moves it proves
keep their proven values, the others are estimated."""
OPEN_SOLVE_CARDS = 20
"""... and positions whose observation is complete (the two-player game, where
the proof is the point of the analysis: issue 23, item 1) up to this many, with
:data:`OPEN_SOLVER_SHARE` of the turn's time instead of :data:`SOLVER_S`."""
OPEN_SOLVER_SHARE = 0.75
"""The solver's share of such a turn's time; the sampling gets the rest only for
the moves the solver leaves unsettled."""
OPEN_MS = 1500.0
"""A turn whose position is open to its actor and small enough for the solver
gets up to this long (the hand's total still bounds it): the solver is what the
two-player analysis is for, and a 10-card position with an empty pile can take
a second.  Such turns are rated after the others, last turn first, so the
smallest are proven first and fill the solver's tables for the bigger ones."""
SOLVER_S = 0.01
"""The solver's share of a turn at most: given 30 ms it sometimes ran for seconds
(one 10-card position with a 25-card pile: 1.8 to 4.6 s), given 10 ms it stopped
within tens of milliseconds and still proved what it could in the late turns."""
MIN_SAMPLES = 30
"""An estimate is flagged as a worsening only with at least this many rollouts
behind each of the two moves compared, and a turn keeps sampling past its share
of the time (up to :data:`SAMPLE_CAP` times it) until every move has them: late
turns, with few cards left, are cheap and reach it (issue 21, item 9: turns
with 4 to 7 samples were flagged)."""
SAMPLE_CAP = 4.0
#: the exact solver's table size here (its Python fixpoint holds about 1 KB a position:
#: a web server's analyses stay within a few hundred MB whatever the position)
SOLVER_TABLE: Final = 300_000
#: the positions of one compiled fixpoint computation here (about 130 bytes each)
SOLVER_GRAPH: Final = 1_000_000
THRESHOLD = 0.1
"""An estimated drop counts as a worsening from this size (and beyond noise)."""
MAX_RECORD_CHARS = 200_000
CACHE_SIZE = 64
WORKERS = 1
"""Analysis worker processes per server process (``SVOI_KOZYRI_ANALYSIS_WORKERS``):
one, so that analyses never take more than one core from the game."""
MAX_PENDING = 4
"""Analyses running or waiting in one server process; more answer 503."""
CLIENT_BURST = 4
"""Fresh analyses (not in the cache) one client may start at once ..."""
CLIENT_RATE = 1 / 15
"""... and how fast that allowance refills (per second)."""


@dataclass(frozen=True)
class Step:
    """One turn of a hand: who moved, what, who chose it, the state before it."""

    seat: int
    move: Move
    by: str
    before: State


def _interval(r: MoveRating) -> tuple[float, float] | None:
    """A 95 % Wilson interval of an estimate (None for a proven value): honest
    with few samples, where the normal approximation claimed 78-100 % from
    four rollouts that all won."""
    if r.proven or not r.samples:
        return None
    n, p, z = r.samples, min(1.0, max(0.0, r.score)), 1.96
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def got_worse(best: MoveRating, played: MoveRating) -> bool:
    """Did the move played make the result worse?  :func:`clearly_worse` with
    this module's :data:`THRESHOLD` and :data:`MIN_SAMPLES`."""
    return clearly_worse(best, played, THRESHOLD, MIN_SAMPLES)


_VALUE_NAMES: Final = {-1: "loss", 0: "draw", 1: "win"}


def _rating_json(r: MoveRating) -> dict[str, Any]:
    """One move's rating; an estimate names the bounds the solver proved for it
    (``at_least`` / ``at_best``: win, draw or loss; null when not proven)."""
    ci = _interval(r)
    lo, hi = (-1, 1) if r.proven or r.rating is None else (r.rating.bound_lo, r.rating.bound_hi)
    return {
        "move": str(r.move),
        "score": round(r.score, 4),
        "proven": r.proven,
        "samples": r.samples,
        "low": None if ci is None else round(ci[0], 4),
        "high": None if ci is None else round(ci[1], 4),
        "at_least": _VALUE_NAMES[lo] if lo > -1 else None,
        "at_best": _VALUE_NAMES[hi] if hi < 1 else None,
    }


def rate_position(
    obs: Observation, ms: float, seed: int, solver: Solver | None = None
) -> list[MoveRating]:
    """Every legal move of the observer rated within about ``ms`` (at least one
    sampling round, and up to ``SAMPLE_CAP * ms`` until every move has
    :data:`MIN_SAMPLES` rollouts), best first: proven values from the exact
    solver for the moves it settles in an open position, PIMC estimates for the
    rest (the library's search pieces, as in
    :func:`svoi_kozyri.bots.analysis.analyse_position`, but with the time checked
    after every round so the budget holds)."""
    t0 = time.perf_counter()
    proven: dict[Move, float] = {}
    bounds: dict[Move, tuple[int, int]] = {}
    full = open_state(obs)
    complete = _solver_turn(obs)
    if full is not None and (complete or sum(obs.hand_sizes) <= SOLVE_CARDS):
        limit = ms * OPEN_SOLVER_SHARE / 1000.0 if complete else min(ms / 2000.0, SOLVER_S)
        solver = solver or Solver(max_table=SOLVER_TABLE, max_graph=SOLVER_GRAPH)
        for m, res in solver.move_bounds(full, limit):
            if res.lo == res.hi:
                proven[m] = (res.lo + 1) / 2
            else:
                bounds[m] = (res.lo, res.hi)
    moves = obs.legal_moves()
    if proven and all(m in proven for m in moves):
        out = [MoveRating(m, proven[m], True, 0) for m in moves]
        return sorted(out, key=lambda r: -r.score)
    totals = [0.0] * len(moves)
    counts = [0] * len(moves)
    rng = random.Random(seed)
    pol = policy("heuristic")
    t1 = time.perf_counter()  # the sampling's own cap starts after the solver's share
    while True:
        vals = pimc_values(obs, Budget(iterations=len(moves)), rng, pol, None, 0, ROLLOUT_TURNS)
        for k, (_, v, c) in enumerate(vals):
            if c:
                totals[k] += v * c
                counts[k] += c
        now = time.perf_counter()
        short = min(c for k, c in enumerate(counts) if moves[k] not in proven) < MIN_SAMPLES
        if (now - t0) * 1000.0 >= ms and (not short or (now - t1) * 1000.0 >= SAMPLE_CAP * ms):
            break
    out = [
        MoveRating(m, proven[m], True, 0)
        if m in proven
        else _estimated(m, totals[k] / counts[k], counts[k], bounds.get(m, (-1, 1)))
        for k, m in enumerate(moves)
        if m in proven or counts[k]
    ]
    return sorted(out, key=lambda r: -r.score)


def _estimated(move: Move, score: float, samples: int, bounds: tuple[int, int]) -> MoveRating:
    """An estimated move, carrying the bounds the solver proved without settling it
    (so the page can say "at least a draw" beside the estimate)."""
    lo, hi = bounds
    rating = Rating.estimate(score, samples, "estimate", lo, hi)
    return MoveRating(move, rating.score, False, samples, rating)


def total_ms() -> float:
    """The analysis time of one hand: ``SVOI_KOZYRI_ANALYSIS_MS`` or ``TOTAL_MS``."""
    try:
        value = float(os.environ.get("SVOI_KOZYRI_ANALYSIS_MS", ""))
    except ValueError:
        return TOTAL_MS
    return value if value > 0 and math.isfinite(value) else TOTAL_MS


def rate_steps(
    steps: list[Step], todo_mask: list[bool], ms: float, total: float | None = None
) -> tuple[list[list[MoveRating] | None], int]:
    """Ratings of every step marked in ``todo_mask`` that had a choice, from the
    acting seat's own observation (``None`` for the other steps), and how many
    such steps stayed unrated because the hand's time (``total`` ms, by default
    :func:`total_ms`) was spent."""
    t0 = time.perf_counter()
    total = total_ms() if total is None else total
    todo = [i for i, s in enumerate(steps) if todo_mask[i] and s.before.count_legal_moves() > 1]
    per = max(MIN_MS, min(ms, total / max(1, len(todo))))
    solved = [i for i in todo if _solver_turn(observe(steps[i].before, steps[i].seat))]
    rest = [i for i in todo if i not in set(solved)]
    out: list[list[MoveRating] | None] = [None] * len(steps)
    solver = Solver(max_table=SOLVER_TABLE, max_graph=SOLVER_GRAPH)
    skipped = 0
    for k, i in enumerate([*rest, *reversed(solved)]):
        spent = (time.perf_counter() - t0) * 1000.0
        if spent >= total:
            skipped += 1
            continue
        turn_ms = per
        if k >= len(rest):  # an open turn: its share of what is left, up to OPEN_MS
            turn_ms = max(per, min(OPEN_MS, (total - spent) / (len(todo) - k)))
        s = steps[i]
        out[i] = rate_position(observe(s.before, s.seat), turn_ms, seed=i, solver=solver)
    return out, skipped


def _solver_turn(obs: Observation) -> bool:
    """Is this a turn the solver may prove with the open turns' budget: complete,
    open to its actor (two hands with cards) and within :data:`OPEN_SOLVE_CARDS`?"""
    return obs.complete and open_state(obs) is not None and sum(obs.hand_sizes) <= OPEN_SOLVE_CARDS


def _view(state: State, viewer: int | None, number: int) -> dict[str, Any]:
    """What ``viewer`` sees of ``state`` (the live table's own view builder)."""
    hv = hand_view(state, viewer, number, [], None).model_dump(mode="json")
    for key in ("log", "log_start", "deadline_s", "transfers", "number", "dealer"):
        hv.pop(key, None)
    obs = observe(state, viewer)
    # every card this viewer could not see was in one hand: the position was open to them
    hv["complete"] = viewer is not None and not state.is_over and obs.complete
    hv["sizes"] = list(obs.hand_sizes)
    hv["known"] = [[format_card(c) for c in display_order(k)] for k in obs.known]
    hv["outs"] = [[seat_name(s), kind] for s, kind in obs.outs]
    return hv


def _whole_hand_seen(obs: Observation, seat: int) -> bool:
    """Does ``obs`` show every card of ``seat``'s hand (own hand, open hands, or
    all of it publicly known)?"""
    return (obs.hands[seat] | obs.known[seat]).bit_count() == obs.hand_sizes[seat]


def open_turns(steps: list[Step], final: State, viewer: int | None) -> list[bool]:
    """For every step: did the viewer know, at the end of the hand, the acting
    seat's observation before it (so that a rating from it tells them nothing
    new)?  Their own turns, yes.  Another seat's turn when the viewer saw that
    seat's whole hand then, or sees its whole hand at the end (every turn is
    public, so each earlier hand follows from the last one), and that seat saw
    no sixes transfer the viewer did not.  By elimination only when the
    viewer's observation before the turn was complete (it determined every hand)."""
    end = observe(final, viewer)
    known_at_end = [_whole_hand_seen(end, s) for s in range(final.n)]
    transfers_ok: dict[int, bool] = {}
    out = []
    for s in steps:
        seat = s.seat
        if seat == viewer:
            out.append(True)
            continue
        mine = observe(s.before, viewer)
        if seat not in transfers_ok:
            theirs = set(observe(s.before, seat).transfers)
            transfers_ok[seat] = theirs <= set(mine.transfers)
        seen = known_at_end[seat] or _whole_hand_seen(mine, seat) or mine.complete
        out.append(transfers_ok[seat] and seen)
    return out


def analysis_json(
    steps: list[Step],
    final: State,
    rated: tuple[list[list[MoveRating] | None], int],
    viewer: int | None,
    number: int,
    opened: list[bool],
) -> dict[str, Any]:
    """The analysis of one hand for ``viewer``: nothing they did not know at the
    end.  ``opened`` (see :func:`open_turns`) marks the steps that may carry a
    rating; any other step carries the move alone (``rating`` null,
    ``no_rating`` ``"hidden"``), whatever ``rated`` holds for it."""
    ratings, skipped = rated
    out_steps = []
    worse = 0
    for i, (s, rs) in enumerate(zip(steps, ratings, strict=True)):
        rating = None
        why: str | None = None
        if not opened[i]:
            why = "hidden"
        elif rs:
            best = rs[0]
            played = next((r for r in rs if r.move == s.move), None)
            if played is not None:
                rating = {
                    "kind": "proven" if best.proven and played.proven else "estimate",
                    "played": _rating_json(played),
                    "best": _rating_json(best),
                    "drop": round(max(0.0, best.score - played.score), 4),
                    "worse": got_worse(best, played),
                    "moves": [_rating_json(r) for r in rs],
                }
                worse += bool(rating["worse"])
            else:
                why = "time"
        elif s.before.count_legal_moves() > 1:
            why = "time"
        else:
            why = "no_choice"
        out_steps.append(
            {
                "index": i,
                "seat": seat_name(s.seat),
                "move": str(s.move),
                "by": s.by,
                "before": _view(s.before, viewer, number),
                "rating": rating,
                "no_rating": why,
            }
        )
    res = final.outcome
    return {
        "viewer": None if viewer is None else seat_name(viewer),
        "players": final.n,
        "owners": final.game.owners_str(),
        "steps": out_steps,
        "final": _view(final, viewer, number),
        "result": None
        if res is None
        else {
            "loser": None if res.loser is None else seat_name(res.loser),
            "reason": res.termination.value,
        },
        "worse": worse,
        "unrated": skipped,
        "rated": sorted({seat_name(s.seat) for s, o in zip(steps, opened, strict=True) if o}),
    }


def hand_analysis(
    steps: list[Step],
    final: State,
    viewer: int | None,
    number: int,
    ms: float,
    total: float | None = None,
    everything_known: bool = False,
) -> dict[str, Any]:
    """Rate the turns ``viewer`` may see rated and build their analysis (run in a
    worker process).  ``everything_known``: the caller holds every hand (a full
    record), so every turn is open."""
    opened = [True] * len(steps) if everything_known else open_turns(steps, final, viewer)
    ratings = rate_steps(steps, opened, ms, total)
    data = analysis_json(steps, final, ratings, viewer, number, opened)
    data["budget_ms"] = ms
    return data


# -- hands of a web table ------------------------------------------------------------


def table_hand_steps(game: TableGame, number: int) -> tuple[list[Step], State]:
    """The steps of hand ``number`` (1-based) of a table, rebuilt from its events."""
    copy = TableGame(game.table_id, game.config, game.seed, game.seats, game.created)
    steps: list[Step] = []
    hand = 0
    final: State | None = None
    for ev in game.events:
        if isinstance(ev, DealEvent):
            if hand == number:
                break
            copy.apply(ev)
            hand += 1
            continue
        if hand == number and isinstance(ev, MoveEvent):
            before = copy.state
            assert before is not None
            steps.append(Step(ev.seat, Move.parse(ev.move), ev.by, before))
        copy.apply(ev)
        if hand == number:
            final = copy.state
    if hand < number or number < 1:
        raise TableError("no_hand", f"hand {number} has not been dealt at this table")
    if final is None:
        final = copy.state
    assert final is not None
    if not final.is_over:
        raise TableError("hand_running", f"hand {number} is still being played")
    return steps, final


def steps_of(start: State, moves: list[tuple[int, Move]], by: str = "player") -> list[Step]:
    """Steps of a hand from its start and its turns (each turn checked)."""
    st = start.copy()
    out = []
    for seat, move in moves:
        out.append(Step(seat, move, by, st.copy()))
        st.push(move, seat)
    return out


# -- downloaded records --------------------------------------------------------------


def _split_hidden(part: str) -> tuple[str, int]:
    """A public-notation hand ``6C?8`` as its known cards and the hidden count."""
    if part == "-":
        return "", 0
    if "?" in part:
        known, _, k = part.partition("?")
        return known, int(k)
    return part, 0


def complete_viewer_record(record: Any) -> State:
    """A full start position for a record written for one viewer (or a spectator):
    the hidden cards are filled in so that every turn replays and every public fact
    holds.  Cards a seat played before it could have picked them up must have been
    in its hidden part; the rest are spread in card order.  The viewer's own view
    of every step is the same as with the true deal."""
    from ...core import Game
    from ...notation.position import format_cards_compact, parse_cards_compact
    from ...records import RecordError

    position: str = record.position
    fields = position.split()
    hands_txt = fields[1].split("/")
    game: Game = record.game
    n = game.n
    known: list[list[int]] = []
    hidden: list[int] = []
    for part in hands_txt:
        k, h = _split_hidden(part)
        known.append(parse_cards_compact(k) if k else [])
        hidden.append(h)
    pile = parse_cards_compact(fields[2]) if fields[2] != "-" else []
    # who plays which card before picking it up: those cards were hidden in the hand
    holding = [set(k) for k in known]
    need: list[list[int]] = [[] for _ in range(n)]
    sim_pile = list(pile)
    for seat, move in record.moves:
        if move.is_pickup:
            take = min(game.required_pickup(sim_pile[-1], seat), len(sim_pile))
            taken = sim_pile[-take:]
            del sim_pile[-take:]
            holding[seat].update(taken)
            continue
        for c in move.cards():
            if c in holding[seat]:
                holding[seat].discard(c)
            else:
                need[seat].append(c)
            sim_pile.append(c)
    used = {c for k in known for c in k} | set(pile) | {c for nd in need for c in nd}
    deck = [c for c in range(40) if game.deck >> c & 1]
    pool = [c for c in deck if c not in used]
    hands = []
    for i in range(n):
        extra = hidden[i] - len(need[i])
        if extra < 0 or extra > len(pool):
            raise RecordError("the record's turns do not fit its hidden hands")
        fill, pool = pool[:extra], pool[extra:]
        hands.append(known[i] + need[i] + fill)
    fields[1] = "/".join(format_cards_compact(mask_of(h)) or "-" for h in hands)
    try:
        st = parse_position(" ".join(fields))
        # the cards publicly known at the start (sixes handed over) stay known
        return game.position(
            [st.hand(i) for i in range(n)],
            st.pile_cards(),
            0 if st.is_over else st.to_act,
            FREE if st.is_over else st.phase,
            st.outs,
            discard=st.discard,
            turns=st.turns,
            known=[mask_of(k) for k in known],
        )
    except SvoiKozyriError as e:
        raise RecordError(f"the record's start cannot be completed: {e}") from None


def record_analysis(
    text: str, number: int, ms: float, seat: int | None, total: float | None = None
) -> dict[str, Any]:
    """The analysis of hand ``number`` (1-based) of a record file's text."""
    from ...records import SPECTATOR, RecordError, parse_records

    records = parse_records(text)
    if not 1 <= number <= len(records):
        raise RecordError(f"the file holds {len(records)} record(s), not a hand {number}")
    rec = records[number - 1]
    if rec.viewer is not None and rec.position is not None and "?" in rec.position:
        start = complete_viewer_record(rec)
        viewer = None if rec.viewer == SPECTATOR else rec.viewer
        everything = False
    else:
        start = rec.start_state()
        viewer = seat if rec.viewer is None else (None if rec.viewer == SPECTATOR else rec.viewer)
        everything = True
    steps = steps_of(start, list(rec.moves))
    final = steps[-1].before.copy() if steps else start.copy()
    if steps:
        final.push(steps[-1].move, steps[-1].seat)
    if not final.is_over:
        raise RecordError("this hand is not finished: only finished hands are analysed")
    data = hand_analysis(steps, final, viewer, number, ms, total, everything)
    data["hands"] = len(records)
    data["hand"] = number
    data["names"] = {seat_name(k): v for k, v in rec.names.items()}
    return data


# -- the work, in worker processes -------------------------------------------------------


@dataclass(frozen=True)
class TableSource:
    """What a worker needs to rebuild a table's hand: its creation and its events
    up to the end of that hand (a plain, picklable copy)."""

    table_id: str
    config: Any
    seed: int
    seats: list[SeatInfo]
    created: float
    events: list[TableEvent]

    @classmethod
    def of(cls, game: TableGame, number: int) -> TableSource:
        """The source of hand ``number`` (events after it are left out)."""
        events: list[TableEvent] = []
        deals = 0
        for ev in game.events:
            if isinstance(ev, DealEvent):
                deals += 1
                if deals > number:
                    break
            events.append(ev)  # frozen: shared, never copied
        return cls(game.table_id, game.config, game.seed, list(game.seats), game.created, events)

    def game(self) -> TableGame:
        """A table holding these events (not applied: :func:`table_hand_steps` replays)."""
        g = TableGame(self.table_id, self.config, self.seed, self.seats, self.created)
        g.events = self.events
        return g


class JobError(Exception):
    """A job's refusal, carried back from the worker as plain values."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


def table_job(
    src: TableSource, number: int, viewer: int | None, ms: float, total: float
) -> dict[str, Any] | tuple[str, str, int]:
    """A table hand's analysis (in a worker): the JSON, or ``(code, message, status)``."""
    try:
        steps, final = table_hand_steps(src.game(), number)
    except TableError as e:
        return e.code, str(e), 409 if e.code == "hand_running" else 404
    return hand_analysis(steps, final, viewer, number, ms, total)


def record_job(
    text: str, number: int, ms: float, seat: int | None, total: float
) -> dict[str, Any] | tuple[str, str, int]:
    """A record's analysis (in a worker): the JSON, or ``(code, message, status)``."""
    from ...records import RecordError

    try:
        return record_analysis(text, number, ms, seat, total)
    except (RecordError, SvoiKozyriError, ValueError) as e:
        return "bad_record", str(e), 400


def _worker_init(parent: int) -> None:
    """A worker dies with the server and yields the CPU to it."""
    from ..table.bot_runner import die_with_parent

    die_with_parent(parent)
    with contextlib.suppress(OSError, AttributeError):
        os.nice(10)


def _workers() -> int:
    try:
        return max(1, min(16, int(os.environ.get("SVOI_KOZYRI_ANALYSIS_WORKERS", WORKERS))))
    except ValueError:
        return WORKERS


_pool: concurrent.futures.ProcessPoolExecutor | None = None
_pool_done: threading.Event | None = None


def _start_pool(n: int) -> tuple[concurrent.futures.ProcessPoolExecutor, threading.Event]:
    """A pool of ``n`` spawned workers, started from a thread of its own that lives
    as long as the pool: a worker asks the kernel to kill it when the thread that
    started it ends (``PR_SET_PDEATHSIG`` follows the thread), and the request's
    thread may be gone long before the pool (a test client's loop)."""
    made: list[concurrent.futures.ProcessPoolExecutor] = []
    failed: list[BaseException] = []
    ready, done = threading.Event(), threading.Event()

    def keeper() -> None:
        try:
            made.append(spawn_pool(n, _worker_init, os.getpid()))
        except BaseException as e:
            failed.append(e)
        finally:
            ready.set()
        done.wait()

    threading.Thread(target=keeper, name="analysis-pool", daemon=True).start()
    ready.wait()
    if failed:
        raise failed[0]
    return made[0], done


def _get_pool() -> concurrent.futures.ProcessPoolExecutor | None:
    """The process's analysis pool (spawned on first use; None where processes
    cannot be started, then a thread does the work)."""
    global _pool, _pool_done
    if _pool is None:
        try:
            _pool, _pool_done = _start_pool(_workers())
        except (OSError, ValueError):
            return None
        atexit.register(_drop_pool)  # before the interpreter tears modules down
    return _pool


def worker_pids() -> list[int]:
    """Process ids of the analysis workers (tests, diagnostics)."""
    return pool_pids(_pool)


def _drop_pool() -> None:
    """Stop the pool now (running analyses are abandoned)."""
    global _pool, _pool_done
    pool, _pool = _pool, None
    done, _pool_done = _pool_done, None
    if pool is None:
        return
    kill_pool(pool)
    if done is not None:
        done.set()


class Refused(ApiError):
    """An analysis not run now: 429 (this client's limit) or 503 (the queue is
    full), answered with ``Retry-After`` by the app's one error handler."""


class Analyser:
    """The analyses of one app: cache, shared in-flight work, the bounded queue
    and the per-client limits (see the module docstring)."""

    def __init__(
        self,
        max_pending: int = MAX_PENDING,
        burst: float = CLIENT_BURST,
        rate: float = CLIENT_RATE,
        store: Store | None = None,
    ) -> None:
        self.max_pending = max_pending
        self.limiter = RateLimiter(burst, rate)
        self.store = store
        """Where the per-client buckets live when given: the database, so that
        ``--workers N`` processes share one allowance per client (issue 20, item 5)
        instead of giving each client N of them."""
        self.cache: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
        self.running: dict[tuple[Any, ...], asyncio.Task[Any]] = {}
        self.busy: dict[str, int] = {}
        self.computed = 0
        """Analyses computed (not served from the cache or shared): tests."""

    def _check(self, clients: list[str]) -> None:
        """Refuse a fresh analysis that this client or the queue has no room for."""
        wait = max(1, math.ceil(total_ms() / 1000.0))
        if any(self.busy.get(c) for c in clients):
            raise Refused(
                "analysis_limit", "one analysis at a time: wait for the one running", 429, wait
            )
        if len(self.running) >= self.max_pending:
            raise Refused(
                "analysis_busy",
                "the server is busy with other analyses: try again shortly",
                503,
                max(1, wait * len(self.running) // _workers()),
            )
        if self.store is not None and self.limiter.rate > 0:
            buckets = [
                (f"analysis:{c}"[:120], self.limiter.burst, self.limiter.rate) for c in clients
            ]
            left = self.store.take_tokens(buckets, time.time())
            if left > 0:
                raise Refused(
                    "analysis_limit",
                    "too many analyses from this client: try again later",
                    429,
                    max(1, math.ceil(left)),
                )
            return
        for c in clients:
            if not self.limiter.allow(c):
                raise Refused(
                    "analysis_limit",
                    "too many analyses from this client: try again later",
                    429,
                    self.limiter.retry_after(),
                )

    def cached(self, key: tuple[Any, ...]) -> dict[str, Any] | None:
        """A copy of the cached analysis for ``key``, or None."""
        hit = self.cache.get(key)
        if hit is None:
            return None
        self.cache.move_to_end(key)
        return dict(hit)

    async def get(
        self, key: tuple[Any, ...], clients: list[str], fn: Any, *args: Any
    ) -> dict[str, Any]:
        """The analysis for ``key``: from the cache, from the same computation in
        flight, or computed now by ``fn(*args)`` in a worker (raises
        :class:`Refused` or :class:`JobError`).  A computation outlives a client
        that goes away: its slot is freed and its result cached when it ends."""
        hit = self.cached(key)
        if hit is not None:
            return hit
        task = self.running.get(key)
        if task is None:
            self._check(clients)
            task = asyncio.ensure_future(self._compute(fn, *args))
            self.running[key] = task
            for c in clients:
                self.busy[c] = self.busy.get(c, 0) + 1
            task.add_done_callback(lambda t: self._finished(key, clients, t))
        result = await asyncio.shield(task)
        if isinstance(result, tuple):
            raise JobError(*result)
        return dict(result)

    def _finished(self, key: tuple[Any, ...], clients: list[str], task: asyncio.Task[Any]) -> None:
        self.running.pop(key, None)
        for c in clients:
            self.busy[c] -= 1
            if not self.busy[c]:
                del self.busy[c]
        if task.cancelled() or task.exception() is not None:
            return  # (the exception is retrieved here: no warning if nobody waits)
        result = task.result()
        if isinstance(result, dict):
            self.computed += 1
            self.cache[key] = result
            while len(self.cache) > CACHE_SIZE:
                self.cache.popitem(last=False)

    async def _compute(self, fn: Any, *args: Any) -> Any:
        pool = _get_pool()
        if pool is None:
            return await asyncio.to_thread(fn, *args)
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)
        except concurrent.futures.BrokenExecutor:
            _drop_pool()  # a worker died (killed, out of memory): a fresh pool next time
            raise Refused(
                "analysis_busy", "the analysis was interrupted: try again", 503, 1
            ) from None


# -- HTTP ------------------------------------------------------------------------------


class RecordRequest(BaseModel):
    """A record file's text, posted from the browser's file picker (strict: no
    strings for numbers, no unknown fields)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    text: str = Field(max_length=MAX_RECORD_CHARS)
    hand: int = Field(default=1, ge=1, le=1000)
    ms: float = Field(default=DEFAULT_MS, ge=MIN_MS, le=MAX_MS, allow_inf_nan=False)
    seat: str | None = Field(default=None, min_length=1, max_length=1)


router = APIRouter()


def analyser_of(app: Any) -> Analyser:
    """The app's analyser (made on first use; a test may set ``app.state.analyser``)."""
    found: Analyser | None = getattr(app.state, "analyser", None)
    if found is None:
        hub = getattr(app.state, "hub", None)
        found = app.state.analyser = Analyser(store=None if hub is None else hub.store)
    return found


def analyser(request: Request) -> Analyser:
    """The analyser of the request's app."""
    return analyser_of(request.app)


def _clients(request: Request) -> list[str]:
    """Who asks: the address, and the account when logged in (so neither many
    addresses nor many accounts lift the limit alone)."""
    out = [f"ip:{client_key(request.scope)}"]
    players = getattr(request.app.state, "players", None)
    if players is not None and request.cookies:
        with contextlib.suppress(Exception):
            user = players.user_of(request)
            if user is not None:
                out.append(f"user:{user.username}")
    return out


def _json(data: dict[str, Any]) -> Response:
    """An analysis as JSON: plain values already, so the standard encoder does it
    (a tenth of the time FastAPI's generic encoder took on the event loop)."""
    return Response(json.dumps(data, separators=(",", ":")), media_type="application/json")


@router.get("/analysis", include_in_schema=False)
async def analysis_page() -> HTMLResponse:
    """The analysis page (a table's hand, or a record file opened in the browser)."""
    return page_shell("analysis")


@router.get("/api/tables/{table_id}/hands/{number}/analysis")
async def table_analysis(
    table_id: str,
    number: int,
    request: Request,
    ms: float = DEFAULT_MS,
    x_seat_token: Annotated[str | None, Header(max_length=100)] = None,
) -> Response:
    """Hand ``number`` of a table, step by step for the token's seat (or the
    logged-in player's seat, or a spectator), with the ratings that seat may
    see; the hand must be finished."""
    hub = request.app.state.hub
    live = hub.get(table_id)
    if live is None:
        raise ApiError("no_table", f"no table {table_id!r}", 404)
    viewer = hub.seat_of_token(live, x_seat_token)
    if x_seat_token and viewer is None:
        raise ApiError("bad_token", "this token holds no seat at this table", 403)
    players = getattr(request.app.state, "players", None)
    if viewer is None and players is not None and request.cookies:
        viewer = players.seat_of_request(request, table_id)
    await live.settled()
    game: TableGame = live.game
    if number < 1 or number > game.hand_number:
        raise ApiError("no_hand", f"hand {number} has not been dealt at this table", 404)
    if number == game.hand_number and not (game.state is not None and game.state.is_over):
        raise ApiError("hand_running", f"hand {number} is still being played", 409)
    ms = max(MIN_MS, min(MAX_MS, ms)) if math.isfinite(ms) else DEFAULT_MS
    key = ("table", table_id, number, viewer)
    work = analyser(request)
    try:
        data = work.cached(key) or await work.get(
            key,
            _clients(request),
            table_job,
            TableSource.of(game, number),
            number,
            viewer,
            ms,
            total_ms(),
        )
    except JobError as e:
        raise ApiError(e.code, str(e), e.status) from None
    data.update(
        table_id=table_id,
        hand=number,
        hands=game.hand_number,
        names={seat_name(i): game.seat_label(i) for i in range(game.n)},
        # the page words a bot seat by its level in its language, not "easy bot"
        bots={seat_name(i): s.bot for i, s in enumerate(game.seats) if s.kind == "bot" and s.bot},
    )
    return _json(data)


@router.post("/api/analysis/record")
async def posted_record(req: RecordRequest, request: Request) -> Response:
    """A record file opened in the browser, analysed as the record's viewer."""
    seat: int | None = None
    if req.seat:
        seat = "ABCD".find(req.seat.upper())
        if seat < 0:
            raise ApiError("bad_seat", f"no seat {req.seat!r}", 400)
    digest = hashlib.sha256(req.text.encode("utf-8", "surrogatepass")).hexdigest()
    key = ("record", digest, req.hand, seat)
    try:
        data = await analyser(request).get(
            key, _clients(request), record_job, req.text, req.hand, req.ms, seat, total_ms()
        )
    except JobError as e:
        raise ApiError(e.code, str(e), e.status) from None
    return _json(data)
