"""Game records: whole hands as text (like chess PGN), one or many per file.

A record is tag lines, then the turns, then the result token::

    [Event "Club night"]
    [Date "2026.11.29"]
    [Players "4"]
    [Owners "C/D/H/S"]
    [Names "A=alice,B=heuristic,C=random,D=bob"]
    [Dealer "D"]
    [Deck "KS 8H ... (every card, top first)"]
    [Result "loser B"]

    1. A: lead 8H
    2. B: beat 6D lead QS
    3. C: beat 6H lead 9D
    4. D: pickup {takes 9D 6H QS}
    loser B

The start is either a deal (``Dealer`` and ``Deck``) or a position
(``Position``, in :mod:`svoi_kozyri.notation.position` notation).  Turns use the
project's move notation (``Move.__str__``/``Move.parse``); ``{...}`` and ``;`` to
the end of a line are comments.  The result token is ``loser B``,
``loser B action_cap``, ``draw last_card``/``repetition``/``action_cap``, or
``*`` for an unfinished hand.  Several records may follow each other (a session).

Replaying checks every turn and the result against the engine; a malformed or
inconsistent record raises :class:`RecordError` naming the line and turn.

A record written for one viewer (``write_record(rec, viewer=seat)``) keeps only
what that viewer may know (SPEC A15): no deck, and a ``Position`` tag with the
start as that viewer saw it (own hand, other hands as publicly known cards plus
``?N`` unknown ones).  Turns and pickups are public, so they are all kept.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from urllib.parse import unquote

from .core import (
    LEAD,
    RESPOND,
    Card,
    CardError,
    Game,
    IllegalMoveError,
    MalformedError,
    Move,
    Outcome,
    PositionError,
    RulesError,
    State,
    format_card,
    format_cards,
    observe,
    parse_card,
    parse_card_list,
    parse_seat,
    seat_name,
)
from .notation.position import (
    format_observation,
    format_owners,
    format_position,
    format_rules,
    parse_cards_compact,
    parse_game,
    parse_position,
)

__all__ = [
    "SPECTATOR",
    "STRUCTURAL_TAGS",
    "GameRecord",
    "RecordError",
    "format_result_token",
    "parse_record",
    "parse_records",
    "read_records",
    "write_record",
    "write_records",
]

#: ``viewer`` value for a record fit for a spectator: every hand hidden.
SPECTATOR = -1

#: Tags the record's fields produce; the rest of ``GameRecord.tags`` is free-form.
STRUCTURAL_TAGS = (
    "Players",
    "Rules",
    "Owners",
    "Names",
    "Dealer",
    "Deck",
    "Position",
    "Viewer",
    "Result",
)
_LEADING_TAGS = ("Event", "Site", "Date", "Round", "Hand")
_TAG_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class RecordError(MalformedError):
    """A game record is malformed, or its turns or result do not replay."""


# --------------------------------------------------------------------------- results


def format_result_token(result: Outcome | None) -> str:
    """``loser B``, ``loser B action_cap``, ``draw last_card``, or ``*`` (unfinished)."""
    if result is None:
        return "*"
    return result.result()


def _parse_result_words(words: Sequence[str], n: int) -> Outcome | None:
    """The result of a token such as ``['loser', 'B']``; raises ValueError."""
    if [w.lower() for w in words] == ["*"]:
        return None
    try:
        return Outcome.parse(" ".join(words), n)
    except MalformedError as e:
        raise ValueError(f"{e} or *") from None


# --------------------------------------------------------------------------- the record


@dataclass
class GameRecord:
    """One hand: how it started, the turns played, and how it ended.

    The start is a deal (``dealer`` and ``deck``, top card first) or a
    ``position`` in position notation.  A record read from a viewer-safe file
    has ``viewer`` set and a public ``position`` with hidden hands (``?N``); it
    cannot be replayed.  ``pending`` is a beat already played by the seat to act
    whose lead is still to come (a hand stopped mid-turn).  ``tags`` holds the
    free-form tags (Event, Date, Hand, session tags...); the structural ones
    (:data:`STRUCTURAL_TAGS`) come from the other fields.
    """

    game: Game
    moves: list[tuple[int, Move]] = field(default_factory=list)
    dealer: int | None = None
    deck: tuple[Card, ...] | None = None
    position: str | None = None
    result: Outcome | None = None
    names: dict[int, str] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    pending: Card | None = None
    viewer: int | None = None
    lines: list[int] = field(default_factory=list, repr=False, compare=False)
    pending_seat: int | None = field(default=None, repr=False, compare=False)
    #: Comments by position: key ``i`` holds the comments after the ``i``-th turn
    #: (``0``: before the first).  Kept through a read and a write.
    comments: dict[int, list[str]] = field(default_factory=dict, repr=False, compare=False)
    #: Annotation glyphs or NAGs (``!``, ``?!``, ``$4``) of the ``i``-th turn (1-based).
    annotations: dict[int, str] = field(default_factory=dict, repr=False, compare=False)
    #: The ``{takes ...}`` comments read from a file, by turn (1-based): a record for
    #: one viewer cannot be replayed to regenerate them, so they are kept as read.
    takes: dict[int, str] = field(default_factory=dict, repr=False, compare=False)

    # -- building ----------------------------------------------------------------

    @classmethod
    def from_state(
        cls,
        state: State,
        names: dict[int, str] | None = None,
        start: State | str | None = None,
        **tags: str,
    ) -> GameRecord:
        """The record of the hand that led to ``state`` (its origin and history).

        The start comes from the state (its deal or start position); ``start``
        (a state or position notation) overrides it.
        """
        for key in tags:
            _check_tag_name(key)
        origin = state.origin
        history = state.history()
        rec = cls(
            game=state.game,
            moves=[(seat, move) for seat, move, _ in history],
            result=state.outcome,
            names=dict(names or {}),
            tags=dict(tags),
        )
        for seat in rec.names:
            if not 0 <= seat < state.n:
                raise RecordError(f"names: seat {seat} does not exist with {state.n} players")
        if start is not None:
            rec.position = start if isinstance(start, str) else format_position(start)
        elif origin.deck is not None:
            assert origin.dealer is not None
            rec.dealer, rec.deck = origin.dealer, tuple(origin.deck)
        else:
            rec.position = format_position(state.start_state())
        try:
            replayed = rec.start_state()
        except RecordError as e:
            raise RecordError(f"start: {e}") from None
        if replayed.game != state.game:
            raise RecordError("start: the start position is of another game (rules or owners)")
        rec.lines = [0] * len(rec.moves)
        try:
            final = _walk(rec, replayed, check_result=False)
        except RecordError as e:
            raise RecordError(f"the start and the history do not lead to this state: {e}") from None
        if final.phase == RESPOND and state.phase == LEAD and state.top is not None:
            rec.pending, rec.pending_seat = state.top, state.to_act
            try:
                final.apply_action(state.top)
            except IllegalMoveError as e:
                msg = f"the start and the history do not lead to this state: {e}"
                raise RecordError(msg) from None
        if final != state:
            raise RecordError("the start and the history do not lead to this state")
        return rec

    # -- replaying ---------------------------------------------------------------

    def start_state(self) -> State:
        """The state before the first turn."""
        if self.deck is not None:
            if self.dealer is None:
                raise RecordError("a dealt record needs its dealer")
            try:
                return self.game.deal(self.dealer, self.deck)
            except PositionError as e:
                raise RecordError(f"[Deck]: {e}") from None
        if self.position is None:
            raise RecordError("the record has neither a deck nor a start position")
        if "?" in self.position:
            who = "a spectator" if self.viewer == SPECTATOR else _seat_or_unknown(self.viewer)
            raise RecordError(
                f"this record was written for {who} and hides the deal: it cannot be replayed"
            )
        try:
            state = parse_position(self.position)
        except PositionError as e:
            raise RecordError(f"[Position]: {e}") from None
        if state.game != self.game:
            raise RecordError("[Position]: its owners or rules differ from the record's")
        return state

    def replay(self) -> State:
        """The final state, every turn and the result checked on the way."""
        return _walk(self, self.start_state(), check_result=True)

    def states(self) -> Iterator[tuple[int, Move, State]]:
        """``(seat, move, state after it)`` for each turn, to step through the hand.

        A trailing ``pending`` beat comes last as ``(seat, Move "beat X", state
        in lead mode)``.  Each state is an independent copy.
        """
        steps: list[tuple[int, Move, State]] = []
        _walk(self, self.start_state(), check_result=True, out=steps)
        yield from steps


def _seat_or_unknown(seat: int | None) -> str:
    return f"seat {seat_name(seat)}" if seat is not None and seat >= 0 else "one viewer"


def _check_tag_name(key: str) -> None:
    if not _TAG_NAME_RE.fullmatch(key):
        raise RecordError(f"tag name {key!r} must be a letter then letters, digits or _")
    if key in STRUCTURAL_TAGS:
        raise RecordError(f"tag {key} comes from the record itself; do not pass it as a tag")


def _where(rec: GameRecord, i: int) -> str:
    line = rec.lines[i] if i < len(rec.lines) and rec.lines[i] else 0
    return (f"line {line}, " if line else "") + f"turn {i + 1}"


def _walk(
    rec: GameRecord,
    state: State,
    *,
    check_result: bool,
    out: list[tuple[int, Move, State]] | None = None,
) -> State:
    for i, (seat, move) in enumerate(rec.moves):
        where = f"{_where(rec, i)} ({seat_name(seat)}: {move})"
        if state.is_over:
            raise RecordError(f"{where}: the hand is already over ({state.outcome})")
        try:
            if state.phase == LEAD:
                # A start in mid-turn: this turn's beat is already on the pile.
                if seat != state.to_act:
                    raise IllegalMoveError(
                        f"it is {seat_name(state.to_act)}'s turn, not {seat_name(seat)}'s"
                    )
                if move.beat != state.top or move.lead is None:
                    top = format_card(state.top) if state.top is not None else "-"
                    raise IllegalMoveError(
                        f"the position is mid-turn: this turn must be 'beat {top} lead X'"
                    )
                state.apply_action(move.lead)
            else:
                state.push(move, seat=seat)
        except IllegalMoveError as e:
            raise RecordError(f"{where}: {e}") from None
        if out is not None:
            out.append((seat, move, state.copy()))
    if rec.pending is not None:
        i = len(rec.moves)
        seat = state.to_act
        where = f"{_where(rec, i)} (beat {format_card(rec.pending)} lead ?)"
        if state.phase != RESPOND:
            raise RecordError(f"{where}: there is nothing to beat now")
        if rec.pending_seat is not None and rec.pending_seat != seat:
            raise RecordError(
                f"{where}: it is {seat_name(seat)}'s turn, not {seat_name(rec.pending_seat)}'s"
            )
        try:
            state.apply_action(rec.pending)
        except IllegalMoveError as e:
            raise RecordError(f"{where}: {e}") from None
        if state.phase != LEAD:
            raise RecordError(f"{where}: that beat ended the turn; write 'beat X' alone")
        if out is not None:
            out.append((seat, Move.get(rec.pending, None), state.copy()))
    if check_result and state.outcome != rec.result:
        said = format_result_token(rec.result)
        got = format_result_token(state.outcome)
        raise RecordError(
            f"the record's result is {said!r} but its turns give {got!r}"
            + (f" (after turn {len(rec.moves)})" if rec.moves else "")
        )
    return state


# --------------------------------------------------------------------------- writing


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")


def _encode_name(name: str) -> str:
    return name.replace("%", "%25").replace(",", "%2C").replace("=", "%3D")


def write_record(rec: GameRecord, viewer: int | None = None, *, comments: bool = True) -> str:
    """The text of ``rec``.  With ``viewer`` (a seat, or :data:`SPECTATOR`) only
    what that viewer may know is written: no deck, the start as they saw it.
    ``comments`` adds the cards each pickup took, as ``{takes ...}``."""
    n = rec.game.n
    if viewer is not None and viewer != SPECTATOR and not 0 <= viewer < n:
        raise RecordError(f"viewer {viewer} is not a seat of this {n}-player game")
    tags = _game_tags(rec)
    pickups = _pickup_comments(rec) if comments and rec.viewer is None else []
    tags += _start_tags(rec, viewer)
    tags.append(("Result", format_result_token(rec.result)))
    for key, value in rec.tags.items():
        if key not in _LEADING_TAGS:
            tags.append((key, value))
    lines = [f'[{key} "{_quote(value)}"]' for key, value in tags]
    lines.append("")
    lines += [_comment(c) for c in rec.comments.get(0, [])]
    for i, (seat, move) in enumerate(rec.moves):
        lines.append(_turn_line(rec, i, seat, move, pickups, comments))
    if rec.pending is not None:
        who = rec.pending_seat if rec.pending_seat is not None else _pending_seat(rec)
        lines.append(
            f"{len(rec.moves) + 1}. {seat_name(who)}: beat {format_card(rec.pending)} lead ?"
        )
    lines.append(format_result_token(rec.result))
    return "\n".join(lines) + "\n"


def _game_tags(rec: GameRecord) -> list[tuple[str, str]]:
    """The tags before the start: the leading ones, then the game and who sat where.

    Why apart: :func:`write_record` writes the tags in a fixed order (the game,
    then the start, then the result), and this part never depends on the viewer."""
    game = rec.game
    tags: list[tuple[str, str]] = []
    for key in _LEADING_TAGS:
        if key in rec.tags:
            tags.append((key, rec.tags[key]))
    tags.append(("Players", str(game.n)))
    rules_txt = format_rules(game.rules)
    if rules_txt != "-":
        tags.append(("Rules", rules_txt))
    tags.append(("Owners", format_owners(game)))
    if rec.names:
        tags.append(
            (
                "Names",
                ",".join(f"{seat_name(s)}={_encode_name(rec.names[s])}" for s in sorted(rec.names)),
            )
        )
    if rec.dealer is not None:
        tags.append(("Dealer", seat_name(rec.dealer)))
    return tags


def _start_tags(rec: GameRecord, viewer: int | None) -> list[tuple[str, str]]:
    """The tags of the start as ``viewer`` may see it: ``[Deck]`` or ``[Position]``
    for everyone, else ``[Viewer]`` and the public ``[Position]`` of that viewer.

    Why apart: it is the one part of a record that hides cards, so it is kept in
    one place (a record already written for one viewer cannot be re-viewed)."""
    tags: list[tuple[str, str]] = []
    if viewer is None and rec.viewer is None:
        if rec.deck is not None:
            tags.append(("Deck", format_cards(rec.deck)))
        elif rec.position is not None:
            tags.append(("Position", rec.position))
        return tags
    if rec.viewer is not None:
        if viewer is not None and viewer != rec.viewer:
            raise RecordError(
                "this record was already written for another viewer; it cannot be re-viewed"
            )
        view, public = rec.viewer, rec.position
    else:
        assert viewer is not None
        view = viewer
        start = rec.start_state()
        public = format_observation(observe(start, None if view == SPECTATOR else view))
    tags.append(("Viewer", "spectator" if view == SPECTATOR else seat_name(view)))
    if public is not None:
        tags.append(("Position", public))
    return tags


def _turn_line(
    rec: GameRecord, i: int, seat: int, move: Move, pickups: list[str], comments: bool
) -> str:
    """Turn ``i`` (from 0) of the movetext: ``N. SEAT: MOVE``, its annotation, the
    cards a pickup took (``{takes ...}``, from ``pickups`` or the record's own) and
    its comments.

    Why apart: a turn's line has the most optional parts of the record; written
    here they read in the order they appear on the line."""
    line = f"{i + 1}. {seat_name(seat)}: {move}"
    if i + 1 in rec.annotations:
        line += f" {rec.annotations[i + 1]}"
    took = pickups[i] if pickups else (rec.takes.get(i + 1, "") if comments else "")
    if took:
        line += f" {{takes {took}}}"
    for c in rec.comments.get(i + 1, []):
        line += " " + _comment(c)
    return line


def _comment(text: str) -> str:
    """A comment as record text: ``{...}``, or ``; ...`` when it holds a ``}``."""
    if "}" not in text:
        return "{" + text + "}"
    return "; " + " ".join(text.split())


def _pending_seat(rec: GameRecord) -> int:
    try:
        state = _walk(
            GameRecord(rec.game, rec.moves, rec.dealer, rec.deck, rec.position),
            rec.start_state(),
            check_result=False,
        )
    except RecordError:
        return rec.moves[-1][0] if rec.moves else 0
    return state.to_act


def _pickup_comments(rec: GameRecord) -> list[str]:
    """The cards each pickup took (``''`` for other turns), from a replay."""
    try:
        state = rec.start_state()
        bare = GameRecord(rec.game, rec.moves, rec.dealer, rec.deck, rec.position)
        final = _walk(bare, state, check_result=False)
    except RecordError:
        return []
    return [format_cards(taken) if move.is_pickup else "" for _, move, taken in final.history()]


def write_records(
    path: str | os.PathLike[str], recs: Iterable[GameRecord], viewer: int | None = None
) -> None:
    """Write records to a UTF-8 file, separated by blank lines."""
    text = "\n".join(write_record(r, viewer) for r in recs)
    Path(path).write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------- reading


@dataclass
class _Token:
    kind: str  # "tag", "word"
    text: str
    line: int
    value: str = ""


_TAG_RE = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\\n]|\\.)*)"\s*\]')
_WORD_RE = re.compile(r"\d+\.|[A-Za-z]:|[^\s\[\]{};]+")
_UNESCAPE = {"\\": "\\", '"': '"', "n": "\n", "r": "\r"}
_TAKES_RE = re.compile(r"takes\s+(.+)", re.S)
#: Move annotations, as in PGN: glyphs and numeric annotation glyphs ($N).
_ANNOTATION_RE = re.compile(r"[!?]{1,2}|\$\d{1,3}")
_GLUED_ANNOTATION_RE = re.compile(r"(.*[^!?])([!?]{1,2})")


def _unquote(raw: str, line: int) -> str:
    out = []
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\":
            nxt = raw[i + 1] if i + 1 < len(raw) else ""
            if nxt not in _UNESCAPE:
                raise RecordError(f"line {line}: unknown escape \\{nxt} in a tag value")
            out.append(_UNESCAPE[nxt])
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    pos = 0
    line = 1
    size = len(text)
    while pos < size:
        ch = text[pos]
        if ch == "\n":
            line += 1
            pos += 1
        elif ch.isspace():
            pos += 1
        elif ch == "{":
            end = text.find("}", pos)
            if end < 0:
                raise RecordError(f"line {line}: comment '{{' is never closed with '}}'")
            tokens.append(_Token("comment", text[pos + 1 : end].strip(), line))
            line += text.count("\n", pos, end)
            pos = end + 1
        elif ch == ";":
            end = text.find("\n", pos)
            tokens.append(_Token("comment", text[pos + 1 : size if end < 0 else end].strip(), line))
            pos = size if end < 0 else end
        elif ch == "[":
            m = _TAG_RE.match(text, pos)
            if m is None:
                snippet = text[pos:].split("\n", 1)[0]
                raise RecordError(
                    f'line {line}: malformed tag {snippet!r}: expected [Name "value"]'
                )
            tokens.append(_Token("tag", m.group(1), line, _unquote(m.group(2), line)))
            pos = m.end()
        elif ch in "]}":
            raise RecordError(f"line {line}: unexpected {ch!r}")
        else:
            m = _WORD_RE.match(text, pos)
            assert m is not None
            tokens.append(_Token("word", m.group(0), line))
            pos = m.end()
    return tokens


def parse_records(text: str, *, check: bool = True) -> list[GameRecord]:
    """Every record in ``text`` (a session file), in order.  With ``check`` each
    is replayed and a record whose turns or result do not hold raises."""
    tokens = _tokenize(text)
    recs: list[GameRecord] = []
    i = 0
    while i < len(tokens):
        start = i
        while i < len(tokens) and tokens[i].kind in ("tag", "comment"):
            i += 1
        tags = [t for t in tokens[start:i] if t.kind == "tag"]
        lead_comments = [t for t in tokens[start:i] if t.kind == "comment"]
        if not tags and i >= len(tokens):
            break  # only comments left
        j = i
        while j < len(tokens) and tokens[j].kind in ("word", "comment"):
            if tokens[j].kind == "word" and _is_result_start(tokens, j):
                j = _result_end(tokens, j)
                while j < len(tokens) and tokens[j].kind == "comment":
                    j += 1  # comments after the result belong to this record
                break
            j += 1
        else:
            last = tokens[j - 1].line if j > 0 else 1
            raise RecordError(
                f"line {last}: the record ends without a result token "
                "(loser X, draw REASON or * for unfinished)"
            )
        if j < len(tokens) and tokens[j].kind == "word":
            raise RecordError(
                f"line {tokens[j].line}: {tokens[j].text!r} after the result token; "
                "a record ends with its result and the next one starts with its tags"
            )
        recs.append(_build(tags, lead_comments + tokens[i:j], check))
        i = j
    return recs


def parse_record(text: str, *, check: bool = True) -> GameRecord:
    """The one record in ``text`` (see :func:`parse_records`)."""
    recs = parse_records(text, check=check)
    if len(recs) != 1:
        raise RecordError(f"expected one record, found {len(recs)}")
    return recs[0]


def read_records(path: str | os.PathLike[str], *, check: bool = True) -> list[GameRecord]:
    """Every record of a UTF-8 file."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a BOM is allowed
    except UnicodeDecodeError as e:
        raise RecordError(f"{path}: not UTF-8 text ({e.reason})") from None
    return parse_records(text, check=check)


def _is_result_start(tokens: list[_Token], j: int) -> bool:
    # "draw" and "loser" are never move words, so they always start the result.
    return tokens[j].kind == "word" and tokens[j].text.lower() in ("*", "loser", "draw")


def _result_end(tokens: list[_Token], j: int) -> int:
    """Index after the result token starting at ``j``."""
    w = tokens[j].text.lower()
    if w == "*":
        return j + 1
    k = j + 2
    if (
        w == "loser"
        and k < len(tokens)
        and tokens[k].kind == "word"
        and tokens[k].text.lower() == "action_cap"
    ):
        k += 1
    return min(k, len(tokens))


def _build(tag_tokens: list[_Token], words: list[_Token], check: bool) -> GameRecord:
    first_line = tag_tokens[0].line if tag_tokens else (words[0].line if words else 1)
    tags: dict[str, str] = {}
    tag_line: dict[str, int] = {}
    for t in tag_tokens:
        if t.text in tags:
            raise RecordError(f"line {t.line}: tag [{t.text}] is given twice")
        tags[t.text] = t.value
        tag_line[t.text] = t.line
    bad = partial(_tag_error, tags, tag_line)

    game = _game_of_tags(tags, bad, first_line)
    n = game.n
    if "Players" in tags and tags["Players"].strip() != str(n):
        raise bad("Players", f"the game has {n} players")

    rec = GameRecord(game=game)
    _read_seat_tags(rec, tags, bad)
    _read_start_tags(rec, tags, bad, first_line)
    for key, value in tags.items():
        if key not in STRUCTURAL_TAGS:
            rec.tags[key] = value

    _parse_movetext(rec, words, n)
    if "Result" in tags:
        try:
            said = _parse_result_words(tags["Result"].split(), n)
        except ValueError as e:
            raise bad("Result", str(e)) from None
        if said != rec.result:
            raise bad(
                "Result",
                f"disagrees with the result token {format_result_token(rec.result)!r}",
            )
    if check and not (rec.position is not None and "?" in rec.position):
        rec.replay()
    return rec


_TagError = Callable[[str, str], RecordError]
"""``bad(key, msg)``: the error about tag ``key``, naming its line and value."""


def _tag_error(tags: dict[str, str], tag_line: dict[str, int], key: str, msg: str) -> RecordError:
    """The error about tag ``key``; :func:`_build` binds it to the record's tags
    (a module function, not a closure, so the helpers that read tags share it)."""
    return RecordError(f"line {tag_line[key]}: [{key} {tags[key]!r}]: {msg}")


def _game_of_tags(tags: dict[str, str], bad: _TagError, first_line: int) -> Game:
    """The game of a record: from its ``[Position]`` (which ``[Owners]`` and
    ``[Rules]``, when also given, must agree with) or from ``[Owners]`` and ``[Rules]``.

    Why apart: it is the first thing a record's tags must settle (every seat tag
    is read against the game's player count), with errors of its own."""
    key = "Position" if "Position" in tags else "Owners"
    try:
        if "Position" in tags:
            fields = tags["Position"].split()
            if len(fields) not in (8, 9):
                raise PositionError(f"a position has 8 or 9 fields, not {len(fields)}")
            game = parse_game(fields[0], fields[8] if len(fields) == 9 else "-")
            if "?" not in tags["Position"]:
                parse_position(tags["Position"])
        else:
            if "Owners" not in tags:
                raise RecordError(
                    f"line {first_line}: a record needs [Owners] with [Dealer] and [Deck], "
                    "or a [Position]"
                )
            game = parse_game(tags["Owners"], tags.get("Rules", "-"))
    except (PositionError, RulesError) as e:
        raise bad(key, str(e)) from None
    if "Position" in tags and ("Owners" in tags or "Rules" in tags):
        k = "Owners" if "Owners" in tags else "Rules"
        try:
            same = parse_game(
                tags.get("Owners", format_owners(game)), tags.get("Rules", format_rules(game.rules))
            )
        except (PositionError, RulesError) as e:
            raise bad(k, str(e)) from None
        if same != game:
            raise bad(k, "[Owners] or [Rules] disagrees with the [Position]")
    return game


def _read_seat_tags(rec: GameRecord, tags: dict[str, str], bad: _TagError) -> None:
    """``[Names]``, ``[Dealer]`` and ``[Viewer]`` into ``rec`` (a record for one
    viewer must not hold the deck).

    Why apart: the three tags that name seats, each read with :func:`parse_seat`
    against the game's player count."""
    n = rec.game.n
    if "Names" in tags:
        for item in filter(None, tags["Names"].split(",")):
            seat_txt, eq, name = item.partition("=")
            try:
                seat = parse_seat(seat_txt, n)
            except PositionError as e:
                raise bad("Names", str(e)) from None
            if not eq:
                raise bad("Names", f"{item!r}: expected SEAT=name")
            rec.names[seat] = unquote(name)
    if "Dealer" in tags:
        try:
            rec.dealer = parse_seat(tags["Dealer"], n)
        except PositionError as e:
            raise bad("Dealer", str(e)) from None
    if "Viewer" in tags:
        v = tags["Viewer"].strip()
        if v.lower() == "spectator":
            rec.viewer = SPECTATOR
        else:
            try:
                rec.viewer = parse_seat(v, n)
            except PositionError as e:
                raise bad("Viewer", str(e)) from None
        if "Deck" in tags:
            raise bad("Deck", "a record for one viewer must not hold the deck")


def _read_start_tags(
    rec: GameRecord, tags: dict[str, str], bad: _TagError, first_line: int
) -> None:
    """The start of the hand into ``rec``: the dealt ``[Deck]`` (with ``[Dealer]``)
    or the ``[Position]``, exactly one of them.

    Why apart: the two ways a record can start exclude each other, and the deck
    has two spellings (a card list or the compact form)."""
    if "Deck" in tags:
        if "Position" in tags:
            raise bad("Deck", "give either [Deck] or [Position], not both")
        if rec.dealer is None:
            raise bad("Deck", "a dealt record needs [Dealer]")
        try:
            deck_txt = tags["Deck"]
            cards = (
                parse_card_list(deck_txt)
                if " " in deck_txt.strip()
                else parse_cards_compact(deck_txt.strip(), "deck")
            )
        except CardError as e:
            raise bad("Deck", str(e)) from None
        rec.deck = tuple(cards)
    elif "Position" in tags:
        rec.position = tags["Position"]
    else:
        raise RecordError(f"line {first_line}: a record needs [Dealer] and [Deck], or [Position]")


def _parse_movetext(rec: GameRecord, words: list[_Token], n: int) -> None:
    i = 0
    turn = 1
    while i < len(words):
        tok = words[i]
        if tok.kind == "comment":
            _add_comment(rec, tok.text)
            i += 1
            continue
        if _ANNOTATION_RE.fullmatch(tok.text) and rec.moves:
            rec.annotations[len(rec.moves)] = tok.text
            i += 1
            continue
        if _is_result_start(words, i):
            _read_result(rec, words[i:], n, tok.line)
            return
        if rec.pending is not None:
            raise RecordError(
                f"line {tok.line}: 'lead ?' (a turn left mid-way) must be the last turn"
            )
        i = _read_turn(rec, words, i, turn, n)
        turn += 1
    raise RecordError(
        f"line {words[-1].line if words else 0}: the turns end without a result token "
        "(loser X, draw REASON or *)"
    )


def _add_comment(rec: GameRecord, text: str) -> None:
    """A comment of the movetext: the first ``{takes ...}`` after a pickup is the
    cards it took, anything else a comment after the turns so far.

    Why apart: the comment's place (after which turn) is the only state it reads."""
    took = _TAKES_RE.fullmatch(text)
    last_pickup = bool(rec.moves) and rec.moves[-1][1].is_pickup
    if took and last_pickup and len(rec.moves) not in rec.takes:
        rec.takes[len(rec.moves)] = took.group(1)
    else:
        rec.comments.setdefault(len(rec.moves), []).append(text)


def _read_result(rec: GameRecord, words: list[_Token], n: int, line: int) -> None:
    """The result token ``words`` (and the comments among and after it) into ``rec``.

    Why apart: the result ends the movetext; its comments stay with the last turn."""
    res_words = [w.text for w in words if w.kind == "word"]
    for w in words:
        if w.kind == "comment":
            rec.comments.setdefault(len(rec.moves), []).append(w.text)
    try:
        rec.result = _parse_result_words(res_words, n)
    except ValueError as e:
        raise RecordError(f"line {line}: {e}") from None


def _read_turn(rec: GameRecord, words: list[_Token], i: int, turn: int, n: int) -> int:
    """Turn number ``turn`` from ``words[i]`` on (``N.``, optional, then ``SEAT:``
    and the move) into ``rec``; returns the index after it.

    Why apart: one turn is read with its own line and number in every error."""
    tok = words[i]
    line = tok.line
    if re.fullmatch(r"\d+\.", tok.text):
        if int(tok.text[:-1]) != turn:
            raise RecordError(f"line {line}: expected turn number {turn}., found {tok.text}")
        i += 1
    if i >= len(words) or not re.fullmatch(r"[A-Za-z]:", words[i].text):
        found = words[i].text if i < len(words) else "the end"
        raise RecordError(f"line {line}, turn {turn}: expected the seat, e.g. 'A:', not {found!r}")
    try:
        seat = parse_seat(words[i].text[0], n)
    except PositionError as e:
        raise RecordError(f"line {line}, turn {turn}: {e}") from None
    move_words, i = _move_words(words, i + 1, line, turn)
    _add_move(rec, seat, move_words, line, turn)
    return i


def _move_words(words: list[_Token], i: int, line: int, turn: int) -> tuple[list[str], int]:
    """The words of the move at ``words[i]`` (``pickup``, ``lead X``, ``beat X`` or
    ``beat X lead Y``) and the index after them.

    Why apart: a move is one to four words, and only its first words say how many."""
    kw = words[i].text.lower() if i < len(words) else ""
    if kw == "pickup":
        return [words[i].text], i + 1
    if kw in ("lead", "beat") and i + 1 < len(words):
        move_words, i = [words[i].text, words[i + 1].text], i + 2
        if kw == "beat" and i < len(words) and words[i].text.lower() == "lead":
            if i + 1 >= len(words):
                raise RecordError(f"line {line}, turn {turn}: 'lead' without a card")
            move_words += [words[i].text, words[i + 1].text]
            i += 2
        return move_words, i
    found = words[i].text if i < len(words) else "the end"
    raise RecordError(
        f"line {line}, turn {turn}: expected a move (lead X, beat X lead Y, beat X, "
        f"pickup), not {found!r}"
    )


def _add_move(rec: GameRecord, seat: int, move_words: list[str], line: int, turn: int) -> None:
    """The move ``move_words`` of ``seat`` into ``rec``: a glued annotation
    (``QS!``) split off, and ``beat X lead ?`` kept as the pending half-turn.

    Why apart: what a move's words become (a move, or the turn left mid-way) is
    decided here, once they are read."""
    glyph = _GLUED_ANNOTATION_RE.fullmatch(move_words[-1]) if move_words else None
    if glyph and move_words[-1] != "?":  # "QS!" -> "QS" annotated "!"
        move_words[-1] = glyph.group(1)
    if len(move_words) == 4 and move_words[3] == "?":
        try:
            rec.pending = parse_card(move_words[1])
        except CardError as e:
            raise RecordError(f"line {line}, turn {turn}: {e}") from None
        rec.pending_seat = seat
        rec.lines.append(line)
        return
    try:
        move = Move.parse(" ".join(move_words))
    except IllegalMoveError as e:
        raise RecordError(f"line {line}, turn {turn}: {e}") from None
    rec.moves.append((seat, move))
    if glyph and move_words[-1] != "?":
        rec.annotations[len(rec.moves)] = glyph.group(2)
    rec.lines.append(line)


# --------------------------------------------------------------------------- visiting


SKIP = False
"""Returned by :meth:`RecordVisitor.headers` to skip a record without parsing its turns."""


class RecordVisitor:
    """Walks the records of a large file without building what it does not need
    (after ``chess.pgn``'s visitors).  :func:`visit_records` calls :meth:`headers`
    with each record's tags, read without touching its turns; a false answer skips
    the record, otherwise it is parsed (and checked) and given to :meth:`record`.
    :meth:`result` is what :func:`visit_records` returns at the end.
    """

    def headers(self, tags: dict[str, str], line: int) -> bool:
        """Called with a record's tags and first line; return :data:`SKIP` to skip it."""
        return True

    def record(self, rec: GameRecord) -> None:
        """Called with each record that was not skipped."""

    def result(self) -> object:
        """The value :func:`visit_records` returns."""
        return None


class _Collect(RecordVisitor):
    def __init__(self, keep: Callable[[dict[str, str]], bool] | None) -> None:
        self.keep = keep
        self.recs: list[GameRecord] = []

    def headers(self, tags: dict[str, str], line: int) -> bool:
        return self.keep is None or self.keep(tags)

    def record(self, rec: GameRecord) -> None:
        self.recs.append(rec)


_TAG_LINE_RE = re.compile(r'\s*\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\\n]|\\.)*)"\s*\]')


def split_records(text: str) -> Iterator[tuple[int, str]]:
    """The records of ``text`` as ``(first line, text)`` chunks, found by a fast line
    scan (a record starts at a tag line that follows turns), without parsing them."""
    start = 0
    start_line = 1
    in_turns = False
    depth = 0
    pos = 0
    for number, raw in enumerate(text.splitlines(keepends=True), 1):
        if depth == 0 and raw.lstrip().startswith("[") and in_turns:
            yield start_line, text[start:pos]
            start, start_line, in_turns = pos, number, False
        stripped = raw.split(";", 1)[0] if depth == 0 else raw
        depth = max(0, depth + stripped.count("{") - stripped.count("}"))
        if depth == 0 and stripped.strip() and not stripped.lstrip().startswith("["):
            in_turns = True
        pos += len(raw)
    if text[start:].strip():
        yield start_line, text[start:]


def visit_records(
    source: str | os.PathLike[str], visitor: RecordVisitor, *, check: bool = True
) -> object:
    """Walk every record of the file ``source`` with ``visitor`` and return its
    :meth:`~RecordVisitor.result`.  Skipped records cost one line scan; errors in
    the records parsed name the file's line numbers."""
    try:
        text = Path(source).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise RecordError(f"{source}: not UTF-8 text ({e.reason})") from None
    for line, chunk in split_records(text):
        tags: dict[str, str] = {}
        for raw in chunk.splitlines():
            m = _TAG_LINE_RE.match(raw)
            if m is None:
                if raw.strip() and not raw.lstrip().startswith(("{", ";")):
                    break
                continue
            tags[m.group(1)] = _unquote(m.group(2), line)
        if not visitor.headers(tags, line):
            continue
        # pad with newlines so that error messages name the file's lines
        for rec in parse_records("\n" * (line - 1) + chunk, check=check):
            visitor.record(rec)
    return visitor.result()


def read_headers(source: str | os.PathLike[str]) -> list[dict[str, str]]:
    """The tags of every record of a file, without parsing any turns."""

    class Headers(RecordVisitor):
        def __init__(self) -> None:
            self.found: list[dict[str, str]] = []

        def headers(self, tags: dict[str, str], line: int) -> bool:
            self.found.append(tags)
            return SKIP

    visitor = Headers()
    visit_records(source, visitor)
    return visitor.found


def filter_records(
    source: str | os.PathLike[str], keep: Callable[[dict[str, str]], bool], *, check: bool = True
) -> list[GameRecord]:
    """The records of a file whose tags ``keep`` accepts; the others are skipped
    without being parsed."""
    visitor = _Collect(keep)
    visit_records(source, visitor, check=check)
    return visitor.recs
