"""Cost-efficient boosting with ordered target statistics: the engine's marks (each
training row read along its training-time path) against the prediction cost of the
same rows (``predict_cost``, the rows routed by the statistics of all training rows),
the numbers of docs/cegb.md ("Target statistics: the engine's marks and the
prediction cost").

Run from the repository root:

    PYTHONPATH=. python benchmarks/cegb_ts_marks.py [--out benchmarks/results/cegb_ts_marks.txt]

Data: ``data/ticdata.csv``, 3,000 rows sampled with ``random_state=2``, a cost of 1, 5
or 20 per predictor drawn at random (seed 0); bernoulli, 30 trees,
``interaction_depth=4``, ``cegb_tradeoff=1e-3``. Per fit: the marks' mean cost per
training row, ``predict_cost``'s, the split nodes that training rows cross on their
training-time paths and none on ``predict``'s, the predictors read only on the
training-time paths (and their cost per row), the distinct predictors read per row.
"""
from __future__ import annotations

import argparse
import warnings

import numpy as np
import pandas as pd

import pygbm
from pygbm.costs import _Reads, engine_columns
from pygbm.engine.tree import ColumnView, split_directions, walk

#: rows sampled from ticdata, and the sample's seed
ROWS, SAMPLE_SEED = 3000, 2
#: the costs drawn per predictor, and their seed
COST_VALUES, COST_SEED = (1.0, 5.0, 20.0), 0
#: the fits' settings
FIT = dict(distribution="bernoulli", n_trees=30, interaction_depth=4, random_state=1,
           cegb_tradeoff=1e-3, categorical="ordered_ts")
#: the variants: (label, extra arguments, trees added by gbm_more)
VARIANTS = [("30 trees", dict(ts_max_combination=2), 0),
            ("gbm_more(fit, 10)", dict(ts_max_combination=2), 10),
            ("gbm_more(fit, 20)", dict(ts_max_combination=2), 20),
            ("30 trees, ts_max_combination=1", dict(ts_max_combination=1), 0),
            ("30 trees, ts_permutations=1", dict(ts_max_combination=2, ts_permutations=1), 0)]


def training_views(fit):
    """Per tree, the training rows as the engine grew it (the ordered statistics of
    its iteration's permutation, combination slots too)."""
    d = fit.data
    _, schedule = fit.ts_encoder.engine_inputs(d.x, d.response.y, d.response.w,
                                               fit.var_monotone, fit.max_bins)
    width = len(fit.engine_var_type)
    views = {}
    out = []
    for i in range(fit.n_trees):
        r = schedule.view_of(i)
        if r not in views:
            xt = schedule.data(r).xt
            views[r] = ColumnView(np.column_stack([xt[j] for j in range(width)]),
                                  fit.engine_var_type)
        out.append(views[r])
    return out


def node_rows(fit, tree, view):
    """Rows reaching every node of ``tree`` (split nodes included)."""
    counts = np.zeros(tree.n_nodes, dtype=int)

    def directions(k, at):
        counts[k] += at.size
        v = int(tree.split_var[k])
        return split_directions(tree, k, view.cols[v].take(at), view.var_type[v] > 0,
                                fit.c_splits)

    for node, at in walk(np.arange(view.n_rows), tree.children, directions):
        counts[node] += at.size
    return counts


def measure(fit) -> dict:
    n = fit.n_train
    beta = fit.costs.feature
    grown = training_views(fit)
    final = ColumnView(fit.to_engine(fit.data.x[:n]), fit.engine_var_type)
    marks, walked = fit.cost_tracker.read_all(), _Reads(n, engine_columns(len(beta),
                                                                          fit.ts_encoder))
    crossed = splits = 0
    for tree, view in zip(fit.trees, grown):
        walked.add(tree, final, fit.c_splits)
        split = np.asarray(tree.split_var) >= 0
        on_grown, on_final = node_rows(fit, tree, view), node_rows(fit, tree, final)
        splits += int(split.sum())
        crossed += int((split & (on_grown > 0) & (on_final == 0)).sum())
    read = walked.read
    never = ~read.any(axis=0) & marks.any(axis=0)
    return {"marks": float((marks @ beta).mean()),
            # the kept rows are the training rows (train_fraction=1)
            "predict_cost": float(fit.predict_cost()["total"].mean()),
            "crossed only while growing": f"{crossed} of {splits}",
            "predictors read only while growing": int(never.sum()),
            "their cost per row": float((marks[:, never] @ beta[never]).mean()),
            "distinct read (marks)": float(marks.sum(axis=1).mean()),
            "distinct read (predict)": float(read.sum(axis=1).mean())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="also write the table here")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    tic = pd.read_csv("data/ticdata.csv").sample(ROWS, random_state=SAMPLE_SEED)
    tic = tic.reset_index(drop=True)
    rng = np.random.default_rng(COST_SEED)
    costs = {c: float(rng.choice(COST_VALUES)) for c in tic.columns if c != "CARAVAN"}
    rows = {}
    for label, extra, more in VARIANTS:
        # a fit of its own each (gbm_more continues the fit's generator)
        fit = pygbm.gbm("CARAVAN ~ .", tic, feature_costs=costs, **FIT, **extra)
        if more:
            fit = pygbm.gbm_more(fit, more)
        rows[label] = measure(fit)
        print(label, rows[label], flush=True)
    table = pd.DataFrame(rows).T
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        text = table.to_string(float_format=lambda v: f"{v:.2f}")
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
