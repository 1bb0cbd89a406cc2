"""QWYC on UCI Adult (issue 24's measurement; not a test: it takes minutes).

    python benchmarks/qwyc_adult.py [--fit-cache PATH] [--rounds 7]

(the pygbm of this checkout)

The paper's protocol: gbm with 500 trees, interaction_depth=31 (at most 32
leaves, as depth-5 trees), shrinkage 0.05 (bag_fraction 1: deterministic), on
the 32,561 training rows; order and thresholds optimised on the training rows;
compared on the 16,281 test rows at matched test disagreement.

Matching: each method's points (a dense grid of alpha, or of margins) give
(test disagreement, mean trees); the method's curve is its Pareto front (a
point with more trees and more disagreement than another is never worth
using), interpolated linearly between adjacent front points (mixing the two
settings row by row at random achieves every point of that segment). The
margin rule's points pool LightGBM's checking frequencies 1 and 10 (its
default), so the baseline is the better of the two everywhere.

Also: the paper's Appendix D.2 (QWYC against a gbm trained with as many trees
as QWYC's mean: the same settings, which with bag_fraction 1 are the fit's
first k trees, checked once; and k trees with the shrinkage chosen on a
validation split), honest=True, qwyc()'s time and predict's wall time against
the full predict (interleaved rounds, best and median). Writes
benchmarks/results/qwyc_adult.md and the points to benchmarks/results/qwyc_adult.csv.
"""
from __future__ import annotations

import argparse
import math
import os
import pickle
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pygbm import gbm, qwyc, qwyc_tradeoff     # noqa: E402
#: the honest curve's alphas (and the first version's grid)
ALPHAS_COARSE = (0.0, 0.00025, 0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.0025, 0.003, 0.004,
                 0.005, 0.006, 0.0075, 0.01, 0.0125, 0.015, 0.0175, 0.02, 0.025, 0.03, 0.04)
#: QWYC's and the GBT order's alphas: every 0.0001 below 0.003, where test disagreements
#: of 0.5-1% come from (as dense there as the margins below are around their 0.5-1%)
ALPHAS = tuple(sorted({float(a) for a in np.round(np.arange(0.0, 0.003, 0.0001), 5)}
                     | set(ALPHAS_COARSE)))
MARGINS = tuple(np.round(np.concatenate([np.arange(1.0, 2.0, 0.05), np.arange(2.0, 3.0, 0.01),
                                         np.arange(3.0, 8.01, 0.1)]), 4))
MARGIN_FREQS = (1, 10)                  # every tree; LightGBM's default
MATCH_AT = (0.005, 0.0075, 0.01, 0.015, 0.02)
SETTINGS = dict(distribution="bernoulli", n_trees=500, interaction_depth=31, shrinkage=0.05,
                bag_fraction=1.0)
#: shrinkages tried for a gbm of k trees (chosen on a validation split of the training rows)
SMALL_SHRINKAGES = (0.05, 0.1, 0.2, 0.3, 0.5)
VALIDATION_SHARE = 0.2
#: first k trees whose test accuracy is tabulated (pygbm and LightGBM)
TRUNCATIONS = (10, 20, 24, 30, 40, 44, 50, 60, 80, 160, 500)


def front(table, method):
    """The Pareto front of ``method``'s points: (disagreement, mean trees), by
    increasing disagreement and strictly decreasing trees."""
    part = table[table["method"] == method].sort_values(["disagreement", "mean_trees"])
    points = []
    for d, m in zip(part["disagreement"], part["mean_trees"]):
        if not points or m < points[-1][1]:
            points.append((d, m))
    return np.array(points)


def trees_at(table, method, disagreement):
    """Mean trees of ``method`` at a test disagreement: its front, linearly
    interpolated (nan below its least disagreement)."""
    f = front(table, method)
    if disagreement < f[0, 0]:
        return math.nan
    return float(np.interp(disagreement, f[:, 0], f[:, 1]))


def trees_at_or_below(table, method, disagreement):
    """The fewest mean trees among ``method``'s points with at most that test
    disagreement (no interpolation)."""
    part = table[(table["method"] == method) & (table["disagreement"] <= disagreement)]
    return float(part["mean_trees"].min()) if len(part) else math.nan


def trees_all_points(table, method, disagreement):
    """The first version's matching: every point sorted by test disagreement,
    log mean trees interpolated linearly (dominated points included)."""
    part = table[table["method"] == method].sort_values("disagreement")
    d, m = part["disagreement"].to_numpy(), part["mean_trees"].to_numpy()
    if not d.min() <= disagreement <= d.max():
        return math.nan
    return float(np.exp(np.interp(disagreement, d, np.log(m))))


def load(path):
    return pd.read_csv(ROOT / "data" / path)


def fitted(cache: Path, train, out):
    if cache.exists():
        return pickle.loads(cache.read_bytes())
    t0 = time.time()
    fit = gbm("over_50k ~ .", train, **SETTINGS)
    out.append(f"fit: {time.time() - t0:.0f} s")
    cache.write_bytes(pickle.dumps(fit))
    return fit


def held_out_split(split_seed: int, fit_share: float):
    """Adult's training rows split at random: (rows to fit the gbm on, the other
    rows to optimise on, the test rows), the held-out protocol of qwyc_heldout.py."""
    train, test = load("adult_train.csv"), load("adult_test.csv")
    shuffled = np.random.default_rng(split_seed).permutation(len(train))
    cut = int(fit_share * len(train))
    return (train.iloc[shuffled[:cut]].reset_index(drop=True),
            train.iloc[shuffled[cut:]].reset_index(drop=True), test)


def load_text():
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def accuracy(decision, y):
    return float(np.mean(decision == y))


def margin_points(fit, data, newdata) -> list:
    """The margin rule's points on ``newdata`` (thresholds from ``data``), one table
    per checking frequency."""
    parts = []
    for freq in MARGIN_FREQS:
        m = qwyc_tradeoff(fit, data, newdata, methods=("margin",), margins=MARGINS, n_trees=500,
                          margin_freq=freq)
        m = m[m["method"] == "margin"].copy()
        m["margin_freq"] = freq
        parts.append(m)
    return parts


def curves(fit, train, test):
    """Every method's points on the test rows (one table)."""
    table = qwyc_tradeoff(fit, train, test, alphas=ALPHAS, methods=("qwyc", "gbt"), n_trees=500)
    parts = [table] + margin_points(fit, train, test)
    honest = qwyc_tradeoff(fit, train, test, alphas=ALPHAS_COARSE, methods=("qwyc",), n_trees=500,
                           honest=True, random_state=1)
    honest["method"] = "qwyc_honest"
    parts.append(honest[honest["method"] != "full"])
    return pd.concat(parts, ignore_index=True)


def matched(table, rule=trees_at):
    lines = ["| test disagreement | QWYC | GBT order + Alg. 2 | ratio (gate <= 0.6) | margin rule "
             "(freq 1 or 10) | ratio (gate <= 0.5) | QWYC honest |",
             "|---|---|---|---|---|---|---|"]
    for d in MATCH_AT:
        q, g, m, h = (rule(table, k, d) for k in ("qwyc", "gbt", "margin", "qwyc_honest"))
        lines.append(f"| {100 * d:.2f}% | {q:.1f} | {g:.1f} | {q / g:.2f} | {m:.1f} | "
                     f"{q / m:.2f} | {h:.1f} |")
    return lines


def small_gbm_accuracy(train, test, k, y):
    """Test accuracy of a gbm of k trees whose shrinkage is chosen on a
    validation split of the training rows (then refitted on all of them)."""
    rng = np.random.default_rng(1)
    valid = rng.random(len(train)) < VALIDATION_SHARE
    fit_part, valid_part = train[~valid], train[valid]
    yv = valid_part["over_50k"].to_numpy()
    best = max(SMALL_SHRINKAGES, key=lambda s: accuracy(
        gbm("over_50k ~ .", fit_part, **{**SETTINGS, "n_trees": k, "shrinkage": s})
        .predict(valid_part, n_trees=k) >= 0, yv))
    refit = gbm("over_50k ~ .", train, **{**SETTINGS, "n_trees": k, "shrinkage": best})
    return best, accuracy(refit.predict(test, n_trees=k) >= 0, y)


def appendix_d2(fit, train, test, table, y):
    qw = table[table["method"] == "qwyc"]
    lines = ["| alpha | QWYC mean trees | test disagreement | QWYC test accuracy | gbm of "
             "ceil(mean) trees, shrinkage 0.05 | difference (gate >= 0.5 pp) |",
             "|---|---|---|---|---|---|"]
    for _, row in qw.iterrows():
        k = int(math.ceil(row["mean_trees"]))
        small = accuracy(fit.predict(test, n_trees=k) >= 0, y)
        lines.append(f"| {row['alpha']:g} | {row['mean_trees']:.1f} | "
                     f"{100 * row['disagreement']:.2f}% | {row['accuracy']:.4f} | {small:.4f} | "
                     f"{100 * (row['accuracy'] - small):+.2f} |")
    # the claim "a gbm trained with k trees = the first k trees", checked once
    k = int(math.ceil(qw.loc[qw["alpha"] == 0.005, "mean_trees"].iloc[0]))
    again = gbm("over_50k ~ .", train, **{**SETTINGS, "n_trees": k})
    same = np.array_equal(again.predict(test, n_trees=k), fit.predict(test, n_trees=k))
    lines.append(f"\nA gbm trained with {k} trees (same settings) predicts the test rows "
                 f"{'bit for bit as' if same else 'DIFFERENTLY from'} the fit's first {k} trees.")
    lines.append("\nA gbm of k trees with its shrinkage chosen among "
                 f"{SMALL_SHRINKAGES} on a {VALIDATION_SHARE:.0%} validation split of the "
                 "training rows (refitted on all of them):\n")
    lines += ["| k | shrinkage chosen | test accuracy | QWYC at about k trees |",
              "|---|---|---|---|"]
    for alpha in (0.0, 0.005, 0.02, 0.03, 0.04):
        row = qw[qw["alpha"] == alpha].iloc[0]
        k = int(math.ceil(row["mean_trees"]))
        shrinkage, acc = small_gbm_accuracy(train, test, k, y)
        lines.append(f"| {k} | {shrinkage} | {acc:.4f} | {row['accuracy']:.4f} (alpha {alpha:g}) |")
    return lines


def lightgbm_reference(train, test, y):
    """Test accuracy of LightGBM's first k trees (500 trees of depth <= 5, 32 leaves,
    learning rate 0.05: the design note's model), against pygbm's fit."""
    import lightgbm as lgb
    x_train, x_test = train.drop(columns="over_50k"), test.drop(columns="over_50k")
    for col in x_train.select_dtypes(exclude="number").columns:
        levels = pd.CategoricalDtype(sorted(set(x_train[col].dropna())))
        x_train[col], x_test[col] = x_train[col].astype(levels), x_test[col].astype(levels)
    booster = lgb.train({"objective": "binary", "learning_rate": 0.05, "max_depth": 5,
                         "num_leaves": 32, "verbose": -1, "num_threads": 1},
                        lgb.Dataset(x_train, train["over_50k"]), num_boost_round=500)
    return {k: accuracy(booster.predict(x_test, num_iteration=k) >= 0.5, y) for k in TRUNCATIONS}


def truncation_table(fit, train, test, y):
    """Accuracy of the first k trees: pygbm's fit and the design note's LightGBM model."""
    ours = {k: accuracy(fit.predict(test, n_trees=k) >= 0, y) for k in TRUNCATIONS}
    try:
        theirs = lightgbm_reference(train, test, y)
    except ImportError:
        theirs = {k: math.nan for k in TRUNCATIONS}
    lines = ["| first k trees | " + " | ".join(map(str, TRUNCATIONS)) + " |",
             "|---|" + "---|" * len(TRUNCATIONS),
             "| pygbm (this fit) | " + " | ".join(f"{ours[k]:.4f}" for k in TRUNCATIONS) + " |",
             "| LightGBM (depth 5, 32 leaves) | "
             + " | ".join(f"{theirs[k]:.4f}" for k in TRUNCATIONS) + " |"]
    return lines


def timings(fit, train, test, rounds):
    lines = [f"Before: {load_text()}."]
    qwyc(fit, test.iloc[:500], n_trees=500, alpha=0.005)        # loads or compiles the kernels
    walls, cpus = [], []
    for _ in range(3):
        t0, c0 = time.perf_counter(), time.process_time()
        ee = qwyc(fit, train, n_trees=500, alpha=0.005)
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    lines.append(f"qwyc() on 32,561 rows x 500 trees (alpha 0.005), 3 runs: wall "
                 f"{min(walls):.1f}-{max(walls):.1f} s, CPU {min(cpus):.1f}-{max(cpus):.1f} s "
                 f"(gate 60 s)")
    mean_trees = float(ee.predict(test)["n_trees"].mean())
    runs = {"full": [], "early": []}
    calls = {"full": lambda: fit.predict(test, n_trees=500), "early": lambda: ee.predict(test)}
    for _ in range(rounds):                                    # interleaved
        for name, call in calls.items():
            t0, c0 = time.perf_counter(), time.process_time()
            call()
            runs[name].append((time.perf_counter() - t0, time.process_time() - c0))
    wall = {k: np.array([w for w, _ in v]) for k, v in runs.items()}
    cpu = {k: np.array([c for _, c in v]) for k, v in runs.items()}
    lines.append(f"predict on the 16,281 test rows, {rounds} interleaved rounds (wall s; CPU s):")
    for name in runs:
        lines.append(f"  {name:5s}: best {wall[name].min():.3f}, median {np.median(wall[name]):.3f}"
                     f"; CPU best {cpu[name].min():.3f}, median {np.median(cpu[name]):.3f}")
    for label, stat in (("best", np.min), ("median", np.median)):
        limit = 1.5 * mean_trees / 500 * stat(wall["full"]) + 0.05
        got = stat(wall["early"])
        lines.append(f"  {label}: early-exit {got:.3f} s at {mean_trees:.1f} mean trees; "
                     f"limit 1.5 x ({mean_trees:.1f}/500) x {stat(wall['full']):.3f} + 0.05 = "
                     f"{limit:.3f} s: "
                     f"{'met' if got <= limit else 'MISSED'} ({got / limit:.2f} of the limit)")
    lines.append(f"After: {load_text()}.")
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fit-cache", default="/tmp/qwyc_adult_fit.pkl")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    train, test = load("adult_train.csv"), load("adult_test.csv")
    out = [f"Start: {load_text()} (2 cores, shared)."]
    fit = fitted(Path(args.fit_cache), train, out)
    warnings.simplefilter("ignore")
    y = test["over_50k"].to_numpy()
    out.append(f"full model (500 trees): test accuracy "
               f"{accuracy(fit.predict(test, n_trees=500) >= 0, y):.4f}")

    out += ["", "## Timings", ""] + timings(fit, train, test, args.rounds)
    t0 = time.time()
    table = curves(fit, train, test)
    out.append(f"\nqwyc_tradeoff: {len(ALPHAS)} alphas x 2 (qwyc, gbt), {len(ALPHAS_COARSE)} "
               f"alphas (honest) + {len(MARGINS)} "
               f"margins x {len(MARGIN_FREQS)} frequencies: {time.time() - t0:.0f} s wall")
    table.to_csv(ROOT / "benchmarks/results/qwyc_adult.csv", index=False)
    out += ["", "## Mean trees at matched test disagreement (Pareto fronts, interpolated)", ""]
    out += matched(table)
    out += ["", "The same without interpolation (the fewest mean trees among a method's points "
            "with at most that test disagreement):", ""] + matched(table, trees_at_or_below)
    out += ["", "The first version's matching (every point sorted by test disagreement, log "
            "trees interpolated, dominated points included):", ""]
    out += matched(table, trees_all_points)
    out += ["", "## Appendix D.2: QWYC against a gbm of QWYC's mean size", ""]
    out += appendix_d2(fit, train, test, table, y)
    out += ["", "Test accuracy of the first k trees (a gbm trained with k trees, same settings):",
            ""] + truncation_table(fit, train, test, y)
    shown = table[table["method"] != "margin"]
    margin_front = table[table["method"] == "margin"].sort_values("disagreement")
    keep = [tuple(p) for p in front(table, "margin")]
    margin_front = margin_front.drop_duplicates(["disagreement", "mean_trees"])
    margin_front = margin_front[[(d, m) in keep for d, m in
                                 zip(margin_front["disagreement"], margin_front["mean_trees"])]]
    out += ["", "## QWYC, GBT order and honest QWYC on the test rows", "",
            shown.drop(columns=["margin", "margin_freq"]).to_markdown(index=False, floatfmt=".4f"),
            "", "## The margin rule's Pareto front on the test rows "
            f"({len(MARGINS)} margins x frequencies {MARGIN_FREQS})", "",
            margin_front[["margin", "margin_freq", "mean_trees", "disagreement", "accuracy",
                          "fit_mean_trees", "fit_disagreement"]].to_markdown(
                index=False, floatfmt=".4f")]
    out.append(f"\nEnd: {load_text()}.")
    text = "\n".join(["# QWYC on UCI Adult (benchmarks/qwyc_adult.py)", "",
                      "gbm(over_50k ~ ., 500 trees, interaction_depth=31, shrinkage 0.05, "
                      "bag_fraction 1); optimised on the training rows, measured on the test "
                      "rows.", ""] + out)
    (ROOT / "benchmarks/results/qwyc_adult.md").write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
