"""Binned training data (``max_bins``): every predictor bucketed once per fit.

Every continuous predictor is bucketed by quantiles of its training values
(at most ``max_bins`` buckets; with no more distinct values than that, one
bucket per value, which gives exactly R's splits); missing values get a
bucket of their own; unordered categoricals keep one bucket per level. The
bucket codes of all predictors are offset into one flat index space, so a
node's histograms of sum(w*z), sum(w) and row counts over every bucket of
every predictor come out of one scatter-add pass over its rows
(:mod:`.histogram`), which the histogram search reads (:mod:`.histogram_search`).

A split between two buckets is placed at the midpoint between the largest
training value left of it and the smallest right of it, so ``x < value``
routes raw values (training and new data) exactly as the buckets do.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from .data import level_codes
from .histogram import CHUNK_ROWS
from .histogram_search import HistogramSearch
from .split import midpoints

#: the most buckets (or values) of one predictor: the histogram search's codes are 16-bit
MAX_BUCKETS = 65535


def _bin_ends(counts: np.ndarray, max_bins: int) -> np.ndarray:
    """Last distinct-value index of each bucket (quantile buckets).

    ``counts`` are the frequencies of the sorted distinct values. Bucket
    borders are put where the cumulative count crosses ``k / K`` of the rows,
    and around every value more frequent than ``1 / K`` of them (it gets a
    bucket alone); ``K`` is the largest value (bisection) that still gives
    at most ``max_bins`` buckets: above ``max_bins`` when frequent values
    leave quantile buckets unfilled, below it when their buckets of their
    own would overshoot (``K = max_bins`` gave more than ``max_bins``
    buckets there, up to twice as many, before 2026-11-29).
    """
    n_distinct = counts.shape[0]
    cum = counts.cumsum()
    total = cum[-1]
    by_count = np.argsort(-counts, kind="stable")

    def ends(k):
        e = np.searchsorted(cum, total * np.arange(1, k) / k, side="left")
        big = by_count[: int(np.searchsorted(-counts[by_count], -total / k, side="right"))]
        e = np.unique(np.concatenate((e, big, big - 1)))
        return np.append(e[(e >= 0) & (e < n_distinct - 1)], n_distinct - 1)

    lo, hi = max_bins, n_distinct
    best = ends(lo)
    if best.shape[0] == max_bins:     # no value fills a bucket alone: done
        return best
    if best.shape[0] > max_bins:      # the frequent values' own buckets overshoot
        lo, hi, best = 1, max_bins, ends(1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        e = ends(mid)
        if e.shape[0] <= max_bins:
            lo, best = mid, e
        else:
            hi = mid
    return best


def _continuous_bins(values: np.ndarray, max_bins: int, missing_code: int):
    """Bucket one continuous predictor.

    Returns the split points between buckets, each bucket's smallest and
    largest training value (+inf / -inf if empty), the bucket code of every
    value (``missing_code`` for NaN) and whether each distinct value has a
    bucket of its own.
    """
    ordered = np.sort(values)                   # NaN last
    nf = int(np.searchsorted(np.isnan(ordered), True))   # number of non-missing values
    finite = ordered[:nf]
    missing = np.isnan(values)
    codes = np.full(values.shape[0], missing_code, dtype=np.intp)
    if nf == 0:
        return np.empty(0), np.full(1, np.inf), np.full(1, -np.inf), codes, True
    starts = np.flatnonzero(np.concatenate(([True], finite[1:] != finite[:-1])))
    u = finite[starts]
    one_each = u.shape[0] <= max_bins
    if one_each:
        ends = np.arange(u.shape[0])
    else:
        ends = _bin_ends(np.diff(np.append(starts, nf)), max_bins)
    cuts = midpoints(u[ends[:-1]], u[ends[:-1] + 1])
    # buckets as the routing rule x < cut defines them: a value's bucket is
    # the number of split points at or below it; finite[first:stop] each
    codes[~missing] = np.searchsorted(cuts, values[~missing], side="right")
    bounds = np.searchsorted(finite, cuts, side="left")
    first = np.concatenate(([0], bounds))
    stop = np.append(bounds, nf)
    empty = stop <= first
    bin_min = np.where(empty, np.inf, finite[np.minimum(first, nf - 1)])
    bin_max = np.where(empty, -np.inf, finite[np.maximum(stop - 1, 0)])
    return cuts, bin_min, bin_max, codes, one_each


class SharedBins:
    """The bucketing of continuous predictors that several binned copies of the
    same training rows share: the caller promises that each column in
    ``columns`` holds the same values in every copy (ordered target statistics
    re-encode only their own columns per permutation), so each is bucketed
    once; the others are bucketed for every copy."""

    def __init__(self, columns):
        self.columns = frozenset(int(j) for j in columns)
        self._bins: dict = {}

    def bins(self, j: int, values: np.ndarray, max_bins: int):
        """:func:`_continuous_bins` of column ``j`` (missing code -1)."""
        if j not in self.columns:
            return _continuous_bins(values, max_bins, -1)
        if j not in self._bins:
            self._bins[j] = _continuous_bins(values, max_bins, -1)
        return self._bins[j]


class BinnedTrainingData:
    """Training predictors bucketed once, for the histogram split search.

    Parameters
    ----------
    x : (n_train, p) float array, coded as in docs/ARCHITECTURE.md (NaN = missing)
    var_type : (p,) int, 0 for continuous/ordered, number of levels otherwise
    var_monotone : (p,) int in {-1, 0, 1}
    max_bins : int >= 2, most buckets of a continuous predictor (missing aside)

    Attributes used by the grower: ``n``, ``p``, ``xt`` (raw values, (p, n)),
    ``var_type``, ``var_monotone``, ``has_nan``; :meth:`searcher`.
    ``codes`` is the (n, p) matrix of flat bucket indices; the continuous
    predictors own a (pc, width) block (bucket ``width - 1`` holds missing
    values), each categorical predictor with K levels K + 1 cells after it.
    """

    #: not the presorted rows of R's exact scan (see engine.data.TrainingData)
    presorted: ClassVar[bool] = False


    def __init__(self, x, var_type, var_monotone, max_bins: int,
                 shared: SharedBins | None = None):
        x = np.asarray(x, dtype=float)
        if x.ndim != 2:
            raise ValueError(f"x must be a 2-d array, got {x.ndim} dimension(s)")
        if isinstance(max_bins, bool) or not isinstance(max_bins, (int, np.integer)) \
                or max_bins < 2:
            raise ValueError(f"max_bins must be an integer >= 2, got {max_bins!r}")
        self.max_bins = int(max_bins)
        self.var_type = np.asarray(var_type, dtype=np.intp)
        self.var_monotone = np.asarray(var_monotone, dtype=np.intp)
        if self.var_type.shape != (x.shape[1],) or self.var_monotone.shape != (x.shape[1],):
            raise ValueError(f"var_type and var_monotone need one entry per column of x "
                             f"({x.shape[1]})")
        self.xt = np.ascontiguousarray(x.T)
        self.has_nan = np.isnan(self.xt).any(axis=1)
        self.cont = np.flatnonzero(self.var_type == 0)
        self.cat = np.flatnonzero(self.var_type > 0)
        self._ones = {}          # the sparse kernel's matrix entries, per dtype (see ones)
        self._bin_all(SharedBins(()) if shared is None else shared)

    @property
    def r_arithmetic(self) -> bool:
        """Fits on this layout are R's to the last bit: one bucket per value
        (then the splits are R's; otherwise the buckets decide anyway)."""
        return self.exact_bins

    @property
    def n(self) -> int:
        return self.xt.shape[1]

    @property
    def p(self) -> int:
        return self.xt.shape[0]

    def _bin_all(self, shared: SharedBins):
        n, p = self.n, self.p
        # bucket codes first, offsets once the widest predictor is known
        idx = np.int32 if n * p + 1 < np.iinfo(np.int32).max else np.int64
        codes = np.empty((n, p), dtype=idx)
        self.cuts, lows, highs, one_each = [], [], [], []
        for j in self.cont:
            cuts, lo, hi, codes[:, j], each = shared.bins(j, self.xt[j], self.max_bins)
            self.cuts.append(cuts)
            lows.append(lo)
            highs.append(hi)
            one_each.append(each)
        #: one bucket per distinct value everywhere: the splits are R's exact ones
        self.exact_bins = all(one_each)
        self.width = max([c.shape[0] + 1 for c in self.cuts], default=1) + 1  # + missing
        pc, width = self.cont.shape[0], self.width
        # smallest / largest training value per bucket, padded (pc, width - 1)
        self.bin_min = np.full((pc, width - 1), np.inf)
        self.bin_max = np.full((pc, width - 1), -np.inf)
        for i in range(pc):
            self.bin_min[i, :lows[i].shape[0]] = lows[i]
            self.bin_max[i, :highs[i].shape[0]] = highs[i]
        levels = self.var_type[self.cat] + 1
        self.offset = np.zeros(p, dtype=np.intp)      # first cell of each predictor
        self.offset[self.cont] = np.arange(pc) * width
        self.offset[self.cat] = pc * width + levels.cumsum() - levels
        self.n_cells = int(pc * width + levels.sum())
        if self.n_cells >= np.iinfo(codes.dtype).max:
            codes = codes.astype(np.int64)
        #: dtype of one predictor's bucket codes (16 bits: radix sorts)
        self.local_dtype = np.uint16 if max(width, levels.max(initial=0)) <= 1 << 16 \
            else np.int32
        for j in self.cont:
            c = codes[:, j]
            c[c < 0] = width - 1
            c += self.offset[j]
        if self.cat.size:                  # missing values: the cell after the levels
            K = self.var_type[self.cat]
            cat_codes = level_codes(self.xt[self.cat], K, self.cat, K)
            codes[:, self.cat] = (cat_codes + self.offset[self.cat][:, None]).T
        self.codes = codes
        # categorical level cells, padded with the spare (always empty) cell
        k_max = int(levels.max(initial=1)) - 1
        lev = np.arange(k_max)
        self.cat_cells = np.where(lev < self.var_type[self.cat][:, None],
                                  self.offset[self.cat][:, None] + lev, self.n_cells)
        self.cat_missing = self.offset[self.cat] + self.var_type[self.cat]
        #: the sparse kernel's column pointers for a chunk of rows
        self.indptr = np.arange(0, (CHUNK_ROWS + 1) * p, p, dtype=codes.dtype)

    def local_codes(self, rows: np.ndarray, v: int) -> np.ndarray:
        """Bucket codes of predictor ``v`` for ``rows`` (missing = last bucket)."""
        return (self.codes[rows, v] - self.offset[v]).astype(self.local_dtype)

    def ones(self, dtype) -> np.ndarray:
        """The sparse histogram kernel's matrix entries (all 1) for a chunk
        of rows, of the data type summed (made once per type)."""
        dtype = np.dtype(dtype)
        if dtype not in self._ones:
            self._ones[dtype] = np.ones(CHUNK_ROWS * self.p, dtype=dtype)
        return self._ones[dtype]

    def searcher(self, z, w, unit_weights: bool, min_obs: int, adjustment=None):
        """The histogram split search for one tree on this data;
        ``adjustment``: an optional split-gain adjustment (:mod:`.adjustment`)."""
        return HistogramSearch(self, z, w, unit_weights, min_obs, adjustment)
