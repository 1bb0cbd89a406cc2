"""Calibration of a fit's predictions (Langford's binned linear spline) and a
calibration report.

:func:`calibrate` computes the fit's expected response of every row of a
calibration sample (offsets added: for poisson with an exposure offset, the
expected count of the row), sorts the rows by it and cuts them into ``bins``
groups of as equal a size as possible; each group gives a control point
(weighted mean prediction, weighted mean response). The calibrated
prediction is the linear interpolation between the control points.

* ``ends="flat"`` (the default) adds no end points: beyond the outermost
  control points the calibrated value is constant.
* ``ends="langford"`` adds the post's end points, (smallest, smallest) and
  (largest, largest) possible output and response: (0, 0) and (1, 1) for a
  probability, (min, min) and (max, max) over the calibration sample
  otherwise. Measured on simulations with known truth, these literal end
  points inflate the top of the scale (the last segment runs to the largest
  response seen), so flat ends are the default.

``subsampled``: the calibration sample's zeros were themselves kept at a rate
l (True: the fit's ``zero_subsample``; or the rate): each zero counts 1/l in
both means. ``monotone=True`` pools adjacent violators among the control
points (the post does not).

:func:`calibration_report` measures calibration: calibration-in-the-large
(sum of predictions over sum of responses), the expected calibration error
on equal-count bins, the Brier score and the deviance.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import bool_arg
from .messages import warn
from .display import table_html
from .model import TRAINING_ROWS_SHARE, GBMFit
from .zero_sampling import zero_subsample_arg

#: default number of equal-count bins (at l = 0.01 the calibration sample is
#: small: 50 bins were measured worse than 20)
DEFAULT_BINS = 20
ENDS = ("flat", "langford")
#: predictions are clipped this far inside (0, 1) for the bernoulli deviance
PROB_EPS = 1e-15


# ---------------------------------------------------------------- shared pieces
def equal_count_bins(p: np.ndarray, bins: int) -> list[np.ndarray]:
    """Row indices of ``bins`` groups of as equal size as possible, by increasing ``p``
    (stable: ties keep the rows' order)."""
    order = np.argsort(p, kind="stable")
    return [g for g in np.array_split(order, min(int(bins), p.shape[0])) if g.size]


def _bins_arg(bins) -> int:
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins must be a whole number >= 1, got {bins!r}")
    return int(bins)


def _weights(w, n) -> np.ndarray:
    if w is None:
        return np.ones(n)
    w = np.asarray(w, dtype=float)
    if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0) or not np.any(w > 0):
        raise ValueError(f"weights must be {n} finite non-negative numbers, not all zero")
    return w


def _pava(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Pool adjacent violators: the weighted non-decreasing fit to ``values``."""
    blocks = []                                 # [mean, weight, count]
    for v, w in zip(values, weights):
        blocks.append([v, w, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, w2, c2 = blocks.pop()
            v1, w1, c1 = blocks.pop()
            wt = w1 + w2
            blocks.append([(v1 * w1 + v2 * w2) / wt if wt > 0 else (v1 + v2) / 2, wt, c1 + c2])
    return np.concatenate([np.full(c, v) for v, _, c in blocks])


# ---------------------------------------------------------------- the calibrated model
@dataclass(frozen=True, eq=False, repr=False)
class CalibratedGBM:
    """A fit with its predictions calibrated (made by :func:`calibrate`).

    Parameters
    ----------
    fit : GBMFit
        The calibrated fit.
    n_trees : int
        The trees its predictions use.
    phi : numpy.ndarray
        Per control point: the fit's mean expected response.
    response : numpy.ndarray
        Per control point: the mean response.
    weight : numpy.ndarray
        Per control point: the total weight of its rows.
    rows : numpy.ndarray
        Per control point: the number of calibration rows.
    knots_x : numpy.ndarray
        The interpolation's knots, x (the control points, plus Langford's end
        points with ``ends="langford"``).
    knots_y : numpy.ndarray
        The interpolation's knots, y.
    ends : str
        "flat" or "langford".
    rate : float or None
        The keep rate the calibration sample's zeros were counted at (1/rate
        each), None if it was not subsampled.

    Notes
    -----
    Not in R (R's ``calibrate.plot`` only draws a calibration curve; see
    :func:`pygbm.calibrate_plot`). The calibrated prediction is the linear
    interpolation between the control points, constant beyond them with
    ``ends="flat"``.

    Examples
    --------
    >>> pima = pd.read_csv("data/pima2.csv")
    >>> bfit = pygbm.gbm("diabetes ~ .", data=pima.iloc[:500], distribution="bernoulli",
    ...                  n_trees=100, interaction_depth=2, random_state=1)
    >>> cal = pygbm.calibrate(bfit, pima.iloc[500:], n_trees=100, bins=10)
    >>> cal
    CalibratedGBM(bernoulli fit, 100 trees, 10 control points, flat ends)
    >>> cal.control_points.columns.tolist()
    ['phi', 'response', 'weight', 'rows']
    """

    fit: GBMFit
    n_trees: int
    #: control points: mean prediction, mean response, total weight, rows
    phi: np.ndarray
    response: np.ndarray
    weight: np.ndarray
    rows: np.ndarray
    #: the interpolation's knots (control points plus end points)
    knots_x: np.ndarray
    knots_y: np.ndarray
    ends: str
    rate: float | None             # zeros counted 1/rate (None: not subsampled)

    def __repr__(self) -> str:
        rate = "" if self.rate is None else f", zeros kept at rate {self.rate:g}"
        return (f"CalibratedGBM({self.fit.distribution.name} fit, {self.n_trees} trees, "
                f"{len(self.phi)} control points, {self.ends} ends{rate})")

    def _repr_html_(self) -> str:
        rows = [("Fit", f"{self.fit.distribution.display_name}, {self.n_trees} trees"),
                ("Control points", f"{len(self.phi)} (mean prediction {self.phi.min():.4g} "
                                   f"to {self.phi.max():.4g})"),
                ("Ends", self.ends),
                ("Calibration rows", f"{int(self.rows.sum())}")]
        if self.rate is not None:
            rows.append(("Zeros counted", f"1/{self.rate:g} each (kept at rate {self.rate:g})"))
        return table_html("CalibratedGBM", rows)

    @property
    def control_points(self):
        """The control points as a DataFrame (``phi``, ``response``, ``weight``, ``rows``)."""
        import pandas as pd        # imported on first use: import pygbm stays fast
        return pd.DataFrame({"phi": self.phi, "response": self.response,
                             "weight": self.weight, "rows": self.rows})

    def calibrate_values(self, phi) -> np.ndarray:
        """psi(phi): the calibrated expected response of raw expected responses.

        Parameters
        ----------
        phi : array_like
            Expected responses of the fit (offsets included).

        Returns
        -------
        numpy.ndarray
            The linear interpolation between the knots, constant beyond them.

        Examples
        --------
        >>> pima = pd.read_csv("data/pima2.csv")
        >>> bfit = pygbm.gbm("diabetes ~ .", data=pima.iloc[:500], distribution="bernoulli",
        ...                  n_trees=100, interaction_depth=2, random_state=1)
        >>> cal = pygbm.calibrate(bfit, pima.iloc[500:], n_trees=100, bins=10)
        >>> cal.calibrate_values([0.0, 1.0])        # flat beyond the control points
        array([0.        , 0.92307692])
        """
        return np.interp(np.asarray(phi, dtype=float), self.knots_x, self.knots_y)

    def raw(self, newdata, n_trees=None, offset=None) -> np.ndarray:
        """The fit's (uncalibrated) expected response of ``newdata``, offsets added.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows to predict (a matrix for gbm_fit models).
        n_trees : int, optional
            Trees used (None: the calibration's).
        offset : array_like, optional
            Link-scale offsets (None: the formula's ``offset()`` terms).

        Returns
        -------
        numpy.ndarray
            The fit's expected response per row (probabilities, expected
            counts, means), before calibration.
        """
        return _expected_response(self.fit, newdata, self.n_trees if n_trees is None else
                                  n_trees, offset)

    def predict(self, newdata, n_trees=None, type: str = "response",  # noqa: A002 (R's name)
                offset=None) -> np.ndarray:
        """Calibrated predictions of ``newdata``.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows to predict (a matrix for gbm_fit models).
        n_trees : int, optional
            Trees used (None: the calibration's).
        type : {"response", "link"}
            The calibrated expected response, or its link (offset included).
        offset : array_like, optional
            Link-scale offsets of the rows (None: the formula's ``offset()``
            terms evaluated on ``newdata``, if any).

        Returns
        -------
        numpy.ndarray
            One calibrated value per row of ``newdata``.
        """
        if type not in ("response", "link"):
            raise ValueError(f"type must be 'response' or 'link', got {type!r}")
        out = self.calibrate_values(self.raw(newdata, n_trees, offset))
        return out if type == "response" else _link(self.fit.distribution, out)

    def plot(self, ax=None):
        """Reliability diagram: the control points, the calibration map and the diagonal.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (None: a new figure).

        Returns
        -------
        matplotlib.axes.Axes
            The axes drawn on.
        """
        from .plotting.calibration import plot_reliability

        return plot_reliability(self, ax=ax)


def _link(dist, mu):
    mu = np.asarray(mu, dtype=float)
    with np.errstate(divide="ignore"):
        if dist.response_link == "logistic":
            return np.log(mu) - np.log1p(-mu)
        if dist.response_link == "exp":
            return np.log(mu)
    if dist.response_link != "identity":
        raise ValueError(f"type='link' is not available for distribution {dist.name!r}")
    return mu


def _offset_of(fit, data, offset, n):
    if offset is not None:
        offset = np.asarray(offset, dtype=float)
        if offset.shape != (n,) or not np.all(np.isfinite(offset)):
            raise ValueError(f"offset must be {n} finite numbers")
        return offset
    if fit.formula is None:
        return None
    from .frontend import offset_newdata

    return offset_newdata(fit.encoder, data)


def _expected_response(fit, data, n_trees, offset, x=None):
    """The fit's expected response of ``data`` (coded as ``x`` when the caller has
    coded it already), offsets added."""
    x = fit._design(data) if x is None else x
    link = fit._link(x, fit._check_n_trees(n_trees))
    link = link[..., 0] if np.ndim(n_trees) == 0 else link
    off = _offset_of(fit, data, offset, link.shape[0])
    return fit.distribution.inverse_link(link if off is None else link + off)


def _calibration_rows(fit, data, y, weights):
    """The response and case weights of the calibration sample."""
    if y is None:
        if fit.formula is None:
            raise ValueError("calibrate: give y= (the response of data) for a gbm_fit model")
        from .frontend import model_frame

        mf = model_frame(fit.formula, data, weights)
        y, weights = mf.y, mf.weights
    y = np.asarray(fit.distribution.check_response(np.asarray(y)), dtype=float)
    return y, _weights(weights, y.shape[0])


def _rate_arg(subsampled, fit) -> float | None:
    if subsampled is True:
        if fit.zero_sample is None:
            raise ValueError("calibrate(subsampled=True): the fit was not zero-subsampled; "
                             "give the calibration sample's keep rate instead")
        return fit.zero_sample.rate
    if subsampled is False or subsampled is None:
        return None
    return zero_subsample_arg(subsampled)


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
        gbm_fit model with ``y=``).
    n_trees : int, optional
        Trees used (None: the fit's best iteration, as ``predict``).
    bins : int
        Equal-count groups of the calibration rows (default 20).
    ends : {"flat", "langford"}
        No end points (default), or the post's end points (see the module).
    subsampled : bool or float
        True if ``data``'s zeros were kept at the fit's ``zero_subsample``
        rate, or that rate: zeros count 1/l in both means.
    monotone : bool
        Pool adjacent violators among the control points.
    y : array_like, optional
        The response of ``data`` (default: from the formula).
    weights : str or array_like, optional
        Case weights (a column name or an array; default: the formula fit's
        none).
    offset : array_like, optional
        Link-scale offsets of ``data`` (default: the formula's ``offset()`` terms).

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
    ...                  n_trees=100, interaction_depth=2, random_state=1)
    >>> cal = pygbm.calibrate(bfit, pima.iloc[500:], n_trees=100, bins=10)
    >>> p = cal.predict(pima.iloc[500:])
    >>> bool(((p >= 0) & (p <= 1)).all())
    True
    """
    if not isinstance(fit, GBMFit):
        raise TypeError(f"fit must be a GBMFit, got {type(fit).__name__}")
    dist = fit.distribution
    if dist.multi_output or dist.bag_by_group or dist.survival_response:
        raise ValueError(f"calibrate: distribution {dist.name!r} has no expected response "
                         "to calibrate")
    bins = _bins_arg(bins)
    monotone = bool_arg(monotone, "monotone")
    if ends not in ENDS:
        raise ValueError(f"ends must be 'flat' or 'langford', got {ends!r}")
    rate = _rate_arg(subsampled, fit)
    if n_trees is None:
        n_trees = fit.best_iteration(quiet=True)[0]
    else:           # R's cap (with its warning) above the trees fitted, as predict
        counts = fit._check_n_trees(n_trees)
        if counts.size != 1:
            raise ValueError(f"n_trees must be one whole number, got {n_trees!r}")
        n_trees = int(counts[0])
    y, w = _calibration_rows(fit, data, y, weights)
    x = fit._design(data)                          # coded once: predictions and the check
    phi = _expected_response(fit, data, n_trees, offset, x)
    if fit._training_share(x) > TRAINING_ROWS_SHARE:
        warn("calibrate(): data are the fit's training rows, on which its predictions look "
             "better calibrated than on new rows; calibrate on held-out rows")
    if phi.shape[0] != y.shape[0]:
        raise ValueError(f"y has {y.shape[0]} values but data have {phi.shape[0]} rows")
    if rate is not None:
        w = np.where(y == 0, w / rate, w)
    cx, cy, cw, rows = control_points(phi, y, w, bins, monotone)
    _warn_certain_points(cy, dist.response_link)
    kx, ky = knots(cx, cy, cw, phi, y, ends, dist.response_link == "logistic")
    return CalibratedGBM(fit=fit, n_trees=int(n_trees), phi=cx, response=cy, weight=cw,
                         rows=rows, knots_x=kx, knots_y=ky, ends=ends, rate=rate)


def _warn_certain_points(cy: np.ndarray, link: str) -> None:
    """Warn when control points say "certain": a mean response of exactly 0
    (or 1, for a probability) makes the calibrated expected response 0 (or 1)
    around that point, and the deviance of a row that disagrees infinite."""
    if link == "logistic":
        certain = (cy <= 0) | (cy >= 1)
    elif link == "exp":
        certain = cy <= 0
    else:
        return
    if np.any(certain):
        edge = "0 or 1" if link == "logistic" else "0"
        warn(f"calibrate: {int(certain.sum())} of the {cy.size} control points have a mean "
             f"response of exactly {edge} (no row of the other kind in their bin): the "
             f"calibrated expected response is {edge} there, and the deviance of a row that "
             "disagrees is infinite; use fewer bins or a larger calibration sample")


def control_points(phi, y, w, bins: int, monotone: bool = False):
    """Per equal-count bin of ``phi`` (weighted by ``w``): the mean prediction,
    the mean response (pooled adjacent violators if ``monotone``), the total
    weight and the number of rows."""
    groups = [g for g in equal_count_bins(phi, bins) if np.sum(w[g]) > 0]
    cw = np.array([np.sum(w[g]) for g in groups])
    cx = np.array([np.sum(w[g] * phi[g]) for g in groups]) / cw
    cy = np.array([np.sum(w[g] * y[g]) for g in groups]) / cw
    if monotone:
        cy = _pava(cy, cw)
    return cx, cy, cw, np.array([g.size for g in groups])


def knots(cx, cy, cw, phi, y, ends: str, probability: bool):
    """The interpolation's strictly increasing knots: control points with
    equal means pooled, and with ``ends="langford"`` the post's end points
    outside them ((0, 0) and (1, 1) for a ``probability``, else the sample's
    (min phi, min y) and (max phi, max y))."""
    ux = np.unique(cx)
    if ux.size < cx.size:
        idx = np.searchsorted(ux, cx)
        tot = np.bincount(idx, weights=cw)
        cy = np.bincount(idx, weights=cw * cy) / tot
        cx = ux
    if ends == "langford":
        if probability:
            lo, hi = (0.0, 0.0), (1.0, 1.0)
        else:
            lo, hi = (float(phi.min()), float(y.min())), (float(phi.max()), float(y.max()))
        if lo[0] < cx[0]:
            cx, cy = np.r_[lo[0], cx], np.r_[lo[1], cy]
        if hi[0] > cx[-1]:
            cx, cy = np.r_[cx, hi[0]], np.r_[cy, hi[1]]
    return np.asarray(cx, dtype=float), np.asarray(cy, dtype=float)


# ---------------------------------------------------------------- the report
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


def _guess_family(y):
    if np.all((y == 0) | (y == 1)):
        return "bernoulli"
    if np.all(y >= 0) and np.all(y == np.round(y)):
        return "poisson"
    return "gaussian"


def _numbers(name: str, values) -> np.ndarray:
    """``values`` as a flat float array, or a ValueError naming ``name``."""
    try:
        return np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got {values!r:.80}") from None


def calibration_report(y, p, bins: int = DEFAULT_BINS, weights=None, distribution=None) -> dict:
    """How well the expected responses ``p`` match the responses ``y``.

    Parameters
    ----------
    y : array_like
        Responses.
    p : array_like
        Expected responses (probabilities, expected counts, means).
    bins : int
        Equal-count bins of ``p`` for the expected calibration error.
    weights : array_like, optional
        Case weights.
    distribution : {"bernoulli", "poisson", "gaussian"}, optional
        The deviance's family (None: guessed from ``y``).

    Returns
    -------
    dict
        ``in_the_large`` (sum of w p / sum of w y: 1 is calibrated in the
        large), ``ece`` (expected calibration error: the weighted mean over
        ``bins`` equal-count bins of ``|mean p - mean y|``), ``brier``
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
    y, p = _numbers("y", y), _numbers("p", p)
    if y.shape != p.shape or y.size == 0:
        raise ValueError(f"y and p must be non-empty and of the same length; got {y.shape} "
                         f"and {p.shape}")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(p))):
        raise ValueError("y and p must be finite (no NaN or inf)")
    bins = _bins_arg(bins)
    w = _weights(weights, y.shape[0])
    family = _guess_family(y) if distribution is None else distribution
    if family not in ("bernoulli", "poisson", "gaussian"):
        raise ValueError(f"distribution must be 'bernoulli', 'poisson' or 'gaussian', "
                         f"got {family!r}")
    _check_scale(y, p, family, guessed=distribution is None)
    ece = sum(abs(np.sum(w[g] * (p[g] - y[g]))) for g in equal_count_bins(p, bins)) / np.sum(w)
    total_y = np.sum(w * y)
    return {"in_the_large": float(np.sum(w * p) / total_y) if total_y else float("nan"),
            "ece": float(ece), "brier": float(np.sum(w * (y - p) ** 2) / np.sum(w)),
            "deviance": _deviance(y, p, w, family), "n": int(y.size)}
