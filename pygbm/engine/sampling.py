"""Row samplers: the rows, and their weights, each tree is fitted on.

A sampler's ``draw(rng, t)`` returns the :class:`Bag` of one tree (of one
iteration, for a multi-output distribution whose K trees share a bag):
which training rows are in the bag and, optionally, a factor per row that
multiplies the case weights ``t.w`` for that tree (importance weights of a
sampling scheme such as Langford's zero-response subsampling). The loop
decides the integer fast path (unit weights) per tree from the weights the
tree is grown with.

R's samplers: :class:`BagWithoutReplacement` (``bag_fraction`` of the rows)
and :class:`GroupBag` (whole groups, pairwise ranking).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..distributions.inputs import Targets


@dataclass(frozen=True, eq=False)
class Bag:
    """One tree's rows: ``inbag`` a boolean mask over the training rows
    (None: every row), ``weights`` a factor per training row applied to the
    case weights (None: the case weights as they are)."""

    inbag: np.ndarray | None
    weights: np.ndarray | None = None


class RowSampler(Protocol):
    """Draws the bag of each tree (see the module docstring)."""

    def draw(self, rng: np.random.Generator, t: Targets) -> Bag:
        """The bag of the next tree; ``t`` are the training rows' targets."""


def bag_size(n_train: int, bag_fraction: float) -> int:
    """R's ``(unsigned long)(bag.fraction * nTrain)``."""
    return int(np.floor(bag_fraction * n_train))


def draw_bag(rng: np.random.Generator, n_train: int, n_bag: int) -> np.ndarray | None:
    """A bag of ``n_bag`` training rows drawn without replacement (None = all)."""
    if n_bag >= n_train:
        return None
    inbag = np.zeros(n_train, dtype=bool)
    inbag[rng.choice(n_train, size=n_bag, replace=False)] = True
    return inbag


class BagWithoutReplacement:
    """R's bag: ``floor(bag_fraction * n_train)`` rows drawn without
    replacement for every tree (all rows, drawing nothing, at fraction 1)."""

    def __init__(self, n_train: int, bag_fraction: float):
        self.n_train = int(n_train)
        self.n_bag = bag_size(n_train, bag_fraction)

    def draw(self, rng: np.random.Generator, t: Targets) -> Bag:
        return Bag(draw_bag(rng, self.n_train, self.n_bag))


class GroupBag:
    """Whole groups in the bag (ranking; ``t.misc`` holds the group of every
    row): ``floor(bag_fraction * n_groups)`` groups, at least one, as R bags
    pairwise data."""

    def __init__(self, groups: np.ndarray, bag_fraction: float):
        codes, self.inverse = np.unique(groups, return_inverse=True)
        self.n_groups = codes.size
        self.n_bag = max(1, int(np.floor(bag_fraction * codes.size)))

    def draw(self, rng: np.random.Generator, t: Targets) -> Bag:
        if self.n_bag >= self.n_groups:
            return Bag(None)
        chosen = np.zeros(self.n_groups, dtype=bool)
        chosen[rng.choice(self.n_groups, size=self.n_bag, replace=False)] = True
        return Bag(chosen[self.inverse])


def default_sampler(t: Targets, bag_fraction: float, by_group: bool) -> RowSampler:
    """R's sampler of a fit: whole groups for a ``bag_by_group`` distribution,
    else rows."""
    if by_group:
        return GroupBag(t.misc, bag_fraction)
    return BagWithoutReplacement(t.y.shape[0], bag_fraction)
