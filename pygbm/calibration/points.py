"""The calibration map's pieces: equal-count bins, Langford's control points
(weighted mean prediction, weighted mean response per bin) and the knots the
calibrated prediction interpolates between, with the check of ``bins`` that
:mod:`.fitting` and :mod:`.report` share."""
from __future__ import annotations

import numpy as np

from .._checks import bool_arg, numbers_arg, per_row_arg, same_rows_arg

#: default number of equal-count bins (at l = 0.01 the calibration sample is
#: small: 50 bins were measured worse than 20)
DEFAULT_BINS = 20
ENDS = ("flat", "langford")


def equal_count_bins(p: np.ndarray, bins: int) -> list[np.ndarray]:
    """Row indices of at most ``bins`` groups by increasing ``p``, of as equal a size as
    ranges of ``p`` allow: Langford's bins are ranges of the prediction, so rows with
    the same ``p`` share a bin, whatever their order in the data (a tree ensemble's
    predictions tie often). Each cut of the equal-size split that falls inside a run
    of tied values moves to the nearer end of the run (to its start on a draw); cuts
    that meet are one, so tied data can give fewer bins."""
    p, bins = _values_arg("p", p), bins_arg(bins)
    order = np.argsort(p, kind="stable")
    s = p[order]
    n = s.shape[0]
    sizes = [g.size for g in np.array_split(np.arange(n), min(int(bins), n))]
    cuts = np.cumsum(sizes)[:-1]
    new_run = np.concatenate(([True], s[1:] != s[:-1]))      # a run of ties starts here
    starts = np.flatnonzero(new_run)
    run_start = starts[np.searchsorted(starts, cuts, side="right") - 1]
    run_end = np.append(starts, n)[np.searchsorted(starts, cuts, side="right")]
    moved = np.where(cuts - run_start <= run_end - cuts, run_start, run_end)
    edges = np.unique(np.concatenate(([0], moved, [n])))
    return [order[a:b] for a, b in zip(edges[:-1], edges[1:]) if b > a]


def _values_arg(name: str, values) -> np.ndarray:
    """``values``: a non-empty 1-d array of numbers, or a ValueError naming ``name``."""
    values = numbers_arg(name, values)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d array of numbers, got shape "
                         f"{values.shape}")
    return values


def bins_arg(bins) -> int:
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins must be a whole number >= 1, got {bins!r}")
    return int(bins)


def _pava(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Pool adjacent violators: the weighted non-decreasing fit to ``values``."""
    blocks = []                                 # [mean, weight, count]
    for v, w in zip(values, weights):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, c2 = blocks.pop()
            v1, w1, c1 = blocks.pop()
            wt = w1 + w2
            blocks.append([(v1 * w1 + v2 * w2) / wt if wt > 0 else (v1 + v2) / 2, wt, c1 + c2])
    return np.concatenate([np.full(c, v) for v, _, c in blocks])


def control_points(phi, y, w, bins: int, monotone: bool = False):
    """Per equal-count bin of ``phi`` (weighted by ``w``): the mean prediction
    (within the bin's predictions), the mean response (pooled adjacent
    violators if ``monotone``), the total weight and the number of rows."""
    same_rows_arg("y", y, phi, "phi")
    same_rows_arg("w", w, phi, "phi")
    phi = _values_arg("phi", phi)
    y, w = per_row_arg("y", y, phi.size, "phi"), per_row_arg("w", w, phi.size, "phi")
    monotone = bool_arg(monotone, "monotone")
    groups = [g for g in equal_count_bins(phi, bins) if np.sum(w[g]) > 0]
    cw = np.array([np.sum(w[g]) for g in groups])
    # a bin's mean prediction lies within its rows' predictions (rounding of the
    # weighted mean can put it just outside: a bin of tied rows one ulp above them,
    # and Langford's end point at the same prediction then took those rows)
    cx = np.array([min(max(np.sum(w[g] * phi[g]) / c, phi[g].min()), phi[g].max())
                   for g, c in zip(groups, cw)])
    cy = np.array([np.sum(w[g] * y[g]) for g in groups]) / cw
    if monotone:
        cy = _pava(cy, cw)
    return cx, cy, cw, np.array([g.size for g in groups])


def knots(cx, cy, cw, phi, y, ends: str, probability: bool):
    """The interpolation's strictly increasing knots: control points with
    equal means pooled, and with ``ends="langford"`` the post's end points
    outside them ((0, 0) and (1, 1) for a ``probability``, else the sample's
    (min phi, min y) and (max phi, max y))."""
    ux = np.unique(cx)
    if ux.size < cx.size:
        idx = np.searchsorted(ux, cx)
        tot = np.bincount(idx, weights=cw)
        cy = np.bincount(idx, weights=cw * cy) / tot
        cx = ux
    if ends == "langford":
        if probability:
            lo, hi = (0.0, 0.0), (1.0, 1.0)
        else:
            lo, hi = (float(phi.min()), float(y.min())), (float(phi.max()), float(y.max()))
        if lo[0] < cx[0]:
            cx, cy = np.r_[lo[0], cx], np.r_[lo[1], cy]
        if hi[0] > cx[-1]:
            cx, cy = np.r_[cx, hi[0]], np.r_[cy, hi[1]]
    return np.asarray(cx, dtype=float), np.asarray(cy, dtype=float)
