"""The training data as the engine sees it: a coded matrix, presorted once.

R gbm sorts every predictor once over the training rows (missing values
first, ties in row order) and scans those orders when it looks for splits;
:class:`TrainingData` holds the same orders, transposed so that one row of
the arrays is one predictor.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, NamedTuple

import numpy as np

from .exact import ExactSearch


def level_codes(values: np.ndarray, n_levels: np.ndarray, var_ids: np.ndarray,
                missing) -> np.ndarray:
    """Level codes (k, n) of categorical predictors ``var_ids`` from their
    values (k, n), NaN coded ``missing`` (a scalar or one per predictor);
    ValueError naming the first predictor with a code outside 0..K-1."""
    miss = np.isnan(values)
    missing = np.broadcast_to(np.asarray(missing, dtype=np.intp), (values.shape[0],))
    codes = np.where(miss, missing[:, None], np.nan_to_num(values)).astype(np.intp)
    bad = ((codes < 0) | (codes >= np.asarray(n_levels)[:, None])) & ~miss
    if bad.any():
        i = int(np.flatnonzero(bad.any(axis=1))[0])
        raise ValueError(f"categorical predictor {int(var_ids[i])} has codes outside "
                         f"0..{int(n_levels[i]) - 1}")
    return codes


class ExactLayout(NamedTuple):
    """What the exact search needs to know of the predictors, the same for
    every tree of a fit."""

    xvars: np.ndarray     # continuous predictors whose sorted values the nodes carry
    xrow: np.ndarray      # (p,) row of a predictor in NodeRows.X, -1 if none
    look: np.ndarray      # rows (of the continuous block) with tied values
    mono: np.ndarray      # monotone constraint per continuous predictor
    mono_any: bool
    cont_row: np.ndarray  # (p,) row of a predictor in NodeRows.S, -1 if categorical
    cont_xrow: np.ndarray  # (continuous,) its row in NodeRows.X, -1 if none
    counts: np.ndarray    # 1.0, 2.0, ..., n: row counts as floats


@dataclass
class TrainingData:
    """Predictors of the training rows, with what the split search needs.

    Parameters
    ----------
    x : (n_train, p) float array, coded as in docs/ARCHITECTURE.md (NaN = missing)
    var_type : (p,) int, 0 for continuous/ordered, number of levels otherwise
    var_monotone : (p,) int in {-1, 0, 1}

    Continuous predictors are presorted (``order``, one row per continuous
    predictor, in the order of ``cont``). Categorical predictors need no order:
    R sums each level over its rows in row order, which a weighted count over
    the node's rows in row order reproduces (``category_cells``).
    """

    #: fits on this layout are R's to the last bit (R's exact scan)
    r_arithmetic: ClassVar[bool] = True
    #: the presorted rows of R's exact scan (the compiled grower reads them)
    presorted: ClassVar[bool] = True

    x: np.ndarray
    var_type: np.ndarray
    var_monotone: np.ndarray
    xt: np.ndarray = field(init=False, repr=False)
    cont: np.ndarray = field(init=False, repr=False)
    cat: np.ndarray = field(init=False, repr=False)
    order: np.ndarray = field(init=False, repr=False)
    has_nan: np.ndarray = field(init=False, repr=False)
    n_nan: np.ndarray = field(init=False, repr=False)
    has_ties: np.ndarray = field(init=False, repr=False)
    category_cells: np.ndarray | None = field(init=False, repr=False)
    cell_width: int = field(init=False, repr=False)
    layout: ExactLayout = field(init=False, repr=False)
    _sorted_values: dict = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self):
        x = np.asarray(self.x, dtype=float)
        self.var_type = np.asarray(self.var_type, dtype=np.intp)
        self.var_monotone = np.asarray(self.var_monotone, dtype=np.intp)
        # one predictor per row: gathers along a node's rows stay contiguous
        self.xt = np.ascontiguousarray(x.T)
        self.has_nan = np.isnan(self.xt).any(axis=1)
        self.cont = np.flatnonzero(self.var_type == 0)
        self.cat = np.flatnonzero(self.var_type > 0)
        xc = self.xt[self.cont]
        nan = np.isnan(xc)
        # NaN first, then increasing values, ties kept in row order (R's
        # order(x, na.last = FALSE)); a stable sort puts NaN last, so the NaN
        # block of each predictor is moved to the front
        order = np.argsort(xc, axis=1, kind="stable").astype(np.intp)
        n_nan = nan.sum(axis=1)
        self.n_nan = n_nan.astype(np.intp)
        for j in np.flatnonzero(n_nan):
            order[j] = np.roll(order[j], n_nan[j])
        # native integers: np.take converts any other index type first
        self.order = order
        sorted_x = np.take_along_axis(xc, self.order, axis=1)
        self.has_ties = np.zeros(self.p, dtype=bool)
        self.has_ties[self.cont] = (sorted_x[:, 1:] == sorted_x[:, :-1]).any(axis=1)
        # kept for the predictors the exact search reads (ExactLayout.xvars)
        read = np.flatnonzero(self.has_ties[self.cont])
        self._sorted_values[tuple(self.cont[read].tolist())] = sorted_x[read]
        self._category_cells()
        self.layout = self._exact_layout()
        self.x = x

    def _exact_layout(self) -> ExactLayout:
        cont = self.cont
        # continuous predictors whose sorted values the search reads, carried
        # along the nodes: those with tied values (missing values need only
        # their count per node, which comes first)
        xvars = cont[self.has_ties[cont]]
        xrow = np.full(self.p, -1)
        xrow[xvars] = np.arange(xvars.size)
        look = np.flatnonzero(self.has_ties[cont])
        mono = self.var_monotone[cont]
        cont_row = np.full(self.p, -1)
        cont_row[cont] = np.arange(cont.size)
        return ExactLayout(xvars, xrow, look, mono, bool(mono.any()), cont_row, xrow[cont],
                           np.arange(1.0, self.n + 1.0))

    def _category_cells(self):
        """Every categorical predictor's level as a cell index: predictor ``i``
        of ``cat`` owns cells ``i * cell_width ...``, one per level (padded to
        the most levels) and the last one for its missing values."""
        if not self.cat.size:
            self.category_cells, self.cell_width = None, 0
            return
        self.cell_width = int(self.var_type[self.cat].max()) + 1
        codes = level_codes(self.xt[self.cat], self.var_type[self.cat], self.cat,
                            self.cell_width - 1)
        codes += (np.arange(self.cat.size) * self.cell_width)[:, None]
        self.category_cells = codes

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
        """The presorted orders of the continuous predictors restricted to the
        rows of the bag, (pc, m); their numbers of missing values in the bag,
        (pc,); and, for the (continuous) predictors ``with_values``, their
        sorted values in the bag (else None)."""
        if inbag is None:
            S, nm = self.order, self.n_nan.copy()
            X = None if with_values is None else self.sorted_values(with_values)
            return S, nm, X
        pc = self.cont.size
        keep = inbag.take(self.order)
        S = self.order.ravel().compress(keep.ravel()).reshape(pc, -1) if pc else \
            np.empty((0, int(np.count_nonzero(inbag))), dtype=np.intp)
        nm = np.zeros(pc, dtype=np.intp)
        for j in np.flatnonzero(self.n_nan).tolist():     # missing values come first
            nm[j] = np.count_nonzero(keep[j, :self.n_nan[j]])
        X = None
        if with_values is not None:
            rows = np.searchsorted(self.cont, with_values)
            X = np.compress(keep[rows].ravel(), self.sorted_values(with_values).ravel()
                            ).reshape(with_values.size, -1)
        return S, nm, X

    def sorted_values(self, cols: np.ndarray) -> np.ndarray:
        """The values of the continuous predictors ``cols`` in their sorted
        orders, (len(cols), n); computed once (only the predictors the search
        reads need them)."""
        key = tuple(np.asarray(cols).tolist())
        if key not in self._sorted_values:
            rows = np.searchsorted(self.cont, list(key))
            self._sorted_values[key] = np.take_along_axis(self.xt[list(key)],
                                                          self.order[rows], axis=1)
        return self._sorted_values[key]

    def searcher(self, z, w, unit_weights: bool, min_obs: int, adjustment=None):
        """The split search for one tree on this data (R's exact search);
        ``adjustment``: an optional split-gain adjustment (:mod:`.adjustment`)."""
        return ExactSearch(self, z, w, unit_weights, min_obs, adjustment)
