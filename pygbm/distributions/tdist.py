"""Student-t loss (R gbm's ``distribution = list(name="tdist", df=)``)."""
from __future__ import annotations

import numbers
from functools import partial

import numpy as np

from ._common import as_numeric_response, oob_average, refit_by_node, residual
from ._weighted import grouped_location_m
from .base import Distribution

#: R's default degrees of freedom
DEFAULT_DF = 4.0


class TDist(Distribution):
    """Student-t (scale 1) negative log-likelihood with ``df`` degrees of freedom.

    * deviance (R's, without constants): ``sum(w * log(df + u^2)) / sum(w)``,
      ``u = y - offset - f``
    * working response: ``z = 2 u / (df + u^2)`` = minus the derivative of the
      per-row deviance (constant 1).
    * initial value / terminal nodes: the location M-estimate with the t
      psi-function (``_weighted.grouped_location_m``) of ``y - offset``, resp.
      of the in-bag ``y - offset - f`` in nodes with at least ``min_obs``
      in-bag rows (other nodes keep ``grow_pred``).
    """

    name = "tdist"

    def __init__(self, df=DEFAULT_DF, **params):
        if params:
            raise ValueError(f"distribution 'tdist' takes only 'df'; got {sorted(params)}")
        if df is None:
            df = DEFAULT_DF
        if isinstance(df, bool) or not isinstance(df, numbers.Real):
            raise TypeError(f"tdist df must be a positive number; got {df!r}")
        df = float(df)
        if not (np.isfinite(df) and df > 0):
            raise ValueError(f"tdist df must be a positive finite number; got {df!r}")
        self.df = df

    def params(self):
        return {"df": self.df}

    def check_response(self, y):
        return as_numeric_response(y, self.name)

    def init_f(self, t, ctx):
        y, offset, w = t.y, t.offset, t.w
        r = residual(y, 0.0, offset) if offset is not None else np.asarray(y, dtype=float)
        return float(grouped_location_m(r, self.df, np.asarray(w, dtype=float))[0])

    def deviance(self, t, f, ctx):
        y, offset, w = t.y, t.offset, t.w
        u = residual(y, f, offset)
        w = np.asarray(w, dtype=float)
        return float(np.sum(w * ctx.model_log(self.df + u * u)) / np.sum(w))

    def negative_gradient(self, t, f, bag, ctx):
        y, offset = t.y, t.offset
        u = residual(y, f, offset)
        return 2.0 * u / (self.df + u * u)

    def fit_leaves(self, t, f, z, leaves, bag, ctx):
        return refit_by_node(t, f, leaves, bag, partial(grouped_location_m, df=self.df))

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        y, offset, w = t.y, t.offset, t.w
        u = residual(y, f, offset)
        step = shrinkage * np.asarray(fadj, dtype=float)
        gain = ctx.model_log(self.df + u * u) - ctx.model_log(self.df + (u - step) ** 2)
        return oob_average(gain, w, bag)
