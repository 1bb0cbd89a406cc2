"""Logistic regression (R gbm's ``distribution = "bernoulli"``)."""
from __future__ import annotations

import numpy as np

from .._rmath import exp_r, log_r, sequential_sum
from ._common import as_binary_response, check_class_weights, full_f, node_ratio, oob_average
from ._newton import NewtonSplits
from .base import Distribution

#: R's Newton tolerance for the initial value with an offset
NEWTON_TOL = 1e-4
#: safety cap on Newton iterations (R has none)
NEWTON_MAX_ITER = 100
#: bisection steps of the score equation where R's Newton iterations diverge: the
#: bracket's width halves each step, far below a double's resolution of it at the end
BISECTION_STEPS = 200


def _log1pexp(x):
    """log(1 + exp(x)) without overflow."""
    return np.logaddexp(0.0, x)


def _mean_deviance(y, F, w) -> float:
    """The weighted mean deviance ``-2 sum(w (y F - log(1 + exp(F)))) / sum(w)`` at
    link values ``F`` (offsets added)."""
    return float(-2.0 * np.sum(w * (y * F - _log1pexp(F))) / np.sum(w))


def _score_root(y, offset, w) -> float:
    """The initial value solving ``sum(w (y - p)) = 0``, ``p = 1 / (1 + exp(-(offset +
    f0)))``, by bisection: where R's Newton iterations from 0 diverge (a large offset).
    A ValueError when no finite value solves it (all responses 0 or all 1)."""
    ws, wy = float(np.sum(w)), float(np.sum(w * y))
    if not 0.0 < wy < ws:
        raise ValueError("bernoulli: the initial value with this offset is infinite: every "
                         "response (of positive weight) is " + ("0" if wy <= 0.0 else "1"))

    def score(f0):
        return float(np.sum(w * (y - np.exp(-np.logaddexp(0.0, -(offset + f0))))))

    lo, hi = -1.0, 1.0
    while score(lo) < 0.0:
        lo *= 2.0
    while score(hi) > 0.0:
        hi *= 2.0
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if score(mid) > 0.0 else (lo, mid)
    return 0.5 * (lo + hi)


class Bernoulli(NewtonSplits, Distribution):
    """Bernoulli log-likelihood, logit link.

    * response: 0/1, a 2-level factor, or proportions in [0, 1] (successes
      over trials, the trials as weights), which R fits with the same
      formulas; R does not check the range, and outside [0, 1] its deviance
      is NaN or meaningless: refused here.
    * deviance: ``-2 * sum(w * (y * F - log(1 + exp(F)))) / sum(w)``,
      ``F = f + offset``
    * working response: ``z = y - p``, ``p = 1 / (1 + exp(-F))``; this is the
      negative derivative of the per-row deviance divided by 2.
    * initial value: ``log(sum(w y) / sum(w (1 - y)))``; with an offset R's
      Newton iterations from 0.  R 2.1.8 goes on while the step is above 1e-4,
      a signed test: it stops after the first step that is not positive (often
      the first one) or a positive step of at most 1e-4 (checked against R on
      the four sign patterns, ``tests/distributions/test_each.py``):
      reproduced here, so the value is R's, not the exact maximiser. Where R's
      iterations go astray (a non-finite value, or one whose deviance is above
      that of the starting value 0: a step that overshot, e.g. to -150 with
      large offsets) the exact maximiser, by bisection (an improvement; R keeps
      such a value).
    * terminal nodes: one Newton step ``sum(w z) / sum(w p (1 - p))`` for every
      node (no minimum-count rule), 0 when the denominator is 0.
    * ``splits="newton"`` (not R's): trees grown on ``z / h`` with weights
      ``w h``, ``h = p (1 - p)`` (:mod:`._newton`); ``"gradient"``, R's, on ``z``.
    """

    name = "bernoulli"
    zero_one_response = True
    response_link = "logistic"

    def check_response(self, y):
        return as_binary_response(y, self.name, proportions=True)

    def check_initial_value(self, y, w) -> None:
        check_class_weights(self.name, y, w, both=True)

    def init_f(self, t, ctx):
        y, offset, w = t.y, t.offset, t.w
        y = np.asarray(y, dtype=float)
        w = np.asarray(w, dtype=float)
        if offset is None:
            s = sequential_sum(w * y)
            return float(log_r(s / (sequential_sum(w) - s)))
        offset = np.asarray(offset, dtype=float)
        f0 = 0.0
        step = 1.0
        it = 0
        # R's test is signed (no abs): a step that is not positive ends the iterations
        while step > NEWTON_TOL and it < NEWTON_MAX_ITER:
            p = 1.0 / (1.0 + exp_r(-(offset + f0)))
            den = sequential_sum(w * p * (1.0 - p))
            if not den > 0.0:
                # every p rounds to 0 or 1: R's iterations diverged (R divides by 0)
                return _score_root(y, offset, w)
            step = sequential_sum(w * (y - p)) / den
            f0 += step
            it += 1
        if not np.isfinite(f0) or _mean_deviance(y, offset + f0, w) > \
                _mean_deviance(y, offset + 0.0, w):
            return _score_root(y, offset, w)      # R's iterations went astray
        return float(f0)

    def deviance(self, t, f, ctx):
        return _mean_deviance(np.asarray(t.y, dtype=float), full_f(f, t.offset),
                              np.asarray(t.w, dtype=float))

    def negative_gradient(self, t, f, bag, ctx):
        y, offset = t.y, t.offset
        F = full_f(f, offset)
        return np.asarray(y, dtype=float) - 1.0 / (1.0 + ctx.model_exp(-F))

    def hessian(self, t, f, z, ctx):
        """``p (1 - p)`` as ``1 / ((1 + exp(-F)) (1 + exp(F)))``: no cancellation
        in ``1 - p`` where ``p`` is near 1."""
        F = full_f(f, t.offset)
        with np.errstate(over="ignore"):        # exp(|F| > 709) = inf: h = 0
            return 1.0 / ((1.0 + ctx.model_exp(-F)) * (1.0 + ctx.model_exp(F)))

    def fit_leaves(self, t, f, z, leaves, bag, ctx):
        y, w = t.y, t.w
        node, n_nodes = leaves.node, leaves.n_nodes
        y = np.asarray(y, dtype=float)
        z = np.asarray(z, dtype=float)
        w = np.asarray(w, dtype=float)
        return node_ratio(w * z, w * (y - z) * (1.0 - y + z), node, n_nodes, bag)

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        y, offset, w = t.y, t.offset, t.w
        F = full_f(f, offset)
        y = np.asarray(y, dtype=float)
        step = shrinkage * np.asarray(fadj, dtype=float)
        gain = y * step + _log1pexp(F) - _log1pexp(F + step)
        return oob_average(gain, w, bag)
