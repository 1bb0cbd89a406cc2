"""What a kernel implementation provides: the :class:`Kernels` bundle and
the argument types its functions share.

Every implementation (the NumPy reference, :mod:`.reference`, or one added
with :func:`pygbm.engine.kernels.register`) gives each function the same
signature and the same outputs, position by position; the NumPy engine's
stages call them through the bundle that :func:`pygbm.engine.kernels.active`
returns. (The compiled engine, ``engine/compiled/``, compiles whole stages
instead: the growth of a tree, the boosting loop, prediction; the test suite
holds its fits bit-identical to the NumPy engine's.)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np


class GainBlock(NamedTuple):
    """A block of a node's continuous predictors, each row one predictor's
    rows in its sorted order (the ``nm`` missing rows first): the prefix sums
    ``ls`` of w*z (floats; exact integers with unit weights), w*z ``G`` and
    w ``H`` (None: unit weights) in that order; ``total``, the node's sums
    of w*z and w as R has them (weighted gains start R's running sums from
    them; None: each row's own sums, added in order)."""

    ls: np.ndarray
    G: np.ndarray
    H: np.ndarray | None
    nm: np.ndarray
    total: tuple[float, float] | None = None


class HistogramScratch(NamedTuple):
    """Buffers the histogram kernel reuses: a chunk of rows' cell codes and
    columns, and the sparse matrix's constant entries (ones) and column
    pointers for a chunk."""

    codes: np.ndarray
    cols: np.ndarray
    ones: np.ndarray
    indptr: np.ndarray


@dataclass(frozen=True)
class Kernels:
    """One implementation of the engine's hot loops (see :mod:`.reference`
    for each function's contract).

    * exact search, gains at every position of a block of continuous
      predictors: ``plain_terms(m, total, min_obs, counts)`` and
      ``gain_plain(G, terms)`` (unit weights, nothing missing or tied; the
      two-half layout (predictors, m // 2, 2)); ``gain_missing(G, nm, total,
      min_obs, counts)`` (the same with missing values); ``simple_terms(m,
      total, min_obs)`` and ``gain_simple(block, rows, terms, gain)``;
      ``gain_unit_missing(block, rows, min_obs, gain)``;
      ``gain_general(block, rows, min_obs, gain)`` (weights); and
      ``monotone(block, mono, unit, gain)``, R's monotone filter (the last
      four fill ``gain`` (predictors, m - 1) in place);
    * binned search: ``histogram(codes, cols, rows, n_cells, scratch)``;
    * routing rows to a split's children: ``route(x, value, goes_right)``;
    * prediction: ``terminal_nodes(tree, view, c_splits, rows)``, the terminal
      node of each row (engine/tree.py's, which the NumPy predictor calls
      directly; the compiled one is engine/compiled/predict.py's walk).
    """

    name: str
    plain_terms: Callable
    gain_plain: Callable
    gain_missing: Callable
    simple_terms: Callable
    gain_simple: Callable
    gain_unit_missing: Callable
    gain_general: Callable
    monotone: Callable
    histogram: Callable
    route: Callable
    terminal_nodes: Callable
