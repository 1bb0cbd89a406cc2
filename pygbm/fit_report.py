"""What ``print(fit)`` and a notebook's display say about a fit, gathered once.

:func:`fit_report` collects the facts into a :class:`FitReport`, which renders
itself as R's ``print.gbm`` text (:meth:`FitReport.as_text`, what ``repr(fit)``
is) and as HTML tables in the display's style (:meth:`FitReport.as_html`, what
``fit._repr_html_()`` is): the call, the distribution, the trees, the best
iteration by each method the fit supports (cv, validation set, out-of-bag),
how many predictors had non-zero influence, the seed features' lines (zero
subsampling, prediction cost) and, in the HTML, how the trees were grown where
it is not R's way, a note when the cv or validation error was still falling at
the last tree (not in R's print: a new user's first fit often stops too early)
and the five most influential predictors.

The two renderings count influential predictors at different numbers of trees,
each as its reader expects: the text at R's print.gbm's (the best test
iteration, else the best cv one, else all trees: ``r_trees``), the HTML at
those ``predict`` uses by default (``default_trees``, with its table).

The toolbox (``gbm_perf``, the relative influence, ``summary``'s table; pandas)
is imported when a fit is first printed or displayed: ``import pygbm`` stays fast.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from html import escape

import numpy as np

from .costs import cost_lines
from .display import row_html, styled, table_block

#: predictors listed in the display's influence table
TOP_INFLUENCE = 5
#: class labels the text names before "..."
SHOWN_CLASSES = 10
#: gbm_perf's method names and how the display labels them (R's print.gbm words)
METHOD_LABELS = {"cv": "cross-validation", "test": "test set", "OOB": "out-of-bag"}
#: the methods R's print.gbm reports, in its order, and its words for them
_TEXT_LABELS = {"cv": "cross-validation", "test": "test-set"}
#: why a best iteration is undefined, but for the OOB smoother's
ALL_NAN = "its errors are all NaN"


@dataclass(frozen=True)
class FitReport:
    """The facts ``print(fit)`` and the notebook display show (see the module)."""

    call: str | None
    distribution: str               # the distribution's display name
    n_trees: int
    num_classes: int                # outputs (trees per iteration)
    classes: tuple[str, ...]        # a multi-class fit's class labels (else empty)
    #: gbm_perf's best number of trees by each method the fit supports ("cv", "test",
    #: "OOB"); None where it is undefined (every error NaN, no finite OOB improvement)
    best: dict[str, int | None]
    #: why each best iteration that is None is undefined (:func:`why_undefined`)
    undefined: dict[str, str]
    #: the last tree cross-validated / fitted was the best (cv, validation set)
    cv_still_falling: bool
    test_still_falling: bool
    n_features: int
    r_trees: int                    # the trees R's print counts influence at
    r_influential: int              # predictors of relative influence > 0 there
    default_trees: int              # the trees predict uses by default
    #: (name, relative influence in %) by decreasing influence at default_trees
    influence: tuple[tuple[str, float], ...]
    grown_by: tuple[tuple[str, str], ...]   # how the trees were grown, not R's way
    zero_sample: str | None         # the zero-subsampling line
    cost_lines: tuple[str, ...]     # "Mean prediction cost ...: ...", ...

    @property
    def influential(self) -> int:
        """Predictors with non-zero influence at ``default_trees``."""
        return sum(value > 0 for _, value in self.influence)

    def as_text(self) -> str:
        """R's print.gbm."""
        lines = [self.call] if self.call else []
        lines.append(f"A gradient boosted model with {self.distribution} loss function.")
        lines.append(f"{self.n_trees} iterations were performed.")
        if self.classes:
            shown = ", ".join(self.classes[:SHOWN_CLASSES])
            more = ", ..." if self.num_classes > SHOWN_CLASSES else ""
            k = self.num_classes
            lines.append(f"{k} classes ({k} trees per iteration): {shown}{more}")
        for method, label in _TEXT_LABELS.items():
            if method not in self.best:
                continue
            n = self.best[method]
            # R prints an empty iteration where the errors are all NaN
            lines.append(f"The best {label} iteration was {n}." if n is not None else
                         f"The best {label} iteration was undefined "
                         f"({self.undefined[method]}).")
        lines.append(f"There were {self.n_features} predictors of which "
                     f"{self.r_influential} had non-zero influence.")
        if self.zero_sample is not None:
            lines.append(self.zero_sample)
        lines.extend(self.cost_lines)
        return "\n".join(lines)

    def as_html(self) -> str:
        """The display's tables: the fit, and its top influences."""
        rows = []
        if self.call:
            rows.append(row_html("Call", self.call, css="call"))
        rows.append(row_html("Distribution", self.distribution))
        trees = str(self.n_trees)
        if self.num_classes > 1:
            trees += f" iterations x {self.num_classes} classes"
        rows.append(row_html("Trees", trees))
        rows.extend(row_html(key, value) for key, value in self.grown_by)
        if self.zero_sample is not None:
            rows.append(row_html("Zero subsampling", self.zero_sample))
        for line in self.cost_lines:
            key, value = line.split(": ", 1)
            rows.append(row_html(key, value))
        for method, n in self.best.items():      # as the text says it, undefined too
            rows.append(row_html(f"Best iteration ({METHOD_LABELS[method]})",
                                 str(n) if n is not None else
                                 f"undefined ({self.undefined[method]})"))
        if self.cv_still_falling:
            # gbm_more keeps the cv of the trees it continues: only a new fit extends it
            rows.append(row_html("Note", "the cross-validation error was still falling at "
                                         "the last tree cross-validated: refit with a larger "
                                         "n_trees (or shrinkage) may fit better; gbm_more "
                                         "does not extend the cv"))
        if self.test_still_falling:
            rows.append(row_html("Note", "the validation error was still falling at the "
                                         "last tree: more trees (pygbm.gbm_more) or a larger "
                                         "shrinkage may fit better"))
        nonzero = self.influential
        rows.append(row_html("Predictors", f"{len(self.influence)}, of which {nonzero} had "
                                           "non-zero influence"))
        if nonzero == 0:            # a table of zeros in column order would say nothing
            first = ("the first tree does not split" if self.default_trees == 1 else
                     f"none of the first {self.default_trees} trees splits")
            rows.append(row_html("Note", f"{first}: the model predicts one value for every "
                                         "row (each tree's single leaf moves it from the "
                                         "initial value)"))
            return styled(table_block("GBMFit", "".join(rows)))
        top = "".join(f"<tr><td>{escape(name)}</td><td class=\"num\">{value:.2f}</td></tr>"
                      for name, value in self.influence[:TOP_INFLUENCE])
        return styled(
            table_block("GBMFit", "".join(rows)),
            table_block(f"Relative influence (%), top {TOP_INFLUENCE}, at "
                            f"{self.default_trees} trees",
                            f"<tr><th>variable</th><th>rel_inf</th></tr>{top}"))


def best_iterations(fit) -> dict[str, int | None]:
    """The best number of trees by each method the fit supports (``gbm_perf``:
    "cv" when cv was run, "test" with a validation set, "OOB" with bagging);
    None where the method's errors leave it undefined."""
    from .inspect.perf import gbm_perf     # the toolbox, on the first print

    supported = {"cv": fit.cv_error is not None, "test": fit.train_fraction < 1,
                 "OOB": fit.bag_fraction < 1}
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the OOB caveat: not for a print
        for method in (m for m, ok in supported.items() if ok):
            try:
                out[method] = int(gbm_perf(fit, method=method, plot_it=False))
            except ValueError:                   # e.g. all NaN, no finite OOB improvement
                out[method] = None
    return out


def why_undefined(fit, method: str) -> str:
    """Why ``gbm_perf``'s ``method`` leaves the fit's best iteration undefined: its
    errors are all NaN, or (OOB) no finite out-of-bag improvement, or fewer than the
    smoother's loess fits (a fit of 1 or 2 trees is not one of NaN errors)."""
    from .inspect.perf import OOB_MIN_POINTS     # the toolbox, on the first print

    if method != "OOB":
        return ALL_NAN
    finite = int(np.isfinite(fit.oobag_improve).sum())
    if finite == 0:
        return "no finite out-of-bag improvement"
    return (f"the out-of-bag smoother needs {OOB_MIN_POINTS} trees with a finite "
            f"improvement; the fit has {finite}")


def grown_by(options) -> tuple[tuple[str, str], ...]:
    """How the trees were grown where it is not R's way: (label, description) pairs."""
    out = []
    if options.ordered is not None:
        spec = options.ordered
        out.append(("Boosting", f"ordered (CatBoost), {spec.n_permutations} permutations"
                                + (", full history" if spec.full_history else "")))
    if options.categorical != "native":
        mode = options.categorical if isinstance(options.categorical, str) else "per predictor"
        out.append(("Categorical predictors", f"target statistics ({mode})"))
    if options.max_bins is not None:
        out.append(("Split search", f"binned, at most {options.max_bins} bins per predictor"))
    return tuple(out)


def fit_report(fit) -> FitReport:
    """The facts of ``fit`` that its print and its display show."""
    from .inspect.influence import relative_influence      # the toolbox (pandas), on
    from .inspect.summary import ranked_influence         # the first print of a fit

    best = best_iterations(fit)
    try:
        default_trees, _ = fit.best_iteration(quiet=True)   # what predict uses by default
    except ValueError:                                     # its rule's errors are all NaN
        default_trees = fit.n_trees
    influence = relative_influence(fit, n_trees=default_trees).to_numpy()
    # R's print.gbm: the best test iteration, else the best cv one, else all trees
    # (predict's default too, but where the best test iteration is undefined)
    r_trees = next((best[m] for m in ("test", "cv") if best.get(m) is not None),
                   fit.n_trees)
    r_influence = influence if r_trees == default_trees else \
        relative_influence(fit, n_trees=max(r_trees, 1)).to_numpy()
    r_influential = int((r_influence > 0).sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # summary()'s table without its cost table (not shown here)
        idx, rel_inf = ranked_influence(influence, default_trees, order=True, normalize=True)
    classes = () if fit.num_classes < 2 or fit.classes is None else \
        tuple(str(c) for c in fit.classes)
    return FitReport(
        call=fit.call, distribution=fit.distribution.display_name, n_trees=fit.n_trees,
        num_classes=int(fit.num_classes), classes=classes, best=best,
        undefined={m: why_undefined(fit, m) for m, n in best.items() if n is None},
        cv_still_falling=fit.cv_error is not None and best.get("cv") == len(fit.cv_error),
        test_still_falling=best.get("test") == fit.n_trees,
        n_features=fit.n_features, r_trees=r_trees, r_influential=r_influential,
        default_trees=default_trees,
        influence=tuple((str(fit.var_names[i]), float(v)) for i, v in zip(idx, rel_inf)),
        grown_by=grown_by(fit.options),
        zero_sample=None if fit.zero_sample is None else fit.zero_sample.describe(),
        cost_lines=tuple(cost_lines(fit)))
