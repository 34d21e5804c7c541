"""Same deal, compared (duplicate play, as on Hanab Live), and the daily deal.

Why: in a game of chance one result says little; the same cards played by
several people say a lot.  A finished hand of a table becomes a *deal*: the
hand's deal event (dealer, deck order, suit owners) is stored with the rules
and the table's seats.  Anyone with the link plays it again at a new table (you
in the seat of your choice, the original table's bots in theirs) and everybody
who played it sees everybody's results.  The daily deal is a deal drawn for the
day, the same for everyone that day.

What is secret stays secret (issue 20, item 1):

* a deal holds exactly one hand's deal and never a table's seed, which derives
  every hand of that table, the one being played included; the table playing a
  deal deals its first hand from the stored event and every later hand (after
  a draw) from a fresh seed of its own;
* the daily deck comes from a secret of the server's database (the same at
  every process and restart), not from the date, which anyone can compute;
* deal ids are HMACs under that secret, so they say nothing about any deck;
* only a hand that is over is shared, and while its table is still running
  only by one of that table's players (seat token or account); playing a deal
  shows its first hands as dealt (the loser's last cards, which nobody saw),
  so a deal can be played only once its source table has finished
  (``409 deal_locked`` before);
* a deal's page names the players and the results (who went out in which
  order, who lost), never a card.

Storage: two tables of its own next to the server's (``sk_deals``: id, deal
event, dealer, rules, seats, origin table and hand; ``sk_deal_plays``: which
tables played which deal as which hand).  Results are read from the tables
themselves.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import random
import time
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import Table, insert, select
from sqlalchemy.exc import IntegrityError

from ...core import Rules, Session, SvoiKozyriError, seat_name
from ..edge.guard import RateLimited, client_key
from ..edge.pages import page_shell
from ..storage.schema import deals_t, plays_t
from ..table.game import SeatInfo, TableError, TableGame
from ..table.replay import session_hands
from ..table.service import TableService
from ..wire.errors import ApiError
from ..wire.events import DealEvent, EventError, event_from_data
from ..wire.schemas import CreateTableRequest, PlayerName, SeatConfig, SeatGrant, TableConfig

MAX_RESULTS = 100
DAILY_PLAYERS = 4
DAILY_BOT = "medium"
"""The bots of the daily deal, and of the seats a human held at a deal's table."""
DEAL_BOT_DELAY_S = 0.8
DEAL_KEYS = ("dealer", "deck", "owners", "pairs")
"""What a stored deal holds of its hand's deal event."""


class Deals:
    """The deals and plays stored next to the server's tables."""

    def __init__(self, hub: TableService) -> None:
        self.hub = hub
        self.engine = hub.store.engine
        self._secret: bytes = hub.store.server_secret()
        self.bot_delay_s = DEAL_BOT_DELAY_S
        """The bots' pace at a deal's table (tests set 0)."""

    # -- names and secrets -----------------------------------------------------------

    def _mac(self, *parts: str) -> bytes:
        """An HMAC of ``parts`` under the database's secret (domain-separated from
        the signed links that share the secret)."""
        msg = json.dumps(["svoi-kozyri deal", *parts]).encode()
        return hmac.new(self._secret, msg, hashlib.sha256).digest()

    def deal_id(self, *parts: str) -> str:
        """The id of a deal: the same hand (or day) gives the same id at every
        process, and without the secret nothing about the deck follows from it."""
        return self._mac("id", *parts).hex()[:16]

    # -- storage -------------------------------------------------------------------

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
        out["rules"] = json.loads(out["rules"])
        out["deal"] = None if out["deal"] is None else json.loads(out["deal"])
        out["seats"] = None if out["seats"] is None else json.loads(out["seats"])
        return out

    def add_deal(
        self,
        did: str,
        deal: DealEvent,
        players: int,
        rules: dict[str, Any],
        *,
        seats: list[dict[str, Any]] | None = None,
        origin: str | None = None,
        hand: int | None = None,
        daily: str | None = None,
    ) -> str:
        """Store a deal (nothing happens if it is there already)."""
        self._insert(
            deals_t,
            {
                "id": did,
                "deal": json.dumps(deal.model_dump(include=set(DEAL_KEYS))),
                "dealer": deal.dealer,
                "players": players,
                "rules": json.dumps(rules, sort_keys=True),
                "seats": None if seats is None else json.dumps(seats),
                "origin": origin,
                "hand": hand,
                "daily": daily,
                "created": time.time(),
            },
        )
        return did

    def add_play(self, did: str, table_id: str, hand: int) -> None:
        self._insert(
            plays_t, {"deal_id": did, "table_id": table_id, "hand": hand, "created": time.time()}
        )

    def deal_of(self, table_id: str, hand: int) -> str | None:
        """The deal a table's hand is a play of (a deal's table, or a hand
        shared before), or None."""
        with self.engine.connect() as conn:
            row = conn.execute(
                select(plays_t.c.deal_id)
                .where(plays_t.c.table_id == table_id, plays_t.c.hand == hand)
                .order_by(plays_t.c.created)
            ).first()
        return None if row is None else str(row.deal_id)

    # -- making deals ------------------------------------------------------------------

    def from_hand(self, game: TableGame, number: int) -> str:
        """The deal of hand ``number`` of a table (which must be over)."""
        deals = [ev for ev in game.events if isinstance(ev, DealEvent)]
        if not 1 <= number <= len(deals):
            raise TableError("no_hand", f"hand {number} has not been dealt at this table")
        hands = session_hands(game)
        if not hands[number - 1].is_over:
            raise TableError("hand_running", f"hand {number} is still being played")
        known = self.deal_of(game.table_id, number)
        if known is not None and self.get(known) is not None:
            return known  # the hand was a play of this deal, or shared already
        did = self.add_deal(
            self.deal_id("hand", game.table_id, str(number)),
            deals[number - 1],
            game.n,
            _deal_rules(game.config.rules),
            seats=[{"kind": s.kind, "bot": s.bot} for s in game.seats],
            origin=game.table_id,
            hand=number,
        )
        self.add_play(did, game.table_id, number)
        return did

    def daily(self, day: dt.date) -> str:
        """The day's deal: four players, the standard rules, a deck drawn from the
        database's secret and the date (the same at every process all day, and
        not computable without the secret)."""
        did = self.deal_id("daily", day.isoformat())
        if self.get(did) is None:
            seed = int.from_bytes(self._mac("daily deck", day.isoformat()), "big")
            rng = random.Random(seed)
            session = Session(Rules.from_dict({"num_players": DAILY_PLAYERS}), rng=rng)
            game = session.game
            assert session.first_dealer is not None
            deal = DealEvent(
                dealer=session.first_dealer,
                deck=game.shuffled_deck(rng),
                owners=list(game.owners),
                pairs=list(game.pairs) if game.pairs is not None else None,
            )
            self.add_deal(did, deal, DAILY_PLAYERS, {}, daily=day.isoformat())
        return did

    # -- playing deals -----------------------------------------------------------------

    def locked(self, d: dict[str, Any]) -> bool:
        """True while the deal's source table is still running: its players have
        not seen the hand's first hands (nor the loser's last cards), and a play
        would show them."""
        origin = d["origin"]
        if origin is None:
            return False
        live = self.hub.get(origin)
        return live is not None and live.game.status != "finished"

    def seats_for(self, d: dict[str, Any], seat: int, bot: str | None) -> list[SeatConfig]:
        """The seats of a table playing deal ``d`` from ``seat``: you there; in every
        other seat the bot that sat there at the deal's table (so that the results
        compare), and ``bot`` (by default the medium bot) in a seat a human held,
        or in every seat of the daily deal."""
        hub = self.hub
        stand_in = bot or (DAILY_BOT if DAILY_BOT in hub.bots else hub.default_bot)
        original = d["seats"] or [{"kind": "human", "bot": None}] * d["players"]
        out = []
        for i, s in enumerate(original):
            if i == seat:
                out.append(SeatConfig(kind="human"))
            elif s.get("kind") == "bot" and s.get("bot") in hub.bots:
                out.append(SeatConfig(kind="bot", bot=str(s["bot"])))
            else:  # a human's seat, or a bot this server no longer has
                out.append(SeatConfig(kind="bot", bot=stand_in))
        return out

    def start(
        self,
        d: dict[str, Any],
        config: TableConfig,
        name: str,
        seat: int,
        base_url: str,
        client: str,
    ) -> SeatGrant:
        """A new table (with a fresh seed of its own) whose first event is the deal."""
        hub = self.hub
        event = _deal_event(d["deal"])
        _check_deal(config, event)
        grant: SeatGrant = hub.create_table(
            CreateTableRequest(name=name, config=config),
            base_url,
            seat=seat,
            client=client,
            purpose="deal_play",
        )
        # Nothing was awaited since the table was created: it has not dealt a
        # hand of its own yet.  The deal goes in as its first event, announced to
        # the other processes like any committed event.
        live = hub.tables[grant.table_id]
        live.game.apply(event)
        note = hub.master.note(grant.table_id, 1)
        hub.store.append_event(grant.table_id, 0, event, live.game.status, notify=note)
        hub.master.changed(live)
        self.add_play(d["id"], grant.table_id, 1)
        return grant

    # -- results -------------------------------------------------------------------

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
            hands = session_hands(game)
            if len(hands) < row.hand or not hands[row.hand - 1].is_over:
                continue
            st = hands[row.hand - 1]
            res = st.outcome
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
                            "bot": game.seats[i].bot,  # the page words the level
                        }
                        for i in range(game.n)
                    ],
                    "outs": [[seat_name(s), kind] for s, kind in st.outs],
                    "loser": None if res.loser is None else seat_name(res.loser),
                    "reason": res.termination.value,
                    "turns": len(st.history()),
                }
            )
        return out


def _deal_rules(rules: dict[str, Any]) -> dict[str, Any]:
    """The rules that shape a hand (the session's length and scoring do not: a
    deal is played as one hand of a session in losses mode)."""
    skip = {"session_mode", "loss_limit", "points_target", "points_on_draw", "num_players"}
    return {k: v for k, v in rules.items() if k not in skip}


def _deal_event(stored: dict[str, Any]) -> DealEvent:
    """The deal event of a stored deal's ``deal`` column (a ``bad_deal`` if it is
    not one)."""
    try:
        event = event_from_data({"kind": "deal", **stored})
    except EventError as e:
        raise TableError("bad_deal", f"this deal is damaged: {e}") from None
    if not isinstance(event, DealEvent):  # the stored keys cannot name another kind
        raise TableError("bad_deal", "this deal is damaged")
    return event


def _check_deal(config: TableConfig, event: DealEvent) -> None:
    """Refuse a stored deal that does not fit the table's rules, before any table
    is made."""
    seats = [SeatInfo(kind="bot") for _ in config.seats]
    try:
        TableGame("probe", config, 0, seats).apply(event)
    except (SvoiKozyriError, KeyError, TypeError, ValueError) as e:  # TableError too
        raise TableError("bad_deal", f"this deal does not fit its rules: {e}") from None


class PlayRequest(BaseModel):
    """Play a deal: your name and seat; bots in the other seats (``bot``: the bot
    for the seats humans held at the deal's table).  Strict, like every request
    (issue 20, item 10): ``"1"`` or ``1.0`` for a seat and unknown fields are
    refused; the name is checked like every player's name (422, never 500)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    name: PlayerName
    seat: int = Field(default=0, ge=0, le=3)
    bot: str | None = Field(default=None, max_length=40)


router = APIRouter()


def _deals(request: Request) -> Deals:
    app = request.app
    deals = getattr(app.state, "deals", None)
    if deals is None:
        deals = app.state.deals = Deals(app.state.hub)
    return deals


def _deal_json(deals: Deals, d: dict[str, Any], base_url: str) -> dict[str, Any]:
    """A deal as anyone may see it: players, rules, dealer, seats, results; no card."""
    seats = d["seats"]
    return {
        "deal_id": d["id"],
        "players": d["players"],
        "rules": d["rules"],
        "dealer": seat_name(d["dealer"]),
        "daily": d["daily"],
        "seats": None
        if seats is None
        else [
            {"seat": seat_name(i), "kind": s.get("kind"), "bot": s.get("bot")}
            for i, s in enumerate(seats)
        ],
        "playable": d["deal"] is not None,
        "locked": deals.locked(d),
        "url": f"{base_url.rstrip('/')}/deal?id={d['id']}",
        "results": deals.results(d["id"]),
    }


@router.get("/deal", include_in_schema=False)
async def deal_page() -> HTMLResponse:
    """The page of a deal: everybody's results and a button to play it."""
    return page_shell("deal")


@router.post("/api/tables/{table_id}/hands/{number}/deal")
async def share_hand(
    table_id: str,
    number: int,
    request: Request,
    x_seat_token: Annotated[str | None, Header(max_length=100)] = None,
) -> dict[str, Any]:
    """Make a hand that is over a deal others can play (its link and results).

    While the table is running only its players may (the seat token in
    ``X-Seat-Token``, or the account holding a seat); once it has finished,
    anyone may."""
    deals = _deals(request)
    live = deals.hub.get(table_id)
    if live is None:
        raise ApiError("no_table", f"no table {table_id!r}", 404)
    await live.settled()  # what is shared is what the database holds
    game: TableGame = live.game
    if game.status != "finished":
        seat = deals.hub.seat_of_token(live, x_seat_token)
        if x_seat_token and seat is None:
            raise ApiError("bad_token", "this token holds no seat at this table", 403)
        players = getattr(request.app.state, "players", None)
        if seat is None and players is not None:
            seat = players.seat_of_request(request, table_id)
        if seat is None:
            raise ApiError(
                "not_a_player", "while a table runs only its players can share its hands", 403
            )
    try:
        did = deals.from_hand(game, number)
    except TableError as e:
        raise ApiError(e.code, str(e), 409 if e.code == "hand_running" else 404) from None
    d = deals.get(did)
    assert d is not None
    return _deal_json(deals, d, str(request.base_url))


@router.get("/api/deals/daily")
async def daily(request: Request) -> dict[str, Any]:
    """Today's deal (UTC date) with its results so far."""
    deals = _deals(request)
    d = deals.get(deals.daily(dt.datetime.now(dt.UTC).date()))
    assert d is not None
    return _deal_json(deals, d, str(request.base_url))


@router.get("/api/deals/{did}")
async def deal(did: str, request: Request) -> dict[str, Any]:
    """A deal and everybody's results on it (names and outcomes, never cards)."""
    deals = _deals(request)
    d = deals.get(did[:24])
    if d is None:
        raise ApiError("no_deal", f"no deal {did!r}", 404)
    return _deal_json(deals, d, str(request.base_url))


@router.post("/api/deals/{did}/play")
async def play(did: str, req: PlayRequest, request: Request) -> dict[str, Any]:
    """A new table dealing exactly this deal: you at ``seat``, the deal's bots
    elsewhere; one hand (the session ends at its first loss)."""
    deals = _deals(request)
    d = deals.get(did[:24])
    if d is None:
        raise ApiError("no_deal", f"no deal {did!r}", 404)
    if d["deal"] is None:
        raise ApiError("deal_retired", "this deal was stored before deals kept their cards", 410)
    if deals.locked(d):
        raise ApiError(
            "deal_locked", "this deal can be played once the table it comes from has finished", 409
        )
    n = d["players"]
    if req.seat >= n:
        raise ApiError("bad_seat", f"seat {req.seat} does not exist with {n} players", 400)
    config = TableConfig(
        title=f"deal {d['id']}",
        seats=deals.seats_for(d, req.seat, req.bot),
        rules={**d["rules"], "loss_limit": 1},
        bot_delay_s=deals.bot_delay_s,
        listed=False,
    )
    players = getattr(request.app.state, "players", None)
    name: str = req.name
    user = None
    if players is not None:  # an account plays under its own name (as at /api/tables)
        user, name = players.seat_name(request, req.name, False)
    try:
        grant = deals.start(
            d, config, name, req.seat, str(request.base_url), client_key(request.scope)
        )
    except RateLimited:
        raise  # 429 with Retry-After (web/errors.py), never 400
    except TableError as e:
        raise ApiError(e.code, str(e), 400) from None
    if players is not None:
        players.table_created(grant, config, user)
    return {**grant.model_dump(), "deal_id": d["id"]}
