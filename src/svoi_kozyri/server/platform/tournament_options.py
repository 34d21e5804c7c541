"""A tournament's options: the checks of a new tournament's request, and the
operator's built-in schedules (``serve --tournament arena:hourly:4p``).

Kept apart from :mod:`.tournaments` so the command line can check a schedule
before anything starts, and so every refusal of bad options is in one place:
each names what is wrong (``tournament_bad``, ``tournament_bot``) and is raised
before anything is written."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .accounts import AccountError
from .tournament_director import PRESETS

MAX_AHEAD_S = 14 * 86400.0
"""A tournament starts at most two weeks ahead."""
START_SLACK_S = 5.0
"""A start time this far in the past is taken as "now" (clocks differ a little)."""
MAX_BOTS = 8


def refusal(code: str, message: str, status: int = 400) -> AccountError:
    """A refused tournament request (answered ``{"code", "message"}``)."""
    return AccountError(code, message, status)


def check_title(value: str) -> str:
    """A tournament's name, normalised (NFKC, single spaces), or ``tournament_bad``."""
    for ch in value:
        if unicodedata.category(ch)[0] == "C" or ch in "<>":
            raise refusal("tournament_bad", "a tournament's name cannot hold that character")
    name = " ".join(unicodedata.normalize("NFKC", value).split())
    if not 1 <= len(name) <= 40 or not any(ch.isalnum() for ch in name):
        raise refusal("tournament_bad", "a tournament's name has 1 to 40 characters")
    return name


class CreateTournament(BaseModel):
    """``POST /api/tournaments`` (an account)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)

    name: str = Field(max_length=80)
    kind: Literal["arena", "swiss"]
    players: int
    starts: float = Field(description="the start, in seconds since the epoch (UTC)")
    minutes: int | None = Field(default=None, description="an arena's length")
    rounds: int | None = Field(default=None, description="a Swiss tournament's rounds")
    rated: bool = False
    preset: str = Field(default="standard", max_length=24)
    bots: list[str] = Field(default_factory=list, max_length=MAX_BOTS)
    max_entries: int = 64


@dataclass(frozen=True)
class Options:
    """Checked options of a new tournament (or a built-in one)."""

    name: str
    kind: str
    players: int
    starts: float
    ends: float | None
    rounds: int | None
    rated: bool
    preset: str
    max_entries: int


def check_options(req: CreateTournament, now: float, bots: Sequence[str]) -> Options:
    """The request's options checked against each other and the clock, or a
    ``tournament_bad`` / ``tournament_bot`` refusal that names what is wrong."""
    name = check_title(req.name)
    if req.players not in (2, 3, 4):
        raise refusal("tournament_bad", "a table seats 2, 3 or 4 players")
    if not math.isfinite(req.starts) or req.starts < now - START_SLACK_S:
        raise refusal("tournament_bad", "the start time is in the past")
    if req.starts > now + MAX_AHEAD_S:
        raise refusal("tournament_bad", "a tournament starts within two weeks")
    ends: float | None = None
    rounds: int | None = None
    if req.kind == "arena":
        if req.rounds is not None or req.minutes is None or not 1 <= req.minutes <= 240:
            raise refusal("tournament_bad", "an arena lasts 1 to 240 minutes (and has no rounds)")
        ends = max(req.starts, now) + 60.0 * req.minutes
    else:
        if req.minutes is not None or req.rounds is None or not 1 <= req.rounds <= 15:
            raise refusal("tournament_bad", "a Swiss tournament has 1 to 15 rounds (and no length)")
        rounds = req.rounds
    if req.preset not in PRESETS:
        raise refusal("tournament_bad", f"the rules presets are {', '.join(PRESETS)}")
    if req.preset == "short" and req.players != 2:
        raise refusal("tournament_bad", "the short game is for two players")
    if not 2 <= req.max_entries <= 200:
        raise refusal("tournament_bad", "a tournament takes 2 to 200 entrants")
    for b in req.bots:
        if b not in bots:
            raise refusal("tournament_bot", f"there is no bot {b[:40]!r}")
    if len(set(req.bots)) != len(req.bots):
        raise refusal("tournament_bot", "each bot enters once")
    if len(req.bots) >= req.max_entries:
        raise refusal("tournament_bad", "leave places for people")
    return Options(
        name,
        req.kind,
        req.players,
        max(req.starts, now),
        ends,
        rounds,
        req.rated,
        req.preset,
        req.max_entries,
    )


# -- built-in scheduled tournaments ---------------------------------------------------

_SPEC = re.compile(r"^(arena|swiss):(hourly|daily|\d{1,4}m):([234])p(?::(\d{1,3})([mr]))?$")


@dataclass(frozen=True)
class Schedule:
    """A built-in tournament repeated every ``every_s`` (``serve --tournament``)."""

    spec: str
    kind: str
    every_s: float
    players: int
    minutes: int | None
    rounds: int | None

    def name(self) -> str:
        """The English name (the page words built-in ones from its catalogue)."""
        kind = "Arena" if self.kind == "arena" else "Swiss"
        return f"{kind} · {self.players} players"

    def slot(self, now: float) -> float:
        """The next start at or after ``now`` (a multiple of the period)."""
        return math.ceil(now / self.every_s) * self.every_s


def parse_schedule(spec: str) -> Schedule:
    """``KIND:EVERY:Np[:LENGTH]``: KIND ``arena`` or ``swiss``, EVERY ``hourly``,
    ``daily`` or minutes (``30m``), N the players per table, LENGTH an arena's
    minutes (``20m``, default 30 or the period if shorter) or Swiss rounds
    (``5r``, default 5).  ``ValueError`` names what is wrong.

    >>> parse_schedule("arena:hourly:4p").minutes
    30
    >>> parse_schedule("swiss:daily:2p:7r").rounds
    7
    """
    m = _SPEC.match(spec.strip())
    if m is None:
        raise ValueError(
            f"tournament schedule {spec!r}: write KIND:EVERY:Np[:LENGTH], "
            "e.g. arena:hourly:4p, arena:30m:2p:20m or swiss:daily:3p:5r"
        )
    kind, every, n, length, unit = m.groups()
    every_s = {"hourly": 3600.0, "daily": 86400.0}.get(every) or 60.0 * int(every[:-1])
    if every_s < 300:
        raise ValueError(f"tournament schedule {spec!r}: at most one every 5 minutes")
    if length is not None and unit != ("m" if kind == "arena" else "r"):
        raise ValueError(f"tournament schedule {spec!r}: an arena's length is in m, Swiss in r")
    if kind == "arena":
        minutes = int(length) if length else min(30, int(every_s // 60))
        if not 1 <= minutes <= min(240, every_s / 60):
            raise ValueError(f"tournament schedule {spec!r}: the arena outlasts its period")
        return Schedule(spec, kind, every_s, int(n), minutes, None)
    rounds = int(length) if length else 5
    if not 1 <= rounds <= 15:
        raise ValueError(f"tournament schedule {spec!r}: 1 to 15 rounds")
    return Schedule(spec, kind, every_s, int(n), None, rounds)
