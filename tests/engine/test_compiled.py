"""The compiled engine (numba) against the NumPy engine, the reference.

Tree by tree on random nodes (ties, missing values, categoricals, weights,
monotone constraints, bags, depths, minimum node sizes): the same nodes,
splits, sums and gains, the same routing of every row; the finished trees
(R's Adjust and R's eight vectors) and the validation step the same bit for
bit. Then whole fits: every R reference case and random fits of every
distribution give the same numbers under both engines.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numba")

from pygbm import gbm  # noqa: E402
from pygbm.engine.compiled.grower import CompiledGrower, tree_step  # noqa: E402
from pygbm.engine.data import TrainingData  # noqa: E402
from pygbm.engine.grow import SearchGrower  # noqa: E402
from pygbm.engine.tree import ColumnView, Tree  # noqa: E402


def random_node(seed, n=300, p=5, nan=True, weights=False, ties=False, cat=False,
                mono=False, bag=0.5):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    if ties:
        x[:, 1] = np.round(x[:, 1] * 2)
    if nan:
        x[rng.random((n, p)) < 0.1] = np.nan
    var_type = np.zeros(p, dtype=int)
    if cat:
        x[:, 3] = rng.integers(0, 6, n)
        x[rng.random(n) < 0.05, 3] = np.nan
        var_type[3] = 6
        x[:, 4] = rng.integers(0, 3, n)
        var_type[4] = 3
    monotone = np.zeros(p, dtype=int)
    if mono:
        monotone[0], monotone[2] = 1, -1
    z = np.nan_to_num(x[:, 0]) * 1.5 - np.nan_to_num(x[:, 2]) + rng.normal(size=n)
    if ties:
        z = np.round(z)          # equal sums: R's tie-breaks decide
    w = rng.uniform(0.5, 2.0, n) if weights else np.ones(n)
    inbag = rng.random(n) < bag
    return TrainingData(x, var_type, monotone), z, w, inbag


KINDS = [dict(), dict(nan=False), dict(weights=True), dict(ties=True), dict(cat=True),
         dict(mono=True), dict(weights=True, ties=True, cat=True, mono=True),
         dict(bag=1.0), dict(n=40, cat=True)]


def _same_trees(a, b, data, shrinkage=0.1):
    assert a.terminals == b.terminals.tolist()
    np.testing.assert_array_equal(a.node_of, b.node_of)
    assert a.vars_used == b.vars_used
    np.testing.assert_array_equal(a.terminal_counts(), b.terminal_counts())
    np.testing.assert_array_equal(a.terminal_preds(), b.terminal_preds())
    bn = b.nodes
    for k, node in enumerate(a.nodes):
        assert (node.w, node.n) == (bn.node_w[k], bn.node_n[k])
        if node.split is not None:
            s = node.split
            assert (s.var, s.value, s.improvement) == (bn.node_var[k], bn.node_value[k],
                                                       bn.node_gain[k])
            assert node.children == tuple(bn.node_kids[k])
    # finish both the same way: leaf values, Adjust, R's vectors, routing
    values = np.random.default_rng(len(a.nodes)).normal(size=a.n_terminal)
    for g in (a, b):
        g.set_terminal_preds(values)
        g.adjust(7)
    np.testing.assert_array_equal(a.terminal_preds(), b.terminal_preds())
    cs_a, cs_b = [np.array([1, -1])], [np.array([1, -1])]
    ta = a.to_r_tree(shrinkage, data.var_type, cs_a)
    tb = b.to_r_tree(shrinkage, data.var_type, cs_b)
    for field in ("split_var", "split_code_pred", "left", "right", "missing",
                  "error_reduction", "weight", "prediction"):
        np.testing.assert_array_equal(getattr(ta, field), getattr(tb, field), err_msg=field)
    assert len(cs_a) == len(cs_b)
    for u, v in zip(cs_a, cs_b):
        np.testing.assert_array_equal(u, v)
    np.testing.assert_array_equal(a.route(data), b.route(data))
    view = ColumnView(data.x, data.var_type)
    np.testing.assert_array_equal(ta.predict_view(view, cs_a), tree_step(tb, view, cs_b))


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: "-".join(map(str, k)) or "plain")
@pytest.mark.parametrize("seed", range(6))
def test_compiled_tree_is_numpy_tree(kind, seed):
    data, z, w, inbag = random_node(seed, **kind)
    unit = bool(np.all(w == 1))
    for depth in (1, 3, 6):
        for min_obs in (1, 10):
            a = SearchGrower(data, depth, min_obs).grow(z, w, inbag, unit)
            b = CompiledGrower(data, depth, min_obs).grow(z, w, inbag, unit)
            _same_trees(a, b, data)


def test_tree_step_sends_unseen_levels_to_missing():
    data, z, w, inbag = random_node(3, cat=True, nan=False)
    tree = CompiledGrower(data, 4, 5).grow(z, w, inbag, True)
    cs = []
    r_tree = tree.to_r_tree(1.0, data.var_type, cs)
    x = data.x.copy()
    x[:, 3] = 9.0              # a level the fit never saw
    x[:5, 4] = np.nan
    view = ColumnView(x, data.var_type)
    np.testing.assert_array_equal(r_tree.predict_view(view, cs), tree_step(r_tree, view, cs))


def test_tree_step_in_any_numbering():
    """The rows go split by split in R's pre-order numbering and are walked
    down a tree numbered otherwise: the same terminal nodes either way."""
    data, z, w, inbag = random_node(4, cat=True)
    tree = CompiledGrower(data, 5, 3).grow(z, w, inbag, True)
    cs = []
    r_tree = tree.to_r_tree(1.0, data.var_type, cs)
    view = ColumnView(data.x, data.var_type)
    m = r_tree.n_nodes
    new_of = np.r_[0, m - np.arange(1, m)]    # the root first, every other child before its parent
    old_of = np.argsort(new_of)

    def renumbered(kids):
        return np.where(kids[old_of] >= 0, new_of[np.maximum(kids[old_of], 0)], kids[old_of])

    reversed_tree = Tree(r_tree.split_var[old_of], r_tree.split_code_pred[old_of],
                         renumbered(r_tree.left), renumbered(r_tree.right),
                         renumbered(r_tree.missing), r_tree.error_reduction[old_of],
                         r_tree.weight[old_of], r_tree.prediction[old_of])
    assert (r_tree.split_var >= 0).sum() == 5
    np.testing.assert_array_equal(r_tree.predict_view(view, cs), tree_step(r_tree, view, cs))
    np.testing.assert_array_equal(tree_step(reversed_tree, view, cs),
                                  tree_step(r_tree, view, cs))


# ------------------------------------------------------------------ whole fits
def _fit_arrays(fit):
    out = {"fit": fit.fit, "train_error": fit.train_error, "valid_error": fit.valid_error,
           "oobag_improve": fit.oobag_improve}
    for i, tree in enumerate(fit.trees):
        for field in ("split_var", "split_code_pred", "left", "right", "missing",
                      "error_reduction", "weight", "prediction"):
            out[f"{i}.{field}"] = getattr(tree, field)
    return out


def assert_same_fit(a, b):
    fa, fb = _fit_arrays(a), _fit_arrays(b)
    assert fa.keys() == fb.keys()
    for key in fa:
        np.testing.assert_array_equal(np.asarray(fa[key]), np.asarray(fb[key]), err_msg=key)
    assert len(a.c_splits) == len(b.c_splits)
    for u, v in zip(a.c_splits, b.c_splits):
        np.testing.assert_array_equal(u, v)


def _conformance():
    import test_conformance_r as conformance

    return conformance


def _r_case_names():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    return list(_conformance().FIT_CASES)


@pytest.mark.parametrize("name", _r_case_names())
def test_every_r_case_same_under_both_engines(name):
    conformance = _conformance()
    case, fixture = conformance.CASES[name], conformance.prep.load_fixture(name)
    data = conformance.prep.prepare(case, conformance.prep.REPO_ROOT)
    kwargs = conformance.gbm_kwargs(case, fixture)
    fits = [gbm(case["formula"], data, engine=e, **kwargs) for e in ("numpy", "numba")]
    assert fits[1].options.engine == "numba"
    assert_same_fit(*fits)


DISTRIBUTIONS = ["gaussian", "laplace", "tdist", "bernoulli", "adaboost", "huberized",
                 "poisson", {"name": "quantile", "alpha": 0.7}, "coxph", "multinomial"]


def _predictors(rng, n):
    """Four predictors (one with missing values, one categorical) and a linear
    predictor of them, for the random whole fits."""
    df = pd.DataFrame({"a": rng.normal(size=n), "b": np.round(rng.normal(size=n), 1),
                       "c": pd.Categorical(rng.choice(list("pqrst"), n)),
                       "d": rng.uniform(size=n)})
    df.loc[rng.random(n) < 0.1, "a"] = np.nan
    eta = np.nan_to_num(df["a"].to_numpy()) + (df["c"] == "q") - df["d"]
    return df, eta


@pytest.mark.parametrize("dist", DISTRIBUTIONS, ids=str)
@pytest.mark.parametrize("seed", range(2))
def test_random_fits_same_under_both_engines(dist, seed):
    rng = np.random.default_rng(seed)
    n = 400
    df, eta = _predictors(rng, n)
    name = dist if isinstance(dist, str) else dist["name"]
    formula = "y ~ a + b + c + d"
    if name in ("bernoulli", "adaboost", "huberized"):
        df["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    elif name == "poisson":
        df["y"] = rng.poisson(np.exp(eta / 2))
    elif name == "coxph":
        df["time"], df["status"] = rng.exponential(np.exp(-eta)), rng.integers(0, 2, n)
        formula = "Surv(time, status) ~ a + b + c + d"
    elif name == "multinomial":
        df["y"] = pd.Categorical(np.where(eta > 0.5, "hi", np.where(eta < -0.5, "lo", "mid")))
    else:
        df["y"] = eta + rng.normal(size=n)
    df["wt"] = rng.uniform(0.5, 2, n) if seed else 1.0
    kwargs = dict(distribution=dist, n_trees=15, interaction_depth=3, n_minobsinnode=5,
                  shrinkage=0.1, train_fraction=0.8, random_state=seed,
                  weights="wt")
    fits = [gbm(formula, df, engine=e, **kwargs) for e in ("numpy", "numba")]
    assert_same_fit(*fits)


def test_engine_argument_checked():
    df = pd.DataFrame({"y": np.arange(30.0), "x": np.arange(30.0) % 7})
    with pytest.raises(ValueError, match="engine must be one of 'numba', 'numpy'"):
        gbm("y ~ x", df, distribution="gaussian", engine="fortran")


def test_without_numba_the_numpy_engine_runs_with_one_note(monkeypatch):
    import warnings

    from pygbm import _checks
    from pygbm.engine import compiled

    monkeypatch.setitem(compiled._state, "ok", False)
    monkeypatch.setattr(_checks, "_NOTED", [])
    df = pd.DataFrame({"y": np.arange(60.0), "x": np.arange(60.0) % 7})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fits = [gbm("y ~ x", df, distribution="gaussian", n_trees=3) for _ in range(2)]
    notes = [w for w in caught if "numba is not installed" in str(w.message)]
    assert len(notes) == 1
    assert all(f.options.engine == "numpy" for f in fits)
    with pytest.raises(ValueError, match="engine='numba' needs numba"):
        gbm("y ~ x", df, distribution="gaussian", n_trees=3, engine="numba")


def test_few_valued_small_data_stay_presorted_for_the_compiled_grower():
    from pygbm.engine.factory import training_data

    x = np.tile(np.arange(5.0), (60, 2))
    vt, mono = np.zeros(10, dtype=int), np.zeros(10, dtype=int)
    assert training_data(x, vt, mono, engine="numba").presorted
    assert not training_data(x, vt, mono, engine="numpy").presorted


#: the seed papers' options, alone and together, on exact and binned data
FEATURE_CASES = {
    "costs, bernoulli, exact": dict(
        distribution="bernoulli", feature_costs={"a": 1.0, "b": 5.0, "c": 0.0, "d": 2.0},
        feature_costs_model={"b": 3.0}, cost_split=0.01, cegb_tradeoff=0.01),
    "costs, gaussian, binned, cv": dict(
        distribution="gaussian", feature_costs=[1.0, 5.0, 0.0, 2.0], cegb_tradeoff=0.02,
        max_bins=16, cv_folds=3),
    "costs, bernoulli, ordered_ts": dict(
        distribution="bernoulli", feature_costs={"c": 5.0, "a": 1.0}, cegb_tradeoff=0.01,
        categorical="ordered_ts"),
    "costs, poisson, weighted": dict(
        distribution="poisson", feature_costs={"a": 1.0, "d": 4.0}, cegb_tradeoff=0.05,
        weights="wt"),
    "zeros, importance, binned": dict(
        distribution="bernoulli", zero_subsample=0.4, max_bins=32),
    "zeros, none, exact": dict(
        distribution="bernoulli", zero_subsample=0.4, zero_weight="none"),
    "zeros, offset, ordered_ts": dict(
        distribution="bernoulli", zero_subsample=0.5, zero_weight="offset",
        categorical="ordered_ts"),
    "zeros, poisson, weighted": dict(
        distribution="poisson", zero_subsample=0.5, weights="wt"),
    "zeros and costs": dict(
        distribution="bernoulli", zero_subsample=0.5, feature_costs={"b": 2.0},
        cegb_tradeoff=0.02),
    "ordered, gaussian, native": dict(
        distribution="gaussian", boosting_type="ordered"),
    "ordered, bernoulli, ordered_ts, full history": dict(
        distribution="bernoulli", boosting_type="ordered", categorical="ordered_ts",
        full_history=True),
    "ordered, laplace, cv": dict(
        distribution="laplace", boosting_type="ordered", max_bins=16, cv_folds=3),
    "ordered, adaboost, weighted, zeros": dict(
        distribution="adaboost", boosting_type="ordered", zero_subsample=0.5, weights="wt"),
}


@pytest.mark.parametrize("case", FEATURE_CASES)
def test_seed_features_same_under_both_engines(case):
    """Feature costs, zero subsampling and ordered boosting, alone and combined:
    both engines fit the same model, bit for bit (cv included)."""
    kwargs = FEATURE_CASES[case]
    name = kwargs["distribution"]
    rng = np.random.default_rng(len(case))
    n = 300
    df, eta = _predictors(rng, n)
    if name in ("bernoulli", "adaboost"):
        df["y"] = (rng.random(n) < 1 / (1 + np.exp(1.5 - eta))).astype(int)
    elif name == "poisson":
        df["y"] = rng.poisson(np.exp(eta / 2 - 1))
    else:
        df["y"] = eta + rng.normal(size=n)
    df["wt"] = rng.uniform(0.5, 2, n)
    settings = dict(n_trees=12, interaction_depth=3, n_minobsinnode=5, shrinkage=0.1,
                    train_fraction=0.8, random_state=7)
    fits = [gbm("y ~ a + b + c + d", df, engine=e, **settings, **kwargs)
            for e in ("numpy", "numba")]
    assert fits[1].options.engine == "numba"
    assert_same_fit(*fits)
    if "cv_folds" in kwargs:
        np.testing.assert_array_equal(fits[0].cv_error, fits[1].cv_error)
        np.testing.assert_array_equal(fits[0].cv_fitted, fits[1].cv_fitted)
