"""AdaBoost exponential loss (R gbm's ``distribution = "adaboost"``)."""
from __future__ import annotations

import numpy as np

from .._rmath import exp_r, log_r, sequential_sum
from ._common import as_binary_response, full_f, node_ratio, oob_average
from .base import Distribution


class AdaBoost(Distribution):
    """Exponential loss ``exp(-(2y - 1) F)``.

    * deviance: ``sum(w * exp(-(2y-1) F)) / sum(w)``
    * working response, as R 2.1.8 computes it: ``z = -(2y-1) exp(-(2y-1) F)``,
      which is the derivative of the per-row deviance itself, i.e. *minus*
      the negative gradient (constant -1).  Split search is sign-blind except
      under monotone constraints (``var_monotone``), where R's sign is what
      decides; checked against R (a +1 constraint on pima's glucose blocks the
      split for adaboost and allows it for bernoulli).
    * initial value: ``0.5 * log(sum_{y=1} w e^{-o} / sum_{y=0} w e^{o})``
    * terminal nodes: ``sum(w (2y-1) e^{-(2y-1)F}) / sum(w e^{-(2y-1)F})`` for
      every node, 0 when the denominator is 0.
    """

    name = "adaboost"
    response_link = "logistic2"

    #: sign of R's working response relative to the negative gradient
    z_sign = -1.0

    def check_response(self, y):
        return as_binary_response(y, self.name)

    def init_f(self, y, offset, w, misc):
        y = np.asarray(y, dtype=float)
        w = np.asarray(w, dtype=float)
        pos = y == 1.0
        if offset is None:
            num = sequential_sum(w[pos])
            den = sequential_sum(w[~pos])
        else:
            o = np.asarray(offset, dtype=float)
            num = sequential_sum(w[pos] * exp_r(-o[pos]))
            den = sequential_sum(w[~pos] * exp_r(o[~pos]))
        return float(0.5 * log_r(num / den))

    def deviance(self, y, f, offset, w, misc):
        F = full_f(f, offset)
        s = 2.0 * np.asarray(y, dtype=float) - 1.0
        w = np.asarray(w, dtype=float)
        return float(np.sum(w * np.exp(-s * F)) / np.sum(w))

    def negative_gradient(self, y, f, offset, w, misc, inbag):
        F = full_f(f, offset)
        s = 2.0 * np.asarray(y, dtype=float) - 1.0
        return self.z_sign * s * self.model_exp(-s * F)

    def fit_leaves(self, y, f, offset, w, misc, z, node, n_nodes, inbag,
                   node_n, grow_pred, min_obs):
        F = full_f(f, offset)
        s = 2.0 * np.asarray(y, dtype=float) - 1.0
        w = np.asarray(w, dtype=float)
        e = w * self.model_exp(-s * F)
        return node_ratio(s * e, e, node, n_nodes, inbag)

    def bag_improvement(self, y, f, offset, w, misc, fadj, inbag, shrinkage):
        F = full_f(f, offset)
        s = 2.0 * np.asarray(y, dtype=float) - 1.0
        step = shrinkage * np.asarray(fadj, dtype=float)
        return oob_average(np.exp(-s * F) - np.exp(-s * (F + step)), w, inbag)
