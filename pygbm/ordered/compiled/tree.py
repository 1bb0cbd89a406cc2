"""The compiled ordered grower's tree: the compiled engine's
:class:`pygbm.engine.compiled.grower.CompiledTree` whose routing of the
training rows goes split node by split node over all rows (a pass of
comparisons per split, which the processor pipelines) instead of row by row
down the tree: the same terminal node for every row as
:func:`pygbm.engine.compiled.tree_arrays.route_rows` (continuous ``x >=
value`` right, a categorical level left when the split sends it left, NaN
to the missing child), several times faster on the few splits of a boosted
tree. Ordered boosting routes every tree on each permutation's encoding.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ...engine.compiled.grower import CompiledTree
from ...engine.split import LEFT, MISSING, RIGHT


@njit(cache=True, error_model="numpy")
def route_by_node(xt, var_type, nodes, terminals):
    """Terminal index of every row of ``xt`` (predictors by rows) under the
    node arrays ``nodes`` = (var, value, kids, n levels, levels), created
    parents first; ``terminals`` the terminal nodes in terminal order."""
    node_var, node_value, node_kids, node_nlev, node_levels = nodes
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
                if at[i] == k:
                    at[i] = miss if np.isnan(x[i]) else (right if x[i] >= value else left)
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
    terminal_of = np.full(node_var.shape[0], -1, dtype=np.int64)
    for t in range(terminals.shape[0]):
        terminal_of[terminals[t]] = t
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = terminal_of[at[i]]
    return out


class OrderedTree(CompiledTree):
    """A :class:`CompiledTree` routed split by split (see the module)."""

    def route(self, data) -> np.ndarray:
        """Terminal index of every training row of ``data`` (another encoding
        of the same rows) under this tree's splits."""
        return route_by_node(data.xt, self.var_type, self.split_arrays(), self.terminals)

    def split_arrays(self) -> tuple:
        """(var, value, kids, n levels, levels) of the nodes."""
        return (self.node_var, self.node_value, self.node_kids, self.node_nlev,
                self.node_levels)
