"""calibrate(): the argument checks and the calibration map of a fit on a
calibration sample (Langford's binned linear spline; the module
:mod:`pygbm.calibration` says what it computes)."""
from __future__ import annotations

import numpy as np

from .. import frontend
from .._checks import (bool_arg, choice_arg, finite_number, response_arg, same_rows_arg,
                       weights_arg)
from ..distributions.base import PROBABILITY_LINKS
from ..messages import warn
from ..model import TRAINING_ROWS_SHARE, GBMFit
from .model import CalibratedGBM, expected_response
from .points import DEFAULT_BINS, ENDS, bins_arg, control_points, knots


def _calibration_rows(fit, data, y, weights, n: int):
    """The response and case weights of the ``n`` rows of the calibration sample
    ``data``, read as new rows are (its response and a weights column, not checked as
    training data: a predictor may be all missing there, one row is a sample)."""

    if y is None:
        if fit.formula is None:
            raise ValueError("calibrate: give y= (the response of data) for a gbm_fit model")
        y = frontend.response_newdata(fit.formula, data, "data", fit.y_levels).y
    else:
        same_rows_arg("y", y, data, "data")
        y = frontend.response_values(y, fit.y_levels)
    y = response_arg(fit.distribution, y)
    if y.shape[0] != n:
        raise ValueError(f"y must be one response per row of data ({n}), got {y.shape[0]}")
    return y, weights_arg(frontend.weights_newdata(weights, data, "data"), n)


def _non_zeros_trained_on(fit, x, y) -> bool:
    """Whether the calibration rows (coded ``x``, response ``y``) of a zero-subsampled
    fit have non-zeros that are mostly its training rows: it kept every non-zero
    training row, so its original training data are new to it only in the zeros it
    dropped, too few of them kept to count as training rows."""
    if fit.zero_sample is None:
        return False
    non_zero = np.asarray(y) != 0
    return bool(non_zero.any()) and fit._training_share(x[non_zero]) > TRAINING_ROWS_SHARE


def _rate_arg(subsampled, fit) -> float | None:
    """The keep rate of the calibration sample's zeros (None: all kept): True is the
    fit's ``zero_subsample``, a number in (0, 1] the rate (1: all kept)."""
    if isinstance(subsampled, (bool, np.bool_)):
        if not subsampled:
            return None
        if fit.zero_sample is None:
            raise ValueError("calibrate(subsampled=True): the fit was not zero-subsampled; "
                             "give the calibration sample's keep rate instead")
        return fit.zero_sample.rate
    if subsampled is None:
        return None
    if not finite_number(subsampled) or not 0 < subsampled <= 1:
        raise ValueError(f"subsampled must be True, False or the keep rate of the calibration "
                         f"sample's zeros in (0, 1], got {subsampled!r}")
    return None if subsampled == 1 else float(subsampled)


def calibrate(fit: GBMFit, data, n_trees=None, bins: int = DEFAULT_BINS, ends: str = "flat",
              subsampled=False, monotone: bool = False, y=None, weights=None,
              offset=None) -> CalibratedGBM:
    """Calibrate ``fit`` on the sample ``data`` (Langford's binned linear spline).

    Parameters
    ----------
    fit : GBMFit
        A fitted model (not multinomial, pairwise or coxph).
    data : pandas.DataFrame
        The calibration sample (the formula's columns, or the predictors of a
        gbm_fit model with ``y=``), read as ``predict`` reads new rows: any
        number of rows from 1, predictors as they come (all missing, constant).
    n_trees : int, optional
        Trees used (None: the fit's best iteration, as ``predict``).
    bins : int, default 20
        Equal-count groups of the calibration rows.
    ends : {"flat", "langford"}, default "flat"
        No end points, or the post's end points (see the module).
    subsampled : bool or float, default False
        True if ``data``'s zeros were kept at the fit's ``zero_subsample``
        rate, or that rate (a number in (0, 1]): zeros count 1/l in both
        means.
    monotone : bool, default False
        Pool adjacent violators among the control points.
    y : array_like, optional
        The response of ``data`` (default: from the formula).
    weights : str or array_like, optional
        Case weights (a column name of ``data`` or an array; default: none).
    offset : array_like, optional
        Link-scale offsets of ``data`` (default: the formula's ``offset()`` terms;
        required for a model fitted with an ``offset`` argument).

    Returns
    -------
    CalibratedGBM
        ``predict(newdata)`` gives calibrated predictions, ``plot()`` the
        reliability diagram, ``control_points`` the table.

    Notes
    -----
    Not in R. Calibrate on rows the fit did not train on (a held-out
    sample): on the training rows the fit's predictions look better
    calibrated than they are (``calibrate`` warns when most rows of ``data``
    are training rows). See the design note on zero-response
    subsampling (docs/zero_subsampling.md) for the measured effect of the
    ends and of ``subsampled``.

    Examples
    --------
    >>> pima = pd.read_csv("data/pima2.csv")
    >>> bfit = pygbm.gbm("diabetes ~ .", data=pima.iloc[:500], distribution="bernoulli",
    ...                  n_trees=100, shrinkage=0.05, interaction_depth=2, random_state=1)
    >>> cal = pygbm.calibrate(bfit, pima.iloc[500:], n_trees=100, bins=5)
    >>> p = cal.predict(pima.iloc[500:])
    >>> bool(((p >= 0) & (p <= 1)).all())
    True
    """
    if not isinstance(fit, GBMFit):
        raise TypeError(f"fit must be a GBMFit, got {type(fit).__name__}")
    dist = fit.distribution
    if not dist.row_response:
        raise ValueError(f"calibrate: distribution {dist.name!r} has no expected response "
                         "to calibrate")
    bins = bins_arg(bins)
    monotone = bool_arg(monotone, "monotone")
    choice_arg("ends", ends, ENDS)
    rate = _rate_arg(subsampled, fit)
    if n_trees is None:
        n_trees = fit.best_iteration(quiet=True)[0]
    else:           # R's cap (with its warning) above the trees fitted, as predict
        counts = fit._check_n_trees(n_trees)
        if counts.size != 1:
            raise ValueError(f"n_trees must be one whole number, got {n_trees!r}")
        n_trees = int(counts[0])
    if data is None:
        raise ValueError("data is required: the calibration sample (rows the fit did not "
                         "train on)")
    x = fit._design(data, "data")                  # coded once: predictions and the check
    if x.shape[0] < 1:
        raise ValueError("data must have at least 1 row, got 0")
    y, w = _calibration_rows(fit, data, y, weights, x.shape[0])
    phi = expected_response(fit, data, n_trees, offset, x, "data")
    if fit._training_share(x) > TRAINING_ROWS_SHARE:
        warn("calibrate(): data are the fit's training rows, on which its predictions look "
             "better calibrated than on new rows; calibrate on held-out rows")
    elif _non_zeros_trained_on(fit, x, y):
        warn("calibrate(): the rows of data with a non-zero response are the fit's training "
             "rows (zero_subsample kept every non-zero training row: only the zeros it "
             "dropped are new to the fit), on which its predictions look better calibrated "
             "than on new rows; calibrate on held-out rows")
    if rate is not None:
        w = np.where(y == 0, w / rate, w)
    cx, cy, cw, rows = control_points(phi, y, w, bins, monotone)
    _warn_certain_points(cy, dist.response_link)
    kx, ky = knots(cx, cy, cw, phi, y, ends, dist.response_link in PROBABILITY_LINKS)
    return CalibratedGBM(fit=fit, n_trees=int(n_trees), phi=cx, response=cy, weight=cw,
                         rows=rows, knots_x=kx, knots_y=ky, ends=ends, rate=rate)


def _warn_certain_points(cy: np.ndarray, link: str) -> None:
    """Warn when control points say "certain": a mean response of exactly 0
    (or 1, for a probability) makes the calibrated expected response 0 (or 1)
    around that point, and the deviance of a row that disagrees infinite."""
    if link in PROBABILITY_LINKS:
        certain = (cy <= 0) | (cy >= 1)
    elif link == "exp":
        certain = cy <= 0
    else:
        return
    if np.any(certain):
        edge = "0 or 1" if link in PROBABILITY_LINKS else "0"
        n_certain = int(certain.sum())
        warn(f"calibrate: {n_certain} of the {cy.size} control points "
             f"{'has' if n_certain == 1 else 'have'} a mean "
             f"response of exactly {edge} (no row of the other kind in their bin): the "
             f"calibrated expected response is {edge} there, and the deviance of a row that "
             "disagrees is infinite; use fewer bins or a larger calibration sample")
