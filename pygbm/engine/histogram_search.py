"""The histogram split search (binned data, :mod:`.binned`).

The gains are R gbm's (left, right and missing groups, ``n_minobsinnode`` on
row counts, R's monotone constraint, the first best candidate wins),
computed for every bucket boundary of every predictor from the node's
histogram (:mod:`.histogram`): a candidate ``k`` of a continuous predictor
puts buckets ``0..k`` left; a categorical predictor's levels are ordered by
mean working response and the prefixes of that order are the candidates.
Histograms are counted for the smaller children of a split only; the
largest child's is its parent's minus its siblings'.

Where R's last bits decide (ties between predictors, and every split with
one bucket per value, whose fit must be R's), the search reaches back into
the node's rows for R's arithmetic (:mod:`.row_sums` says exactly when).
With one bucket per value the bucket boundaries whose histogram gain is
within the error bound of the floating sums (:class:`.tolerance.FloatTolerance`)
of the top are scored there, and every admissible position of every
predictor when no gain stands out of that bound (a pure node: R's gains are
rounding noise, which decides).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .._rmath import shell_sort_order
from .histogram import Histogram, HistogramBuilder
from .row_sums import RowSums
from .split import NEAR_TIE, Response, Side, Split, improvement, midpoints
from .tolerance import FloatTolerance, sign_margin

#: relative distance under which two level means count as tied: such levels
#: are re-counted from the rows so that their order is R's (see _categoricals)
MEAN_TIE = 1e-12


@dataclass
class NodeState:
    """What the search keeps per node: its in-bag rows and their histogram."""

    rows: np.ndarray                  # in-bag training rows, increasing
    hist: np.ndarray | None = None    # (n_cells + 1, k) floats: sum w*z, [sum w,] count
    raw: Histogram | None = None      # the histogram as counted (or subtracted)
    counted: bool = True              # hist summed from the rows (not by subtraction)
    # only for ties between predictors (see row_sums.RowSums.total):
    parent: NodeState | None = None
    side: int = 0                     # 0, 1, 2: left, right, missing child of parent
    split: Split | None = None        # this node's split, once chosen
    levels: np.ndarray | None = None  # its level order (categorical split)
    r_total: Side | None = None       # the node's sums in R's arithmetic
    level: int = 0                    # splits between the root and the node


class HistogramSearch:
    """Best splits on bucketed predictors (the search-strategy interface of
    :class:`pygbm.engine.exact.ExactSearch`: ``root``, ``best``, ``children``,
    ``r_arithmetic``, ``adjustment``)."""

    def __init__(self, data, z, w, unit_weights: bool, min_obs: int, adjustment=None):
        self.data = data
        self.adjustment = adjustment
        #: R's arithmetic for the node sums only where the data's fits are R's
        self.r_arithmetic = data.r_arithmetic
        self.unit = bool(unit_weights)
        self.min_obs = int(min_obs)
        response = Response(w * z, w, self.unit)
        self.builder = HistogramBuilder(data, response)
        self.packed = self.builder.packed
        self.row_sums = RowSums(data, response)
        self._response = response
        self._direction = np.empty(data.n, dtype=np.int8)
        #: the error bound of the histogram gains (one bucket per value), set
        #: by :meth:`root` from the tree's bag
        self._tolerance: FloatTolerance | None = None

    # ------------------------------------------------------------------ state
    def root(self, inbag: np.ndarray) -> NodeState:
        rows = np.flatnonzero(inbag)
        if self.data.exact_bins:
            wz, w, unit = self._response
            width = max(int(self.data.width), int(self.data.var_type.max(initial=0)) + 1)
            self._tolerance = FloatTolerance.of_bag(wz[rows], None if unit else w[rows],
                                                    width)
        return NodeState(rows)

    def children(self, state: NodeState, rows: np.ndarray, d: np.ndarray, split: Split):
        """The children's states; histograms are counted for all but the
        largest child, whose histogram is the parent's minus the others'."""
        self._direction[rows] = d
        D = self._direction.take(state.rows)
        kids = [state.rows.compress(D == side) if n_side else state.rows[:0]
                for side, n_side in enumerate((split.left.n, split.right.n, split.missing.n))]
        if state.raw is None:
            state.raw = self.builder.build(state.rows)
        big = int(np.argmax([r.shape[0] for r in kids]))
        state.split = split
        # a split on a column this search does not hold (a feature combination's,
        # found by the exact search: target_stats.combination_search) has its
        # sides in R's arithmetic already: they are the children's R sums
        sides = (split.left, split.right, split.missing) if split.var >= self.data.p \
            else (None, None, None)
        out = [NodeState(r, parent=state, side=i, level=state.level + 1, r_total=sides[i])
               for i, r in enumerate(kids)]
        counted = []
        for i, r in enumerate(kids):
            if i != big and r.shape[0]:
                out[i].raw = self.builder.build(r)
                counted.append(out[i].raw)
        out[big].raw = self.builder.remainder(state.raw, counted)
        out[big].counted = False
        state.raw = state.hist = None
        return tuple(out)

    # ------------------------------------------------------------------ search
    def best(self, state: NodeState, total: Side) -> Split | None:
        """Best split of the node (None when no split has a positive gain;
        with an adjustment, gains are compared less each predictor's penalty)."""
        if state.rows.shape[0] < 2 * max(self.min_obs, 1):   # too few rows for two sides
            return None
        if state.hist is None:
            if state.raw is None:
                state.raw = self.builder.build(state.rows)
            state.hist = state.raw.sums()
        if state.parent is None or self.data.exact_bins:
            state.r_total = total       # the root's sums, or sums of a split made as R
        data = self.data
        best_gain = np.zeros(data.p)
        best_pos = np.zeros(data.p, dtype=np.intp)
        orders = {}
        cont_gain = None
        if data.cont.size:
            g, pos, cont_gain = self._continuous(state.hist, state.level)
            best_gain[data.cont] = g
            best_pos[data.cont] = pos
        if data.cat.size:
            g, pos, order = self._categoricals(state)
            best_gain[data.cat] = g
            best_pos[data.cat] = pos
            orders = {int(v): order[i, :data.var_type[v]] for i, v in enumerate(data.cat)}
        raw_gain, penalty = best_gain, None
        if self.adjustment is not None:
            penalty = np.asarray(self.adjustment.penalties(total, state.rows), dtype=float)
            best_gain = best_gain - penalty
        if data.exact_bins:
            # R's own arithmetic: R's split, its sums R's to the last bit
            return self._r_choice(state, (best_gain, cont_gain), float(raw_gain.max()), orders,
                                  penalty)
        v = int(np.argmax(best_gain))
        if not best_gain[v] > 0.0:
            return None
        tied = (best_gain >= best_gain[v] * (1.0 - NEAR_TIE)).nonzero()[0]
        if tied.shape[0] > 1:
            # R's own arithmetic: ties are broken as R breaks them
            return self._break_tie(state, tied, best_pos, orders, penalty)
        state.levels = orders.get(v)
        if v in orders:
            split = self._record_categorical(state.hist, v, best_pos[v], orders[v], total,
                                             raw_gain[v])
        else:
            split = self._record_continuous(state.hist, v, best_pos[v], total, raw_gain[v])
        if penalty is not None:
            split = dataclasses.replace(split, penalty=float(penalty[v]))
        return split

    def _r_choice(self, state: NodeState, gains, raw_top: float, orders,
                  penalty) -> Split | None:
        """R's split of a node with one bucket per value. ``gains`` = (every
        predictor's best histogram gain, less its penalty; the continuous
        predictors' gains at every bucket): the candidates are the gains
        within the error bound of the floating sums
        (:class:`.tolerance.FloatTolerance`, at the largest raw gain
        ``raw_top``) of the top, scored in R's arithmetic; when no gain
        stands out of the bound (a pure node) every admissible position of
        every predictor is. R's rule picks: the largest gain (less the
        penalty), the first predictor, the first position."""
        best_gain, cont_gain = gains
        top = float(best_gain.max())
        bound = self._tolerance.bound(state.level, raw_top)
        if not top + bound > 0.0:
            return None
        if not top - bound > 0.0:
            return self._r_scan(state, self._scorable(state.hist), orders, penalty)
        threshold = top - bound
        best = self._r_scan(state, (best_gain >= threshold).nonzero()[0], orders, penalty,
                            (cont_gain, threshold))
        if penalty is None and (best is None or not best.score >= threshold):
            # R's check of a monotone constraint, in R's sums, failed the top
            # candidates that the histogram's sums let pass (a left and right mean
            # equal but for rounding, beside a missing group): R then takes the best
            # of the others, which may lie below the bound, so every predictor is
            # scanned as R scans it (not with penalties, as the compiled engine:
            # CEGB is not R's)
            best = self._r_scan(state, self._scorable(state.hist), orders, penalty)
        return best

    def _r_scan(self, state: NodeState, scan, orders, penalty, near=None) -> Split | None:
        """R's best split among the predictors ``scan``, in R's arithmetic: at
        every position, or with ``near`` = (the continuous gains, a threshold)
        at the positions whose histogram gain reaches the threshold (not for a
        constrained predictor, whose constraint R's sums decide). None without
        a positive gain."""
        best = None
        for v in scan:
            v = int(v)
            pen = 0.0 if penalty is None else float(penalty[v])
            levels = orders.get(v)
            positions = None if near is None or levels is not None or \
                self.data.var_monotone[v] else \
                self._candidates(state.hist, v, near[0], near[1] + pen)
            split = self.row_sums.best_of(state, v, levels, self.min_obs, positions)
            if split is None:
                continue
            if penalty is not None:
                split = dataclasses.replace(split, penalty=pen)
            if best is None or split.score > best.score:
                best, state.levels = split, levels
        return best if best is not None and best.score > 0.0 else None

    def _candidates(self, hist, v: int, cont_gain: np.ndarray, threshold: float) -> np.ndarray:
        """The sorted positions (R's scan, missing rows first) of the bucket
        boundaries of continuous ``v`` whose histogram gain reaches
        ``threshold`` (an empty bucket repeats the boundary before it)."""
        i = int(np.searchsorted(self.data.cont, v))
        N = self._block(hist)[2][i]
        buckets = np.flatnonzero(cont_gain[i] >= threshold)
        return np.unique(N[:-1].cumsum()[buckets] + N[-1]).astype(np.intp) - 1

    def _scorable(self, hist) -> np.ndarray:
        """The predictors that have a split R scores in the node of histogram
        ``hist``: n_minobsinnode non-missing rows (at least one) on each
        side of a boundary between two values; categorical, at least two
        levels with rows and twice n_minobsinnode rows (the others cannot
        split the node: no need to scan them)."""
        data = self.data
        mo = max(self.min_obs, 1)
        out = np.zeros(data.p, dtype=bool)
        if data.cont.size:
            ln = self._block(hist)[2][:, :-1].cumsum(axis=1)
            out[data.cont] = ((ln >= mo) & (ln[:, -1:] - ln >= mo)).any(axis=1)
        if data.cat.size:
            gn = hist[data.cat_cells, -1]               # (padded with the empty spare cell)
            out[data.cat] = ((gn > 0.0).sum(axis=1) >= 2) & (gn.sum(axis=1) >= 2 * mo)
        return out.nonzero()[0]

    def _break_tie(self, state: NodeState, tied, best_pos, orders, penalty) -> Split | None:
        """Several predictors within rounding of the best gain (often the same
        partition of the node's rows): as R, keep the first whose gain is
        strictly larger in R's sequential arithmetic, which the exact search
        reproduces on the node's rows sorted by each of these predictors."""
        data = self.data
        best = None
        for v in tied:
            if v in orders:
                pos, levels = best_pos[v], orders[v]
            else:
                i = int(np.searchsorted(data.cont, v))
                N = self._block(state.hist)[2][i]
                pos, levels = int(N[-1] + N[:best_pos[v] + 1].sum()) - 1, None
            split = self.row_sums.record(state, int(v), pos, levels)
            if penalty is not None:
                split = dataclasses.replace(split, penalty=float(penalty[v]))
            if best is None or split.score > best.score:
                best, state.levels = split, levels
        if penalty is not None and not best.score > 0.0:
            return None
        if best.left_levels is None:
            # the bucket rule's split point (R's would be the node's midpoint)
            best = dataclasses.replace(
                best, value=self._split_point(state.hist, best.var, best_pos[best.var]))
        return best

    def _block(self, hist):
        """The continuous block of a histogram as (pc, width) arrays."""
        data = self.data
        size = data.cont.shape[0] * data.width
        shape = (data.cont.shape[0], data.width)
        Z = hist[:size, 0].reshape(shape)
        N = hist[:size, -1].reshape(shape)
        W = N if self.unit else hist[:size, 1].reshape(shape)
        return Z, W, N

    def _continuous(self, hist, level: int = 0):
        """Best gain and bucket of every continuous predictor, and the gain
        of every bucket boundary (predictors, width - 1), in a node ``level``
        splits deep.

        Candidate ``k`` puts buckets ``0..k`` left. Where bucket ``k`` holds no
        row of the node, candidate ``k`` repeats the partition (and the very
        same sums and gain) of the last candidate before it whose bucket has
        rows, and the first maximum wins, so every partition counts once and
        the chosen bucket ``k`` holds rows.
        """
        Z, W, N = self._block(hist)
        ls = Z[:, :-1].cumsum(axis=1)
        ln = N[:, :-1].cumsum(axis=1)
        lw = ln if self.unit else W[:, :-1].cumsum(axis=1)
        rn = ln[:, -1:] - ln
        rw = lw[:, -1:] - lw
        ok = (ln >= self.min_obs) & (rn >= self.min_obs)
        mono = self.data.var_monotone[self.data.cont]
        if not N[:, -1].any() and not mono.any():
            # no missing row in the node: R's two-group gain, written as
            # (L - T lw / W)^2 W / (lw rw) with the node's totals T and W
            # (fewer whole-array passes than the general formula)
            den = lw * rw
            ok &= den > 0.0
            np.copyto(den, 1.0, where=~ok)
            node_w = lw[:, -1:]
            mean = ls[:, -1:] / np.where(node_w > 0.0, node_w, 1.0)   # (no weight: no split)
            d = ls - lw * mean
            np.multiply(d, d, out=d)
            np.multiply(d, node_w, out=d)
            np.divide(d, den, out=d)
            gain = d
        else:
            rs = ls[:, -1:] - ls
            with np.errstate(divide="ignore", invalid="ignore"):
                gain = improvement(lw, rw, W[:, -1:], ls, rs, Z[:, -1:])
            if mono.any():
                # with one bucket per value R's sums decide the constraint: a
                # position whose check is within rounding of 0 stays a candidate
                # (R's scan of the predictor then checks it; unpenalised: see
                # _r_choice)
                room = sign_margin(*self._tolerance[:4], level, lw, rw, ls, rs) \
                    if self.data.exact_bins and self.adjustment is None else 0.0
                ok &= (mono[:, None] == 0) | (mono[:, None] * (rs * lw - ls * rw) > -room)
        ok &= gain > 0.0
        gain = np.where(ok, gain, 0.0)
        pos = np.argmax(gain, axis=1)
        return gain[np.arange(gain.shape[0]), pos], pos, gain

    @staticmethod
    def _means(gs, gw):
        finite = gw != 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(finite, gs / np.where(finite, gw, 1.0), np.inf), finite

    def _categoricals(self, state: NodeState):
        """Best split of every categorical predictor: R orders the levels by
        mean working response and scans the prefixes of that order. Returns
        gains, prefix lengths - 1 and level orders (padded rows)."""
        cells, miss = self.data.cat_cells, self.data.cat_missing
        c = (0, -1, -1) if self.unit else (0, 1, -1)          # w*z, w, count
        gs, gw, gn = (state.hist[cells, j] for j in c)
        ms, mw = (state.hist[miss, j] for j in c[:2])
        means, finite = self._means(gs, gw)
        order = np.argsort(means, axis=1, kind="stable")
        sm = np.take_along_axis(means, order, axis=1)
        with np.errstate(invalid="ignore"):             # inf - inf: empty levels
            close = np.isfinite(sm[:, 1:]) & (sm[:, 1:] - sm[:, :-1]
                                              <= MEAN_TIE * np.abs(sm[:, 1:]))
        for i in np.flatnonzero(close.any(axis=1)):
            # tied means: R's sort decides, on R's numbers
            if not state.counted:
                self.row_sums.recount(state, i)
                for a, j in zip((gs, gw, gn), c):
                    a[i] = state.hist[cells[i], j]
                ms[i], mw[i] = (state.hist[miss[i], j] for j in c[:2])
                means[i], finite[i] = self._means(gs[i], gw[i])
            K = int(self.data.var_type[self.data.cat[i]])
            order[i, :K] = shell_sort_order(means[i, :K])
        n_finite = finite.sum(axis=1)
        s_z = np.take_along_axis(gs, order, axis=1)
        s_n = np.take_along_axis(gn, order, axis=1)
        ls, ln = s_z.cumsum(axis=1), s_n.cumsum(axis=1)
        lw = ln if self.unit else np.cumsum(np.take_along_axis(gw, order, axis=1), axis=1)
        rs, rw, rn = ls[:, -1:] - ls, lw[:, -1:] - lw, ln[:, -1:] - ln
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = improvement(lw, rw, mw[:, None], ls, rs, ms[:, None])
        prefix = np.arange(gs.shape[1]) < (n_finite - 1)[:, None]
        ok = prefix & (ln >= self.min_obs) & (rn >= self.min_obs) & (gain > 0.0)
        gain = np.where(ok, gain, 0.0)
        pos = np.argmax(gain, axis=1)
        return gain[np.arange(gain.shape[0]), pos], pos, order

    # ------------------------------------------------------------------ record
    def _record(self, hist, v: int, left, right, missing: int, total: Side, gain,
                value: float, left_levels) -> Split:
        """The split sending the histogram cells ``left`` / ``right`` /
        ``missing`` to the three children, with the sums of those cells."""
        c = (0, -1, -1) if self.unit else (0, 1, -1)           # w*z, w, count
        if self.unit:                                           # w = count: summed once
            side = [[float(hist[cells, 0].sum()), float(hist[cells, -1].sum())]
                    for cells in (left, right)]
            side = [[sz, sn, sn] for sz, sn in side]
        else:
            side = [[float(hist[cells, j].sum()) for j in c] for cells in (left, right)]
        ms, mw, mn = (hist[missing, j] for j in c)
        if mn > 0:
            miss, empty = Side(float(ms), float(mw), int(mn)), False
        else:
            miss, empty = Side(total.sum_z, total.w, 0), True
        return Split(float(gain), v, float(value), left_levels,
                     Side(side[0][0], side[0][1], int(side[0][2])),
                     Side(side[1][0], side[1][1], int(side[1][2])), miss, empty)

    def _split_point(self, hist, v: int, pos: int) -> float:
        """Between the largest training value of bucket ``pos`` and the smallest
        of the next bucket holding rows of the node."""
        data = self.data
        i = int(np.searchsorted(data.cont, v))
        first = data.offset[v]
        counts = hist[first + pos + 1:first + data.width - 1, -1]
        nxt = pos + 1 + int(np.argmax(counts > 0.0))
        return float(midpoints(data.bin_max[i, pos], data.bin_min[i, nxt]))

    def _record_continuous(self, hist, v: int, pos: int, total: Side, gain) -> Split:
        first, width = self.data.offset[v], self.data.width
        value = self._split_point(hist, v, pos)
        return self._record(hist, v, slice(first, first + pos + 1),
                            slice(first + pos + 1, first + width - 1),
                            first + width - 1, total, gain, value, None)

    def _record_categorical(self, hist, v: int, pos: int, order, total: Side,
                            gain) -> Split:
        K = int(self.data.var_type[v])
        left = np.zeros(K, dtype=bool)
        left[order[: int(pos) + 1]] = True
        first = self.data.offset[v]
        return self._record(hist, v, first + np.flatnonzero(left),
                            first + np.flatnonzero(~left), first + K, total, gain,
                            pos, np.flatnonzero(left))
