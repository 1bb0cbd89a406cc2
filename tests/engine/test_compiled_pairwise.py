"""The compiled pairwise kernels (engine/compiled/pairwise.py) and the compiled
pairwise loop (engine/compiled/ranking_loop.py) against the NumPy distribution
and the NumPy loop, bit for bit: every metric, max_rank, graded and binary
labels, groups of size 1 and groups larger than the insertion sort's, weights
(a group of weight 0), offsets, bags, exact ties of the scores, validation rows,
R's stream, gbm_more and cross-validation."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numba")

import pygbm  # noqa: E402
from pygbm.distributions import FitContext, Leaves, Targets, get_distribution  # noqa: E402
from pygbm.distributions.pairwise import _LAST_GRADIENT  # noqa: E402
from pygbm.engine.compiled import pairwise as kernels  # noqa: E402
from pygbm.engine.compiled import ranking_boosting  # noqa: E402

#: group sizes of the kernel cases: singletons, small groups, one merge-sorted group
SIZES = (1, 2, 3, 4, 5, 1, 7, kernels.INSERTION_MAX + 9, 2, 6, 1, 3)
METRIC_CASES = [("ndcg", 0), ("ndcg", 3), ("conc", 0), ("map", 0), ("mrr", 0), ("mrr", 2)]
N_NODES = 4


class _Halves:
    """A noise generator drawing 0.5 only: no noise, exact ties ranked by position."""

    def random(self, n):
        return np.full(n, 0.5)


def _rows(metric, rng, weighted, offset):
    gid = np.repeat(np.arange(len(SIZES)), SIZES)
    n = gid.shape[0]
    if metric in ("map", "mrr"):
        y = (rng.random(n) < 0.35).astype(float)
    else:
        y = rng.integers(0, 4, n).astype(float)
    order = np.lexsort((-y, gid))
    y, gid = y[order], gid[order]
    if weighted:
        wg = rng.uniform(0.3, 2.5, len(SIZES))
        wg[4] = 0.0                                 # a group of weight 0
        w = wg[gid]
    else:
        w = np.ones(n)
    off = np.round(rng.normal(size=n), 1) * 0.5 if offset else None
    return Targets(y, off, w, gid.astype(float)), n


def _kernel_case(metric, max_rank, seed, weighted, offset, ties):
    rng = np.random.default_rng(seed)
    t, n = _rows(metric, rng, weighted, offset)
    f = np.round(rng.normal(size=n), 0 if ties else 6)   # exact ties of the scores
    bag = np.repeat(rng.random(len(SIZES)) < 0.6, SIZES)
    dist = get_distribution({"name": "pairwise", "metric": metric, "max_rank": max_rank})
    noise = _Halves() if ties else np.random.default_rng(seed + 100)
    ctx = FitContext(noise_rng=noise)
    P = kernels.pair_rows(dist.layout(t, ctx), metric)
    S = kernels.pair_scratch(P)
    offs = np.zeros(0) if t.offset is None else np.asarray(t.offset, dtype=float)
    twin = _Halves() if ties else np.random.default_rng(seed + 100)   # the same uniforms
    return dist, ctx, t, f, bag, P, S, offs, twin, n


KERNEL_CASES = [(m, r, seed, weighted, offset, ties) for m, r in METRIC_CASES
                for seed in (1, 2) for weighted in (False, True) for offset in (False, True)
                for ties in (False, True)]


def _same(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    assert np.array_equal(a.view(np.int64), b.view(np.int64)) or \
        np.array_equal(a, b, equal_nan=True), np.max(np.abs(a - b))


@pytest.mark.parametrize("metric,max_rank,seed,weighted,offset,ties", KERNEL_CASES)
def test_kernels_match_the_distribution(metric, max_rank, seed, weighted, offset, ties):
    dist, ctx, t, f, bag, P, S, offs, twin, n = _kernel_case(metric, max_rank, seed, weighted,
                                                            offset, ties)
    w = np.asarray(t.w, dtype=float)
    # working response and its derivative
    z_ref = dist.negative_gradient(t, f, bag, ctx)
    h_ref = ctx.cache[_LAST_GRADIENT][1]
    z, h = np.empty(n), np.empty(n)
    kernels.pairwise_gradient(P, S, f, offs, w, bag, twin.random(n), z, h)
    _same(z, z_ref)
    _same(h, h_ref)
    assert np.any(z != 0)
    # terminal values
    node = np.random.default_rng(seed).integers(0, N_NODES, n)
    leaves = Leaves(node, N_NODES, np.bincount(node[bag], minlength=N_NODES),
                    np.zeros(N_NODES), 1)
    values = np.empty(N_NODES)
    kernels.pairwise_leaves(w, z, h, node, N_NODES, bag, values)
    _same(values, dist.fit_leaves(t, f, z_ref, leaves, bag, ctx))
    # out-of-bag improvement and deviance
    fadj = np.round(np.random.default_rng(seed + 7).normal(size=n), 2)
    oob_ref = dist.bag_improvement(t, f, fadj, bag, 0.3, ctx)
    oob = kernels.pairwise_bag_improvement(P, S, f, offs, w, bag, twin.random(n), fadj, 0.3)
    _same(oob, oob_ref)
    dev_ref = dist.deviance(t, f, ctx)
    _same(kernels.pairwise_deviance(P, S, f, offs, w, twin.random(n)), dev_ref)


# ----------------------------------------------------------------- whole fits
def _frame(seed, n_groups, graded):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 9, n_groups)
    sizes[:3] = (1, 1, 40)                      # singletons and a merge-sorted group
    n = int(sizes.sum())
    group = np.repeat(np.arange(n_groups), sizes)
    x1 = np.round(rng.normal(size=n), 1)        # ties among the predictor's values
    x2 = rng.integers(0, 5, n).astype(float)
    x2[rng.random(n) < 0.1] = np.nan
    x3 = pd.Categorical(rng.choice(["a", "b", "c"], n))
    score = x1 + 0.5 * np.nan_to_num(x2) + rng.normal(size=n)
    y = np.clip(np.round(score), 0, 3) if graded else (score > 1.0).astype(float)
    perm = rng.permutation(n)                   # rows not in group order
    return pd.DataFrame({"y": y[perm], "x1": x1[perm], "x2": x2[perm], "x3": x3[perm],
                         "g": group[perm], "w": rng.uniform(0.5, 2, n_groups)[group][perm],
                         "off": np.round(rng.normal(size=n), 1)[perm] * 0.2})


def _fits_equal(a, b):
    for name in ("train_error", "valid_error", "oobag_improve"):
        assert np.array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name)),
                              equal_nan=True), name
    assert np.array_equal(a.fit, b.fit)
    assert len(a.trees) == len(b.trees)
    for s, t in zip(a.trees, b.trees):
        for field in ("split_var", "split_code_pred", "left", "right", "missing",
                      "error_reduction", "weight", "prediction"):
            assert np.array_equal(getattr(s, field), getattr(t, field)), field
    assert all(np.array_equal(p, q) for p, q in zip(a.c_splits, b.c_splits))


FIT_CASES = [
    # metric, max_rank, graded, weighted, offset, train_fraction, bag_fraction, r_stream
    ("ndcg", 0, True, False, False, 1.0, 0.5, False),
    ("ndcg", 4, True, True, True, 0.8, 0.5, False),
    ("ndcg", 0, True, True, False, 0.7, 0.5, True),
    ("conc", 0, True, False, False, 0.8, 0.5, False),
    ("conc", 0, True, True, True, 1.0, 1.0, True),
    ("map", 0, False, False, True, 0.8, 0.5, False),
    ("map", 0, False, True, False, 1.0, 0.5, True),
    ("mrr", 0, False, True, False, 0.8, 0.5, False),
    ("mrr", 3, False, False, True, 1.0, 1.0, False),
    ("mrr", 0, False, False, False, 0.8, 0.5, True),
]


def _fit(case, engine, n_trees=40, **more):
    metric, max_rank, graded, weighted, offset, tf, bf, r_stream = case
    seed = FIT_CASES.index(case) + 1 if case in FIT_CASES else len(FIT_CASES) + 1
    data = _frame(seed, 60, graded)
    formula = "y ~ x1 + x2 + x3" + (" + offset(off)" if offset else "")
    dist = {"name": "pairwise", "group": "g", "metric": metric, "max_rank": max_rank}
    return pygbm.gbm(formula, data=data, distribution=dist, n_trees=n_trees,
                     interaction_depth=3, shrinkage=0.1, bag_fraction=bf, train_fraction=tf,
                     n_minobsinnode=3, weights=data["w"] if weighted else None,
                     random_state=pygbm.RRandom(5) if r_stream else 5, engine=engine, **more)


@pytest.mark.parametrize("case", FIT_CASES, ids=lambda c: "-".join(map(str, c)))
def test_compiled_loop_gives_the_numpy_fit(case, monkeypatch):
    calls = []
    loop = ranking_boosting.boost_pairwise

    def counted(*args):
        calls.append(1)
        return loop(*args)

    monkeypatch.setattr(ranking_boosting, "boost_pairwise", counted)
    compiled = _fit(case, "numba")
    assert calls, "the compiled pairwise loop did not run"
    _fits_equal(_fit(case, "numpy"), compiled)
    # gbm_more continues the same stream and layouts
    _fits_equal(pygbm.gbm_more(_fit(case, "numpy"), 15), pygbm.gbm_more(compiled, 15))


def test_compiled_loop_cv_matches_numpy():
    case = ("ndcg", 0, True, True, False, 1.0, 0.5, False)
    a = _fit(case, "numpy", n_trees=30, cv_folds=3, n_cores=1)
    b = _fit(case, "numba", n_trees=30, cv_folds=3, n_cores=1)
    _fits_equal(a, b)
    assert np.array_equal(a.cv_error, b.cv_error)
    assert np.array_equal(a.cv_fitted, b.cv_fitted)
