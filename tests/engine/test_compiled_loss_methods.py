"""The NumPy loop on the compiled engine (engine/compiled/loss_methods.py):
fits the compiled loop cannot run (ordered target statistics, ordered
boosting, a sampler of their own) take each tree's working response, terminal
values, out-of-bag improvement and deviances from the kernels, and give the
NumPy engine's fit bit for bit."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("numba")

import pygbm  # noqa: E402
from pygbm.engine.compiled import boosting  # noqa: E402
from pygbm.engine.compiled.loss_methods import CompiledLossMethods  # noqa: E402

from test_compiled import assert_same_fit  # noqa: E402


def _data(n=600, seed=2):
    rng = np.random.default_rng(seed)
    d = pd.DataFrame({"a": rng.normal(size=n),
                      "g": pd.Categorical(rng.choice([f"L{i}" for i in range(12)], size=n)),
                      "c": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
                      "e": rng.uniform(1.0, 3.0, size=n)})
    link = d.a - 0.5 + 0.4 * (d.g.cat.codes % 3)
    d["yb"] = (rng.random(n) < 1 / (1 + np.exp(-link))).astype(float)
    d["yp"] = rng.poisson(np.exp(link - 0.5)).astype(float)
    d["yg"] = link + rng.normal(size=n)
    return d


CASES = {
    "bernoulli": ("yb ~ a + g + c", "bernoulli", {}),
    "bernoulli_newton_binned": ("yb ~ a + g + c", {"name": "bernoulli", "splits": "newton"},
                                {"max_bins": 32}),
    "poisson_offset": ("yp ~ a + g + c + offset(log(e))", "poisson", {}),
    "gaussian_weights": ("yg ~ a + g + c", "gaussian", {"weights": "e"}),
    "laplace": ("yg ~ a + g + c", "laplace", {}),
    "quantile": ("yg ~ a + g + c", {"name": "quantile", "alpha": 0.7}, {}),
    "tdist": ("yg ~ a + g + c", "tdist", {}),
    "adaboost": ("yb ~ a + g + c", "adaboost", {}),
    "huberized": ("yb ~ a + g + c", "huberized", {}),
    "ordered_boosting": ("yb ~ a + g + c", "bernoulli",
                         {"boosting_type": "ordered", "max_bins": 64}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_ordered_statistics_fits_take_the_kernels_and_match_the_numpy_engine(
        monkeypatch, name):
    formula, dist, extra = CASES[name]
    calls = []
    original = CompiledLossMethods.deviance

    def counting(self, t, f, ctx):
        calls.append(self.kind)
        return original(self, t, f, ctx)

    monkeypatch.setattr(CompiledLossMethods, "deviance", counting)
    d = _data()
    settings = dict(distribution=dist, categorical="ordered_ts", n_trees=15,
                    interaction_depth=3, shrinkage=0.1, train_fraction=0.8,
                    random_state=5, **extra)
    numpy_fit = pygbm.gbm(formula, d, engine="numpy", **settings)
    assert not calls
    numba_fit = pygbm.gbm(formula, d, engine="numba", **settings)
    assert len(calls) == 2 * 15              # training and validation deviance per tree
    assert_same_fit(numpy_fit, numba_fit)
    assert_same_fit(pygbm.gbm_more(numpy_fit, 5), pygbm.gbm_more(numba_fit, 5))


def test_fits_without_kernels_keep_the_distribution(monkeypatch):
    """A subclass of a distribution may change its methods: the loop asks it."""

    class Shifted(pygbm.distributions.Gaussian):
        def negative_gradient(self, t, f, bag, ctx):
            return super().negative_gradient(t, f, bag, ctx) + 0.0

    made = []
    monkeypatch.setattr(CompiledLossMethods, "__init__",
                        lambda self, *a: made.append(1) or None)
    d = _data()
    pygbm.gbm("yg ~ a + g + c", d, distribution=Shifted(), categorical="ordered_ts",
              n_trees=3, engine="numba")
    assert not made


def test_loss_methods_are_the_distribution_where_kernels_do_not_apply():
    d = _data()
    fit = pygbm.gbm("yg ~ a + g + c", d, distribution="gaussian", n_trees=2, engine="numpy")
    problem = _Problem(fit.distribution, fit.context, "numpy")
    assert boosting.loss_methods(problem) is fit.distribution
    assert isinstance(boosting.loss_methods(_Problem(fit.distribution, fit.context, "numba")),
                      CompiledLossMethods)


class _Problem:
    """The three fields of a BoostProblem that decide the loss methods."""

    def __init__(self, distribution, context, engine):
        self.distribution, self.context, self.engine = distribution, context, engine


@pytest.mark.parametrize("dist", ["coxph", "tdist", {"name": "quantile", "alpha": 0.3}])
def test_weighted_cost_fits_take_the_kernels_and_match_the_numpy_engine(monkeypatch, dist):
    """CEGB's costs with case weights keep a fit in the NumPy loop (the compiled
    growers take unit weights only): coxph's risk sets, the M-estimates' leaves."""
    calls = []
    original = CompiledLossMethods.deviance
    monkeypatch.setattr(CompiledLossMethods, "deviance",
                        lambda self, t, f, ctx: calls.append(1) or original(self, t, f, ctx))
    rng = np.random.default_rng(8)
    n = 300
    d = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "w": rng.uniform(0.5, 2.0, size=n)})
    d["t"] = rng.exponential(np.exp(-d.a))
    d["s"] = (rng.random(n) < 0.7).astype(int)
    formula = "Surv(t, s) ~ a + b" if dist == "coxph" else "t ~ a + b"
    settings = dict(distribution=dist, weights="w", feature_costs={"a": 1.0, "b": 2.0},
                    cegb_tradeoff=0.01, n_trees=10, interaction_depth=2, n_minobsinnode=5,
                    train_fraction=0.8, random_state=3)
    numpy_fit = pygbm.gbm(formula, d, engine="numpy", **settings)
    numba_fit = pygbm.gbm(formula, d, engine="numba", **settings)
    assert len(calls) == 2 * 10
    assert_same_fit(numpy_fit, numba_fit)
