"""Grouped weighted medians, quantiles and t M-estimates (vectorised).

These are the per-node estimators behind laplace, quantile and tdist.
Every function works on all groups (terminal nodes) at once: rows are sorted
once by ``(group, value)`` with a stable lexsort and the cumulative weights are
read per group.

Definitions (``v`` sorted increasingly inside a group, ``c_j`` the cumulative
weight up to and including ``v_j``, ``W`` the group's total weight):

* **weighted median** (R gbm's ``CLocationM::Median``): ``m`` = the first index
  with ``c_m >= W / 2``; the median is ``v_m``, except when ``c_m == W / 2``
  exactly and a later positive-weight value exists, where it is the average
  of ``v_m`` and the next positive-weight value.  With equal weights this is
  the ordinary median (mean of the two middle values for an even count).
* **weighted quantile** at ``alpha``: ``v_q`` with ``q`` the first index with
  ``c_q > alpha * W`` (strictly), or the largest value when no index qualifies
  (``alpha >= 1``).  With equal weights ``q = floor(n * alpha)``, which is
  exactly R gbm's unweighted rule in quantile.cpp (``nth_element`` at
  ``int(n * alpha)``, the maximum for ``alpha == 1``).  When all weights of a
  group are equal the index is computed from counts, so R's numbers are
  reproduced whatever the common weight.
* the median's sums are done in R's order and precision (total in the rows'
  original order, cumulative weight in sorted order), so weighted ties at
  exactly half the weight are decided as R decides them;
* groups whose weights are all zero are treated as equally weighted; an empty
  group gets ``empty_value``.
"""
from __future__ import annotations

import numpy as np

#: R's 1.4826 consistency factor turning a MAD into a normal-scale estimate
MAD_SCALE = 1.4826
#: R's CLocationM epsilon (scale floor, |t| floor and convergence tolerance)
LOCATIONM_EPS = 1e-8
#: R's CLocationM iteration cap
LOCATIONM_MAX_ITER = 50


def _prepare(values, weights, groups, n_groups, equal_as_counts):
    """Sort rows by (group, value); per-group totals and cumulative weights.

    The arithmetic follows R's CLocationM::Median: the group total is summed
    in the rows' original order, the cumulative weight in sorted order from 0
    within each group (both sequentially), so exact-half ties are decided
    as R decides them.  With ``equal_as_counts`` a group whose weights are
    all equal uses counts instead (R's unweighted quantile rule).
    """
    values = np.asarray(values, dtype=float)
    n = values.shape[0]
    if groups is None:
        groups = np.zeros(n, dtype=np.intp)
        n_groups = 1
    groups = np.asarray(groups, dtype=np.intp)
    weights = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    counts = np.bincount(groups, minlength=n_groups)
    wsum = np.bincount(groups, weights=weights, minlength=n_groups)
    wmax = np.full(n_groups, -np.inf)
    wmin = np.full(n_groups, np.inf)
    if n:
        np.maximum.at(wmax, groups, weights)
        np.minimum.at(wmin, groups, weights)
    as_counts = wmax <= 0                      # all-zero weights: equal weights
    if equal_as_counts:
        as_counts |= wmin == wmax
    if np.any(as_counts & (counts > 0)):
        weights = np.where(as_counts[groups], 1.0, weights)
        wsum = np.where(as_counts, counts.astype(float), wsum)
    order = np.lexsort((values, groups))
    v = values[order]
    ws = weights[order]
    g = groups[order]
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.intp)
    cum = np.empty(n)
    for k in np.flatnonzero(counts):           # loop over groups (nodes)
        seg = slice(starts[k], starts[k] + counts[k])
        cum[seg] = np.cumsum(ws[seg])
    return v, ws, g, counts, wsum, starts, cum


def grouped_weighted_median(values, weights=None, groups=None, n_groups=1,
                            empty_value=0.0):
    """R gbm's weighted median of ``values`` within each group.

    Returns an array of length ``n_groups`` (see the module docstring).
    """
    v, ws, g, counts, wsum, starts, cum = _prepare(values, weights, groups, n_groups,
                                                   equal_as_counts=False)
    out = np.full(n_groups, float(empty_value))
    if v.size == 0:
        return out
    half = 0.5 * wsum
    below = cum < half[g]
    m = starts + np.bincount(g, weights=below, minlength=n_groups).astype(np.intp)
    has = counts > 0
    m = np.where(has, m, 0)
    ends = starts + counts
    m = np.minimum(m, np.maximum(ends - 1, 0))
    # next index with a positive weight, for every position
    idx = np.where(ws > 0, np.arange(v.size), v.size)
    next_pos = np.minimum.accumulate(idx[::-1])[::-1]
    nxt = np.where(m + 1 < v.size, next_pos[np.minimum(m + 1, v.size - 1)], v.size)
    nxt = np.where(nxt < ends, nxt, v.size)
    exact_half = (cum[m] == half) & (nxt < v.size)
    med = np.where(exact_half, 0.5 * (v[m] + v[np.minimum(nxt, v.size - 1)]), v[m])
    out[has] = med[has]
    return out


def grouped_weighted_quantile(values, alpha, weights=None, groups=None,
                              n_groups=1, empty_value=0.0):
    """Weighted ``alpha`` quantile within each group (R's rule for equal weights)."""
    v, ws, g, counts, wsum, starts, cum = _prepare(values, weights, groups, n_groups,
                                                   equal_as_counts=True)
    out = np.full(n_groups, float(empty_value))
    if v.size == 0:
        return out
    thresh = float(alpha) * wsum
    not_above = cum <= thresh[g]
    q = starts + np.bincount(g, weights=not_above, minlength=n_groups).astype(np.intp)
    has = counts > 0
    ends = starts + counts
    q = np.minimum(q, np.maximum(ends - 1, 0))
    out[has] = v[q[has]]
    return out


def grouped_location_m(values, df, weights=None, groups=None, n_groups=1,
                       empty_value=0.0):
    """t-distribution location M-estimate per group (R gbm's ``CLocationM``).

    Start at the weighted median, scale = 1.4826 * weighted median absolute
    deviation (floored at 1e-8), then iteratively reweighted means with
    weights ``w * psi(t) / t``, ``psi(t) = t / (df + t^2)``, ``t = |x - b| / s``
    (floored at 1e-8), until the relative change is below 1e-8 (absolute
    when the change itself is below 1e-8), at most 50 iterations per group.
    """
    values = np.asarray(values, dtype=float)
    n = values.shape[0]
    if groups is None:
        groups = np.zeros(n, dtype=np.intp)
        n_groups = 1
    groups = np.asarray(groups, dtype=np.intp)
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    beta = grouped_weighted_median(values, w, groups, n_groups)
    diff = np.abs(values - beta[groups])
    scale = MAD_SCALE * grouped_weighted_median(diff, w, groups, n_groups)
    scale = np.maximum(scale, LOCATIONM_EPS)
    counts = np.bincount(groups, minlength=n_groups)
    active = counts > 0
    for _ in range(LOCATIONM_MAX_ITER):
        if not np.any(active):
            break
        with np.errstate(over="ignore"):       # t * t beyond the doubles: weight 0, as R
            t = np.abs(values - beta[groups]) / scale[groups]
            t = np.maximum(t, LOCATIONM_EPS)
            wt = w * (t / (df + t * t)) / t
        swx = np.bincount(groups, weights=wt * values, minlength=n_groups)
        sw = np.bincount(groups, weights=wt, minlength=n_groups)
        with np.errstate(divide="ignore", invalid="ignore"):
            new = np.where(sw > 0, swx / np.where(sw > 0, sw, 1.0), beta)
            err = np.abs(new - beta)
            err = np.where(err > LOCATIONM_EPS, err / np.abs(beta), err)
        beta = np.where(active, new, beta)
        active = active & ~(err < LOCATIONM_EPS)
    out = np.where(counts > 0, beta, float(empty_value))
    return out
