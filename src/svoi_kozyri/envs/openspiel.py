"""Svoi Kozyri as an OpenSpiel Python game: ``pyspiel.load_game("python_svoi_kozyri", {...})``
after ``import svoi_kozyri.envs.openspiel``.

* **Chance**: the first chance node picks the dealer (outcome = seat).  Then the deal,
  in one of two shapes (parameter ``deal``):

  - ``deal="cards"`` (default): one chance node per card dealt (outcome = card id,
    uniform over the cards left), card ``i`` going to seat ``dealer + 1 + i`` as in the
    engine's deal (the sixes then pass to their owners; the Besicovitch game uses its
    mirror deal).  Works for every deck; the chance tree holds every *order* of the
    deck (8! = 40,320 deals of 8 cards).
  - ``deal="split"``: one chance node whose outcomes are the *splits*, the ways to give
    the deck's cards to the seats (seat ``dealer + 1 + j`` gets the ``j``-th share, the
    first ``len(deck) % n`` shares one card larger), all equally likely (70 outcomes for
    8 cards and two players).  Outcome ``k`` is the ``k``-th split in the
    multinomial number system over the deck in card order (:meth:`_Config.unrank`).
    Only for small decks (``ranks=k``) with at most :data:`MAX_SPLITS` splits: a
    chance node lists all its outcomes, and the real deck has about ``9e9`` (two
    players), so larger decks are refused with a :class:`RulesError`.

  Why ``cards`` is the default: it is the only deal that exists for every deck, the
  real one included, and it keeps the action ids (and so any recorded history) of
  the earlier versions.  Exact methods on small decks ask for ``deal="split"``.
* **Actions**: the engine's 41 step-level actions (card ids, 40 = pick up).
* **Observers** (``make_py_observer``, the OpenSpiel convention: a flat ``tensor`` and
  a ``dict`` of named views of its parts):

  - the default observation (``perfect_recall=False``, single player): the
    :mod:`.encoding` tensor, relative to the player, its parts named by
    ``encoding.FIELDS``;
  - the public observation (``private_info=NONE``): what a spectator sees, in
    absolute seats and suits (:data:`PUBLIC_FIELDS`), the same for every player;
  - the information state (``perfect_recall=True``): the player's whole knowledge
    (:data:`INFO_STATE_FIELDS`): seat, dealer, own hand at the start of play, what
    was public at the start, the sixes transfers it saw, and every step of the hand
    as (actor, action) rows; ``private_info=NONE`` leaves out the seat and the hand.
    The information-state string says the same in text.

* ``resample_from_infostate`` samples a deal uniformly among those consistent with the
  player's information (the hidden cards of today spread over the hidden places, then
  the public history run backwards to the deal), so OpenSpiel's Python IS-MCTS runs.
* **Returns**: with ``utility="durak"`` (default) -1 for the durak, 0 for the others
  (general sum); ``utility="placement"``: +1 the first out .. -1 the durak (general
  sum); for both a drawn hand is worth ``draw`` to everybody, by default -1, so that
  no policy gains by steering into draws (:mod:`.rewards`).  ``utility="zero_sum"``:
  the durak -1, each other player ``+1/(n-1)``, a draw 0 (a zero-sum game has no
  other draw value: ``draw`` is not read).  The Besicovitch game is +-1 for a result either way, and
  zero-sum unless a draw is worth something else than 0.
* **Small decks** (for exact algorithms such as CFR): ``ranks=k`` keeps only the ``k``
  highest ranks of each suit (e.g. ``ranks=2``: the aces and kings, 8 cards); the
  hand starts as an engine *position* holding only those cards (SPEC E), so no
  sixes change hands.  ``ranks=0`` (default) is the real deck.
* Parameters: ``num_players`` and the rules options by their SPEC names (see
  ``_PARAMS``); ``repetition_limit=0`` means none.  The action cap must stay on
  (OpenSpiel needs a maximum game length): ``max_game_length`` is twice the cap
  (a turn has at most two steps) plus the deal, and the information state keeps
  that many history rows.
"""

from __future__ import annotations

import math
import random
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel

from ..core import (
    LEAD,
    NUM_ACTIONS,
    NUM_CARDS,
    PHASE_NAMES,
    PICKUP,
    CardSet,
    Game,
    Observation,
    Rules,
    RulesError,
    State,
    format_card,
    format_cards,
    observe,
    sample_hands,
    seat_name,
)
from ..core.cards import RANK_MASK, cards_of
from .encoding import FIELDS, OBS_SIZE, encode_state
from .rewards import DRAW_DEFAULT, RewardKind, RewardSpec

GAME_NAME = "python_svoi_kozyri"

#: The deal's shapes (parameter ``deal``, see the module docstring).
DEALS = ("cards", "split")

#: The most outcomes a ``deal="split"`` chance node may have: every chance node lists
#: all its outcomes, so beyond this the deal is refused (two players: ``ranks=5``,
#: 184,756 splits, is in; three players ``ranks=4``, 2,018,016, is out).
MAX_SPLITS = 1_000_000

#: One history row of the information state: the actor (one-hot seat) and the action.
HISTORY_WIDTH = 4 + NUM_ACTIONS

#: The information-state tensor's parts, in order: ``(name, shape)``; ``rows`` is
#: twice the action cap (a turn has at most two steps).  ``player`` and
#: ``dealt_hand`` are private and absent from the public information state.
INFO_STATE_FIELDS: tuple[tuple[str, tuple[int | str, ...]], ...] = (
    ("player", (4,)),  # one-hot: the observer's seat
    ("dealer", (4,)),  # one-hot: the dealer (all 0 before the first chance node)
    ("dealt_hand", (NUM_CARDS,)),  # the observer's hand at the start of play
    ("start_known", (4, NUM_CARDS)),  # per seat, its cards public at the start
    ("transfers", (4, 4)),  # per suit, one-hot: who handed its six to the owner
    ("history", ("rows", HISTORY_WIDTH)),  # step t: actor one-hot (4), action (41)
)

#: The public observation's parts, in order (what a spectator sees, absolute seats).
PUBLIC_FIELDS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("dealer", (4,)),  # one-hot: the dealer
    ("known", (4, NUM_CARDS)),  # per seat, the cards publicly known to be in its hand
    ("pile", (NUM_CARDS,)),  # every card in the pile
    ("pile_top", (5, NUM_CARDS)),  # the five top cards of the pile, top first, one-hot
    ("discard", (NUM_CARDS,)),  # cards out of play
    ("hand_sizes", (4,)),  # cards held per seat / 40
    ("to_act", (4,)),  # one-hot: the seat to act (all 0 once over)
    ("phase", (4,)),  # one-hot: free lead, respond, lead (mid-turn), over
    ("pickup_count", (1,)),  # cards a refusal takes now / 40
    ("turns_of_cap", (1,)),  # turns played / max_actions_per_hand
)

#: The game's parameters and their defaults (rules options by their SPEC names).
_PARAMS: dict[str, Any] = {
    "num_players": 2,
    "variant": "standard",
    "trumps_per_player_2p": 2,
    "own_suits_cross_beat": False,
    "pickup_rule": "graded",
    "fixed_pickup_count": 3,
    "after_pickup": "face_new_top",
    "free_lead_after_defence_out": True,
    "defence_out_pile": "keep",
    "draw_rule": "lead_only",
    "equal_rank_beats": "off",
    "sixes_transfer_public": True,
    "repetition_limit": 3,
    "max_actions_per_hand": 2000,
    "cap_outcome": "draw",
    "deck_size": 32,
    "ranks": 0,
    "deal": "cards",
    "utility": "durak",
    "draw": DRAW_DEFAULT,
}

#: Parameters of this layer, not rules options.
_OWN = ("ranks", "deal", "utility", "draw")


def _game_type(zero_sum: bool) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Python Svoi Kozyri",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=(
            pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
        ),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_PARAMS,
    )


_GAME_TYPE = _game_type(False)


@lru_cache(maxsize=4096)
def _multinomial(sizes: tuple[int, ...]) -> int:
    """The number of ways to deal ``sum(sizes)`` cards into shares of these sizes."""
    total = math.factorial(sum(sizes))
    for k in sizes:
        total //= math.factorial(k)
    return total


class _Config:
    """The engine game, deck and utility of one loaded game (shared, never copied)."""

    def __init__(self, params: dict[str, Any]) -> None:
        p = {**_PARAMS, **params}
        unknown = sorted(set(p) - set(_PARAMS))
        if unknown:
            raise RulesError(f"unknown parameter(s): {', '.join(unknown)}")
        besic = p["variant"] == "besicovitch"
        opts = {k: v for k, v in p.items() if k not in _OWN}
        if not besic:
            opts.pop("deck_size")
        else:
            opts.pop("trumps_per_player_2p")
            if opts["pickup_rule"] == "graded":
                opts["pickup_rule"] = "whole_pile"
        if opts["pickup_rule"] != "fixed":
            opts.pop("fixed_pickup_count")
        opts["repetition_limit"] = p["repetition_limit"] or None
        if not p["max_actions_per_hand"]:
            raise RulesError("OpenSpiel needs the action cap: max_actions_per_hand >= 1")
        if p["utility"] not in ("durak", "placement", "zero_sum"):
            raise RulesError("utility must be 'durak', 'placement' or 'zero_sum'")
        if p["deal"] not in DEALS:
            raise RulesError("deal must be 'cards' or 'split'")
        draw = 0.0 if p["utility"] == "zero_sum" else float(p["draw"])
        kind: RewardKind = "placement" if p["utility"] == "placement" else "durak"
        try:
            self.reward = RewardSpec(kind, draw)
        except ValueError as e:
            raise RulesError(str(e)) from None
        self.rules = Rules.from_dict(opts)
        self.game = Game(self.rules)
        self.n = self.game.n
        ranks = int(p["ranks"])
        if not 0 <= ranks <= 10:
            raise RulesError("ranks must be 0 (the whole deck) or 1..10")
        if ranks and besic:
            raise RulesError("ranks applies to the standard variant only")
        deck = self.game.deck
        if ranks:
            keep = 0
            for r in range(10 - ranks, 10):
                keep |= RANK_MASK[r]
            deck &= keep
            if deck.bit_count() < self.n:
                raise RulesError("too few cards for the players")
        self.small = bool(ranks) and deck != self.game.deck
        self.deck: list[int] = cards_of(deck)
        self.deck_mask = deck
        self.zero_sum = p["utility"] == "zero_sum" or (besic and draw == 0.0)
        self.besicovitch = besic
        m, n = len(self.deck), self.n
        # share j goes to seat dealer + 1 + j; the first m % n shares get one card more
        self.shares = tuple(m // n + (1 if j < m % n else 0) for j in range(n))
        self.split = p["deal"] == "split"
        self.num_splits = _multinomial(self.shares)
        if self.split and (not self.small or self.num_splits > MAX_SPLITS):
            raise RulesError(
                f"deal='split' needs a small deck (ranks=k) with at most {MAX_SPLITS:,} "
                f"splits; this deck has {self.num_splits:,}: use deal='cards'"
            )
        self._split_outcomes: list[tuple[int, float]] | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Config:
        return self

    def split_outcomes(self) -> list[tuple[int, float]]:
        """The split chance node's outcomes (built once, returned as a fresh list)."""
        if self._split_outcomes is None:
            p = 1.0 / self.num_splits
            self._split_outcomes = [(k, p) for k in range(self.num_splits)]
        return list(self._split_outcomes)

    def unrank(self, dealer: int, index: int) -> list[CardSet]:
        """The hands of split ``index``: the deck's cards in card order, each given to
        the first share whose count of the splits left covers the index."""
        if not 0 <= index < self.num_splits:
            raise ValueError(f"split {index} is not in 0..{self.num_splits - 1}")
        n = self.n
        rem = list(self.shares)
        hands = [0] * n
        for c in self.deck:
            for j in range(n):
                if not rem[j]:
                    continue
                rem[j] -= 1
                count = _multinomial(tuple(rem))
                if index < count:
                    hands[(dealer + 1 + j) % n] |= 1 << c
                    break
                rem[j] += 1
                index -= count
        return hands

    def rank(self, dealer: int, hands: list[CardSet]) -> int:
        """The index of the split that gives these hands (the inverse of :meth:`unrank`)."""
        n = self.n
        rem = list(self.shares)
        index = 0
        for c in self.deck:
            seat = next(i for i in range(n) if hands[i] >> c & 1)
            share = (seat - dealer - 1) % n
            for j in range(share):
                if rem[j]:
                    rem[j] -= 1
                    index += _multinomial(tuple(rem))
                    rem[j] += 1
            rem[share] -= 1
        return index

    def start(self, dealer: int, order: list[int]) -> State:
        """The engine state of a hand dealt in ``order`` by ``dealer``."""
        if not self.small:
            return self.game.deal(dealer, order)
        hands = [0] * self.n
        for i, c in enumerate(order):
            hands[(dealer + 1 + i) % self.n] |= 1 << c
        return self.start_hands(dealer, hands)

    def start_hands(self, dealer: int, hands: list[CardSet]) -> State:
        """The engine state of a small deck dealt as ``hands`` by ``dealer``."""
        return self.game.position(hands, [], (dealer + 1) % self.n, "free")


class SvoiKozyriGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game object (see the module docstring)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        cfg = _Config(dict(params or {}))
        self.cfg = cfg
        cap = cfg.rules.max_actions_per_hand
        assert cap is not None
        n = cfg.n
        if cfg.zero_sum and not cfg.besicovitch:
            lo, hi = -1.0, 1.0 / (n - 1)
        else:
            lo, hi = cfg.reward.low(), cfg.reward.high(cfg.besicovitch)
        deal_length = 1 if cfg.split else len(cfg.deck)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=max(cfg.num_splits, n) if cfg.split else NUM_CARDS,
            num_players=n,
            min_utility=lo,
            max_utility=hi,
            utility_sum=0.0 if cfg.zero_sum else None,
            max_game_length=2 * cap + 1 + deal_length,
        )
        super().__init__(_game_type(cfg.zero_sum), info, dict(params or {}))

    def new_initial_state(self) -> SvoiKozyriState:
        """The start: the dealer's chance node."""
        return SvoiKozyriState(self, self.cfg)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        """The observer for ``iig_obs_type`` (OpenSpiel calls this): the observation,
        the public observation, or the (private or public) information state."""
        if params:
            raise ValueError(f"observer parameters are not supported: {params}")
        obs_type = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        private = obs_type.private_info
        if not obs_type.public_info or private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError(
                "offered: the observation, the public observation and the information "
                "state (public_info=True, private_info SINGLE_PLAYER or NONE)"
            )
        single = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        if obs_type.perfect_recall:
            return InfoStateObserver(self.cfg, private=single)
        if single:
            return SvoiKozyriObserver()
        return PublicObserver(self.cfg)


class _DealCache:
    """What one deal fixes for the rest of the hand, computed on first use: per seat
    the start observation (``-1``: a spectator's) and the information state's head.

    Shared by a state and its clones (OpenSpiel clones by deep-copying every
    attribute, and deep-copying an observation copies its game: that was most of
    CFR's time).  Sharing is sound because a clone made after the deal has the same
    deal: the state takes a fresh cache when its deal completes, so clones made
    before the deal (the children of the deal's chance nodes) never share one."""

    def __init__(self) -> None:
        self.starts: dict[int, Observation] = {}
        self.heads: dict[int, str] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> _DealCache:
        return self


class SvoiKozyriState(pyspiel.State):  # type: ignore[misc]
    """One hand: the deal as chance nodes, then the engine's step actions."""

    def __init__(self, game: SvoiKozyriGame, cfg: _Config) -> None:
        super().__init__(game)
        self.cfg = cfg
        self.dealer = -1
        self.order: list[int] = []  # deal="cards": the cards dealt so far
        self.hand: State | None = None
        self.actions: list[int] = []
        self.actors: list[int] = []  # the seat of each step action
        self.deal_cache = _DealCache()

    # -- OpenSpiel API --------------------------------------------------------------

    def current_player(self) -> int:
        """The seat to act, CHANCE during the deal, TERMINAL at the end."""
        h = self.hand
        if h is None:
            return int(pyspiel.PlayerId.CHANCE)
        if h.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return h.to_act

    def _legal_actions(self, player: int) -> list[int]:
        h = self.hand
        if h is None or h.is_over or player != h.to_act:
            return []
        return list(h.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The dealer (uniform over the seats), then the next card or the split
        (uniform)."""
        if self.dealer < 0:
            return [(s, 1.0 / self.cfg.n) for s in range(self.cfg.n)]
        if self.cfg.split:
            return self.cfg.split_outcomes()
        dealt = set(self.order)
        left = [c for c in self.cfg.deck if c not in dealt]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        cfg = self.cfg
        if self.hand is None:
            if self.dealer < 0:
                self.dealer = int(action)
            elif cfg.split:
                self.hand = cfg.start_hands(self.dealer, cfg.unrank(self.dealer, int(action)))
            else:
                self.order.append(int(action))
                if len(self.order) == len(cfg.deck):
                    self.hand = cfg.start(self.dealer, self.order)
            if self.hand is not None:
                self.deal_cache = _DealCache()  # never one of a clone made before the deal
            return
        self.actors.append(self.hand.to_act)
        self.hand.apply_action(int(action))
        self.actions.append(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            if self.dealer < 0:
                return f"dealer {seat_name(action)}"
            if self.cfg.split:
                hands = self.cfg.unrank(self.dealer, action)
                return "deal " + " ".join(
                    f"{seat_name(i)}:{format_cards(h)}" for i, h in enumerate(hands)
                )
            return f"deal {format_card(action)}"
        return "pickup" if action == PICKUP else format_card(action)

    def is_terminal(self) -> bool:
        """True once the hand has ended."""
        return self.hand is not None and self.hand.is_over

    def returns(self) -> list[float]:
        """Per-seat returns (see the module docstring's ``utility``)."""
        n = self.cfg.n
        h = self.hand
        if h is None or not h.is_over:
            return [0.0] * n
        res = h.outcome
        if self.cfg.zero_sum and not self.cfg.besicovitch:
            if res is None or res.loser is None:
                return [0.0] * n
            return [-1.0 if i == res.loser else 1.0 / (n - 1) for i in range(n)]
        return list(self.cfg.reward.of_state(h))

    def __str__(self) -> str:
        if self.hand is None:
            return f"dealing: dealer {self.dealer}, {len(self.order)} cards"
        return repr(self.hand)

    # -- information ----------------------------------------------------------------

    def dealt_so_far(self, player: int) -> list[int]:
        """Mid-deal (``deal="cards"``): the cards ``player`` has been dealt so far."""
        n = self.cfg.n
        return [c for i, c in enumerate(self.order) if (self.dealer + 1 + i) % n == player]

    def start_observation(self, seat: int) -> Observation:
        """The observation of ``seat`` (``-1``: a spectator) at the start of play,
        after the deal and the sixes transfers (kept: it never changes)."""
        o = self.deal_cache.starts.get(seat)
        if o is None:
            assert self.hand is not None
            o = observe(self.hand.start_state(), None if seat < 0 else seat)
            self.deal_cache.starts[seat] = o
        return o

    def info_state_string(self, player: int) -> str:
        """The player's whole knowledge: seat, dealer, own dealt hand, the sixes
        transfers it saw, every step action so far."""
        if self.hand is None:
            mine = format_cards(self.dealt_so_far(player))
            return f"{seat_name(player)} dealer {self.dealer} dealt {mine}"
        head = self.deal_cache.heads.get(player)
        if head is None:
            head = self.deal_cache.heads[player] = self._head(player)
        return head + " ".join(str(a) for a in self.actions)

    def public_info_string(self) -> str:
        """The public information state: the dealer, the public transfers, every step."""
        if self.hand is None:
            return f"dealer {self.dealer} dealing"
        shown = " ".join(
            f"{format_card(c)}:{seat_name(a)}>{seat_name(b)}"
            for c, a, b in self.start_observation(-1).transfers
        )
        return f"dealer {self.dealer} | {shown} | " + " ".join(str(a) for a in self.actions)

    def _head(self, player: int) -> str:
        assert self.hand is not None
        o = self.start_observation(player)
        shown = " ".join(
            f"{format_card(c)}:{seat_name(a)}>{seat_name(b)}" for c, a, b in o.transfers
        )
        if self.cfg.besicovitch:
            mine = " / ".join(format_cards(h) for h in o.hands)
        else:
            mine = format_cards(o.hands[player])
        return f"{seat_name(player)} dealer {self.dealer} hand {mine} | {shown} | "

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> SvoiKozyriState:
        """A state in ``player_id``'s information set, its hidden cards resampled
        uniformly; ``probability_sampler()`` (a float in [0, 1)) seeds the draw.  The
        new state is built by ``apply_action``, so its ``history()`` is its own deal
        followed by this state's step actions."""
        cfg = self.cfg
        new = SvoiKozyriState(self.get_game(), cfg)
        rng = random.Random(int(probability_sampler() * 2**53))
        if self.hand is None:
            # mid-deal: keep the dealer and the player's own cards, redraw the others
            # (with deal="split" nothing but the dealer is dealt before the hand)
            if self.dealer >= 0:
                new.apply_action(self.dealer)
            mine = set(self.dealt_so_far(player_id))
            pool = [c for c in cfg.deck if c not in mine]
            rng.shuffle(pool)
            it = iter(pool)
            for c in self.order:
                new.apply_action(c if c in mine else next(it))
            return new
        new.apply_action(self.dealer)
        if cfg.besicovitch:
            deal = list(self.order)  # open hands: nothing is hidden
        elif cfg.split:
            deal = [cfg.rank(self.dealer, self._resample_dealt(player_id, rng))]
        else:
            deal = self._order_of(self._resample_dealt(player_id, rng), rng)
        for a in deal + self.actions:
            new.apply_action(a)
        return new

    def _order_of(self, dealt: list[CardSet], rng: random.Random) -> list[int]:
        """A deck order (``deal="cards"``) that deals these hands, drawn uniformly."""
        n = self.cfg.n
        per_seat = [cards_of(d) for d in dealt]
        for cs in per_seat:
            rng.shuffle(cs)
        return [per_seat[(self.dealer + 1 + i) % n].pop() for i in range(len(self.cfg.deck))]

    def _resample_dealt(self, player: int, rng: random.Random) -> list[CardSet]:
        """The hands as dealt (before the sixes transfers) of a world drawn uniformly
        from ``player``'s information set."""
        cfg = self.cfg
        h = self.hand
        assert h is not None
        n = cfg.n
        obs = observe(h, player)
        hands = sample_hands(obs, rng)
        # run the public history backwards: a play leaves the player's hand, a pickup
        # enters it (mid-turn, the beat already on the pile is not in the history yet)
        if h.phase == LEAD:
            hands[h.to_act] |= 1 << h.pile[-1]
        for seat, move, taken in reversed(h.history()):
            for c in move.cards():
                hands[seat] |= 1 << c
            hands[seat] &= ~taken
        if cfg.small:
            return hands
        dealt = list(hands)
        # undo the sixes transfers: known ones as seen, the others from the seats
        # that hold fewer cards than the deal gave them
        size = len(cfg.deck)
        want = [size // n + (1 if (i - self.dealer - 1) % n < size % n else 0) for i in range(n)]
        seen = {c: a for c, a, _ in obs.transfers}
        for c, frm in seen.items():
            owner = cfg.game.suit_owner[c // 10]
            dealt[owner] &= ~(1 << c)
            dealt[frm] |= 1 << c
        hidden_sixes = []
        for s in range(4):
            owner = cfg.game.suit_owner[s]
            six = s * 10 + 1
            if owner >= 0 and six not in seen:
                hidden_sixes.append((six, owner))
        rng.shuffle(hidden_sixes)
        for six, owner in hidden_sixes:
            if dealt[owner].bit_count() <= want[owner]:
                continue  # the owner was dealt it
            short = [i for i in range(n) if i != owner and dealt[i].bit_count() < want[i]]
            if not short:
                continue
            frm = rng.choice(short)
            dealt[owner] &= ~(1 << six)
            dealt[frm] |= 1 << six
        return dealt


def _views(
    pieces: list[tuple[str, tuple[int, ...]]],
) -> tuple[npt.NDArray[np.float32], dict[str, npt.NDArray[np.float32]]]:
    """One flat tensor and, per piece, a named view of its slice in that shape (the
    OpenSpiel observer convention: C++ reads the ``dict`` in order)."""
    sizes = [math.prod(shape) for _, shape in pieces]
    tensor = np.zeros(sum(sizes), np.float32)
    views: dict[str, npt.NDArray[np.float32]] = {}
    at = 0
    for (name, shape), size in zip(pieces, sizes, strict=True):
        views[name] = tensor[at : at + size].reshape(shape)
        at += size
    return tensor, views


def _mark(view: npt.NDArray[np.float32], cards: CardSet) -> None:
    """Set ``view[c] = 1`` for every card ``c`` of the set."""
    for c in cards_of(cards):
        view[c] = 1.0


class SvoiKozyriObserver:
    """The observation: :mod:`.encoding`'s tensor (its parts named as in
    ``encoding.FIELDS``), and a short text of the same."""

    def __init__(self) -> None:
        self.tensor: npt.NDArray[np.float32] = np.zeros(OBS_SIZE, np.float32)
        self.dict = {name: self.tensor[at : at + size] for name, at, size in FIELDS}

    def set_from(self, state: SvoiKozyriState, player: int) -> None:
        """Fill the tensor with ``player``'s view of ``state``."""
        if state.hand is None:
            self.tensor.fill(0.0)
            return
        encode_state(state.hand, player, out=self.tensor)

    def string_from(self, state: SvoiKozyriState, player: int) -> str:
        """``player``'s view as text: own hand, known cards, pile, sizes, turn."""
        h = state.hand
        if h is None:
            return f"{seat_name(player)} dealing"
        o = observe(h, player)
        known = " ".join(
            f"{seat_name(i)}:{format_cards(o.known[i])}"
            for i in range(o.game.n)
            if i != player and o.known[i]
        )
        return f"{seat_name(player)} hand {format_cards(o.hand)} | known {known} | " + _table(o)


def _table(o: Observation) -> str:
    """The public table as text: pile, discard, hand sizes, whose turn."""
    turn = "over" if o.to_act is None else f"{seat_name(o.to_act)} {PHASE_NAMES[o.phase]}"
    sizes = " ".join(str(s) for s in o.hand_sizes)
    return (
        f"pile {format_cards(list(o.pile))} | discard {format_cards(o.discard)} | sizes "
        f"{sizes} | {turn}"
    )


class PublicObserver:
    """The public observation: what a spectator sees (:data:`PUBLIC_FIELDS`), in
    absolute seats and suits, so it is the same tensor for every player."""

    def __init__(self, cfg: _Config) -> None:
        self.cfg = cfg
        self.tensor, self.dict = _views(list(PUBLIC_FIELDS))

    def set_from(self, state: SvoiKozyriState, player: int) -> None:
        """Fill the tensor with the public view of ``state`` (``player`` is not read)."""
        self.tensor.fill(0.0)
        d = self.dict
        if state.dealer >= 0:
            d["dealer"][state.dealer] = 1.0
        h = state.hand
        if h is None:
            return
        o = observe(h, None)
        for seat in range(o.game.n):
            _mark(d["known"][seat], o.known[seat])
            d["hand_sizes"][seat] = o.hand_sizes[seat] / NUM_CARDS
        for c in o.pile:
            d["pile"][c] = 1.0
        for k, c in enumerate(reversed(o.pile[-5:])):
            d["pile_top"][k, c] = 1.0
        _mark(d["discard"], o.discard)
        if o.to_act is not None:
            d["to_act"][o.to_act] = 1.0
        d["phase"][o.phase] = 1.0
        d["pickup_count"][0] = o.pickup_count() / NUM_CARDS
        cap = self.cfg.rules.max_actions_per_hand or 1
        d["turns_of_cap"][0] = o.turns / cap

    def string_from(self, state: SvoiKozyriState, player: int) -> str:
        """The public view as text: known cards, pile, sizes, turn."""
        h = state.hand
        if h is None:
            return f"dealer {state.dealer} dealing"
        o = observe(h, None)
        known = " ".join(
            f"{seat_name(i)}:{format_cards(o.known[i])}" for i in range(o.game.n) if o.known[i]
        )
        return f"dealer {state.dealer} | known {known} | " + _table(o)


class InfoStateObserver:
    """The perfect-recall observer: the information-state tensor
    (:data:`INFO_STATE_FIELDS`) and string; ``private=False`` gives the public
    information state (no seat, no hand)."""

    def __init__(self, cfg: _Config, *, private: bool) -> None:
        cap = cfg.rules.max_actions_per_hand
        assert cap is not None
        rows = 2 * cap
        pieces = [
            (name, tuple(rows if k == "rows" else int(k) for k in shape))
            for name, shape in INFO_STATE_FIELDS
            if private or name not in ("player", "dealt_hand")
        ]
        self.private = private
        self.tensor, self.dict = _views(pieces)

    def set_from(self, state: SvoiKozyriState, player: int) -> None:
        """Fill the tensor with what ``player`` knows of ``state`` (or, public, what
        everybody knows)."""
        self.tensor.fill(0.0)
        d = self.dict
        if self.private:
            d["player"][player] = 1.0
        if state.dealer >= 0:
            d["dealer"][state.dealer] = 1.0
        if state.hand is None:
            if self.private:
                for c in state.dealt_so_far(player):
                    d["dealt_hand"][c] = 1.0
            return
        o = state.start_observation(player if self.private else -1)
        if self.private:
            _mark(d["dealt_hand"], o.hands[player])
        for seat in range(len(o.known)):
            _mark(d["start_known"][seat], o.known[seat])
        for c, frm, _ in o.transfers:
            d["transfers"][c // 10, frm] = 1.0
        rows = d["history"]
        for t, (who, a) in enumerate(zip(state.actors, state.actions, strict=True)):
            rows[t, who] = 1.0
            rows[t, 4 + a] = 1.0

    def string_from(self, state: SvoiKozyriState, player: int) -> str:
        """The information-state string of ``player`` (or the public one)."""
        return state.info_state_string(player) if self.private else state.public_info_string()


pyspiel.register_game(_GAME_TYPE, SvoiKozyriGame)

__all__ = [
    "DEALS",
    "GAME_NAME",
    "INFO_STATE_FIELDS",
    "MAX_SPLITS",
    "PUBLIC_FIELDS",
    "SvoiKozyriGame",
    "SvoiKozyriState",
]
