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
* Rewards come at the end of the hand: the engine's ``State.returns()`` (-1 for the
  durak, 0 for the others and for draws; Besicovitch +1 for the winner).
* An illegal action ends the hand at once: the offender gets ``illegal_reward``
  (default -1), the others 0, and ``infos[agent]["illegal"]`` says so.  (That is
  PettingZoo's ``TerminateIllegalWrapper`` behaviour, done here because the engine
  checks every action anyway, so the wrapper's extra observation per step is not
  needed.)
* ``infos[agent]["legal_actions"]``: the legal actions of the agent to act, as a
  tuple of ints, for loops that skip observations (``env.last(observe=False)``).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..core import NUM_ACTIONS, OVER, Game, IllegalMoveError, Rules, State, blind_owners
from .encoding import OBS_SIZE, HandEncoder, hand_encoder

ENV_NAME = "svoi_kozyri_v0"
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
        **rules: Any,
    ) -> None:
        super().__init__()
        self.rules = make_rules(num_players, rules)
        if render_mode is not None and render_mode not in ("human", "ansi"):
            raise ValueError("render_mode must be None, 'human' or 'ansi'")
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
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
        self.state_: State | None = None
        self._encoder: HandEncoder | None = None
        # the observation made last in this step and its seat (-1: none), so that
        # ``observe`` and ``last`` of the same agent in one step build it once
        self._obs: ObsDict = {}
        self._obs_seat = -1

    # -- spaces -------------------------------------------------------------------

    def observation_space(self, agent: AgentID) -> spaces.Space[Any]:
        """The Dict space of ``agent``'s observations."""
        return self.observation_spaces[agent]

    def action_space(self, agent: AgentID) -> spaces.Space[Any]:
        """``Discrete(41)``: the engine's step-level actions."""
        return self.action_spaces[agent]

    # -- episode --------------------------------------------------------------------

    @property
    def hand(self) -> State:
        """The engine state of the current hand (omniscient: not for agents)."""
        if self.state_ is None:
            raise RuntimeError("call reset() first")
        return self.state_

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new hand; with ``seed`` the deal stream restarts from it."""
        if seed is not None:
            self.dealer.seed(seed)
        state = self.state_ = self.dealer.deal()
        self._encoder = hand_encoder(state)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[AgentID, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[state.to_act_seat]
        self.infos[self.agent_selection]["legal_actions"] = state.legal_actions()
        self._obs_seat = -1

    def observe(self, agent: AgentID) -> ObsDict:
        """``agent``'s observation tensor and action mask: fresh arrays (a stored
        observation stays as it was), written by one compiled call.  Asked twice
        for the same agent within one step (``observe`` and ``last``), it returns
        the same dict instead of building it again."""
        seat = self._index[agent]
        if seat == self._obs_seat:
            return self._obs
        enc = self._encoder
        state = self.state_
        if enc is None or state is None:
            raise RuntimeError("call reset() first")
        obs, mask = enc.observe(state, seat)
        o = self._obs = {"observation": obs, "action_mask": mask}
        self._obs_seat = seat
        return o

    def step(self, action: int | None) -> None:
        """Apply the current agent's step action (``None`` once it is terminated)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state_
        if state is None:
            raise RuntimeError("call reset() first")
        self._obs_seat = -1
        if action is None:
            self._illegal(agent, "no action given")
            return
        try:
            state.apply_action(action)
        except IllegalMoveError as e:
            self._illegal(agent, str(e))
            return
        infos = self.infos
        infos[agent] = {}
        self._cumulative_rewards[agent] = 0.0
        if state.phase == OVER:
            returns = state.returns()
            rewards = self.rewards
            for i, a in enumerate(self.agents):
                rewards[a] = returns[i]
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            return
        nxt = self.agent_selection = self.agents[state.to_act_seat]
        infos[nxt] = {"legal_actions": state.legal_actions()}
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent: AgentID, why: str) -> None:
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
        text = repr(self.state_)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""


class OrderEnforcing(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's order-enforcing wrapper with a direct :meth:`last`.

    Why: the inherited ``last`` reads five attributes of the wrapped environment
    through the wrapper's ``__getattr__`` (which builds a set on every access) and
    cost more than the observation itself; this one makes the same check once and
    asks the environment."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``env.last`` of the wrapped environment, after the wrapper's reset check."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        result: tuple[Any, float, bool, bool, dict[str, Any]] = self.env.last(observe)
        return result


def env(num_players: int | None = 4, **kwargs: Any) -> Any:
    """The environment with PettingZoo's order-enforcing wrapper (see :class:`raw_env`)."""
    return OrderEnforcing(raw_env(num_players=num_players, **kwargs))
