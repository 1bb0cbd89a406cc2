"""The fast binned mode (``max_bins``): split search on histograms.

Every continuous predictor is bucketed once per fit by quantiles of its
training values (at most ``max_bins`` buckets; with no more distinct values
than that, one bucket per value, which gives exactly R's splits); missing
values get a bucket of their own; unordered categoricals keep one bucket per
level. The bucket codes of all predictors are offset into one flat index
space, so a node's histograms of sum(w*z), sum(w) and row counts over every
bucket of every predictor come out of one scatter-add pass over its rows.
Only the smaller children of a split are counted; the largest child's
histogram is its parent's minus its siblings'.

The gains are R gbm's (left, right and missing groups, ``n_minobsinnode`` on
row counts, R's monotone constraint, the first best candidate wins); a split
between two buckets is placed at the midpoint between the largest training
value left of it and the smallest right of it, so ``x < value`` routes raw
values (training and new data) exactly as the buckets do.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._rmath import sequential_minus, sequential_sum, shell_sort_order
from .data import level_codes
from .split import NEAR_TIE, Side, Split, improvement, quantize

try:  # SciPy's compiled sparse-times-dense kernel: a scatter-add of several
    # columns at once (scipy is a dependency; the import path is private, so
    # the NumPy bincount kernel below stands in if it ever moves)
    from scipy.sparse._sparsetools import csc_matvec as _csc_matvec
    from scipy.sparse._sparsetools import csc_matvecs as _csc_matvecs
except ImportError:  # pragma: no cover
    _csc_matvec = _csc_matvecs = None

#: rows per scatter-add call: bounds the temporaries of a histogram pass
CHUNK_ROWS = 8192
#: magnitude bits a packed int64 histogram cell may use (63 exist; one spare
#: absorbs the rounding of every row's quantized w*z)
INT64_BITS = 62
#: relative distance under which two level means count as tied: such levels
#: are re-counted from the rows so that their order is R's (see _categoricals)
MEAN_TIE = 1e-12


def _midpoints(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Split points between ``lo`` and ``hi`` (elementwise, lo < hi): R's
    midpoint, or ``hi`` itself where rounding puts the midpoint on ``lo``."""
    mid = 0.5 * (lo + hi)
    return np.where(mid > lo, mid, hi)


def _bin_ends(counts: np.ndarray, max_bins: int) -> np.ndarray:
    """Last distinct-value index of each bucket (quantile buckets).

    ``counts`` are the frequencies of the sorted distinct values. Bucket
    borders are put where the cumulative count crosses ``k / K`` of the rows,
    and around every value more frequent than ``1 / K`` of them (it gets a
    bucket alone); ``K`` is raised (bisection) to the largest value that
    still gives at most ``max_bins`` buckets.
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
    order = np.argsort(values)                  # NaN last
    ordered = values[order]
    nf = int(np.searchsorted(np.isnan(ordered), True))   # number of non-missing values
    finite = ordered[:nf]
    codes = np.full(values.shape[0], missing_code, dtype=np.intp)
    codes[order[:nf]] = 0
    if nf == 0:
        return np.empty(0), np.full(1, np.inf), np.full(1, -np.inf), codes, True
    starts = np.flatnonzero(np.concatenate(([True], finite[1:] != finite[:-1])))
    u = finite[starts]
    one_each = u.shape[0] <= max_bins
    if one_each:
        ends = np.arange(u.shape[0])
    else:
        ends = _bin_ends(np.diff(np.append(starts, nf)), max_bins)
    cuts = _midpoints(u[ends[:-1]], u[ends[:-1] + 1])
    # buckets as the routing rule x < cut defines them: finite[first:stop]
    bounds = np.searchsorted(finite, cuts, side="left")
    first = np.concatenate(([0], bounds))
    stop = np.append(bounds, nf)
    codes[order[:nf]] = np.repeat(np.arange(first.shape[0]), stop - first)
    empty = stop <= first
    bin_min = np.where(empty, np.inf, finite[np.minimum(first, nf - 1)])
    bin_max = np.where(empty, -np.inf, finite[np.maximum(stop - 1, 0)])
    return cuts, bin_min, bin_max, codes, one_each


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

    def __init__(self, x, var_type, var_monotone, max_bins: int):
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
        self._bin_all()

    @property
    def n(self) -> int:
        return self.xt.shape[1]

    @property
    def p(self) -> int:
        return self.xt.shape[0]

    def _bin_all(self):
        n, p = self.n, self.p
        # bucket codes first, offsets once the widest predictor is known
        idx = np.int32 if n * p + 1 < np.iinfo(np.int32).max else np.int64
        codes = np.empty((n, p), dtype=idx)
        self.cuts, lows, highs, one_each = [], [], [], []
        for j in self.cont:
            cuts, lo, hi, codes[:, j], each = _continuous_bins(self.xt[j], self.max_bins, -1)
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
        # the sparse kernel's matrix entries (all 1), per data type summed
        self._ones = {np.dtype(float): np.ones(CHUNK_ROWS * p)}
        self._indptr = np.arange(0, (CHUNK_ROWS + 1) * p, p, dtype=codes.dtype)

    def local_codes(self, rows: np.ndarray, v: int) -> np.ndarray:
        """Bucket codes of predictor ``v`` for ``rows`` (missing = last bucket)."""
        return (self.codes[rows, v] - self.offset[v]).astype(self.local_dtype)

    def searcher(self, z, w, unit_weights: bool, min_obs: int):
        """The histogram split search for one tree on this data."""
        return HistogramSearch(self, z, w, unit_weights, min_obs)


@dataclass
class NodeState:
    """What the search keeps per node: its in-bag rows and their histogram."""

    rows: np.ndarray                  # in-bag training rows, increasing
    hist: np.ndarray | None = None    # (n_cells + 1, k): sum w*z, [sum w,] count
    raw: np.ndarray | None = None     # the histogram as counted (see HistogramSearch)
    counted: bool = True              # hist summed from the rows (not by subtraction)
    # only for ties between predictors (see HistogramSearch._r_total):
    parent: NodeState | None = None
    side: int = 0                     # 0, 1, 2: left, right, missing child of parent
    split: Split | None = None        # this node's split, once chosen
    levels: np.ndarray | None = None  # its level order (categorical split)
    r_total: Side | None = None       # the node's sums in R's arithmetic


class HistogramSearch:
    """Best splits on bucketed predictors (the search-strategy interface of
    :class:`pygbm.engine.split.ExactSearch`: ``root``, ``best``, ``children``)."""

    def __init__(self, data: BinnedTrainingData, z, w, unit_weights: bool, min_obs: int):
        self.data = data
        #: R's arithmetic for the node sums only with one bucket per value
        #: (then the splits are R's; otherwise the buckets decide anyway)
        self.r_arithmetic = bool(data.exact_bins)
        self.unit = bool(unit_weights)
        self.min_obs = int(min_obs)
        self.w = w
        self.wz = w * z
        # Unit weights outside the one-bucket-per-value search: one int64 per
        # row, w*z quantized (as in the exact search) and shifted left by
        # ``count_bits``, plus 1: a single summed column gives every bucket's
        # sum of w*z (to 2**-bits of the total |w*z|, far below what the
        # bucketing changes) and its exact row count, and subtraction of
        # histograms is exact.
        self.packed = self.unit and not data.exact_bins and _csc_matvecs is not None
        if self.packed:
            self.count_bits = max(int(data.n).bit_length(), 1)
            q, self.scale = quantize(self.wz, INT64_BITS - 1 - self.count_bits)
            self.cols = (q << self.count_bits) + 1
        else:
            k = 2 if self.unit else 3
            cols = np.empty((data.n, k))              # the columns summed per bucket
            cols[:, 0] = self.wz
            if not self.unit:
                cols[:, 1] = w
            cols[:, -1] = 1.0
            self.cols = cols
        if self.cols.dtype not in data._ones:
            data._ones[self.cols.dtype] = np.ones(CHUNK_ROWS * data.p, dtype=self.cols.dtype)
        self._ones = data._ones[self.cols.dtype]
        self._direction = np.empty(data.n, dtype=np.int8)
        chunk = min(CHUNK_ROWS, data.n)
        self._codes_buf = np.empty((chunk, data.p), dtype=data.codes.dtype)
        self._cols_buf = np.empty((chunk,) + self.cols.shape[1:], dtype=self.cols.dtype)

    # ------------------------------------------------------------------ state
    def root(self, inbag: np.ndarray) -> NodeState:
        return NodeState(np.flatnonzero(inbag))

    def children(self, state: NodeState, rows: np.ndarray, d: np.ndarray, split: Split):
        """The children's states; histograms are counted for all but the
        largest child, whose histogram is the parent's minus the others'."""
        self._direction[rows] = d
        D = self._direction.take(state.rows)
        kids = [state.rows.compress(D == side) if n_side else state.rows[:0]
                for side, n_side in enumerate((split.left.n, split.right.n, split.missing.n))]
        if state.raw is None:
            state.raw = self.histogram(state.rows)
        big = int(np.argmax([r.shape[0] for r in kids]))
        state.split = split
        out = [NodeState(r, parent=state, side=i) for i, r in enumerate(kids)]
        rest = state.raw
        for i, r in enumerate(kids):
            if i != big and r.shape[0]:
                out[i].raw = self.histogram(r)
                rest = rest - out[i].raw
        if rest is state.raw:
            rest = rest.copy()
        if not self.packed:
            rest[rest[:, -1] == 0.0] = 0.0            # empty buckets: exact zeros
        out[big].raw = rest
        out[big].counted = False
        state.raw = state.hist = None
        return tuple(out)

    def histogram(self, rows: np.ndarray) -> np.ndarray:
        """Per-bucket sums of the search columns over ``rows`` (the packed
        int64 column: (n_cells + 1,); else (n_cells + 1, k)), the last cell a
        spare one that stays empty. All predictors at once: a sparse (one-hot)
        matrix times the rows' columns, SciPy's kernel."""
        data = self.data
        k = 1 if self.cols.ndim == 1 else self.cols.shape[1]
        out = np.zeros((data.n_cells + 1,) + self.cols.shape[1:], dtype=self.cols.dtype)
        p = data.p
        for start in range(0, rows.shape[0], CHUNK_ROWS):
            r = rows[start:start + CHUNK_ROWS]
            m = r.shape[0]
            # np.take into kept buffers: far faster than fancy indexing of rows
            codes = data.codes.take(r, axis=0, out=self._codes_buf[:m], mode="clip")
            vals = self.cols.take(r, axis=0, out=self._cols_buf[:m], mode="clip")
            if _csc_matvecs is None:            # NumPy fallback (never packed)
                flat = codes.reshape(-1)
                for c in range(k):
                    out[:, c] += np.bincount(flat, np.repeat(vals[:, c], p),
                                             minlength=data.n_cells + 1)
            elif k == 1:    # the packed column: the one-vector kernel (faster than k = 1)
                _csc_matvec(data.n_cells, m, data._indptr[:m + 1], codes.reshape(-1),
                            self._ones[:m * p], vals, out)
            else:
                _csc_matvecs(data.n_cells, m, k, data._indptr[:m + 1], codes.reshape(-1),
                             self._ones[:m * p], vals.reshape(-1), out.reshape(-1))
        return out

    def _float_hist(self, raw: np.ndarray) -> np.ndarray:
        """A counted histogram as (n_cells + 1, k) floats: sum w*z, [sum w,] count."""
        if not self.packed:
            return raw
        count = raw & ((1 << self.count_bits) - 1)
        hist = np.empty((raw.shape[0], 2))
        hist[:, 0] = (raw >> self.count_bits) / self.scale     # exact: scale is 2**k
        hist[:, 1] = count
        return hist

    # ------------------------------------------------------------------ search
    def best(self, state: NodeState, total: Side) -> Split | None:
        """Best split of the node (None when no split has a positive gain)."""
        if state.rows.shape[0] < 2:
            return None
        if state.hist is None:
            if state.raw is None:
                state.raw = self.histogram(state.rows)
            state.hist = self._float_hist(state.raw)
        if state.parent is None or self.data.exact_bins:
            state.r_total = total       # the root's sums, or sums of a split made as R
        data = self.data
        best_gain = np.zeros(data.p)
        best_pos = np.zeros(data.p, dtype=np.intp)
        orders = {}
        if data.cont.size:
            g, pos = self._continuous(state.hist)
            best_gain[data.cont] = g
            best_pos[data.cont] = pos
        if data.cat.size:
            g, pos, order = self._categoricals(state)
            best_gain[data.cat] = g
            best_pos[data.cat] = pos
            orders = {int(v): order[i, :data.var_type[v]] for i, v in enumerate(data.cat)}
        v = int(np.argmax(best_gain))
        if not best_gain[v] > 0.0:
            return None
        tied = (best_gain >= best_gain[v] * (1.0 - NEAR_TIE)).nonzero()[0]
        if tied.shape[0] > 1 or data.exact_bins:
            # R's own arithmetic: ties are broken as R breaks them, and with
            # one bucket per value the children's sums are R's to the last bit
            return self._break_tie(state, tied, best_pos, orders)
        state.levels = orders.get(v)
        if v in orders:
            return self._record_categorical(state.hist, v, best_pos[v], orders[v], total,
                                            best_gain[v])
        return self._record_continuous(state.hist, v, best_pos[v], total, best_gain[v])

    def _break_tie(self, state: NodeState, tied, best_pos, orders) -> Split:
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
            split = self._r_record(state, int(v), pos, levels)
            if best is None or split.improvement > best.improvement:
                best, state.levels = split, levels
        if best.left_levels is None and not data.exact_bins:
            # the bucket rule's split point (R's would be the node's midpoint)
            best.value = self._split_point(state.hist, best.var, best_pos[best.var])
        return best

    def _r_record(self, state: NodeState, v: int, pos: int, levels) -> Split:
        """The split of ``state`` on ``v`` (left: sorted positions up to ``pos``,
        or the first ``pos + 1`` levels of ``levels``) with R's arithmetic: R
        scans the node's rows sorted by ``v`` (missing values first, ties in
        row order), adding each row to the left sums and taking it from the
        node's totals one at a time."""
        data, rows = self.data, state.rows
        x = data.xt[v, rows]
        nm = int(np.count_nonzero(np.isnan(x)))
        if data.var_type[v] > 0 or data.exact_bins:
            # one bucket per value: a stable sort of the (16-bit) bucket codes
            # orders the rows as R does, missing values last
            order = np.argsort(data.local_codes(rows, v), kind="stable")
        else:
            order = np.argsort(x, kind="stable")
        order = np.roll(order, nm)                              # NaN first, as R
        x, g = x[order], self.wz[rows[order]]
        h = None if self.unit else self.w[rows[order]]
        weights = (lambda a, b: float(b - a)) if h is None else \
            (lambda a, b: sequential_sum(h[a:b]))
        total = self._r_total(state)
        ms, mw = sequential_sum(g[:nm]), weights(0, nm)
        if levels is None:
            k = int(pos)
            value = 0.5 * (x[k] + x[k + 1])
            ls, lw, n_left = sequential_sum(g[nm:k + 1]), weights(nm, k + 1), k + 1 - nm
            rs = sequential_minus(total.sum_z, g[:k + 1])
            rw = total.w - (k + 1) if h is None else sequential_minus(total.w, h[:k + 1])
            left_levels = None
        else:
            K = int(data.var_type[v])
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

    def _r_total(self, state: NodeState) -> Side:
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
            rec = self._r_record(parent, split.var, pos, parent.levels)
            state.r_total = (rec.left, rec.right, rec.missing)[state.side]
        return state.r_total

    def _block(self, hist):
        """The continuous block of a histogram as (pc, width) arrays."""
        data = self.data
        size = data.cont.shape[0] * data.width
        shape = (data.cont.shape[0], data.width)
        Z = hist[:size, 0].reshape(shape)
        N = hist[:size, -1].reshape(shape)
        W = N if self.unit else hist[:size, 1].reshape(shape)
        return Z, W, N

    def _continuous(self, hist):
        """Best gain and bucket of every continuous predictor.

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
                ok &= (mono[:, None] == 0) | (mono[:, None] * (rs * lw - ls * rw) > 0.0)
        ok &= gain > 0.0
        gain = np.where(ok, gain, 0.0)
        pos = np.argmax(gain, axis=1)
        return gain[np.arange(gain.shape[0]), pos], pos

    def _recount(self, state: NodeState, i: int) -> None:
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
                self._recount(state, i)
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
        return float(_midpoints(data.bin_max[i, pos], data.bin_min[i, nxt]))

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
