"""The end of a session: its summary (every hand's order of going out and
result, the standings) and the rematch, a next session with the same seats.

Why a rematch is a new table: a table is its event log, and a finished table
never changes.  The rematch table has the same configuration and the same bots;
each human of the old table takes *their own seat* there by asking with their
old seat token (``POST /api/tables/{old}/rematch``), so nobody swaps places by
accident.  The first to ask creates it; the others get ``{"type": "rematch",
"table_id": ...}`` on their sockets (players only) and join with one click.
The link from old to new table is stored (``sk_rematches``), so it survives a
restart.  The summary holds no card.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import HTMLResponse
from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from ...core import seat_name
from ..edge.guard import RateLimited, client_key
from ..edge.pages import page_shell
from ..storage.schema import rematches_t
from ..table.game import TableError, TableGame
from ..table.replay import session_hands
from ..wire.errors import ApiError
from ..wire.events import DealEvent
from ..wire.schemas import CreateTableRequest, JoinRequest, ServerRematch

router = APIRouter()


@router.get("/session", include_in_schema=False)
async def session_page() -> HTMLResponse:
    """The end-of-session page: standings, hands, rematch, chat."""
    return page_shell("session")


def _engine(request: Request) -> Engine:
    engine: Engine = request.app.state.hub.store.engine
    return engine


def rematch_of(engine: Engine, table_id: str) -> str | None:
    """The rematch table of a finished table, if one was started."""
    with engine.connect() as conn:
        row = conn.execute(select(rematches_t.c.new_id).where(rematches_t.c.old_id == table_id))
        got = row.scalar()
    return str(got) if got is not None else None


def summary(game: TableGame) -> dict[str, Any]:
    """Every hand's dealer, order of going out and result, and the standings."""
    hands = []
    deals = [ev for ev in game.events if isinstance(ev, DealEvent)]
    for i, st in enumerate(session_hands(game)):
        res = st.outcome
        hands.append(
            {
                "number": i + 1,
                "dealer": seat_name(deals[i].dealer),
                "outs": [[seat_name(s), kind] for s, kind in st.outs],
                "over": st.is_over,
                "loser": None if res is None or res.loser is None else seat_name(res.loser),
                "reason": None if res is None else res.termination.value,
                "turns": len(st.history()),
            }
        )
    sess = game.session
    rules = game.rules
    return {
        "table_id": game.table_id,
        "status": game.status,
        "over": sess.over,
        "mode": rules.session_mode,
        "target": rules.loss_limit if rules.session_mode == "losses" else rules.points_target,
        "hands": hands,
        "standings": [
            {
                "seat": seat_name(i),
                "name": game.seat_label(i),
                "kind": game.seats[i].kind,
                "losses": sess.losses[i],
                "points": sess.points[i],
            }
            for i in range(game.n)
        ],
        "winners": [seat_name(s) for s in (sess.winners or [])],
        "durak": None if sess.durak is None else seat_name(sess.durak),
    }


@router.get("/api/tables/{table_id}/summary")
async def table_summary(table_id: str, request: Request) -> dict[str, Any]:
    """The session so far (or at its end): hands, orders of going out, standings."""
    hub = request.app.state.hub
    live = hub.get(table_id)
    if live is None:
        raise ApiError("no_table", f"no table {table_id!r}", 404)
    await live.settled()  # committed before shown (a move being stored may yet lose)
    data = summary(live.game)
    data["rematch"] = rematch_of(_engine(request), table_id)
    return data


@router.post("/api/tables/{table_id}/rematch")
async def rematch(
    table_id: str,
    request: Request,
    token: str | None = None,
    x_seat_token: Annotated[str | None, Header()] = None,
) -> dict[str, Any]:
    """Take your own seat at the next session with the same seats (creating it
    if you are the first to ask)."""
    hub = request.app.state.hub
    live = hub.get(table_id)
    if live is None:
        raise ApiError("no_table", f"no table {table_id!r}", 404)
    tok = x_seat_token or token
    seat = hub.seat_of_token(live, tok)
    if seat is None:
        raise ApiError("bad_token", "only the table's players can ask for a rematch", 403)
    game: TableGame = live.game
    if not game.session.over:
        raise ApiError("session_running", "the session is not over yet", 409)
    engine = _engine(request)
    base = str(request.base_url)
    name = game.seats[seat].name or "player"
    new_id = rematch_of(engine, table_id)
    try:
        if new_id is None:
            config = game.config.model_copy(deep=True)
            grant = hub.create_table(
                CreateTableRequest(name=name, config=config),
                base,
                client_key(request.scope),
                seat=seat,
                purpose="rematch",
            )
            try:
                with engine.begin() as conn:
                    conn.execute(
                        insert(rematches_t).values(
                            old_id=table_id, new_id=grant.table_id, created=time.time()
                        )
                    )
            except IntegrityError:  # pragma: no cover - another process was first
                pass
            note = ServerRematch(table_id=grant.table_id, by=seat).model_dump_json()
            for conn_ in list(live.conns):
                if conn_.seat is not None:
                    conn_.send(note)  # through send: the socket's queue bound holds
        else:
            grant = hub.join(
                new_id, JoinRequest(name=name, seat=seat), base, client_key(request.scope)
            )
    except RateLimited:
        raise  # 429 with Retry-After (web/errors.py), never 400
    except TableError as e:
        raise ApiError(
            e.code, str(e), 409 if e.code in ("seat_taken", "table_full") else 400
        ) from None
    return grant.model_dump()  # type: ignore[no-any-return]
