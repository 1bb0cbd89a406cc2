"""Huberized hinge loss (R gbm's ``distribution = "huberized"``)."""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from .._rmath import sequential_sum
from ._common import as_binary_response, check_class_weights, full_f, node_ratio
from .base import Distribution

#: below this margin ``(2y-1) F`` the loss is linear
LINEAR_MARGIN = -1.0
#: slope factor of the linear part
LINEAR_SLOPE = 4.0


def leaf_terms(y, f, offset, w) -> tuple[np.ndarray, np.ndarray]:
    """Each row's numerator and denominator term of R's leaf ratio at link
    values ``f``, weighted by ``w``: R's margins from ``f`` alone, the offset
    ignored, except in the linear part's denominator, which reads ``f + offset``;
    both 0 above the margin. Multiplied in R's order: the quadratic part's
    denominator ``(w (1 - m)) (1 - m)`` rounds otherwise than ``w (1 - m)^2``
    (the other terms round once either way: their other factors are 2, 4 and +-1)."""
    f = np.asarray(f, dtype=float)
    w = np.asarray(w, dtype=float)
    s = 2.0 * np.asarray(y, dtype=float) - 1.0
    m = s * f
    lin = m < LINEAR_MARGIN
    flat = ~lin & (1.0 - m < 0.0)
    num = w * np.where(flat, 0.0, np.where(lin, LINEAR_SLOPE * s, 2.0 * s * (1.0 - m)))
    den_lin = w * (-LINEAR_SLOPE * s * full_f(f, offset))
    den = np.where(flat, w * 0.0, np.where(lin, den_lin, (w * (1.0 - m)) * (1.0 - m)))
    return num, den


class Huberized(Distribution):
    """Huberized square hinge loss with margin ``m = (2y-1) F``.

    * loss: ``-4 m`` for ``m < -1``, ``(1 - m)^2`` for ``-1 <= m <= 1``, 0 above;
      deviance = ``sum(w * loss) / sum(w)``.  With an offset R 2.1.8 decides
      "linear part" from ``(2y-1) f`` (without the offset) but evaluates the
      loss at ``F = f + offset``; reproduced (checked against R).
    * working response (as R computes it): ``-4 (2y-1)`` for ``m < -1``,
      0 for ``m > 1``, ``-2 (2y-1) (1 - m)`` otherwise.  This is the
      derivative of the loss itself, i.e. *minus* the negative gradient
      (constant -1; checked against R through a monotone constraint, which
      R applies to this z, reversed; pygbm turns it by ``z_sign``).  The
      terminal estimate below does not use ``z``.
    * initial value: R's ``sum_{y=1} w / sum_{y=0} w`` (a ratio, not a fitted
      argmin; the offset is ignored, as in R).
    * terminal nodes, every node: ``sum(w g) / sum(w h)`` with
      ``g = 4(2y-1)``, ``h = -4 m`` in the linear part and
      ``g = 2(2y-1)(1-m)``, ``h = (1-m)^2`` in the quadratic part (0/0 rows
      above the margin); 0 when the denominator is 0.  R 2.1.8 computes the
      margins here from ``f`` alone, ignoring the offset, except in ``h`` of
      the linear part, ``-4 (2y-1) F``, which reads ``F = f + offset``:
      reproduced (checked against R with shrinkage 1, where rows reach the
      linear part).  It is not a Newton step (about twice one on the quadratic
      part).
    * out-of-bag improvement: per-row loss decrease at ``F`` (regions decided
      by the current ``F``), divided by the out-of-bag weight of the rows
      outside the quadratic part only, as R 2.1.8 does (``inf`` when there
      are none).
    """

    name = "huberized"
    zero_one_response = True

    #: sign of R's working response relative to the negative gradient
    z_sign: ClassVar[float] = -1.0

    def check_response(self, y):
        return as_binary_response(y, self.name)

    def check_initial_value(self, y, w) -> None:
        check_class_weights(self.name, y, w, both=False)

    def init_f(self, t, ctx):
        y, w = t.y, t.w
        y = np.asarray(y, dtype=float)
        w = np.asarray(w, dtype=float)
        pos = y == 1.0
        return float(sequential_sum(w[pos]) / sequential_sum(w[~pos]))

    def deviance(self, t, f, ctx):
        y, offset, w = t.y, t.offset, t.w
        F = full_f(f, offset)
        s = 2.0 * np.asarray(y, dtype=float) - 1.0
        w = np.asarray(w, dtype=float)
        # R's linear-part test uses f alone
        lin = s * np.asarray(f, dtype=float) < LINEAR_MARGIN
        m = s * F
        loss = np.where(lin, -LINEAR_SLOPE * m,
                        np.where(1.0 - m < 0.0, 0.0, (1.0 - m) * (1.0 - m)))
        return float(np.sum(w * loss) / np.sum(w))

    def negative_gradient(self, t, f, bag, ctx):
        y, offset = t.y, t.offset
        F = full_f(f, offset)
        s = 2.0 * np.asarray(y, dtype=float) - 1.0
        m = s * F
        return np.where(m < LINEAR_MARGIN, -LINEAR_SLOPE * s,
                        np.where(1.0 - m < 0.0, 0.0, -2.0 * s * (1.0 - m)))

    def fit_leaves(self, t, f, z, leaves, bag, ctx):
        num, den = leaf_terms(t.y, f, t.offset, t.w)
        return node_ratio(num, den, leaves.node, leaves.n_nodes, bag)

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        y, offset, w = t.y, t.offset, t.w
        F = full_f(f, offset)
        s = 2.0 * np.asarray(y, dtype=float) - 1.0
        step = shrinkage * np.asarray(fadj, dtype=float)
        m = s * F
        lin = m < LINEAR_MARGIN
        flat = ~lin & (1.0 - m < 0.0)
        m2 = s * (F + step)
        # R classifies the row by its current margin only
        gain = np.where(lin, -LINEAR_SLOPE * m - (-LINEAR_SLOPE * m2),
                        np.where(flat, 0.0,
                                 (1.0 - m) * (1.0 - m) - (1.0 - m2) * (1.0 - m2)))
        # R 2.1.8 adds the weight of quadratic-part rows to the numerator
        # only, not to the denominator: reproduced (inf when no out-of-bag
        # row is outside the quadratic part, as R reports).
        oob = ~np.asarray(bag, dtype=bool)
        w = np.asarray(w, dtype=float)
        num = np.sum(w[oob] * gain[oob])
        den = np.sum(w[oob & (lin | flat)])
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.float64(num) / np.float64(den))
