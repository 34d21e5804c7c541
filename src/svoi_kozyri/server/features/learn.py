"""The interactive tutorial: positions from the rules' worked examples where the
learner must find the move.

Why a server module: the lessons are data (``web/static/learn/lessons.json``, in
the position notation of ``docs/notation.md``), and the engine, not the browser,
decides what is legal and what a move leads to.  So the tutorial can never teach
a rule the engine does not play, and ``tests/test_learn.py`` checks every
lesson's expected move and every claim of its explanation against the engine.

Lessons show every hand openly: they are exercises, not games, and nothing in
them is anyone's secret.

HTTP: ``GET /api/learn/lessons`` (the lessons as the browser draws them) and
``POST /api/learn/lessons/{id}/try`` (``{"move": "beat 6D lead QS"}``: is it legal,
does it solve the lesson, and what happens next).  ``GET /learn`` is the page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse
from pydantic import BaseModel, Field

from ...core import (
    PHASE_NAMES,
    Game,
    IllegalMoveError,
    Move,
    State,
    display_order,
    format_card,
    rank_of,
    seat_name,
    suit_of,
)
from ...notation import parse_position
from ..edge.pages import page_shell
from ..wire.errors import ApiError

STATIC_DIR = Path(str(resources.files("svoi_kozyri") / "web" / "static"))
LESSONS_FILE = STATIC_DIR / "learn" / "lessons.json"


@dataclass(frozen=True)
class Lesson:
    """One exercise: a position, the moves that solve it and what its text claims."""

    id: str
    position: str
    accept: tuple[str, ...]
    claims: dict[str, Any]
    after: dict[str, dict[str, Any]]

    def state(self) -> State:
        """A fresh state of the lesson's position."""
        return parse_position(self.position)


@cache
def lessons() -> tuple[Lesson, ...]:
    """The lessons in teaching order (read once from the data file)."""
    data = json.loads(LESSONS_FILE.read_text(encoding="utf-8"))
    out = []
    for item in data["lessons"]:
        out.append(
            Lesson(
                id=str(item["id"]),
                position=str(item["position"]),
                accept=tuple(str(Move.parse(m)) for m in item["accept"]),
                claims=dict(item.get("claims", {})),
                after={str(Move.parse(k)): dict(v) for k, v in item.get("after", {}).items()},
            )
        )
    return tuple(out)


def lesson(lesson_id: str) -> Lesson | None:
    """The lesson with this id, or None."""
    return next((x for x in lessons() if x.id == lesson_id), None)


def _cards(mask: int) -> list[str]:
    return [format_card(c) for c in display_order(mask)]


def card_note(game: Game, seat: int, c: int, top: int) -> str:
    """Why card ``c`` does or does not beat ``top`` for ``seat`` (SPEC A8), as a code
    the page turns into a sentence: ``higher`` (same suit, higher), ``own_suit`` (your
    suit on a suit you do not own), ``lower`` (same suit, lower), ``needs_higher``
    (the top is your own suit: only a higher card of it beats), ``other_suit``
    (two suits, neither yours)."""
    own = game.own_cards(seat)
    if suit_of(c) == suit_of(top):
        return "higher" if rank_of(c) > rank_of(top) else "lower"
    if own >> top & 1:
        return "needs_higher"
    if own >> c & 1:
        return "own_suit"
    return "other_suit"


def summary(state: State) -> dict[str, Any]:
    """What the page shows of a position: every hand (open), pile, who acts."""
    game = state.game
    to_act = None if state.is_over else state.to_act
    top = state.top
    mode = None if state.is_over else PHASE_NAMES[state.phase]
    notes: dict[str, str] = {}
    if to_act is not None and top is not None and mode == "respond":
        for c in display_order(state.hand(to_act)):
            notes[format_card(c)] = card_note(game, to_act, c, top)
    res = state.outcome
    result = None
    if res is not None:
        result = {
            "loser": None if res.loser is None else seat_name(res.loser),
            "reason": res.termination.value,
        }
    return {
        "players": state.n,
        "owners": game.owners_str(),
        "hands": {seat_name(i): _cards(state.hand(i)) for i in range(state.n)},
        "pile": [format_card(c) for c in state.pile_cards()],
        "top": format_card(top) if top is not None else None,
        "to_act": seat_name(to_act) if to_act is not None else None,
        "mode": mode,
        "pickup_count": state.pickup_count() if mode == "respond" else 0,
        "pickup_cards": [format_card(c) for c in state.pickup_cards()] if mode == "respond" else [],
        "legal": [str(m) for m in state.legal_moves()],
        "notes": notes,
        "outs": [[seat_name(s), kind] for s, kind in state.outs],
        "result": result,
    }


def lesson_view(x: Lesson) -> dict[str, Any]:
    """A lesson as the page draws it (texts come from the catalogues by id)."""
    return {"id": x.id, "position": x.position, **summary(x.state())}


class TryRequest(BaseModel):
    """A learner's attempt."""

    move: str = Field(max_length=40)


RULES_LANGUAGES = ("en", "ru", "it", "es", "nl", "pt", "ko")
"""The languages of the rules page (``web/static/rules/<lang>.html``)."""


def rules_language(accept_language: str | None) -> str:
    """The best rules language for an ``Accept-Language`` header (else English)."""
    best, best_q = "en", -1.0
    for i, part in enumerate((accept_language or "").split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        base = tag.strip().lower().split("-")[0]
        if base in RULES_LANGUAGES and q - i * 1e-6 > best_q:
            best, best_q = base, q - i * 1e-6
    return best


router = APIRouter()


@router.get("/rules/{lang}", include_in_schema=False)
async def rules_in(lang: str) -> FileResponse:
    """The rules in one language, with the way back to the lobby."""
    if lang not in RULES_LANGUAGES:
        raise ApiError("no_language", f"no rules page in {lang!r}", 404)
    return FileResponse(STATIC_DIR / "rules" / f"{lang}.html")


@router.get("/learn", include_in_schema=False)
async def learn_page() -> HTMLResponse:
    """The tutorial page."""
    return page_shell("learn")


@router.get("/api/learn/lessons")
async def api_lessons() -> dict[str, Any]:
    """Every lesson in teaching order."""
    return {"lessons": [lesson_view(x) for x in lessons()]}


@router.post("/api/learn/lessons/{lesson_id}/try")
async def api_try(lesson_id: str, req: TryRequest) -> dict[str, Any]:
    """Check one attempt: ``legal``, ``correct`` and the position it leads to."""
    x = lesson(lesson_id)
    if x is None:
        raise ApiError("no_lesson", f"no lesson {lesson_id!r}", 404)
    state = x.state()
    try:
        move = Move.parse(req.move)
    except ValueError as e:  # MalformedError (or IllegalMoveError before issue #9)
        raise ApiError("malformed", str(e), 400) from None
    try:
        state.push(move)
    except IllegalMoveError as e:
        return {"legal": False, "correct": False, "move": str(move), "why": str(e), "after": None}
    return {
        "legal": True,
        "correct": str(move) in x.accept,
        "move": str(move),
        "after": summary(state),
    }
