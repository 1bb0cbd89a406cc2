"""R gbm's own help-page examples, fitted by pygbm and compared with R's numbers.

The fixtures (``tests/r_help_examples/fixtures``) were written by
``tests/r_help_examples/make_fixtures.R`` (R 4.2.2, gbm 2.1.8.1; see its README):
the data are generated in R with R's ``set.seed``, and pygbm reproduces R's random
stream with ``random_state=pygbm.RRandom(seed)``, so bagged fits, cv folds and
everything computed from them are compared to ~1e-12.

* ``?gbm`` (= ``?gbm.more``): the simulated gaussian example with ordered and
  unordered factors, missing values, ``var.monotone``, bagging, a validation half and
  5-fold cv; then gbm.perf (OOB, test, cv), summary / relative.influence, pretty.gbm.tree,
  predict on the example's new data, the example's 10 partial-dependence plots
  (``return.grid = TRUE``), interact.gbm and gbm.more. The help page fits with
  ``n.cores = 1``; pygbm follows R's default ``n.cores`` (docs/r_random_stream.md),
  so the example is compared both ways: against R with ``n.cores = 2`` directly, and
  against the help page's ``n.cores = 1`` by positioning the stream by hand, as a
  user would (:func:`_fit_as_n_cores_1`).
* ``?print.gbm`` (iris, multinomial): pygbm's multinomial is Friedman's K-class
  algorithm on purpose (R's is broken, docs/coming_from_r.md), so only what should
  agree is compared.
* ``?calibrate.plot`` (commented out in the Rd, run as written): the curve and band.
* constructed (basehaz.gbm and gbm.roc.area have no Rd example): coxph and a
  monotone bernoulli on the ``?gbm`` design.

A live test (skipped without ``Rscript``) runs the R script again and checks that R
still writes the committed fixtures byte for byte.
"""
from __future__ import annotations

import filecmp
import json
import shutil
import subprocess
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.inspect.influence import permutation_influence
from pygbm.inspect.calibration_plot import calibration_curve

HERE = Path(__file__).parent / "r_help_examples"
FIXTURES = HERE / "fixtures"
RTOL = 1e-11
ATOL = 1e-12
NAMES = ["X1", "X2", "X3", "X4", "X5", "X6"]
GBM_KW = dict(var_monotone=[0, 0, 0, 0, 0, 0], distribution="gaussian", n_trees=100,
              shrinkage=0.1, interaction_depth=3, bag_fraction=0.5, train_fraction=0.5,
              n_minobsinnode=10, keep_data=True, verbose=False)


@lru_cache(maxsize=None)
def load(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def num(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def frame(spec: dict) -> pd.DataFrame:
    """R's data frame: numbers (null = NA), factors with R's levels and order."""
    out = {}
    for col in spec["columns"]:
        values, cls = spec["values"][col], spec["class"][col]
        if cls == "numeric":
            out[col] = num(values)
        else:
            out[col] = pd.Categorical(values, categories=spec["levels"][col],
                                      ordered=cls == "ordered")
    return pd.DataFrame(out)


def close(actual, expected, what: str, rtol: float = RTOL, atol: float = ATOL) -> None:
    np.testing.assert_allclose(np.asarray(actual, dtype=float), num(expected), rtol=rtol,
                               atol=atol, equal_nan=True, err_msg=what)


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pygbm.GBMMessage)
        return fn(*args, **kwargs)


def assert_printed_as_r(fit, r_printed: list[str], with_cv: bool) -> None:
    """print()'s lines after the call (pygbm's call is its own) equal R's; a fit
    made without cv lacks R's cv line (R's main fit of the help-page variant has
    cv, pygbm's does not)."""
    def after_call(lines):
        return lines[[i for i, ln in enumerate(lines) if ln.startswith("A ")][0]:]

    r_lines = after_call(r_printed)
    if not with_cv:
        r_lines = [ln for ln in r_lines if "cross-validation" not in ln]
    assert after_call(str(fit).splitlines()) == r_lines


def r_vars(i_var) -> list[str]:
    """R's i.var (1-based positions or names) as names."""
    i_var = i_var if isinstance(i_var, list) else [i_var]
    return [NAMES[v - 1] if isinstance(v, int) else v for v in i_var]


# --------------------------------------------------------------------- ?gbm
@lru_cache(maxsize=None)
def example_data() -> tuple[pd.DataFrame, pd.DataFrame]:
    ex = load("gbm_example.json")
    return frame(ex["data"]), frame(ex["data2"])


def _fit_as_n_cores_1(data, engine):
    """R's ``set.seed(102); gbm(..., cv.folds = 5, n.cores = 1)``.

    With ``n.cores = 1`` R's main fit continues the stream of the last cv fold
    (``set.seed(seeds[5])`` and that fold's bags); pygbm, as R's default n.cores,
    starts it right after the folds' seeds. The stream is positioned by hand:
    R's folds ``sample(rep(1:5, length = nTrain))``, the seeds
    ``as.integer(runif(5, -(2^31 - 1), 2^31))``, then fold 5's ``nTrain_5 * n.trees``
    uniforms; the cv numbers are those of the ordinary cv fit.
    """
    stream = pygbm.RRandom(102)
    n_train = len(data) // 2
    folds = stream.sample(np.resize(np.arange(1, 6), n_train))
    seeds = np.trunc(stream.runif(5, -(2.0**31 - 1), 2.0**31)).astype(np.int64)
    last = pygbm.RRandom(int(seeds[-1]))
    last.unif_rand(int((folds != 5).sum()) * GBM_KW["n_trees"])
    main = pygbm.gbm("Y ~ .", data=data, random_state=last, engine=engine, **GBM_KW)
    cv = pygbm.gbm("Y ~ .", data=data, cv_folds=5, random_state=pygbm.RRandom(102),
                   engine=engine, **GBM_KW)
    return main, cv


@lru_cache(maxsize=None)
def example_fit(variant: str, engine: str | None):
    """(main fit, the fit carrying cv, R's numbers) for R's n.cores 2 or 1."""
    data, _ = example_data()
    r = load("gbm_example.json")[variant]
    if variant == "gbm1_cluster":
        fit = pygbm.gbm("Y ~ .", data=data, cv_folds=5, n_cores=1,
                        random_state=pygbm.RRandom(102), engine=engine, **GBM_KW)
        return fit, fit, r
    main, cv = _fit_as_n_cores_1(data, engine)
    return main, cv, r


VARIANTS = [("gbm1_cluster", None), ("gbm1_cluster", "numpy"), ("gbm1", None)]
VARIANT_IDS = ["n_cores2", "n_cores2-numpy", "help_page_n_cores1"]


@pytest.fixture(params=VARIANTS, ids=VARIANT_IDS)
def example(request):
    return example_fit(*request.param)


def test_example_data_as_r_made_it():
    data, data2 = example_data()
    assert data.shape == data2.shape == (1000, 7)
    assert data["X1"].isna().sum() == 500 and data["X4"].isna().sum() == 300
    assert list(data["X3"].cat.categories) == ["d", "c", "b", "a"] and data["X3"].cat.ordered
    assert list(data2["X3"].cat.categories) == ["a", "b", "c", "d"]


def test_example_fit(example):
    fit, cv, r = example
    assert fit.init_f == r["init_f"]
    close(fit.fit, r["fit"], "fit$fit")
    close(fit.train_error, r["train_error"], "train.error")
    close(fit.valid_error, r["valid_error"], "valid.error")
    close(fit.oobag_improve, r["oobag_improve"], "oobag.improve")
    close(cv.cv_error, r["cv_error"], "cv.error")
    close(cv.cv_fitted, r["cv_fitted"], "cv.fitted")


def test_example_gbm_perf(example):
    fit, cv, r = example
    oob = quiet(pygbm.gbm_perf, fit, method="OOB", plot_it=False)
    assert int(oob) == r["best_oob"]
    close(oob.smoother.y, r["oob_smoother_y"], "OOB loess", rtol=1e-9)
    assert int(pygbm.gbm_perf(fit, method="test", plot_it=False)) == r["best_test"]
    assert int(pygbm.gbm_perf(cv, method="cv", plot_it=False)) == r["best_cv"]


def test_example_summary_and_relative_influence(example):
    fit, _, r = example
    for n_trees, key in [(1, "summary_1"), (r["best_cv"], "summary_best")]:
        s = pygbm.summary(fit, n_trees=n_trees, plot_it=False).to_frame()
        assert list(s["var"]) == r[key]["var"], key  # R's order, ties included
        close(s["rel_inf"], r[key]["rel_inf"], key)
    close(pygbm.relative_influence(fit, r["best_cv"]), r["relative_influence_best"],
          "relative.influence(best)")
    close(pygbm.relative_influence(fit, 100), r["relative_influence_all"],
          "relative.influence(100)")


def test_example_summary_permutation_documented_difference(example):
    """summary(..., method = permutation.test.gbm) after set.seed(104). R permutes and
    scores all kept rows (training and validation) but subtracts train.error, the loss
    on the training rows; pygbm subtracts the loss on the same rows. With
    train.fraction = 0.5 R's raw influences are pygbm's plus that one constant."""
    fit, _, r = example
    data, _ = example_data()
    sp = r["summary_permutation"]
    best = r["best_cv"]
    raw = permutation_influence(fit, best, random_state=pygbm.RRandom(104))
    r_raw = pd.Series(sp["raw"], index=sp["raw_var"])[raw.index]
    f = fit.predict(data, n_trees=best)
    shift = np.mean((data["Y"] - f) ** 2) - fit.train_error[best - 1]
    close(r_raw - raw, np.full(len(raw), shift), "R's raw - pygbm's raw", rtol=1e-9)
    assert shift > 0.01  # a real difference, not rounding
    s = pygbm.summary(fit, n_trees=best, method="permutation", plot_it=False,
                      random_state=pygbm.RRandom(104)).to_frame()
    close(s["rel_inf"], 100 * raw.sort_values(ascending=False) / raw.sum(), "normalised")
    assert list(s["var"]) == sp["var"]  # the order survives the shift here


def test_permutation_influence_train_fraction_1():
    """With train.fraction = 1 (bag.fraction 0.5) pygbm's permutation influence is R's."""
    r = load("gbm_example.json")["permutation_train_fraction_1"]
    data, _ = example_data()
    g = pygbm.gbm("Y ~ .", data=data, distribution="gaussian", n_trees=50, shrinkage=0.1,
                  interaction_depth=3, bag_fraction=0.5, train_fraction=1,
                  random_state=pygbm.RRandom(7))
    close(g.fit, r["fit"], "fit")
    raw = permutation_influence(g, 50, random_state=pygbm.RRandom(8))
    close(raw[r["var"]], r["raw"], "permutation influence", rtol=1e-10)


def test_example_pretty_gbm_tree(example):
    fit, _, r = example
    for i_tree, key in [(1, "tree_1"), (fit.n_trees, "tree_last")]:
        tree = pygbm.pretty_gbm_tree(fit, i_tree=i_tree)
        assert list(tree.columns) == list(r[key])
        for col in tree.columns:
            close(tree[col], r[key][col], f"{key} {col}")
    assert [list(s) for s in fit.c_splits] == r["c_splits"]


def test_example_predict_new_data(example):
    fit, _, r = example
    _, data2 = example_data()
    best = r["best_cv"]
    yhat = fit.predict(data2, n_trees=best, type="link")
    close(yhat, r["predict_data2_best"], "predict(data2, best.iter)")
    np.testing.assert_allclose(((data2["Y"] - yhat) ** 2).sum(), r["sse_data2_best"],
                               rtol=1e-12)
    close(fit.predict(data2, n_trees=100), r["predict_data2_all"], "predict(data2, 100)")
    # no n.trees: R takes the test-set best iteration and says so
    with pytest.warns(pygbm.GBMMessage, match=f"Using {r['best_test']} trees"):
        default = fit.predict(data2)
    close(default, r["predict_data2_default"], "predict(data2)")


@pytest.mark.parametrize("k", range(10))
def test_example_partial_dependence(example, k):
    fit, _, r = example
    spec = r["plot_grids"][k]
    g = spec["grid"]
    i_var = r_vars(spec["i_var"])
    assert i_var == g["vars"]
    pd_ = pygbm.partial_dependence(fit, i_var, n_trees=r["best_cv"],
                                   continuous_resolution=spec["continuous_resolution"])
    assert list(pd_.columns) == i_var + ["y"] and len(pd_) == g["n_rows"]
    for var in i_var:
        axis = pd.unique(pd_[var])
        if isinstance(pd_[var].dtype, pd.CategoricalDtype):
            assert [str(v) for v in axis] == g["axes"][var], var
        else:
            close(axis, g["axes"][var], f"grid of {var}")
    close(pd_["y"].to_numpy()[g["rows"]], g["y"], f"plot(i.var = {spec['i_var']}) y")
    np.testing.assert_allclose(pd_["y"].sum(), g["y_sum"], rtol=1e-12)
    if k == 0:  # R's spelling: plot(..., return.grid = TRUE)
        grid = pygbm.plot_gbm(fit, i_var[0], n_trees=r["best_cv"], return_grid=True)
        pd.testing.assert_frame_equal(grid.reset_index(drop=True), pd_.reset_index(drop=True),
                                      check_like=True)


def test_example_interact_gbm(example):
    fit, _, r = example
    data, _ = example_data()
    for case in r["interact"]:
        h = pygbm.interact_gbm(fit, data, i_var=r_vars(case["i_var"]), n_trees=r["best_cv"])
        close([h], [case["h"]], f"interact.gbm(i.var = {case['i_var']})", rtol=1e-10)


def test_example_interact_gbm_on_new_data_documented_difference(example):
    """R's interact.gbm takes a data factor's codes, wrong when its levels are not the
    fit's (docs/coming_from_r.md): the example's own data2$X3 has levels a..d, the
    fit's are d..a. pygbm matches labels, so it gives R's answer for data2 with the
    fit's level order, and that answer for data2 itself."""
    fit, _, r = example
    _, data2 = example_data()
    relevelled = data2.assign(X3=data2["X3"].cat.reorder_categories(["d", "c", "b", "a"]))
    for case in r["interact_data2"]:
        i_var = case["i_var"]
        for d in (data2, relevelled):
            h = pygbm.interact_gbm(fit, d, i_var=i_var, n_trees=r["best_cv"])
            np.testing.assert_allclose(h, case["h_data2_fit_levels"], rtol=1e-10, atol=1e-12,
                                       err_msg=str(i_var))
        if case["h_data2_fit_levels"] > 1e-6:  # R's codes give another H
            assert abs(case["h_data2"] - case["h_data2_fit_levels"]) > 1e-4


def test_example_predict_unseen_levels_and_text(example):
    """Levels the fit never saw are missing values, as in R (pygbm also warns). A text
    column for a factor: R coerces it to numbers (all NA, "NAs introduced by
    coercion"), pygbm reads the labels, so it predicts as for the factor itself."""
    fit, _, r = example
    _, data2 = example_data()
    nl = r["new_levels"]
    nd = data2.head(6).assign(X4=pd.Categorical(nl["X4"]))
    with pytest.warns(UserWarning, match=r"not seen in training.*X4: \['g', 'h'\]"):
        close(fit.predict(nd, n_trees=r["best_cv"]), nl["predict_unseen"], "unseen levels")
    text = data2.head(6).assign(X5=data2["X5"].head(6).astype(str))
    close(fit.predict(text, n_trees=r["best_cv"]), r["predict_data2_best"][:6], "X5 as text")
    assert nl["predict_x5_text"] == nl["predict_x5_na"] != r["predict_data2_best"][:6]


def test_example_gbm_more(example):
    fit, cv, r = example
    _, data2 = example_data()
    m = r["more"]
    more = pygbm.gbm_more(fit, n_new_trees=100, verbose=False)
    assert more.n_trees == m["n_trees"] == 200
    close(more.fit, m["fit"], "gbm.more fit")
    close(more.train_error, m["train_error"], "gbm.more train.error")
    close(more.valid_error, m["valid_error"], "gbm.more valid.error")
    close(more.oobag_improve, m["oobag_improve"], "gbm.more oobag.improve")
    assert int(pygbm.gbm_perf(more, method="test", plot_it=False)) == m["best_test"]
    if cv is fit:  # (the help-page variant's main fit has no cv)
        assert len(more.cv_error) == 100  # gbm.more runs no cv, in R either
        assert int(pygbm.gbm_perf(more, method="cv", plot_it=False)) == m["best_cv"]
    assert int(quiet(pygbm.gbm_perf, more, method="OOB", plot_it=False)) == m["best_oob"]
    assert int(pygbm.gbm_perf(more, plot_it=False)) == m["best_default"]
    close(quiet(more.predict, data2), m["predict_data2_default"], "gbm.more predict()")
    assert_printed_as_r(more, m["printed"], with_cv=cv is fit)
    close(more.predict(data2, n_trees=200), m["predict_data2_200"], "gbm.more predict")
    tree = pygbm.pretty_gbm_tree(more, i_tree=200)
    for col in tree.columns:
        close(tree[col], m["tree_last"][col], f"gbm.more tree 200 {col}")


def test_example_defaults(example):
    """The same functions called without n.trees / method: R's defaults."""
    fit, cv, r = example
    data, _ = example_data()
    d = r["defaults"]
    assert int(pygbm.gbm_perf(fit, plot_it=False)) == d["gbm_perf"]  # test, as R
    with pytest.warns(pygbm.GBMMessage) as record:
        ri = pygbm.relative_influence(fit)
    # R prints "n.trees not given. Using N trees."; pygbm says it with its own names
    [note] = d["relative_influence_message"]
    assert str(record[0].message) == note.replace("n.trees", "n_trees")
    close(ri, d["relative_influence"], "relative.influence()")
    s = pygbm.summary(fit, plot_it=False).to_frame()
    assert list(s["var"]) == d["summary"]["var"]
    close(s["rel_inf"], d["summary"]["rel_inf"], "summary()")
    g = pygbm.partial_dependence(fit, 0)
    close(g["y"].to_numpy()[d["plot_x1"]["rows"]], d["plot_x1"]["y"], "plot(i.var = 1)")
    close([pygbm.interact_gbm(fit, data, [0, 1])], [d["interact_12"]], "interact.gbm()",
          rtol=1e-10)
    close(np.asarray(fit.predict(data, n_trees=[1, 50, 100])).T.ravel(),
          np.ravel(d["predict_train_1_50_100"]), "predict(n.trees = c(1, 50, 100))")
    assert_printed_as_r(fit, d["printed"], with_cv=fit is cv)


def test_help_page_n_cores_differs_from_r_default():
    """The help page's n.cores = 1 and R's default give other main fits (same cv):
    pygbm gives the default's; the by-hand stream above gives the help page's."""
    ex = load("gbm_example.json")
    one, two = ex["gbm1"], ex["gbm1_cluster"]
    assert one["cv_error"] == two["cv_error"]
    assert one["train_error"] != two["train_error"]
    assert (one["best_oob"], one["best_test"]) != (two["best_oob"], two["best_test"])


# --------------------------------------------------------------------- ?print.gbm
def test_print_gbm_iris_multinomial_documented_difference():
    """pygbm's multinomial is Friedman's K-class algorithm, not R's (which R itself
    calls broken): same data, same call and R's draws, but other trees. What should
    agree does: every predictor used, the petal measurements on top, the classes
    recovered as well as R's fit does, and print() says the same things."""
    r = load("iris_multinomial.json")
    iris = frame(r["data"])
    fit = pygbm.gbm("Species ~ .", distribution="multinomial", data=iris, n_trees=2000,
                    shrinkage=0.01, cv_folds=5, verbose=False,
                    random_state=pygbm.RRandom(1))
    best = int(pygbm.gbm_perf(fit, method="cv", plot_it=False))
    assert 100 < best < 2000 and 100 < r["best_cv"] < 2000
    prob = np.asarray(fit.predict(iris, n_trees=best, type="response")).reshape(150, 3)
    r_prob = np.array(r["prob_best"]).T
    truth = iris["Species"].cat.codes.to_numpy()
    assert (prob.argmax(1) == truth).mean() >= 0.95
    assert (r_prob.argmax(1) == truth).mean() >= 0.95
    assert np.abs(prob - r_prob).max() < 0.15
    ri = pygbm.relative_influence(fit, best)
    r_ri = pd.Series(r["relative_influence_best"], index=ri.index)
    assert (ri > 0).all() and (r_ri > 0).all()
    assert list(ri.sort_values().index[-2:]) == list(r_ri.sort_values().index[-2:])
    text = str(fit)
    assert "A gradient boosted model with multinomial loss function." in r["printed"]
    assert "A gradient boosted model with multinomial loss function." in text
    assert "2000 iterations were performed." in text
    assert f"The best cross-validation iteration was {best}." in text
    assert "There were 4 predictors of which 4 had non-zero influence." in text


# --------------------------------------------------------------------- ?calibrate.plot
def check_calibrate(y, p, drawn, usr, **kwargs):
    import matplotlib.pyplot as plt
    band, curve = drawn  # R draws polygon(), then lines()
    assert band["kind"] == "polygon" and curve["kind"] == "lines"
    ax = pygbm.calibrate_plot(y, p, **kwargs)
    line = [ln for ln in ax.get_lines() if ln.get_label() == "calibration curve"][0]
    close(line.get_xdata(), curve["x"], "calibration curve x")
    close(line.get_ydata(), curve["y"], "calibration curve y", rtol=1e-10)
    c = calibration_curve(y, p)
    n = len(c)
    close(c["lower"], band["y"][:n], "band lower", rtol=1e-10)
    close(c["upper"][::-1], band["y"][n:2 * n], "band upper", rtol=1e-10)
    # par("usr") is R's limits widened by 4% on each side
    lo, hi = usr[0], usr[1]
    width = (hi - lo) / 1.08
    np.testing.assert_allclose(ax.get_xlim(), [lo + 0.04 * width, hi - 0.04 * width],
                               atol=1e-12)
    plt.close(ax.figure)


def test_calibrate_plot_kyphosis():
    r = load("calibrate_kyphosis.json")
    check_calibrate(np.array(r["y"]), np.array(r["p"]), r["drawn"], r["usr"],
                    xlim=r["xlim"], ylim=r["ylim"])


# --------------------------------------------------------------------- constructed
@pytest.mark.parametrize("engine", [None, "numpy"])
def test_coxph_and_basehaz_gbm(engine):
    r = load("coxph_basehaz.json")
    d = frame(r["data"])
    fit = pygbm.gbm("Surv(time, status) ~ .", data=d, distribution="coxph", n_trees=100,
                    shrinkage=0.05, interaction_depth=2, bag_fraction=0.5,
                    train_fraction=0.8, n_minobsinnode=10, cv_folds=3, verbose=False,
                    random_state=pygbm.RRandom(202), engine=engine)
    assert fit.init_f == r["init_f"]
    close(fit.fit, r["fit"], "fit$fit")
    close(fit.train_error, r["train_error"], "train.error", rtol=1e-10)
    close(fit.valid_error, r["valid_error"], "valid.error", rtol=1e-10)
    close(fit.oobag_improve, r["oobag_improve"], "oobag.improve", rtol=1e-10)
    close(fit.cv_error, r["cv_error"], "cv.error", rtol=1e-10)
    assert int(pygbm.gbm_perf(fit, method="test", plot_it=False)) == r["best_test"]
    assert int(pygbm.gbm_perf(fit, method="cv", plot_it=False)) == r["best_cv"]
    close(fit.predict(d, n_trees=100), r["f_x"], "predict")
    close(pygbm.relative_influence(fit, 100), r["relative_influence"], "relative.influence",
          rtol=1e-10)
    fx = num(r["f_x"])
    t, delta, t_eval = d["time"], d["status"], r["t_eval"]
    close(pygbm.basehaz_gbm(t, delta, fx), r["basehaz_cum"], "basehaz")
    close(pygbm.basehaz_gbm(t, delta, fx, t_eval), r["basehaz_cum_teval"], "basehaz t.eval")
    close(pygbm.basehaz_gbm(t, delta, fx, t_eval, smooth=True), r["basehaz_smooth_teval"],
          "basehaz smooth", rtol=1e-10)
    close(pygbm.basehaz_gbm(t, delta, fx, t_eval, smooth=True, cumulative=False),
          r["basehaz_smooth_haz"], "basehaz smooth hazard", rtol=1e-10)


BERNOULLI_KW = dict(distribution="bernoulli", var_monotone=[1, 0, 0, 0, 0, 0], n_trees=100,
                    shrinkage=0.1, interaction_depth=3, bag_fraction=0.5,
                    train_fraction=0.5, n_minobsinnode=10, cv_folds=5, verbose=False)


@pytest.mark.parametrize("engine", [None, "numpy"])
def test_bernoulli_stratified_cv(engine):
    """gbm(..., class.stratify.cv = TRUE): R's per-class fold draws."""
    r = load("bernoulli_roc.json")
    fit = pygbm.gbm("Y ~ .", data=frame(r["data"]), class_stratify_cv=True,
                    random_state=pygbm.RRandom(302), engine=engine, **BERNOULLI_KW)
    for key in ("train_error", "cv_error", "cv_fitted"):
        close(getattr(fit, key), r["stratified"][key], f"stratified {key}")


@pytest.mark.parametrize("engine", [None, "numpy"])
def test_bernoulli_monotone_roc_area_calibrate(engine):
    r = load("bernoulli_roc.json")
    d = frame(r["data"])
    fit = pygbm.gbm("Y ~ .", data=d, random_state=pygbm.RRandom(302), engine=engine,
                    **BERNOULLI_KW)
    assert fit.init_f == r["init_f"]
    for key in ("fit", "train_error", "valid_error", "oobag_improve", "cv_error", "cv_fitted"):
        close(getattr(fit, key), r[key], key)
    best = int(pygbm.gbm_perf(fit, method="cv", plot_it=False))
    assert best == r["best_cv"]
    assert int(pygbm.gbm_perf(fit, method="test", plot_it=False)) == r["best_test"]
    n_train = len(d) // 2
    valid = d.iloc[n_train:]
    pv = fit.predict(valid, n_trees=best, type="response")
    close(pv, r["pred_valid_best"], "predict(type = response)")
    close([pygbm.gbm_roc_area(valid["Y"], pv)], [r["roc_area_valid"]], "gbm.roc.area")
    close([pygbm.gbm_roc_area(d["Y"].iloc[:n_train], fit.cv_fitted)], [r["roc_area_cv"]],
          "gbm.roc.area(cv.fitted)")
    for key, type_ in (("pd_x1", "link"), ("pd_x1_response", "response")):
        g = pygbm.partial_dependence(fit, "X1", n_trees=best, type=type_)
        close(g["X1"], r[key]["axes"]["X1"], f"{key} grid")
        close(g["y"], r[key]["y"], key)
        assert np.all(np.diff(g["y"]) >= 0)  # var.monotone = +1 holds
    check_calibrate(valid["Y"].to_numpy(), np.asarray(pv), r["calibrate_drawn"],
                    r["calibrate_usr"])


# --------------------------------------------------------------------- live R
#: fixtures the R script writes only when rpart is installed (kyphosis)
NEEDS_RPART = ("calibrate_kyphosis.json",)


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
def test_live_r_writes_the_committed_fixtures(tmp_path):
    run = subprocess.run(["Rscript", str(HERE / "make_fixtures.R"), str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    for path in sorted(FIXTURES.glob("*.json")):
        if path.name in NEEDS_RPART and not (tmp_path / path.name).exists():
            continue                    # R without rpart (a recommended package) skips it
        assert filecmp.cmp(path, tmp_path / path.name, shallow=False), \
            f"R now writes another {path.name}"
