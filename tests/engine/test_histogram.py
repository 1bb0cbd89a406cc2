"""Histograms (engine/histogram.py): mergeable, and the counted ones equal
direct per-cell sums."""
from __future__ import annotations

import numpy as np
import pytest

from pygbm.engine.binned import BinnedTrainingData
from pygbm.engine.histogram import HistogramBuilder
from pygbm.engine.split import Response


def _data(rng, n, max_bins):
    x = np.column_stack([rng.normal(size=n), rng.integers(0, 6, n).astype(float),
                         rng.normal(size=n)])
    x[rng.random(n) < 0.1, 2] = np.nan
    x[rng.random(n) < 0.05, 1] = np.nan
    return BinnedTrainingData(x, np.array([0, 6, 0]), np.zeros(3, dtype=int), max_bins)


@pytest.mark.parametrize("weighted", [False, True])
def test_histogram_of_two_row_sets_is_the_sum_of_theirs(weighted):
    """Disjoint row sets: the histogram of their union is the merge of theirs,
    exactly (packed integer columns with unit weights; floating columns with
    values whose sums are exact, here multiples of 1/8)."""
    rng = np.random.default_rng(5)
    n = 4000
    data = _data(rng, n, 32)
    z = rng.normal(size=n) if not weighted else rng.integers(-40, 40, n) / 8.0
    w = np.ones(n) if not weighted else rng.integers(1, 4, n).astype(float)
    builder = HistogramBuilder(data, Response(w * z, w, not weighted))
    assert builder.packed == (not weighted)
    rows = np.flatnonzero(rng.random(n) < 0.7)
    part = rng.random(rows.size) < 0.4
    a, b = rows[part], rows[~part]
    whole = builder.build(rows)
    merged = builder.build(a) + builder.build(b)
    np.testing.assert_array_equal(merged.raw, whole.raw)
    np.testing.assert_array_equal(builder.build(a).merge(builder.build(b)).sums(), whole.sums())
    # and the remainder of a part is the other part's histogram
    np.testing.assert_array_equal(builder.remainder(whole, [builder.build(a)]).raw,
                                  builder.build(b).raw)


def test_float_histograms_merge_to_rounding():
    rng = np.random.default_rng(6)
    n = 3000
    data = _data(rng, n, 16)
    z, w = rng.normal(size=n), rng.uniform(0.5, 2.0, n)
    builder = HistogramBuilder(data, Response(w * z, w, False))
    rows = np.arange(n)
    a, b = rows[: n // 3], rows[n // 3:]
    np.testing.assert_allclose((builder.build(a) + builder.build(b)).sums(),
                               builder.build(rows).sums(), rtol=1e-12, atol=1e-12)


def test_counted_histogram_is_the_per_cell_sums():
    rng = np.random.default_rng(7)
    n = 2000
    data = _data(rng, n, 16)
    z, w = rng.normal(size=n), rng.uniform(0.5, 2.0, n)
    hist = HistogramBuilder(data, Response(w * z, w, False)).build(np.arange(n)).sums()
    for j in range(data.p):
        cells = data.codes[:, j]
        np.testing.assert_allclose(hist[np.unique(cells), 2],
                                   np.bincount(cells)[np.unique(cells)])
        np.testing.assert_allclose(
            hist[np.unique(cells), 1], np.bincount(cells, w)[np.unique(cells)], rtol=1e-12)
