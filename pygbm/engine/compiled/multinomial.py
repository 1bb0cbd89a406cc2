"""The multinomial's methods, compiled, for the compiled multi-class loop.

:class:`pygbm.distributions.multinomial.Multinomial` computes the iteration's
softmax, a class tree's working response and Newton steps, an iteration's
out-of-bag improvement, and the deviance with NumPy and the fit's exp and log;
the kernels here compute the same numbers, bit for bit, one row at a time
(the C library's exp and log, which are the NumPy methods' in R's
exact mode; the softmax's row sums added class by class; the deviance's sums
NumPy's pairwise way; the Newton sums in row order, as ``np.bincount``).
``tests/engine/test_compiled_multinomial.py`` compares them with the
distribution on random data.

The link values come class by class, ``f`` (K, n) (one contiguous row per
class: the loop's updates of one class are one row), the probabilities
likewise.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...distributions._newton import MIN_HESSIAN
from ...distributions.multinomial import MAX_STEP
from .arith import numpy_sum
from .losses import oob_average


@njit(cache=True, error_model="numpy")
def _row_partition(rows, f, i, e):
    """Row ``i``'s largest link value ``M`` (offset included), ``e[k] =
    exp(F_k - M)`` and their sum added class by class: ``(M, S)``."""
    K = f.shape[0]
    has_offset = rows.offset.shape[0] > 0
    for k in range(K):                 # the link values first, then their exp
        e[k] = f[k, i] + rows.offset[i] if has_offset else f[k, i]
    M = e[0]
    for k in range(1, K):
        if e[k] > M:
            M = e[k]
    for k in range(K):
        e[k] = math.exp(e[k] - M)
    S = e[0]
    for k in range(1, K):
        S += e[k]
    return M, S


@njit(cache=True, error_model="numpy")
def softmax_into(rows, f, p):
    """The iteration's probabilities ``p`` (K, n) at the link values ``f``."""
    K, n = f.shape
    e = np.empty(K)
    for i in range(n):
        _, S = _row_partition(rows, f, i, e)
        for k in range(K):
            p[k, i] = e[k] / S


@njit(cache=True, error_model="numpy")
def working_response(rows, p_k, k, z, wz):
    """Class ``k``'s working response ``1{y = k} - p_k`` and ``w * z``."""
    for i in range(z.shape[0]):
        is_k = 1.0 if rows.y[i] == k else 0.0
        z[i] = is_k - p_k[i]
        wz[i] = rows.w[i] * z[i]


@njit(cache=True, error_model="numpy")
def newton_response(rows, p_k, z, gw, wz):
    """Newton splits (``Multinomial.growth_response``): the tree is grown on
    ``z / h`` with weights ``gw = w * h`` (``h = max(p (1 - p), MIN_HESSIAN)``);
    ``wz`` gets ``gw * (z / h)``, as the grower forms it."""
    for i in range(z.shape[0]):
        h = max(p_k[i] * (1.0 - p_k[i]), MIN_HESSIAN)
        gw[i] = rows.w[i] * h
        wz[i] = gw[i] * (z[i] / h)


@njit(cache=True, error_model="numpy")
def leaf_values(rows, z, p_k, node_of, inbag, n_classes, values):
    """The terminal nodes' Newton steps (``Multinomial.fit_leaves``) into
    ``values``: ``(K - 1) / K * sum(w z) / sum(w p (1 - p))`` over each node's
    in-bag rows, 0 where the denominator is at most ``MIN_HESSIAN``, capped
    at ``MAX_STEP``."""
    n_term = values.shape[0]
    num = np.zeros(n_term)
    den = np.zeros(n_term)
    for i in range(z.shape[0]):
        if inbag[i]:
            num[node_of[i]] += rows.w[i] * z[i]
            den[node_of[i]] += rows.w[i] * p_k[i] * (1.0 - p_k[i])
    scale = (n_classes - 1.0) / n_classes
    for j in range(n_term):
        v = scale * num[j] / den[j] if den[j] > MIN_HESSIAN else 0.0
        values[j] = min(max(v, -MAX_STEP), MAX_STEP)


@njit(cache=True, error_model="numpy")
def bag_improvement(rows, p, steps, bag, shrinkage):
    """``Multinomial.bag_improvement``: the iteration's K steps together
    (``steps`` (K, n): each class tree's step before shrinkage) from its
    probabilities ``p`` (K, n), averaged over the out-of-bag rows."""
    K, n = steps.shape
    gain = np.empty(n)
    for i in range(n):
        if bag[i]:               # out-of-bag rows only
            continue
        total = p[0, i] * math.exp(shrinkage * steps[0, i])
        for k in range(1, K):
            total = total + p[k, i] * math.exp(shrinkage * steps[k, i])
        gain[i] = shrinkage * steps[int(rows.y[i]), i] - math.log(total)
    return oob_average(gain, rows, bag)


@njit(cache=True, error_model="numpy")
def deviance(rows, f):
    """``Multinomial.deviance``: ``-2 * sum(w * log p[y]) / sum(w)``."""
    K, n = f.shape
    e = np.empty(K)
    buf = np.empty(n)
    for i in range(n):
        M, S = _row_partition(rows, f, i, e)
        y = int(rows.y[i])
        F_y = f[y, i] + rows.offset[i] if rows.offset.shape[0] else f[y, i]
        buf[i] = rows.w[i] * (F_y - (M + math.log(S)))
    return -2.0 * numpy_sum(buf[:n]) / numpy_sum(rows.w[:n])
