"""Analysis after a hand: every turn of a finished hand, as the viewer saw it,
with the library's ratings (:func:`svoi_kozyri.bots.analysis.analyse_position`).

Why here and how it keeps secrets:

* A step holds only what the viewer could see before that turn: their own hand
  (nothing for a spectator), the pile as the table showed it, hand sizes and the
  publicly known cards (:func:`~svoi_kozyri.server.views.hand_view`, the same
  function the live table uses).
* A turn is rated from the **acting player's** observation (so the numbers are
  what that player could have known, never the full deal).  The viewer gets the
  rating of every legal move only on their own turns; on another player's turn
  they get the played move's rating, the best rating and whether the result got
  worse, and the moves whose every card they could see, never a card they could
  not (``tests/test_analysis_api.py`` checks this for every step and viewer).
* Only finished hands are analysed: during play this would be a hint machine.
* CPU is bounded: ``ms`` per rated turn (clamped), at most ``TOTAL_MS`` per hand,
  one analysis at a time in a worker thread, results cached.

A downloaded record (``POST /api/analysis/record``) gets the same view.  A
record written for one player hides the other hands; the server fills them
with any cards consistent with everything public (:func:`complete_viewer_record`),
which changes nothing the viewer sees, and rates only the viewer's own turns
(the others' hands are unknown, so their turns cannot be rated honestly).  A
spectator's record is stepped through without ratings; a full record (all hands
known) is rated for every seat.
"""

from __future__ import annotations

import asyncio
import math
import os
import random
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Annotated, Any, Final

from fastapi import APIRouter, Header, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field

from ..bots.analysis import MoveRating
from ..bots.search.common import Budget, policy
from ..bots.search.pimc import pimc_values
from ..bots.search.solver import Solver, open_state
from ..core import (
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
from ..notation import parse_position
from .pages import page_shell
from .table import TableError, TableGame
from .views import hand_view

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
"""Open positions with at most this many cards in hand are solved exactly (the
solver checks its clock only every thousand nodes, so bigger ones would overrun
a budget of a few milliseconds); bigger ones are estimated."""
#: the exact solver's table size here (its Python fixpoint holds about 1 KB a position:
#: a web server's analyses stay within a few hundred MB whatever the position)
SOLVER_TABLE: Final = 300_000
#: the positions of one compiled fixpoint computation here (about 130 bytes each)
SOLVER_GRAPH: Final = 1_000_000
THRESHOLD = 0.1
"""An estimated drop counts as a worsening from this size (and beyond noise)."""
MAX_RECORD_CHARS = 200_000
_CACHE_SIZE = 32


@dataclass(frozen=True)
class Step:
    """One turn of a hand: who moved, what, who chose it, the state before it."""

    seat: int
    move: Move
    by: str
    before: State


def _interval(r: MoveRating) -> tuple[float, float] | None:
    """A 95 % interval of an estimate (None for a proven value)."""
    if r.proven or not r.samples:
        return None
    se = math.sqrt(max(r.score * (1 - r.score), 0.05) / r.samples)
    return max(0.0, r.score - 1.96 * se), min(1.0, r.score + 1.96 * se)


def got_worse(best: MoveRating, played: MoveRating) -> bool:
    """Did the move played make the result worse?  Proven values: any drop.
    Estimates: a drop of at least ``THRESHOLD`` that is also more than two standard
    errors of the difference (sampling noise is not reported as a mistake)."""
    drop = best.score - played.score
    if best.proven and played.proven:
        return drop > 1e-9
    if drop < THRESHOLD:
        return False
    var = sum(
        max(r.score * (1 - r.score), 0.05) / r.samples
        for r in (best, played)
        if not r.proven and r.samples
    )
    return drop > 2 * math.sqrt(var)


def _rating_json(r: MoveRating, show_move: bool) -> dict[str, Any]:
    ci = _interval(r)
    return {
        "move": str(r.move) if show_move else None,
        "score": round(r.score, 4),
        "proven": r.proven,
        "samples": r.samples,
        "low": None if ci is None else round(ci[0], 4),
        "high": None if ci is None else round(ci[1], 4),
    }


def rate_position(
    obs: Observation, ms: float, seed: int, solver: Solver | None = None
) -> list[MoveRating]:
    """Every legal move of the observer rated within about ``ms`` (at least one
    sampling round), best first: proven values from the exact solver when the
    position is open, otherwise PIMC estimates (the library's search pieces, as in
    :func:`svoi_kozyri.bots.analysis.analyse_position`, but with the time checked
    after every round so the budget holds)."""
    t0 = time.perf_counter()
    full = open_state(obs)
    if full is not None and sum(obs.hand_sizes) > SOLVE_CARDS:
        full = None  # too big to prove within a small budget: estimate instead
    if full is not None:
        proven = (solver or Solver(max_table=SOLVER_TABLE, max_graph=SOLVER_GRAPH)).move_values(
            full, ms / 2000.0
        )
        if all(v is not None for _, v in proven):
            out = [MoveRating(m, (v + 1) / 2, True, 0) for m, v in proven if v is not None]
            return sorted(out, key=lambda r: -r.score)
    moves = obs.legal_moves()
    totals = [0.0] * len(moves)
    counts = [0] * len(moves)
    rng = random.Random(seed)
    pol = policy("heuristic")
    while True:
        vals = pimc_values(obs, Budget(iterations=len(moves)), rng, pol, None, 0, ROLLOUT_TURNS)
        for k, (_, v, c) in enumerate(vals):
            if c:
                totals[k] += v * c
                counts[k] += c
        if (time.perf_counter() - t0) * 1000.0 >= ms:
            break
    out = [
        MoveRating(m, totals[k] / counts[k], False, counts[k])
        for k, m in enumerate(moves)
        if counts[k]
    ]
    return sorted(out, key=lambda r: -r.score)


def total_ms() -> float:
    """The analysis time of one hand: ``SVOI_KOZYRI_ANALYSIS_MS`` or ``TOTAL_MS``."""
    try:
        value = float(os.environ.get("SVOI_KOZYRI_ANALYSIS_MS", ""))
    except ValueError:
        return TOTAL_MS
    return value if value > 0 else TOTAL_MS


def rate_steps(
    steps: list[Step], rated: set[int], ms: float
) -> tuple[list[list[MoveRating] | None], int]:
    """Ratings of every step whose seat is in ``rated`` and that had a choice,
    from that seat's own observation (``None`` for the other steps), and how many
    such steps stayed unrated because the hand's time (``TOTAL_MS``) was spent."""
    t0 = time.perf_counter()
    total = total_ms()
    todo = [i for i, s in enumerate(steps) if s.seat in rated and s.before.count_legal_moves() > 1]
    per = max(MIN_MS, min(ms, total / max(1, len(todo))))
    out: list[list[MoveRating] | None] = [None] * len(steps)
    solver = Solver(max_table=SOLVER_TABLE, max_graph=SOLVER_GRAPH)
    skipped = 0
    for i in todo:
        if (time.perf_counter() - t0) * 1000.0 >= total:
            skipped += 1
            continue
        s = steps[i]
        out[i] = rate_position(observe(s.before, s.seat), per, seed=i, solver=solver)
    return out, skipped


def _view(state: State, viewer: int | None, number: int) -> dict[str, Any]:
    """What ``viewer`` sees of ``state`` (the live table's own view builder)."""
    hv = hand_view(state, viewer, number, [], None).model_dump(mode="json")
    for key in ("log", "log_start", "deadline_s", "transfers", "number", "dealer"):
        hv.pop(key, None)
    obs = observe(state, viewer)
    hv["sizes"] = list(obs.hand_sizes)
    hv["known"] = [[format_card(c) for c in display_order(k)] for k in obs.known]
    hv["outs"] = [[seat_name(s), kind] for s, kind in obs.outs]
    return hv


def _visible_to(step: Step, viewer: int | None) -> int:
    """The cards of the actor's hand the viewer could see before the step."""
    if viewer is not None and viewer == step.seat:
        return step.before.hand(step.seat)
    return observe(step.before, viewer).known[step.seat]


def analysis_json(
    steps: list[Step],
    final: State,
    rated: tuple[list[list[MoveRating] | None], int],
    viewer: int | None,
    number: int,
) -> dict[str, Any]:
    """The analysis of one hand for ``viewer``: nothing they could not see."""
    ratings, skipped = rated
    out_steps = []
    worse = 0
    for i, (s, rs) in enumerate(zip(steps, ratings, strict=True)):
        rating = None
        if rs:
            best = rs[0]
            played = next((r for r in rs if r.move == s.move), None)
            if played is not None:
                visible = _visible_to(s, viewer)
                shown = [r for r in rs if mask_of(r.move.cards()) & ~visible == 0]
                rating = {
                    "kind": "proven" if best.proven and played.proven else "estimate",
                    "played": _rating_json(played, True),
                    "best": _rating_json(best, best in shown),
                    "drop": round(max(0.0, best.score - played.score), 4),
                    "worse": got_worse(best, played),
                    "moves": [_rating_json(r, True) for r in shown],
                    "hidden": len(rs) - len(shown),
                }
                worse += bool(rating["worse"])
        out_steps.append(
            {
                "index": i,
                "seat": seat_name(s.seat),
                "move": str(s.move),
                "by": s.by,
                "before": _view(s.before, viewer, number),
                "rating": rating,
            }
        )
    res = final.result
    return {
        "viewer": None if viewer is None else seat_name(viewer),
        "players": final.n,
        "owners": final.game.owners_str(),
        "steps": out_steps,
        "final": _view(final, viewer, number),
        "result": None
        if res is None
        else {"loser": None if res.loser is None else seat_name(res.loser), "reason": res.reason},
        "worse": worse,
        "unrated": skipped,
    }


# -- hands of a web table ------------------------------------------------------------


def table_hand_steps(game: TableGame, number: int) -> tuple[list[Step], State]:
    """The steps of hand ``number`` (1-based) of a table, rebuilt from its events."""
    copy = TableGame(game.table_id, game.config, game.seed, game.seats, game.created)
    steps: list[Step] = []
    hand = 0
    final: State | None = None
    for ev in game.events:
        if ev["kind"] == "deal":
            if hand == number:
                break
            copy.apply(ev)
            hand += 1
            continue
        if hand == number:
            before = copy.state
            assert before is not None
            steps.append(Step(int(ev["seat"]), Move.parse(ev["move"]), str(ev.get("by")), before))
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
    from ..core import Game
    from ..notation.position import format_cards_compact, parse_cards_compact
    from ..records import RecordError

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
            st.to_act if st.to_act is not None else 0,
            st.mode or "free",
            st.outs,
            discard=st.discard,
            turns=st.turns,
            known=[mask_of(k) for k in known],
        )
    except SvoiKozyriError as e:
        raise RecordError(f"the record's start cannot be completed: {e}") from None


def record_analysis(text: str, number: int, ms: float, seat: int | None) -> dict[str, Any]:
    """The analysis of hand ``number`` (1-based) of a record file's text."""
    from ..records import SPECTATOR, RecordError, parse_records

    records = parse_records(text)
    if not 1 <= number <= len(records):
        raise RecordError(f"the file holds {len(records)} record(s), not a hand {number}")
    rec = records[number - 1]
    if rec.viewer is not None and rec.position is not None and "?" in rec.position:
        start = complete_viewer_record(rec)
        viewer = None if rec.viewer == SPECTATOR else rec.viewer
        rated = set() if viewer is None else {viewer}
    else:
        start = rec.start_state()
        viewer = seat if rec.viewer is None else (None if rec.viewer == SPECTATOR else rec.viewer)
        rated = set(range(rec.game.n))
    steps = steps_of(start, list(rec.moves))
    final = steps[-1].before.copy() if steps else start.copy()
    if steps:
        final.push(steps[-1].move, steps[-1].seat)
    if not final.is_over:
        raise RecordError("this hand is not finished: only finished hands are analysed")
    ratings = rate_steps(steps, rated, ms)
    data = analysis_json(steps, final, ratings, viewer, number)
    data["hands"] = len(records)
    data["hand"] = number
    data["rated"] = sorted(seat_name(s) for s in rated)
    data["names"] = {seat_name(k): v for k, v in rec.names.items()}
    return data


# -- HTTP ------------------------------------------------------------------------------


class RecordRequest(BaseModel):
    """A record file's text, posted from the browser's file picker."""

    text: str = Field(max_length=MAX_RECORD_CHARS)
    hand: int = Field(default=1, ge=1, le=1000)
    ms: float = Field(default=DEFAULT_MS, ge=MIN_MS, le=MAX_MS)
    seat: str | None = Field(default=None, max_length=1)


Ratings = tuple[list[list[MoveRating] | None], int]


class _Analyser:
    """One analysis at a time (a worker thread), with a small cache."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.cache: OrderedDict[tuple[Any, ...], Ratings] = OrderedDict()

    async def ratings(
        self, key: tuple[Any, ...], steps: list[Step], rated: set[int], ms: float
    ) -> Ratings:
        async with self.lock:
            hit = self.cache.get(key)
            if hit is not None:
                self.cache.move_to_end(key)
                return hit
            result = await asyncio.to_thread(rate_steps, steps, rated, ms)
            self.cache[key] = result
            while len(self.cache) > _CACHE_SIZE:
                self.cache.popitem(last=False)
            return result

    async def run(self, fn: Any, *args: Any) -> Any:
        async with self.lock:
            return await asyncio.to_thread(fn, *args)


router = APIRouter()
_analyser = _Analyser()


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status)


@router.get("/analysis", include_in_schema=False)
async def analysis_page() -> HTMLResponse:
    """The analysis page (a table's hand, or a record file opened in the browser)."""
    return page_shell("analysis")


@router.get("/api/tables/{table_id}/hands/{number}/analysis", response_model=None)
async def table_analysis(
    table_id: str,
    number: int,
    request: Request,
    ms: float = DEFAULT_MS,
    token: str | None = None,
    x_seat_token: Annotated[str | None, Header()] = None,
) -> dict[str, Any] | JSONResponse:
    """Hand ``number`` of a table, step by step for the token's seat (or a
    spectator), with ratings; the hand must be finished."""
    hub = request.app.state.hub
    live = hub.get(table_id)
    if live is None:
        return _error("no_table", f"no table {table_id!r}", 404)
    tok = x_seat_token or token
    viewer = hub.seat_of_token(live, tok)
    if tok and viewer is None:
        return _error("bad_token", "this token holds no seat at this table", 403)
    game: TableGame = live.game
    try:
        steps, final = table_hand_steps(game, number)
    except TableError as e:
        return _error(e.code, str(e), 409 if e.code == "hand_running" else 404)
    ms = max(MIN_MS, min(MAX_MS, ms))
    everyone = set(range(game.n))
    ratings = await _analyser.ratings((table_id, number, ms), steps, everyone, ms)
    data = analysis_json(steps, final, ratings, viewer, number)
    data.update(
        table_id=table_id,
        hand=number,
        hands=game.hand_number,
        names={seat_name(i): game.seat_label(i) for i in range(game.n)},
        rated=[seat_name(s) for s in sorted(everyone)],
        budget_ms=ms,
    )
    return data


@router.post("/api/analysis/record", response_model=None)
async def posted_record(req: RecordRequest) -> dict[str, Any] | JSONResponse:
    """A record file opened in the browser, analysed as the record's viewer."""
    from ..records import RecordError

    seat: int | None = None
    if req.seat:
        seat = "ABCD".find(req.seat.upper())
        if seat < 0:
            return _error("bad_seat", f"no seat {req.seat!r}", 400)
    try:
        data: dict[str, Any] = await _analyser.run(
            record_analysis, req.text, req.hand, req.ms, seat
        )
    except (RecordError, SvoiKozyriError, ValueError) as e:
        return _error("bad_record", str(e), 400)
    data["budget_ms"] = req.ms
    return data
