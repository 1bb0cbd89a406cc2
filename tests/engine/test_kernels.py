"""The engine's kernels (engine/kernels/) on their own, every registered
implementation against the formulas written out position by position, or a
direct loop (test_exact.py tests the search built on them against R's scan;
a compiled implementation registered beside the NumPy reference is tested
here too, position by position)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.engine import kernels
from pygbm.engine.kernels import GainBlock, HistogramScratch
from pygbm.engine.split import LEFT, MISSING, RIGHT, improvement
from pygbm.engine.tree import ColumnView

IMPLEMENTATIONS = kernels.names()


@pytest.fixture(params=IMPLEMENTATIONS)
def K(request):
    """Each registered kernel implementation."""
    return kernels.get(request.param)


@pytest.mark.parametrize("m", [2, 3, 4, 5, 17, 40, 41, 300, 301])
@pytest.mark.parametrize("min_obs", [0, 1, 2, 7, 20, 200])
def test_plain_kernel_layout_gives_every_positions_gain(K, m, min_obs):
    """The plain kernel's gains, laid out in two halves (gain_plain),
    are the gain formula at every position in order: (ls - total lw/m)^2
    m / (lw rw) where both sides have n_minobsinnode rows, 0 elsewhere; the
    node's quantized w*z are left as they were."""
    rng = np.random.default_rng(m * 1000 + min_obs)
    G = rng.integers(-2 ** 40, 2 ** 40, size=(3, m))
    before = G.copy()
    total = float(G[0].sum())
    gains = K.gain_plain(G, K.plain_terms(m, total, min_obs, np.arange(1.0, m + 1.0)))
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
def test_missing_kernel_gives_three_group_gain_at_every_position(K, m, min_obs):
    """The kernel for predictors with missing values (first in their order,
    ``nm`` of them: none, some, all but one, all) gives R's three-group gain
    written out per position, in the same two-half layout, and 0 where a
    side (left: non-missing rows) has fewer than n_minobsinnode rows."""
    rng = np.random.default_rng(m * 1000 + min_obs)
    nm = np.array([0, m // 3, m - 1, m, 1])[:5 if m > 2 else 4]
    G = rng.integers(-2 ** 40, 2 ** 40, size=(nm.size, m))
    G[1:] = G[0]                                      # one node: the same rows
    G[1:] = rng.permuted(G[1:], axis=1)               # in each predictor's order
    before = G.copy()
    total = float(G[0].sum())
    gains = K.gain_missing(G, nm, total, min_obs, np.arange(1.0, m + 1.0))
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


def _node_block(rng, pc, m, weights, missing):
    """A node's continuous block: the same rows in each predictor's order,
    ``nm`` missing rows first, and what the kernels read of it."""
    wz = rng.normal(size=m) * 3.0
    w = rng.uniform(0.5, 2.0, m) if weights else None
    orders = [rng.permutation(m) for _ in range(pc)]
    G = np.array([wz[o] for o in orders])
    H = None if w is None else np.array([w[o] for o in orders])
    nm = rng.integers(1, m // 3 + 1, pc) if missing else np.zeros(pc, dtype=np.intp)
    nm[0] = 0
    return GainBlock(G.cumsum(axis=1), G, H, nm.astype(np.intp))


def _gain_loop(block, r, min_obs):
    """R's gain at every position of predictor row ``r``, one at a time."""
    _, G, H, nm, _ = block
    g = G[r]
    h = np.ones_like(g) if H is None else H[r]
    m, k0 = g.size, int(nm[r])
    ms, mw = float(g[:k0].sum()), float(h[:k0].sum())
    out = np.zeros(m - 1)
    for k in range(m - 1):
        n_left, n_right = k + 1 - k0, m - 1 - k
        if n_left < max(min_obs, 1) or n_right < min_obs:
            continue
        ls, lw = float(g[k0:k + 1].sum()), float(h[k0:k + 1].sum())
        rs, rw = float(g[k + 1:].sum()), float(h[k + 1:].sum())
        out[k] = max(improvement(lw, rw, mw, ls, rs, ms), 0.0)
    return out


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("min_obs", [1, 3])
def test_row_kernels_give_every_positions_gain(K, seed, min_obs):
    """gain_simple (no missing value), gain_unit_missing (the rows with
    missing values) and gain_general (weights) fill every position of their
    rows with R's gain."""
    rng = np.random.default_rng(seed)
    pc, m = 4, 23
    cases = [(False, False), (False, True), (True, False), (True, True)]
    for weights, missing in cases:
        block = _node_block(rng, pc, m, weights, missing)
        gain = np.full((pc, m - 1), np.nan)
        rows = np.arange(pc)
        if weights:
            K.gain_general(block, rows, min_obs, gain)
        elif missing:
            rows = np.flatnonzero(block.nm)
            K.gain_unit_missing(block, rows, min_obs, gain)
        else:
            terms = K.simple_terms(m, float(block.ls[0, -1]), min_obs)
            K.gain_simple(block, rows, terms, gain)
        for r in rows:
            want = _gain_loop(block, r, min_obs)
            np.testing.assert_allclose(gain[r], want, rtol=1e-9, atol=1e-12,
                                       err_msg=f"weights={weights} missing={missing}")


def test_monotone_kernel_keeps_the_constrained_positions(K):
    """monotone zeroes the positions whose right mean is not above (+1) or
    below (-1) the left mean, for the constrained rows only."""
    rng = np.random.default_rng(3)
    pc, m = 3, 30
    block = _node_block(rng, pc, m, True, True)
    gain = np.ones((pc, m - 1))
    mono = np.array([1, -1, 0])
    K.monotone(block, mono, False, gain)
    _, G, H, nm, _ = block
    for r in range(pc):
        k0 = int(nm[r])
        for k in range(m - 1):
            ls, lw = G[r, k0:k + 1].sum(), H[r, k0:k + 1].sum()
            rs, rw = G[r, k + 1:].sum(), H[r, k + 1:].sum()
            keep = mono[r] == 0 or mono[r] * (rs * lw - ls * rw) > 0
            assert gain[r, k] == float(keep), (r, k)


@pytest.mark.parametrize("k", [1, 3])
def test_histogram_kernel_is_a_scatter_add(K, k):
    """Every row adds its columns to each of its cells."""
    rng = np.random.default_rng(k)
    n, p, n_cells, chunk = 300, 4, 40, 64
    codes = rng.integers(0, n_cells, size=(n, p))
    cols = rng.integers(-50, 50, size=n) if k == 1 else rng.normal(size=(n, k))
    rows = np.flatnonzero(rng.random(n) < 0.6)
    scratch = HistogramScratch(np.empty((chunk, p), dtype=codes.dtype),
                               np.empty((chunk,) + cols.shape[1:], dtype=cols.dtype),
                               np.ones(chunk * p, dtype=cols.dtype),
                               np.arange(0, (chunk + 1) * p, p, dtype=codes.dtype))
    got = K.histogram(codes, cols, rows, n_cells, scratch)
    want = np.zeros((n_cells + 1,) + cols.shape[1:], dtype=cols.dtype)
    for r in rows:
        for c in codes[r]:
            want[c] += cols[r]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_route_kernel_sends_rows_left_right_missing(K):
    rng = np.random.default_rng(4)
    x = rng.normal(size=200)
    x[rng.random(200) < 0.2] = np.nan
    got = K.route(x, 0.1, None)
    want = [MISSING if np.isnan(v) else (LEFT if v < 0.1 else RIGHT) for v in x]
    np.testing.assert_array_equal(got, want)
    levels = np.where(np.isnan(x), np.nan, rng.integers(0, 5, 200))
    goes_right = np.array([0, 1, 1, 0, 1, 0], dtype=np.int8)       # last: NaN's slot
    got = K.route(levels, 0.0, goes_right)
    want = [MISSING if np.isnan(v) else int(goes_right[int(v)]) for v in levels]
    np.testing.assert_array_equal(got, want)


def test_kernels_are_selected_by_name():
    assert kernels.active() is kernels.get("numpy")
    with kernels.use("numpy") as k:
        assert kernels.active() is k
    with pytest.raises(ValueError, match="unknown kernel"):
        kernels.get("no-such-kernels")


def test_terminal_nodes_kernel_matches_the_reference_walk(K):
    """Prediction: each row's terminal node, whatever the other rows."""
    rng = np.random.default_rng(8)
    n = 400
    x = np.column_stack([rng.normal(size=n), rng.integers(0, 4, n).astype(float)])
    x[rng.random(n) < 0.1, 0] = np.nan
    var_type = np.array([0, 4])
    df = pd.DataFrame({"a": x[:, 0], "b": pd.Categorical(x[:, 1].astype(int)),
                       "y": np.nan_to_num(x[:, 0]) + x[:, 1] + rng.normal(size=n)})
    fit = pygbm.gbm("y ~ a + b", df, distribution="gaussian", n_trees=5,
                    interaction_depth=3, n_minobsinnode=5, random_state=1)
    view = ColumnView(x, var_type)
    rows = rng.permutation(n)[: n // 2]
    for tree in fit.trees:
        ref = kernels.REFERENCE.terminal_nodes(tree, view, fit.c_splits)
        np.testing.assert_array_equal(K.terminal_nodes(tree, view, fit.c_splits), ref)
        np.testing.assert_array_equal(K.terminal_nodes(tree, view, fit.c_splits, rows),
                                      ref[rows])
        assert np.all(tree.split_var[ref] == -1)
