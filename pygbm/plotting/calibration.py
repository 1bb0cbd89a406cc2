"""Reliability diagram of a calibrated fit (:func:`pygbm.calibrate`)."""
from __future__ import annotations

import numpy as np

from ..distributions.base import PROBABILITY_LINKS
from .axes import axes_for

POINT_COLOR, MAP_COLOR, DIAGONAL_COLOR = "black", "red", "grey"
#: points of the drawn calibration map between the knots' ends
MAP_POINTS = 200
#: control points' marker area: MIN_POINT + SPREAD_POINT * weight / largest weight
MIN_POINT, SPREAD_POINT = 10.0, 60.0
#: the figure's size (inches): square, as the diagonal is the reference
FIGURE_SIZE = (5.0, 5.0)
#: response links whose expected responses are >= 0 (probabilities, counts)
NON_NEGATIVE_LINKS = (*PROBABILITY_LINKS, "exp")


def plot_reliability(calibrated, ax=None):
    """The control points (mean prediction, mean response; area ~ weight),
    the calibration map psi and the diagonal (a calibrated fit lies on it).
    Returns the matplotlib Axes."""
    if not all(hasattr(calibrated, a)
               for a in ("fit", "knots_x", "knots_y", "phi", "response")):
        raise TypeError(f"calibrated must be a CalibratedGBM (what pygbm.calibrate() "
                        f"returns), got {type(calibrated).__name__}")
    ax = axes_for(ax, FIGURE_SIZE)
    kx = calibrated.knots_x
    lo, hi = float(kx.min()), float(kx.max())
    grid = np.linspace(lo, hi, MAP_POINTS)
    ky = calibrated.knots_y
    top = max(hi, float(np.max(ky)))
    # the diagonal from 0 for probabilities and counts, else across the knots (a
    # gaussian fit's responses may be all negative, or far from 0)
    bottom = 0.0 if calibrated.fit.distribution.response_link in NON_NEGATIVE_LINKS else \
        min(lo, float(np.min(ky)))
    ax.plot([bottom, top], [bottom, top], color=DIAGONAL_COLOR, linestyle="--", linewidth=1,
            label="y = x (calibrated)")
    ax.plot(grid, calibrated.calibrate_values(grid), color=MAP_COLOR,
            label=f"calibration map ({calibrated.ends} ends)")
    size = MIN_POINT + SPREAD_POINT * calibrated.weight / calibrated.weight.max()
    ax.scatter(calibrated.phi, calibrated.response, s=size, color=POINT_COLOR, zorder=3,
               label="control points")
    ax.set_xlabel("predicted expected response")
    ax.set_ylabel("observed mean response")
    ax.legend(loc="upper left")
    return ax
