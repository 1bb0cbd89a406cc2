"""R's logical and special operators in formula terms (pygbm.frontend.r_operators).

The expected values are R 4.2.2's; whole formulas with these operators are checked
against gbm()'s own model frames in test_fixtures_r.py (cases ``boston_operators``
and ``lung_operators``, missing values included)."""

import numpy as np
import pandas as pd
import pytest

from pygbm.frontend import model_frame
from pygbm.frontend.r_operators import (r_and, r_in, r_not, r_or, r_sequence, r_xor,
                                        to_python, to_r)

from ._data import boston

NA = None
LOGICAL = pd.Series(pd.array([NA, True, False], dtype="boolean"))


def _r(values):
    return [None if v is pd.NA else bool(v) for v in values]


def test_and_or_not_follow_r_with_missing_values():
    # R: outer(x, x, "&") and outer(x, x, "|") for x = c(NA, TRUE, FALSE); !x
    left = pd.Series(pd.array(np.repeat(LOGICAL.array, 3), dtype="boolean"))
    right = pd.Series(pd.array(np.tile(LOGICAL.array, 3), dtype="boolean"))
    assert _r(r_and(left, right)) == [NA, NA, False, NA, True, False, False, False, False]
    assert _r(r_or(left, right)) == [NA, True, NA, True, True, True, NA, True, False]
    assert _r(r_not(LOGICAL)) == [NA, False, True]


def test_xor_follows_r():
    # R: xor(c(NA, TRUE, FALSE), c(TRUE, TRUE, NA)) is NA FALSE NA; xor(TRUE, FALSE) TRUE
    assert _r(r_xor(LOGICAL, pd.Series(pd.array([True, True, NA], dtype="boolean")))) == \
        [NA, False, NA]
    assert _r(r_xor(pd.Series([True, False]), pd.Series([False, False]))) == [True, False]


def test_numbers_are_logical_as_in_r():
    # R: 2 & NA is NA, 0 | NA is NA, !0 is TRUE, !3 is FALSE
    assert _r(r_and(2.0, np.array([np.nan]))) == [NA]
    assert _r(r_or(0.0, np.array([np.nan]))) == [NA]
    assert _r(r_not(np.array([0.0, 3.0]))) == [True, False]
    assert _r(r_and(np.array([1.0, 0.0, 5.0]), True)) == [True, False, True]


def test_in_follows_r_match():
    # R: NA %in% c(1, NA) TRUE; c(1, NA) %in% 1 TRUE FALSE; factor(c("1", "2")) %in% 1
    # TRUE FALSE; c(1, 2) %in% "1" TRUE FALSE
    assert _r(r_in(np.array([np.nan]), np.array([1, np.nan], dtype=object))) == [True]
    assert _r(r_in(np.array([1.0, np.nan]), 1)) == [True, False]
    assert _r(r_in(pd.Series(pd.Categorical(["1", "2"])), 1)) == [True, False]
    assert _r(r_in(np.array([1.0, 2.0]), "1")) == [True, False]


def test_text_is_not_logical():
    with pytest.raises(TypeError, match="takes TRUE/FALSE values or numbers"):
        r_and(pd.Series(["a", "b"]), True)


@pytest.mark.parametrize("r, python", [
    ("y ~ factor(a > 1 & b < 2)", "y ~ factor(((a > 1) and (b < 2)))"),
    ("y ~ factor(a|b)", "y ~ factor((a or b))"),
    ("y ~ factor(!is.na(x))", "y ~ factor((not is.na(x)))"),
    ("y ~ factor(!(x > 1))", "y ~ factor((not (x > 1)))"),
    ("y ~ factor(x != 1)", "y ~ factor((x != 1))"),
    ("y ~ factor(x %in% c(1, 2))", "y ~ factor((x @ c(1, 2)))"),
    ("y ~ I(x %% 2) + I(x %/% 2)", "y ~ I((_r_numeric(x) % 2)) + I((_r_numeric(x) // 2))"),
    ('y ~ ifelse(x == "a&b|!c", 1, 0)', 'y ~ ifelse((x == "a&b|!c"), 1, 0)'),
    ("y ~ `a&b` + factor(`x|y` > 1)", "y ~ `a&b` + factor((`x|y` > 1))"),
    ("y ~ a | b", "y ~ a | b"),                   # outside parentheses: formula syntax
    ("y ~ log(x, base = 2) + cut(x, c(-Inf, 0), right=FALSE)",
     "y ~ log(x, base=2) + cut(x, c((-_r_numeric(Inf)), 0), right=FALSE)"),
])
def test_rewritten_inside_parentheses_and_outside_quotes(r, python):
    assert to_python(r) == python


@pytest.mark.parametrize("r, python", [
    # R's precedence (?Syntax): ^ (the C library's pow, as R) above unary minus above
    # %any% above * / above + -
    # above comparisons above ! above & above |; Python's ^ is below +, its % level
    # with *, and R's ! takes in the arithmetic after it
    ("I(x^2 + 1)", "(_r_power(_r_numeric(x), 2) + 1)"),
    ("I(-x^2)", "(-_r_power(_r_numeric(x), 2))"),
    ("I(2^-1*3)", "(_r_power(2, (-1)) * 3)"),
    ("I(2^3^2)", "_r_power(2, _r_power(3, 2))"),
    ("I(a * b %% 3)", "(_r_numeric(a) * (_r_numeric(b) % 3))"),
    ("I(a %/% 2 / 3)", "((_r_numeric(a) // 2) / 3)"),
    ("I(-a %% 3)", "((-_r_numeric(a)) % 3)"),
    ("I(a - b - c)", "((_r_numeric(a) - _r_numeric(b)) - _r_numeric(c))"),
    ("I(!(a > 1) * 2)", "(not (_r_numeric((a > 1)) * 2))"),
    ("I(!a > 1 & b)", "((not (a > 1)) and b)"),
    ("I(a | b & c)", "(a or (b and c))"),
    ("I(x %in% c(1, 2) * 2)", "(_r_numeric((x @ c(1, 2))) * 2)"),
    # arithmetic on TRUE/FALSE is on 1/0, as in R (pandas: + is or, - is not)
    ("I((a > 1) + (b > 2))", "(_r_numeric((a > 1)) + _r_numeric((b > 2)))"),
])
def test_r_precedence_made_explicit(r, python):
    assert to_python(r) == f"I({python})"
    assert to_python(to_python(r)) == to_python(r)      # Python's spelling reads as itself


@pytest.mark.parametrize("python, r", [
    ("factor(a > 1 and (not b))", "factor(a > 1 & (!b))"),
    ("factor(not is_na(x))", "factor(!is_na(x))"),
    ("I((x ** 2) + 1)", "I((x^2) + 1)"),
    ("I(x % 2 + x // 2)", "I(x%%2 + x%/%2)"),
    ("factor(x @ c(1, 2))", "factor(x %in% c(1, 2))"),
    ("ifelse(x == 'a and (not b)', 1, 0)", "ifelse(x == 'a and (not b)', 1, 0)"),
])
def test_python_operators_written_as_r_operators(python, r):
    """(Labels come from the terms as typed, r_deparse.py; to_r writes the operators
    of Python's text, for messages and where the typed text cannot be read.)"""
    assert to_r(python) == r


def test_sequences_follow_r():
    # R: 1:(3 - 1e-8) is 1 2 3, 1:(3 - 1e-6) is 1 2, 1.5:3 is 1.5 2.5, 3:1, -1:2
    assert r_sequence(1, 3 - 1e-8).tolist() == [1, 2, 3]
    assert r_sequence(1, 3 - 1e-6).tolist() == [1, 2]
    assert r_sequence(1.5, 3).tolist() == [1.5, 2.5]
    assert r_sequence(3, 1).tolist() == [3, 2, 1]
    assert to_python("y ~ factor(x %in% -1:2)") == "y ~ factor((x @ _r_sequence((-1), 2)))"
    with pytest.raises(ValueError, match="':' makes a sequence of two numbers"):
        r_sequence(np.arange(3), 4)


def test_comparisons_do_not_chain_as_in_r():
    with pytest.raises(ValueError, match="comparisons do not chain in R"):
        to_python("y ~ factor(0 < x < 1)")          # Python would read a chain


def test_arithmetic_on_conditions_counts_them_as_r():
    # R: (rm > 6) + (lstat < 10) counts, -(rm > 6) is -1/0; pandas' + of booleans is or
    d = boston()
    mf = model_frame("medv ~ I((rm > 6) + (lstat < 10) + (chas == 1)) + I(-(rm > 6))", d)
    rm, lstat, chas = (d[c].to_numpy() for c in ("rm", "lstat", "chas"))
    np.testing.assert_array_equal(mf.x[:, 0], (rm > 6) * 1.0 + (lstat < 10) + (chas == 1))
    np.testing.assert_array_equal(mf.x[:, 1], -((rm > 6) * 1.0))


def test_the_precedence_in_a_model_frame():
    # I(rm^2 + 1) was rm^(2 + 1): Python's ^ (made power) ranks below +
    d = boston()
    mf = model_frame("medv ~ I(rm^2 + 1) + I(lstat * rm %% 3) + factor(!(rm > 6) * 1 > 0)", d)
    rm, lstat = d["rm"].to_numpy(), d["lstat"].to_numpy()
    np.testing.assert_array_equal(mf.x[:, 0], rm ** 2 + 1)
    np.testing.assert_array_equal(mf.x[:, 1], lstat * np.mod(rm, 3))
    np.testing.assert_array_equal(mf.var_levels[2], ["FALSE", "TRUE"] if (rm <= 6).any()
                                  else ["FALSE"])
    np.testing.assert_array_equal(mf.x[:, 2], (rm <= 6).astype(float))


@pytest.mark.parametrize("operator", ["&&", "||"])
def test_scalar_operators_are_refused(operator):
    with pytest.raises(ValueError, match=f"'{'&&' if operator == '&&' else '||'}' compares "
                                         "one value only"):
        to_python(f"y ~ factor(a > 1 {operator} b > 2)")


def test_conditions_in_a_model_frame():
    d = boston()
    mf = model_frame("medv ~ factor(rad > 4 & tax > 300) + I(rm %% 1)", d)
    assert mf.var_names == ["factor(rad > 4 & tax > 300)", "I(rm%%1)"]
    expected = ((d["rad"] > 4) & (d["tax"] > 300)).to_numpy()
    np.testing.assert_array_equal(mf.x[:, 0], expected.astype(float))
    np.testing.assert_array_equal(mf.x[:, 1], np.mod(d["rm"].to_numpy(), 1))


def test_a_chain_of_conditions_is_labelled_as_r_deparses_it():
    mf = model_frame("medv ~ factor(rad > 4 & tax > 300 & rm > 6)", boston())
    assert mf.var_names == ["factor(rad > 4 & tax > 300 & rm > 6)"]     # R's term label


def test_is_element_is_r_in():
    # R: is.element(x, table) is match(x, table, 0) > 0, x %in% table;
    # is.element(c(1, NA, 3), c(3, NA)) is FALSE TRUE TRUE
    d = pd.DataFrame({"y": [1.0, 2.0, 3.0, 4.0], "x": [1.0, np.nan, 3.0, 5.0],
                      "g": ["a", "b", None, "c"]})
    mf = model_frame("y ~ is.element(x, c(3, NA)) + is.element(g, c('b', NA)) "
                     "+ I(x %in% c(3, NA))", d)
    assert mf.var_names == ["is.element(x, c(3, NA))", 'is.element(g, c("b", NA))',
                            "I(x %in% c(3, NA))"]
    np.testing.assert_array_equal(mf.x[:, 0], [0.0, 1.0, 1.0, 0.0])
    np.testing.assert_array_equal(mf.x[:, 0], mf.x[:, 2])
    np.testing.assert_array_equal(mf.x[:, 1], [0.0, 1.0, 1.0, 0.0])
