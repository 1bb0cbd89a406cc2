"""Algorithm 1 of QWYC (the greedy order) and fixed orders, on a score matrix.

``scores`` holds each tree's score on the optimisation rows (trees x rows,
the trees in training order) and ``g0`` the rows' starting score (``init_f``
plus the offset). Trees are placed one position at a time: a fixed order
takes its next tree, QWYC's order (Algorithm 1) tries every tree not yet
placed, gives it its thresholds by Algorithm 2 and places the one with the
least cost per row it lets stop (J_t = c_t / A_t; |U| is the same for every
candidate); ties go to the lowest training index, a tree that stops no row
has J = inf, and when none stops a row the first remaining tree in training
order is placed. The disagreement budget is shared by all positions and spent
greedily. The last position decides every row still uncertain by its full
score.

The candidates of a position are searched by the compiled kernel when numba
is there (:func:`.compiled.best_candidate`), else by NumPy in blocks of
candidates (:func:`.thresholds.cuts`); both find the same cuts.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .forest import compiled_kernels
from .thresholds import MODES, cuts, exits, position_thresholds

#: elements of a candidate block (rows x candidates) the NumPy search sorts at once
BLOCK_ELEMENTS = 1 << 22


@dataclass(frozen=True)
class Problem:
    """What Algorithms 1 and 2 read: scores, full decisions, budget, mode, costs."""

    scores: np.ndarray       # (trees, rows) per-tree scores, training order
    g0: np.ndarray           # (rows,) starting score
    beta: float              # decision threshold on the link scale
    budget: int              # disagreements allowed on these rows
    mode: str
    cost: np.ndarray         # (trees,) evaluation cost per tree

    @property
    def positive(self) -> np.ndarray:
        """The full model's decision of each row (trees summed in training order)."""
        f = self.g0.copy()
        for t in range(self.scores.shape[0]):
            f += self.scores[t]
        return f >= self.beta


@dataclass(frozen=True)
class Schedule:
    """An evaluation order with per-position thresholds (last position: beta)."""

    order: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def _numpy_search(problem, rows, g, positive, budget, candidates):
    """The candidate of least J (cost per stopped row) and its thresholds."""
    block = max(1, BLOCK_ELEMENTS // max(1, g.size))
    best_J, best = np.inf, None
    for start in range(0, candidates.size, block):
        chunk = candidates[start:start + block]
        G = g[:, None] + problem.scores[np.ix_(chunk, rows)].T
        i, j, _ = cuts(G, positive, budget, problem.mode)
        stopped = i + j
        with np.errstate(divide="ignore"):
            J = np.where(stopped > 0, problem.cost[chunk] / np.maximum(stopped, 1), np.inf)
        k = int(np.argmin(J))
        if J[k] < best_J:
            best_J, best = J[k], (chunk[k], G[:, k])
    if best is None:
        return candidates[0], -np.inf, np.inf
    lower, upper = position_thresholds(best[1][:, None], positive, budget, problem.mode)
    return best[0], lower[0], upper[0]


def _compiled_search(kernels):
    def search(problem, rows, g, positive, budget, candidates):
        k, lower, upper = kernels.best_candidate(
            problem.scores, (rows[positive], g[positive]), (rows[~positive], g[~positive]),
            budget, MODES.index(problem.mode), problem.cost, candidates)
        return candidates[max(k, 0)], lower, upper
    return search


def place(problem: Problem, order=None, window: int | None = None,
          exit_every: int = 1, search=None) -> Schedule:
    """Place every tree: in ``order`` (fixed) or by Algorithm 1 (``order=None``), which
    searches every tree not yet placed, or with ``window`` only the next ``window`` of
    them in training order (an experiment of ``benchmarks/qwyc_honest_variants.py``).

    ``exit_every`` > 1: rows may exit after every ``exit_every``-th position only (and
    the last); the other positions get no thresholds, and Algorithm 1 still places
    there the tree of least cost per row it would let stop.

    ``search``: how a position's tree and thresholds are found (None: Algorithm 2
    for every candidate; :mod:`.rate` gives its own for a fixed order)."""
    n_trees = problem.scores.shape[0]
    if search is None:
        kernels = compiled_kernels()
        search = _numpy_search if kernels is None else _compiled_search(kernels)
    positive_all = problem.positive
    rows = np.arange(problem.scores.shape[1])
    g = problem.g0.copy()
    budget = problem.budget
    remaining = np.arange(n_trees) if order is None else np.asarray(order, dtype=np.intp)
    placed, lowers, uppers = [], [], []
    for position in range(1, n_trees):
        candidates = remaining[:1] if order is not None else \
            remaining if window is None else remaining[:window]
        exits_here = position % exit_every == 0
        if rows.size == 0 or (order is not None and not exits_here):
            t, lower, upper = candidates[0], -np.inf, np.inf
        else:
            t, lower, upper = search(problem, rows, g, positive_all[rows], budget, candidates)
            if not exits_here:
                lower, upper = -np.inf, np.inf
        remaining = remaining[remaining != t]
        placed.append(t)
        lowers.append(lower)
        uppers.append(upper)
        if rows.size:
            g = g + problem.scores[t, rows]
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
