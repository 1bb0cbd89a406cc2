"""Algorithm 2 of QWYC: the exit thresholds of one position (NumPy reference).

At a position of the evaluation order the rows still uncertain (``U``) have
partial scores ``G`` after the position's tree. A row exits negative when
``G < lower``, positive when ``G > upper``. A negative exit of a row the full
model decides positive is a disagreement, and so is a positive exit of a
full-negative row; the position may add at most ``budget`` of them (what the
positions before it left of floor(alpha N)).

The thresholds are the optimum of the position: the most rows stopped within
the budget, the budget shared between the two sides as it stops most rows
(ties: the fewest disagreements spent, then the most negative exits). On the
scores sorted, a negative exit set is the ``i`` lowest rows and a positive
one the ``j`` highest (a cut never splits equal scores); for each number b of
disagreements spent below, the widest lower cut lies just below the (b+1)-th
lowest full-positive score, and the widest upper cut for the rest of the
budget just above the (c+1)-th highest full-negative score, so the optimum is
found among B + 1 pairs of cuts (B the budget).

Of the thresholds that stop the same rows, the one halfway between the last
row stopped and the first row kept is returned (a margin for new rows); a
side that stops no row gets an infinite threshold (no exit), and one that
stops every row stops just beyond the last of them.

:mod:`.compiled` finds the same cuts from order statistics without sorting
(``tests/early_exit/test_algorithms.py`` checks both against a brute-force
search over every pair of cuts).
"""
from __future__ import annotations

from fractions import Fraction
import math

import numpy as np

MODES = ("both", "negative", "positive")


def disagreement_budget(alpha: float, n_rows: int) -> int:
    """floor(alpha * n_rows), alpha read as the decimal number it was written as."""
    return math.floor(Fraction(repr(float(alpha))) * n_rows)


def exits(G: np.ndarray, lower, upper) -> tuple[np.ndarray, np.ndarray]:
    """(negative exits, positive exits) of partial scores ``G`` under the thresholds."""
    negative = G < lower
    return negative, (G > upper) & ~negative


def between(stopped, kept):
    """A threshold ``x`` with ``stopped < x <= kept`` (rows below ``x`` stop):
    halfway when a double lies strictly above ``stopped`` there, else ``kept``;
    ``kept`` infinite (no row kept): the next double above ``stopped``.
    Elementwise; the upper side uses ``-between(-stopped, -kept)``."""
    stopped, kept = np.asarray(stopped, dtype=float), np.asarray(kept, dtype=float)
    with np.errstate(invalid="ignore"):
        mid = stopped + (kept - stopped) / 2
    mid = np.where(mid > stopped, mid, kept)
    return np.where(np.isinf(kept), np.nextafter(stopped, np.inf), mid)


def _ranks(flags: np.ndarray, count: int) -> np.ndarray:
    """Per column, the sorted position of the 1st..count-th True (n where fewer)."""
    n, m = flags.shape
    ranks = np.full((count, m), n, dtype=np.intp)
    first = np.argsort(~flags, axis=0, kind="stable")[:count]
    present = np.arange(first.shape[0])[:, None] < flags.sum(axis=0)[None, :]
    ranks[:first.shape[0]] = np.where(present, first, n)
    return ranks


def _first_ranks(flags: np.ndarray, count: int) -> np.ndarray:
    """The positions of the 1st..count-th True of ``flags`` (one column; ``n`` for
    the first missing one, and no further)."""
    ranks = np.flatnonzero(flags)[:count]
    return ranks if ranks.size == count else np.append(ranks, flags.size)


def tie_start(s: np.ndarray) -> np.ndarray:
    """Per column of sorted ``s``: the first position of each value's run, with
    a last row ``n`` (so that position n maps to n)."""
    n, m = s.shape
    first = np.ones(s.shape, dtype=bool)
    first[1:] = s[1:] != s[:-1]
    start = np.maximum.accumulate(np.where(first, np.arange(n)[:, None], 0), axis=0)
    return np.vstack([start, np.full((1, m), n)])


def cuts(G: np.ndarray, positive: np.ndarray, budget, mode: str):
    """The optimal cuts per column of ``G`` (rows of U x candidates): ``i`` rows
    exit negative and ``j`` positive, with the sorted scores ``s``. Returns
    (i, j, s)."""
    n, m = G.shape
    budget = np.broadcast_to(np.asarray(budget, dtype=np.intp), (m,))
    B = int(budget.max(initial=0))
    order = np.argsort(G, axis=0, kind="stable")
    s = np.take_along_axis(G, order, axis=0)
    pos = positive[order]
    cols = np.arange(m)[None, :]
    below_bad = np.vstack([np.zeros((1, m), dtype=np.intp), np.cumsum(pos, axis=0)])
    above_bad = np.vstack([np.zeros((1, m), dtype=np.intp), np.cumsum(~pos[::-1], axis=0)])
    if mode == "positive":
        i = np.zeros((1, m), dtype=np.intp)
    else:      # just below the (b+1)-th lowest full-positive score
        i = tie_start(s)[_ranks(pos, B + 1), cols]
    levels = np.arange(i.shape[0])[:, None]
    spent = below_bad[i, cols]
    left = budget[None, :] - spent
    if mode == "negative":
        j = np.zeros_like(i)
    else:      # just above the (c+1)-th highest full-negative score
        top = tie_start(-s[::-1])[_ranks(~pos[::-1], B + 1), cols]
        j = np.minimum(top[np.clip(left, 0, B), cols], n - i)
    bad = spent + above_bad[j, cols]
    ok = (left >= 0) & (levels <= budget[None, :])
    stops = np.where(ok, i + j, -1)
    best = ok & (stops == stops.max(axis=0))
    bad = np.where(best, bad, n + 1)
    best &= bad == bad.min(axis=0)
    pick = np.argmax(np.where(best, i, -1), axis=0)
    return i[pick, cols[0]], j[pick, cols[0]], s


def rate_cuts(g: np.ndarray, positive: np.ndarray, budget: int, mode: str, rate: float):
    """The cuts of one position (scores ``g`` of the rows of U) that stop the most
    rows less ``rate`` per disagreement, within ``budget`` disagreements: the budget
    is spent only where a disagreement stops at least ``rate`` more rows
    (:mod:`.rate`). ``rate`` is finite. Ties: the fewest disagreements, then the most
    negative exits. Returns (i, j, s) as :func:`cuts` for one column."""
    n = g.shape[0]
    B = max(int(budget), 0)
    order = np.argsort(g, kind="stable")
    s, pos = g[order][:, None], positive[order]
    below_bad = np.concatenate([[0], np.cumsum(pos)])
    above_bad = np.concatenate([[0], np.cumsum(~pos[::-1])])
    none = np.zeros(1, dtype=np.intp)
    i = none if mode == "positive" else tie_start(s)[_first_ranks(pos, B + 1), 0]
    j = none if mode == "negative" else tie_start(-s[::-1])[_first_ranks(~pos[::-1], B + 1), 0]
    bad_low, bad_up = below_bad[i], above_bad[j]
    # the upper cut of most value among those within each budget left (a prefix of j)
    value_up = j - rate * bad_up
    new_best = value_up > np.concatenate([[-np.inf], np.maximum.accumulate(value_up)[:-1]])
    best_up = np.maximum.accumulate(np.where(new_best, np.arange(j.size), 0))
    within = np.searchsorted(bad_up, B - bad_low, side="right") - 1
    up = np.minimum(j[best_up[np.maximum(within, 0)]], n - i)
    bad = bad_low + above_bad[up]
    value = np.where(within >= 0, (i + up) - rate * bad, -np.inf)
    k = np.lexsort((-i, bad, -value))[0]
    return np.array([i[k]]), np.array([up[k]]), s


def position_thresholds(G: np.ndarray, positive: np.ndarray, budget, mode: str):
    """Algorithm 2 for every column of ``G`` (rows of U x candidate trees).

    ``positive``: the full model's decision of each row; ``budget``: the
    disagreements still allowed (an int or one per column). Returns
    ``(lower, upper)``, one per column (see :func:`thresholds_of_cuts`).
    """
    i, j, s = cuts(G, positive, budget, mode)
    return thresholds_of_cuts(i, j, s)


def thresholds_of_cuts(i: np.ndarray, j: np.ndarray, s: np.ndarray):
    """``(lower, upper)`` per column of the sorted scores ``s`` when the ``i`` lowest
    rows exit negative and the ``j`` highest positive: halfway between the last row
    stopped and the first kept (see :func:`between`); infinite for a side that
    stops no row. lower <= upper, but where the two cuts stop every row (``i + j``
    is n) and the rows at the cut are adjacent doubles: then lower is the upper
    row's score and upper the lower row's (no x has a <= x <= b between them), the
    negative exit, tested first, takes the lower row and the positive the upper.
    (Lifting upper to lower kept the upper row in, one stop short of the count
    Algorithm 1 had scored.)"""
    n = s.shape[0]
    cols = np.arange(s.shape[1])
    last = s[np.maximum(i - 1, 0), cols]
    first = np.where(i < n, s[np.minimum(i, n - 1), cols], np.inf)
    lower = np.where(i > 0, between(last, first), -np.inf)
    low_top = s[np.minimum(n - j, n - 1), cols]
    kept_top = np.where(n - j > 0, s[np.maximum(n - j - 1, 0), cols], -np.inf)
    upper = np.where(j > 0, -between(-low_top, -kept_top), np.inf)
    return lower, upper
