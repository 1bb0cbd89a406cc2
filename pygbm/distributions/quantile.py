"""Quantile (check) loss (R gbm's ``distribution = list(name="quantile", alpha=)``)."""
from __future__ import annotations

import numbers
from functools import partial

import numpy as np

from ._common import as_numeric_response, full_f, oob_average, refit_by_node, residual
from ._weighted import grouped_weighted_quantile
from .base import Distribution


def _check_loss(y, F, alpha):
    return np.where(y > F, alpha * (y - F), (1.0 - alpha) * (F - y))


class Quantile(Distribution):
    """Check loss for the ``alpha`` quantile.

    * deviance: ``sum(w * rho(y - F)) / sum(w)``, ``rho(u) = alpha u`` for
      ``u > 0`` and ``(alpha - 1) u`` otherwise
    * working response: ``alpha`` if ``y > F`` else ``-(1 - alpha)`` (minus the
      derivative of the per-row deviance, constant 1)
    * initial value / terminal nodes: the ``alpha`` quantile of ``y - offset``
      (in-bag ``y - offset - f`` per node with at least ``min_obs`` in-bag
      rows; other nodes keep ``grow_pred``).  R's rule is the order statistic
      at index ``floor(n * alpha)`` (0-based) and ignores weights (R refuses
      unequal weights); here it is the weighted generalisation of
      ``_weighted.grouped_weighted_quantile``, identical to R's for equal
      weights.
    """

    name = "quantile"

    def __init__(self, alpha=None, **params):
        if params:
            raise ValueError(
                f"distribution 'quantile' takes only 'alpha'; got {sorted(params)}"
            )
        if alpha is None:
            raise ValueError(
                "distribution 'quantile' needs the parameter alpha, e.g. "
                "{'name': 'quantile', 'alpha': 0.25}"
            )
        if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real):
            raise TypeError(f"quantile alpha must be a number in (0, 1); got {alpha!r}")
        alpha = float(alpha)
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"quantile alpha must be strictly between 0 and 1; got {alpha!r}")
        self.alpha = alpha

    def params(self):
        return {"alpha": self.alpha}

    def check_response(self, y):
        return as_numeric_response(y, self.name)

    def init_f(self, t, ctx):
        y, offset, w = t.y, t.offset, t.w
        r = residual(y, 0.0, offset) if offset is not None else np.asarray(y, dtype=float)
        return float(grouped_weighted_quantile(r, self.alpha, w)[0])

    def deviance(self, t, f, ctx):
        y, offset, w = t.y, t.offset, t.w
        F = full_f(f, offset)
        w = np.asarray(w, dtype=float)
        return float(np.sum(w * _check_loss(np.asarray(y, dtype=float), F, self.alpha))
                     / np.sum(w))

    def negative_gradient(self, t, f, bag, ctx):
        y, offset = t.y, t.offset
        F = full_f(f, offset)
        return np.where(np.asarray(y, dtype=float) > F, self.alpha, -(1.0 - self.alpha))

    def fit_leaves(self, t, f, z, leaves, bag, ctx):
        return refit_by_node(t, f, leaves, bag,
                             partial(grouped_weighted_quantile, alpha=self.alpha))

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        y, offset, w = t.y, t.offset, t.w
        F = full_f(f, offset)
        y = np.asarray(y, dtype=float)
        step = shrinkage * np.asarray(fadj, dtype=float)
        gain = _check_loss(y, F, self.alpha) - _check_loss(y, F + step, self.alpha)
        return oob_average(gain, w, bag)
