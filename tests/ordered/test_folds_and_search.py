"""Ordered boosting's engine: CatBoost's folds, the ordered split score's
plain limit, no leakage of a row's response into its own approximations."""
from __future__ import annotations

import math

import numpy as np
import pytest

from pygbm.distributions import FitContext, Gaussian, Targets
from pygbm.engine.binned import BinnedTrainingData
from pygbm.engine.grow import SearchGrower
from pygbm.ordered.folds import fold_boundaries
from pygbm.ordered.grow import OrderedGrower
from pygbm.ordered.scheme import NativeViews, OrderedBoosting, OrderedProblem
from pygbm.ordered.spec import OrderedSpec


def catboost_folds(n, multiplier):
    """CatBoost's CPU loop as its fold.cpp writes it (SelectMinBatchSize, then
    ceil(left * multiplier) capped at n), written out independently."""
    left = min(100, n // 50) if n > 500 else 1
    out = [left]
    while left < n:
        left = min(int(math.ceil(left * multiplier)), n)
        out.append(left)
    return out


@pytest.mark.parametrize("n", [10, 500, 501, 1000, 26049, 100000])
@pytest.mark.parametrize("multiplier", [1.5, 2.0])
def test_fold_boundaries_are_catboosts(n, multiplier):
    assert fold_boundaries(n, multiplier).tolist() == catboost_folds(n, multiplier)


def test_fold_boundaries_known_values():
    assert fold_boundaries(26049).tolist() == [100 * 2**k for k in range(9)] + [26049]
    assert fold_boundaries(500).tolist()[:3] == [1, 2, 4]
    assert fold_boundaries(501).tolist()[:2] == [10, 20]
    assert fold_boundaries(16, 1.0001, 1).tolist() == list(range(1, 17))


def _binned(n=600, p=4, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    x[rng.random((n, p)) < 0.05] = np.nan
    x[:, -1] = rng.integers(0, 5, n)
    var_type = np.array([0] * (p - 1) + [5])
    y = np.nan_to_num(x[:, 0]) + np.sin(3 * np.nan_to_num(x[:, 1])) + (x[:, -1] == 2) \
        + rng.normal(size=n)
    return BinnedTrainingData(x, var_type, np.zeros(p, dtype=int), 32), y


@pytest.mark.parametrize("depth", [1, 3, 6])
def test_one_fold_body_equal_tail_gives_the_plain_trees(depth):
    """With one fold whose body and tail are all rows the tree's score is
    sqrt(sum over leaves of S^2/W), monotone in R's improvement: the plain trees."""
    data, y = _binned()
    z = y - y.mean()
    w = np.ones_like(z)
    inbag = np.random.default_rng(0).random(data.n) < 0.7
    cols = np.column_stack([w * z, w, w * z, w])
    ordered = OrderedGrower(data, cols, depth, 5).grow(z, w, inbag, True)
    plain = SearchGrower(data, depth, 5).grow(z, w, inbag, True)
    assert ordered.n_terminal == plain.n_terminal
    np.testing.assert_array_equal(ordered.node_of, plain.node_of)
    for a, b in zip(ordered.nodes, plain.nodes):
        assert (a.split is None) == (b.split is None)
        if a.split is not None:
            assert a.split.var == b.split.var
            assert a.split.value == pytest.approx(b.split.value)
            assert a.split.improvement == pytest.approx(b.split.improvement, rel=1e-9)
        assert a.pred == pytest.approx(b.pred, rel=1e-9, abs=1e-12)


def _support(y, data, spec, f0, seed=5):
    t = Targets(y, None, np.ones_like(y))
    problem = OrderedProblem(t, Gaussian(), FitContext(), 3, 5, spec)
    scheme = OrderedBoosting(problem, NativeViews(data, 2, seed), seed)
    return scheme.start(_NoState(), f0)


class _NoState:
    support = None


def test_no_leakage():
    """A row's supporting values never change with its own response, and a
    fold's model depends on no response at or after its tail."""
    data, y = _binned()
    spec = OrderedSpec(2, 2.0, None, False)
    f0 = np.zeros_like(y)           # a start that does not depend on y
    run = _support(y, data, spec, f0)
    r = 0
    order = run.orders[r]
    pos = np.empty_like(order)
    pos[order] = np.arange(order.shape[0])
    inputs = run.tree_inputs(0, f0)
    grown = inputs.grower.grow(y - f0, np.ones_like(y), np.ones(data.n, bool), True)
    row = int(order[300])                       # a row in a late tail
    y2 = y.copy()
    y2[row] += 10.0
    run2 = _support(y2, data, spec, f0)
    for a in (run, run2):
        a.tree_added(grown, inputs, 0.1)
    b = run.bounds
    for k in range(b.shape[0] - 1):
        same = np.array_equal(run._fold(r, k), run2._fold(r, k))
        if b[k] <= pos[row]:
            assert same, k      # the fold's body is before the row: nothing of y[row]
        f1, f2 = run._fold(r, k), run2._fold(r, k)
        # the row's own value in any fold never moves with its response unless
        # the row is in that fold's body
        if pos[row] < f1.shape[0] and pos[row] >= b[k]:
            assert f1[pos[row]] == f2[pos[row]]
    c1, c2 = run.fold_columns(r), run2.fold_columns(r)
    k_tail = int(np.searchsorted(b, pos[row], side="right")) - 1
    tail = slice(4 * k_tail + 2, 4 * k_tail + 3)
    # gaussian: the working response moves by exactly the response's change
    np.testing.assert_allclose(c2[row, tail] - c1[row, tail], 10.0)
