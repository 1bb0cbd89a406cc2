"""The options of ``categorical=`` and the distributions target statistics refuse."""
from __future__ import annotations

import numpy as np

from .._checks import finite_number, terms_reading

NATIVE = "native"
ORDERED, GREEDY, HOLDOUT, LOO = "ordered_ts", "greedy_ts", "holdout_ts", "loo_ts"
MODES = (NATIVE, ORDERED, GREEDY, HOLDOUT, LOO)
#: statistics that use the row's own target (documented as leaking)
#: largest feature combination (the paper uses 2 or 3)
MAX_COMBINATION = 3
#: why a distribution without a response of its own per row is refused, by the
#: capability flag that says so
_REFUSED = {
    "survival_response": "a Cox model has no per-row target to average without a fitted "
                         "model (the survival times are censored)",
    "bag_by_group": "a ranking response is only meaningful within its group",
    "multi_output": "a multi-class response would need one statistic per class",
}


def check_number(name, value, positive=False):
    if not finite_number(value):
        raise TypeError(f"{name} must be a finite number, got {value!r}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    return float(value)


def resolve_modes(categorical, var_names, var_type) -> list[str]:
    """The mode of every predictor ("native" for numeric/ordered ones)."""
    var_type = np.asarray(var_type)
    p = len(var_names)
    if isinstance(categorical, str):
        if categorical not in MODES:
            raise ValueError(f"categorical must be one of {MODES} or a dict "
                             f"{{column name: mode}}, got {categorical!r}")
        return [categorical if var_type[j] > 0 else NATIVE for j in range(p)]
    if not isinstance(categorical, dict):
        raise TypeError(f"categorical must be a string {MODES} or a dict {{column name: "
                        f"mode}}, got {type(categorical).__name__}")
    names = [str(v) for v in var_names]
    modes = [NATIVE] * p
    for name, mode in categorical.items():
        if str(name) not in names:
            using = terms_reading(name, names)
            hint = (f" ({name!r} enters the model through {', '.join(map(repr, using))}: "
                    "name the predictor as the formula does)") if using else ""
            raise ValueError(f"categorical names {name!r}, which is not a predictor; "
                             f"predictors are {names}{hint}")
        if not isinstance(mode, str) or mode not in MODES:
            raise ValueError(f"categorical[{name!r}] must be one of {MODES}, got {mode!r}")
        j = names.index(str(name))
        if var_type[j] <= 0 and mode != NATIVE:
            raise ValueError(f"categorical[{name!r}] = {mode!r}: {name!r} is not an unordered "
                             "categorical predictor (numeric and ordered predictors are used "
                             "as numbers)")
        modes[j] = mode
    return modes


def check_distribution(dist) -> None:
    """A ``ValueError`` when target statistics have no meaning for ``dist`` (checked
    with the arguments, before any fit or cv fold runs)."""
    if dist.row_response:
        return
    reason = next(why for flag, why in _REFUSED.items() if getattr(dist, flag))
    raise ValueError(f"categorical target statistics are not available for distribution "
                     f"{dist.name!r}: {reason}; use categorical='native'")


def target_of(dist, y) -> np.ndarray:
    """The per-row target the statistics average (the response; see the
    module docstring), or a ``ValueError`` for the refused distributions."""
    check_distribution(dist)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"categorical target statistics need a 1-d response, got shape "
                         f"{y.shape}")
    return y.astype(float)


def training_inputs(dist, targets, n_train: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`statistic_inputs` of the training rows (the first ``n_train`` of
    ``targets``), which are all the statistics read: with validation rows (or a cv
    fold's held-out rows) their case weights are normalised again to sum
    ``n_train``, as R normalises them over the rows of a fit, so that the other rows'
    weights and offsets move the statistics no more than their responses do (the
    prior weight counts rows of average weight and exposure among the training
    rows). Without other rows the weights are the fit's own."""
    w = np.asarray(targets.w, dtype=float)
    w_tr = w[:n_train]
    if n_train < w.shape[0]:
        total = float(np.sum(w_tr))
        if total > 0:
            w_tr = w_tr * (n_train / total)
    offset = None if targets.offset is None else np.asarray(targets.offset)[:n_train]
    return statistic_inputs(dist, np.asarray(targets.y)[:n_train], w_tr, offset)


def statistic_inputs(dist, y, w, offset=None) -> tuple[np.ndarray, np.ndarray]:
    """``(value, weight)`` per row: what the statistics average, and with what weight.

    Without an offset, the response (:func:`target_of`) and the case weight.
    With one, the statistic is taken on the scale the trees fit, net of the
    offset:

    * log link (poisson, where the offset is log exposure): the level's rate
      per unit of exposure, sum(w*y) / sum(w*exp(offset)): value
      ``y / exp(offset)``, weight ``w * exp(offset)`` over the weighted mean
      exposure, so that ``ts_prior_weight`` still counts rows (of average
      exposure). A level mean *count* would mostly measure how much exposure
      the level's rows have, which the offset already carries;
    * a 0/1 response (bernoulli, adaboost, huberized): an offset on the link
      has no per-row counterpart on the 0/1 scale; the response is averaged as
      without one (huberized's response scale is its link: it was read as an
      identity link and averaged ``y - offset`` before 2026-11-29);
    * the other identity links (gaussian, laplace, tdist, quantile): the level
      mean of ``y - offset``.
    """
    value = target_of(dist, y)
    w = np.asarray(w, dtype=float)
    if offset is None or dist.zero_one_response:
        return value, w
    offset = np.asarray(offset, dtype=float)
    if dist.response_link == "identity":
        return value - offset, w
    if dist.response_link != "exp":
        raise ValueError(f"target statistics: no rule for an offset with distribution "
                         f"{dist.name!r} (response {dist.response_link!r})")
    with np.errstate(over="ignore"):
        exposure = np.exp(offset)
    total = float(np.sum(w))
    mean_exposure = float(np.sum(w * exposure) / total) if total > 0 else float(np.mean(exposure))
    if not (np.all(np.isfinite(exposure)) and np.all(exposure > 0)
            and np.isfinite(mean_exposure) and mean_exposure > 0):
        raise ValueError("offset: exp(offset) (the exposure the target statistics divide "
                         "by) must be finite and > 0 on every row, got offsets from "
                         f"{offset.min():.6g} to {offset.max():.6g}")
    return value / exposure, w * (exposure / mean_exposure)
