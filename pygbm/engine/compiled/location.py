"""The per-node location estimators of laplace, quantile and tdist, compiled
(:mod:`pygbm.distributions._weighted`'s grouped weighted median, weighted
quantile and t M-estimate), with the same arithmetic: each group's total
weight added in row order, its values sorted stably (ties in row order),
cumulative weights added in sorted order, R's tie rule at exactly half the
weight, the M-estimate's reweighted sums in row order.

The rows come with their group (terminal node); each function returns one
value per group, ``empty_value`` for a group without rows.
"""
from __future__ import annotations

import numpy as np
from numba import njit

# the constants of pygbm.distributions._weighted, which these kernels share
from ...distributions._weighted import LOCATIONM_EPS, LOCATIONM_MAX_ITER, MAD_SCALE


@njit(cache=True, error_model="numpy")
def _sorted_groups(values, weights, groups, n_groups, equal_as_counts):
    """Rows sorted by (group, value), stable: their values, weights, the
    groups' starts and counts, totals (row order) and cumulative weights
    (sorted order); a group whose weights are all zero (or, with
    ``equal_as_counts``, all equal) counts rows instead of weights."""
    n = values.shape[0]
    counts = np.zeros(n_groups, dtype=np.int64)
    wsum = np.zeros(n_groups)
    wmax = np.full(n_groups, -np.inf)
    wmin = np.full(n_groups, np.inf)
    for i in range(n):
        g = groups[i]
        counts[g] += 1
        wsum[g] += weights[i]
        wmax[g] = max(wmax[g], weights[i])
        wmin[g] = min(wmin[g], weights[i])
    as_counts = np.zeros(n_groups, dtype=np.bool_)
    for g in range(n_groups):
        as_counts[g] = wmax[g] <= 0 or (equal_as_counts and wmin[g] == wmax[g])
        if as_counts[g] and counts[g] > 0:
            wsum[g] = float(counts[g])
    starts = np.zeros(n_groups, dtype=np.int64)
    for g in range(1, n_groups):
        starts[g] = starts[g - 1] + counts[g - 1]
    fill = starts.copy()
    rows = np.empty(n, dtype=np.int64)
    for i in range(n):                  # each group's rows in row order
        rows[fill[groups[i]]] = i
        fill[groups[i]] += 1
    v = np.empty(n)
    ws = np.empty(n)
    cum = np.empty(n)
    for g in range(n_groups):
        lo = starts[g]
        hi = lo + counts[g]
        if hi == lo:
            continue
        members = rows[lo:hi]
        order = np.argsort(values[members], kind="mergesort")
        acc = 0.0
        for j in range(hi - lo):
            i = members[order[j]]
            v[lo + j] = values[i]
            ws[lo + j] = 1.0 if as_counts[g] else weights[i]
            acc += ws[lo + j]
            cum[lo + j] = acc
    return v, ws, starts, counts, wsum, cum


@njit(cache=True, error_model="numpy")
def grouped_median(values, weights, groups, n_groups, empty_value):
    """R gbm's weighted median per group (_weighted.grouped_weighted_median)."""
    v, ws, starts, counts, wsum, cum = _sorted_groups(values, weights, groups, n_groups,
                                                      False)
    n = v.shape[0]
    out = np.full(n_groups, empty_value)
    for g in range(n_groups):
        if counts[g] == 0:
            continue
        lo = starts[g]
        hi = lo + counts[g]
        half = 0.5 * wsum[g]
        below = 0
        for j in range(lo, hi):
            if cum[j] < half:
                below += 1
        m = min(lo + below, hi - 1)
        nxt = n
        for j in range(m + 1, hi):      # the next value with a positive weight
            if ws[j] > 0:
                nxt = j
                break
        if cum[m] == half and nxt < n:
            out[g] = 0.5 * (v[m] + v[nxt])
        else:
            out[g] = v[m]
    return out


@njit(cache=True, error_model="numpy")
def grouped_quantile(values, alpha, weights, groups, n_groups, empty_value):
    """The weighted ``alpha`` quantile per group (_weighted.grouped_weighted_quantile)."""
    v, ws, starts, counts, wsum, cum = _sorted_groups(values, weights, groups, n_groups,
                                                      True)
    out = np.full(n_groups, empty_value)
    for g in range(n_groups):
        if counts[g] == 0:
            continue
        lo = starts[g]
        hi = lo + counts[g]
        thresh = alpha * wsum[g]
        not_above = 0
        for j in range(lo, hi):
            if cum[j] <= thresh:
                not_above += 1
        out[g] = v[min(lo + not_above, hi - 1)]
    return out


@njit(cache=True, error_model="numpy")
def grouped_location_m(values, df, weights, groups, n_groups, empty_value):
    """The t location M-estimate per group (_weighted.grouped_location_m)."""
    n = values.shape[0]
    beta = grouped_median(values, weights, groups, n_groups, 0.0)
    diff = np.empty(n)
    for i in range(n):
        diff[i] = abs(values[i] - beta[groups[i]])
    scale = grouped_median(diff, weights, groups, n_groups, 0.0)
    counts = np.zeros(n_groups, dtype=np.int64)
    for i in range(n):
        counts[groups[i]] += 1
    active = np.empty(n_groups, dtype=np.bool_)
    for g in range(n_groups):
        s = MAD_SCALE * scale[g]
        scale[g] = s if (s >= LOCATIONM_EPS or s != s) else LOCATIONM_EPS
        active[g] = counts[g] > 0
    swx = np.empty(n_groups)
    sw = np.empty(n_groups)
    for _ in range(LOCATIONM_MAX_ITER):
        if not active.any():
            break
        swx[:] = 0.0
        sw[:] = 0.0
        for i in range(n):
            g = groups[i]
            t = abs(values[i] - beta[g]) / scale[g]
            if not (t >= LOCATIONM_EPS or t != t):
                t = LOCATIONM_EPS
            wt = weights[i] * (t / (df + t * t)) / t
            swx[g] += wt * values[i]
            sw[g] += wt
        for g in range(n_groups):
            new = swx[g] / sw[g] if sw[g] > 0 else beta[g]
            err = abs(new - beta[g])
            if err > LOCATIONM_EPS:
                err = err / abs(beta[g])
            if active[g]:
                beta[g] = new
            active[g] = active[g] and not (err < LOCATIONM_EPS)
    out = np.empty(n_groups)
    for g in range(n_groups):
        out[g] = beta[g] if counts[g] > 0 else empty_value
    return out
