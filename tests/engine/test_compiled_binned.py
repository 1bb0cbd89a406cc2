"""The compiled binned tree stage against the NumPy histogram search, the reference.

Tree by tree on random nodes (quantile buckets and one bucket per value;
missing values, categoricals, weights, monotone constraints, ties between
predictors and between categorical means, depths, minimum node sizes): the
same nodes, splits, sums and gains, the same routing of every row, the same
finished trees. Then whole fits with ``max_bins`` and the exact mode's
one-bucket-per-value data give the same numbers under both engines. The
arithmetic the kernels share with NumPy (pairwise sums, sorts, quantization)
is checked against NumPy's own.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numba")

from pygbm import gbm  # noqa: E402
from pygbm._rmath import shell_sort_order  # noqa: E402
from pygbm.engine import row_sums  # noqa: E402
from pygbm.engine.binned import BinnedTrainingData  # noqa: E402
from pygbm.engine.compiled import arith, boosting, histograms  # noqa: E402
from pygbm.engine.compiled.binned_layout import binned_layout  # noqa: E402
from pygbm.engine.compiled.grower import CompiledBinnedGrower  # noqa: E402
from pygbm.engine.data import TrainingData  # noqa: E402
from pygbm.engine.factory import TreeStage, training_data  # noqa: E402
from pygbm.engine.fixed_point import quantize  # noqa: E402
from pygbm.engine.grow import SearchGrower  # noqa: E402

from test_compiled import KINDS, _same_trees, assert_same_fit, random_node  # noqa: E402

#: quantile buckets (few, many) and one bucket per value (more buckets than rows)
MAX_BINS = (8, 64, 1000)
#: predictors 1 and 2 copies of predictor 0 (scaled, mirrored): their gains
#: tie, and R's arithmetic on the rows decides
TIED = [dict(dup=True), dict(dup=True, cat=True, ties=True),
        dict(dup=True, weights=True, nan=False)]


def binned_node(seed, max_bins, dup=False, **kind):
    presorted, z, w, inbag = random_node(seed, **kind)
    x = presorted.x.copy()
    if dup:
        x[:, 1] = x[:, 0] * 2.0
        x[:, 2] = -x[:, 0]
    var_type, mono = presorted.var_type, presorted.var_monotone
    return (TrainingData(x, var_type, mono), BinnedTrainingData(x, var_type, mono, max_bins),
            z, w, inbag)


@pytest.mark.parametrize("max_bins", MAX_BINS)
@pytest.mark.parametrize("kind", KINDS + TIED, ids=lambda k: "-".join(map(str, k)) or "plain")
@pytest.mark.parametrize("seed", range(4))
def test_compiled_binned_tree_is_numpy_tree(kind, seed, max_bins):
    presorted, data, z, w, inbag = binned_node(seed, max_bins, **kind)
    assert data.exact_bins or max_bins < 1000
    unit = bool(np.all(w == 1))
    for depth in (1, 3, 6):
        for min_obs in (1, 10):
            a = SearchGrower(data, depth, min_obs).grow(z, w, inbag, unit)
            b = CompiledBinnedGrower(data, depth, min_obs).grow(z, w, inbag, unit)
            # every node's mean (its sum of w*z) before the leaves are fitted
            np.testing.assert_array_equal([node.pred for node in a.nodes], b.nodes.pred)
            _same_trees(a, b, presorted)


def test_tie_paths_are_exercised(monkeypatch):
    """The random nodes above reach every place where the search reads rows:
    ties between predictors, the R sums of nodes above them, and categorical
    means counted again."""
    hits = {"record": 0, "recount": 0}
    for name in hits:
        original = getattr(row_sums.RowSums, name)

        def counting(self, *args, _name=name, _original=original):
            hits[_name] += 1
            return _original(self, *args)

        monkeypatch.setattr(row_sums.RowSums, name, counting)
    for seed in range(4):
        for kind in TIED[1:2] + [dict(ties=True, cat=True)]:
            presorted, data, z, w, inbag = binned_node(seed, 64, **kind)
            for depth in (3, 6):
                SearchGrower(data, depth, 1).grow(z, w, inbag, bool(np.all(w == 1)))
    assert hits["record"] > 0 and hits["recount"] > 0


def test_binned_data_get_the_compiled_grower():
    x = np.random.default_rng(0).normal(size=(50, 3))
    vt, mono = np.zeros(3, dtype=int), np.zeros(3, dtype=int)
    data = BinnedTrainingData(x, vt, mono, 16)
    assert isinstance(TreeStage("numba", 3, 5).grower(data), CompiledBinnedGrower)
    assert isinstance(TreeStage("numpy", 3, 5).grower(data), SearchGrower)
    penalised = TreeStage("numba", 3, 5, adjustment=object())
    assert isinstance(penalised.grower(data), SearchGrower)


@pytest.mark.parametrize("p", range(1, 10))
def test_packed_histogram_counts_every_predictor(p):
    """build_packed counts predictors several per pass: every remainder of
    them gives each cell its rows' packed values (a direct count)."""
    rng = np.random.default_rng(p)
    n = 500
    x = rng.normal(size=(n, p))
    x[rng.random((n, p)) < 0.1] = np.nan
    layout = binned_layout(BinnedTrainingData(x, np.zeros(p, dtype=int),
                                              np.zeros(p, dtype=int), 16))
    rows = np.sort(rng.choice(n, 300, replace=False)).astype(np.int32)
    vals = rng.integers(-1000, 1000, rows.shape[0]).astype(np.int64)
    hist = np.full(layout.n_cells + 1, 7, dtype=np.int64)
    histograms.build_packed(layout, rows, vals, 20, 280, hist)
    expected = np.zeros_like(hist)
    for j in range(p):
        np.add.at(expected, layout.offset[j] + layout.local[j, rows[20:280]], vals[20:280])
    np.testing.assert_array_equal(hist, expected)


# ------------------------------------------------------------------ arithmetic
def test_numpy_sum_is_numpys():
    rng = np.random.default_rng(1)
    for n in [0, 1, 7, 8, 9, 127, 128, 129, 255, 1000, 8191, 8193, 100_003, 300_000]:
        a = rng.normal(size=n) * 10 ** rng.uniform(-3, 3, n)
        assert arith.numpy_sum(a) == a.sum()
        if n:
            rows = np.sort(rng.choice(n, size=max(1, n // 2), replace=False))
            assert arith.numpy_sum_at(a, rows) == a[rows].sum()
        _, scale = quantize(a, 40)
        assert arith.quantize_scale(a, 40) == (scale, n > 0)


def test_sorts_are_numpys_and_rs():
    rng = np.random.default_rng(2)
    for _ in range(200):
        k = int(rng.integers(1, 30))
        values = np.round(rng.normal(size=k), 1)
        values[rng.random(k) < 0.2] = np.inf
        np.testing.assert_array_equal(arith.stable_argsort(values),
                                      np.argsort(values, kind="stable"))
        np.testing.assert_array_equal(arith.r_order(values), shell_sort_order(values))


# ------------------------------------------------------------------ whole fits
def _frame(rng, n, weights):
    df = pd.DataFrame({"a": rng.normal(size=n), "b": np.round(rng.normal(size=n), 1),
                       "c": pd.Categorical(rng.choice(list("pqrst"), n)),
                       "d": rng.uniform(size=n), "e": rng.integers(0, 4, n) * 1.0})
    df.loc[rng.random(n) < 0.1, "a"] = np.nan
    df.loc[rng.random(n) < 0.05, "c"] = np.nan
    eta = np.nan_to_num(df["a"].to_numpy()) + (df["c"] == "q") - df["d"]
    df["wt"] = rng.uniform(0.5, 2, n) if weights else 1.0
    return df, eta.to_numpy()


#: binned fits under both engines: the first four run in the compiled loop (their
#: methods call neither exp nor log), the others in the NumPy loop (NumPy's exp)
BINNED_DISTRIBUTIONS = ["gaussian", "laplace", "huberized", {"name": "quantile", "alpha": 0.3},
                        "bernoulli", "poisson"]


def _binned_fits(dist, seed, max_bins=32):
    rng = np.random.default_rng(seed)
    n = 2000
    df, eta = _frame(rng, n, weights=bool(seed))
    if dist in ("bernoulli", "huberized"):
        df["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    elif dist == "poisson":
        df["y"] = rng.poisson(np.exp(eta / 2))
    else:
        df["y"] = eta + rng.normal(size=n)
    kwargs = dict(distribution=dist, n_trees=20, interaction_depth=4, n_minobsinnode=5,
                  shrinkage=0.1, train_fraction=0.8, random_state=seed, weights="wt",
                  max_bins=max_bins, var_monotone=[0, 0, 0, -1, 0])
    return [gbm("y ~ a + b + c + d + e", df, engine=e, **kwargs) for e in ("numpy", "numba")]


@pytest.mark.parametrize("dist", BINNED_DISTRIBUTIONS, ids=str)
@pytest.mark.parametrize("seed", range(2))
def test_binned_fits_same_under_both_engines(dist, seed):
    assert_same_fit(*_binned_fits(dist, seed))


@pytest.mark.parametrize("dist, max_bins, compiled", [
    ("gaussian", 32, True), ({"name": "quantile", "alpha": 0.3}, 32, True),
    ("bernoulli", 32, True),         # binned fits of one output: the C library's exp
    ("bernoulli", 5000, True)])      # one bucket per value: R's exp, the compiled loop
def test_binned_fits_run_in_the_compiled_loop(monkeypatch, dist, max_bins, compiled):
    calls, original = [], boosting.boost_binned

    def counting(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(boosting, "boost_binned", counting)
    numpy_fit, numba_fit = _binned_fits(dist, 0, max_bins)
    assert bool(calls) == compiled
    assert_same_fit(numpy_fit, numba_fit)


def test_few_valued_exact_fits_same_under_both_engines():
    """Exact mode, data too large to stay presorted whose predictors have few
    values: one bucket per value, every split in R's arithmetic."""
    rng = np.random.default_rng(5)
    n, p = 3000, 140
    x = np.round(rng.normal(size=(n, p)), 1)
    x[rng.random((n, p)) < 0.05] = np.nan
    df = pd.DataFrame(x, columns=[f"x{j}" for j in range(p)])
    df["y"] = np.nan_to_num(x[:, 0]) - np.nan_to_num(x[:, 1]) ** 2 + rng.normal(size=n)
    assert not training_data(x, np.zeros(p, dtype=int), np.zeros(p, dtype=int),
                             engine="numba").presorted
    kwargs = dict(distribution="gaussian", n_trees=8, interaction_depth=3,
                  shrinkage=0.1, train_fraction=0.8, random_state=3)
    fits = [gbm("y ~ .", df, engine=e, **kwargs) for e in ("numpy", "numba")]
    assert_same_fit(*fits)


def _categorical_twin_node(seed, n=400, levels=12, weights=True):
    """A node where categorical predictor 0 and continuous predictor 1 offer
    the same partitions: predictor 1 is the rank of predictor 0's level in the
    order of the levels' mean working response (R's order for the
    categorical split), plus noise within a level. Their best splits tie; R's
    arithmetic on the rows (the sums in a different order) decides, and in
    some nodes the continuous predictor, searched after the categorical one,
    wins by its last bits."""
    rng = np.random.default_rng(seed)
    level = rng.integers(0, levels, n)
    z = rng.normal(size=levels)[level] + rng.normal(size=n)
    w = rng.uniform(0.5, 2.0, n) if weights else np.ones(n)
    inbag = np.ones(n, dtype=bool)
    means = np.bincount(level, w * z, levels) / np.bincount(level, w, levels)
    rank = np.empty(levels)
    rank[np.argsort(means, kind="stable")] = np.arange(levels)
    x = np.column_stack([level.astype(float), rank[level] + rng.uniform(0.0, 0.5, n)])
    var_type, mono = np.array([levels, 0]), np.zeros(2, dtype=int)
    return BinnedTrainingData(x, var_type, mono, 1000), z, w, inbag


def test_continuous_split_after_a_categorical_tie_sends_no_levels():
    """A continuous split that wins R's tie-break after a categorical candidate
    records no levels sent left: the tie-break kept the categorical's count of
    levels, and routing the continuous split then wrote that many entries
    into a one-entry level table (out of bounds in the compiled kernel: heap
    corruption, seen as `free(): invalid next size` in a weighted flights fit)."""
    won = 0
    for seed in range(40):
        data, z, w, inbag = _categorical_twin_node(seed, weights=bool(seed % 2))
        assert data.exact_bins                 # every split in R's arithmetic
        tree = CompiledBinnedGrower(data, 1, 5).grow(z, w, inbag, bool(np.all(w == 1)))
        split = tree.nodes.node_var >= 0
        assert split.sum() == 1
        continuous = split & (tree.nodes.node_var == 1)
        won += int(continuous.any())
        np.testing.assert_array_equal(tree.nodes.node_nlev[continuous], 0)
        reference = SearchGrower(data, 1, 5).grow(z, w, inbag, bool(np.all(w == 1)))
        assert [reference.nodes[0].split.var] == tree.vars_used
    assert 0 < won < 40          # both predictors win some of the ties
