"""Langford's control points and the calibrated map (pygbm/calibration/points.py,
issue 23) on a hand example: bins, end points, tied predictions, zeros counted 1/l,
pooled violators."""
from __future__ import annotations

import numpy as np
import pytest

from pygbm.calibration import control_points, knots

# the 10-row hand example: 2 bins of 5 rows
PHI = np.array([0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8])
Y = np.array([0, 0, 1, 0, 0, 1, 0, 1, 1, 1], dtype=float)


def _map(ends, w=None, monotone=False, y=Y):
    w = np.ones(10) if w is None else w
    cx, cy, cw, rows = control_points(PHI, y, w, 2, monotone)
    return cx, cy, cw, rows, knots(cx, cy, cw, PHI, y, ends, probability=True)


def test_hand_example_control_points_and_interpolation():
    cx, cy, cw, rows, (kx, ky) = _map("flat")
    np.testing.assert_allclose(cx, [0.16, 0.6])
    np.testing.assert_allclose(cy, [0.2, 0.8])
    np.testing.assert_array_equal(cw, [5, 5])
    np.testing.assert_array_equal(rows, [5, 5])
    np.testing.assert_allclose(kx, cx) and np.testing.assert_allclose(ky, cy)
    # interpolation, and flat beyond the outermost control points (clamped)
    np.testing.assert_allclose(np.interp([0.38, 0.01, 0.95], kx, ky), [0.5, 0.2, 0.8])


def test_hand_example_langford_end_points():
    cx, cy, _, _, (kx, ky) = _map("langford")
    np.testing.assert_allclose(kx, [0.0, 0.16, 0.6, 1.0])
    np.testing.assert_allclose(ky, [0.0, 0.2, 0.8, 1.0])
    np.testing.assert_allclose(np.interp([0.08, 0.8], kx, ky), [0.1, 0.9])
    # not a probability: the sample's (min phi, min y) and (max phi, max y)
    kx2, ky2 = knots(cx, cy, np.ones(2), PHI, Y * 3, "langford", probability=False)
    np.testing.assert_allclose(kx2, [0.05, 0.16, 0.6, 0.8])
    np.testing.assert_allclose(ky2, [0.0, 0.2, 0.8, 3.0])


def test_a_bin_of_tied_predictions_is_at_them():
    """A bin's mean prediction stays within its rows' predictions: the weighted
    mean of 39 equal values rounds one ulp above them, and Langford's end point
    at that prediction then calibrated the whole tied block to the smallest
    response (found by an audit on boston)."""
    phi = np.r_[np.full(39, 20.93), np.linspace(21.0, 25.0, 39)]
    y = np.r_[np.full(39, 14.0), np.linspace(10.0, 30.0, 39)]
    y[0] = 5.0
    assert np.sum(phi[:39]) / 39 != 20.93                 # the rounding this is about
    cx, cy, cw, _ = control_points(phi, y, np.ones(78), 2)
    assert cx[0] == 20.93
    kx, ky = knots(cx, cy, cw, phi, y, "langford", probability=False)
    assert kx[0] == 20.93 and ky[0] == cy[0]               # no end point on the bin
    assert np.interp(20.93, kx, ky) == pytest.approx(np.mean(y[:39]))


def test_hand_example_zeros_count_one_over_l():
    l = 0.5
    w = np.where(Y == 0, 1 / l, 1.0)
    cx, cy, cw, _, _ = _map("flat", w=w)
    np.testing.assert_allclose(cx, [1.45 / 9, 3.5 / 6])
    np.testing.assert_allclose(cy, [1 / 9, 4 / 6])
    np.testing.assert_allclose(cw, [9, 6])


def test_monotone_pools_adjacent_violators():
    y = np.array([0, 1, 1, 1, 1, 0, 0, 0, 1, 0], dtype=float)     # bins: 0.8 then 0.2
    _, cy, _, _, _ = _map("flat", y=y)
    np.testing.assert_allclose(cy, [0.8, 0.2])
    _, cy, _, _, _ = _map("flat", y=y, monotone=True)
    np.testing.assert_allclose(cy, [0.5, 0.5])


def test_tied_predictions_share_a_bin_whatever_the_row_order():
    """Langford's bins are ranges of the prediction: rows with the same prediction
    fall in one bin. array_split cut ties by the rows' order, so a calibration sample
    sorted by its response got other control points (here 0 and 0.22 for 0.1)."""
    from pygbm.calibration.points import equal_count_bins

    phi = np.repeat([0.1, 0.3], 50)
    y = np.r_[np.repeat([1.0, 0.0], [5, 45]), np.repeat([1.0, 0.0], [15, 35])]
    shuffled = np.random.default_rng(1).permutation(100)
    for order in (np.arange(100), np.argsort(y, kind="stable"), shuffled):
        cx, cy, cw, rows = control_points(phi[order], y[order], np.ones(100), 4)
        np.testing.assert_allclose(cx, [0.1, 0.3]) and np.testing.assert_allclose(cy, [0.1, 0.3])
        np.testing.assert_array_equal(rows, [50, 50])
    # a cut inside a run of ties moves to its nearer end (the start on a draw)
    p = np.array([1, 1, 1, 2, 2, 3, 3, 3, 3, 4.0])
    assert [p[g].tolist() for g in equal_count_bins(p, 3)] == \
        [[1, 1, 1], [2, 2], [3, 3, 3, 3, 4]]
    assert [g.tolist() for g in equal_count_bins(np.arange(10.0), 3)] == \
        [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]            # no ties: array_split's sizes
    assert [g.size for g in equal_count_bins(np.ones(7), 3)] == [7]
