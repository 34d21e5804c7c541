"""The views' caches (server/table/views.py, issue 26 item 6) change nothing: a
view's log, built incrementally from the entries of the table's earlier views,
equals the log built turn by turn from the observation, through several hands,
for every viewer, and when a view is asked for a hand without its ``by`` list;
the state message with the log's kept JSON put in is the very text of the
plain one, also when a title and a name spell the log's key."""

from __future__ import annotations

import random

from svoi_kozyri.core import format_cards, observe
from svoi_kozyri.server.table.game import SeatInfo, TableGame
from svoi_kozyri.server.table.views import LOG_LIMIT, hand_view, state_message, table_view
from svoi_kozyri.server.wire.schemas import ServerState, TableConfig


def naive_log(table: TableGame, viewer: int | None) -> list[dict[str, object]]:
    st = table.state
    assert st is not None
    history = observe(st, viewer).history
    start = max(0, len(history) - LOG_LIMIT)
    return [
        {
            "seat": seat,
            "move": str(move),
            "picked": format_cards(picked).split() if picked else [],
            "by": table.by[i] if i < len(table.by) else "player",
        }
        for i, (seat, move, picked) in enumerate(history[start:], start=start)
    ]


def test_incremental_log_equals_the_log_built_turn_by_turn() -> None:
    seats_cfg = [{"kind": "human"}, {"kind": "bot", "bot": "medium"}, {"kind": "human"}]
    # a title and a name that spell the log's key: the message must not be fooled
    cfg = TableConfig.model_validate({"seats": seats_cfg, "title": 'x"log":[]y'})
    seats = [
        SeatInfo("human", name='"log":[]', token_hash="x"),
        SeatInfo("bot", bot="medium"),
        SeatInfo("human", name="bob", token_hash="y"),
    ]
    table = TableGame("t1", cfg, 7, seats)
    rng = random.Random(3)
    checked = hands = 0
    for _turn in range(8000):  # at most 8,000 turns: a few hands
        if table.needs_deal():
            table.apply(table.make_deal(table.deal_rng()))
            hands += 1
        st = table.state
        assert st is not None and not st.is_over
        move = rng.choice(list(st.legal_moves()))
        by = rng.choice(["player", "bot", "standin", "timer"])
        pending = table.prepare_move(st.to_act, str(move), by=by)
        table.apply(pending.event, pending)
        if rng.random() < 0.01 or table.state.is_over:
            for viewer in (None, 0, 1, 2):
                view = table_view(table, viewer, [True] * 3, [False] * 3)
                assert view.hand is not None
                got = [e.model_dump() for e in view.hand.log]
                assert got == naive_log(table, viewer)
                # the message with its log put in as kept JSON: the same text
                plain = ServerState(view=view).model_dump_json()
                assert state_message(table, viewer, [True] * 3, [False] * 3) == plain
                checked += 1
        if table.session.over or hands >= 3:
            break
    assert checked > 50 and hands >= 2, (checked, hands)
    # a hand shown without its by list (the analysis page): every turn "player"
    st = table.state
    assert st is not None
    bare = hand_view(st, 0, table.hand_number, [], None)
    assert [e.by for e in bare.log] == ["player"] * len(bare.log)
    assert [e.move for e in bare.log] == [e["move"] for e in naive_log(table, 0)]
