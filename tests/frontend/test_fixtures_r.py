"""ModelFrame against R: gbm()'s own model frame and gbm.fit's coding (make_fixtures.R)."""

import json
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from pygbm.frontend import LOGICAL_LEVELS, model_frame

from ._data import boston, breast_cancer, insurance, read

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "model_frames.json").read_text())
LENDING_CLUB_ROWS = 3000  # make_fixtures.R uses the first 3000 rows

DATASETS = {
    "boston": boston,
    "pima": lambda: read("pima2"),
    "bc": breast_cancer,
    "ins": insurance,
    "lung": lambda: read("lung"),
    "lc": lambda: read("lending_club").iloc[:LENDING_CLUB_ROWS],
}


def _num(values):
    return np.array([np.nan if v is None else float(v) for v in values])


@pytest.fixture(scope="module", params=FIXTURES["cases"], ids=lambda c: c["name"])
def case(request):
    fx = request.param
    data = DATASETS[fx["data"]]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # R warns too (no variation), checked elsewhere
        mf = model_frame(fx["formula"], data, weights=fx["weights_column"])
    return fx, mf


def test_fixture_meta():
    assert FIXTURES["meta"]["gbm"] == "2.1.8.1"
    assert FIXTURES["meta"]["R"].startswith("R version 4.2.2")


def test_var_names_and_types(case):
    fx, mf = case
    assert mf.var_names == fx["var_names"]
    assert mf.var_type.tolist() == fx["var_type"]


def test_var_levels(case):
    fx, mf = case
    assert len(mf.var_levels) == len(fx["var_levels"])
    for ours, theirs, vtype, name in zip(mf.var_levels, fx["var_levels"], fx["var_type"],
                                         fx["var_names"]):
        if isinstance(ours, np.ndarray):  # numeric: R's 11 quantiles, bit for bit
            np.testing.assert_array_equal(ours, _num(theirs), err_msg=name)
        else:
            assert ours == theirs, name


def test_coded_x_exactly(case):
    fx, mf = case
    expected = np.column_stack([_num(col) for col in fx["x"]])
    assert mf.x.shape == expected.shape
    assert mf.x.dtype == np.float64
    np.testing.assert_array_equal(np.isnan(mf.x), np.isnan(expected))
    for j, name in enumerate(mf.var_names):    # log, exp, ^: the C library's, as R's
        np.testing.assert_array_equal(mf.x[:, j], expected[:, j], err_msg=name)


def test_response_offset_weights(case):
    fx, mf = case
    resp = fx["response"]
    if "time" in resp:
        assert mf.is_surv
        np.testing.assert_array_equal(mf.y, _num(resp["time"]))
        np.testing.assert_array_equal(mf.status, _num(resp["status"]))
    else:
        assert not mf.is_surv and mf.status is None
        np.testing.assert_array_equal(mf.y, _num(resp["y"]))
    # a logical response (R: TRUE/FALSE, fitted as 1/0) keeps its two levels in pygbm
    levels = list(LOGICAL_LEVELS) if resp.get("logical") else resp["levels"]
    assert mf.y_levels == levels
    assert mf.y_is_categorical == (levels is not None)
    if fx["offset"] is None:
        assert mf.offset is None
    else:
        np.testing.assert_array_equal(mf.offset, _num(fx["offset"]))
    if fx["weights"] is None:
        assert mf.weights is None
    else:
        np.testing.assert_array_equal(mf.weights, _num(fx["weights"]))


# ---------------------------------------------------------------- R's functions, live
#: terms with R's functions on the lung data (missing values in most columns), each with a
#: constant drawn per formula: what R's gbm() makes of them is compared when R is present
R_FUNCTION_TERMS = (
    "factor(ph.ecog)", "as.factor(sex)", "ordered(ph.ecog)", "as.numeric(factor(inst))",
    "pmin(age, {k})", "pmax(wt.loss, {k})", "round(meal.cal/{k})", "factor(wt.loss > {k})",
    "ifelse(age > {k}, 1, 0)", "factor(ifelse(ph.karno >= {k}, 'hi', 'lo'))",
    "as.integer(pat.karno/{k})", "factor(pat.karno, levels = c(60, 70, 80, {k}))",
    "as.numeric(ph.ecog == 1)", "I(age^2)")
LIVE_FORMULAS = 12
LIVE_R = r"""
suppressPackageStartupMessages({library(gbm); library(jsonlite)})
args <- commandArgs(TRUE)
d <- read.csv(args[1]); forms <- readLines(args[2])
num17 <- function(v) ifelse(is.na(v), NA_character_, sprintf("%.17g", as.numeric(v)))
out <- lapply(forms, function(f) {
  set.seed(1)
  fit <- gbm(as.formula(f), data = d, distribution = "gaussian", n.trees = 1, keep.data = TRUE)
  xm <- matrix(fit$data$x, nrow = nrow(d))
  list(var_names = I(fit$var.names), var_type = I(as.integer(fit$var.type)),
       x = lapply(seq_len(ncol(xm)), function(j) num17(xm[, j])))
})
writeLines(toJSON(out, digits = NA, na = "null", null = "null", auto_unbox = TRUE), args[3])
"""


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs R")
def test_r_functions_in_terms_against_live_r(tmp_path):
    rng = np.random.default_rng(11)
    data = read("lung")
    constants = {"age": (50, 60, 70), "wt.loss": (0, 5, 10), "meal.cal": (50, 100, 250),
                 "ph.karno": (70, 80, 90), "pat.karno": (5, 10, 20, 90, 100)}
    formulas = []
    for _ in range(LIVE_FORMULAS):
        picks = rng.choice(len(R_FUNCTION_TERMS), size=rng.integers(1, 5), replace=False)
        terms = []
        for i in picks:
            term = R_FUNCTION_TERMS[i]
            column = next((c for c in constants if c in term), None)
            terms.append(term.format(k=rng.choice(constants[column])) if column else term)
        formulas.append("time ~ " + " + ".join(terms))
    data.to_csv(tmp_path / "d.csv", index=False)
    (tmp_path / "f.txt").write_text("\n".join(formulas) + "\n")
    (tmp_path / "s.R").write_text(LIVE_R)
    subprocess.run(["Rscript", str(tmp_path / "s.R"), str(tmp_path / "d.csv"),
                    str(tmp_path / "f.txt"), str(tmp_path / "out.json")], check=True,
                   capture_output=True, text=True)
    theirs = json.loads((tmp_path / "out.json").read_text())
    for formula, r in zip(formulas, theirs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")       # no-variation warnings, as R's
            mf = model_frame(formula, data)
        assert mf.var_names == r["var_names"], formula
        assert mf.var_type.tolist() == r["var_type"], formula
        expected = np.column_stack([_num(col) for col in r["x"]])
        np.testing.assert_array_equal(mf.x, expected, err_msg=formula)
