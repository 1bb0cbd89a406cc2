"""Prediction with many trees, compiled: every row sent down every tree in one call.

The NumPy predictor (:class:`pygbm.engine.tree.TreePredictor`) scores one
tree at a time over all rows, a fixed number of NumPy calls per node: on a
few hundred rows and thousands of trees (a cv fold's held-out rows,
``predict`` in a notebook) the calls are the cost. Here the trees are packed
once into flat node tables (:func:`pack_forest`) and :func:`forest_link`
walks each row through every tree, adding each tree's terminal value to the
row's link in tree order, as the NumPy predictor adds them, so the numbers
are the same bit for bit. A split follows the engine's rule
(``engine.tree.split_directions``): continuous ``x >= point`` right, else
left; NaN to the missing child; a categorical level by its ``c_splits``
entry, a level outside the entry (never seen in training) or marked neither
way to the missing child.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..tree_list import TreeList
from .tree_arrays import GOES_LEFT, GOES_RIGHT


class PackedForest(NamedTuple):
    """Trees' R vectors in flat arrays: tree ``t`` owns the nodes
    ``root[t]..root[t + 1] - 1``, child ids are flat ids (-1: none)."""

    root: np.ndarray            # (n_trees + 1,)
    split_var: np.ndarray       # (nodes,)
    code: np.ndarray            # split point, c_splits row, or terminal value
    left: np.ndarray
    right: np.ndarray
    missing: np.ndarray
    c_table: np.ndarray         # (rows of c_splits, widest) padded with 0


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
    c_table = np.zeros((max(1, len(c_splits)), width), dtype=np.int64)
    if len(c_splits):
        rows = np.repeat(np.arange(len(c_splits)), lengths)
        starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
        c_table[rows, np.arange(rows.size) - starts] = np.concatenate(c_splits)
    return c_table


@njit(cache=True, error_model="numpy", nogil=True)
def _terminal(forest, t, cols, var_type, i):
    """The flat id of the terminal node row ``i`` reaches in tree ``t``."""
    k = forest.root[t]
    width = forest.c_table.shape[1]
    while forest.split_var[k] >= 0:
        v = forest.split_var[k]
        xv = cols[v, i]
        if np.isnan(xv):
            k = forest.missing[k]
        elif var_type[v] == 0:
            k = forest.right[k] if xv >= forest.code[k] else forest.left[k]
        else:
            lev = int(xv)
            entry = 0
            if lev >= 0 and lev < width:
                entry = forest.c_table[int(forest.code[k]), lev]
            if entry == GOES_LEFT:
                k = forest.left[k]
            elif entry == GOES_RIGHT:
                k = forest.right[k]
            else:
                k = forest.missing[k]
    return k


@njit(cache=True, error_model="numpy", nogil=True)
def forest_link(forest, cols, var_type, init, counts, n_outputs, out):
    """Link values of every row of ``cols`` (predictors by rows) after each
    number of iterations in ``counts`` (increasing) into ``out`` (rows,
    outputs, len(counts)); tree ``t`` adds to output ``t % n_outputs``,
    starting from ``init`` (one value per output)."""
    n = cols.shape[1]
    f = np.empty(n_outputs)
    for i in range(n):
        for k in range(n_outputs):
            f[k] = init[k]
        t = 0
        for j in range(counts.shape[0]):
            stop = counts[j] * n_outputs
            while t < stop:
                f[t % n_outputs] += forest.code[_terminal(forest, t, cols, var_type, i)]
                t += 1
            for k in range(n_outputs):
                out[i, k, j] = f[k]
