"""matplotlib views of a fit. matplotlib is imported inside the functions only,
so importing this package does not import matplotlib."""
from .calibration import plot_reliability
from .influence import plot_relative_influence
from .pdp import plot_ice, plot_partial_dependence
from .perf import plot_calibration, plot_perf
from .qwyc import plot_qwyc_tradeoff

__all__ = ["plot_relative_influence", "plot_partial_dependence", "plot_ice",
           "plot_perf", "plot_calibration", "plot_qwyc_tradeoff", "plot_reliability"]
