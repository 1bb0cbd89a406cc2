"""Compiled kernels on a grown tree's node arrays and on R's tree vectors.

A tree grown by :mod:`.exact_tree` is a set of node arrays in creation
order (a parent is created before its children). These kernels finish it
as the NumPy engine's :class:`pygbm.engine.grow.GrownTree` does, with the
same arithmetic: R's Adjust of the node predictions, R's eight vectors in
R's pre-order numbering, the routing of another encoding's rows; and they
send rows down R's tree vectors for the per-tree step of the validation
rows.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..split import LEFT, MISSING, RIGHT
from ..tree import GOES_LEFT, GOES_RIGHT, NO_NODE


class GrownNodes(NamedTuple):
    """A tree as the compiled growers leave it: its nodes in creation order
    (a parent before its children), the terminal nodes in R's terminal
    order, and the terminal index of every training row."""

    pred: np.ndarray            # each node's mean working response
    node_z: np.ndarray          # its in-bag rows' sum of w*z
    node_w: np.ndarray          # ... their weight
    node_n: np.ndarray          # ... their number
    node_var: np.ndarray        # the split predictor (-1: terminal)
    node_value: np.ndarray      # the split point (continuous predictors)
    node_gain: np.ndarray       # R's gain of the split
    node_kids: np.ndarray       # (nodes, 3) left, right, missing child
    node_nlev: np.ndarray       # levels sent left (categorical splits)
    node_levels: np.ndarray     # (nodes, max levels) the levels sent left
    terminals: np.ndarray       # the terminal nodes in R's terminal order
    node_of: np.ndarray         # every training row's terminal index (the
                                # grower's scratch: the next tree overwrites it)


@njit(cache=True, error_model="numpy")
def grown_nodes(n_nodes, node_z, node_w, node_n, node_var, node_value, node_gain, node_kids,
                node_nlev, node_levels, terminals, node_of):
    """The :class:`GrownNodes` of a grower's first ``n_nodes`` nodes, each
    node's mean working response added (a node without weight, from zero
    case weights, has no information: 0; the root keeps the plain ratio)."""
    pred = np.empty(n_nodes)
    for k in range(n_nodes):
        pred[k] = node_z[k] / node_w[k] if (k == 0 or node_w[k] > 0) else 0.0
    return GrownNodes(pred, node_z[:n_nodes], node_w[:n_nodes], node_n[:n_nodes],
                      node_var[:n_nodes], node_value[:n_nodes], node_gain[:n_nodes],
                      node_kids[:n_nodes], node_nlev[:n_nodes], node_levels[:n_nodes],
                      terminals, node_of)


@njit(cache=True, inline="always")
def node_capacity(depth):
    """The most nodes a tree of ``depth`` splits has: the root and three
    children (left, right, missing) per split."""
    return 1 + 3 * depth


@njit(cache=True, inline="always")
def terminal_capacity(depth):
    """The most terminal nodes a tree of ``depth`` splits has: each split
    turns one terminal node into three."""
    return 1 + 2 * depth


@njit(cache=True, error_model="numpy")
def adjust(pred, node_w, node_n, node_var, node_kids, min_obs):
    """R's Adjust on ``pred`` (in place): a missing child with fewer than
    ``min_obs`` rows takes its siblings' weighted average, a split node its
    children's. Children are created after their parent, so decreasing ids
    visit every node after all of its descendants."""
    for k in range(pred.shape[0] - 1, -1, -1):
        if node_var[k] < 0:
            continue
        li, ri, mi = node_kids[k, LEFT], node_kids[k, RIGHT], node_kids[k, MISSING]
        if node_var[mi] < 0 and node_n[mi] < min_obs:
            pred[k] = ((node_w[li] * pred[li] + node_w[ri] * pred[ri])
                       / (node_w[li] + node_w[ri]))
            pred[mi] = pred[k]
        else:
            pred[k] = ((node_w[li] * pred[li] + node_w[ri] * pred[ri] + node_w[mi] * pred[mi])
                       / (node_w[li] + node_w[ri] + node_w[mi]))


@njit(cache=True, error_model="numpy", inline="always")
def carve(buf, at, size):
    """``buf[at:at + size]`` and the place after it. A tree's small tables
    are cut from a few allocations: an allocation per table (a few dozen per
    tree) costs more than the search of a tree on a few dozen rows."""
    return buf[at:at + size], at + size


@njit(cache=True, error_model="numpy", inline="always")
def carve2(buf, at, rows, cols):
    """:func:`carve` of a (``rows``, ``cols``) table."""
    return buf[at:at + rows * cols].reshape((rows, cols)), at + rows * cols


@njit(cache=True, error_model="numpy")
def r_vectors(pred, node_w, node_var, node_value, node_gain, node_kids, node_nlev,
              node_levels, var_type, shrinkage, n_csplits):
    """R's eight vectors in R's numbering (pre-order: node, left, right and
    missing subtrees) and the rows of the tree's categorical splits (in that
    order, numbered from ``n_csplits``; padded with 0 to the widest)."""
    n_nodes = pred.shape[0]
    # (see carve) order, number, stack, split_var and the 3 children; code,
    # gain, weight, prediction
    ints = np.empty((4 + 3) * n_nodes, dtype=np.int64)
    order, at = carve(ints, 0, n_nodes)
    number, at = carve(ints, at, n_nodes)
    stack, at = carve(ints, at, n_nodes)
    split_var, at = carve(ints, at, n_nodes)
    kids, at = carve2(ints, at, 3, n_nodes)
    split_var[:] = NO_NODE
    kids[:] = NO_NODE
    floats = np.zeros(4 * n_nodes)
    code, at = carve(floats, 0, n_nodes)
    gain, at = carve(floats, at, n_nodes)
    weight, at = carve(floats, at, n_nodes)
    prediction, at = carve(floats, at, n_nodes)
    stack[0] = 0
    top = 1
    q = 0
    while top:
        top -= 1
        k = stack[top]
        number[k] = q
        order[q] = k
        q += 1
        if node_var[k] >= 0:
            stack[top] = node_kids[k, MISSING]
            stack[top + 1] = node_kids[k, RIGHT]
            stack[top + 2] = node_kids[k, LEFT]
            top += 3
    n_cat = 0
    width = 1
    for k in range(n_nodes):
        if node_var[k] >= 0 and var_type[node_var[k]] > 0:
            n_cat += 1
            width = max(width, var_type[node_var[k]])
    csplits = np.zeros((n_cat, width), dtype=np.int64)
    c = 0
    for q in range(n_nodes):
        k = order[q]
        weight[q] = node_w[k]
        prediction[q] = shrinkage * pred[k]
        v = node_var[k]
        if v < 0:
            code[q] = prediction[q]
            continue
        split_var[q] = v
        gain[q] = node_gain[k]
        for side in range(3):
            kids[side, q] = number[node_kids[k, side]]
        if var_type[v] == 0:
            code[q] = node_value[k]
        else:
            for lev in range(var_type[v]):
                csplits[c, lev] = GOES_RIGHT
            for j in range(node_nlev[k]):
                csplits[c, node_levels[k, j]] = GOES_LEFT
            code[q] = n_csplits + c
            c += 1
    return split_var, code, kids, gain, weight, prediction, csplits


def terminal_index(n_nodes: int, terminals: np.ndarray) -> np.ndarray:
    """Each node's terminal index (-1: a split node) from the terminal nodes
    in terminal order: :func:`route_rows`'s map."""
    out = np.full(n_nodes, -1, dtype=np.int64)
    out[terminals] = np.arange(terminals.shape[0])
    return out


@njit(cache=True, error_model="numpy")
def route_rows(xt, var_type, node_var, node_value, node_kids, node_nlev, node_levels,
               terminal_of):
    """Terminal index of every row of ``xt`` (predictors by rows) when the
    grown tree's splits are replayed on it: continuous ``x >= value`` goes
    right, a categorical level left when the split sent it left, NaN to the
    missing child.

    The nodes are created parents first, so the rows go split node by split
    node over all rows: a pass of comparisons per split, written as selects
    that the compiler vectorises, several times faster on the few splits of
    a boosted tree than a walk of each row down the tree (a branch per
    step on the row's data)."""
    n = xt.shape[1]
    at = np.zeros(n, dtype=np.int64)                # every row's node so far
    for k in range(node_var.shape[0]):
        v = node_var[k]
        if v < 0:
            continue
        x = xt[v]
        left, right, miss = node_kids[k, LEFT], node_kids[k, RIGHT], node_kids[k, MISSING]
        if var_type[v] == 0:
            value = node_value[k]
            for i in range(n):
                xi = x[i]
                d = right if xi >= value else left
                d = miss if xi != xi else d
                at[i] = d if at[i] == k else at[i]
        else:
            goes = np.full(var_type[v], right, dtype=np.int64)
            for q in range(node_nlev[k]):
                goes[node_levels[k, q]] = left
            for i in range(n):
                if at[i] == k:
                    if np.isnan(x[i]):
                        at[i] = miss
                    else:
                        lev = int(x[i])
                        at[i] = goes[lev] if lev < goes.shape[0] else right
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = terminal_of[at[i]]
    return out


@njit(cache=True, error_model="numpy")
def tree_terminal_nodes(split_var, code, left, right, missing, cols, var_type, cat_rows,
                        cat_row_of):
    """Terminal node (R's numbering) of every row of ``cols`` (predictors by
    rows), as engine.tree.split_directions decides: continuous ``x < point``
    left; categorical by the split's row of c_splits (``cat_rows[cat_row_of[k]]``),
    a level outside it or marked neither way to the missing child; NaN missing.

    In R's pre-order numbering (every child after its parent) the rows go
    split by split: one pass over all rows per split, reading the split's
    predictor in row order and moving the rows at that node to their child
    without a branch on the row's data; a walk of each row down the tree
    takes a data-dependent branch at every node (measured on 200k rows:
    about a quarter of the walk's time with 3 splits, still below it with
    12). Other numberings are walked."""
    n = cols.shape[1]
    out = np.zeros(n, dtype=np.int64)
    for k in range(split_var.shape[0]):
        if split_var[k] >= 0 and min(left[k], right[k], missing[k]) <= k:
            _walk(split_var, code, (left, right, missing), cols, var_type,
                  (cat_rows, cat_row_of), out)
            return out
    width = cat_rows.shape[1]
    for k in range(split_var.shape[0]):
        v = split_var[k]
        if v < 0:
            continue
        xs = cols[v]
        to_left, to_right, to_missing = left[k], right[k], missing[k]
        if var_type[v] == 0:
            point = code[k]
            for i in range(n):
                xv = xs[i]
                child = to_missing if np.isnan(xv) else (to_right if xv >= point
                                                         else to_left)
                out[i] = child if out[i] == k else out[i]
        else:
            row = cat_rows[cat_row_of[k]]
            for i in range(n):
                if out[i] != k:
                    continue
                xv = xs[i]
                entry = 0
                if not np.isnan(xv):
                    lev = int(xv)
                    if lev >= 0 and lev < width:
                        entry = row[lev]
                out[i] = (to_left if entry == GOES_LEFT else
                          to_right if entry == GOES_RIGHT else to_missing)
    return out


@njit(cache=True, error_model="numpy")
def _walk(split_var, code, kids, cols, var_type, categorical, out):
    """:func:`tree_terminal_nodes` one row at a time down the tree (``kids``
    = left, right, missing; ``categorical`` = (cat_rows, cat_row_of))."""
    left, right, missing = kids
    cat_rows, cat_row_of = categorical
    width = cat_rows.shape[1]
    for i in range(cols.shape[1]):
        k = 0
        while split_var[k] >= 0:
            v = split_var[k]
            xv = cols[v, i]
            if np.isnan(xv):
                k = missing[k]
            elif var_type[v] == 0:
                k = right[k] if xv >= code[k] else left[k]
            else:
                lev = int(xv)
                r = cat_row_of[k]
                entry = 0
                if lev >= 0 and lev < width:
                    entry = cat_rows[r, lev]
                if entry == GOES_LEFT:
                    k = left[k]
                elif entry == GOES_RIGHT:
                    k = right[k]
                else:
                    k = missing[k]
        out[i] = k


@njit(cache=True, error_model="numpy")
def new_nodes(max_nodes, level_width):
    """The node arrays every grower fills (up to ``max_nodes`` nodes, R's three
    children per split): each node's w*z and weight sums, in-bag count, split
    predictor (-1: terminal), split point, gain, children (left, right,
    missing; -1: none), number of levels sent left and those levels
    (``level_width`` columns)."""
    # (see carve) z, w, value, gain; n, var, the 3 children, nlev and the levels
    floats = np.zeros(4 * max_nodes)
    node_z, at = carve(floats, 0, max_nodes)
    node_w, at = carve(floats, at, max_nodes)
    node_value, at = carve(floats, at, max_nodes)
    node_gain, at = carve(floats, at, max_nodes)
    ints = np.zeros((2 + 3 + 1 + level_width) * max_nodes, dtype=np.int64)
    node_n, at = carve(ints, 0, max_nodes)
    node_var, at = carve(ints, at, max_nodes)
    node_kids, at = carve2(ints, at, max_nodes, 3)
    node_nlev, at = carve(ints, at, max_nodes)
    node_levels, at = carve2(ints, at, max_nodes, level_width)
    node_var[:] = -1
    node_kids[:] = -1
    return (node_z, node_w, node_n, node_var, node_value, node_gain, node_kids, node_nlev,
            node_levels)
