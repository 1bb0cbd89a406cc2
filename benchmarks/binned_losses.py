"""Benchmark: time per tree of the binned mode by distribution, against LightGBM.
Not a test.

The binned mode's compiled loop computes every distribution's working
response, deviances and out-of-bag improvement with the C library's exp and
log (so that both engines agree bit for bit); a gaussian tree calls neither,
a bernoulli tree calls them several times per row. This measures what that
costs: friedman-like data (``--rows`` x 20, a logistic and a log-linear
response from the same signal), ``max_bins=255``, ``interaction_depth=6``
(LightGBM ``num_leaves=7``), shrinkage 0.1, bag fraction 0.5 (LightGBM
``bagging_fraction=0.5, bagging_freq=1``), 10 rows per leaf, one thread. The
time per tree is (fit of ``--trees`` + 5 trees - fit of 5) / ``--trees``, CPU,
so that binning and set-up cancel; the systems take turns round after round
and the minimum and median over ``--rounds`` are reported, with the load.

Run:  python benchmarks/binned_losses.py [--rounds 3] [--rows 100000] [--trees 100]
Writes benchmarks/results/binned_losses.md.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pygbm  # noqa: E402
from machine import machine_info  # noqa: E402

OUT = ROOT / "benchmarks" / "results"
#: predictors of the data
N_PRED = 20
#: trees of the short fit whose time is subtracted
BASE_TREES = 5
DEPTH, MAX_BINS, SHRINKAGE, BAG, MIN_ROWS = 6, 255, 0.1, 0.5, 10
#: pygbm's distribution -> LightGBM's objective
OBJECTIVES = {"gaussian": "regression", "bernoulli": "binary", "poisson": "poisson"}


def data(n: int) -> tuple[np.ndarray, dict]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, N_PRED))
    eta = x[:, 0] + np.sin(x[:, 1]) + x[:, 2] * x[:, 3]
    y = {"gaussian": eta + rng.normal(size=n),
         "bernoulli": (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(float),
         "poisson": rng.poisson(np.exp(eta / 3)).astype(float)}
    return x, y


def pygbm_seconds(x, y, dist: str, n_trees: int) -> float:
    c = time.process_time()
    pygbm.gbm_fit(x, y, distribution=dist, n_trees=n_trees, interaction_depth=DEPTH,
                  n_minobsinnode=MIN_ROWS, shrinkage=SHRINKAGE, bag_fraction=BAG,
                  max_bins=MAX_BINS, keep_data=False)
    return time.process_time() - c


def lightgbm_seconds(x, y, dist: str, n_trees: int) -> float:
    import lightgbm as lgb

    c = time.process_time()
    lgb.train(dict(objective=OBJECTIVES[dist], num_leaves=DEPTH + 1, learning_rate=SHRINKAGE,
                   bagging_fraction=BAG, bagging_freq=1, min_data_in_leaf=MIN_ROWS,
                   max_bin=MAX_BINS, num_threads=1, verbose=-1),
              lgb.Dataset(x, y), n_trees)
    return time.process_time() - c


SYSTEMS = {"pygbm": pygbm_seconds, "lightgbm": lightgbm_seconds}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--trees", type=int, default=100)
    args = ap.parse_args()
    x, ys = data(args.rows)
    for dist, y in ys.items():          # compile / load pygbm's kernels first
        pygbm_seconds(x, y, dist, 2)
    records = []
    for rnd in range(args.rounds):
        load = os.getloadavg()[0]
        for dist, y in ys.items():
            for system, seconds in SYSTEMS.items():
                base = seconds(x, y, dist, BASE_TREES)
                full = seconds(x, y, dist, BASE_TREES + args.trees)
                records.append(dict(round=rnd, load=load, distribution=dist, system=system,
                                    cpu_ms=(full - base) * 1e3 / args.trees))
                print(records[-1], flush=True)
    df = pd.DataFrame(records)
    wide = df.pivot_table(index=["round", "distribution"], columns="system", values="cpu_ms")
    ratio = (wide["pygbm"] / wide["lightgbm"]).groupby("distribution")
    lines = ["| distribution | pygbm ms (min / median) | LightGBM ms (min / median) | "
             "pygbm / LightGBM (min, median round) |", "|---|---|---|---|"]
    for dist in ys:
        g = df[df.distribution == dist].groupby("system")["cpu_ms"]
        mins, meds = g.min(), g.median()
        lines.append(f"| {dist} | {mins['pygbm']:.1f} / {meds['pygbm']:.1f} | "
                     f"{mins['lightgbm']:.1f} / {meds['lightgbm']:.1f} | "
                     f"{mins['pygbm'] / mins['lightgbm']:.2f}, {ratio.get_group(dist).median():.2f} |")
    info = machine_info()
    loads = ", ".join(f"{v:.1f}" for v in df.groupby("round")["load"].first())
    md = [f"# Binned mode by distribution: CPU time per tree, {args.rows:,} x {N_PRED}", "",
          f"max_bins={MAX_BINS}, interaction_depth={DEPTH} (LightGBM num_leaves={DEPTH + 1}), "
          f"shrinkage {SHRINKAGE}, bag fraction {BAG}, {MIN_ROWS} rows per leaf, one thread; "
          f"(fit of {args.trees + BASE_TREES} trees - fit of {BASE_TREES}) / {args.trees}, "
          f"{args.rounds} interleaved rounds.", "", *lines, "",
          f"Load average (1 min) at the rounds' starts: {loads} (2 cores).", "",
          f"Machine: {info['cpu']}, {info['nproc']} cores, {info['memory']}; "
          f"{info['date']}; pygbm {info['pygbm_commit']}"
          f"{' (uncommitted changes)' if info['pygbm_dirty'] else ''}; "
          f"numba {info['numba']}, numpy {info['numpy']}, lightgbm {info['lightgbm']}.", ""]
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "binned_losses.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
