"""What a distribution's methods receive besides the link values: the rows'
targets, the terminal nodes of a tree, and the fit they belong to.

A distribution instance holds only its parameters (alpha, df, metric...), so
one instance serves any number of fits at once (cv folds, the main fit). What
one fit learns or keeps lives in its :class:`FitContext`.
"""
from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass, field

import numpy as np

from .._rmath import exp_r, log1p_r, log_r
from ..rrandom import RRandom


@dataclass(frozen=True, eq=False)
class Targets:
    """The response side of some rows (gbm3's dataset): ``y`` (checked and
    coded by ``check_response``), ``offset`` (None = R's NA: no offset),
    ``w`` (case weights, normalised as R's gbm.fit does) and ``misc``
    (coxph: the event indicator, rows sorted by decreasing time; pairwise:
    the group code of every row; None otherwise)."""

    y: np.ndarray
    offset: np.ndarray | None
    w: np.ndarray
    misc: np.ndarray | None = None

    def rows(self, index) -> Targets:
        """The targets of the rows ``index`` (a slice, mask or index array)."""
        return Targets(self.y[index], None if self.offset is None else self.offset[index],
                       self.w[index], None if self.misc is None else self.misc[index])

    def with_weights(self, w: np.ndarray) -> Targets:
        """The same rows with other case weights (a sampler's weighted bag)."""
        return Targets(self.y, self.offset, w, self.misc)


@dataclass(frozen=True, eq=False)
class Leaves:
    """Where the training rows fell in one grown tree: ``node[i]`` is the
    terminal node of training row ``i`` (every row, in or out of bag),
    ``n_nodes`` the number of terminal nodes, ``counts`` the in-bag rows per
    node, ``grow_pred`` the mean working response per node at growing time
    (what R keeps when it does not re-estimate a node) and ``min_obs`` the
    fewest in-bag rows a node needs to be re-estimated (R's n.minobsinnode)."""

    node: np.ndarray
    n_nodes: int
    counts: np.ndarray
    grow_pred: np.ndarray
    min_obs: int


@dataclass(frozen=True, eq=False)
class FitContext:
    """What one fit knows that its distribution's parameters do not.

    ``classes``: labels of the response codes 0..K-1 of a multi-output
    distribution (None otherwise; ``n_outputs`` follows from it);
    ``noise_rng``: the generator of a distribution that breaks ties at random
    (pairwise's ranking noise; with R's stream, the fit's
    :class:`pygbm.RRandom` itself); ``r_exact_math``: exp and log on the fit's
    path (working responses, leaf values, deviances, out-of-bag improvements)
    with the C library's rounding, as R computes them, so that R's tie-breaks
    between equally good splits are reproduced and the compiled engine, whose
    exp and log are the C library's, gives the same numbers bit for bit (only
    binned fits that the compiled loop never runs use numpy's faster SIMD
    functions: :func:`pygbm.fitting.library_math`); ``cache``: what a distribution keeps
    between calls of one fit (per-iteration probabilities, group layouts),
    dropped when pickled.
    """

    classes: np.ndarray | None = None
    noise_rng: np.random.Generator | RRandom | None = None
    r_exact_math: bool = True
    cache: dict = field(default_factory=dict, repr=False)

    @property
    def n_outputs(self) -> int:
        """Link columns: one per class of a multi-output fit, else 1."""
        return 1 if self.classes is None else int(len(self.classes))

    def detached(self) -> FitContext:
        """This context for the deviance of rows the fit is not fitting (a test
        set, permuted rows): the tie-breaking noise drawn from a copy of the
        generator and an empty cache, so that the fit's own (the generator
        ``gbm_more`` continues, its cached layouts) are untouched."""
        return dataclasses.replace(self, noise_rng=copy.deepcopy(self.noise_rng), cache={})

    def model_exp(self, x):
        """exp on the fit's path (see ``r_exact_math``)."""
        if self.r_exact_math:
            return exp_r(x)
        with np.errstate(over="ignore"):    # inf, silently, as R's exp
            return np.exp(np.asarray(x, dtype=float))

    def model_log(self, x):
        """log on the fit's path (see ``r_exact_math``)."""
        if self.r_exact_math:
            return log_r(x)
        return np.log(np.asarray(x, dtype=float))

    def model_log1p(self, x):
        """log1p on the fit's path (see ``r_exact_math``)."""
        if self.r_exact_math:
            return log1p_r(x)
        return np.log1p(np.asarray(x, dtype=float))

    def __getstate__(self):
        state = dict(self.__dict__)
        state["cache"] = {}
        return state
