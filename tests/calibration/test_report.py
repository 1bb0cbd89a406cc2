"""calibration_report (pygbm/calibration/report.py, issue 23): its measures, an
undefined calibration-in-the-large, bad arguments."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pygbm


def test_calibration_report_measures():
    y = np.array([0, 0, 1, 1], dtype=float)
    p = np.array([0.1, 0.2, 0.6, 0.9])
    r = pygbm.calibration_report(y, p, bins=2)
    assert r["in_the_large"] == pytest.approx(1.8 / 2)
    assert r["ece"] == pytest.approx((abs(0.3 - 0) + abs(1.5 - 2)) / 4)
    assert r["brier"] == pytest.approx((0.01 + 0.04 + 0.16 + 0.01) / 4)
    dev = -2 * np.mean(np.log([0.9, 0.8, 0.6, 0.9]))
    assert r["deviance"] == pytest.approx(dev) and r["n"] == 4
    counts = pygbm.calibration_report([0, 2, 1], [0.5, 1.5, 1.0])
    expect = 2 * np.mean([0.5, 2 * np.log(2 / 1.5) - 0.5, 0.0])
    assert counts["deviance"] == pytest.approx(expect)
    with pytest.raises(ValueError, match="same length"):
        pygbm.calibration_report([0, 1], [0.5])
    with pytest.raises(ValueError, match="distribution must be"):
        pygbm.calibration_report(y, p, distribution="tweedie")
    with pytest.raises(ValueError, match=r"p must be in \[0, 1\] with distribution "
                       r"'bernoulli' \(guessed from y\).*distribution='poisson'"):
        pygbm.calibration_report([0, 1], [0.5, 1.5])
    assert pygbm.calibration_report([0, 1], [0.5, 1.5], distribution="poisson")["n"] == 2
    with pytest.raises(ValueError, match="y must be in \\[0, 1\\] with distribution 'bernoulli',"):
        pygbm.calibration_report([0, 2], [0.5, 0.7], distribution="bernoulli")
    with pytest.raises(ValueError, match="p must be >= 0 with distribution 'poisson'"):
        pygbm.calibration_report([0, 2], [0.5, -1.0])
    assert pygbm.calibration_report([1.5, 2.5], [-1.0, 3.0])["n"] == 2      # gaussian


@pytest.mark.parametrize("y, p, distribution", [
    (np.zeros(8), [.1, .8, .6, .3, .2, .7, .4, .1], None),            # bernoulli
    (np.zeros(4), [0.5, 1.5, 2.0, 0.0], "poisson"),
    (np.zeros(4), [-0.5, 1.5, 2.0, 0.0], "gaussian"),
    (np.array([-1.0, 1.0, -2.0, 2.0]), [0.1, 0.2, 0.3, 0.4], None),   # gaussian, sum 0
])
def test_calibration_report_in_the_large_undefined_at_sum_of_y_zero_warns(y, p, distribution):
    # in_the_large (sum p / sum y) was NaN silently where every y is 0
    rows = "every y is 0" if not y.any() else "the weighted sum of y is 0"
    with pytest.warns(UserWarning, match=rf"in_the_large \(sum of w p / sum of w y\) is "
                                         rf"undefined where {rows}, so it is NaN: the "
                                         rf"weighted mean of p is {np.mean(p):.4g}, of y 0 "):
        report = pygbm.calibration_report(y, p, distribution=distribution)
    assert np.isnan(report["in_the_large"]) and report["n"] == y.size
    assert report["brier"] == pytest.approx(np.mean((y - np.asarray(p)) ** 2))


@pytest.mark.parametrize("kw, match", [
    (dict(y=None), "y must be numbers, got None"),
    (dict(p=["a", "b", "c", "d"]), "p must be numbers"),
    (dict(y=pd.Series(["no", "no", "yes", "yes"])),
     r"^y must be numbers, got Series of 4 values with non-numbers such as 'no'$"),
    (dict(p=[0.1, np.nan, 0.5, 0.5]), "p must be finite numbers, got 1 NaN"),
    (dict(y=[0, np.inf, 1, 1]), "y must be finite numbers, got 0 NaN and 1 infinite"),
    (dict(weights=["a"] * 4), "weights must be numbers"),
    (dict(weights=np.ones((4, 1))), r"weights must be one number per row \(4\), got shape"),
    (dict(weights=[1, -1, 1, 1]), "weights must be >= 0.*1 negative"),
    (dict(weights=[1, np.nan, 1, 1]), "weights must be finite numbers, got 1 NaN"),
])
def test_calibration_report_bad_arguments_name_themselves(kw, match):
    args = dict(y=[0, 0, 1, 1], p=[0.1, 0.2, 0.6, 0.9]) | kw
    with pytest.raises(ValueError, match=match):       # not NumPy's "could not convert"
        pygbm.calibration_report(**args)


def test_ece_of_tied_predictions_does_not_depend_on_the_row_order():
    # perfectly calibrated: two tied predictions with their exact rates; the bins
    # cut the ties by the rows' order before (ece 0.2 with the rows sorted by y)
    p = np.repeat([0.1, 0.3], 50)
    y = np.r_[np.repeat([1.0, 0.0], [5, 45]), np.repeat([1.0, 0.0], [15, 35])]
    for order in (np.arange(100), np.argsort(y, kind="stable")):
        assert pygbm.calibration_report(y[order], p[order], bins=4)["ece"] == \
            pytest.approx(0.0, abs=1e-15)
