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
from .fitting import calibrate
from .model import CalibratedGBM
from .points import DEFAULT_BINS, ENDS, control_points, equal_count_bins, knots
from .report import calibration_report

__all__ = ["CalibratedGBM", "DEFAULT_BINS", "ENDS", "calibrate", "calibration_report",
           "control_points", "equal_count_bins", "knots"]
