"""ModelFrame against R: gbm()'s own model frame and gbm.fit's coding (make_fixtures.R)."""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from pygbm.frontend import model_frame

from ._data import boston, breast_cancer, insurance, read

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "model_frames.json").read_text())
TRANSCENDENTAL = ("log(", "sqrt(", "exp(")
LENDING_CLUB_ROWS = 3000  # make_fixtures.R uses the first 3000 rows

DATASETS = {
    "boston": boston,
    "pima": lambda: read("pima2"),
    "bc": breast_cancer,
    "ins": insurance,
    "lung": lambda: read("lung"),
    "lc": lambda: read("lending_club").iloc[:LENDING_CLUB_ROWS],
}


def _num(values):
    return np.array([np.nan if v is None else float(v) for v in values])


@pytest.fixture(scope="module", params=FIXTURES["cases"], ids=lambda c: c["name"])
def case(request):
    fx = request.param
    data = DATASETS[fx["data"]]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # R warns too (no variation), checked elsewhere
        mf = model_frame(fx["formula"], data, weights=fx["weights_column"])
    return fx, mf


def test_fixture_meta():
    assert FIXTURES["meta"]["gbm"] == "2.1.8.1"
    assert FIXTURES["meta"]["R"].startswith("R version 4.2.2")


def test_var_names_and_types(case):
    fx, mf = case
    assert mf.var_names == fx["var_names"]
    assert mf.var_type.tolist() == fx["var_type"]


def test_var_levels(case):
    fx, mf = case
    assert len(mf.var_levels) == len(fx["var_levels"])
    for ours, theirs, vtype, name in zip(mf.var_levels, fx["var_levels"], fx["var_type"],
                                         fx["var_names"]):
        if isinstance(ours, np.ndarray):  # numeric: R's 11 quantiles, bit for bit
            np.testing.assert_array_equal(ours, _num(theirs), err_msg=name)
        else:
            assert ours == theirs, name


def test_coded_x_exactly(case):
    fx, mf = case
    expected = np.column_stack([_num(col) for col in fx["x"]])
    assert mf.x.shape == expected.shape
    assert mf.x.dtype == np.float64
    np.testing.assert_array_equal(np.isnan(mf.x), np.isnan(expected))
    for j, name in enumerate(mf.var_names):
        if name.startswith(TRANSCENDENTAL):
            # numpy's vectorised log/sqrt may differ from R's libm by 1 unit in the last place
            ok = ~np.isnan(expected[:, j])
            np.testing.assert_array_max_ulp(mf.x[ok, j], expected[ok, j], maxulp=1)
        else:
            np.testing.assert_array_equal(mf.x[:, j], expected[:, j], err_msg=name)


def test_response_offset_weights(case):
    fx, mf = case
    resp = fx["response"]
    if "time" in resp:
        assert mf.is_surv
        np.testing.assert_array_equal(mf.y, _num(resp["time"]))
        np.testing.assert_array_equal(mf.status, _num(resp["status"]))
    else:
        assert not mf.is_surv and mf.status is None
        np.testing.assert_array_equal(mf.y, _num(resp["y"]))
    assert mf.y_levels == resp["levels"]
    assert mf.y_is_categorical == (resp["levels"] is not None)
    if fx["offset"] is None:
        assert mf.offset is None
    else:
        np.testing.assert_array_equal(mf.offset, _num(fx["offset"]))
    if fx["weights"] is None:
        assert mf.weights is None
    else:
        np.testing.assert_array_equal(mf.weights, _num(fx["weights"]))
