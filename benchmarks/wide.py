"""Wide data (few rows, many predictors: expression arrays, surveys with many items)
against R gbm 2.1.8: ``python benchmarks/wide.py``.

Synthetic gaussian data (``y = x0 + sin(x1) + x2 x3 / 2 + noise``, the rest noise
predictors) of a few shapes, written once as CSV; each system fits it in a fresh
process (``Rscript``: ``library(gbm)``; Python: ``import pygbm``) with the usual call
(``n_trees=500, interaction_depth=3, shrinkage=0.01, bag_fraction=0.5``,
``cv_folds=5`` on one core, then ``gbm_perf(method="cv")``), after an untimed warm-up
with 2 trees; the call is timed inside the process (wall and the process's CPU).
The systems take turns within each round; the minimum over the rounds counts.
Results: ``results/wide.md``.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import pandas as pd

from machine import machine_info
from processes import REPO, THREAD_ENV

HERE = os.path.dirname(os.path.abspath(__file__))
#: (rows, predictors) of the data sets
SHAPES = ((200, 3000), (500, 1000), (2000, 300))
N_TREES, SEED = 500, 1

PY_WORKER = """
import sys, time, warnings
sys.path.insert(0, {repo!r})
import pandas as pd, pygbm
warnings.simplefilter("ignore")
d = pd.read_csv({path!r})
kw = dict(distribution="gaussian", interaction_depth=3, shrinkage=0.01, bag_fraction=0.5,
          cv_folds=5, n_cores=1, random_state={seed})
pygbm.gbm_perf(pygbm.gbm("y ~ .", d, n_trees=2, **kw), method="cv", plot_it=False)
w, c = time.perf_counter(), time.process_time()
best = pygbm.gbm_perf(pygbm.gbm("y ~ .", d, n_trees={n_trees}, **kw), method="cv",
                      plot_it=False)
print(time.perf_counter() - w, time.process_time() - c, best)
"""
R_WORKER = """
suppressMessages(library(gbm))
d <- read.csv({path!r})
fit <- function(n) gbm(y ~ ., data = d, distribution = "gaussian", n.trees = n,
                       interaction.depth = 3, shrinkage = 0.01, bag.fraction = 0.5,
                       cv.folds = 5, n.cores = 1)
set.seed({seed}); invisible(capture.output(gbm.perf(fit(2), method = "cv", plot.it = FALSE)))
set.seed({seed})
t <- system.time(invisible(capture.output(b <- gbm.perf(fit({n_trees}), method = "cv",
                                                        plot.it = FALSE))))
cat(t[["elapsed"]], t[["user.self"]] + t[["sys.self"]], b, "\\n")
"""


def write_data(rows: int, predictors: int, folder: str) -> str:
    rng = np.random.default_rng(rows * 7 + predictors)
    x = rng.normal(size=(rows, predictors))
    df = pd.DataFrame(x, columns=[f"x{j}" for j in range(predictors)])
    df["y"] = x[:, 0] + np.sin(x[:, 1]) + 0.5 * x[:, 2] * x[:, 3] + rng.normal(size=rows)
    path = os.path.join(folder, f"wide_{rows}x{predictors}.csv")
    df.to_csv(path, index=False)
    return path


def run(system: str, path: str) -> tuple[float, float, int]:
    """(wall s, CPU s, best iteration) of one fresh process's timed call."""
    args = dict(repo=REPO, path=path, seed=SEED, n_trees=N_TREES)
    if system == "pygbm":
        cmd = [sys.executable, "-c", PY_WORKER.format(**args)]
    else:
        cmd = ["Rscript", "-e", R_WORKER.format(**args)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                         env={**os.environ, **THREAD_ENV})
    wall, cpu, best = out.stdout.split()[-3:]
    return float(wall), float(cpu), int(float(best))


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for n, k in SHAPES:
            path = write_data(n, k, folder)
            times = {"pygbm": [], "r": []}
            for r in range(args.rounds):
                order = ("pygbm", "r") if r % 2 == 0 else ("r", "pygbm")
                for system in order:
                    times[system].append(run(system, path) + (os.getloadavg()[0],))
                    print(n, k, system, times[system][-1], flush=True)
            best = {s: min(v) for s, v in times.items()}
            rows.append((n, k, best["r"], best["pygbm"]))
    info = machine_info()
    machine = ", ".join(f"{key} {info[key]}" for key in (
        "date", "cpu", "nproc", "memory", "python", "r", "pygbm_commit"))
    lines = ["# Wide data: pygbm and R gbm", "",
             f"`python benchmarks/wide.py --rounds {args.rounds}`; {machine}", "",
             "cv_folds=5 + gbm_perf on one core, 500 trees, depth 3; wall seconds (the "
             "minimum over the rounds; CPU, best iteration and load in brackets).", "",
             "| rows x predictors | R gbm | pygbm | pygbm / R |", "|---|---:|---:|---:|"]
    for n, k, r, py in rows:
        lines.append(f"| {n} x {k} | {r[0]:.2f} (CPU {r[1]:.2f}, best {r[2]}, load "
                     f"{r[3]:.1f}) | {py[0]:.2f} (CPU {py[1]:.2f}, best {py[2]}, load "
                     f"{py[3]:.1f}) | **{py[0] / r[0]:.2f}** |")
    out = os.path.join(HERE, "results", "wide.md")
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
