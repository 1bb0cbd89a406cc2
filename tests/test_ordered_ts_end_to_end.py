"""gbm(..., categorical="ordered_ts" | ...) end to end: fit, predict, validation,
cv, gbm_more, pickling, influence and partial dependence on the original levels.

"""

import pickle
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pygbm import gbm, gbm_more
from pygbm.engine.boost import BoostProblem, BoostState, run_boosting
from pygbm.engine.tree import predict_trees
from pygbm.target_stats.scheme import OrderedPlainBoosting

DATA = Path(__file__).resolve().parents[1] / "data"
SETTINGS = dict(distribution="bernoulli", n_trees=40, shrinkage=0.1, interaction_depth=2,
                random_state=3)

HOOK_GBM_MORE = "needs the gbm_more hook (ts_encoder.engine_inputs + schedule)"
HOOK_CV = "needs the cv hook (_predict_coded through model.to_engine / engine_var_type)"
HOOK_PD = "needs the partial-dependence hook (ts_encoder.grid_to_engine / to_engine)"
HOOK_UNSEEN = "needs the frontend to code unseen levels out of range (not as NaN)"


@pytest.fixture(scope="module")
def lending():
    d = pd.read_csv(DATA / "lending_club.csv")
    d["bad"] = (d["Class"] == "bad").astype(int)
    return d.drop(columns="Class").iloc[:2500].reset_index(drop=True)


def _fit(data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return gbm("bad ~ .", data, **{**SETTINGS, **kw})


def _deviance(y, f):
    return float(-2 * np.mean(y * f - np.log1p(np.exp(f))))


@pytest.fixture(scope="module")
def ordered_fit(lending):
    return _fit(lending, categorical="ordered_ts", train_fraction=0.8)


# ---------------------------------------------------------------- fit and predict
def test_engine_sees_statistics_fit_keeps_original_coding(ordered_fit, lending):
    fit = ordered_fit
    cats = [j for j, t in enumerate(fit.var_type) if t > 0]
    assert [fit.var_names[j] for j in cats] == ["term", "sub_grade", "addr_state",
                                                "verification_status", "emp_length"]
    assert not np.asarray(fit.engine_var_type).any()
    assert fit.var_type[fit.var_names.index("addr_state")] == 50
    assert fit.c_splits == []                           # no categorical split in the engine
    # the trees split on statistics in [0, 1] for the categorical columns
    for tree in fit.trees:
        for k in np.flatnonzero(np.isin(tree.split_var, cats)):
            assert 0.0 < tree.split_code_pred[k] < 1.0


def test_validation_error_equals_predict_on_validation_rows(ordered_fit, lending):
    fit = ordered_fit
    valid = lending.iloc[fit.n_train:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = fit.predict(valid, n_trees=[10, 40])
    y = valid["bad"].to_numpy()
    assert _deviance(y, f[:, 0]) == pytest.approx(fit.valid_error[9], rel=1e-12)
    assert _deviance(y, f[:, 1]) == pytest.approx(fit.valid_error[39], rel=1e-12)


def test_greedy_training_fit_equals_prediction(lending):
    # greedy statistics of the training rows are the prediction-time ones
    fit = _fit(lending, categorical="greedy_ts")
    np.testing.assert_allclose(fit.predict(lending, n_trees=40), fit.fit, rtol=1e-12)


def test_ordered_training_fit_uses_permutations(lending):
    fit = _fit(lending, categorical="ordered_ts", ts_permutations=3)
    # the training link values were built on the ordered statistics, which
    # differ from the prediction-time (all training rows) statistics
    assert not np.allclose(fit.predict(lending, n_trees=40), fit.fit)
    assert fit.ts_encoder.n_permutations == 3
    again = _fit(lending, categorical="ordered_ts", ts_permutations=3)
    np.testing.assert_array_equal(again.fit, fit.fit)          # reproducible


def test_per_column_modes(lending):
    fit = _fit(lending, categorical={"addr_state": "ordered_ts", "sub_grade": "greedy_ts"})
    vt = dict(zip(fit.var_names, np.asarray(fit.engine_var_type)))
    assert vt["addr_state"] == 0 and vt["sub_grade"] == 0
    assert vt["term"] == 2 and vt["emp_length"] == 12           # native
    assert fit.ts_encoder.modes[fit.var_names.index("sub_grade")] == "greedy_ts"
    f = fit.predict(lending, n_trees=40)
    assert np.isfinite(f).all()


def test_argument_errors(lending):
    with pytest.raises(ValueError, match="categorical must be one of"):
        _fit(lending, categorical="catboost")
    with pytest.raises(ValueError, match="ts_permutations"):
        _fit(lending, categorical="ordered_ts", ts_permutations=0)
    with pytest.raises(ValueError, match="not an unordered categorical"):
        _fit(lending, categorical={"int_rate": "ordered_ts"})


def test_coxph_refused():
    lung = pd.read_csv(DATA / "lung.csv").dropna()
    lung["status"] = lung["status"] - 1
    lung["sex"] = lung["sex"].map({1: "m", 2: "f"})
    with pytest.raises(ValueError, match="coxph.*categorical='native'"):
        gbm("Surv(time, status) ~ age + sex", lung, distribution="coxph", n_trees=5,
            categorical="ordered_ts")


def test_missing_values_are_their_own_level(lending):
    d = lending.copy()
    d.loc[d.index % 7 == 0, "addr_state"] = np.nan
    fit = _fit(d, categorical="ordered_ts")
    j = fit.var_names.index("addr_state")
    table = fit.ts_encoder.level_table(j)
    n_missing = int(d["addr_state"].isna().sum())
    assert table["weight"].iloc[-1] == pytest.approx(n_missing * fit.data.response.w[0])
    # the levels by name, in code order, the missing values' row without one
    assert table["level"].iloc[:-1].tolist() == [str(v) for v in fit.var_levels[j]]
    assert table["level"].isna().tolist() == [False] * (len(table) - 1) + [True]
    by_name = table.set_index("level")["weight"]
    assert by_name[str(d["addr_state"].dropna().iloc[0])] > 0
    engine = fit.to_engine(fit.data.x)
    miss = np.isnan(fit.data.x[:, j])
    assert np.unique(engine[miss, j]).size == 1 and np.isfinite(engine[miss, j]).all()
    assert np.isfinite(fit.predict(d, n_trees=40)).all()


def test_more_than_1024_levels():
    # no level cap with target statistics (R's cap of 1024 holds for native)
    rng = np.random.default_rng(0)
    n, k = 6000, 1500
    level = rng.integers(0, k, n)
    effect = rng.normal(scale=1.0, size=k)
    y = (rng.random(n) < 1 / (1 + np.exp(-effect[level]))).astype(int)
    d = pd.DataFrame({"id": [f"L{v}" for v in level], "noise": rng.normal(size=n), "bad": y})
    fit = _fit(d, categorical="ordered_ts", train_fraction=0.7, n_trees=60)
    assert fit.var_type[0] > 1024
    assert np.nanmin(fit.valid_error) < fit.valid_error[0]
    with pytest.raises(ValueError, match="1024 levels"):
        _fit(d, categorical="native", n_trees=2)


def test_unseen_level_at_encoder_level_gets_prior(ordered_fit):
    enc = ordered_fit.ts_encoder
    j = ordered_fit.var_names.index("addr_state")
    x = ordered_fit.data.x[:3].copy()
    x[:, j] = enc.n_levels[j] + 5               # a code never seen in training
    assert np.all(enc.transform(x)[:, j] == enc.prior)


def test_unseen_level_at_predict_gets_prior(lending):
    d = lending.copy()
    d.loc[d.index % 5 == 0, "addr_state"] = np.nan     # missing: a level with data
    fit = _fit(d, categorical="ordered_ts")
    j = fit.var_names.index("addr_state")
    new = d.iloc[:5].copy()
    new["addr_state"] = "ZZ"                     # never seen
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = fit.predict(new, n_trees=40)
    x = fit.to_engine(fit.data.x[:5])
    x[:, j] = fit.ts_encoder.prior
    want = predict_trees(fit.trees, x, fit.engine_var_type, fit.c_splits, fit.init_f,
                         [40])[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-12)


# ---------------------------------------------------------------- pickling, influence
def test_pickle_round_trip(ordered_fit, lending):
    again = pickle.loads(pickle.dumps(ordered_fit))
    np.testing.assert_array_equal(again.predict(lending, n_trees=40),
                                  ordered_fit.predict(lending, n_trees=40))


def test_relative_influence_on_original_variables(ordered_fit):
    inf = ordered_fit.relative_influence(n_trees=40)
    assert list(inf.index) == list(ordered_fit.var_names)
    assert inf["sub_grade"] > 0                 # the strongest predictor of the set
    total = sum(float(np.sum(t.error_reduction)) for t in ordered_fit.trees)
    assert inf.sum() == pytest.approx(total)


def test_relative_influence_credits_combinations(lending):
    fit = _fit(lending, categorical="ordered_ts", ts_max_combination=2, n_trees=60,
               interaction_depth=3)
    assert fit.ts_encoder.combinations.combos, "no combination was used"
    inf = fit.relative_influence(n_trees=60)
    total = sum(float(np.sum(t.error_reduction)) for t in fit.trees)
    assert inf.sum() == pytest.approx(total)


def test_partial_dependence_brute_force_on_levels(ordered_fit, lending):
    from pygbm.inspect import partial_dependence

    fit = ordered_fit
    pd_frame = partial_dependence(fit, "sub_grade", n_trees=40, method="brute_force")
    train = lending.iloc[:fit.n_train]
    levels = fit.var_levels[fit.var_names.index("sub_grade")]
    want = []
    for lev in levels:
        d = train.copy()
        d["sub_grade"] = lev
        want.append(np.mean(fit.predict(d, n_trees=40)))
    assert list(pd_frame["sub_grade"].astype(str)) == list(levels)
    np.testing.assert_allclose(pd_frame["y"], want, rtol=1e-10)


def test_partial_dependence_weighted_traversal_on_levels(lending):
    from pygbm.inspect import partial_dependence

    fit = _fit(lending.iloc[:2000], categorical="ordered_ts", interaction_depth=1)
    frame = partial_dependence(fit, "sub_grade", n_trees=40)
    row = lending.iloc[:1]
    levels = fit.var_levels[fit.var_names.index("sub_grade")]
    preds = []
    for lev in levels:                           # additive model: PD differences are
        d = row.copy()                           # the prediction differences
        d["sub_grade"] = lev
        preds.append(fit.predict(d, n_trees=40)[0])
    np.testing.assert_allclose(np.diff(frame["y"]), np.diff(preds), atol=1e-10)


# ---------------------------------------------------------------- cv and gbm_more
def _predict_coded_hooked(model, x, n_trees):
    """The cv hook: fold models predict through their own target statistics."""
    return predict_trees(model.trees, model.to_engine(x), model.engine_var_type,
                         model.c_splits, model.init_f, [n_trees])[:, 0]


def _check_cv(fit, lending):
    assert fit.cv_error.shape == (30,) and np.isfinite(fit.cv_error).all()
    assert fit.cv_error.min() < fit.cv_error[0]
    # each fold's statistics come from its own training rows: the out-of-fold
    # predictions reproduce the cv error (a leak would make them disagree)
    best = int(np.argmin(fit.cv_error)) + 1
    y = lending["bad"].to_numpy()
    assert _deviance(y, fit.cv_fitted) == pytest.approx(fit.cv_error[best - 1], rel=1e-10)


def test_cv_statistics_fitted_inside_folds_with_the_hook(lending, monkeypatch):
    import pygbm.cv

    monkeypatch.setattr(pygbm.cv, "_predict_coded", _predict_coded_hooked)
    _check_cv(_fit(lending, categorical="ordered_ts", cv_folds=3, n_trees=30), lending)


def test_cv_statistics_fitted_inside_folds(lending):
    _check_cv(_fit(lending, categorical="ordered_ts", cv_folds=3, n_trees=30), lending)


def _continue_with_engine_inputs(fit, n_new):
    """What gbm_more must do for a TS fit (the hook), done by hand."""
    d, r = fit.data, fit.data.response
    x_engine, schedule = fit.ts_encoder.engine_inputs(d.x, r.y, r.w,
                                                      fit.var_monotone, fit.max_bins)
    problem = BoostProblem(x=x_engine, targets=r.loss_targets(),
                           n_train=fit.n_train, var_type=fit.engine_var_type,
                           var_monotone=fit.var_monotone, distribution=fit.distribution,
                           context=fit.context,
                           interaction_depth=fit.interaction_depth,
                           n_minobsinnode=fit.n_minobsinnode, shrinkage=fit.shrinkage,
                           bag_fraction=fit.bag_fraction, max_bins=fit.max_bins)
    state = BoostState(fit.init_f, fit.fit.copy(), list(fit.train_error),
                       list(fit.valid_error), list(fit.oobag_improve), list(fit.trees),
                       list(fit.c_splits), fit.ts_support)
    run_boosting(problem, state, n_new, fit.rng,
                 scheme=None if schedule is None else OrderedPlainBoosting(schedule))
    return state


@pytest.mark.parametrize("combination", [1, 2])
def test_engine_inputs_continue_a_fit_exactly(lending, combination):
    kw = dict(categorical="ordered_ts", train_fraction=0.8, ts_max_combination=combination,
              interaction_depth=3)
    whole = _fit(lending, n_trees=30, **kw)
    part = _fit(lending, n_trees=20, **kw)
    state = _continue_with_engine_inputs(part, 10)
    np.testing.assert_allclose(state.valid_error, whole.valid_error, rtol=1e-12)
    np.testing.assert_allclose(state.f, whole.fit, rtol=1e-12)


def test_gbm_more_continues_exactly(lending):
    kw = dict(categorical="ordered_ts", train_fraction=0.8)
    whole = _fit(lending, n_trees=30, **kw)
    more = gbm_more(_fit(lending, n_trees=20, **kw), 10)
    np.testing.assert_allclose(more.valid_error, whole.valid_error, rtol=1e-12)
    np.testing.assert_allclose(more.predict(lending, n_trees=30),
                               whole.predict(lending, n_trees=30), rtol=1e-12)


def test_gbm_more_continues_the_supporting_models(lending):
    kw = dict(categorical="ordered_ts", train_fraction=0.8)
    whole = _fit(lending, n_trees=30, **kw)
    more = gbm_more(_fit(lending, n_trees=20, **kw), 10)
    np.testing.assert_allclose(more.ts_support, whole.ts_support, rtol=1e-12)
    np.testing.assert_allclose(more.fit, whole.fit, rtol=1e-12)


# ---------------------------------------------------------------- supporting models
def _schedule_of(fit):
    d = fit.data
    _, schedule = fit.ts_encoder.engine_inputs(d.x, d.response.y, d.response.w,
                                               fit.var_monotone, fit.max_bins)
    return schedule


def _view_matrix(schedule, view, n_columns):
    """The engine's training matrix under one permutation (combination slots too)."""
    xt = schedule.data(view).xt
    return np.column_stack([xt[j] for j in range(n_columns)])


@pytest.mark.parametrize("combination", [1, 2])
def test_supporting_models_are_the_trees_on_their_own_permutation(lending, combination):
    # CatBoost's Plain mode: one model of the training rows per structure
    # permutation, every tree added to each as that permutation's statistics
    # route the rows; the fit's own training predictions are the model of the
    # leaf permutation (sigma_0)
    fit = _fit(lending, categorical="ordered_ts", train_fraction=0.8, interaction_depth=3,
               ts_max_combination=combination, n_trees=25)
    schedule = _schedule_of(fit)
    n_cols = len(fit.engine_var_type)

    def trees_on(view):
        x = _view_matrix(schedule, view, n_cols)
        return predict_trees(fit.trees, x, fit.engine_var_type, fit.c_splits, fit.init_f,
                             [fit.n_trees])[:, 0]

    assert fit.ts_support.shape == (schedule.n_views, fit.n_train)
    for view in range(schedule.n_views):
        np.testing.assert_allclose(fit.ts_support[view], trees_on(view), rtol=1e-10,
                                   atol=1e-12)
    np.testing.assert_allclose(fit.fit[: fit.n_train], trees_on(schedule.n_views),
                               rtol=1e-10, atol=1e-12)
    for view in range(schedule.n_views):       # the permutations do route rows differently
        assert not np.allclose(fit.ts_support[view], fit.fit[: fit.n_train])


def test_leaf_values_are_fitted_on_the_leaf_permutation():
    # gaussian, one tree on all rows: every terminal value is the mean residual
    # of the rows the leaf permutation's statistics send there, not of the rows
    # the structure permutation sent there
    rng = np.random.default_rng(4)
    n, k = 600, 40
    level = rng.integers(0, k, n)
    d = pd.DataFrame({"g": [f"L{v}" for v in level], "x": rng.normal(size=n)})
    d["y"] = rng.normal(size=k)[level] + 0.5 * d["x"] + rng.normal(scale=0.5, size=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = gbm("y ~ .", d, distribution="gaussian", n_trees=1, shrinkage=1.0,
                  bag_fraction=1.0, interaction_depth=3, n_minobsinnode=5,
                  categorical="ordered_ts", random_state=2)
    schedule = _schedule_of(fit)
    tree, vt = fit.trees[0], fit.engine_var_type
    leaf = tree.terminal_of(_view_matrix(schedule, schedule.n_views, len(vt)), vt, [])
    grown_on = tree.terminal_of(_view_matrix(schedule, schedule.view_of(0), len(vt)), vt, [])
    assert np.any(leaf != grown_on)
    residual = d["y"].to_numpy() - fit.init_f
    for node in np.unique(leaf):
        assert tree.split_code_pred[node] == pytest.approx(residual[leaf == node].mean(),
                                                           rel=1e-12)
    differ = [node for node in np.unique(leaf) if not np.isclose(
        residual[leaf == node].mean(), residual[grown_on == node].mean())]
    assert differ


# ---------------------------------------------------------------- combinations
def test_combinations_on_the_fly(lending):
    fit = _fit(lending, categorical="ordered_ts", ts_max_combination=2, n_trees=60,
               interaction_depth=3, train_fraction=0.8)
    enc = fit.ts_encoder
    reg = enc.combinations
    p = len(fit.var_names)
    assert len(fit.engine_var_type) == p + reg.n_slots
    used = np.concatenate([t.split_var[t.split_var >= p] for t in fit.trees])
    assert used.size > 0, "no tree split on a combination"
    for tree in fit.trees:                      # a combination never splits the root,
        assert tree.split_var[0] < p            # only after one of its members was used
    slots = np.unique(used) - p
    assert all(len(reg.members(s)) == 2 for s in slots)
    # validation deviance = predict on the validation rows (slots filled for them)
    valid = lending.iloc[fit.n_train:]
    f = fit.predict(valid, n_trees=60)
    assert _deviance(valid["bad"].to_numpy(), f) == pytest.approx(fit.valid_error[-1],
                                                                  rel=1e-12)
    again = pickle.loads(pickle.dumps(fit))
    np.testing.assert_array_equal(again.predict(valid, n_trees=60), f)


def test_binned_ties_below_a_combination_split():
    """A binned node under a split on a combination column breaks ties between its
    predictors from the split's own sums (the exact search made it in R's
    arithmetic); it reached back into the rows of a column the histograms do
    not hold (IndexError, found by an audit on ticdata's tied predictors)."""
    tic = pd.read_csv(DATA / "ticdata.csv").sample(1500, random_state=2).reset_index(drop=True)
    d = tic[["MKOOPKLA", "PWAPART", "PMOTSCO"]].iloc[:200].assign(
        CARAVAN=(tic["CARAVAN"] == "insurance").astype(int).iloc[:200])
    fits = [gbm("CARAVAN ~ .", d, distribution="bernoulli", n_trees=3, interaction_depth=4,
                categorical="ordered_ts", ts_max_combination=2, max_bins=32, random_state=5,
                engine=engine) for engine in ("numba", "numpy")]
    p = len(fits[0].var_names)
    below = [t for t in fits[0].trees if (t.split_var[1:] >= p).any()]
    assert below, "no combination split below the root"
    np.testing.assert_array_equal(fits[0].train_error, fits[1].train_error)
    np.testing.assert_array_equal(fits[0].predict(d), fits[1].predict(d))
