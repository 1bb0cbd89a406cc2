"""Ordered boosting's tree in one compiled call: best-first growth on the
ordered score N / sqrt(D), as :class:`pygbm.ordered.grow.OrderedGrower`
grows it (the same splits, node sums and gains, bit for bit).

The in-bag rows of each terminal node are kept as a segment of one array
(partitioned stably at each split); every terminal node keeps its integer
histogram, and a split counts the two smaller children's and takes the
largest child's as its parent's minus theirs (exact: integers). The grown
tree is the compiled engine's :class:`pygbm.engine.compiled.grower.CompiledTree`
(its node arrays, R's Adjust, R's vectors, its routing of other encodings).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ...engine.compiled.arith import split_gain
from ...engine.compiled.grower import CompiledTree
from ...engine.compiled.histograms import subtract
from ...engine.compiled.tree_arrays import (GrownNodes, new_nodes, node_capacity,
                                             route_rows, terminal_capacity, terminal_index)
from ...engine.split import LEFT, MISSING, RIGHT
from ..columns import FoldColumns, plain_columns
from .search import add_rows, cell_count, level_order, plain_of, scan_node, scan_work, terms_of


class BinnedArrays(NamedTuple):
    """What the compiled search reads of a
    :class:`pygbm.engine.binned.BinnedTrainingData` (made once per data)."""

    codes: np.ndarray
    xt: np.ndarray
    var_type: np.ndarray
    n_cells: int
    search: tuple          # (cont, cat, width, cat_cells, cat_missing, var_monotone, n_bins)
    bin_min: np.ndarray
    bin_max: np.ndarray
    first_cells: int       # cells 0.. of the predictor laid out first (its node total)

    @classmethod
    def of(cls, data) -> BinnedArrays:
        i64 = np.int64
        # the cells of the predictor laid out first (the continuous ones come
        # first, then the categoricals): every row is in one of them
        first = data.width if data.cont.size else int(data.var_type[data.cat[0]]) + 1
        n_bins = np.array([c.shape[0] + 1 for c in data.cuts], dtype=i64)
        search = (data.cont.astype(i64), data.cat.astype(i64), int(data.width),
                  data.cat_cells.astype(i64), data.cat_missing.astype(i64),
                  data.var_monotone.astype(i64), n_bins)
        return cls(data.codes, data.xt, data.var_type.astype(i64), int(data.n_cells), search,
                   data.bin_min, data.bin_max, first)


@njit(cache=True, error_model="numpy")
def _direction(xt, var_type, v, value, levels, nlev, i):
    x = xt[v, i]
    if np.isnan(x):
        return MISSING
    if var_type[v] == 0:
        return RIGHT if x >= value else LEFT
    for q in range(nlev):
        if levels[q] == int(x):
            return LEFT
    return RIGHT


@njit(cache=True, error_model="numpy")
def _histogram(hist, codes, cols, rows, with_plain):
    hist[:] = 0
    add_rows(hist, codes, cols, rows, with_plain)


@njit(cache=True, error_model="numpy")
def _plain_sums(plain, rows, out):
    """The plain columns summed over ``rows`` into ``out`` (exact integers)."""
    out[:] = 0
    for q in range(rows.shape[0]):
        for a in range(plain.shape[1]):
            out[a] += plain[rows[q], a]


@njit(cache=True, error_model="numpy")
def grow_ordered(arrays, cols, units, bag_rows, depth, min_obs):
    """The tree's node arrays (see the module) from the in-bag rows
    ``bag_rows`` (ascending); ``cols`` = (plain (n, P), fold values (n, K
    width), tail folds (n,), layout tuple), ``units`` as
    :func:`.search.scan_node`."""
    codes, xt, var_type, n_cells, data, bin_min, bin_max, first_cells = arrays
    cont, cat, width, cat_cells, cat_missing, var_monotone, n_bins = data
    lay = cols[3]
    unit_plain, unit_folds = units
    n_cols = lay[0] + 2 * lay[1] * lay[2]
    max_term = terminal_capacity(depth)
    max_nodes = node_capacity(depth)
    max_levels = max(cat_cells.shape[1], 1)
    hists = np.empty((max_term, n_cells + 1, n_cols), dtype=np.int64)
    slot_of = np.zeros(max_term, dtype=np.int64)      # each terminal's histogram
    free = np.arange(max_term - 1, 0, -1)                # histograms not in use
    n_free = max_term - 1
    totals = np.zeros((max_term, n_cols), dtype=np.int64)
    c_dn = np.empty((max_term, n_cells))
    score = np.empty(n_cells)
    c_dd = np.empty((max_term, n_cells))
    c_var = np.empty((max_term, n_cells), dtype=np.int64)
    c_pos = np.empty((max_term, n_cells), dtype=np.int64)
    n_cand = np.full(max_term, -1, dtype=np.int64)          # -1: not searched yet
    work = scan_work(n_cols, max(width - 1, cat_cells.shape[1], 1))
    rows = bag_rows.copy()
    seg_lo = np.zeros(max_term, dtype=np.int64)
    seg_hi = np.zeros(max_term, dtype=np.int64)
    seg_hi[0] = rows.shape[0]
    buf = np.empty(rows.shape[0], dtype=np.int64)
    side_of = np.empty(rows.shape[0], dtype=np.int8)

    (node_z, node_w, node_n, node_var, node_value, node_gain, node_kids, node_nlev,
     node_levels) = new_nodes(max_nodes, max_levels)
    term_node = np.zeros(max_term, dtype=np.int64)

    # with packed columns the continuous predictors' buckets need no plain
    # sums: their counts are the fold entries', the nodes' sums come from rows
    with_plain = np.ones(var_type.shape[0], dtype=np.bool_)
    if lay[0] == 1 and lay[1] == 1:
        for v in range(var_type.shape[0]):
            with_plain[v] = var_type[v] > 0 or var_monotone[v] != 0
    _histogram(hists[0], codes, cols, rows, with_plain)
    for c in range(first_cells):
        totals[0] += hists[0, c]
    _plain_sums(cols[0], rows, totals[0, :lay[0]])
    node_z[0], node_w[0], node_n[0] = plain_of(totals[0], lay, unit_plain)
    n_sum, d_sum = terms_of(totals[0], lay, unit_folds)
    n_term = 1
    n_nodes = 1
    left = np.empty(n_cols, dtype=np.int64)
    for n_split in range(depth):
        for t in range(n_term):
            if n_cand[t] < 0 and node_n[term_node[t]] < 2 * min_obs:
                n_cand[t] = 0                       # no split leaves min_obs rows each side
            elif n_cand[t] < 0:
                n_cand[t] = scan_node(hists[slot_of[t]], totals[t], lay, units, data, min_obs,
                                      (c_dn[t], c_dd[t], c_var[t], c_pos[t]), work)
        best = n_sum / np.sqrt(d_sum) if d_sum > 0.0 else 0.0
        bt = -1
        bc = -1
        for t in range(n_term):
            m = n_cand[t]
            dn, dd = c_dn[t], c_dd[t]
            for c in range(m):                  # the new scores (vectorised), then the best
                den = d_sum + dd[c]
                score[c] = (n_sum + dn[c]) / np.sqrt(den) if den > 0.0 else 0.0
            for c in range(m):
                if score[c] > best:
                    best, bt, bc = score[c], t, c
        if bt < 0:
            break
        t, v, pos = bt, c_var[bt, bc], c_pos[bt, bc]
        hist = hists[slot_of[t]]
        nd = term_node[t]
        # the split's left and missing sums, as the candidate had them
        left[:] = 0
        nlev = 0
        if var_type[v] == 0:
            i = 0
            while cont[i] != v:
                i += 1
            first = i * width
            for b in range(pos + 1):
                left += hist[first + b]
            missing = hist[first + width - 1].copy()
            nxt = pos + 1
            while cell_count(hist[first + nxt], lay) <= 0:
                nxt += 1
            lo, hi = bin_max[i, pos], bin_min[i, nxt]
            mid = 0.5 * (lo + hi)
            value = mid if mid > lo else hi
        else:
            i = 0
            while cat[i] != v:
                i += 1
            order = level_order(hist, cat_cells[i], lay, unit_plain)[0]
            for q in range(pos + 1):
                left += hist[cat_cells[i, order[q]]]
            missing = hist[cat_missing[i]].copy()
            nlev = pos + 1
            node_levels[nd, :nlev] = np.sort(order[:nlev])
            value = float(pos)
        node_var[nd] = v
        node_value[nd] = value
        node_nlev[nd] = nlev
        # the in-bag rows, partitioned stably (left, right, missing), and the
        # children's plain sums from their rows
        lo_t, hi_t = seg_lo[t], seg_hi[t]
        counts = np.zeros(3, dtype=np.int64)
        side_plain = np.zeros((3, lay[0]), dtype=np.int64)
        for q in range(lo_t, hi_t):
            d = _direction(xt, var_type, v, value, node_levels[nd], nlev, rows[q])
            side_of[q] = d
            counts[d] += 1
            for a in range(lay[0]):
                side_plain[d, a] += cols[0][rows[q], a]
        left[:lay[0]] = side_plain[LEFT]
        missing[:lay[0]] = side_plain[MISSING]
        right = totals[t] - left - missing
        lz, lw, ln = plain_of(left, lay, unit_plain)
        rz, rw, rn = plain_of(right, lay, unit_plain)
        mz, mw, mn = plain_of(missing, lay, unit_plain)
        node_gain[nd] = split_gain(lw, rw, mw, lz, rz, mz)
        n_sum += c_dn[t, bc]
        d_sum += c_dd[t, bc]
        ids = (n_nodes, n_nodes + 1, n_nodes + 2)
        node_z[ids[0]], node_w[ids[0]], node_n[ids[0]] = lz, lw, ln
        node_z[ids[1]], node_w[ids[1]], node_n[ids[1]] = rz, rw, rn
        if mn > 0:
            node_z[ids[2]], node_w[ids[2]], node_n[ids[2]] = mz, mw, mn
        else:                   # as R's grower: an empty missing child has its parent's sums
            node_z[ids[2]], node_w[ids[2]], node_n[ids[2]] = node_z[nd], node_w[nd], 0
        for side in range(3):
            node_kids[nd, side] = ids[side]
        n_nodes += 3
        t_right, t_missing = n_term, n_term + 1
        term_node[t], term_node[t_right], term_node[t_missing] = ids[0], ids[1], ids[2]
        n_term += 2
        at = np.array([lo_t, lo_t + counts[LEFT], lo_t + counts[LEFT] + counts[RIGHT]])
        for q in range(lo_t, hi_t):
            d = side_of[q]
            buf[at[d]] = rows[q]
            at[d] += 1
        rows[lo_t:hi_t] = buf[lo_t:hi_t]
        seg_hi[t] = lo_t + counts[LEFT]
        seg_lo[t_right], seg_hi[t_right] = seg_hi[t], seg_hi[t] + counts[RIGHT]
        seg_lo[t_missing], seg_hi[t_missing] = seg_hi[t_right], hi_t
        totals[t_right] = right
        totals[t_missing] = missing
        totals[t] = left
        n_cand[t] = -1
        n_cand[t_right] = -1
        n_cand[t_missing] = -1
        if n_split + 1 < depth:     # the children will be searched: their histograms
            kids = (t, t_right, t_missing)
            largest = 0
            for s_ in range(1, 3):
                if counts[s_] > counts[largest]:
                    largest = s_
            parent_slot = slot_of[t]
            for s_ in range(3):
                if s_ == largest:
                    continue
                n_free -= 1
                slot = free[n_free]
                slot_of[kids[s_]] = slot
                if counts[s_] == 0:
                    continue                        # never searched, nothing to subtract
                _histogram(hists[slot], codes, cols, rows[seg_lo[kids[s_]]:seg_hi[kids[s_]]],
                           with_plain)
                subtract(hists[parent_slot], hists[slot])
            slot_of[kids[largest]] = parent_slot
    node_pred = np.empty(n_nodes)
    for k in range(n_nodes):
        node_pred[k] = node_z[k] / node_w[k] if node_w[k] > 0 else 0.0
    return GrownNodes(node_pred, node_z[:n_nodes], node_w[:n_nodes], node_n[:n_nodes],
                      node_var[:n_nodes], node_value[:n_nodes], node_gain[:n_nodes],
                      node_kids[:n_nodes], node_nlev[:n_nodes], node_levels[:n_nodes],
                      term_node[:n_term], np.empty(0, dtype=np.int64))  # routed by the caller


class CompiledOrderedGrower:
    """The compiled :class:`pygbm.ordered.grow.OrderedGrower`: grows one tree
    of ``depth`` splits on binned data (``arrays``: its :class:`BinnedArrays`;
    ``data``: the data, for routing) with the permutation's ``folds``."""

    def __init__(self, data, arrays: BinnedArrays, folds: FoldColumns, depth: int,
                 min_obs: int):
        self.data, self.arrays, self.folds = data, arrays, folds
        self.depth = int(depth)
        self.min_obs = int(min_obs)

    def grow(self, z: np.ndarray, w: np.ndarray, inbag: np.ndarray,
             unit_weights: bool) -> CompiledTree:
        folds = self.folds
        plain, unit_plain = plain_columns(w * z, w, inbag, unit_weights, folds.count_bits)
        lay = (plain.shape[1], folds.width, folds.n_folds, folds.count_bits)
        cols = (plain, folds.values, folds.tail_fold, lay)
        nodes = grow_ordered(self.arrays, cols, (unit_plain, folds.unit),
                             inbag.nonzero()[0].astype(np.int64), self.depth, self.min_obs)
        node_of = route_rows(self.data.xt, self.arrays.var_type, nodes.node_var,
                             nodes.node_value, nodes.node_kids, nodes.node_nlev,
                             nodes.node_levels,
                             terminal_index(nodes.node_var.shape[0], nodes.terminals))
        return CompiledTree(nodes._replace(node_of=node_of), self.arrays.var_type)
