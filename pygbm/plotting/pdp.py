"""Partial dependence and ICE plots (the pictures of R's ``plot.gbm``).

Every function takes the DataFrame of
:func:`pygbm.inspect.partial_dependence.partial_dependence` (variable columns,
then ``y``; ICE frames also have ``row``).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .._checks import table_arg
from .axes import axes_for

#: panels drawn for a continuous conditioning variable (R's ``number = 4``)
CONTINUOUS_PANELS = 4
#: most panels drawn for a categorical conditioning variable
MAX_PANELS = 12
#: R's default colour map of level plots (viridis::viridis)
COLORMAP = "viridis"
#: above this many levels the category tick labels are rotated
ROTATE_TICKS_ABOVE = 8
ICE_LINE = {"color": "0.45", "alpha": 0.25, "linewidth": 0.7}


def _value_columns(frame) -> tuple[str, str]:
    """The names of the frame's value and row columns: ``y`` and ``row``, or
    what partial_dependence named them beside a predictor ``y`` or ``row``."""
    attrs = frame.attrs if isinstance(frame, pd.DataFrame) else {}
    return attrs.get("y_column", "y"), attrs.get("row_column", "row")


def _class_columns(frame: pd.DataFrame) -> list[str]:
    """A multi-class grid's value columns, one per class (none otherwise)."""
    return list(frame.attrs.get("class_columns", [])) if isinstance(frame, pd.DataFrame) else []


def _var_columns(frame: pd.DataFrame) -> list[str]:
    values = set(_value_columns(frame)) | set(_class_columns(frame))
    return [c for c in frame.columns if c not in values]


def _y(frame: pd.DataFrame) -> np.ndarray:
    return frame[_value_columns(frame)[0]].to_numpy()


def _is_cat(series: pd.Series) -> bool:
    return isinstance(series.dtype, pd.CategoricalDtype)


def _category_axis(ax, categories, axis="x"):
    pos = np.arange(len(categories))
    rotate = 90 if len(categories) > ROTATE_TICKS_ABOVE else 0
    if axis == "x":
        ax.set_xticks(pos)
        ax.set_xticklabels([str(c) for c in categories], rotation=rotate)
    else:
        ax.set_yticks(pos)
        ax.set_yticklabels([str(c) for c in categories])
    return pos


def _one(ax, frame, name, ylabel):
    x, y = frame[name], _y(frame)
    if _is_cat(x):
        pos = _category_axis(ax, x.cat.categories)
        ax.plot(pos[x.cat.codes.to_numpy()], y, "o", color="C0")
        ax.grid(axis="x", linestyle=":", linewidth=0.5)
    else:
        ax.plot(x.to_numpy(), y, "-", color="C0")
    ax.set_xlabel(name)
    ax.set_ylabel(ylabel)
    return ax


def _classes(ax, frame, name, ylabel):
    """One variable of a multi-class fit: one curve per class (a categorical
    variable: points per level, joined thinly), with a legend of the classes."""
    x = frame[name]
    if _is_cat(x):
        xs, style = _category_axis(ax, x.cat.categories)[x.cat.codes.to_numpy()], "o-"
        ax.grid(axis="x", linestyle=":", linewidth=0.5)
    else:
        xs, style = x.to_numpy(), "-"
    columns = _class_columns(frame)
    for column, label in zip(columns, frame.attrs.get("classes", columns)):
        ax.plot(xs, frame[column].to_numpy(), style, linewidth=1.2 if style == "-" else 0.6,
                markersize=4, label=str(label))
    ax.legend(title="class", fontsize="small", ncol=max(1, math.ceil(len(columns) / 12)))
    ax.set_xlabel(name)
    ax.set_ylabel(ylabel)
    return ax


def _two_layout(frame, names) -> tuple[str, str]:
    """The two variables ``names`` as :func:`_two` draws them: the one on the x
    axis, then the other (on the y axis of an image when both are continuous,
    else a line or points per level). A categorical first and a continuous
    second are swapped: the continuous one is on the x axis."""
    first, second = names
    if _is_cat(frame[first]) and not _is_cat(frame[second]):
        return second, first
    return first, second


def _two(ax, frame, names, ylabel, norm=None, colorbar=True):
    """Two variables: image (both continuous), lines per level (one
    categorical) or points per level (both categorical)."""
    a, b = frame[names[0]], frame[names[1]]
    y = _y(frame)
    x_name, g_name = _two_layout(frame, names)
    if not _is_cat(a) and not _is_cat(b):
        xs, ys = np.unique(a.to_numpy()), np.unique(b.to_numpy())
        z = np.full((ys.size, xs.size), np.nan)
        z[np.searchsorted(ys, b.to_numpy()), np.searchsorted(xs, a.to_numpy())] = y
        mesh = ax.pcolormesh(xs, ys, z, shading="nearest", cmap=COLORMAP, norm=norm)
        if colorbar:
            ax.figure.colorbar(mesh, ax=ax, label=ylabel)
        ax.set_xlabel(names[0])
        ax.set_ylabel(names[1])
        return mesh
    if _is_cat(a) and _is_cat(b):
        pos = _category_axis(ax, frame[x_name].cat.categories)
        for level in frame[g_name].cat.categories:
            part = frame[frame[g_name] == level]
            ax.plot(pos[part[x_name].cat.codes.to_numpy()], _y(part), "o-",
                    linewidth=0.6, markersize=4, label=str(level))
    else:
        for level in frame[g_name].cat.categories:
            part = frame[frame[g_name] == level]
            ax.plot(part[x_name].to_numpy(), _y(part), "-", label=str(level))
    n_levels = len(frame[g_name].cat.categories)
    ax.legend(title=g_name, fontsize="small", ncol=max(1, math.ceil(n_levels / 12)))
    ax.set_xlabel(x_name)
    ax.set_ylabel(ylabel)
    return None


def _panel_values(series: pd.Series):
    if _is_cat(series):
        values = list(series.cat.categories)
        limit = MAX_PANELS
    else:
        values = list(np.unique(series.to_numpy()))
        limit = CONTINUOUS_PANELS
    if len(values) > limit:
        pick = np.unique(np.round(np.linspace(0, len(values) - 1, limit)).astype(int))
        values = [values[i] for i in pick]
    return values


def _panels(fig, titles, draw, ylabel):
    """A grid of panels sharing their axes: ``draw(ax, k)`` draws panel k under
    ``titles[k]`` and returns its image, if any (the panels' images share one
    colour scale, which ``draw`` applies; one colour bar is drawn for them); axis
    labels on the outer panels only. Returns the panels' Axes."""
    ncols = math.ceil(math.sqrt(len(titles)))
    nrows = math.ceil(len(titles) / ncols)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
    mesh = None
    for k, (ax, title) in enumerate(zip(axes.ravel(), titles)):
        mesh = draw(ax, k) or mesh
        ax.set_title(title, fontsize="small")
        if k + ncols < len(titles):             # a panel below shows the x axis
            ax.set_xlabel("")
        else:
            ax.tick_params(labelbottom=True)
        if not ax.get_subplotspec().is_first_col():
            ax.set_ylabel("")
    for ax in axes.ravel()[len(titles):]:
        ax.set_visible(False)
    if mesh is not None:
        fig.colorbar(mesh, ax=axes.ravel().tolist(), label=ylabel)
    return list(axes.ravel()[:len(titles)])


def _norm(values):
    from matplotlib.colors import Normalize

    return Normalize(vmin=np.nanmin(values), vmax=np.nanmax(values))


def _three_layout(frame, names) -> tuple[str, list[str]]:
    """The variable of :func:`_three`'s panels (the categorical one with fewest
    levels, else the third) and the two drawn in each panel."""
    cats = [n for n in names if _is_cat(frame[n])]
    panel = min(cats, key=lambda n: len(frame[n].cat.categories)) if cats else names[2]
    return panel, [n for n in names if n != panel]


def _three(fig, frame, names, ylabel):
    """Panels over one variable (see :func:`_three_layout`), each showing the
    two-variable plot of the others; returns the panels' Axes."""
    panel, inner = _three_layout(frame, names)
    values = _panel_values(frame[panel])
    norm = _norm(_y(frame))
    titles = [f"{panel} = {v:.4g}" if isinstance(v, float) else f"{panel} = {v}"
              for v in values]
    return _panels(fig, titles, lambda ax, k: _two(ax, frame[frame[panel] == values[k]],
                                                    inner, ylabel, norm=norm, colorbar=False),
                   ylabel)


def _class_panels(fig, frame, names, ylabel):
    """Two variables of a multi-class fit: a panel per class, each the
    two-variable plot of that class's values (one colour scale); returns the
    panels' Axes."""
    columns = _class_columns(frame)
    norm = _norm(frame[columns].to_numpy(dtype=float))

    def draw(ax, k):
        part = frame[list(names) + [columns[k]]]
        part.attrs = {"y_column": columns[k]}
        return _two(ax, part, names, ylabel, norm=norm, colorbar=False)

    return _panels(fig, _class_titles(frame, columns), draw, ylabel)


def _class_titles(frame, columns):
    """The panel titles of a multi-class grid's classes (``columns``: their values)."""
    return [f"class {label}" for label in frame.attrs.get("classes", columns)]


def _figure(ax, what):
    """The Figure panels are drawn in: a new one, or ``ax`` when it is a Figure."""
    import matplotlib.pyplot as plt

    if ax is None:
        return plt.figure(figsize=(9.0, 7.0), layout="constrained")
    if hasattr(ax, "add_subplot"):
        return ax
    raise TypeError(f"ax must be None or a matplotlib Figure for {what} (it draws panels)")


def plot_partial_dependence(frame: pd.DataFrame, ax=None, ylabel="f(x)"):
    """Draw a partial dependence grid of 1, 2 or 3 variables.

    1 variable: a line (categorical: points per level). 2 variables: an image
    with a colour bar (both continuous), one line per level (one categorical)
    or points per level (both categorical). 3 variables: panels (see
    ``_three``). The grid of every class of a multi-class fit: for 1 variable a
    curve per class, with a legend; for 2 a panel per class. Returns the Axes
    (one panel) or the list of the panels' Axes (their ``.figure`` is the
    Figure: a Figure returned to a notebook would be shown twice, as the cell's
    value and as pyplot's figure).
    """
    if _class_columns(frame):
        names = _var_columns(frame)
        if len(names) == 1:
            return _classes(axes_for(ax), frame, names[0], ylabel)
        if len(names) == 2:
            return _class_panels(_figure(ax, "a multi-class 2-variable plot"), frame, names,
                                 ylabel)
        raise ValueError(f"a grid of every class is drawn for one or two variables, this "
                         f"one has {len(names)}: take one class "
                         "(partial_dependence(..., class_=...))")
    names = _var_columns(table_arg("frame", frame, _value_columns(frame)[:1],
                                   "partial_dependence()"))
    if len(names) == 1:
        return _one(axes_for(ax), frame, names[0], ylabel)
    if len(names) == 2:
        ax = axes_for(ax)
        _two(ax, frame, names, ylabel)
        return ax
    if len(names) == 3:
        return _three(_figure(ax, "a 3-variable plot"), frame, names, ylabel)
    raise ValueError(f"can draw 1 to 3 variables, the frame has {len(names)}")


def _ice(ax, frame, name, y_column, row_name, ylabel):
    """The ICE curves of ``y_column`` (thin grey lines, one per ``row_name``)
    and their mean (bold)."""
    x = frame[name]
    n_rows = frame[row_name].nunique()
    n_grid = len(frame) // n_rows
    if _is_cat(x):
        pos = _category_axis(ax, x.cat.categories)
        xs = pos[x.cat.codes.to_numpy()[:n_grid]]
    else:
        xs = x.to_numpy()[:n_grid]
    curves = frame[y_column].to_numpy().reshape(n_rows, n_grid)
    ax.plot(xs, curves.T, **ICE_LINE)
    ax.plot(xs, curves.mean(axis=0), "-", color="C3", linewidth=2.2,
            label="mean of the ICE curves")
    ax.legend(fontsize="small")
    ax.set_xlabel(name)
    ax.set_ylabel(ylabel)


def plot_ice(frame: pd.DataFrame, ax=None, ylabel="f(x)"):
    """ICE curves of one variable (thin grey lines, one per ``row``) and
    their mean (bold). Returns the Axes; for the frame of every class of a
    multi-class fit, a panel per class and the list of the panels' Axes."""
    y_name, row_name = _value_columns(frame)
    columns = _class_columns(frame)
    if not columns:
        table_arg("frame", frame, (y_name,), "partial_dependence(ice=True)")
    names = _var_columns(frame)
    if len(names) != 1 or row_name not in frame.columns:
        raise ValueError("plot_ice needs an ICE frame of one variable (columns var, row, y)")
    if columns:
        return _panels(_figure(ax, "the ICE curves of every class"),
                       _class_titles(frame, columns),
                       lambda panel, k: _ice(panel, frame, names[0], columns[k], row_name,
                                             ylabel), ylabel)
    ax = axes_for(ax)
    _ice(ax, frame, names[0], y_name, row_name, ylabel)
    return ax


#: height of the decile ticks, as a share of the axes
DECILE_TICK = 0.04


def axis_variables(frame: pd.DataFrame) -> tuple[str, str | None]:
    """The variables on the x and y axes of the picture of ``frame`` (on every
    panel): :func:`plot_partial_dependence`'s of 1-3 variables or
    :func:`plot_ice`'s; None where the y axis shows the partial dependence."""
    names = _var_columns(frame)
    if len(names) == 3:
        names = _three_layout(frame, names)[1]
    if len(names) != 2:
        return names[0], None
    x_name, other = _two_layout(frame, names)
    return x_name, None if _is_cat(frame[other]) else other


def draw_deciles(ax, frame: pd.DataFrame, deciles: dict):
    """Short ticks at the deciles of the data on the axes of the picture of
    ``frame`` that show a variable (see :func:`axis_variables`), as
    scikit-learn's partial dependence display. ``deciles``: an array, or None,
    per variable name. On a single Axes, or on each of a list of panels (they
    draw the same variables)."""
    x_name, y_name = axis_variables(frame)
    style = {"color": "k", "linewidth": 0.8}
    for panel in ax if isinstance(ax, list) else [ax]:
        if deciles.get(x_name) is not None:
            panel.vlines(deciles[x_name], 0.0, DECILE_TICK,
                         transform=panel.get_xaxis_transform(), **style)
        if y_name is not None and deciles.get(y_name) is not None:
            panel.hlines(deciles[y_name], 0.0, DECILE_TICK,
                         transform=panel.get_yaxis_transform(), **style)
