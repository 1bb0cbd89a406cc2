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
