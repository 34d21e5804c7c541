"""Per-viewer table views, built only from that viewer's observation.

This is the one place where server state turns into what a client receives.
Every card in a view comes from :func:`~svoi_kozyri.core.observe` for the
viewer's seat (``None`` for spectators): their own hand, the public pile, the
public turns and pickups, the publicly known cards of each hand.  The full
:class:`~svoi_kozyri.core.State` is never serialised.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core import (
    PHASE_NAMES,
    RESPOND,
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
from ..wire.schemas import HandView, LogEntry, ResultView, SeatView, SessionView, TableView
from .game import TableGame

LOG_LIMIT = 100
"""A view carries at most the last this many turns (the replay has them all)."""
HANDS_LIMIT = 10
"""A view carries the results of at most the last this many hands (issue 13,
defect 2: the whole list made every message grow with the session)."""


LOG_CACHE = 100_000
"""Log entries kept built (cleared when full): an entry is the same for every
viewer and every later view of its hand, so each is built once, not once per
view (issue 26, item 6: building the last 100 turns was most of a view's cost)."""
_log_entries: dict[tuple[int, str], LogEntry] = {}


def _log_entry(code: int, by: str) -> LogEntry:
    """The view of one turn of the log (its engine code and who chose it), built once."""
    key = (code, by)
    entry = _log_entries.get(key)
    if entry is None:
        seat, move, picked = decode_log_entry(code)
        entry = LogEntry.model_construct(
            seat=seat,
            move=str(move),
            picked=format_cards(picked).split() if picked else [],
            by=by,
        )
        if len(_log_entries) >= LOG_CACHE:
            _log_entries.clear()
        _log_entries[key] = entry
    return entry


_card_lists: dict[int, list[str]] = {}


HAND_LOGS = 20_000
"""Hands whose log entries are kept as a list (cleared when full)."""
_hand_logs: dict[int, tuple[Sequence[str], tuple[int, ...], list[LogEntry]]] = {}


def _hand_log(codes: tuple[int, ...], by: Sequence[str]) -> list[LogEntry]:
    """Every turn of a hand as log entries (``codes``: its engine log, ``by``: who
    chose each turn).  A table's hand only grows, turn by turn, with its ``by``
    list (a new list each hand), so the entries built for its last view are
    kept and only the new turns are added, when that view's turns are a prefix
    of these; turns without a ``by`` (``"player"``) are built afresh."""
    nby = len(by)
    cached = _hand_logs.get(id(by))
    done: list[LogEntry] = []
    if cached is not None and cached[0] is by:  # the list is kept: its id is not reused
        known = cached[1]
        if codes[: len(known)] == known:
            done = cached[2]
    upto = min(len(codes), nby)
    if len(done) < upto:
        done = done + [_log_entry(codes[i], by[i]) for i in range(len(done), upto)]
        if len(_hand_logs) >= HAND_LOGS:
            _hand_logs.clear()
        _hand_logs[id(by)] = (by, codes[:upto], done)
    elif len(done) > upto:
        done = done[:upto]
    if upto < len(codes):
        return done + [_log_entry(codes[i], "player") for i in range(upto, len(codes))]
    return done


def _cards(mask: int) -> list[str]:
    """A set of cards as shown, in display order (a hand recurs in every view
    until it changes: each is worked out once; the caller's model copies it)."""
    cards = _card_lists.get(mask)
    if cards is None:
        cards = [format_card(c) for c in display_order(mask)]
        if len(_card_lists) >= LOG_CACHE:
            _card_lists.clear()
        _card_lists[mask] = cards
    return cards


def result_view(result: Outcome) -> ResultView:
    """A hand result as shown to everybody."""
    why = result.termination
    if result.loser is None:
        text = "draw" + (" (last card beats the lead)" if why is Termination.LAST_CARD else "")
        if why.adjudicated:
            text = f"draw ({why.value.replace('_', ' ')})"
    else:
        text = f"{seat_name(result.loser)} loses" + (
            " (action cap)" if why is Termination.ACTION_CAP else ""
        )
    return ResultView(loser=result.loser, reason=why.value, text=text)


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
) -> HandView:
    """The hand as ``viewer`` sees it (``obs``: the viewer's observation of
    ``state`` when the caller has made it already)."""
    if obs is None:
        obs = observe(state, viewer)
    pile, full = _visible_pile(obs)
    codes = obs.log
    start = max(0, len(codes) - LOG_LIMIT)
    log = _hand_log(codes, by)[start:]
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
        legal=[str(m) for m in obs.legal_moves()],
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
) -> TableView:
    """The whole table as ``viewer`` (a seat, or ``None`` for a spectator) sees it."""
    st = table.state
    obs = observe(st, viewer) if st is not None else None
    game = st.game if st is not None else table.session.game
    seats = []
    for i, info in enumerate(table.seats):
        suits = game.owners_str()[seat_name(i)]
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
        hand=hand_view(st, viewer, table.hand_number, table.by, deadline, obs)
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
