"""Benchmark: time per tree of ordered boosting against plain boosting on
UCI Adult, 26,049 x 14 (issue 25: at most 2.5x plain; the paper 1.7x).
Not a test.

Like with like: the same data (the original Adult training rows, the last
fifth for validation, as benchmarks/ordered_boosting.py), the same
``max_bins=255``, ``categorical="ordered_ts"`` (so plain boosting runs
CatBoost's Plain mode with its supporting models per permutation, ordered
its Ordered mode), bernoulli, ``interaction_depth=6``, shrinkage 0.05, bag
fraction 0.5, the same engine. The time per tree is (fit of ``--trees``
trees - fit of 10 trees) / (``--trees`` - 10), CPU and wall, so set-up
(binning, target statistics, compilation) cancels. The configurations take
turns, round after round (a busy period of this shared machine hits them
all alike); the minimum and the median over ``--rounds`` are reported, with
the load average of each round.

Run:  python benchmarks/ordered_time.py [--rounds 5] [--trees 110]
      [--engines numba numpy]
Writes benchmarks/results/ordered_time.csv and .md.
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
from ordered_boosting import (BAG_FRACTION, DEPTH, MAX_BINS, RESPONSE,  # noqa: E402
                              VALID_FRACTION, adult)

OUT = ROOT / "benchmarks" / "results"
#: trees of the short fit whose time is subtracted
BASE_TREES = 10


def fit_seconds(train, boosting_type: str, engine: str, n_trees: int) -> tuple[float, float]:
    """CPU and wall seconds of one fit."""
    c0, w0 = time.process_time(), time.perf_counter()
    pygbm.gbm(f"{RESPONSE} ~ .", train, distribution="bernoulli", n_trees=n_trees,
              interaction_depth=DEPTH, shrinkage=0.05, bag_fraction=BAG_FRACTION,
              train_fraction=1 - VALID_FRACTION, categorical="ordered_ts", max_bins=MAX_BINS,
              boosting_type=boosting_type, engine=engine, random_state=1, keep_data=False)
    return time.process_time() - c0, time.perf_counter() - w0


def summarise(df: pd.DataFrame, trees: int) -> str:
    lines = [f"Time per tree, ms (fit of {trees} trees - fit of {BASE_TREES}; "
             f"{df['round'].nunique()} rounds, min / median):", "",
             "| engine | plain CPU | ordered CPU | ordered / plain CPU (min, median) | "
             "plain wall | ordered wall | ordered / plain wall |", "|---|---|---|---|---|---|---|"]
    for engine, g in df.groupby("engine", sort=False):
        wide = g.pivot(index="round", columns="boosting_type", values=["cpu_ms", "wall_ms"])
        cpu, wall = wide["cpu_ms"], wide["wall_ms"]
        ratio_cpu = cpu["ordered"] / cpu["plain"]
        ratio_wall = wall["ordered"] / wall["plain"]
        lines.append(
            f"| {engine} | {cpu['plain'].min():.1f} / {cpu['plain'].median():.1f} | "
            f"{cpu['ordered'].min():.1f} / {cpu['ordered'].median():.1f} | "
            f"{cpu['ordered'].min() / cpu['plain'].min():.2f}, {ratio_cpu.median():.2f} "
            f"(rounds {ratio_cpu.min():.2f}-{ratio_cpu.max():.2f}) | "
            f"{wall['plain'].min():.1f} / {wall['plain'].median():.1f} | "
            f"{wall['ordered'].min():.1f} / {wall['ordered'].median():.1f} | "
            f"{wall['ordered'].min() / wall['plain'].min():.2f}, {ratio_wall.median():.2f} |")
    loads = df.groupby("round")["load"].first()
    lines += ["", f"Load average (1 min) at the rounds' starts: "
              f"{', '.join(f'{v:.1f}' for v in loads)} (2 cores)."]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--trees", type=int, default=110)
    ap.add_argument("--engines", nargs="+", default=["numba", "numpy"])
    args = ap.parse_args()
    train, _ = adult()
    for engine in args.engines:                 # compile / load the caches first
        for bt in ("plain", "ordered"):
            fit_seconds(train, bt, engine, 2)
    records = []
    for rnd in range(args.rounds):
        load = os.getloadavg()[0]
        for engine in args.engines:
            for bt in ("plain", "ordered"):
                c_base, w_base = fit_seconds(train, bt, engine, BASE_TREES)
                c_full, w_full = fit_seconds(train, bt, engine, args.trees)
                per = 1e3 / (args.trees - BASE_TREES)
                records.append(dict(round=rnd, load=load, engine=engine, boosting_type=bt,
                                    cpu_ms=(c_full - c_base) * per,
                                    wall_ms=(w_full - w_base) * per))
                print(records[-1], flush=True)
    df = pd.DataFrame(records)
    OUT.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUT / "ordered_time.csv", index=False)
    info = machine_info()
    md = ["# Ordered vs plain boosting: time per tree on Adult (26,049 x 14)", "",
          "bernoulli, categorical='ordered_ts', max_bins=255, interaction_depth=6, "
          "shrinkage 0.05, bag fraction 0.5; the same data and engine for both modes.", "",
          summarise(df, args.trees), "",
          f"Machine: {info['cpu']}, {info['nproc']} cores, {info['memory']}; "
          f"{info['date']}; pygbm {info['pygbm_commit']}"
          f"{' (uncommitted changes)' if info['pygbm_dirty'] else ''}; "
          f"numba {info['numba']}, numpy {info['numpy']}.", ""]
    (OUT / "ordered_time.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
