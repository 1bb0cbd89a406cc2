"""pygbm.gbm with bagging against R gbm 2.1.8.1, in distribution.

R draws its bags from R's random number generator, which pygbm does not
reproduce; so each case of ``tests/r_reference/bagged_cases.json``
(bag_fraction 0.5, train_fraction 0.7) was fitted in R with seeds 1..5, and
pygbm with ``random_state`` 1..5 must give a mean final validation deviance
within ``REL_TOL`` of R's mean. The cases were chosen so that R's own
seed-to-seed spread is well below that (sd/mean <= 0.8%, see the fixtures).
"""
from __future__ import annotations

import importlib.util
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

REF = Path(__file__).resolve().parent / "r_reference"
#: allowed relative gap between the mean final validation deviances
REL_TOL = 0.02
#: init_f does not depend on the bags: it must match R as in the unbagged tests
INIT_F_TOL = {"rtol": 1e-6, "atol": 1e-9}
RANDOM_STATES = [1, 2, 3, 4, 5]


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
BAGGED_DIR = prep.FIXTURES / "bagged"
CASES = {c["name"]: c for c in prep.load_cases(REF / "bagged_cases.json")}


@lru_cache(maxsize=None)
def bagged_fits(name: str):
    """pygbm fits of a bagged case, one per random_state."""
    import pygbm

    case = CASES[name]
    data = prep.prepare(case)
    dist = case["distribution"]
    fits = []
    for state in RANDOM_STATES:
        fits.append(pygbm.gbm(
            case["formula"], data,
            distribution=dist["name"] if len(dist) == 1 else dict(dist),
            weights=case.get("weights"), n_trees=case["n_trees"],
            interaction_depth=case["interaction_depth"],
            n_minobsinnode=case["n_minobsinnode"], shrinkage=case["shrinkage"],
            bag_fraction=case["bag_fraction"], train_fraction=case["train_fraction"],
            keep_data=False, random_state=state))
    return fits


@pytest.mark.parametrize("name", list(CASES))
def test_bagged_data_matches_r(name):
    fx = prep.load_fixture(name, BAGGED_DIR)
    assert fx["r_version"].startswith("R version 4.2.2") and fx["gbm_version"] == "2.1.8.1"
    got = prep.data_check(prep.prepare(CASES[name]))
    want = fx["data_check"]
    for key in ("n_rows", "n_cols", "n_na", "columns", "class", "na_count"):
        assert got[key] == want[key], f"{name}: {key}"
    for col, v in want["row_weighted_sum"].items():
        np.testing.assert_allclose(got["row_weighted_sum"][col], v, rtol=1e-12,
                                   err_msg=f"{name}: row order / values of {col}")


@pytest.mark.parametrize("name", list(CASES))
def test_bagged_mean_valid_deviance_close_to_r(name):
    fx = prep.load_fixture(name, BAGGED_DIR)
    fits = bagged_fits(name)
    finals = np.array([np.asarray(f.valid_error, dtype=float)[-1] for f in fits])
    r_mean = fx["valid_error_final_mean"]
    gap = abs(finals.mean() - r_mean) / abs(r_mean)
    assert gap <= REL_TOL, (
        f"{name}: pygbm mean final valid deviance {finals.mean():.6g} "
        f"(per random_state {np.round(finals, 6).tolist()}) vs R {r_mean:.6g} "
        f"(sd {fx['valid_error_final_sd']:.3g}): relative gap {gap:.2%} > {REL_TOL:.0%}")


@pytest.mark.parametrize("name", list(CASES))
def test_bagged_fits_differ_by_random_state_but_share_init_f(name):
    fx = prep.load_fixture(name, BAGGED_DIR)
    fits = bagged_fits(name)
    finals = [float(np.asarray(f.valid_error)[-1]) for f in fits]
    assert len(set(finals)) > 1, f"{name}: random_state does not change the bags"
    for f in fits:
        np.testing.assert_allclose(np.atleast_1d(f.init_f),
                                   np.asarray(fx["init_f"], dtype=float)[:1],
                                   err_msg=f"{name}: init_f", **INIT_F_TOL)
