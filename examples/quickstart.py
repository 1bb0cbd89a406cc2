"""pygbm quickstart: the Boston housing data, as in R's gbm examples.

Fits a gaussian boosted model with 5-fold cross-validation, prints the fit and
its relative influence table, and writes the plots to ./pygbm_output/.
Run from anywhere: python examples/quickstart.py
"""
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402

import pygbm  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data" / "boston.csv"
OUT = Path.cwd() / "pygbm_output"


def main():
    OUT.mkdir(exist_ok=True)
    boston = pd.read_csv(DATA)
    fit = pygbm.gbm("medv ~ .", data=boston, distribution="gaussian", n_trees=1000,
                    interaction_depth=3, shrinkage=0.05, bag_fraction=0.5, cv_folds=5,
                    n_minobsinnode=10, random_state=2024)
    print(fit)
    print()
    best = pygbm.gbm_perf(fit, method="cv", plot_it=False)
    print(f"best number of trees by 5-fold cv: {best}")
    print(f"cv deviance at the best iteration: {fit.cv_error[best - 1]:.3f}")
    print()
    influence = fit.summary(n_trees=best, plot_it=False)
    print(influence)
    table = influence.to_frame()

    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    pygbm.gbm_perf(fit, method="cv", plot_it=True, ax=ax)
    fig.savefig(OUT / "performance.png", dpi=110, bbox_inches="tight")
    fig, ax = plt.subplots(figsize=(6, 5))
    fit.summary(n_trees=best, plot_it=True, ax=ax)
    fig.savefig(OUT / "relative_influence.png", dpi=110, bbox_inches="tight")
    for var in table["var"][:2]:
        fig, ax = plt.subplots()
        fit.plot(var, n_trees=best, ax=ax)
        fig.savefig(OUT / f"partial_dependence_{var}.png", dpi=110, bbox_inches="tight")
    fig = plt.figure()
    ax = fig.add_subplot()
    fit.plot(list(table["var"][:2]), n_trees=best, ax=ax)
    fig.savefig(OUT / "partial_dependence_2d.png", dpi=110, bbox_inches="tight")
    print(f"\nplots written to {OUT}")


if __name__ == "__main__":
    main()
