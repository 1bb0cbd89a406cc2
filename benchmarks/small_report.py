"""Results of the statisticians' suite and the cold start: CSV rows and results.md."""
from __future__ import annotations

import math
import os
import time

import numpy as np

import report
import small_workloads as SW
from report import fmt

COLUMNS = ("regime", "workload", "cores", "system", "status", "note", "rows", "n_trees",
           "wall_s", "cpu_s", "process_wall_s", "spread", "wall_all", "cpu_all", "load_1min",
           "load_all", "import_s", "read_s", "fit_s", "import_all", "read_all", "fit_all",
           "first_wall_s",
           "best_iter", "cv_error_min", "train_error_last", "data", "repeats", "started",
           "pygbm_code")
_INT = {"rows", "n_trees", "best_iter", "repeats"}
_FLOAT = {"wall_s", "cpu_s", "process_wall_s", "spread", "load_1min", "import_s", "read_s",
          "fit_s", "first_wall_s", "cv_error_min", "train_error_last"}
SYSTEM_LABEL = {"pygbm": "pygbm", "pygbm_fresh_cache": "pygbm, empty numba cache",
                "r": "R gbm 2.1.8"}
SETTINGS = (("cv", "1"), ("cv", "default"), ("fit", "1"), ("fit", "default"))
SETTING_TITLE = {("cv", "1"): "cv_folds=5 + gbm_perf(method=\"cv\"), one core",
                 ("cv", "default"): "cv_folds=5 + gbm_perf(method=\"cv\"), default cores",
                 ("fit", "1"): "single fit, one core", ("fit", "default"): "single fit, default"}


# ------------------------------------------------------------------ rows
def read_csv(path: str) -> list:
    """Rows of the suite's CSV; [] when there is none."""
    return report.read_csv(path, _INT, _FLOAT)


def write_csv(rows: list, path: str) -> None:
    """Write all rows (atomically)."""
    report.write_csv(rows, path, COLUMNS)


def row_key(r) -> tuple:
    """Identity of a measurement."""
    return (r["regime"], r["workload"], str(r["cores"]), r["system"])


def new_row(task, n_trees: int, code: str) -> dict:
    """The CSV row of a task before any fit."""
    return dict(regime=task.regime, workload=task.workload, cores=task.cores,
                system=task.system, n_trees=n_trees, repeats=0,
                pygbm_code=code if task.system.startswith("pygbm") else "",
                started=time.strftime("%Y-%m-%d %H:%M:%S"))


def progress(res: dict) -> str:
    """One line on a finished round."""
    if res["status"] != "ok":
        return f"{res['status']}: {res.get('note', '')}"
    if "fit_wall" in res:
        return f"fit {res['fit_wall']:.2f}s (cpu {res['fit_cpu']:.2f}s, load {res['load']:.1f})"
    return (f"process {res['process_wall']:.2f}s (import {res['import_s']:.2f}s, read "
            f"{res['read_s']:.2f}s, fit {res['fit_s']:.2f}s, load {res['load']:.1f})")


def _joined(values) -> str:
    return ";".join(f"{v:.3f}" for v in values)


def merge_rounds(row: dict, rounds: list) -> dict:
    """Fill ``row`` from the rounds of one measurement: times are the minimum over the
    rounds, the spread is (max - min) / min of the wall times; the fit's numbers
    (best iteration, errors, rows) are the first round's."""
    row = dict(row, repeats=len(rounds))
    if not rounds:
        return dict(row, status="error", note="no round ran")
    row.update(status=rounds[-1]["status"], note=" ".join(str(rounds[-1]["note"]).split()))
    if row["status"] != "ok":
        return row
    cold = row["regime"] == "cold"
    walls = np.array([r["process_wall" if cold else "fit_wall"] for r in rounds])
    cpus = np.array([r["process_cpu" if cold else "fit_cpu"] for r in rounds])
    loads = np.array([r["load"] for r in rounds])
    first = rounds[0]
    row.update(wall_s=walls.min(), cpu_s=cpus.min(), spread=walls.max() / walls.min() - 1,
               process_wall_s=min(r["process_wall"] for r in rounds),
               wall_all=_joined(walls), cpu_all=_joined(cpus), load_1min=loads[walls.argmin()],
               load_all=";".join(f"{v:.2f}" for v in loads))
    if cold:
        for step in ("import", "read", "fit"):
            times = [r[f"{step}_s"] for r in rounds]
            row.update({f"{step}_s": min(times), f"{step}_all": _joined(times)})
    else:
        row.update(rows=first["data_check"]["n_rows"], best_iter=first.get("best_iter"),
                   cv_error_min=first.get("cv_error_min"),
                   train_error_last=first.get("train_error_last"))
    return row


def problems(rows: list) -> list:
    """Failed measurements and data sets R and pygbm set up differently."""
    out = [f"{r['regime']} {r['workload']} cores={r['cores']} {r['system']}: {r['status']} "
           f"— {r.get('note') or ''}" for r in rows if r["status"] != "ok"]
    out += sorted({f"{r['workload']}: R and pygbm prepared different data ({r['data']})"
                   for r in rows if str(r.get("data") or "").startswith("differs")})
    return out


# ------------------------------------------------------------------ markdown
def _lookup(rows, regime, workload, cores, system):
    for r in rows:
        if row_key(r) == (regime, workload, cores, system) and r["status"] == "ok":
            return r
    return None


def _ratio(a, b, key):
    """a[key] / b[key], None when either is missing."""
    if a is None or b is None or not a.get(key) or not b.get(key):
        return None
    return a[key] / b[key]


def geomean(values) -> float | None:
    """Geometric mean of the values that are not None (None when there are none)."""
    xs = [v for v in values if v is not None]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def _workloads(rows) -> list:
    present = {r["workload"] for r in rows if r["regime"] != "cold"}
    return [w for w in SW.WORKLOADS if w["name"] in present]


def _summary(rows) -> list:
    wls = _workloads(rows)
    out = ["| workload | rows | " + " | ".join(SETTING_TITLE[s] for s in SETTINGS) + " |",
           "|---|---:|" + "---:|" * len(SETTINGS)]
    ratios = {s: {} for s in SETTINGS}
    for wl in wls:
        n = next((r["rows"] for r in rows if r["workload"] == wl["name"] and r.get("rows")),
                 None)
        cells = []
        for s in SETTINGS:
            x = _ratio(_lookup(rows, s[0], wl["name"], s[1], "pygbm"),
                       _lookup(rows, s[0], wl["name"], s[1], "r"), "wall_s")
            ratios[s][wl["name"]] = x
            cells.append(fmt(x, 2))
        mark = " *" if wl["in_issue"] else ""
        out.append(f"| {wl['name']}{mark} | {fmt(n)} | " + " | ".join(cells) + " |")
    for title, keep in (("geometric mean, the issue's six (*)", lambda w: w["in_issue"]),
                        ("geometric mean, all", lambda w: True)):
        names = [w["name"] for w in wls if keep(w)]
        cells = []
        for s in SETTINGS:
            got = [ratios[s][n] for n in names if ratios[s][n] is not None]
            cells.append(f"**{fmt(geomean(got), 2)}** ({len(got)})" if got else "–")
        out.append(f"| **{title}** | | " + " | ".join(cells) + " |")
    return out


def _detail(rows, setting) -> list:
    regime, cores = setting
    out = ["| workload | rows | call | R s | pygbm s | pygbm ÷ R | R CPU s | pygbm CPU s "
           "| CPU ÷ | spread R / pygbm | best iteration R / pygbm | load |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for wl in _workloads(rows):
        p, r = (_lookup(rows, regime, wl["name"], cores, s) for s in ("pygbm", "r"))
        if p is None and r is None:
            continue
        any_row = p or r

        def cell(row, key, digits=3):
            return fmt(row[key], digits) if row else "–"

        best = (f"{cell(r, 'best_iter')} / {cell(p, 'best_iter')}" if regime == "cv"
                else "")
        out.append(f"| {wl['name']} | {fmt(any_row['rows'])} | "
                   f"`{SW.call_text(wl, regime == 'cv', any_row['n_trees'])}` | "
                   f"{cell(r, 'wall_s')} | {cell(p, 'wall_s')} | "
                   f"**{fmt(_ratio(p, r, 'wall_s'), 2)}** | {cell(r, 'cpu_s')} | "
                   f"{cell(p, 'cpu_s')} | {fmt(_ratio(p, r, 'cpu_s'), 2)} | "
                   f"{_pct(r)} / {_pct(p)} | {best} | "
                   f"{cell(r, 'load_1min', 2)} / {cell(p, 'load_1min', 2)} |")
    return out


def _pct(row) -> str:
    return f"{row['spread']:.0%}" if row and row.get("spread") is not None else "–"


def _cold(rows) -> list:
    got = {r["system"]: r for r in rows if r["regime"] == "cold" and r["status"] == "ok"}
    if not got:
        return []
    trees = next(iter(got.values()))["n_trees"]
    out = [f"boston, {trees} trees:", "",
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


def _header(rows, meta) -> list:
    runs = [meta[k] for k in ("small", "cold") if k in meta]
    if not runs:
        return ["# pygbm and R gbm on the statisticians' data sets", ""]
    m = runs[-1]
    loads = [r["load_1min"] for r in rows if r.get("load_1min") is not None]
    codes = sorted({r["pygbm_code"] for r in rows if r.get("pygbm_code")
                    and r["status"] == "ok"})
    return ["# pygbm and R gbm on the statisticians' data sets", "",
            "Runs: " + "; ".join(f"{x['date']} `{x['command']}`" for x in runs) + "  ",
            f"Machine: {m['nproc']} cores ({m['cpu']}), {m['memory']} RAM, {m['os']}; "
            f"1-minute load average before the fits {fmt(min(loads), 2) if loads else '–'}"
            f"–{fmt(max(loads), 2) if loads else '–'} (a shared machine: other jobs may run).  ",
            f"Software: Python {m['python']}, NumPy {m['numpy']}, pandas {m['pandas']}, "
            f"numba {m.get('numba', '–')}, {m['r']}; pygbm code (commit+source hash) "
            f"{', '.join(codes) or '–'}.", ""]


def _protocol(rows, meta) -> list:
    nproc = next(iter(meta.values()), {}).get("nproc", os.cpu_count())
    return [
        "Protocol: every fit runs in a fresh process (`small_worker.py` / `small_worker.R`); "
        "pygbm and R take turns, round 1 of both, then round 2, ..., the one that goes "
        "first alternating, and the time is the "
        "minimum over the rounds (see each row's `repeats` in the CSV); *spread* = "
        "(max − min) / min of the wall times across rounds. Wall = the `gbm()` call (and "
        "`gbm_perf`) inside the process, reading the data excluded; CPU = user + system "
        "time of the whole process tree during the fit (R's cv folds run in PSOCK worker "
        "processes, pygbm's parallel folds in joblib workers: both counted).",
        "",
        f"Calls: the data sets of `data/` set up identically for both systems "
        f"(tests/r_reference's prep.py / prep.R); `shrinkage={SW.SHRINKAGE}, "
        f"bag_fraction={SW.BAG_FRACTION}`, R's defaults otherwise (`n_minobsinnode=10`, "
        f"`train_fraction=1`); `set.seed({SW.SEED})` / `random_state={SW.SEED}`. cv: "
        f"`cv_folds={SW.CV_FOLDS}` then `gbm_perf(method=\"cv\")` / `gbm.perf(method = "
        f"\"cv\")`, timed together. *One core*: `n_cores=1` / `n.cores = 1` and "
        "single-threaded libraries (OMP, OpenBLAS, MKL, NUMBA_NUM_THREADS=1); *default*: "
        "neither. Without cv neither system uses n_cores. " + _defaults(rows, nproc), ""]


def write_report(rows: list, meta: dict, out_dir: str) -> None:
    """results.md of the suite."""
    md = _header(rows, meta) + _protocol(rows, meta)
    if _workloads(rows):
        md += ["## pygbm ÷ R gbm", "",
               "Wall time of pygbm ÷ wall time of R (< 1: pygbm is faster); * = the six "
               "workloads of issue 19's table; the geometric means say over how many "
               "workloads.", ""] + _summary(rows)
        for setting in SETTINGS:
            if any((r["regime"], r["cores"]) == setting for r in rows):
                md += ["", f"## {SETTING_TITLE[setting]}", ""] + _detail(rows, setting)
    cold = _cold(rows)
    if cold:
        md += ["", "## Cold start", "",
               "A fresh process, timed whole from its start to its end: `import pygbm`, "
               "read boston.csv with pandas, `gbm(\"medv ~ .\", distribution=\"gaussian\", "
               "interaction_depth=3, shrinkage=0.01, bag_fraction=0.5)` (cold_start.py), "
               "against `Rscript` doing `library(gbm)`, `read.csv` and the same `gbm()` "
               "call (cold_start.R). The rounds follow one "
               "warm-up round of each (its time: *first run*; it fills the disk cache and "
               "the compilation cache). *pygbm, empty numba cache* runs with "
               "`NUMBA_CACHE_DIR` set to a new empty folder every time, so any compilation "
               "is included. Inside the process: *import* = `import pygbm` / `library(gbm)`, *read* "
               "= reading the CSV (with pandas' import, unless `import pygbm` loaded it), "
               "*fit* = the `gbm()` call; *process* adds the interpreter's start and exit.",
               ""] + cold
    same = sorted({r["workload"] for r in rows if r.get("data") == "same"})
    if same:
        md += ["", "## Data set-up", "",
               f"R's and pygbm's prepared data agree (rows, columns, missing values, factor "
               f"levels, column sums and row order) for {len(same)} workloads: "
               f"{', '.join(same)}. Notes:", ""]
        md += [f"- {w['name']}: {w['note']}" for w in _workloads(rows) if w["note"]]
    bad = problems(rows)
    if bad:
        md += ["", "## Problems", ""] + [f"- {line}" for line in bad]
    with open(os.path.join(out_dir, "results.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
