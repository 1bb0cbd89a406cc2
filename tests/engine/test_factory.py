"""The engine's factory (engine/factory.py): which data layout a fit gets."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from binned_fits import assert_same_fit
from binned_fits import fit as _fit

from pygbm.engine import factory


@pytest.mark.parametrize("kw", [dict(distribution="gaussian"),
                                dict(distribution="bernoulli", weights="wt")])
def test_exact_mode_searches_few_valued_data_by_histograms(kw, monkeypatch):
    """The default (exact) mode sends data whose continuous predictors have at
    most FEW_VALUES distinct values to the histogram search, one bucket per
    value: the fit is the presorted scan's, tree for tree."""
    rng = np.random.default_rng(8)
    n = 3000
    df = pd.DataFrame({"a": rng.integers(0, 16, n).astype(float),
                       "b": rng.integers(0, 200, n).astype(float),
                       "c": pd.Categorical(rng.choice(list("pqrs"), n)),
                       "wt": rng.uniform(0.5, 2.0, n)})
    df.loc[rng.random(n) < 0.1, "a"] = np.nan
    signal = (df["a"].fillna(5) > 7) + 0.01 * df["b"] + (df["c"] == "q")
    if kw["distribution"] == "bernoulli":
        df["y"] = (signal + rng.normal(size=n) > 1.2).astype(float)
    else:
        df["y"] = signal + rng.normal(size=n)
    formula = "y ~ a + b + c"
    limit = factory.few_values_limit(len(df))
    assert factory.few_values(df[["a", "b"]].to_numpy(), np.zeros(2, dtype=int), limit)
    fast = _fit(formula, df, interaction_depth=4, n_minobsinnode=5, **kw)
    monkeypatch.setattr(factory, "few_values_limit", lambda n: 0)   # force the presorted scan
    assert_same_fit(_fit(formula, df, interaction_depth=4, n_minobsinnode=5, **kw), fast)


def test_few_values_limit():
    assert factory.few_values_limit(500) == factory.FEW_VALUES
    assert factory.few_values_limit(80_000) == 10_000
    assert factory.few_values_limit(10**7) == factory.MAX_VALUES
    x = np.repeat(np.arange(300.0), 4)[:, None]                 # 300 values, 1200 rows
    assert not factory.few_values(x, np.zeros(1, dtype=int), 255)
    assert factory.few_values(x, np.zeros(1, dtype=int), 300)


def test_compiled_size_takes_small_or_wide_data():
    """The compiled grower takes data up to COMPILED_MAX_ELEMENTS rows x
    predictors, and data of at most COMPILED_MAX_WIDE_ROWS rows whatever their
    predictors (wide data, where it is measured faster than NumPy's passes)."""
    limit, rows = factory.COMPILED_MAX_ELEMENTS, factory.COMPILED_MAX_WIDE_ROWS
    assert factory.compiled_size(limit // 10, 10)
    assert not factory.compiled_size(limit // 10 + 1, 10)
    assert factory.compiled_size(rows, 10 * limit // rows)
    assert not factory.compiled_size(rows + 1, limit // rows + 1)


def test_wide_data_fit_is_the_same_in_the_compiled_loop(monkeypatch):
    """A wide fit (more rows x predictors than COMPILED_MAX_ELEMENTS, few rows)
    runs in the compiled loop and gives the NumPy engine's fit bit for bit."""
    from pygbm import gbm
    from pygbm.engine.compiled import boosting

    rng = np.random.default_rng(3)
    n, p = 120, 40
    x = rng.normal(size=(n, p))
    df = pd.DataFrame(x, columns=[f"x{j}" for j in range(p)])
    df["y"] = x[:, 0] + x[:, 1] * x[:, 2] + rng.normal(size=n)
    monkeypatch.setattr(factory, "COMPILED_MAX_ELEMENTS", n * p // 2)
    monkeypatch.setattr(factory, "COMPILED_MAX_WIDE_ROWS", n)
    kw = dict(distribution="gaussian", n_trees=30, interaction_depth=3, n_minobsinnode=5,
              shrinkage=0.1, train_fraction=0.8, random_state=1)
    runs = []
    original = boosting.CompiledLoop.run
    monkeypatch.setattr(boosting.CompiledLoop, "run",
                        lambda self, *a, **k: runs.append(1) or original(self, *a, **k))
    compiled = gbm("y ~ .", df, engine="numba", **kw)
    assert runs == [1]
    reference = gbm("y ~ .", df, engine="numpy", **kw)
    np.testing.assert_array_equal(compiled.fit, reference.fit)
    np.testing.assert_array_equal(compiled.valid_error, reference.valid_error)
    for a, b in zip(compiled.trees, reference.trees):
        for va, vb in zip(a.vectors(), b.vectors()):
            np.testing.assert_array_equal(va, vb)
