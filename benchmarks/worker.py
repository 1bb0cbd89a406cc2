"""One benchmark measurement in its own process: ``python worker.py spec.json``.

The spec (written by run.py) names the system, the data files and the
settings. The worker fits once (run.py starts a worker per fit, in rounds across
the systems), times prediction of the 100k-row prediction set, measures peak
memory of the fit (the process's peak RSS, reset right before the fit through
/proc/self/clear_refs) and writes its measurements to ``spec["out_json"]`` and
its link-scale validation predictions to ``spec["out_pred"]`` (one number per
line), from which run.py computes the validation deviance of every system
the same way.
"""
from __future__ import annotations

import gc
import importlib
import json
import os
import sys
import time
import traceback

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))          # the pygbm package

from workloads import Workload, xy_for_python  # noqa: E402

# equivalent settings of all systems (see README.md)
DEPTH, SHRINKAGE, BAG, MIN_LEAF, MAX_BIN = 3, 0.05, 0.5, 10, 255
#: number of n_trees values in the one-pass "list" prediction
N_LIST = 10
KB_PER_MB = 1024


# ------------------------------------------------------------------ measuring
def _status_kb(field: str) -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field):
                return float(line.split()[1])
    return float("nan")


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def measure(fn):
    """Run fn() once; returns (its result, wall s, cpu s, load, peak MB, growth MB)."""
    gc.collect()
    rss0 = _status_kb("VmRSS:")
    _reset_peak()
    load = os.getloadavg()[0]
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    peak = _status_kb("VmHWM:")
    return out, wall, cpu, load, peak / KB_PER_MB, (peak - rss0) / KB_PER_MB


def fit_once(fit) -> tuple[object, dict]:
    """Fit once; the model and the fit's timings and memory."""
    model, wall, cpu, load, peak, grow = measure(fit)
    return model, {"fit_wall": wall, "fit_cpu": cpu, "load": load, "peak_rss_mb": peak,
                   "fit_mem_mb": grow}


def wall_time(fn) -> float:
    """Wall time of one call."""
    return measure(fn)[1]


def list_trees(n_trees: int) -> list:
    """The n_trees values of the one-pass list prediction: 10 evenly spaced."""
    step = max(1, n_trees // N_LIST)
    return list(range(step, n_trees + 1, step))


# ------------------------------------------------------------------ systems
def pygbm_kwargs(wl, n_trees: int, seed: int, binned: bool) -> dict:
    """``gbm``'s arguments for workload ``wl`` (its formula and data apart)."""
    kw = dict(distribution=wl.distribution, n_trees=n_trees, interaction_depth=DEPTH,
              shrinkage=SHRINKAGE, bag_fraction=BAG, n_minobsinnode=MIN_LEAF,
              train_fraction=0.8, random_state=seed)
    if binned:
        kw["max_bins"] = MAX_BIN
    return kw


def lightgbm_fit(wl, x, y, n_trees: int, seed: int, threads: int = 1):
    """LightGBM's fit of workload ``wl`` on its training rows (the Dataset built inside)."""
    import lightgbm as lgb

    params = {"objective": "binary" if wl.distribution == "bernoulli" else "regression",
              "learning_rate": SHRINKAGE, "num_leaves": DEPTH + 1, "max_depth": -1,
              "bagging_fraction": BAG, "bagging_freq": 1, "min_data_in_leaf": MIN_LEAF,
              "min_sum_hessian_in_leaf": 0.0, "num_threads": threads,
              "max_bin": MAX_BIN, "seed": seed, "verbose": -1}
    ds = lgb.Dataset(x.iloc[:wl.n_train], y[:wl.n_train], params={"max_bin": MAX_BIN,
                                                                  "verbose": -1})
    return lgb.train(params, ds, num_boost_round=n_trees)


def run_pygbm(spec, wl, df, pred, binned):
    import pygbm

    kw = pygbm_kwargs(wl, spec["n_trees"], spec["seed"], binned)
    if spec.get("cv_folds"):
        kw.update(cv_folds=spec["cv_folds"], n_cores=spec["n_cores"])
    model, res = fit_once(lambda: pygbm.gbm(wl.formula, df, **kw))
    if spec.get("cv_folds"):
        return res, None
    nt = spec["n_trees"]
    res["predict"] = wall_time(lambda: model.predict(pred, n_trees=nt))
    res["predict_list"] = wall_time(lambda: model.predict(pred, n_trees=list_trees(nt)))
    res["own_valid_error"] = float(model.valid_error[-1])
    valid = model.predict(df.iloc[wl.n_train:], n_trees=nt)
    return res, np.asarray(valid, dtype=float)


def _sklearn_x(x: pd.DataFrame, medians: pd.Series | None):
    x = x.copy()
    for col in x.columns:
        if isinstance(x[col].dtype, pd.CategoricalDtype):
            x[col] = x[col].cat.codes.astype(float)       # ordinal codes
    x = x.astype(float)
    if medians is None:
        medians = x.median()
    return x.fillna(medians).to_numpy(), medians


def run_sklearn(spec, wl, df, pred):
    from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

    x, y = xy_for_python(wl, df)
    n_train = wl.n_train
    x_train, med = _sklearn_x(x.iloc[:n_train], None)
    x_valid, _ = _sklearn_x(x.iloc[n_train:], med)
    x_pred, _ = _sklearn_x(xy_for_python(wl, pred)[0], med)
    kw = dict(n_estimators=spec["n_trees"], learning_rate=SHRINKAGE, max_leaf_nodes=DEPTH + 1,
              max_depth=None, subsample=BAG, min_samples_leaf=MIN_LEAF,
              random_state=spec["seed"])
    cls = GradientBoostingClassifier if wl.distribution == "bernoulli" \
        else GradientBoostingRegressor
    model, res = fit_once(lambda: cls(**kw).fit(x_train, y[:n_train]))
    res["predict"] = wall_time(lambda: model.predict(x_pred))
    link = model.decision_function if wl.distribution == "bernoulli" else model.predict
    return res, np.ravel(link(x_valid)).astype(float)


def run_lightgbm(spec, wl, df, pred):
    importlib.import_module("lightgbm")     # loaded before the fit is timed

    x, y = xy_for_python(wl, df)
    n_train = wl.n_train
    x_pred = xy_for_python(wl, pred)[0]

    def fit():
        return lightgbm_fit(wl, x, y, spec["n_trees"], spec["seed"], spec.get("threads", 1))

    model, res = fit_once(fit)
    res["predict"] = wall_time(lambda: model.predict(x_pred, num_threads=1))
    valid = model.predict(x.iloc[n_train:], raw_score=True, num_threads=1)
    return res, np.asarray(valid, dtype=float)


def main(spec_path: str) -> None:
    """Run the measurement described by the spec file."""
    with open(spec_path) as fh:
        spec = json.load(fh)
    wl = Workload(**spec["workload"])
    out = {"status": "ok", "note": ""}
    try:
        df = pd.read_pickle(spec["data_pkl"])
        pred = pd.read_pickle(spec["pred_pkl"])
        system = spec["system"]
        if system in ("pygbm", "pygbm_binned"):
            try:
                res, valid = run_pygbm(spec, wl, df, pred, binned=system == "pygbm_binned")
            except ImportError as err:          # binned engine not written yet
                res, valid = {}, None
                out.update(status="n/a", note=f"ImportError: {err}")
        elif system == "sklearn":
            res, valid = run_sklearn(spec, wl, df, pred)
        elif system == "lightgbm":
            res, valid = run_lightgbm(spec, wl, df, pred)
        else:
            raise ValueError(f"unknown system {system!r}")
        out.update(res)
        if valid is not None:
            np.savetxt(spec["out_pred"], valid, fmt="%.17g")
    except Exception as err:  # noqa: BLE001 -- reported, not hidden
        out.update(status="error", note=f"{type(err).__name__}: {err}",
                   traceback=traceback.format_exc())
    with open(spec["out_json"], "w") as fh:
        json.dump(out, fh)


if __name__ == "__main__":
    main(sys.argv[1])
