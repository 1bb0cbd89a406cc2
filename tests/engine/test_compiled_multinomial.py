"""The compiled multinomial (engine/compiled/multinomial.py and its loop,
multiclass_loop.py) against the NumPy distribution and loop, bit for bit: the
iteration's softmax, a class's working response, Newton steps (with empty
nodes, capped steps and nodes without Hessian), out-of-bag improvement and the
deviance on random rows with and without offsets and weights; whole fits
with bagging, validation rows, categorical predictors, missing values and
cv, against the NumPy loop with the same tree stage."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numba")

from pygbm import gbm, gbm_more  # noqa: E402
from pygbm.distributions import FitContext, Leaves, Targets  # noqa: E402
from pygbm.distributions.multinomial import Multinomial  # noqa: E402
from pygbm.engine.compiled import boosting, multinomial  # noqa: E402
from pygbm.engine.compiled.losses import loss_rows  # noqa: E402

N_NODES = 5
CASES = [(seed, offset, weighted, K) for seed in (1, 2) for offset in (False, True)
         for weighted in (False, True) for K in (2, 5)]


def _case(seed, offset, weighted, K, n=211):
    rng = np.random.default_rng(seed)
    d = Multinomial()
    codes = rng.integers(0, K, n)
    ctx = FitContext(classes=d.response_classes(codes))
    w = rng.uniform(0.2, 3.0, n) if weighted else np.ones(n)
    off = rng.normal(size=n) * 0.3 if offset else None
    t = Targets(d.check_response(codes), off, w)
    F = rng.normal(size=(n, K)) * 2.0
    tied = rng.random(n) < 0.2
    F[tied, 1] = F[tied, 0]                       # ties at a row's largest value
    F[::9, -1] = 40.0                             # confident rows: p ~ 0 or 1
    bag = rng.random(n) < 0.6
    node = rng.integers(0, N_NODES, n)
    node[node == 3] = 2                           # an empty node
    d.start_iteration(t, F, ctx)
    return d, t, F, ctx, bag, node


def _ids(case):
    seed, offset, weighted, K = case
    return f"s{seed}-K{K}" + ("-offset" if offset else "") + ("-weights" if weighted else "")


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_kernels_equal_the_distribution(case):
    d, t, F, ctx, bag, node = _case(*case)
    K = F.shape[1]
    rows = loss_rows(t)
    f = np.ascontiguousarray(F.T)
    p = np.empty_like(f)
    multinomial.softmax_into(rows, f, p)
    np.testing.assert_array_equal(p.T, ctx.cache["multinomial.p"])
    assert multinomial.deviance(rows, f) == d.deviance(t, F, ctx)
    z, wz = np.empty(F.shape[0]), np.empty(F.shape[0])
    steps = np.empty_like(f)
    for k in range(K):
        multinomial.working_response(rows, p[k], k, z, wz)
        want_z = d.negative_gradient(t, F, bag, ctx, k=k)
        np.testing.assert_array_equal(z, want_z)
        np.testing.assert_array_equal(wz, t.w * want_z)
        values = np.empty(N_NODES)
        multinomial.leaf_values(rows, z, p[k], node, bag, K, values)
        want = d.fit_leaves(t, F, want_z, Leaves(node, N_NODES, None, None, 1), bag, ctx, k=k)
        np.testing.assert_array_equal(values, want)
        steps[k] = values[node] * 7.0             # large steps too
    got = multinomial.bag_improvement(rows, p, steps, bag, 0.1)     # the iteration's
    assert got == d.bag_improvement(t, F, np.ascontiguousarray(steps.T), bag, 0.1, ctx)


def test_capped_steps_and_nodes_without_hessian():
    d, t, F, ctx, bag, node = _case(3, False, False, 3)
    F[:, 1] = 60.0                                # p_0 ~ 1e-26: steps beyond the cap
    F[node == 4, :] = [800.0, 0.0, 0.0]           # p_0 = 1 exactly: no Hessian
    d.start_iteration(t, F, ctx)
    rows, f = loss_rows(t), np.ascontiguousarray(F.T)
    p = np.empty_like(f)
    multinomial.softmax_into(rows, f, p)
    z, wz = np.empty(F.shape[0]), np.empty(F.shape[0])
    multinomial.working_response(rows, p[0], 0, z, wz)
    values = np.empty(N_NODES)
    multinomial.leaf_values(rows, z, p[0], node, bag, 3, values)
    want = d.fit_leaves(t, F, z, Leaves(node, N_NODES, None, None, 1), bag, ctx, k=0)
    np.testing.assert_array_equal(values, want)
    assert np.any(np.abs(values) == 100.0) and values[4] == 0.0


def _data(seed, n=300):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.normal(size=n), "b": np.round(rng.normal(size=n), 1),
                       "c": pd.Categorical(rng.choice(list("pqrst"), n)),
                       "d": rng.uniform(size=n)})
    df.loc[rng.random(n) < 0.1, "a"] = np.nan
    eta = np.nan_to_num(df["a"].to_numpy()) + (df["c"] == "q") - df["d"]
    y = np.where(eta > 0.5, "hi", np.where(eta < -0.5, "lo", "mid"))
    y[rng.random(n) < 0.1] = "other"
    df["y"] = pd.Categorical(y)
    df["wt"] = rng.uniform(0.5, 2, n)
    return df


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("weights", [None, "wt"])
@pytest.mark.parametrize("splits", ["gradient", "newton"])
def test_loop_equals_the_numpy_loop(seed, weights, splits, monkeypatch):
    """The compiled loop against the NumPy loop with the same (compiled) tree
    stage: bags, validation rows, cv folds and gbm_more included."""
    df = _data(seed)
    kw = dict(distribution={"name": "multinomial", "splits": splits}, n_trees=12, interaction_depth=3, n_minobsinnode=5,
              shrinkage=0.2, bag_fraction=0.6 if seed else 1.0, train_fraction=0.8,
              random_state=seed, weights=weights, cv_folds=2 if seed == 1 else 0)
    looped = gbm("y ~ a + b + c + d", df, **kw)
    looped_more = gbm_more(looped, 5)
    monkeypatch.setattr(boosting, "runs_multiclass", lambda dist: False)
    reference = gbm("y ~ a + b + c + d", df, **kw)
    for got, want in ((looped, reference), (looped_more, gbm_more(reference, 5))):
        np.testing.assert_array_equal(got.fit, want.fit)
        for name in ("train_error", "valid_error", "oobag_improve"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
        assert len(got.trees) == len(want.trees)
        for a, b in zip(got.trees, want.trees):
            for va, vb in zip(a.vectors(), b.vectors()):
                np.testing.assert_array_equal(va, vb)
        assert [list(c) for c in got.c_splits] == [list(c) for c in want.c_splits]
    if kw["cv_folds"]:
        np.testing.assert_array_equal(looped.cv_error, reference.cv_error)


def test_which_fits_the_loop_runs():
    from pygbm.distributions import get_distribution

    assert boosting.runs_multiclass(get_distribution("multinomial"))
    assert boosting.runs_multiclass(get_distribution({"name": "multinomial",
                                                      "splits": "newton"}))
    assert not boosting.runs_multiclass(get_distribution("bernoulli"))


@pytest.mark.parametrize("case", CASES[:4], ids=_ids)
def test_newton_response_equals_the_distribution(case):
    d, t, F, ctx, bag, node = _case(*case)
    newton = Multinomial(splits="newton")
    rows, f = loss_rows(t), np.ascontiguousarray(F.T)
    p = np.empty_like(f)
    multinomial.softmax_into(rows, f, p)
    n = F.shape[0]
    z, wz, gw = np.empty(n), np.empty(n), np.empty(n)
    for k in range(F.shape[1]):
        multinomial.working_response(rows, p[k], k, z, wz)
        multinomial.newton_response(rows, p[k], z, gw, wz)
        gz, want_w = newton.growth_response(t, F, z, ctx, k=k)
        np.testing.assert_array_equal(gw, want_w)
        np.testing.assert_array_equal(wz, want_w * gz)
