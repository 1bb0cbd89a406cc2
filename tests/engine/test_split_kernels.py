"""The gain kernels of the exact search (engine/split.py) on their own,
against the gain formula written out position by position (test_split.py
tests the search built on them against R's scan)."""
from __future__ import annotations

import numpy as np
import pytest

from pygbm.engine.data import TrainingData
from pygbm.engine.split import ExactSearch, improvement


@pytest.mark.parametrize("m", [2, 3, 4, 5, 17, 40, 41, 300, 301])
@pytest.mark.parametrize("min_obs", [0, 1, 2, 7, 20, 200])
def test_plain_kernel_layout_gives_every_positions_gain(m, min_obs):
    """The plain kernel's gains, laid out in two halves (ExactSearch._gain_plain),
    are the gain formula at every position in order: (ls - total lw/m)^2
    m / (lw rw) where both sides have n_minobsinnode rows, 0 elsewhere; the
    node's quantized w*z are left as they were."""
    rng = np.random.default_rng(m * 1000 + min_obs)
    x = rng.random((m, 3))
    data = TrainingData(x, np.zeros(3, dtype=int), np.zeros(3, dtype=int))
    search = ExactSearch(data, rng.normal(size=m), np.ones(m), True, min_obs)
    G = rng.integers(-2 ** 40, 2 ** 40, size=(3, m))
    before = G.copy()
    total = float(G[0].sum())
    gains = search._gain_plain(G, search._plain_terms(m, total))
    np.testing.assert_array_equal(G, before)
    got = gains.transpose(0, 2, 1).reshape(3, -1)[:, :m - 1]
    lw = np.arange(1.0, m)
    rw = m - lw
    ls = np.cumsum(G, axis=1)[:, :m - 1].astype(float)
    want = (ls - total * lw / m) ** 2 * m / (lw * rw)
    admissible = (lw >= max(min_obs, 1)) & (rw >= max(min_obs, 1))
    np.testing.assert_array_equal(got[:, ~admissible], 0.0)
    # (the kernel rounds the shift to an integer: within the tolerance of the search)
    np.testing.assert_allclose(got[:, admissible], want[:, admissible], rtol=1e-6)


@pytest.mark.parametrize("m", [2, 3, 17, 40, 41, 301])
@pytest.mark.parametrize("min_obs", [0, 1, 7, 200])
def test_missing_kernel_gives_three_group_gain_at_every_position(m, min_obs):
    """The kernel for predictors with missing values (first in their order,
    ``nm`` of them: none, some, all but one, all) gives R's three-group gain
    written out per position, in the same two-half layout, and 0 where a
    side (left: non-missing rows) has fewer than n_minobsinnode rows."""
    rng = np.random.default_rng(m * 1000 + min_obs)
    x = rng.random((m, 3))
    data = TrainingData(x, np.zeros(3, dtype=int), np.zeros(3, dtype=int))
    search = ExactSearch(data, rng.normal(size=m), np.ones(m), True, min_obs)
    nm = np.array([0, m // 3, m - 1, m, 1])[:5 if m > 2 else 4]
    G = rng.integers(-2 ** 40, 2 ** 40, size=(nm.size, m))
    G[1:] = G[0]                                      # one node: the same rows
    G[1:] = rng.permuted(G[1:], axis=1)               # in each predictor's order
    before = G.copy()
    total = float(G[0].sum())
    gains = search._gain_missing(G, nm, total)
    np.testing.assert_array_equal(G, before)
    got = gains.transpose(0, 2, 1).reshape(nm.size, -1)[:, :m - 1]
    k1 = np.arange(1.0, m)
    ls = np.cumsum(G, axis=1)[:, :m - 1].astype(float)
    mo = max(min_obs, 1)
    for r, n_miss in enumerate(nm.tolist()):
        ms = float(G[r, :n_miss].sum())
        lw, rw = k1 - n_miss, m - k1
        left, right = ls[r] - ms, total - ls[r]
        with np.errstate(divide="ignore", invalid="ignore"):
            want = improvement(lw, rw, float(n_miss), left, right, ms)
        admissible = (lw >= mo) & (rw >= mo)
        np.testing.assert_array_equal(got[r, ~admissible], 0.0, err_msg=f"nm={n_miss}")
        want = want[admissible]
        np.testing.assert_allclose(got[r, admissible], want, rtol=1e-6,
                                   atol=1e-9 * float(np.abs(want).max(initial=0.0)),
                                   err_msg=f"nm={n_miss}")
