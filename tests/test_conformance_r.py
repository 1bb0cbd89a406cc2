"""pygbm.gbm against R gbm 2.1.8.1, case by case (fixtures in tests/r_reference).

Every case of ``tests/r_reference/cases.json`` is fitted with ``pygbm.gbm`` on the
data ``prep.py`` prepares (the twin of the R script's preparation), with
``bag_fraction = 1`` so that the fit is deterministic, and compared with what R
wrote: ``init_f``, ``train_error`` (every iteration), ``valid_error``, the fitted
link values, the predictor coding, the first trees, and ``predict`` at the case's
``n_trees`` on training rows, validation rows and a copy of the training rows
with missing values (link and response scale).

A live test (skipped without ``Rscript``) runs R on freshly generated random
data (half the gaussian cases on a 0/1 response, with pure nodes; half the
cases bagged, on R's stream: ``set.seed(1)`` in R, ``pygbm.RRandom(1)`` here;
some with monotone constraints or an ``offset()`` term)
and compares both engines' fits the same way, so that the fixtures cannot be
"learned".
Set ``PYGBM_LIVE_SEED`` to replay a failing live case.

Tolerances: ``DEFAULT_TOL`` for every quantity, ``CASE_TOL`` for per-case
exceptions (each with its reason). Nothing else in this file sets a tolerance.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

REF = Path(__file__).resolve().parent / "r_reference"


def _load_prep():
    name = "pygbm_r_reference_prep"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REF / "prep.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


prep = _load_prep()

# ---------------------------------------------------------------------------------
# Tolerances (the one place they are set)
# ---------------------------------------------------------------------------------
#: quantity -> assert_allclose keywords
DEFAULT_TOL = {
    "init_f": {"rtol": 1e-6, "atol": 1e-9},
    "train_error": {"rtol": 1e-6, "atol": 1e-9},
    "valid_error": {"rtol": 1e-6, "atol": 1e-9},
    "fit": {"rtol": 1e-6, "atol": 1e-9},
    "predict": {"rtol": 1e-6, "atol": 1e-9},
    "var_levels": {"rtol": 1e-12, "atol": 0.0},
    "tree": {"rtol": 1e-6, "atol": 1e-9},
}
#: case name -> {quantity: keywords}; every entry needs a comment saying why.
#: e.g. "some_case": {"predict": {"rtol": 1e-6, "atol": 1e-7}},  # reason ...
#: (none needed so far: sums taken in another order differ by ~1e-14, far inside
#: the defaults; a real mismatch is a different split, which no tolerance fixes)
CASE_TOL: dict[str, dict[str, dict]] = {}
#: the R and gbm versions every fixture must come from
R_VERSION_PREFIX = "R version 4.2.2"
GBM_VERSION = "2.1.8.1"
#: random cases in the live test
N_LIVE_CASES = 3


def tol(name: str, quantity: str) -> dict:
    """assert_allclose keywords for ``quantity`` in case ``name``."""
    return CASE_TOL.get(name, {}).get(quantity, DEFAULT_TOL[quantity])


# ---------------------------------------------------------------------------------
# Cases and fits
# ---------------------------------------------------------------------------------
CASES = {c["name"]: c for c in prep.load_cases()}
FIT_CASES = [n for n, c in CASES.items() if not c.get("expect_r_error")]
REFUSED_CASES = [n for n, c in CASES.items() if c.get("expect_r_error")]
PRED_BLOCKS = ("train", "valid", "newdata")
PRED_TYPES = ("link", "response")


def _pygbm_gbm():
    """pygbm.gbm (imported here so the data checks run without pygbm)."""
    import pygbm

    return pygbm.gbm


#: make_fixtures.R calls set.seed(R_SEED) before every fit
R_SEED = 1


def _r_stream():
    """R's random stream after ``set.seed(R_SEED)`` (imported as :func:`_pygbm_gbm`)."""
    import pygbm

    return pygbm.RRandom(R_SEED)


def gbm_kwargs(case: dict, fixture: dict) -> dict:
    """pygbm.gbm keyword arguments reproducing the case's R call."""
    dist = case["distribution"]
    vm = None
    if case.get("var_monotone") is not None:
        vm = [int(v) for v in fixture["var_monotone"]]  # R's resolved vector
    return {
        "distribution": dist["name"] if len(dist) == 1 else dict(dist),
        "weights": case.get("weights"),
        "var_monotone": vm,
        "n_trees": case["n_trees"],
        "interaction_depth": case["interaction_depth"],
        "n_minobsinnode": case["n_minobsinnode"],
        "shrinkage": case["shrinkage"],
        "bag_fraction": case["bag_fraction"],
        "train_fraction": case["train_fraction"],
        "keep_data": True,
        "verbose": False,
        "random_state": 1,
    }


def fit_case(case: dict, fixture: dict, root=prep.REPO_ROOT, engine=None):
    """(pygbm fit, prepared data) for one case (``engine``: pygbm's, None the
    default); a bagged case draws R's stream from where ``make_fixtures.R``'s
    ``set.seed(R_SEED)`` starts it."""
    data = prep.prepare(case, root)
    kwargs = gbm_kwargs(case, fixture)
    if case["bag_fraction"] < 1:
        kwargs["random_state"] = _r_stream()
    fit = _pygbm_gbm()(case["formula"], data, engine=engine, **kwargs)
    return fit, data


@lru_cache(maxsize=None)
def stored_fit(name: str):
    """The fit of a stored case (cached: many tests read the same fit)."""
    return fit_case(CASES[name], prep.load_fixture(name))


def newdata_for(data: pd.DataFrame, block: dict) -> pd.DataFrame:
    """The rows R predicted on, with R's missing-value mask when it used one."""
    rows = np.asarray(block["rows"], dtype=int)
    nd = data.iloc[rows].reset_index(drop=True)
    if "na_cols" in block:
        nd = prep.inject_na(nd, list(block["na_cols"]), block["na_frac"], block["na_seed"])
    return nd


# ---------------------------------------------------------------------------------
# Comparisons (shared by the stored and the live cases)
# ---------------------------------------------------------------------------------
def _close(actual, desired, name, quantity, what):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), desired,
                               err_msg=f"{name}: {what}", **tol(name, quantity))


def check_init_f(name, fit, fx):
    _close(np.atleast_1d(fit.init_f), prep.fixture_array(fx["init_f"]), name, "init_f",
           "init_f")


def _close_deviances(ours, r, fit, name, quantity, what):
    """Deviances: R's bernoulli deviance evaluates log(1 + exp(F)), Inf once a link
    passes 709 (a diverging fit), where pygbm's is the number (an R bug pygbm
    fixes: docs/coming_from_r.md); compared where R's is one."""
    ours = np.asarray(ours, dtype=float)
    if fit.distribution.name == "bernoulli":
        overflow = (r == np.inf) & np.isfinite(ours)
        ours, r = ours[~overflow], r[~overflow]
    _close(ours, r, name, quantity, what)


def check_train_error(name, fit, fx):
    r = prep.fixture_array(fx["train_error"])
    assert np.shape(fit.train_error) == r.shape, f"{name}: train_error length"
    _close_deviances(fit.train_error, r, fit, name, "train_error", "train_error (all iterations)")


def check_valid_error(name, fit, fx):
    r = prep.fixture_array(fx["valid_error"])
    assert np.shape(fit.valid_error) == r.shape, f"{name}: valid_error length"
    _close_deviances(fit.valid_error, r, fit, name, "valid_error", "valid_error (all iterations)")


def check_fit_values(name, fit, fx):
    _close(fit.fit, prep.fixture_array(fx["fit"]), name, "fit",
           "fit (training link values, original row order)")


def check_predictions(name, fit, data, fx, block_name, type_):
    preds = fx["predictions"]
    block = preds[block_name]
    n_trees = [int(v) for v in preds["n_trees"]]
    r = prep.fixture_array(block[type_]).T  # (rows, len(n_trees))
    got = np.asarray(fit.predict(newdata_for(data, block), n_trees=n_trees, type=type_),
                     dtype=float)
    assert got.shape == r.shape, f"{name}: predict shape {got.shape} != {r.shape}"
    _close(got, r, name, "predict", f"predict({block_name} rows, n_trees={n_trees}, "
                                    f"type={type_!r})")


def check_coding(name, fit, fx):
    assert list(fit.var_names) == list(fx["var_names"]), f"{name}: var_names"
    np.testing.assert_array_equal(np.asarray(fit.var_type, dtype=int),
                                  np.asarray(fx["var_type"], dtype=int),
                                  err_msg=f"{name}: var_type")
    for var, got, want in zip(fx["var_names"], fit.var_levels, fx["var_levels"]):
        if want and isinstance(want[0], str):
            assert [str(v) for v in got] == want, f"{name}: var_levels of {var}"
        else:
            _close(got, prep.fixture_array(want), name, "var_levels", f"var_levels of {var}")


def check_first_trees(name, fit, fx):
    fields = {"SplitVar": "split_var", "LeftNode": "left", "RightNode": "right",
              "MissingNode": "missing"}
    floats = {"SplitCodePred": "split_code_pred", "ErrorReduction": "error_reduction",
              "Weight": "weight", "Prediction": "prediction"}
    for i, want in enumerate(fx["debug"]["trees"]):
        tree = fit.trees[i]
        for rname, attr in fields.items():
            np.testing.assert_array_equal(np.asarray(getattr(tree, attr), dtype=int),
                                          np.asarray(want[rname], dtype=int),
                                          err_msg=f"{name}: tree {i + 1} {rname}")
        for rname, attr in floats.items():
            _close(getattr(tree, attr), prep.fixture_array(want[rname]), name, "tree",
                   f"tree {i + 1} {rname}")
    for idx, want in fx["debug"]["c_splits"].items():
        np.testing.assert_array_equal(np.asarray(fit.c_splits[int(idx)], dtype=int),
                                      np.asarray(want, dtype=int),
                                      err_msg=f"{name}: c_splits[{idx}]")


def check_everything(name, case, fx, fit, data):
    """Every comparison, in order of dependence (used by the live test)."""
    check_coding(name, fit, fx)
    check_init_f(name, fit, fx)
    check_first_trees(name, fit, fx)
    check_train_error(name, fit, fx)
    if fx["n_train"] < fx["n"]:
        check_valid_error(name, fit, fx)
    check_fit_values(name, fit, fx)
    for block in PRED_BLOCKS:
        if block in fx["predictions"]:
            for type_ in PRED_TYPES:
                check_predictions(name, fit, data, fx, block, type_)


# ---------------------------------------------------------------------------------
# Stored fixtures
# ---------------------------------------------------------------------------------
def _pred_params():
    out = []
    for name in FIT_CASES:
        blocks = prep.load_fixture(name)["predictions"]
        out += [(name, b, t) for b in PRED_BLOCKS if b in blocks for t in PRED_TYPES]
    return out


def _valid_cases():
    return [n for n in FIT_CASES if CASES[n]["train_fraction"] < 1]


@pytest.mark.parametrize("name", list(CASES))
def test_fixture_provenance(name):
    fx = prep.load_fixture(name)
    assert fx["case"] == name
    assert fx["r_version"].startswith(R_VERSION_PREFIX)
    assert fx["gbm_version"] == GBM_VERSION


@pytest.mark.parametrize("name", list(CASES))
def test_data_matches_r(name):
    """prep.py reads the case's data exactly as R did (shape, NAs, levels, order)."""
    want = prep.load_fixture(name)["data_check"]
    got = prep.data_check(prep.prepare(CASES[name]))
    for key in ("n_rows", "n_cols", "n_na", "columns", "class", "na_count"):
        assert got[key] == want[key], f"{name}: {key}"
    assert got["levels"] == (want["levels"] or {}), f"{name}: factor levels"
    for key in ("sum", "row_weighted_sum"):
        for col, v in (want[key] or {}).items():
            np.testing.assert_allclose(got[key][col], v, rtol=1e-12,
                                       err_msg=f"{name}: {key} of {col}")


@pytest.mark.parametrize("name", REFUSED_CASES)
def test_cases_r_refuses(name):
    """R stops on these. Where R refuses by rule, pygbm raises a ValueError too;
    where R fails by a bug or lacks the method, pygbm fits the model."""
    case, fx = CASES[name], prep.load_fixture(name)
    assert "error" in fx, f"{name}: R was expected to refuse this case"
    data = prep.prepare(case)
    kwargs = gbm_kwargs(case, fx)
    if case["expect_r_error"]["kind"] == "validation":
        with pytest.raises(ValueError):
            _pygbm_gbm()(case["formula"], data, **kwargs)
        return
    fit = _pygbm_gbm()(case["formula"], data, **kwargs)
    err = np.asarray(fit.train_error)
    assert np.all(np.isfinite(err)) and err[-1] < err[0], f"{name}: training did not progress"


@pytest.mark.parametrize("name", FIT_CASES)
def test_predictor_coding(name):
    fit, _ = stored_fit(name)
    check_coding(name, fit, prep.load_fixture(name))


@pytest.mark.parametrize("name", FIT_CASES)
def test_init_f(name):
    fit, _ = stored_fit(name)
    check_init_f(name, fit, prep.load_fixture(name))


@pytest.mark.parametrize("name", FIT_CASES)
def test_first_trees(name):
    fit, _ = stored_fit(name)
    check_first_trees(name, fit, prep.load_fixture(name))


@pytest.mark.parametrize("name", FIT_CASES)
def test_first_trees_bit_for_bit(name):
    """Every number of the first trees is R's, bit for bit: R's choice between
    splits whose gains tie to rounding depends on those bits, so a difference
    of one unit in the last place here is a different tree on data that ties."""
    fit, _ = stored_fit(name)
    fx = prep.load_fixture(name)
    for i, want in enumerate(fx["debug"]["trees"]):
        for rname, attr in (("SplitCodePred", "split_code_pred"), ("Weight", "weight"),
                            ("ErrorReduction", "error_reduction"),
                            ("Prediction", "prediction")):
            np.testing.assert_array_equal(np.asarray(getattr(fit.trees[i], attr)),
                                          prep.fixture_array(want[rname]),
                                          err_msg=f"{name}: tree {i + 1} {rname}")


@pytest.mark.parametrize("name", FIT_CASES)
def test_train_error(name):
    fit, _ = stored_fit(name)
    check_train_error(name, fit, prep.load_fixture(name))


@pytest.mark.parametrize("name", _valid_cases())
def test_valid_error(name):
    fit, _ = stored_fit(name)
    check_valid_error(name, fit, prep.load_fixture(name))


@pytest.mark.parametrize("name", FIT_CASES)
def test_fit_values(name):
    fit, _ = stored_fit(name)
    check_fit_values(name, fit, prep.load_fixture(name))


@pytest.mark.parametrize("name,block,type_", _pred_params())
def test_predictions(name, block, type_):
    fit, data = stored_fit(name)
    check_predictions(name, fit, data, prep.load_fixture(name), block, type_)


@pytest.mark.parametrize("name", FIT_CASES)
def test_bounded_search_gives_r_fit(name, force_bounded_search):
    """The case fitted again by the NumPy engine (the reference) with every
    node's continuous predictors searched by the bounded search (in blocks of
    8 positions, so that these small nodes hold many; as configured only
    large nodes use it): R's trees, training and validation errors and
    fitted values still."""
    force_bounded_search(8)
    fx = prep.load_fixture(name)
    fit, _ = fit_case(CASES[name], fx, engine="numpy")
    check_first_trees(name, fit, fx)
    check_train_error(name, fit, fx)
    if name in _valid_cases():
        check_valid_error(name, fit, fx)
    check_fit_values(name, fit, fx)


# ---------------------------------------------------------------------------------
# Live: fresh random data through R and pygbm
# ---------------------------------------------------------------------------------
LIVE_DISTRIBUTIONS = ["gaussian", "laplace", "tdist", "huberized", "bernoulli",
                      "adaboost", "poisson", "quantile", "coxph"]
LEVELS_G = ["a", "b", "c", "d", "e", "f", "g"]
LEVELS_O = ["lo", "mid", "hi"]
LIVE_NA_FRAC = 0.1
#: share of the live gaussian cases fitted to a 0/1 response (pure nodes)
BINARY_GAUSSIAN = 0.5
#: their response is 1 above this quantile of the linear predictor (rare
#: ones: the first trees reach pure nodes in about a third of the cases)
BINARY_QUANTILE = 0.97
#: the engines every live case is fitted with (None: the default one)
LIVE_ENGINES = (None, "numpy")
ROUND_DIGITS = 4  # short decimals: R and pandas parse them to the same doubles
#: share of the live cases that are bagged, and their bag fractions
LIVE_BAGGED, LIVE_BAG_FRACTIONS = 0.5, (0.3, 0.5, 0.8)
#: share of the live cases with monotone constraints on x0 and x1; not for adaboost and
#: huberized, whose constraints R applies to the loss's derivative (an R bug pygbm fixes:
#: docs/coming_from_r.md)
LIVE_MONOTONE, MONOTONE_AS_R = 0.3, ("gaussian", "laplace", "tdist", "bernoulli",
                                     "poisson", "quantile", "coxph")
#: share of the weighted live cases whose weights are not whole numbers (two decimals:
#: their normalisation, w * n / sum(w), rounds, so R's long-double sum() matters)
LIVE_FRACTIONAL_WEIGHTS = 0.5
#: share of the live cases with an offset() term, for the distributions whose offset R
#: gbm 2.1.8 takes (its coxph errors with one, which pygbm fits: docs/coming_from_r.md)
LIVE_OFFSET, OFFSET_AS_R = 0.3, ("gaussian", "laplace", "tdist", "bernoulli", "poisson")
#: share of the live cases grown deep with small leaves: ties decided by the last bit of
#: a few rows' sums (found huberized's leaf denominator, which R rounds otherwise)
LIVE_DEEP, DEEP_DEPTHS, DEEP_MIN_OBS = 0.25, (6, 11), (1, 2, 3)
#: share of the live cases whose formula adds transformed terms to ".", and how many;
#: none whose value on new data depends on the data (cut(x, k), scale(x), relevel(f,
#: ref) of a level the new rows may lack): R's predict evaluates terms again there
LIVE_TERMS, N_LIVE_TERMS = 0.3, 2
LIVE_TERM_CHOICES = (
    "factor(k)", "pmin(k, 4)", "round(x1, 1)", "trunc(x0 * 2)", "I(x1 %% 0.5)",
    "cut(x0, c(-Inf, -0.5, 0.5, Inf), right = FALSE)", "cut(x1, c(-1, 0, 1), labels = FALSE)",
    "ifelse(x1 > 0 & !is.na(x0), x1, 0)", "factor(g %in% c('a', 'b'))",
    "factor(o == 'hi' | k > 5)", "as.numeric(factor(k, levels = c(1, 2, 3)))",
)
#: R aborts its session (std::length_error) when a coxph fit diverges, which deep
#: weighted coxph trees with single-row leaves do; pygbm warns (docs/coming_from_r.md)
DEEP_MIN_OBS_COXPH = (2, 3)


def _distribution(rng) -> dict:
    name = str(rng.choice(LIVE_DISTRIBUTIONS))
    if name == "tdist":
        return {"name": name, "df": int(rng.integers(3, 9))}
    if name == "quantile":
        return {"name": name, "alpha": float(rng.choice([0.1, 0.25, 0.5, 0.75, 0.9]))}
    return {"name": name}


def _random_frame(rng, dist: dict) -> pd.DataFrame:
    n = int(rng.integers(200, 600))
    p = int(rng.integers(2, 6))
    df = pd.DataFrame({f"x{j}": np.round(rng.normal(size=n), ROUND_DIGITS)
                       for j in range(p)})
    df["k"] = rng.integers(0, 8, size=n).astype(float)        # many ties
    g = rng.choice(LEVELS_G[:int(rng.integers(2, len(LEVELS_G) + 1))], size=n)
    o = rng.choice(LEVELS_O, size=n)
    df["g"], df["o"] = g, o
    effect_g = {lev: e for lev, e in zip(LEVELS_G, rng.normal(size=len(LEVELS_G)))}
    eta = (df["x0"] - 0.5 * df["x1"] + 0.2 * df["k"] + pd.Series(g).map(effect_g)
           + 0.5 * pd.Series(o).map({"lo": -1, "mid": 0, "hi": 1})).to_numpy()
    for col in ["x0", "k", "g"]:
        df[col] = df[col].mask(rng.random(n) < LIVE_NA_FRAC)
    kind = dist["name"]
    if kind == "gaussian" and rng.random() < BINARY_GAUSSIAN:
        # a rare 0/1 response: pure nodes (every row the same working
        # response), whose split R's rounding noise decides
        df["y"] = (eta > np.quantile(eta, BINARY_QUANTILE)).astype(int)
    elif kind in ("gaussian", "laplace", "tdist", "quantile"):
        df["y"] = np.round(eta + rng.standard_t(4, size=n), ROUND_DIGITS)
    elif kind in ("bernoulli", "adaboost", "huberized"):
        df["y"] = (rng.random(n) < 1 / (1 + np.exp(-eta))).astype(int)
    elif kind == "poisson":
        df["y"] = rng.poisson(np.exp(0.5 * eta - 0.5))
    else:
        df["time"] = np.round(rng.exponential(np.exp(-0.5 * eta)) + 0.001, ROUND_DIGITS)
        df["status"] = (rng.random(n) < 0.7).astype(int)
    if kind != "quantile" and rng.random() < 0.5:
        df["w"] = rng.integers(1, 4, size=n).astype(float)
        if rng.random() < LIVE_FRACTIONAL_WEIGHTS:
            df["w"] = np.round(df["w"] * rng.uniform(0.3, 1.0, size=n), 2)
    if kind in OFFSET_AS_R and rng.random() < LIVE_OFFSET:
        df["off"] = np.round(rng.normal(scale=0.3, size=n), ROUND_DIGITS)
    return df


def _random_case(rng, folder: Path, i: int) -> dict:
    dist = _distribution(rng)
    df = _random_frame(rng, dist)
    path = folder / f"live_{i}.csv"
    df.to_csv(path, index=False)
    lhs = "Surv(time, status)" if dist["name"] == "coxph" else "y"
    terms = rng.choice(LIVE_TERM_CHOICES, N_LIVE_TERMS, replace=False) \
        if rng.random() < LIVE_TERMS else []
    rhs = "." + "".join(f" + {t}" for t in terms) + (" - w" if "w" in df else "") \
        + (" - off + offset(off)" if "off" in df else "")
    monotone = None
    if dist["name"] in MONOTONE_AS_R and rng.random() < LIVE_MONOTONE:
        monotone = {"x0": int(rng.choice([-1, 1])), "x1": int(rng.choice([-1, 0, 1]))}
    n_trees = int(rng.integers(20, 61))
    depth, min_obs = int(rng.integers(1, 6)), int(rng.choice([5, 10, 20]))
    if rng.random() < LIVE_DEEP:
        depth = int(rng.integers(*DEEP_DEPTHS))
        min_obs = int(rng.choice(DEEP_MIN_OBS_COXPH if dist["name"] == "coxph"
                                 else DEEP_MIN_OBS))
    return {
        "name": f"live_{i}_{dist['name']}",
        "description": "random live case",
        "data": str(path),
        "prep": {"ordered": {"o": LEVELS_O}},
        "formula": f"{lhs} ~ {rhs}",
        "distribution": dist,
        "weights": "w" if "w" in df else None,
        "var_monotone": monotone,
        "n_trees": n_trees,
        "interaction_depth": depth,
        "n_minobsinnode": min_obs,
        "shrinkage": float(np.round(np.exp(rng.uniform(np.log(0.01), np.log(0.5))), 4)),
        "bag_fraction": (float(rng.choice(LIVE_BAG_FRACTIONS)) if rng.random() < LIVE_BAGGED
                         else 1),
        "train_fraction": float(rng.choice([1.0, 0.8])),
        "pred_n_trees": sorted({1, n_trees // 2, n_trees}),
    }


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not installed")
def test_live_random_cases_match_r(tmp_path):
    seed = int(os.environ.get("PYGBM_LIVE_SEED", np.random.SeedSequence().entropy % 2**32))
    rng = np.random.default_rng(seed)
    cases = [_random_case(rng, tmp_path, i) for i in range(N_LIVE_CASES)]
    cases_file = tmp_path / "cases.json"
    cases_file.write_text(json.dumps(cases, indent=1))
    out = tmp_path / "fixtures"
    run = subprocess.run(["Rscript", str(REF / "make_fixtures.R"), str(cases_file), str(out),
                          str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"R failed (PYGBM_LIVE_SEED={seed}):\n{run.stdout}\n{run.stderr}"
    for case in cases:
        fx = prep.load_fixture(case["name"], out)
        assert "error" not in fx, f"R refused {case['name']}: {fx['error']}"
        label = f"{case['name']} (PYGBM_LIVE_SEED={seed})"
        assert prep.data_check(prep.prepare(case, tmp_path))["na_count"] == \
            fx["data_check"]["na_count"], label
        for engine in LIVE_ENGINES:
            fit, data = fit_case(case, fx, tmp_path, engine)
            check_everything(f"{label} engine={engine or fit.options.engine}", case, fx,
                             fit, data)
