"""The CEGB paper's Figure 3b on the gatekeeper simulation: best-first
against breadth-first growth, the same number of leaves and trees.

What the paper compares (Peter et al. 2017, section 5.1, last paragraph):
"we compare breadth-first to best-first training in Figure 3b. We use the
same number of leaves and trees and try to build a classifier that is as
cheap as possible. Best-first training always reaches a higher accuracy
for a given prediction cost budget." Its data are Yahoo! LTR (AP@5 against
the mean prediction cost per row), which the project does not have; the
stand-in is the gatekeeper simulation of ``cegb_peers.py``.

Both growth orders use the same penalised gain (pygbm's CEGB) and the same
budget of ``interaction_depth`` splits (with no missing values, that many
plus one leaves: LightGBM's ``num_leaves``). Best-first is pygbm's (R's)
grower; breadth-first splits the shallowest terminal nodes first (the best
penalised gain first within a level), skipping a node whose best penalised
gain is not positive, as the authors' level-wise learner grows level by
level. Both are run through the same boosting loop of the engine (the
best-first fits are checked to be ``gbm()``'s, bit for bit). Each (order,
lambda) gives a curve of (mean feature cost per test row, test log loss)
over the iterations, every ``STEP`` trees, as the paper's figures trace
them. The check: every breadth-first point is matched by a best-first point
of no more cost and no more loss (1% allowed on each).

Run from the repository root (a few minutes; no peer library needed):

    PYTHONPATH=. python benchmarks/cegb_growth.py [--leaves 16 32] [--trees 100]
        [--grid fine|jump] [--lightgbm] [--splits r|newton]

``--lightgbm`` also runs the issue's reading (deep against shallow, as many leaves
as the two ``--depths`` give) with LightGBM's ``cegb_*`` on the same data, costs and
grid (LightGBM grows leaf-wise only, so it has no breadth-first counterpart); LightGBM
is needed for that part only.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cegb_peers import (BETA, COSTS, MIN_OBS, NAMES, SHRINKAGE, WITHIN,  # noqa: E402
                        gatekeeper, lgb_curve, logloss, undominated)
from pygbm import gbm  # noqa: E402
from pygbm.distributions import FitContext, Targets, get_distribution  # noqa: E402
from pygbm.engine.boost import BoostProblem, BoostState, run_boosting  # noqa: E402
from pygbm.engine.cegb import Columns, CostSpec, CostTracker, path_masks  # noqa: E402
from pygbm.engine.grow import TreeGrower  # noqa: E402
from pygbm.engine.schemes import PlainBoosting, TreeInputs  # noqa: E402
from pygbm.engine.tree import ColumnView, terminal_nodes  # noqa: E402

#: the same lambda grid for both orders: 1-2-5 steps from no effect to
#: "reads the cheapest predictor only"
GRID = [0.0, 1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3, 2e-3, 5e-3, 1e-2, 2e-2, 5e-2]
#: ``--grid fine``: ten steps per decade (the R10 series) over the same range,
#: so that each order's front is resolved between the 1-2-5 grid's jumps in cost
R10 = [1.0, 1.25, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0, 6.3, 8.0]
FINE_GRID = [0.0] + [round(m * 10.0 ** e, 12) for e in range(-5, -1) for m in R10
                     if m * 10.0 ** e <= GRID[-1]]
#: ``--grid jump``: the fine grid and steps of 1e-5 from 1e-3 to 1.25e-3, where the deep
#: trees' cost jumps from about 60 to about 9 on the fine grid
JUMP_GRID = sorted(set(FINE_GRID) | {round(1e-3 + k * 1e-5, 12) for k in range(26)})
GRIDS = {"coarse": GRID, "fine": FINE_GRID, "jump": JUMP_GRID}
#: the curves' points: every STEP iterations
STEP = 5


class LevelGrower(TreeGrower):
    """Breadth-first growth: the shallowest terminal node with a positive
    penalised gain is split first (within a level, the largest first)."""

    @staticmethod
    def pick(scores, levels):
        ok = [t for t, s in enumerate(scores) if s > 0.0]
        if not ok:
            return None
        top = min(levels[t] for t in ok)
        return max((t for t in ok if levels[t] == top), key=lambda t: scores[t])


class _LevelStage:
    """One breadth-first tree per call, on the fit's training data."""

    def __init__(self, data, depth, adjustment):
        self.data, self.depth, self.adjustment = data, depth, adjustment

    def grow(self, z, w, inbag, unit_weights):
        searcher = self.data.searcher(z, w, unit_weights, MIN_OBS, self.adjustment)
        return LevelGrower(self.data, searcher, self.depth).grow(z, w, inbag, unit_weights)


class _LevelScheme(PlainBoosting):
    """R's boosting with the breadth-first grower."""

    def __init__(self, data, stage):
        super().__init__(data)
        self.stage = stage

    def tree_inputs(self, iteration, f_tr):
        return TreeInputs(self.data, f_tr, None, self.stage)


def engine_fit(train, lam, depth, n_trees, order, dist_spec="bernoulli"):
    """(init_f, trees, c_splits) of a bernoulli CEGB fit grown in ``order``
    ("best" or "breadth") by the engine's boosting loop; ``dist_spec`` the
    distribution (with ``splits="newton"``: the trees on Newton's gain)."""
    x = train[NAMES].to_numpy(float)
    y = train["y"].to_numpy(float)
    n, p = x.shape
    dist = get_distribution(dist_spec)
    targets = Targets(y, None, np.ones(n))
    spec = CostSpec(BETA.copy(), np.zeros(p), 0.0, float(lam))
    tracker = CostTracker(spec, n, None) if lam > 0 else None
    problem = BoostProblem(x=x, targets=targets, n_train=n, var_type=np.zeros(p, dtype=int),
                           var_monotone=np.zeros(p, dtype=int), distribution=dist,
                           context=FitContext(), interaction_depth=depth,
                           n_minobsinnode=MIN_OBS, shrinkage=SHRINKAGE, bag_fraction=1.0,
                           gain_adjustment=tracker, engine="numpy")
    init_f = float(dist.init_f(targets, problem.context))
    state = BoostState(init_f, np.full(n, init_f), rows=tracker)
    data = problem.training_data()
    scheme = PlainBoosting(data) if order == "best" else \
        _LevelScheme(data, _LevelStage(data, depth, tracker))
    run_boosting(problem, state, n_trees, np.random.default_rng(1), scheme=scheme)
    return init_f, state.trees, state.c_splits


def trace(init_f, trees, c_splits, test, counts):
    """(link values, mean feature cost per row) of ``test`` at each count."""
    x = test[NAMES].to_numpy(float)
    view = ColumnView(x, np.zeros(x.shape[1], dtype=int))
    f = np.full(x.shape[0], init_f)
    read = np.zeros(x.shape, dtype=bool)
    out, done = {}, 0
    for count in sorted(counts):
        for tree in trees[done:count]:
            f = f + tree.predict_view(view, c_splits)
            if tree.n_nodes > 1:
                mask, _ = path_masks(tree.n_nodes, Columns(x.shape[1]), tree.children,
                                     lambda i, t=tree: t.split_var[i])
                read |= mask[terminal_nodes(tree, view, c_splits)]
        done = count
        out[count] = (f.copy(), float((read @ BETA).mean()))
    return out


def curve(train, test, lam, depth, n_trees, order, dist_spec="bernoulli"):
    y = test["y"].to_numpy()
    counts = list(range(STEP, n_trees + 1, STEP))
    fit = engine_fit(train, lam, depth, n_trees, order, dist_spec)
    return [dict(order=order, leaves=depth + 1, lam=lam, trees=c,
                 loss=logloss(y, 1 / (1 + np.exp(-f))), cost=cost)
            for c, (f, cost) in trace(*fit, test, counts).items()], fit


def check_against_gbm(train, test, lam, depth, n_trees, fit, dist_spec="bernoulli"):
    """The engine loop's best-first fit is gbm()'s (the same trees)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = gbm("y ~ .", train, distribution=dist_spec, n_trees=n_trees,
                  interaction_depth=depth, shrinkage=SHRINKAGE, bag_fraction=1.0,
                  n_minobsinnode=MIN_OBS, random_state=1, feature_costs=COSTS,
                  cegb_tradeoff=lam, engine="numpy")
    init_f, trees, c_splits = fit
    f = trace(init_f, trees, c_splits, test, [n_trees])[n_trees][0]
    return float(np.abs(f - ref.predict(test, n_trees=n_trees)).max())


def report(rows, key, a, b, label):
    """Print how many of ``b``'s points ``a``'s front matches, and the worst
    of the others (the best ``a`` point at no more cost)."""
    left = undominated(a, b)
    print(f"\n{label}: matches {len(b) - len(left)} of {len(b)} points (no more cost and no "
          f"more loss, {WITHIN:.0%} allowed): {'met' if not left else 'MISSED'}")
    shown = []
    for s in left:
        cheaper = [r for r in a if r["cost"] <= s["cost"] * (1 + WITHIN)]
        near = min(cheaper, key=lambda r: r["loss"]) if cheaper else None
        excess = near["loss"] / s["loss"] - 1 if near else np.inf
        shown.append((excess, s, near))
    shown.sort(key=lambda e: -e[0])
    for excess, s, near in shown[:10]:
        print(f"   {key} lambda {s['lam']:g}, {s['trees']} trees: loss {s['loss']:.4f} at cost "
              f"{s['cost']:.2f}; best at no more cost: "
              + (f"loss {near['loss']:.4f} (+{excess:.1%}) at {near['cost']:.2f} "
                 f"(lambda {near['lam']:g}, {near['trees']} trees)" if near else "none"))
    if len(shown) > 10:
        print(f"   ... and {len(shown) - 10} more (excess {shown[-1][0]:.1%} to "
              f"{shown[10][0]:.1%})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--leaves", type=int, nargs="+", default=[16, 32],
                    help="the paper's comparison: best- against breadth-first at these leaves")
    ap.add_argument("--depths", type=int, nargs=2, default=[15, 3],
                    help="the issue's reading: best-first, deep against shallow")
    ap.add_argument("--grid", choices=tuple(GRIDS), default="coarse",
                    help="the lambda grid: 1-2-5 steps (coarse), ten per decade (fine), "
                         "fine and 1e-5 steps through the deep trees' jump in cost (jump)")
    ap.add_argument("--lightgbm", action="store_true",
                    help="also the deep-against-shallow reading with LightGBM's cegb_*")
    ap.add_argument("--csv", default=None, help="write every point here")
    ap.add_argument("--splits", choices=("r", "newton"), default="r",
                    help="the trees on R's first-order gain or on Newton's (both orders)")
    args = ap.parse_args()
    train, test = gatekeeper(args.n, 1), gatekeeper(args.n, 2)
    rows = []
    t0 = time.time()
    runs = [(leaves - 1, order) for leaves in args.leaves for order in ("best", "breadth")]
    runs += [(d, "best") for d in args.depths if (d, "best") not in runs]
    grid = GRIDS[args.grid]
    dist_spec = "bernoulli" if args.splits == "r" else {"name": "bernoulli", "splits": "newton"}
    for depth, order in runs:
        for lam in grid:
            got, fit = curve(train, test, lam, depth, args.trees, order, dist_spec)
            rows += got
            if order == "best" and lam == grid[len(grid) // 2]:
                gap = check_against_gbm(train, test, lam, depth, args.trees, fit, dist_spec)
                print(f"interaction_depth {depth}, lambda {lam:g}: engine loop against "
                      f"gbm(): max |f difference| {gap:.3g}", flush=True)
        print(f"{order}-first, interaction_depth {depth}: {time.time() - t0:.0f} s", flush=True)
    table = pd.DataFrame(rows)
    if args.csv:
        table.to_csv(args.csv, index=False)
    pd.set_option("display.width", 200)
    at = table[table["trees"].isin([25, 50, args.trees])]
    print(at.pivot_table(index=["leaves", "lam"], columns=["order", "trees"],
                         values=["cost", "loss"]).to_string(float_format=lambda v: f"{v:.4g}"))

    def sel(leaves, order):
        return [r for r in rows if r["leaves"] == leaves and r["order"] == order]

    for leaves in args.leaves:
        report(rows, "breadth-first", sel(leaves, "best"), sel(leaves, "breadth"),
               f"Fig. 3b as the paper, {leaves} leaves, {args.trees} trees: best-first")
    deep, shallow = args.depths
    report(rows, f"interaction_depth {shallow}", sel(deep + 1, "best"),
           sel(shallow + 1, "best"),
           f"Issue 22's reading, interaction_depth {deep} against {shallow}: deep")
    if args.lightgbm:
        counts = list(range(STEP, args.trees + 1, STEP))
        peer = {leaves: [r for lam in grid
                         for r in lgb_curve(train, test, lam, leaves, counts)]
                for leaves in (deep + 1, shallow + 1)}
        report(rows, f"LightGBM {shallow + 1} leaves", peer[deep + 1], peer[shallow + 1],
               f"The same reading with LightGBM, {deep + 1} against {shallow + 1} leaves: "
               f"{deep + 1} leaves")


if __name__ == "__main__":
    main()
