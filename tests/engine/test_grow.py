"""grow_tree: best-first growth, R's terminal numbering, Adjust, R's tree vectors."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.engine.data import TrainingData
from pygbm.engine.grow import grow_tree, route
from pygbm.engine.tree import NO_NODE


def _grow(seed=0, depth=3, min_obs=5, nan=True, categorical=True):
    rng = np.random.default_rng(seed)
    n, p = 300, 3
    x = rng.normal(size=(n, p))
    var_type = np.zeros(p, dtype=int)
    if categorical:
        x[:, 2] = rng.integers(0, 5, n)
        var_type[2] = 5
    if nan:
        x[rng.random((n, p)) < 0.15] = np.nan
    z = np.nan_to_num(x[:, 0]) * 2 + np.nan_to_num(x[:, 2]) + rng.normal(size=n)
    w = np.ones(n)
    data = TrainingData(x, var_type, np.zeros(p, dtype=int))
    inbag = np.ones(n, dtype=bool)
    tree = grow_tree(data, data.searcher(z, w, True, min_obs), z, w, inbag, depth, True)
    return data, x, z, tree


def test_depth_is_number_of_splits_and_three_children_each():
    for depth in (1, 2, 4):
        _, _, _, g = _grow(depth=depth)
        splits = [nd for nd in g.nodes if not nd.is_terminal]
        assert len(splits) == depth
        assert g.n_terminal == 2 * depth + 1        # R: 2*depth + 1 terminal nodes
        assert len(g.nodes) == 3 * depth + 1


def test_rows_reach_their_terminal_and_counts_add_up():
    data, x, z, g = _grow()
    counts = np.bincount(g.node_of, minlength=g.n_terminal)
    assert counts.sum() == x.shape[0]
    np.testing.assert_array_equal(counts, g.terminal_counts())
    preds = g.terminal_preds()
    for t in range(g.n_terminal):       # grow-time prediction = mean z of the node
        if counts[t]:
            assert preds[t] == np.mean(z[g.node_of == t]) or np.isclose(
                preds[t], np.mean(z[g.node_of == t]), rtol=1e-12)


def test_r_tree_vectors_route_rows_like_the_grower():
    data, x, z, g = _grow(seed=3)
    c_splits = []
    g.adjust(5)
    tree = g.to_r_tree(0.1, data.var_type, c_splits)
    term = tree.terminal_of(x, data.var_type, c_splits)
    assert np.all(tree.split_var[term] == NO_NODE)
    np.testing.assert_allclose(tree.split_code_pred[term], 0.1 * g.terminal_preds()[g.node_of])
    # pre-order numbering: children come after their parent, left < right < missing
    inner = np.flatnonzero(tree.split_var >= 0)
    for k in inner:
        assert k < tree.left[k] < tree.right[k] < tree.missing[k]
    # categorical split rows in c_splits: -1 left, +1 right, one entry per level
    for k in inner:
        if data.var_type[tree.split_var[k]] > 0:
            row = c_splits[int(tree.split_code_pred[k])]
            assert row.shape[0] == 5 and set(row.tolist()) <= {-1, 1}


def test_adjust_gives_small_missing_nodes_the_weighted_sibling_average():
    data, x, z, g = _grow(seed=5, nan=False)
    g.adjust(5)
    for nd in g.nodes:
        if nd.is_terminal:
            continue
        left, right, miss = (g.nodes[i] for i in nd.children)
        if miss.is_terminal and miss.n < 5:
            want = (left.w * left.pred + right.w * right.pred) / (left.w + right.w)
            assert miss.pred == want and nd.pred == want


def test_route_replays_the_splits_on_the_grown_data():
    for seed in range(4):
        data, _, _, g = _grow(seed=seed)
        np.testing.assert_array_equal(route(g, data), g.node_of)


def test_route_on_another_encoding_of_the_rows_agrees_with_the_r_tree():
    # another encoding of the same rows (as another permutation's target
    # statistics): values moved, other rows missing, other levels
    data, x, _, g = _grow(seed=5)
    rng = np.random.default_rng(11)
    x2 = x.copy()
    x2[:, :2] += rng.normal(scale=0.5, size=(x.shape[0], 2))
    x2[rng.random(x.shape) < 0.1] = np.nan
    x2[:, 2] = np.where(np.isnan(x2[:, 2]), np.nan, rng.integers(0, 5, x.shape[0]))
    other = TrainingData(x2, data.var_type, data.var_monotone)
    node_of = route(g, other)
    assert not np.array_equal(node_of, g.node_of)
    c_splits = []
    tree = g.to_r_tree(1.0, data.var_type, c_splits)
    # terminal index -> R node number, compared on where the R tree sends the rows
    g.set_terminal_preds(np.arange(g.n_terminal, dtype=float))
    numbered = g.to_r_tree(1.0, data.var_type, [])
    term = tree.terminal_of(x2, data.var_type, c_splits)
    np.testing.assert_array_equal(numbered.split_code_pred[term], node_of)


def test_pick_is_the_growth_order():
    """TreeGrower.pick chooses the terminal node to split from every terminal
    node's score and level: best-first (R's) grows the chain the signal asks
    for; a level-first order (the CEGB paper's breadth-first baseline) splits
    the root's children before any grandchild, the same splits otherwise."""
    from pygbm.engine.grow import TreeGrower

    rng = np.random.default_rng(4)
    n = 600
    x = rng.random((n, 2))
    z = 100.0 * (x[:, 0] > 0.8) + 50.0 * (x[:, 0] > 0.9) + 0.1 * rng.normal(size=n)
    w, inbag = np.ones(n), np.ones(n, dtype=bool)
    data = TrainingData(x, np.zeros(2, dtype=int), np.zeros(2, dtype=int))

    class Recording(TreeGrower):
        def __init__(self, *a):
            super().__init__(*a)
            self.picked = []

        def pick(self, scores, levels):
            t = super().pick(scores, levels)
            self.picked.append(levels[t])
            return t

    class LevelFirst(Recording):
        @staticmethod
        def _order(scores, levels):
            ok = [t for t, s in enumerate(scores) if s > 0.0]
            top = min(levels[t] for t in ok)
            return max((t for t in ok if levels[t] == top), key=lambda t: scores[t])

        def pick(self, scores, levels):
            t = self._order(scores, levels)
            self.picked.append(levels[t])
            return t

    best = Recording(data, data.searcher(z, w, True, 5), 3)
    best.grow(z, w, inbag, True)
    assert best.picked == [0, 1, 2]                     # down the chain
    level = LevelFirst(data, data.searcher(z, w, True, 5), 3)
    tree = level.grow(z, w, inbag, True)
    assert level.picked == [0, 1, 1]                    # both children of the root first
    root = tree.nodes[0]
    assert all(tree.nodes[c].split is not None for c in root.children[:2])


# ------------------------------------------- a split point between two adjacent doubles
def _adjacent_data(kind):
    rng = np.random.default_rng(0)
    if kind == "adjacent":        # 1 and the next double: R's midpoint rounds to 1
        x = np.where(rng.uniform(size=100) < 0.5, 1.0, np.nextafter(1.0, 2.0))
        d = pd.DataFrame({"x": x, "y": (x > 1) + rng.normal(size=100) * 0.1})
    else:                         # integers above 2**53: neighbouring doubles 2 apart
        c = (2 ** 53 + 1 + rng.integers(0, 4, 200)).astype(np.int64)
        d = pd.DataFrame({"x": c, "y": (c % 4) + rng.normal(size=200) * 0.1,
                          "z": rng.normal(size=200)})
    return d


@pytest.mark.parametrize("kind", ["adjacent", "above_2_53"])
@pytest.mark.parametrize("max_bins", [None, 255])
def test_a_split_between_adjacent_doubles_sends_the_rows_where_the_search_counted_them(
        kind, max_bins):
    """R's split point (a + b) / 2 rounds onto a when a and b are adjacent doubles
    (or integers above 2**53): R then routes the rows at a right (x >= a) although its
    search counted them left, so the children's statistics describe other rows (R's
    training error grows from tree to tree) -- an R bug. pygbm takes b there, the
    binned mode's rule (engine.split.midpoints), in every search and engine: the
    trees split as counted and the fit improves. The compiled exact grower sized the
    children from the search's counts and wrote past them (a crash)."""
    d = _adjacent_data(kind)
    fits = [pygbm.gbm("y ~ .", d, distribution="gaussian", n_trees=5, interaction_depth=3,
                      bag_fraction=1.0, max_bins=max_bins, engine=engine)
            for engine in ("numba", "numpy")]
    for name in ("fit", "train_error"):
        np.testing.assert_array_equal(getattr(fits[0], name), getattr(fits[1], name))
    fit = fits[0]
    assert np.all(np.diff(fit.train_error) < 0)
    tree = pygbm.pretty_gbm_tree(fit, 1)
    split = tree[tree.SplitVar == 0]
    values = np.unique(d["x"].to_numpy(dtype=float))
    assert set(split.SplitCodePred) <= set(values[1:])     # a value above, never a rounding
    for node in split.index:     # the children hold the parent's rows
        kids = tree.loc[[split.LeftNode[node], split.RightNode[node]], "Weight"]
        assert kids.sum() == tree.Weight[node]
