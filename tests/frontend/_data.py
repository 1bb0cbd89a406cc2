"""Shared helpers for the frontend tests: the project's real data sets."""

from pathlib import Path

import pandas as pd

DATA = Path(__file__).resolve().parents[2] / "data"

INSURANCE_GROUP = ["<1l", "1-1.5l", "1.5-2l", ">2l"]
INSURANCE_AGE = ["<25", "25-29", "30-35", ">35"]


def read(name: str) -> pd.DataFrame:
    """One of the CSV files in data/ (empty field = missing)."""
    return pd.read_csv(DATA / f"{name}.csv")


def boston() -> pd.DataFrame:
    d = read("boston")
    d["chas"] = pd.Categorical(d["chas"])  # a 0/1 factor in mlbench
    return d


def breast_cancer() -> pd.DataFrame:
    d = read("breast_cancer")
    for col in d.columns.drop("Class"):  # ordered factors with levels 1..10 in mlbench
        d[col] = pd.Categorical(d[col], categories=range(1, 11), ordered=True)
    return d


def insurance() -> pd.DataFrame:
    d = read("insurance")
    d["District"] = pd.Categorical(d["District"])
    d["Group"] = pd.Categorical(d["Group"], categories=INSURANCE_GROUP, ordered=True)
    d["Age"] = pd.Categorical(d["Age"], categories=INSURANCE_AGE, ordered=True)
    return d

