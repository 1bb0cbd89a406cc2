"""Compiled supporting models of ordered boosting: the working responses
of a permutation's folds and the addition of a tree to every fold's model,
in one pass each, for the distributions whose leaves are functions of two
running sums (:mod:`pygbm.ordered.leaf_terms`: gaussian, bernoulli,
poisson, adaboost, huberized). Every row's terms are formed as the
distribution's NumPy methods form them and summed in the same order, with
the C library's ``exp`` and ``log`` (the reference's ``r_exact_math``), so
the models are the NumPy reference's (:mod:`pygbm.ordered.support`) bit for
bit. Laplace, quantile and tdist keep the reference's NumPy code.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...distributions._newton import MIN_HESSIAN
from ...distributions.huberized import LINEAR_MARGIN, LINEAR_SLOPE
from ...distributions.poisson import F_CAP, ZERO_COUNT_PRED
from ..columns import INT64_BITS, MAX_SCALE_BITS, FoldColumns, count_bits
from ..leaf_terms import ADABOOST, BERNOULLI, GAUSSIAN, POISSON, code_of
from ..support import SupportingModels


@njit(cache=True, error_model="numpy")
def _tracked(code):
    """Whether the distribution keeps exp(sign F) (:mod:`pygbm.ordered.leaf_terms`)."""
    return code == BERNOULLI or code == POISSON or code == ADABOOST


@njit(cache=True, error_model="numpy")
def _sign(code, y):
    """The row's sign in exp(sign F) (:func:`pygbm.ordered.leaf_terms.exp_sign`)."""
    if code == BERNOULLI:
        return -1.0
    if code == POISSON:
        return 1.0
    return -(2.0 * y - 1.0)


@njit(cache=True, error_model="numpy")
def _gradient(dist, y, off, f, e):
    """The working response at link value ``f`` (offset ``off``, NaN: none;
    ``e`` the kept exp(sign F) where the distribution has one)."""
    code, z_sign = dist[0], dist[1]
    if code == GAUSSIAN:
        return y - off - f if off == off else y - f
    if code == BERNOULLI:
        return y - 1.0 / (1.0 + e)
    if code == POISSON:
        return y - e
    s = 2.0 * y - 1.0
    if code == ADABOOST:
        return z_sign * s * e
    m = s * (f + off if off == off else f)
    if m < LINEAR_MARGIN:
        return -LINEAR_SLOPE * s
    return 0.0 if 1.0 - m < 0.0 else -2.0 * s * (1.0 - m)


@njit(cache=True, error_model="numpy")
def _growth(dist, y, off, w, f, e):
    """A row's weighted growth response and its weight: w*z and w, or with
    Newton splits (w h)(z / h) and w h, ``h`` the Hessian kept from
    ``MIN_HESSIAN`` (bernoulli, poisson: :mod:`pygbm.distributions._newton`)."""
    z = _gradient(dist, y, off, f, e)
    if not dist[2]:
        return w * z, w
    if dist[0] == BERNOULLI:
        h = 1.0 / ((1.0 + e) * (1.0 + 1.0 / e))
    else:
        h = e
    h = h if (h > MIN_HESSIAN or h != h) else MIN_HESSIAN     # NumPy's maximum
    gw = w * h
    return gw * (z / h), gw


@njit(cache=True, error_model="numpy")
def _terms(dist, y, off, w, f, e):
    """A row's numerator and denominator terms of its leaf's estimate."""
    code = dist[0]
    has_off = off == off
    if code == GAUSSIAN:
        return w * (y - off - f if has_off else y - f), w
    if code == BERNOULLI:
        z = y - 1.0 / (1.0 + e)
        return w * z, w * (y - z) * (1.0 - y + z)
    if code == POISSON:
        return w * y, w * e
    s = 2.0 * y - 1.0
    if code == ADABOOST:
        we = w * e
        return s * we, we
    F = f + off if has_off else f
    m = s * f                                    # R ignores the offset here
    if m < LINEAR_MARGIN:                        # but in h (Huberized.fit_leaves)
        return w * (LINEAR_SLOPE * s), w * (-LINEAR_SLOPE * s * F)
    if 1.0 - m < 0.0:
        return w * 0.0, w * 0.0
    return w * (2.0 * s * (1.0 - m)), (w * (1.0 - m)) * (1.0 - m)     # R's order


@njit(cache=True, error_model="numpy")
def _value(code, num, den, count, lo, hi, clip, min_rows):
    """The leaf estimate of sums ``num``, ``den`` over ``count`` rows (0
    from fewer than ``min_rows``); poisson clipped to [-19 - lo, 19 - hi]
    when ``clip``."""
    if count < min_rows:
        return 0.0
    if code != POISSON:
        return num / den if den != 0 else 0.0
    if num == 0.0:
        v = ZERO_COUNT_PRED
    elif den == 0.0:
        v = 0.0
    else:
        v = math.log(num / den)
    if clip:
        cap = F_CAP - hi
        v = v if v < cap else cap
        cap = -F_CAP - lo
        v = v if v > cap else cap
    return v


@njit(cache=True, error_model="numpy")
def fold_gradients(dist, y, off, w, f, e):
    """The weighted growth response and its weight at every fold position
    (``off`` all NaN: no offset; ``e`` the kept exponentials, empty: none)."""
    tracked = _tracked(dist[0])
    out = np.empty(f.shape[0])
    weight = np.empty(f.shape[0])
    for s in range(f.shape[0]):
        out[s], weight[s] = _growth(dist, y[s], off[s], w[s], f[s], e[s] if tracked else 0.0)
    return out, weight


@njit(cache=True, error_model="numpy")
def _scale(big, bits):
    """:func:`pygbm.ordered.columns.scale_of` of values whose largest
    magnitude times their number is ``big`` (NaN: some value is NaN)."""
    if not (big > 0.0 and big < np.inf):
        return 1.0
    return math.ldexp(1.0, min(bits - 1 - math.frexp(big)[1], MAX_SCALE_BITS))


@njit(cache=True, error_model="numpy")
def _larger(a, b):
    """NumPy's maximum: NaN if either is."""
    if a != a or b != b:
        return np.nan
    return a if a >= b else b


@njit(cache=True, error_model="numpy")
def _quantized(x, scale):
    return np.int64(np.rint(x * scale)) if abs(x) < np.inf else 0


@njit(cache=True, error_model="numpy")
def fold_values(dist, rows, model, fold_layout, values, units):
    """:func:`pygbm.ordered.columns.fold_columns` of the working responses at
    the fold models ``model`` = (link values, kept exponentials (empty:
    none)) in one pass per fold: ``values`` (n, K width) int64 and ``units``
    (K, width) filled in place. ``fold_layout`` = (order, bounds, count
    bits, unit weights)."""
    y, off, w = rows[0], rows[1], rows[2]
    f, e = model
    tracked = _tracked(dist[0])
    order, bounds, cb, unit = fold_layout
    wz = np.empty(f.shape[0])
    gw = np.empty(f.shape[0])
    start = 0
    for k in range(bounds.shape[0] - 1):
        m = bounds[k + 1]
        big_z = 0.0                 # largest magnitudes (NaN as NumPy's max: any NaN)
        big_w = 0.0
        for p in range(m):
            s = start + p
            wz[s], gw[s] = _growth(dist, y[s], off[s], w[s], f[s], e[s] if tracked else 0.0)
            big_z = _larger(big_z, abs(wz[s]))
            big_w = _larger(big_w, abs(gw[s]))
        if unit:
            scale = _scale(big_z * m, INT64_BITS - 1 - cb)
            units[k, 0] = 1.0 / scale
            for p in range(m):
                values[order[p], k] = (_quantized(wz[start + p], scale) << cb) + 1
        else:
            scale = _scale(big_z * m, INT64_BITS - 1)
            scale_w = _scale(big_w * m, INT64_BITS - 1)
            units[k, 0] = 1.0 / scale
            units[k, 1] = 1.0 / scale_w
            for p in range(m):
                values[order[p], 2 * k] = _quantized(wz[start + p], scale)
                values[order[p], 2 * k + 1] = _quantized(gw[start + p], scale_w)
        start += m


@njit(cache=True, error_model="numpy")
def add_tree(dist, rows, model, tree, shrinkage, full_history):
    """Add a tree to one permutation's fold models ``model`` = (link values,
    kept exponentials (empty: none)), in place, fold after fold. ``rows`` =
    (y, offset (NaN: none), w) per fold position and (order, bounds) of the
    permutation; ``tree`` = (terminal node of every training row, number of
    terminal nodes, the fewest rows a leaf value is estimated from). A kept
    exponential is multiplied by exp(sign x) when x is added: an exponential
    per leaf and fold (full history: per tail row)."""
    y, off, w, order, bounds = rows
    f, e = model
    node_of, n_t, min_rows = tree
    code = dist[0]
    tracked = _tracked(code)
    clip = code == POISSON and not (off[0] == off[0])
    node = np.empty(order.shape[0], dtype=np.int64)      # by position
    for p in range(order.shape[0]):
        node[p] = node_of[order[p]]
    num = np.empty(n_t)
    den = np.empty(n_t)
    cnt = np.empty(n_t, dtype=np.int64)
    lo = np.empty(n_t)
    hi = np.empty(n_t)
    step = np.empty(n_t)
    up = np.ones(n_t)              # exp(x) and exp(-x) of each leaf's step x
    down = np.ones(n_t)
    start = 0
    for k in range(bounds.shape[0] - 1):
        n_body, m = bounds[k], bounds[k + 1]
        num[:] = 0.0
        den[:] = 0.0
        cnt[:] = 0
        if clip:
            lo[:] = np.inf
            hi[:] = -np.inf
            for p in range(m):
                lo[node[p]] = min(lo[node[p]], f[start + p])
                hi[node[p]] = max(hi[node[p]], f[start + p])
        for p in range(n_body):
            s = start + p
            a, b = _terms(dist, y[s], off[s], w[s], f[s], e[s] if tracked else 0.0)
            num[node[p]] += a
            den[node[p]] += b
            cnt[node[p]] += 1
        for nd in range(n_t):
            x = shrinkage * _value(code, num[nd], den[nd], cnt[nd], lo[nd], hi[nd], clip,
                                   min_rows)
            step[nd] = x
            if tracked:
                up[nd] = math.exp(x)
                down[nd] = math.exp(-x)
        for p in range(n_body if full_history else m):
            s = start + p
            f[s] += step[node[p]]
            if tracked:
                e[s] *= up[node[p]] if _sign(code, y[s]) > 0.0 else down[node[p]]
        for p in range(n_body if full_history else m, m):
            # a tail row: the estimate over the rows before it in its leaf
            s, nd = start + p, node[p]
            a, b = _terms(dist, y[s], off[s], w[s], f[s], e[s] if tracked else 0.0)
            x = shrinkage * _value(code, num[nd], den[nd], cnt[nd], lo[nd], hi[nd], clip,
                                   min_rows)
            f[s] += x
            if tracked:
                e[s] *= math.exp(_sign(code, y[s]) * x)
            num[nd] += a
            den[nd] += b
            cnt[nd] += 1
        start += m


#: the kernels' kept exponentials of a distribution without them
_NONE = np.empty(0)


class CompiledSupportingModels(SupportingModels):
    """:class:`pygbm.ordered.support.SupportingModels` with compiled
    working responses and tree additions for the running-sum distributions
    (the others keep the NumPy methods)."""

    def __init__(self, problem, orders: list, bounds: np.ndarray, approx: np.ndarray,
                 exp_approx: np.ndarray | None = None):
        super().__init__(problem, orders, bounds, approx, exp_approx)
        code = code_of(self.dist)
        z_sign = self.dist.z_sign if code == ADABOOST else 1.0
        newton = not self.dist.gradient_splits
        self.kernel_dist = None if code is None else (code, float(z_sign), newton)
        self.rows = []
        seg = self.segments
        for p in self.perms:
            t = p.targets
            off = np.full(seg.size, np.nan) if t.offset is None else \
                np.asarray(t.offset, dtype=float)
            self.rows.append((np.asarray(t.y, dtype=float), off, np.asarray(t.w, dtype=float),
                              p.order.astype(np.int64), seg.bounds.astype(np.int64)))

    def model(self, r: int) -> tuple:
        """Permutation ``r``'s link values and kept exponentials (empty: none)."""
        e = self.exp(r)
        return self.approx[r], _NONE if e is None else e

    def gradients(self, r: int) -> tuple[np.ndarray, np.ndarray]:
        if self.kernel_dist is None:
            return super().gradients(r)
        y, off, w = self.rows[r][:3]
        return fold_gradients(self.kernel_dist, y, off, w, *self.model(r))

    def fold_columns(self, r: int) -> FoldColumns:
        if self.kernel_dist is None:
            return super().fold_columns(r)
        p, seg = self.perms[r], self.segments
        n, n_folds = p.order.shape[0], seg.n_folds
        width = 1 if self.unit else 2
        cb = count_bits(n)
        # only a row's entries from its tail fold on are ever read: not zeroed
        values = np.empty((n, n_folds * width), dtype=np.int64)
        units = np.empty((n_folds, width))
        fold_values(self.kernel_dist, self.rows[r], self.model(r),
                    (p.order.astype(np.int64), seg.bounds.astype(np.int64), cb, self.unit),
                    values, units)
        return FoldColumns(p.tail_fold, values, units, width, cb)

    def add_tree(self, r: int, node_of: np.ndarray, n_t: int, shrinkage: float) -> None:
        if self.kernel_dist is None:
            super().add_tree(r, node_of, n_t, shrinkage)
            return
        add_tree(self.kernel_dist, self.rows[r], self.model(r),
                 (node_of.astype(np.int64), int(n_t), int(self.min_rows)), float(shrinkage),
                 self.full_history)
