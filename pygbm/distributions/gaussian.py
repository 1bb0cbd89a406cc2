"""Squared error (R gbm's ``distribution = "gaussian"``)."""
from __future__ import annotations

import numpy as np

from .._rmath import sequential_sum
from ._common import as_numeric_response, oob_average, residual
from .base import Distribution


class Gaussian(Distribution):
    """Squared-error loss.

    * deviance: ``sum(w * (y - offset - f)^2) / sum(w)``
    * working response: ``z = y - offset - f`` (the negative gradient of
      ``(y - F)^2 / 2``, i.e. half the negative derivative of the deviance)
    * initial value: the weighted mean of ``y - offset``
    * terminal nodes: R does not re-estimate them; the weighted mean of ``z``
      computed while growing (``grow_pred``) is kept.
    """

    name = "gaussian"

    def check_response(self, y):
        return as_numeric_response(y, self.name)

    def init_f(self, t, ctx):
        y, offset, w = t.y, t.offset, t.w
        r = residual(y, 0.0, offset)
        w = np.asarray(w, dtype=float)
        return float(sequential_sum(w * r) / sequential_sum(w))

    def deviance(self, t, f, ctx):
        y, offset, w = t.y, t.offset, t.w
        r = residual(y, f, offset)
        w = np.asarray(w, dtype=float)
        return float(np.sum(w * r * r) / np.sum(w))

    def negative_gradient(self, t, f, bag, ctx):
        return residual(t.y, f, t.offset)

    def fit_leaves(self, t, f, z, leaves, bag, ctx):
        # R's CGaussian::FitBestConstant does nothing: the tree already holds
        # the weighted mean working response of every node.
        return np.array(leaves.grow_pred, dtype=float, copy=True)[:leaves.n_nodes]

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        y, offset, w = t.y, t.offset, t.w
        r = residual(y, f, offset)
        step = shrinkage * np.asarray(fadj, dtype=float)
        return oob_average(step * (2.0 * r - step), w, bag)
