"""The target statistics as functions of level codes (module docstring of
:mod:`pygbm.target_stats` for the definitions)."""
from __future__ import annotations

import numpy as np

#: a level's running weight below this share of the total weight is the cumsums'
#: rounding (a difference of two running sums), not weight: taken as 0
CUMSUM_ROUNDING = 1e-12


def column_level_codes(column: np.ndarray, n_levels: int) -> np.ndarray:
    """Integer level codes of a coded categorical column.

    Codes 0..K-1 are kept, a missing value (NaN) becomes level ``K`` (its own
    level), anything else (a level never seen in training, coded outside
    0..K-1) becomes -1.
    """
    col = np.asarray(column, dtype=float)
    miss = np.isnan(col)
    filled = np.where(miss, -1.0, col)
    ok = (filled >= 0) & (filled < n_levels) & (filled == np.floor(filled))
    codes = np.where(ok, filled, -1).astype(np.intp)
    codes[miss] = n_levels
    return codes


def level_sums(codes, y, w, n_codes: int):
    """Per-level sums of ``w*y`` and of ``w`` (codes must be in 0..n_codes-1)."""
    s = np.bincount(codes, weights=w * y, minlength=n_codes)
    n = np.bincount(codes, weights=w, minlength=n_codes)
    return s, n


def greedy_statistic(codes, y, w, prior: float, prior_weight: float) -> np.ndarray:
    """Greedy TS: every row's level statistic over all rows, itself included."""
    k = int(codes.max()) + 1 if codes.size else 0
    s, n = level_sums(codes, y, w, k)
    return (s[codes] + prior_weight * prior) / (n[codes] + prior_weight)


def loo_statistic(codes, y, w, prior: float, prior_weight: float) -> np.ndarray:
    """Leave-one-out TS: the level statistic over all rows but the row itself."""
    k = int(codes.max()) + 1 if codes.size else 0
    s, n = level_sums(codes, y, w, k)
    return (s[codes] - w * y + prior_weight * prior) / (n[codes] - w + prior_weight)


def holdout_statistic(codes, y, w, half: np.ndarray, prior: float,
                      prior_weight: float) -> np.ndarray:
    """Holdout TS: a row of half 0 (``half`` False) gets the statistic of its
    level over half 1, and the other way round."""
    k = int(codes.max()) + 1 if codes.size else 0
    half = np.asarray(half, dtype=bool)
    s1, n1 = level_sums(codes[half], y[half], w[half], k)
    s0, n0 = level_sums(codes[~half], y[~half], w[~half], k)
    s = np.where(half, s0[codes], s1[codes])
    n = np.where(half, n0[codes], n1[codes])
    return (s + prior_weight * prior) / (n + prior_weight)


def ordered_statistic(codes, y, w, order, prior: float, prior_weight: float) -> np.ndarray:
    """Ordered TS under a permutation: ``order[t]`` is the row at "time" t;
    a row's statistic uses the rows of its level that come before it.

    Rows are grouped by level, each group in permutation order; exclusive
    running sums within the groups give the history of every row at once.
    """
    codes = np.asarray(codes)
    order = np.asarray(order)
    n = codes.shape[0]
    out = np.empty(n)
    if n == 0:
        return out
    c = codes[order]
    idx = np.argsort(c, kind="stable")
    rows = order[idx]
    cs = c[idx]
    wy = (w * y)[rows]
    ww = np.asarray(w, dtype=float)[rows]
    # exclusive running sums: a row's own term never enters its history, not even
    # by the rounding of a cumsum less the row (which left its y in the last bits)
    before_y = np.concatenate(([0.0], np.cumsum(wy)[:-1]))
    before_w = np.concatenate(([0.0], np.cumsum(ww)[:-1]))
    start = np.flatnonzero(np.concatenate(([True], cs[1:] != cs[:-1])))
    length = np.diff(np.append(start, n))
    hist_y = before_y - np.repeat(before_y[start], length)
    hist_w = before_w - np.repeat(before_w[start], length)
    hist_w[np.abs(hist_w) < CUMSUM_ROUNDING * max(1.0, float(ww.sum()))] = 0.0
    out[rows] = (hist_y + prior_weight * prior) / (hist_w + prior_weight)
    return out
