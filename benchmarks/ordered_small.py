"""Benchmark: ordered against plain boosting on small and mid-size data sets that
the ordered-boosting work was not built on, pygbm and CatBoost on the same splits
(issue 25's "independent data sets ... run the same way"). Not a test.

Protocol of ``ordered_boosting.py`` (bernoulli, ``categorical="ordered_ts"``,
``interaction_depth=6``, shrinkage 0.05, bag fraction 0.5, ``max_bins=255``, at
most 1000 trees chosen on the last fifth of the training rows; CatBoost depth 6,
the same learning rate, Plain against Ordered, one thread), on a random 70 / 30
split per seed of each data set:

  pima           ``data/pima2.csv``, ``diabetes`` (768 rows, numeric, missing values)
  breast_cancer  ``data/breast_cancer.csv``, ``Class`` (699 rows, 1-10 scores as
                 numbers, missing values)
  spam           ``data/spam.csv``, ``type`` (4,601 rows, 57 numeric predictors)
  cps1988        ``data/cps1988.csv``, wage above its median (28,155 rows, two
                 numeric predictors and four factors)

The relative change is (ordered - plain) / plain of the test log loss (negative:
ordered better), per library and split; "pygbm - CatBoost" is the difference of
the two libraries' changes on the same split.

Run:  PYTHONPATH=. python benchmarks/ordered_small.py [--seeds 10] [--data pima spam]
      [--libraries pygbm pygbm_newton catboost] [--tag _name] [--merge earlier.csv ...]
      [--report-only]
Writes benchmarks/results/ordered_small.csv and .md.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ordered_boosting as ob  # noqa: E402

OUT = ob.OUT / "ordered_small"
TEST_SHARE = 0.3
#: the response column each data set gets (0/1)
RESPONSE = "y"
DATA_SETS = ("pima", "breast_cancer", "spam", "cps1988")


def load(name: str) -> pd.DataFrame:
    """The data set with a 0/1 column ``y`` and its string predictors as categoricals."""
    if name == "pima":
        d = pd.read_csv(ob.DATA / "pima2.csv").rename(columns={"diabetes": RESPONSE})
    elif name == "breast_cancer":
        d = pd.read_csv(ob.DATA / "breast_cancer.csv").rename(columns={"Class": RESPONSE})
    elif name == "spam":
        d = pd.read_csv(ob.DATA / "spam.csv").rename(columns={"type": RESPONSE})
    elif name == "cps1988":
        d = pd.read_csv(ob.DATA / "cps1988.csv")
        wage = d.pop("wage")
        d[RESPONSE] = (wage > wage.median()).astype(int)
    else:
        raise ValueError(f"unknown data set {name!r}; expected one of {DATA_SETS}")
    for c in d.columns:
        if not pd.api.types.is_numeric_dtype(d[c]):
            d[c] = pd.Categorical(d[c].astype(object))
    return d


def split(d: pd.DataFrame, seed: int):
    """A random 70 / 30 split, the training part in a random order."""
    rows = np.random.default_rng(seed).permutation(len(d))
    n_test = int(round(TEST_SHARE * len(d)))
    return (d.iloc[rows[n_test:]].reset_index(drop=True),
            d.iloc[rows[:n_test]].reset_index(drop=True))


def changes(df: pd.DataFrame, name: str, lib: str) -> pd.Series:
    """Per seed: 100 (ordered - plain) / plain of the library's test log loss."""
    g = df[(df.data == name) & (df.library == lib)]
    wide = g.pivot(index="seed", columns="boosting_type", values="logloss").dropna()
    return 100 * (wide["ordered"] - wide["plain"]) / wide["plain"]


def mean_se_p(x: pd.Series) -> str:
    if len(x) < 2:
        return f"{x.mean():+.2f}%"
    return (f"{x.mean():+.2f} +- {x.std(ddof=1) / np.sqrt(len(x)):.2f}% "
            f"(p {stats.ttest_1samp(x, 0).pvalue:.3g})")


#: the libraries a run can fit: pygbm (R's splits), pygbm with Newton splits, CatBoost
LIBRARIES = {"pygbm": ob.pygbm_fit,
             "pygbm_newton": functools.partial(ob.pygbm_fit, splits="newton"),
             "catboost": ob.catboost_fit}


def summarise(df: pd.DataFrame) -> str:
    libs = [lib for lib in LIBRARIES if lib in set(df.library)]
    ours = [lib for lib in libs if lib != "catboost"]
    peer = "catboost" in libs
    head = ["data", "rows", "seeds"]
    for lib in libs:
        head += [f"plain / ordered log loss, {lib}", f"{lib} change"]
    if peer:
        head += [f"{lib} - catboost (points)" for lib in ours]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in dict.fromkeys(df.data):
        g = df[df.data == name]
        cells = []
        ch = {}
        for lib in libs:
            m = g[g.library == lib].groupby("boosting_type").logloss.mean()
            ch[lib] = changes(df, name, lib)
            cells += [f"{m.get('plain', np.nan):.4f} / {m.get('ordered', np.nan):.4f}",
                      mean_se_p(ch[lib])]
        if peer:
            for lib in ours:
                diff = (ch[lib] - ch["catboost"]).dropna()
                cells.append(mean_se_p(diff).replace("%", ""))
        lines.append(f"| {name} | {int(g.n_rows.iloc[0])} | {len(ch[libs[0]])} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--data", nargs="+", default=list(DATA_SETS))
    ap.add_argument("--libraries", nargs="+", default=["pygbm", "catboost"],
                    choices=list(LIBRARIES),
                    help="pygbm_newton: pygbm with Newton splits in both modes")
    ap.add_argument("--tag", default="", help="suffix of this run's CSV")
    ap.add_argument("--merge", nargs="*", default=[],
                    help="earlier result CSVs whose rows join the report")
    ap.add_argument("--report-only", action="store_true")
    args = ap.parse_args()
    csv = OUT.parent / f"{OUT.name}{args.tag}.csv"
    points = []
    if not args.report_only:
        fit_args = argparse.Namespace(n_trees=1000, shrinkage=0.05, depth=ob.DEPTH,
                                      catboost_ctr_complexity=None,
                                      n_permutations=ob.N_PERMUTATIONS,
                                      fold_len_multiplier=ob.FOLD_LEN_MULTIPLIER,
                                      bag_fraction=ob.BAG_FRACTION)
        for name in args.data:
            d = load(name)
            for seed in range(args.seeds):
                train, test = split(d, seed)
                for lib in args.libraries:
                    for bt_lib, bt in (("plain", "Plain"), ("ordered", "Ordered")):
                        mode = bt if lib == "catboost" else bt_lib
                        loss, trees, cpu = LIBRARIES[lib](train, test, mode, seed, fit_args,
                                                          response=RESPONSE)
                        points.append(dict(data=name, n_rows=len(d), seed=seed, library=lib,
                                           boosting_type=bt_lib, logloss=loss, trees=trees,
                                           cpu_s=cpu, load=os.getloadavg()[0]))
                        print(points[-1], flush=True)
                pd.DataFrame(points).to_csv(csv, index=False)
    frames = [pd.read_csv(f) for f in args.merge]
    if points or not frames:
        frames.append(pd.read_csv(csv))
    df = pd.concat(frames, ignore_index=True)
    text = ("# Ordered against plain boosting on small and mid-size data "
            "(benchmarks/ordered_small.py)\n\n" + summarise(df) + "\n")
    OUT.parent.joinpath(f"{OUT.name}{args.tag}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
