"""The columns ordered boosting's histograms sum, as exact integers.

Every in-bag row of a node adds to its buckets R's plain columns (w*z, w
and a row count, at the fit's own predictions) and, per fold k of the
iteration's permutation (:mod:`.folds`), its working response from fold k's
supporting model: as *tail* sums when the row is in fold k's tail, as
*body* sums when it is before it. A row in the tail of fold j is in the
bodies of the folds after j only, so it has one tail entry and a few body
entries; the histogram keeps the tail block and the body block apart.

Each column is rounded once per tree to integer multiples of a power of two
(:func:`quantize`): integer sums are exact in any order, so the compiled
histograms (:mod:`.compiled`) and the NumPy reference sum the same numbers
whatever their loops, and a node's largest child is its parent's histogram
minus its siblings', exactly. With unit weights a value and its row count
share one int64 (*packed*: the value shifted left by ``count_bits``, plus
1), as the plain binned mode packs its histogram (:mod:`pygbm.engine.histogram`).

A histogram row (one bucket) holds ``plain`` plain columns (1 packed, or
w*z, w, count), then per fold, last fold first, its tail entry and its body
entry of ``width`` columns each (1 packed, or w*z and w): most rows are in
the last folds, so a row's few entries sit next to its plain columns.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: magnitude bits a packed int64 sum may use (63 exist; one spare)
INT64_BITS = 62
#: largest power-of-two exponent of a scale (tiny responses)
MAX_SCALE_BITS = 400


def count_bits(n: int) -> int:
    """Bits of a packed cell's row count for ``n`` training rows."""
    return max(int(n).bit_length(), 1)


def scale_of(values: np.ndarray, bits: int) -> float:
    """The power of two ``s`` with len(values) * max|values| * s < 2**(bits - 1):
    any sum of the rounded values then stays below 2**bits in magnitude (the
    rounding adds at most half a unit per row). 1.0 for zero or non-finite
    values. Exact in any engine: a maximum and a binary exponent."""
    big = float(np.abs(values).max(initial=0.0)) * values.shape[0]
    if not (big > 0.0 and math.isfinite(big)):
        return 1.0
    return math.ldexp(1.0, min(bits - 1 - math.frexp(big)[1], MAX_SCALE_BITS))


def quantize(values: np.ndarray, bits: int) -> tuple[np.ndarray, float]:
    """``values`` as int64 multiples of ``1 / scale`` (:func:`scale_of`) and
    the float value of one unit (``1 / scale``, exact)."""
    scale = scale_of(values, bits)
    q = np.rint(values * scale).astype(np.int64)
    q[~np.isfinite(values)] = 0
    return q, 1.0 / scale


@dataclass(frozen=True)
class Layout:
    """Where a histogram row keeps its sums: ``plain`` columns (1: packed
    w*z and count; 3: w*z, w, count), then per fold (the last first) a tail
    and a body entry of ``width`` columns (1: packed w*z and count, which is
    the weight with unit weights; 2: w*z and w); ``count_bits`` of the
    packed cells."""

    plain: int
    width: int
    n_folds: int
    count_bits: int

    @property
    def n_columns(self) -> int:
        return self.plain + 2 * self.width * self.n_folds

    def tail_column(self, k):
        """First column of fold ``k``'s tail entry (its body entry follows)."""
        return self.plain + 2 * self.width * (self.n_folds - 1 - k)

    def body_column(self, k):
        """First column of fold ``k``'s body entry."""
        return self.tail_column(k) + self.width


@dataclass(frozen=True, eq=False)
class FoldColumns:
    """One tree's fold columns of one permutation, by training row:
    ``tail_fold[i]`` the fold whose tail holds row i (-1: before the first
    tail), ``values`` (n, K * width) int64 its entry of fold k (k >=
    tail_fold[i]; tail for k = tail_fold[i], body after) at columns
    ``width * k`` to ``width * k + width - 1`` (the entries of earlier folds
    are never read), ``unit`` (n_folds, width) the float value of one integer
    unit of each."""

    tail_fold: np.ndarray
    values: np.ndarray
    unit: np.ndarray
    width: int
    count_bits: int

    @property
    def n_folds(self) -> int:
        return self.unit.shape[0]


def fold_columns(wz: np.ndarray, w: np.ndarray | None, order: np.ndarray,
                 bounds: np.ndarray, tail_fold: np.ndarray) -> FoldColumns:
    """The :class:`FoldColumns` of permutation ``order`` (row at each
    position) from the working responses of its folds' models laid out fold
    after fold (``wz``, and the weights ``w``; None: unit weights, packed),
    fold k over positions [0, bounds[k + 1])."""
    n = order.shape[0]
    n_folds = bounds.shape[0] - 1
    cb = count_bits(n)
    width = 1 if w is None else 2
    values = np.zeros((n, n_folds * width), dtype=np.int64)
    unit = np.empty((n_folds, width))
    start = 0
    for k in range(n_folds):
        m = int(bounds[k + 1])
        rows = order[:m]
        seg = slice(start, start + m)
        if w is None:
            q, unit[k, 0] = quantize(wz[seg], INT64_BITS - 1 - cb)
            values[rows, k] = (q << cb) + 1
        else:
            q, unit[k, 0] = quantize(wz[seg], INT64_BITS - 1)
            qw, unit[k, 1] = quantize(w[seg], INT64_BITS - 1)
            values[rows, 2 * k] = q
            values[rows, 2 * k + 1] = qw
        start += m
    return FoldColumns(tail_fold, values, unit, width, cb)


def plain_columns(wz: np.ndarray, w: np.ndarray, inbag: np.ndarray, unit_weights: bool,
                  cb: int) -> tuple[np.ndarray, np.ndarray]:
    """R's plain columns of the training rows, (n, 1) packed or (n, 3), and
    the float value of one unit of w*z and of w (the scales from the in-bag
    rows, the ones summed)."""
    if unit_weights:
        q, unit_z = quantize(np.where(inbag, wz, 0.0), INT64_BITS - 1 - cb)
        return ((q << cb) + 1)[:, None], np.array([unit_z, 1.0])
    cols = np.empty((wz.shape[0], 3), dtype=np.int64)
    cols[:, 0], unit_z = quantize(np.where(inbag, wz, 0.0), INT64_BITS - 1)
    cols[:, 1], unit_w = quantize(np.where(inbag, w, 0.0), INT64_BITS - 1)
    cols[:, 2] = 1
    return cols, np.array([unit_z, unit_w])


def tail_folds(order: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The fold whose tail holds each training row under permutation
    ``order`` (-1 before the first tail)."""
    pos = np.empty_like(order)
    pos[order] = np.arange(order.shape[0])
    return (np.searchsorted(bounds, pos, side="right") - 1).astype(np.int64)
