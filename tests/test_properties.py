"""Property tests (issue 20) with hypothesis: invariances of the exact-mode fit
and of predict, round trips, and malformed inputs that must end in pygbm's
own error. Small data, few trees, modest example counts."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import pygbm  # noqa: E402

FAST = settings(max_examples=8, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
N = 80
KW = dict(distribution="gaussian", n_trees=8, interaction_depth=2, n_minobsinnode=5,
          bag_fraction=1.0, engine="numpy")


def _data(seed):
    rng = np.random.default_rng(seed)
    x = pd.DataFrame({"a": rng.normal(size=N), "b": rng.uniform(1, 5, size=N)})
    y = x["a"] * 2 + np.sin(x["b"]) + rng.normal(scale=0.3, size=N)
    return x, y.to_numpy()


def _fit(x, y, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pygbm.gbm_fit(x, y, **{**KW, **kw})


seeds = st.integers(0, 10_000)


@FAST
@given(seed=seeds, transform=st.sampled_from([np.exp, lambda v: v ** 3, lambda v: 3 * v + 1]))
def test_increasing_transform_of_a_predictor_leaves_the_fit(seed, transform):
    x, y = _data(seed)
    a = _fit(x, y, random_state=1)
    b = _fit(x.assign(a=transform(x["a"])), y, random_state=1)
    np.testing.assert_allclose(a.fit, b.fit, rtol=1e-12, atol=1e-12)


@FAST
@given(seed=seeds, c=st.sampled_from([0.5, 2.0, 4.0, 0.25]))
def test_scaling_all_weights_changes_nothing(seed, c):
    x, y = _data(seed)
    w = np.random.default_rng(seed).uniform(0.5, 2, size=N)
    a = _fit(x, y, w=w, random_state=1)
    b = _fit(x, y, w=w * c, random_state=1)
    np.testing.assert_allclose(a.fit, b.fit, rtol=1e-10, atol=1e-12)


@FAST
@given(seed=seeds, value=st.floats(-1e3, 1e3, allow_nan=False))
def test_a_constant_extra_predictor_changes_nothing(seed, value):
    x, y = _data(seed)
    a = _fit(x, y, random_state=1)
    b = _fit(x.assign(k=value), y, random_state=1)
    np.testing.assert_array_equal(a.fit, b.fit)


@FAST
@given(seed=seeds, counts=st.lists(st.integers(0, 8), min_size=1, max_size=4))
def test_predict_with_a_list_equals_separate_calls(seed, counts):
    x, y = _data(seed)
    fit = _fit(x, y, random_state=seed)
    together = fit.predict(x, n_trees=counts)
    for j, k in enumerate(counts):
        np.testing.assert_array_equal(together[:, j], fit.predict(x, n_trees=k))


@FAST
@given(seed=seeds, a=st.integers(1, 5), b=st.integers(1, 5))
def test_gbm_more_a_plus_b_equals_a_plus_b_trees(seed, a, b):
    x, y = _data(seed)
    full = _fit(x, y, n_trees=a + b, random_state=seed)
    more = pygbm.gbm_more(_fit(x, y, n_trees=a, random_state=seed), b)
    np.testing.assert_array_equal(full.fit, more.fit)


@settings(max_examples=3, deadline=None)
@given(seed=seeds)
def test_same_random_state_same_fit_for_any_n_cores(seed):
    x, y = _data(seed)
    d = x.assign(y=y)
    fits = [pygbm.gbm("y ~ a + b", d, distribution="gaussian", n_trees=5, cv_folds=2,
                      n_minobsinnode=5, n_cores=cores, random_state=seed) for cores in (1, 2)]
    np.testing.assert_array_equal(fits[0].fit, fits[1].fit)
    np.testing.assert_array_equal(fits[0].cv_error, fits[1].cv_error)


@FAST
@given(seed=seeds)
def test_pickle_round_trip_is_exact(seed):
    x, y = _data(seed)
    fit = _fit(x, y, bag_fraction=0.7, random_state=seed)
    back = pickle.loads(pickle.dumps(fit))
    np.testing.assert_array_equal(back.predict(x, n_trees=8), fit.predict(x, n_trees=8))
    np.testing.assert_array_equal(back.fit, fit.fit)


_FOREIGN = ("numpy", "pandas", "formulaic", "joblib")
junk = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.text(max_size=4),
                 st.floats(allow_nan=True, allow_infinity=True),
                 st.lists(st.integers(-2, 3), max_size=3))
#: the largest valid n_trees the junk may try
MAX_VALID_TREES = 50
ARGS = ["n_trees", "interaction_depth", "n_minobsinnode", "shrinkage", "bag_fraction",
        "train_fraction", "cv_folds", "n_cores", "random_state", "keep_data", "max_bins"]


@settings(max_examples=60, deadline=None)
@given(arg=st.sampled_from(ARGS), value=junk)
def test_malformed_arguments_never_end_in_a_foreign_traceback(arg, value):
    # a valid but huge number of trees is not malformed, only long (10**6 trees
    # ran for minutes and grew to gigabytes)
    assume(not (arg == "n_trees" and type(value) is int and value > MAX_VALID_TREES))
    x, y = _data(0)
    d = x.assign(y=y)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pygbm.gbm("y ~ a + b", d, distribution="gaussian", **{"n_trees": 3, arg: value})
    except (ValueError, TypeError) as exc:
        import traceback
        last = traceback.extract_tb(exc.__traceback__)[-1].filename
        assert not any(f"/{lib}/" in last for lib in _FOREIGN), (arg, value, last, exc)
