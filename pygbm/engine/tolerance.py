"""The exact search's decision: which candidates R's arithmetic must settle,
and that arithmetic.

The gains that rank the candidates (:mod:`.kernels`, from quantized sums with
unit weights) are within a proven bound of R's (:class:`Tolerance`); every
candidate within that bound of the best is re-evaluated here with R's own
running sums: left sums accumulated row by row from the first non-missing
row, right sums as the node total minus one row at a time
(:func:`r_sums`, :func:`r_gains`, :func:`record`, :func:`unit_record`), so
that the split chosen, its statistics and its gain are R's to the last bit.

When no approximate gain stands above the bound (a *pure* node, whose rows
all have the same working response, has true gains 0 and R's computed gains
are rounding noise of order 1e-29), the approximate ranking says nothing:
every admissible position is then a candidate, R's arithmetic scores them all
and its noise decides, as in R. Gains ranked from floating sums (a
histogram's) have the bound of :class:`FloatTolerance`.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

import math

from .._rmath import running_minus, sequential_minus, sequential_sum
from .split import NEAR_TIE, Side, Split, improvement, midpoints

#: double precision unit roundoff
EPS = np.finfo(float).eps
#: a node ``level`` splits below the root has its floating sums (R's running
#: sums, a histogram's counted and subtracted cells) within
#: (SUM_ERROR_PER_LEVEL * level + SUM_ERROR_BASE) (n + width) EPS sum|w z|
#: of the exact ones, n and sum|w z| the tree's bag's (see FloatTolerance)
SUM_ERROR_PER_LEVEL, SUM_ERROR_BASE = 2.0, 8.0
#: relative margin on that bound for the first-order rounding analysis
#: (gamma_n = n EPS / (1 - n EPS) below 1.01 n EPS for n < 4e13)
SUM_ERROR_MARGIN = 1.01


class Tolerance:
    """The error bound of the approximate gains of one tree's search.

    ``unit``: unit weights (quantized sums with ``scale``; ``zmax`` the
    largest |w*z|); otherwise the sums are floating and differ from R's by
    rounding only.
    """

    def __init__(self, unit: bool, scale: float, zmax: float):
        self.unit, self.scale, self.zmax = unit, scale, zmax

    def bound(self, m: int, top: float) -> float:
        """Twice a bound on |approximate gain - R's gain| near the top gain ``top``.

        Every gain is a between-group sum of squares, sum_g S_g^2 / W_g - S^2 / W,
        over the left, right and missing groups and the node. With unit
        weights each quantized sum S is off by at most eps_q = m / scale, so a
        term moves by at most 2 |S_g / W_g| eps_q + eps_q^2 / W_g <=
        2 zmax eps_q + eps_q^2 (four terms). The floating-point evaluation of
        the formula (ours and R's) adds rounding of the order of eps m zmax
        (sqrt(2 top) + zmax) and eps top. Weighted nodes use floating sums
        whose only difference to R's is rounding: NEAR_TIE relative.
        """
        if not self.unit:
            return NEAR_TIE * top
        eps_q = m / self.scale
        zmax = self.zmax
        bound = (4.0 * (2.0 * zmax * eps_q + eps_q * eps_q)
                 + 8.0 * EPS * m * zmax * (np.sqrt(2.0 * top) + zmax) + 16.0 * EPS * top)
        return max(2.0 * bound, NEAR_TIE * top)

    def cut(self, m: int, lower: float, upper: float | None = None) -> float:
        """The candidates' threshold (scaled units) were the top gain
        ``lower`` (scaled): every candidate's approximate gain is above it
        when ``lower`` is at most the top gain, since ``t - bound(t)`` grows
        with t wherever it is positive (the bound grows like sqrt(t) and
        EPS t). With a split-gain adjustment the top gain compared is a
        penalised one, while the rounding is that of the raw gains: ``upper``
        (scaled) is then at least the largest raw gain the search can see,
        and the bound is taken there (it grows with its argument)."""
        s2 = self.scale * self.scale
        top = lower if upper is None else upper
        return (lower / s2 - self.bound(m, top / s2)) * s2


class FloatTolerance(NamedTuple):
    """The error bound of gains computed from floating sums (a histogram's)
    against R's, for the nodes of one tree.

    Both are a gain formula evaluated on sums of the node's w*z and w that
    differ from the exact sums by rounding only. R's sums of a node
    ``level`` splits deep come from the root's sequential sum by one running
    subtraction per level (each adds at most ~2 n EPS sum|w z| of error),
    plus the node's own running sums; a histogram's cells are counted
    (~n EPS sum|w z| over all cells) or subtracted from the parent's (the
    errors of both, plus the subtraction's rounding), then summed along the
    buckets (width EPS sum|w z|); evaluating either gain formula is, up to a
    relative 10 EPS, the exact gain of sums moved by another 2 EPS
    sum|w z|. Every sum is so within ``eps_s`` (w*z) and ``eps_w`` (w, 0 with
    unit weights: counts are exact) of the exact one (see :func:`float_gain_bound`).

    The exact gain is sum_g S_g^2 / W_g - S^2 / W over the left, right and
    missing groups and the node. Moving S_g by s and W_g by w moves
    S_g^2 / W_g by at most (2 zmax |s| + s^2 / W_g + zmax^2 |w|) W_g / (W_g - |w|),
    zmax the largest |z| (a group's mean is within it), W_g at least
    ``w_min`` (the smallest positive weight; 1 with unit weights); the node's
    sums move by up to three times the groups'. Hence each computed gain is
    within ``e = shrink (12 zmax eps_s + 12 eps_s^2 / w_min + 6 zmax^2 eps_w)
    + 20 EPS top`` of the exact gain (``shrink = w_min / (w_min - 3 eps_w)``),
    and the two within 2 e of each other.

    Fields: the bag's row count ``n``, the buckets per predictor ``width``,
    sum|w z| ``abs_sum``, sum w ``w_sum`` (0: unit weights), ``zmax`` and
    ``w_min`` as above (:meth:`of_bag`).
    """

    n: int
    width: int
    abs_sum: float
    w_sum: float
    zmax: float
    w_min: float

    @classmethod
    def of_bag(cls, wz: np.ndarray, w: np.ndarray | None, width: int) -> FloatTolerance:
        """The tolerance of a tree whose bag's w*z and w (None: unit weights)
        are ``wz`` and ``w``."""
        if w is None:
            return cls(int(wz.size), int(width), float(np.abs(wz).sum()), 0.0,
                       float(np.abs(wz).max(initial=0.0)), 1.0)
        pos = w > 0.0
        z = np.abs(wz[pos]) / w[pos]
        return cls(int(wz.size), int(width), float(np.abs(wz).sum()), float(w.sum()),
                   float(z.max(initial=0.0)), float(w[pos].min(initial=1.0)))

    def bound(self, level: int, top: float) -> float:
        """Twice a bound on |gain from the floating sums - R's gain| in a node
        ``level`` splits below the root whose top gain is ``top``: every
        candidate whose gain is at least ``top - bound`` may be R's best
        (inf when the weights are too small for the bound)."""
        return float_gain_bound(*self, level, top)


def float_gain_bound(n, width, abs_sum, w_sum, zmax, w_min, level, top):
    """:meth:`FloatTolerance.bound` on its fields (the compiled engine compiles
    this very function: :mod:`.compiled.binned_r_choice`).

    eps_s and eps_w bound the rounding of any sum of w*z and of w in a node
    ``level`` splits below the root (see :class:`FloatTolerance`)."""
    rounds = (SUM_ERROR_PER_LEVEL * level + SUM_ERROR_BASE) * (n + width) * EPS \
        * SUM_ERROR_MARGIN
    eps_s = rounds * abs_sum
    eps_w = rounds * w_sum
    room = w_min - 3.0 * eps_w
    if not room > 0.0:
        return math.inf
    e = (w_min / room * (12.0 * zmax * eps_s + 12.0 * eps_s * eps_s / w_min
                         + 6.0 * zmax * zmax * eps_w)
         + 20.0 * EPS * max(top, 0.0))
    return 4.0 * e


def sign_margin(n, width, abs_sum, w_sum, level, lw, rw, ls, rs):
    """A bound on |the floating sums' ``rs * lw - ls * rw`` - R's| in a node ``level``
    splits deep (the fields of :class:`FloatTolerance` before ``zmax``): the sign of
    a monotone constraint's check that R's sums decide where the histogram's value
    lies within it of 0 (arrays or numbers; the compiled engine compiles this very
    function). Each sum is within eps_s (w*z) and eps_w (w) of the exact one in
    both, as in :func:`float_gain_bound`, and each product rounds by EPS."""
    rounds = (SUM_ERROR_PER_LEVEL * level + SUM_ERROR_BASE) * (n + width) * EPS \
        * SUM_ERROR_MARGIN
    eps_s = rounds * abs_sum
    eps_w = rounds * w_sum
    one = eps_s * (lw + rw) + eps_w * (abs(ls) + abs(rs)) + 2.0 * eps_s * eps_w \
        + 2.0 * EPS * (abs(rs * lw) + abs(ls * rw))
    return 2.0 * one


class RSums(NamedTuple):
    """R's running sums along a predictor's sorted rows (see :func:`r_sums`)."""

    nm: int
    ms: float
    mw: float
    left_z: np.ndarray
    left_w: np.ndarray
    right_z: np.ndarray
    right_w: np.ndarray


def missing_sums(g, h, nm: int) -> tuple[float, float]:
    """Sum of w*z and weight of the ``nm`` missing rows (they come first),
    added in R's order."""
    if nm == 0:
        return 0.0, 0.0
    ms = sequential_sum(g[:nm])
    mw = float(nm) if h is None else sequential_sum(h[:nm])
    return ms, mw


def r_sums(g, h, total: Side, nm: int) -> RSums:
    """R's running sums along the sorted rows ``g`` (a prefix of the node's).

    The missing group's count and sums, and, per position k (left = rows
    nm..k), the left sums accumulated from the first non-missing row (index
    k - nm) and the right sums as the node total minus every row up to k,
    one row at a time (index k).
    """
    ms, mw = missing_sums(g, h, nm)
    end = g.size
    left_z = g[nm:].cumsum()
    right_z = running_minus(total.sum_z, g)
    if h is None:
        left_w = np.arange(1, end - nm + 1, dtype=float)
        right_w = total.w - np.arange(1, end + 1, dtype=float)
    else:
        left_w = h[nm:].cumsum()
        right_w = running_minus(total.w, h)
    return RSums(nm, ms, mw, left_z, left_w, right_z, right_w)


def r_gains(sums: RSums, pos: np.ndarray, mono: int) -> np.ndarray:
    """R's gain at the positions ``pos`` (each already admissible by size
    and ties) from the predictor's :func:`r_sums`; 0 where its monotone
    constraint ``mono`` fails."""
    nm, ms, mw, left_z, left_w, right_z, right_w = sums
    ls, lw = left_z[pos - nm], left_w[pos - nm]
    rs, rw = right_z[pos], right_w[pos]
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.asarray(improvement(lw, rw, mw, ls, rs, ms), dtype=float)
    if mono:
        gain = np.where(mono * (rs * lw - ls * rw) > 0, gain, 0.0)
    return gain


def _split(v: int, value: float, left: Side, right: Side, total: Side,
           missing: tuple[float, float, int]) -> Split:
    """The split with these sides and R's gain of them (``missing``: the
    missing group's sum of w*z, weight and rows)."""
    ms, mw, nm = missing
    miss = Side(ms, mw, nm) if nm else Side(total.sum_z, total.w, 0)
    gain = improvement(left.w, right.w, mw, left.sum_z, right.sum_z, ms)
    return Split(float(gain), int(v), float(value), None, left, right, miss, nm == 0)


def record(v: int, x: np.ndarray, total: Side, pos: int, sums: RSums) -> Split:
    """The chosen split of continuous predictor ``v`` after sorted position
    ``pos`` (``x`` its sorted values), from its :func:`r_sums`."""
    k = int(pos)
    nm, ms, mw, left_z, left_w, right_z, right_w = sums
    n_left = k + 1 - nm
    left = Side(float(left_z[k - nm]), float(left_w[k - nm]), int(n_left))
    right = Side(float(right_z[k]), float(right_w[k]), int(total.n - nm - n_left))
    return _split(v, float(midpoints(x[k], x[k + 1])), left, right, total, (ms, mw, nm))


def unit_record(v: int, g: np.ndarray, nm: int, total: Side, value: float) -> Split:
    """The split of continuous predictor ``v`` after sorted position
    ``k = g.size - 1``, unit weights, ``g`` the w*z of the node's rows up to
    ``k`` in the predictor's order (:func:`record` in fewer operations)."""
    k = g.size - 1
    rs = sequential_minus(total.sum_z, g)             # node total minus each row
    ls = sequential_sum(g[nm:])
    ms, mw = missing_sums(g, None, nm)
    left = Side(ls, float(k + 1 - nm), k + 1 - nm)
    right = Side(rs, total.w - (k + 1), total.n - (k + 1))
    return _split(v, value, left, right, total, (ms, mw, nm))
