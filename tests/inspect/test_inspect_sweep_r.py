"""Random fits against R, live: gbm() on random data (numbers with missing values, a
factor, an ordered factor; a random distribution (coxph too), depth and number of trees, no
bagging, so that pygbm's fit is R's), then R's plot.gbm(return.grid = TRUE) grids for
random variables and resolutions, interact.gbm's H for random sets, pretty.gbm.tree
for random trees and relative.influence, against pygbm's on its own fit. Runs when
Rscript is present; a failing draw is replayed with ``PYGBM_INSPECT_SEED``."""

import json
import os
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from pygbm import gbm
from pygbm.inspect import interact_gbm, plot_gbm, pretty_gbm_tree, relative_influence
from pygbm.inspect.influence import used_variables

R_SCRIPT = Path(__file__).parent / "r" / "inspect_live.R"
N_CASES = 6
VARIABLES = ("x1", "x2", "x3", "f1", "o1")
#: (not multinomial: pygbm's is Friedman's K-class algorithm, R's fit differs by design)
DISTRIBUTIONS = ("gaussian", "bernoulli", "poisson", "laplace", "adaboost", "huberized",
                 "coxph")
PREDICTORS = "x1 + x2 + x3 + f1 + o1"
#: the left-hand side by distribution (y otherwise)
RESPONSE = {"coxph": "Surv(time, status)"}
RESOLUTIONS = (3, 10, 25, 100)
#: the distributions whose plot.gbm(type = "response") grid has a y column in R (for
#: the others R warns "Ignoring" and leaves y out; pygbm gives the response scale)
R_RESPONSE_GRIDS = ("bernoulli", "poisson")
#: pygbm's fits are R's to about 1e-14 (bag_fraction = 1); grids and influences built
#: from them agree to this
RTOL = 1e-9


def _data(rng, distribution: str) -> pd.DataFrame:
    n = int(rng.integers(120, 300))
    x1 = np.round(rng.normal(size=n), 3)
    x2 = rng.integers(0, 8, n).astype(float)
    f1 = rng.choice(list("abcdef")[:int(rng.integers(2, 7))], n).astype(object)
    o1 = rng.choice(["lo", "mid", "hi"], n)
    signal = np.nan_to_num(x1) + np.isin(f1, ["a", "b"]) - 0.2 * x2 \
        + 0.5 * (o1 == "hi")
    y = {"gaussian": lambda: signal + rng.normal(size=n),
         "bernoulli": lambda: (rng.random(n) < 1 / (1 + np.exp(-signal))).astype(float),
         "adaboost": lambda: (rng.random(n) < 1 / (1 + np.exp(-signal))).astype(float),
         "huberized": lambda: (rng.random(n) < 1 / (1 + np.exp(-signal))).astype(float),
         "poisson": lambda: rng.poisson(np.exp(0.3 * signal)).astype(float),
         "laplace": lambda: signal + rng.laplace(size=n),
         "coxph": lambda: np.round(rng.exponential(np.exp(-signal)), 4)}[distribution]()
    x1[rng.random(n) < 0.1] = np.nan
    x2[rng.random(n) < 0.05] = np.nan
    f1[rng.random(n) < 0.05] = None
    data = pd.DataFrame({"y": y, "x1": x1, "x2": x2, "x3": np.round(rng.random(n), 2),
                         "f1": f1, "o1": o1})
    if distribution == "coxph":
        data = data.rename(columns={"y": "time"}).assign(status=(rng.random(n) < 0.7) * 1)
    return data


def _case(rng, i: int, tmp_path: Path) -> tuple[dict, pd.DataFrame]:
    distribution = str(rng.choice(DISTRIBUTIONS))
    data = _data(rng, distribution)
    csv = f"d{i}.csv"
    data.to_csv(tmp_path / csv, index=False, na_rep="NA")
    n_trees, depth = int(rng.integers(10, 40)), int(rng.integers(1, 5))

    def some(k):
        return [str(v) for v in rng.choice(VARIABLES, size=k, replace=False)]

    def trees():
        return int(rng.integers(1, n_trees + 1))
    case = {
        "csv": csv, "formula": f"{RESPONSE.get(distribution, 'y')} ~ {PREDICTORS}",
        "distribution": distribution,
        "n_trees": n_trees, "depth": depth, "shrinkage": 0.1, "minobs": int(rng.integers(3, 11)),
        "grids": [{"vars": some(int(rng.integers(1, 4))), "n_trees": trees(),
                   "resolution": int(rng.choice(RESOLUTIONS)),
                   "type": str(rng.choice(["link", "response"]))} for _ in range(3)],
        "interactions": [{"vars": some(int(rng.integers(2, min(depth, 3) + 1))),
                          "n_trees": trees()} for _ in range(2 if depth > 1 else 0)],
        "trees": [trees() for _ in range(2)],
        "influence_trees": trees(),
    }
    return case, data


def _read(path: Path) -> pd.DataFrame:
    data = pd.read_csv(path)
    data["f1"] = data["f1"].astype(object).where(data["f1"].notna(), None)
    data["o1"] = pd.Categorical(data["o1"], categories=["lo", "mid", "hi"], ordered=True)
    return data


def _numbers(values):
    return np.array([np.nan if v is None else float(v) for v in values])


def _problems(case, fit, data, r) -> list[str]:
    out = []
    for query, theirs in zip(case["grids"], r["grids"]):
        grid = plot_gbm(fit, query["vars"], n_trees=query["n_trees"],
                        continuous_resolution=query["resolution"], return_grid=True,
                        type=query["type"])
        if query["type"] == "response" and case["distribution"] not in R_RESPONSE_GRIDS:
            grid = grid.drop(columns="y")    # R's grid has no y there (documented)
        if list(grid.columns) != theirs["columns"]:
            out.append(f"grid {query}: columns {list(grid.columns)} vs {theirs['columns']}")
            continue
        for column in theirs["columns"]:
            values = theirs["values"][column]
            ours = grid[column]
            if isinstance(ours.dtype, pd.CategoricalDtype) or ours.dtype == object:
                same = list(ours.astype(str)) == values
            else:
                same = np.allclose(ours.to_numpy(dtype=float), _numbers(values), rtol=RTOL,
                                   atol=0, equal_nan=True)
            if not same:
                out.append(f"grid {query}: column {column}")
    for query, theirs in zip(case["interactions"], r["h"]):
        h = interact_gbm(fit, data, query["vars"], n_trees=query["n_trees"])
        expected = _numbers([theirs])[0]
        unused = not np.isin([fit.var_names.index(v) for v in query["vars"]],
                             used_variables(fit, query["n_trees"])).any()
        if unused and np.isnan(h):
            continue        # R: 0/0 or rounding errors, NaN, 0 or 1 (documented)
        if not (np.isnan(h) and np.isnan(expected) or np.isclose(h, expected, rtol=RTOL,
                                                                  atol=1e-12)):
            out.append(f"H {query}: {h} vs R's {expected}")
    for k, theirs in zip(case["trees"], r["pretty"]):
        table = pretty_gbm_tree(fit, k)
        if [str(i) for i in table.index] != theirs["rows"]:
            out.append(f"pretty tree {k}: rows")
            continue
        for column, values in theirs["columns"].items():
            if not np.allclose(table[column].to_numpy(dtype=float), _numbers(values),
                               rtol=RTOL, atol=1e-12, equal_nan=True):
                out.append(f"pretty tree {k}: column {column}")
    influence = relative_influence(fit, case["influence_trees"])
    if list(influence.index) != r["influence"]["names"] or not np.allclose(
            influence.to_numpy(), _numbers(r["influence"]["values"]), rtol=RTOL, atol=1e-12):
        out.append(f"relative influence at {case['influence_trees']} trees")
    return out


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
def test_random_fits_inspect_as_r(tmp_path):
    seed = int(os.environ.get("PYGBM_INSPECT_SEED", np.random.SeedSequence().entropy % 2**32))
    rng = np.random.default_rng(seed)
    cases = [_case(rng, i, tmp_path)[0] for i in range(N_CASES)]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    subprocess.run(["Rscript", str(R_SCRIPT), str(tmp_path / "cases.json"), str(tmp_path),
                    str(tmp_path / "out.json")], check=True, capture_output=True, timeout=300)
    problems = []
    for case, r in zip(cases, json.loads((tmp_path / "out.json").read_text())):
        what = f"{case['distribution']}, depth {case['depth']}"
        if "error" in r:
            problems.append(f"{what}: R refused ({r['error']})")
            continue
        data = _read(tmp_path / case["csv"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = gbm(case["formula"], data=data, distribution=case["distribution"],
                      n_trees=case["n_trees"], interaction_depth=case["depth"],
                      shrinkage=case["shrinkage"], n_minobsinnode=case["minobs"],
                      bag_fraction=1.0)
            problems += [f"{what}: {p}" for p in _problems(case, fit, data, r)]
    assert not problems, f"PYGBM_INSPECT_SEED={seed}:\n" + "\n".join(problems)
