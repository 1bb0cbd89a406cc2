"""Prediction with many trees, compiled: every row sent down every tree in one call.

The NumPy predictor (:class:`pygbm.engine.tree.TreePredictor`) scores one
tree at a time over all rows, a fixed number of NumPy calls per node: on a
few hundred rows and thousands of trees (a cv fold's held-out rows,
``predict`` in a notebook) the calls are the cost. Here the trees are packed
once into flat node tables (:class:`~pygbm.engine.forest.FlatForest`, the tables
QWYC's early-exit predictor reads too) and :func:`forest_link`
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

from ..split import LEFT, MISSING, RIGHT


#: rows walked together through one tree before the next tree, a level at a
#: time: the tree's nodes stay in the nearest cache across the block and the
#: rows' walks overlap (each row still adds its trees' values in tree order, so
#: the numbers do not depend on it)
ROW_BLOCK = 256


@njit(cache=True, error_model="numpy", nogil=True)
def _walk_block(forest, t, cols, first, node):
    """The terminal node of tree ``t`` of ``forest`` (a
    :class:`~pygbm.engine.forest.FlatForest`) that each of the rows ``first``,
    ``first + 1``, ... of ``cols`` reaches, into ``node`` (one entry per row), a
    level at a time: the rows' walks are independent, so the processor
    overlaps them."""
    split_var, code, categorical = forest.split_var, forest.code, forest.categorical
    children = forest.children
    left, right, missing = children[LEFT], children[RIGHT], children[MISSING]
    c_sides = forest.c_sides
    outside = c_sides.shape[1] - 1           # the column of a level outside every row
    m = node.shape[0]
    for r in range(m):
        node[r] = forest.root[t]
    for _ in range(forest.depth[t]):
        for r in range(m):
            k = node[r]
            v = split_var[k]
            if v < 0:
                continue
            x = cols[v, first + r]
            if not categorical[k]:
                # which way a row goes is as good as random to the processor:
                # the child by arithmetic, not a branch
                lk = left[k]
                child = lk + np.int64(x >= code[k]) * (right[k] - lk)
                node[r] = missing[k] if np.isnan(x) else child
                continue
            # a level by its c_splits entry; NaN, a level outside the entry
            # (never seen in training) or marked neither way: the missing child
            lev = outside if np.isnan(x) else int(x)
            if lev < 0 or lev > outside:
                lev = outside
            node[r] = children[c_sides[int(code[k]), lev], k]


@njit(cache=True, error_model="numpy", nogil=True)
def forest_link(forest, cols, init, counts, n_outputs, out):
    """Link values of every row of ``cols`` (predictors by rows) after each
    number of iterations in ``counts`` (increasing) into ``out`` (rows,
    outputs, len(counts)); tree ``t`` of ``forest`` (a
    :class:`~pygbm.engine.forest.FlatForest`) adds to output ``t % n_outputs``,
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
                _walk_block(forest, t, cols, first, node)
                k = t % n_outputs
                for r in range(m):
                    f[r, k] += forest.code[node[r]]
                t += 1
            for r in range(m):
                for k in range(n_outputs):
                    out[first + r, k, j] = f[r, k]
