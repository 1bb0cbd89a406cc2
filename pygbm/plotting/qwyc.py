"""The QWYC trade-off plot: disagreement with the full model against mean trees."""
from __future__ import annotations

import numpy as np

from .._checks import bool_arg, table_arg
from .axes import check_axes

_LABELS = {"qwyc": "QWYC order + thresholds", "gbt": "training order + thresholds",
           "random": "random order + thresholds", "margin": "margin rule (training order)"}


def plot_qwyc_tradeoff(table, ax=None, accuracy=False):
    """Plot a :func:`~pygbm.early_exit.qwyc_tradeoff` table: per method, the
    disagreement on the new rows (%) against the mean number of trees evaluated
    (``accuracy=True``: test accuracy instead, with the full model's as a line)."""
    import matplotlib.pyplot as plt
    ax = plt.gca() if ax is None else check_axes(ax)
    accuracy = bool_arg(accuracy, "accuracy")
    column = "accuracy" if accuracy else "disagreement"
    table_arg("table", table, ("method", "mean_trees", column), "qwyc_tradeoff()")
    scale = 1.0 if accuracy else 100.0
    for method, part in table[table["method"] != "full"].groupby("method", sort=False):
        part = part.sort_values("mean_trees")
        ax.plot(part["mean_trees"], scale * part[column], marker="o",
                label=_LABELS.get(method, method))
    full = table[table["method"] == "full"]
    if accuracy and len(full) and np.isfinite(full[column].iloc[0]):
        ax.axhline(full[column].iloc[0], color="grey", linestyle="--", label="full model")
    ax.set_xlabel("mean number of trees evaluated")
    ax.set_ylabel("test accuracy" if accuracy else "disagreement with the full model (%)")
    ax.legend()
    return ax
