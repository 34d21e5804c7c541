"""The compiled (numba) kernels, behind small typed facades.

Why a package of its own: the kernels are written for speed (flat arrays, views
without owners, entry points that skip numba's type checks), and those tricks stay
here.  The environments and the bots call only the facades, plain typed Python:

* :mod:`.batch`: :class:`~.batch.Batch`, B hands in one compiled layout, stepped,
  dealt, observed and played at random in one pass (``envs.vector``);
* :mod:`.onehand`: :class:`~.onehand.FastHand`, one hand stepped and observed by
  one compiled call each (the PettingZoo environment's fast path);
* :mod:`.encoder`: the observation tensor of an engine state in one call
  (``envs.encoding``);
* :mod:`.fixpoint`: :class:`~.fixpoint.FixGraph`, the exact solver's least
  fixpoint (``bots.search.solver``);
* :mod:`.layout`: the constants of the compiled layout, shared by kernels, facades
  and tests.

The modules whose names start with an underscore are numba's: the typed decorator
and intrinsics (``_jit``), the repetition tables (``_reptable``), the rules of a
hand (``_hand``), the random policy (``_policy``), the tensor writer
(``_observe``), the batch and one-hand kernels (``_batch``, ``_onehand``), the
encoder (``_encode``) and the fixpoint (``_fixpoint``).

Where it sits (``docs/architecture.md``): one layer above the core, whose rules it
mirrors and whose constants it imports, and below the bots and the environments,
which import its facades; it imports nothing else of the package.  Importing a
facade needs numpy and numba (the ``fast`` extra); this package's ``__init__``
imports neither, so ``import svoi_kozyri`` never pulls them in.
"""
