"""Benchmark workloads: synthetic Friedman #1-style data and the real data sets.

Every workload is written once to a data directory, as CSV (read by R) and as
a pickled DataFrame (read by the Python workers), together with a 100k-row
prediction set. Rows are shuffled once, so that the first 80% are the
training rows and the last 20% the validation rows for every system (R's and
pygbm's ``train_fraction=0.8`` take the first ``floor(0.8 * n)`` rows).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

#: project data folder (real data sets)
DATA_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data")
#: number of numeric predictors of the synthetic workloads
N_PREDICTORS = 20
#: fraction of predictor values set missing in the "_na" variant
MISSING_FRACTION = 0.10
#: levels of the three categorical predictors in the "_cat" variant
CAT_LEVELS = (5, 20, 100)
#: noise standard deviation of the Friedman #1 response
NOISE_SD = 1.0
#: rows of the prediction-timing set
PREDICT_ROWS = 100_000
#: share of rows used for training (the rest is the validation set)
TRAIN_FRACTION = 0.8
#: bump when the generated files change (names the cached files)
DATA_VERSION = 2
#: seeds: data generation, prediction set, shuffling of real data
DATA_SEED, PRED_SEED, SHUFFLE_SEED = 20240601, 777, 4242


@dataclass
class Workload:
    """One benchmark data set: how every system fits it."""

    name: str
    kind: str                      # "synthetic" or "real"
    formula: str                   # pygbm / R formula
    distribution: str              # "gaussian" or "bernoulli"
    response: str                  # response column of the data frame
    log_response: bool = False     # sklearn/LightGBM fit log(response)
    rows: int = 0                  # rows actually used (train + validation)
    notes: list = field(default_factory=list)

    @property
    def n_train(self) -> int:
        """Training rows: R's floor(train.fraction * n)."""
        return int(np.floor(TRAIN_FRACTION * self.rows))

    def key(self) -> str:
        """File stem of this workload at its size."""
        return f"{self.name}_{self.rows}"


# ------------------------------------------------------------------ synthetic
def _friedman(n: int, rng: np.random.Generator) -> pd.DataFrame:
    x = rng.uniform(size=(n, N_PREDICTORS))
    y = (10 * np.sin(np.pi * x[:, 0] * x[:, 1]) + 20 * (x[:, 2] - 0.5) ** 2
         + 10 * x[:, 3] + 5 * x[:, 4] + rng.normal(scale=NOISE_SD, size=n))
    df = pd.DataFrame(x, columns=[f"x{i + 1}" for i in range(N_PREDICTORS)])
    df.insert(0, "y", y)
    return df


def _add_missing(df: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    pred = df.columns[1:]
    mask = rng.uniform(size=(len(df), len(pred))) < MISSING_FRACTION
    df[pred] = df[pred].mask(mask)
    return df


def _add_categoricals(df: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Replace the last 3 (noise) predictors by categoricals with real effects."""
    n = len(df)
    drop = df.columns[-len(CAT_LEVELS):]
    df = df.drop(columns=drop)
    effect_rng = np.random.default_rng(DATA_SEED + 1)       # same effects at every size
    for j, k in enumerate(CAT_LEVELS):
        labels = np.array([f"L{i:03d}" for i in range(k)])
        codes = rng.integers(0, k, size=n)
        effects = effect_rng.normal(scale=2.0, size=k)
        df["y"] = df["y"] + effects[codes]
        df[f"c{j + 1}"] = pd.Categorical(labels[codes], categories=labels)
    return df


SYNTHETIC = {
    "friedman": lambda n, rng: _friedman(n, rng),
    "friedman_na": lambda n, rng: _add_missing(_friedman(n, rng), rng),
    "friedman_cat": lambda n, rng: _add_categoricals(_friedman(n, rng), rng),
}


def synthetic(name: str, n: int) -> tuple[Workload, pd.DataFrame, pd.DataFrame]:
    """Workload, data (n rows) and prediction set of a synthetic workload."""
    make = SYNTHETIC[name]
    df = make(n, np.random.default_rng([DATA_SEED, n]))
    pred = make(PREDICT_ROWS, np.random.default_rng(PRED_SEED))
    wl = Workload(name, "synthetic", "y ~ .", "gaussian", "y", rows=n)
    if name == "friedman_na":
        wl.notes.append(f"{MISSING_FRACTION:.0%} of predictor values missing (MCAR)")
    if name == "friedman_cat":
        wl.notes.append(f"17 numeric + 3 categorical predictors ({'/'.join(map(str, CAT_LEVELS))}"
                        " levels)")
    return wl, df, pred


# ------------------------------------------------------------------ real data
def _read_real(name: str) -> tuple[Workload, pd.DataFrame]:
    if name == "diamonds":
        df = pd.read_csv(os.path.join(DATA_DIR, "diamonds.csv"))
        wl = Workload(name, "real", "log(price) ~ .", "gaussian", "price", log_response=True)
    elif name == "cps1988":
        df = pd.read_csv(os.path.join(DATA_DIR, "cps1988.csv"))
        wl = Workload(name, "real", "log(wage) ~ .", "gaussian", "wage", log_response=True)
    elif name == "letter":
        df = pd.read_csv(os.path.join(DATA_DIR, "letter.csv"))
        df.insert(0, "y", df.pop("lettr").le("M").astype(int))
        wl = Workload(name, "real", "y ~ .", "bernoulli", "y")
        wl.notes.append("y = 1 if the letter is A-M")
    elif name == "flights":
        # benchmarks/flights_data.py: NYC 2013 flights, 2.45% cancelled (a rare event)
        df = pd.read_csv(os.path.join(DATA_DIR, "flights_cancelled.csv.gz"))
        wl = Workload(name, "real", "cancelled ~ .", "bernoulli", "cancelled")
        wl.notes.append("cancelled = 1 for a flight without a departure time (2.45%)")
    else:
        raise ValueError(f"unknown real workload {name!r}")
    for col in df.columns:
        if not pd.api.types.is_numeric_dtype(df[col]):      # strings (object or str dtype)
            df[col] = pd.Categorical(df[col])
    return wl, df


REAL = ("diamonds", "cps1988", "letter", "flights")


def real(name: str, max_rows: int | None = None) -> tuple[Workload, pd.DataFrame, pd.DataFrame]:
    """Workload, shuffled data and a 100k-row prediction set (rows resampled)."""
    wl, df = _read_real(name)
    df = df.sample(frac=1.0, random_state=SHUFFLE_SEED).reset_index(drop=True)
    if max_rows is not None:
        df = df.iloc[:max_rows].reset_index(drop=True)
    pred = df.sample(n=PREDICT_ROWS, replace=True, random_state=PRED_SEED).reset_index(drop=True)
    wl.rows = len(df)
    return wl, df, pred


def load(name: str, rows: int | None) -> tuple[Workload, pd.DataFrame, pd.DataFrame]:
    """Workload ``name`` (synthetic or real), its data and prediction set: ``rows``
    rows of a synthetic one, at most ``rows`` (None: all) of a real one."""
    if name in SYNTHETIC:
        return synthetic(name, rows)
    return real(name, rows)


# ------------------------------------------------------------------ files
def write_files(wl: Workload, df: pd.DataFrame, pred: pd.DataFrame, data_dir: str) -> dict:
    """Write data and prediction set as CSV (for R) and pickle; returns the paths.

    Files already present are reused (the data are deterministic).
    """
    os.makedirs(data_dir, exist_ok=True)
    stem = os.path.join(data_dir, f"v{DATA_VERSION}_{wl.key()}")
    paths = {"data_csv": stem + ".csv", "data_pkl": stem + ".pkl",
             "pred_csv": stem + "_pred.csv", "pred_pkl": stem + "_pred.pkl"}
    for frame, kind in ((df, "data"), (pred, "pred")):
        if not os.path.exists(paths[kind + "_pkl"]):
            frame.to_pickle(paths[kind + "_pkl"] + ".tmp")
            os.replace(paths[kind + "_pkl"] + ".tmp", paths[kind + "_pkl"])
        if not os.path.exists(paths[kind + "_csv"]):
            frame.to_csv(paths[kind + "_csv"] + ".tmp", index=False, na_rep="")
            os.replace(paths[kind + "_csv"] + ".tmp", paths[kind + "_csv"])
    return paths


def xy_for_python(wl: Workload, df: pd.DataFrame) -> tuple[pd.DataFrame, np.ndarray]:
    """Predictors and response (log-transformed when the formula says so)."""
    y = df[wl.response].to_numpy(dtype=float)
    if wl.log_response:
        y = np.log(y)
    return df.drop(columns=[wl.response]), y
