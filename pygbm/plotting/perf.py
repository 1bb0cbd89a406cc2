"""Plots of :func:`pygbm.inspect.perf.gbm_perf` and
:func:`pygbm.inspect.calibration_plot.calibrate_plot` (R's ``gbm.perf`` / ``calibrate.plot``).

matplotlib is imported here only, so computing without plotting never needs it.
"""

from __future__ import annotations

import numpy as np

from .._checks import array_arg, bool_arg, choice_arg, finite_number, fit_arg, int_arg
from .axes import check_axes

#: R's sides of the plot that the decile rug can be drawn on (bottom, top)
RUG_SIDES = (1, 3)

#: R's colours and line widths in gbm.perf
TRAIN_COLOR, TEST_COLOR, CV_COLOR, BEST_COLOR = "black", "red", "green", "blue"
BEST_LINEWIDTH = 2.0
SMOOTH_COLOR, SMOOTH_LINEWIDTH = "red", 2.0
#: R's quantile.rug: deciles of the predictions
RUG_PROBS = np.linspace(0.0, 1.0, 11)
#: hatch used for a given R polygon ``density`` (matplotlib has no line density)
HATCH = "///"


def _new_axes(n: int = 1):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, n, figsize=(6.0 * n, 4.5), squeeze=False,
                             layout="constrained")     # twin axes keep their labels apart
    return list(axes[0])


def _finite_range(*arrays) -> tuple[float, float] | None:
    vals = np.concatenate([np.asarray(a, float).ravel() for a in arrays if a is not None])
    vals = vals[np.isfinite(vals)]
    if len(vals) == 0:
        return None
    lo, hi = float(vals.min()), float(vals.max())
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    pad = 0.04 * (hi - lo)  # R's xaxs = "r" extends the range by 4 %
    return lo - pad, hi + pad


def perf_axes(ax, panels: int) -> list:
    """The caller's Axes ``ax`` of gbm.perf's plot of ``panels`` panels (the second:
    oobag_curve's): one Axes, or a list, tuple or array of them
    (``plt.subplots(1, 2)``'s), as a list; else a ``TypeError`` (or ``ValueError``:
    none, or more than ``panels``) naming ``ax``. Asked by :func:`gbm_perf` even
    when it draws nothing."""
    if not isinstance(ax, (list, tuple, np.ndarray)):
        return [check_axes(ax)]
    axes = list(np.ravel(np.asarray(ax, dtype=object)))
    if not axes:
        raise ValueError("ax must be a matplotlib Axes, a list of them (one per panel) "
                         "or None, got an empty list")
    if len(axes) > panels:
        raise ValueError(f"ax holds {len(axes)} Axes but the plot has {panels} panel"
                         f"{'s' if panels > 1 else ''} (the second is oobag_curve's)")
    from matplotlib.axes import Axes

    bad = [type(a).__name__ for a in axes if not isinstance(a, Axes)]
    if bad:
        raise TypeError(f"ax must be a matplotlib Axes, a list of them (one per panel) "
                        f"or None, got a list holding {bad[0]}")
    return axes


def plot_perf(fit, best: int, method: str, smoother=None, oobag_curve: bool = False,
              overlay: bool = True, ax=None, ylab: str = "Loss") -> list:
    """Draw R's ``gbm.perf`` plot; returns the list of axes drawn on.

    Main panel: training error (black), validation error (red) when
    ``train_fraction < 1``, cv error (green) for method "cv", and a blue dashed
    vertical line at ``best``.  The y range covers every drawn curve (R's
    ``get_ylim`` leaves the cv curve out when there is also a validation set).
    With ``oobag_curve``: the cumulative smoothed OOB improvement on a right-hand
    axis when ``overlay``, and a second panel with the raw OOB improvements
    (black), their loess smooth (red), y = 0 and x = ``best`` (blue).
    """
    fit_arg(fit)
    best = int_arg("best", best, 0, fit.n_trees)
    choice_arg("method", method, ("OOB", "test", "cv"))
    oobag_curve, overlay = bool_arg(oobag_curve, "oobag_curve"), bool_arg(overlay, "overlay")
    panels = 2 if oobag_curve else 1
    axes = _new_axes(panels) if ax is None else perf_axes(ax, panels)
    main = axes[0]
    train = np.asarray(fit.train_error, float)
    iters = np.arange(1, len(train) + 1)
    curves = [train]
    main.plot(iters, train, color=TRAIN_COLOR, label="training")
    if float(fit.train_fraction) != 1 and fit.valid_error is not None:
        valid = np.asarray(fit.valid_error, float)
        main.plot(np.arange(1, len(valid) + 1), valid, color=TEST_COLOR, label="validation")
        curves.append(valid)
    if method == "cv":
        cv = np.asarray(fit.cv_error, float)
        main.plot(np.arange(1, len(cv) + 1), cv, color=CV_COLOR, label="cv")
        curves.append(cv)
    main.axvline(best, color=BEST_COLOR, linewidth=BEST_LINEWIDTH, linestyle="--",
                 label=f"best iteration ({method}): {best}")
    yr = _finite_range(*curves)
    if yr is not None:
        main.set_ylim(*yr)
    main.set_xlabel("Iteration")
    main.set_ylabel(ylab)
    main.legend(loc="best", fontsize="small")
    drawn = [main]
    if oobag_curve and smoother is not None:
        if overlay:
            twin = main.twinx()
            twin.plot(smoother.x, np.cumsum(smoother.y), color=BEST_COLOR,
                      label="cumulative OOB improvement")
            twin.axhline(0.0, color=BEST_COLOR, linewidth=BEST_LINEWIDTH)
            twin.set_ylabel(f"OOB improvement in {ylab}")
            handles = main.get_lines() + twin.get_lines()[:1]
            main.legend(handles=handles, labels=[h.get_label() for h in handles],
                        loc="best", fontsize="small")
            drawn.append(twin)
        oob_ax = axes[1] if len(axes) > 1 else _new_axes(1)[0]
        improve = np.asarray(fit.oobag_improve, float)
        oob_ax.plot(np.arange(1, len(improve) + 1), improve, color=TRAIN_COLOR,
                    label="OOB improvement")
        oob_ax.plot(smoother.x, smoother.y, color=SMOOTH_COLOR, linewidth=SMOOTH_LINEWIDTH,
                    label="loess smooth")
        oob_ax.axhline(0.0, color=BEST_COLOR, linewidth=1.0)
        oob_ax.axvline(best, color=BEST_COLOR, linewidth=1.0)
        oob_ax.set_xlabel("Iteration")
        oob_ax.set_ylabel(f"OOB change in {ylab}")
        oob_ax.legend(loc="best", fontsize="small")
        drawn.append(oob_ax)
    return drawn


def plot_calibration(curve, p, distribution: str = "bernoulli", replace: bool = True,
                     line_par: dict | None = None, shade_col="lightyellow",
                     shade_density=None, rug_par: dict | None = None,
                     xlab: str = "Predicted value", ylab: str = "Observed average",
                     xlim=None, ylim=None, ax=None):
    """Draw R's ``calibrate.plot`` from a :func:`calibration_curve` DataFrame.

    ``line_par`` holds matplotlib line keywords (R's ``col`` is accepted for
    ``color``); ``shade_col`` None/"none" (R's NA) turns the +-2 se band off;
    ``shade_density`` not None hatches the band instead of filling it;
    ``rug_par["side"]`` 1 (bottom) or 3 (top) places the decile rug of ``p``.
    R jitters tied deciles randomly; here they are drawn as they are.
    ``replace=False`` adds to ``ax`` (or the current axes) without resetting it.
    Returns the axes.
    """
    import matplotlib.pyplot as plt
    from matplotlib.colors import is_color_like

    for value, name in ((line_par, "line_par"), (rug_par, "rug_par")):
        if value is not None and not isinstance(value, dict):
            raise TypeError(f"{name} must be a dict of plot settings or None, got {value!r:.80}")
    line_kw = {"color": "black"}
    for key, val in (line_par or {}).items():
        line_kw["color" if key == "col" else key] = val
    from matplotlib.lines import Line2D
    try:                                  # matplotlib's error would come from ax.plot
        Line2D([], []).set(**line_kw)
    except (AttributeError, TypeError, ValueError) as err:
        raise ValueError(f"line_par must hold matplotlib line settings (or R's col), got "
                         f"{line_par!r:.80}: {err}") from None
    unknown = sorted(map(str, set(rug_par or {}) - {"side"}))
    if unknown:       # R passes rug.par to rug(); here only the side is used
        raise ValueError(f"rug_par takes only 'side' (1 or 3), got {unknown}")
    if shade_density is not None and (not finite_number(shade_density) or shade_density < 0):
        raise ValueError(f"shade_density must be None or a non-negative number, got "
                         f"{shade_density!r:.80}")
    side = (rug_par or {}).get("side", 1)
    if isinstance(side, bool) or not isinstance(side, (int, np.integer)) or side not in RUG_SIDES:
        raise ValueError(f"rug_par['side'] must be 1 (bottom) or 3 (top), got {side!r:.80}")
    shade = shade_col is not None and str(shade_col).lower() not in ("none", "na")
    if shade and not is_color_like(shade_col):
        raise ValueError(f"shade_col must be a matplotlib colour, or None or 'none' for no band, "
                         f"got {shade_col!r:.80}")
    if ax is not None:
        check_axes(ax)
    for value, name in ((xlim, "xlim"), (ylim, "ylim")):
        if value is not None and (array_arg(name, value).ndim != 1 or len(value) != 2
                                  or not all(finite_number(v) for v in value)):
            raise ValueError(f"{name} must be None or two finite numbers (low, high), "
                             f"got {value!r:.80}")
    x = curve["x"].to_numpy()
    fit = curve["fit"].to_numpy()
    if replace:
        ax = _new_axes(1)[0] if ax is None else ax
        if xlim is None:
            xlim = _limits(curve, shade, x, fit)
        if ylim is None:
            ylim = _limits(curve, shade, x, fit)
        ax.set_xlim(*xlim)
        ax.set_ylim(*ylim)
        ax.set_xlabel(xlab)
        ax.set_ylabel(ylab)
    elif ax is None:
        ax = plt.gca()
    if shade:
        if shade_density is None:
            ax.fill_between(x, curve["lower"], curve["upper"], color=shade_col,
                            linewidth=0, label="+/- 2 se")
        else:
            ax.fill_between(x, curve["lower"], curve["upper"], facecolor="none",
                            edgecolor=shade_col, hatch=HATCH, linewidth=0, label="+/- 2 se")
    ax.plot(x, fit, label="calibration curve", **line_kw)
    p = np.asarray(p, float)
    deciles = np.quantile(p[np.isfinite(p)], RUG_PROBS)
    trans = ax.get_xaxis_transform()
    y0, y1 = (0.0, 0.03) if side == 1 else (0.97, 1.0)
    ax.vlines(deciles, y0, y1, transform=trans, color="black", linewidth=1.0,
              label="deciles of prediction")
    ax.axline((0.0, 0.0), slope=1.0, color="red", label="y = x")
    return ax


def _limits(curve, shade: bool, x, fit) -> tuple[float, float]:
    """R's limits: range(se.lower, se.upper, x) with shading, else range(fit, x)."""
    if shade:
        vals = np.concatenate([curve["lower"], curve["upper"], x])
    else:
        vals = np.concatenate([fit, x])
    vals = vals[np.isfinite(vals)]
    return float(vals.min()), float(vals.max())
