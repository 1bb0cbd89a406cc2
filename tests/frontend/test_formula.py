"""model_frame(): R's gbm model-frame meaning of a formula, on the project's data sets."""

import warnings

import numpy as np
import pandas as pd
import pytest

from pygbm.frontend import ModelFrame, PredictorEncoder, model_frame, model_frame_newdata, \
    offset_newdata, response_newdata
from pygbm.frontend.r_functions import compare

from ._data import boston, insurance, read

BOSTON_PREDICTORS = ["crim", "zn", "indus", "chas", "nox", "rm", "age", "dis", "rad", "tax",
                     "ptratio", "b", "lstat"]


def _mf(formula, data, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return model_frame(formula, data, **kw)


# ---------------------------------------------------------------- the dot and terms
def test_dot_is_all_other_columns_in_data_order():
    mf = _mf("medv ~ .", boston())
    assert isinstance(mf, ModelFrame)
    assert mf.var_names == BOSTON_PREDICTORS
    assert mf.response_name == "medv"
    np.testing.assert_array_equal(mf.y, read("boston")["medv"].to_numpy())
    assert mf.offset is None and mf.weights is None and not mf.is_surv
    assert mf.var_type[BOSTON_PREDICTORS.index("chas")] == 2
    assert mf.x.shape == (506, 13)


def test_dot_minus_and_plus_terms():
    d = boston()
    mf = _mf("medv ~ . - chas - rad", d)
    assert mf.var_names == [c for c in BOSTON_PREDICTORS if c not in ("chas", "rad")]
    mf = _mf("medv ~ log(lstat) + . + I(rm^2)", d)  # '.' expands in place, as in R
    assert mf.var_names == ["log(lstat)"] + BOSTON_PREDICTORS + ["I(rm^2)"]
    np.testing.assert_allclose(mf.x[:, -1], d["rm"].to_numpy() ** 2)  # ^ is a power, as in R
    np.testing.assert_allclose(mf.x[:, 0], np.log(d["lstat"].to_numpy()))


def test_explicit_terms_and_labels():
    d = boston()
    mf = _mf("medv ~ lstat + I(dis * nox) + sqrt(tax) + exp(nox) + I(crim > 1)", d)
    assert mf.var_names == ["lstat", "I(dis * nox)", "sqrt(tax)", "exp(nox)", "I(crim > 1)"]
    np.testing.assert_allclose(mf.x[:, 1], d["dis"] * d["nox"])
    assert mf.var_type.tolist() == [0, 0, 0, 0, 2]  # a logical term is a 2-level factor
    assert mf.var_levels[4] == ["FALSE", "TRUE"]
    np.testing.assert_array_equal(mf.x[:, 4], (d["crim"] > 1).astype(float))
    mf = _mf("medv ~ C(rad) + chas - 1", d)  # C(): treat a number as a factor
    assert mf.var_names == ["C(rad)", "chas"] and mf.var_type.tolist() == [9, 2]
    assert mf.var_levels[0] == ["1", "2", "3", "4", "5", "6", "7", "8", "24"]


def test_r_functions_log_base_and_no_variation_warning():
    d = boston()
    with pytest.warns(UserWarning, match=r"^variable 2: I\(lstat \* 0\) has no variation\.$"):
        mf = model_frame("medv ~ log(lstat, 2) + I(lstat * 0)", d)
    np.testing.assert_allclose(mf.x[:, 0], np.log2(d["lstat"]), rtol=1e-15)


def test_r_style_dotted_and_backticked_names():
    lung = read("lung").rename(columns={"inst": "inst no"})
    mf = _mf("Surv(time, status) ~ log(ph.karno) + `inst no` + ph.ecog + I(`meal.cal`/100)", lung)
    assert mf.var_names == ["log(ph.karno)", "inst no", "ph.ecog", "I(meal.cal/100)"]
    np.testing.assert_allclose(mf.x[:, 0], np.log(lung["ph.karno"]))
    np.testing.assert_allclose(mf.x[:, 3], lung["meal.cal"] / 100)


def test_categorical_stays_one_column_no_dummies():
    lc = read("lending_club")
    mf = _mf("Class ~ addr_state + sub_grade + int_rate", lc)
    assert mf.x.shape == (len(lc), 3)
    assert mf.var_type.tolist() == [50, 35, 0]
    assert mf.var_levels[0][:3] == ["AK", "AL", "AR"]


def test_missing_values_kept_no_rows_dropped():
    pima = read("pima2")
    mf = _mf("diabetes ~ .", pima)
    assert mf.x.shape == (768, 8)
    assert np.isnan(mf.x).sum() == pima.drop(columns="diabetes").isna().sum().sum() == 652
    mf = _mf("diabetes ~ log(insulin) + mass", pima)
    assert np.isnan(mf.x[:, 0]).sum() == 374


def test_interactions_are_refused():
    d = boston()
    for formula in ("medv ~ crim:lstat", "medv ~ crim * lstat", "medv ~ (crim + lstat)^2",
                    "medv ~ crim / lstat"):
        with pytest.raises(ValueError, match="interaction.*interaction_depth"):
            model_frame(formula, d)


def test_response_on_right_hand_side_dropped_with_warning():
    with pytest.warns(UserWarning, match="response medv appeared on the right-hand side"):
        mf = model_frame("medv ~ medv + lstat", boston())
    assert mf.var_names == ["lstat"]


# ---------------------------------------------------------------- weights and offset
def test_weights_by_name_array_and_series():
    pima = read("pima2")
    with pytest.warns(UserWarning, match="R's meaning of '.'"):
        mf = model_frame("diabetes ~ .", pima, weights="pedigree")
    assert "pedigree" in mf.var_names  # R: '.' is every column but the response
    assert "pedigree" not in _mf("diabetes ~ . - pedigree", pima, weights="pedigree").var_names
    np.testing.assert_array_equal(mf.weights, pima["pedigree"].to_numpy())
    w = np.linspace(0.5, 2, len(pima))
    np.testing.assert_array_equal(_mf("diabetes ~ mass", pima, weights=w).weights, w)
    np.testing.assert_array_equal(_mf("diabetes ~ mass", pima, weights=pd.Series(w)).weights, w)


@pytest.mark.parametrize("weights, match", [
    (np.ones(5), "weights has length 5"),
    (-np.ones(768), "weights has 768 negative values"),
    (np.r_[np.nan, np.ones(767)], "weights has 1 missing values"),
    (np.zeros(768), "weights must be finite and not all zero"),
    ("pedigre", "weights: column 'pedigre' is not in data.*'pedigree'"),
])
def test_bad_weights(weights, match):
    with pytest.raises(ValueError, match=match):
        model_frame("diabetes ~ mass", read("pima2"), weights=weights)


def test_non_numeric_weights():
    with pytest.raises(TypeError, match="weights must be numeric"):
        model_frame("diabetes ~ mass", read("pima2"), weights=["a"] * 768)


def test_offset_insurance_and_dot_excludes_offset_columns():
    ins = insurance()
    with pytest.warns(UserWarning, match="R's meaning of '.'"):
        mf = model_frame("Claims ~ . + offset(log(Holders))", ins)
    assert mf.var_names == ["District", "Group", "Age", "Holders"]  # as in R
    mf = _mf("Claims ~ . - Holders + offset(log(Holders))", ins)
    assert mf.var_names == ["District", "Group", "Age"]
    np.testing.assert_allclose(mf.offset, np.log(ins["Holders"]), rtol=1e-15)
    assert mf.var_type.tolist() == [4, 0, 0]  # District factor; Group, Age ordered
    mf2 = _mf("Claims ~ Group + offset(log(Holders)) + offset(I(Holders/1000))", ins)
    np.testing.assert_allclose(mf2.offset, np.log(ins["Holders"]) + ins["Holders"] / 1000)
    np.testing.assert_allclose(offset_newdata(mf2.encoder, ins.iloc[:3]), mf2.offset[:3])
    assert offset_newdata(_mf("Claims ~ Group", ins).encoder, ins) is None


def test_parsed_formula_kept_per_columns():
    """formulaic's parse is kept for the next call of the same formula on the same
    columns; other columns (the dot) are parsed again; a bad formula is not kept."""
    ins = insurance()
    formula = "Claims ~ . - Holders + offset(log(Holders))"
    first, again = _mf(formula, ins), _mf(formula, ins)
    assert again.var_names == first.var_names == ["District", "Group", "Age"]
    np.testing.assert_array_equal(again.offset, first.offset)
    fewer = _mf(formula, ins.drop(columns=["Age"]))
    assert fewer.var_names == ["District", "Group"]
    for _ in range(2):
        with pytest.raises(ValueError, match="could not be parsed"):
            model_frame("Claims ~ log(Holders", ins)


def test_offset_with_missing_values_is_an_error():
    ins = insurance()
    ins.loc[3, "Holders"] = np.nan
    with pytest.raises(ValueError, match="offset has 1 missing values"):
        model_frame("Claims ~ Group + offset(log(Holders))", ins)


# ---------------------------------------------------------------- responses
def test_surv_response_lung():
    lung = read("lung")
    mf = _mf("Surv(time, status) ~ .", lung)
    assert mf.is_surv and mf.response_name == "Surv(time, status)"
    assert "time" not in mf.var_names and "status" not in mf.var_names
    assert mf.var_names == ["inst", "age", "sex", "ph.ecog", "ph.karno", "pat.karno",
                            "meal.cal", "wt.loss"]
    np.testing.assert_array_equal(mf.y, lung["time"].to_numpy(dtype=float))
    np.testing.assert_array_equal(mf.status, (lung["status"] == 2).to_numpy(dtype=float))
    mf2 = _mf("Surv(time, status == 2) ~ age", lung)  # R idiom: logical status
    np.testing.assert_array_equal(mf2.status, mf.status)


def test_surv_response_with_missing_time():
    lung = read("lung")
    lung.loc[[0, 1], "time"] = np.nan
    with pytest.raises(ValueError, match="Surv\\(time, status\\) has 2 missing values"):
        model_frame("Surv(time, status) ~ age", lung)


def test_two_level_string_response_is_zero_one():
    lc = read("lending_club")
    mf = _mf("Class ~ int_rate", lc)
    assert mf.y_is_categorical and mf.y_levels == ["bad", "good"]
    np.testing.assert_array_equal(mf.y, (lc["Class"] == "good").to_numpy(dtype=float))


def test_bool_and_categorical_responses():
    d = boston()
    mf = _mf("I(medv > 25) ~ lstat", d)
    assert mf.y_levels == ["FALSE", "TRUE"] and mf.y_is_categorical
    np.testing.assert_array_equal(mf.y, (d["medv"] > 25).to_numpy(dtype=float))
    d["grade"] = pd.Categorical(np.where(d["medv"] > 25, "hi", "lo"), categories=["lo", "hi"])
    mf = _mf("grade ~ lstat", d)
    assert mf.y_levels == ["lo", "hi"]  # the second level is 1, as R's factor coding
    np.testing.assert_array_equal(mf.y, (d["medv"] > 25).to_numpy(dtype=float))


def test_response_dtypes():
    d = pd.DataFrame({"y": pd.Series([1, 2, 3, 4], dtype=object), "x": [1.0, 2.0, 3.0, 4.0],
                      "t": pd.date_range("2020-01-01", periods=4)})
    np.testing.assert_array_equal(_mf("y ~ x", d).y, [1, 2, 3, 4])  # numbers held as objects
    with pytest.raises(TypeError, match="the response 't' has dtype datetime"):
        model_frame("t ~ x", d)


def test_multiclass_response_keeps_codes():
    letter = read("letter")
    response = letter.columns[0]
    mf = _mf(f"{response} ~ .", letter)
    assert mf.y_levels == [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    assert set(np.unique(mf.y)) == set(range(26))
    np.testing.assert_array_equal(mf.y == 0, (letter[response] == "A").to_numpy())


def test_numeric_response_transformed():
    d = boston()
    mf = _mf("log(medv) ~ lstat", d)
    assert mf.response_name == "log(medv)" and not mf.y_is_categorical and mf.y_levels is None
    np.testing.assert_allclose(mf.y, np.log(d["medv"]))


@pytest.mark.parametrize("lhs, label, value", [
    # R evaluates the left-hand side as one expression; a formula parser would read
    # y - 1 as y without an intercept, y^2 as y, -y as no response at all
    ("medv - 1", "medv - 1", lambda d: d.medv - 1),
    ("medv^2", "medv^2", lambda d: d.medv ** 2),
    ("-medv", "-medv", lambda d: -d.medv),
    ("medv/10", "medv/10", lambda d: d.medv / 10),
    ("medv + crim", "medv + crim", lambda d: d.medv + d.crim),
    ("log(medv) + 1", "log(medv) + 1", lambda d: np.log(d.medv) + 1),
    ("(medv*2)", "(medv * 2)", lambda d: d.medv * 2),
    ("medv > 25", "medv > 25", lambda d: d.medv > 25),
    ("medv>=25&rm> 6", "medv >= 25 & rm > 6", lambda d: (d.medv >= 25) & (d.rm > 6)),
    ("!(medv > 25)", "!(medv > 25)", lambda d: d.medv <= 25),
    ("rad %in% c(1, 2)", "rad %in% c(1, 2)", lambda d: d.rad.isin([1, 2])),
])
def test_left_hand_side_is_one_r_expression(lhs, label, value):
    d = boston()
    mf = _mf(f"{lhs} ~ lstat + rm", d)
    assert mf.response_name == label and mf.var_names == ["lstat", "rm"]
    expected = value(d).to_numpy(dtype=float)
    np.testing.assert_allclose(mf.y, expected, rtol=1e-15)
    assert mf.y_levels == (["FALSE", "TRUE"] if value(d).dtype == bool else None)
    assert response_newdata(f"{lhs} ~ lstat + rm", d.iloc[:5]).y.tolist() == \
        expected[:5].tolist()


def test_dot_leaves_out_every_column_of_the_response():
    d = boston()
    mf = _mf("medv > 25 & rm > 6 ~ .", d)
    assert "medv" not in mf.var_names and "rm" not in mf.var_names
    assert len(mf.var_names) == d.shape[1] - 2


@pytest.mark.parametrize("term", ["as.POSIXct(rm)", "is.numeric(rad)"])
def test_r_functions_named_after_python_keywords_are_named_in_the_error(term):
    # as.* and is.* cannot even be parsed by Python ("invalid syntax" before)
    with pytest.raises(ValueError, match=rf"calls '{term.split('(')[0]}', which is not "
                                         "available in formulas"):
        _mf(f"medv ~ {term}", boston())


def test_factor_labels_and_na_rm_as_in_r():
    from pygbm.frontend.r_factors import factor
    from pygbm.frontend.r_functions import pmax, pmin
    # R: x <- c(1, 2, 2, 3, NA); factor(x, labels = c("a", "b", "c")); labels = "L";
    # labels = c("a", "a", "c") (levels merged); labels = c("a", "b") an error
    x = pd.Series([1, 2, 2, 3, np.nan])
    assert factor(x, labels=["a", "b", "c"]).tolist()[:4] == ["a", "b", "b", "c"]
    assert factor(x, labels="L").tolist()[:4] == ["L1", "L2", "L2", "L3"]
    merged = factor(x, labels=["a", "a", "c"])
    assert list(merged.cat.categories) == ["a", "c"] and merged.tolist()[:4] == list("aaac")
    with pytest.raises(ValueError, match="invalid 'labels'; length 2 should be 1 or 3"):
        factor(x, labels=["a", "b"])
    # R: pmin(c(1, NA, 3), c(NA, NA, 1), na.rm = TRUE) is 1 NA 1
    np.testing.assert_array_equal(pmin([1, np.nan, 3], [np.nan, np.nan, 1], na_rm=True),
                                  [1, np.nan, 1])
    np.testing.assert_array_equal(pmax([1, np.nan, 3], 2, na_rm=True), [2, 2, 3])


def test_summaries_of_the_training_data_are_kept_for_new_data():
    # R's predict.gbm would take the new rows' own mean and median; pygbm keeps the
    # training data's, as for scale(x)
    d = boston()
    f = "medv ~ I(lstat - mean(lstat)) + ifelse(rm > median(rm), 1, 0) + I(tax/max(tax))"
    mf = _mf(f, d)
    new = model_frame_newdata(mf.encoder, d.iloc[:5])
    np.testing.assert_array_equal(new[:, 0], mf.x[:5, 0])
    np.testing.assert_array_equal(new[:, 1], (d.rm[:5] > d.rm.median()).astype(float))
    np.testing.assert_array_equal(new[:, 2], d.tax[:5] / d.tax.max())


def test_factor_of_a_factor_exclude_and_na_levels_as_r():
    from pygbm.frontend.r_factors import add_na, as_factor, as_ordered, factor, ordered
    g = pd.Series(pd.Categorical(["b", "a", None, "b"], categories=["c", "b", "a"]))
    o = pd.Series(pd.Categorical(["lo", "hi"], categories=["lo", "mid", "hi"], ordered=True))
    # R: levels(factor(g)) "b" "a" (the used ones, in g's order); as.factor(g) is g
    assert list(factor(g).cat.categories) == ["b", "a"] and not factor(g).cat.ordered
    assert as_factor(g) is g and as_factor(o) is o and add_na(g) is g
    # R: factor() of an ordered factor stays ordered (ordered = is.ordered(x)); as.ordered
    assert factor(o).cat.ordered and list(factor(o).cat.categories) == ["lo", "hi"]
    assert not factor(o, ordered=False).cat.ordered
    assert factor(pd.Series([2.0, 1.0]), ordered=True).cat.ordered
    assert list(as_ordered(g).cat.categories) == ["b", "a"] and as_ordered(o) is o
    assert list(ordered(o).cat.categories) == ["lo", "hi"]
    # R: factor(c(0, 3, 5, NA, 2), exclude = c(3, NA)) has levels "0" "2" "5"; 3 missing
    x = factor(pd.Series([0, 3, 5, np.nan, 2.0]), exclude=[3, np.nan])
    assert list(x.cat.categories) == [0, 2, 5] and x.isna().tolist() == [0, 1, 0, 1, 0]
    assert list(factor(pd.Series(["a", "b", "c"]), exclude="b").cat.categories) == ["a", "c"]
    assert list(factor(g, exclude=None).cat.categories) == ["b", "a"]


def test_an_na_level_is_a_predictor_as_r_gbm_codes_it_and_refused_where_read():
    d = pd.DataFrame({"y": np.arange(6.0), "g": ["a", "b", None, "a", "b", None]})
    plain = _mf("y ~ factor(g)", d)
    for term in ("addNA(g)", "factor(g, exclude = NULL)", 'factor(g, exclude = "c")',
                 "as.factor(addNA(g))", 'relevel(addNA(g), ref = "a")',
                 "as.numeric(factor(addNA(g)))"):
        mf = _mf(f"y ~ {term}", d)      # R gbm: levels a, b; NA rows missing
        np.testing.assert_array_equal(mf.x[:, 0], plain.x[:, 0] + ("numeric" in term))
    for term in ("as.numeric(addNA(g))", "is.na(factor(g, exclude = NULL))",
                 'I(addNA(g) == "a")', 'factor(g, exclude = "b", labels = c("A", "N"))',
                 "as.integer(factor(g, exclude = 3))"):
        with pytest.raises(ValueError, match="a factor's NA level .* taken as a predictor only"):
            _mf(f"y ~ {term}", d)
    # exclude naming NA drops it: no NA level to read
    np.testing.assert_array_equal(_mf('y ~ as.numeric(factor(g, exclude = c("b", NA))) + g',
                                      d.assign(g=list("acbaca"))).x[:, 0], [1, 2, np.nan, 1, 2, 1])


def test_ifelse_makes_text_and_factor_codes_as_r():
    from pygbm.frontend.r_functions import ifelse
    x = pd.Series([1, 2, 3, 4, 5.5, 6, 7, 8])
    # R: ifelse(x > 3, x, "none") is "none" x3, "4", "5.5", "6", "7", "8"; with 1: "1"
    assert ifelse(x > 3, x, "none").tolist() == ["none"] * 3 + ["4", "5.5", "6", "7", "8"]
    assert ifelse(x > 3, 1, "none").tolist() == ["none"] * 3 + ["1"] * 5
    assert ifelse(x > 3, True, "none").tolist()[-1] == "TRUE"
    assert ifelse(x > 3, 0.1 + 0.2, "n").tolist()[-1] == "0.3"
    # a factor side gives its level codes; a side never used does not make text
    f = pd.Series(pd.Categorical(list("abcabcab")))
    assert ifelse(x > 3, f, "none").tolist() == ["none"] * 3 + ["1", "2", "3", "1", "2"]
    assert ifelse(x > 3, f, 0).tolist() == [0, 0, 0, 1, 2, 3, 1, 2]
    assert ifelse(x > 0, 1, "none").tolist() == [1] * 8
    with pytest.raises(ValueError, match="one value or one per row, got 3 for 8"):
        ifelse(x > 3, [1, 2, 3], 0)


def test_a_formulas_groups_are_formula_syntax_as_r():
    # R: y ~ (x + g) - g has the one predictor x; its group is not an R expression
    d = boston()
    mf = _mf("medv ~ (rm + I(lstat^2) + factor(rad)) - factor(rad)", d)
    assert list(mf.var_names) == ["rm", "I(lstat^2)"]
    np.testing.assert_array_equal(mf.x[:, 1], d.lstat * d.lstat)
    with pytest.raises(ValueError, match="term 'rm:lstat' is an interaction"):
        _mf("medv ~ (rm + lstat)^2", d)


def test_numbers_as_text_paste_and_interaction_as_r():
    from pygbm.frontend.encode import r_label
    from pygbm.frontend.r_factors import interaction
    from pygbm.frontend.r_text import paste, paste0
    # R: as.character(c(100000, 1e-4, 0.0001234, 1e15, 123456, 2, -1e5, 100000.5))
    assert [r_label(v) for v in (100000.0, 1e-4, 0.0001234, 1e15, 123456.0, 2.0, -1e5,
                                 100000.5)] == ["1e+05", "1e-04", "0.0001234", "1e+15",
                                                "123456", "2", "-1e+05", "100000.5"]
    assert r_label(100000) == "100000"          # an integer: R's digits
    g, h = pd.Series(["b", "a", None, "b"]), pd.Series(["x", "y", "y", None])
    # R: paste(g, h); paste0(g, 1.50, TRUE)
    assert paste(g, h).tolist() == ["b x", "a y", "NA y", "b NA"]
    assert paste0(g, 1.5, True).tolist()[:3] == ["b1.5TRUE", "a1.5TRUE", "NA1.5TRUE"]
    with pytest.raises(ValueError, match="collapse"):
        paste(g, collapse="+")
    # R: levels(interaction(g, h)) "a.x" "b.x" "a.y" "b.y", codes 2 3 NA NA
    f = interaction(g, h)
    assert list(f.cat.categories) == ["a.x", "b.x", "a.y", "b.y"]
    assert f.cat.codes.tolist() == [1, 2, -1, -1]
    assert list(interaction(g, h, lex_order=True).cat.categories) == ["a.x", "a.y", "b.x",
                                                                      "b.y"]
    assert list(interaction(g, h, drop=True, sep="_").cat.categories) == ["b_x", "a_y"]
    mf = _mf("medv ~ interaction(chas, rad, lex.order = TRUE) + factor(paste(chas, rad))",
             boston())
    assert list(mf.var_levels[0])[:2] == ["0.1", "0.2"] and mf.var_levels[1][0] == "0 1"


def test_text_functions_and_quantile_breaks_as_r():
    from pygbm.frontend.r_text import nchar, substr, tolower, toupper
    h = pd.Series(["hello", None, "hi"])
    # R: substr(c("hello", NA, "hi"), 2, 3) "el" NA "i"; nchar(c(123, 1e5, 0.5)) 3 5 3
    assert substr(h, 2, 3).tolist()[::2] == ["el", "i"] and pd.isna(substr(h, 2, 3)[1])
    assert substr(pd.Series(["abc"]), 0, 10)[0] == "abc" and substr(pd.Series(["abc"]), 3, 2)[0] == ""
    assert nchar(pd.Series([123.0, 1e5, 0.5])).tolist() == [3, 5, 3]
    assert toupper(pd.Series(pd.Categorical(["a", None]))).tolist()[0] == "A"
    assert tolower(pd.Series(["AbC"]))[0] == "abc"
    with pytest.raises(TypeError, match="'nchar\\(\\)' requires a character vector"):
        nchar(pd.Series(pd.Categorical(["ab"])))
    # cut at the training data's quartiles, kept for new data as scale() keeps its own
    d = boston()
    mf = _mf("medv ~ cut(lstat, quantile(lstat, (0:4)/4), include.lowest = TRUE)", d)
    assert len(mf.var_levels[0]) == 4
    new = model_frame_newdata(mf.encoder, d.iloc[:50])
    np.testing.assert_array_equal(new[:, 0], mf.x[:50, 0])


def test_columns_named_as_stateful_functions_do_not_hide_them():
    # R looks a called name up among functions only: a column `mean` or `scale` is data
    # where it is a name and the function where it is called, at fit and on new data
    d = boston()
    named = d.assign(mean=d.crim, scale=d.zn, max=d.tax)
    f = "medv ~ I(lstat - mean(lstat)) + scale(rm) + I(tax/max(tax)) + mean + scale"
    mf, plain = _mf(f, named), _mf(f.replace(" + mean + scale", ""), d)
    np.testing.assert_array_equal(mf.x[:, :3], plain.x)
    np.testing.assert_array_equal(mf.x[:, 3:], named[["mean", "scale"]].to_numpy())
    new = named.iloc[:7].assign(lstat=1.0, rm=2.0)
    np.testing.assert_array_equal(model_frame_newdata(mf.encoder, new)[:, :3],
                                  model_frame_newdata(plain.encoder, new)[:, :3])


def test_summaries_with_missing_values_as_r():
    d = read("lung")
    # R: mean(x) of a column with NA is NA (so is every row of the term); quantile refuses
    mf = _mf("time ~ I(meal.cal - mean(meal.cal, na.rm = TRUE)) + age", d)
    np.testing.assert_allclose(mf.x[:, 0], d["meal.cal"] - d["meal.cal"].mean(), rtol=1e-12)
    with pytest.raises(ValueError, match="missing values and NaN's not allowed if 'na.rm'"):
        _mf("time ~ I(age > quantile(wt.loss, 0.5)) + age", d)
    # R: mean(age > 60) is the share of TRUE
    share = _mf("time ~ I(age - mean(age > 60)) + sex", d).x[:, 0] + 0
    np.testing.assert_allclose(share, d.age - (d.age > 60).mean(), rtol=1e-12)
    with pytest.raises(TypeError, match=r"mean\(\) takes numbers"):
        _mf("time ~ I(age - mean(as.character(sex))) + sex", d)
    with pytest.raises(ValueError, match="a vector of another length than the rows"):
        _mf("time ~ I(age > quantile(age, c(0.1, 0.9))) + sex", d)


def test_summaries_take_r_s_arguments_in_r_s_order():
    from pygbm.frontend.r_summaries import mean, median, quantile, r_max, r_min, sd, var
    x1, x2 = pd.Series([1.0, 2, 3, 10]), pd.Series([5.0, np.nan, 7, 1])
    # R: mean(x1, 0.1) (trim, not na.rm) 4; mean(c(1, 2, 3, 100), trim = 0.25) 2.5;
    # median(x2, TRUE) 5; sd(x2, TRUE) 3.05505; max(x1, x2) NA;
    # min(x1, x2, na.rm = TRUE) 1; quantile(x2, 0.3, TRUE) 3.4; type = 6: 1.8
    assert mean(x1, 0.1) == 4 and mean(pd.Series([1.0, 2, 3, 100]), trim=0.25) == 2.5
    assert np.isnan(mean(x2, 0.1)) and mean(x1, 0.6) == 2.5      # a trim of 0.5+: median
    assert median(x2, True) == 5 and sd(x2, True) == pytest.approx(3.0550504633038935)
    assert np.isnan(r_max(x1, x2)) and r_min(x1, x2, na_rm=True) == 1
    assert r_max(x1, 30, na_rm=True) == 30
    assert quantile(x2, 0.3, True) == pytest.approx(3.4)
    assert quantile(x2, 0.3, type=6, na_rm=True) == pytest.approx(1.8)
    with pytest.raises(ValueError, match=r"var\(x, y\) of two variables"):
        var(x1, True)
    with pytest.raises(ValueError, match="'type' must be 1 to 9"):
        quantile(x1, 0.5, type=10)


def test_an_unknown_function_is_named_in_the_term_as_r_writes_it():
    # not in the calls written for R's operators (_r_power(_r_numeric(rm), 2), ...)
    with pytest.raises(ValueError, match=r"formula term 'I\(rm\^2 \+ foo\(lstat\)\)' "
                                         r"calls 'foo'"):
        _mf("medv ~ I(rm^2 + foo(lstat))", boston())


def test_r_logical_functions():
    from pygbm.frontend.r_functions import as_logical, is_finite, is_infinite
    # R: as.logical(c("TRUE","true","True","T","t","yes","FALSE","F","0","1"))
    text = pd.Series(["TRUE", "true", "True", "T", "t", "yes", "FALSE", "F", "0", "1"])
    assert [None if v is pd.NA else bool(v) for v in as_logical(text)] == \
        [True, True, True, True, None, None, False, False, None, None]
    assert as_logical(pd.Series([0.0, 2.5, np.nan])).tolist() == [False, True, pd.NA]
    # R: is.finite(c("a", "1")) FALSE FALSE; is.finite(c(TRUE, NA)) TRUE FALSE
    assert is_finite(pd.Series(["a", "1"])).tolist() == [False, False]
    assert is_finite(pd.Series(pd.array([True, None], dtype="boolean"))).tolist() == [True, False]
    assert is_finite(pd.Series([1.0, np.inf, np.nan])).tolist() == [True, False, False]
    assert is_infinite(pd.Series([1.0, -np.inf, np.nan])).tolist() == [False, True, False]


def test_missing_response_error_wording():
    pima = read("pima2")
    pima.loc[[3, 9, 20], "diabetes"] = np.nan
    with pytest.raises(ValueError, match=r"^the response diabetes has 3 missing values; gbm does "
                                         r"not allow missing values in the response$"):
        model_frame("diabetes ~ .", pima)


# ---------------------------------------------------------------- input errors
@pytest.mark.parametrize("formula, match", [
    ("medv ~ crm + lstat", r"'crm' \(similar columns: \['crim', 'rm'\]\)"),
    ("medv ~ . - zzz", r"'zzz' \(available columns: \['crim'"),
    ("medv ~ log(lsat)", r"'lsat' \(similar columns: \['lstat'\]\)"),
    ("Medv ~ lstat", r"'Medv' \(similar columns: \['medv'\]\)"),
    ("~ lstat", "has no response"),
    ("medv lstat", "has no '~'"),
    ("medv ~ lstat +", "could not be parsed"),
    ("medv ~ 0", "has no predictors"),
    ("medv ~ poly(lstat, 2)", "gives 2 columns"),
    ("medv ~ lstat | rm", "multi-part formulas"),
    ("medv ~ I(lstat", "could not be parsed"),
    ("medv ~ `lstat", "could not be parsed"),
    # a bare comparison: R's grammar reads it as a term (R gbm's reformulate then
    # fails on it), formulaic's does not; the error says how to write it
    ("medv ~ lstat + (rm > 6)", r"could not be parsed \(a comparison is a term only inside "
                                r"a function call: write I\(b > 0\)"),
    ("medv ~ lstat + (chas == 1)", r"inside a function call.*Unknown operator '='"),
])
def test_formula_errors(formula, match):
    with pytest.raises(ValueError, match=match):
        model_frame(formula, boston())


def test_a_python_keyword_column_in_an_expression_is_named():
    """factor(class): formulaic cannot parse a Python keyword in an expression; the
    error was "invalid syntax (<unknown>, line 1)", and in as.factor(class) it blamed
    as.factor ("not available in formulas"), which is available."""
    d = boston().rename(columns={"chas": "class"})
    for formula in ("medv ~ factor(class)", "medv ~ as.factor(class)", "medv ~ I(`class` + 1)"):
        with pytest.raises(ValueError, match=r"could not be parsed: 'class' is a Python "
                                             r"keyword.*rename\(columns=\{'class': 'class_'\}"):
            model_frame(formula, d)
    assert model_frame("medv ~ class + lstat", d).var_names == ["class", "lstat"]
    with pytest.raises(ValueError, match=r"calls 'as.vector', which is not available"):
        model_frame('medv ~ as.vector(lstat) + I(rad == "class")', d)
    # another error is not blamed on a bare keyword column or a word of a backticked name
    d = d.rename(columns={"crim": "in stock"})
    for formula in ("medv ~ class + log(lstat", "medv ~ class + lstat + ",
                    "medv ~ `in stock` + log(lstat"):
        with pytest.raises(ValueError, match=r"could not be parsed") as caught:
            model_frame(formula, d)
        assert "Python keyword" not in str(caught.value)


def test_type_and_size_errors():
    d = boston()
    with pytest.raises(TypeError, match="formula must be a string"):
        model_frame(None, d)
    with pytest.raises(TypeError, match="data must be a pandas DataFrame"):
        model_frame("medv ~ .", d.to_numpy())
    with pytest.raises(ValueError, match="data has 0 row"):
        model_frame("medv ~ .", d.iloc[:0])
    with pytest.raises(ValueError, match="data has 1 row"):
        model_frame("medv ~ .", d.iloc[:1])
    mf = model_frame("y ~ x", {"y": [1.0, 2.0, 3.0], "x": [3.0, 1.0, 2.0]})  # a dict is fine
    assert mf.var_names == ["x"]
    with pytest.raises(ValueError, match=r"data given as a dict must map column names to "
                                         r"sequences of one length.*lengths \[2, 3\]"):
        model_frame("y ~ x", {"y": [1.0, 2.0, 3.0], "x": [3.0, 1.0]})


def test_newdata_as_a_dict():
    """A dict of columns, or of single values (one row, as R's data.frame(list(...)));
    unequal lengths are refused naming newdata."""
    d = boston()
    mf = _mf("medv ~ .", d)
    row = d.drop(columns="medv").iloc[3].to_dict()
    np.testing.assert_array_equal(model_frame_newdata(mf.encoder, row), mf.x[3:4])
    two = {k: [v, v] for k, v in row.items()}
    np.testing.assert_array_equal(model_frame_newdata(mf.encoder, two), mf.x[[3, 3]])
    with pytest.raises(ValueError, match="newdata given as a dict"):
        model_frame_newdata(mf.encoder, {"crim": [1.0, 2.0], "zn": [1.0, 2.0, 3.0]})


# ---------------------------------------------------------------- new data
def test_newdata_reproduces_training_matrix():
    d = boston()
    formula = "medv ~ log(crim) + I(rm^2) + chas + scale(tax) + ."
    mf = _mf(formula, d)
    assert isinstance(mf.encoder, PredictorEncoder)
    assert [t.label for t in mf.encoder.terms] == mf.var_names
    np.testing.assert_array_equal(model_frame_newdata(mf.encoder, d), mf.x)
    rows = d.iloc[[10, 3, 400]]
    np.testing.assert_array_equal(model_frame_newdata(mf.encoder, rows), mf.x[[10, 3, 400]])


def test_newdata_unseen_levels_missing_and_errors():
    lc = read("lending_club")
    mf = _mf("Class ~ addr_state + int_rate", lc)
    new = lc.iloc[:4].copy()
    new["addr_state"] = ["CA", "XX", None, "NY"]
    with pytest.warns(UserWarning, match=r"addr_state: \['XX'\]"):
        x = model_frame_newdata(mf.encoder, new)
    levels = mf.var_levels[0]
    np.testing.assert_array_equal(x[:, 0], [levels.index("CA"), len(levels), np.nan,
                                            levels.index("NY")])
    with pytest.raises(ValueError, match=r"not in newdata: 'int_rate'"):
        model_frame_newdata(mf.encoder, new.drop(columns="int_rate"))
    with pytest.raises(TypeError, match="column 'int_rate' in newdata must be numeric"):
        model_frame_newdata(mf.encoder, new.assign(int_rate=["13%", "1", "2", "3"]))


@pytest.mark.parametrize("formula", ["Class ~ addr_state + int_rate",
                                     "Class ~ addr_state + log(int_rate)"])
def test_newdata_missing_columns_all_named(formula):
    # each column newdata lacks is named in one error (it named the first only)
    lc = read("lending_club")
    mf = _mf(formula, lc)
    with pytest.raises(ValueError, match=r"columns not in newdata: 'addr_state'; 'int_rate'"):
        model_frame_newdata(mf.encoder, lc.drop(columns=["addr_state", "int_rate"]))


def test_newdata_without_terms_uses_columns():
    enc = PredictorEncoder().fit(read("boston")[["lstat", "rm"]])
    np.testing.assert_array_equal(model_frame_newdata(enc, read("boston").iloc[:2]),
                                  read("boston")[["lstat", "rm"]].iloc[:2].to_numpy())


def test_encoder_pickles_with_its_terms():
    import pickle

    d = boston()
    mf = _mf("medv ~ log(crim) + scale(tax) + chas + offset(log(b))", d)
    enc = pickle.loads(pickle.dumps(mf.encoder))
    np.testing.assert_array_equal(model_frame_newdata(enc, d.iloc[:5]), mf.x[:5])
    np.testing.assert_array_equal(offset_newdata(enc, d.iloc[:5]), mf.offset[:5])


# ---------------------------------------------------------------- R's functions in terms
def test_r_conversion_functions_mean_what_they_mean_in_r():
    d = boston().assign(tag=lambda x: np.where(x["rm"] > 6.5, "big", "small"))
    mf = _mf("medv ~ factor(rad) + as.factor(tag) + ordered(rad) + as.numeric(chas) "
             "+ as.integer(tax/100) + factor(rad, levels = c(1, 24))", d)
    assert mf.var_names == ["factor(rad)", "as.factor(tag)", "ordered(rad)", "as.numeric(chas)",
                            "as.integer(tax/100)", "factor(rad, levels = c(1, 24))"]
    assert mf.var_type.tolist() == [9, 2, 0, 0, 0, 2]
    assert mf.var_levels[0] == ["1", "2", "3", "4", "5", "6", "7", "8", "24"]  # as numbers
    np.testing.assert_array_equal(mf.x[:, 3], d["chas"].cat.codes + 1)  # a factor's codes
    np.testing.assert_array_equal(mf.x[:, 4], np.trunc(d["tax"] / 100))
    outside = ~d["rad"].isin([1, 24]).to_numpy()  # values outside levels are missing
    assert np.isnan(mf.x[outside, 5]).all() and not np.isnan(mf.x[~outside, 5]).any()


def test_r_elementwise_functions():
    d = boston()
    d.loc[[0, 5], "lstat"] = np.nan
    mf = _mf("medv ~ pmin(lstat, 10) + pmax(rm, 6, age/10) + round(nox, 1) "
             "+ ifelse(chas == 1, 'river', 'inland') + ifelse(lstat > 10, 1, 0)", d)
    assert mf.var_names[3] == 'ifelse(chas == 1, "river", "inland")'  # R's deparse
    np.testing.assert_array_equal(mf.x[:, 0], np.minimum(d["lstat"], 10))
    np.testing.assert_array_equal(mf.x[:, 1], np.maximum(np.maximum(d["rm"], 6), d["age"] / 10))
    np.testing.assert_array_equal(mf.x[:, 2], np.round(d["nox"], 1))
    assert mf.var_levels[3] == ["inland", "river"]
    assert np.isnan(mf.x[[0, 5], 4]).all()  # ifelse of a missing test is missing
    np.testing.assert_array_equal(mf.x[1:5, 4], (d["lstat"][1:5] > 10).astype(float))


def test_r_functions_on_newdata_match_levels_by_label():
    d = boston()
    mf = _mf("medv ~ factor(rad) + lstat", d)
    new = d[d["rad"].isin([24, 2])]  # factor() of fewer rows: fewer levels, same labels
    np.testing.assert_array_equal(model_frame_newdata(mf.encoder, new), mf.x[new.index])


def test_a_column_named_as_a_function_is_the_column_as_a_value_the_function_called():
    # R looks a called name up among functions: with columns "c", "round" and "log",
    # c(...), round(...) and log(...) raised "'Series' object is not callable", and a
    # column "c" with missing values read by I(c * 2) was refused as "gives NaN for 2
    # rows where  is not missing" (its missing values were taken as made by the term)
    d = boston().assign(c=lambda x: x["lstat"], round=lambda x: x["rm"], log=1.0)
    d.loc[[0, 5], "c"] = np.nan
    mf = _mf("medv ~ factor(rad, levels = c(1, 24)) + round(round, 1) + log(nox) "
             "+ I(c * 2)", d)
    np.testing.assert_array_equal(mf.x[:, 1], np.round(d["rm"], 1))
    np.testing.assert_array_equal(mf.x[:, 2], np.log(d["nox"]))
    np.testing.assert_array_equal(mf.x[:, 3], d["c"] * 2)
    assert mf.var_type[0] == 2 and np.isnan(mf.x[[0, 5], 3]).all()
    np.testing.assert_array_equal(model_frame_newdata(mf.encoder, d.iloc[:20]), mf.x[:20])


def test_as_numeric_of_dates_is_seconds_whatever_the_dtypes_unit():
    # as.numeric() of dates counted the dtype's unit: a fit on datetime64[us] read
    # newdata's datetime64[ns] 1000 times later (other predictions, without a word)
    d = boston().assign(day=pd.date_range("2020-01-01", periods=506, freq="D").astype(
        "datetime64[us]"), late=lambda x: x["day"].dt.tz_localize("UTC"),
        span=lambda x: x["day"] - x["day"].iloc[0])
    d.loc[3, "day"] = pd.NaT
    mf = _mf("medv ~ as.numeric(day) + as.numeric(late) + as.numeric(span)", d)
    seconds = (pd.Timestamp("2020-01-01") - pd.Timestamp(0)) / pd.Timedelta(1, "s")
    assert mf.x[0, 0] == seconds == mf.x[0, 1] and mf.x[1, 2] == 86400.0
    assert np.isnan(mf.x[3, 0])
    new = d.assign(day=d["day"].astype("datetime64[ns]"), late=d["late"].astype(
        "datetime64[s, UTC]"))
    np.testing.assert_array_equal(model_frame_newdata(mf.encoder, new), mf.x)


def test_an_overflow_in_a_term_is_inf_without_numpys_warning():
    # R: exp(1000) is Inf, silently; NumPy's "overflow encountered in exp" reached the user
    d = boston()
    mf = _mf("medv ~ exp(lstat * 100) + rm", d)     # _mf turns any warning into an error
    big = d["lstat"].to_numpy() * 100 > np.log(np.finfo(float).max)
    assert big.any() and np.isinf(mf.x[big, 0]).all() and np.isfinite(mf.x[~big, 0]).all()


@pytest.mark.parametrize("formula, match", [
    ("medv ~ approx(lstat, 3)",
     r"term 'approx\(lstat, 3\)' calls 'approx', which is not available"),
    ("medv ~ foo(bar(rad))", r"calls 'bar', 'foo', which is not available"),
    ("medv ~ as.numeric(town)", r"formula uses column not in data: 'town'"),
])
def test_unknown_functions_are_named(formula, match):
    with pytest.raises(ValueError, match=match):
        model_frame(formula, boston())


def test_as_numeric_of_words_is_refused_as_r_nan():
    d = boston().assign(word=lambda x: np.where(x["rm"] > 6, "six", "7"))
    with pytest.raises(ValueError, match=r"'as.numeric\(word\)' gives NaN for \d+ rows"):
        model_frame("medv ~ as.numeric(word)", d)


def test_response_newdata_codes_a_text_response_by_the_fits_levels():
    # a sample holding one level only was coded by its own levels: "pos" became 0
    from pygbm.frontend import response_newdata, weights_newdata

    d = pd.DataFrame({"y": ["neg", "pos", "pos", "neg"], "x": [1.0, 2.0, 3.0, 4.0],
                      "t": [1.0, 2.0, 3.0, 4.0], "s": [1, 0, 1, 1], "w": [1.0, 2, 3, 4]})
    mf = _mf("y ~ x", d)
    only_pos = d[d["y"] == "pos"]
    np.testing.assert_array_equal(response_newdata("y ~ x", only_pos, levels=mf.y_levels).y,
                                  [1.0, 1.0])
    with pytest.raises(ValueError, match=r"the response y of newdata is categorical \(levels "
                                         r"\['pos'\]\), but the fit's response was numbers"):
        response_newdata("y ~ x", only_pos)       # levels None: the fit's response was numbers
    with pytest.raises(ValueError, match=r"the response y of data has level\(s\) \['maybe'\] "
                                         r"that the fit's response did not have"):
        response_newdata("y ~ x", d.assign(y="maybe"), "data", levels=mf.y_levels)
    surv = response_newdata("Surv(t, s) ~ x + offset(np.log(t))", d.iloc[:2])
    np.testing.assert_array_equal(surv.y, [1.0, 2.0])
    np.testing.assert_array_equal(surv.status, [1.0, 0.0])
    np.testing.assert_allclose(surv.offset, np.log([1.0, 2.0]))
    assert response_newdata("x ~ t", d).status is None
    np.testing.assert_array_equal(weights_newdata("w", d, "data"), d["w"].to_numpy())
    assert weights_newdata(None, d) is None
    with pytest.raises(ValueError, match="weights: column 'v' is not in data"):
        weights_newdata("v", d, "data")


def test_r_constants_in_terms():
    d = boston()
    mf = model_frame("medv ~ pmin(lstat, Inf) + ifelse(rm > 6, TRUE, FALSE) "
                     "+ ifelse(age > 50, NA, age) + I(pi * rm)", d)
    np.testing.assert_array_equal(mf.x[:, 0], d["lstat"].to_numpy())
    assert mf.var_levels[1] == ["FALSE", "TRUE"]
    np.testing.assert_array_equal(np.isnan(mf.x[:, 2]), (d["age"] > 50).to_numpy())
    np.testing.assert_array_equal(mf.x[:, 3], np.pi * d["rm"].to_numpy())


def test_a_column_named_as_an_r_constant_comes_first():
    d = boston().assign(T=2.0)          # R's model frame: the data's T hides TRUE
    mf = model_frame("medv ~ I(rm * T)", d)
    np.testing.assert_array_equal(mf.x[:, 0], 2.0 * d["rm"].to_numpy())


@pytest.mark.parametrize("formula, error, match", [
    ('medv ~ relevel(factor(rad), ref = "z")', ValueError, r"ref = 'z' is not a level"),
    ("medv ~ relevel(factor(rad), ref = 30)", ValueError, r"ref = 30 must be a level's position"),
    ("medv ~ relevel(rad, ref = 1)", TypeError, r"takes an \(unordered\) factor, got dtype"),
    ("medv ~ relevel(ordered(rad), ref = 1)", TypeError, "got an ordered factor"),
    ("medv ~ droplevels(rad)", TypeError, "droplevels\\(\\) takes a factor"),
])
def test_level_functions_refuse_as_r_does(formula, error, match):
    with pytest.raises(error, match=match):
        model_frame(formula, boston())


def test_numbers_in_labels_as_r_deparses_them():
    # R 4.2.2: attr(terms(medv ~ pmin(lstat, 2.0) + ...), "term.labels")
    mf = model_frame("medv ~ pmin(lstat, 2.0) + pmin(tax, 100000) + pmax(rm, .5) "
                     "+ pmax(crim, 0.0001) + I(rm + 1234567.1)", boston())
    assert mf.var_names == ["pmin(lstat, 2)", "pmin(tax, 1e+05)", "pmax(rm, 0.5)",
                            "pmax(crim, 1e-04)", "I(rm + 1234567.1)"]


def test_codes_of_levels_missing_by_design_are_not_refused():
    # R: as.numeric() of a factor's NA is NA (fitted as missing), not NaN
    d = boston()
    mf = model_frame("medv ~ as.numeric(factor(rad, levels = c(1, 2))) "
                     "+ as.numeric(cut(lstat, c(5, 10, 20)))", d)
    np.testing.assert_array_equal(np.isnan(mf.x[:, 0]), ~d["rad"].isin([1, 2]).to_numpy())
    np.testing.assert_array_equal(np.isnan(mf.x[:, 1]),
                                  ((d["lstat"] <= 5) | (d["lstat"] > 20)).to_numpy())


def test_numbers_compared_with_text_as_r_does():
    # R compares as text: rad == "24" is TRUE for 24; rad > "3" orders "24" before "3"
    d = boston()
    mf = model_frame('medv ~ factor(rad == "24") + factor(rad > "3") '
                     '+ factor(factor(rad) == "24")', d)
    np.testing.assert_array_equal(mf.x[:, 0], (d["rad"] == 24).to_numpy().astype(float))
    as_text = d["rad"].astype(str)
    np.testing.assert_array_equal(mf.x[:, 1], (as_text > "3").to_numpy().astype(float))
    np.testing.assert_array_equal(mf.x[:, 2], mf.x[:, 0])


def test_other_r_operators_are_named():
    with pytest.raises(ValueError, match="R's operator %o% is not available"):
        model_frame("medv ~ I(rm %o% 2)", boston())


def test_ordered_factors_compare_by_their_levels_as_in_r():
    # R: o > "lo" is FALSE TRUE TRUE NA for levels lo < mid < hi; a value that is not a
    # level gives NA; an unordered factor has no order (R: NA, warning): refused
    d = pd.DataFrame({"y": [1.0, 2.0, 3.0, 4.0],
                      "o": pd.Categorical(["lo", "mid", "hi", None], ["lo", "mid", "hi"],
                                          ordered=True),
                      "f": pd.Categorical(["a", "b", "a", "b"])})
    mf = model_frame('y ~ factor(o > "lo") + ifelse(o >= "mid", 1, 0)', d)
    np.testing.assert_array_equal(mf.x[:, 0], [0.0, 1.0, 1.0, np.nan])
    np.testing.assert_array_equal(mf.x[:, 1], [0.0, 1.0, 1.0, np.nan])
    assert compare(d["o"], ">", "zz").isna().all()
    with pytest.raises(TypeError, match="not meaningful for an unordered factor"):
        model_frame('y ~ factor(f > "a")', d)
