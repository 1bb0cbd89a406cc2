"""A fit's trees packed once into flat node tables: what every walk of many trees reads.

Two predictors walk many trees at a time: the compiled predictor
(:mod:`.compiled.predict`: every row through every tree) and QWYC's early-exit
predictor (:mod:`pygbm.early_exit`: its compiled kernels, and its NumPy tail
that scores a few rows on many trees at once). Both read one
:class:`FlatForest`, made by :meth:`FlatForest.of` from the trees (a
:class:`~.tree_list.TreeList`, whose chunks are flattened without visiting the
trees, or any sequence of :class:`~.tree.Tree`), the fit's ``c_splits`` and the
var_type the trees see. This module is NumPy only: the NumPy engine and the
early-exit predictor's NumPy path use it where numba cannot be imported.

A walk of the tables follows the engine's split rule
(:func:`.tree.split_directions`): at split node ``k`` a row's value ``x`` of
predictor ``split_var[k]`` sends it to ``children[side, k]``, ``side`` being
MISSING for NaN; for a continuous split (``categorical[k]`` False) RIGHT when
``x >= code[k]``, else LEFT; for a categorical split the entry of row
``code[k]`` of ``c_sides`` at the level ``x``, or at the table's last column
(MISSING) when the level is outside the rows (never seen in training). The
walk ends at a terminal node (``split_var`` NO_NODE), whose ``code`` is the
tree's own shrunken prediction, so every walk's numbers are the NumPy
predictor's bit for bit.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .split import LEFT, MISSING, RIGHT
from .tree import GOES_LEFT, GOES_RIGHT, NO_NODE
from .tree_list import TreeList

__all__ = ["FlatForest"]

#: a split's children in the split vocabulary's order: the rows of ``children``
SIDES = (LEFT, RIGHT, MISSING)


class FlatForest(NamedTuple):
    """Trees' nodes in flat arrays (a frozen tuple, as the compiled kernels take
    it): tree ``t`` owns the nodes ``root[t]`` .. ``root[t + 1] - 1`` in R's
    order (a node before its left, right and missing subtrees); node ids are
    flat ids."""

    root: np.ndarray         # (n_trees + 1,) int64: first node of each tree, then the total
    split_var: np.ndarray    # (nodes,) int64: predictor of a split, NO_NODE at a terminal node
    code: np.ndarray         # (nodes,) float64: split point, c_splits row, or terminal value
    children: np.ndarray     # (3, nodes) int64: row LEFT / RIGHT / MISSING: the child's flat id
    #                          (NO_NODE at a terminal node)
    categorical: np.ndarray  # (nodes,) bool: a split on a categorical predictor
    c_sides: np.ndarray      # int8 (rows of c_splits, widest row + 1): LEFT / RIGHT / MISSING
    #                          of each level; padding and the last column (a level outside
    #                          every row): MISSING
    level: np.ndarray        # (nodes,) int64: splits above the node
    depth: np.ndarray        # (n_trees,) int64: splits on the tree's longest path

    @classmethod
    def of(cls, trees, c_splits, var_type) -> FlatForest:
        """The flat tables of ``trees`` (a :class:`~.tree_list.TreeList` or any
        sequence of :class:`~.tree.Tree`), their ``c_splits`` and ``var_type``
        (per predictor, > 0: categorical)."""
        sizes, vectors = TreeList.of(trees).node_vectors()
        split_var, code, left, right, missing = vectors[:5]
        root = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=root[1:])
        offset = np.repeat(root[:-1], sizes)
        split_var = split_var.astype(np.int64)
        children = np.empty((len(SIDES), split_var.shape[0]), dtype=np.int64)
        for side, child in zip(SIDES, (left, right, missing), strict=True):
            child = child.astype(np.int64)
            children[side] = np.where(child == NO_NODE, NO_NODE, child + offset)
        var_type = np.asarray(var_type)
        categorical = (split_var != NO_NODE) & (var_type[np.maximum(split_var, 0)] > 0)
        level = _levels(root, split_var, children)
        depth = (np.maximum.reduceat(level, root[:-1]) if sizes.shape[0]
                 else np.zeros(0, dtype=np.int64))        # a tree has a node at least
        return cls(root, split_var, code.astype(np.float64), children, categorical,
                   _c_sides(c_splits), level, depth)


def _levels(root, split_var, children) -> np.ndarray:
    """Each node's number of splits above it, every tree a level at a time."""
    level = np.zeros(split_var.shape[0], dtype=np.int64)
    here, d = root[:-1], 0
    while here.size:
        here = children[:, here[split_var[here] != NO_NODE]].ravel()
        here = here[here != NO_NODE]
        d += 1
        level[here] = d
    return level


def _c_sides(c_splits) -> np.ndarray:
    """The categorical splits (R's GOES_LEFT / GOES_RIGHT codes) as the sides of
    one table, a MISSING column after the widest row."""
    lengths = np.fromiter(map(len, c_splits), dtype=np.int64, count=len(c_splits))
    sides = np.full((len(c_splits), int(lengths.max(initial=0)) + 1), MISSING, dtype=np.int8)
    if lengths.sum():
        entry = np.concatenate([np.asarray(row) for row in c_splits])
        rows = np.repeat(np.arange(len(c_splits)), lengths)
        cols = np.arange(rows.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        sides[rows, cols] = np.select([entry == GOES_LEFT, entry == GOES_RIGHT],
                                      [LEFT, RIGHT], MISSING)
    return sides
