"""The compiled prediction walk against the NumPy predictor (the reference).

``engine/predict.py``'s ``predict_link`` predicts with the compiled walk
(``engine/compiled/predict.py``) under the compiled engine and with NumPy's
tree-by-tree passes otherwise; both give the same numbers, which this script
checks before it times them. One fit per workload (``workloads.synthetic``:
friedman, friedman_na, friedman_cat at 10,000 rows; 1000 trees of depth 3,
shrinkage 0.05, bag 0.5), then its prediction set (100,000 rows) cut to each
size, the two predictors taking turns ``--rounds`` times; the minimum wall
time of each, and their ratio.

    python benchmarks/predict_walk.py [--rounds 3] [--sizes 100 1000 10000 100000]

Writes ``benchmarks/results/predict_walk.md``.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import workloads as W  # noqa: E402
from machine import machine_info, pygbm_fingerprint  # noqa: E402

import pygbm  # noqa: E402
from pygbm.engine.predict import predict_link  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
#: the fit of every workload: R gbm's settings of the main suite
FIT = dict(distribution="gaussian", n_trees=1000, interaction_depth=3, shrinkage=0.05,
           bag_fraction=0.5, train_fraction=0.8, random_state=1)
TRAIN_ROWS = 10_000


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure(name: str, sizes, rounds: int) -> list[dict]:
    wl, df, pred = W.synthetic(name, TRAIN_ROWS)
    fit = pygbm.gbm(wl.formula, df, **FIT)
    x_all = fit.to_engine(fit._design(pred))
    rows = []
    for n in sizes:
        x = x_all[:n]
        args = (fit.trees, x, fit.engine_var_type, fit.c_splits, fit.init_f, [FIT["n_trees"]])
        same = np.array_equal(predict_link(*args, engine="numba"),
                              predict_link(*args, engine="numpy"))
        times = {"numba": [], "numpy": []}
        for r in range(rounds):
            order = ("numba", "numpy") if r % 2 == 0 else ("numpy", "numba")
            for engine in order:
                times[engine].append(timed(lambda: predict_link(*args, engine=engine)))
        rows.append(dict(workload=name, rows=n, compiled_s=min(times["numba"]),
                         numpy_s=min(times["numpy"]),
                         ratio=min(times["numba"]) / min(times["numpy"]),
                         spread_compiled=max(times["numba"]) / min(times["numba"]) - 1,
                         bit_identical=same, load=os.getloadavg()[0]))
        print(rows[-1], flush=True)
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 10_000, 100_000])
    args = ap.parse_args(argv)
    started = time.strftime("%Y-%m-%d %H:%M")
    table = pd.DataFrame([r for name in ("friedman", "friedman_na", "friedman_cat")
                          for r in measure(name, args.sizes, args.rounds)])
    info = machine_info()
    text = "\n".join([
        "# Prediction: the compiled walk against the NumPy predictor", "",
        f"`benchmarks/predict_walk.py --rounds {args.rounds}` ({started}, pygbm "
        f"{pygbm_fingerprint()}); {info.get('cpu', '')}, load {table.load.min():.1f}-"
        f"{table.load.max():.1f}. A fit of 1000 trees of depth 3 on 10,000 rows per "
        "workload, its prediction rows cut to each size; minimum wall seconds over the "
        "rounds (the predictors taking turns), ratio compiled / NumPy, and whether the "
        "two gave the same numbers bit for bit.", "",
        table.drop(columns="load").to_markdown(index=False, floatfmt=".4g"), ""])
    (RESULTS / "predict_walk.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
