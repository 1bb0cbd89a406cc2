"""Leaf estimators that are functions of running sums, and the working
responses, of ordered boosting's supporting models.

Five distributions estimate a leaf from two sums over its rows: gaussian
(sum w z / sum w), bernoulli (a Newton step sum w z / sum w p (1 - p)),
adaboost and huberized (R's ratios) and poisson (log of sum w y / sum w
exp F, R's -19 for a zero count, clipped). Each row's two terms
(:func:`row_terms`) and the value of two sums (:func:`leaf_values`) are
written here as the distributions' ``fit_leaves`` compute them, so that
the sums of a whole leaf give ``fit_leaves``' value bit for bit
(``tests/ordered/test_full_history.py`` checks it); a running sum gives
each row the leaf value of the rows before it. Laplace, quantile and tdist
estimate medians and M-estimates of the rows, which running sums cannot
give: ``full_history`` refuses them (:mod:`.spec`).

Bernoulli, poisson and adaboost read each row's link value F only through
one exponential, exp(sign F) (:func:`exp_sign`). The supporting models keep
it beside F and update it by the factor exp(sign x) when a tree adds x, so
that a tree costs an exponential per leaf instead of one per row and fold
(``e``: that kept value; None for the others, which have no exponential).
"""
from __future__ import annotations

import numpy as np

from .._rmath import exp_r, log_r
from ..distributions._common import full_f, residual
from ..distributions._newton import MIN_HESSIAN
from ..distributions.adaboost import AdaBoost
from ..distributions.bernoulli import Bernoulli
from ..distributions.gaussian import Gaussian
from ..distributions.huberized import Huberized
from ..distributions.huberized import leaf_terms as huberized_terms
from ..distributions.poisson import F_CAP, ZERO_COUNT_PRED, Poisson

#: the compiled kernels' code of each distribution class (:mod:`.compiled.support`)
CODES = {Gaussian: 0, Bernoulli: 1, Poisson: 2, AdaBoost: 3, Huberized: 4}
GAUSSIAN, BERNOULLI, POISSON, ADABOOST, HUBERIZED = range(5)


def code_of(dist) -> int | None:
    """The code of a distribution whose leaves are functions of running
    sums (None: medians or M-estimates, or another class)."""
    return CODES.get(type(dist))


def exp_sign(dist, y: np.ndarray) -> np.ndarray | None:
    """Each row's sign in the exponential exp(sign F) its terms read:
    bernoulli -1, poisson +1, adaboost -(2y - 1); None where there is none."""
    code = code_of(dist)
    y = np.asarray(y, dtype=float)
    if code == BERNOULLI:
        return np.full(y.shape[0], -1.0)
    if code == POISSON:
        return np.ones(y.shape[0])
    if code == ADABOOST:
        return -(2.0 * y - 1.0)
    return None


def exp_of(dist, t, f: np.ndarray) -> np.ndarray | None:
    """exp(sign F) of the rows at link values ``f`` (the C library's exp),
    None where the distribution has no exponential."""
    sign = exp_sign(dist, t.y)
    return None if sign is None else exp_r(sign * full_f(f, t.offset))


def working_response(dist, t, f: np.ndarray, e: np.ndarray | None, ctx) -> np.ndarray:
    """The rows' working response at ``f``, from ``e`` = exp(sign F) where
    the distribution has it (the same formula as its ``negative_gradient``)."""
    code = code_of(dist)
    y = np.asarray(t.y, dtype=float)
    if e is None:
        return dist.negative_gradient(t, f, np.ones(y.shape[0], dtype=bool), ctx)
    if code == BERNOULLI:
        return y - 1.0 / (1.0 + e)
    if code == POISSON:
        return y - e
    return dist.z_sign * (2.0 * y - 1.0) * e


def growth_response(dist, t, f: np.ndarray, e: np.ndarray | None, z: np.ndarray, ctx):
    """The distribution's ``growth_response`` (R's (z, w), or Newton's (z / h,
    w h)), the Hessian of bernoulli and poisson from ``e``."""
    if e is None or dist.gradient_splits:
        return dist.growth_response(t, f, z, ctx)
    if code_of(dist) == BERNOULLI:
        with np.errstate(divide="ignore", over="ignore"):   # e = 0 or inf: h = 0
            h = 1.0 / ((1.0 + e) * (1.0 + 1.0 / e))
    else:
        h = e
    h = np.maximum(h, MIN_HESSIAN)
    return z / h, np.asarray(t.w, dtype=float) * h


def row_terms(dist, t, f: np.ndarray, e: np.ndarray | None = None):
    """Each row's numerator and denominator term of its leaf's estimate at
    link values ``f`` (targets ``t``; ``e`` = exp(sign F), computed with the
    C library's exp when not given), as ``dist.fit_leaves`` forms them."""
    code = code_of(dist)
    y, w = np.asarray(t.y, dtype=float), np.asarray(t.w, dtype=float)
    if code == GAUSSIAN:
        return w * residual(y, f, t.offset), w
    if code == HUBERIZED:
        return huberized_terms(y, f, t.offset, w)
    if code is None:
        raise ValueError(f"no running-sum leaf estimator for distribution {dist.name!r}")
    e = exp_of(dist, t, f) if e is None else e
    if code == BERNOULLI:
        z = y - 1.0 / (1.0 + e)
        return w * z, w * (y - z) * (1.0 - y + z)
    if code == POISSON:
        return w * y, w * e
    we = w * e
    return (2.0 * y - 1.0) * we, we


def leaf_values(dist, num: np.ndarray, den: np.ndarray, f_range=None) -> np.ndarray:
    """The leaf estimates of sums ``num``, ``den``; poisson without an offset
    clips them to [-19 - min f, 19 - max f] with ``f_range`` = (min f, max f)
    of the leaves' rows (None: no clipping)."""
    num, den = np.asarray(num, dtype=float), np.asarray(den, dtype=float)
    if code_of(dist) != POISSON:
        out = np.zeros(num.shape)
        ok = den != 0
        out[ok] = num[ok] / den[ok]
        return out
    with np.errstate(divide="ignore", invalid="ignore"):
        est = log_r(num / den)
    out = np.where(num == 0.0, ZERO_COUNT_PRED, np.where(den == 0.0, 0.0, est))
    if f_range is not None:
        out = np.minimum(out, F_CAP - f_range[1])
        out = np.maximum(out, -F_CAP - f_range[0])
    return out
