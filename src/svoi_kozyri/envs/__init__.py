"""Research environments (optional extra ``[envs]``): PettingZoo, Gymnasium and
OpenSpiel wrappers, the observation encoding, a vectorised batch simulator and
self-play data.  See ``docs/envs.md``.

The submodules import their framework only when imported themselves, so
``import svoi_kozyri.envs`` costs nothing and needs none of them.
"""
