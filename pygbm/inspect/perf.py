"""``gbm_perf``: R's ``gbm.perf``, the estimated best number of boosting iterations.

Rules (R gbm 2.1.8):

* ``"test"``: ``which.min(valid.error)`` -- needs ``train_fraction < 1``;
* ``"cv"``: ``which.min(cv.error)`` -- needs a fit with ``cv_folds > 1``;
* ``"OOB"``: R smooths ``oobag.improve`` against the iteration number with
  ``loess(oobag.improve ~ x, enp.target = min(max(4, n / 10), 50))`` and takes the
  iteration that maximises the cumulative sum of the smoothed improvements
  (``which.min(-cumsum(fitted))``) -- needs ``bag_fraction < 1``.  The loess is
  R's own algorithm (:mod:`pygbm.inspect.loess`), so the answer equals R's.

The fitted object is duck-typed: only ``train_error``, ``valid_error``,
``oobag_improve``, ``cv_error`` (None without cross-validation),
``train_fraction``, ``n_trees``, ``bag_fraction``, ``shrinkage`` and
``distribution.name`` (plus ``distribution.metric`` for "pairwise") are read.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._checks import bool_arg, fit_arg
from ..messages import GBMMessage, warn
from .loess import loess, span_from_enp

#: R's message (a ``message()`` in R, a ``UserWarning`` here) for method "OOB"
OOB_WARNING = ("OOB generally underestimates the optimal number of iterations although "
               "predictive performance is reasonably competitive. Using cv_folds>1 when "
               "calling gbm usually results in improved predictive performance.")
#: enp.target of R's OOB smoother: min(max(ENP_MIN, n / ENP_DIVISOR), ENP_MAX)
ENP_MIN, ENP_DIVISOR, ENP_MAX = 4.0, 10.0, 50.0
#: the fewest iterations (with finite improvements) the OOB smoother's loess can fit
OOB_MIN_POINTS = 3
METHODS = ("OOB", "test", "cv")

#: y-axis label by the first two letters of the distribution name (R's get_ylab)
_YLAB = {"ga": "Squared error loss", "be": "Bernoulli deviance", "po": "Poisson deviance",
         "ad": "AdaBoost exponential bound", "co": "Cox partial deviance",
         "la": "Absolute loss", "qu": "Quantile loss", "mu": "Multinomial deviance",
         "td": "t-distribution deviance"}
_PAIRWISE_YLAB = {"conc": "Fraction of concordant pairs",
                  "ndcg": "Normalized discounted cumulative gain",
                  "map": "Mean average precision", "mrr": "Mean reciprocal rank"}


@dataclass
class OOBSmoother:
    """R's ``attr(best.iter, "smoother")``: iterations ``x`` and smoothed OOB
    improvements ``y`` (loess fitted values), with the loess ``span`` used."""

    x: np.ndarray
    y: np.ndarray
    span: float


class BestIteration(int):
    """The best iteration (a plain ``int``, 1-based as in R) carrying R's extras.

    ``method`` is the rule used, ``smoother`` the :class:`OOBSmoother` (method
    "OOB" or ``oobag_curve=True``), ``axes`` the matplotlib axes drawn on (or None).
    """

    method: str
    smoother: OOBSmoother | None
    axes: list | None

    def __new__(cls, value: int, method: str, smoother=None, axes=None):
        obj = super().__new__(cls, int(value))
        obj.method, obj.smoother, obj.axes = method, smoother, axes
        return obj

    def __reduce__(self):
        return (BestIteration, (int(self), self.method, self.smoother, None))


def _series(value, name: str, required: bool = True):
    """``value`` (the fit's field ``name``) as a flat float array."""
    if value is None:
        if required:
            raise TypeError(f"fit.{name} is None; expected a numeric array")
        return None
    return np.asarray(value, dtype=float).ravel()


def _check_method(method) -> str:
    if not isinstance(method, str):
        raise TypeError(f"method must be None or one of {METHODS}; got {method!r}")
    for m in METHODS:
        if method.lower() == m.lower():
            return m
    raise ValueError(f'method must be one of "cv", "test", or "OOB"; got {method!r}')


def guess_error_method(fit) -> str:
    """R's default method: "test" when ``train_fraction < 1``, else "cv" when the fit
    has ``cv_error``, else "OOB" (the same order as ``predict.gbm``'s choice)."""
    if float(fit.train_fraction) < 1:
        return "test"
    if fit.cv_error is not None:
        return "cv"
    return "OOB"


def get_ylab(fit) -> str:
    """R's axis label for the loss of ``fit.distribution`` (R's ``get_ylab``)."""
    dist = fit.distribution
    if dist.name == "pairwise":
        return _PAIRWISE_YLAB.get(dist.metric, "Pairwise loss")
    return _YLAB.get(str(dist.name)[:2], "Loss")


def _first_argmin(values: np.ndarray, what: str) -> int:
    if not np.any(np.isfinite(values)):
        raise ValueError(f"{what} has no finite values; cannot choose an iteration")
    return int(np.nanargmin(np.where(np.isfinite(values), values, np.nan))) + 1


def best_iter_test(fit) -> int:
    """``which.min(valid_error)``; ValueError when the fit has no validation set."""
    if float(fit.train_fraction) >= 1:
        raise ValueError('method="test" needs a validation set, but the model was fit '
                         "with train_fraction=1 (valid_error is undefined); refit with "
                         "train_fraction < 1 or use method='cv' / 'OOB'")
    return _first_argmin(_series(fit.valid_error, "valid_error"), "valid_error")


def best_iter_cv(fit) -> int:
    """``which.min(cv_error)``; ValueError without cross-validation."""
    cv = _series(fit.cv_error, "cv_error", required=False)
    if cv is None:
        raise ValueError('method="cv" needs cross-validation errors, but fit.cv_error is '
                         "missing: call gbm with cv_folds > 1")
    return _first_argmin(cv, "cv_error")


def oob_smoother(fit) -> OOBSmoother:
    """R's ``generate_smoother_oobag``: loess of ``oobag_improve`` on ``1..n_trees``
    with ``enp.target = min(max(4, n / 10), 50)`` (degree 2, R's interpolation).

    Non-finite improvements are left out of the fit, the smoother keeping the true
    iteration numbers (R's ``na.omit`` would drop them and shift the iterations).
    """
    if float(fit.bag_fraction) >= 1:
        raise ValueError('method="OOB" needs out-of-bag estimates, but the model was fit '
                         "with bag_fraction=1: cannot compute the OOB estimate or the OOB "
                         "curve; refit with bag_fraction < 1 or use method='test' / 'cv'")
    improve = _series(fit.oobag_improve, "oobag_improve")
    n_trees = int(fit.n_trees)
    if len(improve) != n_trees:
        raise ValueError(f"fit.oobag_improve has {len(improve)} values but fit.n_trees is "
                         f"{n_trees}")
    finite = np.isfinite(improve)
    _warn_infinite_improvements(improve)
    if not finite.any():
        raise ValueError("Cannot compute OOB estimate or the OOB curve. No finite OOB "
                         "estimates of improvement.")
    if finite.sum() < OOB_MIN_POINTS:
        # loess would say "span is too small" (R too, for one tree), of a span not given
        raise ValueError(f'method="OOB" smooths fit.oobag_improve with loess, which needs '
                         f"at least {OOB_MIN_POINTS} iterations with a finite improvement; "
                         f"the fit has {int(finite.sum())} of {n_trees}: add trees "
                         "(gbm_more) or use method='test' / 'cv'")
    x = np.arange(1, n_trees + 1, dtype=float)
    enp = min(max(ENP_MIN, n_trees / ENP_DIVISOR), ENP_MAX)
    span = span_from_enp(enp, degree=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # R also fits tiny n by pseudo-inverse
        fit_lo = loess(x[finite], improve[finite], span=span)
    return OOBSmoother(x=x[finite].astype(int), y=fit_lo.fitted, span=span)


#: iterations named in the warning of infinite out-of-bag improvements
ITERATIONS_SHOWN = 5


def _warn_infinite_improvements(improve: np.ndarray) -> None:
    """Say that infinite out-of-bag improvements are left out of the smoother (R's
    huberized estimate divides by 0 where no out-of-bag row is outside the quadratic
    part, and R's loess then stops with "NA/NaN/Inf in foreign function call"); NaN
    ones are left out silently, as R's ``na.omit``."""
    infinite = np.isinf(improve)
    if infinite.any():
        warn(f"fit.oobag_improve has {int(infinite.sum())} infinite value(s) (at "
             f"iteration(s) {_first_iterations(np.flatnonzero(infinite) + 1)}); the OOB "
             "smoother leaves them out (R's loess stops with an error)")


def _first_iterations(iterations: np.ndarray) -> str:
    """The first iteration numbers (up to ITERATIONS_SHOWN), then "..." when there
    are more."""
    head = ", ".join(str(int(i)) for i in iterations[:ITERATIONS_SHOWN])
    return head + (", ..." if iterations.size > ITERATIONS_SHOWN else "")


def best_iter_oob(fit) -> tuple[int, OOBSmoother]:
    """R's OOB rule: the iteration maximising the cumulative smoothed OOB improvement."""
    smoother = oob_smoother(fit)
    warn(OOB_WARNING, GBMMessage)                  # a message() in R
    best = smoother.x[int(np.argmin(-np.cumsum(smoother.y)))]
    return int(best), smoother


def gbm_perf(fit, method: str | None = None, plot_it: bool = True, oobag_curve: bool = False,
             overlay: bool = True, ax=None) -> BestIteration:
    """Estimate the best number of boosting iterations (R's ``gbm.perf``).

    Parameters
    ----------
    fit : GBMFit
        A fitted model (R: ``object``).
    method : {"cv", "test", "OOB"}, optional
        The rule (R: ``method``; case-insensitive): "cv" the minimum of the
        cross-validation error (needs ``cv_folds > 1``), "test" the minimum
        of the validation error (needs ``train_fraction < 1``), "OOB" the
        out-of-bag estimate (needs ``bag_fraction < 1``). Default None (R's
        missing ``method``): "test" if ``train_fraction < 1``, else "cv" if
        the fit has ``cv_error``, else "OOB".
    plot_it : bool, default True
        Draw the training error (black), the validation error (red, when
        ``train_fraction < 1``) and the cv error (green, method "cv")
        against the iteration, with a blue dashed line at the chosen
        iteration (R: ``plot.it``).
    oobag_curve : bool, default False
        Also draw the out-of-bag curves (R: ``oobag.curve``): a second panel
        with the OOB improvements and their loess smooth (red).
    overlay : bool, default True
        With ``oobag_curve``: add the cumulative smoothed OOB improvement on
        a right-hand axis of the main plot (R: ``overlay``).
    ax : matplotlib.axes.Axes or pair of Axes, optional
        Where to draw: the main plot's axes, or (main, OOB panel) with
        ``oobag_curve`` (a list, tuple or the array of ``plt.subplots(1, 2)``);
        None makes a new figure; checked with ``plot_it=False`` too. Not in R.

    Returns
    -------
    BestIteration
        An ``int``, the best number of trees (1-based, as R), with the
        attributes ``method`` (the rule used), ``smoother`` (the OOB loess
        fit: ``x``, ``y``, ``span``; R's ``attr(, "smoother")``) and ``axes``
        (a list of the Axes drawn on: one, or three with ``oobag_curve=True``;
        None without a plot).

    Notes
    -----
    The OOB rule smooths ``oobag_improve`` with R's own loess
    (``enp.target = min(max(4, n / 10), 50)``) and takes the iteration that
    maximises the cumulative smoothed improvement, so its answer is R's. R's
    caveat that OOB underestimates the best number of iterations is a
    :class:`pygbm.GBMMessage` (a ``message()`` in R). R stops when
    ``oobag.curve = TRUE`` with another method; pygbm computes the smoother
    anyway. Non-finite improvements are left out of the smooth, which keeps
    the other iterations' numbers; R's loess stops on them ("NA/NaN/Inf in
    foreign function call", e.g. huberized fits, whose improvement is
    infinite when no out-of-bag row lies outside the quadratic part).

    Examples
    --------
    >>> best = pygbm.gbm_perf(fit, method="cv", plot_it=False)
    >>> 1 <= best <= fit.n_trees, best.method
    (True, 'cv')
    >>> ax = pygbm.gbm_perf(fit, method="cv").axes[0]    # R's plot
    """
    fit_arg(fit)
    for value, name in ((plot_it, "plot_it"), (oobag_curve, "oobag_curve"), (overlay, "overlay")):
        bool_arg(value, name)
    if ax is not None:              # checked even when plot_it=False leaves it unused
        from ..plotting.perf import perf_axes

        perf_axes(ax, 2 if oobag_curve else 1)
    if method is None:
        method = guess_error_method(fit)
    method = _check_method(method)
    smoother = None
    if method == "OOB":
        best, smoother = best_iter_oob(fit)
    elif method == "test":
        best = best_iter_test(fit)
    else:
        best = best_iter_cv(fit)
    axes = None
    if plot_it:
        if oobag_curve and smoother is None:
            smoother = oob_smoother(fit)
        from ..plotting.perf import plot_perf

        axes = plot_perf(fit, best, method, smoother=smoother, oobag_curve=oobag_curve,
                         overlay=overlay, ax=ax, ylab=get_ylab(fit))
    return BestIteration(best, method, smoother, axes)
