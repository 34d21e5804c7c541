"""Same deal, compared (duplicate play, as on Hanab Live), and the daily deal.

Why: in a game of chance one result says little; the same cards played by
several people say a lot.  Any finished hand of any table becomes a *deal*: its
table's seed and hand number fix the shuffle (``TableGame.deal_rng``), and the
hand's dealer and the rules are stored with it.  Anyone with the link plays it
again at a new table (you in the seat of your choice, bots in the others) and
everybody who played it sees everybody's results.  The daily deal is a deal
whose seed comes from the date, the same for everyone that day.

Nothing secret leaves: a deal's page names the players and the results (who
went out in which order, who lost), never a card.  The cards stay in the
tables' event logs; a player sees them only by playing.

Storage: two tables of its own next to the server's (``sk_deals``: id, seed,
hand offset, dealer, rules, players, origin table; ``sk_deal_plays``: which
tables played which deal).  Results are read from the tables themselves.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, Field
from sqlalchemy import Table, insert, select
from sqlalchemy.exc import IntegrityError

from ..core import seat_name
from .pages import page_shell
from .schemas import NAME_PATTERN, CreateTableRequest, SeatConfig, TableConfig
from .social_tables import deals_t, plays_t
from .table import TableError, TableGame

MAX_RESULTS = 100
DAILY_PLAYERS = 4
DAILY_BOT = "medium"


def deal_id(seed: int, offset: int, dealer: int, players: int, rules: dict[str, Any]) -> str:
    """A short stable name of a deal: the same cards and rules give the same id."""
    key = json.dumps([str(seed), offset, dealer, players, rules], sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def daily_seed(day: dt.date) -> int:
    """The seed of a day's deal (the same for everyone)."""
    return int.from_bytes(hashlib.sha256(f"svoi-kozyri daily {day}".encode()).digest()[:7], "big")


class Deals:
    """The deals and plays stored next to the server's tables."""

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.engine = hub.store.engine

    def _insert(self, table: Table, row: dict[str, Any]) -> None:
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(table).values(**row))
        except IntegrityError:
            pass  # already there: deals and plays are idempotent

    def get(self, did: str) -> dict[str, Any] | None:
        """A stored deal, or None."""
        with self.engine.connect() as conn:
            row = conn.execute(select(deals_t).where(deals_t.c.id == did)).mappings().first()
        if row is None:
            return None
        out = dict(row)
        out["seed"] = int(out["seed"])
        out["rules"] = json.loads(out["rules"])
        return out

    def add_deal(
        self,
        seed: int,
        offset: int,
        dealer: int,
        players: int,
        rules: dict[str, Any],
        origin: str | None = None,
        daily: str | None = None,
    ) -> str:
        did = deal_id(seed, offset, dealer, players, rules)
        self._insert(
            deals_t,
            {
                "id": did,
                "seed": str(seed),
                "offset": offset,
                "dealer": dealer,
                "players": players,
                "rules": json.dumps(rules, sort_keys=True),
                "origin": origin,
                "daily": daily,
                "created": time.time(),
            },
        )
        return did

    def add_play(self, did: str, table_id: str, hand: int) -> None:
        self._insert(
            plays_t, {"deal_id": did, "table_id": table_id, "hand": hand, "created": time.time()}
        )

    def from_hand(self, game: TableGame, number: int) -> str:
        """The deal of hand ``number`` of a table (which must be finished)."""
        deals = [ev for ev in game.events if ev["kind"] == "deal"]
        if not 1 <= number <= len(deals):
            raise TableError("no_hand", f"hand {number} has not been dealt at this table")
        hands = game.hands_of_session()
        if not hands[number - 1].is_over:
            raise TableError("hand_running", f"hand {number} is still being played")
        did = self.add_deal(
            game.seed,
            number - 1 + game.config.deal_offset,
            int(deals[number - 1]["dealer"]),
            game.n,
            _deal_rules(game.config.rules),
            origin=game.table_id,
        )
        self.add_play(did, game.table_id, number)
        return did

    def daily(self, day: dt.date) -> str:
        """Today's deal: four players, the standard rules, a seed from the date."""
        seed = daily_seed(day)
        dealer = seed % DAILY_PLAYERS
        return self.add_deal(seed, 0, dealer, DAILY_PLAYERS, {}, daily=day.isoformat())

    def results(self, did: str) -> list[dict[str, Any]]:
        """Every finished play of a deal: players, order of going out, result."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(plays_t)
                .where(plays_t.c.deal_id == did)
                .order_by(plays_t.c.created)
                .limit(MAX_RESULTS)
            ).all()
        out = []
        for row in rows:
            live = self.hub.get(row.table_id)
            if live is None:
                continue
            game: TableGame = live.game
            hands = game.hands_of_session()
            if len(hands) < row.hand or not hands[row.hand - 1].is_over:
                continue
            st = hands[row.hand - 1]
            res = st.result
            assert res is not None
            out.append(
                {
                    "table_id": row.table_id,
                    "hand": row.hand,
                    "seats": [
                        {
                            "seat": seat_name(i),
                            "name": game.seat_label(i),
                            "kind": game.seats[i].kind,
                        }
                        for i in range(game.n)
                    ],
                    "outs": [[seat_name(s), kind] for s, kind in st.outs],
                    "loser": None if res.loser is None else seat_name(res.loser),
                    "reason": res.reason,
                    "turns": len(st.history()),
                }
            )
        return out


def _deal_rules(rules: dict[str, Any]) -> dict[str, Any]:
    """The rules that shape a hand (the session's length does not)."""
    skip = {"session_mode", "loss_limit", "points_target", "num_players"}
    return {k: v for k, v in rules.items() if k not in skip}


class PlayRequest(BaseModel):
    """Play a deal: your name and seat; the other seats get bots."""

    name: str = Field(pattern=NAME_PATTERN)
    seat: int = Field(default=0, ge=0, le=3)
    bot: str | None = Field(default=None, max_length=40)


router = APIRouter()


def _deals(request: Request) -> Deals:
    app = request.app
    deals = getattr(app.state, "deals", None)
    if deals is None:
        deals = app.state.deals = Deals(app.state.hub)
    return deals


def _err(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"code": code, "message": message}, status_code=status)


def _deal_json(deals: Deals, d: dict[str, Any], base_url: str) -> dict[str, Any]:
    return {
        "deal_id": d["id"],
        "players": d["players"],
        "rules": d["rules"],
        "dealer": seat_name(d["dealer"]),
        "daily": d["daily"],
        "url": f"{base_url.rstrip('/')}/deal?id={d['id']}",
        "results": deals.results(d["id"]),
    }


@router.get("/deal", include_in_schema=False)
async def deal_page() -> HTMLResponse:
    """The page of a deal: everybody's results and a button to play it."""
    return page_shell("deal")


@router.post("/api/tables/{table_id}/hands/{number}/deal", response_model=None)
async def share_hand(table_id: str, number: int, request: Request) -> dict[str, Any] | JSONResponse:
    """Make a finished hand a deal others can play (its link and results)."""
    deals = _deals(request)
    live = deals.hub.get(table_id)
    if live is None:
        return _err("no_table", f"no table {table_id!r}", 404)
    try:
        did = deals.from_hand(live.game, number)
    except TableError as e:
        return _err(e.code, str(e), 409 if e.code == "hand_running" else 404)
    d = deals.get(did)
    assert d is not None
    return _deal_json(deals, d, str(request.base_url))


@router.get("/api/deals/daily", response_model=None)
async def daily(request: Request) -> dict[str, Any]:
    """Today's deal (UTC date) with its results so far."""
    deals = _deals(request)
    d = deals.get(deals.daily(dt.datetime.now(dt.UTC).date()))
    assert d is not None
    return _deal_json(deals, d, str(request.base_url))


@router.get("/api/deals/{did}", response_model=None)
async def deal(did: str, request: Request) -> dict[str, Any] | JSONResponse:
    """A deal and everybody's results on it (names and outcomes, never cards)."""
    deals = _deals(request)
    d = deals.get(did[:24])
    if d is None:
        return _err("no_deal", f"no deal {did!r}", 404)
    return _deal_json(deals, d, str(request.base_url))


@router.post("/api/deals/{did}/play", response_model=None)
async def play(did: str, req: PlayRequest, request: Request) -> dict[str, Any] | JSONResponse:
    """A new table dealing exactly this deal: you at ``seat``, bots elsewhere;
    one hand (the session ends at its first loss)."""
    deals = _deals(request)
    d = deals.get(did[:24])
    if d is None:
        return _err("no_deal", f"no deal {did!r}", 404)
    n = d["players"]
    if req.seat >= n:
        return _err("bad_seat", f"seat {req.seat} does not exist with {n} players", 400)
    hub = deals.hub
    bot = req.bot or (DAILY_BOT if DAILY_BOT in hub.bots else hub.default_bot)
    seats = [
        SeatConfig(kind="human") if i == req.seat else SeatConfig(kind="bot", bot=bot)
        for i in range(n)
    ]
    config = TableConfig(
        title=f"deal {d['id']}",
        seats=seats,
        rules={**d["rules"], "loss_limit": 1},
        bot_delay_s=0.8,
        listed=False,
        deal_offset=d["offset"],
        first_dealer=d["dealer"],
    )
    try:
        grant = hub.create_table(
            CreateTableRequest(name=req.name, config=config),
            str(request.base_url),
            seed=d["seed"],
            seat=req.seat,
        )
    except TableError as e:
        return _err(e.code, str(e), 400)
    deals.add_play(d["id"], grant.table_id, 1)
    return {**grant.model_dump(), "deal_id": d["id"]}
