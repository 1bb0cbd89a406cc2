"""The sections of the statisticians' suite's results.md (small_report.write_report puts
them together): the run and the machine, what is timed, the pygbm ÷ R summary, the
calls, one detail table per setting, the cold start."""
from __future__ import annotations

import math
import os

import small_workloads as SW
from report import fmt

SYSTEM_LABEL = {"pygbm": "pygbm", "pygbm_fresh_cache": "pygbm, empty numba cache",
                "r": "R gbm 2.1.8"}
#: (regime, cores) of the detail tables, in order; the summary's are the first three
SETTINGS = SW.SETTINGS
SUMMARY_SETTINGS = SETTINGS[:3]
SETTING_TITLE = {("cv", "1"): "cv_folds=5 + gbm_perf(method=\"cv\"), one core",
                 ("cv", "default"): "cv_folds=5 + gbm_perf(method=\"cv\"), default cores",
                 ("fit", "1"): "single fit, one core", ("fit", "default"): "single fit, default cores"}
#: the summary's column names
SETTING_SHORT = {("cv", "1"): "cv, 1 core", ("cv", "default"): "cv, default cores",
                 ("fit", "1"): "fit, 1 core", ("fit", "default"): "fit, default"}
STARTS = SW.STARTS


# ------------------------------------------------------------------ look-ups
def lookup(rows, regime, workload, cores, start, system):
    """The ok row of a measurement, or None."""
    for r in rows:
        if (r["regime"], r["workload"], str(r["cores"]), r["start"], r["system"]) == \
                (regime, workload, cores, start, system) and r["status"] == "ok":
            return r
    return None


def ratio(a, b, key):
    """a[key] / b[key], None when either is missing."""
    if a is None or b is None or not a.get(key) or not b.get(key):
        return None
    return a[key] / b[key]


def geomean(values) -> float | None:
    """Geometric mean of the values that are not None (None when there are none)."""
    xs = [v for v in values if v is not None]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def workloads(rows) -> list:
    """The workloads (small_workloads' dicts, in plan order) that have rows."""
    present = {r["workload"] for r in rows if r["regime"] != "cold"}
    return [w for w in SW.WORKLOADS if w["name"] in present]


def _any_row(rows, name, key):
    """``key`` of the first suite row of a workload that has it (cold rows excluded)."""
    return next((r[key] for r in rows if r["workload"] == name and r["regime"] != "cold"
                 and r.get(key)), None)


def _cell(row, key, digits=3) -> str:
    return fmt(row.get(key), digits) if row else "–"


def _pair(r, p, key, digits=3) -> str:
    """R's and pygbm's value of a column: "R / pygbm"."""
    return f"{_cell(r, key, digits)} / {_cell(p, key, digits)}"


def _pct(row) -> str:
    return f"{row['spread']:.0%}" if row and row.get("spread") is not None else "–"


# ------------------------------------------------------------------ header and protocol
def header(rows, meta) -> list:
    """Title, the runs that measured the rows, the machine and the software."""
    used = {r.get("run") for r in rows}
    runs = [m for run, m in sorted(meta.get("runs", {}).items()) if run in used]
    if not runs:
        return ["# pygbm and R gbm on the statisticians' data sets", ""]
    m = runs[-1]
    loads = [r["load_1min"] for r in rows if r.get("load_1min") is not None]
    codes = sorted({r["pygbm_code"] for r in rows if r.get("pygbm_code")
                    and r["status"] == "ok"})
    primes = [f"{x['prime_wall_s']:g} s ({x['prime_status']})" for x in runs
              if "prime_wall_s" in x]
    return ["# pygbm and R gbm on the statisticians' data sets", "",
            "Runs: " + "; ".join(f"{x['date']} `{x['command']}`" for x in runs) + "  ",
            f"Machine: {m['nproc']} cores ({m['cpu']}), {m['memory']} RAM, {m['os']}; "
            f"1-minute load average before the fits {fmt(min(loads), 2) if loads else '–'}"
            f"–{fmt(max(loads), 2) if loads else '–'} (a shared machine: other jobs may run).  ",
            f"Software: Python {m['python']}, NumPy {m['numpy']}, pandas {m['pandas']}, "
            f"numba {m.get('numba', '–')}, {m['r']}; pygbm code (commit+source hash) "
            f"{', '.join(codes) or '–'}." + (f"  \nFilling numba's cache before the rounds "
                                            f"took {', '.join(primes)}." if primes else ""),
            ""]


def _defaults(rows, nproc) -> str:
    """What each system's default number of cores did: CPU ÷ wall of its cv fits."""
    parts = []
    for system, call in (("r", "R's `n.cores = NULL` (parallel::detectCores() = "
                               f"{nproc} workers)"),
                         ("pygbm", "pygbm's `n_cores=None`")):
        x = [r["cpu_s"] / r["wall_s"] for r in rows if (r["regime"], r["cores"], r["system"])
             == ("cv", "default", system) and r["status"] == "ok"]
        if x:
            parts.append(f"{call}: CPU ÷ wall of the cv fits {min(x):.2f}–{max(x):.2f}")
    return "; ".join(parts) + f" (1 = one core busy, {nproc} = all; only on a quiet " \
        "machine: other jobs lower it)." if parts else ""


def protocol(rows, meta) -> list:
    """How the fits run and exactly what each time includes and excludes."""
    runs = list(meta.get("runs", {}).values())
    nproc = runs[-1]["nproc"] if runs else os.cpu_count()
    return [
        "## What is measured", "",
        "Every measurement is a fresh worker process (`small_worker.py` / "
        "`small_worker.R`). Before anything is timed the worker has started its "
        "interpreter, loaded its library (Python: `import pygbm`, which imports NumPy and "
        "pandas; R: `library(gbm)`, `library(survival)`, `library(jsonlite)`) and read "
        "and prepared the data (tests/r_reference's prep.py / prep.R). Then:",
        "",
        "- **first**: the timed call is the process's first fit. *Excluded* for both "
        "systems: the interpreter's start, loading the library, reading the data. "
        "*Included*: whatever the library does only at its first fit in a process. For "
        "pygbm that is importing what it loads on first use (formulaic, numba, "
        "scipy.linalg; Python modules from their compiled bytecode, as installed "
        "packages are, R's from its byte-compiled package), loading numba's compiled kernels from its disk cache, and any "
        "first-call set-up (the difference between the *first* and *warm* rows). For R: "
        "the lazy loading of gbm's functions from its package database at their first "
        "call. The numba cache is filled before the rounds (one untimed "
        "process fits every workload with 2 trees and cv and predicts), so no measured "
        "fit compiles: compilation is a once-per-installation cost, measured by the cold "
        "start's *empty numba cache* system.",
        f"- **warm**: the same process first runs a warm-up, untimed (its time is the "
        f"*warm-up* column of the detail tables): the same calls with "
        f"{SW.WARMUP_TREES} trees on one core (`gbm()`, and with cv "
        f"`cv_folds={SW.CV_FOLDS}`, `n_cores=1` and `gbm_perf(method=\"cv\")`: with "
        "more cores R's PSOCK workers end after the call and their CPU time could not be "
        "told from the timed call's; R starts a new cluster at every call anyway), then `predict` of the first "
        f"{SW.WARMUP_PREDICT_ROWS} rows with those trees (pygbm: `fit.predict(...)`; "
        f"R: `predict(m, newdata, n.trees)`); `set.seed({SW.SEED})` again before the "
        "timed call. Then the timed call, exactly as in *first* (the same fit: the suite "
        "checks its training error and best iteration). *Excluded* in addition: the "
        "one-time costs of a first fit above, for both systems. This is what a "
        "statistician sees in a notebook or an R session after the session's first fit. "
        "Still *included* for both: what the call does every time, such as R's start "
        "and stop of its PSOCK cluster for cv with default cores (on every `gbm()` "
        "call), or pygbm's cv threads.",
        "",
        "In both starts: *wall* = the `gbm()` call (and, with cv, `gbm_perf`) inside the "
        "process, from its start to its return (Python `time.perf_counter`, R "
        "`system.time`). *CPU* = user + system time of the whole process tree during the "
        "call: the suite adopts the processes a worker leaves behind (Linux subreaper: "
        "R's PSOCK workers), adds their CPU time, and subtracts the worker's own CPU time "
        "outside the call (start, library, data, warm-up); pygbm's cv folds run in "
        "threads of the process (compiled engine), counted as the process's. The "
        "measurements of a workload's setting (both systems, both starts) take turns, "
        "round 1 of each, then round 2, ..., the order reversed every other round; the "
        "time is the minimum over the rounds (a fit over 2 minutes is not repeated; each "
        "row's `repeats` in the CSV), *spread* = (max − min) / min of the wall times "
        "across rounds, *load* = the 1-minute load average before the round that gave "
        "the minimum.",
        "",
        f"Calls: the data sets of `data/` set up identically for both systems; "
        f"`shrinkage={SW.SHRINKAGE}, bag_fraction={SW.BAG_FRACTION}`, R's defaults "
        f"otherwise (`n_minobsinnode=10`, `train_fraction=1`); `set.seed({SW.SEED})` / "
        f"`random_state={SW.SEED}`. *cv*: `cv_folds={SW.CV_FOLDS}` then "
        f"`gbm_perf(method=\"cv\")` / `gbm.perf(method = \"cv\")`, timed together; *fit*: "
        "one `gbm()` call. *1 core*: `n_cores=1` / `n.cores = 1` (R then fits the folds "
        "in its own process with `lapply`) and single-threaded libraries (OMP, OpenBLAS, "
        "MKL, NUMBA_NUM_THREADS=1); *default cores*: neither (R's `n.cores = NULL` starts "
        "a PSOCK cluster of `detectCores()` workers for the folds; pygbm's `n_cores=None` "
        "fits them in threads on every core). Without cv neither system uses n_cores. "
        + _defaults(rows, nproc), ""]


# ------------------------------------------------------------------ tables
def _columns(rows) -> list:
    """(setting, start) of the summary's columns that have rows."""
    have = {(r["regime"], str(r["cores"]), r["start"]) for r in rows}
    return [(s, st) for s in SUMMARY_SETTINGS for st in STARTS if s + (st,) in have]


def summary(rows) -> list:
    """Per workload, pygbm ÷ R of the wall times, each setting and start; geometric
    means over the issue's six and over all."""
    wls, cols = workloads(rows), _columns(rows)
    if not cols:
        return []
    out = ["Wall time of pygbm ÷ wall time of R (< 1: pygbm is faster). Columns: "
           "*cv* = `cv_folds=5` + `gbm_perf`, *fit* = a single fit; *1 core* / *default "
           "cores*; *first* = the first fit of a fresh process, *warm* = after the warm-up "
           "(see above). * = the six workloads of issue 19's table; the geometric means "
           "say over how many workloads. CPU times: the detail tables.", "",
           "| workload | rows | " + " | ".join(f"{SETTING_SHORT[s]}, {st}" for s, st in cols)
           + " |", "|---|---:|" + "---:|" * len(cols)]
    ratios = {c: {} for c in cols}
    for wl in wls:
        cells = []
        for c in cols:
            (regime, cores), start = c
            x = ratio(lookup(rows, regime, wl["name"], cores, start, "pygbm"),
                      lookup(rows, regime, wl["name"], cores, start, "r"), "wall_s")
            ratios[c][wl["name"]] = x
            cells.append(fmt(x, 2))
        mark = " *" if wl["in_issue"] else ""
        out.append(f"| {wl['name']}{mark} | {fmt(_any_row(rows, wl['name'], 'rows'))} | "
                   + " | ".join(cells) + " |")
    for title, keep in (("geometric mean, the issue's six (*)", lambda w: w["in_issue"]),
                        ("geometric mean, all", lambda w: True)):
        names = [w["name"] for w in wls if keep(w)]
        cells = []
        for c in cols:
            got = [ratios[c][n] for n in names if ratios[c][n] is not None]
            cells.append(f"**{fmt(geomean(got), 2)}** ({len(got)})" if got else "–")
        out.append(f"| **{title}** | | " + " | ".join(cells) + " |")
    return out


def calls(rows) -> list:
    """Each workload's call (R makes the same)."""
    out = ["pygbm's call (R's `gbm()` the same, with R's argument names); *cv* adds "
           f"`cv_folds={SW.CV_FOLDS}`; every call also has `shrinkage={SW.SHRINKAGE}, "
           f"bag_fraction={SW.BAG_FRACTION}, random_state={SW.SEED}`.", "",
           "| workload | rows | call |", "|---|---:|---|"]
    for wl in workloads(rows):
        trees = _any_row(rows, wl["name"], "n_trees")
        out.append(f"| {wl['name']} | {fmt(_any_row(rows, wl['name'], 'rows'))} | "
                   f"`{SW.call_text(wl, False, trees)}` |")
    return out


def detail(rows, setting) -> list:
    """One setting: both systems' wall and CPU times, warm-up, spread, best iteration
    and load, per workload and start."""
    regime, cores = setting
    out = ["| workload | rows | start | R s | pygbm s | pygbm ÷ R | R CPU s | pygbm CPU s "
           "| CPU ÷ | warm-up s R / pygbm | spread R / pygbm | best iteration R / pygbm "
           "| load R / pygbm |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|---|"]
    for wl in workloads(rows):
        for start in STARTS:
            p, r = (lookup(rows, regime, wl["name"], cores, start, s) for s in ("pygbm", "r"))
            if p is None and r is None:
                continue

            out.append(f"| {wl['name']} | {fmt((p or r)['rows'])} | {start} | "
                       f"{_cell(r, 'wall_s')} | {_cell(p, 'wall_s')} | "
                       f"**{fmt(ratio(p, r, 'wall_s'), 2)}** | {_cell(r, 'cpu_s')} | "
                       f"{_cell(p, 'cpu_s')} | {fmt(ratio(p, r, 'cpu_s'), 2)} | "
                       f"{_pair(r, p, 'warmup_wall_s') if start == 'warm' else ''} | "
                       f"{_pct(r)} / {_pct(p)} | "
                       f"{_pair(r, p, 'best_iter') if regime == 'cv' else ''} | "
                       f"{_pair(r, p, 'load_1min', 2)} |")
    return out


def cold(rows) -> list:
    """The cold start's section ([] without cold rows)."""
    got = {r["system"]: r for r in rows if r["regime"] == "cold" and r["status"] == "ok"}
    if not got:
        return []
    trees = next(iter(got.values()))["n_trees"]
    out = ["", "## Cold start", "",
           "A fresh process, timed whole from its start to its end: `import pygbm`, "
           "read boston.csv with pandas, `gbm(\"medv ~ .\", distribution=\"gaussian\", "
           "interaction_depth=3, shrinkage=0.01, bag_fraction=0.5)` (cold_start.py), "
           "against `Rscript` doing `library(gbm)`, `read.csv` and the same `gbm()` "
           "call (cold_start.R). The rounds follow one "
           "warm-up round of each (its time: *first run*; it fills the disk cache and "
           "the compilation cache). *pygbm, empty numba cache* runs with "
           "`NUMBA_CACHE_DIR` set to a new empty folder every time, so any compilation "
           "is included. Inside the process: *import* = `import pygbm` / `library(gbm)`, "
           "*read* = reading the CSV (with pandas' import, unless `import pygbm` loaded "
           "it), *fit* = the `gbm()` call; *process* adds the interpreter's start and exit.",
           "", f"boston, {trees} trees:", "",
           "| system | process s | spread | import s | read s | fit s | CPU s | first run s "
           "| load |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for system, r in got.items():
        out.append(f"| {SYSTEM_LABEL[system]} | **{fmt(r['wall_s'])}** | {_pct(r)} | "
                   f"{fmt(r['import_s'])} | {fmt(r['read_s'])} | {fmt(r['fit_s'])} | "
                   f"{fmt(r['cpu_s'])} | "
                   f"{fmt(r.get('first_wall_s'))} | {fmt(r['load_1min'], 2)} |")
    if "pygbm" in got and "r" in got:
        p, r = got["pygbm"]["wall_s"], got["r"]["wall_s"]
        out += ["", f"pygbm's cold start {fmt(p)} s = R's {fmt(r)} s "
                    f"{'+' if p >= r else '−'} {fmt(abs(p - r))} s (pygbm ÷ R = {p / r:.2f}); "
                    "the issue's targets: at most 2 s, and at most R's + 1 s."]
    return out
