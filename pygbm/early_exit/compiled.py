"""QWYC's compiled kernels (numba): tree scores, the early-exit run, Algorithm 1's search.

Imported only when numba is there (:func:`.forest.compiled_kernels`); the
NumPy code beside them is the reference they agree with bit for bit:

* :func:`score_matrix`: every tree's score on every row (the predictor
  seam's numbers: a terminal node's value is the tree's own double);
* :func:`run_rows`: the early-exit evaluation, tree by tree on the rows
  still active (:func:`.evaluate.run_schedule`'s sums, exits and rule for
  the rows that run every tree);
* :func:`best_candidate`: one position of Algorithm 1, every candidate tree
  with Algorithm 2's cuts (:func:`.thresholds.cuts`) found from order
  statistics of the full-positive and full-negative rows instead of a sort.

A forest is the fit's :class:`~pygbm.engine.forest.FlatForest` (the tables the
compiled predictor reads too) and the rows a matrix (rows x predictors: a
ColumnView's ``cols.T``); the walk follows the engine's split rule as the
tables spell it: NaN to the missing child, continuous ``x >= point`` right,
categorical by the level's entry of its ``c_splits`` row (a level outside
the row to the missing child).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..engine.split import LEFT, MISSING, RIGHT
from .outcome import EXIT_FULL, EXIT_NEGATIVE, EXIT_POSITIVE, ROUNDING_SLACK

#: modes of Algorithm 2 as the kernels read them (thresholds.MODES' order)
MODE_BOTH, MODE_NEGATIVE, MODE_POSITIVE = 0, 1, 2
EPS = float(np.finfo(float).eps)


@njit(cache=True, inline="always")
def _value(forest, t, x, i):
    """Tree ``t``'s value for row ``i`` of ``x`` (rows x predictors)."""
    var, code, children, categorical = (forest.split_var, forest.code, forest.children,
                                        forest.categorical)
    c_sides = forest.c_sides
    outside = c_sides.shape[1] - 1       # the column of a level outside every row
    node = forest.root[t]
    while var[node] >= 0:
        v = x[i, var[node]]
        if np.isnan(v):
            side = MISSING
        elif categorical[node]:
            level = int(v)
            side = c_sides[int(code[node]), level] if 0 <= level < outside else MISSING
        else:
            side = RIGHT if v >= code[node] else LEFT
        node = children[side, node]
    return code[node]


@njit(cache=True)
def score_matrix(forest, x):
    """(trees, rows): every tree's value on every row of ``x`` (rows x predictors)."""
    n_trees, n = forest.depth.shape[0], x.shape[0]
    out = np.empty((n_trees, n))
    for t in range(n_trees):
        for i in range(n):
            out[t, i] = _value(forest, t, x, i)
    return out


@njit(cache=True)
def run_rows(forest, schedule, x, g0, beta):
    """The trees of ``schedule`` = (order, lower, upper) in turn, each on the rows
    still active (kept in row order), as :func:`.evaluate.run_schedule`.
    Returns (score at exit, trees evaluated, exit kind).

    Rows that run every tree and end within rounding of ``beta`` are summed
    again in training order, as run_schedule does (the same bound: the sum
    over positions of the largest |score| of an active row there)."""
    order, lower, upper = schedule
    n, n_trees = g0.shape[0], order.shape[0]
    g = g0.copy()
    used = np.full(n, n_trees, dtype=np.intp)
    kind = np.full(n, EXIT_FULL, dtype=np.int8)
    active = np.arange(n)
    n_active, total = n, 0.0
    for r in range(n_trees):
        if n_active == 0:
            break
        t, low, high, last = order[r], lower[r], upper[r], r == n_trees - 1
        kept, largest = 0, 0.0
        for a in range(n_active):
            i = active[a]
            s = _value(forest, t, x, i)
            largest = max(largest, abs(s))
            g[i] += s
            if not last and g[i] < low:
                used[i], kind[i] = r + 1, EXIT_NEGATIVE
            elif not last and g[i] > high:
                used[i], kind[i] = r + 1, EXIT_POSITIVE
            else:
                active[kept] = i
                kept += 1
        total += largest
        n_active = kept
    for a in range(n_active):                # the rows that ran every tree
        i = active[a]
        bound = ROUNDING_SLACK * n_trees * EPS * (abs(g0[i]) + total)
        if abs(g[i] - beta) <= bound:
            f = g0[i]
            for t in range(n_trees):
                f += _value(forest, t, x, i)
            g[i] = f
    return g, used, kind


@njit(cache=True)
def _gather(scores, t, rows, g, sign, out):
    """``out[a] = sign * (g[a] + scores[t, rows[a]])`` (sign: +1 or -1, exact)."""
    for a in range(rows.shape[0]):
        out[a] = sign * (g[a] + scores[t, rows[a]])


@njit(cache=True)
def _gather_smallest(scores, t, rows, g, sign, out, heap):
    """:func:`_gather`, returning the ``heap.size`` smallest values of ``out``
    ascending (padded with +inf), kept in a max-heap while gathering."""
    k, size = heap.shape[0], 0
    for a in range(rows.shape[0]):
        v = sign * (g[a] + scores[t, rows[a]])
        out[a] = v
        if size < k:                              # push, sift up
            c = size
            heap[c] = v
            size += 1
            while c > 0 and heap[(c - 1) // 2] < heap[c]:
                p = (c - 1) // 2
                heap[c], heap[p] = heap[p], heap[c]
                c = p
        elif v < heap[0]:                         # replace the largest, sift down
            heap[0] = v
            c = 0
            while 2 * c + 1 < size:
                d = 2 * c + 1
                if d + 1 < size and heap[d + 1] > heap[d]:
                    d += 1
                if heap[d] <= heap[c]:
                    break
                heap[c], heap[d] = heap[d], heap[c]
                c = d
    smallest = np.full(k, np.inf)
    smallest[:size] = np.sort(heap[:size])
    return smallest


@njit(cache=True)
def _run_start(sorted_values, k):
    """The first position of the run of equal values holding position ``k``."""
    while k > 0 and sorted_values[k - 1] == sorted_values[k]:
        k -= 1
    return k


@njit(cache=True)
def _below_counts(values, sign, cuts_at):
    """For each b: how many ``sign * values`` lie below ``cuts_at[b]``
    (``cuts_at`` ascending)."""
    size = cuts_at.shape[0]
    hist = np.zeros(size + 1, dtype=np.intp)
    first, last = cuts_at[0], cuts_at[size - 1]
    for v in values:
        x = sign * v
        if x < first:
            hist[0] += 1
        elif x < last:
            hist[np.searchsorted(cuts_at, x, side="right")] += 1
    for b in range(1, size + 1):
        hist[b] += hist[b - 1]
    return hist


@njit(cache=True)
def _scan(low_pos, neg_below, high_neg, pos_above, n_pos, n_neg, budget, mode):
    """Algorithm 2's optimal cuts from order statistics: (i, j) with ``i`` rows
    exiting negative (below the (b+1)-th lowest full-positive score,
    ``low_pos[b]``) and ``j`` positive (above the (c+1)-th highest full-negative
    score, ``-high_neg[c]``, ``high_neg`` holding the negated scores ascending),
    as :func:`.thresholds.cuts` (the most stops, then the fewest
    disagreements, then the most negative exits). ``neg_below[b]``: negatives
    below ``low_pos[b]``; ``pos_above[c]``: positives above ``-high_neg[c]``."""
    n = n_pos + n_neg
    best_i, best_j, best_stops, best_bad = 0, 0, -1, 0
    for b in range(budget + 1 if mode != MODE_POSITIVE else 1):
        if mode == MODE_POSITIVE:
            i, spent = 0, 0
        elif low_pos[b] == np.inf:
            i, spent = n, n_pos
        else:
            spent = _run_start(low_pos, b)
            i = spent + neg_below[b]
        j, bad_top = 0, 0
        if mode != MODE_NEGATIVE:
            c = budget - spent
            if high_neg[c] == np.inf:
                j, bad_top = n, n_neg
            else:
                bad_top = _run_start(high_neg, c)
                j = bad_top + pos_above[c]
            if i + j > n:
                j, bad_top = n - i, n_neg - neg_below[b]
        stops, bad = i + j, spent + bad_top
        if stops > best_stops or (stops == best_stops and (
                bad < best_bad or (bad == best_bad and i > best_i))):
            best_i, best_j, best_stops, best_bad = i, j, stops, bad
    return best_i, best_j


@njit(cache=True)
def _candidate_cuts(scores, t, positives, negatives, budget, mode, buffers):
    """The optimal cuts (i, j) of candidate tree ``t`` (see :func:`best_candidate`)."""
    (pos_rows, g_pos), (neg_rows, g_neg) = positives, negatives
    gp, gn, heap = buffers
    n_pos, n_neg = pos_rows.shape[0], neg_rows.shape[0]
    none = np.empty(0)
    low_pos, high_neg = none, none
    neg_below, pos_above = np.empty(0, dtype=np.intp), np.empty(0, dtype=np.intp)
    if mode == MODE_POSITIVE:
        _gather(scores, t, pos_rows, g_pos, 1.0, gp)
    else:
        low_pos = _gather_smallest(scores, t, pos_rows, g_pos, 1.0, gp, heap)
    if mode == MODE_NEGATIVE:
        _gather(scores, t, neg_rows, g_neg, -1.0, gn)
    else:
        high_neg = _gather_smallest(scores, t, neg_rows, g_neg, -1.0, gn, heap)
        pos_above = _below_counts(gp[:n_pos], -1.0, high_neg)
    if mode != MODE_POSITIVE:
        neg_below = _below_counts(gn[:n_neg], -1.0, low_pos)
    return _scan(low_pos, neg_below, high_neg, pos_above, n_pos, n_neg, budget, mode)


@njit(cache=True)
def _between(stopped, kept):
    """thresholds.between for one pair."""
    if kept == np.inf:
        return np.nextafter(stopped, np.inf)
    mid = stopped + (kept - stopped) / 2
    return mid if mid > stopped else kept


@njit(cache=True)
def best_candidate(scores, positives, negatives, budget, mode, cost, candidates):
    """One position of Algorithm 1: the candidate tree of least cost per row
    stopped (ties: the first in ``candidates``; none stops a row: -1), with its
    thresholds as :func:`.thresholds.position_thresholds`. ``positives`` and
    ``negatives`` = (rows, partial scores) of the uncertain rows the full model
    decides positive / negative; ``scores`` is (trees, rows)."""
    n_pos, n_neg = positives[0].shape[0], negatives[0].shape[0]
    buffers = (np.empty(n_pos), np.empty(n_neg), np.empty(budget + 1))
    best, best_J = -1, np.inf
    for a in range(candidates.shape[0]):
        i, j = _candidate_cuts(scores, candidates[a], positives, negatives, budget, mode,
                               buffers)
        if i + j > 0:
            J = cost[candidates[a]] / (i + j)
            if J < best_J:
                best, best_J = a, J
    if best < 0:
        return -1, -np.inf, np.inf
    i, j = _candidate_cuts(scores, candidates[best], positives, negatives, budget, mode,
                           buffers)
    n = n_pos + n_neg
    values = np.empty(n)
    values[:n_pos] = buffers[0]
    values[n_pos:] = -buffers[1]
    values.sort()
    lower, upper = -np.inf, np.inf
    if i > 0:
        lower = _between(values[i - 1], values[i] if i < n else np.inf)
    if j > 0:
        kept = values[n - j - 1] if n - j > 0 else -np.inf
        upper = -_between(-values[n - j], -kept)
    return best, lower, upper          # they cross only where every row stops: thresholds_of_cuts
