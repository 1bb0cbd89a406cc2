"""Algorithm 1 of QWYC (the greedy order) and fixed orders, on a score matrix.

``F`` holds each tree's score on the optimisation rows (rows x trees, the
trees in training order) and ``g0`` the rows' starting score (``init_f`` plus
the offset). Trees are placed one position at a time: a fixed order takes
its next tree, QWYC's order (Algorithm 1) tries every tree not yet placed,
gives it its thresholds by Algorithm 2 and places the one with the least
cost per row it lets stop (J_t = c_t |U| / A_t); ties go to the lowest
training index, a tree that stops no row has J = inf, and when none stops a
row the first remaining tree in training order is placed. The disagreement
budget is shared by all positions and spent greedily. The last position
decides every row still uncertain by its full score.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .thresholds import exits, position_thresholds

#: elements of a candidate block (rows x candidates) scored at once
BLOCK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class Problem:
    """What Algorithms 1 and 2 read: scores, full decisions, budget, mode, costs."""

    F: np.ndarray            # (rows, trees) per-tree scores, training order
    g0: np.ndarray           # (rows,) starting score
    beta: float              # decision threshold on the link scale
    budget: int              # disagreements allowed on these rows
    mode: str
    cost: np.ndarray         # (trees,) evaluation cost per tree

    @property
    def positive(self) -> np.ndarray:
        """The full model's decision of each row (trees summed in training order)."""
        f = self.g0.copy()
        for t in range(self.F.shape[1]):
            f += self.F[:, t]
        return f >= self.beta


@dataclass(frozen=True)
class Schedule:
    """An evaluation order with per-position thresholds (last position: beta)."""

    order: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def _best_candidate(problem, G_rows, g, positive, budget, candidates):
    """The candidate of least J (cost per stopped row) and its thresholds."""
    block = max(1, BLOCK_ELEMENTS // max(1, g.size))
    best = (np.inf, None, -np.inf, np.inf)
    for start in range(0, candidates.size, block):
        chunk = candidates[start:start + block]
        G = g[:, None] + problem.F[np.ix_(G_rows, chunk)]
        lower, upper = position_thresholds(G, positive, budget, problem.mode)
        negative, pos_exit = exits(G, lower, upper)
        stopped = negative.sum(axis=0) + pos_exit.sum(axis=0)
        with np.errstate(divide="ignore"):
            J = np.where(stopped > 0, problem.cost[chunk] / np.maximum(stopped, 1), np.inf)
        j = int(np.argmin(J))
        if J[j] < best[0]:
            best = (J[j], chunk[j], lower[j], upper[j])
    if best[1] is None:
        return candidates[0], -np.inf, np.inf
    return best[1], best[2], best[3]


def place(problem: Problem, order=None) -> Schedule:
    """Place every tree: in ``order`` (fixed) or by Algorithm 1 (``order=None``)."""
    n_trees = problem.F.shape[1]
    positive_all = problem.positive
    rows = np.arange(problem.F.shape[0])
    g = problem.g0.copy()
    budget = problem.budget
    remaining = np.arange(n_trees) if order is None else np.asarray(order)
    placed, lowers, uppers = [], [], []
    for _ in range(n_trees - 1):
        candidates = remaining if order is None else remaining[:1]
        if rows.size == 0:
            t, lower, upper = candidates[0], -np.inf, np.inf
        else:
            t, lower, upper = _best_candidate(problem, rows, g, positive_all[rows],
                                              budget, candidates)
        remaining = remaining[remaining != t]
        placed.append(t)
        lowers.append(lower)
        uppers.append(upper)
        if rows.size:
            g = g + problem.F[rows, t]
            negative, pos_exit = exits(g, lower, upper)
            budget -= int((negative & positive_all[rows]).sum()
                          + (pos_exit & ~positive_all[rows]).sum())
            keep = ~(negative | pos_exit)
            rows, g = rows[keep], g[keep]
    placed.append(remaining[0])
    lowers.append(problem.beta)
    uppers.append(problem.beta)
    return Schedule(np.asarray(placed, dtype=np.intp), np.asarray(lowers, dtype=float),
                    np.asarray(uppers, dtype=float))
