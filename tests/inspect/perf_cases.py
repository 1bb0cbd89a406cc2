"""R's numbers for gbm_roc_area, the calibration curve, basehaz_gbm and supsmu
(written by tests/inspect/perf_r/make_fixtures.R), and how the tests compare with them."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).parent / "perf_r"
#: achieved (max relative difference): roc 4e-16, calibration 5e-15, Breslow 2e-15,
#: supsmu-smoothed 2e-14 (and at most 7e-10 on 200 random R comparisons)
EXACT, SMOOTH = 1e-12, 1e-10


def r_cases(stem: str) -> dict:
    """The cases of ``perf_r/<stem>_cases.json``."""
    return json.loads((FIXTURES / f"{stem}_cases.json").read_text())


def r_array(values) -> np.ndarray:
    """An R vector from JSON (null: NA)."""
    return np.array([np.nan if v is None else v for v in values], float)


def max_rel(a, b) -> float:
    """The largest difference of ``a`` from R's ``b`` relative to R's largest value, the
    NAs in the same places."""
    a, b = np.asarray(a, float), r_array(b)
    assert np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(b)
    return np.max(np.abs(a[ok] - b[ok])) / np.max(np.abs(b[ok]))
