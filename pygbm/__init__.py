"""pygbm: R's gbm (generalized boosted regression models) in Python.

Same numbers as R gbm 2.1.8, faster, and beyond. Start with :func:`gbm`.
"""
from importlib import import_module as _import_module

from .api import gbm, gbm_fit
from .more import gbm_more
from .calibration import CalibratedGBM, calibrate, calibration_report
from .distributions import available_distributions, get_distribution
from .messages import GBMMessage
from .model import GBMFit
from .ranking import (ir_measure_auc, ir_measure_conc, ir_measure_map, ir_measure_mrr,
                      ir_measure_ndcg, perf_pairwise)
from .rrandom import RRandom

__version__ = "0.1.0"

#: early-exit prediction (QWYC), loaded on first use
_EARLY_EXIT = ("qwyc", "qwyc_tradeoff", "EarlyExitPredictor")
#: the toolbox (:mod:`pygbm.inspect`'s ``__all__``), loaded on first use: it reaches
#: for pandas and matplotlib helpers, which ``import pygbm`` does not load (issue 21)
_TOOLBOX = ("relative_influence", "permutation_influence", "summary", "plot_gbm",
            "partial_dependence", "interact_gbm", "pretty_gbm_tree", "gbm_perf",
            "gbm_roc_area", "calibrate_plot", "basehaz_gbm", "InfluenceSummary",
            "cost_tradeoff", "plot_cost_tradeoff")

__all__ = ["gbm", "gbm_fit", "gbm_more", "GBMFit", "GBMMessage", "calibrate",
           "calibration_report", "CalibratedGBM", "Surv", "available_distributions",
           "get_distribution", "ir_measure_auc", "ir_measure_conc", "ir_measure_map",
           "ir_measure_mrr", "ir_measure_ndcg", "perf_pairwise", "RRandom", "__version__",
           *_EARLY_EXIT, *_TOOLBOX]


def __getattr__(name):
    # imported on first use: Surv (the front end needs pandas) and the toolbox
    # (gbm_perf, relative_influence, plot_gbm, ...: it reaches for matplotlib
    # helpers); ``import pygbm`` stays fast (issue 21)
    if name == "Surv":
        return _import_module(".frontend", __name__).Surv
    if name in _EARLY_EXIT:
        return getattr(_import_module(".early_exit", __name__), name)
    inspect = _import_module(".inspect", __name__)
    if name != "inspect" and hasattr(inspect, name):
        return getattr(inspect, name)
    raise AttributeError(f"module 'pygbm' has no attribute {name!r}")


def __dir__():
    # what is loaded on first use too, so that a notebook's completion offers it
    return sorted(set(globals()) | set(__all__))
