"""The data and fit the cost tests share: four predictors, two cheap (c1, c2) and two
costly (e1, e2), where e1 decides the class inside a band of c1 (the gatekeeper
problem of issue 22, small)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from pygbm import gbm

NAMES = ["c1", "c2", "e1", "e2"]
COSTS = {"c1": 1.0, "c2": 1.0, "e1": 50.0, "e2": 50.0}
#: a trade-off that lets trees split under COSTS (the default 1 stops every split)
LIGHT = 1e-4


def band_frame(n=1200, seed=0):
    """``n`` rows of NAMES (5% missing each) and a 0/1 ``y``: the sign of e1 inside the
    band |c1| < 0.5, the sign of c1 outside it."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4))
    x[rng.random((n, 4)) < 0.05] = np.nan
    band = np.abs(np.nan_to_num(x[:, 0])) < 0.5
    y = np.where(band, np.nan_to_num(x[:, 2]) > 0, np.nan_to_num(x[:, 0]) > 0).astype(float)
    df = pd.DataFrame(x, columns=NAMES)
    df["y"] = y
    return df


def band_fit(df, n_trees=30, **kw):
    """A bernoulli gbm of ``y ~ .`` on ``df`` (depth 4, the NumPy engine), ``kw`` added."""
    args = dict(distribution="bernoulli", n_trees=n_trees, interaction_depth=4,
                random_state=3, engine="numpy")
    args.update(kw)
    return gbm("y ~ .", df, **args)
