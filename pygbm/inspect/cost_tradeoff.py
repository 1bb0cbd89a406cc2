"""The cost-accuracy trade-off of cost-efficient boosting (CEGB): test
deviance against the mean prediction cost per row, traced over the number
of trees for several fits (one per trade-off λ) — the figure every plot of
Peter et al. (2017) is."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import frontend
from .._checks import fit_arg, response_arg
from ..costs import COST_COLUMNS
from ..distributions import Targets

#: how many tree counts are traced by default (geometric steps up to all trees)
DEFAULT_STEPS = 10


def _counts(fit, n_trees) -> list:
    if n_trees is not None:
        return sorted(set(int(c) for c in fit._check_n_trees(n_trees)))
    grid = np.unique(np.round(np.geomspace(1, fit.n_trees, DEFAULT_STEPS)).astype(int))
    return [int(c) for c in grid]


def _targets(fit, newdata, y) -> Targets:
    """The response of ``newdata`` (its formula's, unless ``y`` is given) and
    the formula's offsets: deviances as ``valid_error`` measures them."""
    offset = None
    if y is None:
        if fit.formula is None:
            raise ValueError("cost_tradeoff: give y= (the response of newdata) for a "
                             "gbm_fit model")
        y, offset = frontend.response_newdata(fit.formula, newdata)
    elif fit.formula is not None:
        offset = frontend.offset_newdata(fit.encoder, newdata)
    y = response_arg(fit.distribution, y, "newdata")
    return Targets(y, offset, np.ones(y.shape[0]))


def cost_tradeoff(fits, newdata, y=None, n_trees=None) -> pd.DataFrame:
    """Deviance and mean prediction cost per row of each fit at each number of trees.

    Parameters
    ----------
    fits : fitted model with costs, or a list or dict of them
        E.g. one per ``cegb_tradeoff``; a dict names them, else the trade-off
        names them ("lambda=0.001").
    newdata : DataFrame
        The rows to evaluate on (a test set), with the response column.
    y : array, optional
        The response of ``newdata`` (default: the fits' formula's response
        evaluated on it, e.g. ``log(wage)``; the formula's ``offset()`` terms
        enter the deviance either way).
    n_trees : int or list of ints, optional
        Counts to trace (default: 10 geometric steps up to each fit's trees).

    Returns
    -------
    DataFrame
        One row per (fit, count): ``model``, ``tradeoff``, ``n_trees``,
        ``deviance`` (the distribution's, as ``fit.valid_error``),
        ``mean_cost`` and the mean of each cost part (``feature_cost``,
        ``split_cost``, ``model_cost``).

    Notes
    -----
    Not in R (cost-efficient boosting, Peter et al. 2017; see the design
    note docs/cegb.md). Each fit is traced in one pass over its trees.

    Examples
    --------
    >>> costs = {name: 1.0 for name in boston.columns if name != "medv"}
    >>> costs["tax"] = 10.0                            # one expensive predictor
    >>> fits = {lam: pygbm.gbm("medv ~ .", data=boston.iloc[:400], n_trees=100,
    ...                        distribution="gaussian", feature_costs=costs,
    ...                        cegb_tradeoff=lam, random_state=1)
    ...         for lam in (0.0, 1.0)}
    >>> table = pygbm.cost_tradeoff(fits, boston.iloc[400:], n_trees=[50, 100])
    >>> table["n_trees"].tolist()
    [50, 100, 50, 100]
    """
    if not isinstance(fits, (dict, list, tuple)):
        fits = [fits]                            # one fit: its curve over the trees
    named = list(fits.items()) if isinstance(fits, dict) else list(enumerate(fits))
    if not named:
        raise ValueError("fits is empty: give one or more fitted models with costs")
    rows = []
    for key, fit in named:
        where = f"fits[{key!r}]"
        fit_arg(fit, where)
        if fit.costs is None:
            raise ValueError(f"cost_tradeoff: {where} was fitted without costs; give it the "
                             "costs with cegb_tradeoff=0 to report them")
        name = key if isinstance(fits, dict) else f"lambda={fit.costs.tradeoff:g}"
        targets = _targets(fit, newdata, y)
        counts = _counts(fit, n_trees)
        f = fit.predict(newdata, n_trees=counts)
        costs = fit.predict_cost(newdata, n_trees=counts)
        for j, count in enumerate(counts):
            table = costs[count]
            row = dict(model=name, tradeoff=fit.costs.tradeoff, n_trees=count,
                       deviance=float(fit.distribution.deviance(targets, f[..., j], fit.context)),
                       mean_cost=float(table["total"].mean()))
            row.update({c: float(table[c].mean()) for c in COST_COLUMNS[:-1]})
            rows.append(row)
    return pd.DataFrame(rows)


def plot_cost_tradeoff(table: pd.DataFrame, ax=None):
    """Plot deviance against mean prediction cost per row, one line per model.

    Parameters
    ----------
    table : pandas.DataFrame
        What :func:`cost_tradeoff` returns (points: the traced tree counts).
    ax : matplotlib.axes.Axes, optional
        Where to draw; a new figure when None.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Notes
    -----
    Not in R. The lower left is better: less deviance at less cost.

    Examples
    --------
    >>> costs = {name: 1.0 for name in boston.columns if name != "medv"}
    >>> fits = [pygbm.gbm("medv ~ .", data=boston.iloc[:400], n_trees=100,
    ...                   distribution="gaussian", feature_costs=costs,
    ...                   cegb_tradeoff=lam, random_state=1) for lam in (0.0, 1.0)]
    >>> ax = pygbm.plot_cost_tradeoff(pygbm.cost_tradeoff(fits, boston.iloc[400:]))
    """
    from ..plotting.cost_tradeoff import plot_tradeoff

    return plot_tradeoff(table, ax=ax)
