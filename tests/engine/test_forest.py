"""FlatForest (engine/forest.py): the one packing of a fit's trees into flat node
tables that the compiled predictor and QWYC's early-exit predictor read."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from pygbm.engine import compiled
from pygbm.engine.forest import FlatForest
from pygbm.engine.predict import predict_link
from pygbm.engine.split import LEFT, MISSING, RIGHT
from pygbm.engine.tree import GOES_LEFT, GOES_RIGHT, NO_NODE, Tree
from pygbm.engine.tree_list import PaddedTrees, TreeList

N = NO_NODE


def _tree(split_var, code, left, right, missing):
    m = len(split_var)
    return Tree(np.array(split_var), np.array(code, dtype=float), np.array(left),
                np.array(right), np.array(missing), np.zeros(m), np.ones(m), np.zeros(m))


#: a continuous split; a categorical split (c_splits row 1) with a continuous
#: split on its left; a single terminal node
TREES = [_tree([0, N, N, N], [0.5, 1.0, 2.0, 3.0], [1, N, N, N], [2, N, N, N],
               [3, N, N, N]),
         _tree([1, 0, N, N, N, N, N], [1, 0.0, 10, 11, 12, 13, 14], [1, 2, N, N, N, N, N],
               [5, 3, N, N, N, N, N], [6, 4, N, N, N, N, N]),
         _tree([N], [7.0], [N], [N], [N])]
C_SPLITS = [np.array([GOES_RIGHT, GOES_RIGHT]), np.array([GOES_LEFT, GOES_RIGHT, 0])]
VAR_TYPE = np.array([0, 3])


def test_the_tables_of_three_trees():
    f = FlatForest.of(TREES, C_SPLITS, VAR_TYPE)
    np.testing.assert_array_equal(f.root, [0, 4, 11, 12])
    np.testing.assert_array_equal(f.split_var, [0, N, N, N, 1, 0, N, N, N, N, N, N])
    np.testing.assert_array_equal(f.code, np.concatenate([t.split_code_pred for t in TREES]))
    np.testing.assert_array_equal(f.children[LEFT], [1, N, N, N, 5, 6, N, N, N, N, N, N])
    np.testing.assert_array_equal(f.children[RIGHT], [2, N, N, N, 9, 7, N, N, N, N, N, N])
    np.testing.assert_array_equal(f.children[MISSING], [3, N, N, N, 10, 8, N, N, N, N, N, N])
    np.testing.assert_array_equal(f.categorical, np.arange(12) == 4)
    # one MISSING column after the widest row; a shorter row padded with MISSING
    np.testing.assert_array_equal(f.c_sides, [[RIGHT, RIGHT, MISSING, MISSING],
                                              [LEFT, RIGHT, MISSING, MISSING]])
    np.testing.assert_array_equal(f.level, [0, 1, 1, 1, 0, 1, 2, 2, 2, 1, 1, 0])
    np.testing.assert_array_equal(f.depth, [1, 2, 0])
    assert (f.root.dtype, f.split_var.dtype, f.code.dtype, f.children.dtype, f.c_sides.dtype,
            f.level.dtype, f.depth.dtype) == (np.int64, np.int64, np.float64, np.int64,
                                              np.int8, np.int64, np.int64)
    with pytest.raises(AttributeError):
        f.depth = None                                   # frozen


def test_no_trees_and_no_categorical_splits():
    f = FlatForest.of([], [], VAR_TYPE)
    np.testing.assert_array_equal(f.root, [0])
    assert f.split_var.size == f.level.size == f.depth.size == 0
    assert f.children.shape == (3, 0) and f.c_sides.shape == (0, 1)


def _random_tree(rng, depth):
    """A tree in R's node order (a node, its left, right, missing subtrees)."""
    var, code, kids = [], [], []

    def grow(d):
        k = len(var)
        var.append(-1)
        code.append(rng.normal())
        kids.append([N, N, N])
        if d < depth and rng.random() < 0.7:
            var[k] = int(rng.integers(0, 3))
            kids[k] = [grow(d + 1) for _ in range(3)]
        return k

    grow(0)
    left, right, missing = np.array(kids).T
    return _tree(var, code, left, right, missing)


def _padded(trees):
    width = max(t.n_nodes for t in trees)
    vectors = []
    for k in range(len(Tree.VECTORS)):
        table = np.full((len(trees), width), 99, dtype=trees[0].vectors()[k].dtype)
        for t, tree in enumerate(trees):
            table[t, :tree.n_nodes] = tree.vectors()[k]          # padding never read
        vectors.append(table)
    return PaddedTrees(np.array([t.n_nodes for t in trees]), tuple(vectors))


def test_the_same_from_a_list_or_a_tree_list():
    rng = np.random.default_rng(3)
    trees = [_random_tree(rng, 4) for _ in range(9)]
    tl = TreeList(trees[:3])
    tl.add_padded(_padded(trees[3:7]))
    for tree in trees[7:]:
        tl.append(tree)
    c_splits = [np.array([-1, 1, 1]), np.array([1, -1])]
    a, b = FlatForest.of(tl, c_splits, [0, 2, 0]), FlatForest.of(trees, c_splits, [0, 2, 0])
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    for t, tree in enumerate(trees):                  # a tree's depth: its deepest node's
        level = np.zeros(tree.n_nodes, dtype=int)
        for k in range(tree.n_nodes):
            for child in tree.children(k) or ():
                level[child] = level[k] + 1
        np.testing.assert_array_equal(a.level[a.root[t]:a.root[t + 1]], level)
        assert a.depth[t] == level.max()


@pytest.mark.skipif(not compiled.available(), reason="numba is not installed")
def test_the_compiled_walk_reads_the_tables_as_the_numpy_predictor_walks_the_trees():
    """Levels inside and outside (longer than the split's row, than every row)
    the c_splits rows, marked neither way, NaN on either kind of predictor."""
    x0 = np.array([0.7, -1.0, 0.2, np.nan, 0.7, -0.3, 0.0, 0.5, 2.0])
    x1 = np.array([0.0, 0.0, 1.0, 2.0, 3.0, 7.0, np.nan, 1.0, 0.0])
    x = np.column_stack([x0, x1])
    args = (TREES, x, VAR_TYPE, C_SPLITS, 0.25, [0, 3, 1, 2])
    numpy = predict_link(*args, engine="numpy")
    np.testing.assert_array_equal(predict_link(*args, engine="numba"), numpy)
    # row 0: 2.0 (0.7 >= 0.5), then level 0 left and 0.7 >= 0: 11, then 7
    np.testing.assert_array_equal(numpy[0], [0.25, 0.25 + 2 + 11 + 7, 2.25, 13.25])
    # row 4: level 3 is outside every row: missing (14)
    assert numpy[4, 1] == 0.25 + 2 + 14 + 7


def test_importable_and_built_without_numba():
    code = ("import sys; sys.modules['numba'] = None\n"
            "from pygbm.engine.forest import FlatForest\n"
            "from pygbm.early_exit.forest import compiled_kernels, flat_scores\n"
            "assert FlatForest.of([], [], [0]).depth.size == 0\n")
    subprocess.run([sys.executable, "-c", code], check=True)
