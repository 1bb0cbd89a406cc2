"""Score matrices for QWYC's algorithms without a fit (shared by the test files)."""
import numpy as np

from pygbm.early_exit.build import Rows


def synthetic_rows(seed, n=300, T=12) -> Rows:
    """T trees of unequal strength on n rows: discrete leaf values (ties) and a
    shared signal, every row starting at -0.3, the decision at 0."""
    rng = np.random.default_rng(seed)
    signal = rng.normal(size=n)
    F = np.round(0.3 * signal[:, None] * rng.uniform(0.2, 1.5, T)
                 + 0.4 * rng.normal(size=(n, T)), 1)
    return Rows(np.ascontiguousarray(F.T), np.full(n, -0.3), 0.0)
