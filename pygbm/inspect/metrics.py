"""R gbm's small statistical helpers: ``gbm.roc.area``, ``calibrate.plot`` and
``basehaz.gbm`` (with R's ``supsmu``, Friedman's super smoother).

* :func:`gbm_roc_area` -- the Mann-Whitney AUC from average ranks (ties as R's ``rank``).
* :func:`calibration_curve` / :func:`calibrate_plot` -- R fits
  ``glm(y ~ splines::ns(p, df = 6), family)`` (binomial for "bernoulli", poisson
  for "poisson", gaussian otherwise) and draws the fitted mean +- 2 standard
  errors on 200 points between ``min(p)`` and ``max(p)``.  The natural-spline
  basis (knots at quantiles of ``p``) is R's; the GLM is statsmodels' IRLS
  started and stopped as R's ``glm.fit`` (statsmodels imported on first use),
  so the numbers match R's to rounding.
* :func:`basehaz_gbm` -- Breslow's estimator of the (cumulative) baseline hazard,
  optionally smoothed by :func:`supsmu`.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from .._checks import (R_INT_MAX, bool_arg, finite_arg, finite_number, numbers_arg,
                       vector_arg)
from ..distributions import available_distributions
from ..messages import warn

#: calibrate.plot evaluates the fitted curve at this many points
CALIBRATION_POINTS = 200
#: R's glm.control(): epsilon and maxit
GLM_EPSILON, GLM_MAXIT = 1e-8, 25
#: supsmu's constants are single-precision literals in R's Fortran (ppr.f), so
#: they are the float32 roundings of 0.05, 0.2, 0.5, 1e20, 1e-7 and 1e-3
SUPSMU_SPANS = np.array([0.05, 0.2, 0.5], dtype=np.float32).astype(float)
SUPSMU_BIG, SUPSMU_SML, SUPSMU_EPS = (float(np.float32(v)) for v in (1e20, 1e-7, 1e-3))


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
                         f"{np.unique(obs).size} distinct values, e.g. {np.unique(obs)[:3]}")
    n1 = obs.sum()
    n = len(obs)
    if n == n1:
        return 1.0
    pos = obs > 0
    if not pos.any():
        return float("nan")
    from scipy.stats import rankdata      # SciPy on first use: gbm_perf needs none of it

    return float((rankdata(pred)[pos].mean() - (n1 + 1) / 2) / (n - n1))


# ----------------------------------------------------------------- calibration
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
        result = GLM(y, X, family=family()).fit(method="IRLS", maxiter=GLM_MAXIT,
                                                tol=GLM_EPSILON * 0.1, rtol=GLM_EPSILON,
                                                wls_method="qr")
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
    boundary = np.array([pk.min(), pk.max()])
    if boundary[0] == boundary[1]:
        where = "" if keep.all() else f" on the {int(keep.sum())} row(s) where y is not missing"
        raise ValueError(f"p must take at least two distinct values{where}")
    quantile_knots = knots is None
    if quantile_knots:
        knots = np.quantile(pk, np.arange(1, int(df)) / int(df))
    knots = np.sort(np.asarray(knots, dtype=float).ravel())
    if np.any((knots <= boundary[0]) | (knots >= boundary[1])):
        if quantile_knots:           # R's ns() fails there too
            raise ValueError(f"p has too few distinct values for df={df}: the knots, "
                             f"quantiles of p at (1..{int(df) - 1})/{int(df)}, fall on the "
                             "ends of its range; give a smaller df or knots")
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
        knots at the quantiles of ``p``; used when ``knots`` is None.
    ax : matplotlib.axes.Axes, optional
        Where to draw; None makes a new figure. Not in R.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on (R returns nothing). The numbers of the curve are
        ``pygbm.inspect.metrics.calibration_curve(y, p, distribution, knots, df)``.

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


# ----------------------------------------------------------------- baseline hazard
def basehaz_gbm(t, delta, f_x, t_eval=None, smooth: bool = False, cumulative: bool = True):
    """Breslow's baseline hazard, as R's ``basehaz.gbm``.

    Parameters
    ----------
    t : array-like of float
        Survival times, non-negative (R: ``t``).
    delta : array-like of {0, 1}
        Event indicators, 1 = event (R: ``delta``).
    f_x : array-like of float
        The fitted link values, e.g. ``fit.predict(data, type="link")``
        (R: ``f.x``).
    t_eval : array-like of float, optional
        Times at which the hazard is returned (R: ``t.eval``); default None:
        at ``t``.
    smooth : bool, default False
        Smooth the hazard increments with :func:`supsmu` first (R:
        ``smooth``).
    cumulative : bool, default True
        The cumulative hazard (R: ``cumulative``); False (with
        ``smooth=True``) returns the smoothed increments.

    Returns
    -------
    numpy.ndarray
        The hazard linearly interpolated (R's ``approx``) at ``t_eval``;
        NaN outside the range of the event times.

    Notes
    -----
    At each distinct event time ``s`` (``delta == 1``) the hazard increment
    is ``d(s) / sum(exp(f_x[t >= s]))``. ``smooth=False,
    cumulative=False`` is an error (R stops there too). Unlike R, NaN or
    infinite inputs, negative times and ``delta`` other than 0/1 are
    refused.

    Examples
    --------
    >>> lung = pd.read_csv("data/lung.csv")
    >>> lung["event"] = lung["status"] - 1              # R's lung: 1 censored, 2 dead
    >>> cox = pygbm.gbm("Surv(time, event) ~ age + sex", data=lung, distribution="coxph",
    ...                 n_trees=100, random_state=1)
    >>> f = cox.predict(lung, n_trees=100)               # the link, as R's f.x
    >>> H = pygbm.basehaz_gbm(lung["time"], lung["event"], f, t_eval=[100, 200, 300])
    >>> bool(np.all(np.diff(H) > 0))                     # a cumulative hazard grows
    True
    """
    t = vector_arg("t", t)
    delta = vector_arg("delta", delta)
    f_x = vector_arg("f_x", f_x)
    if not (len(t) == len(delta) == len(f_x)) or len(t) == 0:
        raise ValueError("t, delta and f_x must be non-empty and of the same length; got "
                         f"{len(t)}, {len(delta)} and {len(f_x)}")
    for name, arr in (("t", t), ("delta", delta), ("f_x", f_x)):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite (no NaN or inf)")
    if np.any(t < 0):
        raise ValueError(f"t (survival times) must be non-negative; {int(np.sum(t < 0))} "
                         "are negative")
    if not np.all(np.isin(delta, (0.0, 1.0))):
        raise ValueError("delta (the event indicator) must be 0 or 1")
    smooth, cumulative = bool_arg(smooth, "smooth"), bool_arg(cumulative, "cumulative")
    if not smooth and not cumulative:
        if t_eval is not None:
            raise ValueError("Cannot evaluate unsmoothed baseline hazard at t_eval.")
        raise ValueError("smooth=False with cumulative=False has no result in R's "
                         "basehaz.gbm (R stops: object 'lambda.smooth' not found); use "
                         "cumulative=True or smooth=True")
    if f_x.max() > _LOG_MAX_FLOAT:      # R: risk sets of Inf, a hazard of zeros
        raise ValueError(f"f_x (the link, a log relative risk) reaches {f_x.max():.6g}: "
                         f"exp(f_x) overflows above {_LOG_MAX_FLOAT:.6g}; is it the link "
                         "of the fit's predict (type='link')?")
    event_t = t[delta == 1]
    t_unique, n_events = np.unique(event_t, return_counts=True)
    if len(t_unique) < 2:
        raise ValueError("basehaz_gbm needs at least two distinct event times "
                         "(delta == 1) to interpolate")
    order = np.argsort(t, kind="stable")
    risk = np.cumsum(np.exp(f_x[order])[::-1])[::-1]          # sum over t >= t[order][i]
    at_risk = risk[np.searchsorted(t[order], t_unique, side="left")]
    alpha = n_events / at_risk
    if smooth:
        xs, ys = supsmu(t_unique, np.cumsum(alpha) if cumulative else alpha)
    else:
        xs, ys = t_unique, np.cumsum(alpha)
    xout = t if t_eval is None else vector_arg("t_eval", t_eval)
    return np.interp(xout, xs, ys, left=np.nan, right=np.nan)


#: the largest x whose exp(x) is a finite double
_LOG_MAX_FLOAT = float(np.log(np.finfo(float).max))


# ----------------------------------------------------------------- super smoother
def _running_lines(x, y, w, span, vsmlsq, cv: bool):
    """Friedman's running-line smoother of R's supsmu (Fortran ``smooth``).

    Every point uses the ``2 * ibw + 1`` consecutive points centred on it (shifted
    inwards at the ends), ``ibw = int(span * n / 2 + 0.5)`` (at least 2).  With
    ``cv`` also returns the leave-one-out absolute residuals.  Window sums come
    from cumulative sums of centred data (R updates them point by point).
    """
    n = len(x)
    ibw = max(int(0.5 * span * n + 0.5), 2)
    width = min(2 * ibw + 1, n)  # R reads past its arrays when 2 * ibw + 1 > n
    start = np.clip(np.arange(n) - ibw, 0, n - width)
    xc = x - np.average(x, weights=w) if w.sum() > 0 else x - x.mean()
    yc = y - np.average(y, weights=w) if w.sum() > 0 else y - y.mean()

    def wsum(v):
        c = np.concatenate([[0.0], np.cumsum(v)])
        return c[start + width] - c[start]

    sw, sx, sy = wsum(w), wsum(w * xc), wsum(w * yc)
    sxx, sxy = wsum(w * xc * xc), wsum(w * xc * yc)
    pos = sw > 0
    safe = np.where(pos, sw, 1.0)
    xm = np.where(pos, sx / safe, 0.0)
    ym = np.where(pos, sy / safe, 0.0)
    var = sxx - sx * xm
    cvar = sxy - sx * ym
    slope = np.where(var > vsmlsq, cvar / np.where(var > vsmlsq, var, 1.0), 0.0)
    smo = slope * (xc - xm) + ym
    acvr = None
    if cv:
        h = np.where(pos, 1.0 / safe, 0.0)
        h = h + np.where(var > vsmlsq, (xc - xm) ** 2 / np.where(var > vsmlsq, var, 1.0), 0.0)
        a = 1.0 - w * h
        ok = a > 0
        raw = np.abs(yc - smo) / np.where(ok, a, 1.0)
        # where a <= 0 R repeats the previous point's residual (0 for the first point)
        last = np.maximum.accumulate(np.where(ok, np.arange(n), -1))
        acvr = np.where(last >= 0, raw[np.maximum(last, 0)], 0.0)
    # tied x: every point of a run gets the weighted mean of the run's smooth
    run = np.concatenate([[0], np.cumsum(x[1:] > x[:-1])])
    rw = np.bincount(run, weights=w)
    rs = np.bincount(run, weights=w * smo)
    run_mean = np.where(rw > 0, rs / np.where(rw > 0, rw, 1.0), 0.0)
    multi = np.bincount(run)[run] > 1
    smo = np.where(multi, run_mean[run], smo)
    y_shift = y - yc  # add the centring constant back
    return smo + y_shift, acvr


def supsmu(x, y, wt=None, span="cv", periodic: bool = False, bass: float = 0.0):
    """Friedman's super smoother, as R's ``stats::supsmu``; returns ``(x, y)``.

    ``span="cv"`` chooses the span locally by cross-validation among the tweeter,
    midrange and woofer spans (0.05, 0.2, 0.5); a number in (0, 1] uses one fixed
    span.  ``bass`` in (0, 10] favours larger spans.  Output: the sorted distinct
    ``x`` and the smooth at each (R's ``list(x, y)``).  Non-finite triples are
    dropped with a warning.  ``periodic=True`` is not implemented.
    """
    if periodic:
        raise ValueError("periodic=True is not implemented in pygbm's supsmu")
    if isinstance(span, str):
        if span != "cv":
            raise ValueError(f"span must be 'cv' or a number in [0, 1]; got {span!r}")
        span = 0.0
    elif not (0 <= span <= 1):
        raise ValueError("'span' must be between 0 and 1.")
    x = np.asarray(x, dtype=float).ravel()
    y = np.asarray(y, dtype=float).ravel()
    w = np.ones_like(y) if wt is None else np.asarray(wt, dtype=float).ravel()
    if not (len(x) == len(y) == len(w)) or len(y) == 0:
        raise ValueError("x, y and wt must be non-empty and of the same length")
    okay = np.isfinite(x + y + w)
    if not okay.all():
        warn(f"{int((~okay).sum())} observations with NAs, NaNs and/or Infs "
             "deleted")
        x, y, w = x[okay], y[okay], w[okay]
        if len(x) == 0:
            raise ValueError("no finite observations")
    order = np.lexsort((y, x))
    x, y, w = x[order], y[order], w[order]
    first = np.concatenate([[True], x[1:] != x[:-1]])
    if not x[-1] > x[0]:
        mean = (w * y).sum() / w.sum() if w.sum() > 0 else 0.0
        return x[first], np.full(int(first.sum()), mean)
    n = len(x)
    i, j = max(n // 4, 1), max(3 * (n // 4), 1)
    while x[j - 1] - x[i - 1] <= 0:
        j, i = (j + 1 if j < n else j), (i - 1 if i > 1 else i)
    vsmlsq = (SUPSMU_EPS * (x[j - 1] - x[i - 1])) ** 2
    if span > 0:
        return x[first], _running_lines(x, y, w, span, vsmlsq, cv=True)[0][first]
    spans = SUPSMU_SPANS
    smooths, resid = [], []
    for s in spans:
        smo, acvr = _running_lines(x, y, w, s, vsmlsq, cv=True)
        smooths.append(smo)
        resid.append(_running_lines(x, acvr, w, spans[1], vsmlsq, cv=False)[0])
    resid = np.array(resid)
    best = np.argmin(resid, axis=0)
    resmin = resid[best, np.arange(n)]
    chosen = np.where(resmin < SUPSMU_BIG, spans[best], acvr)
    if 0 < bass <= 10:
        boost = (resmin < resid[2]) & (resmin > 0)
        ratio = np.maximum(SUPSMU_SML, resmin / np.where(resid[2] > 0, resid[2], 1.0))
        chosen = np.where(boost, chosen + (spans[2] - chosen) * ratio ** (10.0 - bass), chosen)
    chosen = _running_lines(x, chosen, w, spans[1], vsmlsq, cv=False)[0]
    chosen = np.clip(chosen, spans[0], spans[2])
    f = chosen - spans[1]
    low = f < 0
    f_low = -f / (spans[1] - spans[0])
    f_high = f / (spans[2] - spans[1])
    mixed = np.where(low, (1 - f_low) * smooths[1] + f_low * smooths[0],
                     (1 - f_high) * smooths[1] + f_high * smooths[2])
    return x[first], _running_lines(x, mixed, w, spans[0], vsmlsq, cv=False)[0][first]
