"""Binned training data as the compiled kernels read it: one tuple of arrays.

:class:`BinnedLayout` holds what :class:`pygbm.engine.binned.BinnedTrainingData`
fixed once per fit, as arrays and scalars (a named tuple: numba passes it
into compiled code as it is, and a compiled boosting loop can hold it).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..kernels.reference import packed_histograms

#: most buckets of one predictor whose codes fit 8 and 16 bits
_UINT8_CODES, _UINT16_CODES = 1 << 8, 1 << 16


class BinnedLayout(NamedTuple):
    """The binned data of one fit (see :mod:`pygbm.engine.binned`)."""

    #: (p, n) every predictor's bucket of every row, counted from the
    #: predictor's first cell (``offset``): 8 bits where they fit, one row of
    #: codes per predictor (a node's histogram is counted predictor by
    #: predictor, each predictor's cells staying in the first-level cache)
    local: np.ndarray
    #: (p, n) raw predictor values (NaN missing): rows are routed by them
    xt: np.ndarray
    #: (p,) 0 continuous, else number of levels; (p,) monotone -1 / 0 / 1
    var_type: np.ndarray
    mono: np.ndarray
    #: continuous and categorical predictors; (p,) row of a continuous one in cont
    cont: np.ndarray
    cat: np.ndarray
    cont_row: np.ndarray
    #: (p,) first cell of each predictor
    offset: np.ndarray
    #: cells per continuous predictor (the last: missing values); all cells
    width: int
    n_cells: int
    #: (pc, width - 1) smallest / largest training value of each bucket
    bin_min: np.ndarray
    bin_max: np.ndarray
    #: (pcat, widest) level cells of each categorical (padded: the spare
    #: cell n_cells); (pcat,) its missing cell
    cat_cells: np.ndarray
    cat_missing: np.ndarray
    #: one bucket per distinct value: every split in R's arithmetic
    exact_bins: bool
    #: unit weights sum one packed int64 per row (else float columns; as
    #: engine.histogram.HistogramBuilder decides)
    packable: bool


def binned_layout(data) -> BinnedLayout:
    """The layout of a :class:`pygbm.engine.binned.BinnedTrainingData`."""
    var_type = data.var_type.astype(np.int64)
    cont_row = np.full(data.p, -1, dtype=np.int64)
    cont_row[data.cont] = np.arange(data.cont.size)
    cat_cells = data.cat_cells.astype(np.int64)
    if cat_cells.ndim != 2 or cat_cells.shape[0] == 0:
        cat_cells = np.zeros((0, 1), dtype=np.int64)
    offset = data.offset.astype(np.int64)
    widest = max(int(data.width), int(data.var_type.max(initial=0)) + 1)
    dtype = np.uint8 if widest <= _UINT8_CODES else np.uint16 if widest <= _UINT16_CODES \
        else np.int32
    local = np.empty(data.codes.shape[::-1], dtype=dtype)
    for j in range(data.p):
        np.subtract(data.codes[:, j], offset[j], out=local[j], casting="unsafe")
    return BinnedLayout(
        local=local, xt=data.xt, var_type=var_type,
        mono=data.var_monotone.astype(np.int64), cont=data.cont.astype(np.int64),
        cat=data.cat.astype(np.int64), cont_row=cont_row,
        offset=offset, width=int(data.width),
        n_cells=int(data.n_cells), bin_min=data.bin_min, bin_max=data.bin_max,
        cat_cells=cat_cells, cat_missing=data.cat_missing.astype(np.int64),
        exact_bins=bool(data.exact_bins), packable=bool(packed_histograms()))
