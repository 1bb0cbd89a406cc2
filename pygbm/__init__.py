"""pygbm: R's gbm (generalized boosted regression models) in Python.

Same numbers as R gbm 2.1.8, faster, and beyond. Start with :func:`gbm`.
"""
import importlib

from .api import gbm, gbm_fit, gbm_more
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

__all__ = ["gbm", "gbm_fit", "gbm_more", "GBMFit", "GBMMessage", "calibrate",
           "calibration_report", "CalibratedGBM", "Surv", "available_distributions",
           "get_distribution", "ir_measure_auc", "ir_measure_conc", "ir_measure_map",
           "ir_measure_mrr", "ir_measure_ndcg", "perf_pairwise", "RRandom", "__version__", *_EARLY_EXIT]


def __getattr__(name):
    # imported on first use: Surv (the front end needs pandas) and the toolbox
    # (gbm_perf, relative_influence, plot_gbm, ...: it reaches for matplotlib
    # helpers); ``import pygbm`` stays fast (issue 21)
    if name == "Surv":
        return importlib.import_module(".frontend", __name__).Surv
    if name in _EARLY_EXIT:
        return getattr(importlib.import_module(".early_exit", __name__), name)
    inspect = importlib.import_module(".inspect", __name__)
    if name != "inspect" and hasattr(inspect, name):
        return getattr(inspect, name)
    raise AttributeError(f"module 'pygbm' has no attribute {name!r}")
