"""CatBoost's body/tail folds of ordered boosting (Prokhorenkova et al. 2018,
section 5 "Complexity" and Appendix B; CatBoost's CPU folds).

A permutation's positions 0..n-1 are cut at boundaries b_0 < b_1 < ... <
b_K = n: b_0 is CatBoost's smallest batch (:func:`first_fold_size`, or
``min_fold_size``), then b_{k+1} = min(ceil(b_k * multiplier), n). Fold k
keeps a supporting model of the positions [0, b_{k+1}): its leaf values are
estimated on the *body* [0, b_k) and its *tail* [b_k, b_{k+1}) takes its
gradients from it, so no row's gradient comes from a model that saw it.
Positions below b_0 are in no tail.
"""
from __future__ import annotations

import math

import numpy as np

from .._checks import MAX_PERMUTATION_VALUES
from ..messages import warn

#: CatBoost's SelectMinBatchSize: above this many rows the first body is
#: n / ROWS_PER_FIRST_ROW rows, at most MAX_FIRST_BODY; else one row
SMALL_DATA_ROWS = 500
ROWS_PER_FIRST_ROW = 50
MAX_FIRST_BODY = 100
#: a first body (``min_fold_size``) above this share of the rows is warned of: its
#: rows are in no tail, so the split score sees the gradients of the others only
LARGE_FIRST_BODY_SHARE = 0.5


def first_fold_size(n: int) -> int:
    """CatBoost's first body size for ``n`` rows (SelectMinBatchSize)."""
    return min(MAX_FIRST_BODY, n // ROWS_PER_FIRST_ROW) if n > SMALL_DATA_ROWS else 1


def fold_boundaries(n: int, multiplier: float = 2.0,
                    min_fold_size: int | None = None) -> np.ndarray:
    """The boundaries b_0 < ... < b_K = n of the folds (see the module)."""
    if min_fold_size is not None and int(min_fold_size) >= n:
        raise ValueError(f"min_fold_size must be smaller than the {n} rows boosted on (the "
                         f"training rows; in cv a fold's, with zero_subsample those kept): "
                         f"it is the first fold's body, from which the rows after it take "
                         f"their gradients; got {min_fold_size}")
    b = first_fold_size(n) if min_fold_size is None else int(min_fold_size)
    if min_fold_size is not None and b > LARGE_FIRST_BODY_SHARE * n:
        warn(f"min_fold_size={b} puts {b} of the {n} training rows in the first fold's "
             f"body, which is in no tail: the split score sees the gradients of the other "
             f"{n - b} rows only, and ordered boosting learns little (CatBoost's rule, "
             f"min_fold_size=None, gives {first_fold_size(n)})")
    bounds = [b]
    while bounds[-1] < n:
        bounds.append(min(math.ceil(bounds[-1] * multiplier), n))
    return np.asarray(bounds, dtype=np.intp)


#: values per row and fold of a tree's histogram columns (pygbm.ordered.columns):
#: the working response and, with weights, the weight
FOLD_COLUMN_WIDTH = 2


def check_fold_table(bounds: np.ndarray, n_permutations: int, multiplier: float,
                     min_fold_size: int | None) -> None:
    """Refuse folds whose supporting models would not fit. Every permutation keeps
    a value per position of every fold (the sum of the fold ends, about 2 n with
    the default growth, but about n^2 / 2 as ``multiplier`` nears 1), and every
    tree's histogram columns hold :data:`FOLD_COLUMN_WIDTH` values per row and fold;
    each table within the :data:`~pygbm._checks.MAX_PERMUTATION_VALUES` a fit may
    hold."""
    n, n_folds = int(bounds[-1]), bounds.shape[0] - 1
    tables = {f"whose supporting models over {n_permutations} permutations would hold":
              n_permutations * int(bounds[1:].sum()),
              "whose histogram columns would hold": n * n_folds * FOLD_COLUMN_WIDTH}
    for what, values in tables.items():
        if values > MAX_PERMUTATION_VALUES:
            raise ValueError(
                f"fold_len_multiplier={multiplier!r} with min_fold_size={min_fold_size!r} "
                f"cuts the {n} rows boosted on into {n_folds:,} folds, {what} {values:,} "
                f"values per table, above the {MAX_PERMUTATION_VALUES:,} (2 GiB) a fit may "
                f"hold: raise fold_len_multiplier (CatBoost's default is 2) or "
                f"min_fold_size, or lower n_permutations")
