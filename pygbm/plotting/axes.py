"""The matplotlib Axes a plot draws on: the caller's, checked, or a new figure's."""
from __future__ import annotations

#: a new figure's size in inches (width, height) unless the plot says otherwise
DEFAULT_SIZE = (6.0, 4.5)


def check_axes(ax):
    """``ax`` if it is a matplotlib Axes, else a ``TypeError`` naming ``ax``."""
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    return ax


def axes_for(ax, figsize=DEFAULT_SIZE):
    """The caller's Axes ``ax`` (checked), or with None a new figure's of ``figsize``."""
    import matplotlib.pyplot as plt

    if ax is None:
        return plt.subplots(figsize=figsize)[1]
    return check_axes(ax)
