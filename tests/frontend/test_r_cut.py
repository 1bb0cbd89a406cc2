"""R's ``cut()`` in formula terms (pygbm.frontend.r_cut).

The expected levels and codes are R 4.2.2's (``cut()`` run on the same vectors);
the model frames of a formula with cut() terms are checked against gbm() itself in
test_fixtures_r.py (case ``boston_cut``)."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.frontend import model_frame, model_frame_newdata
from pygbm.frontend.r_cut import cut

from ._data import boston

NA = None
R_CUTS = [
    # (x, breaks, keywords, R's levels, R's values as level positions, NA missing)
    ([1, 5, 10], 3, {}, ["(0.991,4]", "(4,7]", "(7,10]"], [0, 1, 2]),
    ([0.5, 1234.5, 20], [0, 30, 1000, 2000, np.inf], {},
     ["(0,30]", "(30,1e+03]", "(1e+03,2e+03]", "(2e+03,Inf]"], [0, 2, 0]),
    ([0.123456, 0.5, 0.9], 3, {"dig_lab": 2}, ["(0.12,0.38]", "(0.38,0.64]", "(0.64,0.9]"],
     [0, 1, 2]),
    (range(1, 11), [0, 5, 10], {"right": False, "include_lowest": True}, ["[0,5)", "[5,10]"],
     [0] * 4 + [1] * 6),
    (range(1, 11), [0, 5, 10], {"right": False}, ["[0,5)", "[5,10)"], [0] * 4 + [1] * 5 + [NA]),
    (range(1, 11), [0, 5, 10], {"include_lowest": True}, ["[0,5]", "(5,10]"],
     [0] * 5 + [1] * 5),
    ([5, 5, 5], 2, {}, ["(4.995,5]", "(5,5.005]"], [0, 0, 0]),
    ([0, 0, 0], 2, {}, ["(-0.001,0]", "(0,0.001]"], [0, 0, 0]),
    ([1, np.nan, 3], 2, {}, ["(0.998,2]", "(2,3]"], [0, NA, 1]),
    ([1, 2, 3], [2], {}, ["(0.998,2]", "(2,3]"], [0, 0, 1]),
    ([1, 2, 3], [0, 1.0000001, 1.0000002, 3], {},
     ["(0,1.0000001]", "(1.0000001,1.0000002]", "(1.0000002,3]"], [0, 2, 2]),
    ([1, 2, 3], [3, 0, 2], {}, ["(0,2]", "(2,3]"], [0, 0, 1]),
    ([1, 2, 3], [0, 2, 3], {"labels": ["a", "a"]}, ["a"], [0, 0, 0]),
    ([1, 2, 3], [-np.inf, 2, np.inf], {}, ["(-Inf,2]", "(2, Inf]"], [0, 0, 1]),
    ([1, 2, 3], [0, 2, np.nan], {}, ["(0,2]"], [0, 0, NA]),
    ([-1e6, 1e6], 4, {}, ["(-1e+06,-5e+05]", "(-5e+05,0]", "(0,5e+05]", "(5e+05,1e+06]"],
     [0, 3]),
    ([1e-5, 2e-5], 2, {}, ["(9.99e-06,1.5e-05]", "(1.5e-05,2e-05]"], [0, 1]),
    (range(1, 11), 2.5, {}, ["(0.991,5.5]", "(5.5,10]"], [0] * 5 + [1] * 5),
    (np.array([0.1, 0.2, 0.3]) * 3, 3, {}, ["(0.299,0.5]", "(0.5,0.7]", "(0.7,0.901]"],
     [0, 1, 2]),
]


@pytest.mark.parametrize("x, breaks, kw, levels, values", R_CUTS)
def test_cut_gives_r_levels_and_values(x, breaks, kw, levels, values):
    got = cut(pd.Series(list(x), dtype=float), breaks, **kw)
    assert list(got.cat.categories) == levels
    assert got.cat.codes.tolist() == [-1 if v is NA else v for v in values]
    assert not got.cat.ordered


def test_labels_false_gives_interval_numbers():
    x = pd.Series(np.arange(1.0, 11.0))
    assert cut(x, [0, 5, 10], labels=False).tolist() == [1.0] * 5 + [2.0] * 5
    assert cut(x, 3, labels=False, right=False).tolist() == [1.0] * 3 + [2.0] * 3 + [3.0] * 4
    outside = cut(x, [0, 5, 9], labels=False)
    assert np.isnan(outside.iloc[-1]) and outside.iloc[-2] == 2.0


def test_ordered_result_and_labels_without_breaks_that_print_apart():
    got = cut(pd.Series([1.0, 2.0, 3.0]), [0, 1, 2, 3], ordered_result=True)
    assert got.cat.ordered and list(got.cat.categories) == ["(0,1]", "(1,2]", "(2,3]"]
    close = cut(pd.Series([0.5, 1.5]), [0, 1, 1 + 1e-14, 2])     # alike at 12 digits
    assert list(close.cat.categories) == ["Range_1", "Range_2", "Range_3"]


@pytest.mark.parametrize("x, breaks, kw, match", [
    ([1, 2, 3], [1, 1, 2], {}, "breaks are not unique"),
    ([1, 2, 3], 1, {}, "not a valid number of intervals"),
    ([1, 2, 3], 0, {}, "not a valid number of intervals"),
    ([1, 2, 3], [0, np.nan], {}, "give no interval"),
    ([1, 2, 3], [0, 2, 3], {"labels": ["a"]}, r"1 labels for 2 intervals"),
    ([np.nan, np.nan], 2, {}, "no finite range"),
])
def test_cut_refuses_what_r_refuses(x, breaks, kw, match):
    with pytest.raises(ValueError, match=match):
        cut(pd.Series(x, dtype=float), breaks, **kw)


@pytest.mark.parametrize("x", [pd.Series(pd.Categorical(["a", "b"])), pd.Series(["1", "2"]),
                               pd.Series([True, False])])
def test_cut_needs_numbers(x):
    with pytest.raises(TypeError, match="cut\\(\\) needs a numeric column"):
        cut(x, 2)


def test_counted_breaks_are_kept_for_new_data():
    """R's predict.gbm evaluates cut(x, k) again on the new data (other breaks, other
    labels); pygbm keeps the training data's breaks."""
    d = boston()
    mf = model_frame("medv ~ cut(lstat, 4) + rm", d)
    few = d.iloc[:5]                          # a narrower range than the training rows'
    x_new = model_frame_newdata(mf.encoder, few)
    np.testing.assert_array_equal(x_new[:, 0], mf.x[:5, 0])


def test_fit_with_cut_terms_predicts_the_same_rows_alike_and_pickles():
    d = boston()
    formula = ("medv ~ cut(lstat, 4) + cut(rm, c(0, 5, 6, 7, Inf), right = FALSE) "
               "+ cut(age, 3, labels = FALSE) + ifelse(chas == 1, TRUE, FALSE)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pygbm.GBMMessage)
        fit = pygbm.gbm(formula, data=d, distribution="gaussian", n_trees=30,
                        interaction_depth=2)
        whole = fit.predict(d, n_trees=30)
        some = fit.predict(d.iloc[100:120], n_trees=30)
        again = pickle.loads(pickle.dumps(fit)).predict(d.iloc[100:120], n_trees=30)
    np.testing.assert_array_equal(some, whole[100:120])
    np.testing.assert_array_equal(again, some)
    assert fit.var_levels[0] == ["(1.69,10.8]", "(10.8,19.9]", "(19.9,28.9]", "(28.9,38]"]  # R's


def test_numbers_outside_the_breaks_are_missing_not_refused():
    """R's cut() gives NA outside the breaks, which gbm fits as missing: not the
    "NaN found in predictor variables" of a transform that made NaN."""
    d = boston()
    mf = model_frame("medv ~ cut(lstat, c(5, 10, 20), labels = FALSE) + rm", d)
    outside = (d["lstat"] <= 5) | (d["lstat"] > 20)
    np.testing.assert_array_equal(np.isnan(mf.x[:, 0]), outside.to_numpy())
