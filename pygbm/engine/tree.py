"""R gbm's tree representation, the tree walker and the predictor over per-tree scores.

A fitted tree is stored exactly as R gbm stores it (the eight vectors that
``pretty.gbm.tree`` shows), in R's node numbering: a node is followed by its
left subtree, then its right subtree, then its missing subtree.

One walker (:func:`walk`) sends rows down a tree: the grower's routing of rows
on another encoding (``grow.route``), the terminal node of rows
(:func:`terminal_nodes`) and so every prediction. :class:`TreePredictor` gives
the score of each tree on any subset of the rows, what early-exit prediction
needs; :func:`predict_trees` (whole columns, many tree counts in one pass) is
one use of it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

from .split import LEFT, MISSING, RIGHT

#: marker for "no child" / "terminal node" in the integer vectors (R uses -1)
NO_NODE = -1

#: codes stored in ``c_splits`` for a categorical split (R's convention)
GOES_LEFT = -1
GOES_RIGHT = 1

#: where a split sends a row: to one of the three children (LEFT, RIGHT,
#: MISSING, the split vocabulary's), or (a categorical level whose
#: ``c_splits`` entry is neither left nor right) to none
NOWHERE = 3


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

    #: the eight vectors' names, in R's order (:meth:`vectors`)
    VECTORS = ("split_var", "split_code_pred", "left", "right", "missing", "error_reduction",
               "weight", "prediction")

    def vectors(self) -> tuple:
        """The eight vectors in R's order (the constructor's)."""
        return (self.split_var, self.split_code_pred, self.left, self.right, self.missing,
                self.error_reduction, self.weight, self.prediction)

    @property
    def n_nodes(self) -> int:
        return int(self.split_var.shape[0])

    @property
    def is_terminal(self) -> np.ndarray:
        return self.split_var == NO_NODE

    def children(self, node: int) -> tuple[int, int, int] | None:
        """(left, right, missing) of a split node; None for a terminal node."""
        if self.split_var[node] == NO_NODE:
            return None
        return int(self.left[node]), int(self.right[node]), int(self.missing[node])

    def terminal_of(self, x: np.ndarray, var_type: np.ndarray, c_splits) -> np.ndarray:
        """Terminal node id reached by every row of the coded matrix ``x``."""
        return terminal_nodes(self, ColumnView(x, var_type), c_splits)

    def predict(self, x: np.ndarray, var_type: np.ndarray, c_splits) -> np.ndarray:
        """Shrunken prediction of this tree for every row of ``x``."""
        return self.predict_view(ColumnView(x, var_type), c_splits)

    def predict_view(self, view: "ColumnView", c_splits) -> np.ndarray:
        """Like :meth:`predict`, on rows already prepared as a :class:`ColumnView`."""
        return tree_values(self, view, c_splits)


def split_directions(tree: Tree, node: int, xv: np.ndarray, categorical: bool, c_splits,
                     unseen: int = MISSING) -> np.ndarray:
    """LEFT / RIGHT / MISSING (int8) of the rows with values ``xv`` at split ``node``.

    Continuous: ``xv < point`` goes left. Categorical: the level code's entry of
    its ``c_splits`` row; a code outside the row (never seen in training) or an
    entry neither left nor right goes to ``unseen`` (prediction: the missing
    child; R's partial dependence: nowhere). NaN goes to the missing child.
    """
    nan = np.isnan(xv)
    code = tree.split_code_pred[node]
    if not categorical:
        d = np.greater_equal(xv, code).view(np.int8)           # NaN: False (LEFT)
    else:
        row = np.asarray(c_splits[int(code)])
        size = row.shape[0]
        table = np.full(size + 1, unseen, dtype=np.int8)       # the spare slot: outside
        table[:size][row == GOES_LEFT] = LEFT
        table[:size][row == GOES_RIGHT] = RIGHT
        lev = np.where(nan, -1.0, xv).astype(np.intp)
        d = table.take(np.where((lev >= 0) & (lev < size), lev, size))
    d[nan] = MISSING
    return d


def walk(rows: np.ndarray, children: Callable, directions: Callable) -> Iterator:
    """The tree walker: each terminal node that ``rows`` reach, with those rows.

    From the root (node 0), a split node ``k`` (``children(k)``: its (left,
    right, missing) children, None for a terminal node) sends its rows to the
    children ``directions(k, rows)`` names (LEFT, RIGHT, MISSING; NOWHERE drops
    a row). Yields ``(node, rows)`` in R's node order (pre-order); a subtree no
    row reaches is not visited.
    """
    stack = [(0, rows)]
    while stack:
        node, here = stack.pop()
        kids = children(node)
        if kids is None:
            yield node, here
            continue
        d = directions(node, here)
        for side in (MISSING, RIGHT, LEFT):        # popped left first
            there = here.compress(d == side)
            if there.size:
                stack.append((kids[side], there))


class ColumnView:
    """The predictors of the rows to predict, one contiguous array per column.

    Built once per prediction, so that a split reads its column's values of
    the rows at the node with one ``take``.
    """

    def __init__(self, x: np.ndarray, var_type: np.ndarray):
        self.cols = np.ascontiguousarray(np.asarray(x, dtype=float).T)
        self.var_type = np.asarray(var_type)

    @property
    def n_rows(self) -> int:
        return int(self.cols.shape[1])


def terminal_nodes(tree: Tree, view: ColumnView, c_splits, rows=None) -> np.ndarray:
    """Terminal node id of ``rows`` (row indices of ``view``; None: all rows).

    The prediction kernel (NumPy reference implementation): result ``i`` is the
    terminal node of row ``rows[i]``, whatever the other rows.
    """
    n = view.n_rows if rows is None else int(rows.shape[0])
    node_of = np.zeros(n, dtype=np.intp)

    def directions(k, at):
        v = int(tree.split_var[k])
        xv = view.cols[v].take(at if rows is None else rows.take(at))
        return split_directions(tree, k, xv, view.var_type[v] > 0, c_splits)

    for node, at in walk(np.arange(n), tree.children, directions):
        node_of[at] = node
    return node_of


def tree_values(tree: Tree, view: ColumnView, c_splits, rows=None) -> np.ndarray:
    """Shrunken prediction of ``tree`` for ``rows`` of ``view`` (None: all rows)."""
    return tree.split_code_pred.take(terminal_nodes(tree, view, c_splits, rows))


class TreePredictor:
    """Per-tree scores of a fit's trees on prepared rows (the predictor seam).

    ``trees`` are stored iteration by iteration, ``n_outputs`` per iteration
    (tree ``t`` adds to output ``t % n_outputs``, R's layout). The score of a
    tree on a subset of rows is the full score restricted to them, so a caller
    may drop rows between trees (early exit) and add the scores it needs.
    """

    def __init__(self, trees, c_splits, var_type, n_outputs: int = 1):
        self.trees = list(trees)
        self.c_splits = c_splits
        self.var_type = np.asarray(var_type)
        self.n_outputs = int(n_outputs)

    def __len__(self) -> int:
        return len(self.trees)

    def prepare(self, x: np.ndarray) -> ColumnView:
        """The coded matrix ``x`` (rows, predictors) as the predictor reads it."""
        return ColumnView(x, self.var_type)

    def output_of(self, t: int) -> int:
        """The output tree ``t`` adds to."""
        return t % self.n_outputs

    def tree_score(self, t: int, view: ColumnView, rows=None) -> np.ndarray:
        """Shrunken prediction of tree ``t`` for ``rows`` of ``view`` (None: all)."""
        return tree_values(self.trees[t], view, self.c_splits, rows)

    def scores(self, view: ColumnView, rows=None) -> Iterator[np.ndarray]:
        """The score of every tree in turn, for ``rows`` of ``view`` (None: all)."""
        for t in range(len(self.trees)):
            yield self.tree_score(t, view, rows)

    def link(self, view: ColumnView, init_f, n_trees_list) -> np.ndarray:
        """Link-scale predictions of all rows after each number of iterations
        in ``n_trees_list`` (see :func:`predict_trees`)."""
        n = view.n_rows
        counts = np.asarray(n_trees_list, dtype=int)
        order = np.argsort(counts, kind="stable")
        K = self.n_outputs
        init = np.broadcast_to(np.asarray(init_f, dtype=float), (K,))
        f = np.tile(init, (n, 1)).T.copy()          # (K, n): one contiguous row per output
        out = np.empty((n, K, counts.size))
        done = 0
        for j in order:
            for t in range(done * K, counts[j] * K):
                f[self.output_of(t)] += self.tree_score(t, view)
            done = max(done, counts[j])
            out[:, :, j] = f.T
        return out[:, 0, :] if K == 1 else out


def predict_trees(trees, x, var_type, c_splits, init_f, n_trees_list, n_outputs=1):
    """Link-scale predictions after each number of iterations in ``n_trees_list``.

    One pass over the trees serves every requested count (R's gbm_pred).
    Returns (n_rows, len(n_trees_list)); with ``n_outputs`` > 1 (one tree per
    output per iteration, stored iteration by iteration as R does) returns
    (n_rows, n_outputs, len(n_trees_list)).
    """
    predictor = TreePredictor(trees, c_splits, var_type, n_outputs)
    return predictor.link(predictor.prepare(x), init_f, n_trees_list)
