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
``--splits newton`` fits pygbm with Newton splits in both modes (rows
labelled pygbm_newton); in ordered mode that is the cosine score on Newton
statistics, CatBoost's NewtonCosine (GPU only in CatBoost 1.2; its CPU
default, Cosine, is the score of R's splits). ``--n-permutations`` and
``--fold-len-multiplier`` change pygbm's ordered fits only (plain keeps the
defaults: the change is then against the same plain fit).

The time per tree of the two modes is benchmarks/ordered_time.py's.

Run:  PYTHONPATH=. python benchmarks/ordered_boosting.py [--seeds 10]
      [--fractions 1 0.1 0.03] [--n-trees 1000] [--shrinkage 0.05] [--depth 6]
      [--no-catboost | --no-pygbm] [--modes plain ordered] [--seed-start 0]
      [--splits gradient newton] [--n-permutations 4] [--fold-len-multiplier 2]
      [--bag-fraction 0.5]
      [--tag _name] [--merge earlier.csv ...] [--report-only]
Writes benchmarks/results/ordered_boosting.csv and .md.
"""
from __future__ import annotations

import argparse
import functools
import importlib
import os
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
#: pygbm's defaults of the ordered mode's options that --n-permutations and
#: --fold-len-multiplier change
N_PERMUTATIONS, FOLD_LEN_MULTIPLIER = 4, 2.0
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


#: pygbm's library label per split criterion (R's least squares on the working
#: response, or Newton splits: CatBoost's NewtonCosine in ordered mode)
PYGBM_LABELS = {"gradient": "pygbm", "newton": "pygbm_newton"}


def pygbm_fit(rows, test, boosting_type, seed, args, response=RESPONSE, splits="gradient"):
    t0 = time.process_time()
    distribution = {"name": "bernoulli", "splits": splits}
    ordered = {} if boosting_type == "plain" else \
        dict(n_permutations=args.n_permutations, fold_len_multiplier=args.fold_len_multiplier)
    fit = pygbm.gbm(f"{response} ~ .", rows, distribution=distribution, n_trees=args.n_trees,
                    interaction_depth=args.depth, shrinkage=args.shrinkage,
                    bag_fraction=args.bag_fraction, train_fraction=1 - VALID_FRACTION,
                    categorical="ordered_ts", max_bins=MAX_BINS, boosting_type=boosting_type,
                    random_state=seed, keep_data=False, progress=False, **ordered)
    cpu = time.process_time() - t0
    best = int(np.argmin(fit.valid_error)) + 1
    p = fit.predict(test, n_trees=best, type="response")
    return log_loss(test[response].to_numpy(), p), best, cpu


def catboost_fit(rows, test, boosting_type, seed, args, response=RESPONSE):
    from catboost import CatBoostClassifier, Pool

    n_fit = int(np.floor((1 - VALID_FRACTION) * len(rows)))
    x = rows.drop(columns=response)
    cats = [c for c in x.columns if isinstance(x[c].dtype, pd.CategoricalDtype)]

    def pool(frame, y):
        frame = frame.copy()
        for c in cats:
            frame[c] = frame[c].astype(object).where(frame[c].notna(), "NA").astype(str)
        return Pool(frame, y, cat_features=cats)

    y = rows[response].to_numpy()
    extra = {} if args.catboost_ctr_complexity is None else \
        dict(max_ctr_complexity=args.catboost_ctr_complexity)
    model = CatBoostClassifier(iterations=args.n_trees, learning_rate=args.shrinkage,
                               depth=args.depth, boosting_type=boosting_type, random_seed=seed,
                               thread_count=1, verbose=False, use_best_model=True,
                               allow_writing_files=False, **extra)
    t0 = time.process_time()
    model.fit(pool(x.iloc[:n_fit], y[:n_fit]), eval_set=pool(x.iloc[n_fit:], y[n_fit:]))
    cpu = time.process_time() - t0
    p = model.predict_proba(pool(test.drop(columns=response), test[response]))[:, 1]
    return log_loss(test[response].to_numpy(), p), int(model.get_best_iteration()) + 1, cpu


def have_catboost() -> bool:
    try:
        importlib.import_module("catboost")
    except ImportError:
        return False
    return True


def relative_changes(df: pd.DataFrame, lib: str, frac: float) -> pd.Series:
    """Per seed: 100 (ordered - plain) / plain of the test log loss."""
    g = df[(df.library == lib) & (df.fraction == frac)]
    wide = g.pivot(index="seed", columns="boosting_type", values="logloss")
    if not {"plain", "ordered"} <= set(wide.columns):
        return pd.Series(dtype=float)
    wide = wide.dropna()
    return 100 * (wide["ordered"] - wide["plain"]) / wide["plain"]


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
        rel = relative_changes(df, lib, frac)
        se = rel.std(ddof=1) / np.sqrt(len(rel)) if len(rel) > 1 else np.nan
        p = stats.ttest_rel(wide["ordered"], wide["plain"]).pvalue if len(rel) > 1 else np.nan
        lines.append(f"| {lib} | {frac:g} | {len(rel)} | {wide['plain'].mean():.4f} | "
                     f"{wide['ordered'].mean():.4f} | {rel.mean():+.2f} +- {se:.2f}% | "
                     f"{p:.3g} | {trees['plain'].mean():.0f} / {trees['ordered'].mean():.0f} |")
    peer = []
    peers = sorted(lib for lib in df.library.unique() if lib.startswith("catboost"))
    ours_libs = [lib for lib in PYGBM_LABELS.values() if lib in set(df.library)]
    for frac in sorted(df.fraction.unique(), reverse=True):
        for lib in ours_libs:
            for peer_lib in peers:
                ours, theirs = relative_changes(df, lib, frac), relative_changes(df, peer_lib,
                                                                                frac)
                both = ours.index.intersection(theirs.index)
                if len(both) > 1:
                    d = ours[both] - theirs[both]
                    peer.append(f"* fraction {frac:g}: {lib}'s change minus {peer_lib}'s on "
                                f"the same splits {d.mean():+.2f} +- "
                                f"{d.std(ddof=1) / np.sqrt(len(d)):.2f} points "
                                f"({len(d)} seeds)")
    if peer:
        lines += ["", "Peer gate (within 1 point of CatBoost's relative change):", ""] + peer
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--seed-start", type=int, default=0)
    ap.add_argument("--fractions", type=float, nargs="+", default=[1.0, 0.1, 0.03])
    ap.add_argument("--n-trees", type=int, default=1000)
    ap.add_argument("--shrinkage", type=float, default=0.05)
    ap.add_argument("--depth", type=int, default=DEPTH,
                    help="pygbm's interaction_depth and CatBoost's depth")
    ap.add_argument("--no-catboost", action="store_true")
    ap.add_argument("--modes", nargs="+", default=["plain", "ordered"],
                    choices=["plain", "ordered"],
                    help="boosting types to fit (a change of one mode joins the other's "
                         "earlier rows by --merge)")
    ap.add_argument("--splits", nargs="+", default=["gradient"], choices=list(PYGBM_LABELS),
                    help="pygbm's split criteria (newton: rows labelled pygbm_newton)")
    ap.add_argument("--n-permutations", type=int, default=N_PERMUTATIONS,
                    help="pygbm's ordered fits: n_permutations (plain keeps the default)")
    ap.add_argument("--fold-len-multiplier", type=float, default=FOLD_LEN_MULTIPLIER,
                    help="pygbm's ordered fits: fold_len_multiplier")
    ap.add_argument("--no-pygbm", action="store_true",
                    help="fit CatBoost only (its seeds joined to earlier pygbm CSVs by --merge)")
    ap.add_argument("--catboost-ctr-complexity", type=int, default=None,
                    help="CatBoost's max_ctr_complexity (1: no feature combinations, as "
                         "pygbm's ordered mode); its rows are labelled catboost_ctr<N>")
    ap.add_argument("--bag-fraction", type=float, default=BAG_FRACTION,
                    help="pygbm's bag fraction in both modes (CatBoost keeps its own)")
    ap.add_argument("--tag", default="")
    ap.add_argument("--merge", nargs="*", default=[],
                    help="earlier result CSVs whose rows join the report")
    ap.add_argument("--report-only", action="store_true",
                    help="write the report from the --merge CSVs, fit nothing")
    args = ap.parse_args()
    earlier = [pd.read_csv(f) for f in args.merge]
    OUT.mkdir(parents=True, exist_ok=True)
    records = []
    if not args.report_only:
        train, test = adult()
        libs = [] if args.no_pygbm else \
            [(PYGBM_LABELS[s], functools.partial(pygbm_fit, splits=s)) for s in args.splits]
        if not args.no_catboost and have_catboost():
            label = "catboost" if args.catboost_ctr_complexity is None else \
                f"catboost_ctr{args.catboost_ctr_complexity}"
            libs.append((label, catboost_fit))
        csv = OUT / f"ordered_boosting{args.tag}.csv"
        for frac in args.fractions:
            for seed in range(args.seed_start, args.seed_start + args.seeds):
                rows = subset(train, frac, seed)
                for lib, fit in libs:
                    for bt in args.modes:
                        name = bt if lib.startswith("pygbm") else bt.capitalize()
                        loss, trees, cpu = fit(rows, test, name, seed, args)
                        records.append(dict(library=lib, fraction=frac, seed=seed,
                                            boosting_type=bt, logloss=loss, trees=trees,
                                            cpu_s=cpu, load=os.getloadavg()[0]))
                        print(records[-1], flush=True)
                        pd.DataFrame(records).to_csv(csv, index=False)
    df = pd.concat(earlier + [pd.DataFrame(records)], ignore_index=True)
    md = ["# Ordered vs plain boosting on UCI Adult", "",
          f"depth {args.depth}, learning rate {args.shrinkage}, at most {args.n_trees} trees, "
          f"trees chosen on the last {VALID_FRACTION:.0%} of the training rows, "
          f"test log loss on the original test rows; pygbm: ordered_ts, bag {args.bag_fraction:g}, "
          f"max_bins {MAX_BINS}.", "", summarise(df), ""]
    (OUT / f"ordered_boosting{args.tag}.md").write_text("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
