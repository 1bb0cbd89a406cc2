"""The gbm vignette, redone with pygbm on the bundled data.

Greg Ridgeway's "Generalized Boosted Models: A guide to the gbm package" walks
through the choices a gbm user makes -- the loss, shrinkage against the number
of trees, how to pick the number of trees (test set, out-of-bag, cross-
validation) -- and the ways of reading a fit (relative influence, partial
dependence). This script follows it with pygbm:

1. shrinkage against iterations (the vignette's Figure 3) on boston;
2. a gaussian fit of boston with a validation set, bagging and 5-fold cv, and
   the three ``gbm_perf`` estimates of the best number of trees;
3. its relative influence and partial dependence (one and two variables);
4. a bernoulli fit of pima2 with its calibration plot and ROC area;
5. a Cox fit of lung with the Breslow baseline hazard and the survival curves
   it implies.

Run from anywhere:  python vignettes/gbm_vignette.py
Writes docs/img/vignette/*.png and docs/vignette.md (with the numbers of the run).
"""
from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pygbm  # noqa: E402
import pygbm.inspect  # noqa: E402,F401  (the toolbox: gbm_perf, summary, plot_gbm, ...)

DATA = ROOT / "data"
OUT = ROOT / "docs" / "img" / "vignette"
DOC = ROOT / "docs" / "vignette.md"
DPI = 110
SEED = 20240501
#: shrinkage values of the shrinkage-against-iterations figure, and trees for each
SHRINKAGES = {0.1: 800, 0.05: 1600, 0.02: 3200}
#: the main gaussian fit (section 2)
GAUSSIAN = dict(distribution="gaussian", n_trees=1200, shrinkage=0.05, interaction_depth=3,
                n_minobsinnode=10, bag_fraction=0.5, train_fraction=0.8, cv_folds=5)
#: cv folds run in parallel (the result does not depend on it)
N_CORES = 2
BERNOULLI = dict(distribution="bernoulli", n_trees=1500, shrinkage=0.005, interaction_depth=2,
                 n_minobsinnode=10, bag_fraction=0.5, train_fraction=0.75, cv_folds=5)
COXPH = dict(distribution="coxph", n_trees=1000, shrinkage=0.005, interaction_depth=2,
             n_minobsinnode=10, bag_fraction=0.5, cv_folds=5)
LUNG_FORMULA = ("Surv(time, status) ~ age + sex + ph.ecog + ph.karno + pat.karno + "
                "meal.cal + wt.loss")


def load(name: str) -> pd.DataFrame:
    frame = pd.read_csv(DATA / f"{name}.csv")
    if name == "boston":
        frame["chas"] = pd.Categorical(frame["chas"].astype(str))   # a 0/1 factor in R
    return frame


def save(obj, name: str) -> str:
    fig = obj if hasattr(obj, "savefig") else obj.figure
    fig.savefig(OUT / name, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    return f"img/vignette/{name}"


def shuffled(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The rows in random order: train_fraction keeps the *first* rows for
    training, so sorted data must be shuffled first (as the vignette warns)."""
    order = np.random.default_rng(seed).permutation(len(frame))
    return frame.iloc[order].reset_index(drop=True)


# --------------------------------------------------------------------------- sections
def shrinkage_vs_iterations(boston: pd.DataFrame, notes: dict) -> str:
    """Validation error by iteration for several shrinkages (vignette Figure 3)."""
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    best = {}
    for shrinkage, n_trees in SHRINKAGES.items():
        fit = pygbm.gbm("medv ~ .", boston, distribution="gaussian", n_trees=n_trees,
                        shrinkage=shrinkage, interaction_depth=3, bag_fraction=0.5,
                        train_fraction=0.8, random_state=SEED)
        it = np.arange(1, fit.n_trees + 1)
        line, = ax.plot(it, fit.valid_error, label=f"shrinkage = {shrinkage}")
        b = int(pygbm.gbm_perf(fit, method="test", plot_it=False))
        ax.plot(b, fit.valid_error[b - 1], "o", color=line.get_color())
        best[shrinkage] = (b, float(fit.valid_error[b - 1]))
    ax.set_xscale("log")
    ax.set_xlabel("Iteration (log scale)")
    ax.set_ylabel("Validation squared error")
    ax.set_title("boston: out-of-sample error by iteration and shrinkage")
    ax.legend()
    notes["shrinkage"] = best
    return save(fig, "shrinkage_vs_iterations.png")


def gaussian_section(boston: pd.DataFrame, notes: dict) -> dict:
    fit = pygbm.gbm("medv ~ .", boston, random_state=SEED, n_cores=N_CORES, **GAUSSIAN)
    figs = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # the OOB rule's "underestimates" message
        fig, axes = plt.subplots(1, 2, figsize=(13, 4.5), layout="constrained")
        oob = pygbm.gbm_perf(fit, method="OOB", oobag_curve=True, ax=list(axes))
    figs["oob"] = save(fig, "perf_oob.png")
    test = pygbm.gbm_perf(fit, method="test")
    figs["test"] = save(test.axes[0], "perf_test.png")
    cv = pygbm.gbm_perf(fit, method="cv")
    figs["cv"] = save(cv.axes[0], "perf_cv.png")
    valid = boston.iloc[fit.n_train:]
    mse = {name: float(np.mean((valid["medv"] - fit.predict(valid, n_trees=int(b))) ** 2))
           for name, b in (("OOB", oob), ("test", test), ("cv", cv))}
    notes["perf"] = {"OOB": int(oob), "test": int(test), "cv": int(cv), "mse": mse}

    fig, ax = plt.subplots(figsize=(6, 4.5))
    table = pygbm.summary(fit, n_trees=int(cv), ax=ax)
    ax.set_title(f"boston: relative influence ({int(cv)} trees)")
    figs["influence"] = save(fig, "relative_influence.png")
    notes["influence"] = table.to_frame().head(4)

    fig, axes = plt.subplots(1, 3, figsize=(12, 3.6), sharey=True)
    for ax, var in zip(axes, ["lstat", "rm", "chas"]):
        pygbm.plot_gbm(fit, var, n_trees=int(cv), ax=ax)
    fig.suptitle("boston: partial dependence on one variable")
    figs["pdp1"] = save(fig, "pdp_one_variable.png")

    fig, ax = plt.subplots(figsize=(6, 4.6))
    pygbm.plot_gbm(fit, ["lstat", "rm"], n_trees=int(cv), continuous_resolution=60, ax=ax)
    ax.set_title("boston: joint partial dependence on lstat and rm")
    figs["pdp2"] = save(fig, "pdp_two_variables.png")
    notes["interaction"] = pygbm.interact_gbm(fit, boston, ["lstat", "rm"], n_trees=int(cv))
    return figs


def bernoulli_section(pima: pd.DataFrame, notes: dict) -> str:
    fit = pygbm.gbm("diabetes ~ .", pima, random_state=SEED, n_cores=N_CORES, **BERNOULLI)
    best = int(pygbm.gbm_perf(fit, method="cv", plot_it=False))
    valid = pima.iloc[fit.n_train:]
    p = fit.predict(valid, n_trees=best, type="response")
    y = valid["diabetes"].to_numpy()
    auc = pygbm.gbm_roc_area(y, p)
    fig, ax = plt.subplots(figsize=(5.5, 5))
    pygbm.calibrate_plot(y, p, distribution="bernoulli", ax=ax)
    ax.set_title(f"pima2 validation rows: calibration (AUC = {auc:.3f})")
    notes["bernoulli"] = {"best": best, "auc": auc, "n_valid": len(valid)}
    return save(fig, "calibration_bernoulli.png")


def coxph_section(lung: pd.DataFrame, notes: dict) -> str:
    fit = pygbm.gbm(LUNG_FORMULA, lung, random_state=SEED, n_cores=N_CORES, **COXPH)
    best = int(pygbm.gbm_perf(fit, method="cv", plot_it=False))
    t = lung["time"].to_numpy(float)
    event = (lung["status"] == 2).to_numpy(float)            # lung: 2 = dead, 1 = censored
    f = fit.predict(lung, n_trees=best)
    grid = np.linspace(t[event == 1].min(), t[event == 1].max(), 200)
    cum = pygbm.basehaz_gbm(t, event, f, t_eval=grid)
    smooth = pygbm.basehaz_gbm(t, event, f, t_eval=grid, smooth=True)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ax1.plot(grid, cum, label="Breslow")
    ax1.plot(grid, smooth, "--", label="smoothed (supsmu)")
    ax1.set_xlabel("Days")
    ax1.set_ylabel("Cumulative baseline hazard")
    ax1.legend()
    q = np.quantile(f, [0.1, 0.5, 0.9])
    for label, fq in zip(["10th percentile risk", "median risk", "90th percentile risk"], q):
        ax2.plot(grid, np.exp(-cum * np.exp(fq)), label=label)
    ax2.set_xlabel("Days")
    ax2.set_ylabel("Survival probability")
    ax2.set_ylim(0, 1)
    ax2.legend()
    fig.suptitle(f"lung: Cox boosting ({best} trees by 5-fold cv)")
    top = pygbm.summary(fit, n_trees=best, plot_it=False).to_frame().head(3)
    notes["coxph"] = {"best": best, "top": top}
    return save(fig, "coxph_baseline_hazard.png")


# --------------------------------------------------------------------------- the page
def write_doc(figs: dict, notes: dict, seconds: float) -> None:
    s = notes["shrinkage"]
    p = notes["perf"]
    infl = notes["influence"]
    b = notes["bernoulli"]
    c = notes["coxph"]
    errors = [v[1] for v in s.values()]             # in decreasing shrinkage
    if all(b <= a for a, b in zip(errors, errors[1:])):
        shrink_verdict = "The smaller shrinkages also reach lower validation error."
    else:
        shrink_verdict = ("Here the best validation errors are within noise of each other: "
                          "the gain from small shrinkage is a tendency, not a law.")
    shrink_txt = "; ".join(f"shrinkage {k}: best iteration {v[0]}, error {v[1]:.2f}"
                           for k, v in s.items())
    mse_txt = ", ".join(f"{k} {v:.2f}" for k, v in p["mse"].items())
    infl_txt = ", ".join(f"{v} ({r:.1f}%)" for v, r in zip(infl["var"], infl["rel_inf"]))
    cox_txt = ", ".join(f"{v} ({r:.1f}%)" for v, r in zip(c["top"]["var"], c["top"]["rel_inf"]))
    text = f"""# The gbm vignette, with pygbm

A pygbm walk through Greg Ridgeway's *Generalized Boosted Models: A guide to the gbm
package*, on the bundled data sets. Everything here is made by
`python vignettes/gbm_vignette.py` (about {seconds:.0f} s); the numbers below come from that run.

## Shrinkage and the number of iterations

![shrinkage against iterations]({figs['shrinkage']})

Smaller shrinkage needs proportionally more trees: on boston (gaussian, depth 3, 80% of
the rows for training), {shrink_txt}. {shrink_verdict} The vignette's advice stands: set
`shrinkage` as small as time allows, then choose the number of trees.

## Choosing the number of trees: OOB, test set and cross-validation

`pygbm.gbm("medv ~ .", boston, n_trees=1200, shrinkage=0.05, interaction_depth=3,
bag_fraction=0.5, train_fraction=0.8, cv_folds=5)` records the training error (black),
the validation error (red), the out-of-bag improvements and the cv error (green);
`gbm_perf` turns each into a best iteration (blue dashed line).

![OOB]({figs['oob']})

The out-of-bag rule (R's loess smooth of the OOB improvements, maximised cumulative
sum; right panel) chooses {p['OOB']} trees; it is conservative, as the vignette warns.

![test]({figs['test']})

The validation set chooses {p['test']} trees.

![cv]({figs['cv']})

5-fold cross-validation chooses {p['cv']} trees. Squared error on the validation rows at
each choice: {mse_txt}.

## Relative influence

![relative influence]({figs['influence']})

`fit.summary()` (R's `summary.gbm`) sums each variable's split improvements over the
trees and scales them to 100: {infl_txt} lead.

## Partial dependence

![one variable]({figs['pdp1']})

`plot_gbm(fit, "lstat")` (R's `plot.gbm`) integrates the other variables out by
Friedman's weighted tree traversal: prices fall with `lstat` and rise steeply with `rm`;
the categorical `chas` gets one point per level.

![two variables]({figs['pdp2']})

The joint effect of `lstat` and `rm`; Friedman's H statistic
(`interact_gbm(fit, boston, ["lstat", "rm"])`) is {notes['interaction']:.3f}.

## A bernoulli fit and its calibration

![calibration]({figs['calibration']})

pima2 (diabetes, with missing values) with `distribution="bernoulli"`, cv choosing {b['best']}
trees; on the {b['n_valid']} validation rows the predicted probabilities follow the observed
rates (`calibrate_plot`, a natural-spline logistic fit with +-2 standard errors; red: y = x)
and the ROC area is {b['auc']:.3f} (`gbm_roc_area`).

## A Cox model and its baseline hazard

![baseline hazard]({figs['coxph']})

`Surv(time, status) ~ ...` on the lung data with `distribution="coxph"` ({c['best']} trees by
cv; leading variables {cox_txt}). `basehaz_gbm` gives Breslow's cumulative baseline hazard
(left, with its super-smoother version); with the fitted log hazard ratios it gives survival
curves for patients of low, median and high predicted risk (right).
"""
    DOC.write_text(text)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    start = time.time()
    notes: dict = {}
    boston = shuffled(load("boston"), SEED)
    figs = {"shrinkage": shrinkage_vs_iterations(boston, notes)}
    figs.update(gaussian_section(boston, notes))
    figs["calibration"] = bernoulli_section(shuffled(load("pima2"), SEED), notes)
    figs["coxph"] = coxph_section(load("lung"), notes)
    seconds = time.time() - start
    write_doc(figs, notes, seconds)
    print(f"wrote {len(figs)} figures to {OUT} and {DOC} in {seconds:.1f} s")


if __name__ == "__main__":
    main()
