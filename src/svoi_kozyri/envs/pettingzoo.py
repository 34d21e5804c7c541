"""PettingZoo AEC environment: one hand of Svoi Kozyri per episode.

``env(num_players=4, **rules)`` is the wrapped environment (order enforcing);
``raw_env`` the bare one.  The id is versioned as PettingZoo's own games are:
``metadata["name"] == "svoi_kozyri_v0"`` and ``svoi_kozyri.envs.svoi_kozyri_v0``.

* Agents ``player_0`` .. ``player_{n-1}`` are the seats A.. of the engine.
* Actions: the engine's fixed step-level space, ``Discrete(41)`` (one per card of
  the 40-card universe, 40 = pick up).  A two-card turn is two steps (beat, then
  lead), so the same agent can act twice in a row.
* Observation: ``{"observation": float32[OBS_SIZE], "action_mask": int8[41]}``;
  the tensor is :mod:`svoi_kozyri.envs.encoding`'s, relative to the observing
  player, and holds only what that player may know.  The mask is all zero for an
  agent that is not to act.
* Rewards come at the end of the hand, by ``reward=`` (:mod:`.rewards`): ``"durak"``
  (-1 for the durak, 0 for the others; Besicovitch +1 for the winner) or
  ``"placement"`` (+1 the first out .. -1 the durak), and ``draw=`` for a drawn hand,
  by default -1, so that no policy gains by steering into draws.  The hand's action
  cap is the rules option ``max_actions_per_hand`` (a hand reaching it is drawn).
* An illegal action ends the hand at once: the offender gets ``illegal_reward``
  (default -1), the others 0, and ``infos[agent]["illegal"]`` says so.  (That is
  PettingZoo's ``TerminateIllegalWrapper`` behaviour, done here because the engine
  checks every action anyway, so the wrapper's extra observation per step is not
  needed.)
* ``infos[agent]["legal_actions"]``: the legal actions of the agent to act, as a
  tuple of ints, for loops that skip observations (``env.last(observe=False)``).
* ``state()``: the global state for centralised critics (MAPPO-style training), the
  whole position with every hand, float32[:data:`STATE_SIZE`] in ``state_space``;
  its parts are :data:`STATE_FIELDS`.  Omniscient: never an agent's input.

Speed: where the vector simulator's compiled hand logic covers the rules (all but
the Besicovitch variant and ``suit_assignment="blind"``), the hand is stepped and
observed there, one compiled call each (:mod:`svoi_kozyri._native.onehand`); the
engine's state (``env.hand``) is brought up to date from the actions played only
when it is asked for.  The other rules run on the engine state directly.  Both
give the same observations, rewards and infos (``tests/test_envs_pettingzoo.py``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from .._native.layout import NEED_POOL
from .._native.onehand import ILLEGAL, LEGAL_BITS, SEAT_SHIFT, FastHand
from .._native.onehand import OVER as HAND_OVER
from ..core import (
    NUM_ACTIONS,
    NUM_CARDS,
    OVER,
    PICKUP,
    RESPOND,
    CardSet,
    Game,
    IllegalMoveError,
    Rules,
    State,
    actions_of_mask,
    as_action,
    blind_owners,
    cards_of,
)
from .encoding import OBS_SIZE, HandEncoder, hand_encoder, seat_view
from .rewards import RewardSpec, reward_spec
from .vector import unsupported

ENV_NAME = "svoi_kozyri_v0"
_F32: Final = np.dtype(np.float32)
_I8: Final = np.dtype(np.int8)
_empty: Final = np.empty  # a module global: one lookup instead of two per array
_SLAB_ROWS: Final = 64
"""Observations per slab (see :func:`_fresh_observations`): 64 tensors and masks,
about 165 kB."""


def _fresh_observations() -> Iterator[tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]]:
    """Endless fresh (tensor, mask) pairs for the observations a step writes: the
    rows of a slab of :data:`_SLAB_ROWS` tensors and masks, then of a new slab.

    Why: two ``np.empty`` a step cost about 0.4 µs, a sixth of a step; a row of a
    slab costs a third of that.  Every pair is memory no other observation uses and
    the environment never writes it again, so an observation anyone keeps stays as
    it was.  The price: a row keeps its whole slab alive, so a caller that keeps a
    few observations for long and drops the rest should keep copies (a caller that
    keeps them all holds the same memory as with separate arrays)."""
    while True:
        yield from zip(
            _empty((_SLAB_ROWS, OBS_SIZE), _F32),
            _empty((_SLAB_ROWS, NUM_ACTIONS), _I8),
            strict=True,
        )


# the literals of raw_env.step
assert PICKUP == 40 and SEAT_SHIFT == 41 and LEGAL_BITS == 0x1FFFFFFFFFF
AgentID = str
ObsDict = dict[str, npt.NDArray[Any]]


def make_rules(num_players: int | None, rules: dict[str, Any]) -> Rules:
    """The :class:`Rules` of an environment built with ``num_players`` and options."""
    opts = dict(rules)
    if num_players is not None:
        opts["num_players"] = num_players
    return Rules.from_dict(opts)


class HandDealer:
    """Deals the hands of an environment: the game of each hand (ownership is
    drawn again per hand with ``suit_assignment="blind"``) and a seeded shuffle."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.rng = random.Random()
        self.game = Game(rules)

    def seed(self, seed: int | None) -> None:
        """Restart the deal stream (``None``: from fresh entropy)."""
        self.rng = random.Random(seed)

    def deal(self) -> State:
        """A new hand: random dealer, seeded shuffle."""
        rng = self.rng
        if self.rules.suit_assignment == "blind":
            owners, pairs = blind_owners(self.rules, rng)
            self.game = Game(self.rules, owners, pairs)
        game = self.game
        return game.new_hand(rng.randrange(game.n), rng)


#: The global state's parts (``raw_env.state()``), in order: ``(name, size)``.  Seats
#: and suits are absolute (card ``suit * 10 + rank``, seat 0 = ``player_0``), so the
#: state is the same whoever acts.
STATE_FIELDS: Final = (
    ("hands", 4 * NUM_CARDS),  # per seat (4 rows of 40): every card it holds
    ("known", 4 * NUM_CARDS),  # per seat: the cards publicly known in its hand
    ("pile", NUM_CARDS),  # every card in the pile
    ("pile_top", 5 * NUM_CARDS),  # the five top cards, top first, one-hot rows
    ("discard", NUM_CARDS),  # cards out of play
    ("hand_sizes", 4),  # cards held per seat / 40
    ("to_act", 4),  # one-hot: the seat to act (all 0 once over)
    ("phase", 4),  # one-hot: free lead, respond, lead (mid-turn), over
    ("suit_owner", 4 * 5),  # per suit: one-hot owner seat 0..3, or 4 = unowned
    ("pickup_count", 1),  # cards a refusal takes now / 40
    ("turns_of_cap", 1),  # turns played / max_actions_per_hand (0 without a cap)
)
STATE_SIZE: Final = sum(size for _, size in STATE_FIELDS)


def global_state(state: State) -> npt.NDArray[np.float32]:
    """The :data:`STATE_FIELDS` tensor of an engine state (every hand: omniscient)."""
    out = np.zeros(STATE_SIZE, np.float32)
    part: dict[str, npt.NDArray[np.float32]] = {}
    at = 0
    for name, size in STATE_FIELDS:
        part[name] = out[at : at + size]
        at += size
    game = state.game

    def mark(name: str, row: int, cards: CardSet) -> None:
        for c in cards_of(cards):
            part[name][row * NUM_CARDS + c] = 1.0

    for seat in range(game.n):
        mark("hands", seat, state.hands[seat])
        mark("known", seat, state.known_cards(seat))
    pile = state.pile_cards()
    for c in pile:
        part["pile"][c] = 1.0
    for k, c in enumerate(reversed(pile[-5:])):
        part["pile_top"][k * NUM_CARDS + c] = 1.0
    mark("discard", 0, state.discard)
    part["hand_sizes"][: game.n] = np.array(state.hand_sizes(), np.float32) / NUM_CARDS
    if state.phase != OVER:
        part["to_act"][state.to_act] = 1.0
    part["phase"][state.phase] = 1.0
    for suit in range(4):
        owner = game.suit_owner[suit]
        part["suit_owner"][suit * 5 + (4 if owner < 0 else owner)] = 1.0
    if state.phase == RESPOND and pile:
        take = min(game.required_pickup(pile[-1], state.to_act), len(pile))
        part["pickup_count"][0] = take / NUM_CARDS
    cap = game.rules.max_actions_per_hand
    part["turns_of_cap"][0] = state.turns / cap if cap else 0.0
    return out


class raw_env(AECEnv):  # type: ignore[misc]
    """The bare AEC environment (see the module docstring)."""

    metadata = {  # noqa: RUF012 (PettingZoo reads a class attribute)
        "render_modes": ["human", "ansi"],
        "name": ENV_NAME,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        num_players: int | None = 4,
        render_mode: str | None = None,
        illegal_reward: float = -1.0,
        compiled_hand: bool = True,
        reward: str | RewardSpec = "durak",
        draw: float | None = None,
        **rules: Any,
    ) -> None:
        """``compiled_hand=False`` steps the engine state even where the compiled hand
        could (slower; the reference the tests compare the fast path with)."""
        super().__init__()
        self.rules = make_rules(num_players, rules)
        if render_mode is not None and render_mode not in ("human", "ansi"):
            raise ValueError("render_mode must be None, 'human' or 'ansi'")
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
        self.reward = reward_spec(reward, draw)
        """What a finished hand is worth (:mod:`.rewards`)."""
        self.dealer = HandDealer(self.rules)
        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, (STATE_SIZE,), np.float32)
        """The space of :meth:`state`."""
        self.state_: State | None = None
        self._encoder: HandEncoder | None = None
        #: the compiled hand (``None``: these rules run on the engine state) and the
        #: actions it played that ``state_`` has not applied yet
        # (a human render mode prints the engine state every step: no use for it)
        use = compiled_hand and unsupported(self.rules) is None and render_mode != "human"
        game = self.dealer.game
        self._fast = FastHand(game, [seat_view(game, s) for s in range(n)]) if use else None
        self._behind: list[int] = []
        # the observation made last in this step and its agent (None: none), so that
        # ``observe`` and ``last`` of the same agent in one step build it once
        self._obs: ObsDict = {}
        self._obs_agent: AgentID | None = None
        #: the agent whose whole ``last`` answer this step built, and that answer
        self._last_agent: AgentID | None = None
        self._last: tuple[ObsDict | None, float, bool, bool, dict[str, Any]] = (
            None,
            0.0,
            False,
            False,
            {},
        )
        #: the compiled hand while it steps the hand (it goes on), and whether the
        #: last step observed
        self._hot: FastHand | None = None
        #: steps and resets so far (the order-enforcing iterator's check)
        self._moves = 0
        self._observing = False
        #: the arrays of the observations the steps write (see ``step``)
        self._fresh = _fresh_observations()

    def __getstate__(self) -> dict[str, Any]:
        """The environment without its stream of fresh observation arrays (a
        generator, which does not pickle; a new one starts on unpickling)."""
        state = self.__dict__.copy()
        del state["_fresh"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._fresh = _fresh_observations()

    # -- spaces -------------------------------------------------------------------

    def observation_space(self, agent: AgentID) -> spaces.Space[Any]:
        """The Dict space of ``agent``'s observations."""
        return self.observation_spaces[agent]

    def action_space(self, agent: AgentID) -> spaces.Space[Any]:
        """``Discrete(41)``: the engine's step-level actions."""
        return self.action_spaces[agent]

    def state(self) -> npt.NDArray[np.float32]:
        """The global state (:data:`STATE_FIELDS`): the whole position, every hand
        included, for a centralised critic; never an agent's input.  A fresh array;
        it brings the engine state up to date (:attr:`hand`), so it costs about an
        engine step per step played since the last call."""
        return global_state(self.hand)

    # -- episode --------------------------------------------------------------------

    @property
    def hand(self) -> State:
        """The engine state of the current hand (omniscient: not for agents)."""
        state = self.state_
        if state is None:
            raise RuntimeError("call reset() first")
        behind = self._behind
        if behind:
            for a in behind:
                state.apply_action(a)
            behind.clear()
        return state

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand; with ``seed`` the deal stream restarts from it."""
        if seed is not None:
            self.dealer.seed(seed)
        state = self.state_ = self.dealer.deal()
        self._behind = []
        if self._fast is not None:
            self._fast.load(state)
        else:
            self._encoder = hand_encoder(state)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[AgentID, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[state.to_act]
        self.infos[self.agent_selection]["legal_actions"] = state.legal_actions()
        self._obs_agent = self._last_agent = None
        self._hot = self._fast
        self._moves += 1

    def observe(self, agent: AgentID) -> ObsDict:
        """``agent``'s observation tensor and action mask: fresh arrays (an
        observation anyone still holds stays as it was), written by one compiled
        call.  Asked twice for the same agent within one step (``observe`` and
        ``last``), it returns the same dict instead of building it again.

        Why the flag: a loop that observes every step gets the next agent's
        observation built by the step's own compiled call (one call a step instead
        of two); a loop that stops observing stops paying for it after one step."""
        seat = self._index[agent]
        self._observing = True
        if agent == self._last_agent:
            return self._last[0]  # type: ignore[return-value]
        if agent == self._obs_agent:
            return self._obs
        state = self.state_
        if state is None:
            raise RuntimeError("call reset() first")
        fast = self._fast
        if fast is not None:
            obs, mask = fast.observe(seat)
        else:
            enc = self._encoder
            assert enc is not None
            obs, mask = enc.observe(state, seat)
        o = self._obs = {"observation": obs, "action_mask": mask}
        self._obs_agent = self.possible_agents[seat]
        return o

    def last(
        self, observe: bool = True
    ) -> tuple[ObsDict | None, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``; in a loop that observes every step, the answer the
        step built together with the next observation (why: it is the hot path of
        every AEC loop, and four dict reads and a tuple fewer are a tenth of it)."""
        agent = self.agent_selection
        if observe and agent is self._last_agent:
            self._observing = True
            return self._last
        obs = self.observe(agent) if observe else None
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def step(self, action: int | None) -> None:
        """Apply the current agent's step action (``None`` once it is terminated)."""
        self._moves += 1
        fast = self._hot
        if fast is None:
            self._step_general(action)
            return
        # The compiled hand's hot path: FastHand.step and step_observe inlined
        # (their entry points, called only with an int in range and arrays made here).
        agent = self.agent_selection
        a = action if type(action) is int else as_action(action)
        if not 0 <= a <= 40:  # PICKUP, the highest action (a literal: no global lookup)
            self._refused(agent, action)
            return
        obs: npt.NDArray[np.float32] | None = None
        if self._observing:
            # the next observation, written into fresh arrays (rows of a slab: see
            # _fresh_observations) by the step's own compiled call
            self._observing = False
            obs, mask = next(self._fresh)
            r = fast.step_observe_entry(fast.W, a, obs, mask)
        else:
            r = fast.step_entry(fast.W, a)
        if r < 0:
            if r == NEED_POOL:
                r = fast.step(a) if obs is None else fast.step_observe(a, obs, mask)
            if r == ILLEGAL:
                self._refused(agent, action)
                return
            if r == HAND_OVER:
                self._obs_agent = self._last_agent = None
                self._behind.append(a)
                if self.reward.kind == "durak":
                    self._hand_over(agent, self.reward.by_loser(fast.n, fast.loser))
                else:  # the order of going out: the engine state knows it
                    self._hand_over(agent, self.reward.of_state(self.hand))
                return
        self._behind.append(a)
        # (the agent's cumulative reward stays 0.0 until the hand ends)
        infos = self.infos
        # (literals of SEAT_SHIFT and LEGAL_BITS: no global lookups)
        nxt = self.agent_selection = self.agents[r >> 41]
        if nxt is not agent:  # (the second step of a two-card turn: overwritten below)
            infos[agent] = {}
        info = infos[nxt] = {"legal_actions": actions_of_mask(r & 0x1FFFFFFFFFF)}
        self._obs_agent = None
        if obs is None:
            self._last_agent = None
        else:
            # the whole answer of ``last`` for the next agent (no reward and no end
            # before the hand's end), its observation included
            self._last_agent = nxt
            self._last = ({"observation": obs, "action_mask": mask}, 0.0, False, False, info)

    def _step_general(self, action: object) -> None:
        """A step on the engine state, or any step once the hand is decided."""
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if self.state_ is None:
            raise RuntimeError("call reset() first")
        self._obs_agent = self._last_agent = None
        if action is None:
            self._illegal(agent, "no action given")
            return
        self._engine_step(agent, action)

    def _engine_step(self, agent: AgentID, action: object) -> None:
        state = self.state_
        assert state is not None
        try:
            state.apply_action(action)
        except IllegalMoveError as e:
            self._illegal(agent, str(e))
            return
        if state.phase == OVER:
            self._hand_over(agent, self.reward.of_state(state))
            return
        infos = self.infos
        infos[agent] = {}
        self._cumulative_rewards[agent] = 0.0
        nxt = self.agent_selection = self.agents[state.to_act]
        infos[nxt] = {"legal_actions": state.legal_actions()}
        if self.render_mode == "human":
            self.render()

    def _refused(self, agent: AgentID, action: object) -> None:
        """The compiled hand refused ``action`` (and changed nothing): the hand ends
        for ``agent``, the engine words the reason."""
        self._obs_agent = self._last_agent = None
        if action is None:
            self._illegal(agent, "no action given")
            return
        try:
            self.hand.apply_action(action)
        except IllegalMoveError as e:
            self._illegal(agent, str(e))
            return
        raise AssertionError(f"the compiled hand refused {action!r}, the engine did not")

    def _hand_over(self, agent: AgentID, returns: tuple[float, ...] | list[float]) -> None:
        self._hot = None
        self.infos[agent] = {}
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        for i, a in enumerate(self.agents):
            rewards[a] = returns[i]
        self.terminations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[AgentID]:
        """The agents in turn (PettingZoo's ``AECIterator``: the agent to act, until
        no agent is left or ``max_iter`` were given), as a generator: resuming one
        costs less than a call of an iterator's ``__next__``, once a step."""
        return self._agents_in_turn(max_iter)

    def _agents_in_turn(self, max_iter: int) -> Iterator[AgentID]:
        left = max_iter
        while left > 0 and self.agents:
            left -= 1
            yield self.agent_selection

    def _illegal(self, agent: AgentID, why: str) -> None:
        self._hot = None
        for a in self.agents:
            self.rewards[a] = self.illegal_reward if a == agent else 0.0
            self.infos[a] = {"illegal": agent, "why": why}
        self.terminations = dict.fromkeys(self.agents, True)
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()

    def render(self) -> str | None:
        """The omniscient state as text (``ansi``) or printed (``human``)."""
        if self.render_mode is None:
            return None
        text = repr(self.hand)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


class OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order-enforcing wrapper, with the same checks at less cost.

    Why: the inherited ``last``, ``step`` and agent iterator read the wrapped
    environment's attributes through the wrapper's ``__getattr__`` (which builds a
    set on every access), which cost more than the observation itself.  Here
    ``last`` and ``step`` refuse before the first reset, and after it are the
    wrapped environment's own (whose ``step`` warns of a step after every agent is
    done, as the wrapper's does, and counts its steps); the iterator insists on a
    step or reset between two agents by that count."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``env.last`` of the wrapped environment, after the wrapper's reset check."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        result: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return result

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Reset the wrapped environment; from now on ``last`` and ``step`` are its
        own (their only checks, a reset first, hold from now on)."""
        super().reset(seed=seed, options=options)
        self._seen_moves = -1
        self.last = self.env.last  # type: ignore[method-assign]
        self.step = self.env.step  # type: ignore[method-assign]

    def step(self, action: int | None) -> None:
        """The wrapper's checks (reset first, no step once every agent is done), then
        the wrapped environment's step, reading its agents directly."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def agent_iter(self, max_iter: int = 2**63) -> Iterator[AgentID]:
        """The wrapper's agent iterator (a step or reset between two agents), reading
        the wrapped environment's agents directly."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return self._agents_in_order(max_iter)

    def _agents_in_order(self, max_iter: int) -> Iterator[AgentID]:
        env = self.env
        left = max_iter
        while left > 0 and env.agents:
            left -= 1
            moves = env._moves
            if moves == self._seen_moves:
                raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
            self._seen_moves = moves
            yield env.agent_selection


def env(num_players: int | None = 4, **kwargs: Any) -> Any:
    """The environment with PettingZoo's order-enforcing wrapper (see :class:`raw_env`)."""
    return OrderEnforcing(raw_env(num_players=num_players, **kwargs))
