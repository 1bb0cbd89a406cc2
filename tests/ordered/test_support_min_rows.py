"""The supporting models estimate no leaf from fewer body rows than
n_minobsinnode (R estimates no terminal node from fewer rows): such a leaf
adds nothing to the fold's model; from n_minobsinnode rows on, the leaf's
value is the distribution's fit_leaves on its body rows. Both engines."""
from __future__ import annotations

import numpy as np
import pytest

from pygbm.distributions import FitContext, Leaves, Targets, get_distribution
from pygbm.ordered.compiled.support import CompiledSupportingModels
from pygbm.ordered.folds import fold_boundaries
from pygbm.ordered.scheme import OrderedProblem
from pygbm.ordered.spec import OrderedSpec
from pygbm.ordered.support import SupportingModels

RATIO = ["gaussian", "bernoulli", "poisson", "adaboost", "huberized"]
CTX = FitContext(r_exact_math=True)
MIN_OBS = 5
N_ROWS = 600          # folds 12, 24, 48, ...: fold 1's body is positions 0..23
SHRINKAGE = 0.5


def _setup(dist, full_history, cls):
    rng = np.random.default_rng(3)
    d = get_distribution(dist)
    eta = rng.normal(size=N_ROWS)
    if dist == "poisson":
        y = rng.poisson(np.exp(eta)).astype(float)
    elif dist == "gaussian":
        y = eta + rng.normal(size=N_ROWS)
    else:
        y = (rng.random(N_ROWS) < 0.4).astype(float)
    t = Targets(y, None, np.ones(N_ROWS))
    problem = OrderedProblem(t, d, CTX, 3, MIN_OBS, OrderedSpec(1, 2.0, None, full_history))
    bounds = fold_boundaries(N_ROWS)
    order = rng.permutation(N_ROWS)
    before = 0.2 * rng.normal(size=(1, int(bounds[1:].sum())))
    models = cls(problem, [order], bounds, before.copy())
    # by position: leaf 0 holds body positions 0..3 (4 rows) and tail positions
    # 24..29 of fold 1; leaf 1 body positions 4..8 (5 rows) and tail 30..35
    leaf_at = np.full(N_ROWS, 2)
    leaf_at[0:4] = 0
    leaf_at[24:30] = 0
    leaf_at[4:9] = 1
    leaf_at[30:36] = 1
    node_of = np.empty(N_ROWS, dtype=np.intp)
    node_of[order] = leaf_at
    return d, t, order, bounds, before, models, node_of, leaf_at


@pytest.mark.parametrize("cls", [SupportingModels, CompiledSupportingModels])
@pytest.mark.parametrize("full_history", [False, True])
@pytest.mark.parametrize("dist", RATIO)
def test_leaf_with_too_few_body_rows_adds_nothing(dist, full_history, cls):
    d, t, order, bounds, before, models, node_of, leaf_at = _setup(dist, full_history, cls)
    models.add_tree(0, node_of, 3, SHRINKAGE)
    k, m = 1, int(bounds[2])
    s0 = int(np.searchsorted(models.segments.fold, k))
    f_old = before[0, s0:s0 + m]
    step = (models.fold(0, k) - f_old) / SHRINKAGE
    in_leaf = leaf_at[:m]
    # 4 body rows (< n_minobsinnode): its body rows do not move, nor its tail
    # rows (with full_history: those with fewer than 5 of the leaf's rows before them)
    zero = in_leaf == 0
    if full_history:
        before_in_leaf = np.cumsum(zero) - zero
        moved = zero & (np.arange(m) >= bounds[k]) & (before_in_leaf >= MIN_OBS)
        assert moved.sum() == 5 and np.all(step[moved] != 0.0)
        zero &= ~moved
    np.testing.assert_array_equal(step[zero], 0.0)
    # 5 body rows: the body rows take fit_leaves of the 5
    tk = t.rows(order[:m])
    body = (in_leaf == 1) & (np.arange(m) < bounds[k])
    z = d.negative_gradient(tk, f_old, body, CTX)
    nodes = np.where(in_leaf == 1, 0, 1)
    mean_z = np.array([np.sum((tk.w * z)[body]) / np.sum(tk.w[body]), 0.0])
    want = d.fit_leaves(tk, f_old, z, Leaves(nodes, 2, np.array([5, 0]), mean_z, MIN_OBS),
                        body, CTX)[0]
    assert want != 0.0
    np.testing.assert_allclose(step[body], want, rtol=1e-12, atol=1e-12)
    tail = (in_leaf == 1) & (np.arange(m) >= bounds[k])
    if not full_history:
        np.testing.assert_allclose(step[tail], want, rtol=1e-12, atol=1e-12)
    else:                       # the first tail row has the 5 body rows before it
        assert step[np.flatnonzero(tail)[0]] == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("full_history", [False, True])
@pytest.mark.parametrize("dist", RATIO)
def test_both_engines_agree_on_the_rule(dist, full_history):
    a = _setup(dist, full_history, SupportingModels)
    b = _setup(dist, full_history, CompiledSupportingModels)
    a[5].add_tree(0, a[6], 3, SHRINKAGE)
    b[5].add_tree(0, b[6], 3, SHRINKAGE)
    np.testing.assert_array_equal(a[5].approx, b[5].approx)
