"""Best-first growth of one tree, with left, right and missing children.

:class:`TreeGrower` grows a tree on one training data with one searcher (the
exact search, :mod:`.exact`, or the histogram search, :mod:`.histogram_search`,
as :mod:`.factory` chose), as scikit-learn's ``TreeGrower`` owns its
histogram builder and splitter. As in R gbm: the root holds the bag; ``interaction_depth`` times, every
terminal node knows its best split and the node with the largest gain is
split (ties: the lowest terminal index). The left child keeps its parent's
terminal index, the right and missing children take the next two. A missing
child that receives no rows starts with its parent's statistics.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import kernels
from .._rmath import sequential_sum
from .split import LEFT, MISSING, RIGHT, Side, Split
from .tree import GOES_LEFT, GOES_RIGHT, NO_NODE, Tree, walk


@dataclass
class Node:
    """A node while the tree is grown (R's CNode)."""

    pred: float
    w: float
    n: int
    split: Split | None = None
    children: tuple[int, int, int] | None = None

    @property
    def is_terminal(self) -> bool:
        return self.children is None


@dataclass
class GrownTree:
    """The grown tree, its terminal nodes and where each training row fell."""

    nodes: list[Node]
    terminals: list[int]          # terminal index -> node id (R's vecpTermNodes)
    node_of: np.ndarray           # terminal index of every training row
    vars_used: list[int] = field(default_factory=list)

    @property
    def n_terminal(self) -> int:
        return len(self.terminals)

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)

    def children(self, k: int) -> tuple[int, int, int] | None:
        """Node ``k``'s (left, right, missing) children; None: terminal."""
        return self.nodes[k].children

    def split_var(self, k: int) -> int:
        """The predictor split node ``k`` splits on."""
        return self.nodes[k].split.var

    def terminal_counts(self) -> np.ndarray:
        return np.array([self.nodes[i].n for i in self.terminals], dtype=np.intp)

    def terminal_preds(self) -> np.ndarray:
        return np.array([self.nodes[i].pred for i in self.terminals])

    def set_terminal_preds(self, values: np.ndarray) -> None:
        for i, v in zip(self.terminals, values):
            self.nodes[i].pred = float(v)

    def adjust(self, min_obs: int, node_id: int = 0) -> None:
        """R's Adjust: a missing child with too few rows takes the weighted
        average of its siblings; split nodes get their children's average."""
        node = self.nodes[node_id]
        if node.is_terminal:
            return
        li, ri, mi = node.children
        left, right, miss = self.nodes[li], self.nodes[ri], self.nodes[mi]
        self.adjust(min_obs, li)
        self.adjust(min_obs, ri)
        if miss.is_terminal and miss.n < min_obs:
            node.pred = (left.w * left.pred + right.w * right.pred) / (left.w + right.w)
            miss.pred = node.pred
        else:
            self.adjust(min_obs, mi)
            node.pred = ((left.w * left.pred + right.w * right.pred + miss.w * miss.pred)
                         / (left.w + right.w + miss.w))

    def route(self, data) -> np.ndarray:
        """Terminal index of every training row of ``data`` (see :func:`route`)."""
        return route(self, data)

    def to_r_tree(self, shrinkage: float, var_type: np.ndarray, c_splits: list) -> Tree:
        """R's eight vectors in R's numbering; categorical splits are appended
        to ``c_splits`` (R's model-wide list)."""
        order = []
        stack = [0]
        while stack:                      # pre-order: node, left, right, missing
            i = stack.pop()
            order.append(i)
            node = self.nodes[i]
            if not node.is_terminal:
                stack.extend(reversed(node.children))
        number = {node_id: k for k, node_id in enumerate(order)}
        n = len(order)
        # Python lists, one array each at the end (a handful of nodes: cheaper
        # than element-wise writes into arrays)
        split_var, code, gain = [NO_NODE] * n, [0.0] * n, [0.0] * n
        kids = [[NO_NODE] * n for _ in range(3)]
        weight = [self.nodes[i].w for i in order]
        pred = [shrinkage * self.nodes[i].pred for i in order]
        for k, i in enumerate(order):
            node = self.nodes[i]
            if node.is_terminal:
                code[k] = pred[k]
                continue
            s = node.split
            split_var[k] = s.var
            gain[k] = s.improvement
            for side, child in zip(kids, node.children):
                side[k] = number[child]
            if s.left_levels is None:
                code[k] = s.value
            else:
                row = np.full(int(var_type[s.var]), GOES_RIGHT, dtype=np.intp)
                row[s.left_levels] = GOES_LEFT
                code[k] = len(c_splits)
                c_splits.append(row)
        split_var = np.array(split_var, dtype=np.intp)
        kids = np.array(kids, dtype=np.intp).reshape(3, n)
        code, gain = np.array(code, dtype=float), np.array(gain, dtype=float)
        weight, pred = np.array(weight, dtype=float), np.array(pred, dtype=float)
        return Tree(split_var, code, kids[0], kids[1], kids[2], gain, weight, pred)


def _directions(data, split: Split, rows: np.ndarray) -> np.ndarray:
    """LEFT / RIGHT / MISSING (int8) of the given training rows of ``data``."""
    goes_right = None
    if split.left_levels is not None:
        goes_right = np.ones(int(data.var_type[split.var]) + 1, dtype=np.int8)
        goes_right[split.left_levels] = LEFT
        goes_right[-1] = 0                         # the spare slot, hit by NaN (code -1)
    return kernels.active().route(data.xt[split.var].take(rows), split.value, goes_right)


def route(grown: GrownTree, data) -> np.ndarray:
    """Terminal index of every training row of ``data``: the tree's splits
    replayed on another encoding of the same rows (e.g. the target statistics
    of another permutation; ``grown.node_of`` is the routing of the data the
    tree was grown on)."""
    node_of = np.zeros(data.n, dtype=np.intp)
    terminal_of = {node_id: t for t, node_id in enumerate(grown.terminals)}
    for node_id, rows in walk(np.arange(data.n), lambda i: grown.nodes[i].children,
                              lambda i, rows: _directions(data, grown.nodes[i].split, rows)):
        node_of[rows] = terminal_of[node_id]
    return node_of


class TreeGrower:
    """Grows trees of ``depth`` splits on ``data`` with ``searcher``.

    ``searcher`` finds the best split of a node and hands each child its share
    of the node's search state (see :class:`pygbm.engine.exact.ExactSearch`);
    ``data`` gives the predictor values that route rows to the children. The
    searcher's split-gain adjustment, if any, is told of every split made
    (``on_split``, with the node's in-bag rows); when it answers True, the
    penalties of the other terminal nodes changed and they are searched again.

    Which terminal node is split next is :meth:`pick`: best-first, R's order
    (a subclass may grow in another order, e.g. level by level, the baseline
    of the CEGB paper's Figure 3b in ``benchmarks/cegb_growth.py``).
    """

    def __init__(self, data, searcher, depth: int):
        self.data = data
        self.searcher = searcher
        self.depth = int(depth)
        self.adjustment = searcher.adjustment

    @staticmethod
    def pick(scores: list, levels: list) -> int | None:
        """The terminal node to split next, given each terminal node's best
        split's score (its gain less any penalty; 0.0 when it has none) and
        its level (the root's is 0); None stops the tree. Best-first, as R:
        the first of the largest score, if it is positive."""
        t = scores.index(max(scores))
        return t if scores[t] > 0.0 else None

    def grow(self, z: np.ndarray, w: np.ndarray, inbag: np.ndarray,
             unit_weights: bool) -> GrownTree:
        """Grow one tree on the working response ``z`` with weights ``w``
        (training rows) from the in-bag rows ``inbag``."""
        data, searcher, depth = self.data, self.searcher, self.depth
        n_train = data.n
        bag_rows = inbag.nonzero()[0]
        # R sums the bag in row order, one row at a time (a sequential sum, several
        # times slower than NumPy's pairwise one: only where R's bits are kept)
        total = sequential_sum if searcher.r_arithmetic else (lambda a: float(a.sum()))
        total_z = total((w * z)[bag_rows])
        total_w = float(bag_rows.size) if unit_weights else total(w[bag_rows])
        root = Node(total_z / total_w, total_w, int(bag_rows.size))
        nodes = [root]
        terminals = [0]
        totals = [Side(total_z, total_w, int(bag_rows.size))]
        states = [searcher.root(inbag)]
        best: list[Split | None] = [None]
        searched = [False]
        levels = [0]                        # of each terminal node
        node_of = np.zeros(n_train, dtype=np.intp)
        rows_of = [np.arange(n_train)]      # training rows of each terminal node
        vars_used = []

        for _ in range(depth):
            for t in range(len(terminals)):
                if not searched[t]:
                    best[t] = searcher.best(states[t], totals[t]) if totals[t].n > 0 else None
                    searched[t] = True
            t = self.pick([b.score if b is not None else 0.0 for b in best], levels)
            if t is None:
                break
            split = best[t]
            parent = nodes[terminals[t]]
            ids = []
            for side in (split.left, split.right, split.missing):
                # a node without weight (zero case weights) has no information: 0
                nodes.append(Node(side.sum_z / side.w if side.w > 0 else 0.0, side.w, side.n))
                ids.append(len(nodes) - 1)
            parent.split = split
            parent.children = tuple(ids)
            vars_used.append(split.var)
            t_right, t_missing = len(terminals), len(terminals) + 1
            terminals[t] = ids[LEFT]
            terminals.extend([ids[RIGHT], ids[MISSING]])

            rows = rows_of[t]
            if self.adjustment is not None and self.adjustment.on_split(
                    totals[t], split, rows.compress(inbag.take(rows))):
                # the other terminal nodes' penalties changed: search them again
                searched = [False] * len(searched)
            d = _directions(data, split, rows)
            go_right = rows.compress(d == RIGHT)
            go_missing = rows.compress(d == MISSING)
            node_of[go_right] = t_right
            node_of[go_missing] = t_missing
            rows_of[t] = rows.compress(d == LEFT)
            rows_of.extend([go_right, go_missing])

            if len(vars_used) < depth:        # the children will be searched
                children = searcher.children(states[t], rows, d, split)
            else:
                children = (None, None, None)
            states[t] = children[LEFT]
            states.extend(children[1:])
            totals[t] = split.left
            totals.extend([split.right, split.missing])
            best[t] = None
            best.extend([None, None])
            searched[t] = False
            searched.extend([False, False])
            levels[t] += 1
            levels.extend([levels[t], levels[t]])
        return GrownTree(nodes, terminals, node_of, vars_used)


def grow_tree(data, searcher, z: np.ndarray, w: np.ndarray, inbag: np.ndarray,
              depth: int, unit_weights: bool) -> GrownTree:
    """One tree grown by a :class:`TreeGrower` (see there)."""
    return TreeGrower(data, searcher, depth).grow(z, w, inbag, unit_weights)


class SearchGrower:
    """The NumPy engine's tree stage on one training data: each tree's
    search made from its working response (``data.searcher``), grown by a
    :class:`TreeGrower`."""

    def __init__(self, data, depth: int, min_obs: int, adjustment=None):
        self.data = data
        self.depth = int(depth)
        self.min_obs = int(min_obs)
        self.adjustment = adjustment

    def grow(self, z: np.ndarray, w: np.ndarray, inbag: np.ndarray,
             unit_weights: bool) -> GrownTree:
        """Grow one tree on the working response ``z`` with weights ``w``."""
        searcher = self.data.searcher(z, w, unit_weights, self.min_obs, self.adjustment)
        return TreeGrower(self.data, searcher, self.depth).grow(z, w, inbag, unit_weights)
