"""The distributions' methods, compiled, for the compiled boosting loop.

Each distribution of :mod:`pygbm.distributions` computes its working
response, terminal-node values, deviance and out-of-bag improvement with
NumPy; the kernels here compute the same numbers, bit for bit, one row at a
time: every elementwise expression evaluated in the same order, sums where
NumPy adds pairwise (``np.sum``) with :func:`.arith.numpy_sum`,
sums NumPy adds in row order (``np.bincount``, ``np.cumsum``) in row order,
and exp and log from the C library (the NumPy methods' ``ctx.model_exp`` and
``ctx.model_log`` in R's exact mode). ``tests/engine/test_compiled_losses.py``
compares every kernel with its distribution on random data.

A distribution is named by its :data:`KINDS` code; its parameters (quantile's
alpha, tdist's df) come in ``params``. The rows' targets are a
:class:`LossRows` (the compiled view of a :class:`pygbm.distributions.Targets`:
an empty ``offset`` when there is none; ``misc`` coxph's event indicator).
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from ...distributions import huberized, poisson
from ...distributions._newton import MIN_HESSIAN
from ...distributions.adaboost import AdaBoost
from .location import grouped_location_m, grouped_median, grouped_quantile
from .arith import numpy_sum

GAUSSIAN, BERNOULLI, POISSON, ADABOOST, HUBERIZED, COXPH, LAPLACE, QUANTILE, TDIST = range(9)
#: the distributions with compiled kernels, by registry name
KINDS = {"gaussian": GAUSSIAN, "bernoulli": BERNOULLI, "poisson": POISSON,
         "adaboost": ADABOOST, "huberized": HUBERIZED, "coxph": COXPH, "laplace": LAPLACE,
         "quantile": QUANTILE, "tdist": TDIST}
#: the kinds whose methods call neither exp nor log (the NumPy methods' neither
#: ``ctx.model_exp`` nor ``ctx.model_log``): their numbers do not depend on
#: the fit's exp mode, so the kernels serve fits with NumPy's exp and log
#: too (a binned fit pickled before :func:`pygbm.fitting.library_math`)
NO_EXP_LOG = frozenset({GAUSSIAN, HUBERIZED, LAPLACE, QUANTILE})
#: the kinds whose Newton splits (``splits="newton"``, :mod:`pygbm.distributions._newton`)
#: the kernels grow: :func:`newton_growth` has their Hessians
NEWTON_KINDS = frozenset({BERNOULLI, POISSON})

# the constants of the NumPy distributions (pygbm.distributions.*), which the
# kernels below share (numba reads them as compile-time constants; the kernel
# cache guard lists those modules among the kernels' sources)
#: log(2), numpy's logaddexp at equal arguments
LOG2 = 0.693147180559945309417232121458176568
#: poisson's bound on the link and its value for a node without counts
POISSON_F_CAP = poisson.F_CAP
POISSON_ZERO_COUNT_PRED = poisson.ZERO_COUNT_PRED
#: huberized: below this margin the loss is linear, with this slope factor
HUBER_LINEAR_MARGIN = huberized.LINEAR_MARGIN
HUBER_LINEAR_SLOPE = huberized.LINEAR_SLOPE
#: adaboost: the sign of R's working response relative to the negative gradient
ADABOOST_Z_SIGN = AdaBoost.z_sign


class LossRows(NamedTuple):
    """Some rows' targets as the kernels read them (float64 arrays)."""

    y: np.ndarray
    offset: np.ndarray          # empty: no offset
    w: np.ndarray
    misc: np.ndarray            # coxph's event indicator; empty otherwise


def loss_rows(t) -> LossRows:
    """The compiled view of a :class:`pygbm.distributions.Targets`.

    Every array is a writeable C-contiguous float64 array (a read-only one, such as
    pandas hands out, is copied): the kernels then have one signature, so a process
    loads (and an empty cache compiles) each of them once, not once per flag.
    """
    empty = np.zeros(0)
    y = np.asarray(t.y, dtype=np.float64)
    misc = t.misc
    if y.ndim == 2:                         # coxph's (time, status) columns
        y, misc = y[:, 0], y[:, 1]
    return LossRows(_kernel_array(y),
                    empty if t.offset is None else _kernel_array(t.offset),
                    _kernel_array(t.w),
                    empty if misc is None else _kernel_array(misc))


def _kernel_array(values) -> np.ndarray:
    return np.require(values, dtype=np.float64, requirements=["C", "W"])


def kind_of(distribution) -> int | None:
    """The kernel code of ``distribution``, or None when it has none."""
    return KINDS.get(distribution.name)


def loss_params(distribution) -> np.ndarray:
    """The parameters the kernels read, in the distribution's own order
    (R's list: quantile's alpha, tdist's df); not ``splits``, which says how the
    trees are grown (the loop's ``Loss.newton``)."""
    return np.array([float(v) for k, v in distribution.params().items() if k != "splits"],
                    dtype=np.float64)


# ----------------------------------------------------------------- elementwise
@njit(cache=True, error_model="numpy", inline="always")
def _link(rows, f, i):
    """``f + offset`` (NumPy's full_f)."""
    if rows.offset.shape[0]:
        return f[i] + rows.offset[i]
    return f[i]


@njit(cache=True, error_model="numpy", inline="always")
def _residual(rows, f, i):
    """``y - offset - f`` (NumPy's residual)."""
    if rows.offset.shape[0]:
        return (rows.y[i] - rows.offset[i]) - f[i]
    return rows.y[i] - f[i]


@njit(cache=True, error_model="numpy", inline="always")
def _log1pexp(x):
    """numpy's ``logaddexp(0, x)``."""
    if x == 0.0:
        return 0.0 + LOG2
    tmp = 0.0 - x
    if tmp > 0:
        return 0.0 + math.log1p(math.exp(-tmp))
    if tmp <= 0:
        return x + math.log1p(math.exp(tmp))
    return tmp


@njit(cache=True, error_model="numpy", inline="always")
def _log(x):
    """The C library's log with numpy's conventions (-inf at 0, NaN below)."""
    if x > 0:
        return math.log(x)
    if x == 0:
        return -np.inf
    return np.nan


@njit(cache=True, error_model="numpy", inline="always")
def _minimum(a, b):
    """numpy's ``minimum`` (NaN propagates)."""
    if a <= b or a != a:
        return a
    return b


@njit(cache=True, error_model="numpy", inline="always")
def _maximum(a, b):
    """numpy's ``maximum`` (NaN propagates)."""
    if a >= b or a != a:
        return a
    return b


@njit(cache=True, error_model="numpy", inline="always")
def _check_loss(y, F, alpha):
    """quantile's check loss of one row (pygbm.distributions.quantile._check_loss)."""
    if y > F:
        return alpha * (y - F)
    return (1.0 - alpha) * (F - y)


@njit(cache=True, error_model="numpy", inline="always")
def _huber_loss_parts(s, m):
    """(linear part, flat part) of a huberized row with margin ``m``."""
    lin = m < HUBER_LINEAR_MARGIN
    return lin, (not lin) and (1.0 - m < 0.0)


# ------------------------------------------------------------ shared reductions
@njit(cache=True, error_model="numpy")
def _weighted_mean(values, rows):
    """``np.sum(w * values) / np.sum(w)``."""
    n = values.shape[0]
    buf = np.empty(n)
    for i in range(n):
        buf[i] = rows.w[i] * values[i]
    return numpy_sum(buf[:n]) / numpy_sum(rows.w[:n])


@njit(cache=True, error_model="numpy")
def oob_average(values, rows, bag):
    """pygbm.distributions._common.oob_average: sum(w * values) / sum(w) over
    the out-of-bag rows, every row added with 0 in place of the in-bag rows
    (whose ``values`` are not read: the callers leave them unset)."""
    n = values.shape[0]
    num_buf = np.empty(n)
    den_buf = np.empty(n)
    for i in range(n):
        # both sides computed, then one chosen: no branch on the random bag
        wv = rows.w[i] * values[i]
        num_buf[i] = 0.0 if bag[i] else wv
        den_buf[i] = 0.0 if bag[i] else rows.w[i]
    return numpy_sum(num_buf[:n]) / numpy_sum(den_buf[:n])


@njit(cache=True, error_model="numpy")
def _node_ratio(num_values, den_values, node, n_nodes, bag, out):
    """Per-node sum(num) / sum(den) over the in-bag rows in row order, 0 where
    the denominator sums to 0 (pygbm.distributions._common.node_ratio)."""
    sums = np.zeros((2, n_nodes))
    num, den = sums[0], sums[1]
    for i in range(node.shape[0]):
        if bag[i]:
            num[node[i]] += num_values[i]
            den[node[i]] += den_values[i]
    for k in range(n_nodes):
        out[k] = num[k] / den[k] if den[k] != 0 else 0.0


# --------------------------------------------------------------- the four methods
@njit(cache=True, error_model="numpy")
def newton_growth(kind, rows, f, z, gw, wz):
    """Newton splits' growth weights ``gw = w h`` and ``wz = gw * (z / h)`` (the
    grower's weighted response) of the rows at ``f`` with working response ``z``:
    ``NewtonSplits.growth_response`` and the grower's product, bit for bit;
    ``h`` the kind's Hessian (:data:`NEWTON_KINDS`), at least ``MIN_HESSIAN``."""
    bernoulli = kind == BERNOULLI
    for i in range(z.shape[0]):
        F = _link(rows, f, i)
        if bernoulli:
            h = 1.0 / ((1.0 + math.exp(-F)) * (1.0 + math.exp(F)))
        else:
            h = math.exp(F)
        if h < MIN_HESSIAN:
            h = MIN_HESSIAN
        g = rows.w[i] * h
        gw[i] = g
        wz[i] = g * (z[i] / h)


@njit(cache=True, error_model="numpy")
def working_response(kind, params, rows, f, bag, z):
    """The distribution's ``negative_gradient`` of the rows at ``f`` into ``z``."""
    n = z.shape[0]
    if kind == GAUSSIAN:
        for i in range(n):
            z[i] = _residual(rows, f, i)
    elif kind == BERNOULLI:
        for i in range(n):
            z[i] = rows.y[i] - 1.0 / (1.0 + math.exp(-_link(rows, f, i)))
    elif kind == POISSON:
        for i in range(n):
            z[i] = rows.y[i] - math.exp(_link(rows, f, i))
    elif kind == ADABOOST:
        for i in range(n):
            s = 2.0 * rows.y[i] - 1.0
            z[i] = (ADABOOST_Z_SIGN * s) * math.exp(-s * _link(rows, f, i))
    elif kind == HUBERIZED:
        for i in range(n):
            s = 2.0 * rows.y[i] - 1.0
            m = s * _link(rows, f, i)
            if m < HUBER_LINEAR_MARGIN:
                z[i] = -HUBER_LINEAR_SLOPE * s
            elif 1.0 - m < 0.0:
                z[i] = 0.0
            else:
                z[i] = (-2.0 * s) * (1.0 - m)
    elif kind == COXPH:
        _coxph_working_response(rows, f, bag, z)
    elif kind == LAPLACE:
        for i in range(n):
            z[i] = 1.0 if _residual(rows, f, i) > 0.0 else -1.0
    elif kind == QUANTILE:
        alpha = params[0]
        for i in range(n):
            z[i] = alpha if rows.y[i] > _link(rows, f, i) else -(1.0 - alpha)
    elif kind == TDIST:
        df = params[0]
        for i in range(n):
            u = _residual(rows, f, i)
            z[i] = 2.0 * u / (df + u * u)


@njit(cache=True, error_model="numpy", inline="always")
def _is_event(rows, i):
    """distributions.coxph._events: row ``i``'s event counts (status 1, positive weight)."""
    return rows.misc[i] == 1.0 and rows.w[i] > 0.0


@njit(cache=True, error_model="numpy")
def _coxph_working_response(rows, f, bag, z):
    """CoxPH.negative_gradient on rows in R's (decreasing time) order."""
    n = z.shape[0]
    ef = np.empty(n)
    contrib = np.zeros(n)
    risk = 0.0
    for i in range(n):
        ef[i] = math.exp(_link(rows, f, i))
        risk += rows.w[i] * ef[i] if bag[i] else 0.0
        if bag[i] and _is_event(rows, i):
            contrib[i] = rows.w[i] / risk
    tot = 0.0
    for i in range(n - 1, -1, -1):
        tot += contrib[i]
        z[i] = rows.misc[i] - ef[i] * tot


@njit(cache=True, error_model="numpy")
def leaf_values(kind, params, rows, f, z, node, n_nodes, counts, grow_pred, bag, min_obs, out):
    """The distribution's ``fit_leaves``: terminal values into ``out``
    (``node`` each row's terminal node, ``counts`` the in-bag rows per node,
    ``grow_pred`` the mean working response per node)."""
    n = node.shape[0]
    if kind == GAUSSIAN:
        for k in range(n_nodes):
            out[k] = grow_pred[k]
    elif kind == BERNOULLI:
        num = np.empty(n)
        den = np.empty(n)
        for i in range(n):
            num[i] = rows.w[i] * z[i]
            den[i] = (rows.w[i] * (rows.y[i] - z[i])) * ((1.0 - rows.y[i]) + z[i])
        _node_ratio(num, den, node, n_nodes, bag, out)
    elif kind == POISSON:
        exps = np.empty(n)
        for i in range(n):
            if bag[i]:           # in-bag rows only
                exps[i] = math.exp(_link(rows, f, i))
        poisson_leaves(rows, f, node, n_nodes, bag, exps, out)
    elif kind == ADABOOST:
        exps = np.empty(n)
        for i in range(n):
            exps[i] = math.exp(-(2.0 * rows.y[i] - 1.0) * _link(rows, f, i))
        adaboost_leaves(rows, node, n_nodes, bag, exps, out)
    elif kind == HUBERIZED:
        num = np.empty(n)
        den = np.empty(n)
        for i in range(n):
            s = 2.0 * rows.y[i] - 1.0
            m = s * f[i]                    # R ignores the offset here (but below)
            lin, flat = _huber_loss_parts(s, m)
            w = rows.w[i]
            if flat:
                num[i] = w * 0.0
                den[i] = w * 0.0
            elif lin:
                num[i] = w * (HUBER_LINEAR_SLOPE * s)
                den[i] = w * (-HUBER_LINEAR_SLOPE * s * _link(rows, f, i))  # R adds the offset
            else:                           # R's order of the products (Huberized.fit_leaves)
                num[i] = w * ((2.0 * s) * (1.0 - m))
                den[i] = (w * (1.0 - m)) * (1.0 - m)
        _node_ratio(num, den, node, n_nodes, bag, out)
    elif kind == COXPH:
        _coxph_leaves(rows, f, node, n_nodes, counts, bag, min_obs, out)
    else:                               # laplace, quantile, tdist
        _refit_by_node(kind, params, rows, f, node, n_nodes, counts, grow_pred, bag,
                       min_obs, out)


@njit(cache=True, error_model="numpy")
def _refit_by_node(kind, params, rows, f, node, n_nodes, counts, grow_pred, bag, min_obs,
                   out):
    """pygbm.distributions._common.refit_by_node: the location estimate of the
    in-bag residuals of each node with at least ``min_obs`` in-bag rows; the
    others keep their mean working response."""
    n_bag = 0
    for i in range(node.shape[0]):
        if bag[i]:
            n_bag += 1
    r = np.empty(n_bag)
    w = np.empty(n_bag)
    groups = np.empty(n_bag, dtype=np.int64)
    j = 0
    for i in range(node.shape[0]):
        if bag[i]:
            r[j] = _residual(rows, f, i)
            w[j] = rows.w[i]
            groups[j] = node[i]
            j += 1
    if kind == LAPLACE:
        est = grouped_median(r, w, groups, n_nodes, 0.0)
    elif kind == QUANTILE:
        est = grouped_quantile(r, params[0], w, groups, n_nodes, 0.0)
    else:
        est = grouped_location_m(r, params[0], w, groups, n_nodes, 0.0)
    for k in range(n_nodes):
        out[k] = est[k] if counts[k] >= min_obs else grow_pred[k]


@njit(cache=True, error_model="numpy")
def adaboost_leaves(rows, node, n_nodes, bag, exps, out):
    """AdaBoost.fit_leaves: sum(w s e) / sum(w e) per node over the in-bag rows,
    ``s = 2 y - 1``, ``exps`` the rows' ``e = exp(-s F)``."""
    n = node.shape[0]
    num = np.empty(n)
    den = np.empty(n)
    for i in range(n):
        s = 2.0 * rows.y[i] - 1.0
        e = rows.w[i] * exps[i]
        num[i] = s * e
        den[i] = e
    _node_ratio(num, den, node, n_nodes, bag, out)


@njit(cache=True, error_model="numpy")
def poisson_leaves(rows, f, node, n_nodes, bag, exps, out):
    """Poisson.fit_leaves: log(sum(w y) / sum(w exp(F))) per node, -19 without
    counts, 0 without weight, clipped (without an offset) so that every row
    of the node stays within +-19; ``exps`` the rows' exp(F) (read for the
    in-bag rows only)."""
    sums = np.zeros((2, n_nodes))
    num, den = sums[0], sums[1]
    for i in range(node.shape[0]):
        if bag[i]:
            num[node[i]] += rows.w[i] * rows.y[i]
            den[node[i]] += rows.w[i] * exps[i]
    for k in range(n_nodes):
        if num[k] == 0.0:
            out[k] = POISSON_ZERO_COUNT_PRED
        elif den[k] == 0.0:
            out[k] = 0.0
        else:
            out[k] = _log(num[k] / den[k])
    if rows.offset.shape[0] == 0:
        bounds = np.empty((2, n_nodes))
        fmax, fmin = bounds[0], bounds[1]
        fmax[:] = -np.inf
        fmin[:] = np.inf
        for i in range(node.shape[0]):
            fmax[node[i]] = _maximum(fmax[node[i]], f[i])
            fmin[node[i]] = _minimum(fmin[node[i]], f[i])
        for k in range(n_nodes):
            out[k] = _maximum(_minimum(out[k], POISSON_F_CAP - fmax[k]),
                              -POISSON_F_CAP - fmin[k])


@njit(cache=True, error_model="numpy")
def _inverse_as_r(h):
    """pygbm.distributions.coxph._inverse_as_r: R's LU inverse without
    pivoting, in the same order of operations."""
    n = h.shape[0]
    a = h.copy()
    for j in range(1, n):
        a[0, j] = a[0, j] / a[0, 0]
    for i in range(1, n):
        for j in range(i, n):                         # column i of L
            s = 0.0
            for k in range(i):
                s += a[j, k] * a[k, i]
            a[j, i] = a[j, i] - s
        for j in range(i + 1, n):                     # row i of U
            s = 0.0
            for k in range(i):
                s += a[i, k] * a[k, j]
            a[i, j] = (a[i, j] - s) / a[i, i]
    for i in range(n):                                # L^-1
        a[i, i] = 1.0 / a[i, i]
        for j in range(i + 1, n):
            x = 0.0
            for k in range(i, j):
                x -= a[j, k] * a[k, i]
            a[j, i] = x / a[j, j]
    for i in range(n):                                # U^-1
        for j in range(i + 1, n):
            s = 0.0
            for k in range(i, j):
                s += a[k, j] * (1.0 if k == i else a[i, k])
            a[i, j] = -s
    inv = np.empty_like(a)                            # U^-1 L^-1
    for j in range(n):
        for i in range(n):
            s = 0.0
            for k in range(max(i, j), n):
                s += (1.0 if k == j else a[j, k]) * a[k, i]
            inv[j, i] = s
    return inv


@njit(cache=True, error_model="numpy")
def _coxph_leaves(rows, f, node, n_nodes, counts, bag, min_obs, out):
    """CoxPH.fit_leaves: one Newton step on the partial likelihood over the
    nodes with at least ``min_obs`` in-bag rows (the last of them fixed at 0),
    every term added over the events in their time order, as R writes it."""
    for k in range(n_nodes):
        out[k] = 0.0
    k2node = np.empty(n_nodes, dtype=np.int64)
    slot = np.full(n_nodes, -1, dtype=np.int64)
    K = 0
    for k in range(n_nodes):
        if counts[k] >= min_obs:
            k2node[K] = k
            slot[k] = K
            K += 1
    if K < 2:
        return
    free = K - 1
    share = np.zeros(free)            # running sums of e over each free node
    g = np.zeros(free)
    h = np.zeros((free, free))
    risk = 0.0
    for i in range(node.shape[0]):
        in_rows = bag[i] and slot[node[i]] >= 0
        e = rows.w[i] * math.exp(_link(rows, f, i)) if in_rows else 0.0
        risk += e
        for k in range(free):
            share[k] += e if node[i] == k2node[k] else 0.0
        if not (in_rows and _is_event(rows, i)):
            continue
        we = rows.w[i]
        for k in range(free):
            q = share[k] / risk
            g[k] += we * ((1.0 if node[i] == k2node[k] else 0.0) - q)
            wq = we * share[k] / risk
            h[k, k] = h[k, k] - wq * (1.0 - q)
            for m in range(k):
                h[k, m] += wq * share[m] / risk
    for k in range(free):
        for m in range(k):
            h[m, k] = h[k, m]
    hinv = _inverse_as_r(h)
    pred = np.zeros(free)
    for m in range(free):
        for k in range(free):
            if not np.isfinite(hinv[k, m]):
                pred[k] = 0.0
                break
            pred[k] -= hinv[k, m] * g[m]
    for k in range(free):
        out[k2node[k]] = pred[k]


@njit(cache=True, error_model="numpy")
def deviance(kind, params, rows, f):
    """The distribution's ``deviance`` of the rows at ``f`` (NaN without rows
    where NumPy gives NaN)."""
    n = f.shape[0]
    buf = np.empty(n)               # the rows' terms (one allocation per call)
    if kind == GAUSSIAN:
        for i in range(n):
            r = _residual(rows, f, i)
            buf[i] = rows.w[i] * r * r
        return numpy_sum(buf[:n]) / numpy_sum(rows.w[:n])
    if kind == BERNOULLI:
        for i in range(n):
            F = _link(rows, f, i)
            buf[i] = rows.w[i] * (rows.y[i] * F - _log1pexp(F))
        return -2.0 * numpy_sum(buf[:n]) / numpy_sum(rows.w[:n])
    if kind == POISSON:
        for i in range(n):
            F = _link(rows, f, i)
            buf[i] = rows.w[i] * (rows.y[i] * F - math.exp(F))
        return -2.0 * numpy_sum(buf[:n]) / numpy_sum(rows.w[:n])
    if kind == ADABOOST:
        for i in range(n):
            s = 2.0 * rows.y[i] - 1.0
            buf[i] = math.exp(-s * _link(rows, f, i))
        return _weighted_mean(buf, rows)
    if kind == HUBERIZED:
        for i in range(n):
            s = 2.0 * rows.y[i] - 1.0
            m = s * _link(rows, f, i)
            if s * f[i] < HUBER_LINEAR_MARGIN:      # R's linear-part test uses f alone
                buf[i] = -HUBER_LINEAR_SLOPE * m
            elif 1.0 - m < 0.0:
                buf[i] = 0.0
            else:
                buf[i] = (1.0 - m) * (1.0 - m)
        return _weighted_mean(buf, rows)
    if kind == COXPH:
        return _coxph_deviance(rows, f)
    if kind == LAPLACE:
        for i in range(n):
            buf[i] = rows.w[i] * abs(_residual(rows, f, i))
        return numpy_sum(buf[:n]) / numpy_sum(rows.w[:n])
    if kind == QUANTILE:
        for i in range(n):
            buf[i] = _check_loss(rows.y[i], _link(rows, f, i), params[0])
        return _weighted_mean(buf, rows)
    if kind == TDIST:
        for i in range(n):
            u = _residual(rows, f, i)
            buf[i] = _log(params[0] + u * u)
        return _weighted_mean(buf, rows)
    return np.nan


@njit(cache=True, error_model="numpy")
def _coxph_deviance(rows, f):
    """CoxPH.deviance on rows in time order."""
    n = f.shape[0]
    dl_buf = np.empty(n)
    w_buf = np.empty(n)
    n_ev = 0
    risk = 0.0
    for i in range(n):
        F = _link(rows, f, i)
        risk += rows.w[i] * math.exp(F)
        if _is_event(rows, i):
            dl_buf[n_ev] = rows.w[i] * (F - _log(risk))
            w_buf[n_ev] = rows.w[i]
            n_ev += 1
    return (-2.0 * numpy_sum(dl_buf[:n_ev])) / numpy_sum(w_buf[:n_ev])


@njit(cache=True, error_model="numpy")
def bag_improvement(kind, params, rows, f, fadj, bag, shrinkage):
    """The distribution's ``bag_improvement`` of the step ``shrinkage * fadj``."""
    n = f.shape[0]
    gain = np.empty(n)
    if kind == GAUSSIAN:
        # every row (the in-bag rows' gains are not read): no branch on the bag
        for i in range(n):
            r = _residual(rows, f, i)
            step = shrinkage * fadj[i]
            gain[i] = step * (2.0 * r - step)
    elif kind == BERNOULLI:
        for i in range(n):
            if bag[i]:           # out-of-bag rows only
                continue
            F = _link(rows, f, i)
            step = shrinkage * fadj[i]
            gain[i] = rows.y[i] * step + _log1pexp(F) - _log1pexp(F + step)
    elif kind == POISSON:
        for i in range(n):
            if bag[i]:           # out-of-bag rows only
                continue
            F = _link(rows, f, i)
            step = shrinkage * fadj[i]
            gain[i] = rows.y[i] * step - math.exp(F + step) + math.exp(F)
    elif kind == ADABOOST:
        for i in range(n):
            if bag[i]:           # out-of-bag rows only
                continue
            F = _link(rows, f, i)
            s = 2.0 * rows.y[i] - 1.0
            step = shrinkage * fadj[i]
            gain[i] = math.exp(-s * F) - math.exp(-s * (F + step))
    elif kind == HUBERIZED:
        return _huberized_bag_improvement(rows, f, fadj, bag, shrinkage)
    elif kind == COXPH:
        return _coxph_bag_improvement(rows, fadj, bag, shrinkage)
    elif kind == LAPLACE:
        for i in range(n):       # every row, as gaussian
            F = _link(rows, f, i)
            step = shrinkage * fadj[i]
            gain[i] = abs(rows.y[i] - F) - abs(rows.y[i] - F - step)
    elif kind == QUANTILE:
        for i in range(n):
            if bag[i]:           # out-of-bag rows only
                continue
            F = _link(rows, f, i)
            step = shrinkage * fadj[i]
            gain[i] = (_check_loss(rows.y[i], F, params[0])
                       - _check_loss(rows.y[i], F + step, params[0]))
    elif kind == TDIST:
        df = params[0]
        for i in range(n):
            if bag[i]:           # out-of-bag rows only
                continue
            u = _residual(rows, f, i)
            step = shrinkage * fadj[i]
            gain[i] = _log(df + u * u) - _log(df + (u - step) * (u - step))
    return oob_average(gain, rows, bag)


@njit(cache=True, error_model="numpy")
def _huberized_bag_improvement(rows, f, fadj, bag, shrinkage):
    """Huberized.bag_improvement: R's numerator over the out-of-bag rows and
    denominator over those outside the quadratic part."""
    n = f.shape[0]
    num_buf = np.empty(n)
    den_buf = np.empty(n)
    n_num = 0
    n_den = 0
    for i in range(n):
        if bag[i]:
            continue
        F = _link(rows, f, i)
        s = 2.0 * rows.y[i] - 1.0
        step = shrinkage * fadj[i]
        m = s * F
        lin, flat = _huber_loss_parts(s, m)
        m2 = s * (F + step)
        if lin:
            gain = -HUBER_LINEAR_SLOPE * m - (-HUBER_LINEAR_SLOPE * m2)
        elif flat:
            gain = 0.0
        else:
            gain = (1.0 - m) * (1.0 - m) - (1.0 - m2) * (1.0 - m2)
        num_buf[n_num] = rows.w[i] * gain
        n_num += 1
        if lin or flat:
            den_buf[n_den] = rows.w[i]
            n_den += 1
    return numpy_sum(num_buf[:n_num]) / numpy_sum(den_buf[:n_den])


@njit(cache=True, error_model="numpy")
def _coxph_bag_improvement(rows, fadj, bag, shrinkage):
    """CoxPH.bag_improvement with R's F = 0, on rows in time order."""
    n = fadj.shape[0]
    gain_buf = np.empty(n)
    w_buf = np.empty(n)
    n_ev = 0
    num = 0.0
    den = 0.0
    for i in range(n):
        oob = not bag[i]
        step = shrinkage * fadj[i]
        num += rows.w[i] * math.exp(0.0 + step) if oob else 0.0
        den += rows.w[i] * math.exp(0.0) if oob else 0.0
        if oob and _is_event(rows, i):
            gain_buf[n_ev] = rows.w[i] * (step - _log(num) + _log(den))
            w_buf[n_ev] = rows.w[i]
            n_ev += 1
    return numpy_sum(gain_buf[:n_ev]) / numpy_sum(w_buf[:n_ev])
