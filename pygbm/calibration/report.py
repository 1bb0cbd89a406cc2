"""calibration_report(): calibration-in-the-large, the expected calibration
error on equal-count bins, the Brier score and the deviance of expected
responses against responses."""
from __future__ import annotations

import numpy as np

from .._checks import choice_arg, finite_arg, same_rows_arg, vector_arg, weights_arg
from ..messages import warn
from .points import DEFAULT_BINS, bins_arg, equal_count_bins

#: predictions are clipped this far inside (0, 1) for the bernoulli deviance
PROB_EPS = 1e-15


def _deviance(y, p, w, distribution):
    if distribution == "bernoulli":
        q = np.clip(p, PROB_EPS, 1 - PROB_EPS)
        d = -2 * (y * np.log(q) + (1 - y) * np.log1p(-q))
    elif distribution == "poisson":
        q = np.maximum(p, PROB_EPS)
        ylogy = np.where(y > 0, y * np.log(np.where(y > 0, y, 1) / q), 0.0)
        d = 2 * (ylogy - (y - q))
    else:
        d = (y - p) ** 2
    return float(np.sum(w * d) / np.sum(w))


def _check_scale(y, p, family: str, guessed: bool) -> None:
    """``y`` and ``p`` on the scale of ``family``: probabilities in [0, 1] for
    bernoulli, counts and means >= 0 for poisson."""
    if family == "gaussian":
        return
    low, high, what = (0.0, 1.0, "in [0, 1]") if family == "bernoulli" else (0.0, np.inf, ">= 0")
    how = " (guessed from y)" if guessed else ""
    for name, v in (("p", p), ("y", y)):
        if np.any((v < low) | (v > high)):
            hint = "; for expected counts pass distribution='poisson'" \
                if guessed and name == "p" and family == "bernoulli" else ""
            raise ValueError(f"{name} must be {what} with distribution {family!r}{how}, got "
                             f"values from {v.min():g} to {v.max():g}{hint}")


def _in_the_large(y, p, w) -> float:
    """sum(w p) / sum(w y); NaN, with a warning, where sum(w y) is 0 (every y 0: the
    ratio is undefined, not 1 nor infinite)."""
    total_y = np.sum(w * y)
    if total_y:
        return float(np.sum(w * p) / total_y)
    rows = "every y is 0" if not np.any(y) else "the weighted sum of y is 0"
    warn(f"calibration_report: in_the_large (sum of w p / sum of w y) is undefined where "
         f"{rows}, so it is NaN: the weighted mean of p is {np.sum(w * p) / np.sum(w):.4g}, "
         f"of y {np.sum(w * y) / np.sum(w):.4g} (equal means are calibrated in the large)")
    return float("nan")


def _guess_family(y):
    if np.all((y == 0) | (y == 1)):
        return "bernoulli"
    if np.all(y >= 0) and np.all(y == np.round(y)):
        return "poisson"
    return "gaussian"


def calibration_report(y, p, bins: int = DEFAULT_BINS, weights=None, distribution=None) -> dict:
    """How well the expected responses ``p`` match the responses ``y``.

    Parameters
    ----------
    y : array_like
        Responses.
    p : array_like
        Expected responses (probabilities, expected counts, means).
    bins : int, default 20
        Equal-count bins of ``p`` for the expected calibration error.
    weights : array_like, optional
        Case weights.
    distribution : {"bernoulli", "poisson", "gaussian"}, optional
        The deviance's family (None: guessed from ``y``).

    Returns
    -------
    dict
        ``in_the_large`` (sum of w p / sum of w y: 1 is calibrated in the
        large; undefined where sum of w y is 0, e.g. every y 0: NaN, with a
        warning that gives the weighted means of p and y), ``ece``
        (expected calibration error: the weighted mean over ``bins``
        equal-count bins of ``|mean p - mean y|``; tied values of ``p`` share a
        bin, see :func:`.points.equal_count_bins`), ``brier``
        (weighted mean of (y - p)^2), ``deviance`` (per row, weighted;
        bernoulli, poisson -- with the saturated term, so 0 is a perfect fit
        -- or squared error; the ``distribution`` is guessed from ``y`` when
        None) and ``n``.

    Notes
    -----
    Not in R. The expected calibration error depends on ``bins``; compare
    models at the same number of bins.

    Examples
    --------
    >>> r = pygbm.calibration_report([0, 1, 1, 0], [0.2, 0.7, 0.6, 0.4], bins=2)
    >>> round(r["in_the_large"], 2), round(r["brier"], 4), r["n"]
    (0.95, 0.1125, 4)
    """
    same_rows_arg("y", y, p, "p")
    same_rows_arg("weights", weights, p, "p")
    y, p = vector_arg("y", y), vector_arg("p", p)
    if y.shape != p.shape or y.size == 0:
        raise ValueError(f"y and p must be non-empty and of the same length; got {y.shape} "
                         f"and {p.shape}")
    finite_arg("y", y)
    finite_arg("p", p)
    bins = bins_arg(bins)
    w = weights_arg(weights, y.shape[0])
    family = _guess_family(y) if distribution is None else \
        choice_arg("distribution", distribution, ("bernoulli", "poisson", "gaussian"))
    _check_scale(y, p, family, guessed=distribution is None)
    ece = sum(abs(np.sum(w[g] * (p[g] - y[g]))) for g in equal_count_bins(p, bins)) / np.sum(w)
    return {"in_the_large": _in_the_large(y, p, w),
            "ece": float(ece), "brier": float(np.sum(w * (y - p) ** 2) / np.sum(w)),
            "deviance": _deviance(y, p, w, family), "n": int(y.size)}
