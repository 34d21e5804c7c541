"""The events of a table's log, typed: one discriminated union read and written
through one :class:`~pydantic.TypeAdapter`.

A table is its configuration plus an append-only list of these events
(:mod:`svoi_kozyri.server.table.game` replays them).  They used to travel as
``dict[str, Any]``: every reader re-checked ``event["kind"]`` and converted
fields by hand, and a misspelt key was a silent ``KeyError`` at replay time.
Now the storage boundary is the only place where JSON becomes an event
(:func:`event_from_data`, used when rows are read back and when a shared deal's
stored event is copied) and an event becomes JSON (:func:`event_data`), and the
rest of the server reads typed attributes.

The models are frozen: an event in the log is history.  Unknown fields are
refused, so a row written by a newer server is an error (``bad_event``) rather
than half read; a new event kind is added here, with its migration if old rows
need one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class DealEvent(_Event):
    """Starts a hand from an explicit deck order and suit ownership (the seed
    that drew them never leaves the server, and is not stored here)."""

    kind: Literal["deal"] = "deal"
    dealer: int = Field(ge=0, le=3)
    deck: list[int]
    owners: list[int]
    pairs: list[int] | None = None


class MoveEvent(_Event):
    """One accepted turn, in move notation (``beat 6D lead QS``)."""

    kind: Literal["move"] = "move"
    seat: int = Field(ge=0, le=3)
    move: str = Field(min_length=1, max_length=40)
    by: str = Field(default="player", max_length=16)  # player, bot, a stand-in, the timer


class CloseEvent(_Event):
    """A moderator ended the table (platform/moderation.py): no more deals or moves."""

    kind: Literal["close"] = "close"
    by: str = "moderator"


TableEvent = Annotated[DealEvent | MoveEvent | CloseEvent, Field(discriminator="kind")]
"""Any event of a table's log."""

EVENTS: TypeAdapter[DealEvent | MoveEvent | CloseEvent] = TypeAdapter(TableEvent)
"""Reads and writes every event (``validate_python`` / ``dump_python``)."""


class EventError(ValueError):
    """A stored or offered event is not a valid event of any kind."""


def event_from_data(data: Any) -> DealEvent | MoveEvent | CloseEvent:
    """The typed event of a stored JSON object (a row's ``data`` column).

    Raises :class:`EventError` naming the problem, never a bare ``KeyError``."""
    try:
        return EVENTS.validate_python(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "event"
        raise EventError(f"not a table event ({where}: {first['msg']})") from None


def event_data(event: DealEvent | MoveEvent | CloseEvent) -> dict[str, Any]:
    """The JSON object stored for ``event`` (what :func:`event_from_data` reads)."""
    data: dict[str, Any] = EVENTS.dump_python(event, mode="json")
    return data
