"""The early-exit predictor QWYC returns, and its summary.

It holds the trees (through :class:`ModelScores`), the evaluation order and
the thresholds, never the optimisation rows: what the summary reports of
them is kept as numbers (:class:`OptimisationReport`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import choice_arg
from ..display import table_html
from ..engine.tree import ColumnView
from .evaluate import run_schedule
from .outcome import EXIT_FULL, EXIT_NAMES, EXIT_POSITIVE, Outcome
from .forest import compiled_kernels, flat_scores
from .model_scores import ModelScores
from .ordering import Schedule

PREDICT_TYPES = ("class", "link", "response")
#: below this many active rows the NumPy path scores the rows on a block of the
#: trees still to come at once (the flat forest): the seam's cost is per node
SEAM_MIN_ROWS = 2048
#: (rows x trees) pairs of one flat-forest block
BLOCK_PAIRS = 1 << 16


class ActiveScores:
    """Tree scores for :func:`run_schedule` without numba, bit for bit the
    predictor seam's: through the seam while many rows are active, then blocks
    of the trees still to come at once from the flat forest (the seam's cost is
    per node of a tree, whatever the number of rows)."""

    def __init__(self, model: ModelScores, view: ColumnView, order: np.ndarray):
        self.model, self.view, self.order = model, view, order
        self.position = np.empty(order.size, dtype=np.intp)
        self.position[order] = np.arange(order.size)
        self.block = None          # (rows, first position, scores rows x block's trees)

    def __call__(self, t: int, rows: np.ndarray) -> np.ndarray:
        start = self.position[t]
        if rows.size >= SEAM_MIN_ROWS:
            return self.model.predictor.tree_score(t, self.view, rows)
        found = self._in_block(start, rows)
        if found is None:
            stop = min(self.order.size, start + max(1, BLOCK_PAIRS // rows.size))
            self.block = (rows, start, flat_scores(self.model.forest, self.view, rows,
                                                   self.order[start:stop]))
            found = np.arange(rows.size)
        return self.block[2][found, start - self.block[1]]

    def _in_block(self, start, rows):
        """Where ``rows`` are in the current block if it holds position ``start``."""
        if self.block is None:
            return None
        block_rows, first, scores = self.block
        if not first <= start < first + scores.shape[1]:
            return None
        at = np.minimum(np.searchsorted(block_rows, rows), block_rows.size - 1)
        return at if np.array_equal(block_rows[at], rows) else None


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
    order_rule: str               # "qwyc", "gbt", "random", "explicit"
    honest: bool
    training_rows: bool           # the rows were the fit's training rows
    exit_every: int = 1           # rows may exit after every exit_every-th tree only
    margin: float | None = None   # the margin rule's margin (None: Algorithm 2's thresholds)
    spending: str = "greedy"      # Algorithm 2's budget: "greedy" (the paper) or "rate"
    loo_disagreement: float | None = None   # the leave-one-out count / n_rows (not margin)
    validation_rows: int = 0
    validation_disagreement: float | None = None
    validation_mean_trees: float | None = None


class EarlyExitPredictor:
    """A binary gbm evaluated tree by tree in an optimised order, each row
    stopping as soon as its partial score passes a threshold (QWYC).

    Made by :func:`pygbm.qwyc`, not by hand. It holds the trees, the order
    and the thresholds, not the rows it was optimised on. Not in R.

    Parameters
    ----------
    model : ModelScores
        The fit's first ``n_trees`` trees, scored through the predictor.
    schedule : Schedule
        The evaluation order and the exit thresholds per position.
    decision : tuple of float
        ``(threshold, beta)``: the decision on the response scale and its
        value on the link scale.
    cost : numpy.ndarray
        The cost of each tree, in training order.
    report : OptimisationReport
        What the optimisation measured on its rows.

    Attributes
    ----------
    order_ : numpy.ndarray
        The trees in evaluation order (0-based training indices).
    lower_, upper_ : numpy.ndarray
        The exit thresholds per position, on the link scale: a row whose
        partial score is below ``lower_[r]`` (above ``upper_[r]``) after
        ``r + 1`` trees is decided negative (positive); -inf (inf) where
        no row may exit; the last position is ``beta``.
    threshold, beta : float
        The decision (positive iff response >= ``threshold``; link ``beta``).
    n_trees : int
        The trees of the full ensemble.
    alpha : float
        The largest share of the optimisation rows allowed to disagree.
    cost_ : numpy.ndarray
        Each tree's cost (training order).
    fit_disagreement_, fit_mean_trees_ : float
        The disagreement with the full model and the mean number of trees
        on the optimisation rows.
    report_ : OptimisationReport
        All the optimisation's numbers (:meth:`summary` shows them).

    Examples
    --------
    >>> pima = pd.read_csv("data/pima2.csv")
    >>> train, held_out = pima.iloc[:500], pima.iloc[500:]
    >>> bfit = pygbm.gbm("diabetes ~ .", data=train, distribution="bernoulli",
    ...                  n_trees=100, interaction_depth=2, random_state=1)
    >>> early = pygbm.qwyc(bfit, held_out, n_trees=100, alpha=0.02, random_state=1)
    >>> early.n_trees, early.fit_mean_trees_ < 100
    (100, True)
    >>> early.predict(held_out).columns.tolist()
    ['decision', 'n_trees', 'score', 'exit']
    """

    def __init__(self, model: ModelScores, schedule: Schedule, decision: tuple[float, float],
                 cost: np.ndarray, report: OptimisationReport):
        self._model = model
        self._schedule = schedule
        self.threshold, self.beta = decision
        self.cost_ = cost
        self.report_ = report

    # ------------------------------------------------------------ attributes
    order_ = property(lambda self: self._schedule.order,
                      doc="The trees in evaluation order (0-based training indices).")
    lower_ = property(lambda self: self._schedule.lower,
                      doc="Negative-exit threshold per position (link scale; -inf: none).")
    upper_ = property(lambda self: self._schedule.upper,
                      doc="Positive-exit threshold per position (link scale; inf: none).")
    n_trees = property(lambda self: self._model.n_trees,
                       doc="The number of trees of the full ensemble.")
    alpha = property(lambda self: self.report_.alpha,
                     doc="The largest share of the optimisation rows allowed to disagree.")
    fit_disagreement_ = property(lambda self: self.report_.disagreement,
                                 doc="Disagreement with the full model on the "
                                     "optimisation rows.")
    fit_mean_trees_ = property(lambda self: self.report_.mean_trees,
                               doc="Mean number of trees evaluated on the optimisation rows.")

    # --------------------------------------------------------------- predict
    def outcome(self, newdata, offset=None) -> Outcome:
        """The early-exit evaluation of ``newdata`` as arrays (what :meth:`predict` tabulates).

        Parameters
        ----------
        newdata : pandas.DataFrame or numpy.ndarray
            The rows (a matrix for ``gbm_fit`` models).
        offset : array-like of float, optional
            An offset per row (matrix models, required for a model fitted
            with an ``offset`` argument; a formula's offset is found in
            ``newdata``).

        Returns
        -------
        Outcome
            Arrays per row: ``decision`` (bool), ``n_trees`` (trees
            evaluated), ``score`` (link score at exit) and ``exit`` (codes
            0 "neg", 1 "pos", 2 "full").
        """
        if newdata is None:
            raise ValueError("newdata is required: the early-exit predictor holds the trees, "
                             "not the rows it was optimised on")
        view, g0 = self._model.coded(self._model.model, newdata, offset)
        kernels = compiled_kernels()
        if kernels is None:
            scores = ActiveScores(self._model, view, self._schedule.order)
            return run_schedule(self._schedule, g0, scores, self.beta)
        sched = self._schedule
        g, used, kind = kernels.run_rows(self._model.forest,
                                         (sched.order, sched.lower, sched.upper),
                                         np.ascontiguousarray(view.cols.T), g0, self.beta)
        decision = np.where(kind == EXIT_FULL, g >= self.beta, kind == EXIT_POSITIVE)
        return Outcome(decision, used, g, kind)

    def predict(self, newdata, type: str = "class", offset=None):  # noqa: A002 (R's name)
        """Early-exit predictions of ``newdata`` (a DataFrame; a matrix for gbm_fit models).

        Returns a DataFrame, one row per row of ``newdata``: ``decision`` (1 if
        positive), ``n_trees`` (trees evaluated), ``score`` (at exit: the partial
        score, the full score for rows that ran every tree; on the link scale for
        ``type`` "class" and "link", the response scale for "response") and
        ``exit`` ("neg", "pos" or "full"), with the index of ``newdata`` when it is
        a DataFrame. The formula's offset is added (as during the optimisation).

        Parameters
        ----------
        newdata : pandas.DataFrame or numpy.ndarray
            The rows to predict (a matrix for ``gbm_fit`` models).
        type : {"class", "link", "response"}, default "class"
            The scale of ``score``.
        offset : array-like of float, optional
            An offset per row (matrix models, required for a model fitted
            with an ``offset`` argument; a formula's offset is found in
            ``newdata``).

        Returns
        -------
        pandas.DataFrame
            Columns ``decision``, ``n_trees``, ``score``, ``exit``; the
            index of ``newdata`` (a DataFrame), else 0 to n - 1.
        """
        import pandas as pd

        from ..frontend import row_labels
        choice_arg("type", type, PREDICT_TYPES)
        out = self.outcome(newdata, offset)
        score = out.score
        if type == "response":
            score = self._model.model.distribution.inverse_link(score)
        # a DataFrame's rows keep their index: the result aligns with newdata (a join or
        # an assign on a held-out slice was all NaN with a fresh 0..n-1 index)
        return pd.DataFrame({"decision": out.decision.astype(int), "n_trees": out.n_trees,
                             "score": score, "exit": EXIT_NAMES[out.exit]},
                            index=row_labels(newdata))

    # --------------------------------------------------------------- summary
    def summary(self) -> "QWYCSummary":
        """The optimisation's numbers: mean trees, disagreement, speed-up, thresholds.

        Returns
        -------
        QWYCSummary
            Prints as a report (on the optimisation rows, and on the
            ``validation`` rows when given); ``to_frame()`` has one row per
            position: tree, cost, thresholds, rows exiting there.
        """
        return QWYCSummary(self)

    def __repr__(self) -> str:
        r = self.report_
        rule = f"alpha={r.alpha:g}" if r.margin is None else f"margin={r.margin:g}"
        if r.spending == "rate":
            rule += " spent by rate"
        return (f"EarlyExitPredictor({r.order_rule} order, {self.n_trees} trees, "
                f"{rule}: {r.mean_trees:.1f} trees per row, "
                f"{100 * r.disagreement:.2f}% disagreement on {r.n_rows} rows)")


#: exit positions the summary names before "..."
SHOWN_POSITIONS = 3
#: decimals of the decision's link the summary shows: beta is the least link whose
#: response reaches the threshold, a few ulps from the link of it (-3.3e-16 for
#: bernoulli at 0.5), which the summary shows as that link (0)
SHOWN_LINK_DECIMALS = 10


def _exit_positions(every: int, n_trees: int) -> str:
    """The positions before the last at which rows may exit, every ``every``-th of
    ``n_trees`` (the first few, then "...")."""
    positions = range(every, n_trees, every)
    shown = ", ".join(map(str, positions[:SHOWN_POSITIONS]))
    more = ", ..." if len(positions) > SHOWN_POSITIONS else ""
    return f"tree{'s' if len(positions) > 1 else ''} {shown}{more}"


class QWYCSummary:
    """The optimisation's numbers; prints as a report, ``to_frame()`` per position."""

    def __init__(self, predictor: EarlyExitPredictor):
        self._p = predictor

    @property
    def speedup(self) -> float:
        r = self._p.report_
        return float(self._p.cost_.sum() / r.mean_cost) if r.mean_cost > 0 else np.inf

    def to_frame(self):
        """Per position: tree, cost, lower and upper thresholds, rows exiting there;
        ``tree`` numbered from 1, as R and :func:`pygbm.pretty_gbm_tree` number the
        trees (``order_`` holds 0-based indices: ``tree`` is ``order_ + 1``)."""
        import pandas as pd
        p, r = self._p, self._p.report_
        return pd.DataFrame({"position": np.arange(1, p.n_trees + 1), "tree": p.order_ + 1,
                             "cost": p.cost_[p.order_], "lower": p.lower_, "upper": p.upper_,
                             "exit_neg": r.exits_negative, "exit_pos": r.exits_positive})

    def _report(self) -> tuple[str, list[tuple[str, str]], str]:
        """The report: a title, (label, value) rows, a closing note."""
        p, r = self._p, self._p.report_
        rows = "the fit's training rows" if r.training_rows else "the given rows"
        shown_link = round(p.beta, SHOWN_LINK_DECIMALS) + 0.0     # + 0.0: no "-0"
        decision = f"{p.n_trees} trees, decision at {p.threshold:g} (link {shown_link:.4g})"
        if r.margin is None:
            title = (f"QWYC early exit ({r.order_rule} order"
                     f"{', honest' if r.honest else ''}), {decision}")
            spent = ", spent by rate" if r.spending == "rate" else ""
            plural = "" if r.budget == 1 else "s"
            rule = ("alpha", f"{r.alpha:g} (at most {r.budget} disagreement{plural}{spent})")
            note = ("alpha holds on the optimisation rows only; expect more on new rows, "
                    "often several times alpha: the leave-one-out estimate (too low where "
                    "the order was chosen on the same rows), validation= or qwyc_tradeoff "
                    "say how much.")
        else:
            title = (f"Early exit by the margin rule (LightGBM's pred_early_stop, "
                     f"{r.order_rule} order), {decision}")
            rule = ("margin", f"{r.margin:g} (stop once 2|score - beta| > margin)")
            note = ("the margin rule bounds no disagreement; measure it with validation= "
                    "or qwyc_tradeoff.")
        items = [("optimised on" if r.margin is None else "measured on",
                  f"{r.n_rows} rows ({rows})"), rule,
                 ("mean trees evaluated", f"{r.mean_trees:.2f} of {p.n_trees} "
                                          f"(speed-up {self.speedup:.2f}x in cost)"),
                 ("disagreement with the full model", f"{100 * r.disagreement:.3f}%")]
        if r.loo_disagreement is not None:
            items.append(("leave-one-out estimate for new rows",
                          f"{100 * r.loo_disagreement:.3f}%"))
        if r.exit_every > 1:
            items.insert(1, ("exits", f"only after {_exit_positions(r.exit_every, p.n_trees)} "
                                      f"of the order and the last"))
        if r.validation_disagreement is not None:
            items.append((f"on {r.validation_rows} validation rows",
                          f"{100 * r.validation_disagreement:.3f}% disagreement, "
                          f"{r.validation_mean_trees:.2f} mean trees"))
        return title, items, note

    def __repr__(self) -> str:
        title, items, note = self._report()
        return "\n".join([title, *(f"  {key}: {value}" for key, value in items), note])

    def _repr_html_(self) -> str:
        return table_html(*self._report())
