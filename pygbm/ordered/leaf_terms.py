"""Leaf estimators that are functions of running sums (ordered boosting's
supporting models with ``full_history=True``).

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
"""
from __future__ import annotations

import numpy as np

from .._rmath import log_r
from ..distributions._common import full_f, residual
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


def row_terms(dist, t, f: np.ndarray, ctx) -> tuple[np.ndarray, np.ndarray]:
    """Each row's numerator and denominator term of its leaf's estimate at
    link values ``f`` (targets ``t``), as ``dist.fit_leaves`` forms them."""
    code = code_of(dist)
    y, w = np.asarray(t.y, dtype=float), np.asarray(t.w, dtype=float)
    if code == GAUSSIAN:
        return w * residual(y, f, t.offset), w
    if code == BERNOULLI:
        z = dist.negative_gradient(t, f, None, ctx)
        return w * z, w * (y - z) * (1.0 - y + z)
    if code == POISSON:
        return w * y, w * ctx.model_exp(full_f(f, t.offset))
    s = 2.0 * y - 1.0
    if code == ADABOOST:
        e = w * ctx.model_exp(-s * full_f(f, t.offset))
        return s * e, e
    if code == HUBERIZED:
        g, h = huberized_terms(y, f, t.offset)
        return w * g, w * h
    raise ValueError(f"no running-sum leaf estimator for distribution {dist.name!r}")


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
