"""The distribution registry, parameters, capability flags and guessDist."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pygbm.distributions import (
    Distribution, available_distributions, get_distribution, guess_distribution,
)
from pygbm.distributions.base import Distribution as BaseDistribution

R_NAMES = ["adaboost", "bernoulli", "coxph", "gaussian", "huberized", "laplace",
           "poisson", "quantile", "tdist"]


def test_available_names_are_rs():
    assert available_distributions() == sorted(R_NAMES + ["multinomial", "pairwise"])
    assert Distribution is BaseDistribution


@pytest.mark.parametrize("name", [n for n in R_NAMES if n != "quantile"])
def test_get_by_name_and_dict(name):
    d = get_distribution(name)
    assert isinstance(d, Distribution) and d.name == name
    assert get_distribution({"name": name}) == d
    assert get_distribution(d) is d
    assert get_distribution(d.spec()) == d


def test_parameters_in_r_list_form():
    q = get_distribution({"name": "quantile", "alpha": 0.25})
    assert q.alpha == 0.25 and q.spec() == {"name": "quantile", "alpha": 0.25}
    assert q != get_distribution({"name": "quantile", "alpha": 0.5})
    t = get_distribution("tdist")
    assert t.df == 4.0 and t.params() == {"df": 4.0}        # R's default
    assert get_distribution({"name": "tdist", "df": 2}).df == 2.0
    assert repr(q) == "Quantile(alpha=0.25)"


@pytest.mark.parametrize("spec, match", [
    ("quantile", "alpha"),
    ({"name": "quantile", "alpha": 0}, "alpha"),
    ({"name": "quantile", "alpha": 1.0}, "alpha"),
    ({"name": "quantile", "alpha": 1.5}, "alpha"),
    ({"name": "tdist", "df": -1}, "df"),
    ({"name": "gaussian", "alpha": 0.5}, "gaussian.*alpha"),
    ({"name": "tdist", "nu": 3}, "tdist.*nu"),
    ({"alpha": 0.5}, "name"),
])
def test_bad_parameters(spec, match):
    with pytest.raises(ValueError, match=match):
        get_distribution(spec)


def test_bad_parameter_types():
    with pytest.raises(TypeError, match="alpha"):
        get_distribution({"name": "quantile", "alpha": "0.5"})
    with pytest.raises(TypeError, match="distribution"):
        get_distribution(3)
    with pytest.raises(TypeError, match="name"):
        get_distribution({"name": 3})


def test_unknown_name_lists_available():
    with pytest.raises(ValueError) as e:
        get_distribution("gausian")
    msg = str(e.value)
    assert "gausian" in msg and all(n in msg for n in R_NAMES)


def test_multinomial_and_pairwise_available():
    assert get_distribution("multinomial").name == "multinomial"
    d = get_distribution({"name": "pairwise", "group": "q", "metric": "ndcg"})
    assert d.name == "pairwise" and d.metric == "ndcg" and d.bag_by_group
    assert {"multinomial", "pairwise"} <= set(available_distributions())


def test_capability_flags():
    links = {n: get_distribution({"name": n, "alpha": 0.5} if n == "quantile" else n)
             .response_link for n in R_NAMES}
    assert links == {"adaboost": "logistic2", "bernoulli": "logistic", "coxph": "identity",
                     "gaussian": "identity", "huberized": "identity", "laplace": "identity",
                     "poisson": "exp", "quantile": "identity", "tdist": "identity"}
    for n in R_NAMES:
        cls = type(get_distribution({"name": n, "alpha": 0.5} if n == "quantile" else n))
        assert cls.needs_time_order == (n == "coxph")
        assert cls.survival_response == (n == "coxph")


def test_inverse_links():
    f = np.array([-1.0, 0.0, 2.0])
    assert np.allclose(get_distribution("bernoulli").inverse_link(f), 1 / (1 + np.exp(-f)))
    assert np.allclose(get_distribution("adaboost").inverse_link(f), 1 / (1 + np.exp(-2 * f)))
    assert np.allclose(get_distribution("poisson").inverse_link(f), np.exp(f))
    assert np.allclose(get_distribution("gaussian").inverse_link(f), f)


def test_guess_distribution_is_r_guessdist():
    assert guess_distribution(np.array([0, 1, 1, 0])) == "bernoulli"
    assert guess_distribution(np.array([2.0, 5.0, 5.0])) == "bernoulli"   # any 2 values
    assert guess_distribution(np.array([1.0, 2.0, 3.5])) == "gaussian"
    assert guess_distribution(np.array([1.0, np.nan, np.nan])) == "bernoulli"  # NA counts
    assert guess_distribution(np.array(["a", "b", "c"]), is_categorical=True,
                              n_levels=3) == "multinomial"
    assert guess_distribution(pd.Categorical(["a", "b", "a"]), is_categorical=True,
                              n_levels=2) == "bernoulli"
    assert guess_distribution(np.array([3.0, 1.0, 2.0]), is_surv=True) == "coxph"
    with pytest.raises(ValueError, match="n_levels"):
        guess_distribution(np.array([1, 2, 3]), is_categorical=True, n_levels=0)
    with pytest.raises(ValueError, match="y"):
        guess_distribution(np.zeros((3, 2)))
