"""The statisticians' suite and the cold start (issue 19): ``run.py --suite small`` and
``run.py --suite cold``.

``small``: every workload of small_workloads.py, fitted by pygbm and by R gbm 2.1.8
with the same call, with ``cv_folds=5`` + ``gbm_perf(method="cv")`` on one core
(``n_cores=1``, single-threaded libraries) and with each system's default cores, and
once on one core (``--settings``); each both as the *first* fit of a fresh process and
*warm*, after an untimed warm-up in the same process (the same calls with 2 trees on
one core, gbm and with cv gbm_perf, and a prediction of a few rows; ``--starts``).
``cold``: a fresh process importing the library and fitting boston (1000 trees),
timed whole, against ``Rscript`` doing the same with ``library(gbm)``.

Each fit runs in a fresh process; the measurements of one setting (both systems, both
starts) take turns (round 1 of every one, then round 2, ...; the order reversed every
other round), so a slow period of a shared machine falls on all of them alike. Before
the rounds of ``small``, one untimed pygbm process fits every workload (2 trees, cv) so
that numba's compilation cache holds every kernel: no measured fit compiles
(compilation is a once-per-installation cost, which the cold suite's *empty numba
cache* system measures). Results: results/small/results.csv (both suites; a run
replaces the rows it measures) and results.md. ``--quick`` is a smoke run
(results/small/quick/) that exits with status 1 if anything failed, R and pygbm set a
data set up differently, or a warm fit differs from the first.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

import report
import small_report
import small_workloads as SW
from machine import machine_info, pygbm_fingerprint
from processes import REPO, THREAD_ENV, become_subreaper, run_worker

HERE = os.path.dirname(os.path.abspath(__file__))
SYSTEMS = ("pygbm", "r")
#: cold start: pygbm as installed (compilation cache warm after the first run), pygbm
#: with an empty numba cache every time (its compilation included), R
COLD_SYSTEMS = ("pygbm", "pygbm_fresh_cache", "r")
#: the settings (small_workloads.SETTINGS) as options, "regime:cores"; a single fit uses
#: neither system's n_cores, so "fit:default" is measured only when asked for
SETTINGS = tuple(f"{regime}:{cores}" for regime, cores in SW.SETTINGS)
DEFAULT_SETTINGS = SETTINGS[:3]
#: boston trees of the cold start (the --quick smoke run uses fewer)
COLD_TREES, QUICK_COLD_TREES = 1000, 100
#: a measurement whose first fit takes longer than this (s) is not repeated
SLOW_FIT_S = 120.0
#: README.md's copy of results/small/results.md is written between these
README_MARKERS = ("<!-- small-results:start -->", "<!-- small-results:end -->")
#: relative tolerance of the column sums when R's and pygbm's data are compared
DATA_RTOL = 1e-12


@dataclass(frozen=True)
class Task:
    """One measurement: a system's fit of a workload in a regime ("fit", "cv" or
    "cold") with one core ("1") or the system's default ("default"), as the process's
    first fit ("first") or after the warm-up ("warm"; "" for the cold start)."""

    workload: str
    regime: str
    cores: str
    system: str
    start: str

    def label(self) -> str:
        start = f" {self.start}" if self.start else ""
        return f"{self.regime} {self.workload} cores={self.cores}{start} {self.system}"


# ------------------------------------------------------------------ arguments
def _listed(parser, option: str, text: str, allowed) -> list:
    """The comma-separated values of an option, each one of ``allowed``."""
    values = [v.strip() for v in text.split(",") if v.strip()]
    bad = set(values) - set(allowed)
    if bad:
        parser.error(f"{option}: unknown {sorted(bad)}; choose from {','.join(allowed)}")
    return values


def parse_args(argv):
    """Command-line options of the two suites."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", choices=("small", "cold"), required=True)
    p.add_argument("--quick", action="store_true",
                   help=f"smoke run: {SW.QUICK_TREES} trees, one round; every workload fitted "
                        f"once on one core, {' and '.join(SW.QUICK_FULL)} in every setting "
                        "asked for; both starts")
    p.add_argument("--repeats", type=int, default=None,
                   help="rounds, the minimum time counts (default 3; 1 with --quick)")
    p.add_argument("--workloads", default=",".join(w["name"] for w in SW.WORKLOADS),
                   help="comma-separated subset (default: all); `issue` = the issue's six")
    p.add_argument("--systems", default=",".join(SYSTEMS), help="pygbm,r or one of them")
    p.add_argument("--settings", default=",".join(DEFAULT_SETTINGS),
                   help=f"regime:cores, comma-separated, of {','.join(SETTINGS)} (default "
                        f"{','.join(DEFAULT_SETTINGS)}: a single fit uses neither system's "
                        "n_cores)")
    p.add_argument("--starts", default=",".join(SW.STARTS),
                   help="first (the first fit of a fresh process), warm (after an untimed "
                        "warm-up in the same process: the same calls with 2 trees, and a "
                        "predict), or both (default)")
    p.add_argument("--timeout", type=float, default=1800,
                   help="seconds before a worker is killed (default 1800)")
    p.add_argument("--out", default=None,
                   help="results folder (default results/small or results/small/quick)")
    p.add_argument("--report-only", action="store_true", help="rewrite results.md from the CSV")
    a = p.parse_args(argv)
    if a.workloads == "issue":
        a.workloads = ",".join(w["name"] for w in SW.WORKLOADS if w["in_issue"])
    a.workloads = _listed(p, "--workloads", a.workloads, SW.BY_NAME)
    a.settings = [tuple(x.split(":")) for x in _listed(p, "--settings", a.settings, SETTINGS)]
    a.starts = _listed(p, "--starts", a.starts, SW.STARTS)
    a.systems = _listed(p, "--systems", a.systems, SYSTEMS)
    a.repeats = a.repeats or (1 if a.quick else 3)
    a.out = a.out or os.path.join(HERE, "results", "small", "quick" if a.quick else "")
    return a


def plan(a) -> list:
    """The measurements of the suite, grouped by workload and setting: the measurements
    of a group (each start of each system) take turns in rounds."""
    if a.suite == "cold":
        systems = [s for s in COLD_SYSTEMS if s.split("_")[0] in a.systems]
        return [[Task("boston", "cold", "default", s, "") for s in systems]]
    groups = []
    for name in a.workloads:
        for regime, cores in a.settings:
            if not a.quick or name in SW.QUICK_FULL or (regime, cores) == ("fit", "1"):
                groups.append([Task(name, regime, cores, s, start)
                               for start in a.starts for s in a.systems])
    return groups


# ------------------------------------------------------------------ one fit
def _trees(a, task: Task) -> int:
    """Trees of a task's fit."""
    if task.regime == "cold":
        return QUICK_COLD_TREES if a.quick else COLD_TREES
    return SW.QUICK_TREES if a.quick else SW.BY_NAME[task.workload]["n_trees"]


def _command(a, task: Task, stem: str) -> tuple[list, dict]:
    """The worker command of a task and the environment variables it adds."""
    env = THREAD_ENV if task.cores == "1" else {}
    if task.regime == "cold":
        trees = str(_trees(a, task))
        data = os.path.join(REPO, SW.BY_NAME["boston"]["data"])
        if task.system == "r":
            return ["Rscript", os.path.join(HERE, "cold_start.R"), data, trees,
                    stem + ".json"], env
        if task.system == "pygbm_fresh_cache":
            env = dict(env, NUMBA_CACHE_DIR=tempfile.mkdtemp(dir=os.path.dirname(stem)))
        return [sys.executable, os.path.join(HERE, "cold_start.py"), data, trees,
                stem + ".json"], env
    wl = SW.BY_NAME[task.workload]
    args = SW.spec_args(wl, task.regime, 1 if task.cores == "1" else None, _trees(a, task))
    spec = dict(workload=wl, regime=task.regime, root=REPO, out_json=stem + ".json",
                out_data=stem + ".data.json", args=args,
                warmup=SW.warmup_args(args) if task.start == "warm" else None,
                warmup_predict_rows=SW.WARMUP_PREDICT_ROWS)
    with open(stem + ".spec.json", "w") as fh:
        json.dump(spec, fh)
    worker = (["Rscript", os.path.join(HERE, "small_worker.R")] if task.system == "r"
              else [sys.executable, os.path.join(HERE, "small_worker.py")])
    return worker + [stem + ".spec.json"], env


def fit_once(a, task: Task, tmp: str, rnd: int) -> dict:
    """One round of a task in a fresh process: the worker's JSON dict plus the
    process's wall time and the CPU time of the fit in the whole process tree."""
    stem = os.path.join(tmp, f"{task.regime}_{task.workload}_{task.cores}_{task.start}_"
                             f"{task.system}_{rnd}")
    cmd, env = _command(a, task, stem)
    load = os.getloadavg()[0]
    done = run_worker(cmd, a.timeout, env)
    res = dict(process_wall=done.wall_s, process_cpu=done.tree_cpu_s, load=load)
    if done.code is None:
        return dict(res, status="timeout", note=f"killed after {a.timeout:g} s")
    if not os.path.exists(stem + ".json"):
        return dict(res, status="error",
                    note=f"exit {done.code}: {' '.join(done.err.split())[-300:]}")
    with open(stem + ".json") as fh:
        res.update(json.load(fh))
    if os.path.exists(stem + ".data.json"):
        with open(stem + ".data.json") as fh:
            res["data_check"] = json.load(fh)
    if res.get("traceback"):
        print(res["traceback"], file=sys.stderr)
    if "cpu_outside_fit" in res and res["status"] == "ok":
        res["fit_cpu"] = done.tree_cpu_s - res["cpu_outside_fit"]
    return res


# ------------------------------------------------------------------ rounds
def data_differs(py: dict, r: dict) -> str:
    """'' when R's and pygbm's prepared data agree (as the conformance tests check),
    else what differs."""
    for key in ("n_rows", "n_cols", "n_na", "columns", "class", "na_count"):
        if py[key] != r[key]:
            return key
    if py["levels"] != (r["levels"] or {}):
        return "factor levels"
    for key in ("sum", "row_weighted_sum"):
        for col, v in (r[key] or {}).items():
            if not np.isclose(py[key][col], v, rtol=DATA_RTOL, atol=0):
                return f"{key} of {col}"
    return ""


def measure_group(a, group: list, tmp: str):
    """The measurements of one setting in interleaved rounds, the order reversed every
    other round (cold start: after a warm-up round, reported apart). Yields each
    finished CSV row."""
    rows = {t: small_report.new_row(t, _trees(a, t), pygbm_fingerprint(), a.run)
            for t in group}
    rounds = {t: [] for t in group}
    first_round = 0 if group[0].regime == "cold" else 1        # round 0: the warm-up
    for rnd in range(first_round, a.repeats + 1):
        for t in (group if rnd % 2 else group[::-1]):      # who goes first alternates
            done = rounds[t]
            if done and (done[-1]["status"] != "ok" or done[0]["process_wall"] > SLOW_FIT_S):
                continue
            print(f"   {t.label()} round {rnd} ...", end=" ", flush=True)
            res = fit_once(a, t, tmp, rnd)
            print(small_report.progress(res), flush=True)
            if rnd == 0:
                rows[t]["first_wall_s"] = res["process_wall"]
            else:
                done.append(res)
    for start in {t.start for t in group}:
        checks = {t.system: rounds[t][0].get("data_check")
                  for t in group if t.start == start and rounds[t]}
        if checks.get("pygbm") and checks.get("r"):
            diff = data_differs(checks["pygbm"], checks["r"])
            for t in group:
                if t.start == start:
                    rows[t]["data"] = f"differs: {diff}" if diff else "same"
    for t in group:
        yield small_report.merge_rounds(rows[t], rounds[t])


def prime_cache(a, tmp: str) -> dict:
    """One untimed pygbm process fitting every planned workload with WARMUP_TREES trees
    and cv, then predicting (fills numba's compilation cache); its wall time."""
    stem = os.path.join(tmp, "prime")
    items = [dict(workload=SW.BY_NAME[name],
                  args=SW.spec_args(SW.BY_NAME[name], "cv", None, SW.WARMUP_TREES))
             for name in a.workloads]
    with open(stem + ".spec.json", "w") as fh:
        json.dump(dict(prime=items, root=REPO, out_json=stem + ".json"), fh)
    print(f"   filling numba's cache: {len(items)} workloads, {SW.WARMUP_TREES} trees, cv ...",
          end=" ", flush=True)
    done = run_worker([sys.executable, os.path.join(HERE, "small_worker.py"),
                       stem + ".spec.json"], a.timeout, {})
    res = dict(status="error", note=f"exit {done.code}: {' '.join(done.err.split())[-300:]}")
    if os.path.exists(stem + ".json"):
        with open(stem + ".json") as fh:
            res = json.load(fh)
    print(f"{done.wall_s:.1f}s {res['status']} {res['note']}", flush=True)
    return dict(prime_wall_s=round(done.wall_s, 2), prime_status=res["status"],
                prime_note=res["note"])


def run_suite(a, rows: list, run: dict) -> list:
    """Measure every planned group (the cache filled first); the CSV is rewritten after
    each group; ``run`` (the run's entry in meta.json) gets the priming's outcome."""
    become_subreaper()
    groups = plan(a)
    print(f"{sum(map(len, groups))} measurements, {a.repeats} round(s); results in {a.out}",
          flush=True)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pygbm_small_") as tmp:
        if a.suite == "small" and "pygbm" in a.systems:
            run.update(prime_cache(a, tmp))
        for i, group in enumerate(groups, 1):
            print(f"[{i}/{len(groups)}] {group[0].regime} {group[0].workload} "
                  f"cores={group[0].cores}", flush=True)
            for row in measure_group(a, group, tmp):
                rows = [r for r in rows if small_report.row_key(r) != small_report.row_key(row)]
                rows.append(row)
                small_report.write_csv(rows, os.path.join(a.out, "results.csv"))
            print(f"   ({(time.monotonic() - t0) / 60:.1f} min)", flush=True)
    return rows


def _write_meta(meta: dict, path: str) -> None:
    with open(path, "w") as fh:
        json.dump(meta, fh, indent=1)


def main(argv) -> int:
    """Run a suite; 1 when a measurement failed, the data set-up differed or a warm fit
    differs from the first."""
    a = parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    rows = small_report.read_csv(os.path.join(a.out, "results.csv"))
    meta_path = os.path.join(a.out, "meta.json")
    meta = {}
    if os.path.exists(meta_path):
        with open(meta_path) as fh:
            meta = json.load(fh)
    runs = meta.setdefault("runs", {})       # by run id (the rows' `run`)
    if not a.report_only:
        a.run = time.strftime("%Y-%m-%d %H:%M:%S")
        runs[a.run] = dict(machine_info(), suite=a.suite, repeats=a.repeats, quick=a.quick)
        _write_meta(meta, meta_path)
        rows = run_suite(a, rows, runs[a.run])
        _write_meta(meta, meta_path)
    small_report.write_report(rows, meta, a.out)
    if os.path.abspath(a.out) == os.path.join(HERE, "results", "small"):     # not --quick
        report.update_readme(os.path.join(HERE, "README.md"), os.path.join(a.out, "results.md"),
                             README_MARKERS)
    print("wrote", os.path.join(a.out, "results.md"), flush=True)
    bad = small_report.problems(rows)
    for line in bad:
        print("PROBLEM:", line, flush=True)
    return 1 if bad else 0
