"""Bar chart of relative influence (the picture of R's ``summary.gbm``)."""
from __future__ import annotations

import numpy as np

from .axes import axes_for

#: R's ``rainbow(cBars, start = 3/6, end = 4/6)``: hues from cyan to blue
HUE_START, HUE_END = 3 / 6, 4 / 6


def rainbow(n: int, start: float = HUE_START, end: float = HUE_END) -> np.ndarray:
    """R's ``rainbow(n, start, end)`` as an (n, 3) array of RGB colours."""
    from matplotlib.colors import hsv_to_rgb

    hues = np.linspace(start, end, n) if n > 1 else np.array([start])
    return hsv_to_rgb(np.column_stack([hues, np.ones(n), np.ones(n)]))


def plot_relative_influence(table, ax=None, xlabel="Relative influence"):
    """Horizontal bars of ``table`` (columns ``var``, ``rel_inf``), first row on top.

    As R's ``summary.gbm``: one bar per row, coloured with R's
    ``rainbow(start = 3/6, end = 4/6)`` from the bottom bar up, the variable
    names as tick labels and "Relative influence" on the x axis.
    Returns the matplotlib Axes.
    """
    if not {"var", "rel_inf"} <= set(getattr(table, "columns", ())):
        raise ValueError("table must be a DataFrame with columns 'var' and 'rel_inf'")
    ax = axes_for(ax, (6.0, max(2.5, 0.3 * len(table) + 1.0)))
    names = list(table["var"])[::-1]          # R draws i[cBars:1]: the first row on top
    values = np.asarray(table["rel_inf"], dtype=float)[::-1]
    pos = np.arange(len(names))
    ax.barh(pos, values, color=rainbow(len(names)), edgecolor="black", linewidth=0.5)
    ax.set_yticks(pos)
    ax.set_yticklabels(names)
    ax.set_xlabel(xlabel)
    ax.set_ylim(-0.6, len(names) - 0.4)
    return ax
