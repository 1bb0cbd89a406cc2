"""TreeList: a model's trees kept as the loops make them (padded chunks of the
compiled loop, single trees of the NumPy loop), read as a sequence of Trees."""

import pickle

import numpy as np
import pytest

from pygbm.engine.tree import Tree
from pygbm.engine.tree_list import PaddedTrees, TreeList


def _tree(rng, m):
    ints = [rng.integers(-1, 5, m) for _ in range(4)]
    floats = [rng.normal(size=m) for _ in range(4)]
    return Tree(ints[0], floats[0], ints[1], ints[2], ints[3], *floats[1:])


def _padded(trees, width):
    n = len(trees)
    vectors = []
    for k, name in enumerate(Tree.VECTORS):
        dtype = trees[0].vectors()[k].dtype
        table = np.full((n, width), 99, dtype=dtype)       # padding never read
        for t, tree in enumerate(trees):
            table[t, :tree.n_nodes] = tree.vectors()[k]
        vectors.append(table)
    return PaddedTrees(np.array([t.n_nodes for t in trees]), tuple(vectors))


def _same(a: Tree, b: Tree):
    for x, y in zip(a.vectors(), b.vectors(), strict=True):
        np.testing.assert_array_equal(x, y)


@pytest.fixture
def mixed():
    """Three single trees, a chunk of four, two single trees: nine in all."""
    rng = np.random.default_rng(3)
    trees = [_tree(rng, m) for m in (1, 4, 7, 4, 1, 7, 7, 4, 1)]
    tl = TreeList(trees[:3])
    tl.add_padded(_padded(trees[3:7], width=7))
    for tree in trees[7:]:
        tl.append(tree)
    return tl, trees


def test_reads_as_the_sequence_of_its_trees(mixed):
    tl, trees = mixed
    assert len(tl) == 9 and repr(tl) == "TreeList(9 trees)"
    for t in range(-9, 9):
        _same(tl[t], trees[t])
    for a, b in zip(tl, trees, strict=True):
        _same(a, b)
    with pytest.raises(IndexError, match="tree index 9 out of range for 9 trees"):
        tl[9]


@pytest.mark.parametrize("start,stop,step", [(0, 9, 1), (2, 5, 1), (4, 6, 1), (5, 2, 1),
                                              (None, -2, None), (1, 9, 3), (None, None, -1)])
def test_slices_across_blocks(mixed, start, stop, step):
    tl, trees = mixed
    part, expected = tl[start:stop:step], trees[start:stop:step]
    assert len(part) == len(expected)
    for a, b in zip(part, expected, strict=True):
        _same(a, b)


def test_node_vectors_are_the_trees_one_after_the_other(mixed):
    tl, trees = mixed
    sizes, vectors = tl[1:8].node_vectors()
    np.testing.assert_array_equal(sizes, [t.n_nodes for t in trees[1:8]])
    for k, flat in enumerate(vectors):
        np.testing.assert_array_equal(flat, np.concatenate([t.vectors()[k] for t in trees[1:8]]))
    sizes, vectors = TreeList().node_vectors()
    assert sizes.size == 0 and len(vectors) == 8


def test_copy_grows_apart_and_pickles(mixed):
    tl, trees = mixed
    other = TreeList.of(tl)
    other.append(trees[0])
    assert len(other) == 10 and len(tl) == 9
    again = pickle.loads(pickle.dumps(tl))
    for a, b in zip(again, trees, strict=True):
        _same(a, b)
    assert len(TreeList.of(trees)) == 9
