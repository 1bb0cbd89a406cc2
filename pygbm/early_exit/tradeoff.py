"""qwyc_tradeoff(): mean trees and disagreement on new rows against alpha.

The paper's curves, for QWYC's order and the baselines: the training order
("gbt") and a random order with thresholds by Algorithm 2, and the fixed-order
margin rule (LightGBM's pred_early_stop) over a range of margins. The rows are
scored once; every point is a replay of a schedule on the score matrices.
"""
from __future__ import annotations

import numpy as np

from .. import frontend
from .._checks import array_arg, bool_arg, choice_arg
from ..messages import listed, warn
from ..plotting.axes import check_axes
from ..progress import check_progress, progress_bar, wanted
from .api import (HONEST_LEAST_ROWS, _check_fit, _check_fraction, _check_honest, _check_n_trees,
                  _scored, _seed, check_every, check_margin, check_row_count)
from .build import ORDERS, Settings, optimise
from .model_scores import ModelScores, decision_threshold
from .thresholds import MODES

DEFAULT_ALPHAS = (0.0, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02)
#: default margins: twice these quantiles of |full score - beta| on ``data``
MARGIN_QUANTILES = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
METHODS = ORDERS + ("margin",)
#: the threshold rules of the curves with Algorithm 2's thresholds
ALGORITHM2_RULES = ("qwyc", "rate")


def _labels(fit, newdata):
    """The 0/1 response of ``newdata`` when it has one (else None): the
    formula's response evaluated on it (e.g. ``I(grade == "bad")``), or for a
    ``gbm_fit`` model its column of the response's name. Missing values stay
    NaN (the accuracy is that of the rows whose response is known); None when
    no row has one. A response that is there but is not the fit's (a level the
    fit never saw, numbers other than 0/1) gives None with a warning."""
    try:
        if fit.formula is not None:
            y = frontend.response_newdata(fit.formula, newdata, levels=fit.y_levels,
                                          missing_ok=True).y
        elif not frontend.has_column_names(newdata):
            return None                     # gbm_fit's newdata as a matrix: no response
        else:                               # gbm_fit: a text response by the fit's levels
            y = frontend.response_values(newdata[fit.response_name], fit.y_levels,
                                         f"the response {fit.response_name} of newdata",
                                         missing_ok=True)
        y = np.asarray(y, dtype=float)
    except (frontend.MissingColumnError, KeyError):
        return None                         # no response in newdata: no accuracy
    except (TypeError, ValueError, IndexError) as error:
        warn(f"qwyc_tradeoff(): no accuracy (NaN): newdata's response cannot be read as "
             f"the fit's ({error})")
        return None
    known = y[~np.isnan(y)]
    if not known.size:
        return None
    other = np.unique(known[~np.isin(known, (0.0, 1.0))])
    if other.size:
        warn(f"qwyc_tradeoff(): no accuracy (NaN): newdata's response is not the fit's 0/1 "
             f"response (it has {listed(other)})")
        return None
    return y


def _accuracy(decision: np.ndarray, y) -> float:
    """The share of the rows with a known 0/1 response ``y`` (NaN: missing)
    whose ``decision`` matches it; NaN without labels."""
    if y is None:
        return np.nan
    known = ~np.isnan(y)
    return float(np.mean(decision[known] == y[known]))


def qwyc_tradeoff(fit, data, newdata, alphas=DEFAULT_ALPHAS, methods=("qwyc", "gbt", "margin"),
                  n_trees=None, mode="both", honest=False, margins=None, threshold=None,
                  random_state=None, plot_it=False, ax=None, margin_freq=1, progress=None,
                  exit_every=1, thresholds="qwyc", offset=None, newdata_offset=None):
    """The paper's trade-off curves: for each method and alpha (margin for the
    margin rule), optimise on ``data`` and measure on ``newdata``.

    Returns a DataFrame, one row per point: ``method``, ``alpha``, ``margin``,
    ``mean_trees`` and ``disagreement`` (with the full model, on ``newdata``),
    ``accuracy`` (when ``newdata`` has the 0/1 response: on its rows where the
    response is known), ``fit_mean_trees``,
    ``fit_disagreement`` and ``fit_loo_disagreement`` (on the rows the
    thresholds were set on; the last is the leave-one-out estimate of the
    disagreement on new rows, NaN for the margin rule); a last
    row "full" is the whole model. Compare methods at matched disagreement on
    ``newdata``: alpha itself holds only on the optimisation rows.

    Parameters
    ----------
    fit : GBMFit
        A fitted binary gbm (bernoulli, adaboost, huberized).
    data : pandas.DataFrame, numpy.ndarray or None
        The rows to optimise on; None (given as such: it has no default) the
        fit's kept training rows.
    newdata : pandas.DataFrame or numpy.ndarray
        The rows to measure on (with the 0/1 response, accuracy is
        reported too).
    alphas : sequence of float, optional
        The alphas of the QWYC and fixed-order curves (default: 0, 0.0005,
        0.001, 0.0025, 0.005, 0.01, 0.02).
    methods : sequence of str, default ("qwyc", "gbt", "margin")
        Any of "qwyc", "gbt", "random" (orders with Algorithm 2's
        thresholds) and "margin" (LightGBM's fixed-order margin rule).
    n_trees : int, optional
        The trees of the ensemble; default None: ``fit.best_iteration()``.
    mode : {"both", "negative", "positive"}, default "both"
        Which early exits are allowed (see :func:`qwyc`).
    honest : bool, default False
        Order and thresholds on the two halves of ``data`` (see :func:`qwyc`).
    margins : sequence of float, optional
        The margin rule's margins (default: twice the 5%, 10%, 20%, ..., 90%
        quantiles of ``|full score - beta|`` on ``data``, each distinct value
        once).
    threshold : float, optional
        The decision on the response scale (see :func:`qwyc`).
    random_state : int or numpy.random.Generator, optional
        Seeds the random order and the honest split.
    plot_it : bool, default False
        Draw the curves: mean trees against disagreement on ``newdata``.
    ax : matplotlib.axes.Axes, optional
        Where to draw; None makes a new figure.
    margin_freq : int, default 1
        The margin rule checks after every ``margin_freq``-th tree
        (LightGBM's ``pred_early_stop_freq``; its default is 10).
    progress : bool, optional
        A progress bar over the curves' points, as ``gbm(progress=)``: None
        shows one where someone watches (a terminal, a notebook) once the
        curves take more than a few seconds.
    exit_every : int, default 1
        The curves with Algorithm 2's thresholds ("qwyc", "gbt", "random")
        let rows exit after every ``exit_every``-th tree only (see
        :func:`qwyc`).
    thresholds : {"qwyc", "rate"}, default "qwyc"
        How the curves with Algorithm 2's thresholds spend alpha: as the
        paper ("qwyc") or by rate ("rate", see :func:`qwyc`).
    offset : array-like of float, optional
        The offset of each row of ``data`` (see :func:`qwyc`): required for
        a model fitted with an ``offset`` argument (``gbm_fit``); a
        formula's ``offset()`` terms are found in ``data``.
    newdata_offset : array-like of float, optional
        The offset of each row of ``newdata``, as ``offset`` for ``data``.

    Returns
    -------
    pandas.DataFrame
        One row per point, as above.

    Notes
    -----
    Not in R. Compare the methods at matched disagreement on ``newdata``
    (the paper's Figure 2); alpha holds only on the optimisation rows.

    Examples
    --------
    >>> pima = pd.read_csv("data/pima2.csv")
    >>> bfit = pygbm.gbm("diabetes ~ .", data=pima.iloc[:500], distribution="bernoulli",
    ...                  n_trees=100, interaction_depth=2, random_state=1)
    >>> curves = pygbm.qwyc_tradeoff(bfit, pima.iloc[500:630], pima.iloc[630:],
    ...                              alphas=[0.0, 0.01, 0.05], n_trees=100)
    >>> curves["method"].unique().tolist()
    ['qwyc', 'gbt', 'margin', 'full']
    """
    import pandas as pd
    _check_fit(fit)
    n_trees = _check_n_trees(fit, n_trees)
    choice_arg("mode", mode, MODES)
    items = list(methods) if np.ndim(methods) == 1 and not isinstance(methods, str) else []
    if not items or any(not isinstance(m, str) or m not in METHODS for m in items):
        raise ValueError(f"methods must be a non-empty list of {', '.join(map(repr, METHODS))}"
                         f", got {methods!r}")
    alphas = [_check_fraction(f"alphas[{i}]", a)
              for i, a in enumerate(np.atleast_1d(array_arg("alphas", alphas)))]
    if not alphas:
        raise ValueError("alphas is empty: give the alphas of the curves, e.g. [0, 0.01, 0.05]")
    if margins is not None:
        margins = [check_margin("margins", m)
                   for m in np.atleast_1d(array_arg("margins", margins))]
        if not margins:
            raise ValueError("margins is empty: give the margin rule's margins, or None for "
                             "the default quantiles")
    choice_arg("thresholds", thresholds, ALGORITHM2_RULES,
               " (the margin rule is the method 'margin')")
    margin_freq = check_every("margin_freq", margin_freq, n_trees)
    exit_every = check_every("exit_every", exit_every, n_trees)
    progress = check_progress(progress)
    _check_honest(honest)
    plot_it = bool_arg(plot_it, "plot_it")
    if ax is not None:              # checked even when plot_it=False leaves it unused
        check_axes(ax)
    if newdata is None:
        raise ValueError("newdata is required: the rows the trade-off is measured on (not "
                         "the optimisation rows data)")
    decision = decision_threshold(fit.distribution, threshold)
    scores = ModelScores(fit, n_trees)
    rows = _scored(scores, fit, data, decision[1], offset=offset)
    if honest:
        check_row_count(rows.n, "data (honest=True halves them)", HONEST_LEAST_ROWS)
    new = _scored(scores, fit, newdata, decision[1], "newdata", newdata_offset,
                  "newdata_offset")
    y = _labels(fit, newdata)
    full_new = new.full_decision
    seed = _seed(random_state)
    cost = np.ones(n_trees)
    if margins is None:
        full_fit = rows.g0 + rows.scores.sum(axis=0)
        # distinct (rows sharing a score gave equal quantiles: the same point again)
        margins = np.unique(2 * np.quantile(np.abs(full_fit - decision[1]), MARGIN_QUANTILES))

    grid = []
    for method in methods:
        if method == "margin":
            grid += [(method, np.nan, Settings(mode, "gbt", cost, False, seed, "margin",
                                               float(m), margin_freq)) for m in margins]
        else:
            grid += [(method, a, Settings(mode, method, cost, honest, seed, thresholds,
                                          exit_every=exit_every)) for a in alphas]
    points = []
    with progress_bar(wanted(progress, False), len(grid), "qwyc_tradeoff", unit="point") as bar:
        for method, alpha, settings in grid:
            schedule, threshold_rows = optimise(rows, 0.0 if np.isnan(alpha) else alpha,
                                                settings)
            on_new, on_fit = new.run(schedule), threshold_rows.run(schedule)
            points.append({
                "method": method, "alpha": alpha, "margin": settings.margin or np.nan,
                "mean_trees": on_new.n_trees.mean(),
                "disagreement": on_new.disagreement(full_new),
                "accuracy": _accuracy(on_new.decision, y),
                "fit_mean_trees": on_fit.n_trees.mean(),
                "fit_disagreement": on_fit.disagreement(threshold_rows.full_decision),
                "fit_loo_disagreement": np.nan if method == "margin" else
                threshold_rows.loo_disagreement(schedule)})
            if bar is not None:
                bar.update(1)
    points.append({"method": "full", "alpha": np.nan, "margin": np.nan,
                   "mean_trees": float(n_trees), "disagreement": 0.0,
                   "accuracy": _accuracy(full_new, y),
                   "fit_mean_trees": float(n_trees), "fit_disagreement": 0.0,
                   "fit_loo_disagreement": 0.0})
    table = pd.DataFrame(points)
    if plot_it:
        from ..plotting.qwyc import plot_qwyc_tradeoff
        plot_qwyc_tradeoff(table, ax=ax)
    return table
