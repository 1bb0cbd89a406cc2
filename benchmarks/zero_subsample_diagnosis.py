"""Where importance weights lose on flights (issue 23): the experiments behind
``docs/zero_subsampling.md``, section "Why importance weights lose on flights".

The flights problem of ``benchmarks/zero_subsample.py`` (65% training, 10%
validation, 25% test; ``gbm("cancelled ~ .", data)``, bernoulli), l = 0.1 with
importance weights against the full fit, three seeds each (the fit's
``random_state``, so also the subsample). Parts (``--part``):

* ``variants``: the design settings (400 trees, depth 3, shrinkage 0.05, bag
  0.5, ``max_bins=255`` unless said otherwise) and one change at a time. Each
  fit is read at its last tree and at the number of trees its own validation
  deviance picks (the 10% validation rows, never subsampled; every n_trees/40
  trees), and the test deviances compared.
  ``newton`` and ``no_dest_newton`` grow the trees on the Newton response
  (``{"name": "bernoulli", "splits": "newton"}``: not R's split criterion).
* ``decompose``: seed 1, design settings: where on the test rows the
  subsampled fit's excess deviance falls (by the response, the destination's
  training size, the origin-day's cancellation rate, the most costly rows),
  the predictors' relative influence and the trees' leaf values.
* ``variance``: the large-sample variance of the importance-weighted
  estimate of a logit against the full data's, 1 + p (1/l - 1) at a row of
  probability p, averaged over the rows (Fisher-information weighted) for
  the simulation's truth and the flights full fit's probabilities.
* ``clustering``: the bernoulli simulation of ``zero_subsample.py`` (2%
  positives, no categoricals, no missing values) with steeper and steeper
  slopes of the logit on the signal, so that more of the positives fall where
  the probability is above l: the variance factor (truth), the full fit's and
  the subsampled fit's excess over the true model, and their ratio.
* ``lightgbm``: the same kept rows and weights fitted by LightGBM (4 leaves,
  400 rounds, learning rate 0.05, bagging 0.5), with its defaults and with
  settings closer to R gbm (no categorical smoothing, 10 rows per leaf).
* ``refit``: design settings, with and without ``dest``: how much of the excess is the
  leaf values and how much the trees' shape? The importance-weighted fit's trees
  kept, their leaf values estimated again tree after tree on all training rows
  (a Newton step of the full data's gradients, shrunken; no bag, or a bag of
  half the rows), the way LightGBM's ``Booster.refit`` re-estimates leaves. And
  the zeros kept within each ``dest`` level, round(l n) of its n zeros (the
  level's weighted count of zeros then exact), importance weights as the
  feature's: does the levels' sampling noise cause the excess?
* ``calibrated``: design settings; can ``calibrate`` undo the excess? The full and
  the importance-weighted fit calibrated on the 10% validation rows (20 bins, flat
  ends), and the importance-weighted fit on those rows with their zeros kept at l
  (``subsampled=l``); test deviances relative to the uncalibrated full fit.

    python benchmarks/zero_subsample_diagnosis.py --part variants [--only base no_dest]
    python benchmarks/zero_subsample_diagnosis.py --part decompose   # variance, clustering, lightgbm, refit, calibrated
    python benchmarks/zero_subsample_diagnosis.py                    # only writes the report

Each part writes ``benchmarks/results/zero_subsample_diagnosis_{part}.csv``
(``variants`` keeps the variants not re-run); then
``benchmarks/results/zero_subsample_diagnosis.md`` is written from what is there.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import zero_subsample as zs  # noqa: E402  (puts the repository on sys.path)
import pygbm  # noqa: E402
from pygbm.engine.tree import ColumnView, terminal_nodes  # noqa: E402

RESULTS = zs.RESULTS
RATE = 0.1
SEEDS = (1, 2, 3)
DESIGN = dict(zs.SETTINGS["design"], max_bins=zs.MAX_BINS)
#: the deviance curve is read every n_trees / CURVE_STEPS trees
CURVE_STEPS = 40
#: a test row's cancellation context: its origin-day's rate (all rows), in these bins
DAY_RATE_BINS = [-1, 0.01, 0.05, 0.1, 0.2, 0.4, 1.1]
#: destinations by their number of training rows
DEST_SIZE_BINS = [-1, 300, 1000, 3000, 10_000, 1e9]
#: the simulation's truth is read on this many rows
SIM_ROWS = 200_000

#: R's bernoulli with its trees grown on the Newton response
NEWTON = {"name": "bernoulli", "splits": "newton"}

#: name -> (what changes, settings changed, predictors dropped, missing values filled)
VARIANTS = {
    "base": ("design settings, binned", {}, (), False),
    "base_exact": ("design settings, exact mode", {"max_bins": None}, (), False),
    "no_dest": ("without `dest`", {}, ("dest",), False),
    "dest_ordered_ts": ("categorical='ordered_ts'", {"categorical": "ordered_ts"}, (), False),
    "no_day": ("without `day`", {}, ("day",), False),
    "no_missing": ("NaN filled with -999 (no missing child)", {}, (), True),
    "minobs50": ("n_minobsinnode=50", {"n_minobsinnode": 50}, (), False),
    "minobs200": ("n_minobsinnode=200", {"n_minobsinnode": 200}, (), False),
    "bag1": ("bag_fraction=1", {"bag_fraction": 1.0}, (), False),
    "depth2": ("interaction_depth=2", {"interaction_depth": 2}, (), False),
    "slow": ("shrinkage 0.01, 2000 trees", {"shrinkage": 0.01, "n_trees": 2000}, (), False),
    "no_dest_1200": ("without `dest`, 1200 trees", {"n_trees": 1200}, ("dest",), False),
    "no_dest_minobs200": ("without `dest`, n_minobsinnode=200", {"n_minobsinnode": 200},
                          ("dest",), False),
    "no_dest_bag1": ("without `dest`, bag_fraction=1", {"bag_fraction": 1.0}, ("dest",), False),
    "newton": ("trees grown on the Newton response (not R's split criterion)",
               {"distribution": NEWTON}, (), False),
    "no_dest_newton": ("without `dest`, Newton splits",
                       {"distribution": NEWTON}, ("dest",), False),
    "ordered_ts_newton": ("categorical='ordered_ts', Newton splits",
                          {"categorical": "ordered_ts", "distribution": NEWTON}, (), False),
}


def frames(problem, drop, fill):
    out = []
    for d in (problem.x, problem.x_cal, problem.x_test):
        d = d.drop(columns=list(drop))
        if fill:
            d = d.assign(**{c: d[c].fillna(-999.0) for c in d.columns if d[c].dtype.kind == "f"})
        out.append(d)
    return out


def fit(problem, seed, rate, settings, drop=(), fill=False):
    """One fit and its test and validation deviance curves."""
    x, xv, xt = frames(problem, drop, fill)
    s = {k: v for k, v in {**DESIGN, "distribution": "bernoulli", **settings}.items()
         if v is not None}
    sub = {} if rate is None else dict(zero_subsample=rate, zero_weight="importance")
    c0 = time.process_time()
    m = pygbm.gbm("cancelled ~ .", x, random_state=seed, **s, **sub)
    cpu = time.process_time() - c0
    n = s["n_trees"]
    step = max(1, n // CURVE_STEPS)
    grid = list(range(step, n + 1, step))
    pt, pv = m.predict(xt, grid, type="response"), m.predict(xv, grid, type="response")
    dt = np.array([zs.deviance("bernoulli", problem.y_test, pt[:, i]) for i in range(len(grid))])
    dv = np.array([zs.deviance("bernoulli", problem.y_cal, pv[:, i]) for i in range(len(grid))])
    k = int(np.argmin(dv))
    return m, dict(cpu=cpu, test_last=dt[-1], trees_val=grid[k], test_val=dt[k],
                   mean_ratio=float(pt[:, -1].mean() / problem.y_test.mean()))


# ---------------------------------------------------------------- parts
def part_variants(problem, only):
    rows = []
    for name in only:
        what, settings, drop, fill = VARIANTS[name]
        for seed in SEEDS:
            for rate in (None, RATE):
                _, r = fit(problem, seed, rate, settings, drop, fill)
                rows.append(dict(variant=name, seed=seed, l=rate or 1.0, load=os.getloadavg()[0],
                                 **r))
                print(f"  {name:18s} seed={seed} l={rate or 1:<4g} {r}", flush=True)
    new = pd.DataFrame(rows)
    path = RESULTS / "zero_subsample_diagnosis_variants.csv"
    if path.exists():
        old = pd.read_csv(path)
        new = pd.concat([old[~old.variant.isin(only)], new])
    new.to_csv(path, index=False)


def _excess_table(frame, by, d):
    g = frame.groupby(by, observed=True).agg(rows=("d", "size"), positives=("y", "sum"),
                                             excess=("d", "sum"), mean_y=("y", "mean"),
                                             mean_p_full=("pf", "mean"),
                                             mean_p_importance=("pi", "mean"))
    g["excess_per_row"] = g.excess / g.rows
    g["share"] = g.excess / d.sum()
    return g.reset_index().rename(columns={by: "group"}).assign(by=by)


def part_decompose(problem):
    seed, out = SEEDS[0], []
    models = {rate: fit(problem, seed, rate, {})[0] for rate in (None, RATE)}
    y = problem.y_test
    p = {r: m.predict(problem.x_test, DESIGN["n_trees"], type="response")
         for r, m in models.items()}

    def row_dev(q):
        q = np.clip(q, 1e-15, 1 - 1e-15)
        return -2 * (y * np.log(q) + (1 - y) * np.log1p(-q))

    d = row_dev(p[RATE]) - row_dev(p[None])
    everything = pd.concat([problem.x, problem.x_cal, problem.x_test])
    day_rate = everything.groupby(["origin", "month", "day"], observed=True).cancelled.mean()
    t = problem.x_test.join(day_rate.rename("day_rate"), on=["origin", "month", "day"])
    size = problem.x.dest.astype(str).value_counts()
    frame = pd.DataFrame({"d": d, "y": y, "pf": p[None], "pi": p[RATE],
                          "response": np.where(y == 1, "cancelled", "not cancelled"),
                          "origin_day_rate": pd.cut(t.day_rate, DAY_RATE_BINS).astype(str),
                          "dest_training_rows": pd.cut(
                              t.dest.astype(str).map(size).fillna(0), DEST_SIZE_BINS).astype(str)})
    for by in ("response", "origin_day_rate", "dest_training_rows"):
        out.append(_excess_table(frame, by, d))
    top = np.sort(d)[::-1]
    stats = {"excess per test row": d.mean(), "full fit test deviance": row_dev(p[None]).mean(),
             "share of the excess on the costliest 0.1% of test rows": top[:len(d) // 1000].sum()
             / d.sum(),
             "share on the costliest 1%": top[:len(d) // 100].sum() / d.sum()}
    for r, m in models.items():
        tag = "full" if r is None else "importance"
        inf = pygbm.relative_influence(m, n_trees=DESIGN["n_trees"])
        stats[f"{tag}: relative influence of dest"] = float(inf["dest"] / inf.sum())
        dvar = m.var_names.index("dest")
        leaves = np.concatenate([tr.split_code_pred[tr.is_terminal] for tr in m.trees]) \
            / DESIGN["shrinkage"]
        splits = np.concatenate([tr.split_var[~tr.is_terminal] for tr in m.trees])
        stats[f"{tag}: splits on dest (of {splits.size})"] = int((splits == dvar).sum())
        stats[f"{tag}: leaves with a Newton step above 5 (of {leaves.size})"] = int((leaves > 5).sum())
        stats[f"{tag}: mean prediction / mean response (test)"] = float(p[r].mean() / y.mean())
    out.append(pd.DataFrame({"by": "summary", "group": list(stats), "excess": list(stats.values())}))
    pd.concat(out).to_csv(RESULTS / "zero_subsample_diagnosis_decompose.csv", index=False)


def variance_factor(p):
    info = p * (1 - p)
    factor = 1 + p * (1 / RATE - 1)
    return dict(mean_p=p.mean(), factor_information=np.sum(info * factor) / info.sum(),
                factor_positives=np.sum(p * factor) / p.sum(),
                positives_above_l=p[p > RATE].sum() / p.sum(),
                positives_above_0_2=p[p > 0.2].sum() / p.sum())


def part_variance(problem):
    rows = []
    _, _, mu = zs.simulate("bernoulli", SIM_ROWS, np.random.default_rng(5), zs._intercepts())
    rows.append(dict(what="simulation, bernoulli (truth)", **variance_factor(mu)))
    for label, settings, drop in (("design", {}, ()),
                                  ("without dest, 1200 trees", {"n_trees": 1200}, ("dest",))):
        m, _ = fit(problem, SEEDS[0], None, settings, drop)
        n = dict(DESIGN, **settings)["n_trees"]
        q = m.predict(problem.x_test.drop(columns=list(drop)), n, type="response")
        rows.append(dict(what=f"flights, full fit ({label}) on the test rows", **variance_factor(q)))
    pd.DataFrame(rows).to_csv(RESULTS / "zero_subsample_diagnosis_variance.csv", index=False)


#: slopes of the simulated logit on the signal (zero_subsample.py's is 1.5)
SLOPES = (1.5, 2.5, 4.0)
#: simulated training and test rows
SIM_TRAIN, SIM_TEST = 200_000, 200_000


def _simulated(slope, n, rng):
    """Friedman-type signal, logit = c + slope * signal with c giving P_POSITIVE."""
    x = rng.uniform(size=(n, zs.N_PRED))
    z = zs._signal(x)
    lo, hi = -30.0, 5.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.mean(1 / (1 + np.exp(-(mid + slope * z)))) < zs.P_POSITIVE \
            else (lo, mid)
    mu = 1 / (1 + np.exp(-((lo + hi) / 2 + slope * z)))
    y = (rng.uniform(size=n) < mu).astype(float)
    return pd.DataFrame(x, columns=[f"x{i + 1}" for i in range(zs.N_PRED)]), y, mu


def part_clustering(problem):
    rows = []
    for slope in SLOPES:
        rng = np.random.default_rng(2026)
        x, y, _ = _simulated(slope, SIM_TRAIN, rng)
        xt, yt, mut = _simulated(slope, SIM_TEST, rng)
        true_dev = zs.deviance("bernoulli", yt, mut)
        for seed in SEEDS:
            dev = {}
            for rate in (None, RATE):
                sub = {} if rate is None else dict(zero_subsample=rate, zero_weight="importance")
                m = pygbm.gbm_fit(x, y, distribution="bernoulli", random_state=seed, **DESIGN,
                                  **sub)
                dev[rate] = zs.deviance("bernoulli", yt, m.predict(xt, DESIGN["n_trees"],
                                                                    type="response"))
            rows.append(dict(slope=slope, seed=seed, **variance_factor(mut), true=true_dev,
                             full=dev[None], importance=dev[RATE],
                             rel=dev[RATE] / dev[None] - 1,
                             excess_ratio=(dev[RATE] - true_dev) / (dev[None] - true_dev)))
            print(rows[-1], flush=True)
    pd.DataFrame(rows).to_csv(RESULTS / "zero_subsample_diagnosis_clustering.csv", index=False)


#: LightGBM closer to R gbm: no smoothing or regularisation of categorical
#: splits, at least 10 rows per leaf, no hessian floor
LGB_R_LIKE = dict(cat_smooth=0, cat_l2=0, min_data_per_group=1, max_cat_threshold=128,
                  min_data_in_leaf=10, min_sum_hessian_in_leaf=0)


def part_lightgbm(problem):
    import lightgbm as lgb

    y, rows = problem.y, []
    for drop in ((), ("dest",)):
        x, _, xt = frames(problem, ("cancelled", *drop), False)
        for label, extra in (("defaults", {}), ("R-like", LGB_R_LIKE)):
            for seed in SEEDS:
                m = fit(problem, seed, RATE, {"n_trees": 1}, drop)[0]
                keep = m.zero_sample.kept              # pygbm's kept rows of this seed
                params = dict(objective="binary", num_leaves=4, learning_rate=0.05,
                              bagging_fraction=0.5, bagging_freq=1, seed=seed, num_threads=1,
                              verbose=-1, **extra)
                dev = {}
                for rate, rows_, w in ((1.0, np.arange(len(y)), None),
                                       (RATE, keep, np.where(y[keep] == 0, 1 / RATE, 1.0))):
                    b = lgb.train(params, lgb.Dataset(x.iloc[rows_], y[rows_], weight=w),
                                  num_boost_round=DESIGN["n_trees"])
                    dev[rate] = zs.deviance("bernoulli", problem.y_test, b.predict(xt))
                rows.append(dict(predictors="without dest" if drop else "all", lightgbm=label,
                                 seed=seed, full=dev[1.0], importance=dev[RATE],
                                 rel=dev[RATE] / dev[1.0] - 1))
                print(rows[-1], flush=True)
    pd.DataFrame(rows).to_csv(RESULTS / "zero_subsample_diagnosis_lightgbm.csv", index=False)


def _refit_leaves(model, x, y, bag, seed):
    """The leaf values of ``model``'s trees estimated again on the rows ``x``, ``y``
    (bernoulli), tree after tree: each leaf's Newton step of the gradients at the
    refitted model so far, shrunken; ``bag`` < 1 draws that share of the rows per
    tree. Returns the new node values, one array per tree."""
    view = ColumnView(model.to_engine(model._design(x)), model.engine_var_type)
    f = np.full(len(y), model.init_f)
    rng, values = np.random.default_rng(seed), []
    for tree in model.trees:
        leaf = terminal_nodes(tree, view, model.c_splits)
        p = 1 / (1 + np.exp(-f))
        use = rng.uniform(size=len(y)) < bag if bag < 1 else slice(None)
        num = np.bincount(leaf[use], weights=(y - p)[use], minlength=tree.n_nodes)
        den = np.bincount(leaf[use], weights=(p * (1 - p))[use], minlength=tree.n_nodes)
        step = np.divide(num, den, out=np.zeros_like(num), where=den > 0)
        values.append(np.where(tree.is_terminal, model.shrinkage * step, 0.0))
        f += values[-1][leaf]
    return values


def _refit_predict(model, values, x):
    view = ColumnView(model.to_engine(model._design(x)), model.engine_var_type)
    f = np.full(view.n_rows, model.init_f)
    for tree, v in zip(model.trees, values):
        f += v[terminal_nodes(tree, view, model.c_splits)]
    return 1 / (1 + np.exp(-f))


def _kept_within_levels(y, levels, rate, rng):
    """Every non-zero row, and round(rate n) of each level's n zeros, chosen at random."""
    keep = y != 0
    for level in np.unique(levels[y == 0]):
        zeros = np.flatnonzero((levels == level) & (y == 0))
        keep[rng.choice(zeros, int(round(rate * len(zeros))), replace=False)] = True
    return np.flatnonzero(keep)


def part_refit(problem):
    rows = []
    for drop in ((), ("dest",)):
        x, _, xt = frames(problem, drop, False)
        for seed in SEEDS:
            full, _ = fit(problem, seed, None, {}, drop)
            imp, _ = fit(problem, seed, RATE, {}, drop)
            n = DESIGN["n_trees"]
            dev = {"full": zs.deviance("bernoulli", problem.y_test,
                                       full.predict(xt, n, type="response")),
                   "importance": zs.deviance("bernoulli", problem.y_test,
                                             imp.predict(xt, n, type="response"))}
            for bag in (1.0, 0.5):
                c0 = time.process_time()
                values = _refit_leaves(imp, x, problem.y, bag, seed)
                cpu = time.process_time() - c0
                dev[f"importance, leaves refitted on all rows (bag {bag:g})"] = zs.deviance(
                    "bernoulli", problem.y_test, _refit_predict(imp, values, xt))
                print(f"  refit bag {bag}: {cpu:.1f} s CPU", flush=True)
            if not drop:
                kept = _kept_within_levels(problem.y, x["dest"].astype(str).to_numpy(), RATE,
                                           np.random.default_rng(seed))
                w = np.where(problem.y[kept] == 0, 1 / RATE, 1.0)
                s = {k: v for k, v in {**DESIGN, "distribution": "bernoulli"}.items()
                     if v is not None}
                m = pygbm.gbm("cancelled ~ .", x.iloc[kept].reset_index(drop=True),
                              weights=w, random_state=seed, **s)
                dev["importance, zeros kept within each dest level"] = zs.deviance(
                    "bernoulli", problem.y_test, m.predict(xt, n, type="response"))
            for method, d in dev.items():
                rows.append(dict(predictors="without dest" if drop else "all", method=method,
                                 seed=seed, deviance=d, rel=d / dev["full"] - 1))
                print(rows[-1], flush=True)
    pd.DataFrame(rows).to_csv(RESULTS / "zero_subsample_diagnosis_refit.csv", index=False)


def part_calibrated(problem):
    rows = []
    for seed in SEEDS:
        full, _ = fit(problem, seed, None, {})
        imp, _ = fit(problem, seed, RATE, {})
        keep = (problem.y_cal != 0) | (np.random.default_rng(seed).uniform(
            size=len(problem.y_cal)) < RATE)
        xv, xt, n = problem.x_cal, problem.x_test, DESIGN["n_trees"]
        preds = {
            "full": full.predict(xt, n, type="response"),
            "full + calibrate": pygbm.calibrate(full, xv, n_trees=n).predict(xt),
            "importance": imp.predict(xt, n, type="response"),
            "importance + calibrate": pygbm.calibrate(imp, xv, n_trees=n).predict(xt),
            "importance + calibrate (sample subsampled too)": pygbm.calibrate(
                imp, xv[keep], n_trees=n, subsampled=RATE).predict(xt)}
        base = zs.deviance("bernoulli", problem.y_test, preds["full"])
        for method, p in preds.items():
            dev = zs.deviance("bernoulli", problem.y_test, p)
            rows.append(dict(method=method, seed=seed, deviance=dev, rel=dev / base - 1,
                             mean_ratio=float(p.mean() / problem.y_test.mean())))
            print(rows[-1], flush=True)
    pd.DataFrame(rows).to_csv(RESULTS / "zero_subsample_diagnosis_calibrated.csv", index=False)


# ---------------------------------------------------------------- report
def _variants_table(raw):
    full = raw[raw.l == 1].set_index(["variant", "seed"])
    imp = raw[raw.l == RATE].set_index(["variant", "seed"])
    rel_last = imp.test_last / full.test_last - 1
    rel_val = imp.test_val / full.test_val - 1
    rows = []
    for name in [v for v in VARIANTS if v in rel_last.index.get_level_values(0)]:
        rows.append({"variant": VARIANTS[name][0],
                     "full fit test deviance (last tree)": full.loc[name].test_last.mean(),
                     "importance: rel. (last tree)": f"{rel_last.loc[name].mean():+.2%}",
                     "per seed": " ".join(f"{v:+.1%}" for v in rel_last.loc[name]),
                     "rel. (each at its validation-chosen trees)": f"{rel_val.loc[name].mean():+.2%}",
                     "trees chosen (full / importance)":
                         f"{'/'.join(map(str, full.loc[name].trees_val))} ; "
                         f"{'/'.join(map(str, imp.loc[name].trees_val))}",
                     "importance: mean prediction / mean y": f"{imp.loc[name].mean_ratio.mean():.3f}",
                     "CPU ratio": f"{(imp.loc[name].cpu / full.loc[name].cpu).median():.2f}"})
    return pd.DataFrame(rows)


def _lower(group: str) -> float:
    """An interval's lower bound ("(300.0, 1000.0]" -> 300), else 0: tables in order."""
    return float(group[1:].split(",")[0]) if group.startswith("(") else 0.0


def write_report():
    parts = {p: RESULTS / f"zero_subsample_diagnosis_{p}.csv"
             for p in ("variants", "decompose", "variance", "clustering", "lightgbm",
                       "refit", "calibrated")}
    lines = ["# Why importance weights lose on flights (issue 23): the experiments", "",
             "`benchmarks/zero_subsample_diagnosis.py`; flights as in `zero_subsample.py` "
             "(218,552 training rows, 10% validation rows never subsampled, 84,000 test rows), "
             f"l = {RATE} with importance weights against the full fit, seeds "
             f"{', '.join(map(str, SEEDS))} (the fit's random_state, so also the subsample). "
             "Design settings: 400 trees, depth 3, shrinkage 0.05, bag 0.5, max_bins=255 "
             "unless the variant says otherwise. Interpretation: `docs/zero_subsampling.md`.", ""]
    if parts["variants"].exists():
        raw = pd.read_csv(parts["variants"])
        lines += ["## One change at a time", "",
                  "Test deviance of the subsampled fit relative to the full fit, at the last "
                  "tree and with each fit read at the number of trees its own validation "
                  f"deviance picks (every n_trees/{CURVE_STEPS}); means over the seeds; load "
                  f"{raw.load.min():.1f}-{raw.load.max():.1f} (2 cores, shared).", "",
                  _variants_table(raw).to_markdown(index=False, floatfmt=".5f"), ""]
    if parts["decompose"].exists():
        dec = pd.read_csv(parts["decompose"])
        lines += ["## Where the excess falls (seed 1, design settings)", ""]
        summary = dec[dec.by == "summary"]
        lines += [f"- {g}: {v:.4g}" for g, v in zip(summary.group, summary.excess)] + [""]
        for by, part in dec[dec.by != "summary"].groupby("by", sort=False):
            part = part.iloc[np.argsort([_lower(g) for g in part.group], kind="stable")]
            lines += [f"By {by}:", "", part.drop(columns="by").to_markdown(index=False,
                                                                         floatfmt=".4g"), ""]
    if parts["variance"].exists():
        lines += ["## The variance of importance weighting", "",
                  "Large-sample variance of the weighted estimate of a logit over the full "
                  f"data's at a row of probability p: 1 + p (1/l - 1) (l = {RATE}); averaged "
                  "with the rows' Fisher information p(1-p) and with their expected positives.",
                  "", pd.read_csv(parts["variance"]).to_markdown(index=False, floatfmt=".3f"), ""]
    if parts["clustering"].exists():
        cl = pd.read_csv(parts["clustering"])
        table = cl.groupby("slope").agg(
            mean_p=("mean_p", "first"), factor_information=("factor_information", "first"),
            positives_above_l=("positives_above_l", "first"), true=("true", "first"),
            full=("full", "mean"), importance=("importance", "mean"), rel=("rel", "mean"),
            excess_ratio=("excess_ratio", "mean"))
        lines += ["## Clustered events on the simulation (known truth)", "",
                  "The bernoulli simulation (10 uniform predictors, 2% positives, "
                  f"{SIM_TRAIN:,} training and {SIM_TEST:,} test rows; design settings) "
                  "with the logit's slope on the signal raised: the same share of positives, "
                  "more of them where p > l. `true`: the true model's test deviance; "
                  "`excess_ratio`: the subsampled fit's excess over it / the full fit's; "
                  "means over the seeds.", "",
                  table.reset_index().to_markdown(index=False, floatfmt=".4f"), ""]
    if parts["lightgbm"].exists():
        lg = pd.read_csv(parts["lightgbm"])
        table = lg.groupby(["predictors", "lightgbm"], sort=False).agg(
            full=("full", "mean"), importance=("importance", "mean"), rel=("rel", "mean"))
        lines += ["## The same kept rows and weights in LightGBM", "",
                  "4 leaves, 400 rounds, learning rate 0.05, bagging 0.5 (one thread); "
                  f"R-like: {LGB_R_LIKE}.", "", table.reset_index().to_markdown(
                      index=False, floatfmt=".5f"), ""]
    if parts["refit"].exists():
        ref = pd.read_csv(parts["refit"])
        table = ref.groupby(["predictors", "method"], sort=False).agg(
            deviance=("deviance", "mean"), rel=("rel", "mean"),
            per_seed=("rel", lambda r: " ".join(f"{v:+.1%}" for v in r)))
        lines += ["## Leaf values or the trees' shape?", "",
                  "Design settings. The importance-weighted fit's trees with their leaf "
                  "values estimated again on all training rows, tree after tree (shrunken "
                  "Newton steps of the full data's gradients; LightGBM's `refit`); and the "
                  f"zeros kept within each `dest` level (round(l n) of its n zeros, l = {RATE}), "
                  "importance weights. Test deviance relative to the full fit; means over the "
                  "seeds.", "", table.reset_index().to_markdown(index=False, floatfmt=".5f"),
                  ""]
    if parts["calibrated"].exists():
        cal = pd.read_csv(parts["calibrated"])
        table = cal.groupby("method", sort=False).agg(
            deviance=("deviance", "mean"), rel=("rel", "mean"),
            per_seed=("rel", lambda r: " ".join(f"{v:+.1%}" for v in r)),
            mean_prediction_over_mean_y=("mean_ratio", "mean"))
        lines += ["## Calibrating the importance-weighted fit", "",
                  "Design settings; calibrated on the 10% validation rows (20 bins, flat ends; "
                  f"or on those rows with their zeros kept at l = {RATE}, counted 1/l); test "
                  "deviance relative to the uncalibrated full fit; means over the seeds.", "",
                  table.reset_index().to_markdown(index=False, floatfmt=".4f"), ""]
    text = "\n".join(lines)
    (RESULTS / "zero_subsample_diagnosis.md").write_text(text)
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--part", choices=("variants", "decompose", "variance", "clustering",
                                       "lightgbm", "refit", "calibrated"))
    ap.add_argument("--only", nargs="*", choices=tuple(VARIANTS), default=list(VARIANTS))
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    problem = zs.flights()
    if problem is None:
        raise SystemExit(f"{zs.FLIGHTS} is absent (python benchmarks/flights_data.py makes it)")
    if args.part == "variants":
        part_variants(problem, args.only)
    elif args.part is not None:
        globals()[f"part_{args.part}"](problem)
    print(write_report())


if __name__ == "__main__":
    main()
