"""R gbm's ``gbm.roc.area``: the Mann-Whitney AUC from average ranks (ties as
R's ``rank``). R's other small statistical helpers are ``calibrate.plot``
(:mod:`.calibration_plot`) and ``basehaz.gbm`` (:mod:`.hazard`).
"""
from __future__ import annotations

import numpy as np

from .._checks import same_rows_arg, vector_arg
from ..messages import listed


def gbm_roc_area(obs, pred) -> float:
    """Area under the ROC curve, as R's ``gbm.roc.area(obs, pred)``.

    Parameters
    ----------
    obs : array-like of {0, 1}
        The observed outcomes (R: ``obs``).
    pred : array-like of float
        The predictions, any monotone scale (R: ``pred``); same length.

    Returns
    -------
    float
        ``(mean(rank(pred)[obs > 0]) - (n1 + 1) / 2) / (n - n1)`` with
        ``n1 = sum(obs)`` and average ranks for ties; 1 when every
        observation is positive, NaN when none is.

    Notes
    -----
    R computes a number from any ``obs``; pygbm refuses ``obs`` other than
    0/1 (an AUC needs a binary response), and NaN or infinite values.

    Examples
    --------
    >>> pygbm.gbm_roc_area([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    same_rows_arg("pred", pred, obs, "obs")
    obs = vector_arg("obs", obs)
    pred = vector_arg("pred", pred)
    if obs.shape != pred.shape or len(obs) == 0:
        raise ValueError("obs and pred must be non-empty and of the same length; got "
                         f"{obs.shape} and {pred.shape}")
    if not (np.all(np.isfinite(obs)) and np.all(np.isfinite(pred))):
        raise ValueError("obs and pred must be finite (no NaN or inf)")
    if not np.all(np.isin(obs, (0.0, 1.0))):
        # R's gbm.roc.area computes a number from any obs; pygbm refuses (an AUC needs 0/1)
        raise ValueError(f"obs must be 0 or 1 (a binary response); got "
                         f"{np.unique(obs).size} distinct values: {listed(np.unique(obs))}")
    n1 = obs.sum()
    n = len(obs)
    if n == n1:
        return 1.0
    pos = obs > 0
    if not pos.any():
        return float("nan")
    from scipy.stats import rankdata      # SciPy on first use: gbm_perf needs none of it

    return float((rankdata(pred)[pos].mean() - (n1 + 1) / 2) / (n - n1))
