"""R's ``summary.gbm`` as a summary object: the relative influence of every
variable, shown as statsmodels' summary tables (text and HTML), as a table
(:meth:`InfluenceSummary.to_frame`) and as R's bar chart
(:meth:`InfluenceSummary.plot`). statsmodels and matplotlib are imported
when the summary is first shown or drawn.
"""
from __future__ import annotations

from dataclasses import dataclass
from html import escape

import numpy as np
import pandas as pd

from .._checks import as_generator, bool_arg, choice_arg, fit_arg
from ..costs import cost_report, report_missing
from ..messages import warn
from .influence import check_n_trees, permutation_influence, relative_influence

#: summary(method=...) spellings
METHODS = ("relative_influence", "permutation")
#: R's summary.gbm scales the normalised influences to sum to this
PERCENT = 100.0
#: significant digits of the influences in the text and HTML tables
DIGITS = 4
#: narrowest influence column of the text table (statsmodels' numbers take 9)
MIN_WIDTH = 10


@dataclass(frozen=True, eq=False, repr=False)
class InfluenceSummary:
    """The relative influence table of a fit (what R's ``summary.gbm`` returns).

    Made by :func:`pygbm.summary` and :meth:`GBMFit.summary`, not by hand.
    It prints as a text table (``print(s)``, ``repr``), displays as an HTML
    table in a notebook (statsmodels' summary tables, the house style), gives
    R's data frame with :meth:`to_frame` and draws R's bar chart with
    :meth:`plot`.

    Parameters
    ----------
    var : tuple of str
        The predictors' names, in the table's order (by decreasing influence
        when the summary was ordered; R: column ``var``).
    rel_inf : numpy.ndarray
        Their influences, in the same order (R: column ``rel.inf``): percent
        of the total when ``normalized``, else the sums of the splits'
        improvements.
    distribution : str
        The fit's distribution (its display name: pairwise with its metric, Newton splits).
    n_trees : int
        The number of trees the influences were computed from.
    method : {"relative_influence", "permutation"}
        How influence was measured (R: ``method``, ``relative.influence`` or
        ``permutation.test.gbm``).
    normalized : bool
        Whether ``rel_inf`` is scaled to sum to 100 (R: ``normalize``).
    c_bars : int
        The number of bars :meth:`plot` draws, the first ``c_bars`` rows
        (R: ``cBars``).
    cost_share : numpy.ndarray, optional
        Cost-efficient boosting only: each predictor's share (percent) of the
        mean prediction cost per training row under the first ``n_trees``
        trees (``predict_cost``'s), in the table's order; None for a fit
        without costs, or without the table (``cost_missing``).
    split_share : float, default 0.0
        Cost-efficient boosting: the share of the split costs.
    mean_cost : float, default 0.0
        Cost-efficient boosting: the mean prediction cost per training row.
    cost_missing : str, optional
        Cost-efficient boosting: why there is no cost table (the training
        data were needed and not kept); None otherwise.

    Notes
    -----
    R's ``summary.gbm`` returns a bare data frame with row names; here the
    table carries how it was computed (distribution, trees, method, scale),
    which the text and HTML tables show above the influences.

    Examples
    --------
    >>> s = fit.summary(n_trees=100, plot_it=False)
    >>> s.to_frame().index[0]
    'lstat'
    >>> print(s)                                       # doctest: +ELLIPSIS
        Relative influence
    ...
    lstat  ...
    """

    var: tuple                 # variable names, in the table's order
    rel_inf: np.ndarray        # their influences (percent when normalized)
    distribution: str
    n_trees: int
    method: str
    normalized: bool
    c_bars: int                # bars drawn by plot()
    #: cost-efficient boosting: each variable's share of the mean prediction
    #: cost per training row (percent, the table's order), the splits' share
    #: and the mean cost; None without costs
    cost_share: np.ndarray | None = None
    split_share: float = 0.0
    mean_cost: float = 0.0
    #: cost-efficient boosting: why there is no cost table; None otherwise
    cost_missing: str | None = None

    def cost_frame(self) -> pd.DataFrame:
        """Each predictor's share of the mean prediction cost per training row.

        Cost-efficient boosting only (a fit with ``feature_costs``); not in R.

        Returns
        -------
        pandas.DataFrame
            One column ``cost_share`` (percent), indexed by predictor in the
            table's order, with a last row ``(splits)`` when splits cost.

        Raises
        ------
        ValueError
            When the model was fitted without costs, or the training rows'
            cost under the summary's trees needs the training data and they
            were not kept.
        """
        if self.cost_share is None:
            raise ValueError(f"no cost table: {self.cost_missing}" if self.cost_missing
                             else "the model was fitted without costs")
        names, share = list(self.var), list(self.cost_share)
        if self.split_share > 0:
            names.append("(splits)")
            share.append(self.split_share)
        return pd.DataFrame({"cost_share": np.array(share, dtype=float)},
                            index=pd.Index(names))

    def to_frame(self) -> pd.DataFrame:
        """The table as R's ``summary.gbm`` data frame.

        Returns
        -------
        pandas.DataFrame
            Columns ``var`` and ``rel_inf`` (R: ``rel.inf``), indexed by
            predictor name (R's row names), in the summary's order.

        Examples
        --------
        >>> fit.summary(n_trees=100, plot_it=False).to_frame().columns.tolist()
        ['var', 'rel_inf']
        """
        names = list(self.var)
        return pd.DataFrame({"var": names, "rel_inf": np.array(self.rel_inf, dtype=float)},
                            index=pd.Index(names))

    def plot(self, ax=None):
        """R's horizontal bar chart of the first ``c_bars`` predictors.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; None makes a new figure, its height growing with
            the number of bars.

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.

        Notes
        -----
        As R: one bar per row, the first row on top, coloured with R's
        ``rainbow(cBars, start = 3/6, end = 4/6)`` (cyan to blue) and the
        x axis labelled "Relative influence".

        Examples
        --------
        >>> import matplotlib.pyplot as plt
        >>> fig, ax = plt.subplots()
        >>> fit.summary(n_trees=100, plot_it=False).plot(ax=ax) is ax
        True
        """
        from ..plotting.influence import plot_relative_influence

        return plot_relative_influence(self.to_frame().iloc[:self.c_bars], ax=ax)

    def tables(self):
        """The statsmodels summary tables that ``str`` and notebooks show.

        Returns
        -------
        statsmodels.iolib.summary.Summary
            A header table (distribution, trees, method, scale), the
            influences and, for a fit with costs, the cost shares.
        """
        return self._tables(str)

    def _tables(self, label):
        """:meth:`tables`, every name and text passed through ``label``
        (``html.escape`` for the HTML tables: statsmodels writes cells as given)."""
        from statsmodels.iolib.summary import Summary, forg
        from statsmodels.iolib.table import SimpleTable

        scale = "percent of the total" if self.normalized else "sum of split improvements"
        info = [("Distribution:", label(self.distribution)), ("Trees:", str(self.n_trees)),
                ("Method:", self.method.replace("_", " ")), ("Scale:", scale)]
        head = SimpleTable([[value] for _, value in info], stubs=[key for key, _ in info],
                           title="Relative influence")
        # the influence column widened to the header table's width (one rule length)
        width = len(head.as_text().splitlines()[1])
        stub = max((len(name) for name in self.var), default=0)
        body = SimpleTable([[forg(v, DIGITS)] for v in self.rel_inf], headers=["rel_inf"],
                           stubs=[label(name) for name in self.var],
                           txt_fmt={"colwidths": [stub, max(MIN_WIDTH, width - stub - 1)],
                                    "header_align": "r"})
        out = Summary()
        out.tables.extend([head, body])
        if self.cost_share is not None:
            frame = self.cost_frame()
            out.tables.append(SimpleTable(
                [[forg(v, DIGITS)] for v in frame["cost_share"]], headers=["cost %"],
                stubs=[label(name) for name in frame.index],
                title=f"Share of the mean prediction cost per row ({self.mean_cost:.{DIGITS}g})"))
        elif self.cost_missing is not None:     # a fit with costs: say why no table
            out.add_extra_txt([f"Share of the mean prediction cost per row: not computed "
                               f"({self.cost_missing})."])
        return out

    def as_text(self) -> str:
        """The table as plain text (what ``print`` shows).

        Returns
        -------
        str
            statsmodels' text layout of :meth:`tables`.
        """
        return self.tables().as_text()

    def as_html(self) -> str:
        """The table as HTML (what a notebook shows).

        Returns
        -------
        str
            statsmodels' HTML tables of :meth:`tables`, with the names
            HTML-escaped (a predictor ``a<b`` shows as ``a<b``).
        """
        return self._tables(escape).as_html()

    def __str__(self) -> str:
        return self.as_text()

    def __repr__(self) -> str:
        # the table at a Python prompt too (a notebook shows _repr_html_)
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()


def summary(fit, c_bars=None, n_trees=None, plot_it=True, order=True,
            method="relative_influence", normalize=True, ax=None, random_state=None):
    """Relative influence of every variable, and R's bar chart (R's ``summary.gbm``).

    Parameters
    ----------
    fit : GBMFit
        A fitted model (R: ``object``).
    c_bars : int, optional
        Number of bars drawn (R: ``cBars``): the first ``c_bars`` rows of the
        table. Default None: every predictor (R's default); 0: up to 10.
    n_trees : int, optional
        Trees used (R: ``n.trees``); default None: all trees (R's default).
        More than the fit has: a warning and the cap, as R. A fit with costs:
        the cost table is the training rows' prediction cost under these
        trees too (``predict_cost(n_trees=)``; fewer than all trees need the
        kept training data).
    plot_it : bool, default True
        Draw R's horizontal bar chart, largest on top, into ``ax`` (R:
        ``plotit``).
    order : bool, default True
        Sort the table by decreasing influence, ties in variable order (R:
        ``order``).
    method : {"relative_influence", "permutation"}, default "relative_influence"
        Friedman's relative influence (R's ``relative.influence``) or the
        permutation influence (R's ``permutation.test.gbm``; needs the kept
        data). R passes the function; pygbm takes its name.
    normalize : bool, default True
        Scale the influences to sum to 100, negative ones set to 0 first (R:
        ``normalize``).
    ax : matplotlib.axes.Axes, optional
        Where to draw; None makes a new figure; checked with ``plot_it=False``
        too. Not in R.
    random_state : int, numpy.random.Generator or RRandom, optional
        Seed of the permutation method; a :class:`pygbm.RRandom` draws R's
        ``sample(1:nrow(x))`` of ``permutation.test.gbm``. Not in R (R uses
        its global stream).

    Returns
    -------
    InfluenceSummary
        Prints as a table (HTML in a notebook); ``.to_frame()`` is R's data
        frame (columns ``var`` and ``rel_inf``, indexed by variable name) and
        ``.plot(ax=)`` draws the bar chart.

    Notes
    -----
    R returns a data frame and draws as a side effect; pygbm returns a
    summary object that shows itself as a table, so a notebook cell ending
    in ``fit.summary()`` shows the table and the chart. When no split of the
    first ``n_trees`` trees reduces the loss, R's normalised influences are
    NaN (0 / 0); pygbm gives 0 with a warning.

    Examples
    --------
    >>> s = pygbm.summary(fit, n_trees=100, plot_it=False)
    >>> s.to_frame().head(3)                            # doctest: +ELLIPSIS
             var    rel_inf
    lstat  lstat  ...
    >>> ax = s.plot()                                   # R's bar chart
    """
    fit_arg(fit)
    for value, arg in ((plot_it, "plot_it"), (order, "order"), (normalize, "normalize")):
        bool_arg(value, arg)
    if ax is not None:              # checked even when plot_it=False leaves it unused
        from ..plotting.axes import check_axes

        check_axes(ax)
    n_trees = check_n_trees(fit, n_trees, cap=True)
    choice_arg("method", method, METHODS)
    as_generator(random_state)                 # checked even when the method draws nothing
    p = len(fit.var_names)
    if c_bars is None:
        c_bars = p
    if isinstance(c_bars, (bool, np.bool_)) or not isinstance(c_bars, (int, np.integer)) \
            or c_bars < 0:
        raise ValueError(f"c_bars must be a non-negative integer or None, got {c_bars!r}")
    c_bars = min(10, p) if c_bars == 0 else min(int(c_bars), p)
    idx, rel_inf = influence_table(fit, n_trees, method, order, normalize, random_state)
    names = np.asarray(fit.var_names, dtype=object)
    costs = cost_report(fit, n_trees)         # the first n_trees, as predict_cost
    extra = dict(cost_missing=report_missing(fit, n_trees)) if costs is None else dict(
        cost_share=costs.share[idx], split_share=costs.split_share, mean_cost=costs.total)
    result = InfluenceSummary(tuple(names[idx]), rel_inf, fit.distribution.display_name,
                              n_trees, method, normalize, c_bars, **extra)
    if plot_it:
        result.plot(ax=ax)
    return result


def influence_table(fit, n_trees, method, order, normalize, random_state):
    """:func:`summary`'s influences, without its checks, chart and cost table.

    Parameters
    ----------
    fit : GBMFit
        A fitted model.
    n_trees : int
        Trees used (checked by the caller).
    method : {"relative_influence", "permutation"}
        As :func:`summary`'s.
    order : bool
        Sort by decreasing influence, ties in variable order.
    normalize : bool
        Scale to sum to 100, negative influences set to 0 first.
    random_state : int, numpy.random.Generator or RRandom, optional
        The permutation method's seed.

    Returns
    -------
    idx : numpy.ndarray
        The predictors' indices in the table's order.
    rel_inf : numpy.ndarray
        Their influences, in that order.
    """
    if method == "relative_influence":
        rel_inf = relative_influence(fit, n_trees).to_numpy()
    else:
        rel_inf = permutation_influence(fit, n_trees, random_state).to_numpy()
    return ranked_influence(rel_inf, n_trees, order, normalize)


def ranked_influence(influence, n_trees, order, normalize):
    """The table of :func:`influence_table` from the predictors' influences
    ``influence`` under ``n_trees`` trees (not changed): negative ones set to
    0, sorted by decreasing influence if ``order``, scaled to sum to 100 if
    ``normalize``. Returns ``(idx, rel_inf)`` as :func:`influence_table`."""
    rel_inf = np.array(influence, dtype=float)
    rel_inf[rel_inf < 0] = 0.0
    idx = np.argsort(-rel_inf, kind="stable") if order else np.arange(rel_inf.shape[0])
    if normalize:
        total = rel_inf.sum()
        if total > 0:
            rel_inf = PERCENT * rel_inf / total
        else:
            # R divides 0 by 0 here and shows NaN for every predictor
            warn(f"no split in the first {n_trees} trees reduces the loss (every "
                 "predictor's influence is 0): the relative influences are 0, where "
                 "R's summary.gbm shows NaN")
    return idx, rel_inf[idx]
