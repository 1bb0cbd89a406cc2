"""The histogram split search (engine/histogram_search.py): its histograms
and their subtraction against direct sums, its choice against a brute-force
search, missing values, ties between predictors."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from binned_fits import fit as _fit
from test_exact import r_oracle

from pygbm.engine import binned
from pygbm.engine.binned import BinnedTrainingData
from pygbm.engine.grow import _directions
from pygbm.engine.histogram_search import HistogramSearch
from pygbm.engine.kernels import reference
from pygbm.engine.split import Side, improvement


def _search(x, var_type, z, w=None, max_bins=8, min_obs=3, mono=None):
    n, p = x.shape
    data = BinnedTrainingData(x, var_type, np.zeros(p, int) if mono is None else mono,
                              max_bins)
    w = np.ones(n) if w is None else w
    return data, HistogramSearch(data, z, w, bool(np.all(w == 1.0)), min_obs)


def test_histogram_kernels_and_subtraction_agree_with_direct_sums(monkeypatch):
    rng = np.random.default_rng(2)
    n = 3000
    x = np.column_stack([rng.normal(size=n), rng.integers(0, 5, n).astype(float)])
    x[rng.random(n) < 0.2, 0] = np.nan
    z, w = rng.normal(size=n), rng.uniform(0.5, 2, n)
    data, search = _search(x, np.array([0, 5]), z, w, max_bins=16)
    rows = np.flatnonzero(rng.random(n) < 0.7)
    hist = search.builder.build(rows).raw
    direct = np.zeros_like(hist)
    for j in range(2):
        c = data.codes[rows, j]
        direct[:, 0] += np.bincount(c, (w * z)[rows], minlength=hist.shape[0])
        direct[:, 1] += np.bincount(c, w[rows], minlength=hist.shape[0])
        direct[:, 2] += np.bincount(c, minlength=hist.shape[0])
    np.testing.assert_allclose(hist, direct, rtol=1e-12, atol=1e-12)
    monkeypatch.setattr(reference, "scipy_kernels", lambda: (None, None))   # NumPy fallback
    np.testing.assert_allclose(search.builder.build(rows).raw, direct, rtol=1e-12, atol=1e-12)
    monkeypatch.undo()
    # children: the largest one's histogram comes from subtraction
    root = search.root(np.isin(np.arange(n), rows))
    total = Side(float((w * z)[rows].sum()), float(w[rows].sum()), rows.size)
    split = search.best(root, total)
    node_rows = np.arange(n)
    d = np.where(np.isnan(x[:, split.var]), 2,
                 np.where(x[:, split.var] < split.value, 0, 1)) \
        if split.left_levels is None else None
    kids = search.children(root, node_rows, d, split)
    assert sum(not k.counted for k in kids) == 1
    for kid in kids:
        if kid.rows.size:
            np.testing.assert_allclose(kid.raw.raw, search.builder.build(kid.rows).raw, atol=1e-9)
            np.testing.assert_array_equal(kid.raw.raw[:, -1],
                                          search.builder.build(kid.rows).raw[:, -1])


def test_unit_weight_histograms_are_one_packed_integer_column():
    """Unit weights (quantile buckets): w*z quantized and the row count packed
    into one int64 per row; every bucket's count is exact, its sum within the
    quantisation, and a histogram by subtraction equals the counted one."""
    rng = np.random.default_rng(12)
    n = 5000
    x = np.column_stack([rng.normal(size=n), rng.integers(0, 7, n).astype(float),
                         rng.normal(size=n)])
    x[rng.random(n) < 0.1, 2] = np.nan
    z = rng.normal(size=n) * 1e3
    data, search = _search(x, np.array([0, 7, 0]), z, max_bins=32)
    assert search.packed and not data.exact_bins
    rows = np.flatnonzero(rng.random(n) < 0.5)
    hist = search.builder.build(rows).sums()
    direct = np.zeros_like(hist)
    for j in range(3):
        c = data.codes[rows, j]
        direct[:, 0] += np.bincount(c, z[rows], minlength=hist.shape[0])
        direct[:, 1] += np.bincount(c, minlength=hist.shape[0])
    np.testing.assert_array_equal(hist[:, 1], direct[:, 1])
    # each row's w*z is off by at most half a unit of 1 / scale
    packing = search.builder.packing
    tol = 0.5 * direct[:, 1] / packing.scale
    assert np.all(np.abs(hist[:, 0] - direct[:, 0]) <= tol + 1e-9 * np.abs(direct[:, 0]))
    assert packing.scale * np.abs(z).sum() <= 2.0 ** (62 - packing.count_bits)
    root = search.root(np.isin(np.arange(n), rows))
    split = search.best(root, Side(float(z[rows].sum()), float(rows.size), rows.size))
    d = _directions(data, split, np.arange(n))           # the grower's routing
    kids = search.children(root, np.arange(n), d, split)
    for kid in kids:
        if kid.rows.size:
            np.testing.assert_array_equal(kid.raw.raw, search.builder.build(kid.rows).raw)
    # weighted fits keep the floating columns
    assert not _search(x, np.array([0, 7, 0]), z, np.full(n, 2.0), max_bins=32)[1].packed


# ------------------------------------------------------------------ search vs brute force
def _brute_force(x, z, w, rows, min_obs, mono, data):
    """Best (gain, var, left rows) over every bucket boundary, R's formula."""
    best = (0.0, None, None)
    for j in range(x.shape[1]):
        v = x[rows, j]
        codes = data.codes[rows, j] - data.offset[j]
        miss = np.isnan(v)
        ms, mw = float(np.sum((w * z)[rows][miss])), float(np.sum(w[rows][miss]))
        present = np.unique(codes[~miss])
        for b in present[:-1]:
            left = ~miss & (codes <= b)
            right = ~miss & (codes > b)
            if left.sum() < min_obs or right.sum() < min_obs:
                continue
            ls, lw = np.sum((w * z)[rows][left]), np.sum(w[rows][left])
            rs, rw = np.sum((w * z)[rows][right]), np.sum(w[rows][right])
            if mono[j] and not mono[j] * (rs * lw - ls * rw) > 0:
                continue
            gain = float(improvement(lw, rw, mw, ls, rs, ms))
            if gain > best[0] * (1 + 1e-12):
                best = (gain, j, rows[left])
    return best


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_quantile_search_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, p = 400, 4
    x = rng.normal(size=(n, p))
    x[rng.random((n, p)) < 0.15] = np.nan
    z = np.nan_to_num(x[:, 0]) * (seed % 2) - np.nan_to_num(x[:, 2]) + rng.normal(size=n)
    w = rng.uniform(0.5, 2.0, n) if seed >= 2 else np.ones(n)
    mono = np.array([0, 0, 1, 0]) if seed == 3 else np.zeros(p, int)
    data, search = _search(x, np.zeros(p, int), z, w, max_bins=8, min_obs=5, mono=mono)
    assert not data.exact_bins
    rows = np.flatnonzero(rng.random(n) < 0.6)
    inbag = np.isin(np.arange(n), rows)
    total = Side(float((w * z)[rows].sum()), float(w[rows].sum()), rows.size)
    split = search.best(search.root(inbag), total)
    gain, var, left_rows = _brute_force(x, z, w, rows, 5, mono, data)
    assert split.var == var
    np.testing.assert_allclose(split.improvement, gain, rtol=1e-10)
    # the split point routes the raw values of the node exactly like the buckets
    v = x[rows, var]
    np.testing.assert_array_equal(rows[v < split.value], left_rows)
    assert split.left.n == left_rows.size
    np.testing.assert_allclose(split.left.sum_z, np.sum((w * z)[left_rows]), rtol=1e-10)
    miss = rows[np.isnan(v)]
    assert split.missing.n == miss.size and not split.missing_empty
    np.testing.assert_allclose([split.missing.sum_z, split.missing.w],
                               [np.sum((w * z)[miss]), np.sum(w[miss])], rtol=1e-10)
    assert split.left.n + split.right.n + split.missing.n == rows.size


def test_ties_between_predictors_keep_the_first():
    rng = np.random.default_rng(8)
    a = rng.normal(size=500)
    x = np.column_stack([rng.normal(size=500), a, a * 3.0 + 1.0, a])   # same partitions
    z = (a > 0.3) + 0.1 * rng.normal(size=500)
    data, search = _search(x, np.zeros(4, int), z, max_bins=16)
    assert not data.exact_bins
    split = search.best(search.root(np.ones(500, bool)),
                        Side(float(z.sum()), 500.0, 500))
    assert split.var == 1                       # R keeps the first of equal gains
    codes = data.codes[:, 1] - data.offset[1]
    left = a < split.value
    assert left.sum() == split.left.n and codes[left].max() < codes[~left].min()


def test_missing_values_go_to_the_missing_child():
    rng = np.random.default_rng(4)
    n = 2000
    df = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    na = rng.random(n) < 0.3
    df["y"] = np.where(na, 5.0, df["a"]) + 0.1 * rng.normal(size=n)
    df.loc[na, "a"] = np.nan
    fit = _fit("y ~ a + b", df, max_bins=32, n_trees=1, interaction_depth=1,
               bag_fraction=1.0, shrinkage=1.0)
    tree = fit.trees[0]
    assert tree.split_var[0] == 0
    miss = tree.missing[0]
    assert tree.weight[miss] == na.sum()
    np.testing.assert_allclose(tree.prediction[miss],
                               df["y"][na].mean() - fit.init_f, rtol=1e-10)
    pred = fit.predict(df, n_trees=1)
    np.testing.assert_allclose(pred[na], fit.init_f + tree.prediction[miss], rtol=1e-12)


def test_missing_child_without_rows_carries_the_parent_totals():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(300, 2))
    z = x[:, 0] + rng.normal(size=300)
    data, search = _search(x, np.zeros(2, int), z, max_bins=16)
    total = Side(float(z.sum()), 300.0, 300)
    split = search.best(search.root(np.ones(300, bool)), total)
    assert split.missing_empty
    assert split.missing == Side(total.sum_z, total.w, 0)      # as the exact search


def test_zero_weight_node_has_no_split_and_no_warning():
    """A node whose rows all have weight 0 (w*z = 0 too): no split, and the
    two-group gain is computed without a division warning."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(200, 2))
    data = binned.BinnedTrainingData(x, np.zeros(2, int), np.zeros(2, int), 32)
    w = np.zeros(200)
    search = data.searcher(rng.normal(size=200), w, False, 5)
    state = search.root(np.ones(200, dtype=bool))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        best = search.best(state, Side(0.0, 0.0, 200))
    assert best is None


def _monotone_near_tie_node(seed):
    """A node of 60 rows where R's check of a monotone constraint on ``a`` (left
    and right means equal but for rounding, beside a missing group) fails the
    top candidates that the histogram's sums pass; ``y`` gives quantile's
    working response ``z`` at the root (alpha 0.1: 0.1 above the initial value
    0, -0.9 at it)."""
    rng = np.random.default_rng(seed)
    n = 60
    x = np.column_stack([rng.integers(0, 6, n).astype(float),
                         rng.integers(0, 8, n).astype(float)])
    x[rng.random(n) < 0.2, 0] = np.nan
    z = np.where(rng.random(n) < 0.3, 0.1, -0.9)
    mono = np.array([int(rng.choice([-1, 1])), 0])
    return x, z, mono


#: nodes where R refuses what the histogram's sums passed (1825, 2017), and where R
#: passes what they refused (730, 757)
NEAR_TIE_SEEDS = {1825: 1, 2017: 1, 730: 0, 757: 0}


@pytest.mark.parametrize("seed", sorted(NEAR_TIE_SEEDS))
def test_a_monotone_check_within_rounding_of_0_is_r_s(seed):
    """With one bucket per value the split is R's, and R's sums decide a monotone
    check within rounding of 0 (:func:`pygbm.engine.tolerance.sign_margin`):
    when R refuses every candidate near the histogram's top, R takes the best of
    the other predictors, below the error bound of the top (the search returned
    no split; found by a live comparison with R: a quantile fit with monotone
    constraints parted from R's at its 30th tree); when R passes a candidate
    whose histogram check failed, it can be R's best."""
    x, z, mono = _monotone_near_tie_node(seed)
    n = x.shape[0]
    data, search = _search(x, np.zeros(2, int), z, max_bins=255, min_obs=5, mono=mono)
    assert data.exact_bins
    total = 0.0
    for v in z:                                   # R's sequential sum
        total += v
    split = search.best(search.root(np.ones(n, bool)), Side(total, float(n), n))
    gain, (var, *_rest) = r_oracle(x, np.zeros(2, int), mono, z, np.ones(n), np.arange(n), 5)
    assert var == NEAR_TIE_SEEDS[seed] and split is not None and split.var == var
    assert split.improvement == gain


@pytest.mark.parametrize("seed", sorted(NEAR_TIE_SEEDS))
def test_engines_and_modes_split_such_a_node_alike(seed):
    """The same node through gbm(): the compiled exact scan, the NumPy engine's
    one bucket per value (few distinct values) and both engines' binned mode
    (max_bins above the values) make R's split."""
    import pygbm

    x, z, mono = _monotone_near_tie_node(seed)
    data = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "y": (z > 0).astype(float)})
    splits = set()
    for kw in ({}, {"engine": "numpy"}, {"max_bins": 255}, {"engine": "numpy", "max_bins": 255}):
        fit = pygbm.gbm("y ~ a + b", data, distribution={"name": "quantile", "alpha": 0.1},
                        var_monotone=mono.tolist(), n_trees=1, n_minobsinnode=5,
                        bag_fraction=1, shrinkage=1, **kw)
        tree = pygbm.pretty_gbm_tree(fit, 1)
        splits.add((int(tree.SplitVar[0]), float(tree.ErrorReduction[0])))
    assert len(splits) == 1 and splits.pop()[0] == NEAR_TIE_SEEDS[seed]
