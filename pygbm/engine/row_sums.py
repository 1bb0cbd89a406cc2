"""R's arithmetic on a binned node's rows: what histograms cannot give.

R chooses between equally good splits, and computes a child's sums, by
adding the node's rows one at a time in the order of the split predictor
(missing values first, ties in row order) and taking them from the node's
totals one at a time. Bucket sums (histograms) add the same numbers in
another order, so their last bits can differ. The histogram search
(:mod:`.histogram_search`) therefore reaches back into the rows here, and
only here:

* a tie between predictors (gains within :data:`.split.NEAR_TIE`): the
  candidate splits re-evaluated on the rows (:meth:`RowSums.record`);
* every split with one bucket per value (``exact_bins``, where the fit must
  be R's): the bucket boundaries whose histogram gain may be R's best (within
  :class:`.tolerance.FloatTolerance` of the top; every admissible position of
  every predictor when no gain stands out of the rounding: a pure node, whose
  R gains are rounding noise) are scored in R's arithmetic
  (:meth:`RowSums.best_of`);
* the node sums those re-evaluations start from, which R gets by the same
  running subtractions down the tree (:meth:`RowSums.total`);
* categorical levels whose means tie: R's Shell sort orders them on R's
  sums, so a histogram made by subtraction has those levels counted again
  from the rows (:meth:`RowSums.recount`).

Everything else (every gain, every other split) comes from the histograms.
"""
from __future__ import annotations

import numpy as np

from .._rmath import running_minus, sequential_minus, sequential_sum
from .split import Response, Side, Split, improvement, midpoints
from .tolerance import r_gains, r_sums
from .tolerance import record as r_record


class RowSums:
    """R's sums of one tree's nodes from their rows (``data``: a
    :class:`.binned.BinnedTrainingData`)."""

    def __init__(self, data, response: Response):
        self.data = data
        self.wz, self.w, self.unit = response

    def _sorted(self, state, v: int):
        """The node's rows as R scans them for ``v``: its values, w*z and w
        (None: unit weights) sorted (missing values first, ties in row
        order), and the number missing."""
        data, rows = self.data, state.rows
        x = data.xt[v, rows]
        nm = int(np.count_nonzero(np.isnan(x)))
        if data.var_type[v] > 0 or data.exact_bins:
            # one bucket per value: a stable sort of the (16-bit) bucket codes
            # orders the rows as R does, missing values last
            order = np.argsort(data.local_codes(rows, v), kind="stable")
        else:
            order = np.argsort(x, kind="stable")
        if nm:                                                  # NaN first, as R
            order = np.concatenate((order[order.size - nm:], order[:order.size - nm]))
        at = rows.take(order)
        return x.take(order), self.wz.take(at), None if self.unit else self.w.take(at), nm

    def best_of(self, state, v: int, levels, min_obs: int,
                positions: np.ndarray | None = None) -> Split | None:
        """R's best split of ``state`` on ``v`` (categorical: the prefixes of
        the level order ``levels``): the admissible positions (continuous:
        the sorted ``positions`` if given, all admissible ones otherwise)
        scored in R's arithmetic, the first of the largest gain kept (None:
        no positive gain)."""
        if levels is not None:
            gain = self._level_gains(state, v, levels, min_obs)
            j = int(np.argmax(gain)) if gain.size else 0
            return self.record(state, v, j, levels) if gain.size and gain[j] > 0.0 else None
        srt = self._sorted(state, v)
        x, g, h, nm = srt
        k = positions
        if k is None:
            m = x.size
            k = np.flatnonzero(x[nm + 1:] != x[nm:-1]) + nm   # between distinct values
            k = k[(k + 1 - nm >= min_obs) & (m - 1 - k >= min_obs)]
        if not k.size:
            return None
        total, mono = self.total(state), int(self.data.var_monotone[v])
        if k.size == 1:          # one candidate (the usual case): its sums, two passes
            split = self._record_sorted(v, srt, int(k[0]), None, total)
            left, right = split.left, split.right
            ok = split.improvement > 0.0 and (
                not mono or mono * (right.sum_z * left.w - left.sum_z * right.w) > 0)
            return split if ok else None
        end = int(k[-1]) + 1
        sums = r_sums(g[:end], None if h is None else h[:end], total, nm)
        gain = r_gains(sums, k, mono)
        gain = np.where(gain > 0.0, gain, 0.0)    # (NaN: never R's best)
        j = int(np.argmax(gain))                  # R's first of the largest
        return r_record(v, x, total, int(k[j]), sums) if gain[j] > 0.0 else None

    def _level_gains(self, state, v: int, levels, min_obs: int) -> np.ndarray:
        """R's gain of every prefix of the level order ``levels`` of
        categorical ``v`` (0 where R does not score it: the last non-empty
        level, fewer than ``min_obs`` rows on a side)."""
        rows, total = state.rows, self.total(state)
        x = self.data.xt[v, rows]
        nan = np.isnan(x)
        K = int(self.data.var_type[v])
        codes = x[~nan].astype(np.intp)
        g = self.wz[rows]
        gs = np.bincount(codes, weights=g[~nan], minlength=K)[levels]
        gn = np.bincount(codes, minlength=K)[levels]
        gw = gn.astype(float) if self.unit else \
            np.bincount(codes, self.w[rows][~nan], minlength=K)[levels]
        nm = int(nan.sum())
        ms, mw = sequential_sum(g[nan]), (float(nm) if self.unit
                                          else sequential_sum(self.w[rows][nan]))
        start_z = sequential_minus(total.sum_z, g[nan])
        start_w = total.w - nm if self.unit else sequential_minus(total.w, self.w[rows][nan])
        ls, lw, ln = gs.cumsum(), gw.cumsum(), gn.cumsum()
        rs, rw = running_minus(start_z, gs), running_minus(start_w, gw)
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = np.asarray(improvement(lw, rw, mw, ls, rs, ms), dtype=float)
        rn = total.n - nm - ln
        scored = (np.arange(K) < np.count_nonzero(gw != 0.0) - 1) & (ln >= min_obs) \
            & (rn >= min_obs) & (gain > 0.0)
        return np.where(scored, gain, 0.0)

    def record(self, state, v: int, pos: int, levels) -> Split:
        """The split of ``state`` on ``v`` (left: sorted positions up to ``pos``,
        or the first ``pos + 1`` levels of ``levels``) with R's arithmetic: R
        scans the node's rows sorted by ``v`` (missing values first, ties in
        row order), adding each row to the left sums and taking it from the
        node's totals one at a time."""
        return self._record_sorted(v, self._sorted(state, v), pos, levels, self.total(state))

    def _record_sorted(self, v: int, srt, pos: int, levels, total: Side) -> Split:
        """:meth:`record` from the node's rows sorted for ``v`` (``srt``, see
        :meth:`_sorted`) and its R sums ``total``."""
        x, g, h, nm = srt
        weights = (lambda a, b: float(b - a)) if h is None else \
            (lambda a, b: sequential_sum(h[a:b]))
        ms, mw = sequential_sum(g[:nm]), weights(0, nm)
        if levels is None:
            k = int(pos)
            value = float(midpoints(x[k], x[k + 1]))
            ls, lw, n_left = sequential_sum(g[nm:k + 1]), weights(nm, k + 1), k + 1 - nm
            rs = sequential_minus(total.sum_z, g[:k + 1])
            rw = total.w - (k + 1) if h is None else sequential_minus(total.w, h[:k + 1])
            left_levels = None
        else:
            K = int(self.data.var_type[v])
            codes = x[nm:].astype(np.intp)
            gs = np.bincount(codes, weights=g[nm:], minlength=K)   # sums in row order
            gn = np.bincount(codes, minlength=K)
            gw = gn.astype(float) if h is None else np.bincount(codes, h[nm:], minlength=K)
            sel = levels[: int(pos) + 1]
            ls, lw, n_left = sequential_sum(gs[sel]), sequential_sum(gw[sel]), int(gn[sel].sum())
            start_z = sequential_minus(total.sum_z, g[:nm])
            start_w = total.w - nm if h is None else sequential_minus(total.w, h[:nm])
            rs, rw = sequential_minus(start_z, gs[sel]), sequential_minus(start_w, gw[sel])
            value, left_levels = float(pos), np.sort(sel)
        missing = Side(ms, mw, nm) if nm else Side(total.sum_z, total.w, 0)
        return Split(float(improvement(lw, rw, mw, ls, rs, ms)), v, float(value), left_levels,
                     Side(ls, lw, int(n_left)), Side(rs, rw, int(total.n - nm - n_left)),
                     missing, nm == 0)

    def total(self, state) -> Side:
        """The node's sums as R has them (R subtracts row by row, so they can
        differ in the last bits from bucket sums): those of the root, then of
        each split on the way down, re-evaluated in R's arithmetic. Only ties
        need them (R breaks ties on those last bits)."""
        if state.r_total is None:
            parent = state.parent
            split = parent.split
            if split.left_levels is None:          # missing rows come first
                pos = split.missing.n + split.left.n - 1
            else:
                pos = split.left_levels.shape[0] - 1
            rec = self.record(parent, split.var, pos, parent.levels)
            state.r_total = (rec.left, rec.right, rec.missing)[state.side]
        return state.r_total

    def recount(self, state, i: int) -> None:
        """Categorical ``i``'s cells of the node's histogram, summed again
        from the node's rows (a histogram made by subtraction can differ
        from them in the last bits)."""
        v = self.data.cat[i]
        K = int(self.data.var_type[v])
        rows = state.rows
        codes = self.data.local_codes(rows, v)
        cells = slice(self.data.offset[v], self.data.offset[v] + K + 1)
        sums = [self.wz[rows]] + ([] if self.unit else [self.w[rows]])
        for j, weights in enumerate(sums):
            state.hist[cells, j] = np.bincount(codes, weights, minlength=K + 1)
        state.hist[cells, -1] = np.bincount(codes, minlength=K + 1)
