"""Benchmark: the main suite's fits in a session (warm), pygbm against LightGBM.
Not a test.

``run.py`` fits every measurement in a fresh process, so pygbm's times there
include its one-time loading (numba, SciPy's linear algebra, the cached kernels:
about a second), which a notebook pays once per session. This runs the same
workloads, calls and settings (``workloads.py``; ``worker.pygbm_kwargs``,
``worker.lightgbm_fit``: 1000 trees, depth 3 / 4 leaves, shrinkage 0.05, bag
fraction 0.5, 255 bins, one thread) in one process after a warm-up fit of
each system: pygbm's exact mode (its default), its binned mode
(``max_bins=255``) and LightGBM (its Dataset built inside the fit), taking turns
round after round. Reported: the minimum and median CPU seconds over the
rounds, the ratios of the minima and the median of the rounds' ratios, the
load, the machine.

Run:  python benchmarks/binned_session.py [--rounds 5] [--workloads friedman,letter]
      [--sizes 10000,100000]
Writes benchmarks/results/binned_session.md.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import pygbm  # noqa: E402
import workloads as W  # noqa: E402
from machine import machine_info  # noqa: E402
from worker import lightgbm_fit, pygbm_kwargs  # noqa: E402

OUT = HERE / "results" / "binned_session.md"
N_TREES = 1000
SEED = 1
#: trees of the warm-up fits (load every kernel and library once)
WARM_TREES = 5
SYSTEMS = ("pygbm", "pygbm_binned", "lightgbm")


def _fitters(wl, df):
    """The three systems' fits of workload ``wl`` as calls of the number of trees."""
    x, y = W.xy_for_python(wl, df)
    return {
        "pygbm": lambda t: pygbm.gbm(wl.formula, df, **pygbm_kwargs(wl, t, SEED, False)),
        "pygbm_binned": lambda t: pygbm.gbm(wl.formula, df, **pygbm_kwargs(wl, t, SEED, True)),
        "lightgbm": lambda t: lightgbm_fit(wl, x, y, t, SEED),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--workloads", default="friedman,friedman_na,friedman_cat,diamonds,"
                                           "cps1988,letter")
    ap.add_argument("--sizes", default="10000,100000", help="rows of the synthetic workloads")
    args = ap.parse_args()
    cases = []
    for name in args.workloads.split(","):
        sizes = [int(s) for s in args.sizes.split(",")] if name in W.SYNTHETIC else [None]
        cases += [(name, n) for n in sizes]
    records = []
    for name, n in cases:
        wl, df, _ = W.load(name, n)
        fitters = _fitters(wl, df)
        for fit in fitters.values():
            fit(WARM_TREES)
        for rnd in range(args.rounds):
            load = os.getloadavg()[0]
            for system, fit in fitters.items():
                c, w = time.process_time(), time.perf_counter()
                fit(N_TREES)
                records.append(dict(workload=name, rows=wl.rows, round=rnd, system=system,
                                    cpu=time.process_time() - c, wall=time.perf_counter() - w,
                                    load=load))
                print(records[-1], flush=True)
    df = pd.DataFrame(records)
    lines = ["| workload | rows | pygbm exact CPU s (min / median) | pygbm binned | LightGBM | "
             "binned ÷ LightGBM (minima, median round) | exact ÷ LightGBM |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for (name, rows), g in df.groupby(["workload", "rows"], sort=False):
        by = g.groupby("system")["cpu"]
        mins, meds = by.min(), by.median()
        wide = g.pivot(index="round", columns="system", values="cpu")
        ratio_b = (wide["pygbm_binned"] / wide["lightgbm"]).median()
        ratio_e = (wide["pygbm"] / wide["lightgbm"]).median()
        cells = [f"{mins[s]:.2f} / {meds[s]:.2f}" for s in SYSTEMS]
        lines.append(f"| {name} | {rows:,} | {' | '.join(cells)} | "
                     f"{mins['pygbm_binned'] / mins['lightgbm']:.2f}, {ratio_b:.2f} | "
                     f"{mins['pygbm'] / mins['lightgbm']:.2f}, {ratio_e:.2f} |")
    info = machine_info()
    loads = df["load"]
    md = ["# The main suite's fits in a session: pygbm against LightGBM", "",
          f"`benchmarks/binned_session.py`: {N_TREES} trees, depth 3 (LightGBM 4 leaves), "
          "shrinkage 0.05, bag fraction 0.5, 255 bins, one thread, 80% training rows; every "
          f"system warmed up once, then {args.rounds} interleaved rounds in one process. CPU "
          "seconds of the whole call (pygbm: formula, binning, fit, validation errors; "
          "LightGBM: its Dataset and fit).", "", *lines, "",
          f"Load average (1 min) over the rounds: {loads.min():.1f}-{loads.max():.1f} "
          f"({info['nproc']} cores).", "",
          f"Machine: {info['cpu']}, {info['nproc']} cores, {info['memory']}; {info['date']}; "
          f"pygbm {info['pygbm_commit']}"
          f"{' (uncommitted changes)' if info['pygbm_dirty'] else ''}; numba {info['numba']}, "
          f"numpy {info['numpy']}, lightgbm {info['lightgbm']}.", ""]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
