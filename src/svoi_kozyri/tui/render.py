"""Rendering of the table for the terminal game, from one viewer's Observation.

Every function here takes an :class:`~svoi_kozyri.core.Observation` (what one
seat, or a spectator, may know) and builds rich renderables; nothing reads a
full :class:`~svoi_kozyri.core.State`, so the screen can never show another
player's hidden cards.  The only exception is the explicit ``reveal`` mapping
of :func:`render_board`, used by the replay of a finished game, whose hands
are public once it is over.

Everything must stay readable without colour (``NO_COLOR``, dumb terminals,
screen readers): each highlight has a textual marker too (beatable cards are
shown in brackets, own suits are labelled "yours"), and no line is built wider
than 80 columns.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rich.console import Console, Group, RenderableType
from rich.text import Text

from ..core import (
    FREE,
    OVER,
    RESPOND,
    SUITS,
    Card,
    CardSet,
    Move,
    Observation,
    Outcome,
    Termination,
    display_order,
    format_card,
    seat_name,
    suit_of,
)
from ..core.session import Session

#: Styles of the two red suits; spades and clubs keep the terminal's colour.
_SUIT_STYLE = ("", "red", "red", "")
_OWN_STYLE = "bold"
_BEAT_STYLE = "bold reverse green"
#: How many past turns the board shows by default (``log`` shows them all).
DEFAULT_LOG_TURNS = 6


@dataclass(frozen=True)
class SeatInfo:
    """How a seat is shown: a display name and who plays it (``human`` or a bot spec)."""

    name: str
    kind: str = "human"

    @property
    def is_human(self) -> bool:
        """True for a person at the keyboard."""
        return self.kind == "human"

    def label(self, seat: int) -> str:
        """``A You`` or ``B heuristic``: seat letter and name, for every line of output."""
        return f"{seat_name(seat)} {self.name}"


def fmt_card(c: Card, unicode: bool = False) -> str:
    """A card in project notation (``10H``) or with a suit symbol (``10♥``)."""
    return format_card(c, unicode=unicode)


def fmt_cards(cards: Sequence[Card], unicode: bool = False) -> str:
    """A card sequence in its given order."""
    return " ".join(fmt_card(c, unicode) for c in cards)


def fmt_move(move: Move, unicode: bool = False) -> str:
    """A move in project notation (``beat 9D lead QS``), cards optionally as symbols."""
    if not unicode:
        return str(move)
    if move.is_pickup:
        return "pickup"
    if move.beat is None:
        assert move.lead is not None
        return f"lead {fmt_card(move.lead, True)}"
    if move.lead is None:
        return f"beat {fmt_card(move.beat, True)}"
    return f"beat {fmt_card(move.beat, True)} lead {fmt_card(move.lead, True)}"


def card_text(c: Card, unicode: bool = False, *, own: bool = False, beat: bool = False) -> Text:
    """One card, styled by suit colour; ``beat`` adds brackets (and a highlight)
    so that the cards you may beat with stand out even without colour."""
    label = fmt_card(c, unicode)
    style = _SUIT_STYLE[suit_of(c)]
    if own:
        style = f"{style} {_OWN_STYLE}".strip()
    if beat:
        return Text(f"[{label}]", style=_BEAT_STYLE)
    return Text(label, style=style)


def _own_suits(obs: Observation, seat: int) -> str:
    m = obs.game.owners[seat]
    return "".join(SUITS[s] for s in range(4) if m >> s & 1)


def render_trumps(obs: Observation, seats: Sequence[SeatInfo]) -> Text:
    """Who owns which suit (open trumps, SPEC A2.3), one short line."""
    parts = []
    for s in range(4):
        owner = obs.game.suit_owner[s]
        who = "nobody" if owner < 0 else seat_name(owner)
        if owner >= 0 and owner == obs.seat:
            who += " (you)"
        parts.append(f"{SUITS[s]}={who}")
    return Text("Trumps: " + "  ".join(parts))


def render_players(obs: Observation, seats: Sequence[SeatInfo]) -> Text:
    """One line per seat: name, own suits, hand size, and the public facts about it
    (to act, out in which place, cards publicly known to be in the hand)."""
    out = Text()
    place = {s: i + 1 for i, (s, _kind) in enumerate(obs.outs)}
    kinds = dict(obs.outs)
    for i, info in enumerate(seats):
        marker = ">" if obs.to_act == i else " "
        you = " (you)" if obs.seat == i and info.name != "You" else ""
        line = Text(f"{marker} {info.label(i)}{you}"[:23].ljust(24))
        line.append(f" owns {_own_suits(obs, i):<2}")
        size = obs.hand_sizes[i]
        line.append(f"  {size:>2} card{'s' if size != 1 else ' '}")
        if i in place:
            line.append(f"  out #{place[i]} ({kinds[i]})")
        elif obs.to_act == i:
            line.append("  to act")
        known = obs.known[i]
        if obs.seat != i and known and not obs.game.rules.is_besicovitch:
            shown = display_order(known)
            extra = "" if len(shown) <= 4 else f" +{len(shown) - 4}"
            line.append(f"  holds {' '.join(fmt_card(c) for c in shown[:4])}{extra}")
        out.append_text(line)
        out.append("\n")
    out.rstrip()
    return out


def render_known(obs: Observation, seats: Sequence[SeatInfo], unicode: bool = False) -> Text:
    """Every card publicly known to be in another player's hand (the board's
    ``holds`` column shows only the first few)."""
    out = Text("Cards known to be in other hands:")
    any_known = False
    for i, info in enumerate(seats):
        if i == obs.seat or not obs.known[i]:
            continue
        any_known = True
        out.append(f"\n  {info.label(i)}: {fmt_cards(display_order(obs.known[i]), unicode)}")
    if not any_known:
        out.append(" none")
    return out


def top_card_label(obs: Observation, top: Card) -> str:
    """Whose trump the top card is, relative to the viewer (SPEC A8: trumps are relative)."""
    owner = obs.game.suit_owner[suit_of(top)]
    if owner < 0:
        return "nobody's trump"
    if owner == obs.seat:
        return "your trump"
    return f"{seat_name(owner)}'s trump" + (", plain for you" if obs.seat is not None else "")


def render_pile(obs: Observation, unicode: bool = False, full: bool = False) -> Text:
    """The pile: its size and top card, or (``full``) every card bottom to top.

    With ``pile_visibility="table"`` (SPEC A15.5) a player sees only the top card,
    plus, on their own turn, the cards a refusal would take and the one below.
    """
    pile = obs.pile
    if not pile:
        return Text("Pile: empty")
    top = pile[-1]
    line = Text(f"Pile: {len(pile)} card{'s' if len(pile) != 1 else ''}, top ")
    line.append_text(card_text(top, unicode))
    line.append(f" ({top_card_label(obs, top)})")
    if obs.to_act is not None and obs.phase == FREE:
        line.append(" - free lead on top")
    if full:
        line.append("\n")
        if obs.game.rules.pile_visibility == "table" and obs.seat is not None:
            k = obs.pickup_count() if obs.my_turn else 1
            window = list(pile[-(k + 1) :])
            hidden = len(pile) - len(window)
            line.append(f"  bottom..top: {'... ' * bool(hidden)}" + fmt_cards(window, unicode))
            if hidden:
                line.append(f"  ({hidden} older card{'s' * (hidden != 1)} face down)")
        else:
            line.append("  bottom..top: " + fmt_cards(pile, unicode))
    return line


def render_hand(
    obs: Observation, seat: int | None = None, unicode: bool = False, hand: CardSet | None = None
) -> Text:
    """A hand sorted by suit (S H D C, high to low), one line per suit, own suits
    labelled ``yours`` and the cards that may beat the top card in brackets."""
    seat = obs.seat if seat is None else seat
    if seat is None:
        return Text("")
    cards = obs.hands[seat] if hand is None else hand
    beat = obs.beat_options() if seat == obs.seat else 0
    mine = seat == obs.seat
    title = "Your hand" if mine else f"{seat_name(seat)}'s hand"
    out = Text(f"{title}, {cards.bit_count()} card{'s' if cards.bit_count() != 1 else ''}:")
    own_mask = obs.game.owners[seat]
    for s in range(4):
        suit_cards = [c for c in display_order(cards) if suit_of(c) == s]
        if not suit_cards:
            continue
        own = bool(own_mask >> s & 1)
        owner = obs.game.suit_owner[s]
        if own:
            tag = "trump" if not mine else "yours"
        elif owner < 0:
            tag = "nobody's"
        else:
            tag = f"{seat_name(owner)}'s"
        out.append(f"\n  {SUITS[s]} {tag:<9}")
        for c in suit_cards:
            out.append(" ")
            out.append_text(card_text(c, unicode, own=own, beat=bool(beat >> c & 1)))
    return out


def render_hand_line(obs: Observation, seat: int, hand: CardSet, unicode: bool = False) -> Text:
    """Another seat's face-up hand on one line, suits separated by ``|``, its own
    suits marked with ``*`` (open Besicovitch hands, replays of finished games)."""
    out = Text(f"{seat_name(seat)}'s hand ({hand.bit_count()}):")
    own_mask = obs.game.owners[seat]
    for s in range(4):
        suit_cards = [c for c in display_order(hand) if suit_of(c) == s]
        if not suit_cards:
            continue
        own = bool(own_mask >> s & 1)
        out.append(" *" if own else "  ")
        for k, c in enumerate(suit_cards):
            if k:
                out.append(" ")
            out.append_text(card_text(c, unicode, own=own))
    return out


def refusal_cost(obs: Observation) -> tuple[list[Card], Card | None]:
    """What a refusal by the player to act would take now (top first), and the
    card that would become the new top (SPEC A10.4: the actor may look at both)."""
    k = obs.pickup_count()
    if not k:
        return [], None
    taken = list(obs.pile[-k:])[::-1]
    below = obs.pile[-k - 1] if len(obs.pile) > k else None
    return taken, below


def render_refusal(obs: Observation, unicode: bool = False) -> Text:
    """``Pick up 3: 9D 6H QS; new top 8C`` for the player to act."""
    taken, below = refusal_cost(obs)
    if not taken:
        return Text("")
    out = Text(f"Refusing picks up {len(taken)}: {fmt_cards(taken, unicode)}")
    if below is None:
        out.append("; the pile is then empty")
    else:
        out.append(f"; new top {fmt_card(below, unicode)}")
    return out


def render_beats(obs: Observation, unicode: bool = False) -> Text:
    """Which cards may beat the top card, in words (the brackets' meaning)."""
    if not obs.my_turn or obs.phase != RESPOND or obs.top is None:
        return Text("")
    opts = display_order(obs.beat_options())
    top = fmt_card(obs.top, unicode)
    if not opts:
        return Text(f"Nothing in your hand beats {top}: you must pick up (p).")
    if obs.hand.bit_count() == 1:
        return Text(
            f"Beat {top} with your last card [{fmt_cards(opts, unicode)}] and you go out "
            "on a defence."
        )
    return Text(f"Beat {top} with [ ]: {fmt_cards(opts, unicode)}, then lead one card.")


def open_opponent(obs: Observation) -> tuple[int, CardSet] | None:
    """When only the viewer and one opponent hold cards, that opponent's hand is
    public: every card not in the viewer's hand, the pile or the discard is in it.
    Returns ``(seat, hand)`` then, else ``None`` (also when the pile is shown only
    in part, ``pile_visibility="table"``, since older pile cards are then unseen)."""
    seat = obs.seat
    if seat is None or obs.phase == OVER or obs.game.rules.pile_visibility == "table":
        return None
    holders = [i for i, size in enumerate(obs.hand_sizes) if size]
    if len(holders) != 2 or seat not in holders:
        return None
    opp = holders[0] if holders[1] == seat else holders[1]
    hand = obs.unseen() | obs.known[opp]
    if hand.bit_count() != obs.hand_sizes[opp]:
        return None
    return opp, hand


def render_turn(
    seat: int, move: Move, taken: CardSet, seats: Sequence[SeatInfo], unicode: bool = False
) -> str:
    """One past turn, e.g. ``C bot: pickup 3: 9D 6H QS``."""
    who = seats[seat].label(seat)
    if move.is_pickup:
        cards = display_order(taken)
        return f"{who}: pickup {len(cards)}: {fmt_cards(cards, unicode)}"
    return f"{who}: {fmt_move(move, unicode)}"


def render_log(
    obs: Observation,
    seats: Sequence[SeatInfo],
    unicode: bool = False,
    last: int | None = DEFAULT_LOG_TURNS,
) -> Text:
    """The last turns of this hand (all with ``last=None``), outs noted."""
    hist = obs.history
    start = 0 if last is None else max(0, len(hist) - last)
    # An out player never acts again, so its last turn is the one it went out on.
    last_turn = {seat: idx for idx, (seat, _m, _t) in enumerate(hist)}
    out_turns = {last_turn[seat]: kind for seat, kind in obs.outs if seat in last_turn}
    text = Text(f"Turns {start + 1}-{len(hist)} of this hand:" if hist else "No turns yet.")
    if start:
        text = Text(f"Last {len(hist) - start} of {len(hist)} turns:")
    for idx in range(start, len(hist)):
        seat, move, taken = hist[idx]
        line = render_turn(seat, move, taken, seats, unicode)
        if idx in out_turns:
            line += f"  (out on a {out_turns[idx]})"
        text.append(f"\n  {line}")
    return text


def render_board(
    obs: Observation,
    seats: Sequence[SeatInfo],
    *,
    unicode: bool = False,
    header: str = "",
    log_turns: int | None = DEFAULT_LOG_TURNS,
    reveal: Mapping[int, CardSet] | None = None,
    turn_help: bool = True,
) -> RenderableType:
    """Everything a player at a real table sees on their turn, for ``obs.seat``.

    ``reveal`` adds hands to show face up (only for replays of finished games,
    and for the open hands of the Besicovitch game, which the observation holds).
    ``turn_help`` adds what the viewer may do now (beats, refusal cost), for play.
    """
    parts: list[RenderableType] = []
    if header:
        parts.append(Text(header, style="bold"))
    parts.append(render_trumps(obs, seats))
    parts.append(render_players(obs, seats))
    if obs.history:
        parts.append(render_log(obs, seats, unicode, log_turns))
    parts.append(render_pile(obs, unicode))
    shown: dict[int, CardSet] = {}
    if obs.game.rules.is_besicovitch:
        shown.update({i: obs.hands[i] for i in range(obs.game.n) if i != obs.seat})
    if reveal:
        shown.update({i: h for i, h in reveal.items() if i != obs.seat})
    opened = open_opponent(obs) if not obs.game.rules.is_besicovitch else None
    if opened is not None:
        opp, hand = opened
        shown[opp] = hand
        parts.append(
            Text(
                f"Open position: only you and {seats[opp].label(opp)[:20]} hold cards; "
                f"{seat_name(opp)}'s hand is known."
            )
        )
    lines = [render_hand_line(obs, i, shown[i], unicode) for i in sorted(shown) if shown[i]]
    if lines:
        parts.append(Text("Face-up hands (* marks own trump suits):"))
        parts.extend(lines)
    if obs.seat is not None and obs.phase != OVER:
        parts.append(render_hand(obs, unicode=unicode))
        if obs.my_turn and turn_help:
            if obs.phase == RESPOND:
                parts.append(render_beats(obs, unicode))
                parts.append(render_refusal(obs, unicode))
            elif obs.hand.bit_count() == 1:
                parts.append(Text("Free lead: play your last card and you go out on a lead."))
            else:
                parts.append(Text("Free lead: play any one card."))
    return Group(*parts)


def render_menu(moves: Sequence[Move], unicode: bool = False, width: int = 80) -> Text:
    """The legal moves numbered for the ``moves`` menu: one per line with the full
    notation when few, else in columns of the short form (a hand of 20 cards
    facing a beatable card has well over a hundred moves)."""
    short = [
        "p" if m.is_pickup else " ".join(fmt_card(c, unicode) for c in m.cards()) for m in moves
    ]
    out = Text()
    if len(moves) <= 12:
        for k, (m, s) in enumerate(zip(moves, short, strict=True), 1):
            out.append(f"  {k:>2}. {s:<7} {fmt_move(m, unicode)}\n")
    else:
        cell = max(len(f"{len(moves)}. {s}") for s in short) + 3
        per_row = max(1, (width - 2) // cell)
        row = ""
        for k, s in enumerate(short, 1):
            row += f"{k}. {s}".ljust(cell)
            if k % per_row == 0 or k == len(short):
                out.append("  " + row.rstrip() + "\n")
                row = ""
        out.append("  (p = pick up; two cards = beat with the first, lead the second)")
    out.rstrip()
    return out


def render_result(
    result: Outcome | None, outs: Sequence[tuple[int, str]], seats: Sequence[SeatInfo]
) -> Text:
    """The end of a hand: who went out in which order, and the loser or the draw."""
    out = Text("Hand over. Went out, in order:" if outs else "Hand over. Nobody went out.")
    for k, (s, kind) in enumerate(outs):
        out.append(f"\n  {k + 1}. {seats[s].label(s)} (on a {kind})")
    if result is None:
        out.append("\nThe hand was abandoned.")
    elif result.loser is None:
        why = {
            Termination.LAST_CARD: "the last player's single card beats the final lead",
            Termination.REPETITION: "the same position came back too often",
            Termination.ACTION_CAP: "the hand reached the action cap",
        }.get(result.termination, result.termination.value)
        out.append(f"\nDraw: {why}.", style="bold")
    else:
        out.append(f"\nDurak (loser): {seats[result.loser].label(result.loser)}", style="bold")
        if result.termination == Termination.ACTION_CAP:
            out.append(" (most cards at the action cap)")
    return out


def render_score(session: Session, seats: Sequence[SeatInfo]) -> Text:
    """Session standings: losses (or points) per seat, and the target."""
    rules = session.rules
    if rules.session_mode == "losses":
        k = rules.loss_limit
        goal = f"{k} loss{'es' * (k != 1)} end{'s' * (k == 1)} the session"
        vals, what = session.losses, "losses"
    else:
        vals, what, goal = session.points, "points", f"first to {rules.points_target} points wins"
    out = Text(f"Score after {len(session.hands)} hand{'s' * (len(session.hands) != 1)} ")
    out.append(f"({what}; {goal}):")
    for i, info in enumerate(seats):
        out.append(f"\n  {info.label(i)[:29]:<30} {vals[i]}")
    return out


def render_session_end(session: Session, seats: Sequence[SeatInfo]) -> Text:
    """The end of a session: the overall durak (losses) or the winner (points)."""
    out = Text("Session over.", style="bold")
    durak = session.durak
    if durak is not None:
        out.append(f" Overall durak: {seats[durak].label(durak)} ")
        k = session.losses[durak]
        out.append(f"({k} loss{'es' * (k != 1)}).")
    winners = session.winners
    if winners:
        names = ", ".join(seats[w].label(w) for w in winners)
        out.append(f"\nWinner{'s' * (len(winners) > 1)}: {names}.")
    return out


def make_console(
    *, file: io.TextIOBase | None = None, width: int | None = None, color: bool | None = None
) -> Console:
    """A console that honours ``NO_COLOR``: with colour off, no escape codes at all
    (rich's own ``no_color`` keeps bold and reverse; ``color_system=None`` drops them)."""
    import os

    if color is None:
        color = "NO_COLOR" not in os.environ or not os.environ["NO_COLOR"]
    kwargs: dict[str, object] = {"highlight": False, "emoji": False, "markup": False}
    if file is not None:
        kwargs["file"] = file
    if width is not None:
        kwargs["width"] = width
    if not color:
        kwargs["color_system"] = None
        kwargs["no_color"] = True
    return Console(**kwargs)  # type: ignore[arg-type]


def to_text(renderable: RenderableType, width: int = 80, color: bool = False) -> str:
    """Render to a string (for tests and for the ``--all`` replay): ``color=False``
    yields plain text with no escape codes."""
    buf = io.StringIO()
    console = Console(
        file=buf,
        width=width,
        color_system="standard" if color else None,
        force_terminal=color,
        highlight=False,
        emoji=False,
        markup=False,
    )
    console.print(renderable)
    return buf.getvalue()
