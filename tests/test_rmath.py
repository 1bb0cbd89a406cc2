"""R's arithmetic (pygbm/_rmath.py) against R's definitions written out in
plain Python: left folds, long-double sums, the C library's exp, Shell sort."""
from __future__ import annotations

import math

import numpy as np
import pytest

from pygbm._rmath import (TRIGONOMETRIC_R, atan2_r, exp_r, expm1_r, log10_r, log1p_r, log2_r,
                          log_r, pow_r, r_sum, running_minus, sequential_minus, sequential_sum,
                          shell_sort_order, tan_r)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 7, 8, 9, 16, 17, 100, 1000, 10_000])
def test_sequential_sums_are_left_folds(n):
    """R adds (and subtracts) one row at a time, left to right; the
    sequential_sum / sequential_minus rely on np.subtract.reduce being that
    left fold (were NumPy to reduce it pairwise, as it does np.add, the
    last bits would differ: this test says so before the R tests do)."""
    rng = np.random.default_rng(n)
    values = rng.normal(size=n) * 10.0 ** rng.uniform(-8, 8, size=n)
    start = float(rng.normal() * 1e3)
    want_sum, want_minus = start, start
    for v in values.tolist():                   # Python floats: IEEE doubles, in order
        want_sum += v
        want_minus -= v
    assert sequential_sum(values, start) == want_sum
    assert sequential_minus(start, values) == want_minus
    zero_sum = 0.0
    for v in values.tolist():
        zero_sum += v
    assert sequential_sum(values) == zero_sum
    assert str(sequential_sum(np.array([1.5, -1.5]))) == "0.0"     # +0, as R's sum


def test_r_sum_is_a_long_double_left_fold():
    """R's sum() accumulates in long double, left to right."""
    rng = np.random.default_rng(5)
    values = rng.normal(size=1000) * 10.0 ** rng.uniform(-8, 8, size=1000)
    want = np.longdouble(0.0)
    for v in values:
        want = want + np.longdouble(v)
    assert r_sum(values) == float(want)
    assert r_sum(np.empty(0)) == 0.0


def test_running_minus_subtracts_one_at_a_time():
    rng = np.random.default_rng(6)
    parts = rng.normal(size=50)
    want, acc = [], 3.25
    for v in parts.tolist():
        acc -= v
        want.append(acc)
    np.testing.assert_array_equal(running_minus(3.25, parts), want)


def test_exp_and_log_are_the_c_librarys():
    x = np.random.default_rng(7).normal(size=2000) * 20.0
    np.testing.assert_array_equal(exp_r(x), [math.exp(v) for v in x.tolist()])
    pos = np.abs(x)
    np.testing.assert_array_equal(log_r(pos), [math.log(v) for v in pos.tolist()])
    assert log_r(2.0) == math.log(2.0)
    small = x / 1000.0
    np.testing.assert_array_equal(log1p_r(small), [math.log1p(v) for v in small.tolist()])
    assert log1p_r(0.5) == math.log1p(0.5)
    np.testing.assert_array_equal(log1p_r(np.array([-1.0, -2.0, np.nan])),
                                  [-np.inf, np.nan, np.nan])


def test_a_number_outside_log_s_domain_gives_its_value_as_an_array_does():
    """Python's math.log raises "math domain error" at 0 and below (a poisson fit
    with an offset whose exp underflows said just that); C's log, R's and these
    functions on arrays give -inf and NaN."""
    assert log_r(0.0) == -math.inf and math.isnan(log_r(-1.0))
    assert math.isnan(log_r(math.nan))
    assert log1p_r(-1.0) == -math.inf and math.isnan(log1p_r(-2.0))


def _shell_sort_literal(values):
    """R's rsort_with_index (src/main/sort.c), transcribed."""
    x, ix = list(values), list(range(len(values)))
    h = 1
    while h <= len(x) // 9:
        h = 3 * h + 1
    while h > 0:
        for i in range(h, len(x)):
            v, iv, j = x[i], ix[i], i
            while j >= h and x[j - h] > v:
                x[j], ix[j] = x[j - h], ix[j - h]
                j -= h
            x[j], ix[j] = v, iv
        h //= 3
    return ix


@pytest.mark.parametrize("n", [1, 2, 9, 10, 40, 200])
def test_shell_sort_order_orders_ties_as_r(n):
    rng = np.random.default_rng(n)
    tied = rng.integers(0, 4, size=n).astype(float)
    distinct = rng.permutation(n).astype(float)
    for values in (tied, distinct):
        assert shell_sort_order(values).tolist() == _shell_sort_literal(values.tolist())


def test_exp_of_a_large_link_is_inf_without_a_warning():
    # R's exp(1000) is Inf, silently; so are the fit's exp on both paths (a row of
    # extreme weight drives a link there, and warned once per tree)
    from pygbm.distributions.inputs import FitContext
    import warnings
    x = np.array([1000.0, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(exp_r(x), [np.inf, math.exp(0.5)])
        for exact in (True, False):
            ctx = FitContext(classes=None, noise_rng=None, r_exact_math=exact)
            assert ctx.model_exp(x)[0] == np.inf


def test_formula_functions_are_the_c_librarys():
    rng = np.random.default_rng(3)
    x = np.abs(rng.normal(size=2000)) * 10.0 ** rng.integers(-3, 4, 2000)
    assert log10_r(x).tolist() == [math.log10(v) for v in x]
    assert log2_r(x).tolist() == [math.log2(v) for v in x]
    assert expm1_r(x / 100).tolist() == [math.expm1(v / 100) for v in x]
    assert pow_r(x, 1.7).tolist() == [math.pow(v, 1.7) for v in x]
    assert tan_r(x).tolist() == [math.tan(v) for v in x]
    np.testing.assert_array_equal(pow_r(x, 2.0), x * x)       # R's x^2 is x * x


def test_trigonometric_functions_are_the_c_librarys():
    rng = np.random.default_rng(4)
    x = rng.uniform(-0.999, 0.999, 2000)
    for name in ("asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "atanh"):
        assert TRIGONOMETRIC_R[name](x).tolist() == [getattr(math, name)(v) for v in x], name
    assert TRIGONOMETRIC_R["acosh"](1 + np.abs(x) * 50).tolist() == \
        [math.acosh(1 + abs(v) * 50) for v in x]
    assert atan2_r(x, x[::-1]).tolist() == [math.atan2(a, b) for a, b in zip(x, x[::-1])]
    # R: asin(2), atanh(1), cosh(1000), asin(NA): NaN Inf Inf NA (NumPy's special values)
    got = np.array([TRIGONOMETRIC_R["asin"](2.0), TRIGONOMETRIC_R["atanh"](np.array([1.0]))[0],
                    TRIGONOMETRIC_R["cosh"](np.array([1000.0]))[0],
                    TRIGONOMETRIC_R["asin"](np.nan)])
    assert np.isnan(got[0]) and got[1] == np.inf and got[2] == np.inf and np.isnan(got[3])


def test_pow_and_expm1_special_values_are_r_s():
    # R: NA^0, 1^NA, (-8)^(1/3), 10^400, (-10)^309, 0^-1, (-2)^3: 1 1 NaN Inf -Inf Inf -8
    got = pow_r([np.nan, 1.0, -8.0, 10.0, -10.0, 0.0, -2.0],
                [0.0, np.nan, 1 / 3, 400.0, 309.0, -1.0, 3.0])
    np.testing.assert_array_equal(got, [1, 1, np.nan, np.inf, -np.inf, np.inf, -8])
    assert pow_r(2.0, 0.5) == math.sqrt(2.0)
    assert expm1_r(np.array([800.0]))[0] == np.inf            # R: expm1(800) is Inf
    np.testing.assert_array_equal(log10_r(np.array([0.0, -1.0, 100.0])), [-np.inf, np.nan, 2])
