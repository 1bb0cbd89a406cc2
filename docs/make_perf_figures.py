"""Render the gbm_perf and calibrate_plot figures to docs/img/ (run from the repo root:
``python docs/make_perf_figures.py``).

Uses pygbm fits on the bundled data sets (boston, pima2).  Each figure is written
once: perf_test.png, perf_cv.png, perf_oob_curve.png, calibrate_bernoulli.png.
"""

from pathlib import Path
import sys
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pygbm.api import gbm  # noqa: E402
from pygbm.inspect.calibration_plot import calibrate_plot  # noqa: E402
from pygbm.inspect.perf import gbm_perf  # noqa: E402

OUT = ROOT / "docs" / "img"
DPI = 110


def save(fig, name: str) -> None:
    fig.tight_layout()
    fig.savefig(OUT / name, dpi=DPI)
    plt.close(fig)
    print("wrote", OUT / name)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    boston = pd.read_csv(ROOT / "data" / "boston.csv")
    boston["chas"] = boston["chas"].astype(str).astype("category")
    pima2 = pd.read_csv(ROOT / "data" / "pima2.csv")

    fit = gbm("medv ~ .", data=boston, distribution="gaussian", n_trees=1500,
              shrinkage=0.01, interaction_depth=3, train_fraction=0.8, random_state=1)
    best = gbm_perf(fit, method="test")
    save(best.axes[0].figure, "perf_test.png")

    fit = gbm("medv ~ .", data=boston, distribution="gaussian", n_trees=400,
              shrinkage=0.05, interaction_depth=2, cv_folds=3, random_state=2)
    best = gbm_perf(fit, method="cv")
    save(best.axes[0].figure, "perf_cv.png")

    fit = gbm("diabetes ~ .", data=pima2, distribution="bernoulli", n_trees=1000,
              shrinkage=0.01, interaction_depth=2, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        best = gbm_perf(fit, method="OOB", oobag_curve=True)
    save(best.axes[0].figure, "perf_oob_curve.png")

    p = fit.predict(pima2, n_trees=int(best), type="response")
    ax = calibrate_plot(pima2["diabetes"], p, distribution="bernoulli")
    ax.set_title(f"pima2, bernoulli, {int(best)} trees")
    save(ax.figure, "calibrate_bernoulli.png")


if __name__ == "__main__":
    main()
