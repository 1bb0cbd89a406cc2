"""plain_formula: formulas of bare names read without formulaic, with the terms
formulaic's parser gives (formula_parse), on many formulas."""

import re
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from pygbm.frontend import formula_parse, model_frame, model_frame_newdata
from pygbm.frontend.plain_formula import ColumnEvaluator, is_plain_term, plain_terms
from pygbm.frontend.terms import TermSpec

from ._data import read

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402

#: R-style names of every kind the plain grammar accepts, and column names it
#: never sees written (they only come in through '.')
NAMES = ["y", "a", "b2", "ph.karno", "x_1", ".w", "time", "status", "B.C.d"]
ODD_COLUMNS = ["my col", "1x", "class", "None", "é"]


def _frame(columns, n=12, seed=0):
    rng = np.random.default_rng(seed)
    data = {c: rng.normal(size=n) for c in columns}
    if "status" in data:
        data["status"] = rng.integers(0, 2, n)
    if "time" in data:
        data["time"] = rng.integers(1, 50, n).astype(float)
    return pd.DataFrame(data)


def _both(formula, data):
    plain = plain_terms(formula, list(data.columns))
    reference = formula_parse.parse_terms(formula, formula_parse.Evaluator(data, "data"))
    return plain, reference


@pytest.mark.parametrize("formula", [
    "y ~ .", "y~.", "y ~ a + b2", "y ~ b2 + a + b2", "y ~ . - a", "y ~ . - a - ph.karno",
    "y ~ b2 + .", "y ~ . + b2", "y ~ . - 1", "y ~ 0 + a", "y ~ 1 + a", "y ~ y + a",
    "y ~ . - y", "y ~ a - a", "y ~ ph.karno + .w + B.C.d", "ph.karno ~ .",
    "Surv(time, status) ~ .", "Surv( time ,status ) ~ a + . - b2", "y ~ . - nothere_dropped",
    "y ~ . + offset(log(time))", "y ~ . - time + offset(log(time))", "y ~ offset(a) + b2",
    "y ~ a + offset( log( ph.karno ) ) + offset(time)", "y ~ offset(time) + . - time - a",
    "Surv(time, status) ~ . + offset(b2)", "y~offset(log(a))", "y ~ . - offsets(a)",
])
def test_same_terms_as_formulaic(formula):
    data = _frame(NAMES + ODD_COLUMNS)
    if "nothere" in formula:
        with pytest.raises(ValueError, match="not in data") as plain_error:
            plain_terms(formula, list(data.columns))
        with pytest.raises(ValueError, match="not in data") as reference_error:
            _both(formula, data)
        assert str(plain_error.value) == str(reference_error.value)
        return
    if "offsets(" in formula:        # not plain: formulaic's
        assert plain_terms(formula, list(data.columns)) is None
        return
    plain, reference = _both(formula, data)
    assert plain is not None
    assert plain.response == reference.response
    assert plain.predictors == reference.predictors
    assert plain.offsets == reference.offsets
    assert plain.offset_columns == reference.offset_columns


@pytest.mark.parametrize("formula", [
    "y ~ log(a)", "log(y) ~ a", "y ~ a:b2", "y ~ a * b2", "y ~ `my col`", "y ~ -1 + a",
    "y ~ . - a + b2", "y ~ a - offset(b2)", "y ~ a + offset(b2) + offset(b2)",
    "y ~ offset(exp(b2))", "y ~ offset(log(b2, 2))", "y ~ offset(log(`my col`))",
    "y ~ offset(2 * a)", "y ~ C(a)", "y ~ I(a^2)", "y ~ a | b2",
    "Surv(time) ~ a", "y ~ class", "y ~ None", "y ~ - .", "y ~ a +", "~ a", "y ~ a ~ b2",
])
def test_other_formulas_are_left_to_formulaic(formula):
    assert plain_terms(formula, NAMES + ODD_COLUMNS) is None


@settings(max_examples=200, deadline=None)
@given(response=st.sampled_from(["y", "Surv(time, status)"]),
       added=st.lists(st.sampled_from(NAMES + [".", "0", "1"]), min_size=1, max_size=6),
       removed=st.lists(st.sampled_from(NAMES + ["0", "1"]), max_size=3))
def test_random_plain_formulas_match_formulaic(response, added, removed):
    formula = f"{response} ~ {' + '.join(added)}" + "".join(f" - {r}" for r in removed)
    plain, reference = _both(formula, _frame(NAMES + ODD_COLUMNS))
    assert plain is not None, formula
    assert (plain.response, plain.predictors) == (reference.response, reference.predictors)


@pytest.mark.parametrize("name,formula", [
    ("lung", "Surv(time, status) ~ ."), ("lung", "Surv(time, status) ~ . - inst"),
    ("boston", "medv ~ ."), ("insurance", "Claims ~ . - Holders"),
    ("lending_club", "Class ~ addr_state + sub_grade + int_rate"),
    ("insurance", "Claims ~ District + Group + Age + offset(log(Holders))"),
    ("insurance", "Claims ~ . - Holders + offset(log(Holders))"),
])
def test_model_frame_identical_either_way(name, formula, monkeypatch):
    data = read(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = model_frame(formula, data)
        monkeypatch.setattr("pygbm.frontend.formula.plain_terms", lambda *args: None)
        slow = model_frame(formula, data)
    np.testing.assert_array_equal(fast.x, slow.x)
    np.testing.assert_array_equal(fast.y, slow.y)
    np.testing.assert_array_equal(fast.offset, slow.offset)
    assert fast.var_names == slow.var_names
    for fast_levels, slow_levels in zip(fast.var_levels, slow.var_levels, strict=True):
        np.testing.assert_array_equal(np.asarray(fast_levels), np.asarray(slow_levels))
    np.testing.assert_array_equal(fast.var_type, slow.var_type)
    assert fast.response_name == slow.response_name and fast.is_surv == slow.is_surv
    np.testing.assert_array_equal(fast.x, model_frame_newdata(fast.encoder, data))


def test_column_evaluator_reads_columns_and_surv():
    data = _frame(["time", "status", "a"])
    evaluator = ColumnEvaluator(data, "data")
    pd.testing.assert_series_equal(evaluator.evaluate(TermSpec("a", "a", True)), data["a"])
    surv = evaluator.evaluate(TermSpec("Surv(time, status)", "Surv(time, status)", False))
    np.testing.assert_array_equal(surv.time, data["time"].to_numpy(dtype=float))
    assert is_plain_term(TermSpec("log(a)", "log(a)", False)) is False
    with pytest.raises(ValueError, match=r"not in newdata: 'b' \(similar columns"):
        ColumnEvaluator(data.rename(columns={"a": "B"}), "newdata").evaluate(
            TermSpec("b", "b", True))


@pytest.mark.parametrize("log", [True, False])
def test_offsets_evaluated_as_formulaic_evaluates_them(log):
    data = pd.DataFrame({"y": [1.0, 2, 3, 4], "t": [0.0, 2, -3, np.nan],
                         "n": pd.array([1, None, 3, 4], dtype="Int64"),
                         "f": [True, False, True, True]})
    for name in ("t", "n", "f"):
        term = TermSpec(*[f"offset(log({name}))" if log else f"offset({name})"] * 2, False)
        assert is_plain_term(term)
        plain = ColumnEvaluator(data, "data").evaluate(term)
        reference = formula_parse.Evaluator(data, "data").evaluate(term)
        assert plain.dtype == reference.dtype == np.float64
        np.testing.assert_array_equal(plain, reference)


def test_an_offset_of_text_is_refused_by_name():
    data = pd.DataFrame({"y": [1.0, 2, 3], "s": ["a", "b", "c"]})
    for expr in ("offset(log(s))", "offset(s)"):
        with pytest.raises(TypeError, match=rf"{re.escape(expr)}.*'s' must be numeric"):
            ColumnEvaluator(data, "data").evaluate(TermSpec(expr, expr, False))


def test_a_plain_fit_does_not_load_formulaic():
    code = ("import sys, pandas as pd, pygbm\n"
            "d = pd.read_csv(sys.argv[1])\n"
            "fit = pygbm.gbm('Surv(time, status) ~ . - inst', data=d, distribution='coxph',"
            " n_trees=5, engine='numpy')\n"
            "fit.predict(d, n_trees=5)\n"
            "print('formulaic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code, str(read.__globals__["DATA"] / "lung.csv")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_fit_with_an_exposure_offset_does_not_load_formulaic():
    code = ("import sys, pandas as pd, pygbm\n"
            "d = pd.read_csv(sys.argv[1])\n"
            "fit = pygbm.gbm('Claims ~ District + Group + Age + offset(log(Holders))', data=d,"
            " distribution='poisson', n_trees=5, engine='numpy')\n"
            "fit.predict(d, n_trees=5)\n"
            "print('formulaic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code,
                          str(read.__globals__["DATA"] / "insurance.csv")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
