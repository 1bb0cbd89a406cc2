"""Benchmark results: CSV in/out, results.md, scaling.png, the README's table."""
from __future__ import annotations

import csv
import math
import os
import re

import numpy as np

SYSTEM_ORDER = ("pygbm", "pygbm_binned", "r", "lightgbm", "sklearn")
SYSTEM_LABEL = {"pygbm": "pygbm (exact)", "pygbm_binned": "pygbm (binned, 255)",
                "r": "R gbm 2.1.8", "lightgbm": "LightGBM", "sklearn": "sklearn GBM"}
WORKLOAD_ORDER = ("friedman", "friedman_na", "friedman_cat", "diamonds", "cps1988", "letter",
                  "flights")
COLUMNS = ("task", "workload", "kind", "rows", "n_train", "system", "n_trees", "n_cores",
           "status", "note", "fit_wall_s", "fit_cpu_s", "fit_wall_all", "fit_cpu_all",
           "predict_s", "predict_list_s", "peak_rss_mb", "fit_mem_mb", "proc_maxrss_mb",
           "valid_deviance", "own_valid_error", "load_1min", "load_all", "repeats",
           "duration_s", "started", "pygbm_code")
_INT = {"rows", "n_train", "n_trees", "n_cores", "repeats"}
_FLOAT = {"fit_wall_s", "fit_cpu_s", "predict_s", "predict_list_s", "peak_rss_mb",
          "fit_mem_mb", "proc_maxrss_mb", "valid_deviance", "own_valid_error", "load_1min",
          "duration_s"}
README_START, README_END = "<!-- results:start -->", "<!-- results:end -->"
#: the project README's speed table is written between these markers
HEADLINE_START, HEADLINE_END = "<!-- speed-table:start -->", "<!-- speed-table:end -->"


# ------------------------------------------------------------------ CSV
def read_csv(path: str, int_cols=_INT, float_cols=_FLOAT) -> list:
    """Rows of a results CSV (numbers converted); [] when there is none."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        for k, v in list(r.items()):
            if v in ("", None):
                r[k] = None
            elif k in int_cols:
                r[k] = int(float(v))
            elif k in float_cols:
                r[k] = float(v)
    return rows


def write_csv(rows: list, path: str, columns=COLUMNS) -> None:
    """Write all rows (atomically)."""
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: _csv_value(r.get(k)) for k in columns})
    os.replace(tmp, path)


def _csv_value(v):
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.6g}"
    return "" if v is None else v


def row_key(r) -> tuple:
    """Identity of a measurement (real data sets: their size is fixed)."""
    rows = int(r["rows"]) if r["kind"] == "synthetic" else "real"
    return (r["task"], r["workload"], rows, r["system"], int(r["n_trees"]), int(r["n_cores"]))


def task_key(task) -> tuple:
    """row_key of a planned task (task, workload, rows, system, n_trees, n_cores)."""
    kind, name, rows, system, n_trees, cores = task
    return (kind, name, "real" if rows is None else int(rows), system, int(n_trees), int(cores))


def progress(row) -> str:
    """One-line summary of a finished measurement."""
    if row["status"] != "ok":
        return f"{row['status']}: {row.get('note', '')}"
    s = f"fit {row['fit_wall_s']:.2f}s (cpu {row['fit_cpu_s']:.2f}s, load {row['load_1min']:.1f})"
    if row.get("predict_s") is not None:
        s += f", predict {row['predict_s']:.2f}s"
    if row.get("valid_deviance") is not None:
        s += f", valid dev {row['valid_deviance']:.4g}"
    return s


# ------------------------------------------------------------------ helpers
def fmt(v, digits=3):
    """A number for a table: 3 significant digits (none after the point from 100 on)."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.{digits}g}"


def _rows_label(n) -> str:
    return f"{n // 1_000_000}M" if n >= 1_000_000 and n % 1_000_000 == 0 else \
        f"{n // 1000}k" if n % 1000 == 0 and n >= 1000 else str(n)


def _sort_key(r):
    wl = WORKLOAD_ORDER.index(r["workload"]) if r["workload"] in WORKLOAD_ORDER else 99
    sy = SYSTEM_ORDER.index(r["system"]) if r["system"] in SYSTEM_ORDER else 99
    return (wl, r["rows"], r["n_trees"], sy)


def _lookup(rows, task, workload, n, system, n_trees, cores=1):
    for r in rows:
        if (r["task"], r["workload"], r["rows"], r["system"], r["n_trees"], r["n_cores"]) == \
                (task, workload, n, system, n_trees, cores) and r["status"] == "ok":
            return r
    return None


def power_law(xs, ts):
    """Exponent a of t ~ x^a (least squares on logs); None with < 2 points."""
    xs, ts = np.asarray(xs, float), np.asarray(ts, float)
    if xs.size < 2 or np.unique(xs).size < 2:
        return None
    return float(np.polyfit(np.log(xs), np.log(ts), 1)[0])


# ------------------------------------------------------------------ markdown
def _main_table(rows, n_trees) -> list:
    fits = sorted((r for r in rows if r["task"] == "fit" and r["n_trees"] == n_trees),
                  key=_sort_key)
    out = ["| workload | rows | system | fit s | fit CPU s | CPU ÷ pygbm | predict 100k s "
           "| predict 10 n_trees s | peak MB | fit MB | valid deviance | own valid error "
           "| load |",
           "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in fits:
        head = f"| {r['workload']} | {_rows_label(r['rows'])} | {SYSTEM_LABEL.get(r['system'], r['system'])} "
        if r["status"] != "ok":
            out.append(head + f"| {r['status']} | | | | | | | | | |")
            continue
        base = _lookup(rows, "fit", r["workload"], r["rows"], "pygbm", n_trees)
        ratio = r["fit_cpu_s"] / base["fit_cpu_s"] if base else None
        out.append(head + "| " + " | ".join([
            fmt(r["fit_wall_s"]), fmt(r["fit_cpu_s"]), fmt(ratio, 2),
            fmt(r.get("predict_s")), fmt(r.get("predict_list_s")), fmt(r.get("peak_rss_mb")),
            fmt(r.get("fit_mem_mb")), fmt(r.get("valid_deviance"), 4),
            fmt(r.get("own_valid_error"), 4), fmt(r.get("load_1min"), 2)]) + " |")
    return out


def headline_table(rows, n_trees) -> list:
    """One line per workload and size: CPU seconds of the four main systems and
    the ratios the speed claims rest on (the project README shows it)."""
    out = ["| workload | rows | pygbm exact | pygbm binned | R gbm | LightGBM "
           "| R ÷ exact | R ÷ binned | binned ÷ LightGBM |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    seen = set()
    for r in sorted(rows, key=_sort_key):
        key = (r["workload"], r["rows"])
        if r["task"] != "fit" or r["n_trees"] != n_trees or key in seen:
            continue
        seen.add(key)
        cpu = {}
        for system in ("pygbm", "pygbm_binned", "r", "lightgbm"):
            hit = _lookup(rows, "fit", r["workload"], r["rows"], system, n_trees)
            cpu[system] = hit["fit_cpu_s"] if hit else None

        def ratio(a, b):
            if cpu[a] is None or cpu[b] is None:
                return "–"
            return f"{cpu[a] / cpu[b]:.2f}×"

        out.append(f"| {r['workload']} | {_rows_label(r['rows'])} | " + " | ".join(
            fmt(cpu[s]) if cpu[s] is not None else "–"
            for s in ("pygbm", "pygbm_binned", "r", "lightgbm")) + " | " +
            " | ".join([ratio("r", "pygbm"), ratio("r", "pygbm_binned"),
                        ratio("pygbm_binned", "lightgbm")]) + " |")
    return out


def _ratio_line(rows, workload, n, num, den, n_trees) -> str | None:
    a = _lookup(rows, "fit", workload, n, num, n_trees)
    b = _lookup(rows, "fit", workload, n, den, n_trees)
    if not (a and b):
        return None
    return (f"{workload} {_rows_label(n)}: {SYSTEM_LABEL[num]} ÷ {SYSTEM_LABEL[den]} = "
            f"**{a['fit_cpu_s'] / b['fit_cpu_s']:.2f}** (CPU), "
            f"{a['fit_wall_s'] / b['fit_wall_s']:.2f} (wall)")


def _summary(rows, n_trees) -> list:
    out = []
    pairs = (("r", "pygbm"), ("r", "pygbm_binned"), ("lightgbm", "pygbm_binned"),
             ("pygbm", "pygbm_binned"))
    for num, den in pairs:
        lines = []
        for r in sorted(rows, key=_sort_key):
            if r["task"] == "fit" and r["system"] == num and r["n_trees"] == n_trees:
                line = _ratio_line(rows, r["workload"], r["rows"], num, den, n_trees)
                if line:
                    lines.append(f"- {line}")
        if lines:
            out += [f"**{SYSTEM_LABEL[num]} ÷ {SYSTEM_LABEL[den]}** (fit time; > 1 means "
                    f"{SYSTEM_LABEL[den]} is faster):", ""] + lines + [""]
    return out


def scaling_exponents(rows, n_trees):
    """{(system, workload): (a_cpu, a_wall, n_points)} for rows, {system: (b_cpu, b_wall, n)}."""
    by_rows, by_trees = {}, {}
    for sys_ in SYSTEM_ORDER:
        for wl in WORKLOAD_ORDER[:3]:
            pts = sorted((r["rows"], r["fit_cpu_s"], r["fit_wall_s"]) for r in rows
                         if r["task"] == "fit" and r["workload"] == wl and r["system"] == sys_
                         and r["n_trees"] == n_trees and r["status"] == "ok")
            if len(pts) >= 2:
                x, c, w = zip(*pts)
                by_rows[(sys_, wl)] = (power_law(x, c), power_law(x, w), len(pts), x)
        tree_rows = [r for r in rows if r["task"] == "fit" and r["workload"] == "friedman"
                     and r["system"] == sys_ and r["status"] == "ok"]
        sizes = {r["rows"] for r in tree_rows if r["n_trees"] != n_trees}
        if sizes:
            n = max(sizes)
            pts = sorted((r["n_trees"], r["fit_cpu_s"], r["fit_wall_s"]) for r in tree_rows
                         if r["rows"] == n)
            if len(pts) >= 2:
                t, c, w = zip(*pts)
                by_trees[sys_] = (power_law(t, c), power_law(t, w), n, t)
    return by_rows, by_trees


def _scaling_section(rows, n_trees) -> list:
    by_rows, by_trees = scaling_exponents(rows, n_trees)
    out = ["Power laws fitted by least squares on log-log points: fit time ~ rows^a "
           f"({n_trees} trees) and fit time ~ trees^b (friedman).", "",
           "| system | workload | rows measured | a (CPU) | a (wall) |", "|---|---|---|---:|---:|"]
    for (s, wl), (ac, aw, _, x) in by_rows.items():
        out.append(f"| {SYSTEM_LABEL[s]} | {wl} | {', '.join(_rows_label(v) for v in x)} "
                   f"| {fmt(ac, 3)} | {fmt(aw, 3)} |")
    if by_trees:
        out += ["", "| system | rows | trees measured | b (CPU) | b (wall) |",
                "|---|---|---|---:|---:|"]
        for s, (bc, bw, n, t) in by_trees.items():
            out.append(f"| {SYSTEM_LABEL[s]} | {_rows_label(n)} | {', '.join(map(str, t))} "
                       f"| {fmt(bc, 3)} | {fmt(bw, 3)} |")
    return out


def _cv_section(rows) -> list:
    out = []
    for s in ("pygbm", "r"):
        one = [r for r in rows if r["task"] == "cv" and r["system"] == s and r["n_cores"] == 1]
        two = [r for r in rows if r["task"] == "cv" and r["system"] == s and r["n_cores"] == 2]
        if not (one and two):
            continue
        a, b = one[0], two[0]
        if a["status"] != "ok" or b["status"] != "ok":
            out.append(f"| {SYSTEM_LABEL[s]} | {a['status']} | {b['status']} | | |")
            continue
        out.append(f"| {SYSTEM_LABEL[s]} | {_rows_label(a['rows'])} | {fmt(a['fit_wall_s'])} "
                   f"| {fmt(b['fit_wall_s'])} | **{a['fit_wall_s'] / b['fit_wall_s']:.2f}** "
                   f"| {fmt(a['load_1min'], 2)} / {fmt(b['load_1min'], 2)} |")
    if not out:
        return []
    return ["| system | rows | n_cores=1 s | n_cores=2 s | speed-up | load (1 / 2) |",
            "|---|---:|---:|---:|---:|---|"] + out


def _problems(rows) -> list:
    bad = [r for r in sorted(rows, key=_sort_key) if r["status"] != "ok"]
    return [f"- {r['task']} {r['workload']} {_rows_label(r['rows'])} "
            f"{SYSTEM_LABEL.get(r['system'], r['system'])} n_trees={r['n_trees']}: "
            f"{r['status']} — {r.get('note') or ''}" for r in bad]


def _code_versions(rows) -> str:
    """The pygbm code measured: one source hash (the commits may differ by
    files outside pygbm/, e.g. docs committed during a long run), or a caution."""
    codes = sorted({r.get("pygbm_code") for r in rows
                    if r["system"].startswith("pygbm") and r["status"] == "ok"} - {None, ""})
    if not codes:
        return ""
    sources = sorted({c.rsplit("+", 1)[-1] for c in codes})
    if len(sources) == 1:
        return (f"; pygbm code of all pygbm measurements: {', '.join(codes)} "
                "(commit+source hash; one source)")
    return (f"; CAUTION: the pygbm measurements used {len(sources)} versions of the code "
            f"({', '.join(codes)}), see the CSV's pygbm_code")


def _repeats(rows: list, meta: dict) -> str:
    """Fits per measurement: one number, or the range when runs combined differ
    (each row's count is the CSV's ``repeats``)."""
    counts = sorted({int(r["repeats"]) for r in rows if r.get("repeats") not in (None, "")})
    if len(counts) > 1:
        return f"{counts[0]}–{counts[-1]} (per row: the CSV's repeats)"
    return str(counts[0] if counts else meta["repeats"])


def write_report(rows: list, meta: dict, out_dir: str) -> None:
    """results.md and scaling.png from the measurements."""
    n_trees = int(meta["n_trees"])
    loads = [r["load_1min"] for r in rows if r.get("load_1min") is not None]
    md = ["# pygbm benchmark results", "",
          f"Run {meta['date']}: `{meta['command']}`  ",
          f"Machine: {meta['nproc']} cores ({meta['cpu']}), {meta['memory']} RAM, {meta['os']}; "
          f"shared machine, 1-minute load average during the fits "
          f"{fmt(min(loads), 2) if loads else '–'}–{fmt(max(loads), 2) if loads else '–'}.  ",
          f"Software: Python {meta['python']}, NumPy {meta['numpy']}, pandas {meta['pandas']}, "
          f"scikit-learn {meta['sklearn']}, LightGBM {meta['lightgbm']}, {meta['r']}; "
          f"pygbm commit {meta['pygbm_commit']}"
          f"{' (with uncommitted changes)' if meta.get('pygbm_dirty') else ''}"
          f"{_code_versions(rows)}.", "",
          f"Settings (all systems): {n_trees} trees, interaction depth 3 (4 leaves), shrinkage "
          f"0.05, bag fraction 0.5, min leaf size 10, first 80% of rows for training and the "
          f"last 20% for validation, max_bin 255 (binned systems), single-threaded. Times are "
          f"the minimum over {_repeats(rows, meta)} fit(s), each in a fresh process, the "
          f"systems of a workload taking turns (round 1 of every system, then round 2, ...; "
          f"fits under 10 s at least 5 times, fits over 2 min once); CPU = user + system "
          f"time of the process, less sensitive to the other jobs on the machine than wall "
          f"time, and the basis of the ratios.", "",
          "## Summary", "",
          "Fit CPU seconds (1000 trees) and ratios:", ""] + headline_table(rows, n_trees) + \
        [""] + _summary(rows, n_trees) + [
          "## Fit, predict, memory, accuracy", "",
          "`predict 100k`: prediction of 100,000 rows with all trees; `predict 10 n_trees`: "
          "the same rows at 10 tree counts in one call (pygbm and R only); `peak MB`: peak "
          "resident memory of the process during the first fit (data included); `fit MB`: its "
          "growth during the fit; `valid deviance`: computed here from every system's "
          "validation predictions (mean squared error, or bernoulli deviance); `own valid "
          "error`: the model's own last `valid_error` (pygbm, R).", ""] + \
        _main_table(rows, n_trees) + ["", "## Scaling", "", "![fit time vs rows](scaling.png)",
                                      ""] + _scaling_section(rows, n_trees)
    cv = _cv_section(rows)
    if cv:
        md += ["", "## Cross-validation on 2 cores", "",
               "`gbm(..., cv_folds=4)` (4 fold models + the final model) with n_cores=1 and "
               "n_cores=2, wall time (the folds run in other processes). pygbm fits the final "
               "model alongside the folds (a thread of the calling process), so its ideal on 2 "
               "cores is 2 (five fits sharing two cores); R fits it after the folds, ideal 5/3 "
               "= 1.67 (4 folds in 2 rounds, then the final fit).", ""] + cv
    md += ["", "## Notes", "",
           "- sklearn's GradientBoostingRegressor/Classifier (max_leaf_nodes=4, "
           "min_samples_leaf=10, subsample=0.5) has no missing values or categorical "
           "predictors: NaN are replaced by the training median and categories by ordinal "
           "codes (before timing). It is not run at 1M rows unless `--full`.",
           "- LightGBM: num_leaves=4, max_depth=-1, bagging_fraction=0.5, bagging_freq=1, "
           "min_data_in_leaf=10, min_sum_hessian_in_leaf=0, num_threads=1; pandas categoricals "
           "as native categorical features (LightGBM's defaults for them); Dataset "
           "construction (binning) is part of the fit time.",
           "- R: `gbm()` timed with `system.time` inside R (reading the CSV is not timed); "
           "pygbm: the `pygbm.gbm()` call (formula + data frame, as R).",
           "- R's trees, like pygbm's, are grown best-first with 3 splits and also hold a "
           "missing-value child per split; LightGBM's and sklearn's have 4 leaves."]
    problems = _problems(rows)
    if problems:
        md += ["", "## Not measured", ""] + problems
    with open(os.path.join(out_dir, "results.md"), "w") as fh:
        fh.write("\n".join(md) + "\n")
    plot_scaling(rows, n_trees, os.path.join(out_dir, "scaling.png"))


def plot_scaling(rows, n_trees, path) -> None:
    """Fit time vs rows, log-log, one line per system, one panel per synthetic workload."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    panels = [w for w in WORKLOAD_ORDER[:3]
              if any(r["workload"] == w and r["task"] == "fit" for r in rows)]
    if not panels:
        return
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4.2), squeeze=False,
                             sharey=True)
    for ax, wl in zip(axes[0], panels):
        for s in SYSTEM_ORDER:
            pts = sorted((r["rows"], r["fit_cpu_s"]) for r in rows
                         if r["task"] == "fit" and r["workload"] == wl and r["system"] == s
                         and r["n_trees"] == n_trees and r["status"] == "ok")
            if not pts:
                continue
            x, t = zip(*pts)
            a = power_law(x, t)
            label = SYSTEM_LABEL[s] + (f" (a={a:.2f})" if a is not None else "")
            ax.plot(x, t, marker="o", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
        ax.yaxis.set_major_formatter(plain)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(
            lambda v, _: _rows_label(int(round(v)))))
        ax.set_title(wl)
        ax.set_xlabel("rows (80% used for training)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel(f"fit time, CPU s ({n_trees} trees)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def update_project_readme(readme: str, rows: list, n_trees: int) -> None:
    """Put the headline table between the project README's speed-table markers."""
    if not os.path.exists(readme):
        return
    with open(readme) as fh:
        text = fh.read()
    pattern = re.compile(re.escape(HEADLINE_START) + ".*?" + re.escape(HEADLINE_END), re.S)
    if pattern.search(text):
        table = "\n".join(headline_table(rows, n_trees))
        text = pattern.sub(lambda _: f"{HEADLINE_START}\n{table}\n{HEADLINE_END}", text)
        with open(readme, "w") as fh:
            fh.write(text)


def update_readme(readme: str, results_md: str,
                  markers=(README_START, README_END)) -> None:
    """Put the latest results.md between the README's results markers."""
    if not os.path.exists(readme):
        return
    with open(readme) as fh:
        text = fh.read()
    with open(results_md) as fh:
        body = fh.read()
    body = re.sub(r"^# .*\n", "", body)                       # drop the title
    body = re.sub(r"^(#+) ", r"#\1 ", body, flags=re.M)       # one heading level down
    body = body.replace("](scaling.png)", "](results/scaling.png)")
    start, end = markers
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: f"{start}\n{body}\n{end}", text)
        with open(readme, "w") as fh:
            fh.write(text)
