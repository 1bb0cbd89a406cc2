"""A fit's trees in flat arrays: the compiled kernels' input, and many trees
on a few rows at once for the NumPy predictor's tail.

With numba, :mod:`.compiled` walks these arrays (:func:`compiled_kernels`).
Without it, the predictor seam scores one tree on the active rows; its cost
is per node of the tree, whatever the number of rows. Once few rows are
left, QWYC's predictor scores them on all the trees still to come at once:
:class:`FlatForest` holds the trees' nodes in flat arrays and sends every
(row, tree) pair down its tree level by level. It follows the engine's split
rule (``engine.tree.split_directions``): continuous ``x < point`` goes left,
NaN to the missing child, a categorical level by its ``c_splits`` entry, a
level outside the entry (never seen in training) to the missing child. A
terminal node's value is the tree's own number, so the scores are the seam's
bit for bit (tests/early_exit/test_forest.py).
"""
from __future__ import annotations

import numpy as np

from ..engine.forest import pack_forest
from ..engine.split import LEFT, MISSING, RIGHT
from ..engine.tree import GOES_LEFT, GOES_RIGHT, ColumnView, NO_NODE


def compiled_kernels():
    """QWYC's compiled kernels (:mod:`.compiled`) when numba is there, else None."""
    from ..engine import compiled
    if not compiled.available():
        return None
    from . import compiled as kernels     # imports numba: only when it is there
    return kernels


class FlatForest:
    """The nodes of ``trees`` as the early-exit walk reads them, from the
    engine's packed forest (:func:`pygbm.engine.forest.pack_forest`): children
    by side (a terminal node's 0: never followed), a flag per node for a
    categorical split, and the ``c_splits`` table as sides (LEFT, RIGHT, or
    MISSING for a level marked neither way and, in one more column, for any
    level outside its row)."""

    def __init__(self, trees, c_splits, var_type):
        packed = pack_forest(trees, c_splits)
        self.root = packed.root[:-1].astype(np.intp)
        self.var = packed.split_var.astype(np.intp)
        self.code = packed.code
        children = np.zeros((3, self.var.size), dtype=np.intp)
        for side, child in ((LEFT, packed.left), (RIGHT, packed.right),
                            (MISSING, packed.missing)):
            children[side] = np.maximum(child, 0)
        self.children = children
        var_type = np.asarray(var_type)
        self.categorical = (self.var >= 0) & (var_type[np.maximum(self.var, 0)] > 0)
        entries = packed.c_table
        table = np.full((entries.shape[0], entries.shape[1] + 1), MISSING, dtype=np.int8)
        table[:, :-1][entries == GOES_LEFT] = LEFT
        table[:, :-1][entries == GOES_RIGHT] = RIGHT
        self.table = table

    @property
    def arrays(self) -> tuple:
        """The forest as the compiled kernels take it (:mod:`.compiled`)."""
        return (self.root, self.var, self.code, self.children, self.categorical, self.table)

    def scores(self, view: ColumnView, rows: np.ndarray, trees: np.ndarray) -> np.ndarray:
        """(len(rows), len(trees)): tree ``trees[j]``'s score on row ``rows[i]``."""
        pair_row = np.repeat(rows, trees.size)
        node = np.tile(self.root[trees], rows.size)
        walking = np.flatnonzero(self.var[node] != NO_NODE)
        width = self.table.shape[1]
        while walking.size:
            at = node[walking]
            x = view.cols[self.var[at], pair_row[walking]]
            nan = np.isnan(x)
            side = np.greater_equal(x, self.code[at]).view(np.int8)
            cat = self.categorical[at]
            if cat.any():
                level = np.where(nan[cat], -1.0, x[cat]).astype(np.intp)
                level = np.where((level >= 0) & (level < width - 1), level, width - 1)
                side[cat] = self.table[self.code[at[cat]].astype(np.intp), level]
            side[nan] = MISSING
            node[walking] = self.children[side, at]
            walking = walking[self.var[node[walking]] != NO_NODE]
        return self.code[node].reshape(rows.size, trees.size)
