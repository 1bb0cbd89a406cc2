"""basehaz_gbm and supsmu (pygbm/inspect/hazard.py) against R's basehaz.gbm and
stats::supsmu."""

import numpy as np
import pytest
from perf_cases import EXACT, SMOOTH, max_rel, r_cases

from pygbm.inspect.hazard import basehaz_gbm, supsmu

BH = r_cases("basehaz")
HAZ, SUP = BH["basehaz"], BH["supsmu"]


def test_breslow_cumulative_equals_r():
    assert max_rel(basehaz_gbm(HAZ["t"], HAZ["delta"], HAZ["f_x"]), HAZ["cum"]) < EXACT
    out = basehaz_gbm(HAZ["t"], HAZ["delta"], HAZ["f_x"], t_eval=HAZ["t_eval"])
    assert max_rel(out, HAZ["cum_teval"]) < EXACT
    assert np.isnan(out[-1])  # t = 2000 is beyond the last event: NA in R


@pytest.mark.parametrize("key, kwargs", [
    ("smooth_cum", dict(smooth=True)),
    ("smooth_haz", dict(smooth=True, cumulative=False)),
    ("smooth_cum_teval", dict(smooth=True, t_eval=HAZ["t_eval"])),
])
def test_breslow_smoothed_equals_r(key, kwargs):
    out = basehaz_gbm(HAZ["t"], HAZ["delta"], HAZ["f_x"], **kwargs)
    assert max_rel(out, HAZ[key]) < SMOOTH


def test_breslow_hand_example():
    # events at 1 (risk set all 3) and 2 (risk set {2, 3}); f = 0 -> 1/3, then 1/2
    out = basehaz_gbm([1, 2, 3], [1, 1, 0], [0, 0, 0], t_eval=[1, 1.5, 2, 3])
    np.testing.assert_allclose(out[:3], [1 / 3, 1 / 3 + 0.25, 1 / 3 + 0.5])
    assert np.isnan(out[3])


@pytest.mark.parametrize("kwargs, match", [
    (dict(cumulative=False), "no result"),
    (dict(cumulative=False, t_eval=[1.0]), "Cannot evaluate unsmoothed"),
    (dict(delta=[0, 0, 0, 1]), "two distinct event times"),
    (dict(f_x=[0, 0]), "same length"),
    (dict(t=[1, np.nan, 3, 4]), "finite"),
    # text: numpy's "could not convert string to float" before
    (dict(delta=["dead", "dead", "alive", "dead"]), r"^delta must be numbers"),
    (dict(t_eval=["1", "a"]), r"^t_eval must be numbers"),
])
def test_breslow_bad_inputs(kwargs, match):
    args = dict(t=[1, 2, 3, 4], delta=[1, 1, 0, 1], f_x=[0, 0.1, 0.2, 0.3])
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        basehaz_gbm(**args)


def test_breslow_takes_negative_times_as_r():
    # refused before; R's basehaz.gbm takes them (log-times, days from a reference
    # date): R 4.2.2 / gbm 2.1.8.1, basehaz.gbm(c(-2, -1, 0.5, 1), c(1, 0, 1, 1),
    # c(0, 0.1, 0.2, 0), t.eval = c(-1.5, 0, 1))
    got = basehaz_gbm([-2, -1, 0.5, 1], [1, 0, 1, 1], [0, 0.1, 0.2, 0], t_eval=[-1.5, 0, 1])
    np.testing.assert_allclose(got, [0.3211630, 0.5912626, 1.6812958], rtol=1e-6)


@pytest.mark.parametrize("name", sorted(SUP))
def test_supsmu_equals_r(name):
    case = SUP[name]
    x, y = supsmu(case["x"], case["y"], wt=case["wt"], span=case["span"])
    np.testing.assert_array_equal(x, case["out_x"])
    assert max_rel(y, case["out_y"]) < SMOOTH


def test_supsmu_constant_x_and_bad_inputs():
    x, y = supsmu([2, 2, 2], [1, 2, 6])
    assert list(x) == [2] and y[0] == pytest.approx(3)
    with pytest.raises(ValueError, match="between 0 and 1"):
        supsmu([1, 2, 3], [1, 2, 3], span=2)
    with pytest.raises(ValueError, match="periodic"):
        supsmu([0.1, 0.2, 0.3], [1, 2, 3], periodic=True)
    with pytest.warns(UserWarning, match="deleted"):
        supsmu([1, 2, 3, np.nan, 5, 6], [1, 2, 3, 4, 5, 6])
