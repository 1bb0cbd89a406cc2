"""Prediction with many trees, compiled: every row sent down every tree in one call.

The NumPy predictor (:class:`pygbm.engine.tree.TreePredictor`) scores one
tree at a time over all rows, a fixed number of NumPy calls per node: on a
few hundred rows and thousands of trees (a cv fold's held-out rows,
``predict`` in a notebook) the calls are the cost. Here the trees are packed
once into flat node tables (:func:`pygbm.engine.forest.pack_forest`, with each
tree's depth: :func:`tree_depths`) and :func:`forest_link`
walks blocks of rows through every tree in turn, each row adding each tree's
terminal value to its link in tree order, as the NumPy predictor adds them,
so the numbers are the same bit for bit. Against the NumPy predictor
(``benchmarks/results/predict_walk.md``, 1000 trees of depth 3 on 20
predictors, two runs): 0.04-0.6 of its time up to 10,000 rows and 0.5-0.8 at
100,000; with three categorical predictors 0.08-0.26 up to 1000 rows and
0.66-1.13 from 10,000 (a categorical split reads its level's entry of a table
that does not stay in the nearest cache).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .tree_arrays import GOES_LEFT, GOES_RIGHT


def tree_depths(forest) -> np.ndarray:
    """The number of splits on each tree's longest path of a
    :class:`~pygbm.engine.forest.PackedForest` (how many levels
    :func:`forest_link` walks each tree)."""
    return _tree_depths(forest.root, forest.split_var, forest.left, forest.right,
                        forest.missing)


@njit(cache=True, nogil=True)
def _tree_depths(root, split_var, left, right, missing):
    """The number of splits on each tree's longest path (a child's flat id is
    above its parent's: R's node order)."""
    depth = np.zeros(split_var.shape[0], dtype=np.int64)
    out = np.zeros(root.shape[0] - 1, dtype=np.int64)
    for t in range(out.shape[0]):
        for k in range(root[t], root[t + 1]):
            if split_var[k] >= 0:
                for child in (left[k], right[k], missing[k]):
                    if child >= 0:
                        depth[child] = depth[k] + 1
            else:
                out[t] = max(out[t], depth[k])
    return out


#: rows walked together through one tree before the next tree, a level at a
#: time: the tree's nodes stay in the nearest cache across the block and the
#: rows' walks overlap (each row still adds its trees' values in tree order, so
#: the numbers do not depend on it)
ROW_BLOCK = 256


@njit(cache=True, error_model="numpy", nogil=True)
def _walk_block(forest, depth, t, cols, var_type, first, node):
    """The terminal node of tree ``t`` that each of the rows ``first``,
    ``first + 1``, ... of ``cols`` reaches, into ``node`` (one entry per row), a
    level at a time: the rows' walks are independent, so the processor
    overlaps them."""
    split_var, code, left, right, missing = (forest.split_var, forest.code, forest.left,
                                             forest.right, forest.missing)
    c_table, width = forest.c_table, forest.c_table.shape[1]
    m = node.shape[0]
    for r in range(m):
        node[r] = forest.root[t]
    for _ in range(depth[t]):
        for r in range(m):
            k = node[r]
            v = split_var[k]
            if v < 0:
                continue
            x = cols[v, first + r]
            if var_type[v] == 0:
                # which way a row goes is as good as random to the processor:
                # the child by arithmetic, not a branch
                lk = left[k]
                child = lk + np.int64(x >= code[k]) * (right[k] - lk)
                node[r] = missing[k] if np.isnan(x) else child
                continue
            # a level by its c_splits entry; NaN, a level outside the entry
            # (never seen in training) or marked neither way: the missing child
            lev = -1 if np.isnan(x) else int(x)
            entry = 0
            if lev >= 0 and lev < width:
                entry = c_table[int(code[k]), lev]
            mk = missing[k]
            node[r] = (mk + np.int64(entry == GOES_LEFT) * (left[k] - mk)
                       + np.int64(entry == GOES_RIGHT) * (right[k] - mk))


@njit(cache=True, error_model="numpy", nogil=True)
def forest_link(forest, depth, cols, var_type, init, counts, n_outputs, out):
    """Link values of every row of ``cols`` (predictors by rows) after each
    number of iterations in ``counts`` (increasing) into ``out`` (rows,
    outputs, len(counts)); tree ``t`` adds to output ``t % n_outputs``,
    starting from ``init`` (one value per output). Rows go in blocks of
    :data:`ROW_BLOCK`, each block through every tree in turn."""
    n = cols.shape[1]
    f = np.empty((ROW_BLOCK, n_outputs))
    nodes = np.empty(ROW_BLOCK, dtype=np.int64)
    for first in range(0, n, ROW_BLOCK):
        m = min(ROW_BLOCK, n - first)
        node = nodes[:m]
        for r in range(m):
            for k in range(n_outputs):
                f[r, k] = init[k]
        t = 0
        for j in range(counts.shape[0]):
            stop = counts[j] * n_outputs
            while t < stop:
                _walk_block(forest, depth, t, cols, var_type, first, node)
                k = t % n_outputs
                for r in range(m):
                    f[r, k] += forest.code[node[r]]
                t += 1
            for r in range(m):
                for k in range(n_outputs):
                    out[first + r, k, j] = f[r, k]
