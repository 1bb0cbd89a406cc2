"""Python twin of ``prep.R``: load a case's data exactly as the R scripts did.

The vocabulary (README.md) is applied in this fixed order: ``drop``, ``subset``,
``shuffle``, ``stride``, ``head``, ``recode``, ``na_inject``, ``add_weights``,
``ordered``, ``factor``, then every remaining string column becomes an
unordered factor. Factors are pandas Categoricals whose categories are the R
level labels (strings), in R's order.
"""
from __future__ import annotations

import json
import operator
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
#: repository root: relative data paths in the cases are read from here
REPO_ROOT = HERE.parent.parent
FIXTURES = HERE / "fixtures"

# Multipliers of the deterministic missing-value mask (see na_mask()).
NA_HASH_ROW = 7919
NA_HASH_COL = 104729
NA_HASH_SEED = 31337
NA_HASH_MOD = 1009
# Multipliers of the deterministic row permutation (see shuffle_order()).
SHUFFLE_MULT = 2654435761
SHUFFLE_SEED_MULT = 40503
SHUFFLE_MOD = 4294967291
#: R's as.character() switches integers to scientific notation from here on
R_INTEGER_LABEL_LIMIT = 1e5

_OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
        ">": operator.gt, ">=": operator.ge}


def load_cases(path=HERE / "cases.json") -> list[dict]:
    """The list of cases in a cases file."""
    return json.loads(Path(path).read_text())


def load_fixture(name: str, folder=FIXTURES) -> dict:
    """The fixture R wrote for case ``name``."""
    return json.loads((Path(folder) / f"{name}.json").read_text())


def na_mask(n: int, k: int, frac: float, seed: int) -> np.ndarray:
    """Missing-value mask of the k-th listed column (0-based), as prep.R's."""
    i = np.arange(n, dtype=np.int64)
    h = ((i + 1) * NA_HASH_ROW + (k + 1) * NA_HASH_COL + seed * NA_HASH_SEED) % NA_HASH_MOD
    return h < frac * NA_HASH_MOD


def shuffle_order(n: int, seed: int) -> np.ndarray:
    """0-based row order of the ``shuffle`` step, as prep.R's."""
    i = np.arange(n, dtype=np.int64)
    key = ((i + 1) * SHUFFLE_MULT + seed * SHUFFLE_SEED_MULT) % SHUFFLE_MOD
    return np.argsort(key, kind="stable")


def inject_na(df: pd.DataFrame, cols, frac: float, seed: int) -> pd.DataFrame:
    """A copy of ``df`` with the deterministic mask applied to ``cols``."""
    out = df.copy()
    for k, col in enumerate(cols):
        m = na_mask(len(out), k, frac, seed)
        s = out[col]
        if pd.api.types.is_integer_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype):
            s = s.astype(float)
        out[col] = s.mask(m)
    return out


def r_label(v) -> str:
    """R's as.character() of a level value (numbers as R prints them)."""
    if isinstance(v, str):
        return v
    v = float(v)
    if v.is_integer() and abs(v) < R_INTEGER_LABEL_LIMIT:
        return str(int(v))
    return format(v, ".15g")


def sorted_levels(s: pd.Series) -> list[str]:
    """Levels in the vocabulary's order: numeric order, or byte order for strings."""
    u = s.dropna().unique()
    if pd.api.types.is_numeric_dtype(s.dtype):
        return [r_label(v) for v in np.sort(u.astype(float))]
    return sorted(str(v) for v in u)


def make_factor(s: pd.Series, levels, ordered: bool) -> pd.Series:
    """R's factor(as.character(x), levels, ordered) as a pandas Categorical."""
    if levels is None:
        levels = sorted_levels(s)
    labels = s.map(r_label, na_action="ignore") if pd.api.types.is_numeric_dtype(s.dtype) \
        else s
    values = pd.Categorical(labels.astype(object).where(labels.notna(), None),
                            categories=list(levels), ordered=ordered)
    return pd.Series(values, index=s.index, name=s.name)


def _levels_spec(spec) -> dict:
    if spec is None:
        return {}
    if isinstance(spec, list):
        return {c: None for c in spec}
    return dict(spec)


def _subset(df: pd.DataFrame, conds) -> pd.DataFrame:
    keep = np.ones(len(df), dtype=bool)
    for c in conds:
        x = df[c["col"]]
        if c["op"] == "notna":
            ok = x.notna().to_numpy()
        else:
            ok = (_OPS[c["op"]](x, c["value"]) & x.notna()).to_numpy(dtype=bool)
        keep &= ok
    return df[keep]


def _recode(s: pd.Series, r: dict) -> pd.Series:
    if "subtract" in r:
        return s - r["subtract"]
    if "multiply" in r:
        return s * r["multiply"]
    if "indicator" in r:
        return (s == r["indicator"]).astype(float).where(s.notna())
    raise ValueError(f"unknown recode for column {r['col']!r}: {r}")


def read_case_csv(path: str, root=REPO_ROOT) -> pd.DataFrame:
    """Read a case's CSV as R's read.csv(na.strings = c("", "NA")) does."""
    p = Path(path)
    if not p.is_absolute():
        p = Path(root) / p
    with warnings.catch_warnings():
        # pandas 3.1 deprecates the option (its default parser is to become as
        # exact); while it exists, ask for R's own (round-trip) reading
        warnings.filterwarnings("ignore", message=".*float_precision.*")
        return pd.read_csv(p, keep_default_na=False, na_values=["", "NA"],
                           float_precision="round_trip")


def prepare(case: dict, root=REPO_ROOT) -> pd.DataFrame:
    """The case's data frame after the preprocessing vocabulary."""
    df = read_case_csv(case["data"], root)
    p = case.get("prep") or {}
    if p.get("drop"):
        df = df.drop(columns=p["drop"])
    if p.get("subset"):
        df = _subset(df, p["subset"])
    if p.get("shuffle") is not None:
        df = df.iloc[shuffle_order(len(df), p["shuffle"])]
    if p.get("stride"):
        df = df.iloc[::p["stride"]]
    if p.get("head") is not None:
        df = df.iloc[:p["head"]]
    df = df.reset_index(drop=True)
    for r in p.get("recode", []):
        df[r["col"]] = _recode(df[r["col"]], r)
    if p.get("na_inject"):
        nai = p["na_inject"]
        df = inject_na(df, nai["cols"], nai["frac"], nai["seed"])
    if p.get("add_weights"):
        aw = p["add_weights"]
        df[aw["col"]] = (1.0 + np.arange(len(df)) % aw["mod"]) * aw.get("scale", 1.0)
    for col, lev in _levels_spec(p.get("ordered")).items():
        df[col] = make_factor(df[col], lev, ordered=True)
    for col, lev in _levels_spec(p.get("factor")).items():
        df[col] = make_factor(df[col], lev, ordered=False)
    for col in df.columns:
        s = df[col]
        if not isinstance(s.dtype, pd.CategoricalDtype) and not pd.api.types.is_numeric_dtype(s.dtype):
            df[col] = make_factor(s, None, ordered=False)
        elif pd.api.types.is_bool_dtype(s.dtype):
            df[col] = make_factor(s.map({True: "TRUE", False: "FALSE"}), None, ordered=False)
    return df


def data_check(df: pd.DataFrame) -> dict:
    """The summary prep.R's data_check() writes, computed on ``df``."""
    cls, levels, sums, wsums = {}, {}, {}, {}
    row_number = np.arange(1, len(df) + 1, dtype=float)
    for col in df.columns:
        s = df[col]
        if isinstance(s.dtype, pd.CategoricalDtype):
            cls[col] = "ordered" if s.dtype.ordered else "factor"
            levels[col] = [str(c) for c in s.cat.categories]
            x = np.where(s.cat.codes.to_numpy() < 0, np.nan, s.cat.codes.to_numpy() + 1.0)
        else:
            cls[col] = "numeric"
            x = s.to_numpy(dtype=float, na_value=np.nan)
            sums[col] = float(np.nansum(x))
        wsums[col] = float(np.nansum(row_number * x))
    na = {col: int(df[col].isna().sum()) for col in df.columns}
    return {"n_rows": len(df), "n_cols": df.shape[1], "n_na": int(sum(na.values())),
            "columns": list(df.columns), "class": cls, "na_count": na,
            "levels": levels, "sum": sums, "row_weighted_sum": wsums}


def fixture_array(values) -> np.ndarray:
    """A fixture's JSON numbers as floats (null -> NaN, "Inf" -> inf)."""
    def conv(v):
        if v is None:
            return np.nan
        if isinstance(v, str):
            return float(v.replace("Inf", "inf"))
        return v
    if isinstance(values, list) and values and isinstance(values[0], list):
        return np.array([[conv(v) for v in col] for col in values], dtype=float)
    if not isinstance(values, list):
        values = [values]
    return np.array([conv(v) for v in values], dtype=float)
