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
