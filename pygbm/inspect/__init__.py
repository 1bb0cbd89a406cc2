"""Interpreting a fit: relative influence, partial dependence, interactions,
tree tables, and the performance tools (gbm_perf, ROC area, calibration,
baseline hazard)."""
from .influence import permutation_influence, relative_influence, summary
from .interaction import interact_gbm
from .partial_dependence import partial_dependence, plot_gbm
from .pretty import pretty_gbm_tree
try:  # TEMPORARY while perf.py / metrics.py are being written
    from .perf import basehaz_gbm, gbm_perf
    from .metrics import calibrate_plot, gbm_roc_area
except ImportError:
    pass

__all__ = [
    "relative_influence", "permutation_influence", "summary", "plot_gbm",
    "partial_dependence", "interact_gbm", "pretty_gbm_tree",
    "gbm_perf", "gbm_roc_area", "calibrate_plot", "basehaz_gbm",
]
