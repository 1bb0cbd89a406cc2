"""Multi-class logistic regression (``distribution = "multinomial"``), done right.

R gbm 2.1.8 ships a multinomial its maintainers call broken; this is
Friedman's (2001) K-class algorithm (his Algorithm 6, as scikit-learn's
``GradientBoostingClassifier`` and LightGBM's ``multiclass`` objective):

* link values ``F`` (n, K), probabilities ``p = softmax(F)``; an offset (one
  value per row, as R's formula offset) is added to every column and so
  cancels out of ``p``;
* deviance: ``-2 * sum(w * log p[y]) / sum(w)`` (for K = 2 it equals the
  bernoulli deviance);
* f0: log of the weighted class shares, centred to sum to 0;
* per iteration (``start_iteration``) the probabilities are fixed, then for
  every class k a tree is grown on ``z_k = 1{y = k} - p_k`` and each
  terminal node gets the Newton step
  ``(K - 1) / K * sum(w z_k) / sum(w p_k (1 - p_k))`` (0 when the
  denominator is 0), capped at +-100 (``MAX_STEP``: a safeguard against the
  step's overshoot on nodes of confidently wrong rows; ordinary fits never
  reach it);
* out-of-bag improvement of an iteration: the gain in log-likelihood of its K
  steps ``s_k`` together from the iteration's probabilities,
  ``s_y - log(sum_k p_k exp(s_k))``, on the rows outside the bag (for K = 2
  bernoulli's improvement of the same fit). Until 2026-11-29 the engine summed
  each class's gain alone, ``1{y = k} s_k - log(1 + p_k (exp(s_k) - 1))``, equal
  to the joint gain to first order in the steps only (for K = 2 it counted half
  the curvature, and ``gbm_perf(method="OOB")`` could choose another iteration
  than for the equivalent bernoulli fit).

The arithmetic is written once for both engines: softmax as ``exp(F - max)``
over its row sum, added class by class (left to right), and the log-sum-exp
``max + log(row sum)``; ``exp`` and ``log`` are the fit's
(``FitContext.model_exp`` ...: the C library's in R's exact mode), so that the
compiled loop (``engine/compiled/multinomial.py``) gives the same numbers bit
for bit.

For K = 2 the two trees mirror each other, so ``F_1 - F_0`` is bernoulli's
fit (without bagging, where both draw the same rows).
"""
from __future__ import annotations

import numpy as np

from ._common import node_sum, oob_average
from ._newton import MIN_HESSIAN, NewtonSplits
from .base import Distribution
#: safeguard: largest |terminal-node value| (before shrinkage). The single
#: Newton step 1/p explodes on nodes whose rows are confidently wrong (p ~ 0);
#: ordinary fits stay far below (scikit-learn's letter fit: 99.9% of leaves
#: under 25), one unlucky bag without it can reach 1e14.
MAX_STEP = 100.0
#: the fit's cache entry of the iteration's probabilities
_PROBABILITIES = "multinomial.p"


def softmax(F, axis=1):
    """Row-wise softmax of link values (classes along ``axis``): prediction's,
    with NumPy's exp (the fit's path uses :func:`partition`)."""
    F = np.asarray(F, dtype=float)
    e = np.exp(F - np.max(F, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def partition(F, exp):
    """Per row of ``F`` (n, K): its largest value ``M``, ``e = exp(F - M)`` and
    their sum ``S``, added class by class from the left (the compiled loop's
    order): softmax is ``e / S``, the log-sum-exp ``M + log(S)``."""
    M = np.max(F, axis=1)
    e = exp(F - M[:, None])
    S = e[:, 0].copy()
    for k in range(1, F.shape[1]):
        S += e[:, k]
    return M, e, S


def _full(f, offset):
    f = np.asarray(f, dtype=float)
    if offset is None:
        return f
    return f + np.asarray(offset, dtype=float)[:, None]


class Multinomial(NewtonSplits, Distribution):
    """K-class softmax boosting (see the module docstring).

    ``check_response`` codes the response as 0..K-1 (classes in sorted order,
    R's ``levels(factor(y))``; a categorical's level order);
    ``response_classes`` gives the fit's class labels (``ctx.classes``, K =
    ``ctx.n_outputs``).
    """

    name = "multinomial"
    response_link = "softmax"
    multi_output = True

    # ------------------------------------------------------------------ checks
    @staticmethod
    def _classes_and_codes(y, labels=None):
        """Sorted classes (a categorical's used levels; ``labels``: the levels
        a numerically coded factor response stands for) and the codes 0..K-1."""
        import pandas as pd        # imported on first use: import pygbm stays fast
        cat = getattr(y, "cat", None)
        if cat is not None or isinstance(y, pd.Categorical):
            c = pd.Categorical(y)
            if np.any(c.codes < 0):
                raise ValueError("multinomial: the response y has missing values")
            c = c.remove_unused_categories()
            return np.asarray(c.categories), c.codes.astype(np.intp)
        arr = np.asarray(y)
        if arr.ndim != 1:
            raise ValueError(f"multinomial needs a one-dimensional response y; got shape "
                             f"{arr.shape}")
        if arr.dtype.kind in "fc" and np.isnan(arr.astype(float)).any():
            raise ValueError("multinomial: the response y has missing values")
        if arr.dtype == object and any(v is None or (isinstance(v, float) and np.isnan(v))
                                       for v in arr):
            raise ValueError("multinomial: the response y has missing values")
        classes, codes = np.unique(arr, return_inverse=True)
        if labels is not None:
            classes = np.asarray(labels, dtype=object)[classes.astype(np.intp)]
        elif classes.dtype.kind == "f" and np.all(classes == np.trunc(classes)) \
                and np.all(np.abs(classes) < 2.0 ** 53):
            # whole numbers (gbm() reads an integer response as floats): labelled 1, 2,
            # 3 as gbm_fit's integer response and R's as.factor, not 1.0, 2.0, 3.0
            classes = classes.astype(np.int64)
        return classes, codes.ravel()

    def check_response(self, y):
        """Codes 0..K-1 (float) of a categorical, string or numeric response."""
        classes, codes = self._classes_and_codes(y)
        if classes.shape[0] < 2:
            raise ValueError(f"multinomial needs at least 2 classes in the response y; got "
                             f"{classes.shape[0]}")
        return codes.astype(float)

    def response_classes(self, y, labels=None):
        """Labels of the codes 0..K-1 (see ``_classes_and_codes``)."""
        return self._classes_and_codes(y, labels)[0]

    def hessian(self, t, f, z, ctx, k=0):
        """Class ``k``'s ``p_k (1 - p_k)`` (Newton splits)."""
        p = self._probabilities(f, t.offset, ctx)[:, k]
        return p * (1.0 - p)

    # ------------------------------------------------------------------ the table
    def init_f(self, t, ctx):
        K = ctx.n_outputs
        w = np.asarray(t.w, dtype=float)
        share = np.bincount(np.asarray(t.y, dtype=np.intp), weights=w, minlength=K)[:K]
        if np.any(share <= 0):
            absent = [str(c) for c in np.asarray(ctx.classes)[share <= 0]]
            raise ValueError(f"multinomial: class(es) {', '.join(absent)} have no rows (or "
                             "zero weight) in the training part; every class needs training "
                             "rows")
        logp = np.log(share / np.sum(share))
        return logp - np.mean(logp)

    def start_iteration(self, t, f, ctx):
        """The iteration's probabilities, fixed for its K trees."""
        ctx.cache[_PROBABILITIES] = self._softmax(f, t.offset, ctx)

    @staticmethod
    def _softmax(f, offset, ctx):
        _, e, S = partition(_full(f, offset), ctx.model_exp)
        return e / S[:, None]

    def _probabilities(self, f, offset, ctx):
        p = ctx.cache.get(_PROBABILITIES)
        if p is None or p.shape != np.shape(f):
            p = ctx.cache[_PROBABILITIES] = self._softmax(f, offset, ctx)
        return p

    def deviance(self, t, f, ctx):
        F = _full(f, t.offset)
        y = np.asarray(t.y, dtype=np.intp)
        w = np.asarray(t.w, dtype=float)
        M, _, S = partition(F, ctx.model_exp)
        loglik = F[np.arange(y.shape[0]), y] - (M + ctx.model_log(S))
        return float(-2.0 * np.sum(w * loglik) / np.sum(w))

    def negative_gradient(self, t, f, bag, ctx, k=0):
        p = self._probabilities(f, t.offset, ctx)
        return (np.asarray(t.y, dtype=np.intp) == k).astype(float) - p[:, k]

    def fit_leaves(self, t, f, z, leaves, bag, ctx, k=0):
        p = self._probabilities(f, t.offset, ctx)[:, k]
        w = np.asarray(t.w, dtype=float)
        node, n_nodes = leaves.node, leaves.n_nodes
        num = node_sum(w * np.asarray(z, dtype=float), node, n_nodes, bag)
        den = node_sum(w * p * (1.0 - p), node, n_nodes, bag)
        out = np.zeros(n_nodes)
        ok = den > MIN_HESSIAN
        K = ctx.n_outputs
        out[ok] = (K - 1.0) / K * num[ok] / den[ok]
        return np.clip(out, -MAX_STEP, MAX_STEP)

    def bag_improvement(self, t, f, fadj, bag, shrinkage, ctx):
        """The gain in log-likelihood of the iteration's K steps together
        (``fadj``: (n, K), each class tree's step before shrinkage) from its
        probabilities, averaged over the out-of-bag rows (module docstring):
        ``s_y - log(sum_k p_k exp(s_k))`` per row, the sum class by class."""
        bag = np.asarray(bag, dtype=bool)
        oob = ~bag
        p = self._probabilities(f, t.offset, ctx)[oob]
        step = shrinkage * np.asarray(fadj, dtype=float)[oob]
        total = p[:, 0] * ctx.model_exp(step[:, 0])
        for k in range(1, step.shape[1]):
            total = total + p[:, k] * ctx.model_exp(step[:, k])
        y = np.asarray(t.y, dtype=np.intp)[oob]
        gain = np.zeros(bag.shape[0])
        gain[oob] = step[np.arange(y.shape[0]), y] - ctx.model_log(total)
        return oob_average(gain, np.asarray(t.w, dtype=float), bag)

    # ------------------------------------------------------------------ prediction scale
    def inverse_link(self, f):
        """Class probabilities: softmax over the class axis (axis 1)."""
        return softmax(f, axis=1)
