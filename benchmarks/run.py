"""pygbm benchmark suite: one command, every system, one machine.

    python benchmarks/run.py [--quick] [--sizes 10000,100000,1000000]
                             [--systems pygbm,pygbm_binned,r,sklearn,lightgbm]

Fits every workload (see workloads.py) with every system, each fit in its own
subprocess with a timeout, the systems of a workload taking turns (round 1 of
every system, then round 2, ...), and writes results/results.csv,
results/results.md and results/scaling.png (see README.md for what is
measured). ``--quick`` is a smoke run (10k rows, 200 trees) written to
results/quick/. The CSV is rewritten after every workload, so an
interrupted run can be continued with ``--resume``.

    python benchmarks/run.py --suite small [--quick]     # statisticians' data sets vs R
    python benchmarks/run.py --suite cold [--quick]      # import + first fit vs Rscript

run the suites of small.py (results in results/small/).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import report  # noqa: E402
import small  # noqa: E402
import workloads as W  # noqa: E402
from machine import machine_info, pygbm_fingerprint  # noqa: E402
from processes import run_worker  # noqa: E402

ALL_SYSTEMS = ("pygbm", "pygbm_binned", "r", "sklearn", "lightgbm")
SYNTHETIC_NAMES = tuple(W.SYNTHETIC)
#: rows at and above which a run counts as "large" (sklearn skipped, R optional)
LARGE_ROWS = 1_000_000
#: trees of the trees-scaling runs (fractions of the main n_trees)
TREE_FRACTIONS = (0.25, 0.5)
#: cv speed-up workload: rows, folds
CV_ROWS, CV_FOLDS = 20_000, 4
SEED = 1
#: a system whose first fit takes longer than this (s) is not fitted again: its timing
#: varies by a few percent, and a second fit would double the run's length
SLOW_FIT_S = 120.0
#: a system whose first fit takes less than QUICK_FIT_S (s) is fitted QUICK_REPEATS times
#: (at least --repeats): seconds-long fits vary most on a shared machine, and cost little
QUICK_FIT_S, QUICK_REPEATS = 10.0, 5


# ------------------------------------------------------------------ arguments
def parse_args(argv=None):
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--suite", choices=("main", "small", "cold"), default="main",
                   help="main: this suite; small: the statisticians' data sets against R "
                        "(one and all cores, with and without cv); cold: a fresh process's "
                        "import + first fit against Rscript's (see `--suite small --help`)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: 10k rows, 200 trees, real data cut to 10k rows")
    p.add_argument("--sizes", default=None,
                   help="synthetic sizes (rows, train + validation), default 10000,100000,1000000")
    p.add_argument("--systems", default=",".join(ALL_SYSTEMS),
                   help=f"comma-separated subset of {','.join(ALL_SYSTEMS)}")
    p.add_argument("--workloads", default=None,
                   help="comma-separated subset of "
                        f"{','.join(SYNTHETIC_NAMES + W.REAL)} (default: all)")
    p.add_argument("--n-trees", type=int, default=None, help="default 1000 (200 with --quick)")
    p.add_argument("--repeats", type=int, default=None,
                   help="fits per measurement, the minimum counts (default 2; 1 with --quick)")
    p.add_argument("--full", action="store_true", help="also run sklearn at >= 1M rows (slow)")
    p.add_argument("--skip-r-large", action="store_true",
                   help="skip R at >= 1M rows (about 15 min per fit)")
    p.add_argument("--skip-trees", action="store_true", help="skip the trees-scaling runs")
    p.add_argument("--skip-cv", action="store_true", help="skip the cv speed-up runs")
    p.add_argument("--only", choices=("fit", "cv"), default=None,
                   help="only these measurements (e.g. `--resume --redo pygbm,r --only cv` "
                        "after a change to cross-validation)")
    p.add_argument("--timeout", type=float, default=4 * 3600,
                   help="seconds before a worker is killed (default 4 h)")
    p.add_argument("--data-dir", default=os.path.join(tempfile.gettempdir(), "pygbm_bench_data"),
                   help="where the data files are written once")
    p.add_argument("--out", default=None, help="results folder (default results/ or "
                                               "results/quick/)")
    p.add_argument("--resume", action="store_true",
                   help="keep the results already in the CSV and skip those measurements")
    p.add_argument("--redo", default="",
                   help="with --resume: systems to measure again although in the CSV "
                        "(e.g. pygbm,pygbm_binned after the code changed)")
    p.add_argument("--report-only", action="store_true",
                   help="rewrite results.md and scaling.png from the CSV")
    a = p.parse_args(argv)
    a.systems = [s.strip().lower() for s in a.systems.split(",") if s.strip()]
    bad = set(a.systems) - set(ALL_SYSTEMS)
    if bad:
        p.error(f"--systems: unknown {sorted(bad)}; choose from {','.join(ALL_SYSTEMS)}")
    a.sizes = [int(s) for s in (a.sizes or ("10000" if a.quick else "10000,100000,1000000"))
               .split(",")]
    a.workloads = (SYNTHETIC_NAMES + W.REAL) if a.workloads is None else \
        tuple(w.strip() for w in a.workloads.split(","))
    bad = set(a.workloads) - set(SYNTHETIC_NAMES + W.REAL)
    if bad:
        p.error(f"--workloads: unknown {sorted(bad)}")
    a.n_trees = a.n_trees or (200 if a.quick else 1000)
    a.repeats = a.repeats or (1 if a.quick else 2)
    a.out = a.out or os.path.join(HERE, "results", "quick" if a.quick else "")
    return a


# ------------------------------------------------------------------ tasks
def plan(a):
    """All measurements, cheapest first: (task, workload name, rows, system, n_trees, cores)."""
    small = [n for n in sorted(a.sizes) if n < LARGE_ROWS]
    large = [n for n in sorted(a.sizes) if n >= LARGE_ROWS]
    syn = [w for w in SYNTHETIC_NAMES if w in a.workloads]
    tasks = [("fit", w, n, s, a.n_trees, 1) for n in small for w in syn for s in a.systems]
    real_rows = 10_000 if a.quick else None
    tasks += [("fit", w, real_rows, s, a.n_trees, 1) for w in W.REAL if w in a.workloads
              for s in a.systems]
    if not a.skip_trees and "friedman" in syn and small:
        n = max(small)
        tasks += [("fit", "friedman", n, s, int(a.n_trees * f), 1)
                  for f in TREE_FRACTIONS for s in a.systems]
    if not a.skip_cv:
        cv_rows = 10_000 if a.quick else CV_ROWS
        tasks += [("cv", "friedman", cv_rows, s, a.n_trees, c)
                  for s in ("pygbm", "r") if s in a.systems for c in (1, 2)]
    tasks += [("fit", w, n, s, a.n_trees, 1) for n in large for w in syn for s in a.systems]
    return [t for t in tasks if a.only in (None, t[0])]


def skip_reason(a, task) -> str | None:
    """Why a planned measurement is not run (None = run it)."""
    kind, _, rows, system, _, _ = task
    if rows is not None and rows >= LARGE_ROWS:
        if system == "sklearn" and not a.full:
            return "skipped: sklearn's exact trees are too slow at 1M rows (use --full)"
        if system == "r" and a.skip_r_large:
            return "skipped: --skip-r-large"
    if system == "r" and shutil.which("Rscript") is None:
        return "skipped: Rscript not found"
    return None


_DATA_CACHE: dict = {}


def load_workload(name, rows, data_dir):
    """Workload, file paths and validation response (cached per run)."""
    key = (name, rows)
    if key not in _DATA_CACHE:
        wl, df, pred = W.load(name, rows)
        paths = W.write_files(wl, df, pred, data_dir)
        y_valid = W.xy_for_python(wl, df)[1][wl.n_train:]
        _DATA_CACHE.clear()                       # keep one data set in memory
        _DATA_CACHE[key] = (wl, paths, y_valid)
    return _DATA_CACHE[key]


# ------------------------------------------------------------------ running
def deviance(distribution, y, f):
    """Validation deviance from link-scale predictions, the same for all systems:
    mean squared error (gaussian), R's bernoulli deviance -2 mean(y f - log(1 + e^f))."""
    if distribution == "gaussian":
        return float(np.mean((y - f) ** 2))
    return float(-2 * np.mean(y * f - np.logaddexp(0.0, f)))


def fit_once(a, task, tmp, rnd):
    """Round ``rnd`` of a planned measurement: one fit (and its predictions) in a fresh
    worker process. Returns the worker's JSON dict (status "ok", "n/a" or "error"/"timeout"
    with a note), with the process's duration, maximum RSS and validation predictions."""
    kind, name, rows, system, n_trees, cores = task
    wl, paths, _ = load_workload(name, rows, a.data_dir)
    stem = os.path.join(tmp, f"{kind}_{wl.key()}_{system}_{n_trees}_{cores}_{rnd}")
    spec = dict(workload=asdict(wl), n_train=wl.n_train, system=system, n_trees=n_trees,
                seed=SEED, out_json=stem + ".json", out_pred=stem + ".pred", **paths)
    if kind == "cv":
        spec.update(cv_folds=CV_FOLDS, n_cores=cores)
    with open(stem + ".spec.json", "w") as fh:
        json.dump(spec, fh)
    cmd = (["Rscript", os.path.join(HERE, "r_worker.R"), stem + ".spec.json"] if system == "r"
           else [sys.executable, os.path.join(HERE, "worker.py"), stem + ".spec.json"])
    done = run_worker(cmd, a.timeout)
    code, err = done.code, done.err
    info = dict(duration_s=done.wall_s, proc_maxrss_mb=done.maxrss_mb)
    if code is None:
        return dict(info, status="timeout", note=f"killed after {a.timeout:.0f} s")
    if not os.path.exists(spec["out_json"]):
        return dict(info, status="error",
                    note=f"worker exit {code}: {' '.join(err.split())[-300:]}")
    with open(spec["out_json"]) as fh:
        res = json.load(fh)
    if res.get("traceback"):
        print(res["traceback"], file=sys.stderr)
    res.update(info, note=" ".join(str(res.get("note", "")).split()))
    if res["status"] == "ok" and os.path.exists(spec["out_pred"]):
        res["valid"] = np.loadtxt(spec["out_pred"], ndmin=1)
    return res


def new_row(a, task) -> dict:
    """The CSV row of a planned measurement before any fit (identity and code version)."""
    kind, name, rows, system, n_trees, cores = task
    wl, _, _ = load_workload(name, rows, a.data_dir)
    return dict(task=kind, workload=name, kind=wl.kind, rows=wl.rows, n_train=wl.n_train,
                system=system, n_trees=n_trees, n_cores=cores, repeats=0,
                pygbm_code=pygbm_fingerprint() if system.startswith("pygbm") else "",
                started=time.strftime("%Y-%m-%d %H:%M:%S"))


def merge_rounds(a, task, row, rounds) -> dict:
    """Fill ``row`` from the rounds of one measurement: fit and predict times are the
    minimum over the rounds, memory and validation deviance are those of the first."""
    wl, _, y_valid = load_workload(task[1], task[2], a.data_dir)
    first = rounds[0]
    row.update(duration_s=round(sum(r["duration_s"] for r in rounds), 1),
               proc_maxrss_mb=round(max(r["proc_maxrss_mb"] for r in rounds), 1),
               repeats=len(rounds))
    last = rounds[-1]                   # rounds stop at the first that is not ok
    row.update(status=last["status"], note=last["note"])
    if last["status"] != "ok":
        return row
    walls, cpus, loads = (np.array([r[k] for r in rounds], dtype=float)
                          for k in ("fit_wall", "fit_cpu", "load"))
    best = int(np.argmin(cpus))

    def least(key):
        vals = [r[key] for r in rounds if r.get(key) is not None]
        return min(vals) if vals else None

    row.update(fit_wall_s=walls.min(), fit_cpu_s=cpus.min(), load_1min=loads[best],
               fit_wall_all=";".join(f"{v:.3f}" for v in walls),
               fit_cpu_all=";".join(f"{v:.3f}" for v in cpus),
               load_all=";".join(f"{v:.2f}" for v in loads),
               peak_rss_mb=first.get("peak_rss_mb"), fit_mem_mb=first.get("fit_mem_mb"),
               predict_s=least("predict"), predict_list_s=least("predict_list"),
               own_valid_error=first.get("own_valid_error"))
    f = first.get("valid")
    if f is not None:
        if f.shape[0] == y_valid.shape[0]:
            row["valid_deviance"] = deviance(wl.distribution, y_valid, f)
        else:
            row["note"] = f"validation predictions: {f.shape[0]} rows, expected {y_valid.shape[0]}"
    return row


def groups(tasks) -> list:
    """Planned tasks grouped by setting (everything but the system and, for cv, the
    cores), in plan order: the measurements of a group run in interleaved rounds."""
    out: dict = {}
    for t in tasks:
        out.setdefault((t[0], t[1], t[2], t[4]), []).append(t)
    return list(out.values())


def fits_wanted(a, first) -> int:
    """Fits of a measurement, given its first: --repeats, more for a quick fit
    (QUICK_FIT_S; not with --quick), one for a slow one (SLOW_FIT_S)."""
    wall = first["fit_wall"]
    if wall > SLOW_FIT_S:
        return 1
    quick = wall < QUICK_FIT_S and not a.quick        # not in the smoke run
    return max(a.repeats, QUICK_REPEATS) if quick else a.repeats


def measure_group(a, group, tmp, done, label):
    """Measure the systems of one setting in interleaved rounds (round 1 of every
    system, then round 2, ...), so that a slow period of a shared machine falls on all
    systems alike; each system takes part in fits_wanted() rounds. Yields each finished
    CSV row."""
    todo = []
    for task in group:
        if report.task_key(task) in done:
            print(label(task), "(already measured)", flush=True)
            continue
        row = new_row(a, task)
        reason = skip_reason(a, task)
        if reason:
            yield dict(row, status="skipped", note=reason)
        else:
            todo.append((task, row, []))
    n_rounds = max(a.repeats, QUICK_REPEATS)
    for rnd in range(n_rounds):
        for task, row, rounds in todo:
            if rounds and (rounds[-1]["status"] != "ok" or rnd >= fits_wanted(a, rounds[0])):
                continue
            if task[3] == "r" and (task[2] or 0) >= LARGE_ROWS and rnd == 0:
                print("   R at 1M rows takes about 15 min per fit", flush=True)
            print(label(task), f"round {rnd + 1} ...", end=" ", flush=True)
            rounds.append(fit_once(a, task, tmp, rnd))
            r = rounds[-1]
            print(report.progress(merge_rounds(a, task, dict(row), [r])), flush=True)
    for task, row, rounds in todo:
        yield merge_rounds(a, task, row, rounds)


def main(argv=None) -> int:
    """Run the benchmark suite (``--suite small`` / ``cold``: small.py's suites)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--suite", default="main")
    if pre.parse_known_args(argv)[0].suite != "main":
        return small.main(argv)
    a = parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    csv_path = os.path.join(a.out, "results.csv")
    meta_path = os.path.join(a.out, "meta.json")
    rows = report.read_csv(csv_path) if (a.resume or a.report_only) else []
    if not a.report_only:
        meta = machine_info()
        if a.resume and os.path.exists(meta_path):
            with open(meta_path) as fh:
                earlier = json.load(fh)
            meta["command"] = earlier["command"] + "`, then `" + meta["command"]
            for key in ("cpu", "os"):          # a resumed run on another machine says so
                if earlier[key].rsplit("), then ", 1)[-1] != meta[key]:   # the latest one
                    meta[key] = f"{earlier[key]} (until {earlier['date']}), then {meta[key]}"
        meta.update(n_trees=a.n_trees, repeats=a.repeats, quick=a.quick)
        with open(meta_path, "w") as fh:
            json.dump(meta, fh, indent=1)
        redo = {s.strip() for s in a.redo.split(",") if s.strip()}
        done = {report.row_key(r) for r in rows
                if r.get("status") in ("ok", "n/a") and r["system"] not in redo}
        tasks = plan(a)
        print(f"{len(tasks)} measurements planned; data in {a.data_dir}; results in {a.out}",
              flush=True)
        index = {report.task_key(t): i for i, t in enumerate(tasks, 1)}

        def label(task):
            return f"[{index[report.task_key(task)]}/{len(tasks)}] {task[0]} {task[1]} " \
                   f"rows={task[2] or 'all'} {task[3]} n_trees={task[4]}" + \
                   (f" n_cores={task[5]}" if task[0] == "cv" else "")

        t_start = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="pygbm_bench_") as tmp:
            for group in groups(tasks):
                for row in measure_group(a, group, tmp, done, label):
                    rows = [r for r in rows if report.row_key(r) != report.row_key(row)] + [row]
                    report.write_csv(rows, csv_path)
                print(f"   ({(time.monotonic() - t_start) / 60:.1f} min)", flush=True)
    with open(meta_path) as fh:
        meta = json.load(fh)
    report.write_report(rows, meta, a.out)
    if not a.quick and os.path.abspath(a.out) == os.path.join(HERE, "results"):
        report.update_readme(os.path.join(HERE, "README.md"), os.path.join(a.out, "results.md"))
        report.update_project_readme(os.path.join(os.path.dirname(HERE), "README.md"), rows,
                                     int(meta["n_trees"]))
    print("wrote", os.path.join(a.out, "results.md"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
