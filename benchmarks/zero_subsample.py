"""Zero-response subsampling and calibration (issue 23): simulations with known truth
and a real rare-response data set, in the exact and the binned mode.

Data (``--data``):

* ``sim``: a Friedman-#1-type signal on 10 uniform predictors (5 carry signal)
  with a bernoulli response of about 2% positives and a poisson response of
  about 93% zeros; ``--n-train`` training rows (200k), a 50k calibration
  stream drawn the same way (its zeros kept at the same rate l, so it is
  calibrated with ``subsampled=True``) and 200k fresh test rows from the full
  distribution. Fitted with ``gbm_fit(x, y)``.
* ``flights``: ``data/flights_cancelled.csv.gz`` (every flight out of New York
  City in 2013, 336,776 rows, ``cancelled`` 2.45%; made by
  ``benchmarks/flights_data.py``; skipped when absent), fitted as a
  statistician would, ``gbm("cancelled ~ .", data)`` with its categoricals.
  A fixed random split: 65% training, 10% calibration (zeros kept at l), 25%
  test.

Mode (``--mode``): ``exact`` (pygbm's default, no ``max_bins``) and/or
``binned`` (``max_bins=255``). Per data set and mode, for each of ``--seeds``
seeds (the fit's ``random_state``, so also the subsample's), interleaved: the
full fit (l = 1), then for l in (0.1, 0.01) "importance", "none" (raw, +
calibrate with flat ends, + calibrate with Langford's end points) and, for
bernoulli, "offset". Metrics: test deviance (per row; bernoulli's, and for
poisson R's deviance without the saturated term, as gbm reports it, plus the
proper one), the best test deviance over the number of trees (every
``n_trees / 20``), excess over the true model and mean(prediction) /
mean(truth) (simulations; on real data mean(prediction) / mean(y)), fit
time, wall and CPU, and the 1-minute load average before each fit.

    python benchmarks/zero_subsample.py                        # all: sim and flights, both modes
    python benchmarks/zero_subsample.py --data flights --mode exact
    python benchmarks/zero_subsample.py --quick                # 20k rows, 100 trees, 1 seed

Each (data, mode) writes ``benchmarks/results/zero_subsample_{data}_{mode}{_quick}.csv``;
``benchmarks/results/zero_subsample{_quick}.md`` is then written from every such
CSV present (so parts may be run one at a time). Timings are of a shared
2-core machine: the load is recorded; the time ratios are means over the
interleaved seeds.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pygbm  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
FLIGHTS = ROOT / "data" / "flights_cancelled.csv.gz"
N_PRED, N_CAL, N_TEST = 10, 50_000, 200_000
#: the fits' settings (``--settings``): the design note's (4.5 B: 400 trees,
#: depth 3, shrinkage 0.05, bag 0.5) and R gbm's defaults (100 trees, depth 1,
#: shrinkage 0.1, bag 0.5); the binned mode adds MAX_BINS
DESIGN = dict(n_trees=400, interaction_depth=3, shrinkage=0.05, bag_fraction=0.5)
#: ``design-newton-ts``: the design settings with the recipe docs/zero_subsampling.md
#: recommends for importance weights (second-order splits, factors as ordered target
#: statistics; neither is R's)
SETTINGS = {"design": DESIGN,
            "gbm-defaults": dict(n_trees=100, interaction_depth=1, shrinkage=0.1,
                                 bag_fraction=0.5),
            "design-newton-ts": dict(DESIGN, splits="newton", categorical="ordered_ts")}
MAX_BINS = 255
MODES = ("exact", "binned")
#: the problems' names (``--data``), which name the CSVs
DATA_NAMES = ("sim", "flights")
RATES = (0.1, 0.01)
#: target shares: bernoulli positives, poisson zeros
P_POSITIVE, P_ZERO = 0.02, 0.93
SLOPE_BERNOULLI, SLOPE_POISSON = 1.5, 1.0
#: flights: shares of the rows held out for calibration and test
FLIGHTS_CAL, FLIGHTS_TEST = 0.10, 0.25
#: rows of the fits that load the compiled engine before the timed ones
WARM_UP_ROWS = 5000
#: the best test deviance is looked for at every n_trees / GRID_STEPS trees
GRID_STEPS = 20
#: targets: (relative deviance, time ratio) of importance weights at l = 0.1
SIM_TARGET, REAL_TARGET = (0.02, 0.30), (0.01, 0.35)


@dataclass(frozen=True)
class Problem:
    """One data set: training, calibration stream (all rows) and test rows."""

    name: str                   # "bernoulli", "poisson" (simulations) or "flights"
    kind: str                   # the distribution
    x: pd.DataFrame
    y: np.ndarray
    x_cal: pd.DataFrame
    y_cal: np.ndarray
    x_test: pd.DataFrame
    y_test: np.ndarray
    mu_test: np.ndarray | None  # the truth (simulations), else None
    formula: str | None         # fitted with gbm(formula, data) when given, else gbm_fit

    @property
    def real(self) -> bool:
        return self.mu_test is None


# ---------------------------------------------------------------- simulations
def _signal(x):
    s = 10 * np.sin(np.pi * x[:, 0] * x[:, 1]) + 20 * (x[:, 2] - 0.5) ** 2 + 10 * x[:, 3] \
        + 5 * x[:, 4]
    return (s - 14.4) / 4.8          # about standardised


def _intercepts():
    """Intercepts giving the target shares (on a large reference draw)."""
    z = _signal(np.random.default_rng(12345).uniform(size=(400_000, N_PRED)))
    lo, hi = -15.0, 5.0
    for _ in range(60):             # bisection: mean p = P_POSITIVE
        mid = (lo + hi) / 2
        p = np.mean(1 / (1 + np.exp(-(mid + SLOPE_BERNOULLI * z))))
        lo, hi = (mid, hi) if p < P_POSITIVE else (lo, mid)
    c_b = (lo + hi) / 2
    lo, hi = -15.0, 5.0
    for _ in range(60):             # P(y = 0) = P_ZERO
        mid = (lo + hi) / 2
        p0 = np.mean(np.exp(-np.exp(mid + SLOPE_POISSON * z)))
        lo, hi = (mid, hi) if p0 > P_ZERO else (lo, mid)
    return c_b, (lo + hi) / 2


def simulate(kind, n, rng, intercepts):
    x = rng.uniform(size=(n, N_PRED))
    z = _signal(x)
    c_b, c_p = intercepts
    if kind == "bernoulli":
        mu = 1 / (1 + np.exp(-(c_b + SLOPE_BERNOULLI * z)))
        y = (rng.uniform(size=n) < mu).astype(float)
    else:
        mu = np.exp(c_p + SLOPE_POISSON * z)
        y = rng.poisson(mu).astype(float)
    return pd.DataFrame(x, columns=[f"x{i + 1}" for i in range(N_PRED)]), y, mu


def simulation(kind, n_train, intercepts) -> Problem:
    rng = np.random.default_rng(2026 if kind == "bernoulli" else 2027)
    x, y, _ = simulate(kind, n_train, rng, intercepts)
    xc, yc, _ = simulate(kind, N_CAL, rng, intercepts)
    xt, yt, mut = simulate(kind, N_TEST, rng, intercepts)
    return Problem(kind, kind, x, y, xc, yc, xt, yt, mut, None)


# ---------------------------------------------------------------- real data
def flights(n_train=None) -> Problem | None:
    """The flights data, split at random (fixed seed); None when the file is absent.
    ``n_train``: keep only the first so many training rows (``--quick``)."""
    if not FLIGHTS.exists():
        return None
    d = pd.read_csv(FLIGHTS)
    for c in ("weekday", "carrier", "origin", "dest"):
        d[c] = d[c].astype("category")
    u = np.random.default_rng(2013).uniform(size=len(d))
    test, cal = u < FLIGHTS_TEST, (u >= FLIGHTS_TEST) & (u < FLIGHTS_TEST + FLIGHTS_CAL)
    train = d[~test & ~cal].reset_index(drop=True)
    if n_train is not None:
        train = train.iloc[:n_train]
    cal_rows, test_rows = d[cal].reset_index(drop=True), d[test].reset_index(drop=True)
    y = "cancelled"
    return Problem("flights", "bernoulli", train, train[y].to_numpy(float), cal_rows,
                   cal_rows[y].to_numpy(float), test_rows, test_rows[y].to_numpy(float), None,
                   f"{y} ~ .")


# ---------------------------------------------------------------- measuring
def deviance(kind, y, mu):
    """Per-row test deviance: bernoulli's; poisson as R gbm reports it
    (no saturated term)."""
    if kind == "bernoulli":
        q = np.clip(mu, 1e-15, 1 - 1e-15)
        return float(-2 * np.mean(y * np.log(q) + (1 - y) * np.log1p(-q)))
    return float(-2 * np.mean(y * np.log(np.maximum(mu, 1e-300)) - mu))


def fit_model(problem: Problem, mode: str, fit: dict, seed: int, **kw):
    """One fit (``fit``: the settings): the model, wall and CPU seconds, the
    load before it."""
    settings = dict(fit, random_state=seed, **kw)
    if mode == "binned":
        settings["max_bins"] = MAX_BINS
    splits = settings.pop("splits", None)
    distribution = problem.kind if splits is None else {"name": problem.kind, "splits": splits}
    load = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), time.process_time()
    if problem.formula is None:
        # the simulations' predictors are numbers: no factor for target statistics
        # (gbm_fit, R's gbm.fit, has no categorical option)
        settings.pop("categorical", None)
        m = pygbm.gbm_fit(problem.x, problem.y, distribution=distribution, **settings)
    else:
        m = pygbm.gbm(problem.formula, problem.x, distribution=distribution, **settings)
    return m, time.perf_counter() - t0, time.process_time() - c0, load


def run(problem: Problem, mode: str, args) -> pd.DataFrame:
    kind, yt = problem.kind, problem.y_test
    fit = SETTINGS[args.settings]
    n_trees = fit["n_trees"]
    truth = problem.y_test if problem.real else problem.mu_test
    true_dev = np.nan if problem.real else deviance(kind, yt, problem.mu_test)
    grid = sorted({max(1, n_trees * k // GRID_STEPS) for k in range(1, GRID_STEPS + 1)})
    rows = []

    def record(method, l, seed, timing, n_rows, model, calibrated=None):
        if calibrated is None:
            curve = model.predict(problem.x_test, grid, type="response")
            mu = curve[:, -1]
            best = min(deviance(kind, yt, curve[:, i]) for i in range(len(grid)))
        else:
            mu, best = calibrated.predict(problem.x_test), np.nan
        rep = pygbm.calibration_report(yt, mu, distribution=kind)
        dev = deviance(kind, yt, mu)
        wall, cpu, load = timing
        rows.append(dict(data=problem.name, settings=args.settings, mode=mode, method=method,
                         l=l, seed=seed,
                         rows=n_rows, wall=wall, cpu=cpu, load=load, deviance=dev,
                         best_deviance=best, proper_deviance=rep["deviance"],
                         excess=dev - true_dev, mean_ratio=float(np.mean(mu) / np.mean(truth)),
                         ece=rep["ece"]))
        print(f"  {problem.name:9s} {mode:6s} {method:25s} l={l:<5g} seed={seed} "
              f"rows={n_rows:7d} wall={wall:6.1f}s cpu={cpu:6.1f}s load={load:4.2f} "
              f"dev={dev:.5f} best={best:.5f}", flush=True)

    def subsampled(seed, l, weight):
        m, *timing = fit_model(problem, mode, fit, seed, zero_subsample=l, zero_weight=weight)
        return m, timing

    for seed in range(1, args.seeds + 1):
        full, *timing = fit_model(problem, mode, fit, seed)
        record("full data", 1.0, seed, timing, full.n_train, full)
        for l in RATES:
            srng = np.random.default_rng(1000 * seed + int(1 / l))
            keep = (problem.y_cal != 0) | (srng.uniform(size=problem.y_cal.shape[0]) < l)
            xc, yc = problem.x_cal[keep], problem.y_cal[keep]
            imp, timing = subsampled(seed, l, "importance")
            record("importance", l, seed, timing, imp.n_train, imp)
            none, timing = subsampled(seed, l, "none")
            record("none (raw)", l, seed, timing, none.n_train, none)
            for ends in ("flat", "langford"):
                cal = pygbm.calibrate(none, xc, n_trees=n_trees, ends=ends,
                                      subsampled=True,
                                      **({"y": yc} if problem.formula is None else {}))
                record(f"none + calibrate {ends}", l, seed, timing, none.n_train, none, cal)
            if kind == "bernoulli":
                off, timing = subsampled(seed, l, "offset")
                record("offset", l, seed, timing, off.n_train, off)
    return pd.DataFrame(rows)


def warm_up(group, mode: str, args) -> None:
    """Load (or compile) the compiled engine's paths each problem takes before
    anything is timed: a few trees on the first rows, full and subsampled."""
    for problem in group:
        small = dataclasses.replace(problem, x=problem.x.iloc[:WARM_UP_ROWS],
                                    y=problem.y[:WARM_UP_ROWS])
        settings = dict(SETTINGS[args.settings], n_trees=2)
        for kw in ({}, dict(zero_subsample=0.5)):
            fit_model(small, mode, settings, 0, **kw)


# ---------------------------------------------------------------- report
#: what identifies one comparison with its full fit
GROUP = ["data", "settings", "mode"]


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """Per (data, settings, mode, method, l): means over the seeds (times:
    medians), relative to the full fit."""
    keys = [*GROUP, "method", "l"]
    groups = raw.groupby(keys, sort=False)
    summary = groups.mean(numeric_only=True).drop(columns="seed").reset_index()
    # times: the median over the seeds (a fit that compiled or met a burst of load
    # must not carry the mean)
    for col in ("wall", "cpu"):
        summary[col] = groups[col].median().to_numpy()
    summary["seeds"] = raw.groupby(keys, sort=False).size().to_numpy()
    full = summary[summary.method == "full data"].set_index(GROUP)
    at = pd.MultiIndex.from_frame(summary[GROUP])
    for col, ref in (("rel", "deviance"), ("rel_best", "best_deviance")):
        summary[col] = summary[ref].to_numpy() / full[ref].reindex(at).to_numpy() - 1
    for col, ref in (("wall_ratio", "wall"), ("cpu_ratio", "cpu")):
        summary[col] = summary[ref].to_numpy() / full[ref].reindex(at).to_numpy()
    return summary


def _label(data, settings, mode) -> str:
    return f"{data} ({settings}, {mode})"


def gates(summary: pd.DataFrame) -> list[str]:
    """The issue's targets, met or missed, from the per-method means: l = 0.1
    importance everywhere (the simulations' target, or on real data the
    independent check's); the simulations' other targets with the design
    settings; the other lines reported as measured."""
    out = []

    def get(key, method, l, col="rel"):
        data, settings, mode = key
        row = summary[(summary.data == data) & (summary.settings == settings)
                      & (summary["mode"] == mode) & (summary.method == method)
                      & (summary.l == l)]
        return float(row[col].iloc[0])

    def line(ok, text):
        out.append(f"- {'MET' if ok else 'MISSED' if ok is not None else 'measured'}: {text}")

    for key, part in summary.groupby(GROUP, sort=False):
        name = _label(*key)
        real = bool(np.isnan(part.excess).all())
        dev_t, time_t = REAL_TARGET if real else SIM_TARGET
        # the simulations' other targets are the design settings'; elsewhere: measured
        other = real or key[1] != "design"
        rel, wall, cpu = (get(key, "importance", 0.1, c)
                          for c in ("rel", "wall_ratio", "cpu_ratio"))
        line(rel <= dev_t and max(wall, cpu) <= time_t,
             f"{name}, l = 0.1 importance: deviance {rel:+.2%} of the full fit "
             f"(target <= +{dev_t:.0%}) at {wall:.2f}x its wall time, {cpu:.2f}x its CPU time "
             f"(target <= {time_t}x)")
        cal, imp = (get(key, m, 0.01) for m in ("none + calibrate flat", "importance"))
        line(None if other else cal < imp and cal <= 0.03,
             f"{name}, l = 0.01: none + calibrate {cal:+.2%} vs importance {imp:+.2%} "
             "(simulation target: calibrate better, and <= +3%)")
        cal1 = get(key, "none + calibrate flat", 0.1)
        line(None if other else cal1 <= 0.005, f"{name}, l = 0.1 none + calibrate: "
             f"{cal1:+.2%} (design target on the simulations <= +0.5%)")
        flat, lang = (get(key, f"none + calibrate {e}", 0.1, "deviance")
                      for e in ("flat", "langford"))
        line(None if other else flat < lang, f"{name}, l = 0.1: flat ends test deviance "
             f"{flat:.5f} vs Langford's end points {lang:.5f} (simulation target: flat better)")
        if (part.method == "offset").any():
            for l in RATES:
                rel = get(key, "offset", l)
                line(None if other else rel <= 0.005, f"{name} offset, l = {l:g}: {rel:+.2%} "
                     "(simulation target <= +0.5%)")
    return out


COLUMNS = [*GROUP, "method", "l", "seeds", "rows", "wall", "cpu", "load", "deviance",
           "best_deviance", "proper_deviance", "excess", "mean_ratio", "ece", "rel",
           "rel_best", "wall_ratio", "cpu_ratio"]


def _stem(name: str, settings: str, mode: str, quick: bool) -> str:
    tail = "" if settings == "design" else f"_{settings.replace('-', '_')}"
    return f"zero_subsample_{name}_{mode}{tail}{'_quick' * quick}"


def write_report(quick: bool, n_train: int) -> str:
    # this script's CSVs only (_stem: zero_subsample_{sim,flights}_...), not the
    # diagnosis' or the claims' beside them
    parts = sorted(p for data in DATA_NAMES for p in RESULTS.glob(f"zero_subsample_{data}_*.csv")
                   if p.stem.endswith("_quick") == quick)
    raw = pd.concat([pd.read_csv(p) for p in parts])
    summary = summarise(raw)
    settings = "; ".join(
        f"{name}: {s['n_trees']} trees, depth {s['interaction_depth']}, shrinkage "
        f"{s['shrinkage']}, bag {s['bag_fraction']}"
        + "".join(f", {k} {s[k]}" for k in ("splits", "categorical") if k in s)
        for name, s in SETTINGS.items())
    lines = [f"# Zero-response subsampling: simulations with known truth and real data"
             f"{' (quick)' * quick}", "",
             f"Settings ({settings}); exact mode = pygbm's default (no max_bins), binned mode "
             f"= max_bins={MAX_BINS}. Simulations: {n_train:,} training rows, {N_CAL:,}-row "
             f"calibration stream (zeros kept at l), {N_TEST:,} test rows. flights: "
             f"{FLIGHTS.name} (336,776 flights out of NYC in 2013, 2.45% cancelled), 65% "
             "training / 10% calibration (zeros kept at l) / 25% test, fitted as "
             "gbm('cancelled ~ .', data). Means over the seeds (the fit's random_state, so "
             "also the subsample); the full fit is repeated per seed, interleaved with the "
             "subsampled fits; times are medians over the seeds. Test deviance per row (poisson: R's, without the saturated "
             "term; `proper_deviance` with it); `best_deviance`: the best over the number of "
             f"trees (every 1/{GRID_STEPS} of them). rel, rel_best = relative to the full fit; "
             "wall_ratio, cpu_ratio = fit time / the full fit's; load = 1-minute load average "
             "before the fit (2-core machine shared with other work). Source files: "
             + ", ".join(f"`{p.name}`" for p in parts) + ".", "",
             summary[COLUMNS].to_markdown(index=False, floatfmt=".5g"), "",
             "## Targets (issue 23)", "",
             "Simulations: l = 0.1 importance within +2% at <= 0.3x the time, and the "
             "simulation targets below. Real data (the independent check): l = 0.1 importance "
             "within +1% at <= 0.35x; the other lines are reported as measured.", "",
             *gates(summary), "",
             "Why importance weights miss on flights with the design settings, and where "
             "the exact mode's time goes: `docs/zero_subsampling.md` (the experiments: "
             "`zero_subsample_diagnosis.md`).", ""]
    text = "\n".join(lines)
    (RESULTS / f"zero_subsample{'_quick' * quick}.md").write_text(text)
    return text


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", choices=(*DATA_NAMES, "all"), default="all")
    ap.add_argument("--mode", choices=(*MODES, "both"), default="both")
    ap.add_argument("--settings", choices=tuple(SETTINGS), default="design")
    ap.add_argument("--n-train", type=int, default=200_000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--quick", action="store_true",
                    help="20k training rows (flights: its first 20k), 1 seed")
    args = ap.parse_args(argv)
    if args.quick:
        args.n_train, args.seeds = 20_000, 1
    warnings.simplefilter("ignore")
    modes = MODES if args.mode == "both" else (args.mode,)
    problems = {}
    if args.data in ("sim", "all"):
        intercepts = _intercepts()
        problems["sim"] = [simulation(k, args.n_train, intercepts)
                           for k in ("bernoulli", "poisson")]
    if args.data in ("flights", "all"):
        real = flights(args.n_train if args.quick else None)
        if real is None:
            print(f"{FLIGHTS} is absent (python benchmarks/flights_data.py makes it): "
                  "flights skipped")
        else:
            problems["flights"] = [real]
    if not problems:
        return
    RESULTS.mkdir(exist_ok=True)
    for mode in modes:
        for name, group in problems.items():
            warm_up(group, mode, args)
            raw = pd.concat([run(p, mode, args) for p in group])
            raw.to_csv(RESULTS / f"{_stem(name, args.settings, mode, args.quick)}.csv",
                       index=False)
    print(write_report(args.quick, args.n_train))


if __name__ == "__main__":
    main()
