"""Export a table's hands in the project's record format, for one viewer.

Each hand of the session becomes one record built by
``svoi_kozyri.records.GameRecord.from_state`` and written with
``write_record(rec, viewer=seat)``, which keeps only what that viewer may know
(a spectator, ``None``, gets the public record).  The full deck is never
written: at the end of a hand the loser's remaining cards stay private.
"""

from __future__ import annotations

from ..table.game import TableError, TableGame
from ..table.replay import session_hands


def export_records(game: TableGame, viewer: int | None) -> str:
    """All hands of the table's session as record text for ``viewer``."""
    from ... import records

    names = {i: game.seat_label(i) for i in range(game.n)}
    who = records.SPECTATOR if viewer is None else viewer
    out = []
    for number, state in enumerate(session_hands(game), start=1):
        rec = records.GameRecord.from_state(
            state,
            names=names,
            Event="Svoi Kozyri web",
            Site=f"table {game.table_id}",
            Hand=str(number),
        )
        out.append(records.write_record(rec, viewer=who))
    if not out:
        raise TableError("no_record", "no hand has been dealt at this table yet")
    return "\n".join(out)
