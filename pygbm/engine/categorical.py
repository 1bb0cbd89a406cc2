"""R's split search over the categorical predictors of a node (exact mode).

R orders a predictor's levels by their mean working response and evaluates
every prefix of that order as the left child. It adds every row to its
level's sums in the predictor's sorted order, i.e. level by level and within
a level in row order; a weighted count (``np.bincount``, sequential per
cell) over the node's rows in row order gives the very same sums, for all
categorical predictors in one pass (``TrainingData.category_cells``), so
the gains here are R's to the last bit and need no re-evaluation.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._rmath import sequential_minus, shell_sort_order
from .split import Response, Side, Split, improvement


class CategoricalBest(NamedTuple):
    """R's search over every categorical predictor of a node, kept for the
    chosen one: per predictor (rows) and prefix of its level order (columns)."""

    gain: np.ndarray        # (nc,) best gain per predictor (0: none)
    pos: np.ndarray         # (nc,) its prefix length - 1
    order: np.ndarray       # (nc, K) level orders (padded with empty levels)
    ls: np.ndarray          # left sums (w*z, w, rows) per prefix
    lw: np.ndarray
    ln: np.ndarray
    rs: np.ndarray          # right sums per prefix, R's running subtraction
    rw: np.ndarray
    ms: np.ndarray          # missing group per predictor: sum w*z, w, rows
    mw: np.ndarray
    mn: np.ndarray


class CategoricalSearch:
    """The categorical predictors of one tree's nodes (``data``: a
    :class:`.data.TrainingData`)."""

    def __init__(self, data, response: Response, min_obs: int):
        self.data = data
        self.cat = data.cat
        self.wz, self.w, self.unit = response
        self.min_obs = int(min_obs)
        self._cat_index = np.arange(data.cat.size)[:, None]   # rows of (nc, levels) arrays

    def best(self, R: np.ndarray, total: Side) -> CategoricalBest:
        """Every categorical predictor's best split of the node whose in-bag
        rows are ``R`` (in row order) and whose sums are ``total``.

        Levels are ordered by mean working response (R's Shell sort where
        means tie), and every prefix but the last of the non-empty levels is
        a candidate: left sums accumulated level by level, right sums the
        node's total (less the missing rows, one at a time) less each level
        in turn, as R computes them.
        """
        data = self.data
        nc, width = self.cat.size, data.cell_width
        cells = data.category_cells.take(R, axis=1).ravel()
        size = nc * width
        g = self.wz.take(R)
        h = None if self.unit else self.w.take(R)
        each = np.empty((nc, R.size))               # a row's value for each predictor
        # sums of w*z, w and rows per cell: (3, nc, width), missing cells last
        sums = np.empty((3, size))
        each[:] = g
        sums[0] = np.bincount(cells, each.ravel(), minlength=size)
        sums[2] = np.bincount(cells, minlength=size)
        if h is None:
            sums[1] = sums[2]
        else:
            each[:] = h
            sums[1] = np.bincount(cells, each.ravel(), minlength=size)
        sums = sums.reshape(3, nc, width)
        ms, mw, mn = sums[0, :, -1], sums[1, :, -1], sums[2, :, -1].astype(np.intp)
        gs, gw = sums[0, :, :-1], sums[1, :, :-1]
        finite = gw != 0.0
        means = np.full(gs.shape, np.inf)
        np.divide(gs, gw, out=means, where=finite)
        order = np.argsort(means, axis=1, kind="stable")
        at = (self._cat_index, order)               # each predictor's levels in order
        sm = means[at]
        tied = (sm[:, 1:] == sm[:, :-1]) & np.isfinite(sm[:, 1:])
        for i in np.flatnonzero(tied.any(axis=1)).tolist():
            K = int(data.var_type[self.cat[i]])
            order[i, :K] = shell_sort_order(means[i, :K])
        levels = sums[:, :, :-1][(slice(None),) + at]
        ls, lw, ln = levels.cumsum(axis=2)
        # the right side: the node's total less the missing rows (one at a
        # time, in row order), then less each level in turn
        right = np.empty((2, nc, width))
        right[0, :, 0], right[1, :, 0] = total.sum_z, total.w
        for i in np.flatnonzero(mn).tolist():
            missing = cells[i * R.size:(i + 1) * R.size] == (i + 1) * width - 1
            right[0, i, 0] = sequential_minus(total.sum_z, g[missing])
            right[1, i, 0] = (total.w - mn[i] if h is None
                              else sequential_minus(total.w, h[missing]))
        np.negative(levels[:2], out=right[:, :, 1:])
        rs, rw = right.cumsum(axis=2)[:, :, 1:]
        rn = (total.n - mn)[:, None] - ln
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = improvement(lw, rw, mw[:, None], ls, rs, ms[:, None])
        prefix = np.arange(width - 1) < (finite.sum(axis=1) - 1)[:, None]
        ok = prefix & (ln >= self.min_obs) & (rn >= self.min_obs) & (gain > 0.0)
        gain = np.where(ok, gain, 0.0)
        pos = np.argmax(gain, axis=1)
        return CategoricalBest(gain[np.arange(nc), pos], pos, order, ls, lw, ln, rs, rw,
                               ms, mw, mn)

    def record(self, cats: CategoricalBest, v: int, total: Side) -> Split:
        """The chosen split of categorical predictor ``v`` from the node's search."""
        i = int(np.searchsorted(self.cat, v))
        k = int(cats.pos[i])
        ls, lw, n_left = float(cats.ls[i, k]), float(cats.lw[i, k]), int(cats.ln[i, k])
        rs, rw = float(cats.rs[i, k]), float(cats.rw[i, k])
        nm, ms, mw = int(cats.mn[i]), float(cats.ms[i]), float(cats.mw[i])
        missing = Side(ms, mw, nm) if nm else Side(total.sum_z, total.w, 0)
        gain = improvement(lw, rw, mw, ls, rs, ms)
        return Split(float(gain), int(v), float(k), np.sort(cats.order[i, :k + 1]),
                     Side(ls, lw, n_left), Side(rs, rw, int(total.n - nm - n_left)),
                     missing, nm == 0)
