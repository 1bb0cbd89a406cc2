"""The boosting loop's seams, each with a non-default implementation: the
row sampler, per-row state carried across trees, and the boosting scheme."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from pygbm.distributions import Bernoulli, FitContext, Gaussian, Poisson, Targets
from pygbm.engine.boost import BoostProblem, BoostState, run_boosting
from pygbm.engine.data import TrainingData
from pygbm.engine.sampling import Bag, SelectionBag
from pygbm.engine.schemes import PlainBoosting, TreeInputs

N, N_TRAIN, P = 400, 300, 4


def _problem(bag_fraction=0.5, sampler=None, weighted=False, dist=None):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(N, P))
    x[rng.random((N, P)) < 0.05] = np.nan
    dist = dist or Gaussian()
    if isinstance(dist, Bernoulli):
        y = (x[:, 0] + rng.normal(size=N) > 0).astype(float)
    else:
        y = np.nan_to_num(x[:, 0]) * 2 + np.sin(np.nan_to_num(x[:, 1])) + rng.normal(size=N)
    w = rng.uniform(0.5, 2.0, N) if weighted else np.ones(N)
    w = w * N / w.sum() if weighted else w
    return BoostProblem(x=x, targets=Targets(y, None, w), n_train=N_TRAIN,
                        var_type=np.zeros(P, dtype=np.intp),
                        var_monotone=np.zeros(P, dtype=np.intp), distribution=dist,
                        context=FitContext(), interaction_depth=3, n_minobsinnode=5,
                        shrinkage=0.1, bag_fraction=bag_fraction, sampler=sampler)


def _state(problem, rows=None):
    f0 = problem.distribution.init_f(problem.train_targets(), problem.context)
    return BoostState(f0, np.full(N, f0), rows=rows)


def _fit(problem, n_trees=8, rows=None, scheme=None, seed=1):
    state = _state(problem, rows)
    return run_boosting(problem, state, n_trees, np.random.default_rng(seed), scheme=scheme)


def _assert_same_fit(a, b):
    np.testing.assert_array_equal(a.f, b.f)
    np.testing.assert_array_equal(a.train_error, b.train_error)
    np.testing.assert_array_equal(a.valid_error, b.valid_error)
    np.testing.assert_array_equal(a.oobag_improve, b.oobag_improve)
    assert len(a.trees) == len(b.trees)
    for s, t in zip(a.trees, b.trees):
        np.testing.assert_array_equal(s.split_var, t.split_var)
        np.testing.assert_array_equal(s.split_code_pred, t.split_code_pred)


# ----------------------------------------------------------------- row sampler
class EveryRowOnce:
    """Every training row in every bag, each with weight factor 1."""

    def draw(self, rng, t):
        n = t.y.shape[0]
        return Bag(np.ones(n, dtype=bool), np.ones(n))


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dist", [Gaussian(), Bernoulli()], ids=["gaussian", "bernoulli"])
def test_a_sampler_of_every_row_with_weight_one_is_bag_fraction_one(weighted, dist):
    sampled = _fit(_problem(0.5, EveryRowOnce(), weighted, dist))
    whole = _fit(_problem(1.0, None, weighted, dist))
    _assert_same_fit(sampled, whole)


def test_r_bag_as_an_explicit_sampler_is_the_default():
    explicit = _fit(_problem(0.5, SelectionBag(N_TRAIN, 0.5, r_stream=False)))
    _assert_same_fit(explicit, _fit(_problem(0.5)))


class DoubledWeights:
    """R's bag, with every in-bag row's weight doubled (not unit weights)."""

    def __init__(self):
        self.inner = SelectionBag(N_TRAIN, 0.5, r_stream=False)

    def draw(self, rng, t):
        return Bag(self.inner.draw(rng, t).inbag, np.full(t.y.shape[0], 2.0))


def test_sampler_weights_reach_the_tree():
    """Doubling every weight leaves gaussian's trees the same up to rounding
    (means and gains scale), through the weighted (not the integer) path."""
    doubled = _fit(_problem(0.5, DoubledWeights()))
    plain = _fit(_problem(0.5))
    np.testing.assert_allclose(doubled.f, plain.f, rtol=1e-10, atol=1e-10)
    for s, t in zip(doubled.trees, plain.trees):
        np.testing.assert_array_equal(s.split_var, t.split_var)
        np.testing.assert_allclose(s.weight, 2 * t.weight)


# ----------------------------------------------------------------- per-row state
class InBagCount:
    """Per row: the number of trees whose bag held it."""

    def __init__(self, n):
        self.count = np.zeros(n, dtype=int)
        self.trees = 0

    def tree_added(self, grown, bag):
        self.count += bag
        self.trees += 1


class RecordingSampler:
    def __init__(self):
        self.inner = SelectionBag(N_TRAIN, 0.5, r_stream=False)
        self.total = np.zeros(N_TRAIN, dtype=int)

    def draw(self, rng, t):
        bag = self.inner.draw(rng, t)
        self.total += bag.inbag
        return bag


def test_row_state_is_told_of_every_tree_and_continues():
    sampler = RecordingSampler()
    problem = _problem(0.5, sampler)
    rows = InBagCount(N_TRAIN)
    state = _state(problem, rows)
    rng = np.random.default_rng(1)
    run_boosting(problem, state, 5, rng)
    run_boosting(problem, state, 3, rng)           # gbm_more: the same state continues
    assert state.rows is rows and rows.trees == 8
    np.testing.assert_array_equal(rows.count, sampler.total)
    _assert_same_fit(state, _fit(_problem(0.5)))   # the state does not change the fit


# ----------------------------------------------------------------- boosting scheme
class RoutedLeaves:
    """Trees grown on one encoding of the rows, leaves fitted on the rows as
    another (equal) encoding routes them; records the iterations asked."""

    def __init__(self, problem):
        x = problem.x[:N_TRAIN]
        self.grow_on = TrainingData(x, problem.var_type, problem.var_monotone)
        self.leaves_on = TrainingData(x.copy(), problem.var_type, problem.var_monotone)
        self.iterations = []
        self.added = 0

    def start(self, state, f_tr):
        return self

    def tree_inputs(self, iteration, f_tr):
        self.iterations.append(iteration)
        return TreeInputs(self.grow_on, f_tr.copy(), self.leaves_on)

    def tree_added(self, grown, inputs, shrinkage):
        self.added += 1

    def finish(self, state):
        state.support = np.array(self.iterations)


def test_a_scheme_decides_each_iterations_inputs():
    problem = _problem(0.5)
    scheme = RoutedLeaves(problem)
    state = _state(problem)
    rng = np.random.default_rng(1)
    run_boosting(problem, state, 5, rng, scheme=scheme)
    run_boosting(problem, state, 3, rng, scheme=scheme)
    assert scheme.iterations == list(range(8)) and scheme.added == 8
    np.testing.assert_array_equal(state.support, np.arange(8))
    # the same rows routed by an equal encoding: R's trees (the leaf means
    # summed per node by the leaf path rather than in R's order)
    plain = _fit(problem, scheme=PlainBoosting(problem.training_data()))
    np.testing.assert_allclose(state.f, plain.f, rtol=1e-12, atol=1e-12)
    for s, t in zip(state.trees, plain.trees):
        np.testing.assert_array_equal(s.split_var, t.split_var)


class AllMissingLeaves(RoutedLeaves):
    """Leaves fitted on an encoding in which every value is missing: every
    row takes the missing branch, the other leaves receive no row."""

    def __init__(self, problem):
        super().__init__(problem)
        x = np.full_like(problem.x[:N_TRAIN], np.nan)
        self.leaves_on = TrainingData(x, problem.var_type, problem.var_monotone)


def test_a_leaf_that_the_leaf_encoding_leaves_empty_takes_no_step():
    # poisson's terminal rule gives log(0) = -19 to a node whose rows sum to 0;
    # a node with no row at all has no estimate and must not move the model
    rng = np.random.default_rng(3)
    x = rng.normal(size=(N, P))
    y = rng.poisson(np.exp(0.5 * x[:, 0])).astype(float)
    dist = Poisson()
    problem = BoostProblem(x=x, targets=Targets(y, None, np.ones(N)), n_train=N_TRAIN,
                           var_type=np.zeros(P, dtype=np.intp),
                           var_monotone=np.zeros(P, dtype=np.intp), distribution=dist,
                           context=FitContext(), interaction_depth=3, n_minobsinnode=5,
                           shrinkage=0.1, bag_fraction=0.5)
    state = _state(problem)
    run_boosting(problem, state, 4, np.random.default_rng(1), scheme=AllMissingLeaves(problem))
    for tree in state.trees:
        terminal = np.asarray(tree.is_terminal, dtype=bool)
        values = np.asarray(tree.prediction)[terminal]
        # all leaves but the one on the all-missing path are empty: 0, not -19 * 0.1
        assert np.count_nonzero(values == 0.0) >= len(values) - 1
        assert np.all(np.abs(values) < 1.0)
    assert np.all(np.isfinite(state.f))


class _NewtonSplitBernoulli(Bernoulli):
    """Bernoulli trees grown on the Newton response (second-order splits)."""

    def growth_response(self, t, f, z, ctx):
        h = np.exp(-f) / (1.0 + np.exp(-f)) ** 2
        return z / h, t.w * h


@pytest.mark.parametrize("engine", ["numba", "numpy"])
def test_a_subclassed_distribution_runs_its_own_methods_on_either_engine(engine):
    """The distribution seam: the compiled engine implements the package's own
    classes only, so a subclass (same name) runs on the NumPy loop, its
    methods honoured, rather than as the built-in kernel of its name."""
    if engine == "numba":
        pytest.importorskip("numba")
    own = _fit(replace(_problem(dist=_NewtonSplitBernoulli()), engine=engine))
    reference = _fit(replace(_problem(dist=_NewtonSplitBernoulli()), engine="numpy"))
    _assert_same_fit(own, reference)
    built_in = _fit(replace(_problem(dist=Bernoulli()), engine=engine))
    assert not np.array_equal(own.f, built_in.f)
