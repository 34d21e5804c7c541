"""Per-viewer table views, built only from that viewer's observation.

This is the one place where server state turns into what a client receives.
Every card in a view comes from :func:`~svoi_kozyri.core.observe` for the
viewer's seat (``None`` for spectators): their own hand, the public pile, the
public turns and pickups, the publicly known cards of each hand.  The full
:class:`~svoi_kozyri.core.State` is never serialised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ...core import (
    PHASE_NAMES,
    RESPOND,
    Move,
    Observation,
    Outcome,
    State,
    Termination,
    display_order,
    format_card,
    format_cards,
    observe,
    seat_name,
)
from ...core.moves import decode_log_entry
from ..wire.schemas import (
    HandView,
    LogEntry,
    ResultView,
    SeatView,
    ServerState,
    SessionView,
    TableView,
)
from .game import TableGame

LOG_LIMIT = 100
"""A view carries at most the last this many turns (the replay has them all)."""
HANDS_LIMIT = 10
"""A view carries the results of at most the last this many hands (issue 13,
defect 2: the whole list made every message grow with the session)."""


LOG_CACHE = 100_000
"""Bound of the views' caches (least recently used first out): a log entry, a
card list, a move's notation are the same for every viewer and every later
view, so each is built once, not once per view (issue 26, item 6: building the
last 100 turns was most of a view's cost)."""


@lru_cache(maxsize=LOG_CACHE)
def _log_entry(code: int, by: str) -> tuple[LogEntry, str]:
    """The view of one turn of the log (its engine code and who chose it) and its
    JSON, built once."""
    seat, move, picked = decode_log_entry(code)
    entry = LogEntry(
        seat=seat,
        move=str(move),
        picked=format_cards(picked).split() if picked else [],
        by=by,
    )
    return entry, entry.model_dump_json()


HAND_LOGS = 20_000
"""Hands whose log entries are kept as lists (cleared when full)."""


@dataclass(frozen=True)
class _HandLog:
    """A hand's turns so far as log entries and as their JSON (parallel lists)."""

    by: Sequence[str]
    codes: tuple[int, ...]
    entries: list[LogEntry]
    json: list[str]


_hand_logs: dict[int, _HandLog] = {}


def _hand_log(codes: tuple[int, ...], by: Sequence[str]) -> tuple[list[LogEntry], list[str]]:
    """Every turn of a hand as log entries and their JSON (``codes``: its engine
    log, ``by``: who chose each turn).  A table's hand only grows, turn by turn,
    with its ``by`` list (a new list each hand), so the entries built for its
    last view are kept and only the new turns are added, when that view's turns
    are a prefix of these; turns without a ``by`` (``"player"``) are built afresh."""
    nby = len(by)
    cached = _hand_logs.get(id(by))
    entries: list[LogEntry] = []
    texts: list[str] = []
    # the by list is kept in the cache, so its id is not reused by another list
    if cached is not None and cached.by is by and codes[: len(cached.codes)] == cached.codes:
        entries, texts = cached.entries, cached.json
    upto = min(len(codes), nby)
    if len(entries) < upto:
        new = [_log_entry(codes[i], by[i]) for i in range(len(entries), upto)]
        entries = entries + [e for e, _ in new]
        texts = texts + [t for _, t in new]
        if len(_hand_logs) >= HAND_LOGS:
            _hand_logs.clear()
        _hand_logs[id(by)] = _HandLog(by, codes[:upto], entries, texts)
    elif len(entries) > upto:
        entries, texts = entries[:upto], texts[:upto]
    if upto < len(codes):
        rest = [_log_entry(codes[i], "player") for i in range(upto, len(codes))]
        return entries + [e for e, _ in rest], texts + [t for _, t in rest]
    return entries, texts


@lru_cache(maxsize=LOG_CACHE)
def _cards(mask: int) -> list[str]:
    """A set of cards as shown, in display order (a hand recurs in every view
    until it changes; the caller's model copies the list)."""
    return [format_card(c) for c in display_order(mask)]


@lru_cache(maxsize=LOG_CACHE)
def _move_text(move: Move) -> str:
    """A move's notation (moves are interned): a hand of twenty cards has
    hundreds of two-card turns, each in every view."""
    return str(move)


def result_view(result: Outcome) -> ResultView:
    """A hand result as shown to everybody (one model per kind of result: the
    session's last ten are in every view)."""
    return _result_view(result.loser, result.termination)


@lru_cache(maxsize=64)
def _result_view(loser: int | None, why: Termination) -> ResultView:
    if loser is None:
        text = "draw" + (" (last card beats the lead)" if why is Termination.LAST_CARD else "")
        if why.adjudicated:
            text = f"draw ({why.value.replace('_', ' ')})"
    else:
        text = f"{seat_name(loser)} loses" + (
            " (action cap)" if why is Termination.ACTION_CAP else ""
        )
    return ResultView(loser=loser, reason=why.value, text=text)


def _visible_pile(obs: Observation) -> tuple[list[str], bool]:
    """The pile as shown: everything, or with ``pile_visibility="table"`` the top card
    and, for the player to act, the pickup window plus one card (SPEC A15.2)."""
    pile = [format_card(c) for c in obs.pile]
    if obs.game.rules.pile_visibility == "full" or not pile:
        return pile, True
    k = 1
    if obs.my_turn and obs.phase == RESPOND:
        k = obs.pickup_count() + 1
    return pile[-k:], len(pile) <= k


def hand_view(
    state: State,
    viewer: int | None,
    number: int,
    by: Sequence[str],
    deadline: float | None,
    obs: Observation | None = None,
    log_json: list[str] | None = None,
) -> HandView:
    """The hand as ``viewer`` sees it (``obs``: the viewer's observation of
    ``state`` when the caller has made it already).  With ``log_json`` the view's
    ``log`` is left empty and its JSON is appended there instead
    (:func:`state_message` puts it in place)."""
    if obs is None:
        obs = observe(state, viewer)
    pile, full = _visible_pile(obs)
    codes = obs.log
    start = max(0, len(codes) - LOG_LIMIT)
    entries, texts = _hand_log(codes, by)
    if log_json is None:
        log = entries[start:]
    else:
        log = []
        log_json.append(",".join(texts[start:]))
    open_hands = (
        {i: _cards(h) for i, h in enumerate(obs.hands)} if obs.game.rules.is_besicovitch else None
    )
    return HandView(
        number=number,
        dealer=obs.dealer,
        hand=_cards(obs.hand),
        open_hands=open_hands,
        pile=pile,
        pile_size=len(obs.pile),
        pile_full=full,
        top=format_card(obs.top) if obs.top is not None else None,
        to_act=obs.to_act,
        mode=None if obs.to_act is None else PHASE_NAMES[obs.phase],
        legal=[_move_text(m) for m in obs.legal_moves()],
        pickup_count=obs.pickup_count(),
        log=log,
        log_start=start,
        transfers=[(format_card(c), a, b) for c, a, b in obs.transfers],
        result=result_view(obs.outcome) if obs.outcome is not None else None,
        deadline_s=deadline,
        out_order=[seat for seat, _kind in obs.outs],
    )


def table_view(
    table: TableGame,
    viewer: int | None,
    connected: Sequence[bool],
    standin: Sequence[bool],
    deadline: float | None = None,
    paused: bool = False,
    log_json: list[str] | None = None,
) -> TableView:
    """The whole table as ``viewer`` (a seat, or ``None`` for a spectator) sees it
    (``log_json``: see :func:`hand_view`)."""
    st = table.state
    obs = observe(st, viewer) if st is not None else None
    game = st.game if st is not None else table.session.game
    seats = []
    owned = game.owners_str()
    for i, info in enumerate(table.seats):
        suits = owned[seat_name(i)]
        out = None
        if obs is not None:
            out = next((kind for s, kind in obs.outs if s == i), None)
        seats.append(
            SeatView(
                seat=i,
                letter=seat_name(i),
                name=table.seat_label(i),
                kind="bot" if info.kind == "bot" else "human",
                bot=info.bot,
                taken=info.taken,
                connected=info.kind == "bot" or connected[i],
                standin=standin[i],
                suits=suits,
                hand_size=obs.hand_sizes[i] if obs is not None else 0,
                known=_cards(obs.known[i]) if obs is not None else [],
                out=out,
            )
        )
    sess = table.session
    rules = table.rules
    mode = rules.session_mode
    hands_start = max(0, len(sess.hands) - HANDS_LIMIT)
    return TableView(
        table_id=table.table_id,
        title=table.config.title,
        status=table.status,  # type: ignore[arg-type]
        closed=table.closed,
        version=table.version,
        viewer=viewer,
        rules=table.rules_dict,
        turn_timer_s=table.config.turn_timer_s,
        grace_s=table.config.grace_s,
        hand_pause_s=table.config.hand_pause_s,
        paused=paused,
        seats=seats,
        hand=hand_view(st, viewer, table.hand_number, table.by, deadline, obs, log_json)
        if st is not None
        else None,
        session=SessionView(
            mode=mode,
            target=rules.loss_limit if mode == "losses" else rules.points_target,
            losses=sess.losses,
            points=sess.points,
            hands=[result_view(h.outcome) for h in sess.hands[hands_start:]],
            hands_start=hands_start,
            hands_played=len(sess.hands),
            over=sess.over,
            winners=sess.winners,
            durak=sess.durak,
        ),
    )


_EMPTY_LOG = '"log":[]'


def state_message(
    table: TableGame,
    viewer: int | None,
    connected: Sequence[bool],
    standin: Sequence[bool],
    deadline: float | None = None,
    paused: bool = False,
) -> str:
    """The ``state`` message of :func:`table_view` as JSON, the same text as
    ``ServerState(view=table_view(...)).model_dump_json()``, made quicker: the
    hand's log (up to 100 turns, each validated and serialised again in every
    view) goes in as the JSON kept with its entries.  The view is made with an
    empty log and that is replaced: ``"log":[]`` can stand in the text only as
    the hand's key, since inside a JSON string every quote follows a backslash
    (anything else falls back to the plain way)."""
    log_json: list[str] = []
    view = table_view(table, viewer, connected, standin, deadline, paused, log_json)
    text = ServerState(view=view).model_dump_json()
    if not log_json:
        return text
    if text.count(_EMPTY_LOG) != 1:
        view = table_view(table, viewer, connected, standin, deadline, paused)
        return ServerState(view=view).model_dump_json()
    return text.replace(_EMPTY_LOG, '"log":[' + log_json[0] + "]", 1)
