"""The leave-one-out count of a schedule on the rows its thresholds were set on:
an estimate of the disagreement on new rows (``summary()``, ``report_``,
``qwyc_tradeoff``'s ``fit_loo_disagreement``; not in the paper).

Algorithm 2 puts each threshold at an extreme of the rows: at alpha = 0 the
lower one just below the lowest active row that the full model decides
positive. Had that row been left out, the threshold would have moved past it,
and the row, new to the thresholds, would have exited wrongly. The count
takes, once each:

* the rows that exit with a decision other than the full model's;
* the edge row of every threshold in use (finite), while it is active: the
  lowest row decided positive that the lower threshold keeps, and the highest
  row decided negative that neither threshold stops, when leaving it out
  would let it exit wrongly (:func:`edge_rows`: not when it ties with the next
  such row, nor when it lies above the threshold set without it).

Measured on held-out optimisation rows (``benchmarks/qwyc_datasets.py``,
docs/qwyc.md): for thresholds set by Algorithm 2 on rows the order was not
chosen on it is close to the disagreement on new rows (Adult: 0.50% / 0.72% /
1.23% / 2.20% against 0.49% / 0.77% / 1.29% / 2.28% at alpha 0.25-2%), lower
on small or rare-response data and where the order was chosen on the same rows.
Spending alpha on it (an experimental rule, commit b585854) was not better than
``thresholds="rate"``: the thresholds then fit the count, which stops estimating.
"""
from __future__ import annotations

import numpy as np

from .ordering import Schedule
from .thresholds import between, exits, tie_start


def edge_rows(s: np.ndarray, bad: np.ndarray, cut: np.ndarray) -> np.ndarray:
    """For each cut of one side (the ``cut`` lowest of the sorted scores ``s`` stop,
    cut > 0), the sorted index of its edge row when leaving that row out would
    let it exit wrongly, else -1. The edge row is the first ``bad`` row kept;
    without it the cut would reach just below the next bad row (past every row
    when there is none), and the threshold halfway between the last row then
    stopped and that one: the edge row exits if other kept rows lie below the
    next bad row, or if it lies below that threshold (never when it ties with
    the next bad row)."""
    n = s.size
    bad_at = np.append(np.flatnonzero(bad), n)           # n: no further bad row (score inf)
    first = np.searchsorted(bad_at, cut)
    edge = bad_at[first]
    nxt = bad_at[np.minimum(first + 1, bad_at.size - 1)]
    s_next = np.append(s, np.inf)[nxt]
    rows_between = tie_start(s[:, None])[nxt, 0] - cut - 1 > 0     # kept rows but the edge
    below = s[np.minimum(edge, n - 1)] < between(s[np.maximum(cut - 1, 0)], s_next)
    return np.where((edge < n) & (rows_between | below), edge, -1)


def charge(counted: np.ndarray, rows: np.ndarray, g: np.ndarray, positive: np.ndarray,
           lower: float, upper: float) -> np.ndarray:
    """Mark in ``counted`` (one flag per row of the problem) the rows that one
    position adds to the leave-one-out count: ``rows`` are the active rows,
    ``g`` their scores after the position's tree, ``positive`` their full
    decisions, ``lower``/``upper`` the position's thresholds (a side in use has
    a finite one). Returns which of ``rows`` exit there."""
    negative_exit, positive_exit = exits(g, lower, upper)
    counted[rows[(negative_exit & positive) | (positive_exit & ~positive)]] = True
    i, j = int(negative_exit.sum()), int(positive_exit.sum())
    lower_used, upper_used = np.isfinite(lower) and i > 0, np.isfinite(upper) and j > 0
    if lower_used or upper_used:
        order = np.argsort(g, kind="stable")
        if lower_used:
            k = edge_rows(g[order], positive[order], np.array([i]))[0]
            if k >= 0:
                counted[rows[order[k]]] = True
        if upper_used:
            top = order[i:][::-1]
            k = edge_rows(-g[top], ~positive[top], np.array([j]))[0]
            if k >= 0:
                counted[rows[top[k]]] = True
    return negative_exit | positive_exit


def loo_count(scores: np.ndarray, g0: np.ndarray, positive: np.ndarray,
              schedule: Schedule) -> int:
    """The leave-one-out count of ``schedule`` on rows with per-tree ``scores``
    (trees x rows), starting scores ``g0`` and full decisions ``positive``."""
    counted = np.zeros(scores.shape[1], dtype=bool)
    rows = np.arange(counted.size)
    g = g0.copy()
    for r, t in enumerate(schedule.order[:-1]):
        if rows.size == 0:
            break
        g = g + scores[t, rows]
        keep = ~charge(counted, rows, g, positive[rows], schedule.lower[r], schedule.upper[r])
        rows, g = rows[keep], g[keep]
    return int(counted.sum())
