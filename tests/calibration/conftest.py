"""The rows the calibration tests fit and calibrate on."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest


@pytest.fixture(scope="module")
def rare():
    rng = np.random.default_rng(11)
    n = 6000
    x = rng.uniform(size=(n, 3))
    p = 1 / (1 + np.exp(-(-3.5 + 3 * x[:, 0])))
    df = pd.DataFrame(x, columns=["a", "b", "c"])
    df["y"] = (rng.uniform(size=n) < p).astype(float)
    df["expo"] = rng.uniform(0.5, 2, size=n)
    df["k"] = rng.poisson(df["expo"] * np.exp(-2.5 + 2 * x[:, 1]))
    df["w"] = rng.uniform(0.2, 3.0, size=n)
    return df
