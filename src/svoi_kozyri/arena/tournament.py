"""Many hands between bots: paired deals, seat rotation, worker processes, statistics.

**Paired deals and seat rotation.**  Each *deal* (a shuffled deck, a dealer and, with
blind assignment, an ownership of the suits) is drawn from ``seed`` and the deal
index only.  It is played once per *rotation* of the bot line-up over the seats: in
rotation ``r`` the bot listed ``j``-th sits in seat ``(j + r) mod n``.  Every bot thus
plays every deal from every seat, so the luck of the cards cancels out between the
bots and much smaller samples give meaningful comparisons.

**Reproducibility.**  Deals, and the seed each agent is re-seeded with before each
hand, depend only on ``seed``, the deal index, the rotation and the seat; the
number of worker processes and their scheduling change nothing.

Bots are built in each worker with :func:`~svoi_kozyri.bots.catalogue.make_agent`, so any
registered spec (``"ismcts:iterations=200"``) works, and each only ever sees its own
:class:`~svoi_kozyri.core.Observation` (through
:func:`~svoi_kozyri.bots.base.play_out`).
"""

from __future__ import annotations

import itertools
import math
import os
import random
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bots.base import Agent, play_out
from ..bots.catalogue import make_agent
from ..bots.external import ExternalAgent
from ..core import Game, Rules, blind_owners, seat_name
from .backends import Backend, make_backend
from .outcomes import HandOutcome
from .stats import wilson_interval

Progress = Callable[[int], None]


class ArenaError(RuntimeError):
    """A bot failed during an arena hand (the message names the deal and rotation)."""


@dataclass
class BotStats:
    """A bot's figures over every seat-hand it played (each seat it held in a hand
    counts once, so a bot filling three seats of a table counts three times)."""

    name: str
    hands: int = 0
    durak: int = 0
    first_out: int = 0
    draws: int = 0
    adjudicated: int = 0
    turns_total: int = 0
    seat_hands: list[int] = field(default_factory=list)
    seat_durak: list[int] = field(default_factory=list)
    replaced: int = 0
    mu: float | None = None
    sigma: float | None = None
    ordinal: float | None = None

    @property
    def durak_rate(self) -> float:
        """Share of its hands this bot lost (draws count as not lost)."""
        return self.durak / self.hands if self.hands else 0.0

    @property
    def durak_ci95(self) -> tuple[float, float]:
        """Wilson 95 % interval of :attr:`durak_rate`."""
        return wilson_interval(self.durak, self.hands)

    @property
    def first_out_rate(self) -> float:
        """Share of its hands this bot went out first (won)."""
        return self.first_out / self.hands if self.hands else 0.0

    @property
    def draw_rate(self) -> float:
        """Share of its hands that ended in a draw."""
        return self.draws / self.hands if self.hands else 0.0

    @property
    def mean_turns(self) -> float:
        """Mean length (turn-level actions) of the hands it played."""
        return self.turns_total / self.hands if self.hands else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures (the keys documented in docs/bots.md)."""
        lo, hi = self.durak_ci95
        out: dict[str, Any] = {
            "hands": self.hands,
            "durak": self.durak,
            "durak_rate": self.durak_rate,
            "durak_ci95": [lo, hi],
            "first_out": self.first_out,
            "first_out_rate": self.first_out_rate,
            "draws": self.draws,
            "draw_rate": self.draw_rate,
            "mean_hand_length": self.mean_turns,
            "adjudicated": self.adjudicated,
            "replaced_moves": self.replaced,
            "per_seat": {
                seat_name(i): {
                    "hands": h,
                    "durak": d,
                    "durak_rate": d / h if h else 0.0,
                }
                for i, (h, d) in enumerate(zip(self.seat_hands, self.seat_durak, strict=True))
            },
        }
        if self.mu is not None:
            out.update(mu=self.mu, sigma=self.sigma, ordinal=self.ordinal)
        return out


@dataclass
class ArenaReport:
    """Everything an arena run produced: the configuration, every hand, per-bot stats."""

    lineups: list[tuple[str, ...]]
    rules: Rules
    seed: int
    deals: int
    workers: int
    elapsed_s: float
    outcomes: list[HandOutcome]
    bots: dict[str, BotStats]
    round_robin: bool = False
    backend: str = "local"

    @property
    def hands(self) -> int:
        """Hands played."""
        return len(self.outcomes)

    @property
    def draws(self) -> int:
        """Hands without a loser."""
        return sum(1 for o in self.outcomes if o.loser is None)

    @property
    def adjudicated(self) -> list[HandOutcome]:
        """Hands a SPEC D guard had to end (none is expected with the baseline bots)."""
        return [o for o in self.outcomes if o.adjudicated]

    def summary(self) -> dict[str, Any]:
        """Totals over all hands."""
        turns = [o.turns for o in self.outcomes]
        return {
            "hands": self.hands,
            "deals": self.deals,
            "draws": self.draws,
            "adjudicated": len(self.adjudicated),
            "adjudicated_reasons": _count(o.reason for o in self.adjudicated),
            "adjudicated_hands": [
                {
                    "deal": o.deal,
                    "rotation": o.rotation,
                    "lineup": o.lineup,
                    "reason": o.reason,
                    "turns": o.turns,
                    "still_playing": [o.bots[s] for s in range(len(o.bots)) if s not in o.outs],
                }
                for o in self.adjudicated[:100]
            ],
            "mean_hand_length": statistics.fmean(turns) if turns else 0.0,
            "median_hand_length": statistics.median(turns) if turns else 0.0,
            "max_hand_length": max(turns, default=0),
            "elapsed_s": self.elapsed_s,
            "hands_per_s": self.hands / self.elapsed_s if self.elapsed_s > 0 else 0.0,
        }

    def to_dict(self) -> dict[str, Any]:
        """The JSON document: each bot's figures under its name (e.g.
        ``d["heuristic"]["durak_rate"]``) and the run's settings and totals under
        ``"_meta"``."""
        out: dict[str, Any] = {name: st.to_dict() for name, st in self.bots.items()}
        out["_meta"] = {
            "lineups": [list(lu) for lu in self.lineups],
            "players": self.rules.num_players,
            "rules": self.rules.to_dict(only_changed=True),
            "seed": self.seed,
            "workers": self.workers,
            "backend": self.backend,
            "round_robin": self.round_robin,
            "rating_model": "openskill PlackettLuce" if self.round_robin else None,
            **self.summary(),
        }
        return out

    CSV_FIELDS = (
        "bot",
        "hands",
        "durak",
        "durak_rate",
        "durak_ci95_low",
        "durak_ci95_high",
        "first_out",
        "first_out_rate",
        "draws",
        "draw_rate",
        "mean_hand_length",
        "adjudicated",
        "mu",
        "sigma",
        "ordinal",
    )

    def csv_rows(self) -> list[dict[str, Any]]:
        """One row per bot with the columns :attr:`CSV_FIELDS`."""
        rows = []
        for name, st in self.bots.items():
            lo, hi = st.durak_ci95
            rows.append(
                {
                    "bot": name,
                    "hands": st.hands,
                    "durak": st.durak,
                    "durak_rate": st.durak_rate,
                    "durak_ci95_low": lo,
                    "durak_ci95_high": hi,
                    "first_out": st.first_out,
                    "first_out_rate": st.first_out_rate,
                    "draws": st.draws,
                    "draw_rate": st.draw_rate,
                    "mean_hand_length": st.mean_turns,
                    "adjudicated": st.adjudicated,
                    "mu": st.mu,
                    "sigma": st.sigma,
                    "ordinal": st.ordinal,
                }
            )
        return rows


def _count(items: Iterator[str] | Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for it in items:
        out[it] = out.get(it, 0) + 1
    return out


# --------------------------------------------------------------------------- deals


def deal_rng(seed: int, deal: int) -> random.Random:
    """The random stream of deal ``deal`` of a run seeded ``seed`` (string seeding is
    stable across processes and Python runs)."""
    return random.Random(f"svoi-kozyri-arena:{seed}:{deal}")


def agent_seed(seed: int, deal: int, rotation: int, seat: int) -> int:
    """The seed an agent is re-seeded with before a hand."""
    return random.Random(f"svoi-kozyri-agent:{seed}:{deal}:{rotation}:{seat}").getrandbits(63)


def seat_of(index: int, rotation: int, n: int) -> int:
    """Seat of the ``index``-th bot of a line-up in rotation ``rotation``."""
    return (index + rotation) % n


def _game_for_deal(rules: Rules, base: Game, rng: random.Random) -> Game:
    if rules.suit_assignment == "blind":
        owners, pairs = blind_owners(rules, rng)
        return Game(rules, owners, pairs)
    return base


def _replaced(agent: Agent) -> int:
    """Moves the referee has replaced so far for an external engine (0 otherwise)."""
    return sum(agent.failures.values()) if isinstance(agent, ExternalAgent) else 0


def _play_deals(
    rules_dict: dict[str, Any],
    lineup_index: int,
    lineup: tuple[str, ...],
    deals: Sequence[int],
    seed: int,
) -> list[HandOutcome]:
    """Worker job: play each deal once per rotation of ``lineup``."""
    rules = Rules.from_dict(rules_dict)
    base = Game(rules)
    n = rules.num_players
    agents: dict[tuple[str, int], Agent] = {}
    out: list[HandOutcome] = []
    for deal in deals:
        rng = deal_rng(seed, deal)
        game = _game_for_deal(rules, base, rng)
        dealer = rng.randrange(n)
        deck = game.shuffled_deck(rng)
        for rot in range(n):
            bots = tuple(lineup[(seat - rot) % n] for seat in range(n))
            seated: list[Agent] = []
            for seat, spec in enumerate(bots):
                agent = agents.get((spec, seat))
                if agent is None:
                    agent = agents[(spec, seat)] = make_agent(spec)
                agent.reseed(agent_seed(seed, deal, rot, seat))
                seated.append(agent)
            state = game.deal(dealer, deck)
            before = [_replaced(a) for a in seated]
            try:
                play_out(state, seated)
            except Exception as e:  # name the hand, so a failing bot can be replayed
                raise ArenaError(
                    f"deal {deal}, rotation {rot} (seats {', '.join(bots)}), turn "
                    f"{state.turns}: {type(e).__name__}: {e}"
                ) from e
            result = state.outcome
            assert result is not None  # the engine's guards end every hand
            out.append(
                HandOutcome(
                    lineup=lineup_index,
                    deal=deal,
                    rotation=rot,
                    dealer=dealer,
                    bots=bots,
                    loser=result.loser,
                    outs=tuple(s for s, _ in state.outs),
                    turns=state.turns,
                    reason=result.termination.value,
                    replaced=(
                        tuple(_replaced(a) - b for a, b in zip(seated, before, strict=True))
                        if any(isinstance(a, ExternalAgent) for a in seated)
                        else ()
                    ),
                )
            )
    return out


# --------------------------------------------------------------------------- runs


def split_bot_list(text: str) -> list[str]:
    """Split a comma list of bot specs, keeping options with their bot:
    ``"ismcts:iterations=200,c=1.4,random"`` -> ``["ismcts:iterations=200,c=1.4",
    "random"]`` (the catalogue's :func:`~svoi_kozyri.bots.catalogue.split_specs`)."""
    from ..bots.catalogue import split_specs

    return split_specs(text)


def _check_specs(specs: Sequence[str]) -> None:
    from ..bots.catalogue import validate_spec

    for spec in dict.fromkeys(specs):
        validate_spec(spec)  # BotSpecError (a ValueError) naming a bad name or option


def _run(
    rules: Rules,
    lineups: list[tuple[str, ...]],
    deals: int,
    seed: int,
    workers: int | None,
    progress: Progress | None,
    round_robin: bool,
    backend: str | Backend = "local",
    address: str | None = None,
) -> ArenaReport:
    n = rules.num_players
    if deals < 1:
        raise ValueError("the arena needs at least one deal")
    for lu in lineups:
        if len(lu) != n:
            raise ValueError(f"{len(lu)} bots listed for {n} seats: list exactly one bot per seat")
    _check_specs(sorted({s for lu in lineups for s in lu}))
    runner = make_backend(backend, workers=workers, address=address)
    rules_dict = rules.to_dict(only_changed=True)
    # The jobs do not depend on the backend, and results are sorted below, so where
    # and in what order the jobs finish changes nothing.
    cpus = (os.cpu_count() or 1) if workers is None else max(1, workers)
    per_job = max(1, min(25, math.ceil(deals * len(lineups) / (cpus * 8))))
    jobs = [
        (rules_dict, li, lu, list(range(start, min(deals, start + per_job))), seed)
        for li, lu in enumerate(lineups)
        for start in range(0, deals, per_job)
    ]
    t0 = time.perf_counter()
    outcomes: list[HandOutcome] = []
    for res in runner.run(_play_deals, jobs):
        outcomes += res
        if progress is not None:
            progress(len(res))
    workers = runner.workers
    elapsed = time.perf_counter() - t0
    outcomes.sort(key=lambda o: (o.deal, o.lineup, o.rotation))
    names = list(dict.fromkeys(s for lu in lineups for s in lu))
    bots = _tally(names, outcomes, n)
    if round_robin:
        from .ratings import rate_outcomes  # openskill: the [bots] extra

        for name, (mu, sigma, ordinal) in rate_outcomes(names, outcomes).items():
            st = bots[name]
            st.mu, st.sigma, st.ordinal = mu, sigma, ordinal
    return ArenaReport(
        lineups=lineups,
        rules=rules,
        seed=seed,
        deals=deals,
        workers=workers,
        elapsed_s=elapsed,
        backend=runner.name,
        outcomes=outcomes,
        bots=bots,
        round_robin=round_robin,
    )


def _tally(names: list[str], outcomes: list[HandOutcome], n: int) -> dict[str, BotStats]:
    bots = {nm: BotStats(nm, seat_hands=[0] * n, seat_durak=[0] * n) for nm in names}
    for o in outcomes:
        first = o.first_out
        for seat, spec in enumerate(o.bots):
            st = bots[spec]
            st.hands += 1
            st.seat_hands[seat] += 1
            st.turns_total += o.turns
            if o.loser is None:
                st.draws += 1
            elif o.loser == seat:
                st.durak += 1
                st.seat_durak[seat] += 1
            if first == seat:
                st.first_out += 1
            if o.adjudicated:
                st.adjudicated += 1
            if o.replaced:
                st.replaced += o.replaced[seat]
    return bots


def hands_to_deals(hands: int, players: int) -> int:
    """Deals needed for at least ``hands`` hands (each deal is played once per rotation)."""
    if hands < 1:
        raise ValueError("the arena needs at least one hand")
    return math.ceil(hands / players)


def run_arena(
    seats: Sequence[str],
    hands: int = 400,
    *,
    rules: Rules | None = None,
    seed: int = 0,
    workers: int | None = None,
    progress: Progress | None = None,
    backend: str | Backend = "local",
    address: str | None = None,
) -> ArenaReport:
    """Play about ``hands`` hands between the bots in ``seats`` (one bot spec per seat).

    ``hands`` is rounded up to whole deals: ``ceil(hands / n)`` deals, each played
    once per seat rotation (``n`` hands).  ``rules`` defaults to the standard rules
    for ``len(seats)`` players.  ``workers`` processes (default: all CPU cores; 1
    runs in this process).  ``progress`` is called with the number of hands each
    time a batch finishes.  ``backend`` ``"ray"`` runs the batches as Ray tasks, on
    the cluster at ``address`` or a local Ray (:mod:`.backends`); the results are
    the same as locally.
    """
    specs = tuple(s.strip() for s in seats)
    if rules is None:
        rules = Rules(num_players=len(specs))
    return _run(
        rules,
        [specs],
        hands_to_deals(hands, rules.num_players),
        seed,
        workers,
        progress,
        round_robin=False,
        backend=backend,
        address=address,
    )


def round_robin_lineups(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """The tables of a round robin: every set of ``players`` different bots when there
    are enough bots, else every multiset with at least two different bots."""
    uniq = list(dict.fromkeys(b.strip() for b in bots))
    if len(uniq) < 2:
        raise ValueError("a round robin needs at least two different bots")
    if len(uniq) >= players:
        return list(itertools.combinations(uniq, players))
    return [lu for lu in itertools.combinations_with_replacement(uniq, players) if len(set(lu)) > 1]


def run_round_robin(
    bots: Sequence[str],
    hands_per_table: int = 400,
    *,
    rules: Rules | None = None,
    players: int | None = None,
    seed: int = 0,
    workers: int | None = None,
    progress: Progress | None = None,
    backend: str | Backend = "local",
    address: str | None = None,
) -> ArenaReport:
    """Play every table of :func:`round_robin_lineups` on the same paired deals
    (about ``hands_per_table`` hands each) and rate every bot with OpenSkill
    (Plackett-Luce; see :mod:`svoi_kozyri.arena.ratings`)."""
    if rules is None:
        rules = Rules(num_players=players or 4)
    elif players is not None and players != rules.num_players:
        raise ValueError("players and rules.num_players disagree")
    lineups = round_robin_lineups(bots, rules.num_players)
    return _run(
        rules,
        lineups,
        hands_to_deals(hands_per_table, rules.num_players),
        seed,
        workers,
        progress,
        round_robin=True,
        backend=backend,
        address=address,
    )


def total_hands(rules: Rules, lineups: int, hands: int) -> int:
    """Hands a run will play (for sizing a progress bar)."""
    return hands_to_deals(hands, rules.num_players) * rules.num_players * lineups
