"""Algorithm 2's thresholds with the disagreement budget spent by rate
(``qwyc(thresholds="rate")``; not in the paper).

Algorithm 2 spends the budget greedily: each position takes the cuts that stop
the most rows within what the positions before it left, so the first positions
with exits spend it all and the later ones stop no row that disagrees. Spent by
rate, a position spends a disagreement only where it stops at least ``rate``
more rows (:func:`.thresholds.rate_cuts`: the most rows stopped less ``rate``
per disagreement, within the budget left), and ``rate`` is the least at which
all positions together keep the budget (a bisection on its logarithm). The
order is placed first (Algorithm 1's order is chosen with Algorithm 2's
thresholds, as it is for ``thresholds="qwyc"``); the budget holds on the rows
the thresholds are set on, as Algorithm 2's. A budget of 0 gives Algorithm 2's
thresholds at alpha = 0.

Measured on Adult (``benchmarks/qwyc_rate.py``): on the test rows, at the same
disagreement, 0.46-1.01 of the trees of Algorithm 2's greedy spending, the fewest
for the training order, whose greedy thresholds carry over worst (docs/qwyc.md).
"""
from __future__ import annotations

import math

import numpy as np

from .evaluate import matrix_scores, run_schedule
from .ordering import Problem, Schedule, place
from .thresholds import rate_cuts, thresholds_of_cuts

#: the least rate tried: below 1 a disagreement is worth stopping itself alone,
#: and every row exits at the first position with exits
RATE_LEAST = 0.5
#: bisection steps on log(rate) at most, and the relative width at which it stops
RATE_STEPS = 40
RATE_TOLERANCE = 1e-3


def _rate_search(rate: float):
    """Algorithm 2's position search of :func:`.ordering.place` for a fixed order,
    with the cuts of :func:`.thresholds.rate_cuts`. The rate alone decides what a
    position spends (the budget left is not passed on: :func:`rate_schedule`
    chooses the rate that keeps the budget)."""
    def search(problem, rows, g, positive, budget, candidates):
        t = candidates[0]
        i, j, s = rate_cuts(g + problem.scores[t, rows], positive, rows.size, problem.mode,
                            rate)
        lower, upper = thresholds_of_cuts(i, j, s)
        return t, lower[0], upper[0]
    return search


def _spent(problem: Problem, schedule: Schedule) -> int:
    """The rows of ``problem`` whose early decision differs from the full model's."""
    out = run_schedule(schedule, problem.g0, matrix_scores(problem.scores), problem.beta)
    return int(np.sum(out.decision != problem.positive))


def place_by_rate(problem: Problem, order, rate: float, exit_every: int = 1) -> Schedule:
    """The thresholds of the fixed ``order`` spending disagreements at ``rate``."""
    return place(problem, order, exit_every=exit_every, search=_rate_search(rate))


def rate_schedule(problem: Problem, order, exit_every: int = 1) -> Schedule:
    """The thresholds of the fixed ``order`` at the least rate that keeps
    ``problem.budget`` on its rows."""
    high = float(problem.scores.shape[1] + 1)      # no disagreement is worth its rows
    if problem.budget <= 0:
        return place_by_rate(problem, order, high, exit_every)
    low = RATE_LEAST
    schedule = place_by_rate(problem, order, low, exit_every)
    if _spent(problem, schedule) <= problem.budget:
        return schedule
    best = None                                    # the schedule at high, once it is tried
    for _ in range(RATE_STEPS):
        if high <= low * (1 + RATE_TOLERANCE):
            break
        middle = math.sqrt(low * high)
        schedule = place_by_rate(problem, order, middle, exit_every)
        if _spent(problem, schedule) <= problem.budget:
            high, best = middle, schedule
        else:
            low = middle
    return place_by_rate(problem, order, high, exit_every) if best is None else best
