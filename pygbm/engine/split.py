"""The vocabulary of splits, shared by every search and by the grower.

A split of a node sends its rows to three children: left, right and
missing (R gbm's CNode). Each child is summarised by a :class:`Side` (sum of
w*z, sum of w, row count); :class:`Split` is the chosen split with the three
sides, and :func:`improvement` is R's gain of a split, the weighted
between-group sum of squares of the three groups (``CNode::Improvement``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

#: relative distance below which two candidates' gains are re-evaluated with
#: R's exact (sequential) arithmetic to break the tie as R does
NEAR_TIE = 1e-9
#: the children of a split, in R's order (a row's direction)
LEFT, RIGHT, MISSING = 0, 1, 2


class Response(NamedTuple):
    """What one tree is grown on, per training row: w*z, the weights w, and
    whether every weight is 1 (``unit``: the searches' integer fast path)."""

    wz: np.ndarray
    w: np.ndarray
    unit: bool


@dataclass
class Side:
    """Sufficient statistics of one child: sum of w*z, sum of w, row count."""

    sum_z: float
    w: float
    n: int


@dataclass
class Split:
    """The best split found for a node.

    ``improvement`` is R's gain, what the tree stores. ``penalty`` is what a
    split-gain adjustment (:mod:`.adjustment`) subtracted from it when the
    split was chosen; the grower compares splits by their :attr:`score`.
    """

    improvement: float
    var: int
    value: float                    # split point (continuous)
    left_levels: np.ndarray | None  # level codes sent left (categorical)
    left: Side
    right: Side
    missing: Side                   # the parent's statistics when no row is missing
    missing_empty: bool
    penalty: float = 0.0

    @property
    def score(self) -> float:
        """The gain the split was chosen by: the improvement less the penalty."""
        return self.improvement - self.penalty


def improvement(lw, rw, mw, ls, rs, ms):
    """R's split gain from the left/right/missing weights and sums (vectorised).

    ``mw`` and ``ms`` are scalars or arrays; where ``mw == 0`` the two-group
    formula is used, as in R. A side of weight 0 (rows of weight 0 only) gives R's
    0 / 0: NaN, a gain never chosen.
    """
    if isinstance(lw, float) and (lw == 0.0 or rw == 0.0):
        return math.nan                 # Python's float division would raise
    with np.errstate(divide="ignore", invalid="ignore"):
        return _gain(lw, rw, mw, ls, rs, ms)


def _gain(lw, rw, mw, ls, rs, ms):
    """:func:`improvement`'s formula."""
    t = ls / lw - rs / rw
    two = lw * rw * t * t / (lw + rw)
    if isinstance(mw, float):           # one split (scalars): no array machinery
        if mw == 0.0:
            return two
    elif np.all(np.asarray(mw) == 0.0):
        return two
    three = lw * rw * t * t
    t = ls / lw - ms / mw
    three = three + lw * mw * t * t
    t = rs / rw - ms / mw
    three = three + rw * mw * t * t
    three = three / (lw + rw + mw)
    if isinstance(mw, float):
        return three
    return np.where(np.asarray(mw) == 0.0, two, three)


def midpoints(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Split points between ``lo`` and ``hi`` (elementwise, lo < hi): R's
    midpoint, or ``hi`` itself where rounding puts the midpoint on ``lo``."""
    mid = 0.5 * (lo + hi)
    return np.where(mid > lo, mid, hi)
