"""Running a schedule: trees in order on a shrinking set of active rows.

One loop serves the early-exit predictor without numba (scores from the
predictor seam on the rows still active; with numba :func:`.compiled.run_rows`
does the same in one compiled call) and the optimiser's bookkeeping (rows of
a score matrix): :func:`run_schedule` takes the per-tree score as a function
of the tree and the active rows.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .ordering import Schedule
from .outcome import EXIT_FULL, EXIT_NEGATIVE, EXIT_POSITIVE, ROUNDING_SLACK, Outcome
from .thresholds import exits


def run_schedule(schedule: Schedule, g0: np.ndarray,
                 tree_score: Callable[[int, np.ndarray], np.ndarray], beta: float) -> Outcome:
    """Evaluate the trees of ``schedule`` in order; ``tree_score(t, rows)`` is
    tree ``t``'s score on the active ``rows`` (indices into ``g0``)."""
    g = np.array(g0, dtype=float)
    n = g.size
    n_trees = np.full(n, schedule.order.size, dtype=np.intp)
    exit_kind = np.full(n, EXIT_FULL, dtype=np.int8)
    active = np.arange(n)
    last = schedule.order.size - 1
    largest = 0.0             # bounds the sum of |tree scores| of the rows that run every tree
    for r, t in enumerate(schedule.order):
        if active.size == 0:
            break
        score = tree_score(int(t), active)
        largest += float(np.abs(score).max())
        g_active = g[active] + score
        g[active] = g_active
        if r == last:
            _in_training_order(g, g0, active, tree_score, beta, largest, last + 1)
            break
        negative, positive = exits(g_active, schedule.lower[r], schedule.upper[r])
        stop = negative | positive
        if stop.any():
            n_trees[active[stop]] = r + 1
            exit_kind[active[negative]] = EXIT_NEGATIVE
            exit_kind[active[positive]] = EXIT_POSITIVE
            active = active[~stop]
    decision = np.where(exit_kind == EXIT_FULL, g >= beta, exit_kind == EXIT_POSITIVE)
    return Outcome(decision, n_trees, g, exit_kind)


def _in_training_order(g, g0, active, tree_score, beta, largest, n_trees):
    """Rows whose sum in the schedule's order is so close to beta that rounding
    could flip the decision get their full score summed in training order, as
    the model sums it (so that "full" exits decide as the model, bit for bit)."""
    bound = ROUNDING_SLACK * n_trees * np.finfo(float).eps * (np.abs(g0[active]) + largest)
    near = active[np.abs(g[active] - beta) <= bound]
    if near.size:
        f = np.array(g0[near], dtype=float)
        for t in range(n_trees):
            f += tree_score(t, near)
        g[near] = f


def matrix_scores(scores: np.ndarray) -> Callable[[int, np.ndarray], np.ndarray]:
    """Tree scores read from a score matrix (trees x rows)."""
    return lambda t, rows: scores[t, rows]
