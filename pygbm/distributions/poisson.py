"""Poisson counts, log link (R gbm's ``distribution = "poisson"``)."""
from __future__ import annotations

import numpy as np

from .._rmath import exp_r, log_r, sequential_sum
from ._common import as_numeric_response, full_f, node_sum, oob_average
from ._newton import NewtonSplits
from .base import Distribution

#: R's bound on the link: a terminal estimate is capped so that the
#: current f (without offset) of every row in the node stays within +-19
F_CAP = 19.0
#: R 2.1.8's estimate for a node whose in-bag sum of y is 0 (instead of -Inf),
#: before the +-19 clipping below (checked against R output: -19 - min f)
ZERO_COUNT_PRED = -19.0


class Poisson(NewtonSplits, Distribution):
    """Poisson log-likelihood, log link.

    * deviance (R's, without the saturated term):
      ``-2 * sum(w * (y F - exp(F))) / sum(w)``
    * working response: ``z = y - exp(F)`` = minus half the derivative of
      the per-row deviance.
    * initial value: ``log(sum(w y) / sum(w exp(offset)))``
    * terminal nodes, every node: ``log(sum(w y) / sum(w exp(F)))`` over the
      in-bag rows; -19 when ``sum(w y) == 0``, 0 when the denominator is 0;
      then, without an offset only, clipped to ``[-19 - min f, 19 - max f]``
      where min/max run over all training rows of the node (in and out of
      bag).  R 2.1.8 skips that clipping when there is an offset (its bounds
      stay infinite); reproduced.
    * ``splits="newton"`` (not R's): trees grown on ``z / h`` with weights
      ``w h``, ``h = exp(F)`` (:mod:`._newton`); ``"gradient"``, R's, on ``z``.
    """

    name = "poisson"
    response_link = "exp"

    def check_response(self, y):
        y = as_numeric_response(y, self.name)
        if np.any(y < 0):
            raise ValueError(
                f"poisson needs a non-negative count response y; got "
                f"{int(np.sum(y < 0))} negative value(s) (min {y.min():g})"
            )
        if np.any(y != np.trunc(y)):
            raise ValueError(
                "poisson needs an integer count response y; got "
                f"{int(np.sum(y != np.trunc(y)))} non-integer value(s)"
            )
        return y

    def check_initial_value(self, y, w) -> None:
        """The initial value log(sum(w * y) / sum(w)) needs a positive count of weight."""
        if not np.any((np.asarray(y) > 0) & (np.asarray(w) > 0)):
            raise ValueError(f"{self.name}: the response y is 0 on every training row (or on "
                             f"every row of positive weight), so the initial value "
                             f"log(sum(w * y) / sum(w)) would be -inf; there is no count to "
                             f"fit")

    def init_f(self, t, ctx):
        y, offset, w = t.y, t.offset, t.w
        y = np.asarray(y, dtype=float)
        w = np.asarray(w, dtype=float)
        den = sequential_sum(w) if offset is None else sequential_sum(w * exp_r(offset))
        return float(log_r(sequential_sum(w * y) / den))

    def deviance(self, t, f, ctx):
        y, offset, w = t.y, t.offset, t.w
        F = full_f(f, offset)
        y = np.asarray(y, dtype=float)
        w = np.asarray(w, dtype=float)
        return float(-2.0 * np.sum(w * (y * F - ctx.model_exp(F))) / np.sum(w))

    def negative_gradient(self, t, f, bag, ctx):
        y, offset = t.y, t.offset
        return np.asarray(y, dtype=float) - ctx.model_exp(full_f(f, offset))

    def hessian(self, t, f, z, ctx):
        """``exp(F)``."""
        return ctx.model_exp(full_f(f, t.offset))

    def fit_leaves(self, t, f, z, leaves, bag, ctx):
        y, offset, w = t.y, t.offset, t.w
        node, n_nodes = leaves.node, leaves.n_nodes
        y = np.asarray(y, dtype=float)
        w = np.asarray(w, dtype=float)
        f = np.asarray(f, dtype=float)
        node = np.asarray(node, dtype=np.intp)
        num = node_sum(w * y, node, n_nodes, bag)
        den = node_sum(w * ctx.model_exp(full_f(f, offset)), node, n_nodes, bag)
        with np.errstate(divide="ignore", invalid="ignore"):
            est = log_r(num / den)
        out = np.where(num == 0.0, ZERO_COUNT_PRED, np.where(den == 0.0, 0.0, est))
        if offset is None:
            fmax = np.full(n_nodes, -np.inf)
            fmin = np.full(n_nodes, np.inf)
            np.maximum.at(fmax, node, f)
            np.minimum.at(fmin, node, f)
            out = np.minimum(out, F_CAP - fmax)
            out = np.maximum(out, -F_CAP - fmin)
        return out

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        y, offset, w = t.y, t.offset, t.w
        F = full_f(f, offset)
        y = np.asarray(y, dtype=float)
        step = shrinkage * np.asarray(fadj, dtype=float)
        return oob_average(y * step - ctx.model_exp(F + step) + ctx.model_exp(F), w, bag)
