"""The plot of :func:`pygbm.inspect.cost_tradeoff.cost_tradeoff`: test
deviance against mean prediction cost per row (matplotlib imported here only)."""
from __future__ import annotations

from .._checks import table_arg
from .axes import axes_for


def plot_tradeoff(table, ax=None):
    table_arg("table", table, ("model", "n_trees", "mean_cost", "deviance"), "cost_tradeoff()")
    if table.empty:         # else an empty plot and matplotlib's warning of no legend
        raise ValueError("table has no rows: give the rows of cost_tradeoff() to plot")
    ax = axes_for(ax)
    for name, part in table.groupby("model", sort=False):
        part = part.sort_values("n_trees")
        ax.plot(part["mean_cost"], part["deviance"], marker="o", markersize=3, label=name)
    ax.set_xlabel("mean prediction cost per row")
    ax.set_ylabel("test deviance")
    ax.legend(fontsize="small")
    return ax
