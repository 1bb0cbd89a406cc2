"""The calibrated model: a fit with its expected responses mapped through the
calibration map (:class:`CalibratedGBM`), and the fit's expected response of
rows (offsets added) that the map is fitted on and applied to."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import choice_arg, numbers_arg
from ..display import table_html
from ..messages import warn
from ..model import GBMFit


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
    ...                  n_trees=100, shrinkage=0.05, interaction_depth=2, random_state=1)
    >>> cal = pygbm.calibrate(bfit, pima.iloc[500:], n_trees=100, bins=5)
    >>> cal
    CalibratedGBM(bernoulli fit, 100 trees, 5 control points, flat ends)
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
        ...                  n_trees=100, shrinkage=0.05, interaction_depth=2, random_state=1)
        >>> cal = pygbm.calibrate(bfit, pima.iloc[500:], n_trees=100, bins=5)
        >>> cal.calibrate_values([0.0, 1.0])        # flat beyond the control points
        array([0.01851852, 0.83018868])
        """
        return np.interp(numbers_arg("phi", phi), self.knots_x, self.knots_y)

    def raw(self, newdata, n_trees=None, offset=None) -> np.ndarray:
        """The fit's (uncalibrated) expected response of ``newdata``, offsets added.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows to predict (a matrix for gbm_fit models).
        n_trees : int, optional
            Trees used (None: the calibration's).
        offset : array_like, optional
            Link-scale offsets (None: the formula's ``offset()`` terms;
            required for a model fitted with an ``offset`` argument).

        Returns
        -------
        numpy.ndarray
            The fit's expected response per row (probabilities, expected
            counts, means), before calibration.
        """
        return expected_response(self.fit, newdata, self.n_trees if n_trees is None else
                                  n_trees, offset)

    def predict(self, newdata, n_trees=None, type: str = "response",  # noqa: A002 (R's name)
                offset=None) -> np.ndarray:
        """Calibrated predictions of ``newdata``.

        Parameters
        ----------
        newdata : pandas.DataFrame
            Rows to predict (a matrix for gbm_fit models).
        n_trees : int or list of int, optional
            Trees used (None: the calibration's). The map was fitted on the
            predictions of the calibration's trees: other counts get a warning.
        type : {"response", "link"}, default "response"
            The calibrated expected response, or its link (offset included).
        offset : array_like, optional
            Link-scale offsets of the rows (None: the formula's ``offset()``
            terms evaluated on ``newdata``, if any; required for a model
            fitted with an ``offset`` argument).

        Returns
        -------
        numpy.ndarray
            One calibrated value per row of ``newdata`` (a column per count
            when ``n_trees`` is a list).
        """
        choice_arg("type", type, ("response", "link"))
        raw = self.raw(newdata, n_trees, offset)          # checks n_trees
        if n_trees is not None and np.any(np.minimum(np.atleast_1d(n_trees), self.fit.n_trees)
                                          != self.n_trees):         # as predict caps them
            warn(f"CalibratedGBM.predict(): the calibration map was fitted on the predictions "
                 f"of {self.n_trees} trees; n_trees={n_trees!r:.40} gives predictions it was "
                 f"not fitted on (calibrate() again with those trees)")
        out = self.calibrate_values(raw)
        return out if type == "response" else self.fit.distribution.link(out)

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
        from ..plotting.calibration import plot_reliability

        return plot_reliability(self, ax=ax)


def expected_response(fit, data, n_trees, offset, x=None, name="newdata"):
    """The fit's expected response of ``data`` (coded as ``x`` when the caller has
    coded it already), offsets added; errors call ``data`` ``name``, the caller's
    argument."""
    x = fit._design(data, name) if x is None else x
    link = fit._link(x, fit._check_n_trees(n_trees))
    link = link[..., 0] if np.ndim(n_trees) == 0 else link
    off = fit._new_offsets(data, offset, link.shape[0], "offset", name)
    if off is not None and link.ndim == 2:        # a column per count of trees
        off = off[:, None]
    return fit.distribution.inverse_link(link if off is None else link + off)
