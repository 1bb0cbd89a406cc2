"""The compiled engine's tree stage: R's exact growth in one compiled call.

:class:`CompiledGrower` grows a tree on presorted training data
(:class:`pygbm.engine.data.TrainingData`) with :func:`.exact_tree.grow_exact`
and hands the loop a :class:`CompiledTree`, which offers what the loop,
the schemes and the per-row state read of a grown tree
(:class:`pygbm.engine.grow.GrownTree`'s interface) on node arrays, finished
by the kernels of :mod:`.tree_arrays`. Same trees, same numbers as the NumPy
engine's :class:`pygbm.engine.grow.TreeGrower` with
:class:`pygbm.engine.exact.ExactSearch` (``tests/engine/test_compiled.py``).
"""
from __future__ import annotations

import numpy as np

from ..tree import ColumnView, Tree
from .binned_layout import binned_layout
from .binned_tree import binned_space, grow_binned, grow_binned_penalised
from .exact_tree import (ExactData, grow_exact, grow_exact_penalised, growth_space,
                         tied_predictors)
from .tree_arrays import (GrownNodes, adjust, r_vectors, route_rows, terminal_index,
                          tree_terminal_nodes)


class CompiledTree:
    """A tree grown by :class:`CompiledGrower`: its node arrays (a
    :class:`.tree_arrays.GrownNodes`, the rows' terminal indices its own)
    and the predictors' types."""

    def __init__(self, nodes: GrownNodes, var_type: np.ndarray):
        self.nodes = nodes
        self.var_type = var_type

    @property
    def terminals(self) -> np.ndarray:
        """Terminal index -> node id."""
        return self.nodes.terminals

    @property
    def node_of(self) -> np.ndarray:
        """The terminal index of every training row."""
        return self.nodes.node_of

    @property
    def n_terminal(self) -> int:
        return int(self.nodes.terminals.shape[0])

    @property
    def n_nodes(self) -> int:
        return int(self.nodes.node_var.shape[0])

    def children(self, k: int) -> tuple[int, int, int] | None:
        """Node ``k``'s (left, right, missing) children; None: terminal."""
        nodes = self.nodes
        return None if nodes.node_var[k] < 0 else tuple(nodes.node_kids[k].tolist())

    def split_var(self, k: int) -> int:
        """The predictor split node ``k`` splits on."""
        return int(self.nodes.node_var[k])

    @property
    def vars_used(self) -> list[int]:
        """Split predictors in the order the splits were made (children are
        numbered in that order)."""
        nodes = self.nodes
        split = np.flatnonzero(nodes.node_var >= 0)
        order = np.argsort(nodes.node_kids[split, 0], kind="stable")
        return nodes.node_var[split[order]].tolist()

    def terminal_counts(self) -> np.ndarray:
        return self.nodes.node_n.take(self.nodes.terminals)

    def terminal_preds(self) -> np.ndarray:
        return self.nodes.pred.take(self.nodes.terminals)

    def set_terminal_preds(self, values: np.ndarray) -> None:
        self.nodes.pred[self.nodes.terminals] = values

    def adjust(self, min_obs: int) -> None:
        """R's Adjust (see engine.grow.GrownTree.adjust)."""
        nodes = self.nodes
        adjust(nodes.pred, nodes.node_w, nodes.node_n, nodes.node_var, nodes.node_kids,
               int(min_obs))

    def to_r_tree(self, shrinkage: float, var_type: np.ndarray, c_splits: list) -> Tree:
        """R's eight vectors in R's numbering; categorical splits are appended
        to ``c_splits`` (R's model-wide list)."""
        nodes = self.nodes
        (split_var, code, kids, gain, weight, prediction, rows) = r_vectors(
            nodes.pred, nodes.node_w, nodes.node_var, nodes.node_value, nodes.node_gain,
            nodes.node_kids, nodes.node_nlev, nodes.node_levels, self.var_type,
            float(shrinkage), len(c_splits))
        splits = np.flatnonzero(split_var >= 0)         # increasing: R's pre-order
        levels = self.var_type.take(split_var.take(splits))
        for r, n_levels in enumerate(levels[levels > 0].tolist()):
            c_splits.append(rows[r, :n_levels].astype(np.intp))
        return Tree(split_var, code, kids[0], kids[1], kids[2], gain, weight, prediction)

    def route(self, data) -> np.ndarray:
        """Terminal index of every training row of ``data`` (another encoding
        of the same rows) under this tree's splits."""
        nodes = self.nodes
        return route_rows(data.xt, data.var_type, nodes.node_var, nodes.node_value,
                          nodes.node_kids, nodes.node_nlev, nodes.node_levels,
                          terminal_index(nodes.node_var.shape[0], nodes.terminals))


def _finished(nodes: GrownNodes, var_type: np.ndarray, costs, penalties) -> CompiledTree:
    """The tree of a compiled grower's ``nodes``; with ``costs`` (a cost
    tracker) its splits, in the order made, told to the tracker."""
    # the rows' terminal nodes live in the grower's scratch: the tree keeps a copy
    tree = CompiledTree(nodes._replace(node_of=nodes.node_of.copy()), var_type)
    if costs is not None:
        split = np.flatnonzero(nodes.node_var >= 0)
        made = split[np.argsort(nodes.node_kids[split, 0], kind="stable")]
        costs.splits_made(nodes.node_var[made], nodes.node_gain[made], penalties[made])
    return tree


class CompiledGrower:
    """Grows trees of ``depth`` splits on presorted ``data`` (a
    :class:`pygbm.engine.data.TrainingData`) with R's exact search, compiled;
    what does not change from tree to tree is prepared once
    (:attr:`inputs` and the scratch :attr:`space`, which the compiled loop
    uses too). ``costs``: a CEGB cost tracker
    (:class:`pygbm.engine.cegb.CostTracker`) whose penalties the search
    subtracts (:func:`.exact_tree.grow_exact_penalised`), or None."""

    def __init__(self, data, depth: int, min_obs: int, costs=None):
        self.data = data
        self.costs = costs
        self.depth = int(depth)
        self.min_obs = int(min_obs)
        cont_row = np.full(data.p, -1, dtype=np.int64)
        cont_row[data.cont] = np.arange(data.cont.size)
        self.var_type = data.var_type.astype(np.int64)
        self.inputs = ExactData(data.xt, data.order, data.n_nan, cont_row, self.var_type,
                                data.var_monotone.astype(np.int64),
                                int(data.var_type.max()) if data.p else 0,
                                tied_predictors(data.xt, data.order, data.n_nan, data.cont))
        self.space = growth_space(self.inputs)

    def grow(self, z: np.ndarray, w: np.ndarray, inbag: np.ndarray,
             unit_weights: bool) -> CompiledTree:
        """Grow one tree on the working response ``z`` with weights ``w``
        (training rows) from the in-bag rows ``inbag``."""
        args = (self.inputs, self.space, w * z, w, inbag, bool(unit_weights), self.min_obs,
                self.depth)
        if self.costs is None:
            return _finished(grow_exact(*args), self.var_type, None, None)
        arrays, penalties = grow_exact_penalised(*args, self.costs.compiled_state())
        return _finished(arrays, self.var_type, self.costs, penalties)


class CompiledBinnedGrower:
    """Grows trees of ``depth`` splits on binned ``data`` (a
    :class:`pygbm.engine.binned.BinnedTrainingData`) with the histogram
    search, compiled (:func:`.binned_tree.grow_binned`); the layout and the
    scratch :attr:`space` are made once. ``costs``: a CEGB cost tracker
    (:class:`pygbm.engine.cegb.CostTracker`) whose penalties the search
    subtracts (:func:`.binned_tree.grow_binned_penalised`), or None."""

    def __init__(self, data, depth: int, min_obs: int, costs=None):
        self.layout = binned_layout(data)
        self.depth = int(depth)
        self.min_obs = int(min_obs)
        self.var_type = self.layout.var_type
        self.space = binned_space(self.layout, self.depth)
        self.costs = costs

    def grow(self, z: np.ndarray, w: np.ndarray, inbag: np.ndarray,
             unit_weights: bool) -> CompiledTree:
        """Grow one tree on the working response ``z`` with weights ``w``
        (training rows) from the in-bag rows ``inbag``."""
        args = (self.layout, self.space, w * z, np.asarray(w, dtype=float), inbag,
                bool(unit_weights), self.min_obs, self.depth)
        if self.costs is None:
            return _finished(grow_binned(*args), self.var_type, None, None)
        arrays, penalties = grow_binned_penalised(*args, self.costs.compiled_state())
        return _finished(arrays, self.var_type, self.costs, penalties)


def tree_step(tree: Tree, view: ColumnView, c_splits: list) -> np.ndarray:
    """Shrunken prediction of ``tree`` for every row of ``view`` (the
    compiled :meth:`pygbm.engine.tree.Tree.predict_view`)."""
    split_var = tree.split_var
    cat = np.flatnonzero((split_var >= 0)
                         & (view.var_type.take(np.maximum(split_var, 0)) > 0))
    cat_row_of = np.zeros(split_var.shape[0], dtype=np.int64)
    if cat.size:
        rows = [np.asarray(c_splits[int(tree.split_code_pred[k])]) for k in cat]
        table = np.zeros((cat.size, max(r.shape[0] for r in rows)), dtype=np.int64)
        for r, row in enumerate(rows):
            table[r, :row.shape[0]] = row
        cat_row_of[cat] = np.arange(cat.size)
    else:
        table = np.zeros((1, 1), dtype=np.int64)
    nodes = tree_terminal_nodes(split_var, tree.split_code_pred, tree.left, tree.right,
                                tree.missing, view.cols, view.var_type, table, cat_row_of)
    return tree.split_code_pred.take(nodes)
