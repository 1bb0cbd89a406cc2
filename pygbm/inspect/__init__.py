"""Interpreting a fit: relative influence, partial dependence, interactions,
tree tables, and the performance tools (gbm_perf, ROC area, calibration,
baseline hazard), and the cost-accuracy trade-off of cost-efficient boosting."""
from .calibration_plot import calibrate_plot
from .cost_tradeoff import cost_tradeoff, plot_cost_tradeoff
from .hazard import basehaz_gbm
from .influence import permutation_influence, relative_influence
from .interaction import interact_gbm
from .partial_dependence import partial_dependence, plot_gbm
from .perf import gbm_perf
from .pretty import pretty_gbm_tree
from .roc import gbm_roc_area
from .summary import InfluenceSummary, summary

__all__ = [
    "relative_influence", "permutation_influence", "summary", "plot_gbm",
    "partial_dependence", "interact_gbm", "pretty_gbm_tree",
    "gbm_perf", "gbm_roc_area", "calibrate_plot", "basehaz_gbm", "InfluenceSummary",
    "cost_tradeoff", "plot_cost_tradeoff",
]
