"""gbm(), gbm_fit(), gbm_more() and GBMFit: behaviour, reproducibility, bad input."""
from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pygbm

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def boston():
    return pd.read_csv(DATA / "boston.csv")


@pytest.fixture(scope="module")
def pima():
    return pd.read_csv(DATA / "pima2.csv")


def quiet_gbm(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pygbm.gbm(*args, **kw)


# ------------------------------------------------------------------ behaviour
def test_same_random_state_same_model(boston):
    a = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=30, random_state=7)
    b = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=30, random_state=7)
    c = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=30, random_state=8)
    np.testing.assert_array_equal(a.fit, b.fit)
    np.testing.assert_array_equal(a.train_error, b.train_error)
    assert not np.array_equal(a.fit, c.fit)


def test_pickle_round_trip_gives_identical_predictions(boston, tmp_path):
    fit = pygbm.gbm("medv ~ . - chas", boston, distribution="gaussian", n_trees=40,
                    interaction_depth=2, random_state=1)
    path = tmp_path / "fit.pkl"
    path.write_bytes(pickle.dumps(fit))
    back = pickle.loads(path.read_bytes())
    np.testing.assert_array_equal(back.predict(boston, n_trees=[10, 40]),
                                  fit.predict(boston, n_trees=[10, 40]))


def test_predict_list_is_one_column_per_count(boston):
    fit = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=50, random_state=1)
    many = fit.predict(boston, n_trees=[50, 1, 20])
    assert many.shape == (len(boston), 3)
    for j, k in enumerate([50, 1, 20]):
        np.testing.assert_allclose(many[:, j], fit.predict(boston, n_trees=k), rtol=1e-12)
    # the training fit equals predictions on the training data (bag or not)
    np.testing.assert_allclose(fit.predict(boston, n_trees=50), fit.fit, rtol=1e-10)


def test_response_scale(pima):
    fit = pygbm.gbm("diabetes ~ .", pima, distribution="bernoulli", n_trees=30,
                    random_state=1)
    link = fit.predict(pima, n_trees=30)
    prob = fit.predict(pima, n_trees=30, type="response")
    np.testing.assert_allclose(prob, 1 / (1 + np.exp(-link)), rtol=1e-12)
    assert np.all((prob > 0) & (prob < 1))


def test_predict_without_n_trees_uses_best_iteration(boston):
    fit = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=60,
                    train_fraction=0.8, bag_fraction=1)
    best = int(np.argmin(fit.valid_error)) + 1
    with pytest.warns(pygbm.GBMMessage, match=f"Using {best} trees\\.\\.\\. \\(test\\)"):
        p = fit.predict(boston)
    np.testing.assert_allclose(p, fit.predict(boston, n_trees=best))


def test_gbm_more_continues_exactly(boston):
    kw = dict(distribution="gaussian", interaction_depth=2, bag_fraction=1,
              train_fraction=0.8)
    full = pygbm.gbm("medv ~ .", boston, n_trees=60, **kw)
    part = pygbm.gbm("medv ~ .", boston, n_trees=40, **kw)
    more = pygbm.gbm_more(part, n_new_trees=20)
    assert more.n_trees == 60 and part.n_trees == 40
    np.testing.assert_allclose(more.train_error, full.train_error, rtol=1e-12)
    np.testing.assert_allclose(more.valid_error, full.valid_error, rtol=1e-12)
    np.testing.assert_allclose(more.predict(boston, n_trees=60),
                               full.predict(boston, n_trees=60), rtol=1e-12)


def test_gbm_more_with_data(boston):
    kw = dict(distribution="gaussian", bag_fraction=1)
    full = pygbm.gbm("medv ~ .", boston, n_trees=30, **kw)
    part = pygbm.gbm("medv ~ .", boston, n_trees=20, keep_data=False, **kw)
    with pytest.raises(ValueError, match="keep_data=False; give the training rows again as "
                                         "data="):
        pygbm.gbm_more(part, 10)
    lean = pygbm.gbm_fit(boston.drop(columns="medv"), boston["medv"], n_trees=5,
                         keep_data=False, **kw)
    with pytest.raises(ValueError, match="keep_data=False by gbm_fit, which has no formula"):
        pygbm.gbm_more(lean, 10)
    more = pygbm.gbm_more(part, 10, data=boston)
    np.testing.assert_allclose(more.fit, full.fit, rtol=1e-12)


@pytest.mark.parametrize("zero_subsample", [None, 0.5])
def test_gbm_more_without_data_keeps_the_fit_weights(boston, zero_subsample):
    # R's gbm.more ignores weights when the fit kept its data; pygbm accepts
    # the same weights and refuses others (they would be silently ignored)
    df = boston.assign(w=np.linspace(1, 2, len(boston)), y=(boston.medv > 25).astype(int))
    fit = pygbm.gbm("y ~ crim + rm + lstat", df, weights="w", distribution="bernoulli",
                    n_trees=10, random_state=1, zero_subsample=zero_subsample)
    same = pygbm.gbm_more(fit, 5, random_state=2, weights=df["w"].to_numpy())
    np.testing.assert_array_equal(same.fit, pygbm.gbm_more(fit, 5, random_state=2).fit)
    with pytest.raises(ValueError, match="weights differ .* give data="):
        pygbm.gbm_more(fit, 5, weights=np.ones(len(df)))
    with pytest.raises(ValueError, match="weights='w' names a column of data"):
        pygbm.gbm_more(fit, 5, weights="w")


@pytest.mark.parametrize("zero_subsample", [None, 0.9])
def test_gbm_more_continues_with_the_fit_offsets(zero_subsample):
    # R's gbm.more never reads its offset argument; pygbm's replaced the kept offset for
    # the new trees (the train error jumped against the one-shot fit's): the model's
    # own offsets are accepted, others refused
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 3))
    y = (x[:, 0] + rng.normal(size=300) > 0).astype(float)
    off = rng.normal(0, 0.5, 300)
    kw = dict(interaction_depth=2, shrinkage=0.1, bag_fraction=1,
              zero_subsample=zero_subsample, random_state=1)
    fit = pygbm.gbm_fit(x, y, offset=off, n_trees=10, **kw)
    same = pygbm.gbm_more(fit, 5, offset=off)
    np.testing.assert_array_equal(same.fit, pygbm.gbm_more(fit, 5).fit)
    with pytest.raises(ValueError, match=r"^offset differs from the offsets the model was "
                                         r"fitted with"):
        pygbm.gbm_more(fit, 5, offset=np.zeros(300))
    plain = pygbm.gbm_fit(x, y, n_trees=10, **kw)
    assert not pygbm.gbm_more(plain, 5, offset=np.zeros(300)).matrix_offset
    with pytest.raises(ValueError, match=r"^offset differs"):
        pygbm.gbm_more(plain, 5, offset=off)


def test_var_monotone_series_labelled_by_names_is_read_by_name(boston):
    # read by position, a Series of the right names in another order put each sign
    # on another predictor without a word
    x = boston[["rm", "lstat", "crim"]]
    kw = dict(distribution="gaussian", n_trees=10, bag_fraction=1)
    by_dict = pygbm.gbm_fit(x, boston["medv"], var_monotone={"rm": 1, "lstat": -1}, **kw)
    series = pd.Series({"lstat": -1, "crim": 0, "rm": 1})
    fit = pygbm.gbm_fit(x, boston["medv"], var_monotone=series, **kw)
    np.testing.assert_array_equal(fit.var_monotone, [1, -1, 0])
    np.testing.assert_array_equal(fit.fit, by_dict.fit)
    positional = pygbm.gbm_fit(x, boston["medv"], var_monotone=pd.Series([1, -1, 0]), **kw)
    np.testing.assert_array_equal(positional.fit, by_dict.fit)
    with pytest.raises(ValueError, match=r"^var_monotone names unknown predictors \['age'\]"):
        pygbm.gbm_fit(x, boston["medv"], var_monotone=pd.Series({"age": 1}), **kw)


def test_gbm_fit_matrix_interface(boston):
    x = boston.drop(columns="medv")
    fit = pygbm.gbm_fit(x, boston["medv"].to_numpy(), distribution="gaussian", n_trees=20,
                        shrinkage=0.1, bag_fraction=1)
    ref = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=20, bag_fraction=1)
    np.testing.assert_allclose(fit.fit, ref.fit, rtol=1e-12)
    assert fit.shrinkage == 0.1
    arr = pygbm.gbm_fit(x.drop(columns="chas").to_numpy(), boston["medv"].to_numpy(),
                        distribution="gaussian", n_trees=5)
    assert arr.var_names[0] == "X1"
    assert arr.predict(x.drop(columns="chas").to_numpy(), n_trees=5).shape == (len(x),)


def test_gbm_fit_codes_a_text_response_as_gbm_does(pima):
    """gbm_fit's categorical or text response is coded as gbm()'s model frame codes
    it (R's factor): a Categorical's order of categories, R's collation of strings;
    np.asarray sorted a Categorical's labels, modelling the first level."""
    x = pima.drop(columns="diabetes")
    text = pima["diabetes"].map({1: "yes", 0: "no"})
    kw = dict(distribution="bernoulli", n_trees=10, shrinkage=0.1, random_state=1)
    for y in (pd.Categorical(text, categories=["yes", "no"]), text.str.replace("yes", "Yes")):
        data = x.assign(diabetes=y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = pygbm.gbm("diabetes ~ .", data, **kw)
            fit = pygbm.gbm_fit(x, y, **kw)
        np.testing.assert_array_equal(fit.predict(x, n_trees=10), ref.predict(data, n_trees=10))
    with pytest.raises(ValueError, match=r"^the response y is text/categorical \(levels "
                                         r"\['no', 'yes'\]\); distribution 'gaussian' needs "
                                         "numbers"):
        pygbm.gbm_fit(x, text, distribution="gaussian", n_trees=5)


def test_gbm_fit_says_how_a_two_class_response_is_coded(pima):
    # gbm() said which level is modelled, gbm_fit did not: a Categorical of 0/1 whose
    # categories are [1, 0] modelled P(y == 0) without a word
    x = pima.drop(columns="diabetes")
    y = pd.Categorical(pima["diabetes"], categories=[1, 0])
    with pytest.warns(pygbm.GBMMessage, match=r"^the response y is coded '1' = 0, '0' = 1 "
                                              r"\(the second level is modelled\)$"):
        fit = pygbm.gbm_fit(x, y, n_trees=5, shrinkage=0.1)
    assert fit.y_levels == ["1", "0"]


@pytest.mark.parametrize("distribution", ["gaussian", "poisson", "laplace", "tdist"])
def test_gbm_fit_refuses_a_categorical_response_of_numbers(pima, distribution):
    # fitted by its values without a word (R's gbm.fit fits the factor's codes, 1..K;
    # gbm() refuses it): a Categorical response is levels, whatever its labels look like
    x = pima.drop(columns="diabetes")
    y = pd.Categorical(pima["pregnant"])
    with pytest.raises(ValueError, match=rf"^the response y is text/categorical .*; "
                                         rf"distribution '{distribution}' needs numbers"):
        pygbm.gbm_fit(x, y, distribution=distribution, n_trees=5)


def test_gbm_fit_refuses_a_surv_response_with_a_missing_status():
    # the times were checked, the status was not: a NaN status fitted a model whose
    # trees never split (every tree a single node), without a word
    rng = np.random.default_rng(0)
    x = rng.normal(size=(100, 2))
    status = (rng.random(100) < 0.7).astype(float)
    status[3] = np.nan
    with pytest.raises(ValueError, match=r"^y \(a Surv response\) has 1 row\(s\) with a missing "
                                         r"time or status"):
        pygbm.gbm_fit(x, pygbm.Surv(rng.exponential(size=100), status),
                      distribution="coxph", n_trees=5)


def test_gbm_fit_refuses_a_dates_response_and_a_list_x():
    # a DatetimeIndex has .time: it was taken for a Surv response and fitted as
    # microseconds since 1970; a list x with var_names ended in AttributeError
    x = np.random.default_rng(0).normal(size=(10, 2))
    dates = pd.date_range("2020-01-01", periods=10)
    with pytest.raises(TypeError, match=r"^the response 'y' has dtype datetime64"):
        pygbm.gbm_fit(x, dates, distribution="gaussian", n_trees=5)
    with pytest.raises(TypeError, match=r"^x \(the predictors\) must be a pandas DataFrame "
                                        r"or a 2-d numpy array, got list"):
        pygbm.gbm_fit(x.tolist(), np.arange(10.0), var_names=["a", "b"],
                      distribution="gaussian", n_trees=5)


def test_gbm_fit_duplicated_var_names_name_the_argument(pima):
    x = pima.drop(columns="diabetes").to_numpy()
    with pytest.raises(ValueError, match=r"^var_names must be distinct names, got duplicates "
                                         r"\['a'\]$"):
        pygbm.gbm_fit(x, pima["diabetes"], var_names=["a"] * 8, n_trees=5)
    frame = pima.drop(columns="diabetes").set_axis(["a"] * 8, axis=1)
    with pytest.raises(ValueError, match=r"duplicated column names: \['a'\]$"):
        pygbm.gbm_fit(frame, pima["diabetes"], n_trees=5)


def test_two_class_distributions_name_the_levels_of_a_text_response(pima):
    # three levels were refused as "got 3 distinct values (0.0, 1.0, 2.0)": their codes
    x = pima.drop(columns="diabetes").iloc[:90]
    y = pd.Categorical(np.repeat(["low", "mid", "high"], 30), categories=["low", "mid", "high"])
    match = (r"^distribution 'bernoulli' needs a response of two classes; the response "
             r"(y|grade) has 3 \(levels \['low', 'mid', 'high'\]\): use distribution="
             r"'multinomial'$")
    with pytest.raises(ValueError, match=match):
        pygbm.gbm_fit(x, y, distribution="bernoulli", n_trees=5)
    with pytest.raises(ValueError, match=match):
        pygbm.gbm("grade ~ .", x.assign(grade=y), distribution="bernoulli", n_trees=5)
    with pytest.raises(ValueError, match=r"'adaboost' needs .* has 1 \(levels \['a'\]\)$"):
        pygbm.gbm_fit(x, np.repeat("a", 90), distribution="adaboost", n_trees=5)


def test_gbm_fit_var_names_of_a_table_are_its_columns(pima):
    # var_names other than a DataFrame's columns were dropped without a word: the fit
    # kept the columns' names, and feature_costs={"a": ...} then said 'a' is no predictor
    frame = pima.drop(columns="diabetes")
    names = [f"v{j}" for j in range(frame.shape[1])]
    with pytest.raises(ValueError, match=r"^var_names names the columns of an array x; "
                                         r"x is a DataFrame .*x.set_axis"):
        pygbm.gbm_fit(frame, pima["diabetes"], var_names=names, n_trees=5)
    same = pygbm.gbm_fit(frame, pima["diabetes"], var_names=list(frame.columns), n_trees=5)
    assert same.var_names == list(frame.columns)
    renamed = pygbm.gbm_fit(frame.set_axis(names, axis=1), pima["diabetes"], n_trees=5)
    assert renamed.var_names == names


def test_print_like_r(boston):
    fit = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=30,
                    train_fraction=0.8, random_state=1)
    text = repr(fit)
    assert "A gradient boosted model with gaussian loss function." in text
    assert "30 iterations were performed." in text
    assert "The best test-set iteration was" in text
    assert "There were 13 predictors of which" in text


@pytest.mark.parametrize("kwargs, message", [
    (dict(fold_len_multiplier=3.0), "fold_len_multiplier=3.0 has no effect without "
                                    "boosting_type='ordered'"),
    (dict(min_fold_size=50, full_history=True),
     "min_fold_size=50 has no effect without boosting_type='ordered'; full_history=True"),
    (dict(n_permutations=8), "n_permutations=8 has no effect without boosting_type='ordered' "
                             "or target statistics"),
    (dict(ts_prior=0.3), "ts_prior=0.3 has no effect without target statistics"),
    (dict(zero_weight="none"), "zero_weight='none' has no effect without zero_subsample"),
    # zero_subsample=1 keeps every zero: zero_weight was silently unused
    (dict(zero_subsample=1, zero_weight="offset"),
     "zero_weight='offset' has no effect without zero_subsample below 1"),
    (dict(cegb_tradeoff=0.5), "cegb_tradeoff=0.5 has no effect without feature_costs"),
])
def test_arguments_without_effect_are_named(pima, kwargs, message):
    with pytest.warns(UserWarning, match=message.replace("(", r"\(").replace(")", r"\)")):
        pygbm.gbm("diabetes ~ .", pima, distribution="bernoulli", n_trees=2, **kwargs)


@pytest.mark.parametrize("kwargs", [
    dict(boosting_type="ordered", n_permutations=2, fold_len_multiplier=3.0),
    dict(categorical="ordered_ts", ts_prior=0.3, n_permutations=2),
    dict(zero_subsample=0.5, zero_weight="none"),
    dict(cost_split=0.1, cegb_tradeoff=1e-3),      # small enough for a split (else a warning)
])
def test_arguments_in_effect_are_not_warned_of(kwargs):
    data = pd.DataFrame({"y": np.arange(60) % 2, "x": np.arange(60.0),
                         "g": list("abc") * 20})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pygbm.gbm("y ~ .", data, distribution="bernoulli", n_trees=2, n_minobsinnode=2,
                  **kwargs)


def test_gbm_fit_warns_of_arguments_without_effect(boston):
    with pytest.warns(UserWarning, match="full_history=True has no effect without"):
        pygbm.gbm_fit(boston.drop(columns="medv"), boston["medv"], distribution="gaussian",
                      n_trees=2, full_history=True)


def test_distribution_forms_and_guess(boston, pima):
    a = pygbm.gbm("medv ~ lstat", boston, distribution={"name": "quantile", "alpha": 0.25},
                  n_trees=5)
    b = pygbm.gbm("medv ~ lstat", boston,
                  distribution=pygbm.get_distribution({"name": "quantile", "alpha": 0.25}),
                  n_trees=5, random_state=a.rng)
    assert a.distribution == b.distribution
    with pytest.warns(UserWarning, match="assuming bernoulli"):
        g = pygbm.gbm("diabetes ~ glucose", pima, n_trees=5)
    assert g.distribution.name == "bernoulli"
    with pytest.warns(UserWarning, match="assuming gaussian"):
        assert pygbm.gbm("medv ~ lstat", boston, n_trees=5).distribution.name == "gaussian"


def test_unseen_level_at_predict_is_missing_with_warning():
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"g": rng.choice(list("abc"), 300), "x": rng.normal(size=300)})
    d["y"] = (d["g"] == "a") * 2.0 + d["x"] + rng.normal(size=300)
    fit = pygbm.gbm("y ~ g + x", d, distribution="gaussian", n_trees=20, bag_fraction=1)
    new = d.head(5).copy()
    new.loc[0, "g"] = "zzz"
    with pytest.warns(UserWarning, match="zzz"):
        p = fit.predict(new, n_trees=20)
    as_missing = new.copy()
    as_missing.loc[0, "g"] = np.nan
    np.testing.assert_allclose(p, fit.predict(as_missing, n_trees=20))


def test_multinomial_predict_keeps_the_row_labels_of_newdata():
    # the class-probability table's index was 0..n-1 whatever newdata's
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"g": rng.choice(list("abc"), 150), "x": rng.normal(size=150)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = pygbm.gbm("g ~ x", d, distribution="multinomial", n_trees=5)
    rows = d.iloc[[3, 1, 2]].set_index(pd.Index([30, 10, 20], name="id"))
    p = fit.predict(rows, n_trees=5, type="response")
    pd.testing.assert_index_equal(p.index, rows.index)
    np.testing.assert_array_equal(p.to_numpy(), fit.predict(d.iloc[[3, 1, 2]], n_trees=5,
                                                             type="response").to_numpy())


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("kwargs, match", [
    (dict(distribution="bernoulli"), "bernoulli"),
    (dict(distribution="poisson"), "poisson"),
    (dict(distribution="nonsense"), "nonsense"),
    (dict(distribution={"name": "quantile"}), "alpha"),
    (dict(n_trees=0), "n_trees"),
    (dict(n_trees=2.5), "n_trees"),
    (dict(shrinkage=-1), "shrinkage"),
    (dict(bag_fraction=0), "bag_fraction"),
    (dict(bag_fraction=1.5), "bag_fraction"),
    (dict(train_fraction=0), "train_fraction"),
    (dict(interaction_depth=0), "interaction_depth"),
    (dict(interaction_depth=50), "interaction_depth"),
    (dict(n_minobsinnode=300), "n_minobsinnode"),
    (dict(var_monotone=[1, 0]), "var_monotone"),
    (dict(var_monotone=[2] * 13), "var_monotone"),
    (dict(weights=-np.ones(506)), "weights"),
    (dict(weights=np.ones(10)), "weights"),
    (dict(weights="nosuchcolumn"), "nosuchcolumn"),
    (dict(max_bins=1), "max_bins"),
])
def test_bad_arguments_name_the_argument(boston, kwargs, match):
    kw = dict(distribution="gaussian", n_trees=5)
    kw.update(kwargs)
    d = boston.copy()
    d["medv"] = d["medv"] if kw["distribution"] != "poisson" else d["medv"] - 30
    with pytest.raises((ValueError, TypeError), match=match):
        quiet_gbm("medv ~ .", d, **kw)


def test_bernoulli_three_levels(pima):
    d = pima.copy()
    d["diabetes"] = d["diabetes"] + (np.arange(len(d)) % 3 == 0)
    with pytest.raises(ValueError, match="bernoulli.*0/1"):
        pygbm.gbm("diabetes ~ glucose", d, distribution="bernoulli", n_trees=5)


def test_missing_response_and_missing_columns(boston):
    d = boston.copy()
    d.loc[3, "medv"] = np.nan
    with pytest.raises(ValueError, match="missing values"):
        pygbm.gbm("medv ~ .", d, distribution="gaussian")
    with pytest.raises(ValueError, match="lstatt"):
        pygbm.gbm("medv ~ lstatt", boston, distribution="gaussian")


def test_coxph_needs_surv_and_surv_needs_coxph():
    lung = pd.read_csv(DATA / "lung.csv")
    with pytest.raises(ValueError, match="Surv"):
        pygbm.gbm("time ~ age", lung, distribution="coxph", n_trees=5)
    with pytest.raises(ValueError, match="coxph"):
        pygbm.gbm("Surv(time, status) ~ age", lung, distribution="gaussian", n_trees=5)


def test_empty_and_one_row_data(boston):
    with pytest.raises(ValueError):
        pygbm.gbm("medv ~ .", boston.iloc[:0], distribution="gaussian")
    with pytest.raises(ValueError):
        pygbm.gbm("medv ~ .", boston.iloc[:1], distribution="gaussian")


def test_too_many_levels_names_r_limit():
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"g": [f"l{i}" for i in range(2000)], "y": rng.normal(size=2000)})
    with pytest.raises(ValueError, match="1024"):
        pygbm.gbm("y ~ g", d, distribution="gaussian", n_trees=2)


def test_predict_errors(boston):
    fit = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=10)
    with pytest.warns(UserWarning, match=r"n_trees exceeded the number fit so far \(10\); using 10"):
        capped = fit.predict(boston, n_trees=11)           # R warns and caps
    np.testing.assert_array_equal(capped, fit.predict(boston, n_trees=10))
    with pytest.raises(ValueError, match="type"):
        fit.predict(boston, n_trees=5, type="probability")
    with pytest.raises(ValueError, match="lstat"):
        fit.predict(boston.drop(columns="lstat"), n_trees=5)


# ------------------------------------------------------------------ single_tree (R's)
SINGLE_TREE = Path(__file__).resolve().parent / "r_reference" / "fixtures" / "single_tree.json"


@pytest.mark.parametrize("engine", ["numba", "numpy"])
@pytest.mark.parametrize("case", range(2))
def test_single_tree_predictions_are_rs(boston, case, engine):
    """predict(single_tree=True) is R's predict.gbm(single.tree = TRUE): each
    count's iteration alone, no initial value, type="response" through the inverse
    link as R (tests/r_reference/make_single_tree_fixture.R; equal to the bit)."""
    import json
    ref = json.loads(SINGLE_TREE.read_text())
    assert ref["stamp"]["gbm_version"] == "2.1.8.1"
    c = ref["cases"][case]
    data = boston.assign(b=(boston.medv > 22).astype(float))
    fit = quiet_gbm(c["formula"], data, distribution=c["distribution"], n_trees=c["n_trees"],
                    interaction_depth=c["interaction_depth"], bag_fraction=1.0, engine=engine)
    got = fit.predict(data.iloc[:c["rows"]], n_trees=c["at"], type=c["type"], single_tree=True)
    want = np.array([float.fromhex(v) for v in c["prediction"]]).reshape(len(c["at"]), -1).T
    np.testing.assert_array_equal(got, want)


def test_single_tree_is_the_step_of_its_iteration_and_refuses_tree_0(boston):
    fit = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=20, random_state=1)
    x = boston.iloc[:10]
    step = fit.predict(x, n_trees=20, single_tree=True)
    np.testing.assert_allclose(step, fit.predict(x, n_trees=20) - fit.predict(x, n_trees=19),
                               atol=1e-12)
    assert step.shape == (10,)
    with pytest.raises(ValueError, match=r"n_trees must be >= 1 with single_tree=True"):
        fit.predict(x, n_trees=[0, 3], single_tree=True)


def test_single_tree_of_a_multinomial_fit_is_each_class_tree(pima):
    fit = quiet_gbm("diabetes ~ .", pima, distribution="multinomial", n_trees=10,
                    random_state=1)
    x = pima.iloc[:6]
    step = fit.predict(x, n_trees=[4, 10], single_tree=True)
    assert step.shape == (6, 2, 2)
    np.testing.assert_allclose(step, fit.predict(x, n_trees=[4, 10])
                               - fit.predict(x, n_trees=[3, 9]), atol=1e-12)


def test_a_multinomial_offset_is_said_to_have_no_effect():
    # added to every class's link, it cancels in the softmax: silently ignored before
    rng = np.random.default_rng(0)
    x = rng.normal(size=(150, 2))
    y = rng.integers(0, 3, 150).astype(str)
    kw = dict(distribution="multinomial", n_trees=5, bag_fraction=1)
    with pytest.warns(UserWarning, match=r"^the offset has no effect under distribution "
                                         r"'multinomial'"):
        fit = pygbm.gbm_fit(x, y, offset=rng.normal(size=150), **kw)
    np.testing.assert_allclose(fit.fit, pygbm.gbm_fit(x, y, **kw).fit, rtol=1e-12,
                               atol=1e-15)
    # nor do its new rows need theirs (cost_tradeoff demanded them: "offset is required")
    assert not fit.matrix_offset
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "k": y, "t": rng.uniform(1, 2, 150)})
    with pytest.warns(UserWarning, match=r"^the offset has no effect"):
        pygbm.gbm("k ~ a + b + offset(np.log(t))", frame, **kw)


@pytest.mark.parametrize("keep_data", [True, False])
def test_gbm_more_refuses_other_rows_or_another_order(keep_data):
    # the same rows in another order were continued on: each row boosted from another
    # row's fitted value (the train error jumped 0.10 -> 1.27) without a word when the
    # data were not kept, after a warning when they were (R reads the kept rows)
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"x1": rng.normal(size=200), "x2": rng.normal(size=200)})
    d["y"] = d.x1 + rng.normal(size=200) * 0.3
    kw = dict(distribution="gaussian", interaction_depth=2, bag_fraction=1.0, random_state=1)
    first = pygbm.gbm("y ~ x1 + x2", d, n_trees=20, keep_data=keep_data, **kw)
    assert (first.rows_digest is None) == keep_data
    same = pygbm.gbm_more(first, 5, data=d)
    np.testing.assert_allclose(same.fit, pygbm.gbm("y ~ x1 + x2", d, n_trees=25, **kw).fit,
                               rtol=1e-12)
    match = r"^data are not the rows the model was fitted on, in their order"
    with pytest.raises(ValueError, match=match):
        pygbm.gbm_more(first, 5, data=d.sample(frac=1, random_state=3))
    with pytest.raises(ValueError, match=match):
        pygbm.gbm_more(first, 5, data=d.assign(y=d.y + 1))
    # other weights on the same rows are what data= is for
    pygbm.gbm_more(first, 5, data=d.assign(w=np.linspace(1, 2, 200)), weights="w")


@pytest.mark.parametrize("keep_data", [True, False])
def test_gbm_more_data_without_weights_keeps_or_asks_for_the_fits_weights(keep_data):
    # gbm_more(fit, n, data=d) on a weighted fit continued with weights 1, silently: with
    # kept data R's gbm.more continues with the kept weights (checked in R: 0 difference
    # from the one-shot fit; pygbm's differed by 0.57); without, R takes weights 1
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"x1": rng.normal(size=300), "x2": rng.normal(size=300)})
    d["y"] = d.x1 + rng.normal(size=300)
    d["w"] = rng.uniform(0.1, 3, 300)
    kw = dict(distribution="gaussian", bag_fraction=1.0, random_state=1)
    first = pygbm.gbm("y ~ x1 + x2", d, weights="w", n_trees=10, keep_data=keep_data, **kw)
    assert first.weighted
    one_shot = pygbm.gbm("y ~ x1 + x2", d, weights="w", n_trees=15, **kw).fit
    np.testing.assert_allclose(pygbm.gbm_more(first, 5, data=d, weights="w").fit, one_shot,
                               rtol=1e-12)
    if keep_data:
        np.testing.assert_allclose(pygbm.gbm_more(first, 5, data=d).fit, one_shot,
                                   rtol=1e-12)
    else:
        with pytest.raises(ValueError, match=r"^weights are missing: the model was fitted "
                                             r"with case weights, which data= does not"):
            pygbm.gbm_more(first, 5, data=d)
    # equal weights are no weights once normalised (R's w * n / sum(w)): the fit is the
    # unweighted one, and continuing with weights 1 continues it exactly
    for equal in (1.0, 2.0):
        plain = pygbm.gbm("y ~ x1 + x2", d.assign(w=equal), weights="w", n_trees=10,
                          keep_data=keep_data, **kw)
        assert not plain.weighted
        np.testing.assert_array_equal(pygbm.gbm_more(plain, 5, data=d).fit,
                                      pygbm.gbm("y ~ x1 + x2", d, n_trees=15, **kw).fit)


@pytest.mark.parametrize("keep_data", [True, False])
def test_gbm_more_data_does_not_repeat_the_fits_warnings_about_its_rows(keep_data):
    # gbm_more(data=) builds the model frame of the fit's rows again: the fit's warnings
    # about them (numbers held as text, no variation, '.' taking an offset() column,
    # the response on the right) were all given a second time
    rng = np.random.default_rng(0)
    d = pd.DataFrame({"x": rng.normal(size=200), "c": rng.integers(0, 4, 200).astype(str),
                      "k": 1.0, "o": rng.normal(size=200) * 0.1})
    d["y"] = d.x + rng.normal(size=200) * 0.3
    formula = "y ~ . + y + offset(o)"
    kw = dict(distribution="gaussian", bag_fraction=1.0, random_state=1)
    with warnings.catch_warnings(record=True) as first:
        warnings.simplefilter("always")
        fit = pygbm.gbm(formula, d, n_trees=3, keep_data=keep_data, **kw)
    said = " | ".join(str(w.message) for w in first)
    for part in ("holds numbers as text", "has no variation", "appeared on the right",
                 "'.' includes ['o']"):
        assert part in said
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        more = pygbm.gbm_more(fit, 2, data=d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(more.fit, pygbm.gbm(formula, d, n_trees=5, **kw).fit,
                                   rtol=1e-12)
    # a weights column of this call that '.' takes as a predictor is said (not the fit's)
    with pytest.warns(UserWarning, match=r"^'\.' includes \['k'\] as predictor"):
        pygbm.gbm_more(fit, 2, data=d, weights="k")


def test_gbm_more_refuses_an_unseen_level_without_warning_of_it_first():
    # the level was warned about ("treated as missing") just before the refusal
    rng = np.random.default_rng(3)
    d = pd.DataFrame({"x": rng.normal(size=100),
                      "c": pd.Categorical(rng.choice(["a", "b"], 100))})
    d["y"] = d.x + (d.c == "a") + rng.normal(size=100) * 0.3
    fit = pygbm.gbm("y ~ x + c", d, distribution="gaussian", n_trees=5, bag_fraction=1.0)
    other = d.assign(c=pd.Categorical(np.where(np.arange(100) < 5, "z", d.c.astype(str))))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"^data has levels of \['c'\] not seen"):
            pygbm.gbm_more(fit, 5, data=other)


@pytest.mark.parametrize("keep_data", [True, False])
def test_gbm_more_knows_rows_again_by_their_values_not_bits(keep_data):
    # without kept data the rows' digest hashed the bytes: the same rows with a -0.0 for
    # a 0.0, or a NaN of another bit pattern, were refused as other rows (the kept
    # rows' comparison takes them as equal)
    rng = np.random.default_rng(2)
    d = pd.DataFrame({"x1": rng.normal(size=120), "x2": rng.normal(size=120)})
    d["y"] = d.x1 + rng.normal(size=120) * 0.3
    d.loc[3, "x1"], d.loc[5, "x2"] = 0.0, np.nan
    kw = dict(distribution="gaussian", bag_fraction=1.0, random_state=1)
    first = pygbm.gbm("y ~ x1 + x2", d, n_trees=10, keep_data=keep_data, **kw)
    again = d.copy()
    again.loc[3, "x1"] = -0.0
    x2 = again["x2"].to_numpy().copy()
    x2.view(np.uint64)[5] |= np.uint64(1)              # another NaN payload
    again["x2"] = x2
    assert np.signbit(again.loc[3, "x1"]) and np.isnan(again.loc[5, "x2"])
    more = pygbm.gbm_more(first, 5, data=again)
    np.testing.assert_allclose(more.fit, pygbm.gbm("y ~ x1 + x2", d, n_trees=15, **kw).fit,
                               rtol=1e-12)


@pytest.mark.parametrize("keep_data", [True, False])
def test_gbm_more_codes_a_multiclass_response_of_numbers_as_the_fit(keep_data):
    # classes 1, 2, 3: the fit's trees and kept response use the codes 0..2, data= gave
    # the values (refused with kept data; without, classes 1..3 read as codes 1, 2, 3)
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=300), "y": rng.integers(1, 4, 300)})
    kw = dict(distribution="multinomial", bag_fraction=1.0, random_state=1)
    fit = pygbm.gbm("y ~ x", df, n_trees=3, keep_data=keep_data, **kw)
    more = pygbm.gbm_more(fit, 2, data=df)
    np.testing.assert_allclose(more.fit, pygbm.gbm("y ~ x", df, n_trees=5, **kw).fit,
                               rtol=1e-12)
    with pytest.raises(ValueError, match=r"^the response of data has values that are none "
                                         r"of the fit's classes \[1\.0, 2\.0, 3\.0\]"):
        pygbm.gbm_more(fit, 2, data=df.assign(y=np.where(df.y == 3, 4, df.y)))


@pytest.mark.parametrize("keep_data", [True, False])
def test_gbm_more_refuses_data_of_another_status_or_offset(keep_data):
    # the rows' check compared predictors and response only: a flipped event status or a
    # shifted offset() column continued the trees on them without a word
    rng = np.random.default_rng(1)
    d = pd.DataFrame({"x": rng.normal(size=200), "t": rng.exponential(size=200),
                      "s": (rng.random(200) < 0.7).astype(int), "e": rng.uniform(1, 2, 200)})
    d["k"] = rng.poisson(d.e)
    match = r"^data are not the rows the model was fitted on"
    cox = pygbm.gbm("Surv(t, s) ~ x", d, distribution="coxph", n_trees=3, keep_data=keep_data)
    with pytest.raises(ValueError, match=match):
        pygbm.gbm_more(cox, 2, data=d.assign(s=1 - d.s))
    pois = pygbm.gbm("k ~ x + offset(np.log(e))", d, distribution="poisson", n_trees=3,
                     keep_data=keep_data)
    pygbm.gbm_more(pois, 2, data=d)
    with pytest.raises(ValueError, match=match):
        pygbm.gbm_more(pois, 2, data=d.assign(e=d.e * 2))
