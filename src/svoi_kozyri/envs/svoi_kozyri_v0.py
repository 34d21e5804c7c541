"""The versioned PettingZoo id, in PettingZoo's style (``from svoi_kozyri.envs import
svoi_kozyri_v0; env = svoi_kozyri_v0.env(num_players=3)``)."""

from .pettingzoo import ENV_NAME, env, raw_env

__all__ = ["ENV_NAME", "env", "raw_env"]
