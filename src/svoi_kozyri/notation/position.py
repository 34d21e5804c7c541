"""Position notation: one line of text for any state of a hand (like chess FEN).

A position is eight space-separated fields, plus an optional ninth::

    owners hands pile to_act mode outs discard turns [rules]

    C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0

1. ``owners``: each seat's own suits, seats separated by ``/`` (``C/D/H/S``,
   ``SC/HD``); in the Besicovitch game ``trump+other``: ``S+C/D+H``.  The number
   of seats is the number of players.
2. ``hands``: each seat's hand, ``/``-separated, cards written without spaces
   and ``T`` for ten (``KS8H9C6C``, ``QSTH6D``); ``-`` is an empty hand.
3. ``pile``: bottom to top, compact; ``-`` if empty.
4. ``to_act``: the seat letter, ``-`` once the hand is over.
5. ``mode``: ``free``, ``respond`` or ``lead`` (mid-turn: a beat awaits its
   lead); once over, the result: ``loser=B``, ``loser=B:action_cap``,
   ``draw=last_card``, ``draw=repetition``, ``draw=action_cap`` (``over`` for a
   state ended without a result, which only ``Game.position`` can build).
6. ``outs``: seats out, in order, with ``d``/``l`` for a defence or lead
   (``Bd,Dl``); ``-`` if none.
7. ``discard``: compact card set (``defence_out_pile=discard``); ``-`` if empty.
8. ``turns``: the turn counter (it drives the action cap of SPEC D).
9. ``rules``: only the SPEC C9 options that differ from the defaults, as
   ``key=value,key=value`` (``pickup_rule=fixed``, ``variant=besicovitch``,
   ``repetition_limit=null``); absent or ``-`` means the defaults.  The number of
   players and, for two players, the trumps per player follow from the owners.

Parsing is forgiving where that cannot mislead (any letter case, ``10`` for ten,
Unicode suit symbols) and strict otherwise: every error is a
:class:`~svoi_kozyri.core.PositionError` naming the field and what is wrong.
The notation is the state's complete public-and-private content as compared by
``State.__eq__`` plus the turn counter; the repetition history starts afresh
from a parsed position, as for any position start (scenario FORMAT).

A *public* variant hides hands for one viewer (:func:`format_observation`):
a hidden hand is its publicly known cards followed by ``?N`` for ``N`` unknown
cards (``6C?8``); :func:`parse_position` refuses it with a clear message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..core import (
    OVER,
    PHASE_NAMES,
    SEAT_LETTERS,
    SUITS,
    Card,
    CardError,
    CardSet,
    Game,
    MalformedError,
    Observation,
    Outcome,
    PositionError,
    Rules,
    RulesError,
    State,
    display_order,
    format_card,
    mask_of,
    parse_card,
    parse_card_list,
    parse_cards,
    seat_name,
)
from ..core.rules import parse_option_value

__all__ = [
    "format_cards_compact",
    "format_observation",
    "format_owners",
    "format_position",
    "format_result",
    "format_rules",
    "parse_cards_compact",
    "parse_game",
    "parse_owners",
    "parse_position",
    "parse_result",
    "parse_rules",
    "position_from_text",
]

FIELD_NAMES = ("owners", "hands", "pile", "to_act", "mode", "outs", "discard", "turns", "rules")

_CARD_RE = re.compile(r"(10|[5-9TJQKA])([SHDC♠♥♦♣])", re.IGNORECASE)
_INT_RE = re.compile(r"[+-]?\d+")


def _err(field: int, msg: str) -> PositionError:
    return PositionError(f"position field {field} ({FIELD_NAMES[field - 1]}): {msg}")


# --------------------------------------------------------------------------- cards


def format_cards_compact(cards: CardSet | Iterable[Card]) -> str:
    """Cards without separators, ``T`` for ten, ``-`` for none.

    A set (an ``int``) is written in the SPEC's display order (suits S H D C,
    high to low); a sequence keeps its order (the pile, bottom to top).
    """
    seq = display_order(cards) if isinstance(cards, int) else list(cards)
    return "".join(format_card(c, ten="T") for c in seq) or "-"


def parse_cards_compact(text: str, what: str = "cards") -> list[Card]:
    """Parse compact cards (``KS8H9C6C``, ``10H``/``TH``, ``-`` for none), in order.

    Raises :class:`~svoi_kozyri.core.CardError` saying where the text stops
    making sense, or which card is listed twice.
    """
    if text == "-":
        return []
    out: list[Card] = []
    seen = 0
    pos = 0
    while pos < len(text):
        m = _CARD_RE.match(text, pos)
        if m is None:
            raise CardError(
                f"cannot read {what} {text!r} at {text[pos:]!r}: expected cards such as "
                "KS, TH or 10H written without spaces, or '-' for none"
            )
        c = parse_card(m.group(0))
        if seen >> c & 1:
            raise CardError(f"card {format_card(c)} is listed twice in {what} {text!r}")
        seen |= 1 << c
        out.append(c)
        pos = m.end()
    if not out:
        raise CardError(f"empty {what}: write '-' for no cards")
    return out


# --------------------------------------------------------------------------- owners


def format_owners(game: Game) -> str:
    """The owners field: ``C/D/H/S``, ``SC/HD``, or ``S+C/D+H`` (Besicovitch)."""
    parts = []
    for seat, m in enumerate(game.owners):
        own = "".join(SUITS[s] for s in range(4) if m >> s & 1)
        if game.pairs is not None:
            other = game.pairs[seat] & ~m
            own += "+" + "".join(SUITS[s] for s in range(4) if other >> s & 1)
        parts.append(own)
    return "/".join(parts)


def parse_owners(text: str) -> tuple[list[int], list[int] | None]:
    """Parse the owners field into per-seat suit masks and, when written with
    ``+``, the Besicovitch pairs (trump plus other suit)."""
    parts = text.split("/")
    if not 2 <= len(parts) <= 4:
        raise _err(1, f"{text!r} lists {len(parts)} seats; a game has 2 to 4 players")
    owners: list[int] = []
    pairs: list[int] = []
    with_pairs = ["+" in p for p in parts]
    if any(with_pairs) and not all(with_pairs):
        raise _err(1, f"{text!r}: write trump+other for every seat or for none")
    for seat, part in enumerate(parts):
        trump_txt, _, other_txt = part.partition("+")
        if with_pairs[0] and not other_txt:
            raise _err(1, f"seat {seat_name(seat)} {part!r}: expected trump+other, e.g. S+C")
        masks = []
        for txt in (trump_txt, other_txt) if with_pairs[0] else (trump_txt,):
            m = 0
            if not txt:
                raise _err(1, f"seat {seat_name(seat)} owns no suit in {text!r}")
            for ch in txt:
                s = SUITS.find(ch.upper())
                if s < 0:
                    raise _err(1, f"unknown suit {ch!r} for seat {seat_name(seat)} (S H D C)")
                if m >> s & 1:
                    raise _err(1, f"suit {SUITS[s]} listed twice for seat {seat_name(seat)}")
                m |= 1 << s
            masks.append(m)
        owners.append(masks[0])
        if with_pairs[0]:
            if masks[0] & masks[1]:
                raise _err(1, f"seat {seat_name(seat)} {part!r}: trump and other suit coincide")
            pairs.append(masks[0] | masks[1])
    seen = 0
    for m in pairs if with_pairs[0] else owners:
        if seen & m:
            raise _err(1, f"{text!r}: two seats own the same suit")
        seen |= m
    return owners, (pairs if with_pairs[0] else None)


# --------------------------------------------------------------------------- rules


def _format_value(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def format_rules(rules: Rules) -> str:
    """The options differing from the defaults as ``key=value,...`` (``-`` if none).

    The number of players, and for two players the trumps per player, are left
    out: the owners field states them.
    """
    opts = rules.to_dict(only_changed=True)
    opts.pop("num_players", None)
    if rules.num_players == 2:
        opts.pop("trumps_per_player_2p", None)
    return ",".join(f"{k}={_format_value(v)}" for k, v in opts.items()) or "-"


def parse_rules_options(text: str) -> dict[str, Any]:
    """Parse ``key=value,key=value`` (``-`` or empty: no options) into a mapping.

    Values ``true``/``false``, ``null`` (also ``none`` for the two nullable
    guards; ``draw_rule=none`` is a string) and integers are converted.
    Raises :class:`~svoi_kozyri.core.RulesError` for a malformed item.
    """
    opts: dict[str, Any] = {}
    if text in ("", "-"):
        return opts
    for item in text.split(","):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key or not value.strip():
            raise RulesError(f"malformed option {item!r}: expected key=value")
        if key in opts:
            raise RulesError(f"option {key} is given twice")
        opts[key] = parse_option_value(key, value)
    return opts


def parse_rules(text: str, owners: list[int] | None = None) -> Rules:
    """Build :class:`~svoi_kozyri.core.Rules` from the rules field.  With
    ``owners`` (per-seat suit masks) the number of players and the two-player
    trumps per player are taken from them when not given."""
    opts = parse_rules_options(text)
    if owners is not None:
        n = len(owners)
        if "num_players" in opts and opts["num_players"] != n:
            raise RulesError(f"num_players={opts['num_players']} but the owners list {n} seats")
        opts["num_players"] = n
        if (
            n == 2
            and "trumps_per_player_2p" not in opts
            and opts.get("variant", "standard") != "besicovitch"
        ):
            opts["trumps_per_player_2p"] = owners[0].bit_count()
    return Rules.from_dict(opts)


# --------------------------------------------------------------------------- result


def format_result(result: Outcome, sep: str = "=") -> str:
    """``loser=B``, ``loser=B:action_cap``, ``draw=last_card`` (``sep`` between
    kind and detail; the records use a space)."""
    if result.loser is None:
        return f"draw{sep}{result.termination.value}"
    text = f"loser{sep}{seat_name(result.loser)}"
    if result.termination.value != "out":
        text += (":" if sep == "=" else sep) + result.termination.value
    return text


def parse_result(text: str, n: int = 4) -> Outcome:
    """Inverse of :func:`format_result` (``=`` or spaces between the parts).
    Raises :class:`~svoi_kozyri.core.PositionError` for anything else."""
    try:
        return Outcome.parse(text, n)
    except MalformedError as e:
        raise PositionError(str(e)) from None


# --------------------------------------------------------------------------- position


def _format_outs(outs: Iterable[tuple[int, str]]) -> str:
    return ",".join(f"{seat_name(s)}{kind[0]}" for s, kind in outs) or "-"


def format_position(state: State) -> str:
    """The one-line notation of ``state`` (omniscient: every hand is written).

    >>> from svoi_kozyri.core import Game
    >>> s = position_from_text(Game(owners="CDHS"), {"A": "KS 8H 9C 6C", "B": "QS 10H 6D",
    ...     "C": "6H 9D JC", "D": "7S 6S AH 8D"})
    >>> format_position(s)
    'C/D/H/S KS8H9C6C/QSTH6D/6H9DJC/7S6SAH8D - A free - - 0'
    """
    hands = "/".join(format_cards_compact(h) for h in state.hands)
    return _assemble(state, hands)


def _assemble(state: State | Observation, hands: str) -> str:
    game = state.game
    pile = state.pile_cards() if isinstance(state, State) else list(state.pile)
    if state.phase == OVER:
        to_act = "-"
        mode = format_result(state.outcome) if state.outcome is not None else "over"
    else:
        to_act = seat_name(state.to_act) if state.to_act is not None else "-"
        mode = PHASE_NAMES[state.phase]
    fields = [
        format_owners(game),
        hands,
        format_cards_compact(pile),
        to_act,
        mode,
        _format_outs(state.outs),
        format_cards_compact(state.discard),
        str(state.turns),
    ]
    rules = format_rules(game.rules)
    if rules != "-":
        fields.append(rules)
    return " ".join(fields)


def format_observation(obs: Observation) -> str:
    """The public position seen by ``obs.seat``: other hands as their publicly
    known cards plus ``?N`` unknown cards (``6C?8``, ``?9``; open in the
    Besicovitch game).  Safe to show that viewer; not parseable as a full state."""
    parts = []
    for i in range(obs.game.n):
        if obs.seat == i or obs.game.rules.is_besicovitch:
            parts.append(format_cards_compact(obs.hands[i]))
            continue
        known = obs.known[i]
        hidden = obs.hand_sizes[i] - known.bit_count()
        txt = format_cards_compact(known) if known else ""
        parts.append(txt + (f"?{hidden}" if hidden else "") or "-")
    return _assemble(obs, "/".join(parts))


def parse_game(owners_text: str, rules_text: str = "-") -> Game:
    """The :class:`~svoi_kozyri.core.Game` of an owners field and a rules field
    (fields 1 and 9 of a position; also the ``Owners`` and ``Rules`` record tags)."""
    owners, pairs = parse_owners(owners_text)
    try:
        rules = parse_rules(rules_text, owners)
    except RulesError as e:
        raise _err(9, str(e)) from None
    if pairs is not None and not rules.is_besicovitch:
        raise _err(1, "trump+other pairs are only for variant=besicovitch (rules field)")
    try:
        return Game(rules, owners, pairs)
    except PositionError as e:
        raise _err(1, str(e)) from None


def parse_position(text: str) -> State:
    """Parse the position notation into a :class:`~svoi_kozyri.core.State`.

    ``parse_position(format_position(s)) == s`` for every state.  Errors raise
    :class:`~svoi_kozyri.core.PositionError` naming the field.
    """
    if not isinstance(text, str):
        raise PositionError(f"a position must be text, not {type(text).__name__}")
    fields = text.split()
    if len(fields) not in (8, 9):
        raise PositionError(
            f"a position has 8 or 9 space-separated fields "
            f"({' '.join(FIELD_NAMES)}), not {len(fields)}: {text!r}"
        )
    game = parse_game(fields[0], fields[8] if len(fields) == 9 else "-")
    n = game.n
    hands = _parse_hands_field(fields[1], n)
    try:
        pile = parse_cards_compact(fields[2], "pile")
    except CardError as e:
        raise _err(3, str(e)) from None
    phase, result = _parse_mode_field(fields[4], n)
    to_act = _parse_to_act_field(fields[3], phase, n)
    outs = _parse_outs_field(fields[5], n)
    try:
        discard = mask_of(parse_cards_compact(fields[6], "discard"))
    except CardError as e:
        raise _err(7, str(e)) from None
    if not _INT_RE.fullmatch(fields[7]) or int(fields[7]) < 0:
        raise _err(8, f"{fields[7]!r}: expected a whole number >= 0")
    turns = int(fields[7])
    if result is not None and result.loser is not None and result.loser >= n:
        raise _err(5, f"loser {seat_name(result.loser)} is not a seat")
    try:
        return game.position(
            hands, pile, to_act, phase, outs, discard=discard, turns=turns, outcome=result
        )
    except PositionError as e:
        raise PositionError(f"position is inconsistent: {e}") from None


def _parse_hands_field(text: str, n: int) -> list[CardSet]:
    """Field 2: one hand per seat, ``/``-separated; a hidden hand (``?N``) is refused.

    Why apart: each field of :func:`parse_position` is read by its own function,
    so every error names its field."""
    hand_parts = text.split("/")
    if len(hand_parts) != n:
        raise _err(2, f"{len(hand_parts)} hands for {n} seats (one per seat, '-' if empty)")
    hands: list[CardSet] = []
    for seat, part in enumerate(hand_parts):
        if "?" in part:
            raise _err(
                2,
                f"seat {seat_name(seat)}'s hand {part!r} is hidden; a public view "
                "cannot be set up as a full position",
            )
        try:
            hands.append(mask_of(parse_cards_compact(part, f"seat {seat_name(seat)}'s hand")))
        except CardError as e:
            raise _err(2, str(e)) from None
    return hands


def _parse_mode_field(mode_txt: str, n: int) -> tuple[int, Outcome | None]:
    """Field 5: the phase (free, respond, lead) or, once the hand is over, its
    result (``loser=X``, ``draw=REASON``, or ``over`` without one)."""
    if mode_txt.lower() in ("free", "respond", "lead"):
        return PHASE_NAMES.index(mode_txt.lower()), None
    if mode_txt.lower() == "over":  # ended without a result (only built by hand)
        return OVER, None
    if "=" in mode_txt:
        try:
            result = parse_result(mode_txt, n)
        except PositionError as e:
            raise _err(5, str(e)) from None
        return OVER, result
    raise _err(5, f"{mode_txt!r}: expected free, respond, lead, loser=X or draw=REASON")


def _parse_to_act_field(to_act_txt: str, phase: int, n: int) -> int:
    """Field 4: the seat to act, ``-`` (read as -1) once the hand is over.

    Why after field 5: whether a seat must be named depends on the mode."""
    if phase == OVER:
        if to_act_txt != "-":
            raise _err(4, f"{to_act_txt!r}: nobody acts once the hand is over; write '-'")
        return -1
    t = to_act_txt.upper()
    if len(t) != 1 or t not in SEAT_LETTERS[:n]:
        raise _err(4, f"{to_act_txt!r}: expected one of {', '.join(SEAT_LETTERS[:n])}")
    return SEAT_LETTERS.index(t)


def _parse_outs_field(text: str, n: int) -> list[tuple[int, str]]:
    """Field 6: the seats out, in order, each with ``d`` (defence) or ``l`` (lead)."""
    outs: list[tuple[int, str]] = []
    if text != "-":
        for item in text.split(","):
            if len(item) != 2 or item[0].upper() not in SEAT_LETTERS[:n] or item[1] not in "dlDL":
                raise _err(6, f"{item!r}: expected a seat and d or l, e.g. Bd,Dl")
            seat = SEAT_LETTERS.index(item[0].upper())
            if any(s == seat for s, _ in outs):
                raise _err(6, f"seat {seat_name(seat)} is out twice")
            outs.append((seat, "defence" if item[1] in "dD" else "lead"))
    return outs


def position_from_text(
    game: Game,
    hands: Mapping[int | str, str] | Sequence[str],
    pile: str = "",
    to_act: int | str = 0,
    phase: int | str = "free",
    outs: Iterable[Sequence[Any]] = (),
    *,
    discard: str = "",
    turns: int = 0,
    known: Sequence[str] | None = None,
) -> State:
    """:meth:`Game.position` from loose card text (``"KS 8H"``, ``"10h,js"``, ``"6♦"``).

    The core takes typed card sets only; this is the text front of it, for tests,
    notebooks and scenario files, where cards are written the way people write
    them.  Card text is parsed with :func:`~svoi_kozyri.core.cards.parse_cards`
    (a :class:`~svoi_kozyri.core.CardError` names the bad card); everything else
    is checked by :meth:`Game.position` (a :class:`~svoi_kozyri.core.PositionError`).

    >>> s = position_from_text(Game(Rules(num_players=2)), {"A": "6S 7S", "B": "7H 8H"},
    ...                        pile="9D", to_act="B", phase="respond")
    >>> s.to_act, s.pile_cards() == [parse_card("9D")]
    (1, True)
    """
    typed: Mapping[int | str, CardSet] | list[CardSet]
    if isinstance(hands, Mapping):
        typed = {seat: parse_cards(_text(text, "hand")) for seat, text in hands.items()}
    elif isinstance(hands, str):
        raise PositionError("hands: expected one card text per seat, not one string")
    else:
        typed = [parse_cards(_text(text, "hand")) for text in hands]
    return game.position(
        typed,
        parse_card_list(_text(pile, "pile")),
        to_act,
        phase,
        outs,
        discard=parse_cards(_text(discard, "discard")),
        turns=turns,
        known=None if known is None else [parse_cards(_text(k, "known")) for k in known],
    )


def _text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise PositionError(f"{what}: expected card text, not {value!r}")
    return value
