"""The wire format of the engine protocol (``docs/engine-protocol.md``): move
tokens, the ``position`` request built from one player's observation and read
back into an equal observation, ``go`` limits, and the engine's answers.

Why a module of its own: the server (``svoi-kozyri engine BOT``), the client
library and the conformance test must agree on every token, and a round trip
``parse_position_request(format_position_request(obs)) == obs`` is the test
that the request holds the player's whole information state and nothing more.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..core import (
    OVER,
    PHASE_NAMES,
    SEAT_LETTERS,
    Card,
    CardSet,
    MalformedError,
    Move,
    Observation,
    Outcome,
    OutKind,
    PositionError,
    format_card,
    mask_of,
    parse_card,
    seat_name,
)
from ..core.moves import decode_log_entry
from ..notation.position import (
    format_cards_compact,
    format_observation,
    parse_cards_compact,
    parse_game,
    parse_result,
)

#: The protocol version this library speaks (the ``ske`` handshake).
PROTOCOL_VERSION = 1

#: The keywords of a ``position`` request, in the order the library writes them.
#: ``legal`` is always sent and always the last field: every word after it, up to
#: the end of the line, is a legal move (a later revision adds its fields before it).
POSITION_KEYWORDS = ("seat", "pos", "mine", "dealer", "cards", "transfers", "history", "legal")

#: The longest command line a client sends, in bytes without the newline (1 MiB).
#: An engine may size its input buffer by it; the client refuses to send a longer
#: line and the built-in engine server ignores one with an ``info string error``.
#: A position request is a few kilobytes; the longest possible one (a hand at the
#: default cap of 20 000 turns, every turn in ``history``) stays below it.
MAX_REQUEST_LINE_BYTES = 1 << 20

#: The keywords of a ``go`` request that take a value.
GO_VALUE_KEYWORDS = ("movetime", "nodes", "seed")


class ProtocolError(MalformedError):
    """A protocol line that cannot be understood (bad move token, bad position)."""


class RequestTooLongError(ProtocolError):
    """A command line longer than :data:`MAX_REQUEST_LINE_BYTES`: the client does not
    send it, the built-in engine server ignores it."""


def request_size(line: str) -> int:
    """The size the limit counts: ``line``'s bytes in UTF-8 without its line end."""
    return len(line.rstrip("\r\n").encode("utf-8", errors="replace"))


def check_request_length(line: str) -> None:
    """Raise :class:`RequestTooLongError` if ``line`` (without its newline) is longer
    than :data:`MAX_REQUEST_LINE_BYTES` bytes in UTF-8."""
    size = request_size(line)
    if size > MAX_REQUEST_LINE_BYTES:
        word = line[:20].split(" ", 1)[0]
        raise RequestTooLongError(
            f"a {word!r} line of {size} bytes is longer than the protocol's limit of "
            f"{MAX_REQUEST_LINE_BYTES} bytes (MAX_REQUEST_LINE_BYTES)"
        )


# --------------------------------------------------------------------------- moves


def _card_token(c: Card) -> str:
    return format_card(c, ten="T")


def format_move_token(move: Move) -> str:
    """A move as one token: ``pickup``, ``lead-8H``, ``beat-6D-lead-QS``, ``beat-KH``
    (the move notation with ``-`` for spaces and ``T`` for ten)."""
    if move.beat is None:
        return "pickup" if move.lead is None else f"lead-{_card_token(move.lead)}"
    if move.lead is None:
        return f"beat-{_card_token(move.beat)}"
    return f"beat-{_card_token(move.beat)}-lead-{_card_token(move.lead)}"


def parse_move_token(text: str) -> Move:
    """Read a move token, or a move in the ordinary notation (``beat 6D lead QS``);
    raises :class:`ProtocolError` naming the token."""
    words = re.split(r"[-\s]+", text.strip())
    try:
        return Move.parse(" ".join(words))
    except ValueError:
        raise ProtocolError(
            f"bad move {text!r}: expected pickup, lead-X, beat-X-lead-Y or beat-X"
        ) from None


# --------------------------------------------------------------------------- position


def encode_log_entry(seat: int, move: Move, taken: CardSet) -> int:
    """One public turn in the observation's log format (the inverse of
    :func:`~svoi_kozyri.core.moves.decode_log_entry`)."""
    beat = 0 if move.beat is None else move.beat + 1
    lead = 0 if move.lead is None else move.lead + 1
    return seat | beat << 2 | lead << 8 | taken << 14


def _history_token(entry: int) -> str:
    seat, move, taken = decode_log_entry(entry)
    tok = f"{seat_name(seat)}:{format_move_token(move)}"
    if move.is_pickup:
        tok += ":" + format_cards_compact(taken)
    return tok


def format_position_request(obs: Observation) -> str:
    """The ``position`` line for the player ``obs.seat``, whose turn it is.

    It holds exactly what that player knows: the public position with their own
    hand (others as publicly known cards plus ``?N``), which of their own cards the
    others know (``mine``), the dealer, the cards in play when not the whole deck,
    the sixes transfers they saw, the public history, and their legal moves, always
    last (``legal`` ends the line, even when no move is legal).
    """
    if obs.seat is None:
        raise ValueError("an engine plays a seat; a spectator's view cannot be sent")
    fields = format_observation(obs).split()
    if len(fields) == 8:
        fields.append("-")
    parts = ["position", "seat", seat_name(obs.seat), "pos", *fields]
    mine = obs.known[obs.seat] & obs.hand
    parts += ["mine", format_cards_compact(mine)]
    if obs.dealer is not None:
        parts += ["dealer", seat_name(obs.dealer)]
    if obs.in_play and obs.in_play != obs.game.deck:
        parts += ["cards", format_cards_compact(obs.in_play)]
    if obs.transfers:
        parts.append("transfers")
        parts += [f"{_card_token(c)}:{seat_name(a)}:{seat_name(b)}" for c, a, b in obs.transfers]
    if obs.log:
        parts.append("history")
        parts += [_history_token(e) for e in obs.log]
    parts.append("legal")  # always sent, always last: its moves run to the end
    parts += [format_move_token(m) for m in obs.legal_moves()]
    return " ".join(parts)


def _seat(text: str, n: int, what: str) -> int:
    t = text.upper()
    if len(t) != 1 or t not in SEAT_LETTERS[:n]:
        raise ProtocolError(f"{what}: {text!r} is not a seat ({', '.join(SEAT_LETTERS[:n])})")
    return SEAT_LETTERS.index(t)


#: What follows each ``position`` keyword: a fixed number of values, a list of
#: entries of one shape (a token of another shape ends the list; ``transfers`` and
#: ``history`` entries always hold a ``:``, keywords never do), or ``None``: ``legal``,
#: whose moves run to the end of the line (:func:`parse_position_request` splits
#: the line at ``legal`` before it reads the other keywords).
POSITION_FIELDS: dict[str, int | re.Pattern[str] | None] = {
    "seat": 1,
    "pos": 9,
    "mine": 1,
    "dealer": 1,
    "cards": 1,
    "transfers": re.compile(r"[^:\s]+:[A-Da-d]:[A-Da-d]"),
    "history": re.compile(r"[A-Da-d]:[^:\s]+(:[^:\s]+)?"),
    "legal": None,
}


def split_keywords(
    tokens: Sequence[str], fields: Mapping[str, int | re.Pattern[str] | None]
) -> dict[str, list[str]]:
    """Group ``tokens`` under the keyword before them.  A keyword takes its fixed
    number of values, or the entries of its list shape (``None``: every token up to
    the next keyword).  Any other token is an unknown keyword, skipped with what
    follows it up to the next known keyword, so fields a newer revision adds are
    ignored."""
    out: dict[str, list[str]] = {}
    current: list[str] | None = None
    shape: int | re.Pattern[str] | None = None
    for tok in tokens:
        if tok in fields:
            current = out.setdefault(tok, [])
            shape = fields[tok]
            continue
        if current is None:
            continue
        if shape is None:
            current.append(tok)
        elif isinstance(shape, int):
            if len(current) < shape:
                current.append(tok)
            else:
                current = None  # an unknown keyword: skip to the next known one
        elif shape.fullmatch(tok):
            current.append(tok)
        else:
            current = None
    return out


@dataclass(frozen=True)
class PositionRequest:
    """A parsed ``position`` line: the observation and the legal moves listed."""

    obs: Observation
    legal: tuple[Move, ...]


def parse_position_request(line: str) -> PositionRequest:
    """Read a ``position`` line back into the player's :class:`Observation`.

    Raises :class:`ProtocolError` (or a :class:`PositionError`) saying what is wrong.
    Unknown keywords (from a newer protocol revision) are skipped with their values;
    ``legal`` is the last field, so every word after it must be a move.
    """
    tokens = line.split()
    if not tokens or tokens[0] != "position":
        raise ProtocolError("a position request starts with 'position'")
    end = tokens.index("legal") if "legal" in tokens else len(tokens)
    kw = split_keywords(tokens[1:end], POSITION_FIELDS)
    pos = kw.get("pos")
    if pos is None or len(pos) not in (8, 9):
        raise ProtocolError("position: 'pos' must be followed by the 9 fields of a position")
    if len(pos) == 8:
        pos = [*pos, "-"]
    game = parse_game(pos[0], pos[8])
    n = game.n
    seat_tok = kw.get("seat")
    if not seat_tok:
        raise ProtocolError("position: 'seat' (the seat the engine plays) is missing")
    seat = _seat(seat_tok[0], n, "seat")
    besicovitch = game.rules.is_besicovitch

    hands, known, sizes = _request_hands(pos[1], n, seat, besicovitch)
    try:
        pile = parse_cards_compact(pos[2], "pile")
        discard = mask_of(parse_cards_compact(pos[6], "discard"))
    except ValueError as e:
        raise ProtocolError(f"position: {e}") from None
    result: Outcome | None = None
    mode = pos[4].lower()
    if mode in ("free", "respond", "lead"):
        phase = PHASE_NAMES.index(mode)
        to_act: int | None = _seat(pos[3], n, "to act")
    else:
        result = parse_result(pos[4], n)
        phase, to_act = OVER, None
    outs = _request_outs(pos[5], n)
    if not pos[7].isdigit():
        raise ProtocolError(f"position: bad turn counter {pos[7]!r}")
    if not besicovitch:
        mine = kw.get("mine", ["-"])
        try:
            known[seat] = mask_of(parse_cards_compact(mine[0] if mine else "-", "mine"))
        except ValueError as e:
            raise ProtocolError(f"position: {e}") from None
        if known[seat] & ~hands[seat]:
            raise ProtocolError("position: 'mine' lists cards that are not in the hand")
    dealer_tok = kw.get("dealer")
    dealer = _seat(dealer_tok[0], n, "dealer") if dealer_tok else None
    cards_tok = kw.get("cards")
    try:
        in_play = mask_of(parse_cards_compact(cards_tok[0], "cards")) if cards_tok else game.deck
    except ValueError as e:
        raise ProtocolError(f"position: {e}") from None
    transfers = _request_transfers(kw.get("transfers", []), n)
    log = _request_history(kw.get("history", []), n)
    legal = _request_legal(tokens[end + 1 :])
    obs = Observation(
        game=game,
        seat=seat,
        hands=tuple(hands),
        hand_sizes=tuple(sizes),
        known=tuple(known),
        pile=tuple(pile),
        discard=discard,
        to_act=to_act,
        phase=phase,
        outs=tuple((s, OutKind(k)) for s, k in outs),
        outcome=result,
        turns=int(pos[7]),
        log=tuple(log),
        transfers=tuple(transfers),
        dealer=dealer,
        in_play=in_play,
    )
    return PositionRequest(obs, legal)


def _request_hands(
    field: str, n: int, seat: int, besicovitch: bool
) -> tuple[list[CardSet], list[CardSet], list[int]]:
    """The hands field of a request: the hands the engine may see (its own, or all
    in the Besicovitch game), the publicly known cards of each seat and every
    hand's size (listed cards plus ``?N`` hidden ones).

    Why apart: the one field that mixes the engine's own cards with the other
    seats' public ones, each written ``CARDS?N``."""
    parts = field.split("/")
    if len(parts) != n:
        raise ProtocolError(f"position: {len(parts)} hands for {n} seats")
    hands: list[CardSet] = [0] * n
    known: list[CardSet] = [0] * n
    sizes: list[int] = [0] * n
    for i, part in enumerate(parts):
        cards_txt, q, hidden_txt = part.partition("?")
        if q and (i == seat or besicovitch):
            raise ProtocolError(f"position: seat {seat_name(i)}'s own hand cannot be hidden")
        if q and not hidden_txt.isdigit():
            raise ProtocolError(f"position: bad hidden count in {part!r}")
        try:
            cards = mask_of(parse_cards_compact(cards_txt or "-", f"seat {seat_name(i)}'s hand"))
        except ValueError as e:
            raise ProtocolError(f"position: {e}") from None
        hidden = int(hidden_txt) if q else 0
        sizes[i] = cards.bit_count() + hidden
        if i == seat or besicovitch:
            hands[i] = cards
            known[i] = cards if besicovitch else 0
        else:
            known[i] = cards
    return hands, known, sizes


def _request_outs(field: str, n: int) -> list[tuple[int, str]]:
    """The outs field (``Bd,Dl``): the seats out, in order, and how they went out."""
    outs: list[tuple[int, str]] = []
    if field != "-":
        for item in field.split(","):
            if len(item) != 2 or item[1] not in "dlDL":
                raise ProtocolError(f"position: bad out {item!r} (e.g. Bd,Dl)")
            outs.append((_seat(item[0], n, "outs"), "defence" if item[1] in "dD" else "lead"))
    return outs


def _request_transfers(tokens: list[str], n: int) -> list[tuple[Card, int, int]]:
    """The ``transfers`` entries (``CARD:FROM:TO``): the sixes handed over at the deal."""
    transfers: list[tuple[Card, int, int]] = []
    for tok in tokens:
        bits = tok.split(":")
        if len(bits) != 3:
            raise ProtocolError(f"position: bad transfer {tok!r} (CARD:FROM:TO)")
        try:
            c = parse_card(bits[0])
        except ValueError as e:
            raise ProtocolError(f"position: {e}") from None
        transfers.append((c, _seat(bits[1], n, "transfer"), _seat(bits[2], n, "transfer")))
    return transfers


def _request_history(tokens: list[str], n: int) -> list[int]:
    """The ``history`` entries (``SEAT:MOVE[:TAKEN]``) as the engine's log entries."""
    log: list[int] = []
    for tok in tokens:
        bits = tok.split(":")
        if len(bits) not in (2, 3):
            raise ProtocolError(f"position: bad history entry {tok!r} (SEAT:MOVE[:TAKEN])")
        s = _seat(bits[0], n, "history")
        move = parse_move_token(bits[1])
        try:
            taken = mask_of(parse_cards_compact(bits[2], "taken")) if len(bits) == 3 else 0
        except ValueError as e:
            raise ProtocolError(f"position: {e}") from None
        log.append(encode_log_entry(s, move, taken))
    return log


def _request_legal(tokens: list[str]) -> tuple[Move, ...]:
    """The moves after ``legal``: the rest of the line, every word a move token."""
    legal: list[Move] = []
    for tok in tokens:
        try:
            legal.append(parse_move_token(tok))
        except ProtocolError as e:
            raise ProtocolError(
                f"position: 'legal' is the last field, every word after it is a move: {e}"
            ) from None
    return tuple(legal)


# --------------------------------------------------------------------------- go


@dataclass(frozen=True)
class GoRequest:
    """A parsed ``go`` line: ``movetime`` (ms), ``nodes``, ``infinite``, ``seed``."""

    movetime: int | None = None
    nodes: int | None = None
    infinite: bool = False
    seed: int | None = None


def format_go(
    movetime: float | None = None,
    nodes: int | None = None,
    infinite: bool = False,
    seed: int | None = None,
) -> str:
    """The ``go`` line for these limits (milliseconds are rounded up)."""
    parts = ["go"]
    if movetime is not None:
        parts += ["movetime", str(max(1, int(-(-movetime // 1))))]
    if nodes is not None:
        parts += ["nodes", str(int(nodes))]
    if infinite:
        parts.append("infinite")
    if seed is not None:
        parts += ["seed", str(int(seed))]
    return " ".join(parts)


def parse_go(line: str) -> GoRequest:
    """Read a ``go`` line; unknown words are ignored, bad numbers raise
    :class:`ProtocolError`."""
    tokens = line.split()[1:]
    vals: dict[str, int] = {}
    infinite = False
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok in GO_VALUE_KEYWORDS and i + 1 < len(tokens):
            try:
                vals[tok] = int(tokens[i + 1])
            except ValueError:
                raise ProtocolError(
                    f"go: {tok} needs a whole number, not {tokens[i + 1]!r}"
                ) from None
            if vals[tok] < (0 if tok == "seed" else 1):
                raise ProtocolError(f"go: {tok} must be positive, not {vals[tok]}")
            i += 2
            continue
        if tok == "infinite":
            infinite = True
        i += 1
    return GoRequest(vals.get("movetime"), vals.get("nodes"), infinite, vals.get("seed"))


__all__ = [
    "GO_VALUE_KEYWORDS",
    "MAX_REQUEST_LINE_BYTES",
    "POSITION_FIELDS",
    "POSITION_KEYWORDS",
    "PROTOCOL_VERSION",
    "GoRequest",
    "PositionError",
    "PositionRequest",
    "ProtocolError",
    "RequestTooLongError",
    "check_request_length",
    "format_go",
    "format_move_token",
    "format_position_request",
    "parse_go",
    "parse_move_token",
    "parse_position_request",
    "split_keywords",
]
