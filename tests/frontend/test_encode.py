"""PredictorEncoder: R gbm.fit's coding of predictors, and coding of new data."""

import shutil
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

from pygbm.frontend import PredictorEncoder, r_collation_key, r_label, r_quantile7

from ._data import breast_cancer, read


def _fit(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no stray warnings unless a test expects them
        return PredictorEncoder().fit_transform(frame)


# ---------------------------------------------------------------- numeric
def test_numeric_with_missing_values_pima():
    pima = read("pima2").drop(columns="diabetes")
    x, names, vtype, levels = _fit(pima)
    assert names == list(pima.columns)
    assert x.shape == (768, 8) and x.dtype == np.float64
    assert vtype.tolist() == [0] * 8
    assert int(np.isnan(x[:, names.index("insulin")]).sum()) == 374  # NaN kept as missing
    np.testing.assert_array_equal(x, pima.to_numpy(dtype=float))
    for j, name in enumerate(names):
        expected = np.nanquantile(pima[name].to_numpy(dtype=float), np.arange(11) / 10)
        np.testing.assert_allclose(levels[j], expected, rtol=1e-13, err_msg=name)


def test_r_quantile7_matches_r_values():
    # R: quantile(c(1, 2, NA, 5), prob = (0:10)/10, na.rm = TRUE)
    expected = [1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.6, 3.2, 3.8, 4.4, 5.0]
    np.testing.assert_allclose(r_quantile7(np.array([1, 2, np.nan, 5])), expected, rtol=1e-15)
    np.testing.assert_array_equal(r_quantile7(np.array([7.0])), np.full(11, 7.0))


def test_nullable_and_object_numbers_are_numeric():
    frame = pd.DataFrame({
        "i": pd.array([1, None, 3, 4], dtype="Int64"),
        "o": pd.Series([1.5, None, 2, 3], dtype=object),
        "f": [0.5, np.nan, 1.0, 2.0],
    })
    x, _, vtype, _ = _fit(frame)
    assert vtype.tolist() == [0, 0, 0]
    np.testing.assert_array_equal(x[:, 0], [1, np.nan, 3, 4])
    np.testing.assert_array_equal(x[:, 1], [1.5, np.nan, 2, 3])


# ---------------------------------------------------------------- categoricals
def test_ordered_categoricals_breast_cancer_drop_unused_levels():
    bc = breast_cancer().drop(columns="Class")
    x, names, vtype, levels = _fit(bc)
    assert vtype.tolist() == [0] * 9  # ordered: treated as continuous
    mitoses = names.index("Mitoses")
    assert "9" not in levels[mitoses]  # level 9 never occurs: dropped, as factor(x)
    assert levels[mitoses] == ["1", "2", "3", "4", "5", "6", "7", "8", "10"]
    codes = x[:, mitoses]
    assert np.nanmax(codes) == 8 and codes[bc["Mitoses"].to_numpy() == 10].tolist()[0] == 8
    bare = names.index("Bare.nuclei")
    assert int(np.isnan(x[:, bare]).sum()) == 16  # the 16 missing Bare.nuclei


def test_string_categoricals_lending_club():
    lc = read("lending_club")
    x, names, vtype, levels = _fit(lc[["addr_state", "sub_grade", "term", "int_rate"]])
    assert vtype.tolist() == [50, 35, 2, 0]
    assert levels[0] == sorted(lc["addr_state"].unique())
    assert levels[1][:6] == ["A1", "A2", "A3", "A4", "A5", "B1"]
    ca = levels[0].index("CA")
    np.testing.assert_array_equal(x[:, 0] == ca, (lc["addr_state"] == "CA").to_numpy())
    assert x.shape == (len(lc), 4)  # one column per predictor, no dummies


def test_categorical_keeps_category_order_and_bool_levels():
    frame = pd.DataFrame({
        "c": pd.Categorical(["z", "a", None, "z"], categories=["z", "m", "a"]),
        "b": [True, False, True, True],
        "bo": pd.Series([True, None, False, True], dtype=object),
        "nb": pd.array([True, pd.NA, False, False], dtype="boolean"),
    })
    x, _, vtype, levels = _fit(frame)
    assert levels[0] == ["z", "a"] and vtype[0] == 2  # unused "m" dropped, order kept
    np.testing.assert_array_equal(x[:, 0], [0, 1, np.nan, 0])
    assert levels[1] == ["FALSE", "TRUE"] and vtype[1] == 2
    np.testing.assert_array_equal(x[:, 1], [1, 0, 1, 1])
    np.testing.assert_array_equal(x[:, 2], [1, np.nan, 0, 1])
    np.testing.assert_array_equal(x[:, 3], [1, np.nan, 0, 0])


def test_string_levels_sorted_like_r():
    # R 4.2.2 (ICU root collation): sort(c("b","A","a","B","a_b","ab","a b","10","9","Z","_x"))
    r_order = ["_x", "10", "9", "a", "A", "a b", "a_b", "ab", "b", "B", "Z"]
    frame = pd.DataFrame({"s": ["b", "A", "a", "B", "a_b", "ab", "a b", "10", "9", "Z", "_x"]})
    _, _, vtype, levels = _fit(frame)
    assert levels[0] == r_order and vtype[0] == 11


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs R")
def test_collation_against_live_r():
    rng = np.random.default_rng(7)
    alphabet = list("aAbBzZ09_- .,éÉ")
    words = sorted({"".join(rng.choice(alphabet, size=rng.integers(1, 5))) for _ in range(300)})
    script = "x <- readLines(file('stdin')); writeLines(sort(x))"
    out = subprocess.run(["Rscript", "-e", script], input="\n".join(words), text=True,
                         capture_output=True, check=True, encoding="utf-8").stdout
    assert sorted(words, key=r_collation_key) == out.splitlines()


def test_r_label():
    assert [r_label(v) for v in (True, False, 3, 2.0, 2.5, "x")] == \
        ["TRUE", "FALSE", "3", "2", "2.5", "x"]


# ---------------------------------------------------------------- errors / warnings
def test_too_many_levels_is_an_error():
    frame = pd.DataFrame({"ok": np.arange(1100.0), "id": [f"u{i}" for i in range(1100)]})
    with pytest.raises(ValueError, match=r"variable 2: id has 1100 levels.*1024.*ordered_ts"):
        PredictorEncoder().fit_transform(frame)
    _, _, vtype, _ = _fit(frame.iloc[:1024])  # exactly 1024 levels is allowed
    assert vtype[1] == 1024
    ordered = frame.assign(id=pd.Categorical(frame["id"], ordered=True))
    assert _fit(ordered)[2][1] == 0  # the limit is for unordered factors only


def test_all_missing_column_r_wording():
    frame = pd.DataFrame({"x1": [1.0, 2.0], "x2": [0, 1], "x3": [np.nan, np.nan]})
    with pytest.raises(ValueError, match=r"^variable 3: x3 has only missing values\.$"):
        PredictorEncoder().fit_transform(frame)
    frame["x3"] = pd.Series([None, None], dtype=object)
    with pytest.raises(ValueError, match="variable 3: x3 has only missing values"):
        PredictorEncoder().fit_transform(frame)


def test_no_variation_warns():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [5.0, 5.0, np.nan], "c": ["u", "u", "u"]})
    with pytest.warns(UserWarning) as rec:
        PredictorEncoder().fit_transform(frame)
    assert [str(w.message) for w in rec] == ["variable 2: b has no variation.",
                                             "variable 3: c has no variation."]


@pytest.mark.parametrize("values, what", [
    (pd.date_range("2020-01-01", periods=3), "datetime"),
    (pd.to_timedelta([1, 2, 3], unit="D"), "timedelta"),
    (np.array([1 + 2j, 3j, 1]), "complex"),
])
def test_unsupported_dtypes_name_the_column(values, what):
    frame = pd.DataFrame({"ok": [1.0, 2.0, 3.0], "when": values})
    with pytest.raises(TypeError, match=r"'when' has dtype .*expected numeric, bool, string"):
        PredictorEncoder().fit_transform(frame)


def test_mixed_object_column_is_an_error():
    frame = pd.DataFrame({"m": pd.Series(["a", 1, 2.5], dtype=object)})
    with pytest.raises(TypeError, match="'m' holds values of mixed"):
        PredictorEncoder().fit_transform(frame)


def test_bad_inputs():
    with pytest.raises(TypeError, match="DataFrame or a 2-d numpy array"):
        PredictorEncoder().fit_transform([[1, 2]])
    with pytest.raises(ValueError, match="2-dimensional"):
        PredictorEncoder().fit_transform(np.arange(3.0))
    dup = pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"])
    with pytest.raises(ValueError, match="duplicated column names"):
        PredictorEncoder().fit_transform(dup)
    with pytest.raises(RuntimeError, match="before fit"):
        PredictorEncoder().transform(dup)


def test_ndarray_named_like_r():
    arr = np.array([[1.0, 2.0], [3.0, np.nan], [5.0, 6.0]])
    enc = PredictorEncoder()
    x, names, vtype, _ = enc.fit_transform(arr)
    assert names == ["X1", "X2"] and vtype.tolist() == [0, 0]
    np.testing.assert_array_equal(enc.transform(arr), x)
    with pytest.raises(ValueError, match="newdata has 1 columns; the model has 2"):
        enc.transform(arr[:, :1])


# ---------------------------------------------------------------- new data
def test_transform_reproduces_training_coding_and_matches_by_name():
    lc = read("lending_club")
    enc = PredictorEncoder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x, names, _, _ = enc.fit_transform(lc.drop(columns="Class"))
    shuffled = lc[names[::-1] + ["Class"]]  # other column order, extra column
    np.testing.assert_array_equal(enc.transform(shuffled), x)
    part = lc.iloc[100:110]
    np.testing.assert_array_equal(enc.transform(part), x[100:110])


def test_transform_missing_columns_named():
    enc = PredictorEncoder().fit(pd.DataFrame({"a": [1.0, 2.0], "b": ["u", "v"], "c": [0, 1]}))
    with pytest.raises(ValueError, match=r"lacks the predictor columns \['b', 'c'\]"):
        enc.transform(pd.DataFrame({"a": [1.0]}))


def test_unseen_levels_coded_apart_with_one_warning():
    enc = PredictorEncoder().fit(pd.DataFrame({
        "s": ["a", "b", "a"], "o": pd.Categorical(["lo", "hi", "lo"], ["lo", "hi"], ordered=True),
        "n": [1.0, 2.0, 3.0]}))
    new = pd.DataFrame({"s": ["b", "zz", None, "a"], "o": ["hi", "mid", "lo", "top"],
                        "n": [1, 2, 3, 4]})
    with pytest.warns(UserWarning) as rec:
        x = enc.transform(new)
    assert len(rec) == 1
    msg = str(rec[0].message)
    assert "s: ['zz']" in msg and "o: ['mid', 'top']" in msg and "missing" in msg
    # unordered: an unseen level gets the code after the training levels (the
    # trees send it to the missing child); missing stays NaN
    np.testing.assert_array_equal(x[:, 0], [1, 2, np.nan, 0])
    np.testing.assert_array_equal(x[:, 1], [1, np.nan, 0, np.nan])


def test_labels_match_across_dtypes():
    enc = PredictorEncoder().fit(pd.DataFrame({"d": pd.Categorical([1, 2, 4, 2])}))
    assert enc.var_levels[0] == ["1", "2", "4"]
    np.testing.assert_array_equal(enc.transform(pd.DataFrame({"d": [4.0, 1.0, np.nan]}))[:, 0],
                                  [2, 0, np.nan])
    np.testing.assert_array_equal(enc.transform(pd.DataFrame({"d": ["2", "4"]}))[:, 0], [1, 2])


def test_numeric_column_given_as_strings_is_an_error():
    enc = PredictorEncoder().fit(pd.DataFrame({"age": [30.0, 40.0, 50.0]}))
    with pytest.raises(TypeError, match="column 'age' in newdata must be numeric"):
        enc.transform(pd.DataFrame({"age": ["30", "41"]}))
    np.testing.assert_array_equal(enc.transform(pd.DataFrame({"age": [True, False]}))[:, 0], [1, 0])


def test_a_factor_of_whole_numbers_matches_its_levels_whatever_the_dtype():
    # R's read.csv keeps a whole-number column with an NA as integers; pandas makes it
    # float, whose labels R writes "1e+05", not "100000": the new rows' levels were
    # unseen and went to the missing branch. R 4.2.2 / gbm 2.1.8.1 on the same CSV files:
    # gbm(y ~ factor(k) + x1, read.csv("trk.csv"), "gaussian", n.trees = 50,
    # interaction.depth = 2, bag.fraction = 1), predict on the rows below
    import io

    import pygbm

    rng = np.random.default_rng(5)
    k = rng.choice([0, 100000, 200000, 300000], size=300)
    x1 = rng.normal(size=300)
    train = pd.DataFrame(dict(y=x1 + k / 1e5 + rng.normal(size=300), k=k, x1=x1))
    train = pd.read_csv(io.StringIO(train.to_csv(index=False)))
    new = pd.read_csv(io.StringIO("k,x1\n0,0.1\n100000,0.1\nNA,0.1\n200000,0.1\n300000,0.1\n"))
    assert new["k"].dtype == float and train["k"].dtype == np.int64
    fit = pygbm.gbm("y ~ factor(k) + x1", train, distribution="gaussian", n_trees=50,
                    interaction_depth=2, bag_fraction=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no level is unseen
        got = fit.predict(new, n_trees=50)
    np.testing.assert_allclose(got, [0.22557544306576, 1.40411939546120, 1.58453690844082,
                                     1.88671351391524, 3.06004908586483], rtol=1e-9)
    # text that only reads as a number is text: "01" is not the level "1"
    from pygbm.frontend.encode import _label_number
    assert _label_number("01") is None and _label_number("1e+05") == 1e5


def test_numbers_held_as_text_are_levels_with_a_warning():
    # fitted silently as a categorical of one level per value: new rows' values were
    # unseen levels (missing), a test MSE of 4.9 where the numbers give 0.54
    frame = pd.DataFrame({"x": ["1.5", "2", "-3", None], "f": ["a", "1", "b", "2"],
                          "k": pd.Categorical(["1", "2", "1", "2"])})
    with pytest.warns(UserWarning, match=r"^variable 1: x holds numbers as text; it is fitted "
                                         r"as a categorical predictor of 3 levels") as caught:
        PredictorEncoder().fit_transform(frame)
    assert len(caught) == 1     # not text mixing words and numbers, not a Categorical


def test_words_in_pyarrow_text_are_not_numbers_held_as_text():
    """pd.read_csv(dtype_backend="pyarrow")'s text: pd.to_numeric gives pyarrow doubles
    whose NaN is not missing, so words were said to be "numbers as text"."""
    pa = pytest.importorskip("pyarrow")
    words = pd.Series(["a", "b", None, "c"], dtype=pd.ArrowDtype(pa.string()))
    x, _, var_type, levels = _fit(pd.DataFrame({"w": words}))       # no warning
    assert levels == [["a", "b", "c"]] and list(var_type) == [3]
    with pytest.warns(UserWarning, match="w holds numbers as text"):
        PredictorEncoder().fit_transform(pd.DataFrame({"w": pd.Series(
            ["1", "2.5", None], dtype=pd.ArrowDtype(pa.string()))}))


def test_pyarrow_durations_are_refused_with_the_dates_hint():
    """A pyarrow duration column (not a timedelta64 dtype to pandas) lacked the hint a
    timedelta64 column gets."""
    pa = pytest.importorskip("pyarrow")
    days = pd.Series(pd.to_timedelta([1, 2, 3], unit="D"))
    stamps = pd.Series(pd.date_range("2020-01-01", periods=3))
    for col in (days, days.astype(pd.ArrowDtype(pa.duration("ns"))),
                stamps.astype(pd.ArrowDtype(pa.timestamp("ns")))):
        with pytest.raises(TypeError, match=r"as\.numeric\(as\.Date\(x\)\)"):
            PredictorEncoder().fit_transform(pd.DataFrame({"d": col}))
