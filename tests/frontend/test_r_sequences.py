"""R's vector functions in term arguments: ``seq``, ``findInterval``, ``sort``, ``rev``
(``pygbm.frontend.r_vectors``) and the training data's ``unique``, ``levels`` and
``nlevels`` (``r_summaries``), kept for new data. Expected values are R 4.2.2's."""

import numpy as np
import pandas as pd
import pytest

from pygbm.frontend import model_frame, model_frame_newdata
from pygbm.frontend.r_vectors import cbind, find_interval, r_sort, rev, row_means, row_sums, seq


def _r17(values):
    return [float(f"{v:.17g}") for v in values]


def test_seq_as_r():
    # R: sprintf("%.17g", seq(0, 1, 0.1)): 0.30000000000000004, 0.60000000000000009, ...
    got = seq(0, 1, 0.1)
    assert got[3] == 0.30000000000000004 and got[6] == 0.60000000000000009 and got[-1] == 1
    assert _r17(seq(0, 1, length_out=7))[1:3] == [0.16666666666666666, 0.33333333333333331]
    assert seq(0, 1, length_out=7)[5] == 0.83333333333333326
    assert seq(0.1, 2.3, by=0.7).tolist() == [0.10000000000000001, 0.79999999999999993, 1.5,
                                              2.1999999999999997]
    assert seq(10, 1).tolist() == list(range(10, 0, -1)) and seq(5).tolist() == [1, 2, 3, 4, 5]
    assert seq(2, 11, by=3).tolist() == [2, 5, 8, 11] and seq(2.5).tolist() == [1, 2]
    assert seq(-2).tolist() == [1, 0, -1, -2] and seq(0.5, 3).tolist() == [0.5, 1.5, 2.5]
    with pytest.raises(ValueError, match="wrong sign in 'by'"):
        seq(1, 5, by=-1)
    with pytest.raises(ValueError, match="'by' must be one finite number"):
        seq(1, 5, by=np.nan)


def test_find_interval_as_r():
    breaks = [0, 1, 2, 3]
    # R: findInterval(c(1.5, NA, 3.2, 0, 5), c(0, 1, 2, 3)) 2 NA 4 1 4
    got = find_interval(np.array([1.5, np.nan, 3.2, 0, 5]), breaks)
    assert np.array_equal(got, [2, np.nan, 4, 1, 4], equal_nan=True)
    assert find_interval(np.array([3.0, 0]), breaks, rightmost_closed=True).tolist() == [3, 1]
    assert find_interval(np.array([3.0, 0, 9, -1]), breaks, all_inside=True).tolist() \
        == [3, 1, 3, 1]
    assert find_interval(np.array([1.0, 2]), breaks, left_open=True).tolist() == [1, 2]
    with pytest.raises(ValueError, match="sorted non-decreasingly"):
        find_interval(np.array([1.0]), [2, 1])


def test_sort_and_rev_as_r():
    assert r_sort(pd.Series([3, np.nan, 1])).tolist() == [1, 3]
    assert r_sort(pd.Series(["b", "A", "a", "B"])).tolist() == ["a", "A", "b", "B"]
    assert r_sort(pd.Series([3, 1, 2]), decreasing=True).tolist() == [3, 2, 1]
    f = pd.Series(pd.Categorical(["b", "a", None, "c"], categories=["c", "b", "a"]))
    assert r_sort(f).tolist() == ["c", "b", "a"]                 # by the levels
    r = rev(pd.Series([1.0, 2.0, np.nan], index=[7, 8, 9]))
    assert np.array_equal(r.to_numpy(), [np.nan, 2, 1], equal_nan=True)
    assert r.index.tolist() == [7, 8, 9]                        # row i gets row n - i's value


def test_row_sums_and_means_as_r():
    a, b = pd.Series([1.0, np.nan, 3.0]), pd.Series(pd.array([True, False, None], "boolean"))
    # R: rowSums(cbind(c(1, NA, 3), c(TRUE, FALSE, NA))) 2 NA NA; na.rm = TRUE: 2 0 3;
    # rowMeans(..., na.rm = TRUE) 1 0 3
    m = cbind(a, b)
    assert np.array_equal(row_sums(m), [2, np.nan, np.nan], equal_nan=True)
    assert row_sums(m, na_rm=True).tolist() == [2, 0, 3]
    assert row_means(m, na_rm=True).tolist() == [1, 0, 3]
    with pytest.raises(TypeError, match="binds numbers"):
        cbind(pd.Series(pd.Categorical(["a"])), a)
    with pytest.raises(TypeError, match="columns of cbind"):
        row_sums(a)


def _frame():
    rng = np.random.default_rng(2)
    return pd.DataFrame({"y": rng.normal(size=40), "g": rng.choice(list("dcab"), 40),
                         "x": rng.integers(0, 5, 40).astype(float)})


def test_unique_and_levels_of_the_training_data():
    d = _frame()
    # R: factor(g, levels = unique(g)): the levels in the order of their first rows
    mf = model_frame("y ~ factor(g, levels = unique(g)) + factor(g, levels = rev(levels("
                     "factor(g))))", d)
    assert list(mf.var_levels[0]) == list(pd.unique(d.g))
    assert list(mf.var_levels[1]) == ["d", "c", "b", "a"]
    # kept for new data (R would take the new rows' own order): the same codes
    new = d.iloc[::-1].iloc[:9]
    np.testing.assert_array_equal(model_frame_newdata(mf.encoder, new), mf.x[::-1][:9])
    mf = model_frame("y ~ I(x / nlevels(factor(g))) + I(nlevels(g) + x)", d)
    np.testing.assert_array_equal(mf.x[:, 0], d.x / 4)
    np.testing.assert_array_equal(mf.x[:, 1], d.x)             # R: nlevels of text is 0
    with pytest.raises(TypeError, match=r"levels\(\) takes a factor.*levels\(factor\(x\)\)"):
        model_frame("y ~ factor(g, levels = levels(g))", d)
