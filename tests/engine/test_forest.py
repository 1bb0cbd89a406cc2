"""The packed forest (engine/forest.py): the flat node tables every many-tree
predictor reads (the compiled predictor, QWYC's early exit)."""
import numpy as np
import pytest

from pygbm.early_exit.forest import FlatForest
from pygbm.engine import compiled
from pygbm.engine.forest import pack_forest
from pygbm.engine.split import LEFT, MISSING, RIGHT
from pygbm.engine.tree import Tree


def _stump(var, code, value):
    """A split on ``var`` at ``code`` with children (left, right, missing)."""
    return Tree(split_var=np.array([var, -1, -1, -1]),
                split_code_pred=np.array([code, value, -value, 0.0]),
                left=np.array([1, -1, -1, -1]), right=np.array([2, -1, -1, -1]),
                missing=np.array([3, -1, -1, -1]), error_reduction=np.zeros(4),
                weight=np.ones(4), prediction=np.zeros(4))


def _deeper():
    """Two splits on one path: the root's left child splits again."""
    return Tree(split_var=np.array([0, 1, -1, -1, -1, -1, -1]),
                split_code_pred=np.array([0.5, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
                left=np.array([1, 2, -1, -1, -1, -1, -1]),
                right=np.array([6, 3, -1, -1, -1, -1, -1]),
                missing=np.array([5, 4, -1, -1, -1, -1, -1]),
                error_reduction=np.zeros(7), weight=np.ones(7), prediction=np.zeros(7))


def test_nodes_are_numbered_across_trees():
    forest = pack_forest([_stump(0, 0.5, 1.0), _deeper()], [])
    np.testing.assert_array_equal(forest.root, [0, 4, 11])
    np.testing.assert_array_equal(forest.split_var[:5], [0, -1, -1, -1, 0])
    np.testing.assert_array_equal(forest.left, [1, -1, -1, -1, 5, 6, -1, -1, -1, -1, -1])
    np.testing.assert_array_equal(forest.missing[4:6], [9, 8])
    np.testing.assert_array_equal(forest.c_table, [[0]])          # no categorical split


def test_categorical_rows_padded_with_neither_way():
    forest = pack_forest([_stump(1, 0, 1.0)], [np.array([-1, 1, 0]), np.array([1])])
    np.testing.assert_array_equal(forest.c_table, [[-1, 1, 0], [1, 0, 0]])
    assert forest.c_table.dtype == np.int8


def test_the_early_exit_view_reads_the_same_forest():
    c_splits = [np.array([-1, 1, 0])]
    flat = FlatForest([_stump(1, 0, 1.0), _deeper()], c_splits, np.array([0, 3]))
    np.testing.assert_array_equal(flat.root, [0, 4])
    np.testing.assert_array_equal(flat.children[LEFT, :2], [1, 0])    # terminal: 0
    np.testing.assert_array_equal(flat.children[MISSING, 4], 9)
    np.testing.assert_array_equal(flat.categorical[[0, 4, 5]], [True, False, True])
    # sides of the c_splits row, and one more column for levels outside it
    np.testing.assert_array_equal(flat.table, [[LEFT, RIGHT, MISSING, MISSING]])


@pytest.mark.skipif(not compiled.available(), reason="numba is not installed")
def test_tree_depths_count_splits_on_the_longest_path():
    from pygbm.engine.compiled.predict import tree_depths     # compiled: needs numba

    forest = pack_forest([_stump(0, 0.5, 1.0), _deeper(), _deeper()], [])
    np.testing.assert_array_equal(tree_depths(forest), [1, 2, 2])
