"""Ordered boosting's engine: CatBoost's folds, the ordered split score's
plain limit, no leakage of a row's response into its own approximations."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from pygbm import gbm
from pygbm.distributions import FitContext, Gaussian, Targets
from pygbm.engine.binned import BinnedTrainingData
from pygbm.engine.grow import SearchGrower
from pygbm.ordered.columns import fold_columns, tail_folds
from pygbm.ordered import folds
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


def test_a_first_body_of_most_rows_is_warned_of():
    """Rows of the first body are in no tail: a min_fold_size above half the rows
    leaves the split score few rows' gradients, which gbm says."""
    with pytest.warns(UserWarning, match=r"min_fold_size=700 puts 700 of the 1000 training "
                      r"rows .* the other 300 rows only.* gives 20\)"):
        assert fold_boundaries(1000, 2.0, 700).tolist() == [700, 1000]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fold_boundaries(1000, 2.0, 500)
        fold_boundaries(1000)
        fold_boundaries(10)


def test_a_first_body_of_every_row_is_refused_naming_the_rows_boosted_on():
    """The rows ordered boosting sees can be fewer than the data's: a zero-subsampled
    fit boosts on the rows it kept, and the message says so."""
    with pytest.raises(ValueError, match=r"smaller than the 10 rows boosted on \(the "
                       r"training rows; in cv a fold's, with zero_subsample those kept\)"):
        fold_boundaries(10, 2.0, 10)
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"x": rng.normal(size=600)})
    data["y"] = (rng.uniform(size=600) < 0.1).astype(float)
    with pytest.raises(ValueError, match=r"smaller than the \d+ rows boosted on"):
        gbm("y ~ x", data, distribution="bernoulli", n_trees=2, boosting_type="ordered",
            zero_subsample=0.3, min_fold_size=500, random_state=1)


def test_gbm_warns_of_a_large_first_body():
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"x": rng.normal(size=200)})
    data["y"] = data.x + rng.normal(size=200)
    with pytest.warns(UserWarning, match="min_fold_size=150 puts 150 of the 200"):
        gbm("y ~ x", data, distribution="gaussian", n_trees=3, boosting_type="ordered",
            min_fold_size=150)


def test_folds_too_many_to_hold_are_refused_before_they_are_built(monkeypatch):
    """A fold_len_multiplier near 1 cuts the rows into folds of one row more each, and
    every permutation keeps a value per position of every fold: about n^2 / 2 (20,000
    rows at 1.0001: 14,901 folds, 5e8 values per table over 4 permutations, killed
    for memory). Refused as n_permutations is beyond the values a fit may hold
    (lowered here, so that the folds of 300 rows exceed it)."""
    monkeypatch.setattr(folds, "MAX_PERMUTATION_VALUES", 4 * 2_000)
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"x": rng.normal(size=300)})
    data["y"] = data.x + rng.normal(size=300)
    with pytest.raises(ValueError, match=r"fold_len_multiplier=1\.01 with min_fold_size=None "
                       r"cuts the 300 rows boosted on into 183 folds, whose supporting models "
                       r"over 4 permutations would hold 84,264 values per table, above the "
                       r"8,000"):
        gbm("y ~ x", data, distribution="gaussian", n_trees=2, boosting_type="ordered",
            fold_len_multiplier=1.01, random_state=1)
    gbm("y ~ x", data, distribution="gaussian", n_trees=2, boosting_type="ordered",
        random_state=1)         # CatBoost's growth: 4 x 810 values


def test_folds_whose_histogram_columns_are_too_many_are_refused(monkeypatch):
    """Every tree's histogram columns hold 2 values per row and fold (n x folds x 2:
    3e5 rows at fold_len_multiplier 1.01 passed the supporting models' count and took
    3.4 GiB per tree). 300 rows in CatBoost's 9 folds: 5,400 values, the supporting
    models 3,240 (the limit lowered to 4,000 here)."""
    monkeypatch.setattr(folds, "MAX_PERMUTATION_VALUES", 4_000)
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"x": rng.normal(size=300)})
    data["y"] = data.x + rng.normal(size=300)
    with pytest.raises(ValueError, match=r"cuts the 300 rows boosted on into 9 folds, whose "
                       r"histogram columns would hold 5,400 values per table, above the "
                       r"4,000"):
        gbm("y ~ x", data, distribution="gaussian", n_trees=2, boosting_type="ordered",
            random_state=1)
    monkeypatch.setattr(folds, "MAX_PERMUTATION_VALUES", 5_400)
    gbm("y ~ x", data, distribution="gaussian", n_trees=2, boosting_type="ordered",
        random_state=1)


def _binned(n=600, p=4, seed=3):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    x[rng.random((n, p)) < 0.05] = np.nan
    x[:, -1] = rng.integers(0, 5, n)
    var_type = np.array([0] * (p - 1) + [5])
    y = np.nan_to_num(x[:, 0]) + np.sin(3 * np.nan_to_num(x[:, 1])) + (x[:, -1] == 2) \
        + rng.normal(size=n)
    return BinnedTrainingData(x, var_type, np.zeros(p, dtype=int), 32), x, var_type, y


@pytest.mark.parametrize("depth", [1, 3, 6])
@pytest.mark.parametrize("weighted", [False, True])
def test_body_equal_tail_gives_the_plain_trees(depth, weighted):
    """Every row twice, one copy in the body and one in the tail of a single
    fold: each leaf's body average is its tail's, so the tree's score is
    sqrt(sum over leaves of S^2/W), monotone in R's improvement: the plain
    histogram search's trees. Weighted: the fold columns of Newton splits
    (w z, w h) against the plain search on z / h with weights w h."""
    _, x, var_type, y = _binned()
    n = x.shape[0]
    data = BinnedTrainingData(np.vstack([x, x]), var_type, np.zeros(x.shape[1], dtype=int), 32)
    z = np.tile(y - y.mean(), 2)
    w = np.tile(np.random.default_rng(1).uniform(0.05, 0.25, n), 2) if weighted \
        else np.ones_like(z)
    inbag = np.tile(np.random.default_rng(0).random(n) < 0.7, 2)
    order = np.arange(2 * n)                    # copies 0..n-1 first: the body
    bounds = np.array([n, 2 * n])
    folds = fold_columns((w * z)[order], w[order] if weighted else None, order, bounds,
                         tail_folds(order, bounds))
    ordered = OrderedGrower(data, folds, depth, 5).grow(z, w, inbag, not weighted)
    plain = SearchGrower(data, depth, 5).grow(z, w, inbag, not weighted)
    assert ordered.n_terminal == plain.n_terminal
    np.testing.assert_array_equal(ordered.node_of, plain.node_of)
    for a, b in zip(ordered.nodes, plain.nodes):
        assert (a.split is None) == (b.split is None)
        if a.split is not None:
            assert a.split.var == b.split.var
            assert a.split.value == pytest.approx(b.split.value)
            assert a.split.improvement == pytest.approx(b.split.improvement, rel=1e-9)
        assert a.pred == pytest.approx(b.pred, rel=1e-9, abs=1e-12)


def _support(y, data, spec, f0, seed=5, dist=None):
    t = Targets(y, None, np.ones_like(y))
    problem = OrderedProblem(t, dist or Gaussian(), FitContext(), 3, 5, spec)
    scheme = OrderedBoosting(problem, NativeViews(data, 2, seed), seed)
    return scheme.start(_NoState(), f0)


class _NoState:
    support = None


@pytest.mark.parametrize("full_history", [False, True])
def test_no_leakage(full_history):
    """A row's supporting values never change with its own response, and a
    fold's model depends on no response at or after its tail."""
    data, _, _, y = _binned()
    spec = OrderedSpec(2, 2.0, None, full_history)
    f0 = np.zeros_like(y)           # a start that does not depend on y
    run = _support(y, data, spec, f0)
    r = 0
    order = run.models.perms[r].order
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
        f1, f2 = run.models.fold(r, k), run2.models.fold(r, k)
        if b[k] <= pos[row]:
            # the fold's body is before the row: nothing of y[row] before the row
            cut = pos[row] + 1 if full_history else f1.shape[0]
            np.testing.assert_array_equal(f1[:cut], f2[:cut])
        # the row's own value in any fold never moves with its response unless
        # the row is in that fold's body
        if pos[row] < f1.shape[0] and pos[row] >= b[k]:
            assert f1[pos[row]] == f2[pos[row]]
    c1, c2 = run.models.fold_columns(r), run2.models.fold_columns(r)
    k_tail = int(np.searchsorted(b, pos[row], side="right")) - 1
    assert c1.tail_fold[row] == c2.tail_fold[row] == k_tail
    # gaussian: the working response moves by exactly the response's change
    moved = (c2.values[row, k_tail] >> c2.count_bits) * c2.unit[k_tail, 0] \
        - (c1.values[row, k_tail] >> c1.count_bits) * c1.unit[k_tail, 0]
    assert moved == pytest.approx(10.0, abs=1e-6)
