"""full_history=True (CatBoost's approx_on_full_history): every tail row's
supporting value is the leaf estimate over all the rows before it in its
fold; the running-sum estimators equal the distributions' own."""
from __future__ import annotations

import numpy as np
import pytest

import pygbm
from pygbm.distributions import FitContext, Leaves, Targets, get_distribution
from pygbm.ordered.folds import fold_boundaries
from pygbm.ordered.leaf_terms import leaf_values, row_terms
from pygbm.ordered.scheme import NativeViews, OrderedProblem
from pygbm.ordered.spec import OrderedSpec
from pygbm.ordered.support import SupportingModels

RATIO = ["gaussian", "bernoulli", "poisson", "adaboost", "huberized"]
CTX = FitContext(r_exact_math=True)


def _targets(dist, n, rng, offset):
    eta = rng.normal(size=n)
    if dist == "poisson":
        y = rng.poisson(np.exp(eta)).astype(float)
    elif dist == "gaussian":
        y = eta + rng.normal(size=n)
    else:
        y = (rng.random(n) < 0.4).astype(float)
    return Targets(y, 0.3 * rng.normal(size=n) if offset else None, rng.uniform(0.5, 2, n))


@pytest.mark.parametrize("dist", RATIO)
@pytest.mark.parametrize("offset", [False, True])
def test_running_sum_estimates_are_fit_leaves(dist, offset):
    """The leaf value of the summed row terms is the distribution's
    fit_leaves, bit for bit (so the full-history estimates are its own)."""
    rng = np.random.default_rng(1)
    n, n_nodes = 3000, 9
    d = get_distribution(dist)
    t = _targets(dist, n, rng, offset)
    f = rng.normal(size=n)
    node = rng.integers(0, n_nodes, n)
    bag = rng.random(n) < 0.6
    z = d.negative_gradient(t, f, bag, CTX)
    counts = np.bincount(node[bag], minlength=n_nodes)
    mean_z = np.bincount(node[bag], (t.w * z)[bag], n_nodes) / np.bincount(node[bag], t.w[bag],
                                                                            n_nodes)
    want = d.fit_leaves(t, f, z, Leaves(node, n_nodes, counts, mean_z, 5), bag, CTX)
    num, den = row_terms(d, t, f)
    f_range = None
    if dist == "poisson" and not offset:
        f_range = (np.array([f[node == k].min() for k in range(n_nodes)]),
                   np.array([f[node == k].max() for k in range(n_nodes)]))
    got = leaf_values(d, np.bincount(node[bag], num[bag], n_nodes),
                      np.bincount(node[bag], den[bag], n_nodes), f_range)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dist", ["bernoulli", "poisson", "gaussian"])
def test_tail_rows_take_the_estimate_of_the_rows_before_them(dist):
    """After one tree, a tail row's step is fit_leaves over the rows before it
    in its leaf and fold (the body and the earlier tail rows), at the fold's
    model before the tree; none from fewer than n_minobsinnode (3) rows."""
    rng = np.random.default_rng(2)
    n, n_t, shrinkage = 1200, 4, 0.3
    d = get_distribution(dist)
    t = _targets(dist, n, rng, offset=False)
    problem = OrderedProblem(t, d, CTX, 3, 3, OrderedSpec(1, 2.0, None, True))
    bounds = fold_boundaries(n)
    order = rng.permutation(n)
    before = 0.2 * rng.normal(size=(1, int(bounds[1:].sum())))
    models = SupportingModels(problem, [order], bounds, before.copy())
    node_of = rng.integers(0, n_t, n)
    models.add_tree(0, node_of, n_t, shrinkage)
    for k in (1, 4, bounds.shape[0] - 2):
        m, body = int(bounds[k + 1]), int(bounds[k])
        rows = order[:m]
        s0 = int(np.searchsorted(models.segments.fold, k))
        f_old = before[0, s0:s0 + m]
        step = (models.fold(0, k) - f_old) / shrinkage
        tk = t.rows(rows)
        for p in rng.choice(np.arange(body, m), 5, replace=False):
            leaf = node_of[rows] == node_of[rows[p]]
            earlier = leaf & (np.arange(m) < p)
            if earlier.sum() < 3:
                assert step[p] == 0.0
                continue
            z = d.negative_gradient(tk, f_old, earlier, CTX)
            nodes = np.where(leaf, 0, 1)
            cnt = np.array([earlier.sum(), 0])
            mean_z = np.array([np.sum((tk.w * z)[earlier]) / np.sum(tk.w[earlier]), 0.0])
            want = d.fit_leaves(tk, f_old, z, Leaves(nodes, 2, cnt, mean_z, 3), earlier, CTX)[0]
            assert step[p] == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_refused_for_median_leaves():
    x = np.random.default_rng(0).normal(size=(100, 2))
    for dist in ("laplace", "tdist", {"name": "quantile", "alpha": 0.5}):
        with pytest.raises(ValueError, match="full_history=True is not available"):
            pygbm.gbm_fit(x, x[:, 0], distribution=dist, boosting_type="ordered",
                          full_history=True)
    with pytest.raises(TypeError, match="full_history"):
        pygbm.gbm_fit(x, x[:, 0], distribution="gaussian", boosting_type="ordered",
                      full_history="yes")


C1, C2, N16 = 2.0, 1.0, 16


def test_theorem1_residuals_unshifted_with_full_history():
    """CatBoost's folds (1, 2, 4, 8, 16 rows) with full_history: after the
    first stump on x1, every tail row's residual y_i - M_{sigma(i)-1}(x_i)
    has conditional mean c2 (x2 - 1/2), unshifted (Theorem 1)."""
    rng = np.random.default_rng(11)
    res = {0.0: [], 1.0: []}
    bounds = fold_boundaries(N16)
    start = np.concatenate(([0], np.cumsum(bounds[1:])))
    n_sets = 0
    while n_sets < 500:
        x = rng.integers(0, 2, (N16, 2)).astype(float)
        if len(np.unique(x[:, 0])) < 2:
            continue
        y = C1 * x[:, 0] + C2 * x[:, 1]
        fit = pygbm.gbm_fit(x, y, distribution="gaussian", n_trees=1, interaction_depth=1,
                            shrinkage=1.0, bag_fraction=1.0, n_minobsinnode=1, keep_data=False,
                            boosting_type="ordered", n_permutations=1, full_history=True,
                            random_state=n_sets)
        if fit.trees[0].split_var[0] != 0:
            continue
        n_sets += 1
        order = NativeViews(_Rows(), 1, fit.ts_support.seed).order(0)
        for k in range(bounds.shape[0] - 1):
            for p in range(bounds[k], bounds[k + 1]):      # the fold's tail
                i = order[p]
                if not np.any(x[order[:p], 0] == x[i, 0]):
                    continue                               # no earlier row in its leaf
                res[x[i, 1]].append(y[i] - fit.ts_support.approx[0, start[k] + p])
    for x2, r in res.items():
        r = np.asarray(r)
        se = r.std(ddof=1) / np.sqrt(r.size)
        assert abs(r.mean() - C2 * (x2 - 0.5)) < 4 * se, (x2, r.mean(), se)


class _Rows:
    n = N16
