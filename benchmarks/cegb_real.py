"""Cost-efficient boosting (issue 22) on real data the CEGB work was not built on,
the way the independent checks run it: pygbm against LightGBM's ``cegb_*``, each
judged against its own unpenalised fit (``cegb_peers.py``'s protocol and functions).

Run from the repository root (LightGBM is needed here only, never by pygbm):

    PYTHONPATH=. python benchmarks/cegb_real.py [--data pima spam] [--depth 31]
        [--seeds 0 1 2] [--splits r|newton] [--out benchmarks/results/cegb_real.csv]
    PYTHONPATH=. python benchmarks/cegb_real.py --report benchmarks/results/cegb_real.csv

Data and costs:
  pima  the Pima diabetes data (``data/pima2.csv``, rows without missing values) with
        Turney's test costs (UCI "pima-indians-diabetes.cost": glucose 17.61,
        insulin 22.78, every other test 1)
  spam  ``data/spam.csv`` with a cost of 1, 10 or 100 per predictor drawn at random
        (seed 0): no structure the costs follow
Each: random 70 / 30 splits (``--seeds``), bernoulli, shrinkage 0.05, no bagging,
n_minobsinnode 10, one lambda grid for both libraries (1-2-5 steps from 1e-8 to
3e-2), 25 / 50 / 100 trees; pygbm's trees grown on R's first-order split criterion
(``--splits r``, the default) or on the Newton response (``--splits newton``:
``distribution={"name": "bernoulli", "splits": "newton"}``, the second-order gain
LightGBM's and the paper's CEGB penalise); printed per split: the relative cost (over the
unpenalised model's) at which each library is within 1% of its own unpenalised test
log loss; every fit's loss and mean feature cost per test row go to ``--out``.
``--report`` prints, from such a file, the gate per split and the fronts: each
library's least excess loss over its own unpenalised fit at a relative cost of at most
20, 30, 50 and 70%, averaged over the splits.
"""
from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cegb_peers as peers  # noqa: E402

#: Turney's test costs for the Pima data (UCI repository's cost file)
PIMA_COSTS = {"pregnant": 1.0, "glucose": 17.61, "pressure": 1.0, "triceps": 1.0,
              "insulin": 22.78, "mass": 1.0, "pedigree": 1.0, "age": 1.0}
RANDOM_COSTS = (1.0, 10.0, 100.0)
#: 1-2-5 steps from 1e-8 (where neither library's penalty changes its fit much: pygbm's
#: first-order gains are smaller than LightGBM's Newton gains for bernoulli, so its
#: curve starts lower in lambda) to 3e-2 (almost nothing read)
GRID = [0.0] + [round(m * 10.0 ** e, 12) for e in range(-8, -2) for m in (1, 2, 5)] + [1e-2,
                                                                                        3e-2]
TREES = [25, 50, 100]
TRAIN_SHARE = 0.7
#: relative costs at which report() reads the fronts
FRONT_COSTS = (0.2, 0.3, 0.5, 0.7)
LIBS = ("pygbm", "lightgbm")


def load(name: str):
    """(data with a 0/1 column y, costs by predictor)."""
    rng = np.random.default_rng(0)
    if name == "pima":
        d = pd.read_csv("data/pima2.csv").dropna().reset_index(drop=True)
        d["y"] = d.pop("diabetes").astype(float)
        return d, dict(PIMA_COSTS)
    d = pd.read_csv("data/spam.csv")
    d["y"] = d.pop("type").astype(float)
    predictors = [c for c in d.columns if c != "y"]
    return d, dict(zip(predictors, rng.choice(RANDOM_COSTS, len(predictors))))


def gate_line(rows, name, seed, trees) -> str:
    """The issue's check on one split: relative cost within 1%, pygbm over LightGBM."""
    rel = {lib: peers.relative_cost([r for r in rows if r["lib"] == lib], trees)[0]
           for lib in LIBS}
    return (f"{name}, split {seed}, {trees} trees: relative cost within 1% of the "
            f"unpenalised loss: pygbm {rel['pygbm']:.3f}, LightGBM {rel['lightgbm']:.3f}, "
            f"ratio {rel['pygbm'] / rel['lightgbm']:.2f} (target <= 1.5)")


def report(table: pd.DataFrame) -> None:
    """The gate per split and trees, then the fronts averaged over the splits."""
    for (name, seed), split in table.groupby(["data", "seed"], sort=False):
        rows = split.to_dict("records")
        for trees in TREES:
            print(gate_line(rows, name, seed, trees))
    print("\nleast excess test loss over the library's own unpenalised fit at a relative "
          f"cost of at most {', '.join(f'{c:.0%}' for c in FRONT_COSTS)} (mean over splits; "
          "nan: a split has no fit that cheap)\n")
    print("| data | trees | " + " | ".join(LIBS) + " |\n|---|---|---|---|")
    for (name, trees), group in table.groupby(["data", "trees"], sort=False):
        cells = []
        for lib in LIBS:
            per_split = []
            for _, fits in group[group.lib == lib].groupby("seed"):
                base = fits[fits.lam == 0].iloc[0]
                cost, excess = fits.cost / base.cost, fits.loss / base.loss - 1
                per_split.append([excess[cost <= c].min() for c in FRONT_COSTS])
            cells.append(" / ".join(f"{100 * v:+.1f}%" for v in np.mean(per_split, axis=0)))
        print(f"| {name} | {trees} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", nargs="+", default=["pima", "spam"])
    ap.add_argument("--depth", type=int, default=31)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--splits", choices=("r", "newton"), default="r",
                    help="pygbm's split criterion: R's first-order one, or Newton's")
    ap.add_argument("--out", default=None)
    ap.add_argument("--report", default=None, help="a CSV of --out: print the summary")
    args = ap.parse_args()
    if args.report:
        report(pd.read_csv(args.report))
        return
    dist = "bernoulli" if args.splits == "r" else {"name": "bernoulli", "splits": "newton"}
    rows = []
    for name in args.data:
        d, costs = load(name)
        print(f"## {name}: {len(d)} rows, {len(costs)} predictors, "
              f"sum of costs {sum(costs.values()):.1f}", flush=True)
        for seed in args.seeds:
            keep = np.random.default_rng(seed).random(len(d)) < TRAIN_SHARE
            train, test = d[keep].reset_index(drop=True), d[~keep].reset_index(drop=True)
            split = []
            for lam in GRID:
                split += peers.pygbm_curve(train, test, lam, args.depth, TREES, dist=dist,
                                           costs=costs)
                split += peers.lgb_curve(train, test, lam, args.depth + 1, TREES, costs=costs)
            for r in split:
                r.update(data=name, seed=seed)
            rows += split
            for trees in TREES:
                print(gate_line(split, name, seed, trees), flush=True)
        if args.out:
            pd.DataFrame(rows).to_csv(args.out, index=False)
    if rows:
        report(pd.DataFrame(rows))


if __name__ == "__main__":
    main()
