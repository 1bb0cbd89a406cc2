"""gbm(..., boosting_type="ordered"): Theorem 1 by Monte Carlo, reproducibility,
gbm_more, the toolbox, refusals."""
from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.ordered.folds import fold_boundaries
from pygbm.ordered.scheme import NativeViews

C1, C2, N16 = 2.0, 1.0, 16
STUMPS = dict(distribution="gaussian", interaction_depth=1, shrinkage=1.0, bag_fraction=1.0,
              n_minobsinnode=1, engine="numpy", keep_data=False)
#: one-row folds: each row's approximation is the model of the rows before it
ONE_ROW_FOLDS = dict(boosting_type="ordered", min_fold_size=1, fold_len_multiplier=1.0001,
                     n_permutations=1)
class _Rows:
    n = N16


GRID = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])


def _toy(rng):
    x = rng.integers(0, 2, (N16, 2)).astype(float)
    return x, C1 * x[:, 0] + C2 * x[:, 1]


def test_theorem1_plain_shift():
    """Plain boosting, two stumps on the same 16 rows: E F^2(x) - f*(x) =
    -c2 (x2 - 1/2) / (n - 1) (Theorem 1), within 4 Monte Carlo standard errors."""
    rng = np.random.default_rng(2018)
    bias = []
    while len(bias) < 1000:
        x, y = _toy(rng)
        if len(np.unique(x[:, 0])) < 2 or len(np.unique(x[:, 1])) < 2:
            continue
        fit = pygbm.gbm_fit(x, y, n_trees=2, max_bins=255, **STUMPS)
        if [t.split_var[0] for t in fit.trees] != [0, 1]:
            continue                                     # the theorem's event
        bias.append(fit.predict(GRID, n_trees=2) - GRID @ [C1, C2])
    bias = np.array(bias)
    mean, se = bias.mean(axis=0), bias.std(axis=0, ddof=1) / np.sqrt(bias.shape[0])
    expected = -C2 * (GRID[:, 1] - 0.5) / (N16 - 1)
    assert np.all(np.abs(mean - expected) < 4 * se), (mean, expected, se)
    assert np.all(np.abs(mean) > 4 * se)            # the shift is there


def test_theorem1_ordered_residuals_unshifted():
    """Ordered boosting (one-row folds): after the first stump on x1, the residuals
    y_i - M_{sigma(i)-1}(x_i) have conditional mean c2 (x2 - 1/2): unshifted."""
    rng = np.random.default_rng(7)
    res = {0.0: [], 1.0: []}
    n_sets = 0
    while n_sets < 600:
        x, y = _toy(rng)
        if len(np.unique(x[:, 0])) < 2:
            continue
        fit = pygbm.gbm_fit(x, y, n_trees=1, random_state=n_sets, **STUMPS, **ONE_ROW_FOLDS)
        if fit.trees[0].split_var[0] != 0:
            continue
        n_sets += 1
        models = fit.ts_support
        order = NativeViews(_Rows(), 1, models.seed).order(0)
        bounds = fold_boundaries(N16, 1.0001, 1)
        start = np.concatenate(([0], np.cumsum(bounds[1:])))
        for k in range(bounds.shape[0] - 1):
            p = bounds[k]                                  # the fold's one tail position
            i = order[p]
            earlier = order[:p]
            if not np.any(x[earlier, 0] == x[i, 0]):
                continue                                   # no earlier row in its leaf
            m = models.approx[0, start[k] + p]
            res[x[i, 1]].append(y[i] - m)
    for x2, r in res.items():
        r = np.asarray(r)
        se = r.std(ddof=1) / np.sqrt(r.size)
        assert abs(r.mean() - C2 * (x2 - 0.5)) < 4 * se, (x2, r.mean(), se)


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    n = 1500
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                       "c": pd.Categorical(rng.choice(list("pqrst"), n))})
    df["y"] = (df.a + (df.c == "p") + rng.normal(size=n) > 0).astype(int)
    return df


ORDERED = dict(distribution="bernoulli", interaction_depth=3, shrinkage=0.1,
               boosting_type="ordered", n_trees=20)


@pytest.mark.parametrize("categorical", ["native", "ordered_ts"])
def test_same_random_state_same_fit(frame, categorical):
    a = pygbm.gbm("y ~ .", frame, random_state=3, categorical=categorical, **ORDERED)
    b = pygbm.gbm("y ~ .", frame, random_state=3, categorical=categorical, **ORDERED)
    np.testing.assert_array_equal(a.fit, b.fit)
    c = pygbm.gbm("y ~ .", frame, random_state=4, categorical=categorical, **ORDERED)
    assert not np.array_equal(a.fit, c.fit)


@pytest.mark.parametrize("categorical", ["native", "ordered_ts"])
def test_gbm_more_continues_the_supporting_models(frame, categorical):
    whole = pygbm.gbm("y ~ .", frame, random_state=3, categorical=categorical,
                      **{**ORDERED, "n_trees": 30})
    part = pygbm.gbm("y ~ .", frame, random_state=3, categorical=categorical, **ORDERED)
    more = pygbm.gbm_more(part, 10)
    np.testing.assert_array_equal(more.fit, whole.fit)
    np.testing.assert_array_equal(more.ts_support.approx, whole.ts_support.approx)
    np.testing.assert_array_equal(more.ts_support.exp_approx, whole.ts_support.exp_approx)
    np.testing.assert_array_equal(more.train_error, whole.train_error)


@pytest.mark.parametrize("categorical", ["native", "ordered_ts"])
def test_gbm_more_refuses_r_stream_as_gbm_does(frame, categorical):
    """gbm() refuses R's random stream with ordered boosting (R has none);
    gbm_more(random_state=RRandom(...)) continued such a fit with it silently."""
    part = pygbm.gbm("y ~ .", frame, random_state=3, categorical=categorical,
                     **{**ORDERED, "n_trees": 3})
    with pytest.raises(ValueError, match=r"random_state=RRandom\(\.\.\.\) draws R's random "
                                         r"numbers, and R gbm has no (ordered boosting|target "
                                         r"statistics)"):
        pygbm.gbm_more(part, 2, random_state=pygbm.RRandom(1))
    assert pygbm.gbm_more(part, 2, random_state=5).n_trees == 5


def test_toolbox_works(frame):
    fit = pygbm.gbm("y ~ .", frame, random_state=1, cv_folds=2, **ORDERED)
    back = pickle.loads(pickle.dumps(fit))
    np.testing.assert_array_equal(back.predict(frame, n_trees=20), fit.predict(frame, n_trees=20))
    assert fit.cv_error.shape == (20,)
    infl = np.asarray(fit.relative_influence(n_trees=20), dtype=float)
    assert np.all(np.isfinite(infl)) and infl.sum() > 0
    grid = pygbm.partial_dependence(fit, "a", n_trees=20)
    assert len(grid) > 0


def test_ordered_differs_from_plain_and_plain_is_the_default(frame):
    kw = {k: v for k, v in ORDERED.items() if k != "boosting_type"}
    default = pygbm.gbm("y ~ .", frame, random_state=1, **kw)
    plain = pygbm.gbm("y ~ .", frame, random_state=1, boosting_type="plain", **kw)
    np.testing.assert_array_equal(default.fit, plain.fit)
    ordered = pygbm.gbm("y ~ .", frame, random_state=1, **ORDERED)
    assert not np.array_equal(ordered.fit, plain.fit)
    assert ordered.options.ordered.n_permutations == 4 and ordered.max_bins == 255


@pytest.mark.parametrize("dist", ["multinomial", "coxph"])
def test_refused_distributions(dist):
    x = np.random.default_rng(0).normal(size=(60, 2))
    with pytest.raises(ValueError, match="boosting_type='ordered' does not support"):
        pygbm.gbm_fit(x, np.arange(60) % 3, distribution=dist, boosting_type="ordered")


def test_refused_pairwise(frame):
    df = frame.assign(q=np.arange(len(frame)) // 10)
    with pytest.raises(ValueError, match="does not support distribution 'pairwise'"):
        pygbm.gbm("y ~ a + b", df, distribution={"name": "pairwise", "group": "q"},
                  boosting_type="ordered")


@pytest.mark.parametrize("kw", [dict(boosting_type="ordered", n_permutations=10 ** 12),
                                dict(categorical="ordered_ts", ts_permutations=10 ** 12)])
def test_permutations_beyond_memory_are_refused_up_front(frame, kw):
    # each permutation keeps a table of the training rows: this ran out of memory
    name = "n_permutations" if "n_permutations" in kw else "ts_permutations"
    with pytest.raises(ValueError, match=f"{name}=1000000000000 permutations of the "
                                         f"{len(frame)} training rows"):
        pygbm.gbm("y ~ .", frame, distribution="bernoulli", n_trees=2, **kw)


def test_bad_arguments(frame):
    with pytest.raises(ValueError, match="boosting_type must be"):
        pygbm.gbm("y ~ .", frame, distribution="bernoulli", boosting_type="Ordered")
    with pytest.raises(ValueError, match="fold_len_multiplier"):
        pygbm.gbm("y ~ .", frame, distribution="bernoulli", boosting_type="ordered",
                  fold_len_multiplier=1.0)
    # text was converted ('2' fitted as 2.0), inf raised OverflowError in the folds
    for bad in ("2", np.inf, np.nan, True):
        with pytest.raises(ValueError, match=r"fold_len_multiplier must be a finite number > 1"):
            pygbm.gbm("y ~ .", frame, distribution="bernoulli", boosting_type="ordered",
                      fold_len_multiplier=bad)
    with pytest.raises(ValueError, match="differ"):
        pygbm.gbm("y ~ .", frame, distribution="bernoulli", n_permutations=3,
                  ts_permutations=2)
    # the error names the argument given, not its alias ("ts_permutations must be >= 1")
    for kw in (dict(categorical="ordered_ts"), dict(boosting_type="ordered"), {}):
        with pytest.raises(ValueError, match="n_permutations must be >= 1, got 0"):
            pygbm.gbm("y ~ .", frame, distribution="bernoulli", n_permutations=0, **kw)
    with pytest.raises(ValueError, match="ts_permutations must be >= 1, got 0"):
        pygbm.gbm("y ~ .", frame, distribution="bernoulli", ts_permutations=0,
                  categorical="ordered_ts")
    same = pygbm.gbm("y ~ .", frame, distribution="bernoulli", categorical="ordered_ts", ts_permutations=2,
                     n_trees=5, random_state=1)
    alias = pygbm.gbm("y ~ .", frame, distribution="bernoulli", categorical="ordered_ts", n_permutations=2,
                      n_trees=5, random_state=1)
    np.testing.assert_array_equal(same.fit, alias.fit)
