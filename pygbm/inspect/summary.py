"""R's ``summary.gbm`` as a summary object: the relative influence of every
variable, shown as statsmodels' summary tables (text and HTML), as a table
(:meth:`InfluenceSummary.to_frame`) and as R's bar chart
(:meth:`InfluenceSummary.plot`). statsmodels and matplotlib are imported
when the summary is first shown or drawn.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..costs import cost_report
from ..messages import warn
from .influence import check_bool, check_n_trees, permutation_influence, relative_influence

#: summary(method=...) spellings
METHODS = ("relative_influence", "permutation")
#: R's summary.gbm scales the normalised influences to sum to this
PERCENT = 100.0
#: significant digits of the influences in the text and HTML tables
DIGITS = 4
#: narrowest influence column of the text table (statsmodels' numbers take 9)
MIN_WIDTH = 10


@dataclass(frozen=True, eq=False)
class InfluenceSummary:
    """The relative influence table of a fit (what R's ``summary.gbm`` returns).

    Prints as text, displays as HTML in a notebook (statsmodels' summary
    tables), :meth:`to_frame` gives R's data frame and :meth:`plot` R's bar chart.
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

    def cost_frame(self) -> pd.DataFrame:
        """Each variable's share of the mean prediction cost per training row
        (percent; a last row ``(splits)`` when splits cost), in the table's order."""
        if self.cost_share is None:
            raise ValueError("the model was fitted without costs")
        names, share = list(self.var), list(self.cost_share)
        if self.split_share > 0:
            names.append("(splits)")
            share.append(self.split_share)
        return pd.DataFrame({"cost_share": np.array(share, dtype=float)},
                            index=pd.Index(names))

    def to_frame(self) -> pd.DataFrame:
        """R's ``summary.gbm`` data frame: columns ``var`` and ``rel_inf``, indexed
        by variable name (R's row names), in the summary's order."""
        names = list(self.var)
        return pd.DataFrame({"var": names, "rel_inf": np.array(self.rel_inf, dtype=float)},
                            index=pd.Index(names))

    def plot(self, ax=None):
        """R's horizontal bar chart of the first ``c_bars`` variables, largest on
        top (into ``ax``; a new figure when None). Returns the matplotlib Axes."""
        from ..plotting.influence import plot_relative_influence

        return plot_relative_influence(self.to_frame().iloc[:self.c_bars], ax=ax)

    def tables(self):
        """The statsmodels ``Summary`` shown by ``str`` and in notebooks."""
        from statsmodels.iolib.summary import Summary, forg
        from statsmodels.iolib.table import SimpleTable

        scale = "percent of the total" if self.normalized else "sum of split improvements"
        info = [("Distribution:", self.distribution), ("Trees:", str(self.n_trees)),
                ("Method:", self.method.replace("_", " ")), ("Scale:", scale)]
        head = SimpleTable([[value] for _, value in info], stubs=[key for key, _ in info],
                           title="Relative influence")
        # the influence column widened to the header table's width (one rule length)
        width = len(head.as_text().splitlines()[1])
        stub = max((len(name) for name in self.var), default=0)
        body = SimpleTable([[forg(v, DIGITS)] for v in self.rel_inf], headers=["rel_inf"],
                           stubs=list(self.var),
                           txt_fmt={"colwidths": [stub, max(MIN_WIDTH, width - stub - 1)],
                                    "header_align": "r"})
        out = Summary()
        out.tables.extend([head, body])
        if self.cost_share is not None:
            frame = self.cost_frame()
            out.tables.append(SimpleTable(
                [[forg(v, DIGITS)] for v in frame["cost_share"]], headers=["cost %"],
                stubs=list(frame.index),
                title=f"Share of the mean prediction cost per row ({self.mean_cost:.{DIGITS}g})"))
        return out

    def as_text(self) -> str:
        return self.tables().as_text()

    def as_html(self) -> str:
        return self.tables().as_html()

    def __str__(self) -> str:
        return self.as_text()

    def _repr_html_(self) -> str:
        return self.as_html()


def summary(fit, c_bars=None, n_trees=None, plot_it=True, order=True,
            method="relative_influence", normalize=True, ax=None, random_state=None):
    """Relative influence of every variable, and R's bar chart (R's ``summary.gbm``).

    Parameters
    ----------
    fit : fitted gbm object
    c_bars : int, optional
        Number of bars drawn (R's ``cBars``; ``None``: all, 0: up to 10).
    n_trees : int, optional
        Trees used (default all; more than the fit has: warning and capped).
    plot_it : bool
        Draw R's horizontal bar chart (largest on top) into ``ax``.
    order : bool
        Sort the table by decreasing influence (ties keep variable order).
    method : {"relative_influence", "permutation"}
    normalize : bool
        Scale the influences to sum to 100 (negative ones are set to 0 first).
    ax : matplotlib Axes, optional
        Where to draw; a new figure when None.
    random_state : int, numpy Generator or pygbm.RRandom, optional
        Seed of the permutation method (an RRandom draws R's
        ``sample(1:nrow(x))`` of ``permutation.test.gbm``).

    Returns
    -------
    InfluenceSummary
        Prints as a table (HTML in a notebook); ``.to_frame()`` is R's data
        frame (columns ``var`` and ``rel_inf``, indexed by variable name) and
        ``.plot(ax=)`` draws the bar chart.
    """
    for value, arg in ((plot_it, "plot_it"), (order, "order"), (normalize, "normalize")):
        check_bool(value, arg)
    n_trees = check_n_trees(fit, n_trees, cap=True)
    if method == "relative_influence":
        rel_inf = relative_influence(fit, n_trees).to_numpy().copy()
    elif method == "permutation":
        rel_inf = permutation_influence(fit, n_trees, random_state).to_numpy().copy()
    else:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    p = len(fit.var_names)
    if c_bars is None:
        c_bars = p
    if isinstance(c_bars, (bool, np.bool_)) or not isinstance(c_bars, (int, np.integer)) \
            or c_bars < 0:
        raise ValueError(f"c_bars must be a non-negative integer or None, got {c_bars!r}")
    c_bars = min(10, p) if c_bars == 0 else min(int(c_bars), p)
    rel_inf[rel_inf < 0] = 0.0
    idx = np.argsort(-rel_inf, kind="stable") if order else np.arange(p)
    if normalize:
        total = rel_inf.sum()
        if total > 0:
            rel_inf = PERCENT * rel_inf / total
        else:
            # R divides 0 by 0 here and shows NaN for every predictor
            warn(f"no split in the first {n_trees} trees reduces the loss (every "
                 "predictor's influence is 0): the relative influences are 0, where "
                 "R's summary.gbm shows NaN")
    names = np.asarray(fit.var_names, dtype=object)
    costs = cost_report(fit)
    extra = {} if costs is None else dict(cost_share=costs.share[idx],
                                          split_share=costs.split_share,
                                          mean_cost=costs.total)
    result = InfluenceSummary(tuple(names[idx]), rel_inf[idx], fit.distribution.name,
                              n_trees, method, normalize, c_bars, **extra)
    if plot_it:
        result.plot(ax=ax)
    return result
