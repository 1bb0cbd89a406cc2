"""One pygbm fit of a statistician's workload in its own process:
``python small_worker.py spec.json`` (written by small.py).

Sets the data up with the R reference vocabulary (tests/r_reference/prep.py, the twin
of the R worker's prep.R); with the warm start (``spec["warmup"]``) first makes the same
calls with a few trees (gbm, and with cv gbm_perf) and predicts a few rows (timed
apart: the warm-up);
then times ``pygbm.gbm(...)`` (and, with cv, ``gbm_perf(method="cv")``): wall time and
CPU time. The folds of a parallel cv may run in other processes, which this process
may not wait for; small.py counts the CPU time of the whole process tree (it adopts
and reaps them) and subtracts this process's CPU time outside the fit
(``cpu_outside_fit``, the warm-up's included). Writes a JSON dict to
``spec["out_json"]``, and the prepared data's summary (prep's data_check) to
``spec["out_data"]``.

A spec with ``spec["prime"]`` (a list of dicts with a ``workload`` and its ``args``)
instead fits each of them once and predicts a few rows, untimed: small.py runs it before the
rounds so that numba's compilation cache holds every kernel the measured fits use.
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "r_reference"))

from prep import data_check, prepare  # noqa: E402
from small_workloads import WARMUP_PREDICT_ROWS, fit_kwargs  # noqa: E402


def process_cpu() -> float:
    """User + system CPU seconds so far of this process and of the children it waited
    for (as R's proc.time() has them)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def warm_up(pygbm, wl: dict, df, args: dict) -> None:
    """The warm-up: fit the workload's call with the settings ``args`` (with cv: and
    ``gbm_perf(method="cv")``) and predict the first rows with all its trees."""
    fit = pygbm.gbm(wl["formula"], df, **fit_kwargs(wl, args))
    if args["cv_folds"]:
        pygbm.gbm_perf(fit, method="cv", plot_it=False)
    fit.predict(df.head(WARMUP_PREDICT_ROWS), n_trees=args["n_trees"])


def run(spec: dict, out: dict) -> None:
    """Prepare the data, warm up if asked, fit, and fill ``out`` with the measurements."""
    import pygbm

    wl = spec["workload"]
    df = prepare(wl, REPO)
    with open(spec["out_data"], "w") as fh:
        json.dump(data_check(df), fh)
    if spec["warmup"] is not None:
        c0, w0 = process_cpu(), time.perf_counter()
        warm_up(pygbm, wl, df, spec["warmup"])
        out["warmup_wall"] = time.perf_counter() - w0
        out["warmup_cpu"] = process_cpu() - c0
    cv = spec["regime"] == "cv"
    c0, w0 = process_cpu(), time.perf_counter()
    fit = pygbm.gbm(wl["formula"], df, **fit_kwargs(wl, spec["args"]))
    best = pygbm.gbm_perf(fit, method="cv", plot_it=False) if cv else None
    out["fit_wall"] = time.perf_counter() - w0
    out["fit_cpu_process"] = process_cpu() - c0
    out["train_error_last"] = float(fit.train_error[-1])
    if cv:
        out["best_iter"] = int(best)
        out["cv_error_min"] = float(min(fit.cv_error))


def prime(spec: dict, _out: dict) -> None:
    """Fit and predict every workload of ``spec["prime"]`` once (fills numba's cache)."""
    import pygbm

    for item in spec["prime"]:
        warm_up(pygbm, item["workload"], prepare(item["workload"], REPO), item["args"])


def main(spec_path: str) -> None:
    """Run the measurement (or the priming) described by the spec file."""
    with open(spec_path) as fh:
        spec = json.load(fh)
    out = {"status": "ok", "note": ""}
    try:
        (prime if "prime" in spec else run)(spec, out)
    except Exception as err:  # noqa: BLE001 -- reported, not hidden
        out.update(status="error", note=f"{type(err).__name__}: {err}",
                   traceback=traceback.format_exc())
    out["cpu_outside_fit"] = process_cpu() - out.get("fit_cpu_process", 0.0)
    with open(spec["out_json"], "w") as fh:
        json.dump(out, fh)


if __name__ == "__main__":
    main(sys.argv[1])
    # no interpreter clean-up: CPU time after cpu_outside_fit would count as the fit's
    os._exit(0)
