"""Link-scale predictions of many trees, by the fit's engine.

:func:`predict_link` is what ``predict``, cross-validation, partial
dependence and permutation influence call: the NumPy predictor
(:func:`pygbm.engine.tree.predict_trees`, the reference) or, with the
compiled engine, :mod:`.compiled.predict` (every row through every tree of
a :class:`~.forest.FlatForest` in one call); the same numbers bit for bit
(``tests/engine/test_predict.py``).
"""
from __future__ import annotations

import numpy as np

from . import compiled
from .forest import FlatForest
from .tree import ColumnView, predict_trees


def predict_link(trees, x, var_type, c_splits, init_f, n_trees_list, n_outputs=1,
                 engine="numpy"):
    """Link-scale predictions after each number of iterations in ``n_trees_list``.

    Returns (n_rows, len(n_trees_list)); with ``n_outputs`` > 1 (one tree per
    output per iteration, R's layout) (n_rows, n_outputs, len(n_trees_list)).
    ``engine``: "numba" (compiled) or "numpy" (also where numba cannot be
    imported, as for a fit pickled with the compiled engine: the same numbers).
    """
    if engine != "numba" or not compiled.available():
        return predict_trees(trees, x, var_type, c_splits, init_f, n_trees_list, n_outputs)
    # numba is imported with the compiled predictor, on first use (it may be absent)
    from .compiled.predict import forest_link

    counts = np.asarray(n_trees_list, dtype=np.int64).reshape(-1)
    order = np.argsort(counts, kind="stable")
    K = int(n_outputs)
    view = ColumnView(x, var_type)
    init = np.ascontiguousarray(np.broadcast_to(np.asarray(init_f, dtype=float), (K,)))
    out = np.empty((view.n_rows, K, counts.size))
    forest = FlatForest.of(trees[:int(counts.max(initial=0)) * K], c_splits, var_type)
    forest_link(forest, view.cols, init, counts[order], K, out)
    result = np.empty_like(out)
    result[:, :, order] = out
    return result[:, 0, :] if K == 1 else result
