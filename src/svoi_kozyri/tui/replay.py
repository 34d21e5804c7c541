"""Stepping through game records (``svoi-kozyri replay FILE``).

A full record (with its deal) is a finished game, so the replay shows every
hand face up after each turn.  A viewer's record (written for one seat or a
spectator) holds no hidden hands: it is replayed from the viewer's side only.
Its turns are public, so a stand-in start is rebuilt that agrees with
everything the viewer knew (each hidden card a player is later seen to play is
placed in that player's start hand, the rest are placeholders); the board is
then rendered from the viewer's :class:`Observation`, which never contains the
placeholders.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence
from dataclasses import dataclass

from rich.console import Console, Group, RenderableType

from ..core import (
    OVER,
    PHASE_NAMES,
    CardSet,
    Move,
    Observation,
    State,
    SvoiKozyriError,
    iter_cards,
    observe,
    seat_name,
)
from ..notation.position import parse_cards_compact, parse_game, parse_result
from ..records import SPECTATOR, GameRecord, read_records
from .prompter import Prompter
from .render import SeatInfo, render_board, render_result, render_turn


class ReplayError(SvoiKozyriError, ValueError):
    """A record file cannot be read or replayed; the message says why."""


def load_records(path: str | os.PathLike[str]) -> list[GameRecord]:
    """Every record of a file, with errors turned into one clear message that names
    the file once (``replay``, ``analyse``, ``records`` and ``play --resume`` share it).
    A file without any record is an error too."""
    name = os.fspath(path)
    try:
        recs = read_records(path)
    except OSError as e:
        reason = {
            errno.ENOENT: "no such file",
            errno.EISDIR: "is a folder, not a record file",
            errno.EACCES: "permission denied",
        }.get(e.errno or 0, (e.strerror or str(e)).lower())
        raise ReplayError(f"{name}: {reason}") from None
    except (SvoiKozyriError, UnicodeError, ValueError) as e:
        text = str(e)
        raise ReplayError(text if text.startswith(f"{name}:") else f"{name}: {text}") from None
    if not recs:
        raise ReplayError(f"{name}: no game records in the file")
    return recs


@dataclass(frozen=True)
class Frame:
    """One step of a replay: the state after a turn (``move`` None at the start)."""

    hand: int
    turn: int
    seat: int | None
    move: Move | None
    state: State
    taken: CardSet = 0


def seats_of(rec: GameRecord) -> list[SeatInfo]:
    """Display names from the record's ``Names`` tag (seat letters otherwise)."""
    return [SeatInfo(rec.names.get(i, f"seat {seat_name(i)}"), "record") for i in range(rec.game.n)]


def viewer_start(rec: GameRecord) -> State:
    """A start state consistent with a viewer's record (see the module docstring).

    The public position is ``owners hands pile to_act mode outs discard turns
    [rules]`` with hidden parts of hands written ``?N``.
    """
    assert rec.position is not None
    fields = rec.position.split()
    if len(fields) not in (8, 9):
        raise ReplayError(f"[Position]: expected 8 or 9 fields, got {len(fields)}")
    owners, hands_f, pile_f, to_act, mode, outs_f, discard_f, turns_f = fields[:8]
    game = rec.game if rec.game is not None else parse_game(owners, *fields[8:9])
    n = game.n
    hand_parts = hands_f.split("/")
    if len(hand_parts) != n:
        raise ReplayError(f"[Position]: {len(hand_parts)} hands for {n} players")
    hands, known, unknown = _public_hands(hand_parts)
    pile = parse_cards_compact(pile_f) if pile_f != "-" else []
    discard = 0
    if discard_f != "-":
        for c in parse_cards_compact(discard_f):
            discard |= 1 << c
    used = discard
    for h in hands:
        used |= h
    for c in pile:
        used |= 1 << c
    _place_hidden_cards(rec, game.deck, hands, unknown, used)
    outs = []
    if outs_f != "-":
        for item in outs_f.split(","):
            outs.append((item[0], {"d": "defence", "l": "lead"}[item[1:].lower()]))
    over = mode not in PHASE_NAMES
    try:
        return game.position(
            hands,
            pile,
            to_act if to_act != "-" else 0,
            "free" if over else mode,
            outs,
            discard=discard,
            turns=int(turns_f),
            outcome=parse_result(mode, n) if over else None,
            known=known,
        )
    except (SvoiKozyriError, ValueError, KeyError) as e:
        raise ReplayError(f"[Position]: {e}") from None


def _public_hands(hand_parts: list[str]) -> tuple[list[CardSet], list[CardSet], list[int]]:
    """Each hand of a public position (``CARDS?N``): the cards listed, the cards
    the viewer knows of another's hand (all listed ones when some are hidden) and
    how many are hidden.

    Why apart: the one field of the public position that differs from the full one."""
    hands: list[CardSet] = []
    known: list[CardSet] = []
    unknown: list[int] = []
    for part in hand_parts:
        known_txt, _, count = part.partition("?")
        cards = parse_cards_compact(known_txt) if known_txt not in ("", "-") else []
        m = 0
        for c in cards:
            m |= 1 << c
        hands.append(m)
        known.append(m if count else 0)  # a fully listed hand is the viewer's own
        unknown.append(int(count) if count else 0)
    return hands, known, unknown


def _place_hidden_cards(
    rec: GameRecord, deck: CardSet, hands: list[CardSet], unknown: list[int], used: CardSet
) -> None:
    """Fill the hidden part of each hand in ``hands``: first the hidden cards the
    record's turns show its holder playing, then placeholders from the rest of
    ``deck`` (``used``: the cards the position lists).

    Why apart: this is what makes a stand-in start agree with everything the
    viewer knew (see the module docstring)."""
    # A hidden card is first seen when its holder plays it.
    seen = used
    for seat, move in rec.moves:
        for c in move.cards():
            if not seen >> c & 1:
                if unknown[seat] <= 0:
                    raise ReplayError(
                        f"the record's turns do not fit its start: {seat_name(seat)} plays "
                        "more hidden cards than it held"
                    )
                hands[seat] |= 1 << c
                unknown[seat] -= 1
                seen |= 1 << c
    spare = iter(iter_cards(deck & ~seen))
    for seat in range(len(hands)):
        for _ in range(unknown[seat]):
            try:
                hands[seat] |= 1 << next(spare)
            except StopIteration:
                raise ReplayError("[Position]: more hidden cards than the deck holds") from None


def frames_of(rec: GameRecord, hand: int) -> list[Frame]:
    """The start and the state after every turn of one record."""
    try:
        if rec.viewer is not None:
            state = viewer_start(rec)
            out = [Frame(hand, 0, None, None, state.copy())]
            for k, (seat, move) in enumerate(rec.moves, 1):
                state.push(move, seat)
                taken = state.history()[-1][2] if move.is_pickup else 0
                out.append(Frame(hand, k, seat, move, state.copy(), taken))
            return out
        out = [Frame(hand, 0, None, None, rec.start_state())]
        for k, (seat, move, after) in enumerate(rec.states(), 1):
            taken = after.history()[-1][2] if move.is_pickup else 0
            out.append(Frame(hand, k, seat, move, after, taken))
        return out
    except (SvoiKozyriError, ValueError) as e:
        raise ReplayError(f"hand {hand}: {e}") from None


class Replayer:
    """Shows the frames of one or more records, all at once or step by step."""

    def __init__(
        self, records: Sequence[GameRecord], console: Console, unicode: bool = False
    ) -> None:
        self.records = list(records)
        self.console = console
        self.unicode = unicode
        self.frames: list[Frame] = []
        for i, rec in enumerate(self.records, 1):
            self.frames.extend(frames_of(rec, i))

    def viewer(self, rec: GameRecord) -> int | None:
        """Whose view a record holds (``None``: full information or a spectator)."""
        return None if rec.viewer in (None, SPECTATOR) else rec.viewer

    def render(self, frame: Frame) -> RenderableType:
        """The board after one turn, with the turn itself as the header."""
        rec = self.records[frame.hand - 1]
        seats = seats_of(rec)
        viewer = self.viewer(rec)
        obs: Observation = observe(frame.state, viewer)
        reveal = None if rec.viewer is not None else dict(enumerate(frame.state.hands))
        last = sum(1 for f in self.frames if f.hand == frame.hand) - 1
        head = f"Hand {frame.hand}/{len(self.records)}, turn {frame.turn}/{last}"
        if frame.move is None:
            dealer = rec.dealer
            head += ": start" + (
                f", dealer {seats[dealer].label(dealer)}" if dealer is not None else ""
            )
        else:
            assert frame.seat is not None
            head += ": " + render_turn(frame.seat, frame.move, frame.taken, seats, self.unicode)
        if viewer is not None:
            head += f"  (as seen by {seats[viewer].label(viewer)})"
        parts: list[RenderableType] = [
            render_board(
                obs,
                seats,
                unicode=self.unicode,
                header=head,
                log_turns=3,
                reveal=reveal,
                turn_help=False,
            )
        ]
        if frame.state.phase == OVER:
            parts.append(render_result(frame.state.outcome, frame.state.outs, seats))
        return Group(*parts)

    def find(self, turn: int, hand: int | None = None) -> int:
        """The frame index of turn ``turn`` (0 = the start) of ``hand`` (default the
        first hand); :class:`ReplayError` names the valid range otherwise."""
        hand = 1 if hand is None else hand
        idx = [i for i, f in enumerate(self.frames) if f.hand == hand]
        if not idx:
            raise ReplayError(f"there is no hand {hand}")
        last = len(idx) - 1
        if not 0 <= turn <= last:
            raise ReplayError(f"hand {hand} has turns 0 to {last}, not {turn}")
        return idx[turn]

    def print_all(self, start: int = 0, only: bool = False) -> int:
        """Print every frame (``--all``), from frame ``start``; ``only`` prints just it."""
        frames = self.frames[start : start + 1] if only else self.frames[start:]
        for frame in frames:
            self.console.print(self.render(frame))
            self.console.print()
        if not only:
            self.console.print(f"End of record: {len(self.records)} hand(s).")
        return 0

    KEYS_HELP = (
        "keys: Enter or n = next, p = previous, a number = that turn of this hand, "
        "s = start of the hand, e = end of the record, q = quit"
    )

    def step(self, prompter: Prompter, start: int = 0) -> int:
        """Interactive stepping: Enter or n next, p previous, N turn N of this hand,
        s start of this hand, e end of the record, q quit."""
        i = start
        shown = -1
        while True:
            if i != shown:
                self.console.print(self.render(self.frames[i]))
                shown = i
            at_end = i == len(self.frames) - 1
            hint = (
                "end of record: p back, N turn, q quit"
                if at_end
                else "Enter/n next, p back, N turn, e end, q quit"
            )
            try:
                key = prompter.ask(f"[{i + 1}/{len(self.frames)}] {hint} > ").strip().lower()
            except (EOFError, KeyboardInterrupt):
                return 0
            if key in ("q", "quit", "exit"):
                return 0
            if key in ("", "n", "next"):
                if at_end:
                    if key == "":
                        return 0
                    self.console.print("  ! this is the last turn")
                i = min(i + 1, len(self.frames) - 1)
            elif key in ("p", "prev", "previous", "b", "back"):
                if i == 0:
                    self.console.print("  ! this is the start")
                i = max(i - 1, 0)
            elif key in ("e", "end", "last"):
                i = len(self.frames) - 1
            elif key in ("s", "start", "home"):
                i = self.find(0, self.frames[i].hand)
            elif key.removeprefix("t").strip().isdigit():
                try:
                    i = self.find(int(key.removeprefix("t")), self.frames[i].hand)
                except ReplayError as e:
                    self.console.print(f"  ! {e}")
            else:
                self.console.print(f"  ! {self.KEYS_HELP}")
