"""Cost-efficient boosting in the engine (engine/cegb.py), hand-computed:
the penalty flips a choice exactly where it crosses the gain difference, the
model cost is paid once (and the other nodes searched again), rows marked in
one tree do not pay in the next (out-of-bag rows and missing children
included), a large split cost gives the constant model, LightGBM's scaling
equalities give identical trees."""
from __future__ import annotations

import numpy as np
import pytest

from pygbm.distributions import FitContext, Targets, get_distribution
from pygbm.engine.boost import BoostProblem, BoostState, run_boosting
from pygbm.engine.cegb import Columns, CostSpec, CostTracker, grown_paths, path_masks
from pygbm.engine.data import TrainingData
from pygbm.engine.binned import BinnedTrainingData
from pygbm.engine.grow import TreeGrower
from pygbm.engine.split import Side, Split


def _spec(p, feature=None, model=None, split=0.0, tradeoff=1.0):
    vec = lambda d: np.array([float((d or {}).get(v, 0.0)) for v in range(p)])  # noqa: E731
    return CostSpec(vec(feature), vec(model), float(split), float(tradeoff))


def _case(seed, n=400, p=4, missing=0.0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, p))
    if missing:
        x[rng.random((n, p)) < missing] = np.nan
    z = np.nan_to_num(x[:, 0]) + 0.7 * np.nan_to_num(x[:, 1]) + 0.5 * rng.normal(size=n)
    return x, z


def _data(x, layout="exact"):
    p = x.shape[1]
    if layout == "exact":
        return TrainingData(x, np.zeros(p, dtype=int), np.zeros(p, dtype=int))
    return BinnedTrainingData(x, np.zeros(p, dtype=int), np.zeros(p, dtype=int), 32)


def _grow(data, z, adjustment, depth=1, inbag=None):
    inbag = np.ones(z.size, dtype=bool) if inbag is None else inbag
    w = np.ones(z.size)
    searcher = data.searcher(z, w, True, 5, adjustment)
    return TreeGrower(data, searcher, depth).grow(z, w, inbag, True)


def _root(data, z, adjustment):
    return _grow(data, z, adjustment).nodes[0].split


@pytest.mark.parametrize("layout", ["exact", "binned"])
def test_equal_gains_the_free_predictor_wins(layout):
    x, z = _case(0)
    x = np.column_stack([x[:, 0], x[:, 0]])          # two copies: equal gains
    data = _data(x, layout)
    assert _root(data, z, None).var == 0                # R's rule: the first
    n = z.size
    got = _root(data, z, CostTracker(_spec(2, feature={0: 10.0}), n, None))
    assert got.var == 1 and got.penalty == 0.0


@pytest.mark.parametrize("layout", ["exact", "binned"])
def test_choice_flips_exactly_where_the_penalty_crosses_the_gain_difference(layout):
    x, z = _case(1)
    data = _data(x, layout)
    n = z.size
    best = _root(data, z, None)
    assert best.var == 0
    # x1's best gain: x0 forbidden
    ban = CostTracker(_spec(4, model={0: np.inf, 2: np.inf, 3: np.inf}), n, None)
    second = _root(data, z, ban)
    assert second.var == 1
    gap = best.improvement - second.improvement
    # beta_0 * lambda * W against the gap: W = n rows, none read yet
    lam = 0.5
    for factor, winner in ((0.999, 0), (1.001, 1)):
        beta = factor * gap / (lam * n)
        split = _root(data, z, CostTracker(_spec(4, feature={0: beta}, tradeoff=lam), n, None))
        assert split.var == winner
        assert split.improvement == (best if winner == 0 else second).improvement
        assert split.penalty == (lam * beta * n if winner == 0 else 0.0)


def test_model_cost_is_paid_once_and_other_nodes_are_searched_again():
    x, z = _case(2, n=600)
    n = z.size
    gamma = 5.0

    class Counting(CostTracker):
        def __init__(self, *a):
            super().__init__(*a)
            self.asked, self.events = [], []

        def penalties(self, node, rows):
            self.asked.append(node.n)
            return super().penalties(node, rows)

        def on_split(self, node, split, rows):
            paid = super().on_split(node, split, rows)
            if paid:
                self.events.append(len(self.asked))
            return paid

    tracker = Counting(_spec(4, model={v: gamma for v in range(4)}), n, None)
    tree = _grow(_data(x), z, tracker, depth=6)
    made = tracker._current
    vars_made = [int(v) for v, _, _ in made]
    for k, (v, gain, pen) in enumerate(made):
        first = vars_made.index(int(v)) == k
        assert pen == (gamma if first else 0.0)        # paid by the first split on v only
    assert tracker.used_model.sum() == len(set(vars_made))
    assert len(tracker.events) == len(set(vars_made)) > 1
    # without re-searches each node is searched once: one search per node made
    # (the missing children are empty: never searched) and a few more
    plain = Counting(_spec(4, model={v: 0.0 for v in range(4)}, split=1e-12), n, None)
    _grow(_data(x), z, plain, depth=6)
    assert len(tracker.asked) > len(plain.asked) - 1
    assert tree.n_terminal > 1


class _Always(CostTracker):
    """Searches every terminal node again after every split (no cached bests)."""

    def on_split(self, node, split, rows):
        super().on_split(node, split, rows)
        return True


class _Never(CostTracker):
    """Never searches again (stale bests after a model cost is paid)."""

    def on_split(self, node, split, rows):
        super().on_split(node, split, rows)
        return False


@pytest.mark.parametrize("seed", [0, 2, 6])
def test_searching_again_after_a_model_cost_is_searching_everything_again(seed):
    x, z = _case(seed, n=600)
    spec = _spec(4, model={v: 50.0 for v in range(4)})

    def splits(tracker):
        tree = _grow(_data(x), z, tracker, depth=6)
        return [(n.split.var, n.split.value) for n in tree.nodes if n.split is not None]

    got = splits(CostTracker(spec, z.size, None))
    assert got == splits(_Always(spec, z.size, None))
    assert got != splits(_Never(spec, z.size, None))     # the re-search matters here


def test_rows_marked_in_one_tree_do_not_pay_in_the_next():
    x, z = _case(3, missing=0.1)
    n = z.size
    rng = np.random.default_rng(0)
    inbag = rng.random(n) < 0.5
    tracker = CostTracker(_spec(4, feature={0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0},
                                tradeoff=1e-6), n, None)
    grown = _grow(_data(x), z, tracker, depth=3, inbag=inbag)
    tracker.tree_added(grown, inbag)
    root = grown.nodes[0].split
    v = root.var
    read = tracker.read(np.arange(n))
    # every row (in and out of the bag, missing values included) read the root's predictor
    assert read[:, v].all()
    assert np.isnan(x[:, v]).any()
    # the next tree: the root's predictor costs nothing, the others what is unread
    pen = tracker.penalties(Side(0.0, float(n), n), np.arange(n))
    assert pen[v] == 0.0
    expect = 1e-6 * (n - read.sum(axis=0))
    np.testing.assert_array_equal(pen, expect)
    # what each row read is exactly its path's predictors, out-of-bag rows too
    paths, depth = grown_paths(grown, Columns(4))
    np.testing.assert_array_equal(read.astype(bool), paths[grown.node_of])
    np.testing.assert_array_equal(tracker.evaluated, depth[grown.node_of])
    assert read[~inbag].sum() > 0


def _problem(x, y, adjustment, depth=3, bag=0.5):
    n = x.shape[0]
    p = x.shape[1]
    return BoostProblem(x=x, targets=Targets(y, None, np.ones(n)), n_train=n,
                        var_type=np.zeros(p, dtype=int), var_monotone=np.zeros(p, dtype=int),
                        distribution=get_distribution("gaussian"), context=FitContext(),
                        interaction_depth=depth, n_minobsinnode=5, shrinkage=0.1,
                        bag_fraction=bag, gain_adjustment=adjustment)


def _fit(x, y, spec, n_trees=10, depth=3, bag=0.5):
    n = x.shape[0]
    tracker = None if spec is None else CostTracker(spec, n, None)
    state = BoostState(float(y.mean()), np.full(n, float(y.mean())), rows=tracker)
    return run_boosting(_problem(x, y, tracker, depth, bag), state, n_trees,
                        np.random.default_rng(0))


def test_large_split_cost_gives_the_constant_model():
    x, z = _case(4)
    state = _fit(x, z, _spec(4, split=1e6))
    assert all(t.n_nodes == 1 for t in state.trees)
    assert np.unique(state.f).size == 1                 # the same value for every row


def test_split_cost_stops_a_tree_early():
    x, z = _case(5)
    n = z.size
    data = _data(x)
    grown = _grow(data, z, None, depth=3)
    gains = sorted(node.split.improvement for node in grown.nodes if node.split is not None)
    # alpha * W per split: the root has W = n, the children fewer rows; an
    # alpha between the root's gain/n and the children's largest gain/W stops at 1
    alpha = 0.999 * gains[-1] / n
    cut = _grow(data, z, CostTracker(_spec(4, split=alpha), n, None), depth=3)
    made = [node.split for node in cut.nodes if node.split is not None]
    assert 1 <= len(made) < 3
    for s in made:
        assert s.improvement - s.penalty > 0.0
        assert s.penalty == alpha * (s.left.n + s.right.n + s.missing.n)


#: the trade-off of the scaling tests' first fit
LAMBDA = 0.5


@pytest.mark.parametrize("costs,other", [
    (dict(feature={0: 2.0, 1: 1.0}), dict(feature={0: 1.0, 1: 0.5}, tradeoff=2 * LAMBDA)),
    (dict(split=0.5), dict(split=1.0, tradeoff=LAMBDA / 2)),
    (dict(model={0: 400.0, 1: 200.0}), dict(model={0: 200.0, 1: 100.0}, tradeoff=2 * LAMBDA)),
])
def test_lightgbm_scaling_equalities_give_identical_trees(costs, other):
    """(beta, lambda) = (beta/2, 2 lambda), (alpha, lambda) = (2 alpha, lambda/2),
    (gamma, lambda) = (gamma/2, 2 lambda): the same trees, bit for bit."""
    x, z = _case(6)
    a = _fit(x, z, _spec(4, tradeoff=LAMBDA, **costs))
    b = _fit(x, z, _spec(4, **other))
    for s, t in zip(a.trees, b.trees):
        np.testing.assert_array_equal(s.split_var, t.split_var)
        np.testing.assert_array_equal(s.split_code_pred, t.split_code_pred)
    np.testing.assert_array_equal(a.f, b.f)
    plain = _fit(x, z, None)
    assert any(not np.array_equal(s.split_var, t.split_var)      # the costs act
               for s, t in zip(a.trees, plain.trees))


def test_penalised_gain_recorded_with_the_raw_gain():
    x, z = _case(7)
    state = _fit(x, z, _spec(4, feature={0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0}, tradeoff=0.05))
    tracker = state.rows
    assert len(tracker.splits) == len(state.trees)
    for tree, made in zip(state.trees, tracker.splits):
        stored = np.sort(tree.error_reduction[tree.split_var >= 0])
        np.testing.assert_array_equal(stored, np.sort(made[:, 1]))   # raw gains stored
        assert np.all(made[:, 1] - made[:, 2] > 0)                   # penalised gain > 0


@pytest.mark.parametrize("block", [4, 16])
@pytest.mark.parametrize("missing", [0.0, 0.1])
def test_bounded_search_finds_the_penalised_splits_of_the_full_search(
        block, missing, force_bounded_search, monkeypatch):
    """The exact search's bounded pass (engine/bounded.py) with penalties:
    forced on every node, the same trees, split for split, as the full
    computation; and it is taken."""
    from pygbm.engine import exact

    rng = np.random.default_rng(8)
    x, z = _case(8, n=900, p=6, missing=missing)
    x[:, 4] = np.round(x[:, 4] * 4)                     # tied values too
    inbag = rng.random(z.size) < 0.7
    spec = _spec(6, feature={0: 0.3, 1: 0.1, 3: 0.05, 4: 0.02}, model={2: 20.0},
                 split=0.01)

    def splits():
        tree = _grow(_data(x), z, CostTracker(spec, z.size, None), depth=8, inbag=inbag)
        return [(n.split.var, n.split.value, n.split.improvement, n.split.penalty)
                for n in tree.nodes if n.split is not None]

    want = splits()
    plain = _grow(_data(x), z, None, depth=8, inbag=inbag)
    assert [n.split.var for n in plain.nodes if n.split is not None] != [s[0] for s in want]
    force_bounded_search(block)
    taken = []
    bounded_gains = exact.ExactSearch._bounded_gains

    def spy(self, state, offsets=None):
        found = bounded_gains(self, state, offsets)
        taken.append(offsets is not None and found.ok)
        return found

    monkeypatch.setattr(exact.ExactSearch, "_bounded_gains", spy)
    assert splits() == want
    assert sum(taken) > len(want)


@pytest.mark.parametrize("layout", ["exact", "binned"])
def test_best_first_across_nodes_compares_penalised_gains(layout):
    """After the root's split, the next split goes to the terminal node with
    the largest gain *less its penalty*: the left child's split on an
    expensive predictor has the larger raw gain, the right child's on a free
    one the smaller; the second split moves from left to right exactly
    where the left one's penalty crosses the difference of the two gains."""
    rng = np.random.default_rng(12)
    n = 400
    x0, c, e = rng.random(n), rng.normal(size=n), rng.normal(size=n)
    left = x0 < 0.5
    z = 10.0 * ~left + np.where(left, 3.0 * np.sign(e), 2.0 * np.sign(c))
    x = np.column_stack([x0, c, e])
    data = _data(x, layout)
    plain = _grow(data, z, None, depth=3)
    made = [nd.split for nd in plain.nodes if nd.split is not None]
    assert [s.var for s in made] == [0, 2, 1]           # root, then left (e), then right (c)
    gain_left, gain_right = made[1].improvement, made[2].improvement
    n_left = made[0].left.n
    lam = 0.01
    for factor, second in ((0.999, 2), (1.001, 1)):
        beta = factor * (gain_left - gain_right) / (lam * n_left)
        tracker = CostTracker(_spec(3, feature={2: beta}, tradeoff=lam), n, None)
        grown = _grow(data, z, tracker, depth=2)
        got = [nd.split for nd in grown.nodes if nd.split is not None]
        assert [s.var for s in got] == [0, second]
        if second == 1:                                   # the right child, no penalty
            assert got[1].improvement == gain_right and got[1].penalty == 0.0
        else:
            assert got[1].penalty == pytest.approx(lam * beta * n_left, rel=1e-12)


def test_a_combination_is_charged_its_members_costs_and_marks_them():
    """A column computed from several predictors (a target-statistics
    combination, column p + slot) reads every member: its split is charged
    alpha*W once and each member's gamma (new to the model) and beta (rows
    that have not read it), and it marks every member for the node's rows."""
    n = 10
    columns = Columns(3, [(0, 2)])                      # column 3 = combination of 0 and 2
    spec = _spec(3, feature={0: 1.0, 1: 5.0, 2: 7.0}, model={2: 11.0}, split=0.5, tradeoff=2.0)
    tracker = CostTracker(spec, n, None, columns)
    node = Side(0.0, float(n), n)
    rows = np.arange(n)

    def made(var, on):                                   # a split of rows ``on`` on ``var``
        side = Side(0.0, float(on.size), on.size)
        split = Split(1.0, var, 0.0, None, side, side, Side(0.0, 0.0, 0), True)
        return tracker.on_split(side, split, on)

    assert made(0, rows[:5]) is False                   # predictor 0: no model cost
    # 2 * (0.5*10 + 11 [2 new] + 1*5 [rows 5..9 unread 0] + 7*10 [no row read 2])
    assert tracker.combination_penalty(node, rows[::-1], (0, 2)) == 2 * (5 + 11 + 5 + 70)
    assert made(3, rows) is True                         # gamma_2 paid now: search again
    assert tracker.used_model.tolist() == [True, False, True]
    read = tracker.read(rows)
    assert read[:, 0].all() and read[:, 2].all() and not read[:, 1].any()
    assert tracker.combination_penalty(node, rows, (0, 2)) == 2 * 0.5 * 10
    assert made(3, rows) is False                        # nothing new
    # paths: a split on the combination reads both members below it
    mask, depth = path_masks(4, columns, lambda k: (1, 2, 3) if k == 0 else None,
                             lambda k: 3)
    assert mask[1:].tolist() == [[True, False, True]] * 3 and depth.tolist() == [0, 1, 1, 1]
