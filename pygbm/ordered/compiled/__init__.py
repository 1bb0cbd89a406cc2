"""Ordered boosting's compiled kernels (numba; ``engine="numba"``).

:mod:`.search` counts a node's integer histograms and scores its candidate
splits, :mod:`.grower` grows a whole tree in one compiled call and hands
the loop a :class:`pygbm.engine.compiled.grower.CompiledTree`,
:mod:`.support` computes the supporting models' working responses and
adds each tree to them. Every float is computed in the order of the NumPy
reference (:mod:`pygbm.ordered.search`, :mod:`pygbm.ordered.grow`,
:mod:`pygbm.ordered.support`), so that both engines give the same ordered
fit bit for bit (``tests/ordered/test_ordered_compiled.py``). These modules import
numba: the scheme imports them when a fit asks for the compiled engine, and
this package's import first drops numba's cached kernels if a source they
depend on changed (:mod:`pygbm.kernel_cache`).
"""
from ... import kernel_cache

kernel_cache.drop_stale()
