"""What the exact solver's algorithms share: the context they search in, and the
proof each of them returns for :class:`~.solver.Solver` to fold.

Why a module of its own: the solver is four algorithms (the depth-first win
search of :mod:`.proofsearch`, df-pn in :mod:`.dfpn`, the least fixpoint of the
reachable graph in :mod:`.fixpoint` and the endgame-table probe), each with its
own tables and working state.  They share only what is here: the two-player
rules of the current pair of seats, the four transposition tables, the
positions the threefold rule would end, and the clock with its deadline.  Each
answers one question at a time ("can this seat force a win?") with a
:class:`Proof`; :func:`fold` combines the proofs in the order the solver runs
them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...core import Move
from .rules2p import TwoPlayerRules

#: "no bound": a depth or proof number beyond any search
BIG = 1 << 30

#: A position of the two-player rules: both hands, the pile code, its length,
#: the seat index to act and the phase (see :func:`.rules2p.encode`).
Root = tuple[int, int, int, int, int, int]


class SolverTimeout(Exception):
    """Raised inside the search when the time budget is spent."""


def move_of(moves: list[Move], steps: tuple[int, ...]) -> Move | None:
    """The turn-level move of ``moves`` made of ``steps``, if any."""
    for m in moves:
        if m.steps() == steps:
            return m
    return None


class SearchContext:
    """What every algorithm of one :class:`~.solver.Solver` needs: the rules
    between the two seats holding cards, the transposition tables, the
    repetition guard, the table size bound and the clock.

    ``tables[a]`` holds what is known about "can the player in seat ``seats[a]``
    force a win?" for the depth-first search and the fixpoint: per position
    ``[win_depth, nowin_depth, step]``, a win within ``win_depth`` steps
    (``BIG``: none known), no win within ``nowin_depth`` steps (``BIG``: none at
    all; ``-1``: nothing known) and the step that proved or refuted it;
    ``tables[2 + a]`` the same question's df-pn numbers ``[pn, dn, step,
    serial]``.  Only path-independent facts go there.

    Why the node counter is not here: it is counted once per node in the hot
    loops, so each algorithm keeps its own (a native attribute of ``self``) and
    the solver adds them up.  For the same reason each algorithm copies the
    fields it reads per node into its own attributes when a question starts
    (its ``bind``)."""

    def __init__(self, max_table: int, max_graph: int) -> None:
        self.max_table = max_table
        self.max_graph = max_graph
        #: the game and the seats holding cards (what the tables belong to)
        self.ident: object = None
        self.seats: tuple[int, ...] = ()
        self.rules = TwoPlayerRules([], [], 0, False, True)
        self.tables: list[dict[int, list[int]]] = [{}, {}, {}, {}]
        #: keys of positions the threefold rule would end as a draw if entered
        self.danger: set[int] = set()
        self.clock: Callable[[], float] = _no_clock
        self.deadline = float("inf")


def _no_clock() -> float:
    """The clock before a solver sets its own (no deadline is set then either)."""
    return 0.0


class Algorithm:
    """What every algorithm reads from the shared :class:`SearchContext` in its hot
    loops, copied into native attributes of its own.

    Why copies: the hot loops read the tables, the guard and the clock once per
    node, and an attribute of ``self`` is one native load where ``self.ctx.x`` is
    two.  :meth:`bind` refreshes them when a question starts (the solver may have
    changed seats, tables, guard or deadline since the last one).  Each algorithm
    counts its own nodes; the solver adds them up."""

    rules2p: TwoPlayerRules
    _tables: list[dict[int, list[int]]]
    _danger: set[int]
    clock: Callable[[], float]
    _deadline: float
    max_table: int

    def __init__(self, ctx: SearchContext) -> None:
        self.ctx = ctx
        self.nodes = 0
        self.bind()

    def bind(self) -> None:
        """Copy what the hot loops read per node from the shared context."""
        ctx = self.ctx
        self.rules2p = ctx.rules
        self._tables = ctx.tables
        self._danger = ctx.danger
        self.clock = ctx.clock
        self._deadline = ctx.deadline
        self.max_table = ctx.max_table


class PathSearch(Algorithm):
    """An algorithm that searches paths (the depth-first win search and df-pn):
    the positions on the current path for the repetition rule, with their
    generations, and the refutations that hold only on such a path."""

    def __init__(self, ctx: SearchContext) -> None:
        super().__init__(ctx)
        self._path: dict[int, int] = {}
        self._gens: list[int] = [0] * 64
        self._gen = 0
        # path-dependent refutations: key -> four ints (see each algorithm)
        self._tmp: dict[int, tuple[int, int, int, int]] = {}
        self._table: dict[int, list[int]] = {}
        self._other: dict[int, list[int]] = {}
        self._att = 0
        self._rmin = BIG
        self._rmax = -1

    def release(self) -> None:
        """Drop the working state of the last question (the tables stay)."""
        self._path = {}
        self._tmp = {}


@dataclass(frozen=True)
class Proof:
    """What one algorithm proved about one position, from the point of view of the
    player to act there (``me``).

    ``win_me``/``win_opp``: can I / the opponent force a win (``None``: not
    settled by this proof).  ``move`` a winning move (only with ``win_me``);
    ``deepened`` that win came from the depth-limited search, so a bisection
    over the depth finds a shortest one (a fixpoint or df-pn win is a strategy of
    falling rank instead); ``safe`` a move that keeps "no loss" proven; ``hope``
    the move that held out longest against the opponent's win; ``failed`` the
    deepest depth at which my win was refuted only by the horizon."""

    win_me: bool | None = None
    win_opp: bool | None = None
    move: Move | None = None
    safe: Move | None = None
    hope: Move | None = None
    deepened: bool = False
    failed: int = 0

    def __post_init__(self) -> None:
        if (self.move is not None or self.deepened) and self.win_me is not True:
            raise ValueError("a winning move needs a proven win")

    @property
    def decided(self) -> bool:
        """True when the value is known: someone wins, or neither can."""
        return (
            self.win_me is True
            or self.win_opp is True
            or (self.win_me is False and self.win_opp is False)
        )

    def bounds(self) -> tuple[int, int]:
        """Proven bounds on the value for the player to act (-1 loss .. 1 win)."""
        lo = 1 if self.win_me else (0 if self.win_opp is False else -1)
        hi = -1 if self.win_opp else (0 if self.win_me is False else 1)
        return lo, hi

    def choice(self) -> Move | None:
        """The move achieving the lower bound, if the proofs named one."""
        lo, _hi = self.bounds()
        if lo == 1:
            return self.move
        return self.safe if lo == 0 else self.hope


#: the proof of nothing: the identity of :func:`fold`
NO_PROOF = Proof()


def fold(a: Proof, b: Proof) -> Proof:
    """Combine ``a`` (what earlier phases proved) with ``b`` (a later one).

    Why this order is sound: every answer is a fact about the position, not
    about the search (a win, or a refutation that holds in every path context:
    path-dependent refutations never leave the algorithms), so two proofs never
    disagree on a question and the first answer is simply kept.  Moves are not
    facts but choices, and a later one is at least as good: a later winning move
    comes from the bisection for a shortest win, a later ``hope`` held out at a
    greater depth, a later ``safe`` is as safe; so the later one replaces, unless
    it is missing.  ``failed`` only grows with the depth.  ``deepened`` belongs to
    the proof that settled ``win_me``.  On the proofs of one position the fold
    is associative with :data:`NO_PROOF` as identity, so the solver may fold
    question by question and keep what it has when the clock stops it."""
    win_me = a.win_me if a.win_me is not None else b.win_me
    won = win_me is True
    return Proof(
        win_me=win_me,
        win_opp=a.win_opp if a.win_opp is not None else b.win_opp,
        move=(b.move if b.move is not None else a.move) if won else None,
        safe=b.safe if b.safe is not None else a.safe,
        hope=b.hope if b.hope is not None else a.hope,
        deepened=(a.deepened if a.win_me is not None else b.deepened) and won,
        failed=max(a.failed, b.failed),
    )
