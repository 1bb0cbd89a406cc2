"""Catalogue of bad and edge inputs (issue 20): every public function answers a
wrong argument with pygbm's own error naming the argument (never a NumPy,
pandas, formulaic or joblib traceback), or gives the documented result.

Each row: (id, call on the shared namespace ``E``, error type, a regex the
message must match -- the argument's name). ``R:`` notes what R gbm 2.1.8.1
does where pygbm differs on purpose.
"""
from __future__ import annotations

import fractions
import pickle
import types
import warnings

import numpy as np
import pandas as pd
import pytest

import pygbm
import pygbm.calibration
import pygbm.plotting

N = 120


@pytest.fixture(scope="module")
def E():
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"x1": rng.normal(size=N), "x2": rng.normal(size=N),
                      "c": pd.Categorical(rng.choice(list("abc"), size=N))})
    d["y"] = d["x1"] + rng.normal(size=N)
    d["b"] = (d["y"] > 0).astype(int)
    d["t"] = rng.exponential(size=N) + 0.1
    d["s"] = (rng.random(N) < 0.7).astype(int)
    d["k"] = rng.poisson(2, size=N)
    x = d[["x1", "x2"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kw = dict(n_trees=20, interaction_depth=2, random_state=1)
        fit = pygbm.gbm("y ~ x1 + x2 + c", d, distribution="gaussian", **kw)
        bfit = pygbm.gbm("b ~ x1 + x2", d, distribution="bernoulli", **kw)
        mfit = pygbm.gbm("y ~ x1 + x2 + c", d, distribution="gaussian", keep_data=False, **kw)
        ffit = pygbm.gbm_fit(x, d["y"], distribution="gaussian", n_trees=10, shrinkage=0.1)
        d4 = d.assign(x3=rng.normal(size=N), x4=rng.normal(size=N))
        fit4 = pygbm.gbm("y ~ x1 + x2 + x3 + x4", d4, distribution="gaussian", n_trees=10,
                         interaction_depth=4, random_state=1)
        mfit3 = pygbm.gbm("c ~ x1 + x2", d, distribution="multinomial", **kw)
    return types.SimpleNamespace(d=d, x=x, fit=fit, bfit=bfit, mfit=mfit, ffit=ffit,
                                 fit4=fit4, d4=d4, mfit3=mfit3)


def g(E, **kw):
    """gbm() on the shared data with a few trees and ``kw`` overriding."""
    args = dict(formula="y ~ x1 + x2 + c", data=E.d, distribution="gaussian", n_trees=5)
    args.update(kw)
    return pygbm.gbm(**args)


def gf(E, **kw):
    """gbm_fit() on the shared predictors with ``kw`` overriding."""
    args = dict(x=E.x, y=E.d["y"], distribution="gaussian", n_trees=5)
    args.update(kw)
    return pygbm.gbm_fit(**args)


V, T = ValueError, TypeError


class _ForeignTable:
    """Another library's table (polars, pyarrow): not a pandas DataFrame."""

    def to_pandas(self):
        return pd.DataFrame()


def _rev(E):
    """The shared rows in reverse order, their index labels kept (as ``d.sample(frac=1)``)."""
    return E.d.iloc[::-1]


def _ofit(E):
    """A bernoulli gbm_fit with an offset argument: new rows need their offsets."""
    return pygbm.gbm_fit(E.x, E.d.b, offset=E.d.x2 * 0.1, n_trees=5, random_state=1)


def _misaligned(name, rows):
    """The start of the refusal of a per-row Series ``name`` indexed unlike ``rows``."""
    return rf"^{name} is a pandas Series whose index differs from {rows}'s index"


# ----------------------------------------------------------------- gbm: scalar arguments
_GBM_SCALARS = [
    ("n_trees", 0, V), ("n_trees", -3, V), ("n_trees", 2.5, T), ("n_trees", "10", T),
    ("n_trees", float("nan"), T), ("n_trees", float("inf"), T), ("n_trees", True, T),
    ("n_trees", None, T), ("n_trees", 1e300, V), ("n_trees", 2 ** 31, V),
    # a Python int beyond int64: NumPy's "ufunc 'isfinite' not supported for the input types"
    ("n_trees", 10 ** 20, V), ("cv_folds", 10 ** 20, V), ("max_bins", 10 ** 20, V),
    ("bag_fraction", 10 ** 20, V), ("train_fraction", 10 ** 20, V),
    # a Fraction: the same NumPy error
    ("n_trees", fractions.Fraction(1, 2), T), ("shrinkage", fractions.Fraction(-1, 2), V),
    ("interaction_depth", 0, V), ("interaction_depth", 1.5, T), ("interaction_depth", "2", T),
    ("interaction_depth", float("nan"), T), ("interaction_depth", 10**6, V),
    ("n_minobsinnode", 0, V), ("n_minobsinnode", -1, V), ("n_minobsinnode", 2.2, T),
    ("n_minobsinnode", 10**6, V),
    ("shrinkage", 0, V), ("shrinkage", -0.1, V), ("shrinkage", float("nan"), V),
    ("shrinkage", "0.1", V), ("shrinkage", float("inf"), V),
    ("bag_fraction", 0, V), ("bag_fraction", 1.5, V), ("bag_fraction", float("nan"), T),
    ("bag_fraction", "half", T),
    ("train_fraction", 0, V), ("train_fraction", 2, V), ("train_fraction", float("nan"), T),
    ("train_fraction", None, T),
    # floor(0.001 * N) = 0 training rows: the error named n_train, not given to gbm
    ("train_fraction", 0.001, V),
    ("cv_folds", -1, V), ("cv_folds", 2.5, T), ("cv_folds", N + 1, V), ("cv_folds", "3", T),
    ("cv_folds", float("inf"), T),
    ("n_cores", 0, V), ("n_cores", -2, V), ("n_cores", 1.5, T), ("n_cores", "2", T),
    # class_stratify_cv was a truth value: "no" stratified, a DataFrame raised pandas' error
    ("class_stratify_cv", "no", T), ("class_stratify_cv", pd.DataFrame(), T),
    ("random_state", "seed", T), ("random_state", 1.5, T), ("random_state", -1, V),
    ("random_state", [1.5], T),
    ("keep_data", "no", T), ("keep_data", 2, T), ("keep_data", None, T),
    ("verbose", "x", T), ("verbose", 2, T),
    ("max_bins", 1, V), ("max_bins", 10**6, V), ("max_bins", 2.5, T),
    ("engine", "fortran", V), ("engine", 3, V),
    ("distribution", "gausian", V), ("distribution", 3, T), ("distribution", {"alpha": 1}, V),
    ("distribution", {"name": "quantile", "alpha": 1.5}, V),
    ("distribution", {"name": "quantile", "alpha": "x"}, T),
    ("distribution", {"name": "tdist", "df": -1}, V),
    ("distribution", {"name": "gaussian", "bogus": 1}, V),
    ("distribution", {"name": "pairwise", "metric": "ndcg"}, V),
]
_GBM_SCALAR_MATCH = {"distribution": "distribution|alpha|df|bogus|group|quantile|tdist"}


@pytest.mark.parametrize("arg, value, exc", _GBM_SCALARS,
                         ids=[f"gbm-{a}={v!r}" for a, v, _ in _GBM_SCALARS])
def test_gbm_scalar_arguments(E, arg, value, exc):
    extra = {"cv_folds": 2} if arg == "n_cores" else {}
    with pytest.raises(exc, match=_GBM_SCALAR_MATCH.get(arg, arg)):
        g(E, **{arg: value}, **extra)


# ----------------------------------------------------------------- every other bad input
def _censored(E):
    return E.d.assign(s=0)


_CASES = [
    # gbm: formula and data
    ("gbm-formula-not-str", lambda E: g(E, formula=3), Exception, "formula"),
    ("gbm-formula-no-tilde", lambda E: g(E, formula="y x1"), V, "formula|~"),
    ("gbm-formula-unknown-col", lambda E: g(E, formula="y ~ x9"), V, "x9"),
    ("gbm-formula-unknown-resp", lambda E: g(E, formula="yy ~ x1"), V, "yy"),
    # formulaic reads `1` as the intercept: a column named "1" was left out without a
    # word (y ~ `1` + x2 fitted x2 alone); `` was dropped (R: zero-length variable name)
    ("gbm-formula-backticked-1", lambda E: g(E, formula="y ~ `1` + x2",
                                             data=E.d.rename(columns={"x1": "1"})), V,
     r"`1` is read as the intercept, not as the column '1'.*Q\(\"1\"\)"),
    ("gbm-formula-backticked-empty", lambda E: g(E, formula="y ~ `` + x2"), V,
     r"`` \(an empty name\) names no column"),
    ("gbm-formula-no-predictors", lambda E: g(E, formula="y ~ 1"), V, "predictors"),
    ("gbm-data-not-frame", lambda E: g(E, data=[1, 2, 3]), Exception, "data"),
    # another library's table (polars, pyarrow, ...) was "got DataFrame": which one, and how
    ("gbm-data-other-library-table", lambda E: g(E, data=_ForeignTable()), T,
     r"data must be a pandas DataFrame, got .*_ForeignTable \(convert it with \.to_pandas\(\)\)"),
    ("predict-newdata-other-library-table", lambda E: E.fit.predict(_ForeignTable(), n_trees=5),
     T, r"newdata must be a pandas DataFrame, got .*_ForeignTable \(convert it with"),
    ("gbm_fit-x-other-library-table", lambda E: gf(E, x=_ForeignTable()), T,
     r"2-d numpy array, got .*_ForeignTable \(convert it with \.to_pandas\(\)\)"),
    # a complex predictor was told to "convert dates/times to numbers"
    ("gbm-predictor-complex", lambda E: g(E, data=E.d.assign(x2=E.d.x2 * (1 + 1j))), T,
     r"predictor column 'x2' has dtype complex128, which gbm cannot use; expected numeric, "
     r"bool, string or categorical$"),
    ("gbm-predictor-dates", lambda E: g(E, data=E.d.assign(x2=pd.date_range("2020", periods=N))),
     T, r"has dtype datetime64.*\(convert dates/times to numbers"),
    ("gbm-data-empty", lambda E: g(E, data=E.d.iloc[:0]), V, "rows|small|data"),
    ("gbm-too-few-rows", lambda E: g(E, data=E.d.iloc[:10]), V, "n_minobsinnode|small"),
    # R: "NaN found in predictor variables"
    ("gbm-log-negative", lambda E: g(E, formula="y ~ np.log(x1) + x2"), V, "x1|NaN"),
    ("gbm-resp-missing", lambda E: g(E, data=E.d.assign(y=E.d.y.where(E.d.x1 > -1))), V,
     "missing"),
    ("gbm-resp-text-gaussian",
     lambda E: g(E, data=E.d.assign(y=E.d.y.round(1).astype(str))), V, "y|response"),
    ("gbm-weights-negative", lambda E: g(E, weights=-np.ones(N)), V, "weights"),
    ("gbm-weights-nan", lambda E: g(E, weights=np.full(N, np.nan)), V, "weights"),
    ("gbm-weights-zero", lambda E: g(E, weights=np.zeros(N)), V, "weights"),
    ("gbm-weights-length", lambda E: g(E, weights=np.ones(5)), V, "weights"),
    # a one-column table: "weights has length 120 (shape (120, 1)); data has 120 rows"
    ("gbm-weights-one-column-frame", lambda E: g(E, weights=E.d[["t"]]), V,
     r"weights must be one number per row \(120\), got shape \(120, 1\)"),
    ("gbm-weights-unknown-col", lambda E: g(E, weights="w"), V, "w"),
    ("gbm-monotone-length", lambda E: g(E, var_monotone=[1]), V, "var_monotone"),
    ("gbm-monotone-values", lambda E: g(E, var_monotone=[2, 0, 0]), V, "var_monotone"),
    ("gbm-monotone-unknown", lambda E: g(E, var_monotone={"zz": 1}), V, "var_monotone"),
    ("gbm-fold_id-nan", lambda E: g(E, fold_id=np.r_[np.nan, np.arange(N - 1) % 3 + 1]), V,
     "fold_id"),
    ("gbm-fold_id-length", lambda E: g(E, fold_id=[1, 2]), V, "fold_id"),
    ("gbm-fold_id-one-fold", lambda E: g(E, fold_id=np.ones(N)), V, "fold_id"),
    # a column name, as weights= takes one: said "got shape ()"
    # cv_folds=5 was silently replaced by fold_id's 3 folds
    ("gbm-fold_id-cv_folds-differ", lambda E: g(E, cv_folds=5, fold_id=np.arange(N) % 3 + 1),
     V, r"cv_folds=5 but fold_id gives 3 folds"),
    ("gbm-fold_id-cv_folds-agree", lambda E: g(E, cv_folds=3, fold_id=np.arange(N) % 3 + 1)
     and None, None, None),
    ("gbm-fold_id-column-name", lambda E: g(E, fold_id="x1"), V,
     r"fold_id .*single value 'x1'.*not looked up in data"),
    ("gbm-categorical-unknown", lambda E: g(E, categorical="hashed"), V, "categorical"),
    ("gbm-zero_subsample-bad", lambda E: g(E, distribution="poisson", formula="k ~ x1",
                                           zero_subsample=2), V, "zero_subsample"),
    ("gbm-zero_weight-bad", lambda E: g(E, distribution="poisson", formula="k ~ x1",
                                        zero_subsample=0.5, zero_weight="x"), V, "zero_weight"),
    ("gbm-feature_costs-length", lambda E: g(E, feature_costs=[1.0]), V, "feature_costs"),
    ("gbm-feature_costs-negative", lambda E: g(E, feature_costs=[-1.0, 1, 1]), V,
     "feature_costs"),
    ("gbm-cost_split-negative", lambda E: g(E, cost_split=-1.0), V, "cost_split"),
    # distributions and their responses
    ("gbm-bernoulli-no-1", lambda E: g(E, formula="b ~ x1", data=E.d.assign(b=0),
                                       distribution="bernoulli"), V, "y|0 and 1"),
    ("gbm-bernoulli-no-weight-on-1s", lambda E: g(E, formula="b ~ x1", distribution="bernoulli",
                                                  weights=1.0 - E.d.b), V, "y = 1|weight"),
    ("gbm-adaboost-no-1", lambda E: g(E, formula="b ~ x1", data=E.d.assign(b=0),
                                      distribution="adaboost"), V, "adaboost.*0 and 1"),
    ("gbm-adaboost-no-weight-on-0s", lambda E: g(E, formula="b ~ x1", distribution="adaboost",
                                                 weights=E.d.b.astype(float)), V, "y = 0"),
    ("gbm-huberized-no-0", lambda E: g(E, formula="b ~ x1", data=E.d.assign(b=1),
                                       distribution="huberized"), V, "huberized.*y = 0"),
    # R: the initial value log(0) = -Inf and a deviance of NaN
    ("gbm-poisson-all-zero", lambda E: g(E, formula="k ~ x1", data=E.d.assign(k=0),
                                         distribution="poisson"), V, "poisson.*0 on every"),
    ("gbm-poisson-all-zero-offset", lambda E: g(
        E, formula="k ~ x1 + offset(np.log(t))", data=E.d.assign(k=0),
        distribution="poisson"), V, "poisson.*0 on every"),
    ("gbm-poisson-all-zero-subsampled", lambda E: g(
        E, formula="k ~ x1", data=E.d.assign(k=0), distribution="poisson",
        zero_subsample=0.5), V, "poisson.*0 on every"),
    # a fold's error says which fold and how many rows it trains on (fewer than the fit)
    ("gbm-cv-fold-without-a-class", lambda E: g(
        E, formula="b ~ x1", data=E.d.assign(b=np.r_[1, np.zeros(N - 1)]),
        distribution="bernoulli", cv_folds=3, n_cores=1, random_state=1), V,
     r"cv fold \d \(trained on 80 of the 120 training rows\): bernoulli.*both 0 and 1"),
    # the same from worker processes (the NumPy engine's folds run under joblib): the
    # fold's error again, not joblib's traceback
    ("gbm-cv-fold-without-a-class-workers", lambda E: g(
        E, formula="b ~ x1", data=E.d.assign(b=np.r_[1, np.zeros(N - 1)]),
        distribution="bernoulli", cv_folds=3, n_cores=2, engine="numpy", random_state=1), V,
     r"cv fold \d \(trained on 80 of the 120 training rows\): bernoulli.*both 0 and 1"),
    ("gbm-bernoulli-three-values", lambda E: g(E, formula="k ~ x1", distribution="bernoulli"),
     V, "0/1"),
    ("gbm-poisson-negative", lambda E: g(E, formula="y ~ x1", distribution="poisson"), V,
     "poisson"),
    ("gbm-poisson-dict", lambda E: g(E, formula="y ~ x1", distribution={"name": "poisson"}),
     V, "poisson"),
    ("gbm-coxph-not-surv", lambda E: g(E, formula="t ~ x1", distribution="coxph"), V,
     "Surv|survival"),
    ("gbm-coxph-all-censored", lambda E: g(E, formula="Surv(t, s) ~ x1", data=_censored(E),
                                           distribution="coxph"), V, "censored"),
    ("gbm-coxph-events-weightless",
     lambda E: g(E, formula="Surv(t, s) ~ x1", distribution="coxph", weights="w",
                 data=E.d.assign(w=np.where(E.d.s == 1, 0.0, 1.0))),
     V, r"weights: every training event \(status 1\) has weight 0"),
    # one row of 120 with weight, bags of 60: about every other bag has no weight,
    # and its tree's values are 0/0 (R's fit is NaN from there on, silently)
    ("gbm-bag-without-weight",
     lambda E: g(E, n_trees=40, random_state=1, weights="w",
                 data=E.d.assign(w=np.eye(1, N, 5).ravel())),
     V, r"weights: the bag of iteration \d+ holds no row of positive weight"),
    ("gbm-weights-overflow", lambda E: g(E, weights="w", data=E.d.assign(w=1e307)), V,
     r"weights are too large to normalise as R does \(w \* n / sum\(w\), n = 120"),
    ("gbm-pairwise-weights-overflow",
     lambda E: g(E, formula="b ~ x1", distribution={"name": "pairwise", "group": "c"},
                 weights="w", data=E.d.assign(w=1e308)),
     V, r"weights are too large to normalise as R does \(w \* G / the sum of the 3 group"),
    # exp(offset) underflows in poisson's initial value: "math domain error" before
    ("gbm-poisson-offset-extreme",
     lambda E: g(E, formula="k ~ x1 + offset(o)", distribution="poisson",
                 data=E.d.assign(o=np.full(N, 1e300))),
     V, r"the initial value is not finite \(-inf\): the offset or the response"),
    ("predict-newdata-one-row-series", lambda E: E.fit.predict(E.d.iloc[0], n_trees=5), T,
     r"newdata must be a pandas DataFrame, got Series \(a row of a DataFrame as a frame: "
     r"df\.iloc\[\[i\]\]"),
    ("gbm-surv-gaussian", lambda E: g(E, formula="Surv(t, s) ~ x1"), V, "coxph"),
    ("gbm-multinomial-numeric-many", lambda E: g(E, formula="c ~ x1", distribution="gaussian"),
     V, "c|response"),
    ("gbm-adaboost-y", lambda E: g(E, formula="y ~ x1", distribution="adaboost"), V,
     "adaboost|0/1"),
    ("gbm-huberized-y", lambda E: g(E, formula="y ~ x1", distribution="huberized"), V,
     "huberized|0/1"),
    # binned mode and target statistics
    ("gbm-binned-ok", lambda E: g(E, max_bins=16) and None, None, None),
    ("gbm-ts-permutations", lambda E: g(E, categorical="ordered_ts", ts_permutations=0), V,
     "ts_permutations|n_permutations"),
    ("gbm-ts-prior-weight", lambda E: g(E, categorical="ordered_ts", ts_prior_weight=-1), V,
     "prior_weight"),
    # gbm_fit
    ("gbm_fit-var_names-length", lambda E: gf(E, x=E.x.to_numpy(), var_names=["a"]), V,
     "var_names"),
    ("gbm_fit-var_names-length-frame", lambda E: gf(E, var_names=["a", "b", "c"]), V,
     "var_names"),
    # x not a table: "predictors must be ..." did not name the argument x
    # columns 1 and "1": two predictors named "1", new data's "1" read for both
    ("gbm_fit-x-int-and-str-column-same-name", lambda E: gf(
        E, x=pd.DataFrame({1: E.d.x1, "1": E.d.x2})), V,
     r"x \(the predictors\) has duplicated column names: \['1'\]"),
    # a numeric response under gbm_fit's default distribution (bernoulli, R's gbm.fit's):
    # the refusal says the distribution was the default
    ("gbm_fit-default-distribution-numeric-y",
     lambda E: pygbm.gbm_fit(E.x, E.d["y"], n_trees=5), V,
     r"bernoulli needs a response y in \[0, 1\].*distribution='bernoulli' is gbm_fit's "
     r"default, as R's gbm.fit's: pass distribution="),
    ("gbm_fit-x-none", lambda E: gf(E, x=None), T,
     r"x \(the predictors\) must be a pandas DataFrame or a 2-d numpy array, got NoneType"),
    ("gbm_fit-x-no-columns", lambda E: gf(E, x=pd.DataFrame(index=range(N))), V,
     r"x \(the predictors\): there are no predictor columns"),
    # var_names a number: "'int' object is not iterable"; a string was split into letters
    ("gbm_fit-var_names-number", lambda E: gf(E, x=E.x.to_numpy(), var_names=2), T,
     "var_names must be a list of names"),
    ("gbm_fit-var_names-string", lambda E: gf(E, x=E.x.to_numpy(), var_names="ab"), T,
     "var_names must be a list of names"),
    # response_name anything was taken (a DataFrame as the response's name)
    ("gbm_fit-response_name", lambda E: gf(E, response_name=pd.DataFrame()), T,
     "response_name must be a string"),
    # misc text: float()'s "could not convert string to float"
    ("gbm_fit-misc-text", lambda E: gf(E, y=E.d.t, distribution="coxph", misc="abc"), V,
     "misc must be numbers"),
    # misc for another distribution than coxph: the error spoke of a Surv() response only
    ("gbm_fit-misc-gaussian", lambda E: gf(E, misc=np.ones(N)), V,
     r"gbm_fit's misc, the event status\) needs distribution='coxph', not 'gaussian'"),
    ("gbm_fit-misc-length", lambda E: gf(E, y=E.d.t, distribution="coxph", misc=np.ones(3)),
     V, "misc"),
    ("gbm_fit-all-censored", lambda E: gf(E, y=E.d.t, distribution="coxph",
                                          misc=np.zeros(N)), V, "censored"),
    ("gbm_fit-y-length", lambda E: gf(E, y=np.ones(5)), V, "y"),
    # a scalar y: said IndexError: tuple index out of range
    ("gbm_fit-y-scalar", lambda E: gf(E, y=3.0), V, r"y must be one response per row of x \(120\)"),
    ("gbm_fit-y-none", lambda E: gf(E, y=None), V, "y must be one response per row"),
    ("gbm_fit-y-nan", lambda E: gf(E, y=np.r_[np.nan, E.d.y[1:]]), V, "missing|y"),
    # weights and offsets NumPy would cast were read as numbers: text "2" as 2, dates in
    # their unit, a Categorical by its values, complex numbers without the imaginary part
    ("gbm_fit-w-text", lambda E: gf(E, w=np.array(["2"] * N)), V,
     r"^w must be numbers, got ndarray of 120 values with non-numbers such as '2'"),
    ("gbm_fit-w-categorical", lambda E: gf(E, w=pd.Categorical(np.ones(N))), V,
     r"^w must be numbers, got a Categorical"),
    ("gbm_fit-offset-dates", lambda E: gf(E, offset=pd.date_range("2020", periods=N)), V,
     r"offset must be numbers, got dates"),
    ("gbm_fit-offset-complex-objects", lambda E: gf(E, offset=np.full(N, 1 + 0j, dtype=object)),
     V, r"offset must be numbers, got complex numbers such as"),
    ("gbm_more-weights-text", lambda E: pygbm.gbm_more(E.fit, 2, weights=["1"] * N), V,
     r"weights must be numbers, got list of 120 values with non-numbers such as '1'"),
    ("gbm_fit-offset-length", lambda E: gf(E, offset=np.ones(3)), V, "offset"),
    ("gbm_fit-offset-nan", lambda E: gf(E, offset=np.full(N, np.nan)), V, "offset"),
    # gbm_fit's weights are its argument w: errors said "weights"
    ("gbm_fit-w-negative", lambda E: gf(E, w=-np.ones(N)), V, r"^w must be >= 0"),
    # words where numbers belong: the argument named, not NumPy's conversion error
    ("gbm_fit-offset-words", lambda E: gf(E, offset=["a"] * N), V, "offset must be numbers"),
    ("gbm_fit-w-words", lambda E: gf(E, w=["a"] * N), V, r"^w must be numbers"),
    ("gbm_fit-w-inf", lambda E: gf(E, w=np.r_[np.inf, np.ones(N - 1)]), V,
     r"^w must be finite numbers, got 0 NaN and 1 infinite"),
    ("gbm_fit-n_train-too-big", lambda E: gf(E, n_train=N + 1), V, "n_train"),
    ("gbm_fit-train_fraction-no-row", lambda E: gf(E, train_fraction=0.001), V,
     r"train_fraction=0.001 leaves no training row: floor\(0.001 \* 120 rows\) = 0"),
    ("gbm_fit-n_train-and-fraction", lambda E: gf(E, n_train=50, train_fraction=0.5), V,
     "n_train"),
    ("gbm_fit-random_state", lambda E: gf(E, random_state="x"), T, "random_state"),
    ("gbm_fit-keep_data", lambda E: gf(E, keep_data="yes"), T, "keep_data"),
    ("gbm_fit-n_trees-nan", lambda E: gf(E, n_trees=float("nan")), T, "n_trees"),
    ("gbm_fit-bernoulli-no-1", lambda E: gf(E, y=np.zeros(N), distribution="bernoulli"), V,
     "0 and 1"),
    ("gbm_fit-group-not-pairwise", lambda E: gf(E, group=np.arange(N)), V, "group"),
    # gbm_more
    ("gbm_more-not-fit", lambda E: pygbm.gbm_more("fit", 5), T, "fit"),
    ("gbm_more-n_new_trees-0", lambda E: pygbm.gbm_more(E.fit, 0), V, "n_new_trees"),
    ("gbm_more-verbose", lambda E: pygbm.gbm_more(E.fit, 5, verbose="yes"), T, "verbose"),
    ("gbm_more-n_new_trees-nan", lambda E: pygbm.gbm_more(E.fit, float("nan")), T,
     "n_new_trees"),
    ("gbm_more-n_new_trees-str", lambda E: pygbm.gbm_more(E.fit, "5"), T, "n_new_trees"),
    ("gbm_more-data-length", lambda E: pygbm.gbm_more(E.fit, 5, data=E.d.iloc[:50]), V,
     "rows"),
    # a level the first fit did not see (or a factor given as its codes) reached the
    # engine: "categorical predictor 2 has codes outside 0..2"
    ("gbm_more-data-unseen-level", lambda E: pygbm.gbm_more(E.fit, 5, data=E.d.assign(
        c=pd.Categorical(np.where(np.arange(N) < 5, "zz", E.d.c.astype(str))))), V,
     r"data has levels of \['c'\] not seen by the first fit"),
    # a factor given as its codes: refused as numbers for a categorical predictor
    ("gbm_more-data-codes", lambda E: pygbm.gbm_more(E.fit, 5, data=E.d.assign(c=E.d.c.cat.codes)),
     T, r"column 'c' in data holds numbers, but 'c' was categorical in the training data"),
    ("gbm_more-no-kept-data", lambda E: pygbm.gbm_more(E.mfit, 5), V, "keep_data"),
    # ragged nested lists ended in NumPy's "inhomogeneous shape" error, the argument
    # unnamed (gbm wrote its call, np.ndim of every argument, before any check)
    ("gbm-var_monotone-ragged", lambda E: g(E, var_monotone=[[1, 2], [3]]), V,
     r"^var_monotone must be a flat sequence of values; got a ragged nested list"),
    ("gbm-fold_id-ragged", lambda E: g(E, fold_id=[[1, 2], [3]]), V,
     r"^fold_id must be a flat sequence"),
    ("gbm_fit-y-ragged", lambda E: pygbm.gbm_fit(E.x, [[1, 2], [3]], distribution="gaussian"), V,
     r"^y must be a flat sequence"),
    ("gbm_fit-var_names-ragged", lambda E: pygbm.gbm_fit(E.x, E.d.y, var_names=[[1, 2], [3]],
                                                         distribution="gaussian"), V,
     r"^var_names must be a flat sequence"),
    ("plot_gbm-i_var-ragged", lambda E: pygbm.partial_dependence(E.fit, [[1, 2], [3]]), V,
     r"^i_var must be a flat sequence"),
    ("Surv-time-ragged", lambda E: pygbm.Surv([[1, 2], [3]], [1, 0]), V, r"`time` must be a flat"),
    ("qwyc-order-ragged", lambda E: pygbm.qwyc(E.bfit, E.d, order=[[1, 2], [3]]), V,
     r"^order must be a flat sequence"),
    ("calibrate_plot-xlim-ragged", lambda E: pygbm.calibrate_plot(
        E.d.b, np.linspace(0.1, 0.9, N), xlim=[[1, 2], [3]]), V, r"^xlim must be a flat sequence"),
    # labels of mixed types (an object column of numbers and text) and pandas' NA
    # ended in NumPy's "'<' not supported" and pandas' "boolean value of NA"
    ("gbm-fold_id-mixed-types", lambda E: g(E, fold_id=pd.Series([1, "a"] * (N // 2),
                                                                  dtype=object)), T,
     r"^fold_id holds labels of mixed types \(int, str\)"),
    ("gbm-fold_id-pandas-NA", lambda E: g(E, fold_id=pd.Series([1, 2] * (N // 2 - 1) + [1, pd.NA],
                                                                dtype=object)), V,
     r"^fold_id must not have missing values; 1 are missing"),
    ("perf_pairwise-group-mixed-types", lambda E: pygbm.perf_pairwise(
        E.d.b, E.d.y, pd.Series([1, "a"] * (N // 2), dtype=object)), T,
     r"^group holds labels of mixed types"),
    ("partial_dependence-class_-NA", lambda E: pygbm.partial_dependence(
        E.mfit3, 0, type="response", class_=pd.NA), V, r"^class_ must be one of the fit's "
                                                         r"classes .*got a missing value"),
    # a complex count was read as its real part (NumPy's ComplexWarning)
    ("predict-n_trees-complex", lambda E: E.fit.predict(E.d, n_trees=1 + 2j), V,
     r"^n_trees must be a whole number"),
    ("gbm_more-offset-length", lambda E: pygbm.gbm_more(E.fit, 5, offset=np.ones(3)), V,
     "offset"),
    ("gbm_more-weights-length", lambda E: pygbm.gbm_more(E.fit, 5, weights=np.ones(3)), V,
     "weights"),
    ("gbm_more-random_state", lambda E: pygbm.gbm_more(E.fit, 5, random_state="x"), T,
     "random_state"),
    ("gbm_more-data-gbm_fit", lambda E: pygbm.gbm_more(E.ffit, 5, data=E.d), V, "formula"),
    # predict
    ("predict-n_trees-nan", lambda E: E.fit.predict(E.d, n_trees=float("nan")), V, "n_trees"),
    ("predict-n_trees-inf", lambda E: E.fit.predict(E.d, n_trees=float("inf")), V, "n_trees"),
    ("predict-n_trees-negative", lambda E: E.fit.predict(E.d, n_trees=-1), V, "n_trees"),
    ("predict-n_trees-fraction", lambda E: E.fit.predict(E.d, n_trees=2.5), V, "n_trees"),
    ("predict-n_trees-str", lambda E: E.fit.predict(E.d, n_trees="5"), V, "n_trees"),
    ("predict-n_trees-empty", lambda E: E.fit.predict(E.d, n_trees=[]), V, "n_trees"),
    ("predict-n_trees-2d", lambda E: E.fit.predict(E.d, n_trees=[[1, 2]]), V, "n_trees"),
    ("predict-n_trees-bool", lambda E: E.fit.predict(E.d, n_trees=True), V, "n_trees"),
    # a bool in a list was read as 1 tree (np.asarray([True, 2]) is [1, 2]); a ragged
    # list ended in NumPy's "setting an array element with a sequence"
    ("predict-n_trees-bool-in-list", lambda E: E.fit.predict(E.d, n_trees=[True, 2]), V,
     r"n_trees must be a whole number or a list of whole numbers, got \[True, 2\]"),
    ("predict-cost-n_trees-ragged", lambda E: g(E, feature_costs={"x1": 1.0}).predict_cost(
        E.d, n_trees=[[1], [2, 3]]), V, "n_trees must be a whole number or a list"),
    ("predict-n_trees-ragged", lambda E: E.fit.predict(E.d, n_trees=[[1, 2], [3]]), V,
     r"n_trees must be a whole number or a list of whole numbers, got \[\[1, 2\], \[3\]\]"),
    ("predict-type", lambda E: E.fit.predict(E.d, n_trees=5, type="prob"), V, "type"),
    ("predict-missing-column", lambda E: E.fit.predict(E.d.drop(columns="x1"), n_trees=5), V,
     "x1"),
    # quiet was a truth value: a DataFrame raised pandas' error, "no" silenced the messages
    ("best_iteration-quiet", lambda E: E.fit.best_iteration(quiet="no"), T,
     "quiet must be True or False"),
    ("predict-no-kept-data", lambda E: E.mfit.predict(n_trees=5), V, "newdata|keep_data"),
    # toolbox
    ("perf-method", lambda E: pygbm.gbm_perf(E.fit, method="best", plot_it=False), V,
     "method"),
    ("perf-test-without-validation", lambda E: pygbm.gbm_perf(E.fit, method="test",
                                                              plot_it=False), V,
     "train_fraction"),
    ("perf-cv-without-cv", lambda E: pygbm.gbm_perf(E.fit, method="cv", plot_it=False), V,
     "cv_folds"),
    ("influence-n_trees-0", lambda E: pygbm.relative_influence(E.fit, n_trees=0), V, "n_trees"),
    ("influence-n_trees-str", lambda E: pygbm.relative_influence(E.fit, n_trees="3"), T,
     "n_trees"),
    ("influence-scale-str", lambda E: pygbm.relative_influence(E.fit, scale="yes"), T, "scale"),
    ("influence-per_class-single", lambda E: pygbm.relative_influence(E.fit, per_class=True),
     V, "per_class"),
    ("summary-n_trees-0", lambda E: pygbm.summary(E.fit, n_trees=0, plot_it=False), V,
     "n_trees"),
    ("summary-method", lambda E: pygbm.summary(E.fit, method="gain", plot_it=False), V,
     "method"),
    ("plot-i_var-unknown", lambda E: pygbm.plot_gbm(E.fit, "zz", return_grid=True), V, "zz"),
    ("plot-i_var-range", lambda E: pygbm.plot_gbm(E.fit, 9, return_grid=True), V, "i_var"),
    # n_trees=0 is R's initial value across the grid (test_partial_dependence.py)
    ("plot-n_trees-negative", lambda E: pygbm.plot_gbm(E.fit, 0, n_trees=-1, return_grid=True),
     V, r"^n_trees must be at least 0, got -1$"),
    ("plot-resolution-0", lambda E: pygbm.plot_gbm(E.fit, 0, continuous_resolution=0,
                                                   return_grid=True), V,
     "continuous_resolution"),
    # 2**40 reached numpy's MemoryError (8 TiB) building the axis before the grid's cap
    ("pd-resolution-huge", lambda E: pygbm.partial_dependence(E.fit, 0,
                                                              continuous_resolution=2 ** 40), V,
     r"continuous_resolution must be between 1 and 10000000, got 1099511627776"),
    ("plot-type", lambda E: pygbm.plot_gbm(E.fit, 0, type="prob", return_grid=True), V, "type"),
    ("pd-method", lambda E: pygbm.partial_dependence(E.fit, 0, method="magic"), V, "method"),
    # a number or None as i_var: said "'float' object is not iterable"
    ("pd-i_var-float", lambda E: pygbm.partial_dependence(E.fit, 2.5), T,
     "i_var must be a variable name, a 0-based integer position or a list"),
    ("plot-i_var-none", lambda E: pygbm.plot_gbm(E.fit, None, return_grid=True), T, "i_var"),
    ("interact-i_var-fit", lambda E: pygbm.interact_gbm(E.fit, E.d, E.bfit), T, "i_var"),
    # ICE's random_state reached numpy's SeedSequence; with ice=False it (and
    # ice_rows) were silently ignored whatever they were
    ("pd-ice-random_state-text", lambda E: pygbm.partial_dependence(
        E.fit, 0, ice=True, ice_rows=5, random_state="x"), T, "random_state"),
    ("pd-ice-random_state-negative", lambda E: pygbm.partial_dependence(
        E.fit, 0, ice=True, ice_rows=5, random_state=-1), V, "random_state"),
    ("pd-random_state-no-ice", lambda E: pygbm.partial_dependence(E.fit, 0, random_state=2.5),
     T, "random_state"),
    ("pd-ice_rows-no-ice", lambda E: pygbm.partial_dependence(E.fit, 0, ice_rows="x"), V,
     "ice_rows"),
    ("plot-ice_rows-no-ice", lambda E: pygbm.plot_gbm(E.fit, 0, ice_rows=-1, return_grid=True),
     V, "ice_rows"),
    ("plot-random_state-no-ice", lambda E: pygbm.plot_gbm(E.fit, 0, random_state="x",
                                                          return_grid=True), T, "random_state"),
    # summary's random_state was ignored unchecked unless method="permutation"
    ("summary-random_state", lambda E: pygbm.summary(E.fit, random_state="x", plot_it=False), T,
     "random_state"),
    # class_ a DataFrame or an array: pandas' or NumPy's "truth value ... is ambiguous"
    ("pd-class_-frame", lambda E: pygbm.partial_dependence(E.mfit3, 0, class_=pd.DataFrame()), V,
     "class_ must be one of the fit's classes"),
    ("pd-class_-array", lambda E: pygbm.partial_dependence(E.mfit3, 0, class_=np.array(["a", "b"])),
     V, "class_ must be one of the fit's classes"),
    ("pd-four-vars-default-grid", lambda E: pygbm.partial_dependence(E.fit4, [0, 1, 2, 3]), V,
     "continuous_resolution|grid"),
    ("interact-i_var-unknown", lambda E: pygbm.interact_gbm(E.fit, E.d, ["x1", "zz"]), V,
     "zz"),
    ("interact-depth-too-low", lambda E: pygbm.interact_gbm(E.fit, E.d, [0, 1, 2]), V,
     "interaction_depth"),
    ("interact-data-missing-col", lambda E: pygbm.interact_gbm(E.fit, E.d.drop(columns="x2"),
                                                               [0, 1]), V, "x2"),
    ("pretty-i_tree-0", lambda E: pygbm.pretty_gbm_tree(E.fit, 0), V, "i_tree"),
    ("pretty-i_tree-big", lambda E: pygbm.pretty_gbm_tree(E.fit, 999), V, "i_tree"),
    ("permutation-random_state", lambda E: pygbm.permutation_influence(E.fit,
                                                                       random_state="x"), T,
     "random_state"),
    ("permutation-no-data", lambda E: pygbm.permutation_influence(E.mfit), V, "keep_data"),
    # metrics (R computes numbers from these; pygbm refuses)
    ("roc-non-binary", lambda E: pygbm.gbm_roc_area(E.d.y, E.d.x1), V, "obs"),
    ("roc-length", lambda E: pygbm.gbm_roc_area([0, 1], [0.1]), V, "obs and pred"),
    ("roc-nan", lambda E: pygbm.gbm_roc_area([0, 1], [np.nan, 1]), V, "pred"),
    ("calibrate-p-outside", lambda E: pygbm.calibrate_plot(E.d.b, E.d.y), V, "p"),
    ("calibrate-misspelt", lambda E: pygbm.calibrate_plot(E.d.b, np.full(N, 0.5),
                                                          distribution="bernouli"), V,
     "distribution"),
    ("calibrate-y-outside", lambda E: pygbm.calibrate_plot(E.d.y, np.full(N, 0.5)), V, "y"),
    ("calibrate-length", lambda E: pygbm.calibrate_plot([0, 1], [0.5]), V, "y and p"),
    ("calibrate-df", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0, 1, N), df=0), V,
     "df"),
    # df: inf raised OverflowError, text "type str doesn't define __round__", 1e300 numpy's
    # "Maximum allowed size exceeded"; knots with NaN scipy's error
    ("calibrate-df-inf", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0.1, 0.9, N),
                                                        df=np.inf), V, "df must be a positive"),
    ("calibrate-df-text", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0.1, 0.9, N),
                                                         df="6"), V, "df must be a positive"),
    ("calibrate-df-huge", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0.1, 0.9, N),
                                                         df=1e300), V, r"at most R's largest"),
    ("calibrate-knots-nan", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0.1, 0.9, N),
                                                           knots=[0.5, np.nan]), V,
     "knots must be finite"),
    ("calibrate-knots-text", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0.1, 0.9, N),
                                                            knots="x"), V, "knots must be numbers"),
    # xlim a dict: matplotlib's unpacking error; ax not an Axes: "'str' object has no
    # attribute 'set_xlim'"
    ("calibrate-xlim-dict", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0.1, 0.9, N),
                                                           xlim={"a": 1}), V, "xlim must be"),
    ("calibrate-ylim-nan", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0.1, 0.9, N),
                                                          ylim=[0, np.nan]), V, "ylim must be"),
    ("calibrate-ax-text", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0.1, 0.9, N),
                                                         ax="left"), T, "ax must be"),
    ("basehaz-delta", lambda E: pygbm.basehaz_gbm(E.d.t, E.d.s * 2, E.d.x1), V, "delta"),
    ("basehaz-nan", lambda E: pygbm.basehaz_gbm(E.d.t.where(E.d.x1 > 0), E.d.s, E.d.x1), V,
     "t"),
    ("basehaz-length", lambda E: pygbm.basehaz_gbm(E.d.t[:5], E.d.s, E.d.x1), V,
     "same length"),
    # smooth/cumulative were used as truth values: a DataFrame raised pandas' "truth value
    # is ambiguous", a string or a number was taken as True
    ("basehaz-smooth-text", lambda E: pygbm.basehaz_gbm(E.d.t, E.d.s, E.d.x1, smooth="no"), T,
     "smooth must be True or False"),
    ("basehaz-cumulative-frame", lambda E: pygbm.basehaz_gbm(E.d.t, E.d.s, E.d.x1,
                                                             cumulative=E.d), T,
     "cumulative must be True or False"),
    # type an array or a DataFrame: NumPy's or pandas' truth-value error
    ("surv-type-frame", lambda E: pygbm.Surv(E.d.t, E.d.s, type=pd.DataFrame()), V,
     "Surv\\(\\): type=.* is not supported"),
    ("surv-type-array", lambda E: pygbm.Surv(E.d.t, E.d.s, type=np.array(["right", "left"])), V,
     "type="),
    # ranking measures
    ("ir-ndcg-length", lambda E: pygbm.ir_measure_ndcg([1, 0], [0.1]), Exception, ""),
    # a scalar group said IndexError: tuple index out of range
    ("ir-group-scalar", lambda E: pygbm.ir_measure_ndcg([1, 0], [0.1, 0.2], group=3), V,
     r"group must have one value per row \(2\); got shape \(\)"),
    # max_rank: inf or 1e300 raised OverflowError, NaN or text int()'s ValueError; ignored
    # unchecked by the measures that do not use it (as R, which ignores it there)
    ("ir-max_rank-inf", lambda E: pygbm.ir_measure_ndcg([1, 0], [0.1, 0.2], max_rank=np.inf), V,
     "max_rank must be a whole number"),
    ("ir-max_rank-nan", lambda E: pygbm.ir_measure_mrr([1, 0], [0.1, 0.2], max_rank=np.nan), V,
     "max_rank must be a whole number"),
    ("ir-max_rank-text-auc", lambda E: pygbm.ir_measure_auc([1, 0], [0.1, 0.2], max_rank="x"), V,
     "max_rank must be a whole number"),
    ("perf-pairwise-max_rank-text", lambda E: pygbm.perf_pairwise(
        E.d.b, E.d.y, np.repeat([1, 2], N // 2), max_rank="x"), V, "max_rank must be"),
    # a scalar f: IndexError; w of another length: pandas' "Grouper and axis must be same length"
    ("perf-pairwise-f-scalar", lambda E: pygbm.perf_pairwise(E.d.b, 0.5, np.repeat([1, 2], N // 2)),
     V, "f must be one score per row"),
    ("perf-pairwise-w-length", lambda E: pygbm.perf_pairwise(
        E.d.b, E.d.y, np.repeat([1, 2], N // 2), w=np.ones(3)), V, r"w must be one number per row"),
    ("perf-pairwise-w-text", lambda E: pygbm.perf_pairwise(
        E.d.b, E.d.y, np.repeat([1, 2], N // 2), w="x"), V, r"w must be numbers"),
    # calibrate (Platt / isotonic of a fit)
    ("calibrate-fit-not-fit", lambda E: pygbm.calibrate("fit", E.d), Exception, "fit"),
    ("calibrate-monotone", lambda E: pygbm.calibrate(E.bfit, E.d, monotone="yes"), T,
     "monotone"),
    ("calibration-report-text", lambda E: pygbm.calibration_report("x", "y"), V, "y must be"),
    ("calibrate-n_trees-list", lambda E: pygbm.calibrate(E.bfit, E.d, n_trees=[5, 10]), V,
     "one whole number"),
    # the calibration map's exported pieces: AttributeError ('list' object has no attribute
    # 'shape'), IndexError on y of another length, numpy's "number sections must be larger
    # than 0", a bins of 2.5 silently truncated to 2, float()'s error on text phi
    ("equal-count-bins-list", lambda E: pygbm.calibration.equal_count_bins([0.3, 0.1], 2)
     and None, None, None),
    ("equal-count-bins-empty", lambda E: pygbm.calibration.equal_count_bins([], 2), V,
     "p must be a non-empty 1-d array"),
    ("equal-count-bins-bins-0", lambda E: pygbm.calibration.equal_count_bins([0.3, 0.1], 0), V,
     "bins must be a whole number >= 1"),
    ("equal-count-bins-bins-fraction", lambda E: pygbm.calibration.equal_count_bins(
        [0.3, 0.1], 2.5), V, "bins must be a whole number"),
    ("control-points-y-length", lambda E: pygbm.calibration.control_points(
        np.linspace(0, 1, 10), np.ones(7), np.ones(10), 2), V,
     r"y must be one number per row of phi \(10\)"),
    ("control-points-w-none", lambda E: pygbm.calibration.control_points(
        np.linspace(0, 1, 10), np.ones(10), None, 2), V, "w must be numbers"),
    ("control-points-monotone", lambda E: pygbm.calibration.control_points(
        np.linspace(0, 1, 10), np.ones(10), np.ones(10), 2, monotone="yes"), T, "monotone"),
    ("calibrate-values-text", lambda E: pygbm.calibrate(E.bfit, E.d, n_trees=5)
     .calibrate_values("x"), V, "phi must be numbers"),
    # ordered boosting, QWYC, cost trade-off
    ("ordered-fold-above-rows", lambda E: g(E, boosting_type="ordered", min_fold_size=10**6),
     V, "min_fold_size"),
    ("qwyc-margin-unused", lambda E: pygbm.qwyc(E.bfit, E.d, margin=2.0), V, "margin"),
    ("qwyc-margin-text", lambda E: pygbm.qwyc(E.bfit, E.d, thresholds="margin", margin="x"), V,
     "margin"),
    ("qwyc-tradeoff-no-alphas", lambda E: pygbm.qwyc_tradeoff(E.bfit, E.d, E.d, alphas=[]),
     V, "alphas is empty"),
    ("qwyc-tradeoff-alpha-one", lambda E: pygbm.qwyc_tradeoff(E.bfit, E.d, E.d, alphas=[1]),
     V, r"alphas\[0\] must be a number in \[0, 1\), got 1$"),
    ("qwyc-tradeoff-alpha-nan", lambda E: pygbm.qwyc_tradeoff(E.bfit, E.d, E.d,
                                                              alphas=[0.01, float("nan")]),
     V, r"alphas\[1\] must be a number in \[0, 1\), got nan$"),
    # plot_it was a truth value (a DataFrame: pandas' error; "no": a plot)
    ("qwyc-tradeoff-plot_it", lambda E: pygbm.qwyc_tradeoff(E.bfit, E.d, E.d, alphas=[0.01],
                                                            plot_it=E.d), T,
     "plot_it must be True or False"),
    # ax was ignored unchecked with plot_it=False; newdata=None measured on the fit's
    # training rows, though newdata is required
    ("qwyc-tradeoff-ax", lambda E: pygbm.qwyc_tradeoff(E.bfit, E.d, E.d, alphas=[0.01], ax="left"),
     T, "ax must be a matplotlib Axes"),
    ("qwyc-tradeoff-newdata-none", lambda E: pygbm.qwyc_tradeoff(E.bfit, E.d, None,
                                                                 alphas=[0.01]), V,
     "newdata is required"),
    # methods=None said "'NoneType' object is not iterable"
    ("qwyc-tradeoff-methods-none", lambda E: pygbm.qwyc_tradeoff(E.bfit, E.d, E.d, alphas=[0.01],
                                                                 methods=None), V,
     "methods must be a non-empty list"),
    ("qwyc-tradeoff-methods-frame", lambda E: pygbm.qwyc_tradeoff(
        E.bfit, E.d, E.d, alphas=[0.01], methods=pd.DataFrame()), V, "methods must be"),
    ("cost-tradeoff-empty", lambda E: pygbm.cost_tradeoff([], E.d), V, "fits"),
    ("cost-tradeoff-text", lambda E: pygbm.cost_tradeoff("fit", E.d), T,
     "fits must be a fitted model with costs, or a list or dict of them, got str"),
    ("cost-tradeoff-not-fit", lambda E: pygbm.cost_tradeoff(["x"], E.d), T, r"fits\[0\]"),
    # the toolbox given something that is not a fit
    ("influence-not-fit", lambda E: pygbm.relative_influence("fit"), T, "fitted gbm"),
    ("permutation-influence-not-fit", lambda E: pygbm.permutation_influence(E.d), T,
     "fitted gbm"),
    ("summary-not-fit", lambda E: pygbm.summary(None, plot_it=False), T, "fitted gbm"),
    ("plot-gbm-not-fit", lambda E: pygbm.plot_gbm("fit"), T, "fitted gbm"),
    # a summary of a fit has n_trees and distribution too: it passed for a fit and
    # ended in an AttributeError ('InfluenceSummary' object has no attribute ...)
    ("gbm-perf-summary-not-fit", lambda E: pygbm.gbm_perf(
        pygbm.summary(E.fit, plot_it=False), plot_it=False), T, "fitted gbm.*InfluenceSummary"),
    ("plot-gbm-summary-not-fit", lambda E: pygbm.plot_gbm(
        pygbm.summary(E.fit, plot_it=False), return_grid=True), T, "fitted gbm"),
    ("influence-summary-not-fit", lambda E: pygbm.relative_influence(
        pygbm.summary(E.fit, plot_it=False)), T, "fitted gbm"),
    # a choice given as an array or a Series: refused by name, not compared element-wise
    ("gbm-boosting_type-series", lambda E: g(E, boosting_type=pd.Series(["plain"])), V,
     "boosting_type must be one of 'plain', 'ordered'"),
    ("gbm-engine-series", lambda E: g(E, engine=pd.Series(["numpy"])), V, "engine must be"),
    ("predict-type-series", lambda E: E.fit.predict(E.d, n_trees=5, type=pd.Series(["link"])), V,
     "type must be one of"),
    ("qwyc-mode-series", lambda E: pygbm.qwyc(E.bfit, E.d, mode=pd.Series(["both"])), V,
     "mode must be one of"),
    ("qwyc-thresholds-array", lambda E: pygbm.qwyc(E.bfit, E.d, thresholds=np.array(["rate"])),
     V, "thresholds must be one of"),
    ("qwyc-random_state-negative", lambda E: pygbm.qwyc(E.bfit, E.d, order="random",
                                                        random_state=-1), V, "random_state"),
    ("calibrate-ends-series", lambda E: pygbm.calibrate(E.bfit, E.d, ends=pd.Series(["flat"])), V,
     "ends must be one of 'flat', 'langford'"),
    ("calibrate-y-scalar", lambda E: pygbm.calibrate(E.bfit, E.d, y=True), V,
     r"y must be one response per row of data, got shape \(\)"),
    ("calibration-report-distribution-series", lambda E: pygbm.calibration_report(
        E.d.b, np.full(N, 0.5), distribution=pd.Series(["bernoulli"])), V,
     "distribution must be one of"),
    ("qwyc-tradeoff-honest-series", lambda E: pygbm.qwyc_tradeoff(
        E.bfit, E.d, E.d, alphas=[0.01], honest=pd.Series([True])), V, "honest must be"),
    ("cost-tradeoff-y-scalar", lambda E: pygbm.cost_tradeoff(
        g(E, feature_costs={"x1": 1.0}), E.d, y=True), V,
     r"y must be one response per row of newdata, got shape \(\)"),
    ("cost-tradeoff-n_trees-inf", lambda E: pygbm.cost_tradeoff(
        g(E, feature_costs={"x1": 1.0}), E.d, n_trees=np.inf), V,
     "n_trees must be a whole number"),
    ("summary-method-series", lambda E: pygbm.summary(E.fit, method=pd.Series(["permutation"]),
                                                      plot_it=False), V, "method must be one of"),
    ("perf-pairwise-metric-array", lambda E: pygbm.perf_pairwise(
        E.d.b, E.d.y, np.repeat([1, 2], N // 2), metric=np.array(["ndcg"])), V,
     "metric must be one of"),
    # R's plotting functions: their settings named, not matplotlib's or pandas' errors
    ("gbm-perf-plot_it-series", lambda E: pygbm.gbm_perf(E.fit, plot_it=pd.Series([True])), T,
     "plot_it must be True or False"),
    ("gbm-perf-ax-empty", lambda E: pygbm.gbm_perf(E.fit, method="OOB", ax=[]), V,
     "ax must be .*empty list"),
    ("calibrate-plot-y-words", lambda E: pygbm.calibrate_plot(["a"] * N, np.full(N, 0.5)), V,
     "y must be numbers"),
    ("calibrate-plot-replace", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0.1, 0.9, N),
                                                              replace="yes"), T, "replace"),
    ("calibrate-plot-line_par", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0.1, 0.9, N),
                                                               line_par="red"), T, "line_par"),
    # an unknown line setting: matplotlib's AttributeError from ax.plot; rug_par's other
    # settings and any shade_density (text, a list) were silently ignored
    ("calibrate-plot-line_par-unknown", lambda E: pygbm.calibrate_plot(
        E.d.b, np.linspace(0.1, 0.9, N), line_par={"colour": "red"}), V,
     "line_par must hold matplotlib line settings"),
    ("calibrate-plot-line_par-col-ok", lambda E: pygbm.calibrate_plot(
        E.d.b, np.linspace(0.1, 0.9, N), line_par={"col": "red", "lw": 2}) and None, None, None),
    ("calibrate-plot-rug_par-unknown", lambda E: pygbm.calibrate_plot(
        E.d.b, np.linspace(0.1, 0.9, N), rug_par={"col": "red"}), V,
     r"rug_par takes only 'side'"),
    ("calibrate-plot-shade_density", lambda E: pygbm.calibrate_plot(
        E.d.b, np.linspace(0.1, 0.9, N), shade_density="dense"), V, "shade_density must be"),
    ("calibrate-plot-rug-side", lambda E: pygbm.calibrate_plot(
        E.d.b, np.linspace(0.1, 0.9, N), rug_par={"side": 2}), V, r"rug_par\['side'\] must be 1"),
    ("calibrate-plot-shade_col", lambda E: pygbm.calibrate_plot(E.d.b, np.linspace(0.1, 0.9, N),
                                                                shade_col="no-such"), V,
     "shade_col must be a matplotlib colour"),
    # the plotting helpers given something else than the table or fit they draw:
    # AttributeError ('str' object has no attribute 'columns' / 'groupby' / 'knots_x' /
    # 'train_error'), pandas' KeyError, matplotlib's errors on best
    ("plot-pd-frame-text", lambda E: pygbm.plotting.plot_partial_dependence("grid"), T,
     "frame must be the DataFrame partial_dependence"),
    ("plot-pd-frame-no-y", lambda E: pygbm.plotting.plot_partial_dependence(
        pd.DataFrame({"a": [1.0]})), V, r"frame must be .* lacks \['y'\]"),
    ("plot-ice-frame-none", lambda E: pygbm.plotting.plot_ice(None), T, "frame must be"),
    ("plot-cost-tradeoff-table", lambda E: pygbm.plot_cost_tradeoff(pd.DataFrame()), V,
     "table must be the DataFrame cost_tradeoff"),
    ("plot-qwyc-tradeoff-table", lambda E: pygbm.plotting.plot_qwyc_tradeoff([1, 2]), T,
     "table must be the DataFrame qwyc_tradeoff"),
    ("plot-qwyc-tradeoff-accuracy", lambda E: pygbm.plotting.plot_qwyc_tradeoff(
        pd.DataFrame(), accuracy=pd.DataFrame()), T, "accuracy must be True or False"),
    ("plot-reliability-not-calibrated", lambda E: pygbm.plotting.plot_reliability(E.fit), T,
     "calibrated must be a CalibratedGBM"),
    ("plot-perf-not-fit", lambda E: pygbm.plotting.plot_perf("fit", 3, "OOB"), T, "fitted gbm"),
    ("plot-perf-best-none", lambda E: pygbm.plotting.plot_perf(E.fit, None, "OOB"), T, "best"),
    ("plot-perf-best-above", lambda E: pygbm.plotting.plot_perf(E.fit, 10**6, "OOB"), V, "best"),
    ("plot-perf-method", lambda E: pygbm.plotting.plot_perf(E.fit, 3, "best"), V, "method"),
    ("plot-perf-overlay", lambda E: pygbm.plotting.plot_perf(E.fit, 3, "OOB", overlay="no"), T,
     "overlay must be True or False"),
    ("partial-dependence-not-fit", lambda E: pygbm.partial_dependence([1], 0), T, "fitted gbm"),
    ("interact-not-fit", lambda E: pygbm.interact_gbm("fit", E.d, [0, 1]), T, "fitted gbm"),
    ("pretty-not-fit", lambda E: pygbm.pretty_gbm_tree("fit"), T, "fitted gbm"),
    ("perf-not-fit", lambda E: pygbm.gbm_perf("fit", plot_it=False), T, "fitted gbm"),
    # pairwise max_rank text: int()'s "invalid literal for int() with base 10: 'x'"; NaN
    # "cannot convert float NaN to integer"; inf an OverflowError
    ("gbm-pairwise-max_rank-text", lambda E: g(E, formula="b ~ x1", distribution={
        "name": "pairwise", "group": "c", "metric": "ndcg", "max_rank": "x"}), V,
     r"max_rank must be a whole number >= 0 \(0: no cut-off\); got 'x'"),
    ("gbm-pairwise-max_rank-inf", lambda E: g(E, formula="b ~ x1", distribution={
        "name": "pairwise", "group": "c", "metric": "ndcg", "max_rank": np.inf}), V,
     "max_rank must be a whole number"),
    # R's .Random.seed as text: int()'s message; fractions were truncated and words
    # beyond 32 bits wrapped without a word; a scalar raised IndexError
    ("rrandom-from_random_seed-text", lambda E: pygbm.RRandom.from_random_seed("x"), T,
     r"values must be R's .Random.seed .*got 'x'"),
    ("rrandom-from_random_seed-scalar", lambda E: pygbm.RRandom.from_random_seed(3), V,
     r"values must be R's .Random.seed .*got 3$"),
    ("rrandom-from_random_seed-fraction", lambda E: pygbm.RRandom.from_random_seed(
        np.r_[pygbm.RRandom(1).random_seed[:-1], 1.5]), V,
     r"1 value\(s\) that are not 32-bit integers, such as 1.5"),
    ("rrandom-from_random_seed-too-big", lambda E: pygbm.RRandom.from_random_seed(
        np.r_[pygbm.RRandom(1).random_seed[:-1], 2.0 ** 40]), V, "not 32-bit integers"),
    # zero rows: "variable 1: x1 has only missing values."
    ("gbm_fit-x-zero-rows", lambda E: gf(E, x=E.x.iloc[:0], y=[]), V,
     r"x \(the predictors\) has 0 rows; gbm needs at least 2"),
    # a status other than 0/1 was fitted as a number (R's gbm.fit takes Surv(), 0/1)
    ("gbm_fit-misc-two", lambda E: gf(E, y=E.d.t, distribution="coxph", misc=np.full(N, 2)), V,
     r"misc \(the event status\) must be 0 \(censored\) or 1 \(event\), got 1 other "
     r"value\(s\) such as \[2.0\]"),
    ("gbm_fit-misc-nan", lambda E: gf(E, y=E.d.t, distribution="coxph",
                                      misc=np.r_[np.nan, E.d.s[1:]]), V,
     r"misc \(the event status\) must be 0 .*\[nan\]"),
    # a missing group: None raised NumPy's "'<' not supported"; NaN was a group of its own
    ("gbm_fit-group-none", lambda E: gf(E, y=E.d.b, distribution={"name": "pairwise"},
                                        group=np.r_[[None] * 10, np.arange(N - 10) // 10]), V,
     r"group must not have missing values \(None or NaN\); got 10 of 120"),
    ("gbm_fit-group-nan", lambda E: gf(E, y=E.d.b, distribution={"name": "pairwise"},
                                       group=np.r_[[np.nan] * 10, np.arange(N - 10) // 10]), V,
     "group must not have missing values"),
    ("ir-group-none", lambda E: pygbm.ir_measure_ndcg([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4],
                                                      group=[1, 1, None, None]), V,
     r"group must not have missing values \(None or NaN\); got 2 of 4"),
    ("ir-group-nan", lambda E: pygbm.ir_measure_auc([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4],
                                                    group=[1, 1, np.nan, 2]), V,
     "group must not have missing values"),
    # negative case weights: NumPy's ZeroDivisionError ("Weights sum to zero")
    ("perf-pairwise-w-negative", lambda E: pygbm.perf_pairwise(
        [1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], [1, 1, 2, 2], w=[-1, -1, 1, 1]), V,
     r"w must be >= 0 and not all zero, got 2 negative value\(s\)"),
    ("perf-pairwise-w-zero-where-defined", lambda E: pygbm.perf_pairwise(
        [1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4], [1, 1, 2, 2], w=[0, 0, 1, 1]), V,
     r"w must give weight to some group where ndcg is defined"),
    # zero rows: a table of NaN deviances and costs, with NumPy's "invalid value" warnings
    ("cost-tradeoff-newdata-no-rows", lambda E: pygbm.cost_tradeoff(
        g(E, feature_costs={"x1": 1.0}), E.d.iloc[:0]), V, "newdata must have at least 1 row"),
    # a predictor column twice: "formula term 'x1' gives 2 columns ... poly() or bs()"
    ("predict-newdata-duplicated-column", lambda E: E.fit.predict(
        pd.concat([E.d, E.d[["x1"]]], axis=1), n_trees=5), V,
     r"newdata has duplicated column names: \['x1'\]"),
    # columns 1 and "1" are one name in a formula: "has no predictors" for y ~ `1`, and
    # "formula term '1' gives 2 columns ... poly() or bs()" for y ~ .
    ("gbm-data-int-and-str-column-same-name", lambda E: g(
        E, formula="y ~ `1`", data=E.d.assign(**{"1": E.d.x1}).rename(columns={"x2": 1})), V,
     r"data has duplicated column names: \['1'\]"),
    ("gbm-data-int-and-str-column-same-name-dot", lambda E: g(
        E, formula="y ~ .", data=E.d.assign(**{"1": E.d.x1}).rename(columns={"x2": 1})), V,
     r"data has duplicated column names: \['1'\]"),
    # a weights column of text: the message said neither the column nor its type
    ("gbm-weights-column-categorical", lambda E: g(E, weights="c"), T,
     r"weights must be numeric .*got column 'c' of dtype category"),
    # R: "'weights' must be a numeric vector"; these were read as numbers without a word:
    # dates as nanoseconds since 1970, a Categorical of numbers by its labels, text "1" as
    # 1, complex numbers with NumPy's "Casting complex values to real" warning
    ("gbm-weights-dates", lambda E: g(E, weights=pd.Series(pd.date_range("2020", periods=N))),
     T, r"weights must be numeric .*got Series of dtype datetime64"),
    ("gbm-weights-durations", lambda E: g(E, weights=E.d.t * pd.Timedelta("1D")), T,
     r"weights must be numeric .*got Series of dtype timedelta64"),
    ("gbm-weights-column-categorical-of-numbers", lambda E: g(
        E, weights="w", data=E.d.assign(w=pd.Categorical(E.d.k + 1))), T,
     r"weights must be numeric .*got column 'w' of dtype category"),
    ("gbm-weights-text-numbers", lambda E: g(E, weights=["1"] * N), T,
     r"weights must be numeric .*got list of dtype"),
    ("gbm-weights-complex", lambda E: g(E, weights=np.ones(N) * (1 + 0j)), T,
     r"weights must be numeric .*got ndarray of dtype complex128"),
    # an offset() of dates or durations failed in the fit with "math domain error"; of a
    # Categorical of numbers, text "1" or complex numbers it was read as numbers
    ("gbm-offset-dates", lambda E: g(E, formula="k ~ x1 + offset(z)", distribution="poisson",
                                     data=E.d.assign(z=pd.date_range("2020", periods=N))), T,
     r"formula term 'offset\(z\)': column 'z' must be numeric, got dtype datetime64"),
    ("gbm-offset-durations", lambda E: g(E, formula="k ~ x1 + offset(z)", distribution="poisson",
                                         data=E.d.assign(z=E.d.t * pd.Timedelta("1s"))), T,
     r"formula term 'offset\(z\)': column 'z' must be numeric, got dtype timedelta64"),
    ("gbm-offset-categorical-of-numbers", lambda E: g(
        E, formula="k ~ x1 + offset(z)", distribution="poisson",
        data=E.d.assign(z=pd.Categorical(E.d.k + 1))), T,
     r"formula term 'offset\(z\)': column 'z' must be numeric, got dtype category"),
    ("gbm-offset-text-numbers", lambda E: g(E, formula="k ~ x1 + offset(I(z))",
                                            distribution="poisson", data=E.d.assign(z="1")), T,
     r"formula term 'offset\(I\(z\)\)': offset\(\) must be numbers, got dtype"),
    ("gbm-offset-complex", lambda E: g(E, formula="k ~ x1 + offset(z)", distribution="poisson",
                                       data=E.d.assign(z=np.ones(N) * (1 + 0j))), T,
     r"column 'z' must be numeric, got dtype complex128"),
    ("gbm-weights-ragged", lambda E: g(E, weights=[[1.0], [1.0, 2.0]]), T,
     r"weights must be numeric .*got list of dtype object"),
    # y all missing: NumPy's "zero-size array to reduction operation minimum"; an
    # infinite y was dropped as if missing (R's glm refuses it)
    ("calibrate-plot-y-all-missing", lambda E: pygbm.calibrate_plot(
        np.full(N, np.nan), np.linspace(0.1, 0.9, N)), V, r"y has only missing values \(120 NaN\)"),
    ("calibrate-plot-y-inf", lambda E: pygbm.calibrate_plot(
        np.r_[np.inf, E.d.b[1:]], np.linspace(0.1, 0.9, N)), V,
     r"y must be finite numbers or missing \(NaN, left out\), got 1 infinite"),
    # one y left: "p must take at least two distinct values" though p had 120
    ("calibrate-plot-one-y-left", lambda E: pygbm.calibrate_plot(
        np.r_[1.0, np.full(N - 1, np.nan)], np.linspace(0.1, 0.9, N)), V,
     r"p must take at least two distinct values on the 1 row\(s\) where y is not missing"),
    # weight only on the validation rows: ZeroDivisionError in the initial value (R: 0/0)
    ("gbm-weights-zero-on-training-rows", lambda E: g(
        E, train_fraction=0.5, weights=np.r_[np.zeros(N // 2), np.ones(N // 2)]), V,
     r"weights must give some training row weight: all 60 training rows .* have weight 0"),
    # formulaic's Q("name"): "'data' does not correspond to a named layer" even for a
    # column the data has; a missing one is now named as any other
    ("gbm-formula-Q-unknown-col", lambda E: g(E, formula='y ~ Q("x 9")'), V,
     r"formula uses column not in data: 'x 9'"),
    ("predict-formula-Q-missing-col", lambda E: g(
        E, formula='y ~ Q("x 1") + x2', data=E.d.rename(columns={"x1": "x 1"})).predict(
        E.d, n_trees=5), V, r"formula uses column not in newdata: 'x 1'"),
    # a number as the group column: "'int' object is not iterable"
    ("gbm-pairwise-group-number", lambda E: g(E, formula="b ~ x1", distribution={
        "name": "pairwise", "group": 3}), T,
     r"the pairwise 'group' must be a column name or a list of column names; got 3"),
    # a missing value among bools, words or objects: "3 distinct values" (NA counted as a
    # class) or "needs a numeric response"
    ("gbm_fit-y-boolean-na", lambda E: gf(E, y=pd.array([None] + [True, False] * (N // 2 - 1)
                                                        + [True], dtype="boolean"),
                                          distribution="bernoulli"), V,
     r"y has 1 missing values; gbm does not allow missing values in the response"),
    ("gbm_fit-y-object-none", lambda E: gf(E, y=[None] + E.d.y[1:].tolist()), V,
     r"y has 1 missing values"),
    # a coded matrix with a code no level has: H silently NaN (7, -1) or a number (1.5)
    ("interact-coded-matrix-bad-code", lambda E: pygbm.interact_gbm(
        E.fit, np.c_[E.fit.data.x[:, :2], np.r_[7.0, E.fit.data.x[1:, 2]]], [0, 2]), V,
     r"data: column 'c' of the coded matrix must hold the level codes 0..2 \(or NaN; 3: a "
     r"level the fit never saw\), got "
     r"1 other value\(s\) such as 7.0"),
    ("interact-coded-matrix-fraction", lambda E: pygbm.interact_gbm(
        E.fit, np.c_[E.fit.data.x[:, :2], np.full(N, 1.5)], [0, 2]), V,
     "coded matrix must hold the level codes"),
    # a predictor column twice: the last one was read without a word
    ("interact-data-duplicated-column", lambda E: pygbm.interact_gbm(
        E.fit, pd.concat([E.d, E.d[["x1"]]], axis=1), [0, 1]), V,
     r"data has duplicated column names: \['x1'\]"),
    ("gbm_more-n_new_trees-beyond-int64", lambda E: pygbm.gbm_more(E.fit, 10 ** 20), V,
     r"n_new_trees must be between 1 and 2147483647, got 100000000000000000000"),
    ("calibrate-plot-df-beyond-int64", lambda E: pygbm.calibrate_plot(
        E.d.b, np.linspace(0.1, 0.9, N), df=10 ** 20), V, r"df must be a positive integer"),
    # RRandom's draws: "must be real number, not str" (Python's float()); replace a Series
    # or NA: pandas' truth-value errors; n = 10**20: an OverflowError
    ("rrandom-runif-min-text", lambda E: pygbm.RRandom(1).runif(2, "a", 2), T,
     r"RRandom.runif: min must be a number; got 'a'"),
    ("rrandom-rnorm-sd-array", lambda E: pygbm.RRandom(1).rnorm(2, 0, np.array([1, 2])), T,
     r"RRandom.rnorm: sd must be a number"),
    ("rrandom-sample_int-replace-series", lambda E: pygbm.RRandom(1).sample_int(
        5, 2, replace=pd.Series([True])), T, r"RRandom: replace must be True or False"),
    ("rrandom-sample-replace-na", lambda E: pygbm.RRandom(1).sample([1, 2, 3], 2, replace=pd.NA),
     T, r"RRandom: replace must be True or False; got <NA>"),
    ("rrandom-sample_int-n-huge", lambda E: pygbm.RRandom(1).sample_int(10 ** 20, 2), V,
     r"RRandom: n must be at most 4.5e\+15 \(R's limit\)"),
    # a categorical predictor given as numbers (its codes): all treated as unseen levels,
    # i.e. missing, with a warning (R's predict.gbm reads them as codes); interact_gbm read
    # them (and any unknown label) as missing without a word
    ("predict-codes-for-levels", lambda E: E.fit.predict(E.d.assign(c=E.d.c.cat.codes),
                                                         n_trees=5), T,
     r"column 'c' in newdata holds numbers, but 'c' was categorical in the training data "
     r"\(levels \['a', 'b', 'c'\]\): give its level labels"),
    ("interact-codes-for-levels", lambda E: pygbm.interact_gbm(
        E.fit, E.d.assign(c=E.d.c.cat.codes), ["x1", "c"]), T,
     r"column 'c' in data holds numbers, but 'c' was categorical"),
    # a column name as y (weights= takes one, y= does not): "got shape ()"
    ("calibrate-y-column-name", lambda E: pygbm.calibrate(E.bfit, E.d, y="b"), V,
     r"y must be one response per row of data, got the single value 'b'; a name is not "
     r"looked up in data"),
    # a weights column name with array data: "data must be a pandas DataFrame, got ndarray",
    # though calibrate takes an array for a gbm_fit model
    ("calibrate-weights-name-array-data", lambda E: pygbm.calibrate(
        E.ffit, E.x.to_numpy(), y=E.d.y, weights="w"), T,
     r"weights='w' names a column of data, but data is a ndarray, without column names"),
    # an infinite response named by its term ("gaussian: the response y has 48 infinite
    # value(s)" named a y the formula does not have)
    ("gbm-response-term-infinite", lambda E: g(E, formula="np.log(k) ~ x1",
                                               data=E.d.assign(k=np.r_[0, E.d.k[1:] + 1])), V,
     r"the response np.log\(k\) has 1 infinite value\(s\)"),
    # Surv(None): a response of one missing time (R: "Time variable is not numeric")
    ("surv-time-none", lambda E: pygbm.Surv(None), T, r"Surv\(\): `time` must be a numeric "
     r"vector, got None"),
    ("gbm_fit-w-zero-on-training-rows", lambda E: gf(
        E, n_train=N // 2, w=np.r_[np.zeros(N // 2), np.ones(N // 2)]), V,
     "^w must give some training row weight"),     # gbm_fit's name for the weights
    # --- found by an audit (2026-11-28)
    # validation rows of weight 0: a fit whose print, predict and gbm_perf then failed
    # ("valid_error has no finite values") without naming the weights
    ("gbm-w-zero-on-validation-rows", lambda E: g(
        E, train_fraction=0.5, weights=np.r_[np.ones(N // 2), np.zeros(N // 2)]), V,
     r"weights must give some validation row weight: all 60 validation rows \(after the "
     r"first 60 rows, see train_fraction\) have weight 0"),
    # a cv fold of weight 0: NumPy's "All-NaN slice encountered" (nanargmin)
    ("gbm-cv-fold-of-zero-weight", lambda E: g(
        E, cv_folds=3, n_cores=1, fold_id=np.arange(N) % 3 + 1,
        weights=(np.arange(N) % 3 != 0).astype(float)), V,
     r"weights: every row of cv fold 1 \(40 rows\) has weight 0, so the fold's cv error"),
    # gbm_fit fitted dates as nanoseconds, complex numbers as their real part (gbm()
    # refused both)
    ("gbm_fit-y-datetime", lambda E: gf(E, y=pd.Series(pd.date_range("2020", periods=N))),
     T, r"the response 'y' has dtype datetime64.*convert dates/times to numbers"),
    ("gbm_fit-y-complex", lambda E: gf(E, y=E.d.y * (1 + 1j)), T,
     r"the response 'y' has dtype complex128, which gbm cannot use"),
    # misc beside a Surv y was ignored without a word
    ("gbm_fit-misc-with-surv", lambda E: gf(E, y=pygbm.Surv(E.d.t, E.d.s), misc=1 - E.d.s,
                                            distribution="coxph"), V,
     r"misc \(the event status\) was given with a Surv response y"),
    # formulaic's bs() gives a dict of columns: "gives a single value, not one per row"
    ("gbm-term-bs-several-columns", lambda E: g(E, formula="y ~ bs(x1, df=3) + x2"), V,
     r"formula term 'bs\(x1, df = 3\)' gives 3 columns; gbm needs exactly one column"),
    # MultiIndex columns: a missing-column error listing every column for every name
    ("gbm-data-multiindex-columns", lambda E: g(E, data=pd.concat({"a": E.d}, axis=1)), V,
     r"data has MultiIndex columns \(2 levels, such as \('a', 'x1'\)\)"),
    ("predict-newdata-multiindex-columns", lambda E: E.fit.predict(
        pd.concat({"a": E.d}, axis=1), n_trees=5), V, r"newdata has MultiIndex columns"),
    # a column whose name a formula must quote: "similar columns: ['x2']" only
    ("gbm-formula-name-needs-backticks", lambda E: g(
        E, formula="y ~ x-1 + x2", data=E.d.rename(columns={"x1": "x-1"})), V,
     r"formula uses column not in data: 'x' \(a formula names the column 'x-1' in "
     r"backticks: `x-1`\)"),
    # a 2-d p was flattened and reported as a length mismatch "(120,) and (240,)"
    ("calibration_report-p-two-columns", lambda E: pygbm.calibration_report(
        E.d.b, np.c_[np.full(N, 0.5), np.full(N, 0.5)]), V,
     r"p must be a vector \(one number per row\), got an array of shape \(120, 2\)"),
    ("gbm_roc_area-pred-two-columns", lambda E: pygbm.gbm_roc_area(
        E.d.b, np.c_[np.full(N, 0.5), np.full(N, 0.5)]), V, r"pred must be a vector"),
    ("basehaz_gbm-t-a-surv", lambda E: pygbm.basehaz_gbm(
        pygbm.Surv(E.d.t, E.d.s), E.d.s, np.zeros(N)), V, r"t must be a vector"),
    # exp(f_x) overflowed with NumPy's warning; the hazard came out as zeros
    ("basehaz_gbm-f_x-overflows", lambda E: pygbm.basehaz_gbm(
        E.d.t, E.d.s, np.r_[1000.0, np.zeros(N - 1)]), V,
     r"f_x \(the link, a log relative risk\) reaches 1000: exp\(f_x\) overflows"),
    # margin_freq was ignored without a word by Algorithm 2's thresholds
    ("qwyc-margin_freq-without-margin-rule", lambda E: pygbm.qwyc(
        E.bfit, E.d.iloc[::-1], n_trees=10, margin_freq=3), V,
     r"margin_freq is for thresholds='margin' \(got margin_freq=3 with thresholds='qwyc'"),
    # every cv error NaN (coxph, one row per fold): NumPy's "All-NaN slice encountered"
    ("gbm-cv-every-fold-error-nan", lambda E: pygbm.gbm(
        "Surv(t, s) ~ x1", E.d.iloc[:40], distribution="coxph", n_trees=5, cv_folds=40,
        n_minobsinnode=2, n_cores=1, random_state=1), V,
     r"cv_folds=40: the cv error is NaN at every tree: the held-out rows of some fold give "
     r"no coxph deviance"),
    # an offset whose exp underflows: init_f inf, a fit of NaN with NumPy's warnings
    ("gbm-offset-init-not-finite", lambda E: g(
        E, formula="k ~ x1 + offset(o)", data=E.d.assign(o=-745.0), distribution="poisson"),
     V, r"the initial value is not finite \(inf\): the offset or the response is too "
        r"extreme for poisson's link"),
    # a negative cut-off was taken for none (the pairwise distribution refused it)
    ("ir_measure_ndcg-max_rank-negative", lambda E: pygbm.ir_measure_ndcg(
        E.d.b, np.linspace(0, 1, N), max_rank=-1), V, r"max_rank must be a whole number >= 0"),
    # --- per-row pandas Series indexed unlike the rows they describe (review D1): read by
    # position (as R), each paired values with other rows than its labels, without a word
    ("gbm-weights-series-other-order", lambda E: g(E, data=_rev(E), weights=E.d.t), V,
     r"^weights is a pandas Series whose index differs from data's index \(its labels in "
     r"another order\): pygbm reads per-row values by position, as R does; give "
     r"weights.to_numpy\(\) if they are in data's row order, or "
     r"weights.reindex\(data.index\) to align them by label$"),
    ("gbm-fold_id-series-other-order", lambda E: g(
        E, data=_rev(E), n_cores=1, fold_id=pd.Series(np.arange(N) % 3 + 1, index=E.d.index)),
     V, _misaligned("fold_id", r"data\.iloc\[:120\]")),
    ("gbm_fit-y-series-other-order", lambda E: gf(E, x=E.x.iloc[::-1]), V,
     _misaligned("y", "x")),
    ("gbm_fit-w-series-other-order", lambda E: gf(E, w=E.d.t.iloc[::-1]), V,
     _misaligned("w", "x")),
    ("gbm_fit-offset-series-other-rows", lambda E: gf(E, offset=E.d.x2.set_axis(E.d.index + N)),
     V, r"offset is a pandas Series whose index differs from x's index \(120 label\(s\) not "
        r"in it, such as 120\)"),
    ("gbm_fit-misc-series-other-order", lambda E: gf(
        E, y=E.d.t.to_numpy(), misc=E.d.s.iloc[::-1], distribution="coxph"), V,
     _misaligned("misc", "x")),
    ("gbm_fit-group-series-other-order", lambda E: gf(
        E, y=E.d.b, distribution="pairwise",
        group=pd.Series(np.arange(N) // 10, index=E.d.index[::-1])), V,
     _misaligned("group", "x")),
    ("surv-event-series-other-order", lambda E: pygbm.Surv(E.d.t, E.d.s.iloc[::-1]), V,
     _misaligned("event", "time")),
    # a Surv keeps only arrays: built from Series in another order than x's rows, it
    # paired each row with another row's time and status without a word
    ("gbm_fit-surv-series-other-order", lambda E: gf(
        E, y=pygbm.Surv(E.d.t.iloc[::-1], E.d.s.iloc[::-1]), distribution="coxph"), V,
     r"^y is a Surv response built from pandas Series whose index differs from x's index "
     r"\(its labels in another order\): pygbm reads per-row values by position, as R does; "
     r"build it from their .to_numpy\(\) if they are in x's row order, or from them "
     r"reindexed by x.index to align them by label$"),
    ("gbm_fit-surv-series-other-rows", lambda E: gf(
        E, y=pygbm.Surv(E.d.t.set_axis(E.d.index + N), E.d.s.to_numpy()), distribution="coxph"),
     V, r"^y is a Surv response built from pandas Series whose index differs from x's index "
        r"\(120 label\(s\) not in it"),
    ("gbm_more-weights-series-other-order", lambda E: pygbm.gbm_more(
        E.mfit, 5, data=E.d, weights=E.d.t.iloc[::-1]), V, _misaligned("weights", "data")),
    # refused before too, as "offset differs from the offsets the model was fitted with"
    # (gbm_more compares it with the model's own), though it held them in another order
    ("gbm_more-offset-series-other-order", lambda E: pygbm.gbm_more(
        E.mfit, 5, data=E.d, offset=E.d.x1.iloc[::-1]), V, _misaligned("offset", "data")),
    ("calibrate-y-series-other-order", lambda E: pygbm.calibrate(E.bfit, _rev(E), y=E.d.b), V,
     _misaligned("y", "data")),
    ("calibrate-weights-series-other-order", lambda E: pygbm.calibrate(
        E.bfit, _rev(E), weights=E.d.t), V, _misaligned("weights", "data")),
    ("calibrate-offset-series-other-order", lambda E: pygbm.calibrate(
        _ofit(E), E.x.iloc[::-1], y=E.d.b.iloc[::-1], offset=E.d.x2 * 0.1), V,
     _misaligned("offset", "data")),
    ("calibrated-predict-offset-series-other-order", lambda E: pygbm.calibrate(
        _ofit(E), E.x, y=E.d.b, offset=E.d.x2 * 0.1).predict(E.x.iloc[::-1],
                                                             offset=E.d.x2 * 0.1), V,
     _misaligned("offset", "newdata")),
    ("qwyc-offset-series-other-order", lambda E: pygbm.qwyc(
        _ofit(E), E.x.iloc[::-1], offset=E.d.x2 * 0.1), V, _misaligned("offset", "data")),
    ("qwyc-predict-offset-series-other-order", lambda E: pygbm.qwyc(
        _ofit(E), E.x, offset=E.d.x2 * 0.1).predict(E.x.iloc[::-1], offset=E.d.x2 * 0.1), V,
     _misaligned("offset", "newdata")),
    ("cost_tradeoff-y-series-other-order", lambda E: pygbm.cost_tradeoff(
        g(E, feature_costs={"x1": 1.0}), _rev(E), y=E.d.y), V, _misaligned("y", "newdata")),
    ("cost_tradeoff-weights-series-other-order", lambda E: pygbm.cost_tradeoff(
        g(E, feature_costs={"x1": 1.0}), _rev(E), weights=E.d.t), V,
     _misaligned("weights", "newdata")),
    ("calibration_report-y-series-other-order", lambda E: pygbm.calibration_report(
        E.d.b.iloc[::-1], pd.Series(np.linspace(0.1, 0.9, N))), V, _misaligned("y", "p")),
    ("calibration_report-weights-series-other-order", lambda E: pygbm.calibration_report(
        E.d.b, pd.Series(np.linspace(0.1, 0.9, N)), weights=E.d.t.iloc[::-1]), V,
     _misaligned("weights", "p")),
    ("control_points-y-series-other-order", lambda E: pygbm.calibration.control_points(
        pd.Series(np.linspace(0, 1, N)), E.d.b.iloc[::-1], np.ones(N), 2), V,
     _misaligned("y", "phi")),
    ("calibrate_plot-y-series-other-order", lambda E: pygbm.calibrate_plot(
        E.d.b.iloc[::-1], pd.Series(np.linspace(0.1, 0.9, N))), V, _misaligned("y", "p")),
    ("gbm_roc_area-pred-series-other-order", lambda E: pygbm.gbm_roc_area(
        E.d.b.iloc[::-1], E.d.y), V, _misaligned("pred", "obs")),
    ("basehaz_gbm-delta-series-other-order", lambda E: pygbm.basehaz_gbm(
        E.d.t, E.d.s.iloc[::-1], np.zeros(N)), V, _misaligned("delta", "t")),
    ("basehaz_gbm-f_x-series-other-order", lambda E: pygbm.basehaz_gbm(
        E.d.t, E.d.s, E.d.x1.iloc[::-1]), V, _misaligned("f_x", "t")),
    ("ir_measure_ndcg-f-series-other-order", lambda E: pygbm.ir_measure_ndcg(
        E.d.b, E.d.y.iloc[::-1]), V, _misaligned("f", "y")),
    ("ir_measure_auc-group-series-other-order", lambda E: pygbm.ir_measure_auc(
        E.d.b, E.d.y, group=pd.Series(np.arange(N) // 10, index=E.d.index[::-1])), V,
     _misaligned("group", "y")),
    ("perf_pairwise-f-series-other-order", lambda E: pygbm.perf_pairwise(
        E.d.b, E.d.y.iloc[::-1], np.arange(N) // 10), V, _misaligned("f", "y")),
    ("perf_pairwise-w-series-other-order", lambda E: pygbm.perf_pairwise(
        E.d.b, E.d.y, np.arange(N) // 10, w=E.d.t.iloc[::-1]), V, _misaligned("w", "y")),
]


@pytest.mark.parametrize("case", _CASES, ids=[c[0] for c in _CASES])
def test_catalogue(E, case):
    _, call, exc, match = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if exc is None:
            call(E)
            return
        with pytest.raises(exc, match=match) as info:
            call(E)
    # pygbm's own error, not one raised deep inside NumPy, pandas, formulaic or joblib
    origin = info.traceback[-1].path
    assert "pygbm" in str(origin), f"raised from {origin}: {info.value}"


# ----------------------------------------------------------------- documented results
def test_predict_caps_too_many_trees_with_a_warning_as_r(E):
    with pytest.warns(UserWarning, match="n_trees"):
        p = E.fit.predict(E.d, n_trees=[5, 500])
    np.testing.assert_array_equal(p[:, 1], E.fit.predict(E.d, n_trees=E.fit.n_trees))


def test_predict_caps_a_count_beyond_int64_as_r(E):
    # a Python int beyond int64 (NumPy holds it as an object) was refused as "not a whole
    # number"; R caps n.trees = 1e20 at the trees fitted, with its warning
    with pytest.warns(UserWarning, match=r"n_trees exceeded the number fit so far \(20\)"):
        p = E.fit.predict(E.d, n_trees=[5, 10 ** 20])
    np.testing.assert_array_equal(p[:, 1], E.fit.predict(E.d, n_trees=E.fit.n_trees))
    with pytest.raises(ValueError, match="n_trees must be a whole number"):
        E.fit.predict(E.d, n_trees=[5, "10"])


@pytest.mark.parametrize("tool", ["summary", "plot", "interact"])
def test_toolbox_caps_too_many_trees_with_a_warning_as_r(E, tool):
    calls = {"summary": lambda: pygbm.summary(E.fit, n_trees=500, plot_it=False),
             "plot": lambda: pygbm.plot_gbm(E.fit, 0, n_trees=500, return_grid=True),
             "interact": lambda: pygbm.interact_gbm(E.fit, E.d, [0, 1], n_trees=500)}
    with pytest.warns(UserWarning, match="n_trees"):
        calls[tool]()


def test_constant_predictors_give_the_constant_model(E):
    const = pd.DataFrame({"a": np.ones(N), "b": np.zeros(N)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = pygbm.gbm_fit(const, E.d["y"], distribution="gaussian", n_trees=5)
    p = fit.predict(const, n_trees=5)
    assert np.ptp(p) == 0                       # no split is possible: one value for all


def test_gbm_more_records_its_call(E):
    more = pygbm.gbm_more(E.fit, 5)
    assert more.call.startswith("gbm_more(") and f"{E.fit.n_trees + 5} trees" in more.call
    assert f"{E.fit.n_trees + 5} iterations were performed" in repr(more)


def test_pickle_round_trip_of_a_catalogue_fit(E):
    back = pickle.loads(pickle.dumps(E.fit))
    np.testing.assert_array_equal(back.predict(E.d, n_trees=20), E.fit.predict(E.d, n_trees=20))


def test_gbm_fit_refusals_say_the_default_distribution_only_for_bernoulli(E):
    """The note that bernoulli is gbm_fit's default was added to every refusal of a
    response, naming the distribution passed as "the default"."""
    with pytest.raises(ValueError) as info:
        gf(E, y=E.d.y.astype(str), distribution="gaussian")
    assert "default" not in str(info.value)
    with pytest.raises(ValueError, match=r"distribution='bernoulli' is gbm_fit's default, as "
                                         r"R's gbm.fit's: pass distribution="):
        gf(E, distribution="bernoulli")


def test_gbm_fit_reads_numbers_held_as_objects_as_gbm_does(E):
    ref = gf(E, random_state=1)
    fit = gf(E, y=E.d.y.astype(object), random_state=1)
    np.testing.assert_array_equal(fit.predict(E.x, n_trees=5), ref.predict(E.x, n_trees=5))


def test_interact_gbm_says_why_h_is_nan(E):
    with pytest.warns(UserWarning, match=r"H is NaN for \['x1', 'x2'\]: their joint partial "
                                         r"dependence is constant over the rows of data"):
        assert np.isnan(pygbm.interact_gbm(E.fit, E.d.iloc[:1], [0, 1]))


def test_a_diverging_fit_says_so(E):
    """coxph with shrinkage 1 on few rows per leaf: Newton steps of 1e5, a deviance
    of -inf from some iteration on (R aborts there); the fit said nothing."""
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"x1": rng.normal(size=200), "x2": rng.uniform(size=200),
                      "x3": rng.integers(0, 5, 200).astype(float)})
    d["time"] = rng.exponential(np.exp(-(d.x1 + 2 * (d.x2 > 0.5))))
    d["status"] = (rng.uniform(size=200) < 0.7).astype(int)
    with pytest.warns(UserWarning, match=r"the training deviance is not finite from "
                                         r"iteration \d+ on: the boosting diverged"):
        fit = pygbm.gbm("Surv(time, status) ~ .", d, distribution="coxph", n_trees=50,
                        interaction_depth=3, n_minobsinnode=2, shrinkage=1.0,
                        bag_fraction=1.0)
    assert not np.isfinite(fit.train_error).all()


@pytest.mark.parametrize("dist", ["gaussian", "tdist"])
def test_a_response_too_large_for_the_deviance_says_so(E, dist):
    """|y| of 1e200: the squared residuals overflow (R's train.error is Inf too).
    The trees are fine; the fit said the boosting diverged, and tdist's initial
    value gave NumPy's overflow warning."""
    d = E.d.assign(y=E.d["x1"] * 1e200)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.warns(UserWarning, match="the training deviance is infinite from the "
                                             "initial value on: it overflows"):
            fit = g(E, data=d, distribution=dist, n_trees=10)
    assert np.all(np.isfinite(fit.predict(d, n_trees=10)))


def test_the_response_scale_of_an_extreme_link_gives_no_numpy_warning(E):
    """Links of -800 and 800 (e.g. with an offset that large): probabilities 0 and
    1 and a poisson mean of inf, as R's, where NumPy warned of an overflow in exp."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        link = np.array([-800.0, 800.0])
        np.testing.assert_array_equal(E.bfit.distribution.inverse_link(link), [0.0, 1.0])
        poisson = pygbm.get_distribution("poisson")
        np.testing.assert_array_equal(poisson.inverse_link(link), [0.0, np.inf])


def test_per_row_series_of_the_tables_index_read_as_their_arrays(E):
    # the refusals of a Series indexed unlike its table (the catalogue's "other-order"
    # rows) leave the usual case alone: a Series of the table's index, shuffled rows
    # included, gives what its values as an array give (and R gives, by position)
    s = E.d.sample(frac=1, random_state=3)
    kw = dict(formula="y ~ x1 + x2", data=s, n_trees=5, bag_fraction=1.0, random_state=1)
    folds = pd.Series(np.arange(N) % 3 + 1, index=s.index)
    a = g(E, weights=s.t, fold_id=folds, n_cores=1, **kw)
    b = g(E, weights=s.t.to_numpy(), fold_id=folds.to_numpy(), n_cores=1, **kw)
    np.testing.assert_array_equal(a.fit, b.fit)
    np.testing.assert_array_equal(a.cv_error, b.cv_error)
    x = s[["x1", "x2"]]
    a = gf(E, x=x, y=s.y, w=s.t, offset=s.x2 * 0.1, bag_fraction=1.0)
    b = gf(E, x=x, y=s.y.to_numpy(), w=s.t.to_numpy(), offset=(s.x2 * 0.1).to_numpy(),
           bag_fraction=1.0)
    np.testing.assert_array_equal(a.fit, b.fit)
    a = gf(E, x=x, y=pygbm.Surv(s.t, s.s), distribution="coxph", bag_fraction=1.0)
    b = gf(E, x=x, y=pygbm.Surv(s.t.to_numpy(), s.s.to_numpy()), distribution="coxph",
           bag_fraction=1.0)
    np.testing.assert_array_equal(a.fit, b.fit)
    # a RangeIndex and an index of the same labels 0..n-1 are the same index
    gf(E, x=E.x.set_axis(np.arange(N)), y=pd.Series(E.d.y.to_numpy()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # calibrated on the training rows, few per bin
        a = pygbm.calibrate(E.bfit, s, y=s.b, weights=s.t, bins=5)
        b = pygbm.calibrate(E.bfit, s, y=s.b.to_numpy(), weights=s.t.to_numpy(), bins=5)
    np.testing.assert_array_equal(a.predict(E.d), b.predict(E.d))
    assert pygbm.gbm_roc_area(s.b, s.y) == pygbm.gbm_roc_area(s.b.to_numpy(), s.y) == 1.0
    # an array table has no index to compare: a Series beside it is read by position
    np.testing.assert_array_equal(
        gf(E, x=E.x.to_numpy(), y=E.d.y.iloc[::-1], bag_fraction=1.0).fit,
        gf(E, x=E.x.to_numpy(), y=E.d.y.to_numpy()[::-1], bag_fraction=1.0).fit)


def test_catalogue_size():
    assert len(_GBM_SCALARS) + len(_CASES) >= 150


def test_perf_pairwise_leaves_out_rows_of_a_missing_group_as_r():
    # R: perf.pairwise(c(1,0,1,0,1,0), c(.1,.2,.3,.4,.5,.6), c(1,1,NA,NA,2,2)) = 0.6309298,
    # by() leaves the NA group's rows out (pygbm says so); None raised NumPy's TypeError
    y, f = [1, 0, 1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    for missing in (None, np.nan):
        with pytest.warns(UserWarning, match=r"group has 2 missing value\(s\); their rows are "
                                             "left out"):
            got = pygbm.perf_pairwise(y, f, [1, 1, missing, missing, 2, 2], random_state=1)
        assert got == pytest.approx(0.6309298, abs=1e-7)
        assert got == pygbm.perf_pairwise([1, 0, 1, 0], [0.1, 0.2, 0.5, 0.6], [1, 1, 2, 2],
                                          random_state=1)


def test_an_infinite_predictor_value_gives_no_numpy_warning(E):
    # R's quantiles of the column (the last is Inf); NumPy's "invalid value encountered in
    # multiply" (0 * inf in a branch not taken) reached the user
    d = E.d.assign(x2=np.r_[np.inf, E.d.x2[1:]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit = pygbm.gbm("y ~ x1 + x2", d, distribution="gaussian", n_trees=5, random_state=1)
    assert fit.var_levels[1][-1] == np.inf and np.isfinite(fit.var_levels[1][:-1]).all()


def test_predict_of_a_fit_with_formula_offset_warns_as_r(E):
    # R's predict.gbm warns "predict.gbm does not add the offset to the predicted values."
    # for a formula with offset() terms (not for gbm.fit's offset argument); pygbm left
    # the offset out without a word
    d = E.d.assign(o=np.linspace(-0.5, 0.5, N))
    fit = g(E, formula="y ~ x1 + x2 + offset(o)", data=d, random_state=1)
    with pytest.warns(UserWarning, match=r"^predict does not add the offset to the "
                                         r"predicted values \(R's predict.gbm warning"):
        got = fit.predict(d, n_trees=5)
    np.testing.assert_array_equal(got, fit._link(fit._design(d), np.array([5]))[:, 0])
    ffit = pygbm.gbm_fit(E.x, E.d["y"], offset=d["o"], distribution="gaussian", n_trees=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # gbm_fit's offset argument: no warning
        ffit.predict(E.x, n_trees=5)
        E.fit.predict(E.d, n_trees=5)


def test_predict_warns_of_terms_that_give_nan_on_newdata(E):
    # R warns ("NaNs produced", "NAs introduced by coercion"); the rows were predicted as
    # missing without a word (as.numeric() of a column of words where training had codes)
    fit = g(E, formula="y ~ log(x2 + 10) + as.numeric(c) + x1", random_state=1)
    new = E.d.iloc[:3].assign(x2=[-20.0, 1.0, np.nan])
    with pytest.warns(UserWarning, match=r"newdata: formula terms give NaN where the columns "
                                         r"they read are not missing, treated as missing: "
                                         r"'log\(x2 \+ 10\)' in 1 row\(s\)$"):
        got = fit.predict(new, n_trees=5)
    np.testing.assert_array_equal(got, fit.predict(new.assign(x2=[np.nan, 1.0, np.nan]),
                                                   n_trees=5))
    with pytest.warns(UserWarning, match=r"'as.numeric\(c\)' in 3 row\(s\)"):
        fit.predict(E.d.iloc[:3].assign(c=["a", "b", "c"]), n_trees=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # missing inputs give missing terms: no warning
        fit.predict(E.d.iloc[:3].assign(x2=np.nan, c=np.nan), n_trees=5)


def test_a_dict_of_series_is_read_by_position_as_any_dict_of_columns(E):
    # pandas aligned Series of different indexes: rows 5, 6 of x1 and 0, 1 of c made four
    # rows (an outer join, NaN where a Series had no row) and four predictions
    new = {"x1": E.d.x1.iloc[5:7], "x2": E.d.x2.iloc[5:7], "c": E.d.c.iloc[:2]}
    got = E.fit.predict(new, n_trees=5)
    want = E.fit.predict(pd.DataFrame({"x1": E.d.x1.to_numpy()[5:7], "x2": E.d.x2.to_numpy()[5:7],
                                       "c": E.d.c.iloc[:2].to_numpy()}), n_trees=5)
    np.testing.assert_array_equal(got, want)


def test_formulaic_quoting_reads_the_column_as_backticks_do(E):
    # Q("x 1") raised "'data' does not correspond to a named layer"
    d = E.d.rename(columns={"x1": "x 1"})
    quoted = g(E, formula='y ~ Q("x 1") + x2', data=d, random_state=1)
    ticked = g(E, formula="y ~ `x 1` + x2", data=d, random_state=1)
    np.testing.assert_array_equal(quoted.predict(d, n_trees=5), ticked.predict(d, n_trees=5))


def test_scaled_influence_of_a_fit_without_splits_is_zero_with_a_warning(E):
    # a constant response: every influence 0, and scale=True gave a Series of NaN without a
    # word (R: 0/0); summary() already says so and shows 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = g(E, data=E.d.assign(y=1.0))
    with pytest.warns(UserWarning, match="scale=True leaves the influences 0"):
        ri = pygbm.relative_influence(fit, n_trees=5, scale=True)
    assert (ri == 0).all()
    np.testing.assert_array_equal(pygbm.relative_influence(E.fit, n_trees=5, scale=True),
                                  pygbm.relative_influence(E.fit, n_trees=5)
                                  / pygbm.relative_influence(E.fit, n_trees=5).max())


def test_numbers_that_are_levels_are_read_as_labels_and_unseen_labels_warn(E):
    # a factor of numbers (levels "1", "2", "3") takes numbers; interact_gbm now warns of
    # an unseen label as predict does (it was read as missing without a word)
    d = E.d.assign(k=pd.Categorical(np.arange(N) % 3 + 1))
    fit = g(E, formula="y ~ x1 + k", data=d, interaction_depth=2, random_state=1)
    as_numbers = d.assign(k=np.arange(N) % 3 + 1)
    np.testing.assert_array_equal(fit.predict(as_numbers, n_trees=5), fit.predict(d, n_trees=5))
    with pytest.warns(UserWarning, match=r"data has levels not seen in training, treated as "
                                         r"missing: c: \['zz'\]"):
        pygbm.interact_gbm(E.fit, E.d.assign(c="zz"), ["x1", "c"])


@pytest.mark.parametrize("tool", ["relative_influence", "summary", "partial_dependence",
                                  "interact_gbm"])
def test_toolbox_takes_a_whole_float_count_as_r_and_predict_do(E, tool):
    # n_trees=5.0 was refused ("must be a positive integer") where R and predict take it
    calls = {"relative_influence": lambda n: pygbm.relative_influence(E.fit, n_trees=n),
             "summary": lambda n: pygbm.summary(E.fit, n_trees=n, plot_it=False).to_frame(),
             "partial_dependence": lambda n: pygbm.partial_dependence(E.fit, 0, n_trees=n),
             "interact_gbm": lambda n: pygbm.interact_gbm(E.fit, E.d, [0, 1], n_trees=n)}
    got, expected = calls[tool](5.0), calls[tool](5)
    if isinstance(expected, float):
        assert got == expected or (np.isnan(got) and np.isnan(expected))
    else:
        pd.testing.assert_frame_equal(pd.DataFrame(got), pd.DataFrame(expected))
    # (partial dependence takes 0 trees, R's initial value)
    with pytest.raises(TypeError, match=r"n_trees must be (a positive integer|an integer >= 0) "
                                        r"or None, got 2.5"):
        calls[tool](2.5)


def test_class_of_numeric_classes_is_matched_and_listed_as_r_labels_them(E):
    # classes 1, 2, 3 (a numeric response): class_="1" was refused and the message listed
    # "[np.float64(1.0), ...]"
    d = E.d.assign(k3=np.arange(N) % 3 + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = g(E, formula="k3 ~ x1 + x2", data=d, distribution="multinomial", random_state=1)
    by_label = pygbm.partial_dependence(fit, 0, class_="1", continuous_resolution=3)
    pd.testing.assert_frame_equal(by_label, pygbm.partial_dependence(
        fit, 0, class_=1, continuous_resolution=3))
    with pytest.raises(ValueError, match=r"class_ must be one of the fit's classes "
                                         r"\['1', '2', '3'\]; got 4"):
        pygbm.partial_dependence(fit, 0, class_=4)


@pytest.mark.parametrize("dist, response, match", [
    ("poisson", lambda k: -k, r"non-negative count response y.*\(y: the response Claims\)"),
    ("poisson", lambda k: k + 0.5, r"integer count response y.*\(y: the response Claims\)"),
    ("bernoulli", lambda k: k, r"in \[0, 1\].*\(y: the response Claims\)"),
])
def test_the_distributions_response_errors_name_the_formulas_response(dist, response, match):
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"Claims": rng.integers(0, 5, 60), "age": rng.normal(size=60)})
    data["Claims"] = response(data["Claims"])
    with pytest.raises(ValueError, match=match):
        pygbm.gbm("Claims ~ age", data=data, distribution=dist, n_trees=2)


def test_a_missing_formula_response_is_named():
    data = pd.DataFrame({"Claims": [1.0, np.nan] + [2.0] * 58, "age": np.arange(60.0)})
    with pytest.raises(ValueError, match=r"the response Claims has 1 missing values"):
        pygbm.gbm("Claims ~ age", data=data, distribution="poisson", n_trees=2)


def test_fold_id_with_class_stratify_cv_says_the_stratification_is_ignored(E):
    """fold_id gives the folds: class_stratify_cv=True was silently ignored (a
    non-classification distribution already says 'ignored')."""
    folds = np.arange(N) % 3 + 1
    with pytest.warns(UserWarning, match="class_stratify_cv=True is ignored: fold_id gives"):
        g(E, formula="b ~ x1 + x2", distribution="bernoulli", fold_id=folds,
          class_stratify_cv=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g(E, formula="c ~ x1 + x2", distribution="multinomial", fold_id=folds)  # the default


def test_a_table_where_one_value_belongs_is_named_in_one_line(E):
    # a Series given for a number was printed whole: a dozen lines, no type
    for kw, match in ((dict(shrinkage=E.d.x1), r"^shrinkage must be a positive number, got "
                                               r"Series of shape \(120,\)$"),
                      (dict(n_trees=E.d.x1), r"^n_trees must be a whole number, got Series of "
                                             r"shape \(120,\)$")):
        with pytest.raises((TypeError, ValueError), match=match):
            g(E, **kw)


def test_a_masked_arrays_masked_entries_are_missing_not_their_hidden_values(E):
    # np.asarray reads the values beneath a mask: a masked cost or weight was used as if
    # it were given (pandas reads masked entries as missing, and so now does pygbm)
    mask = np.arange(N) == 3
    with pytest.raises(ValueError, match=r"^weights has 1 missing values$"):
        g(E, weights=np.ma.array(np.ones(N), mask=mask))
    with pytest.raises(ValueError, match=r"^feature_costs: the cost of 'x2' must be a finite "
                                         r"number >= 0, got nan"):
        g(E, feature_costs=np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0]))
    with pytest.raises(ValueError, match=r"^y must be finite numbers, got 1 NaN"):
        pygbm.calibration_report(np.ma.array([1, 0, 1, 0], mask=[0, 0, 0, 1]),
                                 [0.8, 0.2, 0.6, 0.5])
    x = E.d[["x1", "x2"]].to_numpy()
    with pytest.raises(ValueError, match=r"^y has 1 missing values"):
        pygbm.gbm_fit(x, np.ma.array(E.d.y.to_numpy(), mask=mask), distribution="gaussian",
                      n_trees=2)
    with pytest.raises(ValueError, match=r"^w has 1 missing values|^w must be"):
        pygbm.gbm_fit(x, E.d.y.to_numpy(), w=np.ma.array(np.ones(N), mask=mask),
                      distribution="gaussian", n_trees=2)
    unmasked = np.ma.array(np.ones(N), mask=np.zeros(N, dtype=bool))    # nothing masked
    np.testing.assert_array_equal(g(E, weights=unmasked, random_state=1).fit,
                                  g(E, weights=np.ones(N), random_state=1).fit)
