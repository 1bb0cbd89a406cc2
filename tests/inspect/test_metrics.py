"""gbm_roc_area, calibration curve/plot, basehaz_gbm and supsmu against R
(fixtures: tests/inspect/perf_r/make_fixtures.R)."""

import json
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from pygbm.inspect.calibration_plot import calibrate_plot, calibration_curve  # noqa: E402
from pygbm.inspect.hazard import basehaz_gbm, supsmu  # noqa: E402
from pygbm.inspect.roc import gbm_roc_area  # noqa: E402

FIXTURES = Path(__file__).parent / "perf_r"
ROC = json.loads((FIXTURES / "roc_cases.json").read_text())["cases"]
CAL = json.loads((FIXTURES / "calibrate_cases.json").read_text())["cases"]
BH = json.loads((FIXTURES / "basehaz_cases.json").read_text())
HAZ, SUP = BH["basehaz"], BH["supsmu"]
#: achieved (max relative difference): roc 4e-16, calibration 5e-15, Breslow 2e-15,
#: supsmu-smoothed 2e-14 (and at most 7e-10 on 200 random R comparisons)
EXACT, SMOOTH = 1e-12, 1e-10


def r_array(values):
    return np.array([np.nan if v is None else v for v in values], float)


def max_rel(a, b):
    a, b = np.asarray(a, float), r_array(b)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(b)
    return np.max(np.abs(a[ok] - b[ok])) / np.max(np.abs(b[ok]))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ------------------------------------------------------------------ ROC area
@pytest.mark.parametrize("name", sorted(ROC))
def test_roc_area_equals_r(name):
    case = ROC[name]
    assert abs(gbm_roc_area(case["obs"], case["pred"]) - case["auc"]) < EXACT


def test_roc_area_small_hand_example():
    # pairs (pos, neg): (0.8, 0.1) win, (0.8, 0.4) win, (0.4, 0.1) win, (0.4, 0.4) tie
    assert gbm_roc_area([1, 0, 1, 0], [0.8, 0.1, 0.4, 0.4]) == pytest.approx(3.5 / 4)
    assert np.isnan(gbm_roc_area([0, 0], [0.2, 0.3]))


@pytest.mark.parametrize("obs, pred, match", [
    ([1, 0], [0.5], "same length"),
    ([], [], "non-empty"),
    ([1, 0], [np.nan, 0.1], "finite"),
    # a class label: numpy's "could not convert string to float: 'R'" from pandas' code
    (["R", "D"], [0.5, 0.1], r"^obs must be numbers, got .*'R'"),
    ([1, 0], ["high", "low"], r"^pred must be numbers"),
])
def test_roc_area_bad_inputs(obs, pred, match):
    with pytest.raises(ValueError, match=match):
        gbm_roc_area(obs, pred)


# ------------------------------------------------------------------ calibration
@pytest.mark.parametrize("name", sorted(CAL))
def test_calibration_curve_equals_r(name):
    case = CAL[name]
    curve = calibration_curve(case["y"], case["p"], case["distribution"], knots=case["knots"],
                              df=case["df"])
    assert list(curve.columns) == ["x", "fit", "se_fit", "lower", "upper"]
    assert len(curve) == 200
    for col in ("x", "fit", "se_fit", "lower", "upper"):
        assert max_rel(curve[col], case[col]) < EXACT, col


@pytest.mark.parametrize("name", ["bernoulli", "poisson"])
def test_calibrate_plot_content(name):
    case = CAL[name]
    ax = calibrate_plot(case["y"], case["p"], distribution=case["distribution"])
    np.testing.assert_allclose(ax.get_xlim(), case["xlim"], rtol=1e-12)
    np.testing.assert_allclose(ax.get_ylim(), case["xlim"], rtol=1e-12)  # R: same range
    assert ax.get_xlabel() == "Predicted value" and ax.get_ylabel() == "Observed average"
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    assert set(lines) == {"calibration curve", "y = x"}
    np.testing.assert_allclose(lines["calibration curve"].get_ydata(), case["fit"], rtol=1e-10)
    assert lines["y = x"].get_color() == "red"
    assert len(ax.collections) == 2  # the +-2 se band and the decile rug
    rug = [c for c in ax.collections if c.get_label() == "deciles of prediction"][0]
    xs = np.array([seg[0][0] for seg in rug.get_segments()])
    np.testing.assert_allclose(xs, np.quantile(case["p"], np.linspace(0, 1, 11)))


def test_calibrate_plot_options():
    case = CAL["gaussian"]
    fig, ax = plt.subplots()
    out = calibrate_plot(case["y"], case["p"], distribution="gaussian", shade_col=None,
                         line_par={"col": "blue"}, xlab="pred", ylab="obs", ax=ax)
    assert out is ax
    np.testing.assert_allclose(ax.get_xlim(), case["xlim_noshade"], rtol=1e-12)
    assert ax.get_xlabel() == "pred" and ax.get_ylabel() == "obs"
    curve = [ln for ln in ax.get_lines() if ln.get_label() == "calibration curve"][0]
    assert curve.get_color() == "blue"
    assert len(ax.collections) == 1  # no band, only the rug
    calibrate_plot(case["y"], case["p"], distribution="gaussian", replace=False, ax=ax,
                   shade_density=10)
    assert len([ln for ln in ax.get_lines() if ln.get_label() == "calibration curve"]) == 2
    np.testing.assert_allclose(ax.get_xlim(), case["xlim_noshade"], rtol=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    (dict(df=2.5), "positive integer"),
    (dict(df=0), "positive integer"),
    (dict(df=None), "knots or df"),
    (dict(knots=[-1.0]), "inside the range"),
    (dict(distribution="poisson", y=[-1, 1, 2, 3]), "non-negative"),
    (dict(y=[0, 2, 1, 0]), r"\[0, 1\]"),
    (dict(p=[0.1, np.nan, 0.3, 0.4]), "finite"),
    (dict(p=[0.1, 0.2]), "same length"),
    (dict(p=[0.5, 0.5, 0.5, 0.5]), "distinct"),
    # the knots are quantiles of p, and these fall on its ends: said "knots must lie
    # strictly inside the range of p" to a call that gave no knots
    (dict(y=[0, 1] * 10, p=[0.2] * 8 + [0.5] * 4 + [0.8] * 8),
     r"too few distinct values for df=6.*smaller df or knots"),
])
def test_calibration_bad_inputs(kwargs, match):
    args = dict(y=[0, 1, 1, 0], p=[0.1, 0.2, 0.3, 0.4])
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        calibration_curve(**args)


def test_calibration_curve_of_a_rank_deficient_spline_is_r():
    # six distinct p for ns(p, df = 6) and an intercept: R's glm gives the aliased column
    # an NA coefficient and predicts from the others ("prediction from a rank-deficient
    # fit may be misleading"); pygbm drew 0s and 1s with NaN standard errors, and with
    # fewer rows than columns (5) raised numpy's LinAlgError
    vals = np.linspace(0.1, 0.9, 6)
    p = np.r_[np.repeat(vals[0], 3), np.repeat(vals[1:-1], 30), np.repeat(vals[-1], 3)]
    y = (np.arange(len(p)) % 3 == 0).astype(float)
    y[:3], y[-3:] = [0, 1, 0], [1, 1, 0]
    with pytest.warns(UserWarning, match="rank-deficient fit may be misleading"):
        curve = calibration_curve(y, p)
    rows = [0, 49, 119, 199]
    # R 4.2.2: glm(y ~ ns(p, df = 6), binomial), predict(se.fit = TRUE) on 200 points
    np.testing.assert_allclose(curve["fit"].to_numpy()[rows],
                               [0.333333333333, 0.11174018964, 0.373810509173,
                                0.666666666667], rtol=1e-9)
    np.testing.assert_allclose(curve["se_fit"].to_numpy()[rows],
                               [0.272165477003, 0.141228734919, 0.0982510481205,
                                0.272165477003], rtol=1e-9)
    with pytest.warns(UserWarning, match="rank-deficient"):
        few = calibration_curve([0, 1, 1, 0, 1], [0.1, 0.7, 0.8, 0.3, 0.6])
    assert np.isfinite(few["fit"]).all()


# ------------------------------------------------------------------ baseline hazard
def test_breslow_cumulative_equals_r():
    assert max_rel(basehaz_gbm(HAZ["t"], HAZ["delta"], HAZ["f_x"]), HAZ["cum"]) < EXACT
    out = basehaz_gbm(HAZ["t"], HAZ["delta"], HAZ["f_x"], t_eval=HAZ["t_eval"])
    assert max_rel(out, HAZ["cum_teval"]) < EXACT
    assert np.isnan(out[-1])  # t = 2000 is beyond the last event: NA in R


@pytest.mark.parametrize("key, kwargs", [
    ("smooth_cum", dict(smooth=True)),
    ("smooth_haz", dict(smooth=True, cumulative=False)),
    ("smooth_cum_teval", dict(smooth=True, t_eval=HAZ["t_eval"])),
])
def test_breslow_smoothed_equals_r(key, kwargs):
    out = basehaz_gbm(HAZ["t"], HAZ["delta"], HAZ["f_x"], **kwargs)
    assert max_rel(out, HAZ[key]) < SMOOTH


def test_breslow_hand_example():
    # events at 1 (risk set all 3) and 2 (risk set {2, 3}); f = 0 -> 1/3, then 1/2
    out = basehaz_gbm([1, 2, 3], [1, 1, 0], [0, 0, 0], t_eval=[1, 1.5, 2, 3])
    np.testing.assert_allclose(out[:3], [1 / 3, 1 / 3 + 0.25, 1 / 3 + 0.5])
    assert np.isnan(out[3])


@pytest.mark.parametrize("kwargs, match", [
    (dict(cumulative=False), "no result"),
    (dict(cumulative=False, t_eval=[1.0]), "Cannot evaluate unsmoothed"),
    (dict(delta=[0, 0, 0, 1]), "two distinct event times"),
    (dict(f_x=[0, 0]), "same length"),
    (dict(t=[1, np.nan, 3, 4]), "finite"),
    # text: numpy's "could not convert string to float" before
    (dict(delta=["dead", "dead", "alive", "dead"]), r"^delta must be numbers"),
    (dict(t_eval=["1", "a"]), r"^t_eval must be numbers"),
])
def test_breslow_bad_inputs(kwargs, match):
    args = dict(t=[1, 2, 3, 4], delta=[1, 1, 0, 1], f_x=[0, 0.1, 0.2, 0.3])
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        basehaz_gbm(**args)


# ------------------------------------------------------------------ supsmu
@pytest.mark.parametrize("name", sorted(SUP))
def test_supsmu_equals_r(name):
    case = SUP[name]
    x, y = supsmu(case["x"], case["y"], wt=case["wt"], span=case["span"])
    np.testing.assert_array_equal(x, case["out_x"])
    assert max_rel(y, case["out_y"]) < SMOOTH


def test_supsmu_constant_x_and_bad_inputs():
    x, y = supsmu([2, 2, 2], [1, 2, 6])
    assert list(x) == [2] and y[0] == pytest.approx(3)
    with pytest.raises(ValueError, match="between 0 and 1"):
        supsmu([1, 2, 3], [1, 2, 3], span=2)
    with pytest.raises(ValueError, match="periodic"):
        supsmu([0.1, 0.2, 0.3], [1, 2, 3], periodic=True)
    with pytest.warns(UserWarning, match="deleted"):
        supsmu([1, 2, 3, np.nan, 5, 6], [1, 2, 3, 4, 5, 6])
