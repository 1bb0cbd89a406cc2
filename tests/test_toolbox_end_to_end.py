"""End-to-end checks of the toolbox on real pygbm fits of the bundled data.

Where determinism matters the fits use ``bag_fraction=1``. Every check here
goes through ``pygbm.gbm`` (formula, encoding, engine, cv) and then the
toolbox: ``gbm_perf``, ``predict(n_trees=None)``, ``relative_influence``,
``summary``, ``plot_gbm`` grids, ``interact_gbm``, ``pretty_gbm_tree``,
``calibrate_plot``, ``gbm_roc_area``, ``basehaz_gbm``, the plots, pickling,
parallel / user-given / stratified cross-validation.

The R part: tests/fixtures_toolbox/make_fixtures.R fits boston (gaussian) and
pima2 (bernoulli) with ``bag.fraction = 1, train.fraction = 0.8`` and writes
R's ``relative.influence``, ``summary.gbm``, ``gbm.perf(method = "test")``,
errors, ``plot.gbm(return.grid = TRUE)`` grids and predictions. pygbm must give
the same numbers (to 1e-6) -- against the committed JSON files always, and
against a fresh run of the script when ``Rscript`` is available.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import pickle
import shutil
import subprocess
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pygbm
import pygbm.inspect  # noqa: F401  (pygbm.<toolbox> is resolved lazily)

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures_toolbox"
R_SCRIPT = FIXTURES / "make_fixtures.R"
#: pygbm against R (the tolerance of tests/test_conformance_r.py)
R_RTOL, R_ATOL = 1e-6, 1e-9
#: the R and gbm versions the committed fixtures must come from
R_VERSION_PREFIX, GBM_VERSION = "R version 4.2.2", "2.1.8.1"
#: settings of the R cases (the script's); n_minobsinnode = 10 everywhere
R_CASES = {
    "boston_gaussian": ("medv ~ .", "gaussian", 3),
    "pima2_bernoulli": ("diabetes ~ .", "bernoulli", 2),
}
R_CASE_ARGS = dict(n_trees=300, shrinkage=0.05, n_minobsinnode=10, bag_fraction=1.0,
                   train_fraction=0.8)
#: resolution of R's two-variable grids (the script's)
R_GRID2_RESOLUTION = 20


# --------------------------------------------------------------------------- data and fits
@lru_cache(maxsize=None)
def load(name: str) -> pd.DataFrame:
    """A bundled data set, prepared as the R script does (boston's chas a factor)."""
    frame = pd.read_csv(DATA / f"{name}.csv")
    if name == "boston":
        frame["chas"] = pd.Categorical(frame["chas"].astype(str))
    return frame


@lru_cache(maxsize=None)
def r_case_fit(case: str):
    formula, dist, depth = R_CASES[case]
    return pygbm.gbm(formula, load(case.split("_")[0]), distribution=dist,
                     interaction_depth=depth, **R_CASE_ARGS)


@pytest.fixture(scope="module")
def boston_fit():
    """boston gaussian, bag 1, train 0.8: the R case."""
    return r_case_fit("boston_gaussian")


@pytest.fixture(scope="module")
def pima_fit():
    return r_case_fit("pima2_bernoulli")


CV_ARGS = dict(distribution="gaussian", n_trees=120, shrinkage=0.05, interaction_depth=3,
               bag_fraction=0.5, cv_folds=3, random_state=7)


@pytest.fixture(scope="module")
def boston_cv():
    """boston with 3-fold cv and bagging, no validation set."""
    return pygbm.gbm("medv ~ .", load("boston"), n_cores=1, **CV_ARGS)


@pytest.fixture(scope="module")
def boston_oob():
    """boston with bagging only (no cv, no validation set)."""
    return pygbm.gbm("medv ~ .", load("boston"), distribution="gaussian", n_trees=150,
                     shrinkage=0.05, interaction_depth=3, bag_fraction=0.5, random_state=3)


@pytest.fixture(scope="module")
def boston_stumps():
    """boston, additive (interaction_depth=1), deterministic, all rows for training."""
    return pygbm.gbm("medv ~ .", load("boston"), distribution="gaussian", n_trees=100,
                     shrinkage=0.1, interaction_depth=1, bag_fraction=1.0)


@pytest.fixture(scope="module")
def lung_fit():
    return pygbm.gbm("Surv(time, status) ~ age + sex + ph.ecog + ph.karno + pat.karno + "
                     "meal.cal + wt.loss", load("lung"), distribution="coxph", n_trees=200,
                     shrinkage=0.01, interaction_depth=2, bag_fraction=1.0)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --------------------------------------------------------------------------- gbm_perf
def test_gbm_perf_test_is_first_argmin_of_valid_error(boston_fit):
    best = pygbm.gbm_perf(boston_fit, method="test", plot_it=False)
    assert best == int(np.argmin(boston_fit.valid_error)) + 1
    assert best.method == "test"
    assert 1 < best < boston_fit.n_trees                  # an interior minimum
    assert pygbm.gbm_perf(boston_fit, plot_it=False) == best   # R's default: "test"


def test_gbm_perf_cv_is_first_argmin_of_cv_error(boston_cv):
    best = pygbm.gbm_perf(boston_cv, method="cv", plot_it=False)
    assert best == int(np.argmin(boston_cv.cv_error)) + 1
    assert pygbm.gbm_perf(boston_cv, plot_it=False) == best    # default without validation
    assert boston_cv.cv_error.shape == (boston_cv.n_trees,)


def test_gbm_perf_oob_maximises_cumulative_smoothed_improvement(boston_oob):
    with pytest.warns(UserWarning, match="OOB generally underestimates"):
        best = pygbm.gbm_perf(boston_oob, method="OOB", plot_it=False)
    sm = best.smoother
    np.testing.assert_array_equal(sm.x, np.arange(1, boston_oob.n_trees + 1))
    # R: which.min(-cumsum(smoothed improvements))
    assert best == sm.x[int(np.argmin(-np.cumsum(sm.y)))]
    # the smoother is smoother than the raw improvements, and follows them
    raw = np.asarray(boston_oob.oobag_improve)
    assert np.abs(np.diff(sm.y)).sum() < np.abs(np.diff(raw)).sum()
    assert np.corrcoef(sm.y, raw)[0, 1] > 0.5


def test_gbm_perf_refuses_rules_the_fit_cannot_support(boston_oob, boston_fit):
    with pytest.raises(ValueError, match="train_fraction"):
        pygbm.gbm_perf(boston_oob, method="test", plot_it=False)
    with pytest.raises(ValueError, match="cv_folds"):
        pygbm.gbm_perf(boston_oob, method="cv", plot_it=False)
    with pytest.raises(ValueError, match="bag_fraction"):
        pygbm.gbm_perf(boston_fit, method="OOB", plot_it=False)
    with pytest.raises(ValueError, match="method"):
        pygbm.gbm_perf(boston_fit, method="best", plot_it=False)


# --------------------------------------------------------------------------- predict default
@pytest.mark.parametrize("fixture, rule", [("boston_cv", "cv"), ("boston_fit", "test")])
def test_predict_without_n_trees_uses_best_iteration_and_says_which(fixture, rule, request):
    fit = request.getfixturevalue(fixture)
    best = int(pygbm.gbm_perf(fit, method=rule, plot_it=False))
    data = load("boston")
    with pytest.warns(pygbm.GBMMessage, match=rf"Using {best} trees\.\.\. \({rule}"):
        pred = fit.predict(data)
    np.testing.assert_array_equal(pred, fit.predict(data, n_trees=best))


@pytest.mark.parametrize("fixture", ["boston_stumps", "boston_oob"])
def test_predict_without_n_trees_and_without_test_or_cv_uses_all_trees(fixture, request):
    """R's predict.gbm never uses the OOB estimate by default: all trees."""
    fit = request.getfixturevalue(fixture)
    with pytest.warns(pygbm.GBMMessage, match=rf"Using {fit.n_trees} trees\.\.\. \(all trees"):
        pred = fit.predict(load("boston"))
    np.testing.assert_array_equal(pred, fit.predict(load("boston"), n_trees=fit.n_trees))


def test_predict_default_prefers_test_then_cv_as_r():
    """``predict(n_trees=None)`` follows R's predict.gbm: the validation set when
    there is one (even with cv), else cv, else all trees (R 4.2.2, gbm 2.1.8.1:
    with both, "Using <test best> trees...")."""
    fit = pygbm.gbm("medv ~ .", load("boston"), distribution="gaussian", n_trees=60,
                    shrinkage=0.1, interaction_depth=2, bag_fraction=1.0,
                    train_fraction=0.8, cv_folds=3, random_state=5)
    best_cv = int(pygbm.gbm_perf(fit, method="cv", plot_it=False))
    best_test = int(pygbm.gbm_perf(fit, method="test", plot_it=False))
    assert pygbm.gbm_perf(fit, plot_it=False) == best_test          # R's default
    with pytest.warns(pygbm.GBMMessage, match=rf"Using {best_test} trees\.\.\. \(test\)"):
        fit.predict(load("boston"))
    fit = dataclasses.replace(fit, train_fraction=1.0)   # a fit is never changed: a copy
    with pytest.warns(pygbm.GBMMessage, match=rf"Using {best_cv} trees\.\.\. \(cv\)"):
        fit.predict(load("boston"))


# --------------------------------------------------------------------------- influence
def _all_trees_table(fit) -> pd.DataFrame:
    return pd.concat([pygbm.pretty_gbm_tree(fit, i) for i in range(1, fit.n_trees + 1)])


def test_relative_influence_is_the_sum_of_split_improvements(boston_fit):
    ri = pygbm.relative_influence(boston_fit, n_trees=boston_fit.n_trees)
    tables = _all_trees_table(boston_fit)
    splits = tables[tables["SplitVar"] >= 0]
    by_var = splits.groupby("SplitVar")["ErrorReduction"].sum()
    expected = np.zeros(len(boston_fit.var_names))
    expected[by_var.index.to_numpy()] = by_var.to_numpy()
    np.testing.assert_allclose(ri.to_numpy(), expected, rtol=1e-12)
    assert list(ri.index) == boston_fit.var_names
    assert ri.sum() == pytest.approx(splits["ErrorReduction"].sum(), rel=1e-12)


def test_relative_influence_default_sort_and_scale(boston_fit):
    best = int(pygbm.gbm_perf(boston_fit, method="test", plot_it=False))
    ri = pygbm.relative_influence(boston_fit)                     # R: test best by default
    np.testing.assert_array_equal(ri, pygbm.relative_influence(boston_fit, n_trees=best))
    ranked = pygbm.relative_influence(boston_fit, sort=True)
    assert np.all(np.diff(ranked.to_numpy()) <= 0)
    pd.testing.assert_series_equal(ranked.sort_index(), ri.sort_index())
    scaled = pygbm.relative_influence(boston_fit, scale=True)
    assert scaled.max() == 1.0
    np.testing.assert_allclose(scaled, ri / ri.max())
    assert ranked.index[0] in {"rm", "lstat"}                    # boston's known leaders


def test_summary_table(boston_fit):
    table = boston_fit.summary(plot_it=False).to_frame()
    assert list(table.columns) == ["var", "rel_inf"]
    assert table["rel_inf"].sum() == pytest.approx(100.0)
    assert np.all(np.diff(table["rel_inf"].to_numpy()) <= 0)
    # R's summary.gbm uses all trees by default (relative.influence does not)
    ri = pygbm.relative_influence(boston_fit, n_trees=boston_fit.n_trees)
    np.testing.assert_allclose(table.set_index("var")["rel_inf"].loc[ri.index],
                               100 * ri / ri.sum())
    unordered = pygbm.summary(boston_fit, plot_it=False, order=False).to_frame()
    assert list(unordered["var"]) == boston_fit.var_names


# --------------------------------------------------------------------------- partial dependence
def test_partial_dependence_grids_one_two_three_variables(boston_fit):
    data = load("boston")
    one = pygbm.plot_gbm(boston_fit, "lstat", return_grid=True)
    assert list(one.columns) == ["lstat", "y"] and len(one) == 100
    np.testing.assert_allclose(one["lstat"], np.linspace(data.lstat.min(), data.lstat.max(), 100))
    cat = pygbm.plot_gbm(boston_fit, "chas", return_grid=True)
    assert isinstance(cat["chas"].dtype, pd.CategoricalDtype)
    assert list(cat["chas"].astype(str)) == ["0", "1"]
    two = pygbm.plot_gbm(boston_fit, ["lstat", "chas"], return_grid=True)
    assert len(two) == 200
    np.testing.assert_array_equal(two["lstat"].to_numpy()[:100], one["lstat"])  # first fastest
    assert set(two["chas"].astype(str)[:100]) == {"0"}
    three = pygbm.plot_gbm(boston_fit, ["lstat", "rm", "chas"], continuous_resolution=10,
                           return_grid=True)
    assert list(three.columns) == ["lstat", "rm", "chas", "y"] and len(three) == 200
    assert np.all(np.isfinite(three["y"]))
    # partial dependence on lstat decreases overall (house prices fall with lstat)
    assert one["y"].iloc[0] > one["y"].iloc[-1]


def test_partial_dependence_of_an_additive_fit_adds_up(boston_stumps):
    """Stumps: f = c + sum_j g_j(x_j), so the joint partial dependence is the sum of
    the single ones up to a constant, and R's weighted traversal equals the
    brute-force average over the training rows (no missing values in boston)."""
    names = ["lstat", "rm", "chas"]
    res = 7
    joint = pygbm.plot_gbm(boston_stumps, names, continuous_resolution=res, return_grid=True)
    singles = [pygbm.plot_gbm(boston_stumps, v, continuous_resolution=res, return_grid=True)
               for v in names]
    sizes = [len(s) for s in singles]
    idx = np.indices(sizes[::-1]).reshape(3, -1)[::-1]      # first variable fastest
    total = sum(s["y"].to_numpy()[i] for s, i in zip(singles, idx))
    gap = joint["y"].to_numpy() - total
    np.testing.assert_allclose(gap, gap[0], atol=1e-9)
    brute = pygbm.plot_gbm(boston_stumps, names, continuous_resolution=res, return_grid=True,
                           method="brute_force")
    np.testing.assert_allclose(brute["y"], joint["y"], rtol=1e-10)


def test_partial_dependence_response_scale(pima_fit):
    link = pygbm.plot_gbm(pima_fit, "glucose", return_grid=True)
    resp = pygbm.plot_gbm(pima_fit, "glucose", return_grid=True, type="response")
    np.testing.assert_allclose(resp["y"], 1 / (1 + np.exp(-link["y"])))


def test_interact_gbm(boston_fit, boston_stumps):
    data = load("boston")
    h = pygbm.interact_gbm(boston_fit, data, ["lstat", "rm"])
    assert 0 < h <= 1
    assert pygbm.interact_gbm(boston_fit, data, ["rm", "lstat"]) == pytest.approx(h, rel=1e-9)
    h3 = pygbm.interact_gbm(boston_fit, data, ["lstat", "rm", "dis"])
    assert 0 <= h3 <= 1
    with pytest.raises(ValueError, match="interaction_depth"):
        pygbm.interact_gbm(boston_stumps, data, ["lstat", "rm"])


def _walk(table: pd.DataFrame, fit, x: np.ndarray) -> np.ndarray:
    """Terminal value of every row of the coded matrix ``x`` in one tree table,
    walked level by level (vectorised over rows)."""
    split_var = table["SplitVar"].to_numpy()
    code = table["SplitCodePred"].to_numpy()
    children = table[["LeftNode", "RightNode", "MissingNode"]].to_numpy()
    node = np.zeros(x.shape[0], dtype=int)
    rows = np.arange(x.shape[0])
    while True:
        var = split_var[node]
        inner = var >= 0
        if not inner.any():
            return code[node]
        xv = x[rows, np.where(inner, var, 0)]
        cat = inner & (np.asarray(fit.var_type)[np.where(inner, var, 0)] > 0)
        left = xv < code[node]
        for i in np.flatnonzero(cat & ~np.isnan(xv)):
            left[i] = fit.c_splits[int(code[node[i]])][int(xv[i])] == -1
        branch = np.where(np.isnan(xv), 2, np.where(left, 0, 1))
        node = np.where(inner, children[node, branch], node)


def test_pretty_gbm_tree_reproduces_predictions(boston_fit):
    x = boston_fit.data.x
    total = np.full(x.shape[0], boston_fit.init_f)
    for i in range(1, 4):
        table = pygbm.pretty_gbm_tree(boston_fit, i)
        assert list(table.columns) == ["SplitVar", "SplitCodePred", "LeftNode", "RightNode",
                                       "MissingNode", "ErrorReduction", "Weight", "Prediction"]
        assert len(table) == 3 * boston_fit.interaction_depth + 1   # R's full trees
        assert table["Weight"].iloc[0] == boston_fit.n_train        # bag_fraction = 1
        total += _walk(table, boston_fit, x)
        np.testing.assert_allclose(boston_fit.predict(load("boston"), n_trees=i), total,
                                   rtol=1e-12)
    with pytest.raises(ValueError, match="i_tree"):
        pygbm.pretty_gbm_tree(boston_fit, boston_fit.n_trees + 1)


# ------------------------------------------------------------------------ ROC, calibration, hazard
def test_roc_area_and_calibration_on_validation_rows(pima_fit):
    data = load("pima2")
    valid = data.iloc[pima_fit.n_train:]
    best = int(pygbm.gbm_perf(pima_fit, method="test", plot_it=False))
    p = pima_fit.predict(valid, n_trees=best, type="response")
    y = valid["diabetes"].to_numpy()
    auc = pygbm.gbm_roc_area(y, p)
    # the AUC as the share of (case, control) pairs ranked right, ties counting half
    diff = p[y == 1][:, None] - p[y == 0][None, :]
    assert auc == pytest.approx(np.mean((diff > 0) + 0.5 * (diff == 0)), rel=1e-12)
    assert auc > 0.75                     # pima is an easy-ish problem
    ax = pygbm.calibrate_plot(y, p, distribution="bernoulli")
    assert ax.get_xlabel() == "Predicted value" and ax.get_ylabel() == "Observed average"
    assert len(ax.lines) >= 2             # the calibration curve and y = x


def test_basehaz_is_breslow_on_a_coxph_fit(lung_fit):
    data = load("lung")
    t = data["time"].to_numpy(float)
    event = (data["status"] == 2).to_numpy(float)
    f = lung_fit.predict(data, n_trees=lung_fit.n_trees)
    event_times, deaths = np.unique(t[event == 1], return_counts=True)
    order = np.argsort(t)
    at_risk = np.cumsum(np.exp(f[order])[::-1])[::-1]        # sum over t_j >= t_(i)
    risk = at_risk[np.searchsorted(t[order], event_times, side="left")]
    expected = np.cumsum(deaths / risk)
    got = pygbm.basehaz_gbm(t, event, f, t_eval=event_times)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert np.all(np.diff(got) > 0)
    at_t = pygbm.basehaz_gbm(t, event, f)                    # evaluated at every t
    assert at_t.shape == t.shape


# --------------------------------------------------------------------------- plots with ax=None
def _labelled(ax) -> bool:
    return bool(ax.get_xlabel()) and bool(ax.get_ylabel())


def test_every_plot_accepts_ax_none_and_labels_its_axes(boston_fit, boston_oob, pima_fit):
    best = pygbm.gbm_perf(boston_fit, method="test", plot_it=True, ax=None)
    assert best.axes and all(_labelled(a) for a in best.axes)
    assert best.axes[0].get_xlabel() == "Iteration"
    with pytest.warns(UserWarning, match="OOB"):
        oob = pygbm.gbm_perf(boston_oob, method="OOB", plot_it=True, oobag_curve=True, ax=None)
    main, twin, panel = oob.axes                  # twin: the overlaid OOB curve (shared x)
    assert _labelled(main) and _labelled(panel) and twin.get_ylabel()
    plt.close("all")
    table = pygbm.summary(boston_fit, plot_it=True, ax=None).to_frame()
    ax = plt.gca()
    assert ax.get_xlabel() == "Relative influence" and len(ax.patches) == len(table)
    one = pygbm.plot_gbm(boston_fit, "lstat", ax=None)
    assert _labelled(one) and one.get_xlabel() == "lstat" and one.get_ylabel() == "f(x)"
    assert _labelled(pygbm.plot_gbm(boston_fit, "chas", ax=None))
    assert boston_fit.plot("rm").get_xlabel() == "rm"          # the GBMFit method
    two = pygbm.plot_gbm(boston_fit, ["lstat", "rm"], ax=None)
    assert (two.get_xlabel(), two.get_ylabel()) == ("lstat", "rm")
    panels = pygbm.plot_gbm(boston_fit, ["lstat", "rm", "chas"], continuous_resolution=10,
                            ax=None)
    assert isinstance(panels[0].figure, matplotlib.figure.Figure) and len(panels) == 2
    assert any(a.get_xlabel() == "lstat" for a in panels)
    assert any(a.get_ylabel() == "rm" for a in panels)
    ice = pygbm.plot_gbm(boston_fit, "lstat", ice=True, ice_rows=20, random_state=1, ax=None)
    assert _labelled(ice)
    p = pima_fit.predict(load("pima2"), n_trees=100, type="response")
    assert _labelled(pygbm.calibrate_plot(load("pima2")["diabetes"], p, ax=None))


# --------------------------------------------------------------------------- pickling and cv
def test_pickled_cv_fit_predicts_identically(boston_cv):
    again = pickle.loads(pickle.dumps(boston_cv))
    data = load("boston")
    for n in (1, 50, boston_cv.n_trees):
        np.testing.assert_array_equal(again.predict(data, n_trees=n),
                                      boston_cv.predict(data, n_trees=n))
    np.testing.assert_array_equal(again.cv_error, boston_cv.cv_error)
    np.testing.assert_array_equal(again.cv_fitted, boston_cv.cv_fitted)
    assert pygbm.gbm_perf(again, plot_it=False) == pygbm.gbm_perf(boston_cv, plot_it=False)
    with pytest.warns(UserWarning, match="cv"):
        np.testing.assert_array_equal(again.predict(data), boston_cv.predict(data))
    pd.testing.assert_frame_equal(again.summary(plot_it=False).to_frame(),
                                  boston_cv.summary(plot_it=False).to_frame())


def test_cv_is_the_same_on_one_or_two_cores(boston_cv):
    two = pygbm.gbm("medv ~ .", load("boston"), n_cores=2, **CV_ARGS)
    np.testing.assert_array_equal(two.cv_error, boston_cv.cv_error)
    np.testing.assert_array_equal(two.cv_fitted, boston_cv.cv_fitted)
    np.testing.assert_array_equal(two.fold_id, boston_cv.fold_id)
    np.testing.assert_array_equal(two.fit, boston_cv.fit)


@pytest.mark.parametrize("n_cores", [1, 2])
def test_cv_main_fit_runs_once_and_its_errors_surface(monkeypatch, n_cores):
    # the main fit runs alongside the folds with n_cores > 1 (after them with
    # one core); either way once, and an error in it reaches the caller
    import pygbm.cv

    real = pygbm.cv.cross_validate
    calls = []

    def failing_main(*args, main_fit=None, **kwargs):
        def main():
            calls.append(1)
            raise ValueError("the main fit failed")
        return real(*args, main_fit=main, **kwargs)

    monkeypatch.setattr(pygbm.cv, "cross_validate", failing_main)
    with pytest.raises(ValueError, match="the main fit failed"):
        pygbm.gbm("medv ~ .", load("boston"), n_cores=n_cores, **CV_ARGS)
    assert calls == [1]


def test_user_folds_give_r_cv_error(boston_stumps):
    """fold_id: each fold's model is gbm.fit on the other rows with the fold as its
    validation set; cv_error = sum_k n_k valid_error_k / n (R's gbmCrossValErr);
    cv_fitted = each row's prediction by the model that did not see it."""
    data = load("boston")
    n = len(data)
    folds = np.array([3, 1, 2, 2, 1, 3])[np.arange(n) % 6]
    args = dict(distribution="gaussian", n_trees=40, shrinkage=0.1, interaction_depth=2,
                bag_fraction=1.0)
    fit = pygbm.gbm("medv ~ .", data, fold_id=folds, random_state=11, **args)
    other = pygbm.gbm("medv ~ .", data, fold_id=folds, random_state=99, **args)
    np.testing.assert_array_equal(fit.cv_error, other.cv_error)   # folds fixed: no randomness
    assert fit.cv_folds == 3
    np.testing.assert_array_equal(fit.fold_id, folds)
    x, y = data.drop(columns="medv"), data["medv"].to_numpy()
    cv_error = np.zeros(fit.n_trees)
    models = {}
    for k in (1, 2, 3):
        order = np.concatenate([np.flatnonzero(folds != k), np.flatnonzero(folds == k)])
        models[k] = pygbm.gbm_fit(x.iloc[order], y[order], n_train=int(np.sum(folds != k)),
                                  **args)
        cv_error += np.sum(folds == k) * models[k].valid_error / n
    np.testing.assert_allclose(fit.cv_error, cv_error, rtol=1e-12)
    best = int(np.argmin(cv_error)) + 1
    for k, model in models.items():
        rows = folds == k
        np.testing.assert_allclose(fit.cv_fitted[rows],
                                   model.predict(x[rows], n_trees=best), rtol=1e-12)


def test_class_stratified_folds_keep_class_proportions():
    data = load("pima2")
    k = 5
    fit = pygbm.gbm("diabetes ~ .", data, distribution="bernoulli", n_trees=10, shrinkage=0.1,
                    cv_folds=k, class_stratify_cv=True, random_state=4)
    y = data["diabetes"].to_numpy()
    assert sorted(np.unique(fit.fold_id)) == list(range(1, k + 1))
    for cls in (0, 1):
        per_fold = np.bincount(fit.fold_id[y == cls], minlength=k + 1)[1:]
        n_cls = int(np.sum(y == cls))
        assert set(per_fold) <= {n_cls // k, -(-n_cls // k)}, (cls, per_fold)


# --------------------------------------------------------------------------- against R
def _compare_with_r(case: str, r: dict):
    fit = r_case_fit(case)
    assert fit.var_names == r["var_names"]
    np.testing.assert_allclose(fit.train_error, r["train_error"], rtol=R_RTOL, atol=R_ATOL)
    np.testing.assert_allclose(fit.valid_error, r["valid_error"], rtol=R_RTOL, atol=R_ATOL)
    best = pygbm.gbm_perf(fit, method="test", plot_it=False)
    assert best == r["best_test"]
    np.testing.assert_allclose(pygbm.relative_influence(fit), r["relative_influence_default"],
                               rtol=R_RTOL, atol=R_ATOL)
    np.testing.assert_allclose(pygbm.relative_influence(fit, n_trees=fit.n_trees),
                               r["relative_influence_all"], rtol=R_RTOL, atol=R_ATOL)
    table = pygbm.summary(fit, n_trees=int(best), plot_it=False).to_frame()
    assert list(table["var"]) == r["summary"]["var"]
    np.testing.assert_allclose(table["rel_inf"], r["summary"]["rel_inf"], rtol=R_RTOL,
                               atol=R_ATOL)
    for grid in r["grids"]:
        names = list(grid["vars"])
        res = R_GRID2_RESOLUTION if len(names) > 1 else 100
        ours = pygbm.plot_gbm(fit, names, n_trees=int(best), continuous_resolution=res,
                              return_grid=True)
        for v in names:
            col = ours[v]
            if isinstance(col.dtype, pd.CategoricalDtype):
                assert list(col.astype(str)) == grid["columns"][v]
            else:
                np.testing.assert_allclose(col, grid["columns"][v], rtol=1e-12)
        np.testing.assert_allclose(ours["y"], grid["y"], rtol=R_RTOL, atol=R_ATOL,
                                   err_msg=f"{case} {names}")
    resp_y = r["grid_response"]["y"]         # R writes {} where it has none (gaussian)
    if resp_y:
        resp = pygbm.plot_gbm(fit, list(r["grid_response"]["vars"]), n_trees=int(best),
                              return_grid=True, type="response")
        np.testing.assert_allclose(resp["y"], resp_y, rtol=R_RTOL, atol=R_ATOL)
    np.testing.assert_allclose(fit.predict(load(case.split("_")[0]), n_trees=int(best)),
                               r["predict_best"], rtol=R_RTOL, atol=R_ATOL)


def _committed(case: str) -> dict:
    return json.loads((FIXTURES / f"{case}.json").read_text())


@pytest.mark.parametrize("case", sorted(R_CASES))
def test_pipeline_equals_r_fixtures(case):
    r = _committed(case)
    stamp = r["stamp"]
    assert stamp["r_version"].startswith(R_VERSION_PREFIX)
    assert stamp["gbm_version"] == GBM_VERSION
    assert stamp["script_md5"] == hashlib.md5(R_SCRIPT.read_bytes()).hexdigest(), \
        "fixtures are stale: rerun tests/fixtures_toolbox/make_fixtures.R"
    _compare_with_r(case, r)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs Rscript (R gbm 2.1.8)")
def test_pipeline_equals_live_r(tmp_path):
    script = tmp_path / "make_fixtures.R"
    script.write_bytes(R_SCRIPT.read_bytes())
    run = subprocess.run(["Rscript", str(script), str(DATA), str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    for case in sorted(R_CASES):
        live = json.loads((tmp_path / f"{case}.json").read_text())
        _compare_with_r(case, live)
        committed = _committed(case)
        for key in ("best_test", "var_names", "summary"):
            assert live[key] == committed[key], key
        for key in ("valid_error", "relative_influence_default", "predict_best"):
            np.testing.assert_allclose(live[key], committed[key], rtol=1e-12)
