"""Svoi Kozyri as an OpenSpiel Python game: ``pyspiel.load_game("python_svoi_kozyri", {...})``
after ``import svoi_kozyri.envs.openspiel``.

* **Chance**: the first chance node picks the dealer (outcome = seat), then one chance
  node per card dealt (outcome = card id, uniform over the cards left), card ``i``
  going to seat ``dealer + 1 + i`` as in the engine's deal (the sixes then pass to
  their owners; the Besicovitch game uses its mirror deal).
* **Actions**: the engine's 41 step-level actions (card ids, 40 = pick up).
* **Observer**: the observation tensor and string are :mod:`.encoding`'s view of the
  player (only what it may know); the information-state string (perfect recall) is
  the seat, the dealer, the player's own hand after the deal, the sixes transfers it
  saw, and every step action so far (all plays and pickups are public, so this is the
  player's whole knowledge).
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
  (a turn has at most two steps) plus the deal.
"""

from __future__ import annotations

import random
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
    Game,
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
from .encoding import OBS_SIZE, encode_state
from .rewards import DRAW_DEFAULT, RewardKind, RewardSpec

GAME_NAME = "python_svoi_kozyri"

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
    "utility": "durak",
    "draw": DRAW_DEFAULT,
}


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
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_PARAMS,
    )


_GAME_TYPE = _game_type(False)


class _Config:
    """The engine game, deck and utility of one loaded game (shared, never copied)."""

    def __init__(self, params: dict[str, Any]) -> None:
        p = {**_PARAMS, **params}
        unknown = sorted(set(p) - set(_PARAMS))
        if unknown:
            raise RulesError(f"unknown parameter(s): {', '.join(unknown)}")
        besic = p["variant"] == "besicovitch"
        opts = {k: v for k, v in p.items() if k not in ("ranks", "utility", "draw")}
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

    def __deepcopy__(self, memo: dict[int, Any]) -> _Config:
        return self

    def start(self, dealer: int, order: list[int]) -> State:
        """The engine state of a hand dealt in ``order`` by ``dealer``."""
        if not self.small:
            return self.game.deal(dealer, order)
        n = self.n
        hands = [0] * n
        for i, c in enumerate(order):
            hands[(dealer + 1 + i) % n] |= 1 << c
        return self.game.position(hands, [], (dealer + 1) % n, "free")


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
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_CARDS,
            num_players=n,
            min_utility=lo,
            max_utility=hi,
            utility_sum=0.0 if cfg.zero_sum else None,
            max_game_length=2 * cap + 1 + len(cfg.deck),
        )
        super().__init__(_game_type(cfg.zero_sum), info, dict(params or {}))

    def new_initial_state(self) -> SvoiKozyriState:
        """The start: the dealer's chance node."""
        return SvoiKozyriState(self, self.cfg)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        """The observation observer, or with perfect recall the information-state one."""
        if params:
            raise ValueError(f"observer parameters are not supported: {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if iig_obs_type.perfect_recall:
            return InfoStateObserver()
        if (
            iig_obs_type.public_info
            and iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            return SvoiKozyriObserver()
        raise ValueError("only the default observation and the information state are offered")


class SvoiKozyriState(pyspiel.State):  # type: ignore[misc]
    """One hand: the deal as chance nodes, then the engine's step actions."""

    def __init__(self, game: SvoiKozyriGame, cfg: _Config) -> None:
        super().__init__(game)
        self.cfg = cfg
        self.dealer = -1
        self.order: list[int] = []
        self.hand: State | None = None
        self.actions: list[int] = []
        self.heads: dict[int, str] = {}  # per player: the deal part of the infostate

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
        """The dealer (uniform over the seats), then the next card (uniform)."""
        if self.dealer < 0:
            return [(s, 1.0 / self.cfg.n) for s in range(self.cfg.n)]
        dealt = set(self.order)
        left = [c for c in self.cfg.deck if c not in dealt]
        p = 1.0 / len(left)
        return [(c, p) for c in left]

    def _apply_action(self, action: int) -> None:
        if self.hand is None:
            if self.dealer < 0:
                self.dealer = int(action)
                return
            self.order.append(int(action))
            if len(self.order) == len(self.cfg.deck):
                self.hand = self.cfg.start(self.dealer, self.order)
            return
        self.hand.apply_action(int(action))
        self.actions.append(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            if self.dealer < 0:
                return f"dealer {seat_name(action)}"
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

    def info_state_string(self, player: int) -> str:
        """The player's whole knowledge: seat, dealer, own dealt hand, the sixes
        transfers it saw, every step action so far."""
        if self.hand is None:
            n = self.cfg.n
            mine = [c for i, c in enumerate(self.order) if (self.dealer + 1 + i) % n == player]
            return f"{seat_name(player)} dealer {self.dealer} dealt {format_cards(mine)}"
        head = self.heads.get(player)
        if head is None:
            head = self.heads[player] = self._head(player)
        return head + " ".join(str(a) for a in self.actions)

    def _head(self, player: int) -> str:
        assert self.hand is not None
        start = self.hand.start_state()
        o = observe(start, player)
        shown = " ".join(
            f"{format_card(c)}:{seat_name(a)}>{seat_name(b)}" for c, a, b in o.transfers
        )
        if self.cfg.besicovitch:
            mine = " / ".join(format_cards(h) for h in start.hands)
        else:
            mine = format_cards(start.hands[player])
        return f"{seat_name(player)} dealer {self.dealer} hand {mine} | {shown} | "

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> SvoiKozyriState:
        """A state in ``player_id``'s information set, its hidden cards resampled
        uniformly; ``probability_sampler()`` (a float in [0, 1)) seeds the draw."""
        cfg = self.cfg
        new = SvoiKozyriState(self.get_game(), cfg)
        rng = random.Random(int(probability_sampler() * 2**53))
        if self.hand is None:
            # mid-deal: keep the dealer and the player's own cards, redraw the others
            if self.dealer >= 0:
                new._apply_action(self.dealer)
            n = cfg.n
            mine = {c for i, c in enumerate(self.order) if (self.dealer + 1 + i) % n == player_id}
            pool = [c for c in cfg.deck if c not in mine]
            rng.shuffle(pool)
            it = iter(pool)
            for c in self.order:
                new._apply_action(c if c in mine else next(it))
            return new
        order = self._resample_order(player_id, rng)
        new._apply_action(self.dealer)
        for c in order:
            new._apply_action(c)
        for a in self.actions:
            new._apply_action(a)
        return new

    def _resample_order(self, player: int, rng: random.Random) -> list[int]:
        cfg = self.cfg
        h = self.hand
        assert h is not None
        if cfg.besicovitch:
            return list(self.order)  # open hands: nothing is hidden
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
            dealt = hands
        else:
            dealt = list(hands)
            # undo the sixes transfers: known ones as seen, the others from the seats
            # that hold fewer cards than the deal gave them
            size = len(cfg.deck)
            want = [
                size // n + (1 if (i - self.dealer - 1) % n < size % n else 0) for i in range(n)
            ]
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
        per_seat = [cards_of(d) for d in dealt]
        for cs in per_seat:
            rng.shuffle(cs)
        order = []
        for i in range(len(cfg.deck)):
            order.append(per_seat[(self.dealer + 1 + i) % n].pop())
        return order


class SvoiKozyriObserver:
    """The observation: :mod:`.encoding`'s tensor, and a short text of the same."""

    def __init__(self) -> None:
        self.tensor: npt.NDArray[np.float32] = np.zeros(OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

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
        turn = "over" if o.to_act is None else f"{seat_name(o.to_act)} {PHASE_NAMES[o.phase]}"
        sizes = " ".join(str(s) for s in o.hand_sizes)
        return (
            f"{seat_name(player)} hand {format_cards(o.hand)} | known {known} | pile "
            f"{format_cards(list(o.pile))} | discard {format_cards(o.discard)} | sizes "
            f"{sizes} | {turn}"
        )


class InfoStateObserver:
    """The perfect-recall observer: the information-state string (no tensor)."""

    def __init__(self) -> None:
        self.tensor: npt.NDArray[np.float32] = np.zeros(0, np.float32)
        self.dict: dict[str, Any] = {}

    def set_from(self, state: SvoiKozyriState, player: int) -> None:
        """No tensor for the information state."""

    def string_from(self, state: SvoiKozyriState, player: int) -> str:
        """The information-state string of ``player``."""
        return state.info_state_string(player)


pyspiel.register_game(_GAME_TYPE, SvoiKozyriGame)

__all__ = ["GAME_NAME", "SvoiKozyriGame", "SvoiKozyriState"]
