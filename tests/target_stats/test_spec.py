"""categorical='s options checked once (target_stats/spec.py), by fit_options."""
import numpy as np
import pytest

from pygbm.options import fit_options
from pygbm.target_stats.spec import DEFAULT_PERMUTATIONS, TargetStatisticsSpec, ts_spec

NAMES = ["num", "cat", "other"]
VAR_TYPE = np.array([0, 4, 3])


def test_native_is_no_spec_and_a_mode_codes_the_unordered_categoricals():
    assert ts_spec("native", NAMES, VAR_TYPE) is None
    spec = ts_spec("ordered_ts", NAMES, VAR_TYPE)
    assert spec == TargetStatisticsSpec(("native", "ordered_ts", "ordered_ts"))
    assert spec.coded and spec.n_permutations == DEFAULT_PERMUTATIONS
    mixed = ts_spec({"other": "greedy_ts"}, NAMES, VAR_TYPE, n_permutations=2, prior=0.3,
                    prior_weight=2.5, max_combination=2)
    assert mixed == TargetStatisticsSpec(("native", "native", "greedy_ts"), 2, 0.3, 2.5, 2)


def test_a_mode_with_nothing_to_code_warns_once_and_a_dict_says_what_it_codes():
    with pytest.warns(UserWarning, match="has no effect: there is no unordered"):
        spec = ts_spec("loo_ts", ["a"], np.array([0]))
    assert spec is not None and not spec.coded           # the fit is the native one
    assert not ts_spec({}, NAMES, VAR_TYPE).coded         # a dict warns of nothing


@pytest.mark.parametrize("kw, exc, match", [
    ({"n_permutations": 0}, ValueError, "ts_permutations"),
    ({"prior": float("inf")}, TypeError, "ts_prior must be a finite number"),
    ({"prior_weight": -1}, ValueError, "ts_prior_weight must be > 0"),
    ({"max_combination": 0}, ValueError, "ts_max_combination"),
])
def test_bad_options_name_gbm_s_argument(kw, exc, match):
    with pytest.raises(exc, match=match):
        ts_spec("ordered_ts", NAMES, VAR_TYPE, **kw)


def test_fit_options_keeps_the_checked_spec():
    common = dict(n_trees=10, interaction_depth=1, n_minobsinnode=5, shrinkage=0.1,
                  bag_fraction=0.5, var_monotone=None, var_names=NAMES, var_type=VAR_TYPE)
    assert fit_options("gaussian", **common).target_stats is None
    options = fit_options("gaussian", categorical="holdout_ts",
                          ts_options=dict(prior_weight=3.0), **common)
    assert options.categorical == "holdout_ts"
    assert options.target_stats == ts_spec("holdout_ts", NAMES, VAR_TYPE, prior_weight=3.0)
    with pytest.raises(ValueError, match="ts_prior_weight"):
        fit_options("gaussian", categorical="holdout_ts", ts_options=dict(prior_weight=0),
                    **common)
