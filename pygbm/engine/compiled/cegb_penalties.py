"""CEGB's split-gain penalties in compiled code (numba), for the binned grower.

The arithmetic of :class:`pygbm.engine.cegb.CostTracker` on its own arrays,
so that :func:`.binned_tree.grow_binned_penalised` grows, penalty for
penalty, the tree that the NumPy grower grows with the tracker as its
split-gain adjustment. A penalty tuple ``costs`` is

    (used_rows, used_model, model, feature, split, lazy)

``used_rows`` (bytes, n_train) uint8: bit ``v % 8`` of byte row ``v // 8``
set where the row has read predictor ``v``; ``used_model`` (p,) bool: the
model has paid γ_v; ``model``, ``feature`` (p,): λγ and λβ; ``split``: λα;
``lazy``: some β is positive. Both state arrays are the tracker's own and
are updated in place. Only unit case weights (rows are counted) and no
feature combinations: the tracker says when (``CostTracker.compiled_state``).
:func:`no_costs` is the tuple of a fit without costs.
"""
from __future__ import annotations

import numpy as np
from numba import njit

#: predictors per byte of ``used_rows``
BITS = 8
#: values of one byte
BYTE_VALUES = 256


@njit(cache=True)
def no_costs():
    """The penalty tuple of a fit without costs (its arrays empty)."""
    return (np.zeros((0, 0), dtype=np.uint8), np.zeros(0, dtype=np.bool_), np.zeros(0),
            np.zeros(0), 0.0, False)


@njit(cache=True)
def active(costs) -> bool:
    """Whether ``costs`` penalise anything (a fit with costs)."""
    return costs[2].shape[0] > 0


@njit(cache=True, error_model="numpy")
def penalties(costs, rows, node_w, pen):
    """λ(γ_v·[v new to the model] + β_v·(rows of ``rows`` not having read v)
    + α·``node_w``) into ``pen``, in the tracker's order of operations."""
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
            pen[v] = pen[v] + split * node_w


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
