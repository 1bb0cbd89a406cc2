"""The matplotlib Axes a plot draws on: the caller's, checked, or a new figure's.

A plot that may not be drawn (``plot_it=False``, ``return_grid=True``) checks its
``ax`` all the same: its type (an Axes, or a Figure where the plot may draw panels),
not yet whether this plot would draw panels in it."""
from __future__ import annotations

#: a new figure's size in inches (width, height) unless the plot says otherwise
DEFAULT_SIZE = (6.0, 4.5)


def check_axes(ax, figure: bool = False):
    """``ax`` if it is a matplotlib Axes (``figure``: or a Figure, which a plot of
    panels draws in), else a ``TypeError`` naming ``ax``."""
    from matplotlib.axes import Axes
    from matplotlib.figure import FigureBase

    if figure and not isinstance(ax, (Axes, FigureBase)):
        raise TypeError(f"ax must be a matplotlib Axes, a Figure (a plot of panels) or None, "
                        f"got {type(ax).__name__}")
    if not (figure or isinstance(ax, Axes)):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    return ax


def axes_for(ax, figsize=DEFAULT_SIZE):
    """The caller's Axes ``ax`` (checked), or with None a new figure's of ``figsize``."""
    import matplotlib.pyplot as plt

    if ax is None:
        return plt.subplots(figsize=figsize)[1]
    return check_axes(ax)
