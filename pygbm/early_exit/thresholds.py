"""Algorithm 2 of QWYC: the exit thresholds of one position, vectorised over candidates.

At a position of the evaluation order the rows still uncertain (``U``) have
partial scores ``G`` after the position's tree. A row exits negative when
``G < lower``, positive when ``G > upper``. Among the thresholds that keep the
disagreements with the full model's decision within the remaining budget, the
one that stops most rows is found exactly from order statistics: the lower
threshold lies at the (B+1)-th smallest score of the full-positive rows, the
upper one at the (B'+1)-th largest score of the full-negative rows still
uncertain, B' the budget the negative exits left. The first side takes the
budget greedily (the paper's choice: negative first in mode "both").

Of the thresholds that stop the same rows, the one halfway between the last
row stopped and the first row kept is returned (a margin for new rows); a
side that stops no row gets an infinite threshold (no exit), and one that
stops every uncertain row stops just beyond the last of them.
"""
from __future__ import annotations

from fractions import Fraction
import math

import numpy as np

MODES = ("both", "negative", "positive")


def disagreement_budget(alpha: float, n_rows: int) -> int:
    """floor(alpha * n_rows), alpha read as the decimal number it was written as."""
    return math.floor(Fraction(repr(float(alpha))) * n_rows)


def _smallest_bad(G: np.ndarray, bad: np.ndarray, allowed: np.ndarray,
                  budget: np.ndarray) -> np.ndarray:
    """Per column, the (budget+1)-th smallest score of the allowed bad rows (+inf if fewer)."""
    n_cols = G.shape[1]
    scores = np.where(allowed[bad], G[bad], np.inf)
    k_max = int(budget.max())
    if scores.shape[0] <= k_max:
        scores = np.vstack([scores, np.full((k_max + 1 - scores.shape[0], n_cols), np.inf)])
    if scores.shape[0] > k_max + 1:
        scores = np.partition(scores, k_max, axis=0)[:k_max + 1]
    scores.sort(axis=0)
    return scores[budget, np.arange(n_cols)]


def _lower_side(G, bad, allowed, budget):
    """The lower threshold per column: rows with ``allowed`` and ``G < threshold``
    stop, at most ``budget`` of them ``bad``; returns (threshold, stop mask)."""
    bound = _smallest_bad(G, bad, allowed, budget)
    stop = allowed & (G < bound)
    last = np.where(stop, G, -np.inf).max(axis=0, initial=-np.inf)
    with np.errstate(invalid="ignore"):                      # inf - inf: no stop, masked below
        mid = last + (bound - last) / 2
    mid = np.where(mid > last, mid, bound)                   # adjacent floats
    beyond = np.nextafter(last, np.inf)
    threshold = np.where(np.isinf(bound), beyond, mid)
    threshold = np.where(stop.any(axis=0), threshold, -np.inf)
    return threshold, stop


def exits(G: np.ndarray, lower, upper) -> tuple[np.ndarray, np.ndarray]:
    """(negative exits, positive exits) of partial scores ``G`` under the thresholds."""
    negative = G < lower
    return negative, (G > upper) & ~negative


def position_thresholds(G: np.ndarray, positive: np.ndarray, budget, mode: str):
    """Algorithm 2 for every column of ``G`` (rows of U x candidate trees).

    ``positive``: the full model's decision of each row; ``budget``: the
    disagreements still allowed (an int or one per column). Returns
    ``(lower, upper)``, one per column, with lower <= upper.
    """
    n_cols = G.shape[1]
    budget = np.broadcast_to(np.asarray(budget, dtype=np.intp), (n_cols,)).copy()
    every = np.ones(G.shape, dtype=bool)
    lower = np.full(n_cols, -np.inf)
    upper = np.full(n_cols, np.inf)
    if mode == "positive":
        upper = -_lower_side(-G, ~positive, every, budget)[0]
        return lower, upper
    lower, stop = _lower_side(G, positive, every, budget)
    if mode == "both":
        spent = (stop & positive[:, None]).sum(axis=0)
        upper = -_lower_side(-G, ~positive, ~stop, budget - spent)[0]
        upper = np.maximum(upper, lower)
    return lower, upper
