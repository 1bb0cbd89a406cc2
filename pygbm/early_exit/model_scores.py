"""The bridge from a fitted gbm to QWYC: coded rows, starting scores, tree scores.

:class:`ModelScores` keeps what prediction needs of a fit (its trees, the
encoders of new data, ``init_f``), not its data: a copy of the fit without
the kept training rows and per-row values codes new data exactly as
``GBMFit.predict`` does, the predictor seam (``TreePredictor``) scores
trees on any subset of the prepared rows, and the trees packed once as the
engine's :class:`~pygbm.engine.forest.FlatForest` are what the compiled
kernels and the NumPy tail walk (and give each node's depth for path costs).
"""
from __future__ import annotations

import dataclasses
import numbers

import numpy as np

from .._checks import per_row_arg
from ..engine.forest import FlatForest
from ..engine.tree import ColumnView, TreePredictor, terminal_nodes
from .forest import compiled_kernels

def decision_threshold(distribution, threshold) -> tuple[float, float]:
    """(threshold on the response scale, beta on the link scale).

    None: probability 0.5 (bernoulli, adaboost), link 0 (huberized, whose
    response is its link).
    """
    link = distribution.response_link
    number = isinstance(threshold, numbers.Real) and not isinstance(threshold, bool)
    if link == "identity":
        if threshold is not None and not (number and np.isfinite(threshold)):
            raise ValueError(f"threshold must be a finite number on the link scale "
                             f"({distribution.name}'s response), got {threshold!r}")
        value = 0.0 if threshold is None else float(threshold)
        return value, value
    if threshold is not None and not (number and 0 < threshold < 1):
        raise ValueError(f"threshold must be a probability strictly between 0 and 1, "
                         f"got {threshold!r}")
    value = 0.5 if threshold is None else float(threshold)
    return value, _least_link_at(distribution, value)


def _least_link_at(distribution, threshold: float) -> float:
    """The least link value whose response (``distribution.inverse_link``, as
    ``predict(type="response")`` computes it) is at least ``threshold``, so that
    ``link >= beta`` decides as ``response >= threshold`` for every row. The link of
    ``threshold`` is that value only up to rounding: ``inverse_link`` rounds the
    responses of a range of links to one float (wide where the response is flat:
    about 1e-6 of the link at 1 - 1e-10), so rows whose response equals the
    threshold were decided negative below it. The crossing is bisected on the
    floats around the link of ``threshold`` (0.5 gives -3.3e-16 for bernoulli: the
    responses of the links from there to 0 round to 0.5)."""
    def reaches(g: float) -> bool:
        return bool(distribution.inverse_link(np.array([g]))[0] >= threshold)

    guess = float(distribution.link(threshold))
    low = high = guess            # widened until reaches(low) is False, reaches(high) True
    step = np.spacing(abs(guess))
    while reaches(low):
        low, step = guess - step, 2 * step
    step = np.spacing(abs(guess))
    while not reaches(high):
        high, step = guess + step, 2 * step
    while np.nextafter(low, high) != high:
        middle = low + (high - low) / 2
        if not low < middle < high:       # rounded onto an end: the two are neighbours
            break
        low, high = (low, middle) if reaches(middle) else (middle, high)
    return float(high)


class ModelScores:
    """A fit's first ``n_trees`` trees as per-tree scores on coded rows."""

    def __init__(self, fit, n_trees: int):
        self.model = dataclasses.replace(
            fit, trees=list(fit.trees[:n_trees]), data=None, fit=np.empty(0),
            cv_fitted=None, fold_id=None, ts_support=None, rng=None, row_order=None)
        self.predictor = TreePredictor(self.model.trees, fit.c_splits, fit.engine_var_type)
        self.forest = FlatForest.of(self.predictor.trees, fit.c_splits, fit.engine_var_type)
        self.init_f = float(fit.init_f)

    @property
    def n_trees(self) -> int:
        return len(self.predictor)

    def coded(self, fit, data, offset=None, x=None, name: str = "newdata",
              offset_name: str = "offset") -> tuple[ColumnView, np.ndarray]:
        """The rows of ``data`` prepared for the trees, and their starting score
        (``init_f`` plus the offset: ``offset`` given, else the formula's ``offset()``
        terms on ``data``; a fit trained with an offset argument, ``matrix_offset``,
        needs ``offset``). ``data`` None: the fit's kept training rows (and offsets),
        not its validation rows;
        ``x``: ``data`` coded already (``fit._design(data)``), when the caller has it;
        ``name`` and ``offset_name``: the caller's arguments, as errors call them."""
        if data is None:
            if fit.data is None:
                raise ValueError(f"{name} is required: the model was fitted with "
                                 "keep_data=False, so the training data were not kept")
            rows = fit.training_index       # not the validation rows (train_fraction < 1)
            x, kept = fit.data.x[rows], fit.data.response.offset
            if offset is None and kept is not None:
                offset = np.asarray(kept)[rows]
            if offset is not None:
                offset = per_row_arg(offset_name, offset, x.shape[0], name)
        else:
            x = self.model._design(data, name) if x is None else x
            offset = fit._new_offsets(data, offset, x.shape[0], offset_name, name)
        view = self.predictor.prepare(self.model.to_engine(x))
        g0 = np.full(view.n_rows, self.init_f)
        return view, g0 if offset is None else g0 + offset

    def rows(self, data) -> ColumnView:
        """New rows prepared (no kept data, so ``data`` is required)."""
        return self.predictor.prepare(self.model.to_engine(self.model._design(data)))

    def matrix(self, view: ColumnView) -> np.ndarray:
        """Every tree's score on every row: (trees, rows), training order (the
        compiled walk when numba is there, else the predictor seam)."""
        kernels = compiled_kernels()
        if kernels is not None:
            return kernels.score_matrix(self.forest, np.ascontiguousarray(view.cols.T))
        scores = np.empty((self.n_trees, view.n_rows))
        for t in range(self.n_trees):
            scores[t] = self.predictor.tree_score(t, view)
        return scores

    def path_cost(self, view: ColumnView) -> np.ndarray:
        """Mean number of split nodes each tree evaluates on the rows of ``view``."""
        cost = np.empty(self.n_trees)
        for t, tree in enumerate(self.predictor.trees):
            at = terminal_nodes(tree, view, self.predictor.c_splits)
            cost[t] = self.forest.level[self.forest.root[t] + at].mean()
        return cost
