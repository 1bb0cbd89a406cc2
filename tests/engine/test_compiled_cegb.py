"""CEGB's penalties in the compiled growers (engine/compiled/cegb_penalties.py,
exact_tree.grow_exact_penalised, binned_tree.grow_binned_penalised): the same
trees, the same recorded splits and the same feature-use state as the NumPy
searches (exact and histogram) with the cost tracker, tree by tree and over
whole fits; the NumPy search where the compiled one does not apply (case
weights, feature combinations, one bucket per value)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.engine.binned import BinnedTrainingData
from pygbm.engine.cegb import Columns, CostSpec, CostTracker
from pygbm.engine.compiled.grower import CompiledBinnedGrower, CompiledGrower
from pygbm.engine.data import TrainingData
from pygbm.engine.factory import TreeStage
from pygbm.engine.grow import SearchGrower

P = 6
N = 3000
BINS = 32


def _spec(feature=(), model=(), split=0.0, tradeoff=1.0):
    def vec(values):
        out = np.zeros(P)
        out[:len(values)] = values
        return out
    return CostSpec(vec(feature), vec(model), float(split), float(tradeoff))


def _data(seed, missing=0.05, categorical=True, layout="binned"):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N, P))
    x[rng.random((N, P)) < missing] = np.nan
    var_type = np.zeros(P, dtype=int)
    if categorical:
        x[:, 3] = rng.integers(0, 5, size=N)
        var_type[3] = 5
    z = (np.nan_to_num(x[:, 0]) + 0.8 * np.nan_to_num(x[:, 1]) ** 2 + 0.5 * (x[:, 3] == 2)
         + 0.3 * np.nan_to_num(x[:, 4]) + rng.normal(size=N))
    if layout == "exact":
        return TrainingData(x, var_type, np.zeros(P, dtype=int)), z
    return BinnedTrainingData(x, var_type, np.zeros(P, dtype=int), BINS), z


def _compiled(data, depth, min_obs, costs):
    grower = CompiledGrower if isinstance(data, TrainingData) else CompiledBinnedGrower
    return grower(data, depth, min_obs, costs)


SPECS = {
    "feature": _spec(feature=[40, 30, 1, 2, 3, 1], tradeoff=1e-2),
    "model": _spec(model=[3000, 2000, 10, 20, 30, 5], tradeoff=1.0),
    "split": _spec(split=0.6),                      # trees that stop early
    "all": _spec(feature=[20, 10, 3, 4, 5, 6], model=[600, 0, 90, 10, 0, 20], split=0.3,
                 tradeoff=2e-2),
}


def _grow_both(data, z, spec, n_trees=8, depth=5, seed=0):
    """Trees grown one after another by both growers, each with its tracker
    (marked as the loop marks it after every tree; ``spec`` None: no costs)."""
    rng = np.random.default_rng(seed)
    w = np.ones(N)
    trackers = [None if spec is None else CostTracker(spec, N, None) for _ in range(2)]
    numpy_grower = SearchGrower(data, depth, 5, trackers[0])
    compiled_grower = _compiled(data, depth, 5, trackers[1])
    out = []
    for _ in range(n_trees):
        inbag = rng.random(N) < 0.6
        zt = z - rng.normal(scale=0.5, size=N)
        trees = [g.grow(zt, w, inbag, True) for g in (numpy_grower, compiled_grower)]
        for tracker, tree in zip(trackers, trees):
            if tracker is not None:
                tracker.tree_added(tree, inbag)
        out.append(trees)
    return out, trackers


@pytest.mark.parametrize("layout", ["exact", "binned"])
@pytest.mark.parametrize("name", sorted(SPECS))
@pytest.mark.parametrize("seed", [0, 1])
def test_compiled_trees_and_state_equal_the_numpy_search(name, seed, layout):
    data, z = _data(seed, layout=layout)
    trees, (numpy_tracker, compiled_tracker) = _grow_both(data, z, SPECS[name], seed=seed)
    for numpy_tree, compiled_tree in trees:
        assert numpy_tree.vars_used == compiled_tree.vars_used
        np.testing.assert_array_equal(numpy_tree.node_of, compiled_tree.node_of)
        np.testing.assert_array_equal(numpy_tree.terminal_preds(),
                                      compiled_tree.terminal_preds())
    assert len(numpy_tracker.splits) == len(compiled_tracker.splits)
    for a, b in zip(numpy_tracker.splits, compiled_tracker.splits):
        np.testing.assert_array_equal(a, b)          # column, raw gain, penalty
    np.testing.assert_array_equal(numpy_tracker.used_rows, compiled_tracker.used_rows)
    np.testing.assert_array_equal(numpy_tracker.used_model, compiled_tracker.used_model)
    np.testing.assert_array_equal(numpy_tracker.evaluated, compiled_tracker.evaluated)


@pytest.mark.parametrize("layout", ["exact", "binned"])
def test_the_penalties_change_the_trees(layout):
    # the comparisons above are of trees the costs change; with zero costs the
    # penalised growth is the free one
    data, z = _data(0, layout=layout)
    free = [trees[1].vars_used for trees in _grow_both(data, z, _spec())[0]]
    assert free == [trees[1].vars_used for trees in _grow_both(data, z, None)[0]]
    for spec in SPECS.values():
        assert [trees[1].vars_used for trees in _grow_both(data, z, spec)[0]] != free


@pytest.mark.parametrize("layout", ["exact", "binned"])
def test_model_cost_paid_mid_tree_searches_the_other_nodes_again(layout):
    # a model cost on the best predictor only: once it is paid the other nodes'
    # best splits change, in both growers alike
    data, z = _data(2, categorical=False, layout=layout)
    spec = _spec(model=[30, 0, 0, 0, 0, 0], tradeoff=1.0)
    trees, trackers = _grow_both(data, z, spec, n_trees=3)
    assert trackers[1].used_model[0]
    for numpy_tree, compiled_tree in trees:
        assert numpy_tree.vars_used == compiled_tree.vars_used


def test_stage_uses_the_compiled_grower_where_it_applies():
    data, _ = _data(0)
    tracker = CostTracker(SPECS["feature"], N, None)
    assert isinstance(TreeStage("numba", 3, 5, tracker).grower(data), CompiledBinnedGrower)
    exact, _ = _data(0, layout="exact")
    assert isinstance(TreeStage("numba", 3, 5, tracker).grower(exact), CompiledGrower)
    assert isinstance(TreeStage("numpy", 3, 5, tracker).grower(exact), SearchGrower)
    assert isinstance(TreeStage("numpy", 3, 5, tracker).grower(data), SearchGrower)
    weighted = CostTracker(SPECS["feature"], N, np.full(N, 2.0))
    assert isinstance(TreeStage("numba", 3, 5, weighted).grower(data), SearchGrower)
    combined = CostTracker(SPECS["feature"], N, None, Columns(P, [(0, 1)]))
    assert isinstance(TreeStage("numba", 3, 5, combined).grower(data), SearchGrower)
    few = BinnedTrainingData(np.repeat(np.arange(10.0), 30)[:, None], np.zeros(1, dtype=int),
                             np.zeros(1, dtype=int), BINS)
    assert few.exact_bins
    one = CostTracker(CostSpec(np.ones(1), np.zeros(1), 0.0, 1.0), 300, None)
    assert isinstance(TreeStage("numba", 3, 5, one).grower(few), SearchGrower)


@pytest.mark.parametrize("max_bins", [None, 64])
@pytest.mark.parametrize("distribution", ["gaussian", "bernoulli"])
def test_fits_of_both_engines_are_identical(distribution, max_bins):
    rng = np.random.default_rng(5)
    n = 4000
    df = pd.DataFrame(rng.normal(size=(n, 5)), columns=[f"x{j}" for j in range(5)])
    df["g"] = pd.Categorical(rng.choice(list("abcdef"), size=n))
    df.loc[::13, "x2"] = np.nan
    signal = df.x0 + np.nan_to_num(df.x1) ** 2 + 0.6 * (df.g == "b") + rng.normal(size=n)
    df["y"] = signal if distribution == "gaussian" else (signal > 0.8).astype(float)
    kw = dict(distribution=distribution, n_trees=40, interaction_depth=4, shrinkage=0.1,
              max_bins=max_bins, random_state=2, feature_costs={"x0": 1, "x1": 4, "x2": 2, "g": 3},
              feature_costs_model={"x3": 30, "x4": 30}, cost_split=0.005, cegb_tradeoff=5e-3)
    fits = [pygbm.gbm("y ~ .", df, engine=engine, **kw) for engine in ("numpy", "numba")]
    more = [pygbm.gbm_more(fit, 10) for fit in fits]
    for a, b in (fits, more):
        np.testing.assert_array_equal(a.fit, b.fit)
        np.testing.assert_array_equal(a.valid_error, b.valid_error)
        np.testing.assert_array_equal(a.cost_tracker.used_rows, b.cost_tracker.used_rows)
        for s, t in zip(a.cost_tracker.splits, b.cost_tracker.splits):
            np.testing.assert_array_equal(s, t)
        pd.testing.assert_frame_equal(a.predict_cost(df), b.predict_cost(df))


@pytest.mark.parametrize("max_bins, loop", [(None, "boost_exact"), (64, "boost_binned")])
def test_fits_with_costs_run_in_the_compiled_loop(monkeypatch, max_bins, loop):
    # gaussian: the compiled loop runs the fit with its costs, the rows marked
    # in the loop; the same fit, marks and recorded splits as the NumPy loop's
    from pygbm.engine.compiled import boosting

    calls, original = [], getattr(boosting, loop)

    def counting(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(boosting, loop, counting)
    rng = np.random.default_rng(8)
    n = 3000
    df = pd.DataFrame(rng.normal(size=(n, 4)), columns=["a", "b", "c", "d"])
    df.loc[::11, "b"] = np.nan
    df["y"] = df.a + np.nan_to_num(df.b) ** 2 + rng.normal(size=n)
    kw = dict(distribution="gaussian", n_trees=30, interaction_depth=4, shrinkage=0.1,
              max_bins=max_bins, random_state=4, feature_costs={"a": 1, "b": 3, "c": 2},
              feature_costs_model={"d": 40}, cost_split=0.002, cegb_tradeoff=1e-2,
              train_fraction=0.8)
    numpy_fit = pygbm.gbm("y ~ .", df, engine="numpy", **kw)
    assert not calls
    numba_fit = pygbm.gbm("y ~ .", df, engine="numba", **kw)
    assert calls
    for a, b in ((numpy_fit, numba_fit),
                 (pygbm.gbm_more(numpy_fit, 10), pygbm.gbm_more(numba_fit, 10))):
        np.testing.assert_array_equal(a.fit, b.fit)
        np.testing.assert_array_equal(a.valid_error, b.valid_error)
        np.testing.assert_array_equal(a.cost_tracker.used_rows, b.cost_tracker.used_rows)
        np.testing.assert_array_equal(a.cost_tracker.evaluated, b.cost_tracker.evaluated)
        assert len(a.cost_tracker.splits) == len(b.cost_tracker.splits)
        for s, t in zip(a.cost_tracker.splits, b.cost_tracker.splits):
            np.testing.assert_array_equal(s, t)
    cv = [pygbm.gbm("y ~ .", df, engine=engine, cv_folds=3, n_cores=1, **kw)
          for engine in ("numpy", "numba")]
    np.testing.assert_array_equal(cv[0].cv_error, cv[1].cv_error)
