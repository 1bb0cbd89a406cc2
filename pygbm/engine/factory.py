"""The one place that chooses how the engine sees a fit's training rows.

:func:`training_data` picks the data layout, and with it the split search
(each layout's ``searcher`` makes its own: presorted :class:`.data.TrainingData`
-> R's exact scan, :class:`.exact.ExactSearch`; binned
:class:`.binned.BinnedTrainingData` -> :class:`.histogram_search.HistogramSearch`):

* ``max_bins`` given: binned data, quantile buckets (the fast binned mode);
* exact mode, data whose continuous predictors all have few distinct values
  (at most :func:`few_values_limit`): binned data with one bucket per value,
  which the histogram search splits exactly as R's scan (with R's sums and
  tie-breaking) and faster;
* otherwise the presorted data of R's exact scan.

:class:`TreeStage` picks, per fit, how trees are grown on such data and how
a fitted tree steps the validation rows: the NumPy engine's searcher and
grower, or with ``engine="numba"`` the compiled growers of :mod:`.compiled`
without a split-gain adjustment: R's exact scan on presorted data up to
:data:`COMPILED_MAX_ELEMENTS` rows x predictors or :data:`COMPILED_MAX_WIDE_ROWS`
rows (:func:`compiled_size`), the histogram search on binned data (the
other cases stay with the NumPy stages, which give the same trees).
"""
from __future__ import annotations

import numpy as np

from .binned import MAX_BUCKETS, BinnedTrainingData
from .cegb import CostTracker
from .data import TrainingData
from .grow import SearchGrower
from .tree import ColumnView, Tree

#: exact mode: the histogram search (one bucket per value) takes over when no
#: continuous predictor has more distinct values than FEW_VALUES or than
#: 1/ROWS_PER_VALUE of the training rows: measured, one bucket per value is
#: faster than the presorted scan up to about n/5 values (Friedman data,
#: 10k and 100k rows), slower beyond
FEW_VALUES, ROWS_PER_VALUE = 255, 8
#: the most values the one-bucket-per-value layout takes (16-bit codes)
MAX_VALUES = MAX_BUCKETS
#: the compiled grower is used up to this many training rows times predictors:
#: measured per tree of depth 3 (bag 0.5), it takes 0.3x the NumPy search's
#: time at 20k, 0.7x at 100k, 0.8x at 200k and 1.1x at 500k (NumPy's
#: whole-array passes amortise their calls on large nodes)
COMPILED_MAX_ELEMENTS = 400_000
#: and, whatever the number of predictors, up to this many training rows (wide
#: data, where NumPy's whole-array passes run over tiny nodes): measured per fit
#: of 300 trees of depth 3 (bag 0.5), it takes 0.26x the NumPy search's time at
#: 200 rows x 3000 predictors, 0.48x at 500 x 1000, 0.75x at 1000 x 1000, 0.79x
#: at 300 x 5000 and 0.98x at 1000 x 2000 (but 1.8x at 3000 x 300)
COMPILED_MAX_WIDE_ROWS = 1000
#: rows looked at first when counting distinct values (most continuous data
#: already shows too many in them)
_PEEK_ROWS = 4096


def compiled_size(n_rows: int, n_predictors: int) -> bool:
    """Whether training data of this size go to the compiled grower (and the
    compiled boosting loop): :data:`COMPILED_MAX_ELEMENTS` rows x predictors,
    or at most :data:`COMPILED_MAX_WIDE_ROWS` rows."""
    return (n_rows * n_predictors <= COMPILED_MAX_ELEMENTS
            or n_rows <= COMPILED_MAX_WIDE_ROWS)


def few_values_limit(n_train: int) -> int:
    """Most distinct values per continuous predictor for the histogram search."""
    return min(max(FEW_VALUES, n_train // ROWS_PER_VALUE), MAX_VALUES)


def few_values(x: np.ndarray, var_type: np.ndarray, limit: int) -> bool:
    """Whether every continuous column of ``x`` has at most ``limit`` distinct values."""
    cont = np.flatnonzero(np.asarray(var_type) == 0)
    for peek in (True, False):
        for j in cont:
            col = x[:_PEEK_ROWS, j] if peek else x[:, j]
            col = col[~np.isnan(col)]
            if np.unique(col).size > limit:
                return False
    return True


def training_data(x: np.ndarray, var_type: np.ndarray, var_monotone: np.ndarray,
                  max_bins: int | None = None, engine: str = "numpy"):
    """The engine's view of the training rows ``x`` (see the module's docstring);
    ``max_bins`` None is R's exact search. With ``engine="numba"``, data small
    enough for the compiled grower (:func:`compiled_size`) stay
    presorted whatever their number of distinct values: it is faster there
    than the histogram search, with the same splits."""
    if max_bins is None:
        if engine == "numba" and compiled_size(x.shape[0], x.shape[1]):
            return TrainingData(x, var_type, var_monotone)
        limit = few_values_limit(x.shape[0])
        if not few_values(x, var_type, limit):
            return TrainingData(x, var_type, var_monotone)
        # at most ``limit`` values per predictor: one bucket each (exact_bins)
        return BinnedTrainingData(x, var_type, var_monotone, limit)
    return BinnedTrainingData(x, var_type, var_monotone, max_bins)



def compiled_exact(data, adjustment) -> bool:
    """Whether the compiled engine grows the trees on ``data`` by R's exact
    scan (presorted data of :func:`compiled_size`, without a split-gain
    adjustment); its boosting loop runs there too (:mod:`.compiled.boosting`)."""
    return data.presorted and adjustment is None and compiled_size(data.n, data.p)


def compiled_costs(adjustment, data) -> bool:
    """Whether ``adjustment`` is CEGB's costs that a compiled grower (and loop)
    applies on ``data`` (:meth:`.cegb.CostTracker.compiled_state`: unit case
    weights, no feature combinations): the exact grower's data, or binned data
    searched on histograms (not one bucket per value, where R's arithmetic
    decides)."""
    if not (isinstance(adjustment, CostTracker) and adjustment.compiled_state() is not None):
        return False
    if isinstance(data, BinnedTrainingData):
        return not data.exact_bins
    return compiled_exact(data, None)


class TreeStage:
    """How one fit grows trees and steps its validation rows (``engine``:
    "numba" or "numpy"); one grower per training data, made on first use."""

    def __init__(self, engine: str, depth: int, min_obs: int, adjustment=None):
        self.compiled = engine == "numba"
        self.depth, self.min_obs, self.adjustment = int(depth), int(min_obs), adjustment
        self._growers: dict = {}
        self._step = Tree.predict_view
        if self.compiled:
            # numba is imported with the compiled stage, on a fit's first use
            from .compiled.grower import tree_step

            self._step = tree_step

    def grower(self, data):
        """The grower of trees on ``data`` (a training data of the factory)."""
        key = id(data)
        if key not in self._growers:
            self._growers[key] = (data, self._make(data))
        return self._growers[key][1]

    def _make(self, data):
        if self.compiled and (self.adjustment is None
                              or compiled_costs(self.adjustment, data)):
            costs = self.adjustment
            if compiled_exact(data, None):
                from .compiled.grower import CompiledGrower

                return CompiledGrower(data, self.depth, self.min_obs, costs)
            if isinstance(data, BinnedTrainingData):
                from .compiled.grower import CompiledBinnedGrower

                return CompiledBinnedGrower(data, self.depth, self.min_obs, costs)
        return SearchGrower(data, self.depth, self.min_obs, self.adjustment)

    def step(self, tree: Tree, view: ColumnView, c_splits: list) -> np.ndarray:
        """Shrunken prediction of ``tree`` for the rows of ``view``."""
        return self._step(tree, view, c_splits)
