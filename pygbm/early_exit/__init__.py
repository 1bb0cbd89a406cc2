"""Early-exit prediction for binary gbms: Quit When You Can (QWYC).

``qwyc(fit, data)`` chooses an evaluation order of the trees and per-position
exit thresholds (Algorithms 1 and 2 of Wang, Gupta and You 2018) and returns an
:class:`EarlyExitPredictor`; ``qwyc_tradeoff`` gives the mean trees and the
disagreement on new rows against alpha, for QWYC and the baselines (training
order with optimised thresholds, LightGBM's fixed-order margin rule).

Modules: thresholds (Algorithm 2), ordering (Algorithm 1 and fixed orders),
evaluate (running a schedule on active rows), model_scores (the fit's trees
through the predictor seam and as the engine's flat forest), forest and
compiled (walks of the flat forest: NumPy's for a few rows, numba's kernels),
build/api (qwyc()), predictor, tradeoff.
"""
from .api import qwyc
from .predictor import EarlyExitPredictor, QWYCSummary
from .tradeoff import qwyc_tradeoff

__all__ = ["qwyc", "qwyc_tradeoff", "EarlyExitPredictor", "QWYCSummary"]
