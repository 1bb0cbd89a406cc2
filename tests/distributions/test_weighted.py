"""Grouped weighted median / quantile / t M-estimate (pygbm.distributions._weighted)."""
from __future__ import annotations

import numpy as np
import pytest

from pygbm.distributions._weighted import (
    LOCATIONM_EPS, MAD_SCALE, grouped_location_m, grouped_weighted_median,
    grouped_weighted_quantile,
)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 10, 11, 50])
def test_unit_weights_median_is_ordinary_median(n):
    v = np.random.default_rng(n).normal(size=n)
    assert grouped_weighted_median(v)[0] == np.median(v)
    # equal, exactly representable weights: the same (other equal weights
    # follow R's floating-point sums, which may miss the exact half)
    assert grouped_weighted_median(v, np.full(n, 0.25))[0] == np.median(v)


@pytest.mark.parametrize("n", [1, 2, 5, 10, 20, 33, 506])
@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.25, 0.3, 0.5, 0.7, 0.9, 0.999])
def test_unit_weights_quantile_is_r_rule(n, alpha):
    """R's quantile.cpp: the order statistic at 0-based index int(n * alpha)."""
    v = np.random.default_rng(n).normal(size=n)
    assert grouped_weighted_quantile(v, alpha)[0] == np.sort(v)[int(n * alpha)]
    assert grouped_weighted_quantile(v, alpha, np.full(n, 3.3))[0] == np.sort(v)[int(n * alpha)]


def test_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(1)
    for _ in range(50):
        n = int(rng.integers(1, 12))
        v = rng.normal(size=n)
        k = rng.integers(1, 4, size=n)
        rep = np.repeat(v, k)
        assert grouped_weighted_median(v, k.astype(float))[0] == np.median(rep)
        for a in (0.2, 0.5, 0.75):
            q = grouped_weighted_quantile(v, a, k.astype(float))[0]
            assert q == np.sort(rep)[int(rep.size * a)]


def test_zero_weights_are_ignored():
    v = np.array([4.0, 1.0, 3.0, 2.0])
    w = np.array([0.0, 1.0, 1.0, 0.0])
    assert grouped_weighted_median(v, w)[0] == 2.0         # median of {1, 3}
    assert grouped_weighted_quantile(v, 0.5, w)[0] == 3.0   # R's rule on {1, 3}
    assert grouped_weighted_median(v, np.zeros(4))[0] == np.median(v)


def test_grouped_equals_per_group_and_empty_groups():
    rng = np.random.default_rng(2)
    n, k = 200, 6
    v = rng.normal(size=n)
    w = rng.uniform(0.1, 3, size=n)
    g = rng.integers(0, k - 1, size=n)            # group k-1 stays empty
    med = grouped_weighted_median(v, w, g, k, empty_value=-7.0)
    qs = grouped_weighted_quantile(v, 0.3, w, g, k, empty_value=-7.0)
    lm = grouped_location_m(v, 4.0, w, g, k, empty_value=-7.0)
    for j in range(k - 1):
        rows = g == j
        assert med[j] == grouped_weighted_median(v[rows], w[rows])[0]
        assert qs[j] == grouped_weighted_quantile(v[rows], 0.3, w[rows])[0]
        assert lm[j] == pytest.approx(grouped_location_m(v[rows], 4.0, w[rows])[0], rel=1e-14)
    assert med[-1] == qs[-1] == lm[-1] == -7.0


def test_weighted_quantile_minimises_check_loss():
    rng = np.random.default_rng(3)
    v = rng.normal(size=40)
    w = rng.uniform(0.1, 2, size=40)
    for a in (0.1, 0.5, 0.8):
        q = grouped_weighted_quantile(v, a, w)[0]
        loss = lambda c: np.sum(w * np.where(v > c, a * (v - c), (1 - a) * (c - v)))  # noqa: E731
        for d in (1e-3, 0.1, 1.0):
            assert loss(q) <= loss(q + d) + 1e-12 and loss(q) <= loss(q - d) + 1e-12


def test_location_m_solves_its_estimating_equation():
    rng = np.random.default_rng(4)
    x = np.r_[rng.normal(size=80), 25.0, 30.0]          # two gross outliers
    w = rng.uniform(0.5, 1.5, size=x.size)
    df = 4.0
    b = grouped_location_m(x, df, w)[0]
    med = grouped_weighted_median(x, w)[0]
    s = max(MAD_SCALE * grouped_weighted_median(np.abs(x - med), w)[0], LOCATIONM_EPS)
    t = (x - b) / s
    assert abs(np.sum(w * t / (df + t * t))) < 1e-6 * np.sum(w)
    assert abs(b) < 0.5 < abs(np.average(x, weights=w))  # robust, unlike the mean
    assert grouped_location_m(np.array([3.0]), df)[0] == 3.0
