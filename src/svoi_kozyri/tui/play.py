"""The terminal game: a session of hands between people at one screen and bots.

The loop holds the full :class:`State` (it is the dealer and the table), but
everything it shows goes through :func:`observe` for the seat whose turn it is,
and bots too receive only their own observation.  With several people at one
screen (hot seat) the screen is cleared after each person's move and the next
person must confirm before their hand is shown.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from ..bots import Agent, make_agent
from ..bots.catalogue import strongest_bot, validate_spec
from ..core import (
    Move,
    Observation,
    PositionError,
    Rules,
    Session,
    State,
    format_cards,
    observe,
    seat_name,
)
from .inputs import (
    HELP_TEXT,
    Command,
    InputError,
    completion_words,
    parse_input,
    short_notation,
)
from .prompter import Prompter
from .render import (
    SeatInfo,
    fmt_move,
    render_board,
    render_known,
    render_log,
    render_menu,
    render_pile,
    render_result,
    render_score,
    render_session_end,
    render_turn,
)

if TYPE_CHECKING:
    from ..records import GameRecord

__all__ = ["QuitGame", "TableSetup", "TerminalGame", "bot_label", "make_seats", "strongest_bot"]


class QuitGame(Exception):
    """The player asked to stop (``quit``, Ctrl-C or end of input)."""


@dataclass
class TableSetup:
    """Everything needed to start a session at the terminal."""

    rules: Rules
    seats: list[SeatInfo]
    seed: int | None = None
    delay: float = 0.3
    unicode: bool = False
    save: Path | None = None
    hint_bot: str | None = None
    tags: dict[str, str] = field(default_factory=dict)
    #: ``undo`` at a person's prompt takes back their last move (games against bots only).
    takeback: bool = False
    #: Play this hand first (``--position``, or the unfinished hand of ``--resume``).
    start: State | None = None
    #: With ``start``: play that one hand and stop (a position, not a session).
    one_hand: bool = False
    #: Finished hands of a resumed session, counted in the score and saved again.
    previous: list[GameRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        if len(self.seats) != self.rules.num_players:
            raise PositionError(
                f"{len(self.seats)} seats given for {self.rules.num_players} players"
            )

    @property
    def humans(self) -> list[int]:
        """Seats played by people."""
        return [i for i, s in enumerate(self.seats) if s.is_human]


class TerminalGame:
    """Runs a session: deals hands, asks people for moves, lets bots play, keeps score."""

    def __init__(
        self,
        setup: TableSetup,
        console: Console,
        prompter: Prompter,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.setup = setup
        self.console = console
        self.prompter = prompter
        self.sleep = sleep
        master = random.Random(setup.seed)
        first_dealer = None
        owners: Any = None
        if setup.previous:
            owners = setup.previous[0].game.owners_str()
            first_dealer = setup.previous[0].dealer
        elif setup.start is not None:
            owners = setup.start.game.owners_str()
            first_dealer = setup.start.origin.dealer
        self.session = Session(
            setup.rules,
            first_dealer=first_dealer,
            rng=random.Random(master.getrandbits(64)),
            owners=owners,
        )
        self.agents: dict[int, Agent] = {
            i: make_agent(s.kind, seed=master.getrandbits(32))
            for i, s in enumerate(setup.seats)
            if not s.is_human
        }
        # Checked now, so that a bad hint bot fails before play, not at the first hint.
        self.hint_name = validate_spec(setup.hint_bot or strongest_bot())
        self._hint_seed = master.getrandbits(32)
        self._hint_agent: Agent | None = None
        self._hint_move: Move | None = None
        self.records: list[GameRecord] = list(setup.previous)
        for rec in setup.previous:
            self.session.record_result(rec.replay())
        self.hand_no = len(setup.previous)
        self._on_screen: int | None = None  # the person whose hand may be on screen
        self._current: State | None = None  # the hand being played
        self._news: list[str] = []  # public lines of this hand's start (dealer, sixes)
        self._told: set[int] = set()  # people who have seen them (hot seat)

    # -- output helpers ----------------------------------------------------------

    def say(self, *objects: Any, style: str | None = None) -> None:
        """Print to the console (one place to change how output goes out)."""
        self.console.print(*objects, style=style)

    def _clear_for_privacy(self) -> None:
        """Hide a hand: clear the screen, or scroll it away where clearing is impossible."""
        if self.console.is_terminal and not self.console.is_dumb_terminal:
            self.console.clear()
        else:
            self.console.print("\n" * max(self.console.height, 24))
        self._on_screen = None

    @property
    def hot_seat(self) -> bool:
        """Several people share the screen."""
        return len(self.setup.humans) > 1

    # -- the session --------------------------------------------------------------

    @property
    def can_take_back(self) -> bool:
        """Takeback is on, and only against bots (in hot seat it would show a hand)."""
        return self.setup.takeback and not self.hot_seat

    def run(self) -> int:
        """Play until the session ends or the player quits; returns the exit code."""
        self._intro()
        start = self.setup.start
        try:
            while not self.session.over:
                if start is not None:
                    state, start = start, None
                    if not self.setup.one_hand:
                        self.say(f"Resuming hand {self.hand_no + 1} at turn {state.turns + 1}.")
                else:
                    state = self.session.new_hand()
                self.hand_no += 1
                self._current = state
                self._hand_intro(state)
                self.play_hand(state)
                self._current = None
                self._keep_record(state)
                self.say(render_result(state.outcome, state.outs, self.setup.seats))
                if self.setup.one_hand:
                    self._save()
                    return 0
                self.session.record_result(state)
                self.say(render_score(self.session, self.setup.seats))
                if not self.session.over and self.setup.humans:
                    reply = self.prompter.ask("Press Enter for the next hand (q to stop) ")
                    if reply.strip().lower() in ("q", "quit", "exit"):
                        raise QuitGame
        except (QuitGame, EOFError, KeyboardInterrupt) as e:
            self.say(("" if isinstance(e, QuitGame) else "\n") + "Game stopped.")
            if self.session.hands and not self.setup.one_hand:
                self.say(render_score(self.session, self.setup.seats))
            self._save()
            return 0
        self.say(render_session_end(self.session, self.setup.seats))
        self._save()
        return 0

    def _intro(self) -> None:
        rules = self.setup.rules
        seats = self.setup.seats
        who = ", ".join(f"{s.label(i)} ({s.kind})" for i, s in enumerate(seats))
        self.say(Text("Svoi Kozyri - everyone has their own trumps", style="bold"))
        self.say(f"Players: {who}")
        bits = [f"pickup {rules.pickup_rule}"]
        if rules.pickup_rule == "fixed":
            bits[-1] += f" ({rules.fixed_pickup_count})"
        if rules.is_besicovitch:
            bits.append(f"Besicovitch game, {rules.deck_size} cards, open hands")
        bits.append(f"trumps {rules.suit_assignment}")
        if rules.is_besicovitch and not rules.besicovitch_draw_rule:
            bits.append("no draw rule (first out wins)")
        else:
            bits.append(f"draw rule {rules.draw_rule}")
        if rules.session_mode == "losses":
            k = rules.loss_limit
            bits.append(f"session: {k} loss{'es' * (k != 1)} make{'s' * (k == 1)} the durak")
        else:
            bits.append(f"session: first to {rules.points_target} points")
        if self.setup.one_hand:
            bits[-1] = "one hand from the given position"
        self.say("Rules: " + "; ".join(bits) + ".")
        if self.can_take_back:
            self.say("Takeback is on: type undo at your prompt to take back your last move.")
        self.say("Type ? at your prompt for help.")

    def _hand_intro(self, state: State) -> None:
        """The public start of a hand: dealer, first leader, trumps, sixes handed over.
        In hot seat these lines are shown again to each person after the screen is
        cleared for their first turn, so nobody misses them."""
        dealer = state.origin.dealer
        seats = self.setup.seats
        news: list[str] = []
        if dealer is not None and not state.history():
            news.append(
                f"Dealer: {seats[dealer].label(dealer)}; "
                f"{seats[state.to_act].label(state.to_act)} leads."
            )
        trumps = state.game.owners_str()
        news.append("Trumps: " + "  ".join(f"{k}={v}" for k, v in trumps.items()))
        for six, frm, to in observe(state, None).transfers:
            news.append(
                f"Six handed over: {format_cards([six])} from {seat_name(frm)} "
                f"to its owner {seat_name(to)}"
            )
        self._news = news
        self._told = set()
        self.say(Text(f"\n=== Hand {self.hand_no} ===", style="bold"))
        for line in news:
            self.say(line)

    def play_hand(self, state: State) -> None:
        """Play one hand to its end."""
        while not state.is_over:
            seat = state.to_act
            outs_before = len(state.outs)
            if seat in self.agents:
                move = self.agents[seat].choose(observe(state, seat))
                state.push(move, seat)
                self._announce(state, seat, move)
                if self.setup.delay > 0:
                    self.sleep(self.setup.delay)
            else:
                move = self.human_turn(state, seat)
                state.push(move, seat)
                if self.hot_seat:
                    self._clear_for_privacy()
                self._announce(state, seat, move)
            if len(state.outs) > outs_before and not state.is_over:
                s, kind = state.outs[-1]
                self.say(f"{self.setup.seats[s].label(s)} is out (on a {kind}).", style="bold")

    def _announce(self, state: State, seat: int, move: Move) -> None:
        taken = state.history()[-1][2] if move.is_pickup else 0
        self.say(render_turn(seat, move, taken, self.setup.seats, self.setup.unicode))

    # -- a person's turn -----------------------------------------------------------

    def human_turn(self, state: State, seat: int) -> Move:
        """Show the board to ``seat`` and read a legal move (commands answered meanwhile)."""
        info = self.setup.seats[seat]
        if self.hot_seat and self._on_screen != seat:
            self._clear_for_privacy()
            self.prompter.ask(
                f"{info.label(seat)}: your turn. Press Enter when only you can see the screen "
            )
            if seat not in self._told:
                self.say(Text(f"Hand {self.hand_no}:", style="bold"))
                for line in self._news:
                    self.say(line)
        self._told.add(seat)
        self._on_screen = seat
        obs = observe(state, seat)
        self._show_board(obs)
        # A menu number means the menu shown just before; any other input forgets it.
        menu: list[Move] = []
        words = completion_words(obs)
        prompt = f"{info.label(seat)} > "
        while True:
            try:
                text = self.prompter.ask(prompt, words)
            except KeyboardInterrupt:
                raise QuitGame from None
            shown, menu = menu, []
            try:
                got = parse_input(obs, text, shown)
            except InputError as e:
                self.say(f"  ! {e}")
                continue
            if isinstance(got, Move):
                return got
            if got.name == "undo":
                if self.take_back(state, seat):
                    obs = observe(state, seat)
                    words = completion_words(obs)
                    self._show_board(obs)
                continue
            if got.name == "position":
                self.say(self.position_text(obs))
                continue
            menu = self._command(got, obs) or []

    def take_back(self, state: State, seat: int) -> bool:
        """Undo this person's last move and the bots' moves after it (``undo``), so
        that they choose again; returns whether anything was taken back."""
        if not self.can_take_back:
            why = "in hot seat" if self.setup.takeback else "(start with --takeback)"
            self.say(f"  ! takeback is off {why}")
            return False
        mine = [i for i, (s, _m, _t) in enumerate(state.history()) if s == seat]
        if not mine:
            self.say("  ! nothing to take back: you have not moved in this hand")
            return False
        undone: list[str] = []
        try:
            while len(state.history()) > mine[-1]:
                undone.append(str(state.pop()))
        except (IndexError, PositionError):
            self.say("  ! cannot take back past the start of this game")
            if not undone:
                return False
        self.say(f"  Took back {len(undone)} move(s): {'; '.join(reversed(undone))}")
        return True

    def position_text(self, obs: Observation) -> str:
        """The position as this viewer knows it, in the position notation (other
        hands as their known cards plus ``?N``; everything open when it is public)."""
        from ..notation.position import format_observation

        return f"  Position: {format_observation(obs)}"

    def _show_board(self, obs: Observation) -> None:
        seat = obs.seat
        assert seat is not None
        header = f"Hand {self.hand_no}, turn {obs.turns + 1}: {self.setup.seats[seat].label(seat)}"
        self.say(render_board(obs, self.setup.seats, unicode=self.setup.unicode, header=header))

    def _command(self, cmd: Command, obs: Observation) -> list[Move] | None:
        """Answer a table command; returns the menu when one was shown."""
        u = self.setup.unicode
        if cmd.name == "help":
            self.say(HELP_TEXT)
        elif cmd.name == "pile":
            self.say(render_pile(obs, u, full=True))
        elif cmd.name == "log":
            self.say(render_log(obs, self.setup.seats, u, last=None))
        elif cmd.name == "known":
            self.say(render_known(obs, self.setup.seats, u))
        elif cmd.name == "board":
            self._show_board(obs)
        elif cmd.name == "hint":
            self.say(self.hint(obs))
            self.say(self.hint_rating(obs))
        elif cmd.name == "moves":
            menu = obs.legal_moves()
            self.say(render_menu(menu, u))
            return menu
        elif cmd.name == "quit":
            raise QuitGame
        return None

    def hint(self, obs: Observation) -> str:
        """The hint bot's choice (``--hint-bot``, default the strongest installed) for
        this observation."""
        name = self.hint_name
        if self._hint_agent is None:
            self._hint_agent = make_agent(name, seed=self._hint_seed)
        move = self._hint_move = self._hint_agent.choose(obs)
        return f"  Hint ({name}): {short_notation(move)}  = {fmt_move(move, self.setup.unicode)}"

    def hint_rating(self, obs: Observation) -> str:
        """How good the last hinted move is, proven or estimated (with samples and
        interval), in the wording shared with the web hint and ``analyse``."""
        from ..bots.analysis import rate_move
        from ..bots.rating import format_rating

        move = self._hint_move
        if move is None or move not in obs.legal_moves():
            move = self._hint_move = obs.legal_moves()[0]
        rating = rate_move(obs, move, budget_ms=300.0, seed=self._hint_seed)
        return f"  Rating: {format_rating(rating)}"

    # -- records -----------------------------------------------------------------------

    def _keep_record(self, state: State) -> None:
        if self.setup.save is None:
            return
        from ..records import GameRecord

        names = {i: s.name for i, s in enumerate(self.setup.seats)}
        tags = {"Event": "svoi-kozyri play", "Hand": str(self.hand_no), **self.setup.tags}
        self.records.append(GameRecord.from_state(state, names=names, **tags))
        self._save()

    def _save(self) -> None:
        """Write the finished hands, and the hand in play (result ``*``) when the game
        stops in the middle of one, so that ``play --resume FILE`` can go on."""
        if self.setup.save is None:
            return
        from ..records import GameRecord, write_records

        records = list(self.records)
        current = self._current
        if current is not None and not current.is_over and current.history():
            names = {i: s.name for i, s in enumerate(self.setup.seats)}
            tags = {"Event": "svoi-kozyri play", "Hand": str(self.hand_no), **self.setup.tags}
            records.append(GameRecord.from_state(current, names=names, **tags))
        if not records:
            return
        try:
            write_records(self.setup.save, records)
        except OSError as e:
            self.say(f"  ! could not save the record to {self.setup.save}: {e.strerror or e}")
            self.setup.save = None  # say it once, keep playing


def bot_label(spec: str) -> str:
    """A short display name for a bot spec (``ismcts:iterations=200`` -> ``ismcts``)."""
    return spec.partition(":")[0]


def make_seats(kinds: Sequence[str], names: Sequence[str] = ()) -> list[SeatInfo]:
    """Seat display info: given names first, else ``You`` for a lone person,
    ``Player A`` for several, and the bot's name for bots."""
    humans = sum(1 for k in kinds if k == "human")
    out = []
    for i, kind in enumerate(kinds):
        if i < len(names) and names[i].strip():
            name = names[i].strip()
        elif kind == "human":
            name = "You" if humans == 1 else f"Player {seat_name(i)}"
        else:
            name = bot_label(kind)
        out.append(SeatInfo(name=name, kind=kind))
    return out
