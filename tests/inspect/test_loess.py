"""R's loess (one predictor) against R 4.2.2 (fixtures: perf_r/make_fixtures.R)."""

import json
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from pygbm.inspect.loess import loess, span_from_enp

FIXTURES = Path(__file__).parent / "perf_r"
CASES = json.loads((FIXTURES / "loess_cases.json").read_text())["cases"]
PERF = json.loads((FIXTURES / "perf_cases.json").read_text())["cases"]
#: achieved: max relative difference 7e-15 (the fixtures hold 15 significant digits)
RTOL = 1e-12


def fit_case(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return loess(case["x"], case["y"], weights=case["weights"], span=case["span"],
                     degree=case["degree"], surface=case["surface"], cell=case["cell"])


def max_rel(a, b):
    b = np.asarray(b, float)
    return np.max(np.abs(np.asarray(a) - b)) / np.max(np.abs(b))


@pytest.mark.parametrize("name", sorted(CASES))
def test_fitted_values_equal_r(name):
    case = CASES[name]
    assert max_rel(fit_case(case).fitted, case["fitted"]) < RTOL


@pytest.mark.parametrize("name", [k for k in sorted(CASES) if CASES[k]["kd"] is not None])
def test_kd_tree_equals_r(name):
    """Same cells, same vertices, same vertex values and slopes as R's fit$kd."""
    case = CASES[name]
    kd = case["kd"]
    fit = fit_case(case)
    xi, a = np.array(kd["xi"]), np.array(kd["a"])
    assert fit.kd.n_cells == len(xi)
    r_vertices = np.concatenate([kd["vert"], xi[a != 0]])
    order = np.argsort(r_vertices)
    np.testing.assert_allclose(fit.kd.vertices, r_vertices[order], rtol=1e-14)
    vval = np.array(kd["vval"]).reshape(-1, 2)[order]
    assert max_rel(fit.kd.values, vval[:, 0]) < RTOL
    assert np.max(np.abs(fit.kd.slopes - vval[:, 1])) <= RTOL * np.max(np.abs(vval[:, 1])) + 1e-300


@pytest.mark.parametrize("name", sorted(PERF))
def test_oobag_improve_smooths_equal_r(name):
    case = PERF[name]
    n = case["n_trees"]
    span = span_from_enp(min(max(4, n / 10), 50))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        fit = loess(np.arange(1, n + 1), case["oobag_improve"], span=span)
    assert max_rel(fit.fitted, case["loess_fitted"]) < RTOL
    assert int(np.argmin(-np.cumsum(fit.fitted))) + 1 == case["best_oob"]


def test_enp_target_span_as_r():
    for case in CASES.values():
        if case["enp_target"] is not None:
            assert abs(span_from_enp(case["enp_target"]) - case["span"]) < 1e-15
    assert span_from_enp(50) == 1.2 * 3 / 50
    assert span_from_enp(4, degree=1) == 1.2 * 2 / 4


def test_enp_target_argument_and_both_given():
    case = CASES["walk_100"]
    f1 = loess(case["x"], case["y"], enp_target=10)
    assert max_rel(f1.fitted, case["fitted"]) < RTOL
    with pytest.warns(UserWarning, match="'span' will be used"):
        f2 = loess(case["x"], case["y"], span=case["span"], enp_target=3)
    np.testing.assert_array_equal(f1.fitted, f2.fitted)


def test_pseudoinverse_warning_for_tiny_n():
    case = CASES["walk_4"]
    with pytest.warns(UserWarning, match="pseudoinverse"):
        fit = loess(case["x"], case["y"], span=case["span"])
    assert max_rel(fit.fitted, case["fitted"]) < RTOL


def test_evaluate_outside_box_is_nan():
    case = CASES["walk_100"]
    kd = loess(case["x"], case["y"], span=case["span"]).kd
    out = kd.evaluate(np.array([-5.0, 0.505, 50.0, 100.495, 200.0]))
    assert np.isnan(out[0]) and np.isnan(out[-1]) and np.all(np.isfinite(out[1:-1]))


def test_input_order_does_not_matter():
    case = CASES["unsorted_weights"]
    perm = np.random.default_rng(0).permutation(len(case["x"]))
    fit = loess(np.array(case["x"])[perm], np.array(case["y"])[perm],
                weights=np.array(case["weights"])[perm], span=case["span"])
    assert max_rel(fit.fitted, np.array(case["fitted"])[perm]) < RTOL


@pytest.mark.parametrize("kwargs, match", [
    (dict(x=[1, 2, np.nan], y=[1, 2, 3]), "finite"),
    (dict(x=[1, 2, 3], y=[1, 2]), "same length"),
    (dict(x=[], y=[]), "at least one"),
    (dict(x=[1, 2, 3], y=[1, 2, 3], degree=3), "degree"),
    (dict(x=[1, 2, 3], y=[1, 2, 3], surface="exact"), "surface"),
    (dict(x=[1, 2, 3], y=[1, 2, 3], span=0), "span"),
    (dict(x=[1, 2, 3], y=[1, 2, 3], span=0.1), "span is too small"),
    (dict(x=[1, 2, 3], y=[1, 2, 3], weights=[1, -1, 1]), "weights"),
    (dict(x=[1, 2, 3], y=[1, 2, 3], cell=0), "cell"),
    (dict(x=[1, 1, 1, 1], y=[1, 2, 3, 4], span=0.5), "zero-width"),
])
def test_bad_inputs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        loess(**kwargs)


def test_bad_enp_target():
    with pytest.raises(ValueError, match="enp_target"):
        span_from_enp(0)


R_SCRIPT = """
set.seed(2024)
out <- character(0)
for (i in 1:25) {
  n <- sample(c(6:60, 61:2500), 1)
  y <- if (i %% 2) cumsum(rnorm(n)) / sqrt(n) else exp(-(1:n) / (n / 4)) + rnorm(n, sd = 0.02)
  x <- 1:n
  lo <- suppressWarnings(loess(y ~ x, enp.target = min(max(4, n / 10), 50)))
  out <- c(out, paste(c(n, x[which.min(-cumsum(lo$fitted))],
                        sprintf("%.17g", y), sprintf("%.17g", lo$fitted)), collapse = " "))
}
writeLines(out)
"""


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs R")
def test_live_r_random_sequences():
    """25 random sequences through R's loess: same fitted values, same argmin."""
    res = subprocess.run(["Rscript", "-e", R_SCRIPT], capture_output=True, text=True,
                         check=True, timeout=300)
    for line in res.stdout.strip().splitlines():
        vals = line.split()
        n, best = int(vals[0]), int(vals[1])
        y = np.array(vals[2:2 + n], float)
        r_fitted = np.array(vals[2 + n:], float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            fit = loess(np.arange(1, n + 1), y, span=span_from_enp(min(max(4, n / 10), 50)))
        assert max_rel(fit.fitted, r_fitted) < RTOL
        assert int(np.argmin(-np.cumsum(fit.fitted))) + 1 == best
