"""R's arithmetic on a binned node's rows, compiled (engine.row_sums's numbers).

Where the histogram search needs R's last bits (ties between predictors,
every split with one bucket per value, categorical means that tie), it
reaches back into the node's rows as :class:`pygbm.engine.row_sums.RowSums`
does: the rows sorted by the split predictor (missing values first, ties in
row order), left sums accumulated one row at a time, right sums the node's
total less one row at a time. ``rows`` are a node's in-bag rows in
increasing order; ``resp`` is (w*z, w) of the training rows.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .arith import midpoint, split_gain


@njit(cache=True, error_model="numpy")
def recount(L, H, i, rows, resp, unit):
    """Categorical ``i``'s cells of ``H`` (levels and missing) summed again
    from the rows, in row order."""
    wz, w = resp
    v = L.cat[i]
    first = L.offset[v]
    last = H.shape[1] - 1
    for c in range(first, first + L.var_type[v] + 1):
        H[c, :] = 0.0
    for k in range(rows.shape[0]):
        r = rows[k]
        c = first + L.local[v, r]
        H[c, 0] += wz[r]
        if not unit:
            H[c, 1] += w[r]
        H[c, last] += 1.0


@njit(cache=True, error_model="numpy")
def sorted_rows(L, rows, v):
    """The rows sorted as R scans them for a continuous ``v``: missing values
    first, then by bucket (one bucket per value) or by value, ties in row
    order. Returns them and the number missing."""
    m = rows.shape[0]
    out = np.empty(m, dtype=np.int64)
    nm = 0
    for k in range(m):
        if np.isnan(L.xt[v, rows[k]]):
            out[nm] = rows[k]
            nm += 1
    rest = np.empty(m - nm, dtype=np.int64)
    q = 0
    for k in range(m):
        if not np.isnan(L.xt[v, rows[k]]):
            rest[q] = rows[k]
            q += 1
    if L.exact_bins:                          # a counting sort of the buckets
        start = np.zeros(L.width + 1, dtype=np.int64)
        for k in range(rest.shape[0]):
            start[L.local[v, rest[k]] + 1] += 1
        for b in range(L.width):
            start[b + 1] += start[b]
        for k in range(rest.shape[0]):
            b = L.local[v, rest[k]]
            out[nm + start[b]] = rest[k]
            start[b] += 1
    else:
        x = np.empty(rest.shape[0])
        for k in range(rest.shape[0]):
            x[k] = L.xt[v, rest[k]]
        order = np.argsort(x, kind="mergesort")
        for k in range(rest.shape[0]):
            out[nm + k] = rest[order[k]]
    return out, nm


@njit(cache=True, error_model="numpy")
def _continuous(L, rows, v, pos, total, resp, unit, sums):
    """R's sums of the split of ``rows`` on continuous ``v`` whose left side
    ends at sorted position ``pos`` (missing rows counted); returns its
    gain and split point (R's midpoint)."""
    wz, w = resp
    tot_z, tot_w, tot_n = total
    srt, nm = sorted_rows(L, rows, v)
    ms = 0.0
    mw = 0.0
    for k in range(nm):
        ms += wz[srt[k]]
        mw += w[srt[k]]
    if unit:
        mw = float(nm)
    ls = 0.0
    lw = 0.0
    for k in range(nm, pos + 1):
        ls += wz[srt[k]]
        lw += w[srt[k]]
    n_left = pos + 1 - nm
    if unit:
        lw = float(n_left)
    rs = tot_z
    rw = tot_w
    for k in range(pos + 1):
        rs -= wz[srt[k]]
        rw -= w[srt[k]]
    if unit:
        rw = tot_w - (pos + 1)
    sums[0] = ls
    sums[1] = lw
    sums[2] = n_left
    sums[3] = rs
    sums[4] = rw
    sums[5] = tot_n - nm - n_left
    missing_side(sums, ms, mw, nm, total)
    return (split_gain(lw, rw, mw, ls, rs, ms),
            midpoint(L.xt[v, srt[pos]], L.xt[v, srt[pos + 1]]))


@njit(cache=True, error_model="numpy")
def missing_side(sums, ms, mw, nm, total):
    """The missing side's sums; the node's total when no row is missing."""
    if nm:
        sums[6] = ms
        sums[7] = mw
        sums[8] = nm
    else:
        sums[6] = total[0]
        sums[7] = total[1]
        sums[8] = 0


@njit(cache=True, error_model="numpy")
def level_sums(L, rows, v, total, resp, unit):
    """R's sums of categorical ``v`` over the node ``rows`` (in row order):
    per level w*z, w and count (``gs``, ``gw``, ``gn``), the missing rows'
    (``ms``, ``mw``, ``nm``) and the node's total less the missing rows
    (``start_z``, ``start_w``: where R's right sums start); with unit weights
    the weight sums are the counts. Returns (gs, gw, gn, (ms, mw, nm),
    (start_z, start_w))."""
    wz, w = resp
    tot_z, tot_w, _ = total
    K = L.var_type[v]
    gs = np.zeros(K)
    gw = np.zeros(K)
    gn = np.zeros(K, dtype=np.int64)
    ms = 0.0
    mw = 0.0
    nm = 0
    start_z = tot_z
    start_w = tot_w
    for k in range(rows.shape[0]):
        r = rows[k]
        xv = L.xt[v, r]
        if np.isnan(xv):
            ms += wz[r]
            mw += w[r]
            start_z -= wz[r]
            start_w -= w[r]
            nm += 1
        else:
            lev = int(xv)
            gs[lev] += wz[r]
            gw[lev] += w[r]
            gn[lev] += 1
    if unit:
        mw = float(nm)
        start_w = tot_w - nm
        for lev in range(K):
            gw[lev] = float(gn[lev])
    return gs, gw, gn, (ms, mw, nm), (start_z, start_w)


@njit(cache=True, error_model="numpy")
def _categorical(L, rows, v, levels, n_sel, total, resp, unit, sums):
    """R's sums of the split of ``rows`` on categorical ``v`` sending its
    levels ``levels[:n_sel]`` (in the search's order) left; returns its gain."""
    tot_n = total[2]
    gs, gw, gn, (ms, mw, nm), (start_z, start_w) = level_sums(L, rows, v, total, resp, unit)
    ls = 0.0
    lw = 0.0
    n_left = 0
    rs = start_z
    rw = start_w
    for j in range(n_sel):
        lev = levels[j]
        ls += gs[lev]
        lw += gw[lev]
        n_left += gn[lev]
        rs -= gs[lev]
        rw -= gw[lev]
    sums[0] = ls
    sums[1] = lw
    sums[2] = n_left
    sums[3] = rs
    sums[4] = rw
    sums[5] = tot_n - nm - n_left
    missing_side(sums, ms, mw, nm, total)
    return split_gain(lw, rw, mw, ls, rs, ms)


@njit(cache=True, error_model="numpy")
def row_record(L, rows, v, pos, levels, total, resp, unit, sums):
    """The split of the node ``rows`` on ``v`` in R's arithmetic (continuous:
    left up to sorted position ``pos``; categorical: the first ``pos + 1`` of
    ``levels`` left) from the node's R sums ``total`` = (w*z, w, count):
    ``sums`` gets its sides; returns (gain, split point)."""
    if L.var_type[v] == 0:
        return _continuous(L, rows, v, pos, total, resp, unit, sums)
    return _categorical(L, rows, v, levels, pos + 1, total, resp, unit, sums), float(pos)
