"""Message and request schemas of the web protocol (pydantic).

Every message the server sends is one of the ``Server*`` models below and every
message it accepts is one of the ``Client*`` models; ``docs/protocol.md`` is
written from these.  Cards travel as project notation strings (``10H``, ``QS``),
moves as move notation (``beat 6D lead QS``, ``lead 9C``, ``beat AH``, ``pickup``).

The views are built only from one viewer's :class:`~svoi_kozyri.core.Observation`
(see :mod:`svoi_kozyri.server.table.views`), so a model here never carries a card the
viewer may not know.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from .names import MAX_MARKS, invisible, too_many_marks

MAX_MESSAGE_BYTES = 2048
"""Client WebSocket messages longer than this are refused unread."""

NAME_PATTERN = r"^[^\x00-\x1f<>]{1,24}$"
MAX_NAME = 24

_RESERVED_WORDS = frozenset(
    [
        "lose",
        "loses",
        "lost",
        "loser",
        "win",
        "wins",
        "won",
        "winner",
        "winners",
        "draw",
        "durak",
        "lead",
        "beat",
        "beats",
        "pickup",
        "pick",
        "bot",
        "bots",
        "spectator",
        "seat",
        "open",
        "hand",
        "turn",
        "timer",
        "standin",
        "stand-in",
    ]
)
_OPTION_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
"""A rules option's name (``pickup_rule``): the engine's options are all such words."""


def _encodable(text: str) -> bool:
    """Whether ``text`` is valid Unicode text (no lone surrogates)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_CARD_WORD = re.compile(r"^(?:[2-9]|10|[jqka])[shdc\u2660-\u2667]$")
_SEAT_WORD = re.compile(r"^[a-d]$")


def check_name(value: str) -> str:
    """A player's name, normalised (NFKC, single spaces), or ``ValueError``.

    Refused (issue 13, defect 7): control and format characters (the bidi
    overrides that reverse the rest of a lobby line, zero-width joiners), letters
    and marks that draw nothing (the Hangul filler, :func:`~.names.invisible`), lone
    surrogates, private-use and unassigned characters, ``<`` and ``>``; names
    that read like game text: a card (``10H KS``), a seat letter, or a word of
    the table's own messages (``A loses``, ``medium bot``, ``draw``), or a seat
    letter alone; more than :data:`~.names.MAX_MARKS` combining marks on one
    character (they draw over the lines around, issue 20).  Look-alike names
    (``аlice`` beside ``alice``) are refused where a name is compared with the
    others (:mod:`.names`, :meth:`.players.Players.seat_name`).
    """
    if not isinstance(value, str):
        raise ValueError("a name is text")
    for ch in value:
        cat = unicodedata.category(ch)
        if cat[0] == "C" or ch in "<>" or invisible(ch):
            raise ValueError(f"a name cannot contain the character U+{ord(ch):04X}")
    name = " ".join(unicodedata.normalize("NFKC", value).split())
    if not name or len(name) > MAX_NAME:
        raise ValueError(f"a name has 1 to {MAX_NAME} characters")
    if not any(ch.isalnum() for ch in name):
        raise ValueError("a name needs a letter or a digit")
    if too_many_marks(name):
        raise ValueError(f"a name has at most {MAX_MARKS} accents on one letter")
    words = name.casefold().replace(",", " ").replace(".", " ").split()
    if len(words) == 1 and _SEAT_WORD.match(words[0]):
        raise ValueError("a seat letter is not a name")
    for word in words:
        if _CARD_WORD.match(word) or word in _RESERVED_WORDS:
            raise ValueError(f"{word!r} reads like part of the game; choose another name")
    return name


PlayerName = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(check_name)]


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


Seconds = Annotated[float, AfterValidator(_finite)]


class _Strict(BaseModel):
    """Request and message schemas: unknown fields, wrong types ("2" for 2, 2.0
    for an integer, "yes" for true) and NaN or infinities are refused."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


# --------------------------------------------------------------------------- HTTP requests


class SeatConfig(_Strict):
    """One seat of a new table: a human player, or a bot of a given strength."""

    kind: Literal["human", "bot"] = "human"
    bot: str | None = Field(default=None, max_length=40)


class TableConfig(_Strict):
    """Everything chosen when a table is created.

    ``rules`` holds SPEC C9 options by name (validated by :class:`~svoi_kozyri.core.Rules`);
    ``num_players`` is the number of seats (a request that says otherwise is
    refused: :class:`CreateTableRequest`).
    """

    title: str = Field(default="", max_length=40)
    seats: list[SeatConfig] = Field(min_length=2, max_length=4)
    rules: dict[str, Any] = Field(default_factory=dict)
    grace_s: Seconds = Field(default=60.0, ge=0, le=3600)
    turn_timer_s: Seconds | None = Field(default=None, ge=1, le=3600)
    bot_delay_s: Seconds = Field(default=0.8, ge=0, le=30)
    hand_pause_s: Seconds = Field(default=3.0, ge=0, le=60)
    listed: bool = True
    rated: bool = Field(
        default=False,
        description="a rated table: every human seat needs an account; results change "
        "OpenSkill ratings (server/platform/ratings_service.py)",
    )

    @field_validator("rules")
    @classmethod
    def _plain_options(cls, v: dict[str, Any]) -> dict[str, Any]:
        """Option names are plain ASCII words and values plain scalars: a name or
        value is echoed in error messages, and a lone surrogate in a name used to
        make that answer fail to encode (a 500)."""
        if len(v) > 40:
            raise ValueError("too many rules options")
        for key, value in v.items():
            if not _OPTION_NAME.fullmatch(key):
                raise ValueError("unknown rules option")
            if isinstance(value, float) and not math.isfinite(value):
                raise ValueError(f"{key} must be a finite number")
            if not isinstance(value, str | int | float | bool | None):
                raise ValueError(f"{key} must be a number, text, true/false or null")
            if isinstance(value, str) and (len(value) > 40 or not _encodable(value)):
                raise ValueError(f"{key} must be a short text")
        return v


class CreateTableRequest(_Strict):
    """``POST /api/tables``: the creator's name and the table's configuration.

    ``config.rules.num_players`` may be left out (the seats say it); given, it must
    be the number of seats, as an integer (issue 20, item 10: it used to be
    replaced by the seat count without a word).  Checked here, on the request, not
    on :class:`TableConfig`: stored tables keep loading as they were created.
    """

    name: PlayerName
    config: TableConfig

    @model_validator(mode="after")
    def _player_count_is_the_seats(self) -> CreateTableRequest:
        rules = self.config.rules
        if "num_players" in rules:
            given, seats = rules["num_players"], len(self.config.seats)
            if type(given) is not int or given != seats:
                raise PydanticCustomError(
                    "num_players_mismatch",
                    "rules.num_players ({given}) is not the number of seats ({seats})",
                    {"given": repr(given)[:20], "seats": seats},
                )
        return self


class JoinRequest(_Strict):
    """``POST /api/tables/{id}/join``: take a free human seat."""

    name: PlayerName
    seat: int | None = Field(default=None, ge=0, le=3)


class SeatGrant(BaseModel):
    """The answer to create and join: the seat and its secret token.

    The token is shown once; the browser keeps it (localStorage) and presents it
    on every connection, so the seat survives reloads and lost connections.
    """

    table_id: str
    seat: int
    token: str
    invite_url: str


class LobbyEntry(BaseModel):
    """One table of the lobby listing."""

    table_id: str
    title: str
    status: str
    players: int
    free_seats: int
    seats: list[str]
    created: float
    named: bool = Field(default=False, description="the creator gave the table a title")
    host: str = Field(default="", description="name of the first human seat's player")
    bots: int = Field(default=0, description="number of bot seats")


# --------------------------------------------------------------------------- views


class SeatView(BaseModel):
    """What everybody sees about a seat."""

    seat: int
    letter: str
    name: str
    kind: Literal["human", "bot"]
    bot: str | None
    taken: bool
    connected: bool
    standin: bool = Field(description="a bot is playing for this absent player")
    suits: str = Field(description="owned (trump) suits, e.g. 'H' or 'SC'")
    hand_size: int
    known: list[str] = Field(description="cards publicly known to be in this hand")
    out: str | None = Field(description="'lead' or 'defence' once out of this hand")


class LogEntry(BaseModel):
    """One public turn of the current hand."""

    seat: int
    move: str
    picked: list[str] = Field(description="cards taken by a pickup (public: they lay face up)")
    by: str = Field(description="'player', 'bot', 'standin' or 'timer'")


class ResultView(BaseModel):
    """How a hand ended."""

    loser: int | None
    reason: str
    text: str


class HandView(BaseModel):
    """The current (or just finished) hand from one viewer's seat."""

    number: int
    dealer: int | None
    hand: list[str] = Field(description="the viewer's own cards, display order")
    open_hands: dict[int, list[str]] | None = Field(
        description="all hands, only in the open Besicovitch variant"
    )
    pile: list[str] = Field(description="visible part of the pile, bottom to top")
    pile_size: int
    pile_full: bool = Field(description="false when pile_visibility='table' hides the rest")
    top: str | None
    to_act: int | None
    mode: str | None
    legal: list[str] = Field(description="the viewer's legal moves (empty unless their turn)")
    pickup_count: int = Field(description="cards a refusal would take now")
    log: list[LogEntry] = Field(description="the latest turns of the hand (at most 100)")
    log_start: int = Field(description="index in the hand of the first turn in log")
    transfers: list[tuple[str, int, int]]
    result: ResultView | None
    deadline_s: float | None = Field(description="seconds until a bot moves for the seat to act")
    out_order: list[int] = Field(default=[], description="seats that went out, in that order")


class SessionView(BaseModel):
    """The score of the session."""

    mode: str
    target: int
    losses: list[int]
    points: list[int]
    hands: list[ResultView] = Field(description="results of the latest hands (at most 10)")
    hands_start: int = Field(description="number of the hand before the first in hands")
    hands_played: int = Field(description="hands finished so far")
    over: bool
    winners: list[int]
    durak: int | None


class TableView(BaseModel):
    """The whole table as one viewer sees it; sent after every change."""

    table_id: str
    title: str
    status: Literal["waiting", "playing", "between_hands", "finished"]
    closed: bool = Field(default=False, description="a moderator closed the table (finished)")
    version: int = Field(description="number of stored events; increases with every change")
    viewer: int | None = Field(description="the viewer's seat, null for a spectator")
    rules: dict[str, Any]
    turn_timer_s: float | None
    grace_s: float
    hand_pause_s: float = Field(default=0.0, description="pause between hands")
    paused: bool = Field(
        description="no human player is here: the table waits and nothing plays by itself"
    )
    seats: list[SeatView]
    hand: HandView | None
    session: SessionView


# --------------------------------------------------------------------------- WebSocket


class ClientHello(_Strict):
    """First message on a socket: a seat token, or none to watch as a spectator."""

    type: Literal["hello"]
    token: str | None = Field(default=None, max_length=100)


class ClientMove(_Strict):
    """Play a move.  With ``version`` the move is refused if the table has changed
    since that version (a stale click)."""

    type: Literal["move"]
    move: str = Field(max_length=40)
    version: int | None = Field(default=None, ge=0, le=1 << 62)


class ClientHint(_Strict):
    """Ask a bot what it would play from the viewer's seat."""

    type: Literal["hint"]


class ClientPing(_Strict):
    """Keep-alive; answered with a pong."""

    type: Literal["ping"]


class ClientChat(_Strict):
    """A table chat message (:mod:`.chat`): the whole frame is at most
    :data:`MAX_MESSAGE_BYTES` bytes like every message, the text after cleaning
    at most :data:`~.chat.MAX_CHARS` characters."""

    type: Literal["chat"]
    text: str = Field(max_length=MAX_MESSAGE_BYTES)


class ClientMute(_Strict):
    """Mute or unmute a seat's chat messages."""

    type: Literal["mute"]
    seat: int = Field(ge=0, le=3)
    muted: bool = True


class ClientChatHistory(_Strict):
    """Ask for the table chat's last messages."""

    type: Literal["chat_history"]


ChatMessage = ClientChat | ClientMute | ClientChatHistory
"""The chat's messages (answered by the chat, off the socket's reader)."""
TableMessage = ClientMove | ClientHint | ClientPing
"""The messages the table master answers."""
AnyClientMessage = ClientHello | TableMessage | ChatMessage
"""A validated client message (the members of :data:`ClientMessage`)."""

ClientMessage = Annotated[
    ClientHello
    | ClientMove
    | ClientHint
    | ClientPing
    | ClientChat
    | ClientMute
    | ClientChatHistory,
    Field(discriminator="type"),
]


class ServerWelcome(BaseModel):
    """Answer to hello: who the connection is."""

    type: Literal["welcome"] = "welcome"
    table_id: str
    seat: int | None
    name: str | None


class ServerState(BaseModel):
    """The table after a change."""

    type: Literal["state"] = "state"
    view: TableView


class ServerError(BaseModel):
    """A refused message; nothing changed."""

    type: Literal["error"] = "error"
    code: str
    message: str


ValueName = Literal["win", "draw", "loss"]


class HintRating(BaseModel):
    """How good a hinted move is, as data (``bots.rating.Rating``), so that every
    client words it in its own language and keeps "proven" apart from "estimated".

    ``kind`` ``proven``: ``value`` is settled by the exact solver.  ``estimated``:
    ``score`` (the chance of not being the durak, a draw counting one half) from
    ``samples`` sampled deals with its 95 % interval ``low``-``high``; ``at_least`` /
    ``at_best`` are proven bounds the solver found without settling the value.
    ``unrated``: no time to search (only the bounds, if any)."""

    kind: Literal["proven", "estimated", "unrated"]
    value: ValueName | None = None
    score: float
    low: float
    high: float
    samples: int
    source: str
    at_least: ValueName | None = None
    at_best: ValueName | None = None


class ServerHint(BaseModel):
    """A bot's suggestion for the viewer's move."""

    type: Literal["hint"] = "hint"
    move: str
    bot: str
    #: how good the move is, proven or estimated (structured; the client words it)
    rating: HintRating | None = None


class ServerPong(BaseModel):
    """Answer to ping."""

    type: Literal["pong"] = "pong"


class ServerChat(BaseModel):
    """A table chat message, sent to the table's players (never to spectators)
    except those who muted its writer."""

    type: Literal["chat"] = "chat"
    seat: int
    name: str
    text: str
    at: float
    id: int | None = Field(default=None, description="the message's id (to report it)")
    removed: bool = Field(
        default=False, description="a moderator removed message ``id``: drop it (text empty)"
    )


class ServerChatHistory(BaseModel):
    """The table chat's last messages (oldest first) without the muted seats'
    messages, and the seats the receiver has muted."""

    type: Literal["chat_history"] = "chat_history"
    messages: list[ServerChat]
    muted: list[int]


class ServerChatMutes(BaseModel):
    """The seats the receiver has muted, after a mute or unmute."""

    type: Literal["chat_mutes"] = "chat_mutes"
    muted: list[int]


class ServerRematch(BaseModel):
    """A player of a finished table started its rematch table (``by``, a seat)."""

    type: Literal["rematch"] = "rematch"
    table_id: str
    by: int


ServerMessage = Annotated[
    ServerWelcome
    | ServerState
    | ServerError
    | ServerHint
    | ServerPong
    | ServerChat
    | ServerChatHistory
    | ServerChatMutes
    | ServerRematch,
    Field(discriminator="type"),
]
"""Every message the server sends on a table's socket, told apart by ``type``
(``docs/protocol.md``; the client's JSDoc types in ``web/static/wire.js``)."""
