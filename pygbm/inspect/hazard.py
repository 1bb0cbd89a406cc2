"""R gbm's ``basehaz.gbm``: Breslow's estimator of the (cumulative) baseline
hazard of a Cox model's fit, optionally smoothed by :func:`supsmu` (R's
``supsmu``, Friedman's super smoother).
"""
from __future__ import annotations

import numpy as np

from .._checks import bool_arg, same_rows_arg, vector_arg
from ..messages import warn

#: supsmu's constants are single-precision literals in R's Fortran (ppr.f), so
#: they are the float32 roundings of 0.05, 0.2, 0.5, 1e20, 1e-7 and 1e-3
SUPSMU_SPANS = np.array([0.05, 0.2, 0.5], dtype=np.float32).astype(float)
SUPSMU_BIG, SUPSMU_SML, SUPSMU_EPS = (float(np.float32(v)) for v in (1e20, 1e-7, 1e-3))


def basehaz_gbm(t, delta, f_x, t_eval=None, smooth: bool = False, cumulative: bool = True):
    """Breslow's baseline hazard, as R's ``basehaz.gbm``.

    Parameters
    ----------
    t : array-like of float
        Survival times (R: ``t``); negative ones too, as in R (only their order
        and the evaluation points matter).
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
    infinite inputs and ``delta`` other than 0/1 are refused.

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
    same_rows_arg("delta", delta, t, "t")
    same_rows_arg("f_x", f_x, t, "t")
    t = vector_arg("t", t)
    delta = vector_arg("delta", delta)
    f_x = vector_arg("f_x", f_x)
    if not (len(t) == len(delta) == len(f_x)) or len(t) == 0:
        raise ValueError("t, delta and f_x must be non-empty and of the same length; got "
                         f"{len(t)}, {len(delta)} and {len(f_x)}")
    for name, arr in (("t", t), ("delta", delta), ("f_x", f_x)):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} must be finite (no NaN or inf)")
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
