"""The early-exit predictor QWYC returns, and its summary.

It holds the trees (through :class:`ModelScores`), the evaluation order and
the thresholds, never the optimisation rows: what the summary reports of
them is kept as numbers (:class:`OptimisationReport`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .evaluate import EXIT_NAMES, Outcome, run_schedule
from .model_scores import ModelScores
from .ordering import Schedule

PREDICT_TYPES = ("class", "link", "response")


@dataclass(frozen=True)
class OptimisationReport:
    """What the optimisation measured (on the rows the thresholds were set on)."""

    n_rows: int                   # rows the thresholds were set on
    alpha: float
    budget: int                   # floor(alpha * n_rows)
    disagreement: float           # realised, <= budget / n_rows
    mean_trees: float
    mean_cost: float
    exits_negative: np.ndarray    # rows exiting negative at each position
    exits_positive: np.ndarray
    order_rule: str               # "qwyc", "gbt", "random", "explicit", "margin"
    honest: bool
    training_rows: bool           # the rows were the fit's training rows
    validation_rows: int = 0
    validation_disagreement: float | None = None
    validation_mean_trees: float | None = None


class EarlyExitPredictor:
    """A gbm evaluated tree by tree in an optimised order, each row stopping
    as soon as its partial score passes a threshold (QWYC; see :func:`qwyc`).

    Attributes: ``order_`` (trees in evaluation order, 0-based training
    indices), ``lower_``, ``upper_`` (exit thresholds per position on the
    link scale; the last position is ``beta``), ``beta``, ``threshold``,
    ``n_trees``, ``alpha``, ``cost_``, ``fit_disagreement_``,
    ``fit_mean_trees_``, ``report_`` (:class:`OptimisationReport`).
    """

    def __init__(self, model: ModelScores, schedule: Schedule, decision: tuple[float, float],
                 cost: np.ndarray, report: OptimisationReport):
        self._model = model
        self._schedule = schedule
        self.threshold, self.beta = decision
        self.cost_ = cost
        self.report_ = report

    # ------------------------------------------------------------ attributes
    order_ = property(lambda self: self._schedule.order)
    lower_ = property(lambda self: self._schedule.lower)
    upper_ = property(lambda self: self._schedule.upper)
    n_trees = property(lambda self: self._model.n_trees)
    alpha = property(lambda self: self.report_.alpha)
    fit_disagreement_ = property(lambda self: self.report_.disagreement)
    fit_mean_trees_ = property(lambda self: self.report_.mean_trees)

    # --------------------------------------------------------------- predict
    def outcome(self, newdata, offset=None) -> Outcome:
        """Per row: decision, trees evaluated, link score at exit, exit kind (codes)."""
        view, g0 = self._model.coded(self._model.model, newdata, offset)
        predictor = self._model.predictor
        return run_schedule(self._schedule, g0,
                            lambda t, rows: predictor.tree_score(t, view, rows), self.beta)

    def predict(self, newdata, type: str = "class", offset=None):  # noqa: A002 (R's name)
        """Early-exit predictions of ``newdata`` (a DataFrame; a matrix for gbm_fit models).

        Returns a DataFrame, one row per row of ``newdata``: ``decision`` (1 if
        positive), ``n_trees`` (trees evaluated), ``score`` (at exit: the partial
        score, the full score for rows that ran every tree; on the link scale for
        ``type`` "class" and "link", the response scale for "response") and
        ``exit`` ("neg", "pos" or "full"). The formula's offset is added (as
        during the optimisation); ``offset=`` gives one for matrix models.
        """
        import pandas as pd
        if type not in PREDICT_TYPES:
            raise ValueError(f"type must be one of {', '.join(map(repr, PREDICT_TYPES))}, "
                             f"got {type!r}")
        out = self.outcome(newdata, offset)
        score = out.score
        if type == "response":
            score = self._model.model.distribution.inverse_link(score)
        return pd.DataFrame({"decision": out.decision.astype(int), "n_trees": out.n_trees,
                             "score": score, "exit": EXIT_NAMES[out.exit]})

    # --------------------------------------------------------------- summary
    def summary(self) -> "QWYCSummary":
        """On the optimisation rows: mean trees, disagreement, speed-up, thresholds."""
        return QWYCSummary(self)

    def __repr__(self) -> str:
        r = self.report_
        return (f"EarlyExitPredictor({r.order_rule} order, {self.n_trees} trees, "
                f"alpha={r.alpha:g}: {r.mean_trees:.1f} trees per row, "
                f"{100 * r.disagreement:.2f}% disagreement on {r.n_rows} rows)")


class QWYCSummary:
    """The optimisation's numbers; prints as a report, ``to_frame()`` per position."""

    def __init__(self, predictor: EarlyExitPredictor):
        self._p = predictor

    @property
    def speedup(self) -> float:
        r = self._p.report_
        return float(self._p.cost_.sum() / r.mean_cost) if r.mean_cost > 0 else np.inf

    def to_frame(self):
        """Per position: tree, cost, lower and upper thresholds, rows exiting there."""
        import pandas as pd
        p, r = self._p, self._p.report_
        return pd.DataFrame({"position": np.arange(1, p.n_trees + 1), "tree": p.order_ + 1,
                             "cost": p.cost_[p.order_], "lower": p.lower_, "upper": p.upper_,
                             "exit_neg": r.exits_negative, "exit_pos": r.exits_positive})

    def __repr__(self) -> str:
        p, r = self._p, self._p.report_
        rows = "the fit's training rows" if r.training_rows else "the given rows"
        lines = [f"QWYC early exit ({r.order_rule} order{', honest' if r.honest else ''}), "
                 f"{p.n_trees} trees, decision at {p.threshold:g} (link {p.beta:.4g})",
                 f"optimised on {r.n_rows} rows ({rows}); alpha = {r.alpha:g} "
                 f"(at most {r.budget} disagreements)",
                 f"  mean trees evaluated: {r.mean_trees:.2f} of {p.n_trees} "
                 f"(speed-up {self.speedup:.2f}x in cost)",
                 f"  disagreement with the full model: {100 * r.disagreement:.3f}%"]
        if r.validation_disagreement is not None:
            lines.append(f"  on {r.validation_rows} validation rows: "
                         f"{100 * r.validation_disagreement:.3f}% disagreement, "
                         f"{r.validation_mean_trees:.2f} mean trees")
        lines.append("alpha holds on the optimisation rows only; expect several times "
                     "alpha on new rows (check with validation= or qwyc_tradeoff).")
        return "\n".join(lines)
