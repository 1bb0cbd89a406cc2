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
from typing import TYPE_CHECKING

import numpy as np

from ._checks import (array_arg, as_generator, choice_arg, complete_group_arg, finite_number,
                      missing_mask, numbers_arg, same_rows_arg, unique_labels, vector_arg,
                      weights_arg)
from .draws import is_r_stream
from .messages import warn

if TYPE_CHECKING:                 # annotations only: pandas is imported on first use
    import pandas as pd

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
        same_rows_arg("f", f, y, "y")
        same_rows_arg("group", group, y, "y")
        y = vector_arg("y", y)
        f = vector_arg("f", f)
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
            group = array_arg("group", group)
            if group.ndim != 1 or group.shape[0] != y.shape[0]:
                raise ValueError(f"group must have one value per row ({y.shape[0]}); got "
                                 f"shape {group.shape}")
            complete_group_arg(group)
            self.labels, codes = unique_labels("group", group, return_inverse=True)
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


def _max_rank_arg(max_rank):
    """``max_rank``: None or a whole number >= 0, 0 no cut-off as in the pairwise
    distribution (checked also where R ignores it)."""
    if max_rank is not None and (not finite_number(max_rank) or max_rank != int(max_rank)
                                 or max_rank < 0):
        raise ValueError(f"max_rank must be a whole number >= 0 (0: no cut-off) or None; "
                         f"got {max_rank!r:.80}")
    return max_rank


def _cutoff(max_rank, sizes) -> np.ndarray:
    """Each group's last rank counted: its size, or ``max_rank`` (checked by the
    caller, :func:`_max_rank_arg`) when that is smaller and positive."""
    if max_rank is None or max_rank <= 0:
        return sizes
    return np.minimum(sizes, min(max_rank, sizes.max(initial=0)))


def _binary_undefined(s: _Sorted) -> np.ndarray:
    n_pos = s.count(s.y > 0)
    return (s.runs.size <= 1) | (n_pos == 0) | (n_pos == s.runs.size)


def ir_measure_conc(y, f, max_rank=None, group=None):
    """Fraction of concordant pairs (R's ``ir.measure.conc``).

    Among the pairs of items of a group with different labels, the share
    that the scores rank in label order (the higher label ranked first).

    Parameters
    ----------
    y : array-like of float
        The labels (R: the first column of ``y.f``); any numbers (graded
        relevance).
    f : array-like of float
        The scores ranking the items, largest first (R: the second column of
        ``y.f``); same length as ``y``.
    max_rank : int, optional
        Ignored, as in R (R: ``max.rank``; accepted so that every IR measure
        takes the same arguments).
    group : array-like, optional
        The group (query) of each row; default None: one group. Rows of a
        group need not be contiguous. Not in R (R's function takes one
        group; :func:`perf_pairwise` loops over them).

    Returns
    -------
    float or pandas.Series
        One group: a float. With ``group``: a Series indexed by group label
        (sorted). -1 (R's value) where the measure is undefined.
        -1 when a group has no pair with different labels.

    Notes
    -----
    R takes ``y.f``, a data frame of one group's labels and scores; pygbm
    takes them as two arrays and computes many groups at once. Ties in ``f`` are broken by position, as R's ``order(f, decreasing =
    TRUE)``; R's :func:`perf_pairwise` adds tiny noise first.
    The cost grows with the sum of the squared group sizes.

    Examples
    --------
    >>> pygbm.ir_measure_conc([3, 2, 0, 1], [0.9, 0.1, 0.5, 0.3])
    0.5
    """
    _max_rank_arg(max_rank)
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
    """Area under the ROC curve of each group (R's ``ir.measure.auc``).

    R's ``gbm.roc.area`` per group: the Mann-Whitney statistic from average
    ranks (tied scores share their rank).

    Parameters
    ----------
    y : array-like of float
        The labels (R: the first column of ``y.f``); for this measure only
        ``y > 0`` counts (a positive, relevant item).
    f : array-like of float
        The scores ranking the items, largest first (R: the second column of
        ``y.f``); same length as ``y``.
    max_rank : int, optional
        Ignored, as in R (R: ``max.rank``; accepted so that every IR measure
        takes the same arguments).
    group : array-like, optional
        The group (query) of each row; default None: one group. Rows of a
        group need not be contiguous. Not in R (R's function takes one
        group; :func:`perf_pairwise` loops over them).

    Returns
    -------
    float or pandas.Series
        One group: a float. With ``group``: a Series indexed by group label
        (sorted). -1 (R's value) where the measure is undefined.
        -1 when a group has one item, or no or only positive items.

    Notes
    -----
    R takes ``y.f``, a data frame of one group's labels and scores; pygbm
    takes them as two arrays and computes many groups at once.

    Examples
    --------
    >>> pygbm.ir_measure_auc([1, 0, 0, 1], [0.9, 0.1, 0.5, 0.3])
    0.75
    """
    _max_rank_arg(max_rank)
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
    """Reciprocal rank of the best-ranked positive item (R's ``ir.measure.mrr``).

    Parameters
    ----------
    y : array-like of float
        The labels (R: the first column of ``y.f``); for this measure only
        ``y > 0`` counts (a positive, relevant item).
    f : array-like of float
        The scores ranking the items, largest first (R: the second column of
        ``y.f``); same length as ``y``.
    max_rank : int, optional
        The cut-off rank (R: ``max.rank``, required there): a first
        positive ranked below it scores 0. Default None (or a value <= 0):
        no cut-off.
    group : array-like, optional
        The group (query) of each row; default None: one group. Rows of a
        group need not be contiguous. Not in R (R's function takes one
        group; :func:`perf_pairwise` loops over them).

    Returns
    -------
    float or pandas.Series
        One group: a float. With ``group``: a Series indexed by group label
        (sorted). -1 (R's value) where the measure is undefined.
        1/rank of the first positive item; -1 when a group has one item,
        or no or only positive items.

    Notes
    -----
    R takes ``y.f``, a data frame of one group's labels and scores, and
    requires ``max.rank``; pygbm takes two arrays, computes many groups at
    once, and reads None as no cut-off (as R's :func:`perf_pairwise` does
    with ``max.rank = 0``). Ties in ``f`` are broken by position, as R's ``order(f, decreasing =
    TRUE)``; R's :func:`perf_pairwise` adds tiny noise first.

    Examples
    --------
    >>> pygbm.ir_measure_mrr([0, 1, 0, 1], [0.9, 0.1, 0.5, 0.3])
    0.3333333333333333
    >>> pygbm.ir_measure_mrr([0, 1, 0, 1], [0.9, 0.1, 0.5, 0.3], max_rank=2)
    0.0
    """
    _max_rank_arg(max_rank)
    s = _Sorted(y, f, group)
    big = np.iinfo(np.intp).max
    top = np.full(s.runs.n_groups, big)
    pos = s.y > 0
    np.minimum.at(top, s.runs.gid[pos], s.pos[pos])
    cut = _cutoff(max_rank, s.runs.size)
    out = np.where(top <= cut, 1.0 / np.maximum(top, 1), 0.0)
    return s.per_group(np.where(_binary_undefined(s), UNDEFINED, out))


def ir_measure_map(y, f, max_rank=None, group=None):
    """Average precision (R's ``ir.measure.map``).

    The mean, over the positive items, of the precision at each one's rank:
    (positives ranked at or above it) / (its rank). The mean over groups
    (:func:`perf_pairwise`) is the mean average precision.

    Parameters
    ----------
    y : array-like of float
        The labels (R: the first column of ``y.f``); for this measure only
        ``y > 0`` counts (a positive, relevant item).
    f : array-like of float
        The scores ranking the items, largest first (R: the second column of
        ``y.f``); same length as ``y``.
    max_rank : int, optional
        Ignored, as in R (R: ``max.rank``; accepted so that every IR measure
        takes the same arguments).
    group : array-like, optional
        The group (query) of each row; default None: one group. Rows of a
        group need not be contiguous. Not in R (R's function takes one
        group; :func:`perf_pairwise` loops over them).

    Returns
    -------
    float or pandas.Series
        One group: a float. With ``group``: a Series indexed by group label
        (sorted). -1 (R's value) where the measure is undefined.
        -1 when a group has one item, or no or only positive items.

    Notes
    -----
    R takes ``y.f``, a data frame of one group's labels and scores; pygbm
    takes them as two arrays and computes many groups at once. Ties in ``f`` are broken by position, as R's ``order(f, decreasing =
    TRUE)``; R's :func:`perf_pairwise` adds tiny noise first.

    Examples
    --------
    >>> pygbm.ir_measure_map([1, 0, 0, 1], [0.9, 0.1, 0.5, 0.3])   # (1/1 + 2/3) / 2
    0.8333333333333333
    """
    _max_rank_arg(max_rank)
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
    """Normalised discounted cumulative gain (R's ``ir.measure.ndcg``).

    The sum of the labels of the top ``max_rank`` ranked items weighted by
    1 / log2(rank + 1), divided by the largest value any order could reach.

    Parameters
    ----------
    y : array-like of float
        The labels, used as the gains (graded relevance; R: the first
        column of ``y.f``).
    f : array-like of float
        The scores ranking the items, largest first (R: the second column of
        ``y.f``); same length as ``y``.
    max_rank : int, optional
        Only the top ``max_rank`` ranks count (R: ``max.rank``, required
        there). Default None (or a value <= 0): every rank.
    group : array-like, optional
        The group (query) of each row; default None: one group. Not in R.

    Returns
    -------
    float or pandas.Series
        One group: a float. With ``group``: a Series indexed by group label
        (sorted). -1 (R's value) where the measure is undefined.
        -1 when a group has one item or all its labels are equal.

    Notes
    -----
    As R, the labels are the gains as they are (not ``2^y - 1``, the other
    common definition). R takes ``y.f``, a data frame of one group's labels
    and scores, and requires ``max.rank``; pygbm takes two arrays, computes
    many groups at once, and reads None as no cut-off. Ties in ``f`` are broken by position, as R's ``order(f, decreasing =
    TRUE)``; R's :func:`perf_pairwise` adds tiny noise first.

    Examples
    --------
    >>> y, f = [3, 2, 0, 1], [0.9, 0.1, 0.5, 0.3]
    >>> round(pygbm.ir_measure_ndcg(y, f), 6)
    0.915893
    >>> pygbm.ir_measure_ndcg([2, 0, 1, 1, 0, 0], [0.3, 0.2, 0.1, 0.1, 0.5, 0.2],
    ...                       group=["a", "a", "a", "b", "b", "b"]).round(4)
    group
    a    0.9502
    b    0.5000
    dtype: float64
    """
    _max_rank_arg(max_rank)
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
    """The mean IR measure over the groups (R's ``perf.pairwise``).

    What ``distribution="pairwise"`` optimises and reports: the measure of
    each group (query) where it is defined, averaged over the groups.

    Parameters
    ----------
    y : array-like of float
        The labels (R: ``y``).
    f : array-like of float
        The scores, e.g. ``fit.predict(data)`` (R: ``f``); same length.
    group : array-like
        The group (query) of each row (R: ``group``); same length.
    metric : {"ndcg", "conc", "map", "mrr"}, default "ndcg"
        The measure (R: ``metric``): :func:`ir_measure_ndcg`,
        :func:`ir_measure_conc`, :func:`ir_measure_map`,
        :func:`ir_measure_mrr`.
    w : array-like of float, optional
        Case weights (R: ``w``): the groups' measures are averaged weighted
        by each group's mean weight. Default None: a plain mean.
    max_rank : int, default 0
        Cut-off rank of "ndcg" and "mrr" (R: ``max.rank``); 0 (or less, or
        None): no cut-off.
    random_state : int, numpy.random.Generator or RRandom, optional
        Seeds the tie-breaking noise; a :class:`pygbm.RRandom` draws R's
        ``runif`` (so ``RRandom(s)`` gives R's value after ``set.seed(s)``).
        Not in R (R draws from its global stream).

    Returns
    -------
    float
        The mean measure over the groups where it is defined (R's -1 groups
        left out); NaN when it is defined for no group (R's mean of nothing).

    Notes
    -----
    As R: "conc" with 0/1 labels is computed as the AUC
    (:func:`ir_measure_auc`), and ``f`` gets R's tiny noise
    ``1e-10 * U(-0.5, 0.5)`` to break ties at random, so tied scores can
    give slightly different values from run to run unless
    ``random_state`` is fixed.

    Examples
    --------
    >>> y = [2, 0, 1, 1, 0, 0]
    >>> f = [0.3, 0.2, 0.1, 0.1, 0.5, 0.2]
    >>> g = ["a", "a", "a", "b", "b", "b"]
    >>> round(pygbm.perf_pairwise(y, f, g, metric="ndcg", random_state=0), 4)
    0.7251
    """
    import pandas as pd        # imported on first use: import pygbm stays fast
    choice_arg("metric", metric, sorted(_MEASURES))
    _max_rank_arg(max_rank)
    if group is None:
        raise ValueError("group must give the group (query) of every row: perf_pairwise "
                         "averages a measure over groups (for one group call "
                         "ir_measure_* without group)")
    for name, value in (("f", f), ("group", group), ("w", w)):
        same_rows_arg(name, value, y, "y")
    y = numbers_arg("y", y)
    func = _MEASURES[metric]
    if metric == "conc" and np.all(np.isin(y, (0.0, 1.0))):
        func = ir_measure_auc
    f = numbers_arg("f", f)
    if f.ndim != 1:
        raise ValueError(f"f must be one score per row, got shape {f.shape}")
    rng = as_generator(random_state)
    n = f.shape[0]
    w = None if w is None else weights_arg(w, n, name="w")
    noise = rng.runif(n, -0.5, 0.5) if is_r_stream(rng) else rng.uniform(-0.5, 0.5, size=n)
    f = f + PERF_NOISE * noise
    y, f, w, group = _without_missing_groups(y, f, w, group)
    cut = None if max_rank is None or max_rank <= 0 else max_rank
    by_group = func(y, f, max_rank=cut, group=group)
    ok = by_group.to_numpy() >= 0
    values = by_group.to_numpy()[ok]
    if not ok.any():
        return float("nan")                  # R: the mean of no values, NaN
    if w is None:
        return float(np.mean(values))
    w_group = pd.Series(w).groupby(np.asarray(group)).mean()
    weights = w_group.reindex(by_group.index).to_numpy()[ok]
    if not np.any(weights > 0):
        raise ValueError(f"w must give weight to some group where {metric} is defined; the "
                         f"{int(ok.sum())} such group(s) have mean weight 0")
    return float(np.average(values, weights=weights))


def _without_missing_groups(y, f, w, group):
    """``y``, ``f``, ``w`` and ``group`` without the rows whose group is missing
    (R's ``by(..., INDICES = group)`` leaves them out), with a warning saying how
    many; as given when none is (or the lengths differ: refused later)."""
    group = array_arg("group", group)
    if not group.shape == y.shape == f.shape or group.ndim != 1:
        return y, f, w, group
    missing = missing_mask(group)
    if not missing.any():
        return y, f, w, group
    warn(f"group has {int(missing.sum())} missing value(s); their rows are left out, as R's "
         "perf.pairwise leaves them out")
    keep = ~missing
    return y[keep], f[keep], None if w is None else w[keep], group[keep]
