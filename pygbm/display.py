"""A fit in a notebook: R's ``print.gbm`` as a small HTML table.

:func:`fit_html` is what :meth:`pygbm.GBMFit._repr_html_` shows: the call,
the distribution, the trees, the best iteration by each method the fit
supports (cv, validation set, out-of-bag), a note when the cv or validation
error was still falling at the last tree (not in R's print: a new user's
first fit often stops too early), and the five most influential predictors
at the number of trees ``predict`` uses by default; the seed features' lines of
``print(fit)`` (zero subsampling, prediction cost) and how the trees were grown
(ordered boosting, target statistics, the binned search). The toolbox (gbm_perf,
summary) is imported when a fit is first displayed.
"""
from __future__ import annotations

import warnings
from html import escape

from .costs import cost_lines

#: predictors listed in the display's influence table
TOP_INFLUENCE = 5
#: gbm_perf's method names and how the display labels them (R's print.gbm words)
METHOD_LABELS = {"cv": "cross-validation", "test": "test set", "OOB": "out-of-bag"}

#: the tables' style; selectors specific enough to win over JupyterLab's
#: (``:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td``: right-aligned cells
#: in equal-width columns)
_T = "div.pygbm-fit table.pygbm-table"
_STYLE = ("<style>"
          f"{_T} {{table-layout: auto; margin: 0 0 0.8em 0; border-collapse: collapse;}}"
          f"{_T} caption {{text-align: left; font-weight: bold; white-space: nowrap;}}"
          f"{_T} th, {_T} td {{text-align: left; padding: 1px 8px; vertical-align: top;}}"
          f"{_T} th {{white-space: nowrap;}}"
          f"{_T} td.num {{text-align: right;}}"
          f"{_T} td.call {{max-width: 50em; font-family: monospace;}}"
          "</style>")


def best_iterations(fit) -> dict[str, int]:
    """The best number of trees by each method the fit supports (``gbm_perf``:
    "cv" when cv was run, "test" with a validation set, "OOB" with bagging)."""
    from .inspect.perf import gbm_perf

    supported = {"cv": fit.cv_error is not None, "test": fit.train_fraction < 1,
                 "OOB": fit.bag_fraction < 1}
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the OOB caveat: not for a display
        for method in (m for m, ok in supported.items() if ok):
            try:
                out[method] = int(gbm_perf(fit, method=method, plot_it=False))
            except ValueError:                   # e.g. no finite OOB improvement
                continue
    return out


def grown_by(options) -> list[tuple[str, str]]:
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
    return out


def table_html(caption: str, rows: list[tuple[str, str]], note: str | None = None) -> str:
    """A caption and (label, value) rows as the fit's display draws them: the
    notebook display of the seed features' reports (QWYC's summary, a calibrated model)."""
    body = "".join(_row(key, value) for key, value in rows)
    if note:
        body += _row("Note", note)
    return _display(_table(escape(caption), body))


def _display(*tables: str) -> str:
    """Tables in the display's styled block."""
    return f"{_STYLE}<div class=\"pygbm-fit\">{''.join(tables)}</div>"


def _table(caption: str, body: str) -> str:
    """One table: its caption (HTML) and its rows (HTML)."""
    return f"<table class=\"pygbm-table\"><caption>{caption}</caption>{body}</table>"


def _row(key: str, value: str, css: str | None = None) -> str:
    cls = f' class="{css}"' if css else ""
    return f"<tr><th>{escape(key)}</th><td{cls}>{escape(value)}</td></tr>"


def fit_html(fit) -> str:
    """R's print of ``fit`` as an HTML table, with the influence top five."""
    from .inspect.summary import influence_table

    rows = []
    if fit.call:
        rows.append(_row("Call", fit.call, css="call"))
    rows.append(_row("Distribution", fit.distribution.display_name))
    trees = str(fit.n_trees)
    if fit.num_classes > 1:
        trees += f" iterations x {fit.num_classes} classes"
    rows.append(_row("Trees", trees))
    rows.extend(_row(key, value) for key, value in grown_by(fit.options))
    if fit.zero_sample is not None:
        rows.append(_row("Zero subsampling", fit.zero_sample.describe()))
    for line in cost_lines(fit):           # "Mean prediction cost ...: ...", "Share ...: ..."
        key, value = line.split(": ", 1)
        rows.append(_row(key, value))
    best = best_iterations(fit)
    for method, n in best.items():
        rows.append(_row(f"Best iteration ({METHOD_LABELS[method]})", str(n)))
    if fit.cv_error is not None and best.get("cv") == len(fit.cv_error):
        # gbm_more keeps the cv of the trees it continues: only a new fit extends it
        rows.append(_row("Note", "the cross-validation error was still falling at the "
                                 "last tree cross-validated: refit with a larger n_trees (or "
                                 "shrinkage) may fit better; gbm_more does not extend the cv"))
    if best.get("test") == fit.n_trees:
        rows.append(_row("Note", "the validation error was still falling at the last tree: "
                                 "more trees (pygbm.gbm_more) or a larger shrinkage may fit "
                                 "better"))
    try:
        n_used, _ = fit.best_iteration(quiet=True)     # what predict uses by default
    except ValueError:                                 # its rule's errors are all NaN
        n_used = fit.n_trees
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # summary()'s table without its cost table (not shown here)
        idx, rel_inf = influence_table(fit, n_used, "relative_influence", order=True,
                                       normalize=True, random_state=None)
    nonzero = int((rel_inf > 0).sum())
    rows.append(_row("Predictors", f"{len(idx)}, of which {nonzero} had non-zero influence"))
    if nonzero == 0:            # a table of zeros in column order would say nothing
        rows.append(_row("Note", f"none of the first {n_used} trees splits: the model is the "
                                 "constant initial value"))
        return _display(_table("GBMFit", "".join(rows)))
    influence = "".join(
        f"<tr><td>{escape(str(fit.var_names[i]))}</td><td class=\"num\">{value:.2f}</td></tr>"
        for i, value in zip(idx[:TOP_INFLUENCE], rel_inf[:TOP_INFLUENCE]))
    return _display(_table("GBMFit", "".join(rows)),
                    _table(f"Relative influence (%), top {TOP_INFLUENCE}, at {n_used} trees",
                           f"<tr><th>variable</th><th>rel_inf</th></tr>{influence}"))
