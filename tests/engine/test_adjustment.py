"""The split-gain adjustment seam (engine/adjustment.py) in both searches:
an infinite penalty on a predictor gives exactly the fit without it; a
finite one flips a choice where it outweighs the difference of the gains;
the grower reports every split; improvements stay R's gains."""
from __future__ import annotations

import numpy as np
import pytest

from pygbm.distributions import FitContext, Targets, get_distribution
from pygbm.engine.binned import BinnedTrainingData
from pygbm.engine.boost import BoostProblem, BoostState, run_boosting
from pygbm.engine.data import TrainingData
from pygbm.engine.grow import TreeGrower


class Penalty:
    """A fixed penalty per predictor; records the splits it is told of."""

    def __init__(self, p, costs):
        self.costs = np.zeros(p)
        for v, c in costs.items():
            self.costs[v] = c
        self.seen = []          # (node, split, rows) per on_split
        self.asked = 0

    def penalties(self, node, rows):
        self.asked += 1
        assert rows.size == node.n == np.unique(rows).size     # any order
        return self.costs

    def on_split(self, node, split, rows):
        self.seen.append((node, split, rows))


def _case(seed, n=600):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4))
    x[:, 2] = rng.integers(0, 5, n)
    x[rng.random((n, 4)) < 0.1] = np.nan
    var_type = np.array([0, 0, 5, 0])
    f = np.nan_to_num(x[:, 0]) + 0.8 * np.nan_to_num(x[:, 1]) + (np.nan_to_num(x[:, 2]) == 3)
    z = f + 0.5 * rng.normal(size=n)
    return x, var_type, z, rng.random(n) < 0.6


def _data(x, var_type, layout):
    mono = np.zeros(x.shape[1], dtype=int)
    if layout == "exact":
        return TrainingData(x, var_type, mono)
    if layout == "exact_bins":                  # one bucket per value: R's splits
        return BinnedTrainingData(np.round(x, 1), var_type, mono, 255)
    return BinnedTrainingData(x, var_type, mono, 16)


def _grow(data, z, w, inbag, adjustment=None, depth=4):
    unit = bool(np.all(w == 1.0))
    searcher = data.searcher(z, w, unit, 5, adjustment)
    return TreeGrower(data, searcher, depth).grow(z, w, inbag, unit)


def _splits(tree, var_map=None):
    out = []
    for node in tree.nodes:
        s = node.split
        if s is not None:
            var = s.var if var_map is None else var_map[s.var]
            levels = None if s.left_levels is None else s.left_levels.tolist()
            out.append((var, s.value, levels, s.improvement, s.left, s.right, s.missing))
    return out


@pytest.mark.parametrize("layout", ["exact", "exact_bins", "binned"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("banned", [0, 2])
def test_infinite_penalty_gives_the_tree_without_the_predictor(layout, weighted, banned):
    x, var_type, z, inbag = _case(banned + 3 * weighted)
    if layout == "exact_bins":
        x = np.round(x, 1)
    w = np.random.default_rng(1).uniform(0.5, 2.0, z.size) if weighted else np.ones(z.size)
    p = x.shape[1]
    penalty = Penalty(p, {banned: np.inf})
    got = _grow(_data(x, var_type, layout), z, w, inbag, penalty)
    keep = [v for v in range(p) if v != banned]
    want = _grow(_data(x[:, keep], var_type[keep], layout), z, w, inbag)
    assert _splits(got) == _splits(want, var_map=keep)
    np.testing.assert_array_equal(got.node_of, want.node_of)
    assert banned not in got.vars_used and len(got.vars_used) == 4
    assert penalty.asked > 0


@pytest.mark.parametrize("layout", ["exact", "binned"])
def test_finite_penalty_flips_the_choice_only_when_it_outweighs_the_gain(layout):
    x, var_type, z, inbag = _case(11)
    w = np.ones(z.size)
    data = _data(x, var_type, layout)
    first = _grow(data, z, w, inbag, depth=1).nodes[0].split
    # the best split on another predictor
    others = Penalty(x.shape[1], {first.var: np.inf})
    second = _grow(data, z, w, inbag, others, depth=1).nodes[0].split
    margin = first.improvement - second.improvement
    assert margin > 0
    small = _grow(data, z, w, inbag, Penalty(x.shape[1], {first.var: 0.5 * margin}),
                  depth=1).nodes[0].split
    assert (small.var, small.value, small.improvement) == \
        (first.var, first.value, first.improvement)
    assert small.penalty == 0.5 * margin and small.score == first.improvement - 0.5 * margin
    large = _grow(data, z, w, inbag, Penalty(x.shape[1], {first.var: 1.5 * margin}),
                  depth=1).nodes[0].split
    assert (large.var, large.value, large.improvement) == \
        (second.var, second.value, second.improvement)   # the raw gain is kept
    assert large.penalty == 0.0


def test_penalties_above_every_gain_leave_the_root_unsplit():
    x, var_type, z, inbag = _case(2)
    tree = _grow(_data(x, var_type, "exact"), z, np.ones(z.size), inbag,
                 Penalty(x.shape[1], {v: 1e12 for v in range(x.shape[1])}))
    assert tree.n_terminal == 1


def test_grower_reports_every_split_with_the_nodes_in_bag_rows():
    x, var_type, z, inbag = _case(4)
    penalty = Penalty(x.shape[1], {})
    tree = _grow(_data(x, var_type, "exact"), z, np.ones(z.size), inbag, penalty)
    made = [node.split for node in tree.nodes if node.split is not None]
    assert [s for _, s, _ in penalty.seen] == made
    root_node, _, root_rows = penalty.seen[0]
    np.testing.assert_array_equal(root_rows, np.flatnonzero(inbag))
    assert root_node.n == inbag.sum()
    for node, split, rows in penalty.seen:
        assert rows.size == node.n == split.left.n + split.right.n + split.missing.n


def test_boosting_passes_the_adjustment_to_every_tree():
    """BoostProblem.gain_adjustment reaches every tree's search: forbidding a
    predictor gives the fit on the other predictors."""
    x, var_type, z, _ = _case(9, n=500)
    y = z
    keep = [0, 2, 3]

    def fit(xx, vt, adjustment):
        n = xx.shape[0]
        problem = BoostProblem(x=xx, targets=Targets(y, None, np.ones(n)), n_train=n,
                               var_type=vt, var_monotone=np.zeros(vt.size, dtype=int),
                               distribution=get_distribution("gaussian"),
                               context=FitContext(), interaction_depth=3, n_minobsinnode=5,
                               shrinkage=0.1, bag_fraction=0.5, gain_adjustment=adjustment)
        state = BoostState(float(y.mean()), np.full(n, float(y.mean())))
        return run_boosting(problem, state, 10, np.random.default_rng(0))

    got = fit(x, var_type, Penalty(4, {1: np.inf}))
    want = fit(x[:, keep], var_type[keep], None)
    np.testing.assert_array_equal(got.f, want.f)
    np.testing.assert_array_equal(got.train_error, want.train_error)
    for a, b in zip(got.trees, want.trees):
        used = a.split_var >= 0
        np.testing.assert_array_equal(a.split_var[used], np.array(keep)[b.split_var[used]])
