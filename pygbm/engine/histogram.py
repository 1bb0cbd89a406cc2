"""Histograms of a node's rows over every bucket of every predictor.

A histogram holds, per cell of the binned data's flat index space
(:mod:`.binned`), the sums over a set of rows of the search columns: w*z,
the weight w (weighted fits only) and the row count. Histograms are
**mergeable**: the histogram of two disjoint row sets is the sum of theirs
(``a + b``, :meth:`Histogram.merge`), so a node's histogram can be counted
by parts (partitions of the data, workers) and added, and the grower counts
only the smaller children of a split: the largest child's histogram is its
parent's minus its siblings'.

With unit weights outside the one-bucket-per-value search, one int64 column
is summed per row (*packed*): w*z quantized (:func:`.fixed_point.quantize`)
and shifted left by ``count_bits``, plus 1, so a single scattered column
gives every bucket's sum of w*z and its exact row count at once; integer
sums are exact in any order, so merged and subtracted histograms equal the
counted ones bit for bit. Floating columns (weights, or one bucket per value
where the sums must be R's) merge to the same sums up to rounding only
(floating addition is not associative).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import kernels
from .fixed_point import quantize
from .kernels import HistogramScratch
from .kernels.reference import packed_histograms
from .split import Response

#: rows per scatter-add call: bounds the temporaries of a histogram pass
CHUNK_ROWS = 8192
#: magnitude bits a packed int64 histogram cell may use (63 exist; one spare
#: absorbs the rounding of every row's quantized w*z)
INT64_BITS = 62


class Packing(NamedTuple):
    """How a packed int64 cell holds its sums: the row count in the low
    ``count_bits`` bits, w*z times ``scale`` above them."""

    count_bits: int
    scale: float


class Histogram:
    """Per-cell sums of the search columns over a set of rows.

    ``raw`` is (n_cells + 1,) int64 when ``packing`` is given, else
    (n_cells + 1, k) floats (sum w*z, [sum w,] count); the last cell is a
    spare one that stays empty.
    """

    __slots__ = ("raw", "packing")

    def __init__(self, raw: np.ndarray, packing: Packing | None):
        self.raw = raw
        self.packing = packing

    def __add__(self, other: Histogram) -> Histogram:
        """The histogram of the union of two disjoint row sets."""
        return Histogram(self.raw + other.raw, self.packing)

    merge = __add__

    def __sub__(self, other: Histogram) -> Histogram:
        """The histogram of this row set less a subset's."""
        return Histogram(self.raw - other.raw, self.packing)

    def sums(self) -> np.ndarray:
        """(n_cells + 1, k) floats: sum w*z, [sum w,] row count per cell."""
        raw, packing = self.raw, self.packing
        if packing is None:
            return raw
        count = raw & ((1 << packing.count_bits) - 1)
        hist = np.empty((raw.shape[0], 2))
        hist[:, 0] = (raw >> packing.count_bits) / packing.scale   # exact: scale is 2**k
        hist[:, 1] = count
        return hist


class HistogramBuilder:
    """Counts the histograms of one tree's nodes on binned data (``data``: a
    :class:`.binned.BinnedTrainingData`) for the working response ``response``."""

    def __init__(self, data, response: Response):
        self.data = data
        wz, w, unit = response
        # Unit weights outside the one-bucket-per-value search: one int64 per
        # row, w*z quantized (as in the exact search) and shifted left by
        # ``count_bits``, plus 1 (see the module's docstring).
        self.packed = unit and not data.exact_bins and packed_histograms()
        if self.packed:
            count_bits = max(int(data.n).bit_length(), 1)
            q, scale = quantize(wz, INT64_BITS - 1 - count_bits)
            self.packing = Packing(count_bits, scale)
            self.cols = (q << count_bits) + 1
        else:
            self.packing = None
            k = 2 if unit else 3
            cols = np.empty((data.n, k))              # the columns summed per bucket
            cols[:, 0] = wz
            if not unit:
                cols[:, 1] = w
            cols[:, -1] = 1.0
            self.cols = cols
        chunk = min(CHUNK_ROWS, data.n)
        self._scratch = HistogramScratch(
            np.empty((chunk, data.p), dtype=data.codes.dtype),
            np.empty((chunk,) + self.cols.shape[1:], dtype=self.cols.dtype),
            data.ones(self.cols.dtype), data.indptr)
        self._kernel = kernels.active().histogram

    def build(self, rows: np.ndarray) -> Histogram:
        """The histogram of ``rows`` (training rows)."""
        return Histogram(self._kernel(self.data.codes, self.cols, rows, self.data.n_cells,
                                      self._scratch), self.packing)

    def remainder(self, parent: Histogram, parts: list[Histogram]) -> Histogram:
        """The histogram of the parent's rows outside ``parts`` (subsets of
        them): the parent's less theirs, one at a time; floating cells of
        empty buckets are set to exact zeros."""
        rest = parent
        for part in parts:
            rest = rest - part
        if rest is parent:
            rest = Histogram(parent.raw.copy(), parent.packing)
        if not self.packed:
            raw = rest.raw
            raw[raw[:, -1] == 0.0] = 0.0            # empty buckets: exact zeros
        return rest
