"""Row samplers: the rows, and their weights, each tree is fitted on.

A sampler's ``draw(rng, t)`` returns the :class:`Bag` of one tree (of one
iteration, for a multi-output distribution whose K trees share a bag):
which training rows are in the bag and, optionally, a factor per row that
multiplies the case weights ``t.w`` for that tree (importance weights of a
sampling scheme such as Langford's zero-response subsampling). The loop
decides the integer fast path (unit weights) per tree from the weights the
tree is grown with.

R's samplers: :class:`SelectionBag` (``bag_fraction`` of the rows by R's
selection rule, from NumPy's generator or, with R's stream
``random_state=pygbm.RRandom(seed)``, R's own draws: R gbm's bags exactly)
and, for pairwise ranking, whole groups: :class:`GroupBag` (NumPy's
generator) and :class:`RGroupBag` (R's stream; ``docs/r_random_stream.md``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..distributions.inputs import Targets
from ..draws import is_r_stream, uniforms


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


def selection_sample(u: np.ndarray, n_bag: int) -> np.ndarray:
    """Knuth's selection sampling as R gbm's C++ does it (``CGBM::iterate``):
    item ``i`` (0-based) of ``n = len(u)`` is taken iff ``u[i] * (n - i) <
    n_bag - (items taken before it)``, in doubles; exactly ``n_bag`` items.

    As ``p < r`` for a double ``p >= 0`` and an integer ``r`` is ``floor(p) <
    r``, item ``i`` is taken iff the count so far is at most ``limit[i] =
    n_bag - 1 - floor(u[i] * (n - i))``: one integer comparison per item.
    """
    n = u.shape[0]
    limit = (n_bag - 1 - np.floor(u * (n - np.arange(n)))).tolist()
    inbag = np.zeros(n, dtype=bool)
    taken = 0
    for i, lim in enumerate(limit):
        if taken == n_bag:                 # full: the rest are out
            break
        if n - i == n_bag - taken:         # every remaining item is needed
            inbag[i:] = True
            break
        if taken <= lim:
            inbag[i] = True
            taken += 1
    return inbag


class SelectionBag:
    """R gbm's row bag (gbm_engine.cpp ``CGBM::iterate``): one uniform per
    training row, in the engine's row order, and R's selection rule
    (:func:`selection_sample`) for ``floor(bag_fraction * n_train)`` rows.

    The uniforms are the fit's stream's (:func:`pygbm.draws.uniforms`): with
    R's stream R's ``unif_rand``, drawn every iteration as R does (also at
    ``bag_fraction`` 1); with a NumPy generator ``Generator.random``, and
    nothing at all when every row is in the bag. A multi-output fit draws one
    bag per iteration, as R's first class does.

    The compiled boosting loop draws the uniforms of many trees at once
    (:meth:`uniforms`: the same stream, in the same order, as one
    :meth:`draw` per tree) and applies the same rule.
    """

    def __init__(self, n_train: int, bag_fraction: float, r_stream: bool,
                 engine: str = "numpy"):
        self.n_train = int(n_train)
        self.n_bag = bag_size(n_train, bag_fraction)
        #: whether the stream is drawn when every row is in the bag (R's stream)
        self.draws_all_rows = bool(r_stream)
        #: who applies the rule: "numpy" (:func:`selection_sample`, a Python loop
        #: over the rows) or "numba" (the compiled loop's kernel: the same bag)
        self.engine = engine

    @property
    def draws(self) -> bool:
        """Whether a tree's bag takes uniforms from the stream."""
        return self.n_bag < self.n_train or self.draws_all_rows

    def uniforms(self, rng, n_trees: int) -> np.ndarray | None:
        """The uniforms of the next ``n_trees`` bags, (n_trees, n_train), or
        None when the bags draw nothing (every row, NumPy's generator)."""
        if not self.draws:
            return None
        return uniforms(rng, (int(n_trees), self.n_train))

    def draw(self, rng, t: Targets) -> Bag:
        u = self.uniforms(rng, 1)
        if u is None:
            return Bag(None)
        if self.engine != "numba":
            return Bag(selection_sample(u[0], self.n_bag))
        # numba is imported with the compiled engine, on first use
        from .compiled.loop import select_bag

        inbag = np.empty(self.n_train, dtype=bool)
        select_bag(u[0], self.n_bag, inbag)
        return Bag(inbag)


class RGroupBag:
    """R gbm's pairwise bag with R's stream (``CGBM::iterate``): walking the
    groups (runs of equal ``t.misc`` among the training rows) in row order,
    while fewer than ``n_bag = max(1, floor(bag_fraction * n_groups))`` are
    chosen, one ``unif_rand`` per group decides it (``u * (n_groups - seen) <
    n_bag - chosen``); the walk stops at the first group after the
    ``n_bag``-th choice, so the number of draws varies."""

    def __init__(self, groups: np.ndarray, bag_fraction: float):
        groups = np.asarray(groups)
        new_group = np.concatenate([[True], groups[1:] != groups[:-1]])
        self.group_of_row = np.cumsum(new_group) - 1
        self.n_groups = int(self.group_of_row[-1]) + 1
        self.n_bag = max(1, int(np.floor(bag_fraction * self.n_groups)))

    def draw(self, rng, t: Targets) -> Bag:
        chosen = np.zeros(self.n_groups, dtype=bool)
        taken = 0
        for g in range(self.n_groups):
            if taken >= self.n_bag:
                break
            if float(rng.unif_rand(1)[0]) * (self.n_groups - g) < self.n_bag - taken:
                chosen[g] = True
                taken += 1
        return Bag(chosen[self.group_of_row])


def default_sampler(t: Targets, bag_fraction: float, by_group: bool, rng,
                    engine: str = "numpy") -> RowSampler:
    """R's sampler of a fit: whole groups for a ``bag_by_group`` distribution,
    else rows; R's own draws when ``rng`` is R's stream; the row bag's rule
    applied by ``engine``."""
    r_stream = is_r_stream(rng)
    if by_group:
        return RGroupBag(t.misc, bag_fraction) if r_stream else GroupBag(t.misc, bag_fraction)
    return SelectionBag(t.y.shape[0], bag_fraction, r_stream, engine)
