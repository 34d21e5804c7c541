"""Svoi Kozyri ("one's own trumps"): a Durak-family beating game where every
player owns a personal trump suit.  See ``svoi_kozyri.core`` for the engine.

>>> from svoi_kozyri import Game, Phase, Rules
>>> state = Game(Rules(num_players=4)).new_hand(dealer=3, seed=1)
>>> state.to_act, Phase(state.phase).label, sum(state.hand_sizes())
(0, 'free', 36)
"""

from ._docs import restore_module_docs as _restore_module_docs
from .core import *  # noqa: F403
from .core import __all__ as _core_all

__version__ = "0.1.0"

_restore_module_docs("svoi_kozyri.core")
__all__ = [*_core_all, "__version__"]
