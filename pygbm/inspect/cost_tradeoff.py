"""The cost-accuracy trade-off of cost-efficient boosting (CEGB): test
deviance against the mean prediction cost per row, traced over the number
of trees for several fits (one per trade-off λ) — the figure every plot of
Peter et al. (2017) is."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .. import frontend
from .._checks import FIT_FIELDS, fit_arg, response_arg, same_rows_arg, weights_arg
from ..costs import COST_COLUMNS, cost_tables
from ..distributions import Targets
from ..pairwise_rows import group_labels, sort_within_groups

#: how many tree counts are traced by default (geometric steps up to all trees)
DEFAULT_STEPS = 10


def _counts(fit, n_trees) -> list:
    if n_trees is not None:
        return sorted(set(int(c) for c in fit._check_n_trees(n_trees)))
    grid = np.unique(np.round(np.geomspace(1, fit.n_trees, DEFAULT_STEPS)).astype(int))
    return [int(c) for c in grid]


def _survival(dist, y):
    """A coxph response given as ``y``: (times, event status), from an (n, 2) array of
    (time, status) or a :func:`pygbm.Surv`."""
    arr = np.asarray(dist.check_response(np.asarray(y)), dtype=float)
    if arr.ndim != 2:
        raise ValueError(f"y must be the survival times and event status of newdata for "
                         f"distribution {dist.name!r} (an (n, 2) array of (time, status) or a "
                         f"Surv object), got shape {arr.shape}")
    return arr[:, 0], arr[:, 1]


def _groups(fit, newdata) -> np.ndarray:
    """The group label of every row of ``newdata`` (a pairwise fit's group columns)."""
    group = fit.distribution.group
    if group is None:
        raise ValueError("cost_tradeoff: distribution 'pairwise' needs the group of every row "
                         "of newdata, and the fit names no group column (a gbm_fit model, "
                         "fitted with group=): fit it with gbm() and the distribution's "
                         "'group' column(s)")
    columns = [group] if isinstance(group, str) else list(group)
    if not isinstance(newdata, pd.DataFrame) or not set(columns) <= set(newdata.columns):
        raise ValueError(f"cost_tradeoff: distribution 'pairwise' needs the group of every row "
                         f"of newdata: newdata must be a DataFrame with the group column(s) "
                         f"{columns}")
    return group_labels(newdata, columns)


def _targets(fit, newdata, y, offset, w, n: int) -> tuple[Targets, np.ndarray | None]:
    """The ``n`` rows of ``newdata`` as the distribution's deviance reads them: their
    response (the formula's, unless ``y`` is given), offsets (``offset``, else the
    formula's ``offset()`` terms), case weights ``w``, a coxph fit's event status, a
    pairwise fit's groups with the rows sorted by group and decreasing response (as the
    fit sorts its own); and that row order (None: as given). Deviances as
    ``valid_error`` measures them."""
    dist = fit.distribution
    status = None
    if y is None:
        if fit.formula is None:
            raise ValueError("cost_tradeoff: give y= (the response of newdata) for a "
                             "gbm_fit model")
        y, _, status = frontend.response_newdata(fit.formula, newdata, levels=fit.y_levels)
    elif dist.survival_response:
        y, status = _survival(dist, y)
    else:
        y = frontend.response_values(y, fit.y_levels)
    y = response_arg(dist, y, "newdata")
    if y.shape[0] != n:
        raise ValueError(f"y must be one response per row of newdata ({n}), got {y.shape[0]}")
    offset = fit._new_offsets(newdata, offset, n)
    if not dist.bag_by_group:
        return Targets(y, offset, w, status), None
    order, group = sort_within_groups(_groups(fit, newdata), y, n)
    if order is None:
        return Targets(y, offset, w, group), None
    return Targets(y[order], None if offset is None else offset[order], w[order],
                   group[order]), order


def _loss(fit) -> tuple:
    """What a fit's deviance measures: its distribution and the parameters of the
    loss (quantile's alpha, tdist's df; not ``splits``, how the trees were grown)."""
    dist = fit.distribution
    return dist.name, tuple((k, v) for k, v in dist.params().items() if k != "splits")


def _describe(loss: tuple) -> str:
    name, params = loss
    return name + (f" ({', '.join(f'{k}={v!r}' for k, v in params)})" if params else "")


def _check_comparable(named) -> None:
    """Fits of different distributions (or loss parameters), or of different
    responses (``medv`` and ``log(medv)``), have deviances on different scales:
    one table of them would compare what cannot be compared."""
    first_key, first = named[0]
    for key, fit in named[1:]:
        if fit.response_name != first.response_name:
            raise ValueError(f"cost_tradeoff: fits[{key!r}] models {fit.response_name} and "
                             f"fits[{first_key!r}] {first.response_name}: their deviances "
                             "are not comparable; give fits of one response")
        if _loss(fit) != _loss(first):
            raise ValueError(f"cost_tradeoff: fits[{key!r}] is a {_describe(_loss(fit))} fit "
                             f"and fits[{first_key!r}] a {_describe(_loss(first))} fit: their "
                             "deviances are not comparable; give fits of one distribution")


def _tradeoff_names(fits) -> list:
    """The names of a list of fits: their trade-offs ("lambda=0.001"), and where
    two share one, their places too ("lambda=0.001 (fits[1])"): the table's
    rows and the plot's lines are told apart by name."""
    names = [f"lambda={fit.costs.tradeoff:g}" for fit in fits]
    return [f"{name} (fits[{i}])" if names.count(name) > 1 else name
            for i, name in enumerate(names)]


def cost_tradeoff(fits, newdata, y=None, n_trees=None, offset=None,
                  weights=None) -> pd.DataFrame:
    """Deviance and mean prediction cost per row of each fit at each number of trees.

    Parameters
    ----------
    fits : fitted model with costs, or a list or dict of them
        E.g. one per ``cegb_tradeoff``; a dict names them, else the trade-off
        names them ("lambda=0.001"; fits that share one, also their place in
        the list: "lambda=0.001 (fits[1])"). All of one response and one
        distribution (and loss parameters: quantile's alpha), whose deviances
        compare; R's and Newton splits may be mixed.
    newdata : DataFrame
        The rows to evaluate on (a test set), with the response column (a
        coxph fit: its ``Surv(time, status)``; a pairwise fit: the group
        column(s) too, the rows in any order).
    y : array, optional
        The response of ``newdata`` (default: the fits' formula's response
        evaluated on it, e.g. ``log(wage)``; the formula's ``offset()`` terms
        enter the deviance either way); for coxph an (n, 2) array of (time,
        status) or a :func:`Surv`.
    n_trees : int or list of ints, optional
        Counts to trace (default: 10 geometric steps from 1 to each fit's
        trees, rounded, repeats dropped: fewer for small fits).
    offset : array-like of float, optional
        The offset of each row of ``newdata`` (link scale; default: the
        formula's ``offset()`` terms evaluated on it): required for fits
        fitted with an ``offset`` argument (``gbm_fit``).
    weights : str or array-like, optional
        Case weights of the rows of ``newdata`` (the name of one of its
        columns, or one number per row) for the deviance and the mean costs;
        default None: every row counts 1, also for fits given ``weights=``
        (pass the same column to measure as their ``valid_error`` does). For
        the deviance they are normalised to mean 1, as R normalises a fit's
        (coxph's deviance depends on their scale).

    Returns
    -------
    DataFrame
        One row per (fit, count): ``model``, ``tradeoff``, ``n_trees``,
        ``deviance`` (the distribution's, as ``fit.valid_error``, with
        ``weights``), ``mean_cost`` and the mean of each cost part
        (``feature_cost``, ``split_cost``, ``model_cost``), weighted means
        with ``weights``.

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
        if not all(hasattr(fits, field) for field in FIT_FIELDS):    # a set, a generator
            raise TypeError(f"fits must be a fitted model with costs, or a list or dict of "
                            f"them, got {type(fits).__name__}")
        fits = [fits]                            # one fit: its curve over the trees
    named = list(fits.items()) if isinstance(fits, dict) else list(enumerate(fits))
    if not named:
        raise ValueError("fits is empty: give one or more fitted models with costs")
    for key, fit in named:
        where = f"fits[{key!r}]"
        fit_arg(fit, where)
        if fit.costs is None:
            raise ValueError(f"cost_tradeoff: {where} was fitted without costs; give it the "
                             "costs with cegb_tradeoff=0 to report them")
    _check_comparable(named)
    same_rows_arg("y", y, newdata, "newdata")       # weights, offset: where they are read
    names = [key for key, _ in named] if isinstance(fits, dict) else \
        _tradeoff_names([fit for _, fit in named])
    rows = []
    for name, (_, fit) in zip(names, named):
        counts = _counts(fit, n_trees)
        # the link values, offsets aside (added with the targets): not fit.predict, which
        # gives R's "does not add the offset" warning and checks the counts again
        x = fit._design(newdata)
        f = fit._link(x, np.asarray(counts))
        if f.shape[0] == 0:       # the means of no rows: NaN (and NumPy's warnings)
            raise ValueError("newdata must have at least 1 row, got 0: cost_tradeoff "
                             "averages the deviance and costs over its rows")
        w = weights_arg(frontend.weights_newdata(weights, newdata), f.shape[0])
        w_norm = w * w.shape[0] / w.sum()     # R's normalisation (coxph is not scale-free)
        targets, order = _targets(fit, newdata, y, offset, w_norm, f.shape[0])
        f = f if order is None else f[order]
        context = fit.context.detached()
        costs = cost_tables(fit, x, counts)     # the rows as designed once
        for j, count in enumerate(counts):
            table = costs[count]
            row = dict(model=name, tradeoff=fit.costs.tradeoff, n_trees=count,
                       deviance=float(fit.distribution.deviance(targets, f[..., j], context)),
                       mean_cost=float(np.average(table["total"], weights=w)))
            row.update({c: float(np.average(table[c], weights=w)) for c in COST_COLUMNS[:-1]})
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
