"""The one replay of a table's event log.

Both the replay endpoint (one view per stored event) and the session's hands
(the record download) walk the events on a fresh copy of the table; they share
:func:`iter_replay` so that the two can never disagree about what happened.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...core import State
from ..wire.events import DealEvent, TableEvent
from .game import TableGame


def iter_replay(game: TableGame) -> Iterator[tuple[TableEvent, TableGame]]:
    """Each stored event with the table as it stood right after it.

    The yielded table is one copy advanced in place: read it before asking for
    the next event.
    """
    copy = TableGame(game.table_id, game.config, game.seed, game.seats, game.created)
    for ev in list(game.events):
        copy.apply(ev)
        yield ev, copy


def session_hands(game: TableGame) -> list[State]:
    """Every hand's final (or current) state, in order."""
    out: list[State] = []
    for ev, copy in iter_replay(game):
        if copy.state is None:
            continue
        if isinstance(ev, DealEvent):
            out.append(copy.state)
        else:
            out[-1] = copy.state
    return out
