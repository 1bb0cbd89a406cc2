"""Pure nodes: every in-bag row has the same working response z.

Every candidate split's true gain is then 0, and R's computed gains are the
rounding noise of its running sums (~1e-30 here, ~1e-29 on a 0/1 response);
R splits such a node where that noise is largest (when no other terminal
node has a real gain). Both exact searches (presorted, and the histogram
search with one bucket per value) must find R's split under both engines:
the approximate gains that rank candidates are all within their error bound
of 0 there, so they cannot narrow the candidates (engine/tolerance.py).
This happens often with 0/1 responses: gaussian on a binary y, the first
trees of bernoulli (the working response has two values).
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numba")

from pygbm import gbm  # noqa: E402
from pygbm.engine import factory  # noqa: E402
from pygbm.engine.binned import BinnedTrainingData  # noqa: E402
from pygbm.engine.compiled.grower import CompiledBinnedGrower, CompiledGrower  # noqa: E402
from pygbm.engine.data import TrainingData  # noqa: E402
from pygbm.engine.grow import SearchGrower  # noqa: E402
from pygbm.engine.split import improvement  # noqa: E402

from test_compiled import assert_same_fit  # noqa: E402
from test_exact import r_oracle  # noqa: E402

#: each engine's grower on each data layout of R's exact search
GROWERS = {
    "numpy-presorted": (TrainingData, SearchGrower),
    "numpy-one-bucket-per-value": (BinnedTrainingData, SearchGrower),
    "numba-presorted": (TrainingData, CompiledGrower),
    "numba-one-bucket-per-value": (BinnedTrainingData, CompiledBinnedGrower),
}
#: buckets allowed per predictor: every test predictor gets one per value
MAX_BUCKETS = 255


def grow_root(kind, x, var_type, z, w, min_obs):
    """The first split (R's vectors of a tree of depth 1) of the node of all
    rows of ``x``, by the grower ``kind``."""
    layout, grower = GROWERS[kind]
    mono = np.zeros(x.shape[1], dtype=int)
    if layout is BinnedTrainingData:
        data = BinnedTrainingData(x, var_type, mono, MAX_BUCKETS)
        assert data.exact_bins
    else:
        data = TrainingData(x, var_type, mono)
    inbag = np.ones(x.shape[0], dtype=bool)
    tree = grower(data, 1, min_obs).grow(z, w, inbag, bool(np.all(w == 1.0)))
    return tree.to_r_tree(1.0, data.var_type, [])


@pytest.mark.parametrize("kind", GROWERS)
def test_pure_node_is_split_where_rs_rounding_noise_is_largest(kind):
    """Five rows, z = 0.1 each, n_minobsinnode 1. R's running sums (the
    same along every predictor, the rows being alike): node total
    0.1 + 0.1 + ... = 0.5; after k + 1 rows the left sum is 0.1, 0.2,
    0.30000000000000004, 0.4 and the right sum 0.5 - 0.1 - ... = 0.4,
    0.30000000000000004, 0.20000000000000004, 0.10000000000000003, so
    t = ls / lw - rs / rw is 0, -2^-56, 0, -2^-55 and the gain
    lw rw t^2 / (lw + rw) is 0, 6/5 2^-112, 0, 4/5 2^-110.

    x0 = 1, 2, 3, 4, 4 cannot split between its two 4s (k = 3): its best is
    k = 1 (gain 6/5 2^-112, at 2.5). x1 = 5, 4, 3, 2, 1 can: k = 3, four rows
    (x1 <= 4) left, gain 4/5 2^-110, larger: R splits on x1 at 4.5."""
    # the hand computation above, in R's operations
    rs = 0.5
    for _ in range(4):
        rs -= 0.1
    t = 0.4 / 4.0 - rs / 1.0
    assert t == -2.0 ** -55
    r_gain = improvement(4.0, 1.0, 0.0, 0.4, rs, 0.0)
    assert r_gain == 4.0 / 5.0 * 2.0 ** -110 == float.fromhex("0x1.999999999999ap-111")
    assert improvement(2.0, 3.0, 0.0, 0.2, 0.30000000000000004, 0.0) == 1.2 * 2.0 ** -112

    x = np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 3.0], [4.0, 2.0], [4.0, 1.0]])
    z = np.full(5, 0.1)
    tree = grow_root(kind, x, np.zeros(2, dtype=int), z, np.ones(5), 1)
    assert tree.split_var[0] == 1
    assert tree.split_code_pred[0] == 4.5
    assert tree.error_reduction[0] == r_gain
    assert (tree.weight[tree.left[0]], tree.weight[tree.right[0]]) == (4.0, 1.0)


def _pure_node(seed, weighted):
    """A pure node of 80 rows: four continuous predictors (ties, missing
    values), one working response, weights 1 or 1..3."""
    rng = np.random.default_rng(seed)
    n = 80
    x = np.column_stack([rng.integers(0, 12, n), rng.normal(size=n).round(1),
                         rng.integers(0, 4, n), rng.normal(size=n).round(2)]).astype(float)
    x[rng.random(x.shape) < 0.1] = np.nan
    z = np.full(n, rng.choice([0.1, 1.0 / 3.0, -0.7, 2.2]))
    w = rng.integers(1, 4, n).astype(float) if weighted else np.ones(n)
    return x, z, w


@pytest.mark.parametrize("kind", GROWERS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_pure_nodes_split_as_rs_scan(kind, weighted, seed):
    """Pure nodes with missing values, ties and weights (where w*z differs
    from row to row but z does not): the split of a literal one-row-at-a-time
    scan in R's order (test_exact.r_oracle), by every grower."""
    x, z, w = _pure_node(seed, weighted)
    var_type = np.zeros(x.shape[1], dtype=int)
    mono = np.zeros(x.shape[1], dtype=int)
    for min_obs in (1, 5):
        gain, want = r_oracle(x, var_type, mono, z, w, list(range(z.size)), min_obs)
        assert want is not None and 0.0 < gain < 1e-20        # R's rounding noise
        tree = grow_root(kind, x, var_type, z, w, min_obs)
        assert (tree.split_var[0], tree.split_code_pred[0]) == (want[0], want[1])
        assert tree.error_reduction[0] == gain


# ------------------------------------------------------------------ whole fits
#: rows of the random fits
N_ROWS = 300
#: a noise-level gain (a pure node's split); real gains here are above 1e-3
NOISE_GAIN = 1e-20


def _binary_frame(seed, few_values):
    """A 0/1 response set by one predictor (pure nodes from the first
    split on), continuous predictors (the NumPy engine's presorted search)
    or integer ones (its histogram search, one bucket per value)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(N_ROWS, 4))
    df = pd.DataFrame(np.floor(4.0 * x) if few_values else x, columns=["a", "b", "c", "d"])
    df.loc[rng.random(N_ROWS) < 0.05, "b"] = np.nan
    df["y"] = (df["a"] > (2.0 if few_values else 0.8)).astype(float)
    df["wt"] = rng.integers(1, 3, N_ROWS).astype(float) if seed % 2 else 1.0
    return df


@pytest.mark.parametrize("distribution", ["gaussian", "bernoulli"])
@pytest.mark.parametrize("bag", [1.0, 0.5])
@pytest.mark.parametrize("few_values", [False, True], ids=["continuous", "few-values"])
@pytest.mark.parametrize("seed", range(3))
def test_binary_response_fits_same_under_both_engines(distribution, bag, few_values, seed,
                                                      monkeypatch):
    """0/1 responses, depth 3, bagged or not, weighted or not: the same trees
    and numbers under the NumPy engine, the compiled engine on presorted
    data and the compiled engine on data with one bucket per value (its
    grower above COMPILED_MAX_ELEMENTS, forced here); the fits hold
    splits of pure nodes."""
    df = _binary_frame(seed, few_values)
    kwargs = dict(distribution=distribution, n_trees=10, interaction_depth=3,
                  n_minobsinnode=10, shrinkage=0.1, bag_fraction=bag, random_state=seed,
                  weights="wt")
    fits = [gbm("y ~ a + b + c + d", df, engine=e, **kwargs) for e in ("numpy", "numba")]
    monkeypatch.setattr(factory, "COMPILED_MAX_ELEMENTS", 0)
    fits.append(gbm("y ~ a + b + c + d", df, engine="numba", **kwargs))
    gains = np.concatenate([t.error_reduction for t in fits[0].trees])
    assert np.any((gains > 0.0) & (gains < NOISE_GAIN))
    for other in fits[1:]:
        assert_same_fit(fits[0], other)
