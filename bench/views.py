"""The cost of a table's state message (server/table/views.py, issue 26 item 6).

Plays a two-seat table with random legal moves to ``--turns`` turns of a hand
(the view carries at most the last 100), then times, in the same run:

* ``plain``: ``ServerState(view=table_view(...)).model_dump_json()``, every log
  entry validated and serialised in each message (the entries' objects are
  kept already: before issue 26 each was also built anew, about 4 us more each);
* ``message``: ``state_message(...)``, the broadcast's way, with the log's JSON
  kept with its entries and put in place (the same text: checked here too).

    .venv/bin/python bench/views.py --turns 30 --turns 100

Prints JSON: microseconds per message of each and their ratio.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import timeit
from typing import Any

from svoi_kozyri.server.table.game import SeatInfo, TableGame
from svoi_kozyri.server.table.views import state_message, table_view
from svoi_kozyri.server.wire.schemas import ServerState, TableConfig


def table_at(turns: int, seed: int = 1) -> TableGame:
    """A two-seat table (a player and a ``medium`` bot) whose hand has ``turns`` turns."""
    cfg = TableConfig.model_validate(
        {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "medium"}], "rules": {}}
    )
    seats = [SeatInfo("human", name="ann", token_hash="x"), SeatInfo("bot", bot="medium")]
    rng = random.Random(seed)
    for attempt in range(1000):
        table = TableGame(f"t{attempt}", cfg, seed + attempt, list(seats))
        table.apply(table.make_deal(table.deal_rng()))
        st = table.state
        while st is not None and not st.is_over and len(table.by) < turns:
            move = rng.choice(list(st.legal_moves()))
            pending = table.prepare_move(st.to_act, str(move))
            table.apply(pending.event, pending)
            st = table.state
        if st is not None and not st.is_over:
            return table
    raise RuntimeError(f"no hand lasted {turns} turns")


def measure(turns: int, rounds: int, number: int) -> dict[str, Any]:
    """Median microseconds per message of both ways over ``rounds`` rounds."""
    table = table_at(turns)
    args = (table, 0, [True, True], [False, False], None, False)

    def plain() -> str:
        return ServerState(view=table_view(*args)).model_dump_json()

    def message() -> str:
        return state_message(*args)

    text = plain()
    if message() != text:
        raise AssertionError("state_message differs from the plain message")
    times: dict[str, list[float]] = {"plain": [], "message": []}
    for _ in range(rounds):  # alternating, so both meet the same machine
        for name, fn in (("plain", plain), ("message", message)):
            times[name].append(timeit.timeit(fn, number=number) / number * 1e6)
    p, m = statistics.median(times["plain"]), statistics.median(times["message"])
    return {
        "turns": len(table.by),
        "log_entries": min(len(table.by), 100),
        "bytes": len(text),
        "plain_us": round(p, 1),
        "message_us": round(m, 1),
        "ratio_plain_to_message": round(p / m, 2),
    }


def main(argv: list[str] | None = None) -> None:
    """Parse the options, measure, print JSON."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, action="append", help="turns of the hand (30, 100)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--number", type=int, default=500, help="messages per timing")
    args = ap.parse_args(argv)
    out = [measure(t, args.rounds, args.number) for t in args.turns or [30, 100]]
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
