"""Ranking: R gbm's IR measures and the data preparation of ``pairwise``.

IR measures (R's ``ir.measure.*`` and ``perf.pairwise``, names snake_cased)
work on any scores: one group (``group=None``, a float) or many groups at
once (a pandas Series indexed by group label), vectorised over groups. A
group where the measure is undefined gets R's ``-1``. Ties in the scores are
broken as R's ``order(f, decreasing = TRUE)`` does: by original position.

``max_rank``: R's ``ir.measure.mrr`` and ``ir.measure.ndcg`` require it;
here ``None`` or a value <= 0 means "no cut-off" (R's ``perf.pairwise``
replaces such values by ``length(y) + 1``).

The rows of a pairwise fit are prepared in :mod:`pygbm.pairwise_rows`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


#: R's tie-breaking noise in perf.pairwise: f + NOISE * runif(-0.5, 0.5)
PERF_NOISE = 1e-10
#: R's value for a group where a measure is undefined
UNDEFINED = -1.0
#: IR measures of ``distribution = "pairwise"``
METRICS = ("conc", "ndcg", "map", "mrr")


# ------------------------------------------------------------------ group runs
@dataclass
class Runs:
    """Contiguous groups of a row vector: group of each row, first row, size."""

    gid: np.ndarray
    start: np.ndarray
    size: np.ndarray

    @property
    def n_groups(self) -> int:
        return int(self.start.shape[0])


def group_runs(codes) -> Runs:
    """The runs of equal consecutive values of ``codes`` (rows of one group
    must be contiguous)."""
    codes = np.asarray(codes)
    n = codes.shape[0]
    if n == 0:
        empty = np.zeros(0, dtype=np.intp)
        return Runs(empty, empty, empty)
    start = np.concatenate([[0], np.flatnonzero(codes[1:] != codes[:-1]) + 1])
    size = np.diff(np.append(start, n))
    return Runs(np.repeat(np.arange(start.shape[0]), size), start, size)


def pairs_within(runs: Runs):
    """All ordered pairs ``(a, b)`` of rows of the same group (a != b or not:
    every (a, b) with both in one group, a == b included). Size sum(size^2)."""
    n = runs.gid.shape[0]
    rep = runs.size[runs.gid]
    a = np.repeat(np.arange(n), rep)
    first = np.cumsum(rep) - rep
    b = runs.start[runs.gid[a]] + (np.arange(a.shape[0]) - np.repeat(first, rep))
    return a, b


def ranks_within(scores, runs: Runs) -> tuple[np.ndarray, np.ndarray]:
    """1-based rank of every row in its group by decreasing score (ties by
    position) and the rows in (group, rank) order."""
    order = np.lexsort((-np.asarray(scores, dtype=float), runs.gid))
    rank = np.empty(order.shape[0], dtype=np.intp)
    rank[order] = np.arange(order.shape[0]) - runs.start[runs.gid[order]] + 1
    return rank, order


# ------------------------------------------------------------------ IR measures (R level)
class _Sorted:
    """Rows sorted by group, then decreasing score (ties: original position)."""

    def __init__(self, y, f, group):
        y = np.asarray(y, dtype=float).ravel()
        f = np.asarray(f, dtype=float).ravel()
        if y.shape != f.shape:
            raise ValueError(f"y and f must have the same length; got {y.shape[0]} and "
                             f"{f.shape[0]}")
        if y.shape[0] == 0:
            raise ValueError("y and f must not be empty")
        if np.isnan(y).any() or np.isnan(f).any():
            raise ValueError("y and f must not contain missing values (NaN)")
        if group is None:
            self.labels, codes = None, np.zeros(y.shape[0], dtype=np.intp)
        else:
            group = np.asarray(group)
            if group.shape[0] != y.shape[0]:
                raise ValueError(f"group must have one value per row ({y.shape[0]}); got "
                                 f"{group.shape[0]}")
            self.labels, codes = np.unique(group, return_inverse=True)
            codes = codes.ravel()
        order = np.lexsort((-f, codes))
        self.y, self.f, self.codes = y[order], f[order], codes[order]
        self.runs = group_runs(self.codes)
        # 1-based position of each sorted row inside its group
        self.pos = np.arange(y.shape[0]) - self.runs.start[self.runs.gid] + 1

    def per_group(self, values) -> float | pd.Series:
        import pandas as pd        # imported on first use: import pygbm stays fast
        values = np.asarray(values, dtype=float)
        if self.labels is None:
            return float(values[0])
        return pd.Series(values, index=pd.Index(self.labels, name="group"))

    def count(self, mask) -> np.ndarray:
        return np.bincount(self.runs.gid, weights=mask.astype(float),
                           minlength=self.runs.n_groups)

    def sum(self, values) -> np.ndarray:
        return np.bincount(self.runs.gid, weights=values, minlength=self.runs.n_groups)


def _cutoff(max_rank, sizes) -> np.ndarray:
    if max_rank is None:
        return sizes
    if isinstance(max_rank, bool) or not np.isscalar(max_rank) or max_rank != int(max_rank):
        raise ValueError(f"max_rank must be a whole number or None; got {max_rank!r}")
    return sizes if max_rank <= 0 else np.minimum(sizes, int(max_rank))


def _binary_undefined(s: _Sorted) -> np.ndarray:
    n_pos = s.count(s.y > 0)
    return (s.runs.size <= 1) | (n_pos == 0) | (n_pos == s.runs.size)


def ir_measure_conc(y, f, max_rank=None, group=None):
    """Fraction of concordant pairs (R's ``ir.measure.conc``): among pairs of
    items with different labels, the share ranked in label order by
    decreasing ``f``. -1 when there is no such pair. ``max_rank`` is ignored
    (as in R). Cost grows with the sum of squared group sizes."""
    s = _Sorted(y, f, group)
    a, b = pairs_within(s.runs)
    later = b > a
    a, b = a[later], b[later]
    good = np.bincount(s.runs.gid[a], weights=(s.y[b] < s.y[a]).astype(float),
                       minlength=s.runs.n_groups)
    differ = np.bincount(s.runs.gid[a], weights=(s.y[b] != s.y[a]).astype(float),
                         minlength=s.runs.n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(differ == 0, UNDEFINED, good / np.where(differ == 0, 1, differ))
    return s.per_group(out)


def ir_measure_auc(y, f, max_rank=None, group=None):
    """Area under the ROC curve per group (R's ``ir.measure.auc``, which is
    ``gbm.roc.area``: average ranks for tied scores). -1 when a group has
    one item, or no or only positive items."""
    s = _Sorted(y, f, group)
    # average rank of every score inside its group (ascending scores)
    asc = np.lexsort((s.f, s.codes))
    f_asc, gid_asc = s.f[asc], s.runs.gid[asc]
    new_tie = np.ones(asc.shape[0], dtype=bool)
    new_tie[1:] = (f_asc[1:] != f_asc[:-1]) | (gid_asc[1:] != gid_asc[:-1])
    tie_id = np.cumsum(new_tie) - 1
    pos_asc = np.arange(asc.shape[0]) - s.runs.start[gid_asc] + 1
    mean_pos = np.bincount(tie_id, weights=pos_asc) / np.bincount(tie_id)
    avg_rank = np.empty(asc.shape[0])
    avg_rank[asc] = mean_pos[tie_id]
    pos = s.y > 0
    n1 = s.sum(s.y)
    n_pos = s.count(pos)
    undefined = _binary_undefined(s)
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = (s.sum(np.where(pos, avg_rank, 0.0)) / n_pos - (n1 + 1) / 2) / (s.runs.size - n1)
    auc = np.where(n1 == s.runs.size, 1.0, auc)
    return s.per_group(np.where(undefined, UNDEFINED, auc))


def ir_measure_mrr(y, f, max_rank=None, group=None):
    """Reciprocal rank of the best-ranked positive item (R's
    ``ir.measure.mrr``); 0 when it is ranked below ``max_rank``; -1 when a
    group has one item, or no or only positive items."""
    s = _Sorted(y, f, group)
    big = np.iinfo(np.intp).max
    top = np.full(s.runs.n_groups, big)
    pos = s.y > 0
    np.minimum.at(top, s.runs.gid[pos], s.pos[pos])
    cut = _cutoff(max_rank, s.runs.size)
    out = np.where(top <= cut, 1.0 / np.maximum(top, 1), 0.0)
    return s.per_group(np.where(_binary_undefined(s), UNDEFINED, out))


def ir_measure_map(y, f, max_rank=None, group=None):
    """Average precision (R's ``ir.measure.map``): the mean over positive
    items of (positives ranked at or above it) / (its rank). -1 when a group
    has one item, or no or only positive items. ``max_rank`` is ignored."""
    s = _Sorted(y, f, group)
    pos = s.y > 0
    n_before = np.cumsum(pos) - np.repeat(np.cumsum(pos)[s.runs.start] - pos[s.runs.start],
                                          s.runs.size)
    terms = np.where(pos, n_before / s.pos, 0.0)
    n_pos = s.count(pos)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = s.sum(terms) / n_pos
    return s.per_group(np.where(_binary_undefined(s), UNDEFINED, out))


def ir_measure_ndcg(y, f, max_rank=None, group=None):
    """Normalised discounted cumulative gain (R's ``ir.measure.ndcg``): the
    sum of labels over the top ``max_rank`` ranks weighted by
    1/log2(rank + 1), divided by its largest possible value. Labels are used
    as gains as they are (no 2^y - 1). -1 when a group has one item or all
    labels equal."""
    s = _Sorted(y, f, group)
    cut = _cutoff(max_rank, s.runs.size)
    inside = s.pos <= cut[s.runs.gid]
    disc = 1.0 / np.log2(s.pos + 1.0)
    dcg = s.sum(np.where(inside, s.y * disc, 0.0))
    ideal_y = s.y[np.lexsort((-s.y, s.codes))]
    ideal = s.sum(np.where(inside, ideal_y * disc, 0.0))
    all_equal = (np.minimum.reduceat(s.y, s.runs.start)
                 == np.maximum.reduceat(s.y, s.runs.start))
    with np.errstate(invalid="ignore", divide="ignore"):
        out = dcg / ideal
    return s.per_group(np.where((s.runs.size <= 1) | all_equal, UNDEFINED, out))


_MEASURES = {"conc": ir_measure_conc, "mrr": ir_measure_mrr, "map": ir_measure_map,
             "ndcg": ir_measure_ndcg}


def perf_pairwise(y, f, group, metric="ndcg", w=None, max_rank=0, random_state=None):
    """R's ``perf.pairwise``: the mean IR measure over the groups where it is
    defined, weighted by the groups' mean case weight when ``w`` is given.

    As R, "conc" with 0/1 labels is the AUC, and ``f`` gets R's tiny noise
    ``1e-10 * U(-0.5, 0.5)`` (``random_state`` seeds it) to break ties.
    """
    import pandas as pd        # imported on first use: import pygbm stays fast
    if metric not in _MEASURES:
        raise ValueError(f"metric must be one of {sorted(_MEASURES)}; got {metric!r}")
    y = np.asarray(y, dtype=float)
    func = _MEASURES[metric]
    if metric == "conc" and np.all(np.isin(y, (0.0, 1.0))):
        func = ir_measure_auc
    f = np.asarray(f, dtype=float)
    rng = np.random.default_rng(random_state)
    f = f + PERF_NOISE * rng.uniform(-0.5, 0.5, size=f.shape[0])
    cut = None if max_rank is None or max_rank <= 0 else max_rank
    by_group = func(y, f, max_rank=cut, group=group)
    ok = by_group.to_numpy() >= 0
    values = by_group.to_numpy()[ok]
    if w is None:
        return float(np.mean(values))
    w_group = pd.Series(np.asarray(w, dtype=float)).groupby(np.asarray(group)).mean()
    return float(np.average(values, weights=w_group.reindex(by_group.index).to_numpy()[ok]))
