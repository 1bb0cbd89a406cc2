"""Absolute error (R gbm's ``distribution = "laplace"``)."""
from __future__ import annotations

import numpy as np

from ._common import as_numeric_response, full_f, oob_average, refit_by_node, residual
from ._weighted import grouped_weighted_median
from .base import Distribution


class Laplace(Distribution):
    """Absolute-error loss.

    * deviance: ``sum(w * |y - offset - f|) / sum(w)``
    * working response: ``z = +1`` if ``y - offset - f > 0`` else ``-1``
      (minus the derivative of the per-row deviance, constant 1).
    * initial value: weighted median of ``y - offset`` (see ``_weighted``)
    * terminal nodes: weighted median of the in-bag ``y - offset - f`` in
      nodes with at least ``min_obs`` in-bag rows; other nodes keep
      ``grow_pred`` (the mean working response), as R does.
    """

    name = "laplace"

    def check_response(self, y):
        return as_numeric_response(y, self.name)

    def init_f(self, t, ctx):
        y, offset, w = t.y, t.offset, t.w
        r = residual(y, 0.0, offset) if offset is not None else np.asarray(y, dtype=float)
        return float(grouped_weighted_median(r, w)[0])

    def deviance(self, t, f, ctx):
        y, offset, w = t.y, t.offset, t.w
        r = residual(y, f, offset)
        w = np.asarray(w, dtype=float)
        return float(np.sum(w * np.abs(r)) / np.sum(w))

    def negative_gradient(self, t, f, bag, ctx):
        y, offset = t.y, t.offset
        return np.where(residual(y, f, offset) > 0.0, 1.0, -1.0)

    def fit_leaves(self, t, f, z, leaves, bag, ctx):
        return refit_by_node(t, f, leaves, bag, grouped_weighted_median)

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        y, offset, w = t.y, t.offset, t.w
        F = full_f(f, offset)
        y = np.asarray(y, dtype=float)
        step = shrinkage * np.asarray(fadj, dtype=float)
        return oob_average(np.abs(y - F) - np.abs(y - F - step), w, bag)
