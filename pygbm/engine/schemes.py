"""Boosting schemes: what each iteration's trees are grown and fitted on.

A scheme tells the loop, per iteration, the training data a tree is grown
on, the link values whose gradient it is grown from and the data whose
routing of the rows its leaf values are fitted on (:class:`TreeInputs`);
it hears of every tree added, and hands the loop's state what a later
``gbm_more`` continues from. :class:`PlainBoosting` is R's (one encoding
of the rows, the fit's own predictions); CatBoost's Plain mode with ordered
target statistics is :class:`pygbm.target_stats.scheme.SupportingModels`;
CatBoost's Ordered mode is :class:`pygbm.ordered.scheme.OrderedBoosting`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np


@dataclass(frozen=True, eq=False)
class TreeInputs:
    """What one iteration's trees are grown on: ``data`` (the training
    rows' encoding), ``f_grow`` (link values of the training rows whose
    gradient the trees follow) and ``leaf_data`` (the encoding whose routing
    the leaf values are fitted on, against the fit's own predictions; a leaf
    that routing gives fewer than ``n_minobsinnode`` in-bag rows takes no
    step; None: the rows as the tree was grown) and ``grower`` (a grower of
    the scheme's own for this tree, e.g. ordered boosting's; None: the fit's
    tree stage on ``data``)."""

    data: object
    f_grow: np.ndarray
    leaf_data: object | None = None
    grower: object | None = None


class SchemeRun(Protocol):
    """A scheme during one ``run_boosting`` (see the module docstring)."""

    def tree_inputs(self, iteration: int, f_tr: np.ndarray) -> TreeInputs:
        """The inputs of iteration ``iteration`` (0-based, over the whole fit);
        ``f_tr`` are the fit's training link values (updated in place)."""

    def tree_added(self, grown, inputs: TreeInputs, shrinkage: float) -> None:
        """A fitted tree (``grown``, an engine GrownTree) was added to the model."""

    def finish(self, state) -> None:
        """Write into ``state`` what a later ``gbm_more`` continues from."""


class BoostingScheme(Protocol):
    """A boosting scheme: started by each ``run_boosting``."""

    def start(self, state, f_tr: np.ndarray) -> SchemeRun:
        """The scheme's run from ``state`` (a :class:`.boost.BoostState`, as
        continued) and the fit's training link values ``f_tr``."""


class PlainBoosting:
    """R's boosting: every tree grown on ``data`` from the fit's own
    predictions, its leaves fitted on the rows as grown (a scheme and its
    own run: it keeps nothing)."""

    def __init__(self, data):
        self.data = data

    def start(self, state, f_tr: np.ndarray) -> PlainBoosting:
        return self

    def tree_inputs(self, iteration: int, f_tr: np.ndarray) -> TreeInputs:
        return TreeInputs(self.data, f_tr)

    def tree_added(self, grown, inputs: TreeInputs, shrinkage: float) -> None:
        """Nothing to follow."""

    def finish(self, state) -> None:
        """Nothing to keep."""
