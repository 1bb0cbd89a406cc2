"""The ordered split score on binned data (CatBoost's Ordered mode, paper
section 5 and Algorithm 2; CatBoost's ``UpdateScoreBinKernelOrdered``).

Every training row carries, per fold k (:mod:`.folds`), its working
response from fold k's supporting model as *body* sums (rows before the
fold's tail: w*z, w) or *tail* sums (rows in the tail), besides R's plain
columns (w*z, w, count at the fit's own predictions). A set of rows A (a
leaf) contributes N(A) = sum_k a_k T_k and D(A) = sum_k a_k^2 V_k to the
tree's score N / sqrt(D), with a_k = body w*z / body w (the leaf average of
earlier rows, 0 when it has none) and T_k, V_k the tail's sums of w*z and w:
the leaf averages of earlier rows scored against the later rows' gradients
(the cosine of the paper). The histograms of these columns are mergeable
as the plain search's (:mod:`pygbm.engine.histogram`): a node's largest
child is its parent's histogram minus its siblings'.

:class:`OrderedSearch` gives, per node, every candidate split's change of
N and D (continuous predictors: buckets 0..k left; categoricals: prefixes
of the levels ordered by mean plain working response, as R) and the chosen
split with R's improvement on the plain columns (what relative influence
reads). R's bit-exactness is not a goal here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine import kernels
from ..engine.histogram import CHUNK_ROWS
from ..engine.kernels import HistogramScratch
from ..engine.split import Side, Split, improvement, midpoints

#: plain columns of a row: w*z, w, count; then four per fold
PLAIN_COLUMNS = 3
#: per fold: body w*z, body w, tail w*z, tail w
FOLD_COLUMNS = 4


def score_terms(sums: np.ndarray):
    """N and D of row sets with the column sums ``sums`` (..., C)."""
    f = sums[..., PLAIN_COLUMNS:]
    f = f.reshape(f.shape[:-1] + ((sums.shape[-1] - PLAIN_COLUMNS) // FOLD_COLUMNS,
                                  FOLD_COLUMNS))
    bz, bw, tz, tw = f[..., 0], f[..., 1], f[..., 2], f[..., 3]
    has_body = bw > 0.0
    a = np.where(has_body, bz / np.where(has_body, bw, 1.0), 0.0)
    return (a * tz).sum(axis=-1), (a * a * tw).sum(axis=-1)


def tree_score(n: float, d: float) -> float:
    """The tree's score N / sqrt(D) (0 without any tail weight)."""
    return n / np.sqrt(d) if d > 0.0 else 0.0


@dataclass(frozen=True, eq=False)
class Candidates:
    """The allowed candidate splits of one node: the changes ``dn``, ``dd``
    of the tree's N and D if the node were split so, and what recovers the
    split (``left``, ``missing`` sums, predictor and position of each, the
    categoricals' level orders)."""

    dn: np.ndarray
    dd: np.ndarray
    left: np.ndarray
    missing: np.ndarray
    var: np.ndarray
    pos: np.ndarray
    orders: np.ndarray | None


class OrderedSearch:
    """Ordered split scores on a :class:`pygbm.engine.binned.BinnedTrainingData`
    for one tree: ``fold_cols`` (n, 4 K) per row (see the module), the plain
    working response ``z`` with weights ``w``."""

    def __init__(self, data, fold_cols: np.ndarray, z: np.ndarray, w: np.ndarray,
                 min_obs: int):
        self.data = data
        self.min_obs = int(min_obs)
        cols = np.empty((data.n, PLAIN_COLUMNS + fold_cols.shape[1]))
        cols[:, 0] = w * z
        cols[:, 1] = w
        cols[:, 2] = 1.0
        cols[:, PLAIN_COLUMNS:] = fold_cols
        self.cols = cols
        chunk = min(CHUNK_ROWS, data.n)
        self._scratch = HistogramScratch(
            np.empty((chunk, data.p), dtype=data.codes.dtype),
            np.empty((chunk, cols.shape[1])), data.ones(cols.dtype), data.indptr)
        self._kernel = kernels.active().histogram

    def histogram(self, rows: np.ndarray) -> np.ndarray:
        """(n_cells + 1, C) sums of the columns over ``rows``."""
        return self._kernel(self.data.codes, self.cols, rows, self.data.n_cells,
                            self._scratch)

    def totals(self, rows: np.ndarray) -> np.ndarray:
        return self.cols.take(rows, axis=0).sum(axis=0)

    # ------------------------------------------------------------ candidates
    def candidates(self, hist: np.ndarray, total: np.ndarray) -> Candidates:
        """The node's allowed candidates (``n_minobsinnode`` in-bag rows
        each side, weight on both sides, each partition once)."""
        parts = [p for p in (self._continuous(hist), self._categorical(hist)) if p is not None]
        left = np.concatenate([p[0] for p in parts])
        missing = np.concatenate([p[1] for p in parts])
        var = np.concatenate([p[2] for p in parts])
        pos = np.concatenate([p[3] for p in parts])
        ok = np.concatenate([p[4] for p in parts])
        orders = parts[-1][5] if self.data.cat.size else None
        right = total - left - missing
        ok &= (left[:, 2] >= self.min_obs) & (right[:, 2] >= self.min_obs)
        ok &= (left[:, 1] > 0.0) & (right[:, 1] > 0.0)
        keep = np.flatnonzero(ok)
        left, missing, right = left.take(keep, axis=0), missing.take(keep, axis=0), \
            right.take(keep, axis=0)
        n0, d0 = score_terms(total)
        dn, dd = -n0, -d0
        for side in (left, right, missing):
            n, d = score_terms(side)
            dn, dd = dn + n, dd + d
        return Candidates(dn, dd, left, missing, var.take(keep), pos.take(keep), orders)

    def _continuous(self, hist):
        """Candidates of the continuous predictors at their buckets holding
        rows of the node (each partition once): running sums over those
        buckets only, each predictor's cut at its own start."""
        data = self.data
        pc, width = data.cont.shape[0], data.width
        if pc == 0:
            return None
        flat = hist[: pc * width]
        cell = np.arange(pc * width)
        idx = np.flatnonzero((flat[:, 2] > 0.0) & (cell % width != width - 1))
        pred = idx // width
        running = np.concatenate((np.zeros((1, flat.shape[1])), flat.take(idx, axis=0)))
        running = running.cumsum(axis=0)
        base = running.take(np.searchsorted(pred, pred), axis=0)
        left = running[1:] - base
        missing = flat.take(pred * width + width - 1, axis=0)
        ok = np.ones(idx.shape[0], dtype=bool)
        mono = data.var_monotone[data.cont].take(pred)
        if mono.any():
            last = np.searchsorted(pred, pred, side="right")
            rest = running.take(last, axis=0) - base - left
            ok &= (mono == 0) | (mono * (rest[:, 0] * left[:, 1] - left[:, 0] * rest[:, 1]) > 0.0)
        return left, missing, data.cont.take(pred), idx % width, ok, None

    def _categorical(self, hist):
        data = self.data
        if data.cat.size == 0:
            return None
        cells = hist[data.cat_cells]                   # (nc, K, C)
        counts = cells[..., 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            means = np.where(counts > 0.0, cells[..., 0] / cells[..., 1], np.inf)
        order = np.argsort(means, axis=1, kind="stable")
        left = np.take_along_axis(cells, order[..., None], axis=1).cumsum(axis=1)
        missing = np.broadcast_to(hist[data.cat_missing][:, None, :], left.shape)
        nc, k = order.shape
        ok = np.arange(k) < (counts > 0.0).sum(axis=1, keepdims=True) - 1
        var = np.repeat(data.cat, k)
        pos = np.tile(np.arange(k), nc)
        return (left.reshape(-1, left.shape[-1]), missing.reshape(-1, left.shape[-1]),
                var, pos, ok.reshape(-1), order)

    # ------------------------------------------------------------ the split
    def split(self, hist: np.ndarray, total: np.ndarray, cand: Candidates, c: int) -> Split:
        """Candidate ``c`` of a node as a :class:`Split` (R's improvement on
        the plain columns)."""
        data = self.data
        v, pos = int(cand.var[c]), int(cand.pos[c])
        left, miss = cand.left[c], cand.missing[c]
        right = total - left - miss
        sides = [Side(float(s[0]), float(s[1]), int(s[2])) for s in (left, right)]
        if miss[2] > 0:
            missing, empty = Side(float(miss[0]), float(miss[1]), int(miss[2])), False
        else:
            missing, empty = Side(float(total[0]), float(total[1]), 0), True
        gain = improvement(sides[0].w, sides[1].w, float(miss[1]), sides[0].sum_z,
                           sides[1].sum_z, float(miss[0]))
        if data.var_type[v] > 0:
            i = int(np.searchsorted(data.cat, v))
            levels = np.sort(cand.orders[i, : pos + 1])
            return Split(float(gain), v, float(pos), levels, sides[0], sides[1], missing, empty)
        i = int(np.searchsorted(data.cont, v))
        first = i * data.width
        counts = hist[first + pos + 1: first + data.width - 1, 2]
        nxt = pos + 1 + int(np.argmax(counts > 0.0))
        value = float(midpoints(data.bin_max[i, pos], data.bin_min[i, nxt]))
        return Split(float(gain), v, value, None, sides[0], sides[1], missing, empty)
