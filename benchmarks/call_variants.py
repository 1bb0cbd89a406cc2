"""Issue 19's check on calls the statisticians' suite does not make: other
distributions, observation weights, ``train_fraction < 1``, factors of many
levels, missing values, a wide data set (pygbm against R gbm 2.1.8).

    python benchmarks/call_variants.py [--rounds 2] [--only NAME,...]

Each variant's data are cut from ``data/`` and written to a temporary CSV that
both systems read (R with ``stringsAsFactors = TRUE``; pandas' text columns are
factors to pygbm too). Every measurement is a fresh process (``call_variants.R``
or this file with ``--worker``) that reads the data, makes the same call with 2
trees (untimed warm-up), then times the call: ``shrinkage=0.01,
bag_fraction=0.5``, ``set.seed(1)`` / ``random_state=1``, one core, with
``cv_folds=5`` and ``gbm_perf(method="cv")`` ("cv") or a single fit ("fit").
The systems take turns, variant by variant; the minimum wall time over the
rounds counts. Writes ``benchmarks/results/call_variants.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT / "data"
SHRINKAGE, BAG_FRACTION, CV_FOLDS, SEED, WARMUP_TREES = 0.01, 0.5, 5, 1, 2
REGIMES = ("cv", "fit")


def _adult(rows: slice, drop=()):
    return pd.read_csv(DATA / "adult_train.csv").iloc[rows].drop(columns=list(drop))


def _diamonds_weighted():
    d = pd.read_csv(DATA / "diamonds.csv").iloc[::15].head(3000).copy()
    d["w"] = np.random.default_rng(7).uniform(0.5, 2.0, len(d)).round(3)
    return d


def _ticdata():
    t = pd.read_csv(DATA / "ticdata.csv")
    t["CARAVAN"] = (t["CARAVAN"] == "insurance").astype(int)
    return t


#: name -> (data, call); the call's keys are pygbm's (R's with dots)
VARIANTS = {
    "adult_5k_bernoulli": (lambda: _adult(slice(0, 5000)), dict(
        formula="over_50k ~ .", distribution="bernoulli", n_trees=1000, depth=3,
        note="factors of up to 41 levels")),
    "adult_3k_poisson": (lambda: _adult(slice(5000, 8000), drop=["over_50k"]), dict(
        formula="hours_per_week ~ .", distribution="poisson", n_trees=1000, depth=3,
        note="a count response, factors")),
    "cps_2k_laplace": (lambda: pd.read_csv(DATA / "cps1988.csv").iloc[::10].head(2000), dict(
        formula="log(wage) ~ .", distribution="laplace", n_trees=1000, depth=2,
        note="every 10th row, the first 2000")),
    "diamonds_3k_weights": (_diamonds_weighted, dict(
        formula="log(price) ~ carat + cut + color + clarity + depth + table",
        distribution="gaussian", n_trees=1000, depth=3, weights="w",
        note="every 15th row, the first 3000; weights uniform on (0.5, 2)")),
    "boston_quantile_train_fraction": (lambda: pd.read_csv(DATA / "boston.csv"), dict(
        formula="medv ~ .", distribution="quantile", alpha=0.25, n_trees=1000, depth=3,
        train_fraction=0.8, note="alpha 0.25, train_fraction 0.8")),
    "pbc_tdist_missing": (lambda: pd.read_csv(DATA / "pbc.csv"), dict(
        formula="log(bili) ~ age + albumin + copper + alk.phos + ast + trig + platelet + "
                "protime + sex + edema + stage",
        distribution="tdist", n_trees=1000, depth=2, note="predictors with missing values")),
    "ticdata_adaboost": (_ticdata, dict(
        formula="CARAVAN ~ .", distribution="adaboost", n_trees=500, depth=3,
        note="85 predictors, most of them factors")),
}


def pygbm_call(call: dict, df: pd.DataFrame, n_trees: int, cv: bool):
    """The variant's pygbm call (and gbm_perf with cv)."""
    import pygbm

    dist = call["distribution"]
    if dist == "quantile":
        dist = {"name": "quantile", "alpha": call["alpha"]}
    kw = dict(distribution=dist, n_trees=n_trees, interaction_depth=call["depth"],
              shrinkage=SHRINKAGE, bag_fraction=BAG_FRACTION,
              train_fraction=call.get("train_fraction", 1.0), n_cores=1, random_state=SEED,
              cv_folds=CV_FOLDS if cv else 0)
    if call.get("weights"):
        kw["weights"] = df[call["weights"]].to_numpy()
    fit = pygbm.gbm(call["formula"], df, **kw)
    if cv:
        pygbm.gbm_perf(fit, method="cv", plot_it=False)
    return fit


def worker(spec_path: str, name: str, regime: str) -> None:
    """One measurement in this process: read, warm up, time; print a JSON line."""
    spec = json.loads(Path(spec_path).read_text())[name]
    df = pd.read_csv(spec["csv"])
    cv = regime == "cv"
    pygbm_call(spec, df, WARMUP_TREES, cv)
    w0, c0 = time.perf_counter(), time.process_time()
    pygbm_call(spec, df, spec["n_trees"], cv)
    print(json.dumps({"wall": time.perf_counter() - w0, "cpu": time.process_time() - c0}))


def measure(system: str, spec_path: str, name: str, regime: str) -> dict:
    if system == "r":
        cmd = ["Rscript", str(HERE / "call_variants.R"), spec_path, name, regime]
    else:
        cmd = [sys.executable, __file__, "--worker", spec_path, name, regime]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    return json.loads(out.stdout.strip().splitlines()[-1])


def report(rows: pd.DataFrame, started: str, rounds: int, loads: list) -> str:
    best = rows.groupby(["variant", "regime", "system"])["wall"].min().unstack("system")
    lines = ["# pygbm and R gbm on call variants (benchmarks/call_variants.py)", "",
             f"Run {started}, {rounds} round(s), 1-minute load {min(loads):.1f}-{max(loads):.1f}"
             f" (2-core machine); fresh process per measurement, warm (after a 2-tree call); "
             "minimum wall seconds over the rounds; shrinkage 0.01, bag fraction 0.5, one "
             "core, cv = `cv_folds=5` + `gbm_perf(method=\"cv\")`.", "",
             "| variant | rows | call | R cv s | pygbm cv s | cv ÷ | R fit s | pygbm fit s | "
             "fit ÷ |", "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    ratios = []
    for name, (_, call) in VARIANTS.items():
        if (name, "cv") not in best.index:
            continue
        cells = []
        for regime in REGIMES:
            r, p = best.loc[(name, regime), "r"], best.loc[(name, regime), "pygbm"]
            ratios.append(p / r)
            cells += [f"{r:.3g}", f"{p:.3g}", f"**{p / r:.2f}**"]
        what = (f"`{call['formula']}`, {call['distribution']}, {call['n_trees']} trees, depth "
                f"{call['depth']}; {call['note']}")
        n = int(rows.loc[rows["variant"] == name, "rows"].iloc[0])
        lines.append(f"| {name} | {n:,} | {what} | " + " | ".join(cells) + " |")
    geo = float(np.exp(np.mean(np.log(ratios))))
    lines += ["", f"pygbm ÷ R over every cell: {min(ratios):.2f}-{max(ratios):.2f}, "
              f"geometric mean {geo:.2f}."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    names = [n for n in VARIANTS if not args.only or n in args.only.split(",")]
    started = time.strftime("%Y-%m-%d %H:%M")
    rows, loads = [], []
    with tempfile.TemporaryDirectory() as tmp:
        specs = {}
        for name in names:
            make, call = VARIANTS[name]
            csv = os.path.join(tmp, f"{name}.csv")
            df = make()
            df.to_csv(csv, index=False)
            specs[name] = dict(call, csv=csv, n_rows=len(df))
        spec_path = os.path.join(tmp, "specs.json")
        Path(spec_path).write_text(json.dumps(specs))
        for rnd in range(args.rounds):
            for name in names:
                for regime in REGIMES:
                    order = ("r", "pygbm") if rnd % 2 == 0 else ("pygbm", "r")
                    for system in order:
                        loads.append(os.getloadavg()[0])
                        m = measure(system, spec_path, name, regime)
                        rows.append(dict(variant=name, regime=regime, system=system,
                                         round=rnd, rows=specs[name]["n_rows"], **m))
                        print(f"{name} {regime} {system} round {rnd}: {m['wall']:.3f} s",
                              flush=True)
    text = report(pd.DataFrame(rows), started, args.rounds, loads)
    (HERE / "results" / "call_variants.md").write_text(text)
    print(text)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(*sys.argv[2:5])
    else:
        main()
