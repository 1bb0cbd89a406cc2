"""Benchmark: ordered boosting (``boosting_type="ordered"``) against plain
boosting on UCI Adult, and CatBoost's Ordered against its Plain on the same
splits (issue 25; the paper's Table 3 and Figure 2). Not a test.

Protocol, per subset fraction and seed: the original Adult training rows
(or a random ``fraction`` of them), shuffled by the seed; the last fifth of
them chooses the number of trees (pygbm: ``train_fraction=0.8`` and the
best validation iteration; CatBoost: ``eval_set`` with ``use_best_model``);
the score is the log loss on the 16,281 original test rows. pygbm:
bernoulli, ``categorical="ordered_ts"``, ``interaction_depth=6`` (R's
meaning: 6 splits), shrinkage ``--shrinkage``, bag fraction 0.5, at most
``--n-trees`` trees, ``max_bins=255`` for both modes (ordered boosting runs
on the histogram search). CatBoost (if installed; ``pip install
catboost``): depth 6, the same learning rate, native categoricals,
``boosting_type`` "Plain" / "Ordered". The relative change is
(ordered - plain) / plain of the test log loss (negative: ordered better).

Time per tree: CPU seconds of a fit of ``--time-trees`` trees minus a fit
of 10 trees, per extra tree, on the full 26,049 x 14 training part.

Run:  PYTHONPATH=. python benchmarks/ordered_boosting.py [--seeds 10]
      [--fractions 1 0.1 0.03] [--n-trees 1000] [--shrinkage 0.05]
Writes benchmarks/results/ordered_boosting.csv and .md.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import pygbm

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data"
OUT = ROOT / "benchmarks" / "results"
RESPONSE = "over_50k"
DEPTH = 6
BAG_FRACTION = 0.5
VALID_FRACTION = 0.2
MAX_BINS = 255
EPS = 1e-15


def adult():
    train = pd.read_csv(DATA / "adult_train.csv")
    test = pd.read_csv(DATA / "adult_test.csv")
    for c in train.columns:
        if not pd.api.types.is_numeric_dtype(train[c]):
            levels = sorted(set(train[c].dropna()) | set(test[c].dropna()))
            train[c] = pd.Categorical(train[c], categories=levels)
            test[c] = pd.Categorical(test[c], categories=levels)
    return train, test


def log_loss(y, p):
    p = np.clip(p, EPS, 1 - EPS)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def subset(train, fraction, seed):
    rng = np.random.default_rng(seed)
    n = len(train) if fraction >= 1 else int(round(fraction * len(train)))
    rows = rng.permutation(len(train))[:n]
    return train.iloc[rows].reset_index(drop=True)


def pygbm_fit(rows, test, boosting_type, seed, args):
    t0 = time.process_time()
    fit = pygbm.gbm(f"{RESPONSE} ~ .", rows, distribution="bernoulli", n_trees=args.n_trees,
                    interaction_depth=DEPTH, shrinkage=args.shrinkage,
                    bag_fraction=BAG_FRACTION, train_fraction=1 - VALID_FRACTION,
                    categorical="ordered_ts", max_bins=MAX_BINS, boosting_type=boosting_type,
                    random_state=seed, keep_data=False)
    cpu = time.process_time() - t0
    best = int(np.argmin(fit.valid_error)) + 1
    p = fit.predict(test, n_trees=best, type="response")
    return log_loss(test[RESPONSE].to_numpy(), p), best, cpu


def catboost_fit(rows, test, boosting_type, seed, args):
    from catboost import CatBoostClassifier, Pool

    n_fit = int(np.floor((1 - VALID_FRACTION) * len(rows)))
    x = rows.drop(columns=RESPONSE)
    cats = [c for c in x.columns if isinstance(x[c].dtype, pd.CategoricalDtype)]

    def pool(frame, y):
        frame = frame.copy()
        for c in cats:
            frame[c] = frame[c].astype(object).where(frame[c].notna(), "NA").astype(str)
        return Pool(frame, y, cat_features=cats)

    y = rows[RESPONSE].to_numpy()
    model = CatBoostClassifier(iterations=args.n_trees, learning_rate=args.shrinkage,
                               depth=DEPTH, boosting_type=boosting_type, random_seed=seed,
                               thread_count=1, verbose=False, use_best_model=True,
                               allow_writing_files=False)
    t0 = time.process_time()
    model.fit(pool(x.iloc[:n_fit], y[:n_fit]), eval_set=pool(x.iloc[n_fit:], y[n_fit:]))
    cpu = time.process_time() - t0
    p = model.predict_proba(pool(test.drop(columns=RESPONSE), test[RESPONSE]))[:, 1]
    return log_loss(test[RESPONSE].to_numpy(), p), int(model.get_best_iteration()) + 1, cpu


def have_catboost() -> bool:
    try:
        import catboost  # noqa: F401
    except ImportError:
        return False
    return True


def time_per_tree(train, args):
    rows = subset(train, 1.0, 0)
    out = {}
    for bt in ("plain", "ordered"):
        cpu = []
        for n in (10, args.time_trees):
            t0 = time.process_time()
            pygbm.gbm(f"{RESPONSE} ~ .", rows, distribution="bernoulli", n_trees=n,
                      interaction_depth=DEPTH, shrinkage=args.shrinkage,
                      bag_fraction=BAG_FRACTION, train_fraction=1 - VALID_FRACTION,
                      categorical="ordered_ts", max_bins=MAX_BINS, boosting_type=bt,
                      random_state=1, keep_data=False)
            cpu.append(time.process_time() - t0)
        out[bt] = (cpu[1] - cpu[0]) / (args.time_trees - 10)
    return out


def summarise(df: pd.DataFrame) -> str:
    from scipy import stats

    lines = ["| library | fraction | seeds | plain logloss | ordered logloss | "
             "relative change (mean +- se) | paired t p | mean trees plain/ordered |",
             "|---|---|---|---|---|---|---|---|"]
    for (lib, frac), g in df.groupby(["library", "fraction"]):
        wide = g.pivot(index="seed", columns="boosting_type", values="logloss").dropna()
        trees = g.pivot(index="seed", columns="boosting_type", values="trees").dropna()
        if wide.shape[0] == 0 or not {"plain", "ordered"} <= set(wide.columns):
            continue
        rel = 100 * (wide["ordered"] - wide["plain"]) / wide["plain"]
        se = rel.std(ddof=1) / np.sqrt(len(rel)) if len(rel) > 1 else np.nan
        p = stats.ttest_rel(wide["ordered"], wide["plain"]).pvalue if len(rel) > 1 else np.nan
        lines.append(f"| {lib} | {frac:g} | {len(rel)} | {wide['plain'].mean():.4f} | "
                     f"{wide['ordered'].mean():.4f} | {rel.mean():+.2f} +- {se:.2f}% | "
                     f"{p:.3g} | {trees['plain'].mean():.0f} / {trees['ordered'].mean():.0f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--seed-start", type=int, default=0)
    ap.add_argument("--fractions", type=float, nargs="+", default=[1.0, 0.1, 0.03])
    ap.add_argument("--n-trees", type=int, default=1000)
    ap.add_argument("--shrinkage", type=float, default=0.05)
    ap.add_argument("--time-trees", type=int, default=110)
    ap.add_argument("--no-catboost", action="store_true")
    ap.add_argument("--tag", default="")
    args = ap.parse_args()
    train, test = adult()
    libs = [("pygbm", pygbm_fit)]
    if not args.no_catboost and have_catboost():
        libs.append(("catboost", catboost_fit))
    OUT.mkdir(parents=True, exist_ok=True)
    csv = OUT / f"ordered_boosting{args.tag}.csv"
    records = []
    for frac in args.fractions:
        for seed in range(args.seed_start, args.seed_start + args.seeds):
            rows = subset(train, frac, seed)
            for lib, fit in libs:
                for bt in ("plain", "ordered"):
                    name = bt if lib == "pygbm" else bt.capitalize()
                    loss, trees, cpu = fit(rows, test, name, seed, args)
                    records.append(dict(library=lib, fraction=frac, seed=seed,
                                        boosting_type=bt, logloss=loss, trees=trees, cpu_s=cpu))
                    print(records[-1], flush=True)
                    pd.DataFrame(records).to_csv(csv, index=False)
    df = pd.DataFrame(records)
    md = ["# Ordered vs plain boosting on UCI Adult", "",
          f"depth {DEPTH}, learning rate {args.shrinkage}, at most {args.n_trees} trees, "
          f"trees chosen on the last {VALID_FRACTION:.0%} of the training rows, "
          "test log loss on the original test rows; pygbm: ordered_ts, bag 0.5, "
          f"max_bins {MAX_BINS}.", "", summarise(df), ""]
    if args.time_trees > 10:
        tpt = time_per_tree(train, args)
        md += [f"Time per tree (CPU, 26,049 x 14): plain {tpt['plain'] * 1e3:.1f} ms, "
               f"ordered {tpt['ordered'] * 1e3:.1f} ms, ratio "
               f"{tpt['ordered'] / tpt['plain']:.2f}", ""]
    (OUT / f"ordered_boosting{args.tag}.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
