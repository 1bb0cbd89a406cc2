"""CEGB's split-gain penalties in compiled code (numba), for the compiled growers.

The arithmetic of :class:`pygbm.engine.cegb.CostTracker` on its own arrays,
so that :func:`.exact_tree.grow_exact_penalised` and
:func:`.binned_tree.grow_binned_penalised` grow, penalty for penalty, the
trees that the NumPy growers grow with the tracker as their split-gain
adjustment, and the compiled loop marks the rows as the tracker does
(:func:`tree_read`). A penalty tuple ``costs`` is

    (used_rows, used_model, model, feature, split, lazy)

``used_rows`` (bytes, n_train) uint8: bit ``v % 8`` of byte row ``v // 8``
set where the row has read predictor ``v``; ``used_model`` (p,) bool: the
model has paid γ_v; ``model``, ``feature`` (p,): λγ and λβ; ``split``: λα;
``lazy``: some β is positive. Both state arrays are the tracker's own and
are updated in place. Only unit case weights (rows are counted) and no
feature combinations: the tracker says when (``CostTracker.compiled_state``).
A fit without costs passes None instead: numba prunes the branches that
test it, so such a fit does not compile them (the first fit's compile time).
"""
from __future__ import annotations

import numpy as np
from numba import njit

#: predictors per byte of ``used_rows``
BITS = 8
#: values of one byte
BYTE_VALUES = 256


@njit(cache=True, error_model="numpy")
def penalties(costs, rows, pen):
    """λ(γ_v·[v new to the model] + β_v·(rows of ``rows`` not having read v)
    + α·(rows of ``rows``)) into ``pen``, in the tracker's order of operations
    (``rows``: the node's in-bag rows; unit case weights, so W is their count)."""
    used_rows, used_model, model, feature, split, lazy = costs
    p = pen.shape[0]
    for v in range(p):
        pen[v] = model[v] * (0.0 if used_model[v] else 1.0)
    if lazy:
        counts = np.zeros(BYTE_VALUES, dtype=np.int64)
        for b in range(used_rows.shape[0]):
            counts[:] = 0
            byte = used_rows[b]
            for k in range(rows.shape[0]):
                counts[byte[rows[k]]] += 1
            for bit in range(BITS):
                v = b * BITS + bit
                if v >= p:
                    break
                unread = 0
                for value in range(BYTE_VALUES):
                    if not (value >> bit) & 1:
                        unread += counts[value]
                pen[v] = pen[v] + feature[v] * float(unread)
    if split != 0.0:
        for v in range(p):
            pen[v] = pen[v] + split * float(rows.shape[0])


@njit(cache=True, error_model="numpy")
def mark(costs, rows, v) -> bool:
    """The rows ``rows`` have read predictor ``v`` (a split on it was made);
    True when the model pays γ_v now (the other nodes' penalties changed)."""
    used_rows, used_model, model = costs[0], costs[1], costs[2]
    byte = used_rows[v // BITS]
    flag = np.uint8(1 << (v % BITS))
    for k in range(rows.shape[0]):
        byte[rows[k]] |= flag
    if used_model[v]:
        return False
    used_model[v] = True
    return model[v] > 0.0


@njit(cache=True, error_model="numpy")
def tree_read(cegb, grown, node_pen, t):
    """After tree ``t`` of a compiled loop's chunk: every training row (in and
    out of the bag) has read the predictors on its path and evaluated its
    splits; the tree's splits (predictor, R's gain, penalty) in the order made
    into the chunk's table. ``cegb`` = (penalty tuple, the rows' evaluated
    splits, the chunk's (T, depth, 3) split table); ``grown`` a penalised
    grower's :class:`.tree_arrays.GrownNodes` and ``node_pen`` its nodes' penalties."""
    costs, evaluated, splits_out = cegb[0], cegb[1], cegb[2][t]
    node_var, node_gain, node_kids = grown.node_var, grown.node_gain, grown.node_kids
    terminals, node_of = grown.terminals, grown.node_of
    used_rows = costs[0]
    n_nodes = node_var.shape[0]
    n_bytes = used_rows.shape[0]
    # children are made after their parents: masks and depths in one pass
    masks = np.zeros((n_nodes, n_bytes), dtype=np.uint8)
    depth = np.zeros(n_nodes, dtype=np.int64)
    made = 0
    for k in range(n_nodes):
        v = node_var[k]
        if v < 0:
            continue
        for side in range(3):
            c = node_kids[k, side]
            masks[c, :] = masks[k, :]
            masks[c, v // BITS] |= np.uint8(1 << (v % BITS))
            depth[c] = depth[k] + 1
        made += 1
    # the splits in the order made: by their first child's number
    first = np.empty(made, dtype=np.int64)
    split = np.empty(made, dtype=np.int64)
    q = 0
    for k in range(n_nodes):
        if node_var[k] >= 0:
            first[q] = node_kids[k, 0]
            split[q] = k
            q += 1
    order = np.argsort(first)
    for q in range(made):
        k = split[order[q]]
        splits_out[q, 0] = node_var[k]
        splits_out[q, 1] = node_gain[k]
        splits_out[q, 2] = node_pen[k]
    if made == 0:
        return
    for i in range(node_of.shape[0]):
        nd = terminals[node_of[i]]
        for b in range(n_bytes):
            used_rows[b, i] |= masks[nd, b]
        evaluated[i] += depth[nd]
