"""R gbm's tree representation and the vectorised predictor.

A fitted tree is stored exactly as R gbm stores it (the eight vectors that
``pretty.gbm.tree`` shows), in R's node numbering: a node is followed by its
left subtree, then its right subtree, then its missing subtree.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: marker for "no child" / "terminal node" in the integer vectors (R uses -1)
NO_NODE = -1

#: codes stored in ``c_splits`` for a categorical split (R's convention)
GOES_LEFT = -1
GOES_RIGHT = 1


@dataclass
class Tree:
    """One regression tree, R's eight vectors (see docs/ARCHITECTURE.md)."""

    split_var: np.ndarray        # int, -1 for terminal nodes
    split_code_pred: np.ndarray  # split point | c_splits index | shrunken prediction
    left: np.ndarray             # int child ids, -1 for terminal
    right: np.ndarray
    missing: np.ndarray
    error_reduction: np.ndarray
    weight: np.ndarray
    prediction: np.ndarray       # shrunken node predictions

    @property
    def n_nodes(self) -> int:
        return int(self.split_var.shape[0])

    @property
    def is_terminal(self) -> np.ndarray:
        return self.split_var == NO_NODE

    def to_frame(self):
        """The tree as R's ``pretty.gbm.tree`` table (a pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame({
            "SplitVar": self.split_var,
            "SplitCodePred": self.split_code_pred,
            "LeftNode": self.left,
            "RightNode": self.right,
            "MissingNode": self.missing,
            "ErrorReduction": self.error_reduction,
            "Weight": self.weight,
            "Prediction": self.prediction,
        })

    def terminal_of(self, x: np.ndarray, var_type: np.ndarray, c_splits) -> np.ndarray:
        """Terminal node id reached by every row of the coded matrix ``x``.

        Rows move down one level per pass, all rows at once; a tree of depth
        ``d`` needs ``d`` passes.
        """
        n = x.shape[0]
        node = np.zeros(n, dtype=np.intp)
        active = np.arange(n)
        while active.size:
            cur = node[active]
            var = self.split_var[cur]
            split = var != NO_NODE
            active, cur, var = active[split], cur[split], var[split]
            if not active.size:
                break
            xv = x[active, var]
            code = self.split_code_pred[cur]
            nxt = np.where(xv < code, self.left[cur], self.right[cur])
            cat = var_type[var] > 0
            if cat.any():
                nxt[cat] = _categorical_child(
                    xv[cat], code[cat], c_splits,
                    self.left[cur[cat]], self.right[cur[cat]], self.missing[cur[cat]])
            miss = np.isnan(xv)
            nxt[miss] = self.missing[cur[miss]]
            node[active] = nxt
        return node

    def predict(self, x: np.ndarray, var_type: np.ndarray, c_splits) -> np.ndarray:
        """Shrunken prediction of this tree for every row of ``x``."""
        return self.predict_view(ColumnView(x, var_type), c_splits)

    def predict_view(self, view: "ColumnView", c_splits) -> np.ndarray:
        """Like :meth:`predict`, on rows already prepared as a :class:`ColumnView`."""
        values = _tree_values(self, view, c_splits)
        n = view.cols.shape[1]
        if isinstance(values, np.ndarray) and values.shape == (n,) and values.dtype == float:
            return values                   # a new array (np.where's): no copy needed
        return np.broadcast_to(values, (n,)).astype(float)


def _categorical_child(xv, split_index, c_splits, left, right, missing):
    """Child for categorical splits: look the level code up in its c_splits row."""
    out = missing.copy()
    ok = ~np.isnan(xv)
    for k in np.unique(split_index[ok]).astype(int):
        rows = np.flatnonzero(ok & (split_index == k))
        codes = c_splits[k]
        lev = xv[rows].astype(np.intp)
        inside = (lev >= 0) & (lev < codes.shape[0])
        direction = np.zeros(rows.shape[0], dtype=codes.dtype)
        direction[inside] = codes[lev[inside]]
        out[rows] = np.where(direction == GOES_LEFT, left[rows],
                             np.where(direction == GOES_RIGHT, right[rows], missing[rows]))
    return out


class ColumnView:
    """The predictors of the rows to predict, one contiguous array per column.

    Built once per prediction: NaN masks only for columns that have missing
    values, categorical codes as integers with missing/unseen levels mapped to
    a sentinel, so that every split is a handful of contiguous array passes.
    """

    def __init__(self, x: np.ndarray, var_type: np.ndarray):
        self.cols = np.ascontiguousarray(np.asarray(x, dtype=float).T)
        self.var_type = np.asarray(var_type)
        self.nan = [None] * self.cols.shape[0]
        self.codes = [None] * self.cols.shape[0]
        for v in range(self.cols.shape[0]):
            miss = np.isnan(self.cols[v])
            if miss.any():
                self.nan[v] = miss
            if self.var_type[v] > 0:
                codes = np.where(miss, -1, self.cols[v]).astype(np.intp)
                codes[(codes < 0)] = -1
                self.codes[v] = codes


def _categorical_masks(view: ColumnView, v: int, row: np.ndarray):
    """(goes_left, goes_right) masks of a categorical split's c_splits row; a level
    code outside the row (never seen in training) or missing goes neither way."""
    size = row.shape[0]
    left_tbl = np.zeros(size + 1, dtype=bool)
    right_tbl = np.zeros(size + 1, dtype=bool)
    left_tbl[:size] = row == GOES_LEFT
    right_tbl[:size] = row == GOES_RIGHT
    codes = view.codes[v]
    idx = np.where((codes >= 0) & (codes < size), codes, size)
    return left_tbl.take(idx), right_tbl.take(idx)


def _tree_values(tree: Tree, view: ColumnView, c_splits, node: int = 0):
    """Shrunken predictions of the subtree at ``node`` for every row (a scalar
    for a terminal node): nested ``where``s over whole columns."""
    v = int(tree.split_var[node])
    if v == NO_NODE:
        return tree.split_code_pred[node]
    left = _tree_values(tree, view, c_splits, int(tree.left[node]))
    right = _tree_values(tree, view, c_splits, int(tree.right[node]))
    missing = _tree_values(tree, view, c_splits, int(tree.missing[node]))
    if view.var_type[v] == 0:
        out = np.where(view.cols[v] < tree.split_code_pred[node], left, right)
        if view.nan[v] is not None:
            out = np.where(view.nan[v], missing, out)
        return out
    goes_left, goes_right = _categorical_masks(view, v, c_splits[int(tree.split_code_pred[node])])
    return np.where(goes_left, left, np.where(goes_right, right, missing))


def predict_trees(trees, x, var_type, c_splits, init_f, n_trees_list, n_outputs=1):
    """Link-scale predictions after each number of iterations in ``n_trees_list``.

    One pass over the trees serves every requested count (R's gbm_pred).
    Returns (n_rows, len(n_trees_list)); with ``n_outputs`` > 1 (one tree per
    output per iteration, stored iteration by iteration as R does) returns
    (n_rows, n_outputs, len(n_trees_list)).
    """
    view = ColumnView(x, var_type)
    n = view.cols.shape[1]
    counts = np.asarray(n_trees_list, dtype=int)
    order = np.argsort(counts, kind="stable")
    K = int(n_outputs)
    init = np.broadcast_to(np.asarray(init_f, dtype=float), (K,))
    f = np.tile(init, (n, 1)).T.copy()          # (K, n): one contiguous row per output
    out = np.empty((n, K, counts.size))
    done = 0
    for j in order:
        for t in range(done * K, counts[j] * K):
            f[t % K] += _tree_values(trees[t], view, c_splits)
        done = max(done, counts[j])
        out[:, :, j] = f.T
    return out[:, 0, :] if K == 1 else out
