"""Surv(): right-censored responses coded as R's survival::Surv."""

import numpy as np
import pandas as pd
import pytest

from pygbm.frontend import Surv, SurvData

from ._data import read


def test_lung_status_coded_1_2():
    lung = read("lung")
    s = Surv(lung["time"], lung["status"])  # 1 = censored, 2 = dead
    assert isinstance(s, SurvData) and s.type == "right"
    assert len(s) == 228 and s.shape == (228, 2)
    assert s.status.sum() == 165 and (s.status == 0).sum() == 63  # as table(lung$status)
    np.testing.assert_array_equal(s.time, lung["time"].to_numpy(dtype=float))
    np.testing.assert_array_equal(np.asarray(s), np.column_stack([s.time, s.status]))


def test_zero_one_and_bool_status_agree():
    time = [5.0, 3.0, 8.0]
    expected = [1.0, 0.0, 1.0]
    np.testing.assert_array_equal(Surv(time, [1, 0, 1]).status, expected)
    np.testing.assert_array_equal(Surv(time, [2, 1, 2]).status, expected)
    np.testing.assert_array_equal(Surv(time, [True, False, True]).status, expected)
    np.testing.assert_array_equal(Surv(time, pd.Series([True, False, True])).status, expected)
    # only censored observations coded 0: stays 0 (max is not 2)
    np.testing.assert_array_equal(Surv(time, [0, 0, 0]).status, [0, 0, 0])


def test_time_only_means_all_events_and_missing_kept():
    s = Surv([1.0, np.nan, 3.0])
    np.testing.assert_array_equal(s.status, [1, np.nan, 1])
    s = Surv([1.0, 2.0, 3.0], pd.array([1, None, 0], dtype="Int64"))
    np.testing.assert_array_equal(s.status, [1, np.nan, 0])
    np.testing.assert_array_equal(s.isna(), [False, True, False])


def test_rows_and_repr():
    s = Surv([4.0, 5.0, 6.0], [1, 0, 1])
    sub = s[np.array([2, 0])]
    np.testing.assert_array_equal(sub.time, [6, 4])
    np.testing.assert_array_equal(sub.status, [1, 1])
    assert repr(s) == "Surv([4, 5+, 6], n=3)"


def test_the_index_of_the_series_it_was_built_from_is_kept():
    # gbm_fit compares it with its table's (by it a Surv of rows in another order is
    # refused, as a Series would be: tests/test_bad_inputs.py)
    t = pd.Series([4.0, 5.0, 6.0], index=[7, 3, 5])
    s = Surv(t, [1, 0, 1])
    assert s.index.equals(t.index)
    assert s[np.array([2, 0])].index.tolist() == [5, 7]
    assert s[1:].index.tolist() == [3, 5]
    assert Surv([4.0, 5.0, 6.0], pd.Series([1, 0, 1], index=[2, 1, 0])).index.tolist() == \
        [2, 1, 0]
    assert Surv([4.0, 5.0, 6.0], [1, 0, 1]).index is None


def test_errors():
    with pytest.raises(ValueError, match="found other values: \\[3.0\\]"):
        Surv([1, 2, 3], [0, 1, 3])
    with pytest.raises(ValueError, match="different lengths"):
        Surv([1, 2, 3], [0, 1])
    with pytest.raises(ValueError, match="counting-process"):
        Surv([0, 0], [1, 2], [1, 0])
    with pytest.raises(ValueError, match="only right-censored"):
        Surv([1, 2], [1, 0], type="left")
    with pytest.raises(ValueError, match="multi-state"):
        Surv([1, 2], pd.Series(pd.Categorical(["a", "b"])))
    with pytest.raises(TypeError, match="`time` must be numeric"):
        Surv(pd.Series(["1", "2"]), [1, 0])
    with pytest.raises(TypeError, match="`time` must be numeric"):
        Surv(np.array(["1", "2"]), [1, 0])


def test_a_column_of_numbers_in_object_dtype_is_numbers_and_complex_is_refused():
    # an object column of numbers was refused ("got column dtype object") where a
    # predictor or weights so held are numbers; complex times lost their imaginary part
    # with NumPy's warning
    s = Surv(pd.Series([4.0, 5, None], dtype=object), pd.Series([1, 0, 1], dtype=object))
    np.testing.assert_array_equal(s.time, [4.0, 5.0, np.nan])
    np.testing.assert_array_equal(s.status, [1, 0, 1])
    with pytest.raises(TypeError, match="`time` must be numeric, got column dtype complex128"):
        Surv(pd.Series([1.0, 2.0]) * (1 + 1j), [1, 0])
    with pytest.raises(TypeError, match="`time` must be numeric, got dtype complex128"):
        Surv(np.array([1.0, 2.0]) * (1 + 1j), [1, 0])
