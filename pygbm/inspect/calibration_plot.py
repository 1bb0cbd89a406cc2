"""R gbm's ``calibrate.plot``: :func:`calibration_curve` and :func:`calibrate_plot`.

R fits ``glm(y ~ splines::ns(p, df = 6), family)`` (binomial for "bernoulli",
poisson for "poisson", gaussian otherwise) and draws the fitted mean +- 2
standard errors on 200 points between ``min(p)`` and ``max(p)``. The
natural-spline basis (knots at quantiles of ``p``) is R's; the GLM is
statsmodels' IRLS started and stopped as R's ``glm.fit`` (statsmodels imported
on first use), so the numbers match R's to rounding.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._checks import (R_INT_MAX, bool_arg, finite_arg, finite_number, numbers_arg,
                       same_rows_arg, vector_arg)
from ..distributions import available_distributions
from ..messages import warn

#: calibrate.plot evaluates the fitted curve at this many points
CALIBRATION_POINTS = 200
#: R's glm.control(): epsilon and maxit
GLM_EPSILON, GLM_MAXIT = 1e-8, 25


def _ns_basis(x, knots, boundary):
    """R's ``splines::ns(x, knots, Boundary.knots, intercept = FALSE)`` basis."""
    from scipy.interpolate import BSpline     # SciPy on first use

    t = np.sort(np.concatenate([np.repeat(boundary, 4), knots]))
    nb = len(t) - 4
    spl = BSpline(t, np.eye(nb), 3, extrapolate=True)
    basis = spl(np.asarray(x, float))[:, 1:]
    const = spl.derivative(2)(np.asarray(boundary, float))[:, 1:]
    q, _ = np.linalg.qr(const.T, mode="complete")
    return basis @ q[:, 2:]


#: distribution -> R's glm family in calibrate.plot (gaussian otherwise)
_FAMILIES = {"bernoulli": "binomial", "poisson": "poisson"}
#: R's start of the poisson IRLS: mustart = y + 0.1
POISSON_MUSTART = 0.1
#: glm.fit's tolerance of its QR (LINPACK's dqrdc2): min(1e-7, epsilon / 1000)
GLM_QR_TOL = min(1e-7, GLM_EPSILON / 1000)


def _independent_columns(X) -> list[int]:
    """The columns of ``X`` that R's ``glm.fit`` estimates: in order, each kept unless
    what remains of it beside the kept columns is below ``GLM_QR_TOL`` of its norm
    (LINPACK's dqrdc2 moves such a column to the end: an aliased, NA coefficient)."""
    kept, basis = [], np.empty((X.shape[0], 0))
    for j in range(X.shape[1]):
        column = X[:, j]
        rest = column - basis @ (basis.T @ column)
        rest = rest - basis @ (basis.T @ rest)        # twice: Gram-Schmidt's rounding
        norm = np.linalg.norm(rest)
        if norm > GLM_QR_TOL * np.linalg.norm(column):
            kept.append(j)
            basis = np.column_stack([basis, rest / norm])
    return kept


def _glm(X, y, family: str):
    """R's ``glm.fit(X, y, family)`` with statsmodels' GLM: IRLS from R's starting
    means (statsmodels' binomial start is R's; the gaussian identity fit does not
    depend on it), R's convergence test on the deviance (relative change below
    ``GLM_EPSILON``, ``GLM_MAXIT`` iterations) and R's QR least squares, so the
    coefficients and their covariance are R's to rounding."""
    from statsmodels.genmod import families
    from statsmodels.genmod.generalized_linear_model import GLM

    class RPoisson(families.Poisson):
        def starting_mu(self, y):
            return y + POISSON_MUSTART

    family = {"binomial": families.Binomial, "poisson": RPoisson}.get(family, families.Gaussian)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # R's glm.fit warns of non-convergence only
        # R stops when |dev - dev_old| < epsilon * (|dev| + 0.1)
        try:
            result = GLM(y, X, family=family()).fit(method="IRLS", maxiter=GLM_MAXIT,
                                                    tol=GLM_EPSILON * 0.1, rtol=GLM_EPSILON,
                                                    wls_method="qr")
        except ValueError as exc:      # the IRLS weights became infinite (R halves steps)
            raise ValueError(f"the calibration curve's spline fit diverged (statsmodels' IRLS: "
                             f"{exc}); R's glm.fit halves its steps there and draws, with a "
                             "warning: give a smaller df, or knots") from None
    if not result.converged:
        warn("glm.fit: algorithm did not converge")
    return result


def _observed_rows(y: np.ndarray) -> np.ndarray:
    """The rows of ``y`` calibrate_plot fits on: those not missing (NaN, dropped as
    R's ``na.omit`` drops them); an infinite ``y`` (R's glm: "NA/NaN/Inf in 'y'")
    or no value at all is an error naming ``y``."""
    if np.isinf(y).any():
        raise ValueError(f"y must be finite numbers or missing (NaN, left out), got "
                         f"{int(np.isinf(y).sum())} infinite value(s)")
    keep = ~np.isnan(y)
    if not keep.any():
        raise ValueError(f"y has only missing values ({y.size} NaN): there is nothing to "
                         "calibrate against")
    return keep


def calibration_curve(y, p, distribution: str = "bernoulli", knots=None, df: int | None = 6):
    """The numbers behind R's ``calibrate.plot`` as a DataFrame.

    Fits ``glm(y ~ ns(p, df = df, knots = knots), family)`` -- family binomial for
    "bernoulli", poisson for "poisson", gaussian otherwise; with ``knots=None`` the
    ``df - 1`` interior knots are the quantiles of ``p`` at ``(1..df-1)/df`` -- and
    predicts on 200 equally spaced points from ``min(p)`` to ``max(p)``.
    Columns: ``x``, ``fit`` (mean response), ``se_fit`` (its standard error),
    ``lower``/``upper`` (``fit -+ 2 se``, clipped to [0, 1] for bernoulli and at 0
    for poisson).  Rows with missing ``y`` are dropped (R's ``na.omit``).
    """
    same_rows_arg("y", y, p, "p")
    y = vector_arg("y", y)
    p = vector_arg("p", p)
    if y.shape != p.shape or len(y) == 0:
        raise ValueError(f"y and p must be non-empty and of the same length; got {y.shape} "
                         f"and {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError("p must be finite (no NaN or inf)")
    if not isinstance(distribution, str):
        raise TypeError(f"distribution must be a string; got {distribution!r}")
    if distribution not in available_distributions():
        # R's calibrate.plot takes any other name as gaussian; pygbm refuses a misspelling
        raise ValueError(f"distribution must be one of {', '.join(available_distributions())}; "
                         f"got {distribution!r}")
    if knots is None and df is None:
        raise ValueError("Either knots or df must be specified")
    if knots is None:       # a spline of df - 1 interior knots: at most one per value of p
        if not finite_number(df) or df != round(df) or not 1 <= df <= R_INT_MAX:
            raise ValueError(f"df must be a positive integer (at most R's largest integer, "
                             f"{R_INT_MAX}); got {df!r:.80}")
    else:
        knots = numbers_arg("knots", knots)
        finite_arg("knots", knots)
    family = _FAMILIES.get(distribution, "gaussian")
    keep = _observed_rows(y)
    yk, pk = y[keep], p[keep]
    if family == "binomial" and np.any((yk < 0) | (yk > 1)):
        raise ValueError("y must be in [0, 1] for distribution='bernoulli'")
    if family == "binomial" and np.any((pk < 0) | (pk > 1)):
        raise ValueError(f"p must be probabilities in [0, 1] for distribution='bernoulli' "
                         f"(predict(..., type='response')); got range [{pk.min():g}, "
                         f"{pk.max():g}]")
    if family == "poisson" and np.any(yk < 0):
        raise ValueError("y must be non-negative for distribution='poisson'")
    # R's glm(y ~ ns(p, df)) builds the spline's basis in the model frame, from every p,
    # before na.omit drops the rows where y is missing: its knots are those of all p
    if pk.min() == pk.max():           # no curve to fit (R draws a degenerate one)
        where = "" if keep.all() else f" on the {int(keep.sum())} row(s) where y is not missing"
        raise ValueError(f"p must take at least two distinct values{where}")
    boundary = np.array([p.min(), p.max()])
    quantile_knots = knots is None
    if quantile_knots:
        knots = np.quantile(p, np.arange(1, int(df)) / int(df))
    knots = np.sort(np.asarray(knots, dtype=float).ravel())
    if np.any((knots <= boundary[0]) | (knots >= boundary[1])):
        if quantile_knots:
            # R's ns() fails where a knot is the largest p; where it is the smallest, R
            # draws a rank-deficient curve (a basis of repeated knots, not built here)
            raise ValueError(f"p has too few distinct values for df={df}: the knots, "
                             f"quantiles of p at (1..{int(df) - 1})/{int(df)}, fall on the "
                             "ends of its range (R draws a rank-deficient curve where they "
                             "fall on its smallest value); give a smaller df or knots")
        raise ValueError("knots must lie strictly inside the range of p")
    X = np.column_stack([np.ones_like(pk), _ns_basis(pk, knots, boundary)])
    grid = np.linspace(p.min(), p.max(), CALIBRATION_POINTS)
    X0 = np.column_stack([np.ones_like(grid), _ns_basis(grid, knots, boundary)])
    kept = _independent_columns(X)
    if len(kept) < X.shape[1]:
        # fewer rows or distinct p than the spline's columns: R's glm gives the aliased
        # columns NA coefficients and predicts from the others, with this warning
        warn("prediction from a rank-deficient fit may be misleading")
        X, X0 = X[:, kept], X0[:, kept]
    # R's predict(type = "response", se.fit = TRUE): the delta method's se
    result = _glm(X, yk, family)
    with warnings.catch_warnings():       # a fit that did not converge has said so
        warnings.simplefilter("ignore", RuntimeWarning)
        prediction = result.get_prediction(X0)
        fit, se = prediction.predicted_mean, prediction.se_mean
    lower, upper = fit - 2 * se, fit + 2 * se
    if distribution == "bernoulli":
        lower, upper = np.maximum(lower, 0.0), np.minimum(upper, 1.0)
    if distribution == "poisson":
        lower = np.maximum(lower, 0.0)
    return pd.DataFrame({"x": grid, "fit": fit, "se_fit": se, "lower": lower, "upper": upper})


def calibrate_plot(y, p, distribution: str = "bernoulli", replace: bool = True,
                   line_par: dict | None = None, shade_col="lightyellow", shade_density=None,
                   rug_par: dict | None = None, xlab: str = "Predicted value",
                   ylab: str = "Observed average", xlim=None, ylim=None, knots=None,
                   df: int | None = 6, ax=None):
    """Observed average against predicted value (R's ``calibrate.plot``).

    A calibration diagnostic: the mean of ``y`` given ``p``, estimated by a
    GLM on a natural spline of ``p``, drawn with its +-2 standard error band
    against the line y = x (where well calibrated predictions lie).

    Parameters
    ----------
    y : array-like of float
        The observed outcomes (R: ``y``): 0/1 for "bernoulli", counts for
        "poisson". Missing values (NaN) are dropped, as R's ``na.omit``.
    p : array-like of float
        The predictions of E(y | x) on the response scale, e.g.
        ``fit.predict(data, type="response")`` (R: ``p``); same length.
    distribution : str, default "bernoulli"
        The loss that made ``p`` (R: ``distribution``): "bernoulli" fits a
        binomial GLM, "poisson" a Poisson GLM, any other pygbm distribution a
        gaussian one.
    replace : bool, default True
        Draw a new plot (R: ``replace``); False adds the curve to ``ax`` (or
        the current axes), to compare several models.
    line_par : dict, optional
        matplotlib line keywords of the curve (R: ``line.par``; R's ``col``
        is accepted for ``color``). Default None: black.
    shade_col : str or None, default "lightyellow"
        Colour of the +-2 se band (R: ``shade.col``); None, "none" or "NA"
        (R's ``NA``): no band.
    shade_density : float, optional
        Hatch the band instead of filling it (R: ``shade.density``, the
        ``density`` of ``polygon``). Default None: filled.
    rug_par : dict, optional
        The rug of the deciles of ``p`` (R: ``rug.par``): ``{"side": 1}``
        (bottom, the default) or ``{"side": 3}`` (top).
    xlab : str, default "Predicted value"
        x-axis label (R: ``xlab``).
    ylab : str, default "Observed average"
        y-axis label (R: ``ylab``).
    xlim : tuple of float, optional
        x-axis limits (R: ``xlim``); default None: R's choice, the range of
        the curve (and band) and of y = x.
    ylim : tuple of float, optional
        y-axis limits (R: ``ylim``); default None as ``xlim``.
    knots : array-like of float, optional
        Interior knots of the natural spline (R: ``knots``, passed to
        ``splines::ns``); they must lie inside the range of ``p``. Default
        None: the quantiles of ``p`` that ``df`` implies.
    df : int, default 6
        Degrees of freedom of the spline (R: ``df``): ``df - 1`` interior
        knots at the quantiles of ``p``; used when ``knots`` is None. Where
        ``p`` has so few distinct values that a quantile falls on an end of
        its range, a ValueError asks for a smaller ``df`` or ``knots`` (R
        draws a rank-deficient curve there with a warning, or fails).
    ax : matplotlib.axes.Axes, optional
        Where to draw; None makes a new figure. Not in R.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on (R returns nothing). The numbers of the curve are
        ``pygbm.inspect.calibration_plot.calibration_curve(y, p, distribution, knots, df)``.

    Notes
    -----
    The spline basis is R's ``ns(p, df = df, knots = knots)`` and the GLM
    is fitted by IRLS started and stopped as R's ``glm.fit``, so the curve
    and band are R's to rounding; the curve is evaluated at 200 points from
    ``min(p)`` to ``max(p)``. R jitters tied deciles in the rug; pygbm draws
    them as they are. Where R takes a misspelt ``distribution`` as gaussian,
    or draws probabilities outside [0, 1] for bernoulli, pygbm raises
    ValueError.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> p = rng.uniform(0.05, 0.95, size=500)
    >>> y = rng.binomial(1, p)                   # calibrated by construction
    >>> ax = pygbm.calibrate_plot(y, p)
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('Predicted value', 'Observed average')
    """
    from ..plotting.perf import plot_calibration

    bool_arg(replace, "replace")
    curve = calibration_curve(y, p, distribution=distribution, knots=knots, df=df)
    return plot_calibration(curve, p, distribution=distribution, replace=replace,
                            line_par=line_par, shade_col=shade_col,
                            shade_density=shade_density, rug_par=rug_par, xlab=xlab,
                            ylab=ylab, xlim=xlim, ylim=ylim, ax=ax)
