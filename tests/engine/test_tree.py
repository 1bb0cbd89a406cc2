"""Tree and predict_trees: routing, missing values, unseen levels, many counts."""
from __future__ import annotations

import numpy as np

from pygbm.engine.tree import Tree, predict_trees


def stump(var, point, left, right, missing, shrink=1.0):
    return Tree(split_var=np.array([var, -1, -1, -1]),
                split_code_pred=np.array([point, left, right, missing]) * [1, shrink, shrink,
                                                                           shrink],
                left=np.array([1, -1, -1, -1]), right=np.array([2, -1, -1, -1]),
                missing=np.array([3, -1, -1, -1]), error_reduction=np.array([1.0, 0, 0, 0]),
                weight=np.array([10.0, 5, 5, 10]), prediction=np.array([0.0, left, right,
                                                                         missing]))


def test_continuous_split_left_is_strictly_below():
    t = stump(0, 1.5, -1.0, 1.0, 0.5)
    x = np.array([[1.0], [1.5], [2.0], [np.nan]])
    np.testing.assert_array_equal(t.predict(x, np.array([0]), []), [-1.0, 1.0, 1.0, 0.5])


def test_categorical_split_and_unseen_level_go_missing():
    t = stump(0, 0, -1.0, 1.0, 0.5)                 # c_splits[0]
    c_splits = [np.array([-1, 1, -1])]
    x = np.array([[0.0], [1.0], [2.0], [3.0], [np.nan]])
    np.testing.assert_array_equal(t.predict(x, np.array([3]), c_splits),
                                  [-1.0, 1.0, -1.0, 0.5, 0.5])


def test_predict_trees_one_pass_many_counts():
    trees = [stump(0, 0.0, -1.0, 1.0, 0.0), stump(0, 1.0, -2.0, 2.0, 0.0),
             stump(0, 2.0, -4.0, 4.0, 0.0)]
    x = np.array([[-1.0], [0.5], [1.5], [3.0]])
    out = predict_trees(trees, x, np.array([0]), [], 10.0, [3, 0, 1])
    np.testing.assert_array_equal(out[:, 1], 10.0)
    np.testing.assert_array_equal(out[:, 2], 10.0 + np.array([-1, 1, 1, 1]))
    np.testing.assert_array_equal(out[:, 0], 10.0 + np.array([-7, -5, -1, 7]))


def test_predict_trees_multi_output_layout():
    # two outputs: trees stored iteration by iteration (k = index % 2)
    trees = [stump(0, 0.0, -1.0, 1.0, 0.0), stump(0, 0.0, 5.0, 6.0, 0.0)]
    x = np.array([[-1.0], [1.0]])
    out = predict_trees(trees, x, np.array([0]), [], np.array([0.0, 1.0]), [1], n_outputs=2)
    assert out.shape == (2, 2, 1)
    np.testing.assert_array_equal(out[:, :, 0], [[-1.0, 6.0], [1.0, 7.0]])


def _fitted(seed=0, distribution="gaussian"):
    """A fit with continuous, missing, categorical and unseen values, and rows
    to predict that have all of them."""
    import warnings

    import pandas as pd

    from pygbm import gbm

    rng = np.random.default_rng(seed)
    n = 600
    d = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 5, n).astype(float),
                      "c": pd.Categorical(rng.choice(list("pqrstu"), n))})
    d.loc[rng.random(n) < 0.1, "a"] = np.nan
    d.loc[rng.random(n) < 0.1, "c"] = np.nan
    signal = np.nan_to_num(d["a"].to_numpy()) + d["c"].cat.codes.to_numpy() % 2
    if distribution == "multinomial":
        d["y"] = pd.Categorical(np.digitize(signal + rng.normal(size=n), [-0.5, 0.8]))
    else:
        d["y"] = signal + rng.normal(size=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = gbm("y ~ a + b + c", d, distribution=distribution, n_trees=30,
                  interaction_depth=3, n_minobsinnode=5, random_state=seed)
    x = np.array(fit.to_engine(fit._design(d)))
    x[:20, 2] = 9.0                            # levels never seen in training
    return fit, x


def test_tree_scores_on_row_subsets_add_up_to_predict_trees():
    from pygbm.engine.tree import TreePredictor

    for distribution in ("gaussian", "multinomial"):
        fit, x = _fitted(distribution=distribution)
        K = int(np.asarray(fit.init_f).size)
        pred = TreePredictor(fit.trees, fit.c_splits, fit.engine_var_type, n_outputs=K)
        view = pred.prepare(x)
        want = predict_trees(fit.trees, x, fit.engine_var_type, fit.c_splits, fit.init_f,
                             [len(fit.trees) // K], n_outputs=K)
        want = want.reshape(x.shape[0], K)
        rng = np.random.default_rng(1)
        # early-exit style: a random half of the rows carries on after each tree;
        # the rows that stop keep their sum, every row is summed in tree order
        f = np.tile(np.asarray(fit.init_f, dtype=float), (x.shape[0], 1))
        active = np.arange(x.shape[0])
        stopped = np.zeros((x.shape[0], K))
        for t in range(len(pred)):
            f[active, pred.output_of(t)] += pred.tree_score(t, view, active)
            if t % K == K - 1:
                keep = rng.random(active.size) < 0.9
                stopped[active[~keep]] = t + 1
                active = active[keep]
        done = stopped[:, 0] == 0
        np.testing.assert_array_equal(f[done], want[done])       # bit for bit
        # the rows that stopped have the predictions of their number of trees
        for count in np.unique(stopped[~done, 0]).astype(int):
            rows = np.flatnonzero(stopped[:, 0] == count)
            at = predict_trees(fit.trees, x, fit.engine_var_type, fit.c_splits, fit.init_f,
                               [count // K], n_outputs=K).reshape(x.shape[0], K)
            np.testing.assert_array_equal(f[rows], at[rows])


def test_tree_score_of_a_row_subset_is_the_full_score_restricted():
    from pygbm.engine.tree import TreePredictor

    fit, x = _fitted(seed=3)
    pred = TreePredictor(fit.trees, fit.c_splits, fit.engine_var_type)
    view = pred.prepare(x)
    rng = np.random.default_rng(2)
    for t, full in enumerate(pred.scores(view)):
        rows = rng.permutation(x.shape[0])[: rng.integers(0, x.shape[0])]
        np.testing.assert_array_equal(pred.tree_score(t, view, rows), full[rows])
    rows = rng.choice(x.shape[0], size=50)                  # repeats allowed
    for full, subset in zip(pred.scores(view), pred.scores(view, rows)):
        np.testing.assert_array_equal(subset, full[rows])
    assert pred.tree_score(0, view, np.zeros(0, dtype=np.intp)).shape == (0,)


def test_terminal_nodes_reach_terminals_only():
    from pygbm.engine.tree import ColumnView, terminal_nodes

    fit, x = _fitted(seed=4)
    view = ColumnView(x, fit.engine_var_type)
    for tree in fit.trees:
        node = terminal_nodes(tree, view, fit.c_splits)
        assert np.all(tree.split_var[node] == -1)
