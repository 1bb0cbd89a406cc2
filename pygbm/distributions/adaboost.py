"""AdaBoost exponential loss (R gbm's ``distribution = "adaboost"``)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from .._rmath import exp_r, log_r, sequential_sum
from ._common import as_binary_response, check_class_weights, full_f, node_ratio, oob_average
from .base import Distribution


class AdaBoost(Distribution):
    """Exponential loss ``exp(-(2y - 1) F)``.

    * deviance: ``sum(w * exp(-(2y-1) F)) / sum(w)``
    * working response, as R 2.1.8 computes it: ``z = -(2y-1) exp(-(2y-1) F)``,
      which is the derivative of the per-row deviance itself, i.e. *minus*
      the negative gradient (constant -1).  Split search is sign-blind except
      under monotone constraints (``var_monotone``): R applies them to this z,
      so that its +1 gives a decreasing fit (checked against R: a +1 constraint
      on pima's glucose blocks the split for adaboost and allows it for
      bernoulli); pygbm turns them by ``z_sign`` (an R bug, fixed).
    * initial value: ``0.5 * log(sum_{y=1} w e^{-o} / sum_{y=0} w e^{o})``
    * terminal nodes: ``sum(w (2y-1) e^{-(2y-1)F}) / sum(w e^{-(2y-1)F})`` for
      every node, 0 when the denominator is 0.
    """

    name = "adaboost"
    zero_one_response = True
    response_link = "logistic2"

    #: sign of R's working response relative to the negative gradient
    z_sign: ClassVar[float] = -1.0

    def check_response(self, y):
        return as_binary_response(y, self.name)

    def check_initial_value(self, y, w) -> None:
        check_class_weights(self.name, y, w, both=True)

    def init_f(self, t, ctx):
        y, offset, w = t.y, t.offset, t.w
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

    def deviance(self, t, f, ctx):
        y, offset, w = t.y, t.offset, t.w
        F = full_f(f, offset)
        s = 2.0 * np.asarray(y, dtype=float) - 1.0
        w = np.asarray(w, dtype=float)
        return float(np.sum(w * ctx.model_exp(-s * F)) / np.sum(w))

    def negative_gradient(self, t, f, bag, ctx):
        y, offset = t.y, t.offset
        F = full_f(f, offset)
        s = 2.0 * np.asarray(y, dtype=float) - 1.0
        return self.z_sign * s * ctx.model_exp(-s * F)

    def fit_leaves(self, t, f, z, leaves, bag, ctx):
        y, offset, w = t.y, t.offset, t.w
        node, n_nodes = leaves.node, leaves.n_nodes
        F = full_f(f, offset)
        s = 2.0 * np.asarray(y, dtype=float) - 1.0
        w = np.asarray(w, dtype=float)
        e = w * ctx.model_exp(-s * F)
        return node_ratio(s * e, e, node, n_nodes, bag)

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        y, offset, w = t.y, t.offset, t.w
        F = full_f(f, offset)
        s = 2.0 * np.asarray(y, dtype=float) - 1.0
        step = shrinkage * np.asarray(fadj, dtype=float)
        return oob_average(ctx.model_exp(-s * F) - ctx.model_exp(-s * (F + step)), w, bag)
