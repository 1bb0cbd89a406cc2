"""qwyc(): the argument checks and the optimisation on a fit's rows.

The optimisation works on score matrices (:class:`Rows`), so the trade-off
curves and the search for alpha reuse one scoring of the rows.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .evaluate import matrix_scores, run_schedule
from .loo import loo_count
from .outcome import EXIT_NEGATIVE, EXIT_POSITIVE, Outcome
from .ordering import Problem, Schedule, place
from .predictor import OptimisationReport
from .rate import rate_schedule
from .thresholds import disagreement_budget

ORDERS = ("qwyc", "gbt", "random")
#: thresholds: Algorithm 2 ("qwyc"), Algorithm 2's cuts with the budget spent by rate
#: ("rate", :mod:`.rate`), LightGBM's margin rule ("margin")
THRESHOLD_RULES = ("qwyc", "rate", "margin")


@dataclass(frozen=True)
class Rows:
    """Scored rows: per-tree scores (trees x rows), starting scores, full decisions."""

    scores: np.ndarray
    g0: np.ndarray
    beta: float

    @property
    def n(self) -> int:
        return self.scores.shape[1]

    def subset(self, index) -> "Rows":
        return Rows(np.ascontiguousarray(self.scores[:, index]), self.g0[index], self.beta)

    def problem(self, alpha: float, mode: str, cost: np.ndarray) -> Problem:
        return Problem(self.scores, self.g0, self.beta, disagreement_budget(alpha, self.n),
                       mode, cost)

    def run(self, schedule: Schedule) -> Outcome:
        return run_schedule(schedule, self.g0, matrix_scores(self.scores), self.beta)

    def loo_disagreement(self, schedule: Schedule) -> float:
        """The leave-one-out count of ``schedule`` on these rows, as a share of them
        (:mod:`.loo`: an estimate of the disagreement on new rows)."""
        return loo_count(self.scores, self.g0, self.full_decision, schedule) / self.n

    @property
    def full_decision(self) -> np.ndarray:
        return Problem(self.scores, self.g0, self.beta, 0, "both", np.ones(0)).positive


@dataclass(frozen=True)
class Settings:
    """The checked options of one optimisation."""

    mode: str
    order: object                 # "qwyc", "gbt", "random" or an explicit permutation
    cost: np.ndarray
    honest: bool
    seed: int                     # the random order and the honest split, the same every call
    rule: str = "qwyc"            # thresholds: one of THRESHOLD_RULES
    margin: float = 0.0
    margin_freq: int = 1          # the margin rule checks after every margin_freq-th tree
    exit_every: int = 1           # Algorithm 2's thresholds after every exit_every-th tree

    def threshold_row_count(self, n: int) -> int:
        """How many of ``n`` optimisation rows the thresholds are set on: the second
        half when honest."""
        return n - n // 2 if self.honest else n


def _fixed_order(settings: Settings, n_trees: int, rng: np.random.Generator):
    """The order to place the trees in (None: Algorithm 1)."""
    if isinstance(settings.order, str):
        if settings.order == "qwyc":
            return None
        if settings.order == "gbt":
            return np.arange(n_trees)
        return rng.permutation(n_trees)
    return settings.order


def margin_schedule(n_trees: int, beta: float, margin: float, order=None,
                    freq: int = 1, mode: str = "both") -> Schedule:
    """LightGBM's pred_early_stop rule (binary): after every ``freq``-th tree
    (``pred_early_stop_freq``; LightGBM's default 10), stop once
    2|g - beta| > margin (``pred_early_stop_margin``); no exit in between.
    ``mode`` "negative" ("positive") keeps only the exits below (above) beta."""
    order = np.arange(n_trees) if order is None else np.asarray(order)
    checked = np.arange(1, n_trees + 1) % freq == 0
    lower = np.where(checked & (mode != "positive"), beta - margin / 2, -np.inf)
    upper = np.where(checked & (mode != "negative"), beta + margin / 2, np.inf)
    lower[-1] = upper[-1] = beta
    return Schedule(order, lower, upper)


def optimise(rows: Rows, alpha: float, settings: Settings) -> tuple[Schedule, Rows]:
    """The schedule and the rows its thresholds were set on (half of them when honest)."""
    n_trees = rows.scores.shape[0]
    rng = np.random.default_rng(settings.seed)
    order = _fixed_order(settings, n_trees, rng)
    if settings.rule == "margin":           # order "qwyc" (None): the training order
        return margin_schedule(n_trees, rows.beta, settings.margin, order,
                               settings.margin_freq, settings.mode), rows
    every = settings.exit_every
    threshold_rows = rows
    if settings.honest:
        shuffled = rng.permutation(rows.n)
        half_a, threshold_rows = (rows.subset(shuffled[: rows.n // 2]),
                                  rows.subset(shuffled[rows.n // 2:]))
        if order is None:
            order = place(half_a.problem(alpha, settings.mode, settings.cost),
                          exit_every=every).order
    problem = threshold_rows.problem(alpha, settings.mode, settings.cost)
    if settings.rule == "rate":
        if order is None:
            order = place(problem, exit_every=every).order
        return rate_schedule(problem, order, every), threshold_rows
    return place(problem, order, exit_every=every), threshold_rows


def _mean_cost(cost_to: np.ndarray, position: np.ndarray) -> float:
    """The mean over rows of the cost to each row's exit position (``cost_to``: the
    cumulative cost of the order), as a share of the total: a sum of shares, which
    cannot overflow where a sum of costs near the largest float would."""
    total = cost_to[-1]
    return float(np.mean(cost_to[position] / total) * total)


def report(schedule: Schedule, rows: Rows, alpha: float, settings: Settings,
           training_rows: bool) -> OptimisationReport:
    out = rows.run(schedule)
    n_trees = schedule.order.size
    position = out.n_trees - 1
    cost_to = np.cumsum(settings.cost[schedule.order])
    rule = settings.order if isinstance(settings.order, str) else "explicit"
    if settings.rule == "margin" and rule == "qwyc":
        rule = "gbt"                # the margin rule has no Algorithm 1: the training order
    return OptimisationReport(
        n_rows=rows.n, alpha=alpha, budget=disagreement_budget(alpha, rows.n),
        disagreement=out.disagreement(rows.full_decision), mean_trees=float(out.n_trees.mean()),
        mean_cost=_mean_cost(cost_to, position),
        exits_negative=np.bincount(position[out.exit == EXIT_NEGATIVE], minlength=n_trees),
        exits_positive=np.bincount(position[out.exit == EXIT_POSITIVE], minlength=n_trees),
        order_rule=rule, honest=settings.honest, training_rows=training_rows,
        exit_every=settings.margin_freq if settings.rule == "margin" else settings.exit_every,
        margin=settings.margin if settings.rule == "margin" else None,
        spending="rate" if settings.rule == "rate" else "greedy",
        loo_disagreement=None if settings.rule == "margin" or rows.n == 0 else
        rows.loo_disagreement(schedule))
