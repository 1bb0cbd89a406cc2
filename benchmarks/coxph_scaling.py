"""Cox proportional hazards: fit time against rows, pygbm and R gbm.

    python benchmarks/coxph_scaling.py [--sizes 10000,30000,100000,300000] [--n-trees 100]

The Cox partial likelihood couples every row with its risk set (the rows
still at risk at its time). Computed naively that is quadratic in the rows;
pygbm sorts the times once and forms every risk-set sum as a cumulative sum
(``pygbm/distributions/coxph.py``), so a fit should grow about linearly. This
script fits ``Surv(time, status) ~ .`` on simulated survival data (10
predictors, exponential times with a log-linear hazard, independent
censoring) at several sizes, with R gbm on the same files when ``Rscript``
is present, and fits time ~ rows^a on the points. Settings: interaction
depth 3, shrinkage 0.05, bag fraction 0.5, 10 rows per leaf, one thread.
Writes benchmarks/results/coxph_scaling.md (and .csv).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from pygbm import gbm  # noqa: E402

#: predictors of the simulated data, and the seed of its generator
N_PREDICTORS, SEED = 10, 20240611
R_SCRIPT = r"""
suppressMessages({library(gbm); library(survival)})
args <- commandArgs(TRUE)
d <- read.csv(args[1])
t <- system.time(gbm(Surv(time, status) ~ ., data = d, distribution = "coxph",
                     n.trees = as.integer(args[2]), interaction.depth = 3, shrinkage = 0.05,
                     bag.fraction = 0.5, n.minobsinnode = 10, keep.data = FALSE,
                     verbose = FALSE))
cat(t[["user.self"]] + t[["sys.self"]], "\n")
"""


def simulate(n: int) -> pd.DataFrame:
    rng = np.random.default_rng(SEED)
    x = rng.normal(size=(n, N_PREDICTORS))
    hazard = np.exp(0.8 * x[:, 0] - 0.5 * x[:, 1] + 0.4 * np.sin(2 * x[:, 2]))
    event = rng.exponential(1.0 / hazard)
    censor = rng.exponential(1.5, size=n)
    df = pd.DataFrame(x, columns=[f"x{i + 1}" for i in range(N_PREDICTORS)])
    df.insert(0, "status", (event <= censor).astype(int))
    df.insert(0, "time", np.minimum(event, censor))
    return df


def fit_pygbm(df: pd.DataFrame, n_trees: int) -> float:
    c0 = time.process_time()
    gbm("Surv(time, status) ~ .", data=df, distribution="coxph", n_trees=n_trees,
        interaction_depth=3, shrinkage=0.05, bag_fraction=0.5, n_minobsinnode=10,
        random_state=1)
    return time.process_time() - c0


def fit_r(df: pd.DataFrame, n_trees: int, tmp: str) -> float | None:
    if shutil.which("Rscript") is None:
        return None
    csv, script = os.path.join(tmp, "cox.csv"), os.path.join(tmp, "cox.R")
    df.to_csv(csv, index=False)
    with open(script, "w") as fh:
        fh.write(R_SCRIPT)
    out = subprocess.run(["Rscript", script, csv, str(n_trees)], capture_output=True,
                         text=True, check=True)
    return float(out.stdout.split()[-1])


def exponent(ns, ts) -> float:
    """Least-squares slope of log(time) on log(rows)."""
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,30000,100000,300000")
    p.add_argument("--n-trees", type=int, default=100)
    a = p.parse_args(argv)
    sizes = [int(s) for s in a.sizes.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            df = simulate(n)
            py = fit_pygbm(df, a.n_trees)
            r = fit_r(df, a.n_trees, tmp)
            rows.append(dict(rows=n, events=int(df["status"].sum()), pygbm_cpu_s=py,
                             r_cpu_s=r))
            print(rows[-1], flush=True)
    out = pd.DataFrame(rows)
    res = os.path.join(HERE, "results")
    out.to_csv(os.path.join(res, "coxph_scaling.csv"), index=False)
    md = ["# Cox proportional hazards: fit time against rows", "",
          f"`python benchmarks/coxph_scaling.py --sizes {a.sizes} --n-trees {a.n_trees}` "
          "(protocol in the script's docstring). CPU seconds of one fit.", "",
          "| rows | events | pygbm CPU s | R gbm CPU s | R ÷ pygbm |", "|---:|---:|---:|---:|---:|"]
    for r in rows:
        ratio = f"{r['r_cpu_s'] / r['pygbm_cpu_s']:.2f}" if r["r_cpu_s"] else "–"
        r_s = f"{r['r_cpu_s']:.2f}" if r["r_cpu_s"] else "–"
        md.append(f"| {r['rows']:,} | {r['events']:,} | {r['pygbm_cpu_s']:.2f} | {r_s} | {ratio} |")
    md += ["", f"Fit time ~ rows^a: pygbm a = {exponent(out['rows'], out['pygbm_cpu_s']):.2f}"
           + (f", R gbm a = {exponent(out['rows'], out['r_cpu_s']):.2f}"
              if out["r_cpu_s"].notna().all() else "")
           + " (a = 1: linear; a quadratic risk-set step would give a near 2)."]
    with open(os.path.join(res, "coxph_scaling.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
