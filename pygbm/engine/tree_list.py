"""The trees of a model, in R's order, stored as the loops make them.

The compiled loop writes a chunk of trees into padded node arrays (one row per
tree, R's eight vectors); making a :class:`~.tree.Tree` of views for each of them
costs about as much as growing a tree on a few dozen rows. :class:`TreeList`
keeps such chunks as they are (:class:`PaddedTrees`) next to trees appended one
at a time, makes a tree's :class:`~.tree.Tree` when it is asked for, and hands the
compiled predictor its flat node tables without visiting the trees one by one
(:meth:`TreeList.node_vectors`).
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

import numpy as np

from .tree import Tree

__all__ = ["PaddedTrees", "TreeList"]


class PaddedTrees(NamedTuple):
    """Trees in padded arrays: tree ``t`` has ``n_nodes[t]`` nodes, its vectors
    are the first ``n_nodes[t]`` entries of row ``t`` of each array in
    ``vectors`` (in :meth:`Tree.vectors` order)."""

    n_nodes: np.ndarray
    vectors: tuple

    def __len__(self) -> int:
        return int(self.n_nodes.shape[0])

    def tree(self, t: int) -> Tree:
        m = int(self.n_nodes[t])
        return Tree(*(v[t, :m] for v in self.vectors))

    def rows(self, start: int, stop: int) -> PaddedTrees:
        return PaddedTrees(self.n_nodes[start:stop], tuple(v[start:stop] for v in self.vectors))

    def flat(self) -> tuple:
        """Every tree's vectors one after the other (the nodes of tree 0, then 1, ...)."""
        width = self.vectors[0].shape[1]
        used = np.arange(width) < self.n_nodes[:, None]
        return tuple(v[used] for v in self.vectors)


class _Loose(list):
    """Trees appended one at a time (the NumPy loop's)."""

    def tree(self, t: int) -> Tree:
        return self[t]

    def rows(self, start: int, stop: int) -> _Loose:
        return _Loose(self[start:stop])

    def flat(self) -> tuple:
        per_tree = [tree.vectors() for tree in self]
        return tuple(np.concatenate(column) for column in zip(*per_tree, strict=True))


class TreeList(Sequence):
    """A model's trees (a sequence of :class:`~.tree.Tree`, R's order), kept in
    blocks: chunks of the compiled loop (:meth:`add_padded`) and single trees
    (:meth:`append`)."""

    def __init__(self, trees: Iterable[Tree] = ()):
        self._blocks: list = []
        self._ends: list[int] = []
        for tree in trees:
            self.append(tree)

    @classmethod
    def of(cls, trees: Iterable[Tree]) -> TreeList:
        """``trees`` as a TreeList that can grow apart from them (a copy)."""
        return trees.copy() if isinstance(trees, TreeList) else cls(trees)

    # -- building
    def append(self, tree: Tree) -> None:
        """Add one tree at the end."""
        if not self._blocks or not isinstance(self._blocks[-1], _Loose):
            self._add_block(_Loose())
        self._blocks[-1].append(tree)
        self._ends[-1] += 1

    def add_padded(self, block: PaddedTrees) -> None:
        """Add a chunk of trees in padded arrays at the end (kept as they are)."""
        if len(block):
            self._add_block(block)
            self._ends[-1] += len(block)

    def _add_block(self, block) -> None:
        self._blocks.append(block)
        self._ends.append(self._ends[-1] if self._ends else 0)

    def copy(self) -> TreeList:
        """A list of the same trees that can grow apart (the arrays are shared:
        fitted trees are never changed)."""
        other = TreeList()
        for block in self._blocks:
            other._add_block(_Loose(block) if isinstance(block, _Loose) else block)
            other._ends[-1] += len(block)
        return other

    # -- reading
    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return self._range(start, max(start, stop))
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"tree index {index} out of range for {n} trees")
        index %= n
        b = bisect_right(self._ends, index)
        return self._blocks[b].tree(index - self._begin(b))

    def __iter__(self) -> Iterator[Tree]:
        for block in self._blocks:
            for t in range(len(block)):
                yield block.tree(t)

    def __repr__(self) -> str:
        return f"TreeList({len(self)} trees)"

    def _begin(self, b: int) -> int:
        return self._ends[b - 1] if b else 0

    def _range(self, start: int, stop: int) -> TreeList:
        out = TreeList()
        for b, block in enumerate(self._blocks):
            lo, hi = max(start - self._begin(b), 0), min(stop - self._begin(b), len(block))
            if lo < hi:
                out._add_block(block.rows(lo, hi))
                out._ends[-1] += hi - lo
        return out

    def node_vectors(self) -> tuple[np.ndarray, tuple]:
        """(nodes per tree, the eight vectors of every tree one after the other)."""
        if not self._blocks:
            empty = np.zeros(0)
            return np.zeros(0, dtype=np.int64), (empty,) * len(Tree.VECTORS)
        sizes = np.concatenate([np.asarray(block.n_nodes, dtype=np.int64)
                                if isinstance(block, PaddedTrees) else
                                np.fromiter((t.n_nodes for t in block), dtype=np.int64,
                                            count=len(block))
                                for block in self._blocks])
        flats = [block.flat() for block in self._blocks]
        return sizes, tuple(np.concatenate(column) for column in zip(*flats, strict=True))
