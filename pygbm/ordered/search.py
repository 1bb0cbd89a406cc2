"""The ordered split score on binned data (CatBoost's Ordered mode, paper
section 5 and Algorithm 2; CatBoost's ``UpdateScoreBinKernelOrdered``):
the NumPy reference, which :mod:`.compiled` reproduces bit for bit.

A set of rows A (a leaf) contributes N(A) = sum_k a_k T_k and D(A) =
sum_k a_k^2 V_k to the tree's score N / sqrt(D), with a_k = body w*z /
body w (the leaf average of the rows before fold k's tail, 0 when it has
none) and T_k, V_k the tail's sums of w*z and w: the leaf averages of
earlier rows scored against the later rows' gradients (the cosine of the
paper). With Newton splits the columns are w*z and w*h (h the Hessian):
a_k is the leaf's Newton step and D weighs it by the tail's w*h
(CatBoost's NewtonCosine). The sums are exact integers (:mod:`.columns`); they become floats
once per side, and every float below is computed in one fixed order
(folds in turn, then left, right and missing), so that the compiled search
gives the same numbers.

:class:`OrderedSearch` gives, per node, every allowed candidate split's
change of N and D (continuous predictors: buckets 0..b left, at every
bucket holding rows of the node; categoricals: prefixes of the levels
ordered by mean plain working response, as R) and the chosen split with
R's improvement on the plain columns (what relative influence reads). R's
bit-exactness is not a goal here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine import kernels
from ..engine.histogram import CHUNK_ROWS
from ..engine.kernels import HistogramScratch
from ..engine.split import Side, Split, improvement, midpoints
from .columns import FoldColumns, Layout, plain_columns


@dataclass(frozen=True, eq=False)
class Units:
    """The float value of one integer unit of the plain w*z and w
    (``plain``, 2) and of each fold's entries (``folds``, (K, width))."""

    plain: np.ndarray
    folds: np.ndarray


def plain_sums(sums: np.ndarray, layout: Layout, units: Units):
    """w*z, w (floats) and the row count (int) of integer sums (..., C)."""
    if layout.plain == 1:
        h = sums[..., 0]
        count = h & ((1 << layout.count_bits) - 1)
        return ((h >> layout.count_bits).astype(np.float64) * units.plain[0],
                count.astype(np.float64), count)
    return (sums[..., 0].astype(np.float64) * units.plain[0],
            sums[..., 1].astype(np.float64) * units.plain[1], sums[..., 2])


def _entries(sums: np.ndarray, cols: np.ndarray, layout: Layout, unit: np.ndarray):
    """w*z and w (floats, (..., K)) of the entries starting at ``cols``."""
    if layout.width == 1:
        block = sums[..., cols]
        return ((block >> layout.count_bits).astype(np.float64) * unit[:, 0],
                (block & ((1 << layout.count_bits) - 1)).astype(np.float64))
    return (sums[..., cols].astype(np.float64) * unit[:, 0],
            sums[..., cols + 1].astype(np.float64) * unit[:, 1])


def score_terms(sums: np.ndarray, layout: Layout, units: Units):
    """N and D of row sets with the integer sums ``sums`` (..., C): the
    folds added in turn from 0 (the compiled search adds them so)."""
    folds = np.arange(layout.n_folds)
    tz, tw = _entries(sums, layout.tail_column(folds), layout, units.folds)
    bz, bw = _entries(sums, layout.body_column(folds), layout, units.folds)
    n = np.zeros(sums.shape[:-1])
    d = np.zeros(sums.shape[:-1])
    for k in range(layout.n_folds):
        has = bw[..., k] > 0.0
        a = np.where(has, bz[..., k] / np.where(has, bw[..., k], 1.0), 0.0)
        n = n + a * tz[..., k]
        d = d + a * a * tw[..., k]
    return n, d


def tree_score(n: float, d: float) -> float:
    """The tree's score N / sqrt(D) (0 without any tail weight)."""
    return n / np.sqrt(d) if d > 0.0 else 0.0


@dataclass(frozen=True, eq=False)
class Candidates:
    """The allowed candidate splits of one node, in the search's order
    (continuous predictors, buckets ascending; then categoricals, prefixes
    ascending): the changes ``dn``, ``dd`` of the tree's N and D if the node
    were split so, and what recovers the split (integer ``left`` and
    ``missing`` sums, predictor and position, the categoricals' level orders)."""

    dn: np.ndarray
    dd: np.ndarray
    left: np.ndarray
    missing: np.ndarray
    var: np.ndarray
    pos: np.ndarray
    orders: np.ndarray | None


class OrderedSearch:
    """Ordered split scores on a :class:`pygbm.engine.binned.BinnedTrainingData`
    for one tree: the permutation's :class:`~.columns.FoldColumns`, the
    plain working response ``z`` with weights ``w`` of the in-bag rows."""

    def __init__(self, data, folds: FoldColumns, z: np.ndarray, w: np.ndarray,
                 inbag: np.ndarray, unit_weights: bool, min_obs: int):
        self.data = data
        self.min_obs = int(min_obs)
        plain, plain_unit = plain_columns(w * z, w, inbag, unit_weights, folds.count_bits)
        layout = Layout(plain.shape[1], folds.width, folds.n_folds, folds.count_bits)
        self.layout, self.units = layout, Units(plain_unit, folds.unit)
        self.cols = dense_columns(plain, folds, layout)
        chunk = min(CHUNK_ROWS, data.n)
        self._scratch = HistogramScratch(
            np.empty((chunk, data.p), dtype=data.codes.dtype),
            np.empty((chunk, layout.n_columns), dtype=np.int64), data.ones(np.int64),
            data.indptr)
        self._kernel = kernels.active().histogram

    def histogram(self, rows: np.ndarray) -> np.ndarray:
        """(n_cells + 1, C) int64 sums of the columns over ``rows``."""
        return self._kernel(self.data.codes, self.cols, rows, self.data.n_cells,
                            self._scratch)

    def node_total(self, hist: np.ndarray) -> np.ndarray:
        """The node's sums: its histogram over the first predictor's cells."""
        data = self.data
        first = int(data.offset[0])
        n_cells = data.width if data.var_type[0] == 0 else int(data.var_type[0]) + 1
        return hist[first:first + n_cells].sum(axis=0)

    def plain(self, sums: np.ndarray):
        return plain_sums(sums, self.layout, self.units)

    def terms(self, sums: np.ndarray):
        return score_terms(sums, self.layout, self.units)

    # ------------------------------------------------------------ candidates
    def candidates(self, hist: np.ndarray, total: np.ndarray) -> Candidates:
        """The node's allowed candidates (``n_minobsinnode`` in-bag rows
        each side, weight on both sides, monotone constraints)."""
        parts = [p for p in (self._continuous(hist), self._categorical(hist)) if p is not None]
        left = np.concatenate([p[0] for p in parts])
        missing = np.concatenate([p[1] for p in parts])
        var = np.concatenate([p[2] for p in parts])
        pos = np.concatenate([p[3] for p in parts])
        orders = parts[-1][4] if self.data.cat.size else None
        right = total - left - missing
        lz, lw, ln = self.plain(left)
        rz, rw, rn = self.plain(right)
        ok = (ln >= self.min_obs) & (rn >= self.min_obs) & (lw > 0.0) & (rw > 0.0)
        # R's monotone constraints concern the continuous predictors only
        mono = np.where(self.data.var_type.take(var) > 0, 0, self.data.var_monotone.take(var))
        ok &= (mono == 0) | (mono * (rz * lw - lz * rw) > 0.0)
        keep = np.flatnonzero(ok)
        left, missing, right = left.take(keep, axis=0), missing.take(keep, axis=0), \
            right.take(keep, axis=0)
        n0, d0 = self.terms(total)
        dn, dd = -n0, -d0
        for side in (left, right, missing):
            n, d = self.terms(side)
            dn, dd = dn + n, dd + d
        return Candidates(dn, dd, left, missing, var.take(keep), pos.take(keep), orders)

    def _continuous(self, hist):
        """Every bucket holding rows of the node: the buckets up to it go left."""
        data = self.data
        pc, width = data.cont.shape[0], data.width
        if pc == 0:
            return None
        cells = hist[: pc * width].reshape(pc, width, -1)
        running = np.cumsum(cells[:, : width - 1], axis=1)
        count = self.plain(cells[:, : width - 1])[2]
        pred, bucket = np.nonzero(count > 0)
        return (running[pred, bucket], cells[pred, width - 1], data.cont.take(pred), bucket)

    def _categorical(self, hist):
        """Prefixes of the levels ordered by mean plain working response
        (levels without rows last), all but the last holding rows."""
        data = self.data
        if data.cat.size == 0:
            return None
        cells = hist[data.cat_cells]                   # (nc, K, C)
        z, w, count = self.plain(cells)
        with np.errstate(divide="ignore", invalid="ignore"):
            means = np.where(count > 0, z / w, np.inf)
        order = np.argsort(means, axis=1, kind="stable")
        left = np.take_along_axis(cells, order[..., None], axis=1).cumsum(axis=1)
        k = order.shape[1]
        cat, pos = np.nonzero(np.arange(k) < (count > 0).sum(axis=1, keepdims=True) - 1)
        return left[cat, pos], hist[data.cat_missing.take(cat)], data.cat.take(cat), pos, order

    # ------------------------------------------------------------ the split
    def split(self, hist: np.ndarray, total: np.ndarray, cand: Candidates, c: int) -> Split:
        """Candidate ``c`` of a node as a :class:`Split` (R's improvement on
        the plain columns)."""
        data = self.data
        v, pos = int(cand.var[c]), int(cand.pos[c])
        left, miss = cand.left[c], cand.missing[c]
        right = total - left - miss
        (lz, rz, mz, tz), (lw, rw, mw, tw), (ln, rn, mn, _) = self.plain(
            np.stack([left, right, miss, total]))
        sides = [Side(float(lz), float(lw), int(ln)), Side(float(rz), float(rw), int(rn))]
        if mn > 0:
            missing, empty = Side(float(mz), float(mw), int(mn)), False
        else:
            missing, empty = Side(float(tz), float(tw), 0), True
        gain = improvement(float(lw), float(rw), float(mw), float(lz), float(rz), float(mz))
        if data.var_type[v] > 0:
            i = int(np.searchsorted(data.cat, v))
            levels = np.sort(cand.orders[i, : pos + 1])
            return Split(float(gain), v, float(pos), levels, sides[0], sides[1], missing, empty)
        i = int(np.searchsorted(data.cont, v))
        first = i * data.width
        counts = self.plain(hist[first + pos + 1: first + data.width - 1])[2]
        nxt = pos + 1 + int(np.argmax(counts > 0))
        value = float(midpoints(data.bin_max[i, pos], data.bin_min[i, nxt]))
        return Split(float(gain), v, value, None, sides[0], sides[1], missing, empty)


def dense_columns(plain: np.ndarray, folds: FoldColumns, layout: Layout) -> np.ndarray:
    """(n, C) int64: every row's plain columns, its tail entry and its body
    entries where the layout keeps them, zeros elsewhere."""
    n, g = plain.shape[0], layout.width
    cols = np.zeros((n, layout.n_columns), dtype=np.int64)
    cols[:, : layout.plain] = plain
    j = folds.tail_fold
    rows = np.flatnonzero(j >= 0)
    for c in range(g):
        cols[rows, layout.tail_column(j[rows]) + c] = folds.values[rows, g * j[rows] + c]
        for k in range(layout.n_folds):
            cols[:, layout.body_column(k) + c] = np.where(k > j, folds.values[:, g * k + c], 0)
    return cols
