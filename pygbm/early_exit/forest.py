"""QWYC's walks of the fit's flat forest: its compiled kernels, and many trees on
a few rows at once for the NumPy predictor's tail.

Both read the trees as the engine packs them once (:class:`FlatForest`, built
by :class:`.model_scores.ModelScores`). With numba, :mod:`.compiled` walks
the tables (:func:`compiled_kernels`). Without it, the predictor seam scores
one tree on the active rows; its cost is per node of the tree, whatever the
number of rows. Once few rows are left, QWYC's predictor scores them on all
the trees still to come at once: :func:`flat_scores` sends every (row, tree)
pair down its tree level by level, by the split rule the flat forest's
tables spell (:mod:`pygbm.engine.forest`), so the scores are the seam's bit
for bit (tests/early_exit/test_forest.py).
"""
from __future__ import annotations

import numpy as np

from ..engine import compiled
from ..engine.forest import FlatForest
from ..engine.split import MISSING
from ..engine.tree import ColumnView, NO_NODE

__all__ = ["compiled_kernels", "flat_scores"]


def compiled_kernels():
    """QWYC's compiled kernels (:mod:`.compiled`) when numba is there, else None."""
    if not compiled.available():
        return None
    from . import compiled as kernels     # imports numba: only when it is there
    return kernels


def flat_scores(forest: FlatForest, view: ColumnView, rows: np.ndarray,
                trees: np.ndarray) -> np.ndarray:
    """(len(rows), len(trees)): tree ``trees[j]``'s score on row ``rows[i]``."""
    pair_row = np.repeat(rows, trees.size)
    node = np.tile(forest.root[trees], rows.size)
    walking = np.flatnonzero(forest.split_var[node] != NO_NODE)
    outside = forest.c_sides.shape[1] - 1     # the column of a level outside every row
    while walking.size:
        at = node[walking]
        x = view.cols[forest.split_var[at], pair_row[walking]]
        nan = np.isnan(x)
        side = np.greater_equal(x, forest.code[at]).view(np.int8)     # RIGHT: 1, LEFT: 0
        cat = forest.categorical[at]
        if cat.any():
            level = np.where(nan[cat], -1.0, x[cat]).astype(np.intp)
            level = np.where((level >= 0) & (level < outside), level, outside)
            side[cat] = forest.c_sides[forest.code[at[cat]].astype(np.intp), level]
        side[nan] = MISSING
        node[walking] = forest.children[side, at]
        walking = walking[forest.split_var[node[walking]] != NO_NODE]
    return forest.code[node].reshape(rows.size, trees.size)
