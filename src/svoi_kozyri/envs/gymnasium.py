"""Gymnasium single-agent environment: one learner against built-in bots.

``SvoiKozyriEnv(num_players=4, opponents="expert,medium", seat=0, **rules)``, also
registered as ``gymnasium.make("SvoiKozyri-v0", ...)`` once this module is imported.

* The learner plays one seat (``seat``: an index, a letter, or ``"random"`` for a
  new seat every hand); the other seats are bots named like everywhere else
  (``random``, ``greedy``, ``heuristic``, ``easy``..``expert``, with options
  ``ismcts:ms=200``), given in seat order after the learner and repeated when
  fewer are given.
* Actions, observation and mask are those of the PettingZoo environment: the
  engine's 41 step-level actions and ``{"observation", "action_mask"}``.  The bots
  move between the learner's steps, each seeing only its own observation.
* Reward: the learner's reward when the hand ends, 0 before: ``reward="durak"``
  (-1 for the durak, 0 otherwise; Besicovitch +1 for a win) or ``"placement"``
  (+1 first out .. -1 the durak), and ``draw`` for a drawn hand, by default -1 so
  that steering into draws never pays (:mod:`.rewards` says why).  An illegal
  action ends the episode with ``illegal_reward`` (default -1) and
  ``info["illegal"] = True``.  The episode cap is the rules option
  ``max_actions_per_hand`` (a hand reaching it is drawn).
* Seeding: ``reset(seed=s)`` fixes the deal stream and the bots' random streams.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..arena import split_bot_list
from ..bots import Agent, make_agent
from ..core import NUM_ACTIONS, IllegalMoveError, State, observe, parse_seat
from .encoding import OBS_SIZE, action_mask, encode_state
from .pettingzoo import HandDealer, make_rules
from .rewards import RewardSpec, reward_spec

ENV_ID = "SvoiKozyri-v0"
ObsDict = dict[str, npt.NDArray[Any]]


def split_bot_specs(text: str) -> list[str]:
    """``"expert,ismcts:ms=200,c=1,medium"`` -> ``["expert", "ismcts:ms=200,c=1",
    "medium"]``: the arena's rule (a part with ``=`` but no ``:`` continues the bot
    before it)."""
    return split_bot_list(text)


class SvoiKozyriEnv(gymnasium.Env[Any, Any]):
    """One hand per episode, the learner against bots (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}  # noqa: RUF012 (Gymnasium's class attribute)

    def __init__(
        self,
        num_players: int | None = 4,
        opponents: str | list[str] = "medium",
        seat: int | str = 0,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        reward: str | RewardSpec = "durak",
        draw: float | None = None,
        **rules: Any,
    ) -> None:
        self.rules = make_rules(num_players, rules)
        self.reward = reward_spec(reward, draw)
        n = self.rules.num_players
        specs = split_bot_specs(opponents) if isinstance(opponents, str) else list(opponents)
        if not specs:
            raise ValueError("opponents must name at least one bot")
        self.opponent_specs = [specs[i % len(specs)] for i in range(n - 1)]
        self.bots: list[Agent] = [make_agent(s, 0) for s in self.opponent_specs]
        if seat == "random":
            self.seat_choice: int | None = None
        else:
            self.seat_choice = seat if isinstance(seat, int) else parse_seat(str(seat), n)
            if not 0 <= self.seat_choice < n:
                raise ValueError(f"seat {seat!r} does not exist with {n} players")
        if render_mode is not None and render_mode != "ansi":
            raise ValueError("render_mode must be None or 'ansi'")
        self.render_mode = render_mode
        self.illegal_reward = float(illegal_reward)
        self.dealer = HandDealer(self.rules)
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.state_: State | None = None
        self.seat = 0 if self.seat_choice is None else self.seat_choice
        self._by_seat: list[Agent | None] = []

    @property
    def hand(self) -> State:
        """The engine state of the current hand (omniscient: not for the learner)."""
        if self.state_ is None:
            raise RuntimeError("call reset() first")
        return self.state_

    def _obs(self) -> ObsDict:
        state = self.hand
        if state.to_act == self.seat:
            mask = action_mask(state)
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": encode_state(state, self.seat), "action_mask": mask}

    def _info(self) -> dict[str, Any]:
        state = self.hand
        info: dict[str, Any] = {"seat": self.seat}
        if state.is_over and state.outcome is not None:
            info["loser"] = state.outcome.loser
            info["reason"] = state.outcome.termination.value
        return info

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """Deal a new hand and let the bots play up to the learner's first step."""
        super().reset(seed=seed)
        if seed is not None:
            self.dealer.seed(int(self.np_random.integers(1 << 62)))
            for bot in self.bots:
                bot.reseed(int(self.np_random.integers(1 << 62)))
        elif self.state_ is None:
            self.dealer.seed(int(self.np_random.integers(1 << 62)))
        n = self.rules.num_players
        if self.seat_choice is None:
            self.seat = self.dealer.rng.randrange(n)
        self.state_ = self.dealer.deal()
        others = [(self.seat + 1 + i) % n for i in range(n - 1)]
        self._by_seat = [None] * n
        for bot, s in zip(self.bots, others, strict=True):
            self._by_seat[s] = bot
        self._play_bots()
        return self._obs(), self._info()

    def _play_bots(self) -> None:
        state = self.hand
        while not state.is_over and state.to_act != self.seat:
            s = state.to_act
            bot = self._by_seat[s]
            assert bot is not None
            state.push(bot.choose(observe(state, s)), s)

    def step(self, action: int) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        """Apply the learner's step action, then the bots' moves up to its next step."""
        state = self.hand
        if state.is_over:
            raise RuntimeError("the hand is over: call reset()")
        try:
            state.apply_action(action)
        except IllegalMoveError as e:
            info = self._info()
            info.update(illegal=True, why=str(e))
            return self._obs(), self.illegal_reward, True, False, info
        self._play_bots()
        reward = self.reward.of_state(state)[self.seat] if state.is_over else 0.0
        return self._obs(), reward, state.is_over, False, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal-action mask as booleans (the name sb3-contrib's MaskablePPO reads)."""
        return self._obs()["action_mask"].astype(bool)

    def render(self) -> str | None:
        """The omniscient state as text (``ansi``)."""
        return None if self.render_mode is None else repr(self.state_)


if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point=f"{__name__}:SvoiKozyriEnv")
