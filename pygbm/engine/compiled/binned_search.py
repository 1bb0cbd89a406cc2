"""The histogram split search in compiled loops (engine.histogram_search's numbers).

Every function reads a node's float histogram ``H`` ((cells, k): w*z,
[w,] count; a packed histogram is unpacked first) of a
:class:`.binned_layout.BinnedLayout` and computes what
:class:`pygbm.engine.histogram_search.HistogramSearch` computes with
whole-array passes, in the same order of operations: cumulative sums left
to right, the same gain formulas (the two-group rewriting where no row of
the node is missing and no predictor is constrained), the first maximum,
categorical levels ordered by mean (R's Shell sort where means are within
:data:`MEAN_TIE`), and the chosen split's sums from the histogram, summed
as ``np.sum`` sums them.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..histogram_search import MEAN_TIE
from ..tolerance import sign_margin
from .arith import midpoint, numpy_sum, r_order, split_gain, stable_argsort
from .binned_rows import recount

#: the NumPy engine's margin of a monotone check, compiled as it is written
_sign_margin = njit(cache=True, error_model="numpy", inline="always")(sign_margin)


@njit(cache=True, error_model="numpy")
def _columns(H, unit):
    """Columns of w (the count with unit weights) and of the count."""
    last = H.shape[1] - 1
    return (last if unit else 1), last


@njit(cache=True, error_model="numpy")
def continuous_best(L, H, unit, min_obs, gain, pos, room):
    """Best gain and bucket of every continuous predictor (``gain``, ``pos``
    indexed by row of ``L.cont``): candidate ``k`` puts buckets 0..k left.
    ``room`` = (the tree's tolerance, the node's level; level -1: none): a
    monotone check within :func:`..tolerance.sign_margin` of 0 passes (R's sums
    decide it, with one bucket per value)."""
    tol, level = room
    wcol, ccol = _columns(H, unit)
    width = L.width
    pc = L.cont.shape[0]
    plain = True                      # no missing row in the node, no constraint
    for i in range(pc):
        if H[i * width + width - 1, ccol] != 0.0 or L.mono[L.cont[i]] != 0:
            plain = False
    for i in range(pc):
        base = i * width
        ls_t = 0.0
        ln_t = 0.0
        lw_t = 0.0
        for b in range(width - 1):
            ls_t += H[base + b, 0]
            ln_t += H[base + b, ccol]
            lw_t += H[base + b, wcol]
        ms = H[base + width - 1, 0]
        mw = H[base + width - 1, wcol]
        mv = L.mono[L.cont[i]]
        node_w = lw_t
        mean = ls_t / (node_w if node_w > 0.0 else 1.0)
        best = 0.0
        best_b = 0
        ls = 0.0
        ln = 0.0
        lw = 0.0
        for b in range(width - 1):
            ls += H[base + b, 0]
            ln += H[base + b, ccol]
            lw += H[base + b, wcol]
            rn = ln_t - ln
            rw = lw_t - lw
            if not (ln >= min_obs and rn >= min_obs):
                continue
            if plain:
                den = lw * rw
                if not den > 0.0:
                    continue
                d = ls - lw * mean
                d = d * d
                d = d * node_w
                g = d / den
            else:
                rs = ls_t - ls
                g = split_gain(lw, rw, mw, ls, rs, ms)
                if mv != 0:
                    margin = 0.0
                    if level >= 0:
                        margin = _sign_margin(tol[0], tol[1], tol[2], tol[3], level, lw, rw,
                                              ls, rs)
                    if not mv * (rs * lw - ls * rw) > -margin:
                        continue
            if g > best:
                best = g
                best_b = b
        gain[i] = best
        pos[i] = best_b


@njit(cache=True, error_model="numpy")
def _level_sums(L, H, unit, i, gs, gw, gn):
    """Categorical ``i``'s level sums from ``H`` (padded levels: 0); returns
    its missing cell's (sum w*z, w)."""
    wcol, ccol = _columns(H, unit)
    for j in range(L.cat_cells.shape[1]):
        c = L.cat_cells[i, j]
        gs[j] = H[c, 0]
        gw[j] = H[c, wcol]
        gn[j] = H[c, ccol]
    c = L.cat_missing[i]
    return H[c, 0], H[c, wcol]


@njit(cache=True, error_model="numpy")
def _means(gs, gw, means):
    """Mean w*z per level (inf without weight); returns how many are finite."""
    n_finite = 0
    for j in range(gs.shape[0]):
        if gw[j] != 0.0:
            means[j] = gs[j] / gw[j]
            n_finite += 1
        else:
            means[j] = np.inf
    return n_finite


@njit(cache=True, error_model="numpy")
def _close(means, order):
    """Whether two neighbours of the mean order are within MEAN_TIE."""
    for j in range(order.shape[0] - 1):
        a = means[order[j]]
        b = means[order[j + 1]]
        if np.isfinite(b) and b - a <= MEAN_TIE * abs(b):
            return True
    return False


@njit(cache=True, error_model="numpy")
def categorical_best(L, H, unit, counted, rows, resp, min_obs, gain, pos, orders):
    """Best split of every categorical predictor (``gain``, ``pos``: prefix
    length - 1, ``orders``: level order, by row of ``L.cat``). Levels whose
    means tie are ordered by R's Shell sort, on sums counted from ``rows``
    (the node's rows; ``resp`` = (w*z, w)) where ``H`` was made by
    subtraction (``counted`` False): those cells of ``H`` are replaced."""
    width = L.cat_cells.shape[1]
    gs = np.empty(width)
    gw = np.empty(width)
    gn = np.empty(width)
    means = np.empty(width)
    for i in range(L.cat.shape[0]):
        ms, mw = _level_sums(L, H, unit, i, gs, gw, gn)
        n_finite = _means(gs, gw, means)
        order = stable_argsort(means)
        if _close(means, order):
            if not counted:
                recount(L, H, i, rows, resp, unit)
                ms, mw = _level_sums(L, H, unit, i, gs, gw, gn)
                n_finite = _means(gs, gw, means)
            K = L.var_type[L.cat[i]]
            order[:K] = r_order(means[:K])
        ls_t = 0.0
        ln_t = 0.0
        lw_t = 0.0
        for j in range(width):
            ls_t += gs[order[j]]
            ln_t += gn[order[j]]
            lw_t += gw[order[j]]
        best = 0.0
        best_j = 0
        ls = 0.0
        ln = 0.0
        lw = 0.0
        for j in range(width):
            lev = order[j]
            ls += gs[lev]
            ln += gn[lev]
            lw += gw[lev]
            rn = ln_t - ln
            if j < n_finite - 1 and ln >= min_obs and rn >= min_obs:
                g = split_gain(lw, lw_t - lw, mw, ls, ls_t - ls, ms)
                if g > best:
                    best = g
                    best_j = j
        gain[i] = best
        pos[i] = best_j
        orders[i, :] = order


@njit(cache=True, error_model="numpy")
def _cell_sums(H, cells, n, unit, buf):
    """(sum w*z, sum w, count) of the first ``n`` of ``cells``, each summed
    as ``np.sum`` sums a column of them."""
    wcol, ccol = _columns(H, unit)
    for k in range(n):
        buf[k] = H[cells[k], 0]
    sz = numpy_sum(buf[:n])
    for k in range(n):
        buf[k] = H[cells[k], ccol]
    sn = numpy_sum(buf[:n])
    sw = sn
    if not unit:
        for k in range(n):
            buf[k] = H[cells[k], wcol]
        sw = numpy_sum(buf[:n])
    return sz, sw, sn


@njit(cache=True, error_model="numpy")
def split_point(L, H, v, b):
    """Between the largest training value of bucket ``b`` of ``v`` and the
    smallest of the next bucket holding rows of the node."""
    ccol = H.shape[1] - 1
    first = L.offset[v]
    nxt = b + 1
    for c in range(b + 1, L.width - 1):
        if H[first + c, ccol] > 0.0:
            nxt = c
            break
    i = L.cont_row[v]
    return midpoint(L.bin_max[i, b], L.bin_min[i, nxt])


@njit(cache=True, error_model="numpy")
def record(L, H, unit, v, b, order, total, sums, left_levels):
    """The split on ``v`` at bucket (or prefix) ``b`` from the histogram:
    ``sums`` gets (ls, lw, nl, rs, rw, nr, ms, mw, nm), the missing side being
    ``total`` (the node's (sum w*z, w)) when no row is missing; categorical
    levels sent left go to ``left_levels`` (sorted). Returns (split point,
    number of levels sent left)."""
    wcol, ccol = _columns(H, unit)
    first = L.offset[v]
    K = L.var_type[v]
    n_max = max(L.width, K + 1)
    cells = np.empty(n_max, dtype=np.int64)
    buf = np.empty(n_max)
    if K == 0:
        miss = first + L.width - 1
        for c in range(b + 1):
            cells[c] = first + c
        ls, lw, nl = _cell_sums(H, cells, b + 1, unit, buf)
        n_right = L.width - 2 - b
        for c in range(n_right):
            cells[c] = first + b + 1 + c
        rs, rw, nr = _cell_sums(H, cells, n_right, unit, buf)
        value = split_point(L, H, v, b)
        n_lev = 0
    else:
        miss = first + K
        left = np.zeros(K, dtype=np.bool_)
        for j in range(b + 1):
            left[order[j]] = True
        n_lev = 0
        for lev in range(K):
            if left[lev]:
                left_levels[n_lev] = lev
                cells[n_lev] = first + lev
                n_lev += 1
        ls, lw, nl = _cell_sums(H, cells, n_lev, unit, buf)
        q = 0
        for lev in range(K):
            if not left[lev]:
                cells[q] = first + lev
                q += 1
        rs, rw, nr = _cell_sums(H, cells, q, unit, buf)
        value = float(b)
    sums[0] = ls
    sums[1] = lw
    sums[2] = int(nl)
    sums[3] = rs
    sums[4] = rw
    sums[5] = int(nr)
    if H[miss, ccol] > 0.0:
        sums[6] = H[miss, 0]
        sums[7] = H[miss, wcol]
        sums[8] = int(H[miss, ccol])
    else:
        sums[6] = total[0]
        sums[7] = total[1]
        sums[8] = 0
    return value, n_lev
