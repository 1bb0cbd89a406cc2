"""The training data as the engine sees it: a coded matrix, presorted once.

R gbm sorts every predictor once over the training rows (missing values
first, ties in row order) and scans those orders when it looks for splits;
:class:`TrainingData` holds the same orders, transposed so that one row of
the arrays is one predictor.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class TrainingData:
    """Predictors of the training rows, with what the split search needs.

    Parameters
    ----------
    x : (n_train, p) float array, coded as in docs/ARCHITECTURE.md (NaN = missing)
    var_type : (p,) int, 0 for continuous/ordered, number of levels otherwise
    var_monotone : (p,) int in {-1, 0, 1}
    """

    x: np.ndarray
    var_type: np.ndarray
    var_monotone: np.ndarray
    xt: np.ndarray = field(init=False, repr=False)
    order: np.ndarray = field(init=False, repr=False)
    has_nan: np.ndarray = field(init=False, repr=False)
    n_nan: np.ndarray = field(init=False, repr=False)
    has_ties: np.ndarray = field(init=False, repr=False)
    _sorted_values: dict = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self):
        x = np.asarray(self.x, dtype=float)
        self.var_type = np.asarray(self.var_type, dtype=np.intp)
        self.var_monotone = np.asarray(self.var_monotone, dtype=np.intp)
        # one predictor per row: gathers along a node's rows stay contiguous
        self.xt = np.ascontiguousarray(x.T)
        nan = np.isnan(self.xt)
        self.has_nan = nan.any(axis=1)
        # NaN first, then increasing values, ties kept in row order (R's
        # order(x, na.last = FALSE)); a stable sort puts NaN last, so the NaN
        # block of each predictor is moved to the front
        order = np.argsort(self.xt, axis=1, kind="stable").astype(np.intp)
        n_nan = nan.sum(axis=1)
        self.n_nan = n_nan.astype(np.intp)
        for j in np.flatnonzero(n_nan):
            order[j] = np.roll(order[j], n_nan[j])
        # native integers: np.take converts any other index type first
        self.order = order
        sorted_x = np.take_along_axis(self.xt, self.order, axis=1)
        same = sorted_x[:, 1:] == sorted_x[:, :-1]
        self.has_ties = same.any(axis=1)
        # kept for the predictors the exact search reads (ExactSearch.xvars)
        read = np.flatnonzero((self.var_type > 0) | self.has_ties)
        self._sorted_values[tuple(read.tolist())] = sorted_x[read]
        self.x = x

    @property
    def n(self) -> int:
        return self.xt.shape[1]

    @property
    def p(self) -> int:
        return self.xt.shape[0]

    @property
    def is_categorical(self) -> np.ndarray:
        return self.var_type > 0

    def bag_order(self, inbag: np.ndarray | None, with_values: np.ndarray | None = None):
        """The presorted orders restricted to the rows of the bag, (p, m); the
        number of missing values of every predictor in the bag, (p,); and, for
        the predictors ``with_values``, their sorted values in the bag (else None)."""
        if inbag is None:
            S, nm = self.order, self.n_nan.copy()
            X = None if with_values is None else self.sorted_values(with_values)
            return S, nm, X
        keep = np.take(inbag, self.order)
        S = np.compress(keep.ravel(), self.order.ravel()).reshape(self.p, -1)
        nm = np.zeros(self.p, dtype=np.intp)
        for j in np.flatnonzero(self.n_nan).tolist():     # missing values come first
            nm[j] = np.count_nonzero(keep[j, :self.n_nan[j]])
        X = None
        if with_values is not None:
            X = np.compress(keep[with_values].ravel(), self.sorted_values(with_values).ravel()
                            ).reshape(with_values.size, -1)
        return S, nm, X

    def sorted_values(self, rows: np.ndarray) -> np.ndarray:
        """The values of predictors ``rows`` in their sorted orders, (len(rows), n);
        computed once (only the predictors the search reads need them)."""
        key = tuple(np.asarray(rows).tolist())
        if key not in self._sorted_values:
            self._sorted_values[key] = np.take_along_axis(self.xt[list(key)],
                                                          self.order[list(key)], axis=1)
        return self._sorted_values[key]

    def searcher(self, z, w, unit_weights: bool, min_obs: int):
        """The split search for one tree on this data (R's exact search)."""
        from .split import ExactSearch

        return ExactSearch(self, z, w, unit_weights, min_obs)
