"""Results of the statisticians' suite and the cold start: CSV rows, their checks and
results.md (the tables: small_tables.py)."""
from __future__ import annotations

import os
import time

import numpy as np

import report
import small_tables as T

COLUMNS = ("regime", "workload", "cores", "start", "system", "status", "note", "rows",
           "n_trees", "wall_s", "cpu_s", "process_wall_s", "spread", "wall_all", "cpu_all",
           "load_1min", "load_all", "warmup_wall_s", "warmup_cpu_s", "warmup_all",
           "import_s", "read_s", "fit_s", "import_all", "read_all", "fit_all",
           "first_wall_s", "best_iter", "cv_error_min", "train_error_last", "data",
           "repeats", "started", "run", "pygbm_code")
_INT = {"rows", "n_trees", "best_iter", "repeats"}
_FLOAT = {"wall_s", "cpu_s", "process_wall_s", "spread", "load_1min", "warmup_wall_s",
          "warmup_cpu_s", "import_s", "read_s", "fit_s", "first_wall_s", "cv_error_min",
          "train_error_last"}
#: a warm fit is the same fit as the first (same seed): their last training errors agree
#: to this relative tolerance (the CSV keeps 6 significant digits)
SAME_FIT_RTOL = 1e-5


# ------------------------------------------------------------------ rows
def read_csv(path: str) -> list:
    """Rows of the suite's CSV; [] when there is none. Rows written before the start
    dimension existed were first fits."""
    rows = report.read_csv(path, _INT, _FLOAT)
    for r in rows:
        if r.get("start") is None:
            r["start"] = "" if r["regime"] == "cold" else "first"
    return rows


def write_csv(rows: list, path: str) -> None:
    """Write all rows (atomically)."""
    report.write_csv(rows, path, COLUMNS)


def row_key(r) -> tuple:
    """Identity of a measurement."""
    return (r["regime"], r["workload"], str(r["cores"]), r["start"] or "", r["system"])


def new_row(task, n_trees: int, code: str, run: str) -> dict:
    """The CSV row of a task before any fit."""
    return dict(regime=task.regime, workload=task.workload, cores=task.cores,
                start=task.start, system=task.system, n_trees=n_trees, repeats=0,
                pygbm_code=code if task.system.startswith("pygbm") else "",
                started=time.strftime("%Y-%m-%d %H:%M:%S"), run=run)


def progress(res: dict) -> str:
    """One line on a finished round."""
    if res["status"] != "ok":
        return f"{res['status']}: {res.get('note', '')}"
    if "fit_wall" in res:
        warm = (f", after a {res['warmup_wall']:.2f}s warm-up" if "warmup_wall" in res
                else "")
        return (f"fit {res['fit_wall']:.2f}s (cpu {res['fit_cpu']:.2f}s, load "
                f"{res['load']:.1f}{warm})")
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
        return row
    row.update(rows=first["data_check"]["n_rows"], best_iter=first.get("best_iter"),
               cv_error_min=first.get("cv_error_min"),
               train_error_last=first.get("train_error_last"))
    if "warmup_wall" in first:
        warm = [r["warmup_wall"] for r in rounds]
        row.update(warmup_wall_s=min(warm), warmup_all=_joined(warm),
                   warmup_cpu_s=min(r["warmup_cpu"] for r in rounds))
    return row


# ------------------------------------------------------------------ checks
def _warm_differs(rows: list) -> list:
    """Measurements whose warm fit is not the first's (a warm-up must not change it)."""
    ok = {row_key(r): r for r in rows if r["status"] == "ok"}
    out = []
    for key, warm in ok.items():
        first = ok.get(key[:3] + ("first",) + key[4:])
        if key[3] != "warm" or first is None:
            continue
        same = (warm.get("best_iter") == first.get("best_iter")
                and np.isclose(warm["train_error_last"], first["train_error_last"],
                               rtol=SAME_FIT_RTOL, atol=0))
        if not same:
            out.append(f"{' '.join(key[:3])} {key[4]}: the warm fit differs from the first "
                       f"(training error {warm['train_error_last']} vs "
                       f"{first['train_error_last']}, best iteration {warm.get('best_iter')} "
                       f"vs {first.get('best_iter')})")
    return out


def problems(rows: list) -> list:
    """Failed measurements, data sets R and pygbm set up differently, and warm fits
    that differ from the first."""
    out = [f"{r['regime']} {r['workload']} cores={r['cores']} {r['start'] or ''} "
           f"{r['system']}: {r['status']} — {r.get('note') or ''}"
           for r in rows if r["status"] != "ok"]
    out += sorted({f"{r['workload']}: R and pygbm prepared different data ({r['data']})"
                   for r in rows if str(r.get("data") or "").startswith("differs")})
    return out + _warm_differs(rows)


# ------------------------------------------------------------------ results.md
def write_report(rows: list, meta: dict, out_dir: str) -> None:
    """results.md of the suite."""
    md = T.header(rows, meta) + T.protocol(rows, meta)
    if T.workloads(rows):
        md += ["## pygbm ÷ R gbm", ""] + T.summary(rows) + ["", "## Calls", ""] + T.calls(rows)
        for setting in T.SETTINGS:
            if any((r["regime"], r["cores"]) == setting for r in rows):
                md += ["", f"## {T.SETTING_TITLE[setting]}", ""] + T.detail(rows, setting)
    md += T.cold(rows)
    same = sorted({r["workload"] for r in rows if r.get("data") == "same"})
    if same:
        md += ["", "## Data set-up", "",
               f"R's and pygbm's prepared data agree (rows, columns, missing values, factor "
               f"levels, column sums and row order) for {len(same)} workloads: "
               f"{', '.join(same)}. Notes:", ""]
        md += [f"- {w['name']}: {w['note']}" for w in T.workloads(rows) if w["note"]]
    bad = problems(rows)
    if bad:
        md += ["", "## Problems", ""] + [f"- {line}" for line in bad]
    with open(os.path.join(out_dir, "results.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
