"""Ordered boosting's compiled kernels give the NumPy reference's fits bit
for bit: the fold columns, the supporting models' updates (body-based and
full history), the grown trees, and whole fits of every distribution
ordered boosting takes, with weights, offsets, missing values, monotone
constraints, native and ordered-TS categoricals."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.distributions import FitContext, Targets, get_distribution
from pygbm.engine.binned import BinnedTrainingData
from pygbm.ordered.compiled.grower import BinnedArrays, CompiledOrderedGrower
from pygbm.ordered.compiled.support import CompiledSupportingModels
from pygbm.ordered.folds import fold_boundaries
from pygbm.ordered.grow import OrderedGrower
from pygbm.ordered.scheme import OrderedProblem
from pygbm.ordered.spec import OrderedSpec
from pygbm.ordered.support import SupportingModels

RATIO = ["gaussian", "bernoulli", "poisson", "adaboost", "huberized"]
ALL = RATIO + ["laplace", {"name": "quantile", "alpha": 0.3}, "tdist"]
#: the distributions with Newton splits (their fold columns are w z and w h)
NEWTON = [{"name": "bernoulli", "splits": "newton"}, {"name": "poisson", "splits": "newton"}]


def _response(dist, eta, rng):
    dist = dist if isinstance(dist, str) else dist["name"]
    if dist in ("bernoulli", "adaboost", "huberized"):
        return (rng.random(eta.shape[0]) < 1 / (1 + np.exp(-eta))).astype(float)
    if dist == "poisson":
        return rng.poisson(np.exp(0.5 * eta)).astype(float)
    return eta + rng.normal(size=eta.shape[0])


def _frame(dist, n=700, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 7, n).astype(float),
                       "c": pd.Categorical(rng.choice(list("pqrstuvw"), n)),
                       "d": rng.normal(size=n)})
    df.loc[rng.random(n) < 0.08, "a"] = np.nan
    df.loc[rng.random(n) < 0.05, "c"] = np.nan
    eta = np.nan_to_num(df.a.to_numpy()) + 0.5 * df.b + (df.c == "p") - 0.5 * (df.c == "s")
    df["y"] = _response(dist, eta.to_numpy(), rng)
    return df


def _same_fits(a, b):
    np.testing.assert_array_equal(a.fit, b.fit)
    np.testing.assert_array_equal(a.train_error, b.train_error)
    np.testing.assert_array_equal(a.valid_error, b.valid_error)
    np.testing.assert_array_equal(a.ts_support.approx, b.ts_support.approx)
    for s, t in zip(a.trees, b.trees):
        np.testing.assert_array_equal(s.split_var, t.split_var)
        np.testing.assert_array_equal(s.split_code_pred, t.split_code_pred)
        np.testing.assert_array_equal(s.error_reduction, t.error_reduction)


def _fit(df, dist, engine, **kw):
    args = dict(distribution=dist, n_trees=12, interaction_depth=4, shrinkage=0.2,
                train_fraction=0.8, boosting_type="ordered", n_minobsinnode=5, random_state=2,
                keep_data=False)
    args.update(kw)
    return pygbm.gbm("y ~ .", df, engine=engine, **args)


@pytest.mark.parametrize("dist", ALL + NEWTON)
@pytest.mark.parametrize("categorical", ["native", "ordered_ts"])
def test_fits_equal_every_distribution(dist, categorical):
    df = _frame(dist)
    a = _fit(df, dist, "numpy", categorical=categorical)
    b = _fit(df, dist, "numba", categorical=categorical)
    _same_fits(a, b)


@pytest.mark.parametrize("dist", RATIO + NEWTON)
def test_fits_equal_full_history(dist):
    df = _frame(dist, seed=1)
    a = _fit(df, dist, "numpy", full_history=True)
    b = _fit(df, dist, "numba", full_history=True)
    _same_fits(a, b)
    if dist != "huberized":     # here its leaves' terms keep one ratio: the same models
        assert not np.array_equal(a.fit, _fit(df, dist, "numba").fit)


@pytest.mark.parametrize("dist", ["gaussian", "bernoulli", "poisson", "laplace"] + NEWTON)
def test_fits_equal_weights_offset_monotone(dist):
    """Case weights (the unpacked columns), an offset, a monotone constraint."""
    df = _frame(dist, seed=3)
    rng = np.random.default_rng(4)
    df["o"] = 0.1 * rng.normal(size=len(df))
    kw = dict(weights=rng.uniform(0.2, 2.0, len(df)), var_monotone=[1, 0, 0, 0],
              categorical="ordered_ts")
    formula = "y ~ a + b + c + d + offset(o)"
    a = pygbm.gbm(formula, df, distribution=dist, engine="numpy", n_trees=10,
                  interaction_depth=3, boosting_type="ordered", random_state=5, **kw)
    b = pygbm.gbm(formula, df, distribution=dist, engine="numba", n_trees=10,
                  interaction_depth=3, boosting_type="ordered", random_state=5, **kw)
    _same_fits(a, b)


@pytest.mark.parametrize("formula", ["y ~ c + a + b + d", "y ~ c + e"])
def test_fits_equal_with_a_categorical_first(formula):
    """The histogram lays the continuous predictors' cells out first: a node's
    total comes from the cells laid out first, whichever predictor comes
    first in the formula (a factor first once read the continuous one's
    first cells, a wrong total, then bins past the predictor's end: fits
    that changed from run to run)."""
    df = _frame("gaussian", n=900, seed=7)
    df["e"] = pd.Categorical(np.random.default_rng(8).choice(list("xyz"), len(df)))
    fits = [pygbm.gbm(formula, df, distribution="gaussian", engine=engine, n_trees=20,
                      interaction_depth=3, boosting_type="ordered", random_state=3)
            for engine in ("numpy", "numba", "numba")]
    _same_fits(fits[0], fits[1])
    _same_fits(fits[1], fits[2])


def test_fits_equal_small_data_and_gbm_more():
    """Below 500 rows the first fold has one row; gbm_more continues both alike."""
    df = _frame("bernoulli", n=150, seed=6)
    a = pygbm.gbm_more(_fit(df, "bernoulli", "numpy", bag_fraction=1.0, keep_data=True), 5)
    b = pygbm.gbm_more(_fit(df, "bernoulli", "numba", bag_fraction=1.0, keep_data=True), 5)
    _same_fits(a, b)


def _models(dist, n, weights, offset, full_history, seed=0):
    rng = np.random.default_rng(seed)
    d = get_distribution(dist)
    y = _response(dist, rng.normal(size=n), rng)
    w = rng.uniform(0.5, 2.0, n) if weights else np.ones(n)
    t = Targets(y, 0.2 * rng.normal(size=n) if offset else None, w)
    problem = OrderedProblem(t, d, FitContext(), 3, 3, OrderedSpec(2, 2.0, None, full_history))
    bounds = fold_boundaries(n)
    orders = [rng.permutation(n) for _ in range(2)]
    approx = 0.3 * rng.normal(size=(2, int(bounds[1:].sum())))
    return [cls(problem, orders, bounds, approx.copy())
            for cls in (SupportingModels, CompiledSupportingModels)], rng


@pytest.mark.parametrize("dist", RATIO + NEWTON)
@pytest.mark.parametrize("weights,offset,full_history",
                         [(False, False, False), (True, True, False), (False, True, True),
                          (True, False, True)])
def test_supporting_models_equal(dist, weights, offset, full_history):
    (ref, comp), rng = _models(dist, 1300, weights, offset, full_history)
    for r in range(2):
        a, b = ref.fold_columns(r), comp.fold_columns(r)
        read = np.repeat(np.arange(a.n_folds), a.width)[None, :] >= a.tail_fold[:, None]
        np.testing.assert_array_equal(a.values[read], b.values[read])
        np.testing.assert_array_equal(a.unit, b.unit)
        np.testing.assert_array_equal(a.tail_fold, b.tail_fold)
        assert a.width == b.width == (2 if weights or dist in NEWTON else 1)
        node_of = rng.integers(0, 7, 1300)
        ref.add_tree(r, node_of, 7, 0.1)
        comp.add_tree(r, node_of, 7, 0.1)
        np.testing.assert_array_equal(ref.approx, comp.approx)
        if ref.exp_approx is None:          # no exponential: gaussian, huberized, ...
            assert comp.exp_approx is None
        else:
            np.testing.assert_array_equal(ref.exp_approx, comp.exp_approx)


@pytest.mark.parametrize("dist", ["bernoulli", "poisson", "adaboost"])
@pytest.mark.parametrize("full_history", [False, True])
def test_kept_exponentials_stay_those_of_the_link_values(dist, full_history):
    """exp(sign F), kept by a factor per tree, stays within rounding of
    exp(sign F) recomputed from the link values after 300 trees."""
    (_, comp), rng = _models(dist, 900, True, True, full_history, seed=3)
    for _ in range(300):
        comp.add_tree(0, rng.integers(0, 5, 900), 5, 0.1)
    p = comp.perms[0]
    with np.errstate(over="ignore"):          # exp overflows where the kept one does too
        want = np.exp(p.sign * (comp.approx[0] + p.targets.offset))
    np.testing.assert_allclose(comp.exp_approx[0], want, rtol=1e-12)
    assert not np.array_equal(comp.approx[0], _models(dist, 900, True, True, full_history,
                                                      seed=3)[0][1].approx[0])


@pytest.mark.parametrize("unit", [True, False])
@pytest.mark.parametrize("depth", [1, 4, 8])
def test_grown_trees_equal(unit, depth):
    rng = np.random.default_rng(depth)
    n, p = 1500, 5
    x = rng.normal(size=(n, p))
    x[rng.random((n, p)) < 0.05] = np.nan
    x[:, 3] = rng.integers(0, 4, n)                      # few values
    x[:, 4] = rng.integers(0, 9, n)                      # categorical
    var_type = np.array([0, 0, 0, 0, 9])
    data = BinnedTrainingData(x, var_type, np.array([0, 1, 0, 0, 0]), 40)
    (ref, _), _ = _models("gaussian", n, not unit, False, False, seed=depth)
    folds = ref.fold_columns(0)
    z = np.nan_to_num(x[:, 0]) + (x[:, 4] == 3) + rng.normal(size=n)
    w = np.ones(n) if unit else rng.uniform(0.5, 2.0, n)
    inbag = rng.random(n) < 0.6
    a = OrderedGrower(data, folds, depth, 5).grow(z, w, inbag, unit)
    b = CompiledOrderedGrower(data, BinnedArrays.of(data), folds, depth, 5).grow(z, w, inbag, unit)
    np.testing.assert_array_equal(a.node_of, b.node_of)
    assert a.vars_used == b.vars_used
    np.testing.assert_array_equal(a.terminal_preds(), b.terminal_preds())
    np.testing.assert_array_equal(a.terminal_counts(), b.terminal_counts())
    ta, tb = a.to_r_tree(0.1, var_type, []), b.to_r_tree(0.1, var_type, [])
    for field in ("split_var", "split_code_pred", "error_reduction", "weight", "prediction"):
        np.testing.assert_array_equal(getattr(ta, field), getattr(tb, field))
    other = BinnedTrainingData(x + 0.01, var_type, np.zeros(p, dtype=int), 40)
    np.testing.assert_array_equal(a.route(other), b.route(other))


@pytest.mark.parametrize("count_bits", [10, 15, 31])
def test_vectorised_terms_equal_terms_of_at_the_largest_sums(count_bits):
    """The scan's unpacking of packed fold sums (an exact int64 -> float in
    vector registers) gives every candidate's N and D as terms_of gives them
    one column at a time, for sums up to the packed columns' bound."""
    from pygbm.ordered.compiled.search import _terms_sides, scan_work, terms_of

    rng = np.random.default_rng(count_bits)
    n_folds, m = 4, 64
    lay = (1, 1, n_folds, count_bits)
    n_cols = 1 + 2 * n_folds
    bound = 2 ** (60 - count_bits)          # the packed sums' bound (columns.py)

    def packed(size, parts):
        """Packed sums of ``parts`` buckets each: together below the bound."""
        counts = rng.integers(0, 2 ** min(count_bits, 20) // parts, size)
        return rng.integers(-bound // parts, bound // parts, size) * 2 ** count_bits + counts

    buckets = packed((n_cols, m + 2), m + 2)     # the last one: the missing bucket
    left = np.cumsum(buckets[:, :m], axis=1)
    missing = buckets[:, -1]
    total = buckets.sum(axis=1)
    units = np.ldexp(1.0, -rng.integers(20, 40, (n_folds, 1)))
    out = tuple(np.empty(m) for _ in range(4))
    _terms_sides(left, m, total, missing, lay, units, out, scan_work(n_cols, m)[9])
    for c in range(m):
        right = total - left[:, c] - missing
        assert (out[0][c], out[1][c]) == terms_of(left[:, c], lay, units)
        assert (out[2][c], out[3][c]) == terms_of(right, lay, units)
