"""Render one PNG of every inspect plot kind into docs/img/.

Run from the repository root:  python docs/make_figures.py
The fits are R gbm fits read from the test fixtures (tests/inspect/rfit.py);
they can be switched to pygbm fits once the engine is in place.
"""
from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "inspect")]

from pygbm.inspect import plot_gbm, summary  # noqa: E402
from rfit import load_fit  # noqa: E402

OUT = ROOT / "docs" / "img"
DPI = 110


def save(obj, name: str) -> None:
    fig = obj if hasattr(obj, "savefig") else obj.figure
    fig.savefig(OUT / name, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    print("wrote", OUT / name)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    boston = load_fit("boston_gaussian")
    pima = load_fit("pima2_bernoulli")
    lending = load_fit("lending_bernoulli")

    _, ax = plt.subplots(figsize=(6, 4.5))
    summary(boston, ax=ax)
    ax.set_title("boston, gaussian: relative influence")
    save(ax, "summary_relative_influence.png")

    ax = plot_gbm(boston, "lstat")
    ax.set_title("partial dependence, one continuous variable")
    save(ax, "pdp_continuous.png")

    ax = plot_gbm(lending, "sub_grade", type="response")
    ax.set_title("partial dependence, one categorical variable (response scale)")
    save(ax, "pdp_categorical.png")

    ax = plot_gbm(boston, ["lstat", "rm"], continuous_resolution=60)
    ax.set_title("partial dependence, two continuous variables")
    save(ax, "pdp_two_continuous.png")

    ax = plot_gbm(lending, ["int_rate", "term"], type="response")
    ax.set_title("partial dependence, continuous x categorical")
    save(ax, "pdp_continuous_by_categorical.png")

    fig = plot_gbm(pima, ["glucose", "mass", "age"], continuous_resolution=40)[0].figure
    fig.suptitle("partial dependence, three variables (panels over age)")
    save(fig, "pdp_three_variables.png")

    ax = plot_gbm(boston, "rm", ice=True, ice_rows=60, random_state=0)
    ax.set_title("ICE curves (60 rows) and their mean")
    save(ax, "ice_curves.png")


if __name__ == "__main__":
    main()
