"""calibration_curve and calibrate_plot (pygbm/inspect/calibration_plot.py) against
R's calibrate.plot."""

import matplotlib
import numpy as np
import pytest
from perf_cases import EXACT, max_rel, r_cases

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from pygbm.inspect.calibration_plot import calibrate_plot, calibration_curve  # noqa: E402

CAL = r_cases("calibrate")["cases"]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


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


def test_missing_responses_leave_the_knots_of_every_prediction():
    # R's glm(y ~ ns(p, df = 6)) builds the basis in the model frame, from every p, before
    # na.omit drops the rows without y: pygbm took the knots of the kept rows only and
    # drew another curve (0.0887, 0.4176, 0.9418 here). R 4.2.2: the data of
    # np.random.default_rng(1) below written to csv, predict(glm(...), type = "response")
    # at the curve's points 1, 101 and 200
    rng = np.random.default_rng(1)
    p = np.sort(rng.uniform(0.05, 0.95, 300))
    y = rng.binomial(1, p).astype(float)
    y[-30:] = np.nan
    curve = calibration_curve(y, p, "bernoulli")
    np.testing.assert_allclose(curve["fit"].to_numpy()[[0, 100, 199]],
                               [0.0762361338845, 0.3984248082000, 0.9976066769501], rtol=1e-9)


def test_a_diverging_poisson_spline_fit_is_refused_in_words():
    # statsmodels' IRLS reached infinite weights and ended in its own ValueError; R's
    # glm.fit halves its steps and draws with a warning ("fitted rates numerically 0")
    y = [1, 4, 2, 0, 0, 0, 0, 0, 2, 1]
    p = [0.697, 0.771, 0.758, 0.126, 0.525, 0.949, 0.979, 1.335, 1.165, 0.525]
    with pytest.raises(ValueError, match="spline fit diverged .* give a smaller df"):
        calibration_curve(y, p, "poisson")
    assert len(calibration_curve(y, p, "poisson", df=3)) > 0
