"""gbm_roc_area (pygbm/inspect/roc.py) against R's gbm.roc.area."""

import numpy as np
import pytest
from perf_cases import EXACT, r_cases

from pygbm.inspect.roc import gbm_roc_area

ROC = r_cases("roc")["cases"]


@pytest.mark.parametrize("name", sorted(ROC))
def test_roc_area_equals_r(name):
    case = ROC[name]
    assert abs(gbm_roc_area(case["obs"], case["pred"]) - case["auc"]) < EXACT


def test_roc_area_small_hand_example():
    # pairs (pos, neg): (0.8, 0.1) win, (0.8, 0.4) win, (0.4, 0.1) win, (0.4, 0.4) tie
    assert gbm_roc_area([1, 0, 1, 0], [0.8, 0.1, 0.4, 0.4]) == pytest.approx(3.5 / 4)
    assert np.isnan(gbm_roc_area([0, 0], [0.2, 0.3]))


@pytest.mark.parametrize("obs, pred, match", [
    ([1, 0], [0.5], "same length"),
    ([], [], "non-empty"),
    ([1, 0], [np.nan, 0.1], "finite"),
    # a class label: numpy's "could not convert string to float: 'R'" from pandas' code
    (["R", "D"], [0.5, 0.1], r"^obs must be numbers, got .*'R'"),
    ([1, 0], ["high", "low"], r"^pred must be numbers"),
])
def test_roc_area_bad_inputs(obs, pred, match):
    with pytest.raises(ValueError, match=match):
        gbm_roc_area(obs, pred)
