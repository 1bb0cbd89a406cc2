"""Cost-efficient boosting (issue 22) on real data the CEGB work was not built on,
the way the independent checks run it: pygbm against LightGBM's ``cegb_*``, each
judged against its own unpenalised fit (``cegb_peers.py``'s protocol and functions).

Run from the repository root (LightGBM is needed here only, never by pygbm):

    PYTHONPATH=. python benchmarks/cegb_real.py [--data pima spam] [--depth 31]

Data and costs:
  pima  the Pima diabetes data (``data/pima2.csv``, rows without missing values) with
        Turney's test costs (UCI "pima-indians-diabetes.cost": glucose 17.61,
        insulin 22.78, every other test 1)
  spam  ``data/spam.csv`` with a cost of 1, 10 or 100 per predictor drawn at random
        (seed 0): no structure the costs follow
Each: a random 70 / 30 split (seed 0), bernoulli, shrinkage 0.05, no bagging,
n_minobsinnode 10, one lambda grid for both libraries (1e-6 to 3e-2), 25 / 50 / 100
trees; printed: test log loss and mean feature cost per test row, and the relative
cost (over the unpenalised model's) at which each library is within 1% of its own
unpenalised loss.
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
GRID = [0.0, 1e-6, 3e-6, 1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2]
TREES = [25, 50, 100]
TRAIN_SHARE = 0.7


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", nargs="+", default=["pima", "spam"])
    ap.add_argument("--depth", type=int, default=31)
    args = ap.parse_args()
    for name in args.data:
        d, costs = load(name)
        keep = np.random.default_rng(0).random(len(d)) < TRAIN_SHARE
        train, test = d[keep].reset_index(drop=True), d[~keep].reset_index(drop=True)
        rows = []
        for lam in GRID:
            rows += peers.pygbm_curve(train, test, lam, args.depth, TREES, costs=costs)
            rows += peers.lgb_curve(train, test, lam, args.depth + 1, TREES, costs=costs)
        table = pd.DataFrame(rows)
        print(f"## {name}: {len(train)} training rows, {len(test)} test rows, "
              f"{len(costs)} predictors, sum of costs {sum(costs.values()):.1f}\n")
        print(table[table.trees == max(TREES)].to_string(index=False), "\n")
        for trees in TREES:
            rel = {lib: peers.relative_cost([r for r in rows if r["lib"] == lib], trees)[0]
                   for lib in ("pygbm", "lightgbm")}
            print(f"{name}, {trees} trees: relative cost within 1% of the unpenalised loss: "
                  f"pygbm {rel['pygbm']:.3f}, LightGBM {rel['lightgbm']:.3f}, "
                  f"ratio {rel['pygbm'] / rel['lightgbm']:.2f} (target <= 1.5)")
        print()


if __name__ == "__main__":
    main()
