"""Zero-response subsampling and calibration (issue 23) on simulations with known truth.

A Friedman-#1-type signal on 10 uniform predictors (5 carry signal) with a
bernoulli response of about 2% positives and a poisson response of about 93%
zeros; ``--n-train`` training rows (200k), a 50k calibration stream drawn the
same way (its zeros kept at the same rate l, so it is calibrated with
``subsampled=True``) and 200k fresh test rows from the full distribution.
Per distribution: the full fit (l = 1), then for l in (0.1, 0.01) and
``--seeds`` subsampling seeds: "importance", "none" (raw, + calibrate with
flat ends, + calibrate with Langford's end points) and, for bernoulli,
"offset". Metrics: test deviance (per row; bernoulli's, and for poisson R's
deviance without the saturated term, as gbm reports it, plus the proper one),
excess over the true model, mean(prediction)/mean(truth), fit time.

    python benchmarks/zero_subsample.py                 # 200k rows, 400 trees, 3 seeds
    python benchmarks/zero_subsample.py --quick         # 20k rows, 100 trees, 1 seed

Writes ``benchmarks/results/zero_subsample{,_quick}.csv`` and ``.md``. Timings
are of a shared 2-core machine: indicative.
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import pygbm  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
N_PRED, N_CAL, N_TEST = 10, 50_000, 200_000
#: the fit's settings (design note 4.5 B)
FIT = dict(interaction_depth=3, shrinkage=0.05, bag_fraction=0.5, max_bins=255)
RATES = (0.1, 0.01)
#: target shares: bernoulli positives, poisson zeros
P_POSITIVE, P_ZERO = 0.02, 0.93
SLOPE_BERNOULLI, SLOPE_POISSON = 1.5, 1.0


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


def deviance(kind, y, mu):
    """Per-row test deviance: bernoulli's; poisson as R gbm reports it
    (no saturated term)."""
    if kind == "bernoulli":
        q = np.clip(mu, 1e-15, 1 - 1e-15)
        return float(-2 * np.mean(y * np.log(q) + (1 - y) * np.log1p(-q)))
    return float(-2 * np.mean(y * np.log(np.maximum(mu, 1e-300)) - mu))


def run(kind, args, intercepts):
    rng = np.random.default_rng(2026 if kind == "bernoulli" else 2027)
    x, y, _ = simulate(kind, args.n_train, rng, intercepts)
    xc_full, yc_full, _ = simulate(kind, N_CAL, rng, intercepts)
    xt, yt, mut = simulate(kind, N_TEST, rng, intercepts)
    true_dev = deviance(kind, yt, mut)
    rows = []

    def record(method, l, seed, fit_time, n_rows, mu):
        rep = pygbm.calibration_report(yt, mu, distribution=kind)
        rows.append(dict(data=kind, method=method, l=l, seed=seed, rows=n_rows,
                         fit_time=fit_time, deviance=deviance(kind, yt, mu),
                         proper_deviance=rep["deviance"],
                         excess=deviance(kind, yt, mu) - true_dev,
                         mean_ratio=float(np.mean(mu) / np.mean(mut)), ece=rep["ece"]))
        print(f"  {kind:9s} {method:22s} l={l:<5g} seed={seed} rows={n_rows:7d} "
              f"time={fit_time:6.1f}s dev={rows[-1]['deviance']:.5f} "
              f"ratio={rows[-1]['mean_ratio']:.3f}", flush=True)

    def fit(**kw):
        t0 = time.perf_counter()
        m = pygbm.gbm_fit(x, y, distribution=kind, n_trees=args.n_trees, **FIT, **kw)
        return m, time.perf_counter() - t0

    full, t_full = fit(random_state=1)
    record("full data", 1.0, 0, t_full, args.n_train,
           full.predict(xt, args.n_trees, type="response"))
    for l in RATES:
        for seed in range(1, args.seeds + 1):
            srng = np.random.default_rng(1000 * seed + int(1 / l))
            keep = (yc_full != 0) | (srng.uniform(size=N_CAL) < l)
            xc, yc = xc_full[keep], yc_full[keep]
            imp, t = fit(random_state=seed, zero_subsample=l, zero_weight="importance")
            record("importance", l, seed, t, imp.n_train,
                   imp.predict(xt, args.n_trees, type="response"))
            none, t = fit(random_state=seed, zero_subsample=l, zero_weight="none")
            record("none (raw)", l, seed, t, none.n_train,
                   none.predict(xt, args.n_trees, type="response"))
            for ends in ("flat", "langford"):
                cal = pygbm.calibrate(none, xc, n_trees=args.n_trees, y=yc, ends=ends,
                                      subsampled=True)
                record(f"none + calibrate {ends}", l, seed, t, none.n_train, cal.predict(xt))
            if kind == "bernoulli":
                off, t = fit(random_state=seed, zero_subsample=l, zero_weight="offset")
                record("offset", l, seed, t, off.n_train,
                       off.predict(xt, args.n_trees, type="response"))
    return pd.DataFrame(rows)


def gates(summary: pd.DataFrame) -> list[str]:
    """The issue's targets, met or missed, from the per-method means."""
    out = []

    def get(kind, method, l, col="rel"):
        row = summary[(summary.data == kind) & (summary.method == method) & (summary.l == l)]
        return float(row[col].iloc[0])

    def line(ok, text):
        out.append(f"- {'MET' if ok else 'MISSED'}: {text}")

    for kind in ("bernoulli", "poisson"):
        rel, tr = get(kind, "importance", 0.1), get(kind, "importance", 0.1, "time_ratio")
        line(rel <= 0.02 and tr <= 0.3, f"{kind}, l = 0.1 importance: deviance {rel:+.2%} of "
             f"the full fit (target <= +2%) at {tr:.2f}x its fit time (target <= 0.3x)")
        cal, imp = get(kind, "none + calibrate flat", 0.01), get(kind, "importance", 0.01)
        line(cal < imp and cal <= 0.03, f"{kind}, l = 0.01: none + calibrate {cal:+.2%} vs "
             f"importance {imp:+.2%} (target: calibrate better, and <= +3%)")
        cal1 = get(kind, "none + calibrate flat", 0.1)
        line(cal1 <= 0.005, f"{kind}, l = 0.1 none + calibrate: {cal1:+.2%} (design target "
             "<= +0.5%)")
        flat = get(kind, "none + calibrate flat", 0.1, "excess")
        lang = get(kind, "none + calibrate langford", 0.1, "excess")
        line(flat < lang, f"{kind}, l = 0.1: flat ends excess deviance {flat:.5f} vs "
             f"Langford's end points {lang:.5f} (target: flat better)")
    for l in RATES:
        rel = get("bernoulli", "offset", l)
        line(rel <= 0.005, f"bernoulli offset, l = {l:g}: {rel:+.2%} (target <= +0.5%)")
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n-train", type=int, default=200_000)
    ap.add_argument("--n-trees", type=int, default=400)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="20k rows, 100 trees, 1 seed")
    args = ap.parse_args(argv)
    if args.quick:
        args.n_train, args.n_trees, args.seeds = 20_000, 100, 1
    warnings.simplefilter("ignore")
    intercepts = _intercepts()
    raw = pd.concat([run(kind, args, intercepts) for kind in ("bernoulli", "poisson")])
    summary = raw.groupby(["data", "method", "l"], sort=False).mean(numeric_only=True) \
        .drop(columns="seed").reset_index()
    full = summary[summary.method == "full data"].set_index("data")
    summary["rel"] = summary.deviance / summary.data.map(full.deviance) - 1
    summary["time_ratio"] = summary.fit_time / summary.data.map(full.fit_time)
    tag = "_quick" if args.quick else ""
    RESULTS.mkdir(exist_ok=True)
    raw.to_csv(RESULTS / f"zero_subsample{tag}.csv", index=False)
    lines = [f"# Zero-response subsampling: simulations with known truth{' (quick)' * args.quick}",
             "", f"{args.n_train:,} training rows, {N_CAL:,}-row calibration stream (zeros kept "
             f"at l), {N_TEST:,} test rows; {args.n_trees} trees, depth 3, shrinkage 0.05, "
             f"bag 0.5, max_bins=255; mean over {args.seeds} subsampling seed(s). Test deviance "
             "per row (poisson: R's, without the saturated term; `proper_deviance` with it). "
             "rel = relative to the full fit; time_ratio = fit time / the full fit's "
             "(shared 2-core machine: indicative).", "",
             summary.to_markdown(index=False, floatfmt=".5g"), "", "## Targets (issue 23)", "",
             *gates(summary), ""]
    (RESULTS / f"zero_subsample{tag}.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
