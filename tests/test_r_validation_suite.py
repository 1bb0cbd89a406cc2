"""R gbm's own validation suite, ported to pygbm.

R gbm 2.1.8.1 ships ``gbm::test.gbm`` and ``gbm::test.relative.influence``
(``gbm::validate.gbm`` runs every ``test.*`` function with RUnit). Each
simulates data, fits ``gbm`` and checks a pass criterion:

=============================  =====================================================
R test                         data, fit and criterion (R's, asserted here as is)
=============================  =====================================================
test.gbm, least squares        N = 1000: X1 ~ U(0,1), X2 ~ 2 U(0,1), X3 factor(a-d),
                               X4 ordered(a-f), X5 factor(a-c), X6 ~ 3 U(0,1);
                               Y = X1^1.5 + 2 sqrt(X2) + (-1,0,1,2)[X3] + N(0, sigma),
                               sigma = sqrt(var(Y) / 10); 100 NA in X1, 300 in X3.
                               gaussian, depth 3, bag 0.5, train 0.5, minobs 10, cv;
                               best = gbm.perf(method = "cv"). On 1000 new rows
                               without noise or NA: |mean(Y - f)| < 0.01 and
                               sd(Y - f) < sigma.
test.gbm, Cox                  N = 3000: X1, X2 ~ U(0,1), X3 factor(a-d);
                               f = 0.5 sin(3 X1 + 5 X2^2 + (-1,0,1,2)[X3] / 10);
                               T ~ Exp(rate e^f), C ~ Exp(rate 0.5), observed
                               min(T, C) and T <= C; 100 NA in X1, 300 in X3;
                               unit weights. coxph, depth 3, bag 0.5, train 0.5,
                               minobs 10; best = gbm.perf(method = "test"). On 1000
                               new rows: sd(f - f_hat) < 0.4.
test.gbm, logistic             N = 1000: X1, X2 ~ U(0,1), X3 factor(a-d);
                               f = sin(3 X1) - 4 X2 + (-1,0,1,2)[X3], Y ~ B(1, 1/(1+e^-f)),
                               weights w ~ Exp(1) scaled to sum to N. bernoulli,
                               depth 3, bag 0.5, train 0.5, minobs 10;
                               best = gbm.perf(method = "test"). On 1000 new rows:
                               sd(f - f_hat) < 1.
test.relative.influence        V1..V50 ~ N(0,1) (1000 rows); V51..V55 ~ N(0,1) for the
                               first 500 rows and N(3,1) for the last 500; cls = 0
                               for the first 500, 1 after. gbm(cls ~ ., depth 2,
                               shrinkage 0.01, 1000 trees, cv 5) (bernoulli guessed).
                               The 5 largest relative.influence (default n.trees:
                               the cv best) are exactly V51..V55.
=============================  =====================================================

Differences from R, all outside the criteria:

* numpy's generator (``default_rng`` with R's seeds: 123/223, 2/2, 1/2, 1234)
  replaces R's, with the same distributions and sizes;
* sizes: R's runs (2000 trees at shrinkage 0.005 with 10-fold cv; 3000 trees at
  0.001 twice; 1000 trees at 0.01 with 5-fold cv) take ~80 s of pygbm time for
  the least-squares case alone, so by default the number of trees is divided
  by 10 and the shrinkage multiplied by 10 (the same shrinkage x trees, hence
  the same amount of fitting), the least-squares cv uses 5 folds, and the cv
  that R's Cox and logistic cases compute but never use (both choose by
  "test") is left out. The data sizes and the criteria are R's.
  ``PYGBM_R_SUITE_FULL=1`` runs R's exact settings (minutes).

How demanding the criteria are (seeds 1..20, R's data-generating processes,
the reduced sizes; R with set.seed, pygbm with default_rng; pass counts):

==========================  ==========  ==========  =================================
criterion                   R gbm       pygbm       spread over seeds (R / pygbm)
==========================  ==========  ==========  =================================
gaussian abs(mean) < 0.01   5/20        5/20        sd of the mean 0.031 / 0.028
gaussian sd < sigma         20/20       20/20       max sd/sigma 0.56 / 0.54
Cox sd < 0.4                20/20       20/20       max sd 0.256 / 0.244
logistic sd < 1             20/20       20/20       max sd 0.89 / 0.97
relative influence top 5    20/20       20/20
==========================  ==========  ==========  =================================

(R at its own full sizes, seeds 1..10: 2/10, 10/10, 10/10, 10/10, 10/10.) So
the least-squares bias criterion is a property of the seed more than of the
fit -- the mean of the noise over 500 training rows alone has sd ~0.018 --
in R as in pygbm; it passes here with R's own seed number (123), which was not
searched for. The other criteria hold with room to spare for every seed.

A live test (skipped without ``Rscript``) fits R gbm and pygbm on the very same
simulated data, deterministically (``bag_fraction = 1``), and checks that R's
``gbm.perf(method = "test")`` and its predictions on the new rows equal
pygbm's, so the criteria above are evaluated on the model R would fit.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pygbm
import pygbm.inspect  # noqa: F401  (pygbm.<toolbox> is resolved lazily)

#: R's run sizes when PYGBM_R_SUITE_FULL=1, else the reduced ones (see docstring)
FULL = os.environ.get("PYGBM_R_SUITE_FULL", "") == "1"
#: (n_trees, shrinkage, cv_folds) per case: R's values and the default reduction
SETTINGS = {
    "gaussian": (2000, 0.005, 10) if FULL else (200, 0.05, 5),
    "coxph": (3000, 0.001, 5) if FULL else (300, 0.01, 0),
    "bernoulli": (3000, 0.001, 5) if FULL else (300, 0.01, 0),
    "relative_influence": (1000, 0.01, 5) if FULL else (200, 0.05, 5),
}
#: R's data sizes
N_GAUSSIAN, N_COX_TRAIN, N_COX_TEST, N_BERNOULLI, N_RELINF = 1000, 3000, 1000, 1000, 1000
#: R's pass criteria
GAUSSIAN_MEAN_TOL = 0.01     # |mean(Y - f)| < 0.01
COX_SD_TOL = 0.4             # sd(f - f_hat) < 0.4
BERNOULLI_SD_TOL = 1.0       # sd(f - f_hat) < 1
N_TRUE_PREDICTORS = 5        # the top 5 relative influences are V51..V55
#: shared fitting arguments of R's test.gbm cases
TEST_GBM_ARGS = dict(interaction_depth=3, bag_fraction=0.5, train_fraction=0.5,
                     n_minobsinnode=10)
GROUP_MEANS = np.array([-1.0, 0.0, 1.0, 2.0])   # R's c(-1, 0, 1, 2)[as.numeric(X3)]


# --------------------------------------------------------------------------- data (R's DGPs)
def _factor(codes, labels, ordered=False):
    return pd.Categorical.from_codes(codes, list(labels), ordered=ordered)


def _blank(rng, values, size):
    """A copy of ``values`` with ``size`` randomly chosen entries missing
    (R's ``x[sample(1:N, size = size)] <- NA``)."""
    out = values.copy()
    out[rng.choice(len(out), size=size, replace=False)] = np.nan
    return out


def gaussian_data(rng, n=N_GAUSSIAN, noise=True, missing=True):
    """test.gbm's least-squares data; returns (frame, sigma)."""
    x1, x2 = rng.uniform(size=n), 2 * rng.uniform(size=n)
    x3, x4, x5 = rng.integers(0, 4, n), rng.integers(0, 6, n), rng.integers(0, 3, n)
    x6 = 3 * rng.uniform(size=n)
    y = x1 ** 1.5 + 2 * np.sqrt(x2) + GROUP_MEANS[x3]
    sigma = float(np.sqrt(np.var(y, ddof=1) / 10))
    if noise:
        y = y + rng.normal(0.0, sigma, n)
    x3 = _factor(x3, "abcd")
    if missing:
        x1, x3 = _blank(rng, x1, 100), _blank(rng, x3, 300)
    frame = pd.DataFrame({"Y": y, "X1": x1, "X2": x2, "X3": x3,
                          "X4": _factor(x4, "abcdef", ordered=True),
                          "X5": _factor(x5, "abc"), "X6": x6})
    return frame, sigma


def coxph_data(rng, n, missing=True):
    """test.gbm's Cox data (``f`` is the true log hazard ratio)."""
    x1, x2, x3 = rng.uniform(size=n), rng.uniform(size=n), rng.integers(0, 4, n)
    f = 0.5 * np.sin(3 * x1 + 5 * x2 ** 2 + GROUP_MEANS[x3] / 10)
    t_surv = rng.exponential(1.0 / np.exp(f))           # rexp(N, exp(f))
    t_cens = rng.exponential(1.0 / 0.5, size=n)         # rexp(N, 0.5)
    x3 = _factor(x3, "abcd")
    if missing:
        x1, x3 = _blank(rng, x1, 100), _blank(rng, x3, 300)
    return pd.DataFrame({"tt": np.minimum(t_surv, t_cens),
                         "delta": (t_surv <= t_cens).astype(float),
                         "f": f, "X1": x1, "X2": x2, "X3": x3, "w": np.ones(n)})


def bernoulli_data(rng, n=N_BERNOULLI):
    """test.gbm's logistic data (``f`` is the true log odds, ``w`` the weights)."""
    x1, x2, x3 = rng.uniform(size=n), rng.uniform(size=n), rng.integers(0, 4, n)
    f = np.sin(3 * x1) - 4 * x2 + GROUP_MEANS[x3]
    y = rng.binomial(1, 1.0 / (1.0 + np.exp(-f))).astype(float)
    w = rng.exponential(size=n)
    return pd.DataFrame({"Y": y, "X1": x1, "X2": x2, "X3": _factor(x3, "abcd"), "f": f,
                         "w": n * w / w.sum()})


def relative_influence_data(rng, n=N_RELINF):
    """test.relative.influence's data: 50 noise columns, 5 that shift with the class."""
    half = n // 2
    noise = rng.normal(size=(n, 50))
    signal = np.vstack([rng.normal(size=(half, 5)), rng.normal(3.0, 1.0, size=(n - half, 5))])
    frame = pd.DataFrame(np.column_stack([noise, signal]),
                         columns=[f"V{i}" for i in range(1, 56)])
    frame["cls"] = np.repeat([0.0, 1.0], [half, n - half])
    return frame


# --------------------------------------------------------------------------- fits
GAUSSIAN_FORMULA = "Y ~ X1 + X2 + X3 + X4 + X5 + X6"
COX_FORMULA = "Surv(tt, delta) ~ X1 + X2 + X3"
BERNOULLI_FORMULA = "Y ~ X1 + X2 + X3"


@pytest.fixture(scope="module")
def gaussian_case():
    data, sigma = gaussian_data(np.random.default_rng(123))
    n_trees, shrinkage, cv_folds = SETTINGS["gaussian"]
    fit = pygbm.gbm(GAUSSIAN_FORMULA, data, distribution="gaussian", n_trees=n_trees,
                    shrinkage=shrinkage, cv_folds=cv_folds, random_state=123, **TEST_GBM_ARGS)
    new, _ = gaussian_data(np.random.default_rng(223), noise=False, missing=False)
    return fit, new, sigma


@pytest.fixture(scope="module")
def coxph_case():
    data = coxph_data(np.random.default_rng(2), N_COX_TRAIN)
    n_trees, shrinkage, cv_folds = SETTINGS["coxph"]
    fit = pygbm.gbm(COX_FORMULA, data, distribution="coxph", weights="w", n_trees=n_trees,
                    shrinkage=shrinkage, cv_folds=cv_folds, random_state=2, **TEST_GBM_ARGS)
    new = coxph_data(np.random.default_rng(2), N_COX_TEST, missing=False)
    return fit, new


@pytest.fixture(scope="module")
def bernoulli_case():
    data = bernoulli_data(np.random.default_rng(1))
    n_trees, shrinkage, cv_folds = SETTINGS["bernoulli"]
    fit = pygbm.gbm(BERNOULLI_FORMULA, data, distribution="bernoulli", weights="w",
                    n_trees=n_trees, shrinkage=shrinkage, cv_folds=cv_folds, random_state=1,
                    **TEST_GBM_ARGS)
    new = bernoulli_data(np.random.default_rng(2))
    return fit, new


@pytest.fixture(scope="module")
def relative_influence_case():
    data = relative_influence_data(np.random.default_rng(1234))
    n_trees, shrinkage, cv_folds = SETTINGS["relative_influence"]
    with pytest.warns(UserWarning, match="assuming bernoulli"):
        fit = pygbm.gbm("cls ~ .", data, n_trees=n_trees, cv_folds=cv_folds,
                        shrinkage=shrinkage, interaction_depth=2, random_state=1234)
    return fit


# --------------------------------------------------------------------------- R's criteria
def test_least_squares_meets_r_criteria(gaussian_case):
    fit, new, sigma = gaussian_case
    best = pygbm.gbm_perf(fit, method="cv", plot_it=False)
    assert best == int(np.argmin(fit.cv_error)) + 1
    resid = new["Y"].to_numpy() - fit.predict(new, n_trees=best)
    assert abs(resid.mean()) < GAUSSIAN_MEAN_TOL, "Gaussian absolute error within tolerance"
    assert resid.std(ddof=1) < sigma, "Gaussian squared error within tolerance"


def test_coxph_meets_r_criterion(coxph_case):
    fit, new = coxph_case
    best = pygbm.gbm_perf(fit, method="test", plot_it=False)
    assert best == int(np.argmin(fit.valid_error)) + 1
    err = new["f"].to_numpy() - fit.predict(new, n_trees=best)
    assert err.std(ddof=1) < COX_SD_TOL, "Coxph: squared error within tolerance"


def test_logistic_meets_r_criterion(bernoulli_case):
    fit, new = bernoulli_case
    best = pygbm.gbm_perf(fit, method="test", plot_it=False)
    assert best == int(np.argmin(fit.valid_error)) + 1
    err = new["f"].to_numpy() - fit.predict(new, n_trees=best)
    assert err.std(ddof=1) < BERNOULLI_SD_TOL


def test_relative_influence_identifies_true_predictors(relative_influence_case):
    fit = relative_influence_case
    truth = {f"V{i}" for i in range(51, 56)}
    # R: ri <- rev(sort(relative.influence(mod))); sum(names(ri)[1:5] %in% V51..V55) == 5
    ri = pygbm.relative_influence(fit, sort=True)
    assert len(truth & set(ri.index[:N_TRUE_PREDICTORS])) == N_TRUE_PREDICTORS
    # R's default n.trees (no validation set, cv run) is the cv best iteration
    best = pygbm.gbm_perf(fit, method="cv", plot_it=False)
    np.testing.assert_array_equal(pygbm.relative_influence(fit).to_numpy(),
                                  pygbm.relative_influence(fit, n_trees=int(best)).to_numpy())
    # the same through summary(): percentages, largest first
    table = fit.summary(plot_it=False).to_frame()
    assert set(table["var"].iloc[:N_TRUE_PREDICTORS]) == truth
    assert table["rel_inf"].sum() == pytest.approx(100.0)


# --------------------------------------------------------------------------- live: R, same data
_LIVE_R = r"""
suppressMessages({library(gbm); library(survival); library(jsonlite)})
args <- commandArgs(TRUE); dir <- args[1]
rd <- function(f) {
  d <- read.csv(file.path(dir, f))
  n_levels <- c(X3 = 4, X5 = 3)
  for (v in intersect(names(n_levels), names(d)))
    d[[v]] <- factor(d[[v]], levels = letters[1:n_levels[[v]]])
  if ("X4" %in% names(d)) d$X4 <- factor(d$X4, levels = letters[1:6], ordered = TRUE)
  d
}
cfg <- fromJSON(file.path(dir, "settings.json"))
out <- list()
for (case in c("gaussian", "coxph", "bernoulli")) {
  s <- cfg[[case]]
  train <- rd(paste0(case, "_train.csv")); new <- rd(paste0(case, "_new.csv"))
  w <- if ("w" %in% names(train)) train$w else NULL
  fit <- gbm(as.formula(s$formula), data = train, weights = w, distribution = case,
             n.trees = s$n_trees, shrinkage = s$shrinkage, interaction.depth = 3,
             bag.fraction = 1, train.fraction = 0.5, n.minobsinnode = 10)
  best <- gbm.perf(fit, method = "test", plot.it = FALSE)
  out[[case]] <- list(best = best, valid_error = fit$valid.error,
                      predict = predict(fit, newdata = new, n.trees = best))
}
writeLines(toJSON(out, auto_unbox = TRUE, digits = NA), file.path(dir, "r.json"))
"""
#: agreement of R and pygbm (same tolerances as tests/test_conformance_r.py)
LIVE_RTOL, LIVE_ATOL = 1e-6, 1e-9


def _live_cases():
    n_g, s_g, _ = SETTINGS["gaussian"]
    n_c, s_c, _ = SETTINGS["coxph"]
    n_b, s_b, _ = SETTINGS["bernoulli"]
    g_train, _ = gaussian_data(np.random.default_rng(123))
    g_new, _ = gaussian_data(np.random.default_rng(223), noise=False, missing=False)
    return {
        "gaussian": (GAUSSIAN_FORMULA, n_g, s_g, g_train, g_new, None),
        "coxph": (COX_FORMULA, n_c, s_c, coxph_data(np.random.default_rng(2), N_COX_TRAIN),
                  coxph_data(np.random.default_rng(2), N_COX_TEST, missing=False), "w"),
        "bernoulli": (BERNOULLI_FORMULA, n_b, s_b, bernoulli_data(np.random.default_rng(1)),
                      bernoulli_data(np.random.default_rng(2)), "w"),
    }


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs Rscript (R gbm 2.1.8)")
def test_live_r_fits_the_same_models_on_the_same_data(tmp_path):
    cases = _live_cases()
    settings = {}
    for name, (formula, n_trees, shrinkage, train, new, _) in cases.items():
        train.to_csv(tmp_path / f"{name}_train.csv", index=False, na_rep="NA")
        new.to_csv(tmp_path / f"{name}_new.csv", index=False, na_rep="NA")
        settings[name] = {"formula": formula, "n_trees": n_trees, "shrinkage": shrinkage}
    (tmp_path / "settings.json").write_text(json.dumps(settings))
    (tmp_path / "live.R").write_text(_LIVE_R)
    run = subprocess.run(["Rscript", str(tmp_path / "live.R"), str(tmp_path)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    r_out = json.loads((tmp_path / "r.json").read_text())
    for name, (formula, n_trees, shrinkage, train, new, weights) in cases.items():
        fit = pygbm.gbm(formula, train, distribution=name, weights=weights, n_trees=n_trees,
                        shrinkage=shrinkage, interaction_depth=3, bag_fraction=1.0,
                        train_fraction=0.5, n_minobsinnode=10)
        np.testing.assert_allclose(fit.valid_error, r_out[name]["valid_error"],
                                   rtol=LIVE_RTOL, atol=LIVE_ATOL, err_msg=name)
        best = pygbm.gbm_perf(fit, method="test", plot_it=False)
        assert best == r_out[name]["best"], name
        np.testing.assert_allclose(fit.predict(new, n_trees=best), r_out[name]["predict"],
                                   rtol=LIVE_RTOL, atol=LIVE_ATOL, err_msg=name)


def test_toolbox_is_reachable_from_a_fresh_import():
    """``pygbm.gbm_perf`` etc. must work right after ``import pygbm`` (the toolbox is
    imported lazily on first use)."""
    code = ("import pygbm; f = pygbm.gbm_perf; g = pygbm.relative_influence; "
            "print(f.__name__, g.__name__)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, timeout=120,
                         cwd=Path(__file__).resolve().parents[1],
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["gbm_perf", "relative_influence"]
