"""The compiled distributions' kernels (engine/compiled/losses.py) against the
NumPy distributions, bit for bit, on random rows: with and without offsets,
unit and unequal weights, bags, ties of f, and the values where the methods
branch (huberized's margins, poisson's empty nodes, coxph's events)."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from pygbm.distributions import FitContext, Leaves, Targets, get_distribution  # noqa: E402
from pygbm.engine.compiled import losses  # noqa: E402

NAMES = sorted(losses.KINDS)
#: the distributions with parameters, as the tests name them
PARAMS = {"quantile": {"name": "quantile", "alpha": 0.3}, "tdist": {"name": "tdist", "df": 3.5}}
N_NODES = 5


def _targets(name, rng, n, offset, weighted):
    if name in ("bernoulli", "adaboost", "huberized"):
        y = (rng.random(n) < 0.4).astype(float)
    elif name == "poisson":
        y = rng.poisson(1.5, n).astype(float)
        y[rng.random(n) < 0.3] = 0.0
    elif name == "coxph":
        time = np.sort(rng.exponential(1.0, n))[::-1].copy()
        status = (rng.random(n) < 0.6).astype(float)
        y = np.column_stack([time, status])
    else:
        y = np.round(rng.normal(size=n) * 3, 1)        # ties among the residuals
    w = rng.uniform(0.2, 3.0, n) if weighted else np.ones(n)
    if weighted:
        w = w * n / w.sum()
    off = rng.normal(size=n) * 0.3 if offset else None
    misc = None
    if name == "coxph":
        misc = y[:, 1].copy()
        y = y[:, 0].copy()
    return Targets(y, off, w, misc)


def _case(name, seed, offset, weighted, n=237):
    rng = np.random.default_rng(seed)
    t = _targets(name, rng, n, offset, weighted)
    f = rng.normal(size=n) * (2.0 if name != "huberized" else 0.8)
    f[rng.random(n) < 0.1] = 0.0                  # exact zeros and ties
    bag = rng.random(n) < 0.6
    node = rng.integers(0, N_NODES, n)
    node[node == 3] = 2                            # an empty node
    return t, f, bag, node


CASES = [(name, seed, offset, weighted) for name in NAMES for seed in (1, 2)
         for offset in (False, True) for weighted in (False, True)]


def _ids(case):
    name, seed, offset, weighted = case
    return f"{name}-{seed}-{'offset' if offset else 'no_offset'}-{'w' if weighted else 'unit'}"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_kernels_are_the_distributions_methods(case):
    name, seed, offset, weighted = case
    dist = get_distribution(PARAMS.get(name, name))
    ctx = FitContext()
    t, f, bag, node = _case(name, seed, offset, weighted)
    rows = losses.loss_rows(t)
    kind = losses.kind_of(dist)
    params = losses.loss_params(dist)

    z = dist.negative_gradient(t, f, bag, ctx)
    zc = np.empty_like(f)
    losses.working_response(kind, params, rows, f, bag, zc)
    np.testing.assert_array_equal(zc, z)

    counts = np.bincount(node[bag], minlength=N_NODES)
    grow_pred = np.random.default_rng(seed).normal(size=N_NODES)
    leaves = Leaves(node, N_NODES, counts, grow_pred, 3)
    values = dist.fit_leaves(t, f, z, leaves, bag, ctx)
    vc = np.empty(N_NODES)
    losses.leaf_values(kind, params, rows, f, z, node, N_NODES, counts, grow_pred, bag, 3, vc)
    np.testing.assert_array_equal(vc, values)

    dev = dist.deviance(t, f, ctx)
    dc = losses.deviance(kind, params, rows, f)
    assert dc == dev or (np.isnan(dc) and np.isnan(dev)), (dc, dev)

    fadj = values[node]
    oob = dist.bag_improvement(t, f, fadj, bag, 0.1, ctx)
    oc = losses.bag_improvement(kind, params, rows, f, fadj, bag, 0.1)
    assert oc == oob or (np.isnan(oc) and np.isnan(oob)), (oc, oob)
