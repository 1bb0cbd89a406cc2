"""Cost-efficient gradient boosting (CEGB) in the front end: the cost
arguments of gbm()/gbm_fit(), the prediction cost of rows, and the cost
report of a fit.

The engine side (penalties, feature-use marks) is :mod:`pygbm.engine.cegb`.
A row's **prediction cost** under the first ``n`` trees is what the paper
(Peter et al. 2017) plots on every x-axis: the acquisition cost β_m of every
distinct predictor on the row's paths (``feature_cost``), α per split
evaluated on them (``split_cost``), and the once-per-model cost γ_m of every
predictor those trees use (``model_cost``, the same for every row).
"""
from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ._checks import finite_number, terms_reading, unmasked
from .engine.cegb import Columns, CostSpec, CostTracker, path_masks
from .engine.tree import ColumnView, terminal_nodes
from .messages import warn

#: the columns of predict_cost's table
COST_COLUMNS = ("feature_cost", "split_cost", "model_cost", "total")


# ---------------------------------------------------------------- arguments
#: rows a fit can have at most (float64 counts exactly): a cost times the
#: trade-off times this many rows must stay finite
_MAX_ROWS = 2.0 ** 53


def _cost_value(name, what, value):
    if not finite_number(value) or value < 0:
        raise ValueError(f"{name}: {what} must be a finite number >= 0, got {value!r}")
    return float(value) + 0.0                     # -0.0 is 0.0


def _by_name(name, value):
    """The costs of ``value`` by predictor name (a dict, any mapping, or a
    pandas Series indexed by name), or None for costs by position (a list,
    an array, a Series with the default integer index)."""
    if isinstance(value, Mapping):
        return value
    pd = sys.modules.get("pandas")       # a Series exists only once pandas is imported
    if pd is not None and isinstance(value, pd.Series) \
            and not value.index.equals(pd.RangeIndex(len(value))):     # not 0, 1, ...
        repeated = value.index[value.index.duplicated()].unique().tolist()
        if repeated:
            raise ValueError(f"{name}: the Series names {', '.join(map(repr, repeated))} "
                             f"more than once; give one cost per predictor")
        return dict(value.items())
    return None


def _named_by_string(key, var_names) -> str:
    """A hint when ``key`` is not a string but its text is a predictor's name (a
    table's integer column 0 is the predictor '0')."""
    if isinstance(key, str) or str(key) not in var_names:
        return ""
    return f" (predictors are named by strings: key the cost by {str(key)!r})"


def _used_in(key, var_names) -> str:
    """A hint when ``key`` is a column that predictors transform: costs are keyed
    by the predictors' names."""
    using = terms_reading(key, var_names)
    if not using:
        return ""
    return (f" ({key!r} enters the model through {', '.join(map(repr, using))}: key the cost "
            f"by the predictor's name)")


def _in_offset(key, offsets) -> str:
    """A hint when ``key`` is a column read inside the formula's ``offset()`` terms
    (``offsets``: their labels): no tree reads it, so it has no cost."""
    using = terms_reading(key, offsets)
    if not using:
        return ""
    return (f" ({key!r} enters the model only through the offset {', '.join(map(repr, using))}, "
            f"which no tree reads: it costs nothing to predict)")


def _cost_vector(name, value, var_names, response_name, offsets=()) -> np.ndarray:
    """A cost per predictor from costs by name (unlisted: 0) or a vector."""
    p = len(var_names)
    out = np.zeros(p)
    if value is None:
        return out
    named = _by_name(name, value)
    if named is not None:
        index = {v: i for i, v in enumerate(var_names)}
        for key, cost in named.items():
            if key not in index:
                if response_name is not None and key == response_name:
                    raise ValueError(f"{name}: {key!r} is the response, not a predictor")
                raise ValueError(f"{name}: {key!r} is not a predictor; the predictors are "
                                 f"{', '.join(map(str, var_names))}{_used_in(key, var_names)}"
                                 f"{_in_offset(key, offsets)}"
                                 f"{_named_by_string(key, var_names)}")
            out[index[key]] = _cost_value(name, f"the cost of {key!r}", cost)
        return out
    arr = np.asarray(unmasked(value), dtype=object)
    if arr.ndim != 1 or arr.shape[0] != p:
        raise ValueError(f"{name} must be a dict (or Series) by predictor name or a vector "
                         f"of {p} costs (one per predictor), got "
                         + (f"shape {arr.shape}" if arr.ndim else repr(value)))
    for i, cost in enumerate(arr):
        out[i] = _cost_value(name, f"the cost of {var_names[i]!r}", cost)
    return out


def _check_scale(tradeoff: float, name: str, costs: np.ndarray) -> None:
    """The penalties (trade-off x cost x rows) must stay finite."""
    top = float(np.max(costs, initial=0.0))
    if not np.isfinite(tradeoff * top * _MAX_ROWS):
        raise ValueError(f"cegb_tradeoff x {name} is too large: {tradeoff!r} x {top!r} "
                         f"overflows the penalties (keep the product below "
                         f"{np.finfo(float).max / _MAX_ROWS:.3g})")


def cost_spec(feature_costs, feature_costs_model, cost_split, cegb_tradeoff, var_names,
              response_name=None, offsets=()) -> CostSpec | None:
    """The checked costs of a fit; None when no cost is given (R's fit).
    ``offsets``: the labels of the formula's ``offset()`` terms, for the errors."""
    split = _cost_value("cost_split", "the cost of a split", cost_split)
    tradeoff = _cost_value("cegb_tradeoff", "the trade-off", cegb_tradeoff)
    if feature_costs is None and feature_costs_model is None and split == 0.0:
        return None
    names = [str(v) for v in var_names]
    spec = CostSpec(
        feature=_cost_vector("feature_costs", feature_costs, names, response_name, offsets),
        model=_cost_vector("feature_costs_model", feature_costs_model, names, response_name,
                           offsets),
        split=split, tradeoff=tradeoff)
    for name, costs in (("feature_costs", spec.feature), ("feature_costs_model", spec.model),
                        ("cost_split", np.array([split]))):
        _check_scale(tradeoff, name, costs)
    return spec


def penalised(spec: CostSpec | None) -> bool:
    """Whether the costs change the fit (some cost > 0 and λ > 0)."""
    return spec is not None and spec.tradeoff > 0 and (
        spec.split > 0 or bool(np.any(spec.feature > 0)) or bool(np.any(spec.model > 0)))


def engine_columns(p: int, ts_encoder=None) -> Columns:
    """What each column of a fit's engine matrix reads: the ``p`` predictors,
    then the feature combinations of ordered target statistics (each reads
    its members; ``ts_encoder``: the fit's, or None)."""
    registry = None if ts_encoder is None else ts_encoder.combinations
    if registry is None:
        return Columns(p)
    return Columns(p, [members for _, members in registry.registered()])


def cost_tracker(spec: CostSpec | None, columns: Columns, n_train: int,
                 weights: np.ndarray) -> CostTracker | None:
    """The engine's tracker of a fit (None when the costs change nothing:
    R's code path). ``columns``: what each engine column reads
    (:func:`engine_columns`); ``weights``: the training rows' normalised
    weights."""
    if not penalised(spec):
        return None
    unit = bool(np.all(weights == 1.0))
    return CostTracker(spec, n_train, None if unit else np.asarray(weights, dtype=float),
                       columns)


def warn_no_split(fit) -> None:
    """Warn when the costs let no tree split (the engine's tracker saw no
    predictor used): with costs a split is made only where its gain exceeds its
    penalty, λ times costs counted in rows (docs/cegb.md), so a λ too large for
    the data leaves the constant model, and nothing else would say why."""
    tracker = fit.cost_tracker
    if tracker is None or tracker.used_model.any():
        return
    warn(f"no tree made a split: with feature costs a split is made only where its gain "
         f"exceeds cegb_tradeoff ({fit.costs.tradeoff:g}) times its cost, counted per row "
         f"reaching the node, so the model predicts one value for every row; a smaller "
         f"cegb_tradeoff lets the trees grow")


# ---------------------------------------------------------------- prediction cost
class _Reads:
    """What rows have read along their paths in the trees added so far
    (``columns``: what each engine column reads)."""

    def __init__(self, n: int, columns: Columns):
        self.columns = columns
        self.read = np.zeros((n, columns.p), dtype=bool)
        self.evaluated = np.zeros(n, dtype=np.int64)
        self.used = np.zeros(columns.p, dtype=bool)

    def add(self, tree, view: ColumnView, c_splits) -> None:
        if tree.n_nodes == 1:
            return
        mask, depth = path_masks(tree.n_nodes, self.columns, tree.children,
                                 lambda i: tree.split_var[i])
        node = terminal_nodes(tree, view, c_splits)
        self.read |= mask[node]
        self.evaluated += depth[node]
        self.used |= mask.any(axis=0)           # every predictor some split reads

    def table(self, spec: CostSpec):
        import pandas as pd        # imported on first use: import pygbm stays fast
        feature = self.read @ spec.feature
        split = spec.split * self.evaluated
        model = np.full(feature.shape[0], float(spec.model @ self.used))
        return pd.DataFrame(dict(zip(COST_COLUMNS, (feature, split, model,
                                                    feature + split + model))))


def _spec_of(fit) -> CostSpec:
    spec = fit.costs
    if spec is None:
        raise ValueError("the model was fitted without costs (feature_costs, "
                         "feature_costs_model or cost_split)")
    return spec


def _walk(fit, x, counts, spec):
    """{count: _Reads snapshot table} of the coded rows ``x`` (:meth:`GBMFit._design`'s)
    for the first ``count`` iterations, routed as ``predict`` routes them, and the
    reads after the largest count."""
    x = fit.to_engine(x)
    view = ColumnView(x, fit.engine_var_type)
    reads = _Reads(x.shape[0], engine_columns(spec.p, fit.ts_encoder))
    out, done, k = {}, 0, fit.num_classes
    for count in sorted(set(int(c) for c in counts)):
        for tree in fit.trees[done * k: count * k]:
            reads.add(tree, view, fit.c_splits)
        done = count
        out[count] = reads.table(spec)
    return out, reads


def predict_cost(fit, newdata=None, n_trees=None):
    """Per row, the cost of predicting it with the first ``n_trees``
    iterations (None: all): a DataFrame with ``feature_cost``, ``split_cost``,
    ``model_cost`` and ``total``; a list of counts gives a dict of them keyed
    by the counts asked for (one pass over the trees; a count above the trees
    fitted gets the table of all of them, with ``predict``'s warning)."""
    counts = fit._check_n_trees(fit.n_trees if n_trees is None else n_trees)
    single = n_trees is None or np.ndim(n_trees) == 0     # checked: not a ragged list
    out = cost_tables(fit, fit._design(newdata), counts)
    from .frontend import row_labels   # on first use: import pygbm stays fast
    rows = row_labels(newdata)          # as predict keeps them
    if rows is not None:
        for table in out.values():
            table.index = rows
    if single:
        return out[int(counts[0])]
    asked = np.asarray(n_trees).ravel()
    return {int(a): out[int(c)] for a, c in zip(asked, counts)}


def cost_tables(fit, x, counts) -> dict:
    """{count: cost table} of the coded rows ``x`` (:meth:`GBMFit._design`'s)
    under the first ``count`` iterations of each checked count (the tables of
    :func:`predict_cost`, without row labels)."""
    return _walk(fit, x, counts, _spec_of(fit))[0]


# ---------------------------------------------------------------- the report
@dataclass(frozen=True)
class CostReport:
    """The mean prediction cost per training row of a fit under its first
    ``n_trees`` iterations and each predictor's share of it (percent;
    ``split_share``: the splits')."""

    feature: float
    split: float
    model: float
    share: np.ndarray
    split_share: float

    @property
    def total(self) -> float:
        return self.feature + self.split + self.model


def _tracked(fit, count: int) -> bool:
    """Whether the engine's marks are the training rows' prediction cost under
    ``count`` iterations: all the trees, and no target statistics (their trees
    route the training rows by the training-time statistics, not by
    ``predict``'s)."""
    return fit.cost_tracker is not None and count == fit.n_trees and fit.ts_encoder is None


def _counts(fit, read: np.ndarray, evaluated: np.ndarray):
    """``(rows that read each predictor, splits evaluated, rows)`` of the training
    rows' reads: sums over the rows, where with zero subsampling a kept zero
    stands for 1/l training rows, so that the kept rows estimate the sums over the
    training rows before subsampling (zeros and non-zeros take different paths). A
    zero-subsampled fit keeps its rows in the data's order (the distributions that
    reorder rows refuse it). Summed, not multiplied by a weight per row: the
    (n, p) reads are not copied as floats."""
    reads, evals, n = read.sum(axis=0), float(evaluated.sum()), max(read.shape[0], 1)
    sample = fit.zero_sample
    if sample is not None:
        more = 1.0 / sample.rate - 1.0            # each kept zero counted 1/l times
        zero = sample.kept_zero
        reads = reads + more * read[zero].sum(axis=0)
        evals += more * float(evaluated[zero].sum())
        n += more * int(zero.sum())
    return reads, evals, n


def cost_report(fit, n_trees=None) -> CostReport | None:
    """The training rows' mean prediction cost under the first ``n_trees``
    iterations (None: all): the cost ``predict_cost`` gives them. None without
    costs, or when the training rows are needed and were not kept
    (:func:`report_missing`).

    The engine's marks (``fit.cost_tracker``: every training row read along
    its path in every tree) are that cost for all the trees. With target
    statistics they are not: the engine marks the training rows along the
    paths of their training-time statistics (``ordered_ts``: each row's from
    the rows before it in the iteration's permutation), which are not the
    paths ``predict`` gives them with the statistics of all training rows
    (docs/cegb.md), so the kept training rows are routed as ``predict``
    routes them, as for fewer trees. With zero subsampling a kept zero
    counts 1/l (:func:`_counts`).
    """
    spec = fit.costs
    if spec is None:
        return None
    count = int(fit.n_trees if n_trees is None else n_trees)
    if _tracked(fit, count):
        tracker = fit.cost_tracker
        read, evaluated, used = tracker.read_all(), tracker.evaluated, tracker.used_model
    elif fit.data is not None:
        _, reads = _walk(fit, fit.data.x[fit.training_index], [count], spec)
        read, evaluated, used = reads.read, reads.evaluated, reads.used
    else:
        return None
    reads, evals, n = _counts(fit, read, evaluated)
    per_var = reads * spec.feature / n + spec.model * used
    split = spec.split * evals / n
    total = float(per_var.sum()) + split
    scale = 100.0 / total if total > 0 else 0.0
    return CostReport(feature=float(reads @ spec.feature) / n, split=split,
                      model=float(spec.model @ used), share=per_var * scale,
                      split_share=split * scale)


def report_missing(fit, n_trees=None) -> str | None:
    """Why a fit with costs has no :func:`cost_report` under its first
    ``n_trees`` iterations (None: all); None when it has one, or no costs."""
    count = int(fit.n_trees if n_trees is None else n_trees)
    if fit.costs is None or _tracked(fit, count) or fit.data is not None:
        return None
    return (f"the training rows' prediction cost under {count} trees needs the training "
            f"data, which were not kept (keep_data=False)")


#: predictors named in print(fit)'s cost line
PRINTED_SHARES = 5


def cost_lines(fit) -> list:
    """print(fit)'s lines on the prediction cost (none without costs)."""
    report = cost_report(fit)
    if report is None:
        missing = report_missing(fit)
        return [] if missing is None else [
            f"Mean prediction cost per training row: not computed ({missing})."]
    order = np.argsort(-report.share, kind="stable")[:PRINTED_SHARES]
    shares = ", ".join(f"{fit.var_names[i]} {report.share[i]:.1f}%" for i in order
                       if report.share[i] > 0)
    return [f"Mean prediction cost per training row: {report.total:.4g} (features "
            f"{report.feature:.4g}, splits {report.split:.4g}, model {report.model:.4g}).",
            f"Share of the cost: {shares or 'none'}" + (
                f", splits {report.split_share:.1f}%" if report.split_share > 0 else "") + "."]
