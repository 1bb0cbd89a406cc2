"""Bernoulli with a response of proportions in [0, 1] (successes over trials,
the trials as weights): R gbm 2.1.8 fits them (it checks nothing), and its
likelihood, working response and leaf Newton steps are the same formulas.
The fixture (fixtures/r_bernoulli_proportions.json, data included) was
written by make_proportions_fixture.R; a live R refits it when available.
Outside [0, 1] R's fits are NaN or meaningless: pygbm refuses them."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pygbm

HERE = Path(__file__).parent
FIXTURE = HERE / "fixtures" / "r_bernoulli_proportions.json"
SCRIPT = HERE / "make_proportions_fixture.R"
RTOL = 1e-12


def _fit(data, case):
    kw = {"weights": "w"} if case["weights"] else {}
    return pygbm.gbm(case["formula"], pd.DataFrame(data), distribution="bernoulli",
                     n_trees=30, interaction_depth=2, shrinkage=0.1, bag_fraction=1.0,
                     n_minobsinnode=5, **kw)


def _check(fixture):
    data = fixture["data"]
    assert 0 < np.mean(np.isin(data["y"], (0.0, 1.0))) < 0.1     # proportions, and 0 and 1
    for name, case in fixture["cases"].items():
        fit = _fit(data, case)
        assert fit.init_f == pytest.approx(case["initF"], rel=RTOL), name
        np.testing.assert_allclose(fit.train_error, case["train_error"], rtol=RTOL)
        np.testing.assert_allclose(fit.fit, case["fit"], rtol=RTOL, atol=1e-13)


def test_proportions_fit_as_r():
    _check(json.loads(FIXTURE.read_text()))


@pytest.mark.skipif(shutil.which("Rscript") is None, reason="Rscript not available")
def test_proportions_fit_as_live_r(tmp_path):
    out = tmp_path / "proportions.json"
    subprocess.run(["Rscript", str(SCRIPT), str(out)], check=True, capture_output=True,
                   timeout=300)
    _check(json.loads(out.read_text()))


@pytest.mark.parametrize("y, shown", [([0.2, 1.5, 0.0], "0.0 to 1.5"),
                                      ([-0.25, 0.5, 1.0], "-0.25 to 1.0")])
def test_responses_outside_the_unit_interval_are_refused(y, shown):
    data = pd.DataFrame({"y": y * 20, "x": np.arange(60.0)})
    with pytest.raises(ValueError, match=rf"bernoulli needs a response y in \[0, 1\].*{shown}"):
        pygbm.gbm("y ~ x", data, distribution="bernoulli", n_trees=2)


def test_proportions_need_weight_on_both_sides():
    """A log-odds needs some weight on successes and on failures: proportions
    whose rows above 0 all weigh 0 are refused; a constant proportion in
    (0, 1) fits (its log-odds is finite)."""
    x = np.arange(60.0)
    y = np.where(x < 30, 0.0, 0.5)
    data = pd.DataFrame({"y": y, "x": x, "w": (y == 0).astype(float)})
    with pytest.raises(ValueError, match=r"no training row with y > 0 has a positive weight"):
        pygbm.gbm("y ~ x", data, weights="w", distribution="bernoulli", n_trees=2)
    fit = pygbm.gbm("y ~ x", pd.DataFrame({"y": 0.25, "x": x}), distribution="bernoulli",
                    n_trees=3)
    assert fit.init_f == pytest.approx(np.log(0.25 / 0.75))
    np.testing.assert_allclose(fit.predict(pd.DataFrame({"x": x}), n_trees=3,
                                           type="response"), 0.25)
