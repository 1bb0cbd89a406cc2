"""Each training row's exponential term of the link, carried from one iteration to the next.

bernoulli, poisson and adaboost evaluate one transcendental function of a row's link
value ``F`` several times per tree (:mod:`.losses`): the out-of-bag improvement at
``F`` and at ``F + step``, the training deviance at the updated link, and (poisson,
adaboost) the working response and the terminal values at ``F``. The function is
``log(1 + exp(F))`` (bernoulli, numpy's ``logaddexp(0, F)``), ``exp(F)`` (poisson) or
``exp(-s F)``, ``s = 2 y - 1`` (adaboost).

Without an offset the updated link, ``f + shrinkage * fadj``, is the very number the
improvement evaluates at ``F + step``. So each row's term is computed once per tree,
at the updated link, and serves the improvement (as its ``F + step`` term, and at the
next tree as its ``F`` term), the deviance, and the next tree's working response and
terminal values. bernoulli's working response needs ``exp(-F)``, which is carried
too: where ``F > 0`` it is the very exponential that ``log(1 + exp(F))`` evaluates
(numpy's ``logaddexp`` takes ``F + log1p(exp(-F))`` there). The expressions are
:mod:`.losses`' own with the terms in place of their evaluation: the same numbers bit
for bit. Calls of the C library per row and tree, with half the rows out of the bag:
bernoulli 5 -> 3 (2 where ``F > 0``), poisson and adaboost 3.5 -> 1. With an offset
(``(f + offset) + step`` and ``(f + step) + offset`` may round apart), for the other
distributions and for the validation rows the kernels of :mod:`.losses` evaluate
every term as before.

The loops of :mod:`.loop` hold the terms in arrays ``carried = (current, next,
neg_exp)`` (:func:`start_terms`; empty arrays when not carried; ``neg_exp``
bernoulli's only) and call :func:`respond`, :func:`leaves`, :func:`oob_improvement`
and :func:`train_deviance` in place of :mod:`.losses`' working response, terminal
values, out-of-bag improvement and deviance.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from .losses import ADABOOST, ADABOOST_Z_SIGN, BERNOULLI, POISSON, _log1pexp, \
    _weighted_mean, adaboost_leaves, bag_improvement, deviance, leaf_values, oob_average, \
    poisson_leaves, working_response
from .arith import numpy_sum


@njit(cache=True, error_model="numpy", inline="always")
def _term(kind, y, F):
    """poisson's or adaboost's term at link value ``F`` (the module docstring)."""
    if kind == POISSON:
        return math.exp(F)
    return math.exp(-(2.0 * y - 1.0) * F)


@njit(cache=True, error_model="numpy", inline="always")
def _bernoulli_terms(F):
    """bernoulli's term ``log(1 + exp(F))`` (:func:`.losses._log1pexp`) and ``exp(-F)``,
    one exponential for both where ``F > 0`` (``0 - F`` is ``-F`` exactly)."""
    if F > 0.0:
        e = math.exp(0.0 - F)
        return F + math.log1p(e), e
    return _log1pexp(F), math.exp(-F)


@njit(cache=True, error_model="numpy")
def start_terms(kind, rows, f):
    """The rows' terms ``(current, next, neg_exp)``, ``current`` and bernoulli's
    ``neg_exp`` at the link values ``f``; empty arrays where the terms are not carried
    (another distribution, an offset; ``neg_exp`` but for bernoulli)."""
    n = f.shape[0]
    if (kind != BERNOULLI and kind != POISSON and kind != ADABOOST) or rows.offset.shape[0]:
        return np.empty(0), np.empty(0), np.empty(0)
    current = np.empty(n)
    if kind != BERNOULLI:
        for i in range(n):
            current[i] = _term(kind, rows.y[i], f[i])
        return current, np.empty(n), np.empty(0)
    neg_exp = np.empty(n)
    for i in range(n):
        current[i], neg_exp[i] = _bernoulli_terms(f[i])
    return current, np.empty(n), neg_exp


@njit(cache=True, error_model="numpy")
def respond(kind, params, rows, f, carried, bag, z):
    """:func:`.losses.working_response` into ``z``, from the current terms when
    carried."""
    current, neg_exp = carried[0], carried[2]
    if current.shape[0] == 0:
        working_response(kind, params, rows, f, bag, z)
    elif kind == BERNOULLI:
        for i in range(z.shape[0]):
            z[i] = rows.y[i] - 1.0 / (1.0 + neg_exp[i])
    elif kind == POISSON:
        for i in range(z.shape[0]):
            z[i] = rows.y[i] - current[i]
    else:
        for i in range(z.shape[0]):
            s = 2.0 * rows.y[i] - 1.0
            z[i] = (ADABOOST_Z_SIGN * s) * current[i]


@njit(cache=True, error_model="numpy")
def leaves(kind, params, rows, f, z, node, n_nodes, counts, grow_pred, bag, min_obs, carried,
           out):
    """:func:`.losses.leaf_values` into ``out``, poisson's and adaboost's from the
    current terms when carried."""
    current = carried[0]
    if current.shape[0] == 0 or kind == BERNOULLI:
        leaf_values(kind, params, rows, f, z, node, n_nodes, counts, grow_pred, bag, min_obs,
                    out)
    elif kind == POISSON:
        poisson_leaves(rows, f, node, n_nodes, bag, current, out)
    else:
        adaboost_leaves(rows, node, n_nodes, bag, current, out)


@njit(cache=True, error_model="numpy")
def oob_improvement(kind, params, rows, f, fadj, bag, shrinkage, carried):
    """:func:`.losses.bag_improvement` of the step ``shrinkage * fadj`` from the links
    ``f`` before it; when carried, the next terms are computed here, at ``f +
    shrinkage * fadj`` (every row: the deviance reads them too)."""
    current, following, neg_exp = carried
    if current.shape[0] == 0:
        return bag_improvement(kind, params, rows, f, fadj, bag, shrinkage)
    n = f.shape[0]
    gain = np.empty(n)
    # every row (the in-bag rows' gains are not read): no branch on the bag
    for i in range(n):
        step = shrinkage * fadj[i]
        if kind == BERNOULLI:       # (neg_exp: this tree's response has read it)
            following[i], neg_exp[i] = _bernoulli_terms(f[i] + step)
            gain[i] = rows.y[i] * step + current[i] - following[i]
            continue
        following[i] = _term(kind, rows.y[i], f[i] + step)
        if kind == POISSON:
            gain[i] = rows.y[i] * step - following[i] + current[i]
        else:
            gain[i] = current[i] - following[i]
    return oob_average(gain, rows, bag)


@njit(cache=True, error_model="numpy")
def train_deviance(kind, params, rows, f, carried):
    """:func:`.losses.deviance` of the training rows at their updated links ``f``;
    when carried, from the next terms, which become the current ones."""
    current, following = carried[0], carried[1]
    if current.shape[0] == 0:
        return deviance(kind, params, rows, f)
    current[:] = following
    if kind == ADABOOST:
        return _weighted_mean(current, rows)
    n = f.shape[0]
    buf = np.empty(n)
    for i in range(n):                   # bernoulli, poisson: w (y F - term)
        buf[i] = rows.w[i] * (rows.y[i] * f[i] - current[i])
    return -2.0 * numpy_sum(buf[:n]) / numpy_sum(rows.w[:n])
