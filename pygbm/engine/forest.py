"""A fit's trees in flat node tables, packed once for the predictors that walk
many trees at once: the compiled predictor (:mod:`.compiled.predict`) and
QWYC's early-exit predictor (:mod:`pygbm.early_exit.forest`). NumPy only: the
NumPy engine and early exit use it where numba cannot be imported."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .tree_list import TreeList


class PackedForest(NamedTuple):
    """Trees' R vectors in flat arrays: tree ``t`` owns the nodes
    ``root[t]..root[t + 1] - 1``, child ids are flat ids (-1: none)."""

    root: np.ndarray            # (n_trees + 1,)
    split_var: np.ndarray       # (nodes,): -1 for a terminal node
    code: np.ndarray            # split point, c_splits row, or terminal value
    left: np.ndarray
    right: np.ndarray
    missing: np.ndarray
    c_table: np.ndarray         # int8 (rows of c_splits, widest) padded with 0


def pack_forest(trees, c_splits) -> PackedForest:
    """The flat tables of ``trees`` (a :class:`~pygbm.engine.tree_list.TreeList`, or
    any sequence of :class:`~pygbm.engine.tree.Tree`)."""
    sizes, vectors = TreeList.of(trees).node_vectors()
    split_var, code, left, right, missing = vectors[:5]
    root = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
    np.cumsum(sizes, out=root[1:])
    offset = np.repeat(root[:-1], sizes)

    def kids(child):
        child = child.astype(np.int64)
        return np.where(child < 0, -1, child + offset)

    return PackedForest(root, split_var.astype(np.int64), code.astype(np.float64),
                        kids(left), kids(right), kids(missing), _c_table(c_splits))


def _c_table(c_splits) -> np.ndarray:
    """The categorical splits as rows of one table, padded with 0 (neither way)."""
    lengths = np.fromiter(map(len, c_splits), dtype=np.int64, count=len(c_splits))
    width = max(1, int(lengths.max(initial=1)))
    c_table = np.zeros((max(1, len(c_splits)), width), dtype=np.int8)
    if len(c_splits):
        rows = np.repeat(np.arange(len(c_splits)), lengths)
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        c_table[rows, np.arange(rows.size) - starts] = np.concatenate(c_splits)
    return c_table
