"""Distributions hold only their parameters: what a fit learns (classes, the
ranking noise's generator, the exp mode, per-iteration caches) is in its
FitContext, so one instance can serve the cv folds and the main fit."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import pygbm
from pygbm.distributions import FitContext, Multinomial, Pairwise, available_distributions


def _frame(seed=0, n=240):
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=n), rng.uniform(size=n)
    cls = np.where(x1 > 0.5, "a", np.where(x2 > 0.5, "b", "c"))
    group = np.repeat(np.arange(n // 8), 8)
    rel = np.clip(np.round(x1 + rng.normal(scale=0.5, size=n)), 0, 3)
    return pd.DataFrame({"x1": x1, "x2": x2, "cls": pd.Categorical(cls), "q": group,
                         "rel": rel})


def test_an_instance_keeps_no_fit_state():
    for name in available_distributions():
        spec = {"name": name, "alpha": 0.5} if name == "quantile" else \
            {"name": name, "metric": "ndcg"} if name == "pairwise" else name
        dist = pygbm.get_distribution(spec)
        assert set(vars(dist)) <= {"alpha", "df", "splits", "group", "metric", "max_rank"}


@pytest.mark.parametrize("make, formula, extra", [
    (lambda: Multinomial(), "cls ~ x1 + x2", {}),
    (lambda: Pairwise(group="q", metric="ndcg"), "rel ~ x1 + x2", {}),
])
def test_one_instance_serves_cv_folds_and_the_fit(make, formula, extra):
    """The same instance given to gbm (cv folds and the main fit) fits as a
    fresh instance per fit does, and is left as it was."""
    data = _frame()
    dist = make()
    before = pickle.dumps(dist)
    kw = dict(n_trees=5, interaction_depth=2, cv_folds=3, random_state=3, n_minobsinnode=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shared = pygbm.gbm(formula, data, distribution=dist, **kw, **extra)
        fresh = pygbm.gbm(formula, data, distribution=make().spec(), **kw, **extra)
    assert pickle.dumps(dist) == before
    np.testing.assert_array_equal(shared.cv_error, fresh.cv_error)
    np.testing.assert_array_equal(shared.fit, fresh.fit)
    assert shared.distribution is dist


def test_the_fit_keeps_what_it_learned():
    data = _frame()
    fit = pygbm.gbm("cls ~ x1 + x2", data, distribution="multinomial", n_trees=3,
                    n_minobsinnode=5)
    assert list(fit.context.classes) == ["a", "b", "c"] and fit.context.n_outputs == 3
    assert list(fit.classes) == ["a", "b", "c"]
    restored = pickle.loads(pickle.dumps(fit))
    assert restored.context.cache == {} and list(restored.context.classes) == ["a", "b", "c"]
    assert FitContext().n_outputs == 1
