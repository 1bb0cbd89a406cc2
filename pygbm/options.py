"""FitOptions: the arguments of gbm()/gbm_fit()/gbm_more(), checked once.

What a fit was asked for is its own object: gbm() checks the arguments once
and every fit it runs (the cv folds and the main fit) takes the same
options; a fitted model keeps them, and gbm_more() continues with a copy
that changes the number of trees. The data a fit runs on are apart
(:class:`pygbm.fitting.CodedData`): they change from fold to fold.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ._checks import (R_INT_MAX, bool_arg, engine_arg, int_arg, monotone_arg, shrinkage_arg,
                      fraction_arg)
from .distributions import Distribution, get_distribution
from .engine.binned import MAX_BUCKETS
from .ordered.spec import DEFAULT_MAX_BINS, OrderedSpec, ordered_spec
from .target_stats.modes import check_distribution
from .target_stats.spec import TargetStatisticsSpec, ts_spec
from .messages import warn
from .progress import check_progress
from .zero_sampling import zero_subsample_arg, zero_weight_arg
from .engine.cegb import CostSpec

#: R's checkID: interaction.depth must be below 50
MAX_INTERACTION_DEPTH = 49
#: binned mode: at least 2 bins per predictor; at most what uint16 codes hold
MIN_BINS, MAX_BINS = 2, MAX_BUCKETS


@dataclass(frozen=True, eq=False)
class FitOptions:
    """The checked arguments of a fit (R's names in snake_case)."""

    #: the loss as asked (stateless: what a fit learns is its FitContext)
    distribution: Distribution
    n_trees: int
    interaction_depth: int
    n_minobsinnode: int
    shrinkage: float
    bag_fraction: float
    #: -1, 0 or 1 per predictor
    var_monotone: np.ndarray
    #: None: R's exact search; else the binned mode with at most this many bins
    max_bins: int | None = None
    #: "native" (R's categoricals) or a target-statistics mode (see pygbm.target_stats)
    categorical: str | dict = "native"
    #: the target statistics' checked options (pygbm.target_stats.spec); None: "native"
    target_stats: TargetStatisticsSpec | None = None
    keep_data: bool = True
    #: without kept data, record a digest of the rows (GBMFit.rows_digest), by which
    #: gbm_more(data=) knows them again; cv's folds, never continued, skip it
    digest_rows: bool = True
    #: "numba" (compiled) or "numpy" (the reference): the same numbers
    engine: str = "numpy"
    #: cost-efficient boosting's costs (pygbm.costs.cost_spec); None: no costs
    costs: CostSpec | None = None
    #: ordered boosting's parameters (None: plain boosting, R's)
    ordered: OrderedSpec | None = None
    verbose: bool = False
    #: a progress bar: None = where someone watches, True, False (pygbm.progress)
    progress: bool | None = None
    #: zero-response subsampling's keep rate (None: off) and weighting mode
    #: (pygbm.zero_sampling)
    zero_subsample: float | None = None
    zero_weight: str = "importance"
    #: the formula and R's call string of gbm() (None for gbm_fit)
    formula: str | None = None
    call: str | None = None

    def replace(self, **changes) -> FitOptions:
        """A copy with ``changes`` (e.g. the cv folds' ``keep_data=False``)."""
        return dataclasses.replace(self, **changes)


def _ordered(given: dict) -> bool:
    return given.get("boosting_type") == "ordered"


def _target_statistics(given: dict) -> bool:
    return given.get("categorical", "native") != "native"


_TS = "target statistics (categorical='ordered_ts', ...)"
#: arguments that act only together with others: name -> (whether the others given
#: put it in effect, what it needs); ``given`` holds the arguments given other than
#: their defaults
_NEEDS = {
    "fold_len_multiplier": (_ordered, "boosting_type='ordered'"),
    "min_fold_size": (_ordered, "boosting_type='ordered'"),
    "full_history": (_ordered, "boosting_type='ordered'"),
    "n_permutations": (lambda g: _ordered(g) or _target_statistics(g),
                       f"boosting_type='ordered' or {_TS}"),
    "ts_permutations": (lambda g: _ordered(g) or _target_statistics(g),
                        f"boosting_type='ordered' or {_TS}"),
    "ts_prior": (_target_statistics, _TS),
    "ts_prior_weight": (_target_statistics, _TS),
    "ts_max_combination": (_target_statistics, _TS),
    "zero_weight": (lambda g: g.get("zero_subsample") not in (None, 1),     # 1: keeps all
                    "zero_subsample below 1"),
    "cegb_tradeoff": (lambda g: bool({"feature_costs", "feature_costs_model", "cost_split"}
                                     & set(g)),
                      "feature_costs, feature_costs_model or cost_split"),
}


def warn_unused(given: dict) -> None:
    """Warn of arguments given that have no effect without others (``given``: the
    arguments of gbm()/gbm_fit() given other than their defaults), e.g.
    ``fold_len_multiplier`` with plain boosting: silently ignored they would look used."""
    unused = [f"{name}={given[name]!r} has no effect without {needs}"
              for name, (in_effect, needs) in _NEEDS.items()
              if name in given and not in_effect(given)]
    if unused:
        warn("; ".join(unused))


def fit_options(distribution, *, n_trees, interaction_depth, n_minobsinnode, shrinkage,
                bag_fraction, var_monotone, var_names, var_type, max_bins=None,
                categorical="native", ts_options=None, keep_data=True, verbose=False, engine=None,
                progress=None, formula=None, call=None, zero_subsample=None,
                zero_weight="importance", costs=None, boosting=None) -> FitOptions:
    """Check the arguments of gbm()/gbm_fit() (in R's order) into FitOptions.

    ``var_names``/``var_type`` (the coded predictors) are what ``var_monotone``
    and ``categorical`` are checked against; ``ts_options``: the keyword arguments
    of :func:`pygbm.target_stats.spec.ts_spec` (n_permutations, prior, ...);
    ``costs`` are checked already (pygbm.costs.cost_spec).
    ``boosting``: the keyword arguments of :func:`pygbm.ordered.ordered_spec`
    (None: plain boosting); ordered boosting runs on the histogram search
    (``max_bins`` 255 unless given).
    """
    dist = get_distribution(distribution)
    n_trees = int_arg("n_trees", n_trees, 1, R_INT_MAX)
    depth = int_arg("interaction_depth", interaction_depth, 1, MAX_INTERACTION_DEPTH)
    min_obs = int_arg("n_minobsinnode", n_minobsinnode, 1)
    shrinkage = shrinkage_arg(shrinkage)
    bag_fraction = fraction_arg("bag_fraction", bag_fraction)
    mono = monotone_arg(var_monotone, list(var_names), var_type)
    ordered = None if boosting is None else ordered_spec(dist=dist, **boosting)
    if ordered is not None and max_bins is None:
        max_bins = DEFAULT_MAX_BINS
    if ordered is not None and costs is not None:
        raise ValueError("boosting_type='ordered' does not support feature costs (CEGB) yet")
    if max_bins is not None:
        max_bins = int_arg("max_bins", max_bins, MIN_BINS, MAX_BINS)
    target_stats = ts_spec(categorical, list(var_names), var_type, **(ts_options or {}))
    if target_stats is not None and not target_stats.coded:
        target_stats = None         # no predictor to code: the native fit, as asked
    if target_stats is not None:
        check_distribution(dist)    # before any fit or cv fold runs
    zero_subsample = zero_subsample_arg(zero_subsample)
    zero_weight = zero_weight_arg(zero_weight, dist, zero_subsample)
    return FitOptions(distribution=dist, n_trees=n_trees, interaction_depth=depth,
                      n_minobsinnode=min_obs, shrinkage=shrinkage, bag_fraction=bag_fraction,
                      var_monotone=mono, max_bins=max_bins, categorical=categorical,
                      target_stats=target_stats, keep_data=bool_arg(keep_data, "keep_data"),
                      verbose=bool_arg(verbose, "verbose"),
                      engine=engine_arg(engine), costs=costs, ordered=ordered,
                      progress=check_progress(progress), formula=formula, call=call,
                      zero_subsample=zero_subsample, zero_weight=zero_weight)
