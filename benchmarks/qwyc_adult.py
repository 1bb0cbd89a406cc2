"""QWYC on UCI Adult (issue 24's measurement; not a test: the fit takes minutes).

    PYTHONPATH=. python benchmarks/qwyc_adult.py [--fit-cache PATH]

The paper's protocol: gbm with 500 trees, interaction_depth=31 (at most 32
leaves, as depth-5 trees), shrinkage 0.05, on the 32,561 training rows; order
and thresholds optimised on the training rows; compared on the 16,281 test rows
at matched test disagreement (each method's curve interpolated in log mean
trees against test disagreement). Also: the paper's Appendix D.2 (QWYC against
a gbm trained with as many trees as QWYC's mean), honest=True, and predict's
wall time against the full predict. Writes benchmarks/results/qwyc_adult.md.
"""
from __future__ import annotations

import argparse
import math
import pickle
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from pygbm import gbm, qwyc, qwyc_tradeoff

ROOT = Path(__file__).resolve().parent.parent
ALPHAS = (0.0, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.02, 0.04)
MARGINS = (1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 8.0)
MATCH_AT = (0.005, 0.0075, 0.01, 0.015, 0.02)
SETTINGS = dict(distribution="bernoulli", n_trees=500, interaction_depth=31, shrinkage=0.05,
                bag_fraction=1.0)


def trees_at(table, method, disagreement):
    """Mean trees of ``method`` at a test disagreement (log-linear interpolation)."""
    part = table[table["method"] == method].sort_values("disagreement")
    d, m = part["disagreement"].to_numpy(), part["mean_trees"].to_numpy()
    if not d.min() <= disagreement <= d.max():
        return math.nan
    return float(np.exp(np.interp(disagreement, d, np.log(m))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fit-cache", default="/tmp/qwyc_adult_fit.pkl")
    args = parser.parse_args()
    train = pd.read_csv(ROOT / "data/adult_train.csv")
    test = pd.read_csv(ROOT / "data/adult_test.csv")
    out = []
    cache = Path(args.fit_cache)
    if cache.exists():
        fit = pickle.loads(cache.read_bytes())
    else:
        t0 = time.time()
        fit = gbm("over_50k ~ .", train, **SETTINGS)
        out.append(f"fit: {time.time() - t0:.0f} s")
        cache.write_bytes(pickle.dumps(fit))
    warnings.simplefilter("ignore")
    full_link = fit.predict(test, n_trees=500)
    y = test["over_50k"].to_numpy()
    full_acc = float(np.mean((full_link >= 0) == y))
    out.append(f"full model (500 trees): test accuracy {full_acc:.4f}")

    t0, c0 = time.time(), time.process_time()
    ee = qwyc(fit, train, n_trees=500, alpha=0.005)
    out.append(f"qwyc() on 32,561 rows x 500 trees (alpha 0.005): {time.time() - t0:.1f} s "
               f"wall, {time.process_time() - c0:.1f} s CPU (gate 60 s)")

    t0 = time.time()
    table = qwyc_tradeoff(fit, train, test, alphas=ALPHAS, methods=("qwyc", "gbt", "margin"),
                          n_trees=500, margins=MARGINS)
    out.append(f"qwyc_tradeoff (8 alphas x 2 orders + 10 margins): {time.time() - t0:.0f} s")
    honest = qwyc_tradeoff(fit, train, test, alphas=ALPHAS, methods=("qwyc",), n_trees=500,
                           honest=True, random_state=1)
    honest["method"] = "qwyc_honest"
    table = pd.concat([table, honest[honest["method"] != "full"]], ignore_index=True)
    out += ["", "## Trade-off on the test rows", "",
            table.to_markdown(index=False, floatfmt=".4f")]

    out += ["", "## Mean trees at matched test disagreement", "",
            "| test disagreement | QWYC | GBT order + Alg. 2 | ratio (gate <= 0.6) "
            "| margin rule | ratio (gate <= 0.5) | QWYC honest |", "|---|---|---|---|---|---|---|"]
    for d in MATCH_AT:
        q, g, m, h = (trees_at(table, k, d) for k in ("qwyc", "gbt", "margin", "qwyc_honest"))
        out.append(f"| {100 * d:.2f}% | {q:.1f} | {g:.1f} | {q / g:.2f} | {m:.1f} | "
                   f"{q / m:.2f} | {h:.1f} |")

    # Appendix D.2: QWYC's accuracy against a gbm trained with as many trees
    qw = table[table["method"] == "qwyc"]
    out += ["", "## Appendix D.2: QWYC against a gbm of QWYC's mean size", "",
            "| alpha | QWYC mean trees | QWYC test accuracy | gbm with ceil(mean) trees | "
            "difference (gate >= 0.5 pp) |", "|---|---|---|---|---|"]
    for _, row in qw.iterrows():
        k = int(math.ceil(row["mean_trees"]))
        small = float(np.mean((fit.predict(test, n_trees=k) >= 0) == y))
        out.append(f"| {row['alpha']:g} | {row['mean_trees']:.1f} | {row['accuracy']:.4f} | "
                   f"{small:.4f} | {100 * (row['accuracy'] - small):+.2f} |")
    out.append("(the smaller gbm is the same fit's first k trees: with shrinkage 0.05 "
               "a gbm trained with k trees is exactly those trees)")

    # wall time: early-exit predict against the full predict, best of 5
    def best(f):
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            f()
            times.append(time.perf_counter() - t0)
        return min(times)
    t_full = best(lambda: fit.predict(test, n_trees=500))
    t_ee = best(lambda: ee.predict(test))
    mean_trees = ee.predict(test)["n_trees"].mean()
    limit = 1.5 * mean_trees / 500 * t_full + 0.05
    out += ["", "## predict wall time (test rows, alpha 0.005, best of 5)", "",
            f"full predict {t_full:.3f} s; early-exit predict {t_ee:.3f} s at "
            f"{mean_trees:.1f} mean trees; limit 1.5 x ({mean_trees:.1f}/500) x full + 50 ms "
            f"= {limit:.3f} s: {'met' if t_ee <= limit else 'MISSED'}"]
    text = "\n".join(["# QWYC on UCI Adult (benchmarks/qwyc_adult.py)", "",
                      "gbm(over_50k ~ ., 500 trees, interaction_depth=31, shrinkage 0.05, "
                      "bag_fraction 1); optimised on the training rows, measured on the test rows.",
                      "Shared 2-core machine: timings are indicative.", ""] + out)
    (ROOT / "benchmarks/results/qwyc_adult.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
