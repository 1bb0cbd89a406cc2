"""The fitting function and its inputs: FitOptions (checked once), CodedData,
fit_coded, and cv taking the fitting function as a callable."""
from __future__ import annotations

import dataclasses
import re
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm import cv
from pygbm.engine.report import FitStopped, IterationReport
from pygbm.fitting import CodedData, fit_coded
from pygbm.options import FitOptions, fit_options

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def boston():
    return pd.read_csv(DATA / "boston.csv")


def _options(**kw):
    args = dict(n_trees=20, interaction_depth=2, n_minobsinnode=10, shrinkage=0.1,
                bag_fraction=0.5, var_monotone=None, var_names=["a", "b"],
                var_type=np.array([0, 0]))
    args.update(kw)
    return fit_options("gaussian", **args)


def test_options_are_checked_once_and_frozen():
    options = _options(var_monotone={"b": 1}, max_bins=64.0)
    assert isinstance(options, FitOptions)
    assert options.var_monotone.tolist() == [0, 1] and options.max_bins == 64
    assert options.distribution.name == "gaussian"
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.n_trees = 5
    changed = options.replace(n_trees=5)
    assert changed.n_trees == 5 and options.n_trees == 20


@pytest.mark.parametrize("kw, match", [
    (dict(n_trees=0), "n_trees"), (dict(interaction_depth=50), "interaction_depth"),
    (dict(shrinkage=-1), "shrinkage"), (dict(bag_fraction=0), "bag_fraction"),
    (dict(var_monotone=[1]), "var_monotone"), (dict(max_bins=1), "max_bins")])
def test_options_name_the_bad_argument(kw, match):
    with pytest.raises((TypeError, ValueError), match=match):
        _options(**kw)


def test_shrinkage_warning_once_for_all_cv_folds(boston):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=5, shrinkage=1.5,
                  cv_folds=3, n_cores=1, random_state=1)
    assert sum("shrinkage=1.5" in str(w.message) for w in caught) == 1


@pytest.mark.parametrize("n_cores", [1, 2])
def test_cv_folds_warnings_say_which_fold(n_cores):
    """A fold's fit warns of its own rows (here the zeros its subsample kept), which
    read as the fit's without the fold's name (its errors had it already)."""
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"x": rng.normal(size=300)})
    df["y"] = (df.x + rng.normal(size=300) > -1.0).astype(float)     # few zeros
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pygbm.gbm("y ~ x", df, distribution="bernoulli", n_trees=5, zero_subsample=0.5,
                  cv_folds=3, n_cores=n_cores, random_state=1)
    kept = [str(w.message) for w in caught if "zero_subsample=0.5 kept" in str(w.message)]
    assert sum(m.startswith("zero_subsample=0.5 kept") for m in kept) == 1     # the fit's
    folds = sorted(m for m in kept if not m.startswith("zero_subsample"))
    assert folds and all(re.match(r"cv fold [123] \(trained on 200 of the 300 training "
                                  r"rows\): zero_subsample=0.5 kept", m) for m in folds)


@pytest.mark.parametrize("engine", ["numba", "numpy"])
def test_warnings_of_parallel_folds_point_at_the_callers_line(engine):
    """With n_cores > 1 the compiled engine fits the folds (and the final model
    alongside) in threads, whose own stacks end in the thread pool's code; the NumPy
    engine in worker processes, whose warnings went to their own stderr (attributed to
    joblib's code), out of the caller's filters and of a notebook's cell. Either way
    every fold's warning is given here, at the caller's line."""
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"x": rng.normal(size=300)})
    df["y"] = (df.x + rng.normal(size=300) > -1.0).astype(float)     # few zeros
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        pygbm.gbm("y ~ x", df, distribution="bernoulli", n_trees=5, zero_subsample=0.5,
                  cv_folds=3, n_cores=2, random_state=1, engine=engine)
    kept = [w for w in caught if "zero_subsample=0.5 kept" in str(w.message)]
    folds = sorted(str(w.message)[:9] for w in kept if str(w.message).startswith("cv fold "))
    assert len(kept) == 4 and folds == ["cv fold 1", "cv fold 2", "cv fold 3"]
    assert {(w.filename, w.lineno) for w in kept} == {(__file__, line)}


def test_fit_coded_is_gbm_fit(boston):
    x, y = boston.drop(columns="medv"), boston["medv"].to_numpy()
    ref = pygbm.gbm_fit(x, y, distribution="gaussian", n_trees=20, shrinkage=0.1,
                        interaction_depth=2, train_fraction=0.8, random_state=3)
    options = fit_options("gaussian", n_trees=20, interaction_depth=2, n_minobsinnode=10,
                          shrinkage=0.1, bag_fraction=0.5, var_monotone=None,
                          var_names=ref.var_names, var_type=ref.var_type)
    data = CodedData(x=ref.data.x, var_names=ref.var_names, var_type=ref.var_type,
                     var_levels=ref.var_levels, encoder=ref.encoder, y=y,
                     n_train=ref.n_train, train_fraction=0.8)
    fit = fit_coded(options, data, 3)
    np.testing.assert_array_equal(fit.fit, ref.fit)
    np.testing.assert_array_equal(fit.valid_error, ref.valid_error)


def test_cv_takes_the_fitting_function_as_a_callable(boston):
    """cv knows nothing of api: it calls the function it is given, once per
    fold, with the fold's rows (fold moved to the end) and its seed."""
    ref = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=20, cv_folds=3,
                    n_cores=1, random_state=5)
    options = fit_options("gaussian", n_trees=20, interaction_depth=1, n_minobsinnode=10,
                          shrinkage=0.1, bag_fraction=0.5, var_monotone=None,
                          var_names=ref.var_names, var_type=ref.var_type, keep_data=False)
    x, y = ref.data.x, ref.data.response.y
    data = CodedData(x=x, var_names=ref.var_names, var_type=ref.var_type,
                     var_levels=ref.var_levels, encoder=ref.encoder, y=y, n_train=x.shape[0])
    calls = []

    def fit(rows, seed):
        calls.append((rows.n_train, rows.x.shape[0], seed))
        return fit_coded(options, rows, seed)

    result, main = cv.cross_validate(data, fit, cv.CVSpec(3, n_cores=1), options.distribution,
                                     np.random.default_rng(5))
    assert main is None and len(calls) == 3
    assert all(n == x.shape[0] for _, n, _ in calls)
    assert sum(x.shape[0] - n_train for n_train, _, _ in calls) == x.shape[0]
    np.testing.assert_array_equal(result.error, ref.cv_error)
    np.testing.assert_array_equal(result.fitted, ref.cv_fitted)
    # the folds in threads (the compiled engine's way): the same calls, the same result
    calls.clear()
    threaded, _ = cv.cross_validate(data, fit, cv.CVSpec(3, n_cores=2, threads=True),
                                    options.distribution, np.random.default_rng(5))
    assert len(calls) == 3
    np.testing.assert_array_equal(threaded.error, ref.cv_error)
    np.testing.assert_array_equal(threaded.fitted, ref.cv_fitted)


def _boston_coded(boston):
    """A gaussian fit's coded Boston rows and distribution, for cv's own calls."""
    ref = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=5)
    data = CodedData(x=ref.data.x, var_names=ref.var_names, var_type=ref.var_type,
                     var_levels=ref.var_levels, encoder=ref.encoder,
                     y=ref.data.response.y, n_train=ref.data.x.shape[0])
    return data, ref.distribution


def _until_stopped(stopped: list, label) -> None:
    """A long fit: iterations (the loop's report) until it is asked to stop, when
    ``label`` goes to ``stopped``; a minute at most."""
    report = IterationReport(False, None, 0.1, 1)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            report.advance(1)
            time.sleep(0.001)
    except FitStopped:
        stopped.append(label)
        raise


def test_a_failing_fold_stops_the_fits_beside_it(boston):
    """A fold's error (or the user's Ctrl-C) reached the caller only once every
    fit running beside it had finished (the thread pool's exit waits for them):
    seconds to minutes, and a notebook's "Interrupt kernel" did nothing till
    then. The fits beside it now stop after their current iteration."""
    data, dist = _boston_coded(boston)
    stopped, folds_run = [], []

    def fit(rows, seed):
        folds_run.append(seed)
        raise ValueError("a bad fold")

    with pytest.raises(ValueError, match="a bad fold"):
        cv.cross_validate(data, fit, cv.CVSpec(3, n_cores=2, threads=True), dist,
                          np.random.default_rng(5),
                          main_fit=lambda: _until_stopped(stopped, "final"))
    assert stopped == ["final"] and folds_run


def test_a_failing_final_fit_stops_the_folds_beside_it(boston):
    """The final fit runs beside the folds: its error waited for every fold."""
    data, dist = _boston_coded(boston)
    stopped = []

    def main_fit():
        raise ValueError("a bad final fit")

    with pytest.raises(ValueError, match="a bad final fit"):
        cv.cross_validate(data, lambda rows, seed: _until_stopped(stopped, seed),
                          cv.CVSpec(3, n_cores=2, threads=True), dist,
                          np.random.default_rng(5), main_fit=main_fit)
    assert stopped


# ------------------------------------------------------------------ GBMFit
def _field_names():
    return {f.name for f in dataclasses.fields(pygbm.GBMFit)}


def test_gbm_more_keeps_cv_error_as_r(boston):
    """R's gbm.more keeps cv.error (of the first fit's trees) and drops
    cv.fitted: gbm.perf(method = "cv"), print and predict's default n.trees
    still use it (R 4.2.2, gbm 2.1.8.1: after gbm.more(fit, 25) on 40 trees,
    "The best cross-validation iteration was 39." and "Using 39 trees...")."""
    fit = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=40, cv_folds=3,
                    n_cores=1, shrinkage=0.3, random_state=2)
    best = int(pygbm.gbm_perf(fit, method="cv", plot_it=False))
    more = pygbm.gbm_more(fit, 25)
    assert more.n_trees == 65 and best < 40
    np.testing.assert_array_equal(more.cv_error, fit.cv_error)
    assert more.cv_fitted is None
    assert pygbm.gbm_perf(more, method="cv", plot_it=False) == best
    assert f"The best cross-validation iteration was {best}." in str(more)
    with pytest.warns(pygbm.GBMMessage, match=f"Using {best} trees"):
        pred = more.predict(boston.iloc[:5])
    np.testing.assert_array_equal(pred, more.predict(boston.iloc[:5], n_trees=best))
    errors = more.errors()
    np.testing.assert_array_equal(errors["cv_error"][:40], fit.cv_error)
    assert errors["cv_error"][40:].isna().all()


def test_fit_has_only_declared_fields_and_is_never_changed(boston):
    fit = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=10, cv_folds=2,
                    n_cores=1, train_fraction=0.8, random_state=2)
    assert set(vars(fit)) == _field_names()
    assert fit.cv_folds == 2 and fit.train_fraction == 0.8 and fit.cv_error.shape == (10,)
    assert fit.shrinkage == fit.options.shrinkage == 0.1       # R's names read the options
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.shrinkage = 0.5
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.cv_error = None
    trees, error = list(fit.trees), fit.train_error.copy()
    more = pygbm.gbm_more(fit, 5)
    assert more is not fit and set(vars(more)) == _field_names()
    assert more.n_trees == 15 and more.cv_error is fit.cv_error and more.cv_fitted is None
    assert fit.n_trees == 10 and len(fit.trees) == len(trees)
    for kept, before in zip(fit.trees, trees):
        for a, b in zip(kept.vectors(), before.vectors(), strict=True):
            np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(fit.train_error, error)


def test_pairwise_fit_is_built_in_the_data_order(boston):
    data = boston.assign(query=np.arange(len(boston)) % 25)
    fit = pygbm.gbm("medv ~ . - query", data, n_trees=5, cv_folds=2, n_cores=1,
                    distribution={"name": "pairwise", "group": "query", "metric": "ndcg"},
                    train_fraction=0.8, random_state=1)
    assert set(vars(fit)) == _field_names()
    n = len(boston)
    assert fit.ord_group.shape == (n,) and fit.row_order.shape == (n,)
    assert fit.cv_fitted.shape == (n,) and fit.fold_id.shape == (n,)
    np.testing.assert_array_equal(fit.data.response.y, boston["medv"].to_numpy())
    np.testing.assert_array_equal(fit.predict(data, n_trees=5), fit.fit)


@pytest.mark.parametrize("name", ["bernoulli", "adaboost", "huberized"])
@pytest.mark.parametrize("mono", [1, -1])
def test_monotone_constraints_hold_for_the_fitted_link(name, mono):
    # R 2.1.8 applies var.monotone to the working response, which for adaboost and
    # huberized is the loss's derivative (not its negative): its +1 fits decrease
    # there. pygbm turns the constraint by the distribution's z_sign.
    rng = np.random.default_rng(4)
    n = 800
    x = np.column_stack([rng.uniform(-3, 3, n), rng.normal(size=n)])
    y = (rng.random(n) < 1 / (1 + np.exp(x[:, 0] ** 2 - 2))).astype(float)    # up, then down
    fit = pygbm.gbm_fit(x, y, distribution=name, var_monotone=[mono, 0], n_trees=60,
                        interaction_depth=1, shrinkage=0.1, bag_fraction=1.0,
                        progress=False)
    grid = np.column_stack([np.linspace(-3, 3, 121), np.zeros(121)])
    link = fit.predict(grid, n_trees=60)
    steps = mono * np.diff(link)
    assert np.all(steps >= 0.0) and np.sum(steps > 0.0) >= 3
    assert fit.var_monotone.tolist() == [mono, 0]      # the call's, as R records it


def test_binned_fits_take_the_c_library_exp_where_the_compiled_loop_may_run():
    """R's exact search and every binned fit of one output bagged row by row
    compute exp and log as the compiled kernels do (the C library's); binned
    multinomial and pairwise fits, which only the NumPy loop runs, NumPy's."""
    from pygbm.distributions import Bernoulli, Multinomial, Pairwise
    from pygbm.engine.factory import training_data
    from pygbm.fitting import library_math

    x = np.random.default_rng(0).normal(size=(60, 2))
    binned = training_data(x, np.zeros(2, dtype=int), np.zeros(2, dtype=int), 8, "numpy")
    exact = training_data(x, np.zeros(2, dtype=int), np.zeros(2, dtype=int), None, "numpy")
    assert not binned.r_arithmetic and exact.r_arithmetic
    assert library_math(binned, Bernoulli())
    assert not library_math(binned, Multinomial())
    assert not library_math(binned, Pairwise(group="g"))
    for dist in (Bernoulli(), Multinomial()):
        assert library_math(exact, dist) and library_math(None, dist)


def test_cv_folds_do_not_digest_their_rows(boston, monkeypatch):
    """A fit without kept data hashes its rows for gbm_more(data=); cv's fold
    fits, never continued, skip it (FitOptions.digest_rows), the final fit does it."""
    import pygbm.fitting
    digested = []
    real = pygbm.fitting.rows_digest

    def counting(x, *args):
        digested.append(x.shape[0])
        return real(x, *args)

    monkeypatch.setattr(pygbm.fitting, "rows_digest", counting)
    fit = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=5, cv_folds=3,
                    n_cores=1, keep_data=False, random_state=1)
    assert len(digested) == 1             # the final fit's (a fold holds the rows too)
    assert fit.rows_digest is not None and fit.options.digest_rows
    options = _options(keep_data=False).replace(digest_rows=False)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 2))
    data = CodedData(x=x, var_names=["a", "b"], var_type=np.array([0, 0]), var_levels=[None] * 2,
                     encoder=None, y=x[:, 0] + rng.normal(size=100), n_train=100)
    assert fit_coded(options, data, 1).rows_digest is None
    assert fit_coded(options.replace(digest_rows=True), data, 1).rows_digest is not None
