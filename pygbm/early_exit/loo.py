"""Exit thresholds whose budget holds on a leave-one-out count of the rows they
set it on (``qwyc(thresholds="loo")``; not in the paper).

Algorithm 2 puts each threshold at an extreme of the rows: at alpha = 0 the
lower one just below the lowest active row that the full model decides
positive. Had that row been left out, the threshold would have moved past it,
and the row, new to the thresholds, would have exited wrongly. So a new row
like it is the risk that alpha, spent on the rows themselves, does not count:
on new rows the disagreement is several times alpha.

**The leave-one-out count** of a schedule on its rows counts, once each:

* the rows that exit with a decision other than the full model's;
* the boundary row of every threshold in use (finite), while it is active:
  the lowest row decided positive that the lower threshold keeps, and the
  highest row decided negative that neither threshold stops, unless another
  such row shares its score (cuts never split equal scores, so with a tie
  the threshold stays where it is when one of them is left out).

``thresholds="loo"`` keeps that count within floor(alpha N), spending by rate
as :mod:`.rate` does: a side of a position is used only where it stops at
least ``rate`` rows per row newly counted (rows counted already are free),
and ``rate`` is the least that keeps the budget. alpha = 0 allows no
threshold. Measured on held-out rows: ``benchmarks/qwyc_datasets.py``,
docs/qwyc.md.
"""
from __future__ import annotations

import numpy as np

from .ordering import Problem, Schedule, place
from .thresholds import tie_start, between, thresholds_of_cuts


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
           lower: float, upper: float) -> None:
    """Mark in ``counted`` (one flag per row of the problem) the rows that one
    position adds to the leave-one-out count: ``rows`` are the active rows,
    ``g`` their scores after the position's tree, ``positive`` their full
    decisions, ``lower``/``upper`` the position's thresholds (a side in use has
    a finite one)."""
    negative_exit = g < lower
    positive_exit = (g > upper) & ~negative_exit
    counted[rows[(negative_exit & positive) | (positive_exit & ~positive)]] = True
    order = np.argsort(g, kind="stable")
    s, pos = g[order], positive[order]
    i = int(negative_exit.sum())
    if np.isfinite(lower) and i > 0:
        k = edge_rows(s, pos, np.array([i]))[0]
        if k >= 0:
            counted[rows[order[k]]] = True
    j = int(positive_exit.sum())
    if np.isfinite(upper) and j > 0:
        top = order[i:][::-1]
        k = edge_rows(-g[top], ~positive[top], np.array([j]))[0]
        if k >= 0:
            counted[rows[top[k]]] = True


def loo_count(problem: Problem, schedule: Schedule) -> int:
    """The leave-one-out count of ``schedule`` on the rows of ``problem``."""
    counted = np.zeros(problem.scores.shape[1], dtype=bool)
    positive_all = problem.positive
    rows = np.arange(counted.size)
    g = problem.g0.copy()
    for r, t in enumerate(schedule.order[:-1]):
        if rows.size == 0:
            break
        g = g + problem.scores[t, rows]
        lower, upper = schedule.lower[r], schedule.upper[r]
        charge(counted, rows, g, positive_all[rows], lower, upper)
        keep = ~((g < lower) | (g > upper))
        rows, g = rows[keep], g[keep]
    return int(counted.sum())


def side_cut(s: np.ndarray, bad: np.ndarray, counted: np.ndarray, rate: float) -> int:
    """How many of the lowest of the sorted scores ``s`` one side stops: the cut
    of most rows stopped less ``rate`` per row newly counted (``bad``: the rows
    that disagree if stopped; ``counted``: already counted), or 0 (the side
    unused) when no cut is worth more than nothing."""
    n = s.size
    bad_at = np.flatnonzero(bad)
    if bad_at.size == 0:
        return n
    cut = np.append(tie_start(s[:, None])[bad_at, 0], n)     # just below the (b+1)-th bad row
    new = np.concatenate([[0], np.cumsum(bad & ~counted)])
    edge = edge_rows(s, bad, np.maximum(cut, 1))
    edge_new = (edge >= 0) & ~counted[np.maximum(edge, 0)]
    value = np.where(cut > 0, cut - rate * (new[cut] + edge_new), 0.0)
    best = int(np.argmax(value))
    return int(cut[best]) if value[best] > 0 else 0


def _search(rate: float, counted: np.ndarray):
    """The position search of :func:`.ordering.place` for a fixed order: each side's
    :func:`side_cut`, the lower first and the upper on the rows it keeps; the rows
    it adds to the count are marked in ``counted``."""
    def search(problem, rows, g, positive, budget, candidates):
        t = candidates[0]
        G = g + problem.scores[t, rows]
        order = np.argsort(G, kind="stable")
        s, pos, seen = G[order], positive[order], counted[rows[order]]
        n = s.size
        i = 0 if problem.mode == "positive" else side_cut(s, pos, seen, rate)
        j = 0
        if problem.mode != "negative" and i < n:
            j = side_cut(-s[::-1][:n - i], ~pos[::-1][:n - i], seen[::-1][:n - i], rate)
        lower, upper = (x[0] for x in thresholds_of_cuts(np.array([i]), np.array([j]),
                                                         s[:, None]))
        charge(counted, rows, G, positive, lower, upper)
        return t, lower, upper
    return search


def place_by_loo(problem: Problem, order, rate: float,
                 exit_every: int = 1) -> tuple[Schedule, int]:
    """The thresholds of the fixed ``order`` at ``rate``, and their leave-one-out
    count."""
    counted = np.zeros(problem.scores.shape[1], dtype=bool)
    schedule = place(problem, order, exit_every=exit_every, search=_search(rate, counted))
    return schedule, int(counted.sum())
