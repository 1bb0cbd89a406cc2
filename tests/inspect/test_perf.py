"""gbm_perf against R gbm 2.1.8.1 (fixtures: tests/inspect/perf_r/make_fixtures.R)."""

import json
import pickle
import types
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from pygbm.inspect.perf import (OOB_WARNING, BestIteration, gbm_perf,  # noqa: E402
                                get_ylab, guess_error_method, oob_smoother)

FIXTURES = Path(__file__).parent / "perf_r"
CASES = json.loads((FIXTURES / "perf_cases.json").read_text())["cases"]


def as_fit(case, **override):
    """A duck-typed fitted object built from R's exported gbm object."""
    fields = dict(
        train_error=np.array(case["train_error"], float),
        valid_error=None if case["valid_error"] is None else np.array(case["valid_error"], float),
        oobag_improve=np.array(case["oobag_improve"], float),
        cv_error=None if case["cv_error"] is None else np.array(case["cv_error"], float),
        train_fraction=case["train_fraction"], n_trees=case["n_trees"],
        bag_fraction=case["bag_fraction"], shrinkage=case["shrinkage"],
        distribution=types.SimpleNamespace(name=case["distribution"]),
    )
    fields.update(override)
    return types.SimpleNamespace(**fields)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_fixtures_are_stamped():
    stamp = json.loads((FIXTURES / "perf_cases.json").read_text())["stamp"]
    assert stamp["gbm"].startswith("2.1.8")
    assert stamp["R"].startswith("R version 4.2.2")


@pytest.mark.parametrize("name", sorted(CASES))
def test_oob_rule_gives_r_iteration(name):
    case = CASES[name]
    with pytest.warns(UserWarning, match="OOB generally underestimates"):
        best = gbm_perf(as_fit(case), method="OOB", plot_it=False)
    assert best == case["best_oob"]
    assert isinstance(best, int) and best.method == "OOB"


@pytest.mark.parametrize("name", sorted(CASES))
def test_oob_smoother_equals_r_loess(name):
    case = CASES[name]
    sm = oob_smoother(as_fit(case))
    r = np.array(case["loess_fitted"])
    assert sm.span == case["loess_span"] or abs(sm.span - case["loess_span"]) < 1e-15
    np.testing.assert_array_equal(sm.x, np.arange(1, case["n_trees"] + 1))
    rel = np.max(np.abs(sm.y - r)) / np.max(np.abs(r))
    assert rel < 1e-12


@pytest.mark.parametrize("name", [k for k in sorted(CASES) if CASES[k]["best_test"] is not None])
def test_test_rule(name):
    case = CASES[name]
    assert gbm_perf(as_fit(case), method="test", plot_it=False) == case["best_test"]
    assert case["best_test"] == int(np.argmin(case["valid_error"])) + 1


@pytest.mark.parametrize("name", [k for k in sorted(CASES) if CASES[k]["best_cv"] is not None])
def test_cv_rule(name):
    case = CASES[name]
    assert gbm_perf(as_fit(case), method="cv", plot_it=False) == case["best_cv"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_method_as_r(name):
    case = CASES[name]
    fit = as_fit(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        best = gbm_perf(fit, plot_it=False)
    assert best == case["best_default"]
    expected = ("test" if case["train_fraction"] < 1
                else "cv" if case["cv_error"] is not None else "OOB")
    assert guess_error_method(fit) == expected == best.method


@pytest.mark.parametrize("name", sorted(CASES))
def test_ylab_as_r(name):
    assert get_ylab(as_fit(CASES[name])) == CASES[name]["ylab"]


def test_ylab_pairwise_metric():
    fit = types.SimpleNamespace(distribution=types.SimpleNamespace(name="pairwise", metric="map"))
    assert get_ylab(fit) == "Mean average precision"


def test_method_case_insensitive_and_nan_ignored():
    case = CASES["boston_3000"]
    valid = np.array(case["valid_error"])
    valid[:5] = np.nan
    fit = as_fit(case, valid_error=valid)
    assert gbm_perf(fit, method="TEST", plot_it=False) == case["best_test"]


def test_best_iteration_is_a_picklable_int():
    with pytest.warns(UserWarning):
        best = gbm_perf(as_fit(CASES["pima2_300"]), method="OOB", plot_it=False)
    assert best + 1 == CASES["pima2_300"]["best_oob"] + 1
    assert repr(best) == str(CASES["pima2_300"]["best_oob"])
    again = pickle.loads(pickle.dumps(best))
    assert again == best and again.method == "OOB"
    assert isinstance(BestIteration(3, "cv"), int)


# ------------------------------------------------------------------ bad inputs
def test_test_without_validation_set():
    with pytest.raises(ValueError, match=r'method="test".*train_fraction=1'):
        gbm_perf(as_fit(CASES["pima2_1000"]), method="test", plot_it=False)


def test_cv_without_cv():
    with pytest.raises(ValueError, match=r'method="cv".*cv_folds > 1'):
        gbm_perf(as_fit(CASES["pima2_1000"]), method="cv", plot_it=False)


@pytest.mark.parametrize("n_trees", [1, 2])
def test_oob_of_too_few_trees_says_so(n_trees):
    # loess's "span is too small" / "zero-width neighbourhood" spoke of a span the
    # call did not give
    case = CASES["pima2_1000"]
    fit = as_fit(case, n_trees=n_trees,
                 oobag_improve=np.array(case["oobag_improve"][:n_trees], float))
    with pytest.raises(ValueError, match=r'method="OOB" .*at least 3 iterations.*has '
                                         rf'{n_trees} of {n_trees}'):
        gbm_perf(fit, method="OOB", plot_it=False)


def test_oob_without_bagging():
    with pytest.raises(ValueError, match=r'method="OOB".*bag_fraction=1'):
        gbm_perf(as_fit(CASES["pima2_1000"], bag_fraction=1.0), method="OOB", plot_it=False)


def test_oob_without_finite_improvements():
    fit = as_fit(CASES["boston_30"], oobag_improve=np.full(30, np.nan))
    with pytest.raises(ValueError, match="No finite OOB"):
        gbm_perf(fit, method="OOB", plot_it=False)


def test_oob_with_infinite_improvements_says_so():
    # R's huberized out-of-bag improvement is +-Inf where no out-of-bag row is outside
    # the quadratic part (reproduced by pygbm); R's gbm.perf then stops in loess ("NA/NaN/
    # Inf in foreign function call"), pygbm left them out of the smoother without a word
    case = CASES["boston_30"]
    improve = np.array(case["oobag_improve"], float)
    improve[[1, 2, 8]] = [np.inf, np.inf, -np.inf]
    with pytest.warns(UserWarning, match=r"^fit.oobag_improve has 3 infinite value\(s\) "
                                         r"\(at iteration\(s\) 2, 3, 9\); the OOB smoother "
                                         r"leaves them out"):
        best = gbm_perf(as_fit(case, oobag_improve=improve), method="OOB", plot_it=False)
    improve[[1, 2, 8]] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)     # the OOB rule's own message
        same = gbm_perf(as_fit(case, oobag_improve=improve), method="OOB", plot_it=False)
    assert best == same


def test_unknown_method():
    with pytest.raises(ValueError, match="method must be one of"):
        gbm_perf(as_fit(CASES["boston_30"]), method="aic", plot_it=False)
    with pytest.raises(TypeError, match="method"):
        gbm_perf(as_fit(CASES["boston_30"]), method=3, plot_it=False)


def test_missing_errors_name_the_field():
    fit = as_fit(CASES["boston_30"], oobag_improve=None)
    with pytest.raises(TypeError, match="oobag_improve"):
        gbm_perf(fit, method="OOB", plot_it=False)


def test_length_mismatch():
    fit = as_fit(CASES["boston_30"], n_trees=31)
    with pytest.raises(ValueError, match="n_trees"):
        gbm_perf(fit, method="OOB", plot_it=False)


# ------------------------------------------------------------------ plots
def _lines(ax):
    return {line.get_label(): line for line in ax.get_lines()}


def test_plot_test_method():
    case = CASES["boston_3000"]
    best = gbm_perf(as_fit(case), method="test")
    (ax,) = best.axes
    lines = _lines(ax)
    assert set(lines) == {"training", "validation", f"best iteration (test): {best}"}
    assert lines["training"].get_color() == "black"
    assert lines["validation"].get_color() == "red"
    vline = lines[f"best iteration (test): {best}"]
    assert vline.get_xdata()[0] == case["best_test"] == best
    assert vline.get_linestyle() == "--" and vline.get_color() == "blue"
    np.testing.assert_array_equal(lines["training"].get_ydata(), case["train_error"])
    assert ax.get_xlabel() == "Iteration" and ax.get_ylabel() == "Squared error loss"
    assert ax.get_legend() is not None


def test_plot_cv_method_on_given_axes():
    case = CASES["boston_100_cv"]
    fig, ax = plt.subplots()
    best = gbm_perf(as_fit(case), method="cv", ax=ax)
    assert best.axes == [ax]
    lines = _lines(ax)
    assert "validation" not in lines  # train_fraction = 1
    assert lines["cv"].get_color() == "green"
    np.testing.assert_allclose(lines["cv"].get_ydata(), case["cv_error"])
    assert lines[f"best iteration (cv): {best}"].get_xdata()[0] == case["best_cv"]


def test_plot_oob_curve_overlay():
    case = CASES["pima2_1000"]
    with pytest.warns(UserWarning):
        best = gbm_perf(as_fit(case), method="OOB", oobag_curve=True)
    main, twin, oob = best.axes
    assert main.get_ylabel() == "Bernoulli deviance"
    assert twin.get_ylabel() == "OOB improvement in Bernoulli deviance"
    cum = twin.get_lines()[0]
    np.testing.assert_allclose(cum.get_ydata(), np.cumsum(case["loess_fitted"]), rtol=1e-10)
    assert np.argmax(cum.get_ydata()) + 1 == best
    assert oob.get_ylabel() == "OOB change in Bernoulli deviance"
    lines = _lines(oob)
    np.testing.assert_allclose(lines["loess smooth"].get_ydata(), case["loess_fitted"],
                               rtol=1e-10)
    assert lines["loess smooth"].get_color() == "red"
    xs = [ln.get_xdata()[0] for ln in oob.get_lines() if ln.get_label().startswith("_")]
    assert best in xs  # the vertical line at the chosen iteration


def test_plot_oob_curve_without_overlay_for_test_method():
    case = CASES["spam_2000"]
    fig, (a1, a2) = plt.subplots(1, 2)
    best = gbm_perf(as_fit(case), method="test", oobag_curve=True, overlay=False, ax=(a1, a2))
    assert best.axes == [a1, a2]
    assert best.smoother is not None
    np.testing.assert_allclose(best.smoother.y, case["loess_fitted"], rtol=1e-10)
    assert len(a1.get_lines()) == 3  # training, validation, best-iteration line


def test_plot_axes_may_be_the_array_of_subplots_and_no_more_than_the_panels():
    """plt.subplots(1, 2) gives a numpy array of Axes: it was refused ("ax must be
    a matplotlib Axes or None, got ndarray"); extra Axes were silently left empty."""
    fit = as_fit(CASES["spam_2000"])
    fig, axs = plt.subplots(1, 2)
    best = gbm_perf(fit, method="test", oobag_curve=True, overlay=False, ax=axs)
    assert best.axes == list(axs)
    with pytest.raises(ValueError, match="ax holds 2 Axes but the plot has 1 panel"):
        gbm_perf(fit, method="test", ax=axs)
    with pytest.raises(TypeError, match="ax must be .* a list of them .* got a list holding str"):
        gbm_perf(fit, method="test", oobag_curve=True, ax=[axs[0], "right"])
    plt.close(fig)


def test_oob_warning_is_r_message():
    r_message = ("OOB generally underestimates the optimal number of iterations although "
                 "predictive performance is reasonably competitive. Using cv_folds>1 when "
                 "calling gbm usually results in improved predictive performance.")
    assert OOB_WARNING == r_message
    with pytest.warns(UserWarning) as record:
        gbm_perf(as_fit(CASES["boston_30"]), method="OOB", plot_it=False)
    assert [str(w.message) for w in record] == [r_message]
